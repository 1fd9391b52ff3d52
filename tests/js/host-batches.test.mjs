// The scan asks the host for stats and heads a batch at a time (one boundary crossing per
// batch): every answer shape a host may give is read as a single call would read it, and one
// bad answer costs only its own file.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Memdir, memoryFs } from "memdir";

const header = (i) => `---\nname: n${i}\ndescription: d${i}\ntype: user\n---\n\nbody ${i}\n`;

/** memoryFs with files f00.md … f{n-1}.md, file i newer than file i − 1. */
function seeded(n) {
  const files = {};
  for (let i = 0; i < n; i++) files[`/m/f${String(i).padStart(2, "0")}.md`] = header(i);
  const fs = memoryFs(files);
  const stat = fs.stat;
  fs.stat = (path) => {
    const st = stat(path);
    const i = Number(/f(\d+)\.md$/.exec(path)?.[1] ?? 0);
    return { ...st, mtimeMs: 1_000_000 + i * 1000 };
  };
  return fs;
}

const descriptions = async (fs) => (await new Memdir({ fs, dir: "/m/" }).scan()).map((h) => h.description);

test("each readHead answer shape in one batch is read as a single read reads it", async () => {
  const fs = seeded(8);
  const readHead = fs.readHead;
  const bytes = (path, max) => readHead(path, max);
  const shapes = [
    (p, m) => bytes(p, m), // Uint8Array, synchronously
    async (p, m) => bytes(p, m), // a Promise of one
    (p, m) => bytes(p, m).slice().buffer, // ArrayBuffer
    (p) => header(3), // a string
    () => {
      throw Object.assign(new Error("denied"), { code: "EACCES" });
    },
    async () => {
      throw new Error("gone");
    },
    () => 42, // not bytes: a lying host
    (p, m) => ({ then: (ok) => ok(bytes(p, m)) }), // a thenable
  ];
  fs.readHead = (path, max) => shapes[Number(/f(\d+)\.md$/.exec(path)[1])](path, max);
  // Newest first; files 4, 5 and 6 cannot be read and are left out.
  assert.deepEqual(await descriptions(fs), ["d7", "d3", "d2", "d1", "d0"]);
});

test("each stat answer shape in one batch is read as a single stat reads it", async () => {
  const fs = seeded(6);
  const stat = fs.stat;
  fs.stat = (path) => {
    const st = stat(path);
    switch (Number(/f(\d+)\.md$/.exec(path)?.[1] ?? -1)) {
      case 1:
        return { kind: "file", mtimeMs: st.mtimeMs }; // no size: 0, still a file
      case 2:
        return { ...st, mtimeMs: String(st.mtimeMs) }; // mtime not a number: unreadable
      case 3:
        return { ...st, kind: "directory" }; // a directory, not a memory
      case 4:
        return Promise.reject(new Error("gone"));
      case 5:
        return Promise.resolve({ ...st, kind: "File" }); // an unknown kind
      default:
        return st;
    }
  };
  assert.deepEqual(await descriptions(fs), ["d1", "d0"]);
});

test("heads longer than the first read are read again until their 30 lines are in", async () => {
  // Three files whose first 30 lines run past 8 KiB (and one past 32 KiB) next to short ones.
  const files = {};
  const long = (n) => `---\nname: l\ndescription: long ${n}\n---\n${"x".repeat(n)}\n`;
  files["/m/a.md"] = long(9000);
  files["/m/b.md"] = header(1);
  files["/m/c.md"] = long(40000);
  files["/m/d.md"] = `---\ndescription: last line\n${"k: v\n".repeat(10)}${"y".repeat(9000)}: z\n---\n`;
  const fs = memoryFs(files);
  const asked = [];
  const readHead = fs.readHead;
  fs.readHead = (path, max) => (asked.push([path, max]), readHead(path, max));
  const got = (await new Memdir({ fs, dir: "/m/" }).scan()).map((h) => h.description).sort();
  assert.deepEqual(got, ["d1", "last line", "long 40000", "long 9000"]);
  const sizes = (path) => asked.filter(([p]) => p === path).map(([, max]) => max);
  // Each read no longer than the file's stat said: a short file in one read of its size.
  const size = (path) => new TextEncoder().encode(files[path]).length;
  assert.deepEqual(sizes("/m/b.md"), [size("/m/b.md")]);
  assert.deepEqual(sizes("/m/a.md"), [8192, size("/m/a.md")]);
  assert.deepEqual(sizes("/m/c.md"), [8192, 32768, size("/m/c.md")]);
});

test("byte arrays longer than asked are cut to the ask, in a batch of byte arrays only", async () => {
  // Answers that ignore the size asked (the whole file, at an offset inside a larger buffer):
  // read as their first `max` bytes, so a head past the first read is read again, longer.
  const files = {};
  for (let i = 0; i < 6; i++) files[`/m/f${i}.md`] = header(i);
  files["/m/long.md"] = `---\ndescription: long\nk: ${"v".repeat(20000)}\n---\n`;
  const fs = memoryFs(files);
  const readHead = fs.readHead;
  const asked = [];
  fs.readHead = (path, max) => {
    asked.push([path, max]);
    const whole = readHead(path, 1 << 20);
    const big = new Uint8Array(whole.length + 16);
    big.set(whole, 8);
    return big.subarray(8, 8 + whole.length);
  };
  const got = (await new Memdir({ fs, dir: "/m/" }).scan()).map((h) => h.description).sort();
  assert.deepEqual(got, ["d0", "d1", "d2", "d3", "d4", "d5", "long"]);
  const sizes = (path) => asked.filter(([p]) => p === path).map(([, max]) => max);
  const size = (path) => new TextEncoder().encode(files[path]).length;
  assert.deepEqual(sizes("/m/long.md"), [8192, size("/m/long.md")]);
  assert.deepEqual(sizes("/m/f0.md"), [size("/m/f0.md")]);
});

test("a file that grew after its stat is read as long as the stat said", async () => {
  const files = { "/m/a.md": header(1) };
  const fs = memoryFs(files);
  const stat = fs.stat;
  // The stat saw the first 20 bytes (`---\nname: n1\ndescri`): the block is not closed there.
  fs.stat = (path) => ({ ...stat(path), size: 20 });
  const [h] = await new Memdir({ fs, dir: "/m/" }).scan();
  assert.equal(h.filename, "a.md");
  assert.equal(h.description, undefined);
});

test("files are stat'ed and read by the names their listing gave, whatever the entries say later", async () => {
  const fs = seeded(3);
  const readDir = fs.readDir;
  const asked = [];
  // Each entry's name reads as listed once, then as a path outside the directory.
  fs.readDir = (path) =>
    readDir(path).map((entry) => {
      let reads = 0;
      return { kind: entry.kind, get name() { return reads++ === 0 ? entry.name : "../../etc/passwd"; } };
    });
  const stat = fs.stat;
  fs.stat = (path) => (asked.push(path), stat(path));
  assert.deepEqual(await descriptions(fs), ["d2", "d1", "d0"]);
  assert.deepEqual(asked.sort(), ["/m/f00.md", "/m/f01.md", "/m/f02.md"]);
});

test("the files of several directories are stat'ed in batches that span them", async () => {
  const files = {};
  for (let d = 0; d < 3; d++) for (let i = 0; i < 40; i++) files[`/m/d${d}/f${String(i).padStart(2, "0")}.md`] = header(d * 100 + i);
  const fs = memoryFs(files);
  let statCalls = 0;
  const stat = fs.stat;
  fs.stat = (path) => (statCalls++, stat(path));
  const headers = await new Memdir({ fs, dir: "/m/" }).scan();
  assert.equal(headers.length, 120);
  assert.deepEqual(new Set(headers.map((h) => h.filename)).size, 120);
  assert.ok(headers.every((h) => h.filePath === `/m/${h.filename}` && h.description === `d${Number(h.filename[1]) * 100 + Number(h.filename.slice(4, 6))}`));
  assert.equal(statCalls, 120);
});

// Memdir over memoryFs() and over nodeFs() on a real temporary directory.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, writeFile, readFile, symlink, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir, memoryFs, parseFrontmatter, isMemdirError } from "memdir";
import { nodeFs } from "memdir/node";

async function tempDir() {
  return mkdtemp(join(tmpdir(), "memdir-test-"));
}

for (const [label, makeFs] of [
  ["memoryFs", async () => ({ fs: memoryFs(), dir: "/memory/" })],
  ["nodeFs", async () => ({ fs: nodeFs(), dir: (await tempDir()) + "/memory/" })],
  ["nodeFs sync", async () => ({ fs: nodeFs({ sync: true }), dir: (await tempDir()) + "/memory/" })],
]) {
  test(`save, scan, list, update, delete keep the index in step (${label})`, async () => {
    const { fs, dir } = await makeFs();
    const events = [];
    const m = new Memdir({ fs, dir, telemetry: (event) => events.push(event) });
    const a = await m.save({ name: "Go background", description: "Senior Go dev, new to React", type: "user", body: "Ten years of Go." });
    const b = await m.save({ name: "Testing", description: "Integration tests hit a real DB", type: "feedback", body: "**Why:** mocks hid a bug." });
    assert.equal(a.status, "saved");
    assert.notEqual(a.file, b.file);
    const headers = await m.scan();
    assert.deepEqual(headers.map((h) => h.filename).sort(), [a.file, b.file].sort());
    assert.equal(headers.find((h) => h.filename === b.file).type, "feedback");
    const index = await m.readIndex();
    assert.ok(index.content.includes(`](${a.file})`) && index.content.includes(`](${b.file})`));
    await m.update(a.file, { description: "Senior Go dev; learning React" });
    assert.ok((await m.readIndex()).content.includes("Senior Go dev; learning React"));
    const listed = await m.list();
    assert.equal(listed.length, 2);
    assert.ok(listed.every((l) => l.exists));
    await m.delete(b.file);
    assert.equal((await m.scan()).length, 1);
    assert.ok(!(await m.readIndex()).content.includes(b.file));
    await assert.rejects(m.delete("nope.md"), (e) => isMemdirError(e) && e.code === "NOT_FOUND");
  });

  test(`hostile file names are refused (${label})`, async () => {
    const { fs, dir } = await makeFs();
    const m = new Memdir({ fs, dir });
    for (const file of ["../escape.md", "/etc/passwd.md", "a\\b.md", "MEMORY.md", "x.txt", "a/../../b.md", "nul\u0000.md"]) {
      await assert.rejects(
        m.save({ name: "N", description: "d", type: "user", body: "b", file }),
        (e) => isMemdirError(e) && (e.code === "INVALID_MEMORY" || e.code.startsWith("PATH_")),
        file,
      );
    }
  });
}

test("bad input on disk gets a documented result, never a crash", async () => {
  const root = await tempDir();
  const dir = join(root, "memory");
  const missing = new Memdir({ fs: nodeFs(), dir: join(root, "does-not-exist") });
  assert.deepEqual(await missing.scan(), []);
  assert.equal((await missing.readIndex()).exists, false);

  await mkdir(join(dir, "sub", "dir.md"), { recursive: true }); // a directory named *.md
  await writeFile(join(dir, "binary.md"), Buffer.from([0, 159, 146, 150, 255, 0, 1, 2]));
  await writeFile(join(dir, "invalid-utf8.md"), Buffer.concat([Buffer.from("---\ndescription: caf"), Buffer.from([0xe9]), Buffer.from("\ntype: user\n---\n")]));
  const huge = "---\ndescription: big one\ntype: project\n---\n" + "z".repeat(20 * 1024 * 1024);
  await writeFile(join(dir, "huge.md"), huge);
  await symlink(join(dir, "loop"), join(dir, "loop")).catch(() => {});
  await mkdir(join(dir, "cycle"), { recursive: true });
  await symlink(dir, join(dir, "cycle", "back")); // a directory symlink back to the root
  await writeFile(join(dir, "ok.md"), "---\ndescription: fine\ntype: user\n---\nok\n");

  const m = new Memdir({ fs: nodeFs(), dir });
  const headers = await m.scan();
  const names = headers.map((h) => h.filename);
  assert.ok(names.includes("ok.md"));
  assert.ok(names.includes("binary.md"), "a binary file is read lossily, not fatal");
  assert.equal(headers.find((h) => h.filename === "huge.md").description, "big one");
  assert.equal(headers.find((h) => h.filename === "invalid-utf8.md").description, "caf\ufffd");
  assert.ok(!names.some((n) => n.endsWith("dir.md")), "a directory named .md is dropped");
  assert.ok(names.filter((n) => n.endsWith("ok.md")).length <= 2, "the symlink cycle terminates");
  await rm(root, { recursive: true, force: true });
});

for (const sync of [false, true]) {
  test(`nodeFs${sync ? " sync" : ""}: a new index entry is appended to MEMORY.md in place, a changed one replaces the file`, async () => {
    const dir = (await tempDir()) + "/memory/";
    const m = new Memdir({ fs: nodeFs({ sync }), dir });
    await m.save({ name: "One", description: "first", type: "user", body: "1" });
    const first = await stat(dir + "MEMORY.md");
    await m.save({ name: "Two", description: "second", type: "user", body: "2" });
    const appended = await stat(dir + "MEMORY.md");
    // The same file grew: no temp file was renamed over it.
    assert.equal(appended.ino, first.ino);
    assert.equal(await readFile(dir + "MEMORY.md", "utf8"), "- [One](user_one.md) — first\n- [Two](user_two.md) — second\n");
    await m.save({ name: "One", description: "changed", type: "user", body: "1", replace: true });
    assert.notEqual((await stat(dir + "MEMORY.md")).ino, first.ino, "a changed line rewrites the index atomically");
    assert.equal(await readFile(dir + "MEMORY.md", "utf8"), "- [One](user_one.md) — changed\n- [Two](user_two.md) — second\n");
    // An index whose last line has no end is rewritten, its line ended first.
    await writeFile(dir + "MEMORY.md", "# Mine");
    await m.save({ name: "Three", description: "third", type: "user", body: "3" });
    assert.equal(await readFile(dir + "MEMORY.md", "utf8"), "# Mine\n- [Three](user_three.md) — third\n");
    assert.deepEqual((await readdir(dir)).filter((f) => f.includes(".tmp-") || f.includes(".memdir.lock")), []);
  });
}

test("daily log appends under logs/YYYY/MM/", async () => {
  const root = await tempDir();
  const m = new Memdir({ fs: nodeFs(), dir: root });
  const date = new Date(2026, 0, 5, 12);
  const path = await m.appendLog("- first\n", date);
  await m.appendLog("- second\n", date);
  assert.ok(path.endsWith("/logs/2026/01/2026-01-05.md"));
  assert.equal(await readFile(path, "utf8"), "- first\n- second\n");
});

test("a save that pushes MEMORY.md past its caps is reported, nothing is cut (indexOverCap: warn)", async () => {
  const events = [];
  const m = new Memdir({ fs: memoryFs(), dir: "/m/", store: { maxLines: 3, indexOverCap: "warn" }, telemetry: (e) => events.push(e) });
  let last;
  for (let i = 0; i < 4; i++) last = await m.save({ name: `N${i}`, description: `d${i}`, type: "user", body: "b" });
  assert.ok(last.indexWarning?.wasLineTruncated);
  assert.equal((await m.list()).length, 4);
  assert.ok(events.length > 0);
});

test("host answers are read in bulk yet still checked: thenables settle, lying stats and listings are refused", async () => {
  const fs = memoryFs();
  const m = new Memdir({ fs, dir: "/m" });
  await m.save({ name: "Alpha", description: "first memory", type: "user", body: "a" });
  await m.save({ name: "Beta", description: "second memory", type: "project", body: "b" });
  const names = (headers) => headers.map((h) => h.filename).sort();
  const thenable = (value) => ({ then: (resolve) => resolve(value) });
  // Every method answering with a non-Promise thenable.
  const viaThenables = Object.fromEntries(Object.entries(fs).map(([key, fn]) => [key, (...args) => {
    const value = fn(...args);
    return thenable(value);
  }]));
  const expected = names(await m.scan());
  assert.equal(expected.length, 2);
  assert.deepEqual(names(await new Memdir({ fs: viaThenables, dir: "/m" }).scan()), expected);
  // A stat with an unknown kind or a non-numeric mtime drops the file; the other one is kept.
  for (const lie of [{ kind: "weird" }, { mtimeMs: "yesterday" }, { kind: undefined }]) {
    const lyingStat = { ...fs, stat: (path) => (path.endsWith(expected[0]) ? { ...fs.stat(path), ...lie } : fs.stat(path)) };
    assert.deepEqual(names(await new Memdir({ fs: lyingStat, dir: "/m" }).scan()), [expected[1]], JSON.stringify(lie));
  }
  // A name with a NUL (read one entry at a time) names no file: the others are still found.
  const withNul = { ...fs, readDir: (path) => [...fs.readDir(path), { name: "x\0y.md", kind: "file" }] };
  assert.deepEqual(names(await new Memdir({ fs: withNul, dir: "/m" }).scan()), expected);
  // A listing with a non-string name or an unknown kind is refused whole.
  for (const entry of [{ name: 7, kind: "file" }, { name: "z.md", kind: "socket" }, null]) {
    const lyingDir = { ...fs, readDir: (path) => [...fs.readDir(path), entry] };
    const headers = await new Memdir({ fs: lyingDir, dir: "/m" }).scan().catch((error) => error);
    assert.ok(Array.isArray(headers) ? headers.length === 0 : isMemdirError(headers), JSON.stringify(entry));
  }
});

test("a host whose getters throw gets MemdirErrors or skipped files, never a crash", async () => {
  const fs = memoryFs();
  const m = new Memdir({ fs, dir: "/m" });
  await m.save({ name: "Alpha", description: "first memory", type: "user", body: "a" });
  const throwing = (object, field) =>
    Object.defineProperty({ ...object }, field, { get() { throw new Error(`${field} getter`); } });
  const hostile = [
    { ...fs, stat: (path) => throwing(fs.stat(path), "kind") },
    { ...fs, stat: (path) => throwing(fs.stat(path), "mtimeMs") },
    { ...fs, stat: (path) => throwing(fs.stat(path), "then") },
    { ...fs, readDir: (path) => fs.readDir(path).map((entry) => throwing(entry, "name")) },
    { ...fs, readDir: (path) => fs.readDir(path).map((entry) => throwing(entry, "kind")) },
    { ...fs, readDir: () => { throw new Error("readDir throws"); } },
  ];
  for (const host of hostile) {
    const outcome = await new Memdir({ fs: host, dir: "/m" }).scan().then((headers) => headers, (error) => error);
    assert.ok(Array.isArray(outcome) || isMemdirError(outcome), String(outcome));
  }
  assert.equal((await m.scan()).length, 1);
});

// Windows paths with `platform: "win32"` on these Linux machines (issue #18): validation and
// resolution follow the reference's Windows behaviour, and a Memdir works over a filesystem
// double that behaves like Windows (either separator, drive roots, names without case).
import { test } from "node:test";
import assert from "node:assert/strict";
import { Memdir, memoryFs, resolveMemoryDir, validateMemoryPath, loadSettings, isMemdirError } from "memdir";

/**
 * A MemoryFs with Windows path rules over memoryFs(): `C:\Users\U\x` and `c:/users/u/x` are one
 * file; POSIX paths are refused (EINVAL) so a path formed the POSIX way shows up; readDir and
 * realpath keep the case names were created with.
 */
function winFs(files = {}) {
  const inner = memoryFs();
  const shown = new Map(); // key → name as created
  const split = (path) => {
    const m = /^([A-Za-z]):[\\/]/.exec(path);
    if (!m) {
      const e = new Error(`EINVAL: not a Windows path: ${path}`);
      e.code = "EINVAL";
      throw e;
    }
    const parts = [];
    for (const seg of path.slice(3).split(/[\\/]+/)) {
      if (seg === "" || seg === ".") continue;
      if (seg === "..") parts.pop();
      else parts.push(seg);
    }
    return [m[1].toUpperCase() + ":", ...parts];
  };
  const key = (path) => "/" + split(path).map((s) => s.toLowerCase()).join("/");
  const record = (path) => {
    const segs = split(path);
    let k = "";
    for (const s of segs) {
      k += "/" + s.toLowerCase();
      if (!shown.has(k)) shown.set(k, s);
    }
    return k;
  };
  const display = (k) => k.split("/").slice(1).reduce((acc, _, i, parts) => {
    const name = shown.get("/" + parts.slice(0, i + 1).join("/")) ?? parts[i];
    return i === 0 ? name + "\\" : acc + (i > 1 ? "\\" : "") + name;
  }, "");
  const fs = {
    platform: "win32",
    readFile: (p) => inner.readFile(key(p)),
    writeFile: (p, d) => inner.writeFile(record(p), d),
    readDir: async (p) => {
      const k = key(p);
      return (await inner.readDir(k)).map((e) => ({ ...e, name: shown.get(`${k}/${e.name}`) ?? e.name }));
    },
    stat: (p) => inner.stat(key(p)),
    lstat: (p) => inner.stat(key(p)),
    mkdir: (p) => inner.mkdir(record(p)),
    remove: (p) => inner.remove(key(p)),
    rename: (a, b) => inner.rename(key(a), record(b)),
    realpath: async (p) => {
      const k = key(p);
      await inner.stat(k);
      return display(k);
    },
    text: (p) => inner.readFile(key(p)),
  };
  for (const [p, text] of Object.entries(files)) {
    fs.mkdir(p.replace(/[\\/][^\\/]*$/, ""));
    fs.writeFile(p, text);
  }
  return fs;
}

test("validateMemoryPath with platform win32: drives and both separators, UNC refused", () => {
  const win = { platform: "win32" };
  assert.equal(validateMemoryPath("C:\\Users\\u\\mem", win), "C:\\Users\\u\\mem\\");
  assert.equal(validateMemoryPath("C:/Users/u/mem//", win), "C:\\Users\\u\\mem\\");
  assert.equal(validateMemoryPath("~\\mem", { ...win, expandTilde: true, home: "C:\\Users\\u" }), "C:\\Users\\u\\mem\\");
  for (const bad of ["C:\\", "C:", "C:mem", "\\\\server\\share\\mem", "//server/share/mem", "mem"]) {
    assert.equal(validateMemoryPath(bad, win), null, bad);
  }
  // Without the platform, the POSIX rules (the reference on Linux refuses a drive path too).
  assert.equal(validateMemoryPath("C:\\Users\\u\\mem"), null);
});

test("resolveMemoryDir on win32 produces the reference's backslash paths", async () => {
  const base = { home: "C:\\Users\\u", projectRoot: "C:\\Users\\u\\app", env: {} };
  const want = "C:\\Users\\u\\.claude\\projects\\C--Users-u-app\\memory\\";
  assert.equal(await resolveMemoryDir({ ...base, platform: "win32" }), want);
  // A drive home means Windows even without the platform.
  assert.equal(await resolveMemoryDir(base), want);
  // Through a Windows filesystem (its `platform` is used): settings files and the git root.
  const fs = winFs({
    "C:\\Users\\u\\app\\.git\\HEAD": "ref: refs/heads/main\n",
    "C:\\Users\\u\\.claude\\settings.json": JSON.stringify({ autoMemoryDirectory: "~\\notes" }),
    "C:\\Users\\u\\app\\.claude\\settings.json": JSON.stringify({ autoMemoryDirectory: "D:\\evil" }),
  });
  const { files } = await loadSettings({ ...base, fs });
  assert.deepEqual(files.filter((f) => f.loaded).map((f) => f.path), [
    "C:\\Users\\u\\.claude\\settings.json",
    "C:\\Users\\u\\app\\.claude\\settings.json",
  ]);
  assert.equal(await resolveMemoryDir({ ...base, fs }), "C:\\Users\\u\\notes\\");
  assert.equal(await resolveMemoryDir({ ...base, fs, settings: {}, projectRoot: "c:/users/u/app/src" }), "C:\\Users\\u\\.claude\\projects\\c--users-u-app\\memory\\");
});

test("a Memdir over a Windows filesystem: save, scan, recall, update, delete", async () => {
  const fs = winFs({ "C:\\Users\\u\\mem\\.keep": "" });
  const m = new Memdir({ fs, dir: "c:/USERS/u/MEM" });
  const saved = await m.save({ name: "Role", description: "Senior Go dev", type: "user", body: "Ten years of Go." });
  assert.equal(saved.file, "user_role.md");
  await m.save({ name: "Freeze", description: "Release freeze", type: "project", body: "No Friday deploys.", scope: "team" });
  assert.equal(await fs.text("C:\\Users\\u\\mem\\MEMORY.md"), "- [Role](user_role.md) — Senior Go dev\n");
  assert.match(await fs.text("C:\\Users\\u\\mem\\team\\project_freeze.md"), /No Friday deploys/);
  const names = (await m.scan()).map((h) => h.filename).sort();
  assert.deepEqual(names, ["team/project_freeze.md", "user_role.md"]);
  const { memories } = await m.findRelevant("is the user senior in Go?");
  assert.ok(memories.some((r) => r.path.endsWith("user_role.md")), JSON.stringify(memories));
  await m.update("user_role.md", { description: "Senior Go dev, learning React" });
  assert.match(await fs.text("C:\\Users\\u\\mem\\MEMORY.md"), /learning React/);
  await assert.rejects(m.save({ name: "Role", description: "d", type: "user", body: "b", file: "USER_ROLE.md" }), (e) => isMemdirError(e) && e.code === "ALREADY_EXISTS");
  await m.delete("user_role.md");
  await assert.rejects(async () => fs.text("C:\\Users\\u\\mem\\user_role.md"), (e) => e.code === "ENOENT");
});

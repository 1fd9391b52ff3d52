// The directory lock from JS (issue #19 items 5, 6, 7): a lock file left by a dead process is
// broken at once, many saves on one instance queue instead of failing, and host calls that
// never answer are bounded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, mkdir, writeFile, readFile, readdir, stat } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir, memoryFs, parseIndexEntry, isMemdirError } from "memdir";
import { nodeFs } from "memdir/node";

async function tempDir() {
  return (await mkdtemp(join(tmpdir(), "memdir-locks-"))) + "/";
}

const note = (i) => ({ name: `Note ${i}`, description: `about ${i}`, type: "project", body: "b" });

/** The pid of a process that has exited. */
async function deadPid() {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await new Promise((resolve) => child.on("exit", resolve));
  return child.pid;
}

test("nodeFs tells who it is and whether a process lives", async () => {
  const fs = nodeFs();
  assert.equal(fs.hostId(), hostname());
  assert.equal(fs.processId(), process.pid);
  assert.equal(fs.processAlive(process.pid), true);
  assert.equal(fs.processAlive(await deadPid()), false);
});

for (const sync of [false, true]) {
  test(`a fresh lock file from a dead process of this host is broken at once (sync: ${sync})`, async () => {
    const dir = await tempDir();
    const pid = await deadPid();
    await writeFile(join(dir, ".memdir.lock"), `killed\n${Date.now()}\n${pid}@${hostname()}`);
    // The stale age is 30 s; a 1.5 s lock timeout only passes if the dead holder is detected.
    const m = new Memdir({ fs: nodeFs({ sync }), dir, store: { lockTimeoutMs: 1500 } });
    const saved = await m.save(note(1));
    assert.equal(saved.status, "saved");
    await assert.rejects(stat(join(dir, ".memdir.lock")), { code: "ENOENT" });
  });
}

test("a fresh lock file from a live process is respected", async () => {
  const dir = await tempDir();
  await writeFile(join(dir, ".memdir.lock"), `alive\n${Date.now()}\n${process.pid}@${hostname()}`);
  const m = new Memdir({ fs: nodeFs(), dir, store: { lockTimeoutMs: 300 } });
  await assert.rejects(m.save(note(1)), (e) => isMemdirError(e) && e.code === "LOCK_TIMEOUT");
});

test("the lock file names this process while a write holds it", async () => {
  const dir = await tempDir();
  const fs = nodeFs();
  let body;
  const write = fs.writeFile;
  fs.writeFile = async (path, data) => {
    body ??= await readFile(join(dir, ".memdir.lock"), "utf8");
    return write(path, data);
  };
  await new Memdir({ fs, dir }).save(note(1));
  assert.equal(body.split("\n")[2], `${process.pid}@${hostname()}`);
});

test("a directory at the lock path fails at once with HOST_FS", async () => {
  const dir = await tempDir();
  await mkdir(join(dir, ".memdir.lock"));
  const m = new Memdir({ fs: nodeFs(), dir });
  await assert.rejects(m.save(note(1)), (e) => isMemdirError(e) && e.code === "HOST_FS" && /is a directory/.test(e.message));
});

test("200 concurrent saves on one instance all land, in the order asked", async () => {
  const dir = await tempDir();
  const m = new Memdir({ fs: nodeFs(), dir });
  const outs = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => m.save(note(String(i).padStart(3, "0")))));
  assert.deepEqual(outs.filter((o) => o.status === "rejected").map((o) => o.reason?.code), []);
  const index = await readFile(join(dir, "MEMORY.md"), "utf8");
  const files = index.split("\n").map(parseIndexEntry).filter(Boolean).map((e) => e.file);
  assert.deepEqual(files, outs.map((o) => o.value.file));
  assert.equal((await readdir(dir)).filter((n) => n.endsWith(".md")).length, 201);
});

/** memoryFs() whose writeFile never answers while `hang.on`. */
function hangingFs(hang) {
  const fs = memoryFs();
  const writeFile = fs.writeFile.bind(fs);
  return Object.assign(fs, {
    writeFile: (path, data) => (hang.on ? new Promise(() => {}) : writeFile(path, data)),
  });
}

test("a writeFile that never answers fails the save with TIMEOUT and frees the lock", async () => {
  const hang = { on: true };
  const m = new Memdir({ fs: hangingFs(hang), dir: "/m/", store: { hostCallTimeoutMs: 200 } });
  await assert.rejects(m.save(note(1)), (e) => isMemdirError(e) && e.code === "TIMEOUT");
  hang.on = false;
  assert.equal((await m.save(note(2))).status, "saved");
});

test("a host lock() that never answers is bounded by lockTimeoutMs; one granted late is released", async () => {
  const never = memoryFs();
  never.lock = () => new Promise(() => {});
  const m = new Memdir({ fs: never, dir: "/m/", store: { lockTimeoutMs: 200 } });
  await assert.rejects(m.save(note(1)), (e) => isMemdirError(e) && e.code === "LOCK_TIMEOUT");

  const late = memoryFs();
  let released = 0;
  late.lock = () => new Promise((resolve) => setTimeout(() => resolve(() => released++), 400));
  const m2 = new Memdir({ fs: late, dir: "/m/", store: { lockTimeoutMs: 100 } });
  await assert.rejects(m2.save(note(1)), (e) => isMemdirError(e) && e.code === "LOCK_TIMEOUT");
  await new Promise((resolve) => setTimeout(resolve, 600));
  assert.equal(released, 1, "the lock granted after the timeout was given back");
});

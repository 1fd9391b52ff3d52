// Oversized inputs are refused before they reach WebAssembly memory, and a trap inside an
// operation settles every pending Promise with INSTANCE_LOST instead of crashing the process or
// wedging the instance (issue 19, item 3). node --test runs each file in its own process: the
// last test here ends this process's instance on purpose.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Memdir, memoryFs, isMemdirError, parseIndexEntry, scanForSecrets, Extractor } from "memdir";
// Test hooks are not part of the public entry; `memdir/internal` is the raw glue (same instance).
import { __trapInTask } from "memdir/internal";

const MiB = 1024 * 1024;
const input = (body) => ({ name: "Role", description: "Senior Go dev", type: "user", body });
const newMemdir = (fs = memoryFs()) => new Memdir({ fs, dir: "/mem/" });

test("a 100 MB body is refused with INVALID_INPUT, and the instance and its lock stay usable", async () => {
  const memdir = newMemdir();
  const huge = "x".repeat(100 * MiB);
  await assert.rejects(
    async () => memdir.save(input(huge)),
    (e) => isMemdirError(e) && e.code === "INVALID_INPUT" && /body/.test(e.message) && /limit/.test(e.message),
  );
  const saved = await memdir.save(input("still works"));
  assert.equal(typeof saved.file, "string");
  assert.equal((await memdir.list()).length, 1);
});

test("a body just under the cap is saved; one unit over is refused", async () => {
  const memdir = newMemdir();
  const cap = 4 * MiB;
  await memdir.save({ ...input("y".repeat(cap)), name: "Big" });
  await assert.rejects(async () => memdir.save({ ...input("y".repeat(cap + 1)), name: "Bigger" }), (e) => e.code === "INVALID_INPUT");
});

test("string arguments of the pure functions are capped too", () => {
  const over = "a".repeat(4 * MiB + 1);
  assert.throws(() => parseIndexEntry(over), (e) => isMemdirError(e) && e.code === "INVALID_INPUT");
  assert.throws(() => scanForSecrets(over), (e) => isMemdirError(e) && e.code === "INVALID_INPUT");
});

test("a message list past the per-call cap is refused before it is read in", async () => {
  const memdir = newMemdir();
  const message = "m".repeat(3 * MiB);
  const messages = Array.from({ length: 6 }, () => ({ role: "user", text: message }));
  await assert.rejects(
    async () => new Extractor().run(memdir, messages),
    (e) => isMemdirError(e) && e.code === "INVALID_INPUT" && /in all/.test(e.message),
  );
});

for (const [kind, make] of [
  ["a string of 20 Mi units", () => "z".repeat(20 * MiB)],
  ["20 MiB of bytes", () => new Uint8Array(20 * MiB).fill(0x7a)],
]) {
  test(`a host readFile returning ${kind} (past the 10 Mi cap) fails with a typed error; the lock is released`, async () => {
    const inner = memoryFs();
    let huge = false;
    const fs = {
      ...inner,
      readFile: (path) => (huge && path.endsWith("MEMORY.md") ? make() : inner.readFile(path)),
    };
    const memdir = newMemdir(fs);
    const first = await memdir.save(input("first"));
    huge = true;
    // A delete reads MEMORY.md with readFile (a save reads it as bytes through readHead).
    const error = await memdir.delete(first.file).then(
      () => null,
      (e) => e,
    );
    assert.ok(isMemdirError(error), `not a MemdirError: ${error}`);
    assert.equal(error.code, "HOST_FS");
    assert.match(error.message, /limit is 10485760/);
    huge = false;
    const later = await memdir.save({ ...input("third"), name: "Third" });
    assert.equal(typeof later.file, "string");
  });
}

test("a trap settles the trapping operation and every pending one with INSTANCE_LOST; later calls fail fast", async () => {
  let release;
  const gate = new Promise((resolve) => (release = resolve));
  const inner = memoryFs();
  const fs = { ...inner, writeFile: async (p, d) => (await gate, inner.writeFile(p, d)) };
  const memdir = newMemdir(fs);
  const pending = memdir.save(input("waits on the host")).then(
    () => "saved",
    (e) => e,
  );
  await new Promise((r) => setTimeout(r, 20));
  const trapped = await __trapInTask().then(
    () => "settled",
    (e) => e,
  );
  assert.ok(isMemdirError(trapped) && trapped.code === "INSTANCE_LOST", `trap: ${trapped}`);
  assert.ok(trapped.cause instanceof WebAssembly.RuntimeError);
  const waiting = await pending;
  assert.ok(isMemdirError(waiting) && waiting.code === "INSTANCE_LOST", `pending: ${waiting}`);
  release();
  const started = Date.now();
  await assert.rejects(async () => memdir.save(input("after")), (e) => isMemdirError(e) && e.code === "INSTANCE_LOST");
  await assert.rejects(async () => newMemdir().list(), (e) => isMemdirError(e) && e.code === "INSTANCE_LOST");
  assert.ok(Date.now() - started < 1000);
});

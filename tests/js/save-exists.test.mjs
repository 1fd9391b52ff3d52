// Saving a name that exists: ALREADY_EXISTS by default, `replace: true` updates that memory in
// place (the browser quick start saves the same memory on every reload); scanPage and the daily
// log.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir, memoryFs, isMemdirError } from "memdir";
import { nodeFs } from "memdir/node";

const role = { name: "Role", description: "Senior Go dev, new to React", type: "user", body: "Ten years of Go." };

for (const [label, makeFs] of [
  ["memoryFs", async () => ({ fs: memoryFs(), dir: "/memory/" })],
  ["nodeFs", async () => ({ fs: nodeFs(), dir: (await mkdtemp(join(tmpdir(), "memdir-save-"))) + "/memory/" })],
]) {
  test(`saving a name that exists is ALREADY_EXISTS; replace updates it (${label})`, async () => {
    const { fs, dir } = await makeFs();
    const m = new Memdir({ fs, dir });
    const first = await m.save(role);
    assert.equal(first.file, "user_role.md");
    assert.equal(first.created, true);
    // Reload after reload, as the quick start did: no user_role-2.md.
    for (let i = 0; i < 3; i++) {
      await assert.rejects(m.save({ ...role, body: `reload ${i}` }), (e) => {
        assert.ok(isMemdirError(e), String(e));
        assert.equal(e.code, "ALREADY_EXISTS");
        assert.match(e.message, /user_role\.md/);
        return true;
      });
    }
    assert.equal(String(await fs.readFile(dir + "user_role.md")).includes("Ten years of Go."), true);
    const replaced = await m.save({ ...role, description: "Senior Go dev, learning React", body: "Now React too.", replace: true });
    assert.equal(replaced.file, "user_role.md");
    assert.equal(replaced.created, false);
    const again = await m.save({ ...role, replace: true });
    assert.equal(again.file, "user_role.md");
    const names = (await fs.readDir(dir)).map((e) => e.name).sort();
    assert.deepEqual(names.filter((n) => n.endsWith(".md")), ["MEMORY.md", "user_role.md"]);
    const index = String(await fs.readFile(dir + "MEMORY.md"));
    assert.equal(index, "- [Role](user_role.md) — Senior Go dev, new to React\n");
    // A given file follows the same rule.
    await assert.rejects(m.save({ ...role, name: "Other", file: "user_role.md" }), (e) => e.code === "ALREADY_EXISTS");
  });
}

test("scanPage: the newest `limit` headers and the total; the daily log is not counted", async () => {
  const fs = memoryFs();
  let now = 1_700_000_000_000;
  const m = new Memdir({ fs, dir: "/memory/", now: () => now });
  for (let i = 0; i < 5; i++) {
    now += 1000;
    await m.save({ name: `M${i}`, description: `memory ${i}`, type: "project", body: "b" });
  }
  await m.appendLog("- 10:00 a log line\n", new Date(now));
  const page = await m.scanPage({ limit: 2 });
  assert.equal(page.total, 5);
  assert.deepEqual(page.headers.map((h) => h.name), ["M4", "M3"]);
  assert.equal((await m.scanPage()).headers.length, 5);
  assert.ok((await m.scan()).every((h) => !h.filename.startsWith("logs/")));
  await assert.rejects(async () => m.scanPage({ limit: "two" }), (e) => e.code === "INVALID_INPUT");
});

// The exact JS values of results (they cross as JSON text plus a reviver): a `None` field is an
// own property holding `undefined` (never `null`), and NaN, ±Infinity and -0 stay numbers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Memdir, memoryFs } from "memdir";

const file = "---\nname: A\ndescription: d\ntype: user\n---\nbody\n";

/** A memoryFs whose `stat` reports `mtimeMs` as `mtime`. */
function fsWithMtime(mtime) {
  const fs = memoryFs({ "/m/user_a.md": file });
  const stat = fs.stat.bind(fs);
  fs.stat = async (path) => {
    const s = await stat(path);
    return s && { ...s, mtimeMs: mtime };
  };
  return fs;
}

test("a None field is present and undefined, not null and not left out", async () => {
  const memdir = new Memdir({
    fs: memoryFs(),
    dir: "/m/",
    llm: () => JSON.stringify({ operations: [], summary: "nothing to do" }),
  });
  await memdir.save({ name: "A", description: "d", type: "user", body: "b", file: "user_a.md" });
  const out = await memdir.consolidate({ force: true });
  assert.equal(out.status, "ready");
  assert.deepEqual(Object.keys(out), ["status", "changeset", "previousConsolidatedAt", "sessionsReviewed", "applied"]);
  assert.ok(Object.hasOwn(out, "applied"));
  assert.equal(out.applied, undefined);
  assert.ok(Object.hasOwn(out.changeset, "index"));
  assert.equal(out.changeset.index, undefined);
  assert.deepEqual(out.changeset.create, []);
  // A skipped `None` (skip_serializing_if) is left out.
  const saved = await memdir.save({ name: "B", description: "d", type: "user", body: "b" });
  assert.deepEqual(Object.keys(saved), ["status", "file", "path", "scope", "created"]);
});

test("NaN, infinities and -0 reach JS as those numbers", async () => {
  for (const mtime of [NaN, Infinity, -Infinity, -0, 1700000000123.5]) {
    const [header] = await new Memdir({ fs: fsWithMtime(mtime), dir: "/m/" }).scan();
    assert.ok(Object.is(header.mtimeMs, mtime), String(mtime));
    assert.deepEqual(Object.keys(header), ["filename", "filePath", "mtimeMs", "description", "type", "name"]);
  }
});

test("loadPrompt resolves null when memory is off, and the section when it is on", async () => {
  const off = new Memdir({ fs: memoryFs(), dir: "/m/", writeMode: "off" });
  assert.equal(await off.loadPrompt(), null);
  const on = new Memdir({ fs: memoryFs(), dir: "/m/" });
  const section = await on.loadPrompt();
  assert.equal(typeof section, "string");
  assert.ok(section.length > 0);
});

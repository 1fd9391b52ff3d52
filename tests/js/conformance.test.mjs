// Conformance decisions of issue #18 seen from JS: formatManifest with a time no Date can hold,
// the frontmatter salvage of an odd line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { formatManifest, parseFrontmatter, isMemdirError } from "memdir";

test("formatManifest refuses a time no Date can hold, naming the entry", () => {
  const ok = { filename: "a.md", mtimeMs: 1700000000123.9, type: "user", description: "d" };
  assert.equal(formatManifest([ok]), `- [user] a.md (${new Date(ok.mtimeMs).toISOString()}): d`);
  assert.equal(formatManifest([{ ...ok, mtimeMs: 8.64e15 }]), `- [user] a.md (${new Date(8.64e15).toISOString()}): d`);
  for (const bad of [NaN, Infinity, -Infinity, 8.64e15 + 1, -8.64e15 - 1]) {
    // The reference's toISOString throws a RangeError here; we throw a typed error.
    assert.throws(() => new Date(bad).toISOString(), RangeError);
    assert.throws(
      () => formatManifest([ok, { ...ok, mtimeMs: bad }]),
      (e) => isMemdirError(e) && e.code === "INVALID_INPUT" && e.message.includes("headers[1].mtimeMs"),
      String(bad),
    );
  }
});

test("an odd frontmatter line never costs the header", () => {
  const parsed = parseFrontmatter("---\ndescription: a\n:\n---\nbody");
  assert.deepEqual(parsed.frontmatter, { description: "a", "": null });
  assert.equal(parsed.header.description, "a");
  assert.equal(parsed.body, "body");
  assert.ok(parsed.diagnostics.some((d) => d.includes("empty key")), parsed.diagnostics.join("\n"));
  assert.deepEqual(parseFrontmatter("---\na: !\n---\n").frontmatter, { a: "" });
});

import { Memdir, memoryFs, buildMemoryPrompt } from "memdir";

test("a save that would leave MEMORY.md over its caps is INDEX_OVER_CAP unless indexOverCap is warn", async () => {
  const fs = memoryFs();
  const m = new Memdir({ fs, dir: "/memory/", store: { maxLines: 2 } });
  await m.save({ name: "One", description: "d", type: "user", body: "b" });
  await m.save({ name: "Two", description: "d", type: "user", body: "b" });
  const before = await fs.readFile("/memory/MEMORY.md");
  await assert.rejects(
    m.save({ name: "Three", description: "d", type: "user", body: "b" }),
    (e) => isMemdirError(e) && e.code === "INDEX_OVER_CAP" && /3 lines/.test(e.message),
  );
  assert.equal(await fs.readFile("/memory/MEMORY.md"), before);
  const warned = new Memdir({ fs, dir: "/memory/", store: { maxLines: 2, indexOverCap: "warn" } });
  const saved = await warned.save({ name: "Three", description: "d", type: "user", body: "b" });
  assert.equal(saved.indexWarning.lineCount, 3);
  assert.throws(
    () => new Memdir({ fs, dir: "/memory/", store: { indexOverCap: "maybe" } }),
    (e) => isMemdirError(e) && e.code === "INVALID_INPUT",
  );
});

test("saves write an ISO modified key; the prompt reminds to compact a nearly full index", async () => {
  const fs = memoryFs();
  const now = Date.UTC(2026, 11, 1, 18, 0, 0);
  const m = new Memdir({ fs, dir: "/memory/", now: () => now });
  const saved = await m.save({ name: "Role", description: "Uses C# #dotnet", type: "user", body: "b" });
  const text = await fs.readFile(saved.path);
  assert.match(text, new RegExp(`\\nmodified: "${new Date(now).toISOString()}"\\n`));
  assert.equal(parseFrontmatter(text).header.description, "Uses C# #dotnet");

  const base = { mode: "individual", memoryDir: "/memory/" };
  assert.ok(!buildMemoryPrompt(base).includes("nearly full"));
  const near = buildMemoryPrompt({ ...base, indexUsage: { lineCount: 180, unitCount: 100 } });
  assert.match(near, /## MEMORY\.md is nearly full\n\nThe index uses 180 of its 200 lines/);
  for (let i = 0; i < 170; i++) await fs.writeFile("/memory/MEMORY.md", (await fs.readFile("/memory/MEMORY.md")) + `- [M${i}](m${i}.md) — h\n`);
  assert.match(await m.loadPrompt(), /## MEMORY\.md is nearly full/);
});

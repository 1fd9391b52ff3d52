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

// The pure functions, imported from the installed package as a user would.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as memdir from "memdir";
import {
  init,
  truncateEntrypoint,
  formatFileSize,
  parseFrontmatter,
  formatMemoryFile,
  parseIndexEntry,
  formatIndexEntry,
  formatManifest,
  memoryAge,
  memoryHeader,
  sanitizePath,
  MemdirError,
  isMemdirError,
  version,
  validateMemoryPath,
} from "memdir";

test("init exists and is a no-op in Node", async () => {
  await init();
  assert.equal(typeof version(), "string");
});

test("formatFileSize follows JS toFixed rounding (reference §17)", () => {
  const cases = { 0: "0 bytes", 1023: "1023 bytes", 1024: "1KB", 1075: "1KB", 25000: "24.4KB", 25856: "25.3KB", 26000: "25.4KB", 30000: "29.3KB", 1048576: "1MB" };
  for (const [n, want] of Object.entries(cases)) assert.equal(formatFileSize(Number(n)), want, n);
});

test("truncateEntrypoint: line cap, unit cap, reasons", () => {
  const short = Array.from({ length: 250 }, (_, i) => `- l${i}`).join("\n");
  let t = truncateEntrypoint(short);
  assert.equal(t.lineCount, 250);
  assert.ok(t.wasLineTruncated && !t.wasByteTruncated);
  assert.match(t.content, /> WARNING: MEMORY\.md is 250 lines \(limit: 200\)\. Only part of it was loaded\./);
  assert.equal(t.content.split("\n\n> WARNING")[0].split("\n").length, 200);

  const wide = Array.from({ length: 100 }, () => "x".repeat(500)).join("\n");
  t = truncateEntrypoint(wide);
  assert.equal(t.byteCount, 50099);
  assert.ok(t.content.includes("48.9KB (limit: 24.4KB) \u2014 index entries are too long"));
  assert.ok(t.content.split("\n\n> WARNING")[0].length <= 25000);

  const both = Array.from({ length: 300 }, () => "y".repeat(201)).join("\n");
  t = truncateEntrypoint(both);
  assert.ok(t.content.includes(`300 lines and ${formatFileSize(both.length)}`));

  t = truncateEntrypoint("a\nb\nc", { maxLines: 2 });
  assert.ok(t.wasLineTruncated);
  assert.ok(t.content.startsWith("a\nb\n\n> WARNING"));
});

test("truncateEntrypoint equals the reference algorithm on random indexes (JS half counts, wasm half cuts)", async () => {
  const { pathToFileURL } = await import("node:url");
  const reference = process.env.MEMDIR_REPO
    ? await import(pathToFileURL(`${process.env.MEMDIR_REPO}/benches/truncate-reference.mjs`).href)
    : await import("../../benches/truncate-reference.mjs");
  let seed = 7;
  const next = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648) % n);
  const alphabet = ["a", "b", " ", "\n", "\n", "\r", "\ufeff", "\u00a0", "é", "😀", "- [T](t.md) — hook\n"];
  for (let round = 0; round < 400; round++) {
    let raw = "";
    for (let i = next(300); i > 0; i--) raw += alphabet[next(alphabet.length)];
    const caps = round % 4 === 0 ? undefined : { maxLines: next(12), maxUnits: next(120) };
    const ours = truncateEntrypoint(raw, caps);
    const want = reference.truncateEntrypointReference(raw, caps);
    const [kept, warning] = want.content.split("\n\n> WARNING");
    // Our one difference: a hard cut backs off rather than leave half a surrogate pair.
    const expected = /[\ud800-\udbff]$/.test(kept) && warning !== undefined
      ? `${kept.slice(0, -1)}\n\n> WARNING${warning}` : want.content;
    assert.deepEqual(ours, { ...want, content: expected }, JSON.stringify({ raw, caps }));
  }
  // A megabyte-sized index: only a prefix crosses into wasm, the counts still cover all of it.
  const big = "- [Topic](topic.md) — a hook of some length\n".repeat(25000);
  assert.deepEqual(truncateEntrypoint(big), reference.truncateEntrypointReference(big));
});

test("parseFrontmatter: headers that end on either side of the first slice handed to wasm", () => {
  const pads = [...Array(100).keys()].map((i) => 200 + i).concat([500, 511, 512, 513, 1100]);
  for (const pad of pads) {
    const name = `${"n".repeat(pad)}😀`;
    const text = `---\nname: ${name}\ntype: user\n---\n\nBody 😀 ${pad}\n`;
    const parsed = parseFrontmatter(text);
    assert.equal(parsed.header.name, name, `pad ${pad}`);
    assert.equal(parsed.body, `Body 😀 ${pad}\n`, `pad ${pad}`);
    assert.deepEqual(parsed.diagnostics, []);
    const wide = `---\ndescription: ${"记".repeat(pad >> 1)}\ntype: user\n---\r\n\r\n体 ${pad}`;
    assert.equal(parseFrontmatter(wide).header.description, "记".repeat(pad >> 1), `wide ${pad}`);
    assert.equal(parseFrontmatter(wide).body, `体 ${pad}`, `wide ${pad}`);
    const plain = `${"p".repeat(pad)}😀 no frontmatter`;
    assert.equal(parseFrontmatter(plain).body, plain);
    const unclosed = `---\nname: x\n${"q".repeat(pad)}`;
    assert.equal(parseFrontmatter(unclosed).body, unclosed);
    assert.equal(parseFrontmatter(unclosed).diagnostics.length, 1);
  }
  // A key named __proto__ is an own property, on the JSON path and on the direct one (NaN).
  for (const text of ["---\n__proto__: x\n---\n", "---\n__proto__: x\nn: .nan\n---\n"]) {
    const fm = parseFrontmatter(text).frontmatter;
    assert.equal(Object.getPrototypeOf(fm), Object.prototype);
    assert.ok(Object.hasOwn(fm, "__proto__"), text);
  }
});

test("a hard cut never splits a surrogate pair", () => {
  const emoji = "😀".repeat(20000); // 40,000 units, no newline
  const t = truncateEntrypoint(emoji);
  const kept = t.content.split("\n\n> WARNING")[0];
  assert.ok(kept.length <= 25000);
  assert.ok(!/[\ud800-\udbff]$/.test(kept), "no lone high surrogate at the cut");
  assert.equal(kept, "😀".repeat(kept.length / 2));
});

test("parseFrontmatter recovers, never throws", () => {
  const p = parseFrontmatter("---\nname: Testing\ndescription: Fix: use the real DB\ntype: feedback\n---\nBody\n");
  assert.equal(p.header.description, "Fix: use the real DB");
  assert.equal(p.header.type, "feedback");
  assert.equal(p.frontmatter.name, "Testing");
  assert.equal(parseFrontmatter("---\ntype: User\n---\n").header.type, undefined);
  assert.equal(parseFrontmatter("---\ndescription: 42\n---\n").header.description, "42");
  assert.equal(parseFrontmatter("---\ndescription: a\ndescription: b\n---\n").header.description, "b");
  assert.deepEqual(Object.keys(parseFrontmatter("---\n1.5: a\n~: b\n---\n").frontmatter), ["1.5", "null"]);
  for (const junk of ["", "---", "---\n", "---\n1: x\n2.5: y\n---\n", "---\n: : :\n---\n", "\u0000\u0001---", "---\n[\n---\n"]) {
    assert.equal(typeof parseFrontmatter(junk).body, "string");
  }
});

test("formatMemoryFile round-trips hostile strings", () => {
  const nasty = ["a: b", "- item", "# hash", '"quoted"', "'single'", "---", "x\ny", "  spaced  ", "@at", "*star", "yes", "42", "", "ünïcödé 😀", "a #b", "{x}"];
  for (const s of nasty) {
    const text = formatMemoryFile({ name: s || "n", description: s, type: "project" }, "Body");
    const back = parseFrontmatter(text);
    assert.equal(back.header.name, s || "n", JSON.stringify(s));
    assert.equal(back.header.description, s === "" ? undefined : s, JSON.stringify(s));
    assert.equal(back.header.type, "project");
  }
});

test("index entries and the manifest", () => {
  const e = parseIndexEntry("- [Role](user_role.md) \u2014 Senior Go dev");
  assert.deepEqual(e, { title: "Role", file: "user_role.md", hook: "Senior Go dev" });
  assert.equal(formatIndexEntry(e), "- [Role](user_role.md) \u2014 Senior Go dev");
  assert.equal(parseIndexEntry("just prose"), null);
  assert.equal(
    formatManifest([{ filename: "user_role.md", mtimeMs: 1700000000123.9, description: "Senior Go dev", type: "user" }]),
    "- [user] user_role.md (2023-11-14T22:13:20.123Z): Senior Go dev",
  );
  assert.equal(formatManifest([{ filename: "user_role.md", mtimeMs: 1700000000123.9 }]), "- user_role.md (2023-11-14T22:13:20.123Z)");
});

test("ages, headers and slugs", () => {
  const now = Date.now();
  assert.equal(memoryAge(now - 1, now), "today");
  assert.equal(memoryAge(now - 2 * 86400000, now), "2 days ago");
  assert.match(memoryHeader("/m/a.md", now - 3 * 86400000, now), /^This memory is 3 days old\. [\s\S]*\n\nMemory: \/m\/a\.md:$/);
  assert.equal(sanitizePath("C:\\Users\\foo\\my project"), "C--Users-foo-my-project");
});

test("errors are real Errors with stable codes", () => {
  let caught;
  try {
    formatIndexEntry(42);
  } catch (e) {
    caught = e;
  }
  assert.ok(caught instanceof Error);
  assert.ok(caught instanceof MemdirError);
  assert.ok(isMemdirError(caught));
  assert.equal(caught.code, "INVALID_INPUT");
  const mine = new MemdirError("HTTP", "teapot", { status: 418 });
  assert.ok(isMemdirError(mine) && mine.status === 418 && mine instanceof Error);
  assert.ok(!isMemdirError(new Error("plain")));
});

test("the package exports the documented names", () => {
  for (const name of ["Memdir", "memoryFs", "opfsFs", "anthropicLlm", "openAiLlm", "truncateEntrypoint", "parseFrontmatter"]) {
    assert.equal(typeof memdir[name], "function", name);
  }
});

test("errorCodes lists each code once; the codes the core throws are among them", () => {
  const codes = memdir.errorCodes();
  const names = codes.map((c) => c.code);
  assert.equal(new Set(names).size, names.length);
  let caught;
  try { memdir.sanitizePathKey("%2e%2e%2fx"); } catch (e) { caught = e; }
  const entry = codes.find((c) => c.code === caught.code);
  assert.ok(entry, caught.code);
  assert.equal(entry.input, true);
  assert.equal(codes.find((c) => c.code === "HOST_FS").input, false);
});

test("the helpers the demo uses: file names, the index upsert, the caps and the cut lines", () => {
  assert.equal(memdir.slugify("Prefers tabs, not spaces!"), "prefers_tabs_not_spaces");
  assert.equal(memdir.derivedFileName("feedback", "Use tabs", 1), "feedback_use_tabs.md");
  assert.equal(memdir.derivedFileName("feedback", "Use tabs", 3), "feedback_use_tabs-3.md");
  assert.throws(() => memdir.derivedFileName("Feedback", "x", 1), (e) => e.code === "INVALID_MEMORY");
  const entry = { title: "B", file: "b.md", hook: "new" };
  assert.equal(memdir.upsertIndexEntry("# M", entry), "# M\n- [B](b.md) \u2014 new\n");
  assert.equal(memdir.upsertIndexEntry("- [B](b.md) \u2014 old\n- [C](c.md)", entry), "- [B](b.md) \u2014 new\n- [C](c.md)");
  const { maxLines, maxUnits } = memdir.entrypointCaps();
  const long = Array.from({ length: maxLines + 3 }, (_, i) => `- line ${i}`).join("\n");
  assert.deepEqual(memdir.linesCut(long), { start: maxLines, end: maxLines + 3 });
  assert.equal(truncateEntrypoint(long).lineCount, maxLines + 3);
  assert.ok(truncateEntrypoint("x".repeat(maxUnits + 1)).wasByteTruncated);
  assert.ok(!truncateEntrypoint("x".repeat(maxUnits)).wasByteTruncated);
  assert.deepEqual(memdir.linesCut("a\nb\nc\nd", { maxLines: 2 }), { start: 2, end: 4 });
});

test("validateMemoryPath answers a path or null, and option bags are optional", () => {
  assert.equal(validateMemoryPath("~/mem", { expandTilde: true, home: "/home/u" }), "/home/u/mem/");
  assert.equal(validateMemoryPath("/ab//"), "/ab/");
  assert.equal(validateMemoryPath("/a"), null);
  assert.equal(validateMemoryPath("~/mem"), null, "no tilde expansion unless asked");
  assert.equal(truncateEntrypoint("- a").content, "- a");
});

test("a non-string where a string belongs is a MemdirError, and the module keeps working", () => {
  const calls = {
    truncateEntrypoint: (v) => truncateEntrypoint(v),
    parseFrontmatter: (v) => parseFrontmatter(v),
    formatMemoryFile: (v) => formatMemoryFile({ name: "x" }, v),
    parseIndexEntry: (v) => parseIndexEntry(v),
    memoryHeader: (v) => memoryHeader(v, 0, 0),
    sanitizePath: (v) => sanitizePath(v),
    validateMemoryPath: (v) => validateMemoryPath(v),
    scanForSecrets: (v) => memdir.scanForSecrets(v),
    redactSecrets: (v) => memdir.redactSecrets(v),
    sanitizePathKey: (v) => memdir.sanitizePathKey(v),
    shouldRecall: (v) => memdir.shouldRecall(v),
  };
  for (const [name, call] of Object.entries(calls)) {
    for (const value of [7, null, undefined, {}, ["a"], Symbol("s")]) {
      assert.throws(() => call(value), (e) => isMemdirError(e) && e.code === "INVALID_INPUT", `${name}(${String(value)})`);
    }
  }
  assert.equal(sanitizePath("/a/b"), "-a-b");
  assert.equal(parseFrontmatter("---\nname: x\n---\nb").header.name, "x");
});

test("libraryFiles names every file the library itself leaves in a directory", async () => {
  const files = memdir.libraryFiles();
  const kinds = new Map(files.map((f) => [f.name, f.kind]));
  assert.equal(kinds.size, files.length);
  for (const f of files) assert.ok(["lock", "journal", "cache"].includes(f.kind), f.name);
  // Save, recall with an embedder (vectors and the index cache), list: whatever is then in the
  // directory besides the memories and MEMORY.md must be on the list.
  const fs = memdir.memoryFs();
  const embed = async (texts) => texts.map((t) => [t.length % 7, 1, 2]);
  embed.model = "lengths";
  const m = new memdir.Memdir({ fs, dir: "/memory/", embed });
  await m.save({ name: "Uses pnpm", description: "Install packages with pnpm", type: "feedback", body: "pnpm only" });
  await m.findRelevant("install packages with pnpm");
  const names = (await fs.readDir("/memory/")).map((e) => e.name);
  const extra = names.filter((n) => !n.endsWith(".md"));
  assert.ok(extra.some((n) => kinds.get(n) === "cache"), `no cache written: ${names}`);
  for (const n of extra) assert.ok(kinds.has(n), `${n} is not in libraryFiles()`);
});

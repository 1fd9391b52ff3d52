// Unpaired UTF-16 surrogates from the caller (issue #18): refused with UNPAIRED_SURROGATE where a
// path, file name or key is formed or memory text is written; carried through and given back
// exactly where the result is text made from the input (or a verdict on it); read as U+FFFD only
// where the text is just looked at (a query). Never silently written as U+FFFD.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  sanitizePathKey, validateMemoryPath, sanitizePath, slugify, derivedFileName,
  redactSecrets, scanForSecrets, parseIndexEntry, truncateEntrypoint, isMemdirError,
  parseFrontmatter, formatManifest, resolveMemoryDir, Memdir, memoryFs, shouldRecall,
} from "memdir";

const HIGH = "\uD800";
const LOW = "\uDFFF";

function unpaired(e) {
  assert.ok(isMemdirError(e), String(e));
  assert.equal(e.code, "UNPAIRED_SURROGATE");
  assert.ok(!e.message.includes("\uFFFD"));
  return true;
}

/** A check that the error is UNPAIRED_SURROGATE and names `field`. */
const unpairedIn = (field) => (e) => unpaired(e) && (assert.match(e.message, new RegExp(`\\b${field}\\b`)), true);

test("functions that form a name refuse a lone surrogate", () => {
  assert.throws(() => sanitizePathKey(`notes/a${HIGH}.md`), unpaired);
  assert.throws(() => validateMemoryPath(`/home/u/mem${LOW}`), unpaired);
  // The long-path hash would otherwise name a different project directory.
  assert.throws(() => sanitizePath(`/home/u/${"x".repeat(250)}${HIGH}`), unpaired);
  assert.throws(() => sanitizePath(`/a${LOW}b`), unpaired);
  assert.throws(() => slugify(`Role ${HIGH}`), unpaired);
  assert.throws(() => derivedFileName("user", `Role ${LOW}`, 1), unpaired);
  // A well-formed pair is an ordinary character.
  assert.equal(sanitizePathKey("notes/😀.md"), "notes/😀.md");
  assert.equal(sanitizePath("/a😀"), "-a--");
});

test("text functions give lone surrogates back exactly", () => {
  const token = "ghp_" + "aB3".repeat(12);
  const text = `${HIGH}key ${token} and ${LOW}\uE000x${HIGH}`;
  assert.throws(() => redactSecrets(text), unpaired, "stand-in characters next to lone surrogates are refused");
  const plain = `${HIGH}key ${token}\n${LOW}x${HIGH}`;
  assert.equal(redactSecrets(plain), `${HIGH}key [REDACTED]\n${LOW}x${HIGH}`);
  assert.deepEqual(scanForSecrets(plain).map((f) => f.ruleId), ["github-pat"]);
  // A lone surrogate right after a token that needs a delimiter: not one, as in the reference.
  const npm = "npm_" + "Q".repeat(36);
  assert.deepEqual(scanForSecrets(npm + LOW), []);
  assert.deepEqual(scanForSecrets(npm + " " + LOW), [{ ruleId: "npm-access-token", label: "NPM Access Token" }]);

  const entry = parseIndexEntry(`- [T${HIGH}](a.md) — hook ${LOW}`);
  assert.deepEqual(entry, { title: `T${HIGH}`, file: "a.md", hook: `hook ${LOW}` });

  const index = `- [A](a.md) — x${HIGH}\n`.repeat(3);
  const out = truncateEntrypoint(index);
  assert.equal(out.content, index.trim());
  assert.equal(out.byteCount, index.trim().length);
  // Cut by units: a lone surrogate is one unit, as in JS.
  const long = (`- [A](a.md) — ${LOW}${"y".repeat(40)}\n`).repeat(1000);
  const cut = truncateEntrypoint(long, { maxLines: 10000, maxUnits: 1000 });
  assert.ok(cut.wasByteTruncated);
  assert.ok(cut.content.startsWith(long.slice(0, 900)));
  assert.ok(!cut.content.includes("\uFFFD"));
});

test("parseFrontmatter gives lone surrogates back exactly, in every path of the core", () => {
  // Plain block (offsets), escaped value (JSON), a value with no JSON form (object), odd keys.
  const cases = [
    `---\nname: R${HIGH}ole\ndescription: d${LOW}\ntype: user\n---\nbody ${HIGH}`,
    `---\nname: "R\\"${HIGH}"\ndescription: 'it''s ${LOW}'\n---\n${LOW}`,
    `---\nname: x${HIGH}\nn: .nan\nk${LOW}: [a${HIGH}, b]\n---\nb`,
  ];
  for (const text of cases) {
    const parsed = parseFrontmatter(text);
    const flat = JSON.stringify(parsed);
    assert.ok(!flat.includes("\\ufffd") && !flat.includes("\uFFFD"), flat);
    assert.ok(!/[\uE000-\uE7FF]/.test(flat), flat);
    assert.ok(text.endsWith(parsed.body));
  }
  assert.deepEqual(parseFrontmatter(cases[0]).header, { name: `R${HIGH}ole`, description: `d${LOW}`, type: "user" });
  assert.equal(parseFrontmatter(cases[1]).header.name, `R"${HIGH}`);
  assert.equal(parseFrontmatter(cases[1]).header.description, `it's ${LOW}`);
  const odd = parseFrontmatter(cases[2]);
  assert.equal(odd.header.name, `x${HIGH}`);
  assert.deepEqual(odd.frontmatter[`k${LOW}`], [`a${HIGH}`, "b"]);
  assert.ok(Number.isNaN(odd.frontmatter.n));
  // A header past the probe goes whole to the core, as a well-formed one does.
  const long = `---\nname: n\ndescription: ${"d".repeat(600)}${HIGH}\n---\nx`;
  assert.equal(parseFrontmatter(long).header.description, `${"d".repeat(600)}${HIGH}`);
});

// Input checks may throw before a promise exists, as for INVALID_INPUT: `async () =>` takes either.
test("option fields that name a directory are refused, naming the field", async () => {
  assert.throws(() => new Memdir({ fs: memoryFs(), dir: `/mem${HIGH}/` }), unpairedIn("dir"));
  await assert.rejects(async () => resolveMemoryDir({ projectRoot: `/work/a${LOW}`, home: "/home/u" }), unpairedIn("projectRoot"));
  await assert.rejects(async () => resolveMemoryDir({ projectRoot: "/work/a", home: `/home/${HIGH}` }), unpairedIn("home"));
  assert.throws(() => validateMemoryPath("~/mem", { expandTilde: true, home: `/home/${LOW}` }), unpairedIn("home"));
  // A well-formed pair is an ordinary character.
  assert.equal(new Memdir({ fs: memoryFs(), dir: "/mem😀/" }).dir, "/mem😀/");
});

test("Memdir writes refuse lone surrogates in names and in text, and write nothing", async () => {
  const fs = memoryFs();
  const m = new Memdir({ fs, dir: "/mem/" });
  const base = { name: "Role", description: "Senior dev", type: "user", body: "Prefers Go" };
  await m.save(base);
  const before = await m.scan();
  for (const [field, value] of [["name", `Ro${HIGH}le`], ["description", `Senior ${LOW}`], ["body", `Go ${HIGH}`], ["file", `r${LOW}.md`]]) {
    await assert.rejects(async () => m.save({ ...base, name: "Other", [field]: value }), unpairedIn(field), field);
  }
  await assert.rejects(async () => m.update("user_role.md", { body: `x${LOW}` }), unpairedIn("body"));
  await assert.rejects(async () => m.update("user_role.md", { description: `x${HIGH}` }), unpairedIn("description"));
  await assert.rejects(async () => m.update(`user_role${HIGH}.md`, { body: "x" }), unpairedIn("file"));
  await assert.rejects(async () => m.delete(`user_role${LOW}.md`), unpairedIn("file"));
  await assert.rejects(async () => m.appendLog(`- 14:02 ${HIGH}\n`), unpairedIn("text"));
  await assert.rejects(async () => m.memoryCommand({ command: "create", path: `/memories/a${HIGH}.md`, file_text: "x" }), unpairedIn("path"));
  await assert.rejects(async () => m.memoryCommand({ command: "create", path: "/memories/a.md", file_text: `x${LOW}` }), unpairedIn("file_text"));
  await assert.rejects(
    async () => m.memoryCommand({ command: "str_replace", path: "/memories/user_role.md", old_str: "Go", new_str: `Rust${HIGH}` }),
    unpairedIn("new_str"),
  );
  assert.deepEqual(await m.scan(), before);
  const file = await m.memoryCommand({ command: "view", path: "/memories/user_role.md" });
  assert.ok(!file.text.includes("\uFFFD"));
  // The same writes with well-formed text go through.
  await m.update("user_role.md", { body: "Go 😀" });
  assert.match((await m.memoryCommand({ command: "view", path: "/memories/user_role.md" })).text, /Go 😀/);
});

test("a query is only looked at: a lone surrogate in it is accepted", async () => {
  const m = new Memdir({ fs: memoryFs(), dir: "/mem/" });
  await m.save({ name: "Testing", description: "Integration tests hit the real database", type: "feedback", body: "b" });
  const plain = await m.findRelevant("how do the integration tests run");
  const lone = await m.findRelevant(`how do the integration tests run ${HIGH}`);
  assert.deepEqual(lone.memories.map((x) => x.filename), plain.memories.map((x) => x.filename));
  assert.equal(plain.memories.length, 1);
  assert.equal(shouldRecall(`how do we run the tests ${LOW}`), shouldRecall("how do we run the tests"));
  assert.equal(shouldRecall(`tests${HIGH}`), false);
});

test("formatManifest refuses a lone surrogate in a header, on its fast path too", () => {
  const h = { filename: "a.md", mtimeMs: 0, type: "user", description: `d${HIGH}` };
  assert.throws(() => formatManifest([h]), unpairedIn("description"));
  assert.throws(() => formatManifest([{ ...h, description: "d", filename: `a${LOW}.md` }]), unpairedIn("filename"));
});

test("transcript messages are only looked at: extraction accepts a lone surrogate", async () => {
  const prompts = [];
  const llm = (request) => (prompts.push(JSON.stringify(request)), JSON.stringify({ operations: [] }));
  const m = new Memdir({ fs: memoryFs(), dir: "/mem/", llm });
  await m.extract([{ role: "user", text: `Remember: I prefer pnpm ${HIGH}`, id: "a" }]);
  assert.equal(prompts.length, 1);
  assert.ok(prompts[0].includes("I prefer pnpm \uFFFD"));
});

test("without String.prototype.isWellFormed (engines before ES2024) the same decisions hold", async () => {
  const { spawnSync } = await import("node:child_process");
  const { fileURLToPath } = await import("node:url");
  const code = `
    delete String.prototype.isWellFormed;
    const { parseFrontmatter, Memdir, memoryFs } = await import("memdir");
    const r = parseFrontmatter("---\\nname: a\\uD800\\n---\\nb\\uDC00");
    let code = null;
    try { new Memdir({ fs: memoryFs(), dir: "/m\\uDC00/" }); } catch (e) { code = e.code; }
    console.log(JSON.stringify({ name: r.header.name === "a\\uD800", body: r.body === "b\\uDC00", code }));`;
  const cwd = fileURLToPath(new URL(".", import.meta.url));
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", code], { cwd, encoding: "utf8" });
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { name: true, body: true, code: "UNPAIRED_SURROGATE" });
});

test("parseFrontmatter refuses only a text with both a lone surrogate and a stand-in character", () => {
  assert.throws(() => parseFrontmatter(`---\nname: a${HIGH}\uE000\n---\n`), unpaired);
  assert.equal(parseFrontmatter("---\nname: a\uE000\n---\n").header.name, "a\uE000");
});

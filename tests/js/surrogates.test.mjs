// Unpaired UTF-16 surrogates from the caller (issue #18): refused with UNPAIRED_SURROGATE where a
// path, file name or key is formed; carried through and given back exactly where the result is
// text made from the input (or a verdict on it). Never silently turned into U+FFFD.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  sanitizePathKey, validateMemoryPath, sanitizePath, slugify, derivedFileName,
  redactSecrets, scanForSecrets, parseIndexEntry, truncateEntrypoint, isMemdirError,
} from "memdir";

const HIGH = "\uD800";
const LOW = "\uDFFF";

function unpaired(e) {
  assert.ok(isMemdirError(e), String(e));
  assert.equal(e.code, "UNPAIRED_SURROGATE");
  assert.ok(!e.message.includes("\uFFFD"));
  return true;
}

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

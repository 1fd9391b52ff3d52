// Deterministic synthetic memory directory for the benchmarks (issue #8).
//
//   node benches/generate.mjs [dir=/tmp/memdir-bench/memory] [count=10000]
//
// Writes `count` memory files (`<type>_<n>_<word>.md`) plus a MEMORY.md pointing at them, the
// shape toolchain.md §7 measured: frontmatter `name`, `description` (100–110 chars; 20 % hold
// ": " and are therefore quoted, as our formatter and Claude Code write them) and `type`, then a
// 1–3 KB markdown body. A mulberry32 PRNG with a fixed seed makes the bytes identical on every
// run; mtimes are fixed too (one file a minute back from 2026-01-01). Also exported as a function.
import { mkdirSync, writeFileSync, utimesSync, rmSync, existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const WORDS = ("api auth build cache commit config database deploy docker error feature flag fix " +
  "frontend go graph hook index lint log merge migration mock monitor network oauth parser pipeline " +
  "queue react redis release review rust schema script secret server session shell sql test token " +
  "trace type user vendor wasm worker yaml").split(" ");
const TYPES = ["user", "feedback", "project", "reference"];

export function mulberry32(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (rand, list) => list[Math.floor(rand() * list.length)];
const words = (rand, n) => Array.from({ length: n }, () => pick(rand, WORDS)).join(" ");

/** The text of file `i` and its metadata, deterministic in `i`. */
export function memoryFile(i) {
  const rand = mulberry32(0x5eed + i * 7919);
  const type = TYPES[i % 4];
  const topic = pick(rand, WORDS);
  const file = `${type}_${String(i).padStart(5, "0")}_${topic}.md`;
  const name = `${topic} ${words(rand, 2)} ${i}`;
  const quoted = i % 5 === 0;
  let description = (quoted ? `Rule: ${topic} ` : `${topic} `) + words(rand, 30);
  const target = 100 + Math.floor(rand() * 11);
  description = description.slice(0, target).trimEnd();
  while (description.length < 100) description += "x";
  const shownDescription = quoted ? JSON.stringify(description) : description;
  const bodyTarget = 1024 + Math.floor(rand() * 2048);
  const paragraphs = [];
  let length = 0;
  while (length < bodyTarget) {
    const p = rand() < 0.2 ? `- ${words(rand, 8)}\n- ${words(rand, 6)}` : `${words(rand, 12 + Math.floor(rand() * 20))}.`;
    paragraphs.push(p);
    length += p.length + 2;
  }
  const body = `**Why:** ${words(rand, 10)}.\n\n${paragraphs.join("\n\n")}\n`;
  const text = `---\nname: ${name}\ndescription: ${shownDescription}\ntype: ${type}\n---\n\n${body}`;
  return { file, text, name, description, type, hook: words(rand, 6) };
}

/** Write `count` files into `dir` (recreated) and return their metadata. */
export function generate(dir, count = 10000) {
  const stamp = join(dir, ".generated");
  const files = [];
  for (let i = 0; i < count; i++) files.push(memoryFile(i));
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === String(count)) return files;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const base = Date.UTC(2026, 0, 1) / 1000;
  const index = [];
  files.forEach(({ file, text, name, hook }, i) => {
    const path = join(dir, file);
    writeFileSync(path, text);
    const t = base - i * 60;
    utimesSync(path, t, t);
    index.push(`- [${name}](${file}) — ${hook}`);
  });
  writeFileSync(join(dir, "MEMORY.md"), index.slice(0, 150).join("\n") + "\n");
  writeFileSync(stamp, String(count));
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? "/tmp/memdir-bench/memory";
  const count = Number(process.argv[3] ?? 10000);
  const t0 = performance.now();
  const files = generate(dir, count);
  const bytes = files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
  console.log(`${files.length} files, ${(bytes / 1048576).toFixed(1)} MiB in ${dir} (${(performance.now() - t0).toFixed(0)} ms)`);
}

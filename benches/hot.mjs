// The hot paths against honest floors (issue #17): every figure next to a plain-JS floor that
// does exactly the same I/O (same files read, same stats, same concurrency, same atomicity).
//
//   scripts/bench.sh                 # builds pkg/, runs this file, then benches/run.mjs
//   node benches/hot.mjs             # this file alone, against pkg/ as built
//
// Environment: BENCH_ROOT (default /tmp/memdir-bench: data directories `scan-<n>/` are generated
// there once, deterministically, by benches/generate.mjs), BENCH_ROUNDS (7 timed rounds),
// BENCH_WARM (warm-up rounds before them, default 1; more give the steady state, once the engine
// has compiled what is hot), BENCH_SIZES (scan sizes, default 1000,10000,50000),
// BENCH_CONC (64: files in flight in the async floors, the scan's own SCAN_CHUNK), BENCH_SAVES
// (1000), BENCH_GROWTH_RUNS (3: runs of the save-growth phase), BENCH_ONLY (comma list of
// groups: scan-sync, scan-async, truncate, save, prompt, parse, index, manifest).
//
// Method: the variants of a figure run in one process, interleaved (round r starts with variant
// r mod n), after the warm-up rounds. Each row prints our median, the floor's median, the median
// of the per-round ratios ours/floor and their spread (lowest–highest per-round ratio), then the
// target and whether it is met. Results are checked equal to the floor's (or gray-matter's)
// before anything is timed.
import { execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { generate, memoryFile } from "./generate.mjs";
import { truncateEntrypointReference } from "./truncate-reference.mjs";

const require = createRequire(new URL("../scripts/package.json", import.meta.url));
const matter = require("gray-matter");

const ROOT = (process.env.BENCH_ROOT ?? "/tmp/memdir-bench").replace(/\/?$/, "/");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 7);
const WARM = Math.max(1, Number(process.env.BENCH_WARM ?? 1));
const SIZES = (process.env.BENCH_SIZES ?? "1000,10000,50000").split(",").map(Number);
const CONC = Number(process.env.BENCH_CONC ?? 64);
const SAVES = Number(process.env.BENCH_SAVES ?? 1000);
const GROWTH_RUNS = Number(process.env.BENCH_GROWTH_RUNS ?? 3);
const ONLY = process.env.BENCH_ONLY?.split(",");
const wants = (group) => !ONLY || ONLY.includes(group);

const api = await import(new URL("../pkg/index.node.js", import.meta.url).href);
const { nodeFs } = await import(new URL("../pkg/node.js", import.meta.url).href);

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms >= 0.01 ? ms.toFixed(3) : ms.toFixed(4));
const rows = [];

/** Run `variants` ({ name, run }) interleaved; name → every timed round's ms. */
async function interleave(group, variants, rounds = ROUNDS) {
  const times = new Map(variants.map((v) => [v.name, []]));
  for (let r = -WARM; r < rounds; r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + Math.max(r, 0)) % variants.length];
      const t0 = performance.now();
      await v.run();
      const dt = performance.now() - t0;
      if (r >= 0) times.get(v.name).push(dt);
    }
  }
  for (const [name, xs] of times)
    console.log(`  ${group.padEnd(12)} ${name.padEnd(44)} median ${fmt(median(xs)).padStart(8)} ms  [${xs.map(fmt).join(" ")}]`);
  return times;
}

/**
 * One row: ours against a floor, from per-round times (same round index = same interleaved
 * round). `per` divides the times (repetitions inside a round). `bound` is the target ratio,
 * `higherIsBetter` for throughput targets (floor/ours ≥ bound).
 */
function row(figure, times, ours, floor, { per = 1, bound, higherIsBetter = false, target, unit = "ms" } = {}) {
  const a = times.get(ours), b = times.get(floor);
  const ratios = a.map((x, i) => (higherIsBetter ? b[i] / x : x / b[i]));
  const ratio = median(ratios);
  const ok = bound === undefined ? null : higherIsBetter ? ratio >= bound : ratio <= bound;
  rows.push({
    figure,
    ours: `${fmt(median(a) / per)} ${unit}`,
    floor: `${floor} ${fmt(median(b) / per)} ${unit}`,
    ratio: `${ratio.toFixed(2)}×${higherIsBetter ? " throughput" : ""}`,
    spread: `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}`,
    target: target ?? (bound === undefined ? "(info)" : `${higherIsBetter ? "≥" : "≤"} ${bound}×`),
    ok,
  });
}

function absRow(figure, xs, { bound, unit = "ms", floor = "—" }) {
  const m = median(xs);
  rows.push({
    figure,
    ours: `${fmt(m)} ${unit}`,
    floor,
    ratio: "—",
    spread: `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))} ${unit}`,
    target: `≤ ${bound} ${unit}`,
    ok: m <= bound,
  });
}

// ---------------------------------------------------------------- scan + manifest

const TYPES = new Set(["user", "feedback", "project", "reference"]);
const isCandidate = (name) => name.endsWith(".md") && name !== "MEMORY.md";
const HEAD = 8192; // the scan's first readHead size (src/store/scan.rs HEAD_START_BYTES)
const NEWEST = 200;

const listSync = (dir) => fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile() && isCandidate(e.name)).map((e) => e.name);
const listAsync = async (dir) => (await fsp.readdir(dir, { withFileTypes: true })).filter((e) => e.isFile() && isCandidate(e.name)).map((e) => e.name);

async function chunked(items, fn) {
  const out = [];
  for (let i = 0; i < items.length; i += CONC) out.push(...(await Promise.all(items.slice(i, i + CONC).map(fn))));
  return out;
}

function readHeadSync(path) {
  const fd = fs.openSync(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(HEAD);
    return buffer.subarray(0, fs.readSync(fd, buffer, 0, HEAD, 0));
  } finally {
    fs.closeSync(fd);
  }
}
async function readHeadAsync(path) {
  const fh = await fsp.open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(HEAD);
    const { bytesRead } = await fh.read(buffer, 0, HEAD, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function firstLines(text, n = 30) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text.split("\n", n).map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)).join("\n");
}
const newestFirst = (a, b) => b.mtimeMs - a.mtimeMs;
const manifestLine = (h) =>
  `- ${h.type ? `[${h.type}] ` : ""}${h.filename} (${new Date(h.mtimeMs).toISOString()})${h.description ? `: ${h.description}` : ""}`;
const manifestOf = (headers) => headers.map(manifestLine).join("\n");
function headerOf(filename, mtimeMs, data) {
  const description = data.description ? String(data.description) : null;
  const type = typeof data.type === "string" && TYPES.has(data.type) ? data.type : undefined;
  return { filename, mtimeMs, description, type };
}

/**
 * The same-I/O floor: list, stat every candidate, order by mtime, read the 8 KB head of the
 * newest 200 (no decoding, no parsing). Async: `CONC` stats and reads in flight, like the scan.
 */
const floorSync = (dir) => {
  const stated = listSync(dir).map((name) => ({ name, mtimeMs: fs.statSync(dir + name).mtimeMs }));
  stated.sort(newestFirst);
  let n = 0;
  for (const f of stated.slice(0, NEWEST)) n += readHeadSync(dir + f.name).length;
  return n;
};
const floorAsync = async (dir) => {
  const stated = await chunked(await listAsync(dir), async (name) => ({ name, mtimeMs: (await fsp.stat(dir + name)).mtimeMs }));
  stated.sort(newestFirst);
  const sizes = await chunked(stated.slice(0, NEWEST), async (f) => (await readHeadAsync(dir + f.name)).length);
  return sizes.length;
};
/** The gray-matter pipeline a user would write, the reference's way: list, stat and read every
 * file, parse its first 30 lines, order by mtime, keep the newest 200 (the same manifest). */
const grayMatterSync = (dir) => {
  const headers = listSync(dir).map((name) => headerOf(name, fs.statSync(dir + name).mtimeMs, matter(firstLines(fs.readFileSync(dir + name, "utf8"))).data));
  return manifestOf(headers.sort(newestFirst).slice(0, NEWEST));
};
const grayMatterAsync = async (dir) => {
  const headers = await chunked(await listAsync(dir), async (name) => headerOf(name, (await fsp.stat(dir + name)).mtimeMs, matter(firstLines(await fsp.readFile(dir + name, "utf8"))).data));
  return manifestOf(headers.sort(newestFirst).slice(0, NEWEST));
};

/** `fn` run with this process's CPU time (user + system, every thread: the libuv pool's too)
 * pushed to `into` under `name`, in ms: on a shared machine, the share of the work that is
 * ours, next to the wall-clock figure that other processes' load stretches. */
async function cpuTimed(into, name, fn) {
  const c0 = process.cpuUsage();
  const out = await fn();
  const c = process.cpuUsage(c0);
  if (!into.has(name)) into.set(name, []);
  into.get(name).push((c.user + c.system) / 1000);
  return out;
}

function scanDir(count) {
  const dir = `${ROOT}scan-${count}/`;
  generate(dir, count);
  return dir;
}

async function scanGroup(style) {
  const sync = style === "sync";
  for (const count of SIZES) {
    const dir = scanDir(count);
    const memdir = new api.Memdir({ fs: nodeFs({ sync }), dir });
    const expected = await (sync ? grayMatterSync : grayMatterAsync)(dir);
    matter.clearCache();
    const ours = await memdir.manifest();
    if (ours !== expected) console.log(`  !! scan-${style} ${count}: our manifest differs from the gray-matter pipeline's`);
    const rounds = count >= 50000 ? Math.max(3, Math.ceil(ROUNDS / 2)) : ROUNDS;
    const cpu = new Map();
    const floorName = `floor ${count}`, oursName = `memdir.manifest() ${count}`;
    const t = await interleave(`scan-${style}`, [
      { name: floorName, run: () => cpuTimed(cpu, floorName, () => (sync ? floorSync : floorAsync)(dir)) },
      { name: `gray-matter ${count}`, run: () => (matter.clearCache(), (sync ? grayMatterSync : grayMatterAsync)(dir)) },
      { name: oursName, run: () => cpuTimed(cpu, oursName, () => memdir.manifest()) },
    ], rounds);
    // The warm-up rounds are not timed: drop their CPU samples too.
    for (const xs of cpu.values()) xs.splice(0, WARM);
    const figure = `scan + manifest, ${count.toLocaleString("en")} files, ${style}`;
    row(figure, t, oursName, floorName, { bound: 1.2 });
    row(`${figure}, CPU time`, cpu, oursName, floorName);
    row(figure, t, oursName, `gray-matter ${count}`, { bound: 0.3 });
    memdir.free?.();
  }
}

// ---------------------------------------------------------------- truncateEntrypoint

function indexOf(bytes) {
  const lines = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const f = memoryFile(i % 5000);
    const line = `- [${f.name}](${f.file}) — ${f.hook} ${f.description.slice(0, (i * 37) % 90)}`;
    lines.push(line);
    size += line.length + 1;
  }
  let text = lines.join("\n") + "\n";
  if (text.length > bytes) text = text.slice(0, text.lastIndexOf("\n", bytes - 1) + 1);
  return text;
}

async function truncateGroup() {
  const sizes = [["1 KB", 1000], ["25 KB", 25000], ["1 MiB", 1 << 20], ["10 MiB", 10 << 20]];
  for (const [label, bytes] of sizes) {
    const text = indexOf(bytes);
    const ref = truncateEntrypointReference(text);
    const ours = api.truncateEntrypoint(text);
    const same = ["content", "lineCount", "byteCount", "wasLineTruncated", "wasByteTruncated"].every((k) => ref[k] === ours[k]);
    if (!same) console.log(`  !! truncate ${label}: differs from the JS reference`);
    const reps = Math.max(3, Math.min(20000, Math.round(2e7 / bytes)));
    let sink = 0;
    const t = await interleave("truncate", [
      { name: `JS reference ${label}`, run: () => { for (let r = 0; r < reps; r++) sink += truncateEntrypointReference(text).content.length; } },
      { name: `truncateEntrypoint ${label}`, run: () => { for (let r = 0; r < reps; r++) sink += api.truncateEntrypoint(text).content.length; } },
    ]);
    const bound = bytes > 100000 ? 1 : 1.5;
    row(`truncateEntrypoint, ${label} index (a call)`, t, `truncateEntrypoint ${label}`, `JS reference ${label}`, { per: reps, bound });
    if (sink < 0) console.log(sink);
  }
}

// ---------------------------------------------------------------- save

/** The safe floor: lock file (exclusive create), the memory file as temp + rename, MEMORY.md
 * read, its line upserted, rewritten as temp + rename, lock removed. What a careful JS writer
 * does; no containment, journal or secret checks. */
async function floorSave(dir, n, input) {
  const lock = `${dir}.memdir.lock`;
  await fsp.writeFile(lock, String(process.pid), { flag: "wx" });
  try {
    const file = `${input.type}_${input.name.toLowerCase().replace(/[^a-z0-9]+/g, "_")}.md`;
    const text = `---\nname: ${input.name}\ndescription: ${input.description}\ntype: ${input.type}\n---\n\n${input.body}\n`;
    const tmp = `${dir}${file}.tmp-${n}`;
    await fsp.writeFile(tmp, text);
    await fsp.rename(tmp, dir + file);
    let index = "";
    try {
      index = await fsp.readFile(`${dir}MEMORY.md`, "utf8");
    } catch {}
    const line = `- [${input.name}](${file}) — ${input.description}`;
    const lines = index ? index.replace(/\n$/, "").split("\n") : [];
    const at = lines.findIndex((l) => l.includes(`](${file})`));
    if (at >= 0) lines[at] = line;
    else lines.push(line);
    const itmp = `${dir}MEMORY.md.tmp-${n}`;
    await fsp.writeFile(itmp, lines.join("\n") + "\n");
    await fsp.rename(itmp, `${dir}MEMORY.md`);
  } finally {
    await fsp.unlink(lock);
  }
}

async function saveGroup() {
  const inputOf = (i) => {
    const f = memoryFile(i);
    return { name: `${f.name} ${i}`, description: f.description.replace(/"/g, ""), type: f.type, body: f.text.slice(f.text.indexOf("\n---\n") + 5) };
  };
  const batch = 100, batches = Math.ceil(SAVES / batch);
  const fresh = (d) => {
    fs.rmSync(d, { recursive: true, force: true });
    fs.mkdirSync(d, { recursive: true });
    return d;
  };
  // Warm-up first, into directories of their own (JIT, caches), so the first timed 100 are
  // not the first saves of the process: the growth figure compares like with like.
  const warm = 100;
  const warmFloor = fresh(`${ROOT}save-warm-floor/`), warmOurs = fresh(`${ROOT}save-warm-ours/`);
  // The floor writes a 1,000-line index; memdir refuses an index past the caps by default.
  const options = (dir) => ({ fs: nodeFs(), dir, store: { indexOverCap: "warn" } });
  const warmMemdir = new api.Memdir(options(warmOurs));
  for (let i = 0; i < warm; i++) {
    await floorSave(warmFloor, i, inputOf(i));
    await warmMemdir.save(inputOf(i));
  }
  warmMemdir.free?.();
  const floorDir = fresh(`${ROOT}save-floor/`), oursDir = fresh(`${ROOT}save-ours/`);
  const memdir = new api.Memdir(options(oursDir));
  // Per batch of 100 (interleaved, the first variant alternating): mean ms a save; and every
  // save's own ms, for the growth figure (median of the first 100 against the last 100).
  const times = new Map([["floor", []], ["save()", []]]);
  const each = new Map([["floor", []], ["save()", []]]);
  const eachCpu = new Map([["floor", []], ["save()", []]]);
  let n = 0, m = 0;
  const timed = async (name, fn) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await fn();
    each.get(name).push(performance.now() - t0);
    const c = process.cpuUsage(c0);
    eachCpu.get(name).push((c.user + c.system) / 1000);
  };
  const cpu = new Map();
  const variants = [
    { name: "floor", run: async () => { for (let k = 0; k < batch; k++, n++) await timed("floor", () => floorSave(floorDir, n, inputOf(n))); } },
    { name: "save()", run: async () => { for (let k = 0; k < batch; k++, m++) await timed("save()", () => memdir.save(inputOf(m))); } },
  ];
  for (let r = 0; r < batches; r++) {
    for (let k = 0; k < 2; k++) {
      const v = variants[(k + r) % 2];
      const t0 = performance.now();
      await cpuTimed(cpu, v.name, v.run);
      times.get(v.name).push((performance.now() - t0) / batch);
    }
  }
  for (const [name, xs] of times) console.log(`  save         ${name.padEnd(44)} ms/save per 100: [${xs.map(fmt).join(" ")}]`);
  const ours = fs.readdirSync(oursDir).filter(isCandidate).length, floor = fs.readdirSync(floorDir).filter(isCandidate).length;
  if (ours !== SAVES || floor !== SAVES) console.log(`  !! save: ${ours} / ${floor} files, expected ${SAVES}`);
  row(`save(), ${SAVES.toLocaleString("en")} into one directory (ms a save)`, times, "save()", "floor", { bound: 1.5, target: "≤ 1.5×" });
  row(`save(), ${SAVES.toLocaleString("en")} into one directory, CPU time (ms a save)`, cpu, "save()", "floor", { per: batch });
  memdir.free?.();
  // Growth: each save's ms, median of the first 100 and of the last 100 (after the warm-up).
  // Measured on each side alone, one after the other, into fresh directories: interleaved,
  // each side's saves also pay for the other's disk traffic, and the floor's (a growing index
  // rewritten each time) grows. The interleaved figures above follow as info. Each phase starts
  // after `sync`, so neither starts under the write-back of what ran before it.
  const ends = (xs) => [median(xs.slice(0, batch)), median(xs.slice(-batch))];
  // Three runs of each side, the order alternating; the row gives the run with the median
  // growth of ours, the spread all three.
  const runs = { "save()": [], floor: [] };
  for (let r = 0; r < GROWTH_RUNS; r++) {
    const order = r % 2 ? ["floor", "save()"] : ["save()", "floor"];
    for (const name of order) {
      const dir = fresh(`${ROOT}save-alone-${name === "floor" ? "floor" : "ours"}/`);
      try {
        execFileSync("sync");
      } catch {}
      const m = name === "floor" ? null : new api.Memdir(options(dir));
      const wall = [], cpuEach = [];
      for (let i = 0; i < SAVES; i++) {
        const c0 = process.cpuUsage();
        const t0 = performance.now();
        await (m ? m.save(inputOf(i)) : floorSave(dir, i, inputOf(i)));
        wall.push(performance.now() - t0);
        const c = process.cpuUsage(c0);
        cpuEach.push((c.user + c.system) / 1000);
      }
      m?.free?.();
      runs[name].push({ wall: ends(wall), cpu: ends(cpuEach) });
    }
  }
  const growthOf = ([x0, x1]) => x1 / x0;
  const middle = (xs) => [...xs].sort((p, q) => growthOf(p.wall) - growthOf(q.wall))[xs.length >> 1];
  const alone = new Map([["save()", middle(runs["save()"])], ["floor", middle(runs.floor)]]);
  const spreadOf = (xs) => {
    const g = xs.map((x) => growthOf(x.wall));
    return `${Math.min(...g).toFixed(2)}–${Math.max(...g).toFixed(2)} (floor ${runs.floor.map((x) => growthOf(x.wall).toFixed(2)).join(", ")})`;
  };
  const growth = (figure, [a0, a1], [f0, f1], target, spread = "—") => rows.push({
    figure,
    ours: `${fmt(a0)} → ${fmt(a1)} ms`,
    floor: `floor ${fmt(f0)} → ${fmt(f1)} ms (${(f1 / f0).toFixed(2)}×)`,
    ratio: `${(a1 / a0).toFixed(2)}×`,
    spread,
    target,
    ok: target === "(info)" ? null : a1 / a0 <= 1.2,
  });
  const of = `of ${SAVES.toLocaleString("en")}, after ${warm} warm-up`;
  growth(`save(): ms/save, median of the last 100 ÷ the first 100 (${of}; each side alone, the middle of ${GROWTH_RUNS} runs)`, alone.get("save()").wall, alone.get("floor").wall, "≤ 1.2×", spreadOf(runs["save()"]));
  growth("save(): CPU ms/save, the same (info: CPU time of this process, every thread)", alone.get("save()").cpu, alone.get("floor").cpu, "(info)");
  growth(`save(): ms/save, the same over the interleaved saves above (info: each side slowed by the other's disk traffic)`, ends(each.get("save()")), ends(each.get("floor")), "(info)");
}

// ---------------------------------------------------------------- loadPrompt

async function promptGroup() {
  const count = SIZES[SIZES.length - 1];
  const dir = scanDir(count);
  const memdir = new api.Memdir({ fs: nodeFs(), dir });
  const reps = 20;
  const t = await interleave("prompt", [
    { name: "floor: mkdir -p", run: async () => { for (let r = 0; r < reps; r++) await fsp.mkdir(dir, { recursive: true }); } },
    { name: "loadPrompt()", run: async () => { for (let r = 0; r < reps; r++) await memdir.loadPrompt(); } },
  ]);
  const xs = t.get("loadPrompt()").map((x) => x / reps);
  absRow(`loadPrompt(), ${count.toLocaleString("en")} files, no telemetry`, xs, { bound: 1, floor: `mkdir -p ${fmt(median(t.get("floor: mkdir -p")) / reps)} ms` });
  memdir.free?.();
}

// ---------------------------------------------------------------- parseFrontmatter per shape

const SHAPES = {
  plain: (i) => `name: topic ${i}\ndescription: a plain description of memory ${i} with words\ntype: user`,
  "double-quoted, escapes": (i) => `name: "Rule: ${i}"\ndescription: "Use \\"real\\" DB\\tnot mocks: see ticket #${i}\\n and the \\u00e9 note ${"x".repeat(60)}"\ntype: "feedback"`,
  "single-quoted": (i) => `name: 'Rule: ${i}'\ndescription: 'it''s the rule: always ${i} ${"y".repeat(60)}'\ntype: 'project'`,
  "block literal": (i) => `name: topic ${i}\ndescription: |\n  first line ${i}\n  second line: detail\ntype: user`,
  "folded": (i) => `name: topic ${i}\ndescription: >-\n  folded text ${i}\n  goes on here\ntype: reference`,
  "lists (flow and block)": (i) => `name: topic ${i}\ndescription: d ${i}\ntype: user\ntags: [a, b, "c: d"]\nrelated:\n  - one\n  - two ${i}`,
  "nested map": (i) => `name: topic ${i}\ndescription: d ${i}\ntype: project\nmeta:\n  owner: me\n  since: 2024\n  deep:\n    k: v ${i}`,
};

async function parseGroup() {
  const N = 2000;
  for (const [shape, head] of Object.entries(SHAPES)) {
    const texts = Array.from({ length: N }, (_, i) => `---\n${head(i)}\n---\n\nBody ${i}: some text.\n`);
    let diff = 0;
    matter.clearCache();
    for (const t of texts) {
      const a = api.parseFrontmatter(t).header, b = matter(t).data;
      const d = b.description === undefined ? undefined : String(b.description);
      if (a.name !== String(b.name) || a.description !== d || a.type !== b.type) diff++;
    }
    if (diff) console.log(`  !! parse ${shape}: ${diff}/${N} headers differ from gray-matter's`);
    let sink = 0;
    const t = await interleave("parse", [
      { name: `gray-matter: ${shape}`, run: () => { matter.clearCache(); for (const x of texts) sink += matter(x).content.length; } },
      { name: `parseFrontmatter: ${shape}`, run: () => { for (const x of texts) sink += api.parseFrontmatter(x).body.length; } },
    ]);
    row(`parseFrontmatter ×${N}, ${shape}`, t, `parseFrontmatter: ${shape}`, `gray-matter: ${shape}`, {
      higherIsBetter: true,
      bound: shape === "plain" ? 4 : 1,
    });
    if (sink < 0) console.log(sink);
  }
}

// ---------------------------------------------------------------- readIndex, formatManifest

/**
 * Plain JS readIndex with the same I/O as ours: the containment check (the directory's and
 * MEMORY.md's real paths, the file read only when its real path lies in the directory's, then
 * read by that real path, so a symlink leading out is never followed), then drop frontmatter,
 * (drop block comments when any), apply the caps.
 */
async function readIndexJs(dir) {
  let raw;
  try {
    const root = await fsp.realpath(dir);
    const real = await fsp.realpath(`${dir}MEMORY.md`);
    if (!real.startsWith(`${root}/`)) throw new Error("MEMORY.md resolves outside the memory directory");
    raw = await fsp.readFile(real, "utf8");
  } catch (e) {
    if (e.code === "ENOENT" || e.code === "EISDIR" || e.code === "ENOTDIR") return { exists: false, content: "" };
    throw e;
  }
  if (raw.startsWith("---")) {
    const m = /^---[ \t]*\r?\n[\s\S]*?\r?\n---[ \t]*(?:\r?\n|$)/.exec(raw);
    if (m) raw = raw.slice(m[0].length);
  }
  if (raw.includes("<!--")) raw = raw.replace(/^ {0,3}<!--[\s\S]*?-->[ \t]*\n?/gm, "");
  return { exists: true, ...truncateEntrypointReference(raw) };
}

async function indexGroup() {
  const dir = `${ROOT}index/`;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  for (const [label, bytes] of [["200 lines", 200], ["25 KB", 25000]]) {
    const text = bytes === 200 ? indexOf(1 << 20).split("\n").slice(0, 200).join("\n") + "\n" : indexOf(bytes);
    fs.writeFileSync(`${dir}MEMORY.md`, text);
    const memdir = new api.Memdir({ fs: nodeFs(), dir });
    const a = await memdir.readIndex(), b = await readIndexJs(dir);
    if (a.content !== b.content || a.lineCount !== b.lineCount) console.log(`  !! readIndex ${label}: differs from plain JS`);
    const reps = 50;
    const t = await interleave("readIndex", [
      { name: `plain JS ${label}`, run: async () => { for (let r = 0; r < reps; r++) await readIndexJs(dir); } },
      { name: `readIndex() ${label}`, run: async () => { for (let r = 0; r < reps; r++) await memdir.readIndex(); } },
    ]);
    row(`readIndex(), MEMORY.md of ${label} (a call)`, t, `readIndex() ${label}`, `plain JS ${label}`, { per: reps, bound: 1.2 });
    memdir.free?.();
  }
}

async function manifestGroup() {
  const headers = Array.from({ length: 200 }, (_, i) => {
    const f = memoryFile(i);
    return { filename: f.file, filePath: `/m/${f.file}`, mtimeMs: Date.UTC(2026, 0, 1) - i * 60000 + 0.5, description: f.description, type: f.type };
  });
  if (api.formatManifest(headers) !== manifestOf(headers)) console.log("  !! formatManifest differs from the JS template");
  const reps = 200;
  let sink = 0;
  const t = await interleave("manifest", [
    { name: "JS template", run: () => { for (let r = 0; r < reps; r++) sink += manifestOf(headers).length; } },
    { name: "formatManifest", run: () => { for (let r = 0; r < reps; r++) sink += api.formatManifest(headers).length; } },
  ]);
  row("formatManifest, 200 headers (a call)", t, "formatManifest", "JS template", { per: reps, bound: 1.2 });
  if (sink < 0) console.log(sink);
}

// ---------------------------------------------------------------- main

const t0 = performance.now();
console.log(`hot paths: rounds ${ROUNDS} (+${WARM} warm-up), scan sizes ${SIZES.join("/")}, async concurrency ${CONC}; node ${process.version}`);
if (wants("scan-sync")) await scanGroup("sync");
if (wants("scan-async")) await scanGroup("async");
if (wants("truncate")) await truncateGroup();
if (wants("save")) await saveGroup();
if (wants("prompt")) await promptGroup();
if (wants("parse")) await parseGroup();
if (wants("index")) await indexGroup();
if (wants("manifest")) await manifestGroup();

console.log(`\n| figure | ours | floor | ratio | spread | target | met |\n|---|---|---|---|---|---|---|`);
for (const r of rows)
  console.log(`| ${r.figure} | ${r.ours} | ${r.floor} | ${r.ratio} | ${r.spread} | ${r.target} | ${r.ok === null ? "" : r.ok ? "yes" : "**no**"} |`);
console.log(`\nhot paths: ${((performance.now() - t0) / 1000) | 0} s`);

// memdir benchmarks against the JS baselines and the read floor (issue #8, design §7).
//
//   scripts/bench.sh                 # build the package, then this file, then the native ranker
//   node benches/run.mjs             # this file alone, against pkg/ as built
//
// Environment: BENCH_DIR (default /tmp/memdir-bench/memory), BENCH_COUNT (10000), BENCH_ROUNDS
// (5 timed rounds after one warm-up), BENCH_CONC (64: in-flight files for the async variants,
// the scan's own SCAN_CHUNK), BENCH_ONLY (comma list of groups: scan-sync, scan-async, parse,
// truncate, recall, cold, size). `recall` is the whole-directory index (first and warm queries,
// with and without nodeFs().watch) against JS stat and read floors.
//
// Every group runs its variants in one process, interleaved (round r starts at variant r), and
// prints medians and each figure's ratio to its baseline next to the design §7 target. Like is
// compared with like: the sync scan (`nodeFs({ sync: true })`) against sync baselines, the async
// scan against async baselines that keep the same number of files in flight (Promise.all over
// chunks of BENCH_CONC, as src/store/scan.rs joins chunks of 64). Every scan pipeline does what
// the reference's does: list, stat each file (mtime), read it, take its first 30 lines, parse the
// frontmatter, sort newest first, keep 200, format the manifest; their manifests are checked to
// be identical before timing. The read floor does the same listing, stat and read with no
// decoding or parsing, two ways (whole file / 8 KB head like our adapter); the cheaper counts.
//
// Data: benches/generate.mjs (deterministic, 10,000 files, about 22 MiB).
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as fsp from "node:fs/promises";
import { spawnSync } from "node:child_process";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { generate, memoryFile } from "./generate.mjs";
import { truncateEntrypointReference } from "./truncate-reference.mjs";

const require = createRequire(new URL("../scripts/package.json", import.meta.url));
const matter = require("gray-matter");
const yaml = require("js-yaml");

const DIR = (process.env.BENCH_DIR ?? "/tmp/memdir-bench/memory").replace(/\/?$/, "/");
const COUNT = Number(process.env.BENCH_COUNT ?? 10000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const CONC = Number(process.env.BENCH_CONC ?? 64);
const ONLY = process.env.BENCH_ONLY?.split(",");
const PKG = new URL("../pkg/index.node.js", import.meta.url);
const NODE_ADAPTER = new URL("../pkg/node.js", import.meta.url);
const WASM = new URL("../pkg/dist/memdir_bg.wasm", import.meta.url);
const wants = (group) => !ONLY || ONLY.includes(group);

const rows = [];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 1 ? ms.toFixed(1) : ms.toFixed(3));

/** Run `variants` ({ name, run }) interleaved; returns name → median ms. */
/** Rounds of every variant's `run()` in turn (first variant rotating), each timed; a variant's
 * `after(round)`, if any, runs untimed after its `run()` (round -1: the warm-up). Returns the
 * median ms per variant. */
async function interleave(group, variants, rounds = ROUNDS) {
  const times = new Map(variants.map((v) => [v.name, []]));
  for (let r = -1; r < rounds; r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + Math.max(r, 0)) % variants.length];
      const t0 = performance.now();
      await v.run();
      const dt = performance.now() - t0;
      if (r >= 0) times.get(v.name).push(dt);
      await v.after?.(r); // untimed clean-up (an instance's teardown); r < 0: the warm-up
    }
  }
  const medians = new Map([...times].map(([name, xs]) => [name, median(xs)]));
  for (const [name, xs] of times)
    console.log(`  ${group.padEnd(10)} ${name.padEnd(34)} median ${fmt(medians.get(name)).padStart(7)} ms  [${xs.map(fmt).join(" ")}]`);
  medians.rounds = times; // every round's time, per variant
  return medians;
}

/** One report row: `value` against `base`, with the target written as a ratio bound. */
function row(figure, value, unit, base, baseName, ratio, target, ok) {
  rows.push({ figure, value: `${fmt(value)} ${unit}`, baseline: base === null ? "—" : `${baseName} ${fmt(base)} ${unit}`, ratio, target, ok });
}

// ---------------------------------------------------------------- the JS scan pipelines

const TYPES = new Set(["user", "feedback", "project", "reference"]);
const isCandidate = (name) => name.endsWith(".md") && name !== "MEMORY.md";

function firstLines(text, n = 30) {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text.split("\n", n).map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)).join("\n");
}

function headerOf(filename, mtimeMs, data) {
  const description = data.description ? String(data.description) : null;
  const type = typeof data.type === "string" && TYPES.has(data.type) ? data.type : undefined;
  return { filename, filePath: DIR + filename, mtimeMs, description, type };
}

const FM = /^---\s*\n([\s\S]*?)\n---[ \t]*(?:\r?\n|$)/;
function yamlData(head) {
  const m = FM.exec(head);
  if (!m) return {};
  try {
    const data = yaml.load(m[1]);
    return data && typeof data === "object" ? data : {};
  } catch {
    return {};
  }
}

function manifestOf(headers) {
  headers.sort((a, b) => b.mtimeMs - a.mtimeMs);
  return headers
    .slice(0, 200)
    .map((h) => `- ${h.type ? `[${h.type}] ` : ""}${h.filename} (${new Date(h.mtimeMs).toISOString()})${h.description ? `: ${h.description}` : ""}`)
    .join("\n");
}

const listSync = () => fs.readdirSync(DIR, { withFileTypes: true }).filter((e) => e.isFile() && isCandidate(e.name)).map((e) => e.name);
const listAsync = async () => (await fsp.readdir(DIR, { withFileTypes: true })).filter((e) => e.isFile() && isCandidate(e.name)).map((e) => e.name);

async function chunked(items, fn) {
  const out = [];
  for (let i = 0; i < items.length; i += CONC) out.push(...(await Promise.all(items.slice(i, i + CONC).map(fn))));
  return out;
}

const HEAD = 8192;
const shared = Buffer.allocUnsafe(HEAD);
function readHeadSync(path, buffer = Buffer.allocUnsafe(HEAD)) {
  const fd = fs.openSync(path, "r");
  try {
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

const sync = {
  "read floor: stat + readFile": () => {
    let n = 0;
    for (const name of listSync()) n += fs.statSync(DIR + name).mtimeMs > 0 ? fs.readFileSync(DIR + name).length : 0;
    return n;
  },
  "read floor: stat + head 8 KB": () => {
    let n = 0;
    for (const name of listSync()) n += fs.statSync(DIR + name).mtimeMs > 0 ? readHeadSync(DIR + name, shared).length : 0;
    return n;
  },
  "gray-matter pipeline": () =>
    manifestOf(listSync().map((name) => {
      const st = fs.statSync(DIR + name);
      return headerOf(name, st.mtimeMs, matter(firstLines(fs.readFileSync(DIR + name, "utf8"))).data);
    })),
  "js-yaml 4 pipeline (head 8 KB)": () =>
    manifestOf(listSync().map((name) => {
      const st = fs.statSync(DIR + name);
      return headerOf(name, st.mtimeMs, yamlData(firstLines(readHeadSync(DIR + name).toString("utf8"))));
    })),
};

const asyncPipelines = {
  "read floor: stat + readFile": async () => {
    const sizes = await chunked(await listAsync(), async (name) => ((await fsp.stat(DIR + name)).mtimeMs > 0 ? (await fsp.readFile(DIR + name)).length : 0));
    return sizes.length;
  },
  "read floor: stat + head 8 KB": async () => {
    const sizes = await chunked(await listAsync(), async (name) => ((await fsp.stat(DIR + name)).mtimeMs > 0 ? (await readHeadAsync(DIR + name)).length : 0));
    return sizes.length;
  },
  "gray-matter pipeline": async () =>
    manifestOf(await chunked(await listAsync(), async (name) => {
      const st = await fsp.stat(DIR + name);
      return headerOf(name, st.mtimeMs, matter(firstLines(await fsp.readFile(DIR + name, "utf8"))).data);
    })),
  "js-yaml 4 pipeline (head 8 KB)": async () =>
    manifestOf(await chunked(await listAsync(), async (name) => {
      const st = await fsp.stat(DIR + name);
      return headerOf(name, st.mtimeMs, yamlData(firstLines((await readHeadAsync(DIR + name)).toString("utf8"))));
    })),
};

// ---------------------------------------------------------------- groups

async function scanGroup(style, memdirApi, nodeFs) {
  const pipelines = style === "sync" ? sync : asyncPipelines;
  const memdir = new memdirApi.Memdir({ fs: nodeFs({ sync: style === "sync" }), dir: DIR });
  const ours = `memdir.manifest() (${style} nodeFs)`;
  // Correctness first: every pipeline yields the same manifest.
  const expected = await pipelines["gray-matter pipeline"]();
  matter.clearCache();
  for (const [name, manifest] of [["js-yaml 4 pipeline (head 8 KB)", await pipelines["js-yaml 4 pipeline (head 8 KB)"]()], [ours, await memdir.manifest()]]) {
    if (manifest !== expected) {
      const a = expected.split("\n"), b = manifest.split("\n");
      const i = a.findIndex((line, k) => line !== b[k]);
      console.log(`  !! ${name}: manifest differs from gray-matter's at line ${i}:\n     ${a[i]}\n     ${b[i]}`);
    }
  }
  const variants = Object.entries(pipelines).map(([name, run]) => ({ name, run: name.startsWith("gray") ? () => (matter.clearCache(), run()) : run }));
  variants.push({ name: ours, run: () => memdir.manifest() });
  const m = await interleave(`scan-${style}`, variants);
  const t = m.get(ours);
  const gm = m.get("gray-matter pipeline");
  const floorName = m.get("read floor: stat + readFile") <= m.get("read floor: stat + head 8 KB") ? "read floor: stat + readFile" : "read floor: stat + head 8 KB";
  const floor = m.get(floorName);
  row(`scan+manifest ${COUNT} files, ${style}`, t, "ms", gm, "gray-matter", t / gm, "≤ 0.8×", t / gm <= 0.8);
  row(`scan+manifest ${COUNT} files, ${style}`, t, "ms", floor, floorName.replace("read floor: ", "floor "), t / floor, "≤ 1.5×", t / floor <= 1.5);
  const jy = m.get("js-yaml 4 pipeline (head 8 KB)");
  row(`scan+manifest ${COUNT} files, ${style}`, t, "ms", jy, "js-yaml 4", t / jy, "(info)", null);
}

async function parseGroup(api) {
  const texts = Array.from({ length: COUNT }, (_, i) => memoryFile(i).text);
  let mismatches = 0;
  matter.clearCache();
  texts.forEach((text, i) => {
    const ours = api.parseFrontmatter(text).header;
    const theirs = matter(text).data;
    if (ours.name !== theirs.name || ours.description !== theirs.description || ours.type !== theirs.type) {
      if (mismatches++ < 3) console.log(`  !! parse differs on file ${i}:`, ours, theirs);
    }
  });
  console.log(`  parse      ${COUNT - mismatches}/${COUNT} headers identical to gray-matter's`);
  let sink = 0;
  const m = await interleave("parse", [
    { name: "gray-matter (js-yaml 3)", run: () => { matter.clearCache(); for (const t of texts) sink += matter(t).data.name.length; } },
    { name: "js-yaml 4 on the block", run: () => { for (const t of texts) sink += yamlData(t).name.length; } },
    { name: "parseFrontmatter (wasm)", run: () => { for (const t of texts) sink += api.parseFrontmatter(t).header.name.length; } },
  ]);
  const ours = m.get("parseFrontmatter (wasm)");
  const gm = m.get("gray-matter (js-yaml 3)");
  row(`parseFrontmatter ×${COUNT} in memory`, ours, "ms", gm, "gray-matter", gm / ours, "≥ 3× throughput", gm / ours >= 3);
  row(`parseFrontmatter ×${COUNT} in memory`, ours, "ms", m.get("js-yaml 4 on the block"), "js-yaml 4", m.get("js-yaml 4 on the block") / ours, "(info, throughput)", null);
  return sink;
}

async function truncateGroup(api) {
  const lines = [];
  let size = 0;
  for (let i = 0; size < 1 << 20; i++) {
    const f = memoryFile(i % COUNT);
    const line = `- [${f.name}](${f.file}) — ${f.hook} ${f.description.slice(0, (i * 37) % 90)}`;
    lines.push(line);
    size += line.length + 1;
  }
  const index = lines.join("\n") + "\n";
  const ref = truncateEntrypointReference(index);
  const ours = api.truncateEntrypoint(index);
  const same = ["content", "lineCount", "byteCount", "wasLineTruncated", "wasByteTruncated"].every((k) => ref[k] === ours[k]);
  console.log(`  truncate   1 MiB index (${lines.length} lines): results ${same ? "identical" : "DIFFER"} to the JS reference`);
  // Also the byte-truncated-only shape: few, very long lines.
  const wide = Array.from({ length: 150 }, (_, i) => `- [T${i}](t${i}.md) — ${"x".repeat(7000)}`).join("\n");
  const reps = 20;
  let sink = 0;
  const m = await interleave("truncate", [
    { name: "JS reference, 1 MiB", run: () => { for (let r = 0; r < reps; r++) sink += truncateEntrypointReference(index).content.length; } },
    { name: "truncateEntrypoint, 1 MiB", run: () => { for (let r = 0; r < reps; r++) sink += api.truncateEntrypoint(index).content.length; } },
    { name: "JS reference, 1 MiB long lines", run: () => { for (let r = 0; r < reps; r++) sink += truncateEntrypointReference(wide).content.length; } },
    { name: "truncateEntrypoint, long lines", run: () => { for (let r = 0; r < reps; r++) sink += api.truncateEntrypoint(wide).content.length; } },
  ]);
  const t = m.get("truncateEntrypoint, 1 MiB") / reps, b = m.get("JS reference, 1 MiB") / reps;
  row("truncateEntrypoint, 1 MiB index (call)", t, "ms", b, "JS reference", t / b, "≤ 1×", t / b <= 1);
  const t2 = m.get("truncateEntrypoint, long lines") / reps, b2 = m.get("JS reference, 1 MiB long lines") / reps;
  row("truncateEntrypoint, 1 MiB of long lines", t2, "ms", b2, "JS reference", t2 / b2, "≤ 1×", t2 / b2 <= 1);
  return sink;
}

async function readHead16(path) {
  const fh = await fsp.open(path, "r");
  try {
    const buffer = Buffer.allocUnsafe(16384);
    const { bytesRead } = await fh.read(buffer, 0, 16384, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

// Recall over the whole directory (issue #13 item 2): the index a Memdir keeps. A first query
// lists, stats and reads every memory's head (16 KB); a warm one without change notifications
// lists and stats every file (reads nothing unchanged); a warm one with them (nodeFs().watch)
// stats nothing. Floors in JS, async with BENCH_CONC files in flight like the index's chunks of
// 64: list + stat each file; list + stat + read a 16 KB head of each (the index's own I/O).
//
// The target compares the first query with scan(), but scan() lists and stats every file and
// reads the heads of only the newest 200, while the first query must read all 10,000 (it ranks
// every memory): the "same I/O" row compares it with the JS floor that reads what it reads.
// Besides wall time, the first-query rows give process CPU time (user + system, the libuv
// threads included) per variant: on a shared machine whose load swings between rounds, CPU
// time is the steadier measure of work done.
//
// Two first queries: "cache present" is a new instance over a directory some instance indexed
// before (the persisted index `.memdir-index` is read and only changed files are read again:
// none here), compared with the scan and with its own same-I/O floor (list + stat each file +
// stat and read the cache file's bytes, as the index reads them through readHead: no UTF-8
// string is made of them); "no cache" is the very first query ever (the cache file removed before
// each run), which reads every head and writes the cache, compared with the 16 KB-head floor.
// A first query is timed from `new Memdir` to its first answer; freeing the instance afterwards
// (its whole index) is not part of that latency and has a row of its own.

/** `interleave`, also measuring process CPU time per run; returns [wall medians, CPU medians]. */
async function interleaveCpu(group, variants, rounds = ROUNDS) {
  const cpu = new Map(variants.map((v) => [v.name, []]));
  const wall = await interleave(group, variants.map((v) => ({
    name: v.name,
    after: v.after,
    run: async () => {
      const c0 = process.cpuUsage();
      await v.run();
      const c = process.cpuUsage(c0);
      cpu.get(v.name).push((c.user + c.system) / 1000);
    },
  })), rounds);
  const medians = new Map();
  for (const [name, xs] of cpu) {
    const timed = xs.slice(1); // the warm-up round is not counted
    medians.set(name, median(timed));
    console.log(`  ${group.padEnd(10)} ${name.padEnd(34)} median ${fmt(medians.get(name)).padStart(7)} ms CPU  [${timed.map(fmt).join(" ")}]`);
  }
  return [wall, medians];
}

async function recallGroup(api, nodeFs) {
  if (typeof api.Memdir.prototype.findRelevant !== "function") {
    console.log("  recall     Memdir.findRelevant is not exported: see the native figure (cargo test --release --test bench_ranker)");
    return;
  }
  const queries = ["how do we deploy the docker worker", "redis cache token", "why did the migration test fail", "user oauth session", "lint yaml schema"];
  const unwatched = () => {
    const f = nodeFs();
    delete f.watch;
    return f;
  };
  const watched = new api.Memdir({ fs: nodeFs(), dir: DIR });
  const polled = new api.Memdir({ fs: unwatched(), dir: DIR });
  const a = await watched.findRelevant(queries[0]);
  const b = await polled.findRelevant(queries[0]);
  if (JSON.stringify(a.memories) !== JSON.stringify(b.memories)) console.log("  !! recall: the watched and polled instances disagree");
  console.log(`  recall     answeredBy=${a.answeredBy}, ${a.memories?.length ?? 0} memories for "${queries[0]}"`);
  let k = 0;
  const next = () => queries[k++ % queries.length];
  const statFloor = "floor: list + stat each (JS)";
  const readFloor = "floor: list + stat + head 16 KB (JS)";
  // Warm queries first, against the stat floor; then first queries (each a fresh instance that
  // reads every head), against the read floor and a scan, in rounds of their own so their
  // garbage does not land in the warm figures.
  const w = await interleave("recall", [
    { name: statFloor, run: async () => (await chunked(await listAsync(), async (name) => (await fsp.stat(DIR + name)).mtimeMs)).length },
    { name: "warm query, no watch", run: () => polled.findRelevant(next()) },
    { name: "warm query, watch", run: () => watched.findRelevant(next()) },
  ], 9);
  const cacheFile = DIR + ".memdir-index";
  const cacheFloor = "floor: list + stat + read cache (JS)";
  const cached = "first query, new Memdir, cache";
  const uncached = "first query, new Memdir, no cache";
  // A first query is the new instance and its first findRelevant; the instance's teardown
  // (free(): its index released) runs after the timer stops, and is timed on its own below.
  let live = null;
  const teardowns = new Map(); // variant → ms of each timed round's free()
  const firstQuery = async () => {
    live = new api.Memdir({ fs: nodeFs(), dir: DIR });
    await live.findRelevant(next());
  };
  const teardown = (variant) => (round) => {
    const t0 = performance.now();
    live?.free?.();
    if (round >= 0) teardowns.set(variant, [...(teardowns.get(variant) ?? []), performance.now() - t0]);
    live = null;
  };
  await firstQuery(); // leaves the cache
  teardown("")(-1);
  if (!fs.existsSync(cacheFile)) console.log("  !! recall: no index cache was written");
  // The cached first query against the scan and its own floor, in rounds of their own (at least
  // 9): the no-cache variant and the 16 KB-head floor each make hundreds of MB of garbage (and the
  // former rewrites the cache file), which would land in whatever runs after them.
  const scanName = "scan() (async nodeFs)";
  const [m1, cpu1] = await interleaveCpu("recall", [
    { name: cacheFloor, run: async () => (await chunked(await listAsync(), async (name) => (await fsp.stat(DIR + name)).mtimeMs)).length + (await fsp.stat(cacheFile)).size + (await fsp.readFile(cacheFile)).length },
    { name: scanName, run: () => polled.scan() },
    { name: cached, run: firstQuery, after: teardown(cached) },
  ], Math.max(ROUNDS, 9));
  const [m2, cpu2] = await interleaveCpu("recall", [
    { name: readFloor, run: async () => (await chunked(await listAsync(), async (name) => ((await fsp.stat(DIR + name)).mtimeMs > 0 ? (await readHead16(DIR + name)).length : 0))).length },
    {
      name: uncached,
      run: async () => {
        fs.rmSync(cacheFile, { force: true });
        await firstQuery(); // and writes the cache again
      },
      after: teardown(uncached),
    },
  ]);
  const m = new Map([...m2, ...m1]), cpu = new Map([...cpu2, ...cpu1]);
  const first = m.get(cached), firstCold = m.get(uncached), scan = m.get(scanName);
  const cold = w.get("warm query, no watch"), warm = w.get("warm query, watch");
  console.log(`  recall     index cache ${fs.statSync(cacheFile).size} bytes`);
  row(`recall, first query over ${COUNT} files, index cache present`, first, "ms", scan, "scan() (reads 200 heads)", first / scan, "≤ 1.5×", first / scan <= 1.5);
  row(`recall, first query over ${COUNT} files, cache present, same I/O`, first, "ms", m.get(cacheFloor), "floor list + stat + read the cache file", first / m.get(cacheFloor), "(info)", null);
  row(`recall, very first query over ${COUNT} files (no cache)`, firstCold, "ms", scan, "scan() (reads 200 heads)", firstCold / scan, "(info)", null);
  row(`recall, very first query over ${COUNT} files, same I/O`, firstCold, "ms", m.get(readFloor), "floor list + stat + 16 KB head of each", firstCold / m.get(readFloor), "(info)", null);
  row(`recall, the instance's teardown after a first query with the cache (free(), not in its time)`, median(teardowns.get(cached)), "ms", null, "", null, "(info)", null);
  const firstCpu = cpu.get(cached), coldCpu = cpu.get(uncached), scanCpu = cpu.get(scanName);
  row(`recall, first query (cache), CPU`, firstCpu, "ms", scanCpu, "scan() CPU", firstCpu / scanCpu, "(info)", null);
  row(`recall, first query (cache), CPU, same I/O`, firstCpu, "ms", cpu.get(cacheFloor), "floor CPU", firstCpu / cpu.get(cacheFloor), "(info)", null);
  row(`recall, very first query (no cache), CPU`, coldCpu, "ms", scanCpu, "scan() CPU", coldCpu / scanCpu, "(info)", null);
  row(`recall, very first query (no cache), CPU, same I/O`, coldCpu, "ms", cpu.get(readFloor), "floor CPU", coldCpu / cpu.get(readFloor), "(info)", null);
  row(`recall, warm query without watch`, cold, "ms", w.get(statFloor), "floor list + stat", cold / w.get(statFloor), "≤ 1.2×", cold / w.get(statFloor) <= 1.2);
  row(`recall, warm query with watch`, warm, "ms", null, "", null, "≤ 10 ms", warm <= 10);
}

function coldGroup() {
  const runs = Number(process.env.BENCH_COLD_RUNS ?? 9);
  const probe = (code) => {
    const xs = [];
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      const r = spawnSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" });
      const wall = performance.now() - t0;
      if (r.status !== 0) throw new Error(r.stderr);
      const [load, first] = r.stdout.trim().split(" ").map(Number);
      xs.push({ wall, load, first });
    }
    const pick = (k) => median(xs.map((x) => x[k]));
    return { wall: pick("wall"), load: pick("load"), first: pick("first") };
  };
  const text = JSON.stringify(memoryFile(1).text);
  const scriptsPkg = JSON.stringify(fileURLToPath(new URL("../scripts/package.json", import.meta.url)));
  const floor = probe(`console.log("0 0")`);
  const ours = probe(`const t0 = performance.now(); const m = await import(${JSON.stringify(PKG.href)}); const t1 = performance.now(); m.parseFrontmatter(${text}); console.log((t1 - t0) + " " + (performance.now() - t1));`);
  const gm = probe(`import { createRequire } from "node:module"; const req = createRequire(${scriptsPkg}); const t0 = performance.now(); const m = req("gray-matter"); const t1 = performance.now(); m(${text}); console.log((t1 - t0) + " " + (performance.now() - t1));`);
  console.log(`  cold       node floor ${fmt(floor.wall)} ms wall; memdir import ${fmt(ours.load)} ms (+ first call ${fmt(ours.first)} ms), ${fmt(ours.wall)} ms wall; gray-matter require ${fmt(gm.load)} ms (+ ${fmt(gm.first)} ms), ${fmt(gm.wall)} ms wall`);
  row("cold import + instantiate (in process)", ours.load, "ms", gm.load, "require(gray-matter)", ours.load / gm.load, "≤ 30 ms", ours.load <= 30);
  row("cold import + first parse (in process)", ours.load + ours.first, "ms", gm.load + gm.first, "gray-matter", (ours.load + ours.first) / (gm.load + gm.first), "(info)", null);
}

function sizeGroup() {
  const wasm = fs.readFileSync(WASM);
  const gz = gzipSync(wasm, { level: 9 }).length;
  rows.push({ figure: ".wasm gzip -9", value: `${(gz / 1024).toFixed(1)} KiB (${(wasm.length / 1024).toFixed(1)} KiB raw)`, baseline: "budget 150 KB", ratio: gz / 153600, target: "≤ 1×", ok: gz <= 153600 });
}

// ---------------------------------------------------------------- main

const t0 = performance.now();
const files = generate(DIR, COUNT);
console.log(`data: ${files.length} files in ${DIR}; rounds ${ROUNDS} (+1 warm-up), async concurrency ${CONC}; node ${process.version}`);
const api = await import(PKG.href);
const { nodeFs } = await import(NODE_ADAPTER.href);
if (wants("cold")) coldGroup();
if (wants("size")) sizeGroup();
if (wants("scan-sync")) await scanGroup("sync", api, nodeFs);
if (wants("scan-async")) await scanGroup("async", api, nodeFs);
if (wants("parse")) await parseGroup(api);
if (wants("truncate")) await truncateGroup(api);
if (wants("recall")) await recallGroup(api, nodeFs);

console.log(`\n| figure | ours | baseline | ratio | target | met |\n|---|---|---|---|---|---|`);
for (const r of rows)
  console.log(`| ${r.figure} | ${r.value} | ${r.baseline} | ${r.ratio === null ? "—" : `${r.ratio.toFixed(2)}×`} | ${r.target} | ${r.ok === null ? "" : r.ok ? "yes" : "**no**"} |`);
console.log(`\nbench: ${(performance.now() - t0) / 1000 | 0} s`);

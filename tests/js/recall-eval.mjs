#!/usr/bin/env node
// The recall evaluation in JS, over the labelled fixture in tests/fixtures/recall_eval (six memory
// directories, queries split dev/test; see its README): runs one or more "systems under test" on
// every query and prints, per split, per-query F1, precision, recall of must-surface, nDCG@5,
// abstain accuracy, recall of must by query length and F1 by kind. Not a node:test file.
//
// Only the dev split is printed unless --report is given: tune on dev, decide, commit, and only
// then look at test (and the holdout splits, queries_holdout.jsonl and the blind
// queries_holdout2.jsonl and queries_holdout3.jsonl, when present) to report.
//
//   node tests/js/recall-eval.mjs                       # every system that can run here, dev
//   node tests/js/recall-eval.mjs --report              # … dev, test and the three holdouts
//   node tests/js/recall-eval.mjs --system lexical      # memdir.findRelevant, no embedder
//   node tests/js/recall-eval.mjs --system cosine       # all-MiniLM-L6-v2 cosine alone
//   node tests/js/recall-eval.mjs --system cosine+margin  # … and within a margin of the best
//   node tests/js/recall-eval.mjs --system union        # memdir's lexical picks, then cosine's
//   node tests/js/recall-eval.mjs --system semantic     # memdir.findRelevant with `embed`
//   options: --fixture DIR, --split dev|test|holdout|holdout2|holdout3 (all but dev need --report), --report,
//            --json FILE, --model-dir DIR
//
// Systems:
// - lexical: a `Memdir` over `memoryFs` holding the project's files, `findRelevant(query)`.
// - semantic: the same with `embed: localMiniLmEmbed()` (what memdir does with an embedder).
// - cosine: all-MiniLM-L6-v2 alone: embed `name + description + body` of every memory and the
//   query, return the (at most 5) memories whose cosine is at or above a threshold chosen on
//   the dev half only (best mean F1); the test half is only measured with it.
// - cosine+margin: the same, keeping only memories within a margin of the best score (threshold
//   and margin both chosen on dev).
// - union: memdir's lexical picks first, then cosine's (cut-off chosen on dev): a first look at
//   fusion.
// `cosine`, `cosine+margin`, `union` and `semantic` need scripts/install-model.sh; without the model they are skipped
// with a note (unless named with --system, then it is an error).
import { readFile, readdir, writeFile, access } from "node:fs/promises";
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join, resolve } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));

// ---------- arguments and inputs ----------

function parseArgs(argv) {
  const args = { systems: [], report: false };
  for (let i = 0; i < argv.length; i++) {
    const take = () => {
      const value = argv[++i];
      if (value === undefined) throw new Error(`${argv[i - 1]} needs a value`);
      return value;
    };
    switch (argv[i]) {
      case "--system":
        args.systems.push(...take().split(","));
        break;
      case "--fixture":
        args.fixture = resolve(take());
        break;
      case "--split":
        args.splits = take().split(",");
        break;
      case "--report":
        args.report = true;
        break;
      case "--json":
        args.json = resolve(take());
        break;
      case "--model-dir":
        args.modelDir = resolve(take());
        break;
      default:
        throw new Error(`unknown argument ${argv[i]}`);
    }
  }
  for (const split of args.splits ?? []) {
    if (!SPLITS.includes(split)) throw new Error(`unknown split ${split} (${SPLITS.join(", ")})`);
    if (split !== "dev" && !args.report) throw new Error(`--split ${split} needs --report (tune on dev only; look at ${split} only to report)`);
  }
  return args;
}

/** The query splits: dev (tune on it), test (report), holdout, holdout2 and holdout3 (blind, report; optional). */
const SPLITS = ["dev", "test", "holdout", "holdout2", "holdout3"];

const exists = (path) => access(path).then(() => true, () => false);

// The fixture: next to this script when copied into a test project (`fixtures/`), else in the
// repository (`tests/fixtures/`).
async function fixtureDir(explicit) {
  if (explicit) return explicit;
  for (const candidate of [join(here, "fixtures", "recall_eval"), join(here, "..", "fixtures", "recall_eval")]) {
    if (await exists(join(candidate, "queries_dev.jsonl"))) return candidate;
  }
  if (process.env.MEMDIR_REPO) return join(process.env.MEMDIR_REPO, "tests", "fixtures", "recall_eval");
  throw new Error("recall_eval fixture not found; pass --fixture DIR");
}

// memdir as installed (`import "memdir"`), else the repository's built package.
async function loadMemdir() {
  try {
    return await import("memdir");
  } catch {
    return import(pathToFileURL(join(here, "..", "..", "pkg", "index.node.js")).href);
  }
}

// The local embedder recipe: from the repository's scripts/ (or $MEMDIR_REPO/scripts).
async function loadLocalEmbedder() {
  const roots = [join(here, "..", ".."), process.env.MEMDIR_REPO].filter(Boolean);
  for (const root of roots) {
    const path = join(root, "scripts", "local-embedder.mjs");
    if (await exists(path)) return import(pathToFileURL(path).href);
  }
  throw new Error("scripts/local-embedder.mjs not found (set MEMDIR_REPO)");
}

async function readFixture(dir) {
  const projects = new Map();
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const files = {};
    for (const name of (await readdir(join(dir, entry.name))).sort()) {
      if (name.endsWith(".md")) files[name] = await readFile(join(dir, entry.name, name), "utf8");
    }
    projects.set(entry.name, files);
  }
  const queries = {};
  for (const split of SPLITS) {
    const file = join(dir, `queries_${split}.jsonl`);
    if (split.startsWith("holdout") && !(await exists(file))) continue;
    const text = await readFile(file, "utf8");
    queries[split] = text
      .split("\n")
      .filter((line) => line.trim() !== "")
      .map((line) => JSON.parse(line));
    for (const q of queries[split]) {
      if (!projects.has(q.project)) throw new Error(`${q.id}: unknown project ${q.project}`);
      for (const file of [...q.must, ...q.helpful]) {
        if (!(file in projects.get(q.project))) throw new Error(`${q.id}: labelled file ${file} is not in ${q.project}`);
      }
    }
  }
  return { projects, queries };
}

// ---------- metrics ----------

const LENGTH_BINS = [
  ["1-3", 1, 3],
  ["4-6", 4, 6],
  ["7-9", 7, 9],
  ["10+", 10, Infinity],
];

const wordsIn = (query) => query.trim().split(/\s+/).filter(Boolean).length;
const mean = (xs) => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);

/** The per-query figures of one answer (`returned`: file names, best first). */
export function scoreQuery(query, returned) {
  const must = new Set(query.must);
  const relevant = new Set([...query.must, ...query.helpful]);
  const hits = returned.filter((f) => relevant.has(f)).length;
  const mustHits = returned.filter((f) => must.has(f)).length;
  const precision = returned.length === 0 ? 1 : hits / returned.length;
  const recallMust = must.size === 0 ? 1 : mustHits / must.size;
  let f1;
  if (query.kind === "none") f1 = returned.length === 0 ? 1 : 0;
  else f1 = precision + recallMust === 0 ? 0 : (2 * precision * recallMust) / (precision + recallMust);
  return { precision, recallMust, f1, ndcg5: ndcgAt5(query, returned) };
}

/** nDCG@5 with gains must = 2, helpful = 1; undefined when the query has nothing relevant. */
export function ndcgAt5(query, ranked) {
  const gain = (f) => (query.must.includes(f) ? 2 : query.helpful.includes(f) ? 1 : 0);
  const ideal = [...query.must.map(() => 2), ...query.helpful.map(() => 1)].slice(0, 5);
  if (ideal.length === 0) return undefined;
  const dcg = (gains) => gains.reduce((sum, g, i) => sum + g / Math.log2(i + 2), 0);
  return dcg(ranked.slice(0, 5).map(gain)) / dcg(ideal);
}

/** The split's table from its queries and their answers. */
export function summarise(queries, answers) {
  const rows = queries.map((q, i) => ({ q, returned: answers[i].returned, ranked: answers[i].ranked, ...scoreQuery(q, answers[i].returned) }));
  const withMust = rows.filter((r) => r.q.must.length > 0);
  const none = rows.filter((r) => r.q.kind === "none");
  const ndcgs = rows.map((r) => r.ndcg5).filter((x) => x !== undefined);
  const rankedNdcgs = rows.filter((r) => r.ranked).map((r) => ndcgAt5(r.q, r.ranked)).filter((x) => x !== undefined);
  const byLength = {};
  for (const [label, lo, hi] of LENGTH_BINS) {
    const bin = withMust.filter((r) => wordsIn(r.q.query) >= lo && wordsIn(r.q.query) <= hi);
    byLength[label] = { n: bin.length, recallMust: mean(bin.map((r) => r.recallMust)) };
  }
  const byKind = {};
  for (const kind of [...new Set(queries.map((q) => q.kind))].sort()) {
    const of = rows.filter((r) => r.q.kind === kind);
    byKind[kind] = { n: of.length, f1: mean(of.map((r) => r.f1)) };
  }
  return {
    queries: rows.length,
    f1: mean(rows.map((r) => r.f1)),
    precision: mean(rows.filter((r) => r.returned.length > 0).map((r) => r.precision)),
    recallMust: mean(withMust.map((r) => r.recallMust)),
    ndcg5: mean(ndcgs),
    ndcg5Ranking: rankedNdcgs.length > 0 ? mean(rankedNdcgs) : undefined,
    abstain: mean(none.map((r) => (r.returned.length === 0 ? 1 : 0))),
    byLength,
    byKind,
    misses: rows
      .filter((r) => r.recallMust < 1 || (r.q.kind === "none" && r.returned.length > 0))
      .map((r) => ({ id: r.q.id, kind: r.q.kind, missed: r.q.must.filter((f) => !r.returned.includes(f)), returned: r.returned })),
  };
}

const fmt = (x) => (x === undefined || Number.isNaN(x) ? "–" : x.toFixed(3));

function printTable(title, summaries) {
  console.log(`\n### ${title}\n`);
  console.log("| system | split | n | F1 | precision | recall of must | nDCG@5 | nDCG@5 (no cut-off) | abstain |");
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const { system, split, s } of summaries) {
    console.log(`| ${system} | ${split} | ${s.queries} | ${fmt(s.f1)} | ${fmt(s.precision)} | ${fmt(s.recallMust)} | ${fmt(s.ndcg5)} | ${fmt(s.ndcg5Ranking)} | ${fmt(s.abstain)} |`);
  }
  console.log("\nrecall of must by query length (words):\n");
  console.log(`| system | split | ${LENGTH_BINS.map(([l]) => l).join(" | ")} |`);
  console.log(`|---|---|${LENGTH_BINS.map(() => "---").join("|")}|`);
  for (const { system, split, s } of summaries) {
    console.log(`| ${system} | ${split} | ${LENGTH_BINS.map(([l]) => `${fmt(s.byLength[l].recallMust)} (${s.byLength[l].n})`).join(" | ")} |`);
  }
  const kinds = [...new Set(summaries.flatMap(({ s }) => Object.keys(s.byKind)))].sort();
  console.log("\nF1 by kind:\n");
  console.log(`| system | split | ${kinds.join(" | ")} |`);
  console.log(`|---|---|${kinds.map(() => "---").join("|")}|`);
  for (const { system, split, s } of summaries) {
    console.log(`| ${system} | ${split} | ${kinds.map((k) => (s.byKind[k] ? `${fmt(s.byKind[k].f1)} (${s.byKind[k].n})` : "–")).join(" | ")} |`);
  }
}

// ---------- systems under test ----------
// A system is `{ name, prepare(fixture), answer(query) → { returned, ranked? } }`; `tune(devQueries)`
// runs on the dev half only, before anything is measured.

const MEMORY_DIR = (project) => `/recall-eval/${project}/`;
const fileOf = (path) => path.slice(path.lastIndexOf("/") + 1);

/** memdir's own recall: a `Memdir` per project over `memoryFs`, optionally with an embedder. */
export function memdirSystem(memdirModule, { name = "lexical", embed } = {}) {
  const instances = new Map();
  return {
    name,
    async prepare({ projects }) {
      for (const [project, files] of projects) {
        const dir = MEMORY_DIR(project);
        const fs = memdirModule.memoryFs(Object.fromEntries(Object.entries(files).map(([f, text]) => [dir + f, text])));
        const options = { fs, dir };
        // Quality, not latency, is measured here: a slow local model on a loaded machine must
        // not turn into lexical fallbacks (the fallback has its own tests).
        if (embed) Object.assign(options, { embed, recall: { timeoutMs: 600_000 } });
        instances.set(project, new memdirModule.Memdir(options));
      }
    },
    async answer(q) {
      const recall = await instances.get(q.project).findRelevant(q.query);
      return { returned: recall.memories.map((m) => fileOf(m.path)), answeredBy: recall.outcome === "ok" ? recall.answeredBy : `${recall.answeredBy} (${recall.outcome})` };
    },
  };
}

const dot = (a, b) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
};

/** The text the cosine baseline embeds for a memory: name, description and body. */
export function memoryText(parseFrontmatter, text) {
  const { header, body } = parseFrontmatter(text);
  return [header.name, header.description, body.trim()].filter(Boolean).join("\n");
}

/**
 * The embedder alone: cosine between the query and each memory's `name + description + body`,
 * best first, at most `limit`. With `margin: false` the memories at or above a threshold are
 * returned; with `margin: true` those at or above the threshold and within a margin of the
 * best score. `tune` picks the threshold (and margin) with the best mean F1 on the queries it is
 * given (the dev half).
 */
export function cosineSystem(memdirModule, embed, { limit = 5, margin = false } = {}) {
  const memories = new Map(); // project → [{ file, vector }]
  const queryVectors = new Map(); // query text → vector
  let cutoff = { threshold: 0.5, margin: Infinity };
  const ranking = (q) =>
    memories
      .get(q.project)
      .map(({ file, vector }) => ({ file, score: dot(vector, queryVectors.get(q.query)) }))
      .sort((a, b) => b.score - a.score || (a.file < b.file ? -1 : 1));
  const cut = (ranked, { threshold, margin: within }) => {
    const top = ranked[0]?.score ?? 0;
    return ranked.filter((r) => r.score >= threshold && r.score >= top - within).slice(0, limit).map((r) => r.file);
  };
  return {
    name: margin ? "cosine+margin" : "cosine",
    get cutoff() {
      return cutoff;
    },
    async prepare({ projects, queries }) {
      for (const [project, files] of projects) {
        const entries = Object.entries(files).filter(([f]) => f !== "MEMORY.md");
        const vectors = await embed(entries.map(([, text]) => memoryText(memdirModule.parseFrontmatter, text)), { signal: AbortSignal.timeout(600_000) });
        memories.set(project, entries.map(([file], i) => ({ file, vector: vectors[i] })));
      }
      const texts = [...new Set(Object.values(queries).flat().map((q) => q.query))];
      const vectors = await embed(texts, { signal: AbortSignal.timeout(600_000) });
      texts.forEach((t, i) => queryVectors.set(t, vectors[i]));
    },
    tune(devQueries) {
      const ranked = devQueries.map(ranking);
      const margins = margin ? Array.from({ length: 31 }, (_, i) => i / 100) : [Infinity];
      let best = { f1: -1 };
      for (const within of margins) {
        for (let step = 0; step <= 100; step++) {
          const candidate = { threshold: step / 100, margin: within };
          const f1 = mean(devQueries.map((q, i) => scoreQuery(q, cut(ranked[i], candidate)).f1));
          if (f1 > best.f1) best = { f1, ...candidate };
        }
      }
      cutoff = { threshold: best.threshold, margin: best.margin };
      return { ...cutoff, devF1: best.f1 };
    },
    async answer(q) {
      const ranked = ranking(q);
      return { returned: cut(ranked, cutoff), ranked: ranked.slice(0, limit).map((r) => r.file) };
    },
    ranking,
    cut,
  };
}

/**
 * A first look at fusion: memdir's lexical picks first, then the cosine picks (threshold and
 * margin chosen on dev for this union) not already there, at most `limit`.
 */
export function unionSystem(lexical, cosine, { limit = 5 } = {}) {
  const lexicalAnswers = new Map(); // query id → files
  let cutoff = { threshold: 1, margin: 0 };
  const union = (q, ranked, c) => [...new Set([...lexicalAnswers.get(q.id), ...cosine.cut(ranked, c)])].slice(0, limit);
  return {
    name: "lexical∪cosine",
    get cutoff() {
      return cutoff;
    },
    async prepare(fixture) {
      await lexical.prepare(fixture);
      await cosine.prepare(fixture);
      for (const q of Object.values(fixture.queries).flat()) lexicalAnswers.set(q.id, (await lexical.answer(q)).returned);
    },
    tune(devQueries) {
      const ranked = devQueries.map(cosine.ranking);
      let best = { f1: -1 };
      for (let m = 0; m <= 30; m++) {
        for (let step = 0; step <= 100; step++) {
          const candidate = { threshold: step / 100, margin: m / 100 };
          const f1 = mean(devQueries.map((q, i) => scoreQuery(q, union(q, ranked[i], candidate)).f1));
          if (f1 > best.f1) best = { f1, ...candidate };
        }
      }
      cutoff = { threshold: best.threshold, margin: best.margin };
      return { ...cutoff, devF1: best.f1 };
    },
    async answer(q) {
      return { returned: union(q, cosine.ranking(q), cutoff) };
    },
  };
}

/** An embedder that embeds each distinct text once (systems in one run share the vectors). */
function cached(embed) {
  const seen = new Map();
  const wrapped = async (texts, options) => {
    const missing = [...new Set(texts.filter((t) => !seen.has(t)))];
    if (missing.length > 0) {
      const vectors = await embed(missing, options);
      missing.forEach((t, i) => seen.set(t, vectors[i]));
    }
    return texts.map((t) => seen.get(t));
  };
  wrapped.model = embed.model;
  return wrapped;
}

// ---------- main ----------

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const fixture = await readFixture(await fixtureDir(args.fixture));
  const memdirModule = await loadMemdir();
  const wanted = args.systems.length > 0 ? args.systems : ["lexical", "cosine", "cosine+margin", "union"];
  const explicit = args.systems.length > 0;

  let embed;
  const embedder = async () => {
    if (embed) return embed;
    const { localMiniLmEmbed, defaultModelDir } = await loadLocalEmbedder();
    const modelDir = args.modelDir ?? defaultModelDir();
    if (!(await exists(join(modelDir, "model.onnx")))) throw new Error(`no model in ${modelDir}; run scripts/install-model.sh`);
    const local = localMiniLmEmbed({ modelDir });
    await local.load();
    embed = cached(local);
    return embed;
  };

  const systems = [];
  for (const name of wanted) {
    try {
      if (name === "lexical") systems.push(memdirSystem(memdirModule));
      else if (name === "semantic") systems.push(memdirSystem(memdirModule, { name, embed: await embedder() }));
      else if (name === "cosine") systems.push(cosineSystem(memdirModule, await embedder()));
      else if (name === "cosine+margin") systems.push(cosineSystem(memdirModule, await embedder(), { margin: true }));
      else if (name === "lexical∪cosine" || name === "union") systems.push(unionSystem(memdirSystem(memdirModule), cosineSystem(memdirModule, await embedder())));
      else throw new Error(`unknown system ${name} (lexical, semantic, cosine, cosine+margin, union)`);
    } catch (error) {
      if (explicit) throw error;
      console.log(`recall-eval: ${name} skipped: ${error.message}`);
    }
  }

  const available = SPLITS.filter((split) => fixture.queries[split]);
  args.splits ??= args.report ? available : ["dev"];
  for (const split of args.splits) if (!fixture.queries[split]) throw new Error(`no queries_${split}.jsonl in the fixture`);
  const total = available.reduce((n, split) => n + fixture.queries[split].length, 0);
  console.log(`recall-eval: ${fixture.projects.size} projects, ${[...fixture.projects.values()].reduce((n, f) => n + Object.keys(f).length - ("MEMORY.md" in f ? 1 : 0), 0)} memories, ${total} queries (${available.map((split) => `${split} ${fixture.queries[split].length}`).join(", ")}); printing ${args.splits.join(", ")}`);
  const summaries = [];
  const report = {};
  for (const system of systems) {
    const started = performance.now();
    await system.prepare(fixture);
    const prepareMs = performance.now() - started;
    if (system.tune) {
      const tuned = system.tune(fixture.queries.dev);
      const margin = Number.isFinite(tuned.margin) ? `, margin ${tuned.margin.toFixed(2)} below the best` : "";
      console.log(`recall-eval: ${system.name}: threshold ${tuned.threshold.toFixed(2)}${margin} chosen on dev (dev F1 ${fmt(tuned.devF1)})`);
    }
    report[system.name] = { prepareMs };
    for (const split of args.splits) {
      const queries = fixture.queries[split];
      const answers = [];
      const t = performance.now();
      for (const q of queries) answers.push(await system.answer(q));
      const s = summarise(queries, answers);
      s.msPerQuery = (performance.now() - t) / queries.length;
      const answeredBy = {};
      for (const a of answers) if (a.answeredBy) answeredBy[a.answeredBy] = (answeredBy[a.answeredBy] ?? 0) + 1;
      s.answeredBy = answeredBy;
      if (system.tune) s.cutoff = system.cutoff;
      summaries.push({ system: system.name, split, s });
      report[system.name][split] = s;
    }
    const answered = Object.entries(report[system.name][args.splits[0]].answeredBy).map(([by, n]) => `${by} ${n}`).join(", ");
    console.log(`recall-eval: ${system.name}: prepared in ${prepareMs.toFixed(0)} ms; ${args.splits.map((sp) => `${sp} ${report[system.name][sp].msPerQuery.toFixed(2)} ms/query`).join(", ")}${answered ? `; answeredBy (${args.splits[0]}): ${answered}` : ""}`);
  }
  printTable("Recall evaluation (tune on dev only; test and holdout are reported)", summaries);
  if (args.json) await writeFile(args.json, JSON.stringify(report, null, 2));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error) => {
    console.error(`recall-eval: ${error.stack ?? error}`);
    process.exit(1);
  });
}

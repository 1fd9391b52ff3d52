// The local embedder recipe: all-MiniLM-L6-v2 (int8 ONNX) run in Node by onnxruntime-node, with
// the model's own WordPiece tokenizer (tokenizer.json, read by @huggingface/tokenizers), mean
// pooling over the real tokens and L2 normalisation — the sentence-transformers convention for
// this model, so cosine similarity is a dot product. Everything is read from local files that
// scripts/install-model.sh puts in one folder; nothing is fetched.
//
//   import { localMiniLmEmbed } from "./scripts/local-embedder.mjs";
//   const embed = localMiniLmEmbed();            // ~/.cache/memdir/all-MiniLM-L6-v2
//   const memdir = new Memdir({ fs, dir, embed }); // embed.model === "all-MiniLM-L6-v2"
import { createRequire } from "node:module";
import { readFile, access } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where scripts/install-model.sh installs the model (or `$MEMDIR_MODEL_DIR`). */
export const defaultModelDir = () => process.env.MEMDIR_MODEL_DIR || join(homedir(), ".cache", "memdir", "all-MiniLM-L6-v2");

/** The sentence-transformers sequence limit of all-MiniLM-L6-v2 (tokens, with [CLS] and [SEP]). */
const MAX_TOKENS = 256;

// Load the tokenizer and the ONNX session once per embedder.
async function load(modelDir, threads) {
  const files = ["model.onnx", "tokenizer.json", "tokenizer_config.json", "node/package.json"];
  for (const file of files) {
    try {
      await access(join(modelDir, file));
    } catch {
      throw new Error(`local embedder: ${join(modelDir, file)} is missing; run scripts/install-model.sh`);
    }
  }
  const require = createRequire(join(modelDir, "node", "package.json"));
  const ort = require("onnxruntime-node");
  const { Tokenizer } = require("@huggingface/tokenizers");
  const [tokenizerJson, tokenizerConfig] = await Promise.all(
    ["tokenizer.json", "tokenizer_config.json"].map(async (f) => JSON.parse(await readFile(join(modelDir, f), "utf8"))),
  );
  const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);
  const options = { graphOptimizationLevel: "all" };
  if (threads) Object.assign(options, { intraOpNumThreads: threads, interOpNumThreads: 1 });
  const session = await ort.InferenceSession.create(join(modelDir, "model.onnx"), options);
  const sep = tokenizer.token_to_id("[SEP]");
  return { ort, tokenizer, session, sep };
}

// Token ids of one text: [CLS] … [SEP], cut to MAX_TOKENS keeping the final [SEP].
function idsOf({ tokenizer, sep }, text) {
  const { ids } = tokenizer.encode(text);
  if (ids.length <= MAX_TOKENS) return ids;
  const cut = ids.slice(0, MAX_TOKENS);
  cut[MAX_TOKENS - 1] = sep;
  return cut;
}

// One forward pass over a batch of tokenised texts (padded to the longest), mean-pooled over
// the real tokens and L2-normalised.
async function forward({ ort, session }, batch) {
  const rows = batch.length;
  const width = Math.max(...batch.map((ids) => ids.length));
  const inputIds = new BigInt64Array(rows * width);
  const mask = new BigInt64Array(rows * width);
  for (const [r, ids] of batch.entries()) {
    for (const [c, id] of ids.entries()) {
      inputIds[r * width + c] = BigInt(id);
      mask[r * width + c] = 1n;
    }
  }
  const shape = [rows, width];
  const feeds = {
    input_ids: new ort.Tensor("int64", inputIds, shape),
    attention_mask: new ort.Tensor("int64", mask, shape),
    token_type_ids: new ort.Tensor("int64", new BigInt64Array(rows * width), shape),
  };
  const { last_hidden_state: hidden } = await session.run(feeds);
  const dims = hidden.dims[2];
  const data = hidden.data;
  return batch.map((ids, r) => {
    const v = new Float32Array(dims);
    for (let t = 0; t < ids.length; t++) {
      const base = (r * width + t) * dims;
      for (let d = 0; d < dims; d++) v[d] += data[base + d];
    }
    let norm = 0;
    for (let d = 0; d < dims; d++) norm += v[d] * v[d];
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < dims; d++) v[d] /= norm;
    return v;
  });
}

/**
 * An `EmbedCallback` running all-MiniLM-L6-v2 locally: 384-dimensional unit vectors, so the
 * cosine of two texts is the dot product of their vectors. The model loads on the first call
 * (or on `await embed.load()`). Texts are embedded in batches of `batchSize` texts of similar
 * length; the signal is checked between batches.
 *
 * @param {{ modelDir?: string, batchSize?: number, threads?: number }} [options]
 * @example
 * const embed = localMiniLmEmbed();
 * const [a, b] = await embed(["reset the cache", "clear the cache"], { signal: AbortSignal.timeout(10_000) });
 */
export function localMiniLmEmbed({ modelDir = defaultModelDir(), batchSize = 16, threads } = {}) {
  let loading;
  const loaded = () => (loading ??= load(modelDir, threads));
  const embed = async (texts, { signal } = {}) => {
    const model = await loaded();
    const tokenised = texts.map((text) => idsOf(model, String(text)));
    // Similar lengths together: less padding per batch.
    const order = tokenised.map((_, i) => i).sort((a, b) => tokenised[a].length - tokenised[b].length);
    const out = new Array(texts.length);
    for (let start = 0; start < order.length; start += batchSize) {
      signal?.throwIfAborted();
      const slice = order.slice(start, start + batchSize);
      const vectors = await forward(model, slice.map((i) => tokenised[i]));
      for (const [k, i] of slice.entries()) out[i] = vectors[k];
    }
    return out;
  };
  embed.model = "all-MiniLM-L6-v2";
  embed.load = async () => {
    await loaded();
  };
  return embed;
}

const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);

// `node scripts/local-embedder.mjs`: the sanity check (a paraphrase pair must be closer than an
// unrelated pair) and the speed on this machine.
if (import.meta.url === `file://${process.argv[1]}`) {
  const embed = localMiniLmEmbed();
  let t = performance.now();
  await embed.load();
  console.log(`model loaded in ${(performance.now() - t).toFixed(0)} ms`);
  const sentences = [
    "Run the database migrations before starting the API server.",
    "Apply the schema migrations first, then boot the backend service.",
    "My favourite colour for the dashboard theme is dark green.",
  ];
  const [a, b, c] = await embed(sentences);
  const para = dot(a, b);
  const unrelated = Math.max(dot(a, c), dot(b, c));
  console.log(`dims ${a.length}, |a| = ${Math.sqrt(dot(a, a)).toFixed(4)}`);
  console.log(`cosine paraphrase ${para.toFixed(3)}, unrelated ${dot(a, c).toFixed(3)} / ${dot(b, c).toFixed(3)}`);
  if (!(para > unrelated)) {
    console.error("sanity check FAILED: the paraphrase pair is not the closest");
    process.exit(1);
  }
  const words = "the build fails on the release branch because the cache key misses the lockfile hash and tests time out".split(" ");
  const texts = Array.from({ length: 64 }, (_, i) => words.slice(i % 5, 8 + (i % 12)).join(" "));
  const long = Array.from({ length: 16 }, (_, i) => Array.from({ length: 120 }, (_, k) => words[(i + k) % words.length]).join(" "));
  for (const [label, set] of [["short (8–19 words)", texts], ["long (120 words)", long]]) {
    t = performance.now();
    await embed(set);
    const ms = (performance.now() - t) / set.length;
    console.log(`${label}: ${ms.toFixed(2)} ms per text over ${set.length} texts`);
  }
  t = performance.now();
  for (let i = 0; i < 20; i++) await embed([`query number ${i} about the flaky test`]);
  console.log(`one query at a time: ${((performance.now() - t) / 20).toFixed(2)} ms per query`);
  console.log("sanity check: ok");
}

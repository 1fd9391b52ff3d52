// openAiEmbed against a local HTTP server on 127.0.0.1 that speaks `/embeddings`: each request's
// shape is checked, and the server answers well, out of order, in batches, with error statuses,
// garbage, wrong counts, non-numbers, mismatched dimensions, slowly, or never.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { openAiEmbed, isMemdirError } from "memdir";

let server;
let base;
const seen = [];
const hanging = new Set();

// A deterministic vector for a text: its length, its first char code, and a constant.
const vectorFor = (text, dims = 3) => [text.length, text.charCodeAt(0) || 0, 0.5, 1, 2, 3, 4, 5].slice(0, dims);

before(async () => {
  server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw ? JSON.parse(raw) : undefined;
      seen.push({ url: req.url, method: req.method, headers: req.headers, body });
      const mode = req.headers.authorization?.replace("Bearer ", "") ?? "none";
      const send = (status, payload) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(typeof payload === "string" ? payload : JSON.stringify(payload));
      };
      if (req.url !== "/v1/embeddings" || req.method !== "POST") return send(404, { error: { message: "no route" } });
      const input = body.input;
      const dims = body.dimensions ?? 3;
      const rows = input.map((t, index) => ({ object: "embedding", index, embedding: vectorFor(t, dims) }));
      switch (mode) {
        case "unauthorized":
          return send(401, { error: { message: "Incorrect API key provided", type: "invalid_request_error" } });
        case "rate-limited":
          return send(429, { error: { message: "Rate limit reached", type: "requests" } });
        case "broken":
          return send(500, "internal error");
        case "garbage":
          return send(200, "<html>not json</html>");
        case "no-data":
          return send(200, { object: "list", model: body.model });
        case "one-short":
          return send(200, { object: "list", data: rows.slice(1) });
        case "one-extra":
          return send(200, { object: "list", data: [...rows, { index: rows.length, embedding: [1, 2, 3] }] });
        case "nan":
          rows[0].embedding[1] = "NaN";
          return send(200, { object: "list", data: rows });
        case "null-value":
          rows[rows.length - 1].embedding[0] = null;
          return send(200, { object: "list", data: rows });
        case "string-vector":
          rows[0].embedding = "AAAAAA==";
          return send(200, { object: "list", data: rows });
        case "ragged":
          rows[rows.length - 1].embedding.push(9);
          return send(200, { object: "list", data: rows });
        case "empty-vector":
          rows[0].embedding = [];
          return send(200, { object: "list", data: rows });
        case "duplicate-index":
          rows[1].index = 0;
          return send(200, { object: "list", data: rows });
        case "bad-index":
          rows[0].index = 7;
          return send(200, { object: "list", data: rows });
        case "wide-second-batch": {
          // Consistent inside each request, but the second request's vectors are wider.
          const earlier = seen.filter((s) => s.headers.authorization === req.headers.authorization).length;
          if (earlier > 1) for (const r of rows) r.embedding.push(7);
          return send(200, { object: "list", data: rows });
        }
        case "slow":
          hanging.add(res);
          return setTimeout(() => send(200, { object: "list", data: rows }), 5000).unref();
        case "never":
          hanging.add(res);
          return;
        case "stall-body":
          res.writeHead(200, { "content-type": "application/json" });
          res.write('{"object":"list","data":[');
          hanging.add(res);
          return;
        case "reversed":
          return send(200, { object: "list", model: body.model, data: rows.reverse(), usage: { prompt_tokens: 3, total_tokens: 3 } });
        default:
          return send(200, { object: "list", model: body.model, data: rows });
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}/v1`;
});

after(() => {
  for (const res of hanging) res.destroy();
  server.closeAllConnections?.();
  server.close();
});

const signal = () => new AbortController().signal;
const embedder = (apiKey, extra = {}) => openAiEmbed({ apiKey, baseUrl: base, ...extra });

async function rejectsWith(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(isMemdirError(e), `a MemdirError, got ${e}`);
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test("openAiEmbed posts { model, input } and returns Float32Arrays in input order", async () => {
  const embed = embedder("reversed", { model: "nomic-embed-text" });
  assert.equal(embed.model, "nomic-embed-text");
  const texts = ["alpha", "be", "gamma ray", "d"];
  const vectors = await embed(texts, { signal: signal() });
  assert.equal(vectors.length, 4);
  for (const [i, v] of vectors.entries()) {
    assert.ok(v instanceof Float32Array);
    assert.deepEqual(Array.from(v), vectorFor(texts[i]), `vector ${i} follows its index, not the reply order`);
  }
  const { url, method, headers, body } = seen.at(-1);
  assert.equal(url, "/v1/embeddings");
  assert.equal(method, "POST");
  assert.equal(headers.authorization, "Bearer reversed");
  assert.equal(headers["content-type"], "application/json");
  assert.deepEqual(body, { model: "nomic-embed-text", input: texts });
});

test("openAiEmbed defaults to text-embedding-3-small and sends no key when none is given", async () => {
  const embed = openAiEmbed({ baseUrl: `${base}/` });
  assert.equal(embed.model, "text-embedding-3-small");
  const [v] = await embed(["x"], { signal: signal() });
  assert.deepEqual(Array.from(v), vectorFor("x"));
  const { url, headers, body } = seen.at(-1);
  assert.equal(url, "/v1/embeddings", "a trailing slash on baseUrl is dropped");
  assert.equal(headers.authorization, undefined);
  assert.equal(body.model, "text-embedding-3-small");
});

test("openAiEmbed sends dimensions and extra headers, and names the model with its size", async () => {
  const embed = embedder("ok", { model: "text-embedding-3-large", dimensions: 5, headers: { "x-team": "blue" } });
  assert.equal(embed.model, "text-embedding-3-large@5");
  const vectors = await embed(["one", "two"], { signal: signal() });
  assert.deepEqual(vectors.map((v) => v.length), [5, 5]);
  const { headers, body } = seen.at(-1);
  assert.equal(headers["x-team"], "blue");
  assert.equal(body.dimensions, 5);
});

test("openAiEmbed refuses vectors whose size differs from the dimensions asked for", async () => {
  const embed = openAiEmbed({ apiKey: "ok", baseUrl: base, dimensions: 4, fetch: async (url, init) => {
    const body = JSON.parse(init.body);
    const data = body.input.map((t, index) => ({ index, embedding: vectorFor(t, 3) }));
    return new Response(JSON.stringify({ data }), { status: 200 });
  } });
  await rejectsWith(embed(["a"], { signal: signal() }), "HOST_LLM", /4 and 3 dimensions/);
});

test("openAiEmbed splits long inputs into batches and keeps the order across them", async () => {
  const texts = Array.from({ length: 203 }, (_, i) => `text number ${i} ${"x".repeat(i % 7)}`);
  const before = seen.length;
  const vectors = await embedder("reversed")(texts, { signal: signal() });
  const requests = seen.slice(before);
  assert.deepEqual(requests.map((r) => r.body.input.length), [96, 96, 11]);
  assert.deepEqual(requests.flatMap((r) => r.body.input), texts);
  assert.deepEqual(vectors.map((v) => Array.from(v)), texts.map((t) => vectorFor(t)));

  const small = seen.length;
  await embedder("ok", { batchSize: 2 })(["a", "b", "c"], { signal: signal() });
  assert.deepEqual(seen.slice(small).map((r) => r.body.input), [["a", "b"], ["c"]]);
});

test("openAiEmbed sends no request for no texts", async () => {
  const before = seen.length;
  assert.deepEqual(await embedder("ok")([], { signal: signal() }), []);
  assert.equal(seen.length, before);
});

test("openAiEmbed turns error statuses into HTTP errors with the status", async () => {
  for (const [mode, status, pattern] of [
    ["unauthorized", 401, /401: Incorrect API key/],
    ["rate-limited", 429, /429: Rate limit/],
    ["broken", 500, /500/],
  ]) {
    await assert.rejects(embedder(mode)(["a"], { signal: signal() }), (e) => {
      assert.ok(isMemdirError(e));
      assert.equal(e.code, "HTTP");
      assert.equal(e.status, status);
      assert.match(e.message, pattern);
      return true;
    });
  }
  const missing = openAiEmbed({ baseUrl: `${base}/nowhere` });
  await assert.rejects(missing(["a"], { signal: signal() }), (e) => e.code === "HTTP" && e.status === 404);
});

test("openAiEmbed reports an unreachable endpoint as HTTP", async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, "127.0.0.1", resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  await rejectsWith(openAiEmbed({ baseUrl: `http://127.0.0.1:${port}/v1` })(["a"], { signal: signal() }), "HTTP");
});

test("openAiEmbed rejects replies that are not a usable set of vectors", async () => {
  for (const [mode, pattern] of [
    ["garbage", /not JSON/],
    ["no-data", /without a `data` array/],
    ["one-short", /2 embeddings for 3 texts/],
    ["one-extra", /4 embeddings for 3 texts/],
    ["nan", /non-number \("NaN"\)/],
    ["null-value", /non-number \(null\)/],
    ["string-vector", /no vector for index 0/],
    ["empty-vector", /no vector for index 0/],
    ["ragged", /3 and 4 dimensions/],
    ["duplicate-index", /index 0 twice/],
    ["bad-index", /index 7/],
  ]) {
    await rejectsWith(embedder(mode)(["a", "bb", "ccc"], { signal: signal() }), "HOST_LLM", pattern);
  }
});

test("openAiEmbed rejects dimensions that change between batches", async () => {
  await rejectsWith(embedder("wide-second-batch", { batchSize: 2 })(["a", "b", "c"], { signal: signal() }), "HOST_LLM", /3 and 4 dimensions/);
});

test("openAiEmbed refuses numbers that overflow to Infinity", async () => {
  // JSON.parse reads 1e999 as Infinity.
  const fetch = async () => ({ ok: true, status: 200, text: async () => '{"data":[{"index":0,"embedding":[1e999,0]}]}' });
  await rejectsWith(openAiEmbed({ fetch })(["a"], { signal: signal() }), "HOST_LLM", /non-number \(Infinity\)/);
});

test("openAiEmbed aborts a slow request and one that never answers", async () => {
  for (const mode of ["slow", "never", "stall-body"]) {
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(new Error("recall timed out")), 100);
    await rejectsWith(embedder(mode)(["a"], { signal: controller.signal }), "ABORTED");
    assert.ok(performance.now() - started < 4000, `${mode}: settled soon after the abort`);
  }
});

test("openAiEmbed does not start when the signal has already fired", async () => {
  const before = seen.length;
  await rejectsWith(embedder("ok")(["a"], { signal: AbortSignal.abort() }), "ABORTED");
  assert.equal(seen.length, before);
});

test("openAiEmbed checks its options and its input", async () => {
  for (const options of [{ model: "" }, { dimensions: 0 }, { dimensions: 1.5 }, { batchSize: 0 }, { fetch: "no" }, { baseUrl: "" }]) {
    assert.throws(() => openAiEmbed(options), (e) => isMemdirError(e) && e.code === "INVALID_INPUT", JSON.stringify(options));
  }
  await rejectsWith(embedder("ok")("not an array", { signal: signal() }), "INVALID_INPUT");
  await rejectsWith(embedder("ok")(["a", 3], { signal: signal() }), "INVALID_INPUT");
});

// The local embedder recipe (scripts/local-embedder.mjs, installed by scripts/install-model.sh):
// a real all-MiniLM-L6-v2 run offline. Skipped, with the reason, where the model is not installed.
const repo = process.env.MEMDIR_REPO;
let local;
let localMissing = "MEMDIR_REPO is not set";
if (repo) {
  const { localMiniLmEmbed, defaultModelDir } = await import(new URL(`file://${repo}/scripts/local-embedder.mjs`).href);
  const { access } = await import("node:fs/promises");
  try {
    await access(`${defaultModelDir()}/model.onnx`);
    await access(`${defaultModelDir()}/node/node_modules/onnxruntime-node/package.json`);
    local = { localMiniLmEmbed, embed: localMiniLmEmbed() };
  } catch {
    localMissing = `no model in ${defaultModelDir()}: run scripts/install-model.sh`;
  }
}
const localOnly = { skip: local ? false : localMissing };
const cosine = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);

test("the local embedder gives 384-dimensional unit vectors, paraphrases closest", localOnly, async () => {
  const { embed } = local;
  assert.equal(embed.model, "all-MiniLM-L6-v2");
  const [a, b, c] = await embed(
    [
      "Run the database migrations before starting the API server.",
      "Apply the schema migrations first, then boot the backend service.",
      "My favourite colour for the dashboard theme is dark green.",
    ],
    { signal: signal() },
  );
  for (const v of [a, b, c]) {
    assert.equal(v.length, 384);
    assert.ok(Math.abs(cosine(v, v) - 1) < 1e-5, "unit length");
  }
  assert.ok(cosine(a, b) > 0.5, `paraphrase cosine ${cosine(a, b)}`);
  assert.ok(cosine(a, c) < 0.2 && cosine(b, c) < 0.2, `unrelated cosines ${cosine(a, c)}, ${cosine(b, c)}`);
});

test("the local embedder gives a text the same vector alone and padded in a batch", localOnly, async () => {
  const { embed } = local;
  const long = "the settlement job retries failed ledger writes with exponential backoff ".repeat(6);
  const texts = ["x", "sqlmock", long, "why does the watchdog reset the board?"];
  const together = await embed(texts, { signal: signal() });
  for (const [i, text] of texts.entries()) {
    const [alone] = await embed([text], { signal: signal() });
    assert.ok(cosine(alone, together[i]) > 0.99999, `${text.slice(0, 20)}: padding changed the vector`);
  }
});

test("the local embedder stops at an aborted signal and names a missing model", localOnly, async () => {
  await assert.rejects(local.embed(["a"], { signal: AbortSignal.abort(new Error("stop")) }), /stop/);
  const missing = local.localMiniLmEmbed({ modelDir: "/nonexistent/model" });
  await assert.rejects(missing(["a"], { signal: signal() }), /model\.onnx is missing; run scripts\/install-model\.sh/);
});

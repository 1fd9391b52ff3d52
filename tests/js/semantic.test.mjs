// Semantic recall through `new Memdir({ embed })`: fusion with a deterministic stand-in embedder,
// the `.memdir-vectors` sidecar (reused across instances, keyed by model), hostile embedders
// (throws, wrong count, wrong dimension, NaN, not arrays, never settles, aborted), and a sidecar
// that survives its writer being SIGKILLed mid-write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { mkdtemp, readFile, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir, memoryFs } from "memdir";
import { nodeFs } from "memdir/node";

const DIR = "/m/";
const DIMS = 64;
const SYNONYMS = { automobile: "car", vehicle: "car", servicing: "service", maintenance: "service" };

/** Hashed bag of words (with a tiny synonym table): a stand-in that counts its calls. */
function standIn(model = "standin-1") {
  const calls = [];
  const embed = (texts, { signal }) => {
    assert.ok(signal instanceof AbortSignal);
    calls.push(texts);
    return texts.map((text) => {
      const v = new Float32Array(DIMS);
      for (let word of text.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 2)) {
        word = SYNONYMS[word] ?? word;
        let h = 2166136261;
        for (const c of word) h = Math.imul(h ^ c.charCodeAt(0), 16777619) >>> 0;
        v[h % DIMS] += 1;
      }
      v[DIMS - 1] += 0.1;
      return v;
    });
  };
  embed.model = model;
  embed.calls = calls;
  return embed;
}

const memory = (name, description, body) => `---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n${body}\n`;
const files = () => ({
  "/m/car.md": memory("Automobile maintenance", "automobile maintenance every spring", "Book the garage."),
  "/m/deploy.md": memory("Deploy steps", "deploy with the blue green script", "Run scripts/deploy.sh then check grafana."),
  "/m/tests.md": memory("Integration tests", "integration tests hit a real postgres database", "Mocks hid a migration bug."),
});
const names = (recall) => recall.memories.map((m) => m.path.slice(DIR.length));

test("fusion finds a paraphrase, keeps lexical matches, and abstains on chit-chat", async () => {
  const embed = standIn();
  const memdir = new Memdir({ fs: memoryFs(files()), dir: DIR, embed });
  const paraphrase = await memdir.findRelevant("when is the vehicle servicing due");
  assert.deepEqual(names(paraphrase), ["car.md"]);
  assert.equal(paraphrase.answeredBy, "semantic");
  assert.equal(paraphrase.outcome, "ok");
  const lexical = await memdir.findRelevant("run the integration tests against postgres");
  assert.deepEqual(names(lexical), ["tests.md"]);
  assert.equal(lexical.answeredBy, "lexical+semantic");
  assert.deepEqual(names(await memdir.findRelevant("thanks, sounds good")), []);
  const plain = new Memdir({ fs: memoryFs(files()), dir: DIR });
  assert.deepEqual(names(await plain.findRelevant("when is the vehicle servicing due")), []);
});

test("the sidecar is reused: a second instance embeds only the query; another model re-embeds", async () => {
  const fs = memoryFs(files());
  const first = standIn();
  await new Memdir({ fs, dir: DIR, embed: first }).findRelevant("deploy script");
  assert.equal(first.calls.flat().length, 4);
  const sidecar = await fs.readFile("/m/.memdir-vectors");
  const header = JSON.parse(sidecar.split("\n")[0]);
  assert.deepEqual(header, { format: "memdir-vectors", version: 1, model: "standin-1", dims: DIMS });
  const second = standIn();
  const recall = await new Memdir({ fs, dir: DIR, embed: second }).findRelevant("deploy script");
  assert.deepEqual(names(recall), ["deploy.md"]);
  assert.deepEqual(second.calls, [["deploy script"]]);
  // `embedModel` wins over `embed.model`: other vectors, so everything is embedded again.
  const third = standIn();
  await new Memdir({ fs, dir: DIR, embed: third, embedModel: "standin-2" }).findRelevant("deploy script");
  assert.equal(third.calls.flat().length, 4);
  assert.equal(JSON.parse((await fs.readFile("/m/.memdir-vectors")).split("\n")[0]).model, "standin-2");
  // The scan and the listing never show the sidecar.
  const memdir = new Memdir({ fs, dir: DIR });
  assert.ok((await memdir.scan()).every((h) => !h.filename.includes("memdir-vectors")));
});

test("a hostile embedder falls back to the ranker, reported in outcome", async () => {
  const good = standIn();
  const cases = [
    ["throws", () => { throw new Error("model crashed"); }, "error"],
    ["rejects", async () => { throw new Error("model crashed"); }, "error"],
    ["wrong count", (texts) => [...good(texts, { signal: new AbortController().signal }), new Float32Array(DIMS).fill(1)], "invalid_reply"],
    ["wrong dimension", (texts) => good(texts, { signal: new AbortController().signal }).map((v, i) => (i === 0 ? v.slice(1) : v)), "invalid_reply"],
    ["inconsistent number[][]", (texts) => texts.map((_, i) => Array.from({ length: 3 + (i % 2) }, () => 1)), "invalid_reply"],
    ["NaN", (texts) => texts.map(() => [1, NaN, 0]), "invalid_reply"],
    ["Infinity", (texts) => texts.map(() => [1, Infinity, 0]), "invalid_reply"],
    ["empty vectors", (texts) => texts.map(() => []), "invalid_reply"],
    ["not an array", () => ({ vectors: [] }), "invalid_reply"],
    ["strings", (texts) => texts.map(() => ["1", "2"]), "invalid_reply"],
    ["null", () => null, "invalid_reply"],
  ];
  for (const [label, embed, outcome] of cases) {
    const fs = memoryFs(files());
    const recall = await new Memdir({ fs, dir: DIR, embed }).findRelevant("deploy script");
    assert.equal(recall.outcome, outcome, label);
    assert.equal(recall.answeredBy, "lexical", label);
    assert.deepEqual(names(recall), ["deploy.md"], label);
    await assert.rejects(async () => fs.readFile("/m/.memdir-vectors"), undefined, label);
  }
});

test("an embedder that never settles times out within the recall timeout, and its signal fires", async () => {
  let signal;
  const embed = (texts, options) => {
    signal = options.signal;
    return new Promise(() => {});
  };
  const memdir = new Memdir({ fs: memoryFs(files()), dir: DIR, embed, recall: { timeoutMs: 100 } });
  const started = Date.now();
  const recall = await memdir.findRelevant("deploy script");
  assert.ok(Date.now() - started < 5000);
  assert.equal(recall.outcome, "timeout");
  assert.deepEqual(names(recall), ["deploy.md"]);
  assert.equal(signal.aborted, true);
});

test("the caller's abort stops a hanging embedder: nothing is returned", async () => {
  let signal;
  const embed = (texts, options) => {
    signal = options.signal;
    return new Promise(() => {});
  };
  const memdir = new Memdir({ fs: memoryFs(files()), dir: DIR, embed });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const recall = await memdir.findRelevant("deploy script", { signal: controller.signal });
  assert.equal(recall.outcome, "aborted");
  assert.deepEqual(recall.memories, []);
  assert.equal(signal.aborted, true);
});

test("bad embed options are refused with INVALID_INPUT", () => {
  assert.throws(() => new Memdir({ fs: memoryFs(), dir: DIR, embed: "nope" }), (e) => e.code === "INVALID_INPUT");
  assert.throws(() => new Memdir({ fs: memoryFs(), dir: DIR, embed: standIn(), embedModel: 3 }), (e) => e.code === "INVALID_INPUT");
});

/** True when `text` is a whole sidecar of `count` entries of `dims` floats. */
function wholeSidecar(text, count) {
  const lines = text.split("\n");
  const header = JSON.parse(lines[0]);
  if (!["model-a", "model-b"].includes(header.model) || header.dims !== 384) return false;
  if (lines.length !== count + 2 || lines[count + 1] !== "") return false;
  return lines.slice(1, count + 1).every((line) => {
    const [hash, data, file] = line.split(" ");
    return /^[0-9a-f]{32}$/.test(hash) && Buffer.from(data, "base64").length === 384 * 4 && /^note_\d+\.md$/.test(file);
  });
}

test("the sidecar survives SIGKILL during its rewrite: old or new, never torn", { timeout: 120_000 }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "memdir-sidecar-"));
  const count = 60;
  try {
    for (let i = 0; i < count; i++) {
      await writeFile(join(dir, `note_${i}.md`), memory(`Note ${i}`, `what step ${i} taught about databases`, `Body ${i}.\n`.repeat(10)));
    }
    const writer = new URL("./sidecar-writer.mjs", import.meta.url).pathname;
    let killedMidway = 0;
    for (let kill = 0; kill < 20; kill++) {
      const child = spawn(process.execPath, [writer, dir + "/"], { stdio: ["ignore", "pipe", "inherit"] });
      let rounds = 0;
      child.stdout.on("data", (chunk) => (rounds += String(chunk).split("\n").filter(Boolean).length));
      const exited = new Promise((resolve) => child.on("exit", (code, sig) => resolve(sig)));
      // Wait for the first round (the sidecar exists), then kill at a random moment.
      while (rounds === 0 && child.exitCode === null) await new Promise((r) => setTimeout(r, 5));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 60)));
      child.kill("SIGKILL");
      assert.equal(await exited, "SIGKILL", "the writer was running when killed");
      if (rounds > 0) killedMidway++;
      const text = await readFile(join(dir, ".memdir-vectors"), "utf8");
      assert.ok(wholeSidecar(text, count), `kill ${kill}: torn sidecar (${text.length} bytes)`);
    }
    assert.equal(killedMidway, 20);
    // The next recall works and reuses the surviving vectors when the model matches.
    const text = await readFile(join(dir, ".memdir-vectors"), "utf8");
    const model = JSON.parse(text.split("\n")[0]).model;
    const calls = [];
    const embed = (texts) => {
      calls.push(texts.length);
      return texts.map((t) => {
        const v = new Float32Array(384);
        for (let i = 0; i < t.length; i++) v[(t.charCodeAt(i) * 31 + i + model.length) % 384] += 1;
        v[model === "model-a" ? 0 : 1] += 1;
        return v;
      });
    };
    embed.model = model;
    const recall = await new Memdir({ fs: nodeFs(), dir: dir + "/", embed }).findRelevant("databases");
    assert.equal(recall.outcome, "ok");
    assert.deepEqual(calls, [1]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("with an LLM too: the fused best make its manifest over the budget, and answer when it fails", async () => {
  const paraphrase = "when is the vehicle servicing due";
  // Over a selector budget of 1: the LLM sees the fused best (car.md shares no word with the
  // query; the ranker alone would show the newest memory).
  const requests = [];
  const llm = (request) => (requests.push(request), JSON.stringify({ selected_memories: ["car.md"] }));
  const fs = memoryFs(files());
  const over = new Memdir({ fs, dir: DIR, llm, embed: standIn(), recall: { selectorBudget: 1 } });
  const picked = await over.findRelevant(paraphrase);
  assert.deepEqual(names(picked), ["car.md"]);
  assert.equal(picked.answeredBy, "llm+semantic-prefilter");
  assert.equal(picked.outcome, "ok");
  const manifest = requests[0].messages[0].content;
  assert.match(manifest, /car\.md/);
  assert.doesNotMatch(manifest, /deploy\.md|tests\.md/);
  // The LLM fails: the fused ranker answers, and the outcome says what the LLM did.
  for (const selectorBudget of [1, 200]) {
    const failing = () => {
      throw new Error("model down");
    };
    const memdir = new Memdir({ fs: memoryFs(files()), dir: DIR, llm: failing, embed: standIn(), recall: { selectorBudget } });
    const recall = await memdir.findRelevant(paraphrase);
    assert.deepEqual(names(recall), ["car.md"], `budget ${selectorBudget}`);
    assert.equal(recall.answeredBy, "semantic");
    assert.equal(recall.outcome, "error");
    // Without the embedder the fallback is lexical and misses the paraphrase.
    const plain = await new Memdir({ fs: memoryFs(files()), dir: DIR, llm: failing, recall: { selectorBudget } }).findRelevant(paraphrase);
    assert.deepEqual([plain.answeredBy, plain.outcome, plain.memories.length], ["lexical", "error", 0]);
  }
});

test("a long pasted query is matched line by line too", async () => {
  const embed = standIn();
  const memdir = new Memdir({ fs: memoryFs(files()), dir: DIR, embed });
  const query = "frame alpha beta gamma delta epsilon\nwhen is the vehicle servicing due\nzeta theta kappa lambda omicron sigma";
  const recall = await memdir.findRelevant(query);
  assert.deepEqual(names(recall), ["car.md"]);
  assert.equal(recall.answeredBy, "semantic");
  // The query and its three lines, in one call.
  assert.deepEqual(embed.calls.at(-1), [query, ...query.split("\n")]);
});

test("the CLI with a model key and --embed-url: the embeddings answer when the model fails", async () => {
  // One loopback OpenAI-compatible server: /embeddings answers with the stand-in's vectors,
  // /chat/completions is down.
  const vectors = standIn();
  const seen = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      seen.push(req.url);
      if (req.url === "/v1/embeddings") {
        const { input } = JSON.parse(raw);
        const data = vectors(input, { signal: new AbortController().signal }).map((v, index) => ({ index, embedding: Array.from(v) }));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ data }));
      } else {
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: { message: "overloaded" } }));
      }
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}/v1`;
  const root = await mkdtemp(join(tmpdir(), "memdir-cli-llm-embed-"));
  try {
    const dir = join(root, "memory");
    mkdirSync(dir);
    for (const [path, text] of Object.entries(files())) writeFileSync(join(dir, path.slice(DIR.length)), text);
    const bin = join(fileURLToPath(new URL(".", import.meta.url)), "node_modules", ".bin", "memdir");
    const env = { PATH: process.env.PATH, HOME: root, OPENAI_API_KEY: "k-1", OPENAI_BASE_URL: base };
    const run = (args) =>
      new Promise((resolve, reject) => {
        const child = spawn(bin, args, { env });
        let stdout = "";
        let stderr = "";
        child.stdout.on("data", (c) => (stdout += c));
        child.stderr.on("data", (c) => (stderr += c));
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stdout, stderr }));
      });
    const r = await run(["recall", "when is the vehicle servicing due", "--dir", dir, "--json", "--embed-url", base, "--embed-model", "standin"]);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.deepEqual([json.answeredBy, json.outcome], ["semantic", "error"], r.stdout);
    assert.ok(json.memories[0].path.endsWith("car.md"), r.stdout);
    assert.ok(seen.includes("/v1/chat/completions") && seen.includes("/v1/embeddings"), seen.join(" "));
  } finally {
    server.close();
    await rm(root, { recursive: true, force: true });
  }
});

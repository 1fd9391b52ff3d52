// The LLM adapters against a local HTTP server on 127.0.0.1 that checks each request's shape
// and answers with canned replies, errors, 429 and a slow reply.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { anthropicLlm, openAiLlm, isMemdirError } from "memdir";

let server;
let base;
const seen = [];

const schema = {
  type: "object",
  properties: { selected_memories: { type: "array", items: { type: "string" } } },
  required: ["selected_memories"],
  additionalProperties: false,
};

function request(extra = {}) {
  return {
    purpose: "recall",
    system: "pick memories",
    messages: [{ role: "user", content: "Query: tests\n\nAvailable memories:\n- a.md" }],
    maxTokens: 256,
    responseSchema: schema,
    signal: new AbortController().signal,
    ...extra,
  };
}

before(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const json = body ? JSON.parse(body) : undefined;
      seen.push({ url: req.url, headers: req.headers, body: json });
      const mode = req.headers["x-api-key"] ?? req.headers.authorization?.replace("Bearer ", "");
      const send = (status, payload) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(payload));
      };
      if (mode === "rate-limited") return send(429, { error: { type: "rate_limit_error", message: "slow down" } });
      if (mode === "broken") return send(500, { error: { message: "overloaded" } });
      if (mode === "slow") return setTimeout(() => send(200, {}), 5000);
      if (mode === "garbage") {
        res.writeHead(200);
        return res.end("<html>not json</html>");
      }
      if (req.url === "/v1/messages") {
        return send(200, { content: [{ type: "thinking", thinking: "…" }, { type: "text", text: '{"selected_memories":["a.md"]}' }] });
      }
      if (req.url === "/v1/chat/completions") {
        return send(200, { choices: [{ message: { role: "assistant", content: '{"selected_memories":["a.md"]}' } }] });
      }
      send(404, { error: { message: "no route" } });
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(() => server.close());

test("anthropicLlm sends a Messages API request with structured output", async () => {
  const llm = anthropicLlm({ apiKey: "good", model: "claude-sonnet-4-6", baseUrl: base });
  const text = await llm(request());
  assert.equal(text, '{"selected_memories":["a.md"]}');
  const { url, headers, body } = seen.at(-1);
  assert.equal(url, "/v1/messages");
  assert.equal(headers["anthropic-version"], "2023-06-01");
  assert.equal(headers["anthropic-beta"], "structured-outputs-2025-12-15");
  assert.equal(headers["anthropic-dangerous-direct-browser-access"], undefined, "not in Node");
  assert.equal(body.model, "claude-sonnet-4-6");
  assert.equal(body.max_tokens, 256);
  assert.equal(body.system, "pick memories");
  assert.deepEqual(body.messages, request().messages);
  assert.deepEqual(body.output_config.format, { type: "json_schema", schema });
});

test("anthropicLlm leaves structured output off for models without it", async () => {
  const llm = anthropicLlm({ apiKey: "good", model: "claude-3-haiku-20240307", baseUrl: base });
  await llm(request());
  const { headers, body } = seen.at(-1);
  assert.equal(headers["anthropic-beta"], undefined);
  assert.equal(body.output_config, undefined);
});

test("openAiLlm sends chat completions with a JSON-schema response format", async () => {
  const llm = openAiLlm({ apiKey: "good", model: "gpt-test", baseUrl: `${base}/v1` });
  const text = await llm(request());
  assert.equal(text, '{"selected_memories":["a.md"]}');
  const { url, headers, body } = seen.at(-1);
  assert.equal(url, "/v1/chat/completions");
  assert.equal(headers.authorization, "Bearer good");
  assert.deepEqual(body.messages[0], { role: "system", content: "pick memories" });
  assert.equal(body.messages[1].role, "user");
  assert.equal(body.response_format.type, "json_schema");
  assert.deepEqual(body.response_format.json_schema.schema, schema);
});

for (const [make, name] of [
  [(key) => anthropicLlm({ apiKey: key, baseUrl: base }), "anthropicLlm"],
  [(key) => openAiLlm({ apiKey: key, model: "m", baseUrl: `${base}/v1` }), "openAiLlm"],
]) {
  test(`${name}: 429 and 5xx become MemdirError with the status`, async () => {
    await assert.rejects(make("rate-limited")(request()), (e) => isMemdirError(e) && e.code === "HTTP" && e.status === 429 && /slow down/.test(e.message));
    await assert.rejects(make("broken")(request()), (e) => isMemdirError(e) && e.status === 500);
    await assert.rejects(make("garbage")(request()), (e) => isMemdirError(e) && e.code === "HOST_LLM");
  });

  test(`${name}: the request's signal aborts a slow reply`, async () => {
    const controller = new AbortController();
    const started = Date.now();
    setTimeout(() => controller.abort(), 100);
    await assert.rejects(make("slow")(request({ signal: controller.signal })), (e) => isMemdirError(e) && e.code === "ABORTED");
    assert.ok(Date.now() - started < 2000);
  });
}

test("adapters refuse to start without a key", () => {
  assert.throws(() => anthropicLlm({}), (e) => isMemdirError(e) && e.code === "INVALID_INPUT");
  assert.throws(() => openAiLlm({ apiKey: "k" }), (e) => isMemdirError(e) && e.code === "INVALID_INPUT");
});

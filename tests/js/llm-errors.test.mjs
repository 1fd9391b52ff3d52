// HTTP failures of the ready-made model adapters (issue #18): the status is on the error itself,
// and extraction reports a failed model as its typed `{ status: "failed" }` result.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Extractor, Memdir, anthropicLlm, isMemdirError, memoryFs, openAiLlm } from "memdir";

/** A fetch that answers every request with `status` and an API-style error body. */
function failingFetch(status, message) {
  const seen = [];
  const doFetch = async (url) => {
    seen.push(url);
    return new Response(JSON.stringify({ error: { message } }), { status, headers: { "content-type": "application/json" } });
  };
  return { doFetch, seen };
}

const messages = [{ role: "user", text: "Remember that I use pnpm", id: "1" }];

for (const [label, make] of [
  ["anthropicLlm", (doFetch) => anthropicLlm({ apiKey: "k", fetch: doFetch, baseUrl: "http://model.test" })],
  ["openAiLlm", (doFetch) => openAiLlm({ apiKey: "k", model: "m", fetch: doFetch, baseUrl: "http://model.test/v1" })],
]) {
  test(`${label}: a 401 is an HTTP error with status 401, and stays on the library's error`, async () => {
    const { doFetch, seen } = failingFetch(401, "invalid x-api-key");
    const llm = make(doFetch);
    await assert.rejects(llm({ purpose: "extract", system: "s", messages: [{ role: "user", content: "hi" }], maxTokens: 10 }), (e) => {
      assert.ok(isMemdirError(e));
      assert.equal(e.code, "HTTP");
      assert.equal(e.status, 401);
      assert.match(e.message, /401: invalid x-api-key/);
      return true;
    });
    // Through the core (consolidation rejects on a failed model): HOST_LLM, status on it too.
    const memdir = new Memdir({ fs: memoryFs({ "/m/a.md": "---\nname: a\ndescription: a\ntype: user\n---\nx" }), dir: "/m/", llm });
    await assert.rejects(memdir.consolidate({ force: true, sessions: ["s1", "s2", "s3", "s4", "s5"].map((id) => ({ id, mtimeMs: Date.now() })) }), (e) => {
      assert.ok(isMemdirError(e), String(e));
      assert.equal(e.code, "HOST_LLM", e.message);
      assert.equal(e.status, 401, "status on the error itself");
      assert.equal(e.cause?.status, 401);
      return true;
    });
    assert.ok(seen.length >= 2);
  });

  test(`${label}: extract() and Extractor.run resolve { status: "failed" } on a 401`, async () => {
    const { doFetch } = failingFetch(401, "invalid x-api-key");
    const memdir = new Memdir({ fs: memoryFs(), dir: "/m/", llm: make(doFetch) });
    const out = await memdir.extract(messages);
    assert.equal(out.status.status, "failed");
    assert.equal(out.status.code, "HOST_LLM");
    assert.match(out.status.message, /401/);
    assert.deepEqual(out.created, []);
    const run = await new Extractor({ everyN: 1 }).run(memdir, messages);
    assert.equal(run.status.status, "failed");
    assert.equal(run.status.code, "HOST_LLM");
    // The cursor did not move: a working model later extracts the same messages.
    const ok = new Memdir({ fs: memoryFs(), dir: "/m/", llm: () => JSON.stringify({ operations: [] }) });
    const extractor = new Extractor({ everyN: 1 });
    assert.equal((await extractor.run(memdir, messages)).status.status, "failed");
    assert.equal((await extractor.run(ok, messages)).status.status, "extracted");
  });
}

test("extract still rejects a caller's mistake: no LLM is UNSUPPORTED", async () => {
  const memdir = new Memdir({ fs: memoryFs(), dir: "/m/" });
  await assert.rejects(memdir.extract(messages), (e) => e.code === "UNSUPPORTED");
});

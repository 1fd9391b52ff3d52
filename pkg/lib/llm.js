// LLM adapters over fetch: a few lines each, the user's own key and endpoint.
import { MemdirError, readArgs } from "./errors.js";

const inBrowser = typeof window !== "undefined" || typeof WorkerGlobalScope !== "undefined";

// Models that accept Anthropic structured outputs (the reference's list).
const STRUCTURED = /(sonnet-4-5|sonnet-4-6|opus-4-1|opus-4-5|opus-4-6|haiku-4-5)/;

// POST JSON and parse the JSON reply, mapping failures to MemdirErrors (shared with embed.js).
export async function post(url, headers, body, signal, doFetch) {
  let response;
  try {
    response = await doFetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
  } catch (cause) {
    if (signal?.aborted) throw new MemdirError("ABORTED", "the model request was aborted", { cause });
    throw new MemdirError("HTTP", `the model request failed: ${cause?.message ?? cause}`, { cause });
  }
  const text = await response.text();
  if (!response.ok) {
    let detail = "";
    try {
      detail = JSON.parse(text)?.error?.message ?? "";
    } catch {}
    throw new MemdirError("HTTP", `the model endpoint answered ${response.status}${detail ? `: ${detail}` : ""}`, {
      status: response.status,
    });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new MemdirError("HOST_LLM", "the model endpoint answered something that is not JSON", { cause });
  }
}

/**
 * An `LlmCallback` over the Anthropic Messages API. Uses structured outputs on models that
 * support them and sends the direct-browser-access header when running in a browser.
 *
 * @param {{ apiKey: string, model?: string, baseUrl?: string, fetch?: typeof fetch }} options
 * @example
 * const llm = anthropicLlm({ apiKey: process.env.ANTHROPIC_API_KEY, model: "claude-sonnet-4-6" });
 * const memdir = new Memdir({ fs, dir, llm });
 */
export function anthropicLlm(options) {
  return readArgs("anthropicLlm", () => anthropicFrom(options ?? {}));
}

function anthropicFrom({ apiKey, model = "claude-sonnet-4-6", baseUrl = "https://api.anthropic.com", fetch: doFetch = globalThis.fetch }) {
  if (!apiKey || typeof apiKey !== "string") throw new MemdirError("INVALID_INPUT", "anthropicLlm needs an apiKey (a string)");
  if (typeof model !== "string" || model === "") throw new MemdirError("INVALID_INPUT", "anthropicLlm: model must be a non-empty string");
  if (typeof baseUrl !== "string" || baseUrl === "") throw new MemdirError("INVALID_INPUT", "anthropicLlm: baseUrl must be a non-empty string");
  if (typeof doFetch !== "function") throw new MemdirError("INVALID_INPUT", "anthropicLlm needs a fetch function");
  return async (request) => {
    const headers = { "content-type": "application/json", "x-api-key": apiKey, "anthropic-version": "2023-06-01" };
    if (inBrowser) headers["anthropic-dangerous-direct-browser-access"] = "true";
    const body = { model, max_tokens: request.maxTokens, system: request.system, messages: request.messages };
    if (request.responseSchema && STRUCTURED.test(model)) {
      headers["anthropic-beta"] = "structured-outputs-2025-12-15";
      body.output_config = { format: { type: "json_schema", schema: request.responseSchema } };
    }
    const reply = await post(`${baseUrl.replace(/\/$/, "")}/v1/messages`, headers, body, request.signal, doFetch);
    const block = Array.isArray(reply?.content) ? reply.content.find((b) => b?.type === "text") : undefined;
    if (typeof block?.text !== "string") throw new MemdirError("HOST_LLM", "the reply has no text block");
    return block.text;
  };
}

/**
 * An `LlmCallback` over an OpenAI-compatible chat-completions endpoint, asking for a JSON-schema
 * response format.
 *
 * @param {{ apiKey: string, model: string, baseUrl?: string, fetch?: typeof fetch }} options
 * @example
 * const llm = openAiLlm({ apiKey: process.env.OPENAI_API_KEY, model: "gpt-4.1-mini" });
 */
export function openAiLlm(options) {
  return readArgs("openAiLlm", () => openAiFrom(options ?? {}));
}

function openAiFrom({ apiKey, model, baseUrl = "https://api.openai.com/v1", fetch: doFetch = globalThis.fetch }) {
  if (!apiKey || typeof apiKey !== "string") throw new MemdirError("INVALID_INPUT", "openAiLlm needs an apiKey (a string)");
  if (!model || typeof model !== "string") throw new MemdirError("INVALID_INPUT", "openAiLlm needs a model (a string)");
  if (typeof baseUrl !== "string" || baseUrl === "") throw new MemdirError("INVALID_INPUT", "openAiLlm: baseUrl must be a non-empty string");
  if (typeof doFetch !== "function") throw new MemdirError("INVALID_INPUT", "openAiLlm needs a fetch function");
  return async (request) => {
    const headers = { "content-type": "application/json", authorization: `Bearer ${apiKey}` };
    const body = {
      model,
      max_tokens: request.maxTokens,
      messages: [{ role: "system", content: request.system }, ...request.messages],
    };
    if (request.responseSchema) {
      body.response_format = {
        type: "json_schema",
        json_schema: { name: `memdir_${request.purpose}`, schema: request.responseSchema, strict: true },
      };
    }
    const reply = await post(`${baseUrl.replace(/\/$/, "")}/chat/completions`, headers, body, request.signal, doFetch);
    const text = reply?.choices?.[0]?.message?.content;
    if (typeof text !== "string") throw new MemdirError("HOST_LLM", "the reply has no message content");
    return text;
  };
}

// Embedding adapters over fetch: the host supplies vectors, memdir never bundles a model.
import { MemdirError, readArgs } from "./errors.js";
import { post } from "./llm.js";

// The code of an endpoint that answered, but with something that is not a usable set of
// vectors (not JSON, wrong count, non-numbers, dimensions that disagree). HTTP statuses are
// `HTTP`, a fired signal is `ABORTED`, bad options are `INVALID_INPUT`.
const BAD_REPLY = "HOST_LLM";

/** How many texts one request carries by default (OpenAI accepts up to 2,048; local servers
 * are happier with fewer). */
const DEFAULT_BATCH = 96;

function bad(message) {
  return new MemdirError(BAD_REPLY, `the embeddings endpoint ${message}`);
}

// The vectors of one reply, in input order, checked: one per input, each index once, every
// value a finite number, every vector `dims` long (when known).
function vectorsOf(reply, count, dims) {
  const data = reply?.data;
  if (!Array.isArray(data)) throw bad("answered without a `data` array");
  if (data.length !== count) throw bad(`answered ${data.length} embeddings for ${count} texts`);
  const out = new Array(count);
  for (const [position, item] of data.entries()) {
    const index = item?.index ?? position;
    if (!Number.isInteger(index) || index < 0 || index >= count) throw bad(`answered an embedding with index ${JSON.stringify(index)}`);
    if (out[index] !== undefined) throw bad(`answered index ${index} twice`);
    const values = item?.embedding;
    if (!Array.isArray(values) || values.length === 0) throw bad(`answered no vector for index ${index}`);
    if (dims.length === undefined) dims.length = values.length;
    if (values.length !== dims.length) {
      throw bad(`answered vectors of ${dims.length} and ${values.length} dimensions`);
    }
    const vector = new Float32Array(values.length);
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v !== "number" || !Number.isFinite(v)) throw bad(`answered a non-number (${typeof v === "number" ? v : JSON.stringify(v)}) in vector ${index}`);
      vector[i] = v;
    }
    out[index] = vector;
  }
  return out;
}

/**
 * An `EmbedCallback` over any OpenAI-compatible `/embeddings` endpoint: OpenAI, Ollama
 * (`http://localhost:11434/v1`), LM Studio (`http://localhost:1234/v1`), vLLM. Texts are sent
 * in batches of `batchSize` (default 96); the vectors come back as `Float32Array`s in input
 * order. The returned function's `model` property names the model (with `@<dimensions>` when
 * `dimensions` is given), which memdir uses to key its stored vectors.
 *
 * Errors are `MemdirError`s: `HTTP` (with `status`) when the endpoint answers an error status or
 * cannot be reached, `ABORTED` when the signal fires, `HOST_LLM` when the reply is not a usable
 * set of vectors (not JSON, wrong count, non-numbers, inconsistent dimensions), `INVALID_INPUT`
 * for bad options.
 *
 * @param {{ apiKey?: string, model?: string, baseUrl?: string, fetch?: typeof fetch, dimensions?: number, headers?: Record<string, string>, batchSize?: number }} options
 * @example
 * const embed = openAiEmbed({ apiKey: process.env.OPENAI_API_KEY });
 * const local = openAiEmbed({ baseUrl: "http://localhost:11434/v1", model: "nomic-embed-text" });
 * const memdir = new Memdir({ fs, dir, embed });
 */
export function openAiEmbed(options) {
  return readArgs("openAiEmbed", () => openAiEmbedFrom(options ?? {}));
}

function openAiEmbedFrom({
  apiKey,
  model = "text-embedding-3-small",
  baseUrl = "https://api.openai.com/v1",
  fetch: doFetch = globalThis.fetch,
  dimensions,
  headers: extraHeaders,
  batchSize = DEFAULT_BATCH,
}) {
  if (typeof model !== "string" || model === "") throw new MemdirError("INVALID_INPUT", "openAiEmbed needs a model name");
  if (apiKey != null && typeof apiKey !== "string") throw new MemdirError("INVALID_INPUT", "openAiEmbed: apiKey must be a string");
  if (extraHeaders != null && typeof extraHeaders !== "object") throw new MemdirError("INVALID_INPUT", "openAiEmbed: headers must be an object of strings");
  if (typeof baseUrl !== "string" || baseUrl === "") throw new MemdirError("INVALID_INPUT", "openAiEmbed needs a baseUrl");
  if (typeof doFetch !== "function") throw new MemdirError("INVALID_INPUT", "openAiEmbed needs a fetch function");
  if (dimensions !== undefined && !(Number.isInteger(dimensions) && dimensions > 0)) {
    throw new MemdirError("INVALID_INPUT", "openAiEmbed: dimensions must be a positive integer");
  }
  if (!(Number.isInteger(batchSize) && batchSize > 0)) {
    throw new MemdirError("INVALID_INPUT", "openAiEmbed: batchSize must be a positive integer");
  }
  const url = `${baseUrl.replace(/\/+$/, "")}/embeddings`;
  const headers = { "content-type": "application/json", ...extraHeaders };
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;

  const embed = async (texts, { signal } = {}) => {
    if (!Array.isArray(texts) || texts.some((t) => typeof t !== "string")) {
      throw new MemdirError("INVALID_INPUT", "embed takes an array of strings");
    }
    const dims = { length: dimensions };
    const vectors = [];
    for (let start = 0; start < texts.length; start += batchSize) {
      if (signal?.aborted) throw new MemdirError("ABORTED", "the embeddings request was aborted", { cause: signal.reason });
      const input = texts.slice(start, start + batchSize);
      const body = { model, input };
      if (dimensions !== undefined) body.dimensions = dimensions;
      let reply;
      try {
        reply = await post(url, headers, body, signal, doFetch);
      } catch (cause) {
        if (cause instanceof MemdirError) throw cause;
        // The body stopped arriving part-way (aborted or cut off).
        if (signal?.aborted) throw new MemdirError("ABORTED", "the embeddings request was aborted", { cause });
        throw new MemdirError("HTTP", `the embeddings request failed: ${cause?.message ?? cause}`, { cause });
      }
      vectors.push(...vectorsOf(reply, input.length, dims));
    }
    return vectors;
  };
  embed.model = dimensions === undefined ? model : `${model}@${dimensions}`;
  return embed;
}

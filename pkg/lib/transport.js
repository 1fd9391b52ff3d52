// A team-sync Transport over fetch.
import { TextDecoder } from "./text.js";

/**
 * Largest response body `fetchTransport` reads, in bytes: the same cap as the core's
 * `MAX_RESPONSE_BYTES` (16 MiB), past which a pull refuses the answer without parsing it.
 */
const MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

/**
 * A `Transport` for `TeamSync` over `fetch`: sends the request as given and answers
 * `{ status, headers, body }`. A network failure rejects (the sync reports it and retries).
 *
 * The body is read up to 16 MiB and no further: with a larger `Content-Length` it is not read
 * at all, and a stream that runs past the cap is cancelled there. Either way the sync refuses
 * the answer as over its cap (an `HTTP` error), without the whole body ever being held.
 *
 * @param {typeof fetch} [doFetch]
 * @example
 * const sync = new TeamSync({ fs, dir, baseUrl, repo: "acme/app", transport: fetchTransport() });
 */
export function fetchTransport(doFetch = globalThis.fetch) {
  return async ({ method, url, headers, body }) => {
    const response = await doFetch(url, { method, headers, body });
    const out = {};
    response.headers.forEach((value, key) => {
      out[key] = value;
    });
    return { status: response.status, headers: out, body: await readCapped(response, MAX_RESPONSE_BYTES) };
  };
}

/**
 * The body as text, read no further than `cap` bytes. Past the cap the text returned is longer
 * than `cap` UTF-8 bytes (what was read, the last chunk whole), which the core refuses; with a
 * `Content-Length` over the cap, the body is not read (the header says why it is refused).
 */
async function readCapped(response, cap) {
  const declared = Number(response.headers.get("content-length") ?? 0);
  if (declared > cap) {
    await response.body?.cancel().catch(() => {});
    return "";
  }
  if (!response.body) return response.text();
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    bytes += value.byteLength;
    text += decoder.decode(value, { stream: bytes <= cap });
    if (bytes > cap) {
      await reader.cancel().catch(() => {});
      return text;
    }
  }
}

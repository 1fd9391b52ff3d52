// The public API shared by the Node and browser entries: the WebAssembly exports plus the
// JS-side adapters.
export * from "../dist/memdir.js";
export { MemdirError, isMemdirError } from "./errors.js";
export { memoryFs } from "./memory-fs.js";
export { opfsFs } from "./opfs-fs.js";
export { anthropicLlm, openAiLlm } from "./llm.js";
export { fetchTransport } from "./transport.js";

// Two functions the core runs on text that JS already holds. Copying a string into wasm costs
// more than these functions take to run, so only the part the core reads crosses the boundary;
// every decision is still made in Rust (`entrypoint::truncate_counted`, `frontmatter::head_for_js`).
import {
  __parseFrontmatter,
  __parseFrontmatterProbe,
  __truncateEntrypointCounted,
  entrypointCaps,
} from "../dist/memdir.js";

/** The core's default caps (`maxUnits` is the one read here), fetched on first use: in a
 * browser the module is not instantiated yet when this file is evaluated. */
let defaultCaps;
/** How much of a file `parseFrontmatter` offers first, in UTF-8 bytes: a typical header (name,
 * a one-line description, type) fits; a longer one costs a second call with the whole text. */
const HEAD_PROBE_BYTES = 512;
const utf8 = new TextEncoder();
const probeBytes = new Uint8Array(HEAD_PROBE_BYTES);

/**
 * Apply MEMORY.md's caps exactly as the reference does: 200 lines, then 25,000 UTF-16 units cut
 * at the last newline, with a warning naming why. `byteCount` is in UTF-16 units.
 *
 * @example
 * const { content, wasLineTruncated } = truncateEntrypoint(indexText);
 * const custom = truncateEntrypoint(indexText, { maxLines: 50, maxUnits: 8000 });
 */
export function truncateEntrypoint(raw, options) {
  if (typeof raw !== "string") return __truncateEntrypointCounted(raw, 0, 0, options);
  const trimmed = raw.trim();
  let lines = 1;
  for (let at = trimmed.indexOf("\n"); at !== -1; at = trimmed.indexOf("\n", at + 1)) lines++;
  // Nothing past `maxUnits + 1` units can be kept (an invalid value is refused by the core).
  const maxUnits = options?.maxUnits;
  const reads = (typeof maxUnits === "number" && maxUnits >= 0 ? maxUnits : (defaultCaps ??= entrypointCaps()).maxUnits) + 1;
  const prefix = trimmed.length > reads ? trimmed.slice(0, reads) : trimmed;
  return __truncateEntrypointCounted(prefix, lines, trimmed.length, options);
}

/**
 * Parse a memory file's frontmatter. Never throws for a string: problems are listed in
 * `diagnostics` (a non-string is a `MemdirError` with code `INVALID_INPUT`).
 *
 * @example
 * const { header, body } = parseFrontmatter("---\nname: Role\ntype: user\n---\nSenior Go dev");
 * header.type; // "user"
 */
export function parseFrontmatter(text) {
  if (typeof text !== "string") return __parseFrontmatter(text);
  // The start of the text as UTF-8 bytes (whole characters; `read` counts UTF-16 units):
  // copying bytes in is cheaper than passing a JS string, which the glue copies char by char.
  // The core decodes its own answer (src/wasm/frontmatter.rs).
  const { read, written } = utf8.encodeInto(text, probeBytes);
  return __parseFrontmatterProbe(text, probeBytes, written, read === text.length) ?? __parseFrontmatter(text);
}

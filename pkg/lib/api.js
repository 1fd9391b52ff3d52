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
  __parseFrontmatterHead,
  __parseFrontmatterHeadBytes,
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

/** The result from the core's offsets (`HeadForJs::Slices` in src/frontmatter/js_json.rs). */
function sliced(text, offsets) {
  const frontmatter = {};
  for (let i = 2; i < offsets.length; i += 4) {
    frontmatter[text.slice(offsets[i], offsets[i + 1])] = text.slice(offsets[i + 2], offsets[i + 3]);
  }
  const fields = offsets[1];
  const header = {};
  if (fields & 1) header.name = frontmatter.name;
  if (fields & 2) header.description = frontmatter.description;
  if (fields & 4) header.type = frontmatter.type;
  return { frontmatter, body: text.slice(offsets[0]), header, diagnostics: [] };
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
  let head;
  if (typeof text === "string") {
    // The start of the text as UTF-8 bytes (whole characters; `read` counts UTF-16 units):
    // copying bytes in is cheaper than passing a JS string, which the glue copies char by char.
    const { read, written } = utf8.encodeInto(text, probeBytes);
    head = __parseFrontmatterHeadBytes(probeBytes, written, read === text.length);
  }
  head ??= __parseFrontmatterHead(text, true);
  if (head instanceof Uint32Array) return sliced(text, head);
  const parsed = typeof head === "string" ? JSON.parse(head) : head;
  parsed.body = text.slice(parsed.body);
  const { header } = parsed;
  if (Array.isArray(header)) {
    // A plain header: the core named the frontmatter keys whose values the fields are.
    const fields = {};
    for (const key of header) fields[key] = parsed.frontmatter[key];
    parsed.header = fields;
  }
  return parsed;
}

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
// every decision is still made in Rust (`truncate_counted`, `parse_frontmatter_head`).
import { __parseFrontmatterHead, __parseFrontmatterHeadBytes, __truncateEntrypointCounted } from "../dist/memdir.js";

/** The reference's cap on MEMORY.md in UTF-16 units (the default `maxUnits`). */
const DEFAULT_MAX_UNITS = 25000;
/** How much of a file `parseFrontmatter` offers first: a typical header (name, a one-line
 * description, type) fits; a longer one costs a second call with the whole text. */
const HEAD_PROBE_UNITS = 256;
const utf8 = new TextEncoder();
/** Room for the probe in UTF-8: at most three bytes a UTF-16 unit. */
const probeBytes = new Uint8Array(3 * HEAD_PROBE_UNITS);

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
  const reads = (typeof maxUnits === "number" && maxUnits >= 0 ? maxUnits : DEFAULT_MAX_UNITS) + 1;
  const prefix = trimmed.length > reads ? trimmed.slice(0, reads) : trimmed;
  return __truncateEntrypointCounted(prefix, lines, trimmed.length, options);
}

/**
 * Parse a memory file's frontmatter. Never throws: problems are listed in `diagnostics`.
 *
 * @example
 * const { header, body } = parseFrontmatter("---\nname: Role\ntype: user\n---\nSenior Go dev");
 * header.type; // "user"
 */
export function parseFrontmatter(text) {
  let head;
  if (typeof text === "string" && text.length > HEAD_PROBE_UNITS) {
    // As UTF-8 bytes: wasm-bindgen copies a sliced string into wasm char by char, and slowly.
    const { written } = utf8.encodeInto(text.slice(0, HEAD_PROBE_UNITS), probeBytes);
    head = __parseFrontmatterHeadBytes(probeBytes.subarray(0, written), false);
  }
  head ??= __parseFrontmatterHead(text, true);
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

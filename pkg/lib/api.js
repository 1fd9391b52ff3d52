// The public API shared by the Node and browser entries: the WebAssembly exports plus the
// JS-side adapters.
export * from "../dist/public.js";
export { MemdirError, isMemdirError } from "./errors.js";
import { Extractor, Memdir, RecallSession, TeamSync } from "../dist/memdir.js";
import { MemdirError, describe, isMemdirError } from "./errors.js";
import { TextEncoder } from "./text.js";
export { memoryFs } from "./memory-fs.js";
export { opfsFs } from "./opfs-fs.js";
export { anthropicLlm, openAiLlm } from "./llm.js";
export { fetchTransport } from "./transport.js";
export { memoryTools, anthropicMemoryHandlers, aiSdkTools } from "./tools.js";
export { gitTransport, gitOpfsFs } from "./git-sync.js";
import { gitSync } from "./git-sync.js";

// Two functions the core runs on text that JS already holds. Copying a string into wasm costs
// more than these functions take to run, so only the part the core reads crosses the boundary;
// every decision is still made in Rust (`entrypoint::truncate_counted_cut`, `frontmatter::head_for_js`).
import {
  __parseFrontmatter,
  __parseFrontmatterProbe,
  __truncateEntrypointCut,
  __entrypointWithinCaps,
  __formatManifestPacked,
  entrypointCaps,
  formatManifest as formatManifestFields,
} from "../dist/memdir.js";

/** The core's default caps (`maxUnits` is the one read here), fetched on first use: in a
 * browser the module is not instantiated yet when this file is evaluated. */
let defaultCaps;
/** How much of a file `parseFrontmatter` offers first, in UTF-8 bytes: a typical header (name,
 * a one-line description, type) fits; a longer one costs a second call with the whole text. */
const HEAD_PROBE_BYTES = 512;
const utf8 = new TextEncoder();
const probeBytes = new Uint8Array(HEAD_PROBE_BYTES);
/** No unpaired UTF-16 surrogate (`isWellFormed`, ES2024, or the same test where it is missing). */
const wellFormed = typeof "".isWellFormed === "function" ? (s) => s.isWellFormed() : (s) => !/\p{Cs}/u.test(s);

/**
 * Apply MEMORY.md's caps exactly as the reference does: 200 lines, then 25,000 UTF-16 units cut
 * at the last newline, with a warning naming why. `byteCount` is in UTF-16 units.
 *
 * @example
 * const { content, wasLineTruncated } = truncateEntrypoint(indexText);
 * const custom = truncateEntrypoint(indexText, { maxLines: 50, maxUnits: 8000 });
 */
export function truncateEntrypoint(raw, options) {
  if (typeof raw !== "string") return __truncateEntrypointCut(raw, 0, 0, options); // throws INVALID_INPUT
  const trimmed = raw.trim();
  let lines = 1;
  for (let at = trimmed.indexOf("\n"); at !== -1; at = trimmed.indexOf("\n", at + 1)) lines++;
  // Under the default caps, an index the core says fits comes back as it is: nothing crosses.
  if (options === undefined && __entrypointWithinCaps(lines, trimmed.length)) {
    return { content: trimmed, lineCount: lines, byteCount: trimmed.length, wasLineTruncated: false, wasByteTruncated: false };
  }
  // Nothing past `maxUnits + 1` units can be kept (an invalid value is refused by the core).
  const maxUnits = options?.maxUnits;
  const reads = (typeof maxUnits === "number" && maxUnits >= 0 ? maxUnits : (defaultCaps ??= entrypointCaps()).maxUnits) + 1;
  const prefix = trimmed.length > reads ? trimmed.slice(0, reads) : trimmed;
  // The core answers with how much of `trimmed` is kept and what follows it: the text JS
  // holds is sliced here rather than copied back out of wasm.
  const { keepUnits, suffix, ...counts } = __truncateEntrypointCut(prefix, lines, trimmed.length, options);
  return { content: keepUnits >= trimmed.length ? trimmed + suffix : trimmed.slice(0, keepUnits) + suffix, ...counts };
}

/**
 * The manifest the recall model reads: one line per memory, as the reference writes it.
 *
 * @example
 * formatManifest([{ filename: "user_role.md", mtimeMs: 1700000000123.9, type: "user", description: "Senior Go dev" }]);
 * // "- [user] user_role.md (2023-11-14T22:13:20.123Z): Senior Go dev"
 */
export function formatManifest(headers) {
  // Plain headers cross as numbers (the time and the texts' lengths) and one string of their
  // types; the core answers with the manifest holding a NUL for each filename and description
  // (`manifest::format_packed`), which are filled in here from the strings the caller passed.
  // Anything else, or anything the core declines, goes field by field for the exact error.
  const packed = packHeaders(headers);
  const skeleton = packed === null ? undefined : __formatManifestPacked(packed.numbers, packed.types);
  if (skeleton === undefined) return formatManifestFields(headers);
  const texts = packed.texts;
  const pieces = skeleton.split("\0");
  if (pieces.length !== texts.length + 1) return formatManifestFields(headers); // never: one mark per text
  const parts = new Array(2 * pieces.length - 1);
  parts[0] = pieces[0];
  for (let k = 0; k < texts.length; k++) {
    parts[2 * k + 1] = texts[k];
    parts[2 * k + 2] = pieces[k + 1];
  }
  return parts.join("");
}

const isAbsent = (v) => v === undefined || v === null;
/** Numbers per header in `__formatManifestPacked`'s input (`manifest::PACKED_FIELDS`). */
const PACKED_FIELDS = 5;

function packHeaders(headers) {
  if (!Array.isArray(headers)) return null;
  const n = headers.length;
  // A fresh array each call: a getter on a header may call formatManifest itself.
  const numbers = new Float64Array(n * PACKED_FIELDS);
  const texts = new Array(2 * n);
  let types = "";
  for (let i = 0, at = 0; i < n; i++, at += PACKED_FIELDS) {
    const h = headers[i];
    if (h === null || typeof h !== "object" || Array.isArray(h)) return null;
    const { filename, mtimeMs, type, description, filePath } = h;
    if (typeof filename !== "string" || typeof mtimeMs !== "number") return null;
    if (!isAbsent(type) && typeof type !== "string") return null;
    if (!isAbsent(description) && typeof description !== "string") return null;
    if (!isAbsent(filePath) && typeof filePath !== "string") return null;
    const d = description ?? "", p = filePath ?? "";
    // A lone surrogate is refused field by field (`UNPAIRED_SURROGATE`).
    if (!wellFormed(filename) || !wellFormed(d) || !wellFormed(p)) return null;
    numbers[at] = mtimeMs;
    numbers[at + 1] = filename.length;
    numbers[at + 3] = d.length;
    numbers[at + 4] = p.length;
    if (isAbsent(type)) numbers[at + 2] = -1;
    else {
      numbers[at + 2] = type.length;
      types += type;
    }
    texts[2 * i] = filename;
    texts[2 * i + 1] = d;
  }
  return { numbers, types, texts };
}

/**
 * Parse a memory file's frontmatter. Never throws for a string: problems are listed in
 * `diagnostics` (a non-string is a `MemdirError` with code `INVALID_INPUT`). Unpaired UTF-16
 * surrogates come back exactly; the one refusal (`UNPAIRED_SURROGATE`) is a text holding both
 * one and a private-use character U+E000–U+E7FF.
 *
 * @example
 * const { header, body } = parseFrontmatter("---\nname: Role\ntype: user\n---\nSenior Go dev");
 * header.type; // "user"
 */
export function parseFrontmatter(text) {
  // A non-string is refused by the core; a text with a lone surrogate goes whole to the core,
  // which keeps it exactly (UTF-8 bytes cannot hold one).
  if (typeof text !== "string" || !wellFormed(text)) return __parseFrontmatter(text);
  // The start of the text as UTF-8 bytes (whole characters; `read` counts UTF-16 units):
  // copying bytes in is cheaper than passing a JS string, which the glue copies char by char.
  // The core decodes its own answer (src/wasm/frontmatter.rs).
  const { read, written } = utf8.encodeInto(text, probeBytes);
  return __parseFrontmatterProbe(text, probeBytes, written, read === text.length) ?? __parseFrontmatter(text);
}

// Every method of the exported classes throws or rejects only `MemdirError`s. The core already
// reports bad input that way; what is left is what the generated glue raises before the core
// runs (a receiver that is not an instance, `Extractor.run` given something other than a
// `Memdir`, a Proxy whose traps throw) and a WebAssembly trap in a synchronous call. Those
// become `INVALID_INPUT` and `INSTANCE_LOST`, the original kept as `cause`.

/** The trap that ended the instance, once one has been seen. */
let lostBy = null;

function instanceLost(cause) {
  lostBy ??= cause;
  return new MemdirError(
    "INSTANCE_LOST",
    `the WebAssembly instance trapped (${describe(lostBy)}) and cannot be used again; load the module again`,
    { cause: lostBy },
  );
}

/** `error` as a `MemdirError` raised by `what`. */
function typed(what, error) {
  if (isMemdirError(error)) {
    if (error.code === "INSTANCE_LOST") lostBy ??= error.cause ?? error;
    return error;
  }
  if (error instanceof WebAssembly.RuntimeError) return instanceLost(error);
  return new MemdirError("INVALID_INPUT", `${what}: ${describe(error)}`, { cause: error });
}

function guarded(what, original) {
  return function (...args) {
    if (lostBy !== null) throw instanceLost(lostBy);
    let result;
    try {
      result = original.apply(this, args);
    } catch (error) {
      throw typed(what, error);
    }
    return result instanceof Promise
      ? result.then(undefined, (error) => {
          throw typed(what, error);
        })
      : result;
  };
}

function guardClass(cls, name) {
  const proto = cls.prototype;
  for (const key of Object.getOwnPropertyNames(proto)) {
    if (key === "constructor" || key === "free") continue;
    const d = Object.getOwnPropertyDescriptor(proto, key);
    const what = `${name}.${key}`;
    if (typeof d.value === "function") {
      Object.defineProperty(proto, key, { ...d, value: guarded(what, d.value) });
    } else if (typeof d.get === "function") {
      Object.defineProperty(proto, key, { ...d, get: guarded(what, d.get) });
    }
  }
}

// `teamSync({ git })`: the same sync over a git remote (lib/git-sync.js; isomorphic-git is
// loaded by a dynamic import on the first request, never by this module).
const teamSyncCore = Memdir.prototype.teamSync;
Object.defineProperty(Memdir.prototype, "teamSync", {
  configurable: true,
  writable: true,
  value: function teamSync(options) {
    if (options === null || typeof options !== "object" || options.git == null) return teamSyncCore.call(this, options);
    return gitSync(this.dir, options, (given) => teamSyncCore.call(this, given));
  },
});

guardClass(Memdir, "Memdir");
guardClass(Extractor, "Extractor");
guardClass(TeamSync, "TeamSync");
guardClass(RecallSession, "RecallSession");

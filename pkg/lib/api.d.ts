import type {
  EntrypointTruncation,
  LlmCallback,
  MemdirErrorCode,
  MemoryFs,
  ParsedFrontmatter,
  TruncateOptions,
} from "../dist/memdir.js";

/**
 * Apply MEMORY.md's caps exactly as the reference does: 200 lines, then 25,000 UTF-16 units cut
 * at the last newline, with a warning naming why. `byteCount` is in UTF-16 units.
 *
 * @example
 * const { content, wasLineTruncated } = truncateEntrypoint(indexText);
 * const custom = truncateEntrypoint(indexText, { maxLines: 50, maxUnits: 8000 });
 */
export function truncateEntrypoint(raw: string, options?: TruncateOptions): EntrypointTruncation;

/**
 * Parse a memory file's frontmatter. Never throws for a string: problems are listed in
 * `diagnostics` (a non-string is a `MemdirError` with code `INVALID_INPUT`).
 *
 * @example
 * const { header, body } = parseFrontmatter("---\nname: Role\ntype: user\n---\nSenior Go dev");
 * header.type; // "user"
 */
export function parseFrontmatter(text: string): ParsedFrontmatter;

/** A memdir failure: a real `Error` with a stable `code`, the host's error as `cause`, and `status` for HTTP failures. */
export class MemdirError extends Error {
  constructor(code: MemdirErrorCode, message: string, options?: { cause?: unknown; status?: number });
  readonly name: "MemdirError";
  /** Stable machine-readable code, e.g. `"NOT_FOUND"`, `"PATH_ESCAPES"`, `"HTTP"`. */
  readonly code: MemdirErrorCode;
  /** HTTP status, for `code === "HTTP"`. */
  readonly status?: number;
}

/** True for errors raised by memdir, from JS or from the WebAssembly core. */
export function isMemdirError(value: unknown): value is MemdirError;

/** An in-memory `MemoryFs` with every optional capability. `files` maps absolute paths to contents. */
export function memoryFs(files?: Record<string, string>): MemoryFs & { toJSON(): Record<string, string> };

/** A `MemoryFs` over the browser's Origin Private File System (default: the origin's root). */
export function opfsFs(root?: FileSystemDirectoryHandle): MemoryFs;

/** Options of the LLM adapters. */
export interface LlmAdapterOptions {
  apiKey: string;
  model?: string;
  baseUrl?: string;
  fetch?: typeof fetch;
}

/** An `LlmCallback` over the Anthropic Messages API. */
export function anthropicLlm(options: LlmAdapterOptions): LlmCallback;

/** An `LlmCallback` over an OpenAI-compatible chat-completions endpoint. */
export function openAiLlm(options: LlmAdapterOptions & { model: string }): LlmCallback;

/** A team-sync `Transport` over `fetch`. */
export function fetchTransport(doFetch?: typeof fetch): import("../dist/memdir.js").Transport;

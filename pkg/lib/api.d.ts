import type { LlmCallback, MemoryFs } from "../dist/memdir.js";

/** A memdir failure: a real `Error` with a stable `code`, the host's error as `cause`, and `status` for HTTP failures. */
export class MemdirError extends Error {
  constructor(code: string, message: string, options?: { cause?: unknown; status?: number });
  readonly name: "MemdirError";
  /** Stable machine-readable code, e.g. `"NOT_FOUND"`, `"PATH_ESCAPES"`, `"HTTP"`. */
  readonly code: string;
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

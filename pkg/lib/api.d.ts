import type {
  EntrypointTruncation,
  LlmCallback,
  MemdirErrorCode,
  MemoryFs,
  ParsedFrontmatter,
  TruncateOptions,
} from "../dist/memdir.js";
import type { AbortSignal, Fetch, FileSystemDirectoryHandle } from "./host-types.js";

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
 * `diagnostics` (a non-string is a `MemdirError` with code `INVALID_INPUT`). Unpaired UTF-16
 * surrogates come back exactly; the one refusal (`UNPAIRED_SURROGATE`) is a text holding both
 * one and a private-use character U+E000–U+E7FF.
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
  fetch?: Fetch;
}

/** An `LlmCallback` over the Anthropic Messages API. */
export function anthropicLlm(options: LlmAdapterOptions): LlmCallback;

/** An `LlmCallback` over an OpenAI-compatible chat-completions endpoint. */
export function openAiLlm(options: LlmAdapterOptions & { model: string }): LlmCallback;

/** A team-sync `Transport` over `fetch`. */
export function fetchTransport(doFetch?: Fetch): import("../dist/memdir.js").Transport;

export * from "./tools.js";

/**
 * The host's embedder (what `new Memdir({ fs, dir, embed, embedModel })` takes):
 * one vector per text, in order, all of one dimension. The signal fires when memdir stops
 * waiting; a slow, failing or inconsistent embedder makes recall fall back to the lexical
 * ranker. `model` names the model whose vectors these are (memdir keys its stored vectors by it;
 * the `embedModel` option wins, and `"default"` is used when neither is given).
 *
 * @example
 * const embed: EmbedCallback = async (texts, { signal }) => myModel.embed(texts, { signal });
 * embed.model = "my-model-v1";
 */
export type EmbedCallback = ((
  texts: string[],
  options: { signal: AbortSignal },
) => Promise<Float32Array[] | number[][]> | Float32Array[] | number[][]) & { model?: string };

/** Options of `openAiEmbed`. */
export interface OpenAiEmbedOptions {
  /** Sent as `Authorization: Bearer …`; omit for local servers that need none. */
  apiKey?: string;
  /** Default `"text-embedding-3-small"`. */
  model?: string;
  /** Default `"https://api.openai.com/v1"`; e.g. `"http://localhost:11434/v1"` for Ollama. */
  baseUrl?: string;
  fetch?: Fetch;
  /** Asks the endpoint for vectors of this size (models that support it). */
  dimensions?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** Texts per request (default 96). */
  batchSize?: number;
}

/**
 * An `EmbedCallback` over an OpenAI-compatible `/embeddings` endpoint (OpenAI, Ollama, LM Studio,
 * vLLM). Vectors come back as `Float32Array`s in input order; `.model` is the model name (with
 * `@<dimensions>` when `dimensions` is set). Errors: `HTTP` (with `status`), `ABORTED`,
 * `HOST_LLM` for an unusable reply (not JSON, wrong count, non-numbers, inconsistent dimensions),
 * `INVALID_INPUT` for bad options.
 *
 * @example
 * const embed = openAiEmbed({ baseUrl: "http://localhost:11434/v1", model: "nomic-embed-text" });
 * const [vector] = await embed(["hello"], { signal: AbortSignal.timeout(5000) });
 */
export function openAiEmbed(options?: OpenAiEmbedOptions): EmbedCallback & { model: string };

// ---- git sync (lib/git-sync.js) ----

import type { PullOutcome as GitPullOutcome, Scope as GitScope, Transport as GitHttpTransport, TeamSync } from "../dist/memdir.js";

/** Where and how `teamSync({ git })` reaches its git remote. */
export interface GitSyncOptions {
  /** The remote, e.g. `https://github.com/acme/team-memory.git` (smart HTTP). */
  url: string;
  /** The branch memory lives on; default `main` (created by the first push when absent). */
  branch?: string;
  /** Credentials: a token (sent as the HTTP basic password, user `x-access-token` unless given) or a user and password. */
  auth?: { token?: string; username?: string; password?: string };
  /** Who the commits are by; default `memdir <memdir@localhost>`. */
  author?: { name?: string; email?: string };
  /** Where the git data is kept; default `<dir>.git-sync/<scope>` (a bare repository in a hidden folder). */
  gitdir?: string;
  /** An fs with a `promises` API for the git data (default `node:fs` in Node; required in browsers). */
  fs?: unknown;
  /** isomorphic-git's HTTP client (default: its Node one in Node, its fetch one in browsers). */
  http?: unknown;
  /** The isomorphic-git module itself, for pages without a bundler (its UMD build's `git` global); default: `import("isomorphic-git")`. */
  module?: unknown;
  /** A CORS proxy, for browsers talking to a host that sends no CORS headers. */
  corsProxy?: string;
  /** Extra HTTP headers sent to the remote. */
  headers?: Record<string, string>;
}

/** Options of `memdir.teamSync({ git })`. */
export interface GitTeamSyncOptions {
  git: GitSyncOptions;
  /** `"team"` (default): `team/`; `"private"`: the memory directory without `team/`, for one person's machines. */
  scope?: GitScope;
  /** Timeout of one git request (a fetch or a push), in milliseconds; default 120,000. */
  timeoutMs?: number;
}

/**
 * A team-sync `Transport` whose server is a git remote: `GET` fetches the branch and answers its
 * tree as entries (symbolic links, submodules and blobs over 250,000 bytes refused, reported in
 * `lastPull`); `PUT` commits the entries on top of the `If-Match` commit and pushes (412 when the
 * remote moved). isomorphic-git is loaded on the first request.
 *
 * @example
 * const { transport } = gitTransport({ url, gitdir: dir + ".git-sync/team" });
 * const sync = new TeamSync({ fs, dir, baseUrl: url, repo: "main", transport, memoryFilesOnly: true });
 */
export function gitTransport(options: GitSyncOptions & { gitdir: string }): {
  transport: GitHttpTransport;
  /** What the last `GET` refused before the core saw it, and how many files it left out past the caps. */
  lastPull: { refused: GitPullOutcome["skipped"]; overCap: number };
  gitdir: string;
};

/**
 * An fs with the `promises` API isomorphic-git needs, over the browser's Origin Private File
 * System (under `root`): binary files and folders, no symbolic links.
 *
 * @example
 * const sync = memdir.teamSync({ git: { url, fs: gitOpfsFs(), module: git, http } });
 */
export function gitOpfsFs(root?: string): { promises: Record<string, (...args: any[]) => Promise<any>> };

declare module "../dist/memdir.js" {
  interface Memdir {
    /**
     * Team memory (or, with `scope: "private"`, this directory's private memory) synced through
     * a git remote: the same pulls, pushes, checks and watcher as the protocol sync.
     *
     * @example
     * const sync = memdir.teamSync({ git: { url: "https://github.com/acme/team-memory.git", auth: { token } } });
     * await sync.pull();
     * await sync.push();
     */
    teamSync(options: GitTeamSyncOptions): TeamSync;
  }
}

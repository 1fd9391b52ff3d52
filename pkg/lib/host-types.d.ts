// Host types the package's declarations mention, taken from the consumer's own environment when
// it has them (lib "DOM", "WebWorker", or @types/node) and reduced to the members memdir uses when
// it does not (lib ["ES2022"] alone), so the declarations type-check under any `lib` and
// `skipLibCheck: false`.

type Global = typeof globalThis;

/** The environment's `AbortSignal`, or the part memdir reads. */
export type AbortSignal = Global extends { AbortSignal: { prototype: infer S } }
  ? S
  : { readonly aborted: boolean; readonly reason?: unknown };

/** The environment's `fetch`, or a function of the same call shape. */
export type Fetch = Global extends { fetch: infer F }
  ? F
  : (input: string, init?: { method?: string; headers?: Record<string, string>; body?: string; signal?: AbortSignal }) => Promise<unknown>;

/** The environment's `FileSystemDirectoryHandle` (the browser's origin-private file system). */
export type FileSystemDirectoryHandle = Global extends { FileSystemDirectoryHandle: { prototype: infer H } } ? H : object;

/** A compiled WebAssembly module, where the environment declares `WebAssembly`. */
export type WasmModule = Global extends { WebAssembly: { Module: { prototype: infer M } } } ? M : never;

/** A `URL`, where the environment declares one. */
export type Url = Global extends { URL: { prototype: infer U } } ? U : never;

/** A `Response`, where the environment declares one. */
export type FetchResponse = Global extends { Response: { prototype: infer R } } ? R : never;

/**
 * What `init()` loads the WebAssembly module from: its bytes, a URL or path to it (fetched in
 * browsers, read from disk in Node for `file:` URLs and paths), a `Response` (or a promise of
 * one), or an already compiled `WebAssembly.Module`.
 */
export type WasmSource =
  | ArrayBuffer
  | ArrayBufferView
  | Url
  | string
  | WasmModule
  | FetchResponse
  | PromiseLike<FetchResponse | ArrayBuffer | ArrayBufferView>;

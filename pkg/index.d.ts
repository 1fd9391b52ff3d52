// The public types of memdir: the WebAssembly exports (generated from the Rust doc comments and
// the TypeScript section in src/wasm/ts.rs) and the JS-side adapters. Self-contained: they
// type-check under any `lib` (ES2022 alone, DOM, WebWorker, @types/node) with skipLibCheck off.
import type { WasmSource } from "./lib/host-types.js";

export * from "./dist/memdir.js";
export * from "./lib/api.js";
export type { WasmSource };

/**
 * Load the WebAssembly module. Required once in browsers (and with `memdir/inline`) before any
 * other call; a no-op in Node, where the module is ready at import. `source` overrides where the
 * module comes from: its bytes, a URL or path, a `Response` or a compiled `WebAssembly.Module`.
 *
 * @example
 * import { init, Memdir, memoryFs } from "memdir";
 * await init();
 * const memdir = new Memdir({ fs: memoryFs(), dir: "/mem/" });
 */
export function init(source?: WasmSource): Promise<void>;

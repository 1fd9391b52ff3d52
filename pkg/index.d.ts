// The public types of memdir: the WebAssembly exports (generated from the Rust doc comments and
// the TypeScript section in src/wasm/ts.rs) and the JS-side adapters.
export * from "./dist/memdir.js";
export * from "./lib/api.js";

/**
 * Load the WebAssembly module. Required once in browsers before any other call; a no-op in
 * Node, where the module is ready at import.
 */
export function init(input?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module): Promise<void>;

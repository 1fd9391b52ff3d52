// Browser (and bundler) entry: call `await init()` once before using the library. The module is
// fetched from beside this file (bundlers that understand `new URL(…, import.meta.url)` — Vite,
// webpack 5, Parcel, Rollup with its URL plugin — copy it into the build); elsewhere pass it to
// `init()` or use `memdir/inline`, which carries it.
import initWasm from "./dist/memdir.js";
import { loadOnce, notBeside, prepare } from "./lib/load.js";

export * from "./lib/api.js";
export { openAiEmbed } from "./lib/embed.js";

const load = loadOnce((source) => initWasm({ module_or_path: prepare(source ?? besideThis()) }));

/**
 * Load and instantiate the WebAssembly module. Call once before anything else; later calls
 * return the same Promise. `source` may be the module's URL (fetched; read from disk under Node),
 * a `Response`, its bytes or a compiled `WebAssembly.Module`; by default the `memdir_bg.wasm`
 * beside this file (the package subpath `memdir/memdir_bg.wasm`).
 *
 * @example
 * import { init, truncateEntrypoint } from "memdir";
 * await init();
 * truncateEntrypoint("- [Role](user_role.md) — Senior Go dev");
 */
export function init(source) {
  return load(source);
}

/** The .wasm beside this file (bundlers rewrite this expression to the copied asset's URL). */
function besideThis() {
  try {
    return new URL("./dist/memdir_bg.wasm", import.meta.url);
  } catch (cause) {
    throw notBeside(cause); // a CommonJS bundle: no import.meta.url
  }
}

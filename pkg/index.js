// Browser (and bundler) entry: call `await init()` once before using the library.
import initWasm from "./dist/memdir.js";

export * from "./lib/api.js";
export { openAiEmbed } from "./lib/embed.js";

let ready;

/**
 * Load and instantiate the WebAssembly module. Call once before anything else; later calls
 * return the same Promise. `input` may be a URL, a Response, bytes or a compiled module.
 *
 * @example
 * import { init, truncateEntrypoint } from "memdir";
 * await init();
 * truncateEntrypoint("- [Role](user_role.md) — Senior Go dev");
 */
export function init(input) {
  ready ??= initWasm({ module_or_path: input ?? new URL("./dist/memdir_bg.wasm", import.meta.url) });
  return ready.then(() => undefined);
}

// Node entry: the module is read from beside this file and instantiated at import, so no set-up
// call is needed; `init()` exists so the same code runs in browsers. In a single-file bundle the
// .wasm is not beside the code: then the import succeeds and `init(source)` (the .wasm's bytes,
// path, URL or compiled module) loads it — or import `memdir/inline`, which carries it.
import * as fs from "node:fs";
import * as url from "node:url";
import initWasm, { initSync } from "./dist/memdir.js";
import { loadOnce, notBeside, prepare, readLocal } from "./lib/load.js";

export * from "./lib/api.js";
export { openAiEmbed } from "./lib/embed.js";

const node = { fs, url };
let loaded = false;
try {
  initSync({ module: fs.readFileSync(new URL("./dist/memdir_bg.wasm", import.meta.url)) });
  loaded = true;
} catch {
  // Bundled without the .wasm beside it: `init(source)` must be called.
}
const load = loadOnce((source) => {
  if (source !== undefined) return initWasm({ module_or_path: prepare(source, node) });
  let bytes;
  try {
    bytes = readLocal(new URL("./dist/memdir_bg.wasm", import.meta.url), node);
  } catch (cause) {
    throw notBeside(cause);
  }
  return initWasm({ module_or_path: bytes });
}, loaded);

/**
 * Ready at import in Node (a no-op then); in a bundle without the .wasm beside it, loads the
 * module from `source`: its bytes, a path or `file:` URL, a `Response` or a `WebAssembly.Module`.
 *
 * @example
 * import { init } from "memdir";
 * await init(); // nothing to do in Node
 */
export function init(source) {
  return load(source);
}

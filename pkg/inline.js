// `memdir/inline`: the same API with the WebAssembly module inside the JavaScript (base64), for
// toolchains that cannot ship a separate file — CommonJS bundles, classic workers (the VS Code
// web-extension templates), single-file CLIs. Costs a third more bytes than the .wasm (before
// compression; see the README's delivery forms). Call `await init()` once.
import initWasm from "./dist/memdir.js";
import { wasmBase64 } from "./dist/wasm-inline.js";
import { loadFailed, prepare } from "./lib/load.js";

export * from "./lib/api.js";
export { openAiEmbed } from "./lib/embed.js";

let ready;

function decode(base64) {
  if (typeof atob === "function") {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  return Uint8Array.from(globalThis.Buffer.from(base64, "base64"));
}

/**
 * Instantiate the WebAssembly module carried by this entry (or `source`, as for `memdir`'s
 * `init`). Call once before anything else; later calls return the same Promise.
 *
 * @example
 * import { init, Memdir, memoryFs } from "memdir/inline";
 * await init();
 * const memdir = new Memdir({ fs: memoryFs(), dir: "/mem/" });
 */
export function init(source) {
  ready ??= Promise.resolve()
    .then(() => initWasm({ module_or_path: source === undefined ? decode(wasmBase64) : prepare(source) }))
    .then(
      () => undefined,
      (error) => {
        ready = undefined;
        throw loadFailed(error, source !== undefined);
      },
    );
  return ready;
}

// `memdir/inline`: the same API with the WebAssembly module inside the JavaScript (base64), for
// toolchains that cannot ship a separate file — CommonJS bundles, classic workers (the VS Code
// web-extension templates), single-file CLIs. The module is gzipped inside (unpacked by
// DecompressionStream, or Node's zlib); see the README's delivery forms. Call `await init()` once.
import initWasm from "./dist/memdir.js";
import { wasmGzipBase64 } from "./dist/wasm-inline.js";
import { MemdirError } from "./lib/errors.js";
import { loadOnce, prepare } from "./lib/load.js";

export * from "./lib/api.js";
export { openAiEmbed } from "./lib/embed.js";

const load = loadOnce(async (source) => initWasm({ module_or_path: source === undefined ? await gunzip(fromBase64(wasmGzipBase64)) : prepare(source) }));

function fromBase64(base64) {
  if (typeof atob === "function") {
    const text = atob(base64);
    const bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    return bytes;
  }
  return Uint8Array.from(globalThis.Buffer.from(base64, "base64"));
}

/** Gunzip with the platform's DecompressionStream, else Node's zlib (test sandboxes lack the former). */
async function gunzip(bytes) {
  if (typeof DecompressionStream === "function") {
    const stream = new DecompressionStream("gzip");
    const writer = stream.writable.getWriter();
    writer.write(bytes).catch(() => {}); // the reader below sees any error
    writer.close().catch(() => {});
    const chunks = [];
    let length = 0;
    const reader = stream.readable.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      length += value.length;
    }
    const out = new Uint8Array(length);
    let at = 0;
    for (const chunk of chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
  const zlib = globalThis.process?.getBuiltinModule?.("node:zlib");
  if (zlib) return zlib.gunzipSync(bytes);
  throw new MemdirError("UNSUPPORTED", "init: memdir/inline needs DecompressionStream (browsers, Node 18+) or Node's zlib to unpack the module; pass init(<the .wasm's bytes or URL>) instead");
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
  return load(source);
}

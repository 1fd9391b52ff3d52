// What `init(source)` accepts, turned into something wasm-bindgen's loader takes.
import { MemdirError, describe, isMemdirError } from "./errors.js";

const tag = (value) => Object.prototype.toString.call(value).slice(8, -1);

/** Node's `fs` and `url` where the host is Node (also inside test environments and bundles). */
function nodeModules() {
  try {
    const get = globalThis.process?.getBuiltinModule;
    if (typeof get !== "function") return undefined;
    return { fs: get("node:fs"), url: get("node:url") };
  } catch {
    return undefined;
  }
}

/**
 * `file:` URLs and paths read from disk when the host is Node (`node`: its `fs` and `url`
 * modules; found through `process.getBuiltinModule` when not given); `undefined` otherwise.
 */
export function readLocal(source, node = nodeModules()) {
  if (!node) return undefined;
  const href = typeof source === "string" ? source : tag(source) === "URL" ? String(source.href) : undefined;
  if (href === undefined) return undefined;
  let path;
  if (href.startsWith("file:")) path = node.url.fileURLToPath(href);
  else if (!/^[a-z][a-z0-9+.-]*:/i.test(href) || /^[a-z]:[\\/]/i.test(href)) path = href; // a path
  else return undefined;
  try {
    return node.fs.readFileSync(path);
  } catch (cause) {
    throw new MemdirError("INVALID_INPUT", `init: cannot read the WebAssembly module at ${path} (${cause?.code ?? cause})`, { cause });
  }
}

/**
 * The error for an entry that cannot find the .wasm beside itself (a bundle that dropped
 * `import.meta.url`, or a single-file bundle without the .wasm).
 */
export function notBeside(cause, why = describe(cause)) {
  return new MemdirError(
    "UNSUPPORTED",
    `init: memdir_bg.wasm cannot be loaded from beside the code (${why}); import "memdir/inline" (the module inside the JavaScript) or pass init(<the .wasm's URL, path or bytes>)`,
    { cause },
  );
}

/**
 * A failed load as a `MemdirError` (a `MemdirError` passes through): `INVALID_INPUT` when the
 * caller gave the source, `UNSUPPORTED` when the entry's own default could not be loaded.
 */
export function loadFailed(error, given) {
  if (isMemdirError(error)) return error;
  const why = describe(error);
  return given
    ? new MemdirError("INVALID_INPUT", `init: the WebAssembly module could not be loaded from the source given (${why})`, { cause: error })
    : notBeside(error, why);
}

/** The same input, with `file:` URLs and paths read first where fetch cannot (Node). */
export function prepare(source, node) {
  if (source === null || source === undefined) {
    throw new MemdirError("INVALID_INPUT", "init: no WebAssembly module given");
  }
  return readLocal(source, node) ?? source;
}

/**
 * An entry's `init`: the first call runs `load(source)` (wasm-bindgen's loader, or a Promise of
 * it) and later calls return the same Promise, which settles to `undefined`; a failure is
 * rejected as `loadFailed` reports it and lets the next call try again. `loaded`: the module was
 * instantiated already, so calls resolve at once.
 */
export function loadOnce(load, loaded = false) {
  let ready = loaded ? Promise.resolve() : undefined;
  return (source) => {
    ready ??= Promise.resolve()
      .then(() => load(source))
      .then(
        () => undefined,
        (error) => {
          ready = undefined;
          throw loadFailed(error, source !== undefined);
        },
      );
    return ready;
  };
}

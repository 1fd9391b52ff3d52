// Small POSIX path helpers shared by the JS adapters.
import { MemdirError } from "./errors.js";

export function normalize(path) {
  const out = [];
  for (const seg of String(path).split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") out.pop();
    else out.push(seg);
  }
  return "/" + out.join("/");
}

export function parentOf(path) {
  const i = path.lastIndexOf("/");
  return i <= 0 ? "/" : path.slice(0, i);
}

/** A Node-style filesystem error with a `code`, as MemoryFs implementations throw. */
export function hostError(code, path) {
  const err = new Error(`${code}: ${path}`);
  err.code = code;
  return err;
}

export { MemdirError };

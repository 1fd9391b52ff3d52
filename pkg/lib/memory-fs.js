// An in-memory MemoryFs: a Map of absolute POSIX paths to files and directories.
import { hostError, normalize, parentOf } from "./paths.js";
import { MemdirError, readArgs } from "./errors.js";
import { TextEncoder } from "./text.js";

/**
 * An in-memory filesystem implementing `MemoryFs`, with the optional capabilities (atomic
 * rename, exclusive create, append, head reads, an in-process lock, and `watch`: every change
 * made through it is reported at once). For tests, demos, and hosts
 * that keep memory elsewhere and load it in.
 *
 * @param {Record<string, string>} [files] initial files: absolute path → content (`null` is none;
 *   a value that is not an object of strings, or that cannot be read, is `INVALID_INPUT`)
 * @example
 * const fs = memoryFs({ "/mem/MEMORY.md": "- [Role](user_role.md) — Senior Go dev\n" });
 * const memdir = new Memdir({ fs, dir: "/mem/" });
 */
export function memoryFs(files = {}) {
  const nodes = new Map([["/", { kind: "dir", mtimeMs: Date.now() }]]);
  const encoder = new TextEncoder();
  const locks = new Map();
  const watchers = new Set(); // { prefix, onChange }
  const notify = (p) => {
    for (const w of [...watchers]) {
      if (p.startsWith(w.prefix)) w.onChange(p.slice(w.prefix.length));
    }
  };

  const ensureDir = (path) => {
    let cur = "";
    for (const seg of normalize(path).split("/").filter(Boolean)) {
      cur += "/" + seg;
      const node = nodes.get(cur);
      if (!node) {
        nodes.set(cur, { kind: "dir", mtimeMs: Date.now() });
        notify(cur);
      } else if (node.kind !== "dir") throw hostError("ENOTDIR", cur);
    }
  };
  const file = (path) => {
    const node = nodes.get(normalize(path));
    if (!node) throw hostError("ENOENT", path);
    if (node.kind !== "file") throw hostError("EISDIR", path);
    return node;
  };
  // Each write is later than the one before, even within one millisecond (a thousandth of a
  // millisecond apart): "newest first" then follows the order of the writes.
  let lastWrite = 0;
  const stamp = () => (lastWrite = Math.max(Date.now(), lastWrite + 0.001));
  const put = (path, data) => {
    const p = normalize(path);
    const parent = nodes.get(parentOf(p));
    if (!parent) throw hostError("ENOENT", path);
    if (parent.kind !== "dir") throw hostError("ENOTDIR", path);
    if (nodes.get(p)?.kind === "dir") throw hostError("EISDIR", path);
    nodes.set(p, { kind: "file", data: String(data), mtimeMs: stamp() });
    notify(p);
  };
  const statOf = (path) => {
    const node = nodes.get(normalize(path));
    if (!node) throw hostError("ENOENT", path);
    const size = node.kind === "file" ? encoder.encode(node.data).length : 0;
    return { kind: node.kind, size, mtimeMs: node.mtimeMs };
  };

  readArgs("memoryFs", () => {
    if (files === null) return;
    if (typeof files !== "object") throw new MemdirError("INVALID_INPUT", "memoryFs: files must be an object of strings");
    for (const [path, data] of Object.entries(files)) {
      if (typeof data !== "string") throw new MemdirError("INVALID_INPUT", `memoryFs: the content of ${path} is not a string`);
      ensureDir(parentOf(normalize(path)));
      put(path, data);
    }
  });

  return {
    // A write replaces the content in one step: memdir adds no temp file and rename.
    atomicWrite: true,
    // An append adds the data in one step, too: a new index entry is appended.
    atomicAppend: true,
    readFile: (path) => file(path).data,
    writeFile: (path, data) => put(path, data),
    readDir(path) {
      const dir = normalize(path);
      const node = nodes.get(dir);
      if (!node) throw hostError("ENOENT", path);
      if (node.kind !== "dir") throw hostError("ENOTDIR", path);
      const prefix = dir === "/" ? "/" : dir + "/";
      const out = [];
      for (const [p, n] of nodes) {
        if (p !== dir && p.startsWith(prefix) && !p.slice(prefix.length).includes("/")) {
          out.push({ name: p.slice(prefix.length), kind: n.kind });
        }
      }
      return out;
    },
    stat: statOf,
    lstat: statOf,
    mkdir: (path) => ensureDir(path),
    remove(path) {
      const p = normalize(path);
      const node = nodes.get(p);
      if (!node) throw hostError("ENOENT", path);
      if (node.kind === "dir") throw hostError("EISDIR", path);
      nodes.delete(p);
      notify(p);
    },
    rename(from, to) {
      const node = file(from);
      put(to, node.data);
      nodes.delete(normalize(from));
      notify(normalize(from));
    },
    realpath(path) {
      const p = normalize(path);
      if (!nodes.has(p)) throw hostError("ENOENT", path);
      return p;
    },
    appendFile(path, data) {
      const p = normalize(path);
      const prev = nodes.get(p)?.kind === "file" ? nodes.get(p).data : "";
      put(p, prev + data);
    },
    createExclusive(path, data) {
      if (nodes.has(normalize(path))) return false;
      put(path, data);
      return true;
    },
    readHead: (path, maxBytes) => encoder.encode(file(path).data).slice(0, maxBytes),
    async lock(name) {
      const previous = locks.get(name) ?? Promise.resolve();
      let release;
      const held = new Promise((resolve) => (release = resolve));
      const chained = previous.then(() => held);
      locks.set(name, chained);
      await previous;
      return () => {
        release();
        if (locks.get(name) === chained) locks.delete(name);
      };
    },
    /**
     * Report every change below `dir` made through this filesystem: `onChange(path)` with the
     * path relative to `dir`, synchronously. `close()` stops it.
     */
    watch(dir, onChange) {
      const d = normalize(dir);
      if (nodes.get(d)?.kind !== "dir") throw hostError("ENOTDIR", dir);
      const w = { prefix: d === "/" ? "/" : d + "/", onChange };
      watchers.add(w);
      return { close: () => watchers.delete(w) };
    },
    /** Every file as `{ path: content }` (for tests and export). */
    toJSON() {
      const out = {};
      for (const [p, n] of nodes) if (n.kind === "file") out[p] = n.data;
      return out;
    },
  };
}

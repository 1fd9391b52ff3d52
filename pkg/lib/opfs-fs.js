// A MemoryFs over the browser's Origin Private File System.
import { hostError, normalize } from "./paths.js";
import { MemdirError, readArgs } from "./errors.js";

/**
 * A `MemoryFs` over the Origin Private File System, for browsers (pages and workers). Paths are
 * absolute POSIX paths inside `root` (default: the origin's OPFS root). Writes go through
 * `createWritable`, which commits atomically on close; the `lock` capability uses Web Locks, so
 * two tabs writing the same memory directory take turns.
 *
 * @param {FileSystemDirectoryHandle} [root]
 * @example
 * const fs = opfsFs();
 * const memdir = new Memdir({ fs, dir: "/memory/" });
 */
export function opfsFs(root) {
  const rootHandle = readArgs("opfsFs", () => {
    if (root != null) {
      if (typeof root !== "object" || typeof root.getDirectoryHandle !== "function") {
        throw new MemdirError("INVALID_INPUT", "opfsFs: root must be a FileSystemDirectoryHandle");
      }
      return Promise.resolve(root);
    }
    const storage = globalThis.navigator?.storage;
    if (typeof storage?.getDirectory !== "function") {
      throw new MemdirError("UNSUPPORTED", "opfsFs needs the Origin Private File System (navigator.storage.getDirectory) or a root handle");
    }
    return storage.getDirectory();
  });
  const segments = (path) => normalize(path).split("/").filter(Boolean);
  const wrap = (err, path) => {
    if (err && err.name === "NotFoundError") return hostError("ENOENT", path);
    if (err && err.name === "TypeMismatchError") return hostError("ENOTDIR", path);
    return err;
  };
  async function dirHandle(parts, path, create = false) {
    let dir = await rootHandle;
    for (const part of parts) {
      try {
        dir = await dir.getDirectoryHandle(part, { create });
      } catch (err) {
        throw wrap(err, path);
      }
    }
    return dir;
  }
  async function fileHandle(path, create = false) {
    const parts = segments(path);
    const name = parts.pop();
    if (name === undefined) throw hostError("EISDIR", path);
    const dir = await dirHandle(parts, path);
    try {
      return await dir.getFileHandle(name, { create });
    } catch (err) {
      if (err && err.name === "TypeMismatchError") throw hostError("EISDIR", path);
      throw wrap(err, path);
    }
  }
  async function entryKind(path) {
    const parts = segments(path);
    const name = parts.pop();
    if (name === undefined) return "dir";
    const dir = await dirHandle(parts, path);
    for await (const [entryName, handle] of dir.entries()) {
      if (entryName === name) return handle.kind === "directory" ? "dir" : "file";
    }
    throw hostError("ENOENT", path);
  }
  async function write(path, data) {
    const writable = await (await fileHandle(path, true)).createWritable();
    try {
      await writable.write(data);
      await writable.close();
    } catch (err) {
      // Abort so the half-written swap file is dropped and the handle's lock is released.
      await writable.abort().catch(() => {});
      throw err;
    }
  }
  async function stat(path) {
    if ((await entryKind(path)) === "dir") return { kind: "dir", size: 0, mtimeMs: 0 };
    const file = await (await fileHandle(path)).getFile();
    return { kind: "file", size: file.size, mtimeMs: file.lastModified };
  }
  return {
    // `createWritable` commits on close, atomically: memdir adds no temp file and rename.
    atomicWrite: true,
    async readFile(path) {
      return (await (await fileHandle(path)).getFile()).text();
    },
    writeFile: write,
    async readDir(path) {
      const dir = await dirHandle(segments(path), path);
      const out = [];
      for await (const [name, handle] of dir.entries()) {
        out.push({ name, kind: handle.kind === "directory" ? "dir" : "file" });
      }
      return out;
    },
    stat,
    lstat: stat,
    async mkdir(path) {
      await dirHandle(segments(path), path, true);
    },
    async remove(path) {
      const parts = segments(path);
      const name = parts.pop();
      if ((await entryKind(path)) === "dir") throw hostError("EISDIR", path);
      await (await dirHandle(parts, path)).removeEntry(name);
    },
    async appendFile(path, data) {
      let prev = "";
      try {
        prev = await (await (await fileHandle(path)).getFile()).text();
      } catch (err) {
        if (err.code !== "ENOENT") throw err;
      }
      await write(path, prev + data);
    },
    async readHead(path, maxBytes) {
      const file = await (await fileHandle(path)).getFile();
      return new Uint8Array(await file.slice(0, maxBytes).arrayBuffer());
    },
    async realpath(path) {
      await entryKind(path);
      return normalize(path);
    },
    lock(name) {
      if (!globalThis.navigator?.locks) return () => {};
      return new Promise((granted, failed) => {
        navigator.locks
          .request(name, () => new Promise((release) => granted(() => release())))
          .catch(failed);
      });
    },
  };
}

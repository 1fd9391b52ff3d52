// memdir/node: a MemoryFs over Node's filesystem.
import * as fsp from "node:fs/promises";
import * as fss from "node:fs";
import { randomBytes } from "node:crypto";
import { readArgs } from "./lib/errors.js";
import { hostname } from "node:os";

function kindOf(stats) {
  if (stats.isSymbolicLink()) return "symlink";
  if (stats.isDirectory()) return "dir";
  return "file";
}

function statResult(stats) {
  return { kind: kindOf(stats), size: stats.size, mtimeMs: stats.mtimeMs };
}

// Who holds a lock file: a lock left by a process of this machine that is gone is broken at once.
const owner = {
  hostId: () => hostname(),
  processId: () => process.pid,
  processAlive(pid) {
    try {
      process.kill(pid, 0);
      return true;
    } catch (err) {
      // EPERM: it exists but belongs to someone else.
      return err.code === "EPERM";
    }
  },
};

// Temp file names: unique in this process by a counter, between processes by the pid and a
// random part drawn once (a call to the random source for every write took about 35 µs of main
// thread a call in a profile of 1,000 saves).
const tempSalt = randomBytes(6).toString("hex");
let tempCount = 0;
const tempName = (path) => `${path}.tmp-${process.pid}-${tempSalt}${(++tempCount).toString(36)}`;

/**
 * A `MemoryFs` over Node's filesystem, with every optional capability: atomic writes (temp file
 * + rename, so a killed writer never leaves a torn file; declared as `atomicWrite: true`, so
 * memdir writes each file once instead of adding its own temp file and rename), `realpath`, `lstat`, exclusive create
 * (lock files), `appendFile` (one write at the end of the file; declared as `atomicAppend: true`,
 * so a new `MEMORY.md` entry is appended instead of the index being rewritten), head reads, `watch` (change notifications, so a recall over an
 * unchanged directory stats nothing; see `watchTree`) and `hostId`/`processId`/`processAlive`, so a
 * lock file left by a killed process of this machine is broken at once instead of after the stale age.
 *
 * By default methods are async (`fs/promises`). With `{ sync: true }` they return values
 * directly (`readFileSync` …): on many machines a scan is several times faster, at the cost of
 * blocking the event loop while it runs.
 *
 * @param {{ sync?: boolean }} [options]
 * @example
 * import { Memdir } from "memdir";
 * import { nodeFs } from "memdir/node";
 * const memdir = new Memdir({ fs: nodeFs(), dir: "/home/me/.claude/projects/-home-me-app/memory/" });
 */
export function nodeFs(options) {
  const sync = readArgs("nodeFs", () => options?.sync ?? false);
  // `writeFile` below is temp file + rename: memdir need not add its own on top; `appendFile`
  // opens with `O_APPEND` and writes once, leaving the bytes before it alone. `platform`
  // tells resolveMemoryDir and loadSettings which path rules the paths follow.
  return { ...(sync ? syncFs() : asyncFs()), watch: watchTree, atomicWrite: true, atomicAppend: true, platform: process.platform };
}

/**
 * `watch(dir, onChange, onLost)` for `nodeFs()`: `fs.watch` on `dir` and every directory below it
 * (one inotify watch per directory on Linux, where Node's `recursive` option would set up a
 * watcher per file, blocking for about a second per 10,000 files; `{ recursive: true }`
 * elsewhere). New directories are watched as they appear. Watchers are not persistent: they
 * never keep the process alive. Refused (throws, so memdir stats the directory on each recall
 * instead) when a directory it lists holds a symbolic link, whose target's changes would go
 * unreported. On Linux a directory whose link count says it has no subdirectory (on ext4, XFS
 * and tmpfs, which keep that count) is not listed; memdir's own walk finds links there, and stops
 * relying on the watch when it meets one.
 *
 * @param {string} dir
 * @param {(path?: string) => void} onChange called with the changed path relative to `dir`
 * @param {() => void} onLost called once if the watch breaks
 * @returns {{ close(): void }}
 * @example
 * const w = nodeFs().watch("/tmp/memory/", (p) => console.log("changed", p), () => {});
 * w.close();
 */
function watchTree(dir, onChange, onLost) {
  // On Windows `dir` may end with `\` and fs.watch reports names with `\`: the core wants `/`.
  const win = process.platform === "win32";
  const root = dir.replace(win ? /[\\/]+$/ : /\/+$/, "") || "/";
  const slashes = (name) => (win ? name.replaceAll("\\", "/") : name);
  const abs = (rel) => (rel ? `${root}/${rel}` : root);
  const watchers = new Map(); // relative directory ("" = root) → FSWatcher
  let closed = false;
  const close = () => {
    closed = true;
    for (const w of watchers.values()) w.close();
    watchers.clear();
  };
  const lose = () => {
    if (closed) return;
    close();
    onLost();
  };
  const dirsBelow = (rel, out) => {
    out.push(rel);
    for (const e of fss.readdirSync(abs(rel), { withFileTypes: true })) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) {
        const err = new Error(`watch: ${abs(child)} is a symbolic link; its changes would go unreported`);
        err.code = "ENOTSUP";
        throw err;
      }
      if (e.isDirectory()) dirsBelow(child, out);
    }
    return out;
  };
  const watchOne = (rel) => {
    watchers.get(rel)?.close();
    const w = fss.watch(abs(rel), { persistent: false }, (_event, name) => {
      if (closed) return;
      if (typeof name !== "string") return onChange(rel || undefined);
      const path = rel ? `${rel}/${name}` : name;
      onChange(path);
      // A directory created (or moved) here: watch it and what is below it.
      fss.lstat(abs(path), (err, st) => {
        if (closed || err || !st.isDirectory()) return;
        try {
          for (const d of dirsBelow(path, [])) watchOne(d);
          onChange(path);
        } catch {
          lose();
        }
      });
    });
    w.on("error", () => (rel ? (w.close(), watchers.delete(rel), onChange(rel)) : lose()));
    watchers.set(rel, w);
  };
  if (process.platform !== "linux") {
    dirsBelow("", []);
    const w = fss.watch(root, { recursive: true, persistent: false }, (_event, name) => {
      if (!closed) onChange(typeof name === "string" ? slashes(name) : undefined);
    });
    w.on("error", lose);
    watchers.set("", w);
    return { close };
  }
  try {
    watchOne("");
    if (!flatDirectory(root)) for (const d of dirsBelow("", []).slice(1)) watchOne(d);
  } catch (err) {
    close();
    throw err;
  }
  return { close };
}

// Filesystems known to keep the Unix link-count convention for directories (2 + the number of
// subdirectories), by statfs type: ext2/3/4, XFS, tmpfs. Others are not trusted with it: btrfs
// says 1 and the SMB client without Unix extensions says 2 for every directory.
const LINK_COUNTING_FILESYSTEMS = new Set([0xef53, 0x58465342, 0x01021994]);

/**
 * True when `dir` has no subdirectory by its link count, on a filesystem known to keep that count
 * (Linux). The watch then needs no listing to start: a directory of 10,000 memories is not listed
 * once more on a first recall. Symbolic links are the core walk's to find: it stops trusting the
 * watch when it meets one.
 *
 * @param {string} dir
 * @returns {boolean}
 * @example
 * flatDirectory("/tmp/memory"); // true for a directory of files only, on ext4
 */
function flatDirectory(dir) {
  try {
    if (typeof fss.statfsSync !== "function" || !LINK_COUNTING_FILESYSTEMS.has(fss.statfsSync(dir).type)) return false;
    return fss.statSync(dir).nlink === 2;
  } catch {
    return false;
  }
}

function asyncFs() {
  return {
    ...owner,
    readFile: (path) => fsp.readFile(path, "utf8"),
    async writeFile(path, data) {
      const tmp = tempName(path);
      try {
        await fsp.writeFile(tmp, data, "utf8");
        await fsp.rename(tmp, path);
      } catch (err) {
        await fsp.rm(tmp, { force: true }).catch(() => {});
        throw err;
      }
    },
    async readDir(path) {
      const entries = await fsp.readdir(path, { withFileTypes: true });
      return entries.map((e) => ({ name: e.name, kind: e.isSymbolicLink() ? "symlink" : e.isDirectory() ? "dir" : "file" }));
    },
    // One promise a stat around Node's callback form (a scan stats every file): measured
    // about a quarter less CPU than `fsp.stat(path).then(...)`.
    stat: (path) => new Promise((resolve, reject) => fss.stat(path, (err, st) => (err ? reject(err) : resolve(statResult(st))))),
    lstat: (path) => new Promise((resolve, reject) => fss.lstat(path, (err, st) => (err ? reject(err) : resolve(statResult(st))))),
    mkdir: async (path) => {
      await fsp.mkdir(path, { recursive: true });
    },
    remove: (path) => fsp.unlink(path),
    rename: (from, to) => fsp.rename(from, to),
    realpath: (path) => fsp.realpath(path),
    appendFile: (path, data) => fsp.appendFile(path, data, "utf8"),
    async createExclusive(path, data) {
      try {
        await fsp.writeFile(path, data, { flag: "wx" });
        return true;
      } catch (err) {
        if (err.code === "EEXIST") return false;
        throw err;
      }
    },
    // A plain descriptor through the callback forms, one promise in all: no FileHandle to
    // create and close (measured about a quarter less CPU a head). A read may return less than
    // asked before the end (network and FUSE filesystems): read until the buffer is full or the
    // file ends. The descriptor is closed whatever the reads did.
    readHead(path, maxBytes) {
      return new Promise((resolve, reject) => {
        fss.open(path, "r", (err, fd) => {
          if (err) return reject(err);
          const done = (failure, value) =>
            fss.close(fd, (closeErr) => (failure || closeErr ? reject(failure ?? closeErr) : resolve(value)));
          let buffer;
          let filled = 0;
          const step = () => {
            if (filled >= maxBytes) return done(null, buffer.subarray(0, filled));
            try {
              fss.read(fd, buffer, filled, maxBytes - filled, filled, (readErr, bytesRead) => {
                if (readErr) return done(readErr);
                if (bytesRead === 0) return done(null, buffer.subarray(0, filled));
                filled += bytesRead;
                step();
              });
            } catch (e) {
              done(e);
            }
          };
          try {
            buffer = Buffer.allocUnsafe(maxBytes);
          } catch (e) {
            return done(e);
          }
          step();
        });
      });
    },
  };
}

function syncFs() {
  return {
    ...owner,
    readFile: (path) => fss.readFileSync(path, "utf8"),
    writeFile(path, data) {
      const tmp = tempName(path);
      try {
        fss.writeFileSync(tmp, data, "utf8");
        fss.renameSync(tmp, path);
      } catch (err) {
        fss.rmSync(tmp, { force: true });
        throw err;
      }
    },
    readDir: (path) =>
      fss
        .readdirSync(path, { withFileTypes: true })
        .map((e) => ({ name: e.name, kind: e.isSymbolicLink() ? "symlink" : e.isDirectory() ? "dir" : "file" })),
    stat: (path) => statResult(fss.statSync(path)),
    lstat: (path) => statResult(fss.lstatSync(path)),
    mkdir: (path) => {
      fss.mkdirSync(path, { recursive: true });
    },
    remove: (path) => fss.unlinkSync(path),
    rename: (from, to) => fss.renameSync(from, to),
    realpath: (path) => fss.realpathSync(path),
    appendFile: (path, data) => fss.appendFileSync(path, data, "utf8"),
    createExclusive(path, data) {
      try {
        fss.writeFileSync(path, data, { flag: "wx" });
        return true;
      } catch (err) {
        if (err.code === "EEXIST") return false;
        throw err;
      }
    },
    readHead(path, maxBytes) {
      const fd = fss.openSync(path, "r");
      try {
        const buffer = Buffer.allocUnsafe(maxBytes);
        let filled = 0; // until full or at the end, as the async readHead
        while (filled < maxBytes) {
          const bytesRead = fss.readSync(fd, buffer, filled, maxBytes - filled, filled);
          if (bytesRead === 0) break;
          filled += bytesRead;
        }
        return buffer.subarray(0, filled);
      } finally {
        fss.closeSync(fd);
      }
    },
  };
}


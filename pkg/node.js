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

const tempName = (path) => `${path}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;

/**
 * A `MemoryFs` over Node's filesystem, with every optional capability: atomic writes (temp file
 * + rename, so a killed writer never leaves a torn file), `realpath`, `lstat`, exclusive create
 * (lock files), `appendFile` and head reads, and `hostId`/`processId`/`processAlive`, so a lock
 * file left by a killed process of this machine is broken at once instead of after the stale age.
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
  return sync ? syncFs() : asyncFs();
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
    stat: async (path) => statResult(await fsp.stat(path)),
    lstat: async (path) => statResult(await fsp.lstat(path)),
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
    async readHead(path, maxBytes) {
      const handle = await fsp.open(path, "r");
      try {
        const buffer = Buffer.allocUnsafe(maxBytes);
        const { bytesRead } = await handle.read(buffer, 0, maxBytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        await handle.close();
      }
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
        const bytesRead = fss.readSync(fd, buffer, 0, maxBytes, 0);
        return buffer.subarray(0, bytesRead);
      } finally {
        fss.closeSync(fd);
      }
    },
  };
}


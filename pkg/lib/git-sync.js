// Team (or private) memory sync through a git remote.
//
// The sync itself is the core's (`TeamSync` over `StoreSync`): key checks, containment, the
// entry and size caps, the secret guard, `MEMORY.md` merged by entries, conflict copies, the
// watcher's debounced pushes, telemetry. This module only gives it a `Transport` that speaks
// the team-memory protocol to the core and git to the remote:
//
// * `GET`  → fetch the branch; answer `{ checksum: <commit id>, content: { entries } }` from its
//            tree (304 when the commit is the one pulled last, 404 when the branch is absent).
// * `PUT`  → on top of the commit the core names in `If-Match`, write the entries it sends as
//            blobs, commit, push; 412 when the remote moved (stale `If-Match` or a rejected,
//            non-fast-forward push), so the core pulls again, keeps the other side's versions
//            and retries (bounded, `MAX_CONFLICT_RETRIES`).
//
// What only git can see is decided here, before anything reaches the core: a tree entry that is
// not a regular file (a symbolic link, a submodule) or whose blob is over the core's entry cap
// is never read into an entry, and is reported in the pull's `skipped` (`refused`/`too-large`);
// entries past the core's caps (2,000 files, 15 MiB in all) are counted in `entriesOverCap`.
// Every path that is passed on goes through the core's key checks and containment.
//
// isomorphic-git is loaded with a dynamic `import()` of a name held in a variable, the first time
// a request is made: the main import of memdir never loads it, and no bundler includes it.

import { MemdirError, readArgs } from "./errors.js";
import { TextDecoder, TextEncoder } from "./text.js";

/** The core's `MAX_ENTRY_BYTES`: larger blobs are refused without becoming an entry. */
export const MAX_ENTRY_BYTES = 250_000;
/** The core's `MAX_PULL_ENTRIES`. */
export const MAX_PULL_ENTRIES = 2_000;
/** Text a `GET` answer carries at most, in UTF-8 bytes (under the core's 16 MiB body cap). */
export const MAX_PULL_BYTES = 15 * 1024 * 1024;
/** Tree entries a pull looks at, in all (a remote with more is read up to here). */
export const MAX_TREE_ENTRIES = 20_000;
/** Deepest folder nesting a pull walks. */
export const MAX_TREE_DEPTH = 16;
/** Most bytes one fetch downloads: past it the fetch is aborted and the pull fails. */
export const MAX_FETCH_BYTES = 128 * 1024 * 1024;
/** Where the git data lives, under the memory directory: a hidden folder no scan enters. */
export const GIT_SYNC_DIR = ".git-sync";

const LOCAL_REF = "refs/heads/memdir-sync";
const utf8 = new TextEncoder();
const fatal = new TextDecoder("utf-8", { fatal: true });

// isomorphic-git is named through variables: a bundler (or the package's own CommonJS build)
// never resolves or includes it, and Node loads it from node_modules on first use. In a browser
// the page passes it (`git.module`, `git.http`), or maps the names with an import map.
const ISOMORPHIC_GIT = "isomorphic-git";
const NODE_FS = "node:fs";
const NODE_HTTP = "isomorphic-git/http/node";
const WEB_HTTP = "isomorphic-git/http/web";

let loaded;
/** isomorphic-git, loaded on first use. */
async function loadGit() {
  loaded ??= import(/* @vite-ignore */ /* webpackIgnore: true */ ISOMORPHIC_GIT).then(
    (m) => m.default ?? m,
    (cause) => {
      loaded = undefined;
      const error = new Error(
        isNode
          ? "git sync needs the isomorphic-git package (an optional dependency of memdir): npm install isomorphic-git"
          : "git sync in a browser needs isomorphic-git passed as `git.module` (and its `http/web` client as `git.http`)",
      );
      error.code = "ENOENT";
      error.cause = cause;
      throw error;
    },
  );
  return loaded;
}

const isNode = typeof process !== "undefined" && typeof process.versions?.node === "string";

async function defaultFs() {
  if (isNode) return (await import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_FS)).default;
  throw new MemdirError("INVALID_INPUT", "git sync in a browser needs `git.fs` (an fs with a `promises` API, e.g. gitOpfsFs())");
}

async function defaultHttp() {
  const m = isNode
    ? await import(/* @vite-ignore */ /* webpackIgnore: true */ NODE_HTTP)
    : await import(/* @vite-ignore */ /* webpackIgnore: true */ WEB_HTTP);
  return m.default ?? m;
}

/** `http` with every response body cut off (and the request failed) past `cap` bytes. */
function cappedHttp(http, cap) {
  return {
    async request(request) {
      const response = await http.request(request);
      const body = response.body;
      if (!body) return response;
      async function* capped() {
        let bytes = 0;
        for await (const chunk of body) {
          bytes += chunk.byteLength ?? chunk.length ?? 0;
          if (bytes > cap) {
            throw Object.assign(new Error(`the git remote sent more than ${cap} bytes in one answer`), { code: "EFBIG" });
          }
          yield chunk;
        }
      }
      return { ...response, body: capped() };
    },
  };
}

/** The entries of a raw tree object (`<mode> <name>\0<20-byte id>`…), names as given: a
 * hostile `..` or `a/b` is passed on for the core to refuse, not thrown on (isomorphic-git's
 * own `readTree` refuses the whole tree). Names that are not UTF-8 are kept as bytes. */
export function parseTree(bytes) {
  const out = [];
  let at = 0;
  while (at < bytes.length) {
    const space = bytes.indexOf(0x20, at);
    const nul = bytes.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 21 > bytes.length) throw Object.assign(new Error("malformed git tree"), { code: "EINVAL" });
    const mode = new TextDecoder().decode(bytes.subarray(at, space)).padStart(6, "0");
    const nameBytes = bytes.slice(space + 1, nul);
    const oid = Array.from(bytes.subarray(nul + 1, nul + 21), (b) => b.toString(16).padStart(2, "0")).join("");
    const type = mode === "040000" ? "tree" : mode === "160000" ? "commit" : "blob";
    out.push({ mode, path: new TextDecoder().decode(nameBytes), nameBytes, oid, type });
    at = nul + 21;
  }
  return out;
}

/** A raw tree object of `entries` (`{ mode, nameBytes | path, oid }`), in git's order (a
 * folder sorts as its name followed by `/`). */
export function formatTree(entries) {
  const keyed = entries.map((e) => {
    const name = e.nameBytes ?? utf8.encode(e.path);
    const mode = e.mode === "040000" ? "40000" : e.mode;
    const sortKey = e.mode === "040000" ? Uint8Array.from([...name, 0x2f]) : name;
    return { head: utf8.encode(`${mode} `), name, oid: e.oid, sortKey };
  });
  keyed.sort((a, b) => {
    const n = Math.min(a.sortKey.length, b.sortKey.length);
    for (let i = 0; i < n; i++) if (a.sortKey[i] !== b.sortKey[i]) return a.sortKey[i] - b.sortKey[i];
    return a.sortKey.length - b.sortKey.length;
  });
  const parts = [];
  for (const e of keyed) {
    parts.push(e.head, e.name, Uint8Array.of(0), Uint8Array.from(e.oid.match(/../g), (h) => Number.parseInt(h, 16)));
  }
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function readTreeRaw(ctx, oid) {
  const { object } = await ctx.git.readObject({ fs: ctx.fs, gitdir: ctx.gitdir, oid, format: "content", cache: ctx.cache });
  return parseTree(object);
}

function answer(status, body = "", headers = {}) {
  return { status, headers, body };
}

function stripQuotes(tag) {
  if (!tag) return undefined;
  return tag.replace(/^W\//, "").replace(/^"|"$/g, "") || undefined;
}

function header(headers, name) {
  for (const [k, v] of Object.entries(headers ?? {})) if (k.toLowerCase() === name) return v;
  return undefined;
}

/** isomorphic-git's error for a remote answer as a status, when it is one. */
function statusOf(error) {
  const code = error?.code ?? error?.name;
  if (code === "HttpError") return Number(error?.data?.statusCode) || 502;
  if (code === "SmartHttpError" || code === "UnknownTransportError") return 502;
  return undefined;
}

/**
 * A team-sync `Transport` whose server is a git remote (see the top of this file). Used by
 * `teamSync({ git })`; exported for `new TeamSync({ ..., transport: gitTransport(...).transport })`.
 *
 * @param {object} options
 * @param {string} options.url the remote, e.g. `https://github.com/acme/team-memory.git`
 *   (credentials written in it, `https://user:token@host/…`, are used only for `onAuth` when
 *   `auth` is not given, and never stored)
 * @param {string} options.gitdir where the git data is kept (a bare repository)
 * @param {string} [options.branch] default `main`
 * @param {{ token?: string, username?: string, password?: string }} [options.auth]
 * @param {{ name?: string, email?: string }} [options.author]
 * @param {object} [options.fs] an fs with a `promises` API (default: `node:fs` in Node)
 * @param {object} [options.http] isomorphic-git's HTTP client (default: its node/web one)
 * @param {string} [options.corsProxy] for browsers talking to a host without CORS
 * @param {Record<string, string>} [options.headers] extra HTTP headers for the remote
 * @example
 * const { transport, lastPull } = gitTransport({ url, gitdir: dir + ".git-sync/team", branch: "main" });
 */
export function gitTransport(options) {
  // Reading the caller's options may throw (getters, proxies, symbols): always as a MemdirError.
  return readArgs("gitTransport", () => makeGitTransport(options));
}

/** `scheme://user:pass@` at the start of a URL: the userinfo is what precedes the last `@` of the
 * authority (which ends at the first `/`, `?` or `#`). */
const USERINFO = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i;

function decode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * A remote URL without its userinfo (`https://user:TOKEN@host/r.git` → `https://host/r.git`),
 * and the credentials it held (`null` when none): the URL may be written to the git config in
 * the memory directory, so credentials travel only through `onAuth`.
 *
 * @param {string} url
 * @returns {{ url: string, credentials: { username?: string, password?: string } | null }}
 * @example
 * splitUrlCredentials("https://x:tok@h.example/r.git"); // { url: "https://h.example/r.git", credentials: { username: "x", password: "tok" } }
 */
function splitUrlCredentials(url) {
  const found = USERINFO.exec(url);
  if (!found) return { url, credentials: null };
  const userinfo = found[2];
  const colon = userinfo.indexOf(":");
  const credentials =
    colon === -1
      ? { username: decode(userinfo) }
      : { username: decode(userinfo.slice(0, colon)), password: decode(userinfo.slice(colon + 1)) };
  return { url: url.replace(USERINFO, "$1"), credentials };
}

function makeGitTransport(options) {
  const given = String(options?.url ?? "");
  if (!given) throw new MemdirError("INVALID_INPUT", "git sync needs `git.url`");
  // Credentials in the URL never reach the git config (`<dir>.git-sync/<scope>/config`, inside
  // the memory directory): the URL is stored and used without them; they answer `onAuth`.
  const { url, credentials } = splitUrlCredentials(given);
  const branch = options.branch ?? "main";
  const remoteRef = `refs/heads/${branch}`;
  const gitdir = String(options.gitdir).replace(/\/+$/, "");
  const author = {
    name: options.author?.name ?? "memdir",
    email: options.author?.email ?? "memdir@localhost",
  };
  const auth = options.auth;
  const onAuth = auth
    ? () => ({
        username: auth.username ?? (auth.token ? "x-access-token" : undefined),
        password: auth.token ?? auth.password,
      })
    : credentials
      ? () => ({ ...credentials })
      : undefined;
  const cache = {};
  let ready;
  // What the last GET refused before the core saw it, for `teamSync` to add to the outcome.
  const lastPull = { refused: [], overCap: 0 };
  // One request at a time per transport (a watcher's push and a pull share the git data).
  let queue = Promise.resolve();

  const setup = async () => {
    const [git, fs, http] = await Promise.all([
      options.module ?? loadGit(),
      options.fs ?? defaultFs(),
      options.http ?? defaultHttp(),
    ]);
    const ctx = { git, fs, http: cappedHttp(http, MAX_FETCH_BYTES), gitdir, cache };
    try {
      await fs.promises.stat(`${gitdir}/HEAD`);
    } catch {
      await git.init({ fs, gitdir, bare: true, defaultBranch: "memdir-sync" });
    }
    // The URL without credentials; `force` also rewrites a config an older version wrote with them.
    await git.addRemote({ fs, gitdir, remote: "origin", url, force: true });
    return ctx;
  };

  const common = (ctx) => ({
    fs: ctx.fs,
    http: ctx.http,
    gitdir,
    url,
    corsProxy: options.corsProxy,
    headers: options.headers,
    onAuth,
    cache,
  });

  /** Fetch the branch: its commit id, or null when the remote has no such branch. */
  const fetchHead = async (ctx) => {
    try {
      const result = await ctx.git.fetch({ ...common(ctx), remote: "origin", ref: branch, remoteRef: branch, singleBranch: true, tags: false });
      if (result.fetchHead) return result.fetchHead;
    } catch (error) {
      const name = error?.code ?? error?.name;
      if (name !== "NotFoundError" && name !== "EmptyServerResponseError") throw error;
    }
    // An empty repository, or no such branch.
    try {
      const refs = await ctx.git.listServerRefs({ ...common(ctx), prefix: remoteRef });
      const found = refs.find((r) => r.ref === remoteRef);
      if (found) throw Object.assign(new Error(`could not fetch ${remoteRef}`), { code: "EIO" });
    } catch (error) {
      if (error?.code === "EIO") throw error;
    }
    return null;
  };

  /** The regular files of a tree, walked in key order within the caps; the rest refused. */
  const readEntries = async (ctx, commitOid) => {
    const { git, fs } = ctx;
    const { commit } = await git.readCommit({ fs, gitdir, oid: commitOid, cache });
    const files = [];
    const refused = [];
    let seen = 0;
    let truncated = 0;
    const walk = async (treeOid, prefix, depth) => {
      for (const entry of await readTreeRaw(ctx, treeOid)) {
        const key = prefix + entry.path;
        if (++seen > MAX_TREE_ENTRIES) {
          truncated++;
          continue;
        }
        if (entry.type === "tree") {
          if (depth >= MAX_TREE_DEPTH) refused.push({ key, reason: { kind: "refused", code: "too-deep" } });
          else await walk(entry.oid, key + "/", depth + 1);
        } else if (entry.type === "blob" && (entry.mode === "100644" || entry.mode === "100755")) {
          files.push({ key, oid: entry.oid });
        } else {
          const code = entry.mode === "120000" ? "symlink" : entry.type === "commit" ? "submodule" : "not-a-file";
          refused.push({ key, reason: { kind: "refused", code } });
        }
      }
    };
    await walk(commit.tree, "", 0);
    files.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const entries = {};
    let bytes = 0;
    let taken = 0;
    let overCap = truncated;
    for (const { key, oid } of files) {
      if (taken >= MAX_PULL_ENTRIES) {
        overCap++;
        continue;
      }
      const { blob } = await git.readBlob({ fs, gitdir, oid, cache });
      if (blob.byteLength > MAX_ENTRY_BYTES) {
        refused.push({ key, reason: { kind: "too-large" } });
        continue;
      }
      let text;
      try {
        text = fatal.decode(blob);
      } catch {
        refused.push({ key, reason: { kind: "refused", code: "not-utf8" } });
        continue;
      }
      if (bytes + blob.byteLength + utf8.encode(key).length > MAX_PULL_BYTES) {
        overCap++;
        continue;
      }
      bytes += blob.byteLength + utf8.encode(key).length;
      entries[key] = text;
      taken++;
    }
    return { entries, refused, overCap };
  };

  const get = async (ctx, request) => {
    const head = await fetchHead(ctx);
    if (!head) {
      lastPull.refused = [];
      lastPull.overCap = 0;
      return answer(404, "{}");
    }
    if (stripQuotes(header(request.headers, "if-none-match")) === head) {
      lastPull.refused = [];
      lastPull.overCap = 0;
      return answer(304, "", { etag: `"${head}"` });
    }
    const { entries, refused, overCap } = await readEntries(ctx, head);
    lastPull.refused = refused;
    lastPull.overCap = overCap;
    return answer(200, JSON.stringify({ checksum: head, content: { entries } }), { etag: `"${head}"` });
  };

  /** A tree equal to `baseOid` (or empty) with `files` (path → blob id) written in; entries not
   * on a changed path are kept by id, as they are. */
  const buildTree = async (ctx, baseOid, files) => {
    const { git, fs } = ctx;
    const here = new Map(); // name → blob id
    const below = new Map(); // folder name → Map of its files
    for (const [path, oid] of files) {
      const at = path.indexOf("/");
      if (at === -1) here.set(path, oid);
      else {
        const name = path.slice(0, at);
        if (!below.has(name)) below.set(name, new Map());
        below.get(name).set(path.slice(at + 1), oid);
      }
    }
    const tree = baseOid ? await readTreeRaw(ctx, baseOid) : [];
    const out = [];
    const done = new Set();
    for (const entry of tree) {
      if (here.has(entry.path)) continue;
      if (below.has(entry.path)) {
        const sub = entry.type === "tree" ? entry.oid : null;
        out.push({ mode: "040000", path: entry.path, type: "tree", oid: await buildTree(ctx, sub, below.get(entry.path)) });
        done.add(entry.path);
        continue;
      }
      out.push(entry);
    }
    for (const [name, oid] of here) out.push({ mode: "100644", path: name, type: "blob", oid });
    for (const [name, sub] of below) {
      if (!done.has(name)) out.push({ mode: "040000", path: name, type: "tree", oid: await buildTree(ctx, null, sub) });
    }
    return git.writeObject({ fs, gitdir, type: "tree", object: formatTree(out), format: "content" });
  };

  const put = async (ctx, request) => {
    const { git, fs } = ctx;
    let body;
    try {
      body = JSON.parse(request.body ?? "");
    } catch {
      return answer(400, "{}");
    }
    const entries = body?.entries ?? {};
    const expected = stripQuotes(header(request.headers, "if-match")) ?? null;
    const head = await fetchHead(ctx);
    if (head !== expected) return answer(412, "{}");
    const files = new Map();
    for (const [key, text] of Object.entries(entries)) {
      files.set(key, await git.writeBlob({ fs, gitdir, blob: utf8.encode(String(text)) }));
    }
    const baseTree = head ? (await git.readCommit({ fs, gitdir, oid: head, cache })).commit.tree : null;
    const tree = await buildTree(ctx, baseTree, files);
    if (head && tree === baseTree) return answer(200, JSON.stringify({ checksum: head }), { etag: `"${head}"` });
    const now = Math.floor(Date.now() / 1000);
    const who = { ...author, timestamp: now, timezoneOffset: 0 };
    const keys = [...files.keys()].sort();
    const shown = keys.slice(0, 5).join(", ") + (keys.length > 5 ? `, and ${keys.length - 5} more` : "");
    const commit = await git.writeCommit({
      fs,
      gitdir,
      commit: { message: `memdir: ${shown}\n`, tree, parent: head ? [head] : [], author: who, committer: who },
    });
    await git.writeRef({ fs, gitdir, ref: LOCAL_REF, value: commit, force: true });
    let result;
    try {
      result = await git.push({ ...common(ctx), ref: LOCAL_REF, remoteRef });
    } catch (error) {
      const name = error?.code ?? error?.name;
      if (name === "PushRejectedError" || name === "GitPushError") return answer(412, "{}");
      if (name === "UnsafeFilepathError") {
        // isomorphic-git walks the remote's tree to build the pack and stops at a name git
        // itself refuses (`..`, `.git`, a backslash): nothing can be pushed on top of it.
        throw Object.assign(
          new Error(
            `the remote branch holds a path git refuses (${JSON.stringify(error?.data?.filepath ?? "")}); remove it with a git client — pulls still take every other file`,
          ),
          { code: "EINVAL", cause: error },
        );
      }
      throw error;
    }
    if (!result?.ok || result.refs?.[remoteRef]?.ok === false) return answer(412, "{}");
    return answer(200, JSON.stringify({ checksum: commit }), { etag: `"${commit}"` });
  };

  const handle = async (request) => {
    ready ??= setup().catch((error) => {
      ready = undefined;
      throw error;
    });
    const ctx = await ready;
    try {
      if (request.method === "GET") return await get(ctx, request);
      if (request.method === "PUT") return await put(ctx, request);
      return answer(405, "{}");
    } catch (error) {
      const status = statusOf(error);
      if (status !== undefined) return answer(status, "{}");
      throw error;
    }
  };

  const transport = (request) => {
    const run = queue.then(() => handle(request));
    queue = run.catch(() => {});
    return run;
  };
  return { transport, lastPull, gitdir };
}

/** `outcome` (a pull's) with what the git transport refused added. */
export function withRefusals(outcome, lastPull) {
  if (!outcome || typeof outcome !== "object") return outcome;
  if (lastPull.refused.length) outcome.skipped = [...(outcome.skipped ?? []), ...lastPull.refused];
  if (lastPull.overCap) outcome.entriesOverCap = (outcome.entriesOverCap ?? 0) + lastPull.overCap;
  lastPull.refused = [];
  lastPull.overCap = 0;
  return outcome;
}

/**
 * `teamSync` over a git remote: the core's `TeamSync` (made by `make`) with a `gitTransport`
 * whose data lives in `<dir>.git-sync/<scope>/`; its pulls report what the transport refused.
 * Called by `Memdir.prototype.teamSync` when `options.git` is given.
 *
 * @example
 * const sync = memdir.teamSync({ git: { url: "https://github.com/acme/team-memory.git", auth: { token } } });
 * await sync.pull();
 */
export function gitSync(dir, options, make) {
  const { git, ...rest } = readArgs("teamSync", () => ({ ...options }));
  if (git === null || typeof git !== "object") {
    throw new MemdirError("INVALID_INPUT", "`git` must be an object: { url, branch?, auth?, author? }");
  }
  const scope = rest.scope === "private" ? "private" : "team";
  const base = String(dir).replace(/\/*$/, "/");
  const t = gitTransport({ ...git, gitdir: git.gitdir ?? `${base}${GIT_SYNC_DIR}/${scope}` });
  const sync = make({
    baseUrl: splitUrlCredentials(String(git.url ?? "")).url,
    repo: git.branch ?? "main",
    timeoutMs: 120_000,
    memoryFilesOnly: true,
    ...rest,
    transport: t.transport,
  });
  for (const name of ["pull", "start"]) {
    const original = sync[name];
    if (typeof original !== "function") continue;
    Object.defineProperty(sync, name, {
      configurable: true,
      writable: true,
      value: (...args) => original.apply(sync, args).then((outcome) => withRefusals(outcome, t.lastPull)),
    });
  }
  return sync;
}

/** A Node-style error with `code`, as isomorphic-git expects from its fs. */
function fsError(code, path) {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/**
 * An fs with the `promises` API isomorphic-git needs, over the browser's Origin Private File
 * System (under `root`, default `/`): binary files, folders, no symbolic links (`symlink` is
 * refused with `ENOSYS`, never needed for a bare repository). For `teamSync({ git: { fs } })` in
 * a browser.
 *
 * @param {string} [root]
 * @example
 * const sync = memdir.teamSync({ git: { url, fs: gitOpfsFs(), module: git, http } });
 */
export function gitOpfsFs(root = "/") {
  const base = readArgs("gitOpfsFs", () => String(root).split("/").filter(Boolean));
  const parts = (path) => [...base, ...String(path).split("/").filter((p) => p && p !== ".")];
  const dirOf = async (segments, create = false) => {
    let dir = await navigator.storage.getDirectory();
    for (const name of segments) {
      try {
        dir = await dir.getDirectoryHandle(name, { create });
      } catch (e) {
        throw fsError(e?.name === "TypeMismatchError" ? "ENOTDIR" : "ENOENT", segments.join("/"));
      }
    }
    return dir;
  };
  /** The handle at `path`: a file, a folder, or ENOENT. */
  const handle = async (path) => {
    const segs = parts(path);
    if (!segs.length) return dirOf([]);
    const parent = await dirOf(segs.slice(0, -1));
    const name = segs[segs.length - 1];
    try {
      return await parent.getFileHandle(name);
    } catch {
      try {
        return await parent.getDirectoryHandle(name);
      } catch {
        throw fsError("ENOENT", path);
      }
    }
  };
  const stats = (kind, size, mtimeMs) => ({
    type: kind,
    mode: kind === "dir" ? 0o40755 : 0o100644,
    size,
    ino: 0,
    mtimeMs,
    ctimeMs: mtimeMs,
    uid: 1,
    gid: 1,
    dev: 1,
    isFile: () => kind === "file",
    isDirectory: () => kind === "dir",
    isSymbolicLink: () => false,
  });
  const promises = {
    async readFile(path, options) {
      const h = await handle(path);
      if (h.kind !== "file") throw fsError("EISDIR", path);
      const bytes = new Uint8Array(await (await h.getFile()).arrayBuffer());
      const encoding = typeof options === "string" ? options : options?.encoding;
      return encoding ? new TextDecoder().decode(bytes) : bytes;
    },
    async writeFile(path, data) {
      const segs = parts(path);
      const parent = await dirOf(segs.slice(0, -1));
      const file = await parent.getFileHandle(segs[segs.length - 1], { create: true });
      const writable = await file.createWritable();
      try {
        await writable.write(typeof data === "string" ? utf8.encode(data) : data);
        await writable.close();
      } catch (err) {
        // Abort so the half-written swap file is dropped and the handle's lock is released.
        await writable.abort().catch(() => {});
        throw err;
      }
    },
    async unlink(path) {
      const segs = parts(path);
      const parent = await dirOf(segs.slice(0, -1));
      try {
        await parent.getFileHandle(segs[segs.length - 1]);
        await parent.removeEntry(segs[segs.length - 1]);
      } catch {
        throw fsError("ENOENT", path);
      }
    },
    async readdir(path) {
      const dir = await handle(path);
      if (dir.kind !== "directory") throw fsError("ENOTDIR", path);
      const names = [];
      for await (const name of dir.keys()) names.push(name);
      return names;
    },
    async mkdir(path) {
      const segs = parts(path);
      const parent = await dirOf(segs.slice(0, -1));
      const name = segs[segs.length - 1];
      try {
        await parent.getDirectoryHandle(name);
        throw fsError("EEXIST", path);
      } catch (e) {
        if (e?.code === "EEXIST") throw e;
      }
      await parent.getDirectoryHandle(name, { create: true });
    },
    async rmdir(path) {
      const segs = parts(path);
      const parent = await dirOf(segs.slice(0, -1));
      try {
        await parent.removeEntry(segs[segs.length - 1]);
      } catch (e) {
        throw fsError(e?.name === "InvalidModificationError" ? "ENOTEMPTY" : "ENOENT", path);
      }
    },
    async stat(path) {
      const h = await handle(path);
      if (h.kind === "directory") return stats("dir", 0, 0);
      const file = await h.getFile();
      return stats("file", file.size, file.lastModified);
    },
    async lstat(path) {
      return promises.stat(path);
    },
    async readlink(path) {
      throw fsError("EINVAL", path);
    },
    async symlink(_target, path) {
      throw fsError("ENOSYS", path);
    },
    async chmod() {},
  };
  return { promises };
}

import type { PullOutcome, Scope, Transport } from "../dist/memdir.js";

/** Where and how `teamSync({ git })` reaches its git remote. */
export interface GitSyncOptions {
  /** The remote, e.g. `https://github.com/acme/team-memory.git` (smart HTTP). */
  url: string;
  /** The branch memory lives on; default `main` (created by the first push when absent). */
  branch?: string;
  /** Credentials: a token (sent as the HTTP basic password, user `x-access-token` unless given) or a user and password. */
  auth?: { token?: string; username?: string; password?: string };
  /** Who the commits are by; default `memdir <memdir@localhost>`. */
  author?: { name?: string; email?: string };
  /** Where the git data is kept; default `<dir>.git-sync/<scope>` (a bare repository in a hidden folder). */
  gitdir?: string;
  /** An fs with a `promises` API for the git data (default `node:fs` in Node; required in browsers). */
  fs?: unknown;
  /** isomorphic-git's HTTP client (default: its Node one in Node, its fetch one in browsers). */
  http?: unknown;
  /** A CORS proxy, for browsers talking to a host that sends no CORS headers. */
  corsProxy?: string;
  /** Extra HTTP headers sent to the remote. */
  headers?: Record<string, string>;
}

/** Options of `memdir.teamSync({ git })`. */
export interface GitTeamSyncOptions {
  git: GitSyncOptions;
  /** `"team"` (default): `team/`; `"private"`: the memory directory without `team/`, for one person's machines. */
  scope?: Scope;
  /** Timeout of one git request (a fetch or a push), in milliseconds; default 120,000. */
  timeoutMs?: number;
}

/**
 * A team-sync `Transport` whose server is a git remote: `GET` fetches the branch and answers its
 * tree as entries (symbolic links, submodules and blobs over 250,000 bytes refused, reported in
 * `lastPull`); `PUT` commits the entries on top of the `If-Match` commit and pushes (412 when the
 * remote moved). isomorphic-git is loaded on the first request.
 *
 * @example
 * const { transport } = gitTransport({ url, gitdir: dir + ".git-sync/team" });
 * const sync = new TeamSync({ fs, dir, baseUrl: url, repo: "main", transport, memoryFilesOnly: true });
 */
export function gitTransport(options: GitSyncOptions & { gitdir: string }): {
  transport: Transport;
  /** What the last `GET` refused before the core saw it, and how many files it left out past the caps. */
  lastPull: { refused: PullOutcome["skipped"]; overCap: number };
  gitdir: string;
};

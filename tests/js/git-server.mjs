// A git server for tests: the system `git http-backend` behind a small Node HTTP server on
// 127.0.0.1, serving the bare repositories under one folder over smart HTTP (push enabled per
// repository with `http.receivepack`). CORS is open, so a page of another origin can use it.
import { spawn, execFileSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync } from "node:fs";
import { join } from "node:path";

/** Where `git http-backend` is on this machine, if anywhere. */
export const BACKEND = ["/usr/local/libexec/git-core/git-http-backend", "/usr/lib/git-core/git-http-backend"].find(existsSync);

const CORS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, OPTIONS",
  "access-control-allow-headers": "*",
  "access-control-expose-headers": "*",
};

/** Run system git. */
export function git(args, options = {}) {
  return execFileSync("git", args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...options });
}

/** Start serving `root` (a folder of bare repositories); `{ base, close(), bareRepo(name) }`. */
export async function startGitServer(root) {
  const server = createServer((req, res) => {
    for (const [k, v] of Object.entries(CORS)) res.setHeader(k, v);
    if (req.method === "OPTIONS") return void res.writeHead(204).end();
    const url = new URL(req.url, "http://127.0.0.1");
    const env = {
      PATH: process.env.PATH,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method,
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_ADDR: "127.0.0.1",
      GIT_PROTOCOL: req.headers["git-protocol"] ?? "",
      HTTP_CONTENT_ENCODING: req.headers["content-encoding"] ?? "",
    };
    if (req.headers["content-length"]) env.CONTENT_LENGTH = req.headers["content-length"];
    const child = spawn(BACKEND, [], { env });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let started = false;
    child.stdout.on("data", (chunk) => {
      if (started) return void res.write(chunk);
      head = Buffer.concat([head, chunk]);
      let end = head.indexOf("\r\n\r\n");
      let sep = 4;
      if (end === -1) {
        end = head.indexOf("\n\n");
        sep = 2;
      }
      if (end === -1) return;
      started = true;
      let status = 200;
      for (const line of head.subarray(0, end).toString("latin1").split(/\r?\n/)) {
        const at = line.indexOf(":");
        if (at === -1) continue;
        const [name, value] = [line.slice(0, at).trim(), line.slice(at + 1).trim()];
        if (name.toLowerCase() === "status") status = Number.parseInt(value, 10);
        else res.setHeader(name, value);
      }
      res.writeHead(status);
      res.write(head.subarray(end + sep));
    });
    child.stdout.on("end", () => res.end());
    child.on("error", () => res.destroy());
    child.stderr.on("data", (chunk) => process.env.MEMDIR_GIT_DEBUG && process.stderr.write(chunk));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  return {
    base,
    close: () => new Promise((resolve) => server.close(resolve)),
    /** A new bare repository served at `<base>/<name>.git`. */
    bareRepo(name) {
      const path = join(root, `${name}.git`);
      git(["init", "-q", "--bare", "-b", "main", path]);
      git(["-C", path, "config", "http.receivepack", "true"]);
      return { path, url: `${base}/${name}.git` };
    },
  };
}

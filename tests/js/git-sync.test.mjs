// Team and private memory synced through a real git remote: the system `git` serving bare
// repositories over smart HTTP (`git http-backend` as a CGI behind a small Node server on
// 127.0.0.1), started and stopped here. Two teammates save at once and converge; secrets never
// reach the remote (checked with `git log -p --all` on the bare repository); a hostile remote
// commit (`../` paths, a symlink, a 50 MB blob, thousands of files) is refused entry by entry.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";
import { createServer } from "node:http";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, mkdir, readFile, readdir, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir } from "memdir";
import { nodeFs } from "memdir/node";

const BACKEND = ["/usr/local/libexec/git-core/git-http-backend", "/usr/lib/git-core/git-http-backend"].find(existsSync);
let isomorphicGit = true;
try {
  await import("isomorphic-git");
} catch {
  isomorphicGit = false;
}
const skip = !BACKEND ? "no git-http-backend on this machine" : !isomorphicGit ? "isomorphic-git is not installed" : false;

let root;
let server;
let base;

/** Run system git on the server's side. */
function git(args, options = {}) {
  return execFileSync("git", args, { encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...options });
}

/** A new bare repository served at `<base>/<name>.git`. */
function bareRepo(name) {
  const path = join(root, "srv", `${name}.git`);
  git(["init", "-q", "--bare", "-b", "main", path]);
  git(["-C", path, "config", "http.receivepack", "true"]);
  return { path, url: `${base}/${name}.git` };
}

/** `git http-backend` as a CGI: the request's body in, its header block and body out. */
function cgi(req, res) {
  const url = new URL(req.url, "http://127.0.0.1");
  const env = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: join(root, "srv"),
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
}

before(async () => {
  if (skip) return;
  root = await mkdtemp(join(tmpdir(), "memdir-git-"));
  await mkdir(join(root, "srv"));
  server = createServer(cgi);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(async () => {
  if (server) await new Promise((resolve) => server.close(resolve));
  if (root) await rm(root, { recursive: true, force: true });
});

async function memoryDir(name) {
  const dir = join(root, name, "memory") + "/";
  await mkdir(dir, { recursive: true });
  return dir;
}

const note = (name, body, extra = {}) => ({ name, description: `${name} in one line`, type: "project", body, scope: "team", ...extra });

async function read(path) {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

/** The keys an index text names. */
function indexed(text) {
  return [...(text ?? "").matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]).sort();
}

test("two teammates save at once, both pull, and both end with every memory", { skip }, async () => {
  const remote = bareRepo("team");
  const [dirA, dirB] = [await memoryDir("alice"), await memoryDir("bob")];
  const alice = new Memdir({ fs: nodeFs(), dir: dirA });
  const bob = new Memdir({ fs: nodeFs(), dir: dirB });
  const gitOptions = (who) => ({ url: remote.url, branch: "main", author: { name: who, email: `${who}@example.com` } });
  const syncA = alice.teamSync({ git: gitOptions("alice") });
  const syncB = bob.teamSync({ git: gitOptions("bob") });

  // Both start on an empty remote.
  const [startA, startB] = [await syncA.pull(), await syncB.pull()];
  assert.equal(startA.serverHasContent, false);
  assert.equal(startB.serverHasContent, false);

  // Both save at once (different files, and the same file with different text), then push at once.
  await Promise.all([
    alice.save(note("Deploys", "Deploys go out on Tuesdays.", { file: "deploys.md" })),
    bob.save(note("Oncall", "Bob is on call this week.", { file: "ops/oncall.md" })),
    alice.save(note("Style", "alice: tabs", { file: "style.md" })),
    bob.save(note("Style", "bob: spaces", { file: "style.md" })),
  ]);
  const [pushA, pushB] = await Promise.all([syncA.push(), syncB.push()]);
  assert.ok(pushA.conflict || pushB.conflict, "one of the two pushes met the other's commit");
  const [pullA, pullB] = [await syncA.pull(), await syncB.pull()];

  for (const dir of [dirA, dirB]) {
    assert.match(await read(join(dir, "team/deploys.md")), /Tuesdays/);
    assert.match(await read(join(dir, "team/ops/oncall.md")), /on call/);
    assert.deepEqual(indexed(await read(join(dir, "team/MEMORY.md"))), ["deploys.md", "ops/oncall.md", "style.md"]);
  }
  // The same file changed on both sides: one version won, the other was kept and reported.
  const [styleA, styleB] = [await read(join(dirA, "team/style.md")), await read(join(dirB, "team/style.md"))];
  assert.equal(styleA, styleB, "both end with the same style.md");
  const loser = /alice: tabs/.test(styleA) ? "bob: spaces" : "alice: tabs";
  const reported = [...pushA.overwritten, ...pushB.overwritten, ...pullA.overwritten, ...pullB.overwritten];
  assert.ok(reported.includes("style.md"), JSON.stringify({ pushA, pushB, pullA, pullB }));
  const copies = [];
  for (const dir of [dirA, dirB]) {
    const conflicts = join(dir, "team/.conflicts");
    for (const name of existsSync(conflicts) ? await readdir(conflicts) : []) copies.push(await read(join(conflicts, name)));
  }
  assert.ok(copies.some((text) => text.includes(loser)), `the losing version (${loser}) is kept`);

  // The remote holds exactly the memory files and an index naming them all.
  const files = git(["--git-dir", remote.path, "ls-tree", "-r", "--name-only", "main"]).trim().split("\n").sort();
  assert.deepEqual(files, ["MEMORY.md", "deploys.md", "ops/oncall.md", "style.md"]);
  assert.deepEqual(indexed(git(["--git-dir", remote.path, "show", "main:MEMORY.md"])), ["deploys.md", "ops/oncall.md", "style.md"]);
  // Pulling again when nothing changed: not modified.
  assert.equal((await syncA.pull()).notModified, true);
  // No git data inside team/: it lives in a hidden folder of the memory directory.
  assert.ok(existsSync(join(dirA, ".git-sync/team/HEAD")));
  assert.ok(!existsSync(join(dirA, "team/.git")));
});

test("a secret in a file's text or name never reaches the remote", { skip }, async () => {
  const remote = bareRepo("secrets");
  const dir = await memoryDir("carol");
  const carol = new Memdir({ fs: nodeFs(), dir });
  const sync = carol.teamSync({ git: { url: remote.url } });
  const inText = `ghp_${"S3cr3t".repeat(6)}`;
  const inName = `ghp_${"N4m3d".repeat(7)}z`;
  await carol.save(note("Clean", "nothing to hide", { file: "clean.md" }));
  // Written behind memdir's back (an editor, another tool): the push guard is what stops them.
  await writeFile(join(dir, "team/token.md"), `---\nname: Token\ndescription: ci\ntype: reference\n---\nthe token is ${inText}\n`);
  await writeFile(join(dir, `team/${inName}.md`), `---\nname: Named\ndescription: harmless text\ntype: reference\n---\nok\n`);
  await writeFile(join(dir, "team/draft.md.tmp-123"), "an interrupted write");
  await writeFile(join(dir, "team/.notes.md.swp"), "editor leftovers");

  const pushed = await sync.push();
  const skippedPaths = pushed.skippedSecrets.map((s) => s.path);
  assert.ok(skippedPaths.includes("token.md"), JSON.stringify(pushed));
  assert.ok(skippedPaths.some((p) => p.includes("[REDACTED]")), "the secret name is reported redacted");
  assert.ok(!JSON.stringify(pushed).includes(inText) && !JSON.stringify(pushed).includes(inName));

  const history = git(["--git-dir", remote.path, "log", "-p", "--all"]);
  assert.match(history, /nothing to hide/, "the clean file was pushed");
  assert.ok(!history.includes(inText), "the secret text is not in the remote");
  assert.ok(!history.includes(inName), "the secret name is not in the remote");
  const files = git(["--git-dir", remote.path, "ls-tree", "-r", "--name-only", "main"]).trim().split("\n").sort();
  assert.deepEqual(files, ["MEMORY.md", "clean.md"], "no temp file, editor leftover or secret file");
});

/** Write a commit onto `main` of the bare repository with system git, from a tree built by hand. */
function hostileCommit(repo) {
  const env = { ...process.env, GIT_DIR: repo.path };
  const blob = (text) => git(["hash-object", "-w", "--stdin"], { env, input: text }).trim();
  const mktree = (lines) => git(["mktree"], { env, input: lines.join("\n") + "\n" }).trim();
  const memory = (name) => `---\nname: ${name}\ndescription: from the remote\ntype: project\n---\n${name}\n`;
  const evil = blob(memory("Evil"));
  const up = mktree([`100644 blob ${evil}\tevil.md`]);
  const link = blob("../../../outside.md");
  // 50 MB: compressible, so the transfer stays small; refused by its size once read.
  const big = git(["hash-object", "-w", "--stdin"], { env, input: Buffer.alloc(50 * 1024 * 1024, 0x61) }).trim();
  // Thousands of files in one folder (one `hash-object --stdin-paths` for all of them).
  const names = Array.from({ length: 2_100 }, (_, i) => `m${String(i).padStart(4, "0")}`);
  const scratch = join(repo.path, "..", "scratch");
  mkdirSync(scratch, { recursive: true });
  for (const name of names) writeFileSync(join(scratch, name), memory(name));
  const ids = git(["hash-object", "-w", "--stdin-paths"], { env, input: names.map((n) => join(scratch, n)).join("\n") + "\n" })
    .trim()
    .split("\n");
  const lots = mktree(names.map((name, i) => `100644 blob ${ids[i]}\t${name}.md`));
  const ok = blob(memory("Fine"));
  const rest = [`120000 blob ${link}\tlink.md`, `100644 blob ${big}\tbig.md`, `040000 tree ${lots}\tlots`, `100644 blob ${ok}\tfine.md`];
  const commitOf = (lines, parent) => {
    const commit = git(["commit-tree", mktree(lines), ...(parent ? ["-p", parent] : []), "-m", "hostile"], {
      env: { ...env, GIT_AUTHOR_NAME: "mallory", GIT_AUTHOR_EMAIL: "m@example.com", GIT_COMMITTER_NAME: "mallory", GIT_COMMITTER_EMAIL: "m@example.com" },
    }).trim();
    git(["update-ref", "refs/heads/main", commit], { env });
    return commit;
  };
  const hostile = commitOf([`040000 tree ${up}\t..`, ...rest], null);
  // The same tree without the `..` entry, on top (what a teammate's clean-up would push).
  return { hostile, cleanUp: () => commitOf(rest, hostile) };
}

test("a hostile remote commit is refused entry by entry without writing outside team/", { skip, timeout: 300_000 }, async () => {
  const remote = bareRepo("hostile");
  const { hostile, cleanUp } = hostileCommit(remote);
  const dir = await memoryDir("dave");
  const dave = new Memdir({ fs: nodeFs(), dir });
  const sync = dave.teamSync({ git: { url: remote.url } });
  const pulled = await sync.pull();
  const reason = (key) => pulled.skipped.find((s) => s.key === key)?.reason;
  assert.deepEqual(reason("../evil.md"), { kind: "invalid-key", code: "PATH_ESCAPES" });
  assert.deepEqual(reason("link.md"), { kind: "refused", code: "symlink" });
  assert.deepEqual(reason("big.md"), { kind: "too-large" });
  assert.ok(pulled.entriesOverCap > 0, "past the cap of 2,000 files, the rest is counted and left out");
  assert.match(await read(join(dir, "team/fine.md")), /Fine/, "the good entry is taken");
  assert.ok(!existsSync(join(dir, "evil.md")) && !existsSync(join(root, "dave", "evil.md")), "nothing written outside team/");
  assert.ok(!existsSync(join(dir, "team/link.md")) && !existsSync(join(dir, "team/big.md")));
  assert.ok(!existsSync(join(root, "dave", "outside.md")));
  const written = await readdir(join(dir, "team/lots"));
  assert.ok(written.length > 1_000 && written.length < 2_100, `${written.length} files written from the big folder`);

  // Nothing can be pushed on top of a tree git itself refuses (`..`): a clear error, and the
  // remote is left as it was.
  await dave.save(note("Mine", "added on top", { file: "mine.md" }));
  await assert.rejects(sync.push(), (e) => e.code === "HTTP" && /path git refuses/.test(String(e.cause?.message ?? e.message)));
  assert.equal(git(["--git-dir", remote.path, "rev-parse", "main"]).trim(), hostile);

  // Once someone removes the `..` entry, pushes go on top of the rest (kept as they are, by id).
  const cleaned = cleanUp();
  const pushed = await sync.push();
  assert.equal(pushed.filesUploaded, 2, JSON.stringify(pushed)); // mine.md and MEMORY.md
  const tree = git(["--git-dir", remote.path, "ls-tree", "main"]);
  assert.match(tree, /^120000 blob \w+\tlink\.md$/m, "the symlink entry is kept as it was");
  assert.match(tree, /\tmine\.md$/m);
  assert.equal(git(["--git-dir", remote.path, "rev-parse", "main^"]).trim(), cleaned);
});

test("the private scope carries one person's memory between machines, never its team folder", { skip }, async () => {
  const remote = bareRepo("private");
  const [laptop, desktop] = [await memoryDir("laptop"), await memoryDir("desktop")];
  const a = new Memdir({ fs: nodeFs(), dir: laptop });
  const b = new Memdir({ fs: nodeFs(), dir: desktop });
  await a.save({ name: "Role", description: "Senior Go dev", type: "user", body: "Go, ten years" });
  await a.save(note("Team only", "stays in the team sync", { file: "team-only.md" }));
  const secret = `ghp_${"Pr1v4t3".repeat(5)}x`;
  // A private file with a secret (guardPrivateSecrets off for local writes): never pushed.
  await writeFile(join(laptop, "creds.md"), `---\nname: Creds\ndescription: local only\ntype: reference\n---\n${secret}\n`);
  const pushed = await a.teamSync({ git: { url: remote.url }, scope: "private" }).push();
  assert.deepEqual(pushed.skippedSecrets.map((s) => s.path), ["creds.md"]);

  const pulled = await b.teamSync({ git: { url: remote.url }, scope: "private" }).pull();
  assert.ok(pulled.filesWritten >= 2, JSON.stringify(pulled));
  const roleFile = (await readdir(desktop)).find((n) => n !== "MEMORY.md" && n.endsWith(".md"));
  assert.match(await read(join(desktop, roleFile)), /ten years/);
  assert.match(await read(join(desktop, "MEMORY.md")), /Senior Go dev/);
  assert.ok(!existsSync(join(desktop, "team")), "the team folder is not part of the private sync");
  const history = git(["--git-dir", remote.path, "log", "-p", "--all"]);
  assert.ok(!history.includes(secret) && !history.includes("team-only"));
});

test("the watcher pushes a change to the git remote after the debounce", { skip }, async () => {
  const remote = bareRepo("watched");
  const dir = await memoryDir("erin");
  const erin = new Memdir({ fs: nodeFs(), dir });
  const sync = erin.teamSync({ git: { url: remote.url } });
  await sync.start();
  await erin.save(note("Watched", "pushed by the watcher", { file: "watched.md" }));
  sync.notify();
  const pushed = () => {
    try {
      return git(["--git-dir", remote.path, "ls-tree", "-r", "--name-only", "main"], { stdio: "pipe" }).includes("watched.md");
    } catch {
      return false;
    }
  };
  assert.equal(pushed(), false, "nothing is pushed before the debounce");
  for (let i = 0; i < 100 && !pushed(); i++) await new Promise((r) => setTimeout(r, 100));
  await sync.stop();
  assert.ok(pushed(), "pushed within 10 s of the change (the debounce is 2 s)");
});

test("memdir team sync --git and memdir sync --git on the command line", { skip }, async () => {
  const remote = bareRepo("cli");
  const dir = await memoryDir("frank");
  const frank = new Memdir({ fs: nodeFs(), dir });
  await frank.save(note("Cli", "from the command line", { file: "cli.md" }));
  await frank.save({ name: "Mine", description: "a private note", type: "user", body: "private", file: "mine.md" });
  const bin = join(process.cwd(), "node_modules", "memdir", "bin", "memdir.js");
  // Asynchronous: the git server runs in this process.
  const run = async (...args) =>
    (await promisify(execFile)(process.execPath, [bin, ...args, "--dir", dir, "--json"], { encoding: "utf8", env: { ...process.env, MEMDIR_GIT_NAME: "frank" } })).stdout;
  const team = JSON.parse(await run("team", "sync", "--git", remote.url));
  assert.equal(team.scope, "team");
  assert.equal(team.push.filesUploaded, 2, JSON.stringify(team)); // cli.md and MEMORY.md
  const privateRemote = bareRepo("cli-private");
  const mine = JSON.parse(await run("sync", "--git", privateRemote.url, "--branch", "memory"));
  assert.equal(mine.scope, "private");
  const files = git(["--git-dir", privateRemote.path, "ls-tree", "-r", "--name-only", "memory"]).trim().split("\n").sort();
  assert.deepEqual(files, ["MEMORY.md", "mine.md"]);
  assert.match(git(["--git-dir", remote.path, "log", "-1", "--format=%an", "main"]), /frank/);
  await assert.rejects(run("team", "sync"), (e) => e.code === 2 && /--git <url>/.test(e.stderr));
});

test("the main import never loads isomorphic-git: only lib/git-sync.js names it, through import()", async () => {
  const pkg = join(process.cwd(), "node_modules", "memdir");
  const seen = new Set();
  const pending = ["index.js", "index.node.js"];
  const named = [];
  while (pending.length) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const text = await readFile(join(pkg, file), "utf8");
    for (const m of text.matchAll(/^\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"|^\s*import\s+"([^"]+)"/gm)) {
      const spec = m[1] ?? m[2];
      if (spec.startsWith(".")) pending.push(join(file, "..", spec).replace(/^\.\//, ""));
      else named.push(spec);
    }
  }
  assert.ok(seen.has("lib/git-sync.js"), "git-sync.js is part of the main import (it is small)");
  assert.ok(!named.some((s) => s.startsWith("isomorphic-git")), `static imports: ${named.join(", ")}`);
  const gitSync = await readFile(join(pkg, "lib/git-sync.js"), "utf8");
  assert.ok(!/^\s*import\s[^(]*isomorphic-git/m.test(gitSync), "isomorphic-git is only imported dynamically");
});

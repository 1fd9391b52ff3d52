// Team and private memory synced through a real git remote: the system `git` serving bare
// repositories over smart HTTP (`git http-backend` as a CGI behind a small Node server on
// 127.0.0.1), started and stopped here. Two teammates save at once and converge; secrets never
// reach the remote (checked with `git log -p --all` on the bare repository); a hostile remote
// commit (`../` paths, a symlink, a 50 MB blob, thousands of files) is refused entry by entry.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { mkdtemp, mkdir, readFile, readdir, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir } from "memdir";
import { nodeFs } from "memdir/node";
import { BACKEND, git, startGitServer } from "./git-server.mjs";

let isomorphicGit = true;
try {
  await import("isomorphic-git");
} catch {
  isomorphicGit = false;
}
const skip = !BACKEND ? "no git-http-backend on this machine" : !isomorphicGit ? "isomorphic-git is not installed" : false;

let root;
let server;

/** A new bare repository served by the test server. */
const bareRepo = (name) => server.bareRepo(name);

before(async () => {
  if (skip) return;
  root = await mkdtemp(join(tmpdir(), "memdir-git-"));
  await mkdir(join(root, "srv"));
  server = await startGitServer(join(root, "srv"));
});

after(async () => {
  if (server) await server.close();
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
  const events = [];
  const carol = new Memdir({ fs: nodeFs(), dir, telemetry: (name, fields) => events.push([name, fields]) });
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

  // Telemetry as with the protocol sync: outcomes only, never the secret or its file's name.
  const push = events.find(([name]) => name === "team_sync_push")?.[1];
  assert.equal(push?.success, true);
  assert.equal(push?.files_uploaded, 2);
  assert.equal(events.find(([name]) => name === "team_secret_skipped")?.[1].file_count, 2);
  const said = JSON.stringify(events);
  assert.ok(!said.includes(inText) && !said.includes(inName) && !said.includes("token.md"));
});

test("credentials in the remote URL never land in the memory directory's git data", { skip }, async () => {
  const remote = bareRepo("userinfo");
  const dir = await memoryDir("erin");
  const erin = new Memdir({ fs: nodeFs(), dir });
  const token = `tok_${"Zq8".repeat(8)}`;
  const url = remote.url.replace("://", `://erin:${token}@`);
  assert.notEqual(url, remote.url);
  const sync = erin.teamSync({ git: { url } });
  await erin.save(note("Kept", "pushed through a URL with credentials", { file: "kept.md" }));
  await sync.push();
  await sync.pull();
  assert.match(git(["--git-dir", remote.path, "show", "main:kept.md"]), /pushed through a URL/);
  // Every file git sync keeps (its config first of all) is free of the token.
  const gitData = join(dir, ".git-sync");
  const files = (await readdir(gitData, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  assert.ok(files.some((e) => e.name === "config"), "the git config was written");
  for (const e of files) {
    const text = await readFile(join(e.parentPath ?? e.path, e.name), "latin1");
    assert.ok(!text.includes(token), `${e.name} holds the token`);
  }
  const config = await readFile(join(gitData, "team", "config"), "utf8");
  assert.ok(config.includes(remote.url), config);
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
  // The pulled team index is far past its caps: saving on top of it warns instead of refusing.
  const dave = new Memdir({ fs: nodeFs(), dir, store: { indexOverCap: "warn" } });
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
  // Written directly: the pulled index (2,000 lines) is over the cap a save checks.
  await writeFile(join(dir, "team/mine.md"), "---\nname: Mine\ndescription: added on top\ntype: project\n---\nmine\n");
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
  await assert.rejects(run("team", "sync"), (e) => e.code === 2 && /--git <url>/.test(e.stderr + e.stdout));
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

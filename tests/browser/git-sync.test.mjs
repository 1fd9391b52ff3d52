// The demo app (www/) syncing its team directory (OPFS) with a git remote in headless Chromium:
// the system `git http-backend` on 127.0.0.1 (tests/js/git-server.mjs), isomorphic-git from
// www/vendor. Run from the repo root: node --test --test-reporter=tap tests/browser/
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BACKEND, git, startGitServer } from "../js/git-server.mjs";

const root = fileURLToPath(new URL("../../", import.meta.url));
const require = createRequire(join(root, "scripts", "package.json"));
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const VENDORED = join(root, "www", "vendor", "node_modules", "isomorphic-git", "index.umd.min.js");
const skip = !BACKEND ? "no git-http-backend" : !existsSync(VENDORED) ? "www/vendor not installed (scripts/setup.sh)" : !existsSync(CHROMIUM) ? "no chromium" : false;

let web;
let origin;
let gitServer;
let context;
let page;
const dirs = [];

async function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

before(async () => {
  if (skip) return;
  const srv = mkdtempSync(join(tmpdir(), "memdir-git-srv-"));
  dirs.push(srv);
  gitServer = await startGitServer(srv);
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  web = spawn("python3", ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root], { stdio: "ignore" });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${origin}/www/index.html`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  const profile = mkdtempSync(join(tmpdir(), "memdir-chromium-git-"));
  dirs.push(profile);
  const { chromium } = require("playwright-core");
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  page = context.pages()[0] ?? (await context.newPage());
});

after(async () => {
  await context?.close();
  web?.kill();
  await gitServer?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

test("the demo syncs its team directory (OPFS) with a git remote on 127.0.0.1", { skip, timeout: 120_000 }, async () => {
  const remote = gitServer.bareRepo("demo-team");
  // A teammate's memory already on the remote (made with system git).
  const seed = mkdtempSync(join(tmpdir(), "memdir-git-seed-"));
  dirs.push(seed);
  // Through the repository's path: a synchronous git over HTTP would block this process's server.
  git(["clone", "-q", remote.path, seed]);
  execFileSync("sh", ["-c", `printf -- '---\\nname: Release day\\ndescription: Releases on Thursdays\\ntype: project\\n---\\nThursdays.\\n' > from-remote.md`], { cwd: seed });
  git(["-C", seed, "add", "."]);
  git(["-C", seed, "-c", "user.name=teammate", "-c", "user.email=t@example.com", "commit", "-qm", "a teammate's memory"]);
  git(["-C", seed, "push", "-q", "origin", "HEAD:main"]);

  await page.goto(`${origin}/www/?git=${encodeURIComponent(remote.url)}`);
  await page.waitForFunction(() => window.__ready === true || window.__startError, null, { timeout: 30_000 });
  assert.equal(await page.evaluate(() => window.__startError ?? null), null);
  // A team memory saved in this browser (through the library, into the demo's OPFS directory).
  await page.evaluate(async () => {
    const { Memdir, opfsFs } = await import("/pkg/index.js");
    const memdir = new Memdir({ fs: opfsFs(), dir: "/memdir-demo/memory/" });
    await memdir.save({ name: "Browser note", description: "Saved in the demo", type: "project", body: "from OPFS", scope: "team", file: "browser.md" });
  });

  await page.click('[role=tab][data-tab="team"]');
  await page.waitForSelector("#team-sync:not([hidden])");
  assert.match(await page.textContent("#team-remote"), /demo-team\.git/);
  await page.click("#team-sync");
  await page.waitForFunction(() => window.__teamSynced, null, { timeout: 90_000 });
  const result = await page.evaluate(() => window.__teamSynced);
  assert.equal(result.error, undefined, result.error);
  assert.ok(result.pulled.filesWritten >= 1 && result.pushed.filesUploaded >= 1, JSON.stringify(result));
  await page.waitForSelector('#team-list [data-file="team/from-remote.md"]');
  assert.ok(await page.locator('#team-list [data-file="team/browser.md"]').count());

  const files = git(["--git-dir", remote.path, "ls-tree", "-r", "--name-only", "main"]).trim().split("\n").sort();
  assert.deepEqual(files, ["MEMORY.md", "browser.md", "from-remote.md"]);
  const index = git(["--git-dir", remote.path, "show", "main:MEMORY.md"]);
  assert.match(index, /\(browser\.md\)/);
  assert.match(index, /\(from-remote\.md\)/);
  // The git data is in OPFS, in the hidden folder of the memory directory.
  const head = await page.evaluate(async () => {
    let dir = await navigator.storage.getDirectory();
    for (const name of ["memdir-demo", "memory", ".git-sync", "team"]) dir = await dir.getDirectoryHandle(name);
    return (await (await dir.getFileHandle("HEAD")).getFile()).text();
  });
  assert.match(head, /ref: refs\/heads\//);
});

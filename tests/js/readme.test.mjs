// The README's code, run as written. Each code block marked `<!-- example: tests/examples/F -->`
// must equal that file; the Node quick start is run (twice, with no API key), the browser quick
// start is loaded three times in Chromium; the bundler recipes are built and run by the
// toolchain matrix (scripts/matrix.sh). Runs inside scripts/test-js.sh (MEMDIR_REPO = the repo).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { Memdir, resolveMemoryDir, RecallSession, shouldRecall } from "memdir";
import { nodeFs } from "memdir/node";

const repo = process.env.MEMDIR_REPO ?? fileURLToPath(new URL("../../", import.meta.url));
const app = fileURLToPath(new URL(".", import.meta.url)); // the project memdir is installed in
const examples = join(repo, "tests", "examples");
const readme = readFileSync(join(repo, "README.md"), "utf8");
const run = promisify(execFile);

/** Every `<!-- example: … -->` marker with the fenced block after it. */
function markedBlocks() {
  const out = [];
  const re = /<!-- example: (tests\/examples\/[^ ]+) -->\n```[a-z]*\n([\s\S]*?)\n```/g;
  for (let m = re.exec(readme); m; m = re.exec(readme)) out.push({ file: m[1], code: m[2] });
  return out;
}

test("every README block marked as an example equals its file, and every example is in the README", () => {
  const blocks = markedBlocks();
  assert.ok(blocks.length >= 7, `only ${blocks.length} marked blocks`);
  for (const { file, code } of blocks) {
    assert.equal(code, readFileSync(join(repo, file), "utf8").replace(/\n$/, ""), `${file} differs from its README block`);
  }
  const named = new Set(blocks.map((b) => b.file.replace("tests/examples/", "")));
  assert.deepEqual(readdirSync(examples).filter((f) => !named.has(f)), [], "example files the README does not show");
  // The sections a newcomer pastes from are all examples.
  for (const section of ["## Install", "## Quick start: Node", "## Quick start: browser", "## Bundlers, workers, test runners, TypeScript"]) {
    const start = readme.indexOf(`${section}\n`);
    assert.ok(start >= 0, section);
    const end = readme.indexOf("\n## ", start + 1);
    const body = readme.slice(start, end < 0 ? undefined : end);
    const fences = body.match(/^```[a-z]+$/gm) ?? [];
    const marked = body.match(/<!-- example: /g) ?? [];
    assert.equal(marked.length, fences.length, `${section}: a code block that is not an example file`);
  }
});

test("README quick start (Node) runs as written with no API key, and a rerun keeps one memory", async () => {
  const project = mkdtempSync(join(app, "qs-node-")); // inside the app, so `memdir` resolves
  const home = await mkdtemp(join(tmpdir(), "memdir-home-"));
  try {
    copyFileSync(join(examples, "quick-start-node.mjs"), join(project, "quick-start.mjs"));
    const env = { ...process.env, HOME: home };
    delete env.ANTHROPIC_API_KEY;
    for (let i = 0; i < 2; i++) {
      const { stdout } = await run(process.execPath, ["quick-start.mjs"], { cwd: project, env });
      assert.match(stdout, /chars of system prompt; recall \(lexical\) picked 1:/);
      assert.match(stdout, /<system-reminder>\nMemory \(saved today\): .*feedback_prefers_pnpm\.md:/);
    }
    const fs = nodeFs();
    const dir = await resolveMemoryDir({ fs, projectRoot: project, home, env: {} });
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith(".md")).sort(), ["MEMORY.md", "feedback_prefers_pnpm.md"]);
  } finally {
    rmSync(project, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
});

test("README quick start (browser), loaded three times in Chromium, keeps one memory", async (t) => {
  const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
  let playwright;
  try {
    playwright = createRequire(join(repo, "scripts", "package.json"))("playwright-core");
  } catch {}
  if (!playwright || !existsSync(chromium)) return t.skip("no playwright-core or Chromium");
  const page = readFileSync(join(examples, "quick-start-browser.html"));
  const types = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html" };
  // Served from the project's folder, as the README says (node_modules/memdir beside the page).
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, "http://x").pathname);
    if (path === "/") return res.writeHead(200, { "content-type": "text/html" }).end(page);
    const file = join(app, path);
    if (!file.startsWith(app) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const profile = mkdtempSync(join(tmpdir(), "mq-"));
  const browser = await playwright.chromium.launchPersistentContext(profile, {
    executablePath: chromium,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
  });
  try {
    const tab = browser.pages()[0] ?? (await browser.newPage());
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    for (let i = 0; i < 3; i++) {
      const logged = tab.waitForEvent("console", { predicate: (m) => m.type() === "log", timeout: 60000 });
      await tab.goto(`http://127.0.0.1:${server.address().port}/`);
      const scan = await (await logged).args()[0].jsonValue();
      assert.deepEqual(errors, []);
      assert.deepEqual(scan.map((h) => h.filename), ["user_role.md"], `load ${i + 1}`);
    }
    const files = await tab.evaluate(async () => {
      const dir = await (await navigator.storage.getDirectory()).getDirectoryHandle("memory");
      const names = [];
      for await (const name of dir.keys()) names.push(name);
      return names.sort();
    });
    assert.deepEqual(files, ["MEMORY.md", "user_role.md"]);
  } finally {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
});

// The quick start's steps, each result asserted (a temporary home, no API key).
test("README quick start: resolve, prompt, save, recall, surface", async () => {
  const home = await mkdtemp(join(tmpdir(), "memdir-home-"));
  const fs = nodeFs();
  const dir = await resolveMemoryDir({ fs, projectRoot: "/work/app", home, env: {} });
  assert.equal(dir, `${home}/.claude/projects/-work-app/memory/`);
  const memdir = new Memdir({ fs, dir, telemetry: () => {} });

  const section = await memdir.loadPrompt();
  assert.match(section, /^# auto memory\n/);
  assert.ok(section.includes(dir));

  await memdir.save({ name: "Prefers pnpm", description: "Uses pnpm in every repository", type: "feedback", body: "Use pnpm, never npm.\n" });
  const index = await memdir.readIndex();
  assert.equal(index.content, "- [Prefers pnpm](feedback_prefers_pnpm.md) \u2014 Uses pnpm in every repository");

  const session = new RecallSession();
  const prompt = "should I install the deps with npm or pnpm?";
  assert.ok(shouldRecall(prompt) && !session.exhausted);
  const { memories, answeredBy } = await memdir.findRelevant(prompt, { alreadySurfaced: session.surfacedPaths });
  assert.equal(answeredBy, "lexical");
  assert.equal(memories.length, 1);
  const shown = await memdir.surface(memories);
  session.record(shown);
  assert.ok(shown[0].text.startsWith(`<system-reminder>\nMemory (saved today): ${dir}feedback_prefers_pnpm.md:\n\n---\nname: Prefers pnpm\n`), shown[0].text);
  assert.ok(session.usedUnits > 0);
  assert.deepEqual(session.surfacedPaths, [memories[0].path]);
});

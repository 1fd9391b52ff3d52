// The demo app (www/) in headless Chromium: create a memory, watch the gauge, push MEMORY.md
// past its cap, run a recall, reload and find the data. Screenshots go to tests/artifacts/.
// Run from the repo root: node --test --test-reporter=tap tests/browser/
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { createRequire } from "node:module";
import { mkdirSync, mkdtempSync, rmSync, existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../", import.meta.url));
const artifacts = join(root, "tests", "artifacts");
const require = createRequire(join(root, "scripts", "package.json"));
const { chromium } = require("playwright-core");

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
  "--disable-component-update", "--disable-default-apps", "--disable-sync", "--no-first-run",
  "--metrics-recording-only", "--mute-audio",
];

let server;
let origin;
let context;
let page;
let profile;
const consoleErrors = [];
const foreignRequests = [];

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

async function waitForServer(url) {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the server at ${url} did not come up`);
}

async function shot(name) {
  await page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: false });
}

async function openApp() {
  await page.goto(`${origin}/www/`);
  await page.waitForFunction(() => window.__ready === true || window.__startError, null, { timeout: 20000 });
  assert.equal(await page.evaluate(() => window.__startError ?? null), null, "the app started");
}

const listFiles = () => page.$$eval("#memory-list .memory-item[data-file]", (items) => items.map((i) => i.dataset.file));
const text = (selector) => page.textContent(selector);

before(async () => {
  assert.ok(existsSync(join(root, "pkg", "dist", "memdir_bg.wasm")), "build the package first (scripts/build.sh)");
  mkdirSync(artifacts, { recursive: true });
  const python = execFileSync("python3", ["-c", "import sys; print(sys.executable)"], { encoding: "utf8" }).trim();
  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  server = spawn(python, ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root], { stdio: "ignore" });
  await waitForServer(`${origin}/www/index.html`);
  profile = mkdtempSync(join(tmpdir(), "memdir-chromium-"));
  context = await chromium.launchPersistentContext(profile, {
    acceptDownloads: true,
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    viewport: { width: 1400, height: 860 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("console", (msg) => msg.type() === "error" && consoleErrors.push(msg.text()));
  page.on("pageerror", (error) => consoleErrors.push(String(error)));
  page.on("request", (req) => {
    const url = req.url();
    if (!url.startsWith(origin) && !url.startsWith("data:") && !url.startsWith("blob:")) foreignRequests.push(url);
  });
});

after(async () => {
  await context?.close();
  if (server) server.kill();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

test("first visit seeds the sample set into OPFS", async () => {
  await openApp();
  const files = await listFiles();
  assert.equal(files.length, 6, `six sample memories, got ${files}`);
  assert.ok(files.includes("feedback_real_database.md"));
  assert.equal((await text("#gauge-lines")).trim(), "6 / 200");
  assert.equal(await page.locator("#index-lines li").count(), 6);
  await shot("01-seeded");
});

test("a new memory shows in the gauge while typing, then in the list and the index", async () => {
  await page.click("#new");
  await page.fill("#f-name", "Prefers pnpm");
  await page.selectOption("#f-type", "feedback");
  await page.fill("#f-description", "Use pnpm, never npm or yarn, in every repository");
  await page.fill("#f-body", "The user switched all repos to pnpm.\n\n**Why:** one lock file format.\n\n**How to apply:** run `pnpm install`.");
  // Live: the would-be index already holds the entry.
  assert.equal((await text("#gauge-lines")).trim(), "7 / 200");
  assert.match(await text("#gauge-mode"), /with your edit/);
  assert.match(await text("#index-lines li.editing"), /Prefers pnpm \(feedback_prefers_pnpm\.md\)/);
  await shot("02-typing");

  await page.click("#save");
  await page.waitForSelector('#memory-list .memory-item[data-file="feedback_prefers_pnpm.md"]');
  assert.match(await text("#editor-status"), /Saved feedback_prefers_pnpm\.md/);
  assert.equal((await text("#editor-file")).trim(), "feedback_prefers_pnpm.md");
  const indexText = await text("#index-lines");
  assert.match(indexText, /Prefers pnpm \(feedback_prefers_pnpm\.md\) — Use pnpm, never npm or yarn/);
  assert.equal((await text("#gauge-lines")).trim(), "7 / 200");
  assert.equal(await page.locator("#gauge-warning").isVisible(), false);
  await shot("03-created");
});

test("pushing MEMORY.md over its cap shows the warning and the entries that would be cut", async () => {
  await page.click("#new");
  await page.fill("#f-name", "Very long hook");
  await page.fill("#f-description", "word ".repeat(5200).trim()); // ~26,000 UTF-16 units
  await page.waitForSelector("#gauge-warning:not([hidden])");
  const warning = await text("#gauge-warning");
  assert.match(warning, /Truncated: over 25,000 units/);
  assert.match(warning, /Very long hook/);
  assert.ok(await page.locator("#gauge").evaluate((g) => g.classList.contains("over")));
  assert.equal(await page.locator("#index-lines li.cut").count(), 1);
  const units = Number((await text("#gauge-units")).split("/")[0].replace(/,/g, ""));
  assert.ok(units > 25_000, `units ${units}`);
  await shot("04-over-cap");

  await page.click("#new"); // discard: the gauge goes back to the saved index
  assert.equal(await page.locator("#gauge-warning").isVisible(), false);
  assert.equal((await text("#gauge-lines")).trim(), "7 / 200");
});

test("recall selects memories with their freshness headers and says which path answered", async () => {
  await page.click('[role=tab][data-tab="recall"]');
  await page.fill("#recall-query", "should integration tests use a real database or mocks?");
  await page.click("#recall-run");
  await page.waitForSelector("#recall-results .recalled, #recall-results .empty");
  assert.equal(await page.getAttribute("#recall-meta", "data-answered-by"), "lexical", await text("#recall-meta"));
  const heads = await page.$$eval("#recall-results .recalled-head", (hs) => hs.map((h) => h.textContent));
  assert.ok(heads.length >= 1, "at least one memory");
  assert.ok(heads.some((h) => h.includes("feedback_real_database.md")), heads.join("\n"));
  assert.ok(heads.every((h) => /today|yesterday|days ago/.test(h)), heads.join("\n"));
  await shot("05-recall");
});

test("each recalled memory says why it was picked: score and matched words by field, no cosine without embeddings", async () => {
  // The recall above is still on screen (no network: the built-in ranker answered).
  const whys = await page.$$eval("#recall-results .recalled .why", (ws) => ws.map((w) => w.textContent));
  const heads = await page.$$eval("#recall-results .recalled-head", (hs) => hs.map((h) => h.textContent));
  assert.equal(whys.length, heads.length, whys.join("\n"));
  const top = whys[heads.findIndex((h) => h.includes("feedback_real_database.md"))];
  assert.match(top, /^score \d\.\d{3} words \d\.\d{3}:/, top);
  assert.match(top, /integr\w* (filename · )?name · description · body/, top);
  assert.ok(whys.every((w) => !/cosine/.test(w)), whys.join("\n"));
});

test("an embeddings endpoint switches recall to fused scores; its settings are stored only when ticked", async () => {
  // A same-origin endpoint answered by the test: one dimension per concept.
  const concepts = [/databas|postgres|sql|datastore/g, /test|integration|mock/g, /\bgo\b|golang/g, /auth|login|session/g];
  const vector = (t) => [...concepts.map((c) => (t.toLowerCase().match(c) ?? []).length), 0.2];
  const models = [];
  await page.route(`${origin}/v1/embeddings`, async (route) => {
    const body = route.request().postDataJSON();
    models.push(body.model);
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ data: body.input.map((t, index) => ({ index, embedding: vector(t) })) }) });
  });
  try {
    await page.click("#embed-settings summary");
    await page.fill("#embed-url", `${origin}/v1`);
    await page.fill("#embed-model", "standin");
    assert.match(await text("#embed-summary"), /standin at 127\.0\.0\.1/);
    assert.equal(await page.evaluate(() => localStorage.getItem("memdir-demo:embed")), null, "not stored unticked");
    await page.check("#embed-remember");
    assert.equal(JSON.parse(await page.evaluate(() => localStorage.getItem("memdir-demo:embed"))).model, "standin");
    await page.fill("#recall-query", "which datastore do the integration checks run on");
    await page.click("#recall-run");
    await page.waitForFunction(() => /semantic/.test(document.getElementById("recall-meta").dataset.answeredBy ?? ""));
    assert.ok(models.length > 0 && models.every((m) => m === "standin"), models.join());
    const whys = await page.$$eval("#recall-results .recalled .why", (ws) => ws.map((w) => w.textContent));
    assert.ok(whys.length > 0 && whys.every((w) => /cosine \d\.\d{3}$/.test(w)), whys.join("\n"));
    await shot("05b-recall-embeddings");
  } finally {
    await page.uncheck("#embed-remember");
    await page.fill("#embed-url", "");
    await page.fill("#embed-model", "");
    await page.unroute(`${origin}/v1/embeddings`);
  }
  assert.equal(await page.evaluate(() => localStorage.getItem("memdir-demo:embed")), null, "unticking forgets them");
  assert.match(await text("#embed-summary"), /none/);
});

test("the prompt and lint tabs render", async () => {
  await page.click('[role=tab][data-tab="prompt"]');
  await page.waitForFunction(() => document.getElementById("prompt-output").textContent.length > 100);
  assert.match(await text("#prompt-output"), /\/memdir-demo\/memory\//);
  await page.selectOption("#prompt-mode", "agent");
  await page.waitForFunction(() => document.getElementById("prompt-output").textContent.includes("Prefers pnpm"));
  await shot("06-prompt");
  await page.click('[role=tab][data-tab="lint"]');
  await page.waitForFunction(() => !/Checking/.test(document.getElementById("lint-meta").textContent));
  assert.match(await text("#lint-meta"), /finding|No problems/);
  await shot("07-lint");
});

test("after a reload the memory is still there (OPFS), and nothing was re-seeded", async () => {
  await openApp();
  const files = await listFiles();
  assert.equal(files.length, 7);
  assert.ok(files.includes("feedback_prefers_pnpm.md"));
  await page.click('#memory-list .memory-item[data-file="feedback_prefers_pnpm.md"]');
  await page.waitForFunction(() => document.getElementById("f-name").value === "Prefers pnpm");
  assert.equal(await page.inputValue("#f-type"), "feedback");
  assert.match(await page.inputValue("#f-body"), /pnpm install/);
  await shot("08-reloaded");
});

test("deleting a memory removes it from the list and the index", async () => {
  await page.click("#delete");
  await page.click("#delete"); // confirm
  await page.waitForSelector('#memory-list .memory-item[data-file="feedback_prefers_pnpm.md"]', { state: "detached" });
  assert.doesNotMatch(await text("#index-lines"), /Prefers pnpm/);
  assert.equal((await text("#gauge-lines")).trim(), "6 / 200");
});

test("export downloads { path: content }; import replaces the directory with it", async () => {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#export")]);
  const exported = JSON.parse(readFileSync(await download.path(), "utf8"));
  assert.deepEqual(Object.keys(exported).sort(), [
    "MEMORY.md", "feedback_real_database.md", "feedback_terse_answers.md", "project_auth_rewrite.md",
    "project_release_freeze.md", "reference_linear_ingest.md", "user_go_background.md",
  ]);
  assert.match(exported["feedback_terse_answers.md"], /^---\nname: Terse answers\n/);

  const only = {
    "MEMORY.md": "- [Imported one](user_imported.md) — came from a file\n",
    "user_imported.md": "---\nname: Imported one\ndescription: came from a file\ntype: user\n---\n\nHello.\n",
  };
  await page.setInputFiles("#import", { name: "export.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(only)) });
  await page.waitForFunction(() => document.querySelectorAll("#memory-list .memory-item[data-file]").length === 1);
  assert.deepEqual(await listFiles(), ["user_imported.md"]);
  assert.equal((await text("#gauge-lines")).trim(), "1 / 200");

  await page.setInputFiles("#import", { name: "bad.json", mimeType: "application/json", buffer: Buffer.from('{"../escape.md": "x"}') });
  await page.waitForSelector("#toast:not([hidden])");
  assert.match(await text("#toast"), /Import failed: refusing the path "..\/escape.md"/);
  assert.deepEqual(await listFiles(), ["user_imported.md"], "a refused import changes nothing");
  await shot("09-imported");
});

test("no console errors and no request left the page's origin", () => {
  assert.deepEqual(consoleErrors, []);
  assert.deepEqual(foreignRequests, []);
});

// The toolchain matrix: each case is a fresh project built against the packed tarball with one
// bundler / editor-extension template / test runner / TypeScript setting, then run; every case
// does save, scan, findRelevant and a bad input that must come back as a typed MemdirError
// (scenario.mjs). Browser cases run in Chromium (playwright-core over the system Chromium).
// Usage: node scripts/matrix/run.mjs <memdir-x.y.z.tgz> [case-name-filter]
// Prints TAP (`ok N - case: what it did`) and `# pass N` / `# fail N`.
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const tarball = resolve(process.argv[2] ?? "");
const only = process.argv[3] ? new RegExp(process.argv[3]) : null;
if (!process.argv[2] || !existsSync(tarball)) {
  console.error("usage: node scripts/matrix/run.mjs <memdir.tgz> [filter]");
  process.exit(2);
}
const tools = join(here, "node_modules");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// --- the shared project root: the tools (linked) and memdir (unpacked from the tarball) ---
const work = mkdtempSync(join(tmpdir(), "mx-"));
const shared = join(work, "node_modules");
mkdirSync(shared);
for (const name of readdirSync(tools)) {
  if (name === ".package-lock.json") continue;
  symlinkSync(join(tools, name), join(shared, name));
}
mkdirSync(join(shared, "memdir"));
await sh("tar", ["xzf", tarball, "-C", join(shared, "memdir"), "--strip-components=1"], work);

const scenarioEsm = readFileSync(join(here, "scenario.mjs"), "utf8");
const example = (name) => readFileSync(join(root, "tests", "examples", name), "utf8");
const scenarioCjs = scenarioEsm.replace("export async function scenario", "exports.scenario = async function scenario");

// --- helpers ---
function sh(cmd, args, cwd, env = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env, FORCE_COLOR: "0", NO_COLOR: "1" } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("close", (code) => resolvePromise({ code, out }));
    child.on("error", (e) => resolvePromise({ code: -1, out: String(e) }));
  });
}
const bin = (name) => join(shared, ".bin", name);
const slug = (name) => name.replace(/[^A-Za-z0-9.]+/g, "-").replace(/^-|-$/g, "");
const project = (name, files) => {
  const dir = join(work, slug(name));
  mkdirSync(dir, { recursive: true });
  files = { "scenario.mjs": scenarioEsm, "scenario.cjs": scenarioCjs, ...files };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
};
async function steps(dir, list) {
  let log = "";
  for (const [cmd, ...args] of list) {
    const r = await sh(cmd, args, dir);
    log += `$ ${[cmd, ...args].join(" ")}\n${r.out}`;
    if (r.code !== 0) throw new Error(`${[cmd, ...args].join(" ")} exited ${r.code}\n${tail(log)}`);
  }
  return log;
}
const tail = (text) => text.split("\n").slice(-40).join("\n");
const okLine = (out) => {
  const m = /MATRIX-OK ([^\n]*)/.exec(out);
  if (!m) throw new Error(`no MATRIX-OK line\n${tail(out)}`);
  return m[1].replace(/^\s*"|"\s*$/g, "");
};

// What a page, a worker or a Node program does with the scenario's outcome.
const reportPage = `
const report = (p) => p.then((t) => (document.title = "MATRIX-OK " + t), (e) => (document.title = "MATRIX-FAIL " + (e && e.stack || e)));`;
const reportWorker = `
const report = (p) => p.then((t) => postMessage("MATRIX-OK " + t), (e) => postMessage("MATRIX-FAIL " + (e && e.stack || e)));`;
const reportNode = `
const report = (p) => p.then((t) => console.log("MATRIX-OK " + t), (e) => { console.log("MATRIX-FAIL " + (e && e.stack || e)); process.exitCode = 1; });`;
const workerPage = (script, type) => `<!doctype html><meta charset="utf-8"><title>…</title><script>
const w = new Worker(${JSON.stringify(script)}${type ? `, { type: ${JSON.stringify(type)} }` : ""});
w.onmessage = (e) => (document.title = e.data);
w.onerror = (e) => (document.title = "MATRIX-FAIL worker error: " + e.message);
</script>`;
// The VS Code web extension host: a classic worker that loads the CommonJS bundle with a
// \`module\`/\`exports\` pair and calls \`activate()\`.
const extensionHost = (bundle) => `var module = { exports: {} }; var exports = module.exports;
importScripts(${JSON.stringify(bundle)});
Promise.resolve().then(() => module.exports.activate()).then((t) => postMessage("MATRIX-OK " + t), (e) => postMessage("MATRIX-FAIL " + (e && e.stack || e)));
`;
const pageHtml = (script, module = true) =>
  `<!doctype html><meta charset="utf-8"><title>…</title><script${module ? ' type="module"' : ""} src="${script}"></script>`;

// --- the cases ---
const cases = [];
const nodeCase = (name, files, build, run) =>
  cases.push({
    name,
    async go() {
      const dir = project(name, files);
      await steps(dir, build);
      const r = await sh(run[0], run.slice(1), dir);
      if (r.code !== 0 && !/MATRIX-OK/.test(r.out)) throw new Error(`${run.join(" ")} exited ${r.code}\n${tail(r.out)}`);
      if (r.code !== 0) throw new Error(`${run.join(" ")} exited ${r.code}\n${tail(r.out)}`);
      return okLine(r.out);
    },
  });
const browserCase = (name, files, build, served, page) =>
  cases.push({
    name,
    browser: true,
    async go(browse) {
      const dir = project(name, files);
      await steps(dir, build);
      return browse(join(dir, served), page);
    },
  });

const esbuild = (...args) => [bin("esbuild"), ...args, "--log-level=warning"];

browserCase(
  "esbuild esm page (README example esbuild-page.js: memdir/memdir_bg.wasm, --loader:.wasm=file)",
  {
    "package.json": '{ "private": true, "type": "module" }',
    "src/example.js": example("esbuild-page.js"),
    "src/main.js": `import * as m from "memdir";
import { memdir } from "./example.js";
import { scenario } from "../scenario.mjs";${reportPage}
report((async () => {
  if (!(memdir instanceof m.Memdir)) throw new Error("the example made no Memdir");
  await memdir.save({ name: "Role", description: "Senior Go dev", type: "user", body: "x", replace: true });
  if ((await memdir.scan()).length !== 1) throw new Error("the example's OPFS directory");
  return scenario(m, "esbuild esm page, over the README example");
})());`,
    "dist/index.html": pageHtml("./main.js"),
  },
  [esbuild("src/main.js", "--bundle", "--format=esm", "--platform=browser", "--outdir=dist", "--loader:.wasm=file")],
  "dist",
  "index.html",
);
browserCase(
  "esbuild esm module worker (memdir/inline)",
  {
    "package.json": '{ "private": true, "type": "module" }',
    "src/worker.js": `import * as m from "memdir/inline";
import { scenario } from "../scenario.mjs";${reportWorker}
report(scenario(m, "esbuild esm worker"));`,
    "dist/index.html": workerPage("./worker.js", "module"),
  },
  [esbuild("src/worker.js", "--bundle", "--format=esm", "--platform=browser", "--outdir=dist")],
  "dist",
  "index.html",
);
browserCase(
  "esbuild cjs browser classic worker (VS Code web extension template; README example vscode-web-extension.js, memdir/inline)",
  {
    "package.json": '{ "private": true }',
    "src/example.js": example("vscode-web-extension.js"),
    "src/extension.js": `import * as m from "memdir/inline";
import { activate as start } from "./example.js";
import { scenario } from "../scenario.mjs";
export async function activate() {
  const context = { subscriptions: [] };
  const memdir = await start(context);
  if (!(memdir instanceof m.Memdir) || context.subscriptions.length !== 1) throw new Error("the example's activate");
  return scenario(m, "esbuild cjs classic worker, over the README example");
}`,
    "dist/host.js": extensionHost("./extension.js"),
    "dist/index.html": workerPage("./host.js"),
  },
  [esbuild("src/extension.js", "--bundle", "--format=cjs", "--platform=browser", "--external:vscode", "--outfile=dist/extension.js")],
  "dist",
  "index.html",
);
nodeCase(
  "esbuild node cjs single file (memdir/inline)",
  {
    "package.json": '{ "private": true }',
    "src/main.js": `import * as m from "memdir/inline";
import { scenario } from "../scenario.mjs";${reportNode}
report(scenario(m, "esbuild node cjs"));`,
  },
  [esbuild("src/main.js", "--bundle", "--format=cjs", "--platform=node", "--outfile=out/cli.cjs")],
  ["node", "out/cli.cjs"],
);
nodeCase(
  "esbuild node esm single file (memdir, the .wasm copied beside it, init(url))",
  {
    "package.json": '{ "private": true, "type": "module" }',
    "src/main.js": `import * as m from "memdir";
import { scenario } from "../scenario.mjs";${reportNode}
report(m.init(new URL("./memdir_bg.wasm", import.meta.url)).then(() => scenario(m, "esbuild node esm")));`,
    "copy-wasm.cjs": 'require("fs").copyFileSync(require.resolve("memdir/memdir_bg.wasm"), "out/memdir_bg.wasm");',
  },
  [esbuild("src/main.js", "--bundle", "--format=esm", "--platform=node", "--outfile=out/cli.mjs"), ["node", "copy-wasm.cjs"]],
  ["node", "out/cli.mjs"],
);

cases.push({
  name: "esbuild node cjs single-file CLI (README example node-single-file.js, memdir/inline + memdir/node)",
  async go() {
    const dir = project("example-node-single-file", {
      "package.json": '{ "private": true }',
      "cli.js": example("node-single-file.js"),
      "memory/user_role.md": "---\nname: Role\ndescription: Senior Go dev\ntype: user\n---\nx\n",
    });
    await steps(dir, [esbuild("cli.js", "--bundle", "--platform=node", "--format=cjs", "--outfile=dist/cli.cjs")]);
    // Run from elsewhere: the bundle needs nothing beside it.
    const r = await sh("node", [join(dir, "dist", "cli.cjs"), join(dir, "memory") + "/"], tmpdir());
    if (r.code !== 0 || !r.out.includes("user_role.md — Senior Go dev")) throw new Error(`exit ${r.code}\n${tail(r.out)}`);
    return `the bundled CLI listed ${r.out.trim()}`;
  },
});
nodeCase(
  "esbuild node cjs bundle of `memdir` without the .wasm: init() is a typed error naming the ways out",
  {
    "package.json": '{ "private": true }',
    "src/main.js": `import * as m from "memdir";${reportNode}
report((async () => {
  const codeOf = (p) => p.then(() => "resolved", (e) => (m.isMemdirError(e) ? e.code + ": " + e.message : "untyped " + e));
  const missing = await codeOf(m.init());
  if (!missing.startsWith("UNSUPPORTED") || !missing.includes("memdir/inline")) throw new Error(missing);
  const bad = await codeOf(m.init(new Uint8Array([0, 97, 115, 109, 9, 9, 9, 9])));
  if (!bad.startsWith("INVALID_INPUT")) throw new Error(bad);
  return "init() → " + missing.slice(0, 11) + ", init(bad bytes) → " + bad.slice(0, 13);
})());`,
  },
  [esbuild("src/main.js", "--bundle", "--format=cjs", "--platform=node", "--outfile=out/cli.cjs")],
  ["node", "out/cli.cjs"],
);
cases.push({
  name: "require() with --no-experimental-require-module (README example require.cjs)",
  async go() {
    const dir = project("example-require", { "package.json": '{ "private": true }', "main.cjs": example("require.cjs") });
    const r = await sh("node", ["--no-experimental-require-module", "main.cjs"], dir);
    if (r.code !== 0 || !r.out.includes("user_role.md")) throw new Error(`exit ${r.code}\n${tail(r.out)}`);
    return `printed ${r.out.trim()}`;
  },
});

const webpack = (config) => ["node", "-e", `require("webpack")(require("./${config}"), (e, s) => { if (e || s.hasErrors()) { console.error(e || s.toString("errors-only")); process.exit(1); } })`];
browserCase(
  "webpack 5 target web (memdir, zero config)",
  {
    "package.json": '{ "private": true }',
    "webpack.config.cjs": `module.exports = { mode: "production", target: "web", entry: "./src/main.js", output: { path: __dirname + "/dist", filename: "main.js" } };`,
    "src/main.js": `import * as m from "memdir";
import { scenario } from "../scenario.mjs";${reportPage}
report(scenario(m, "webpack web"));`,
    "dist/index.html": pageHtml("./main.js", false),
  },
  [webpack("webpack.config.cjs")],
  "dist",
  "index.html",
);
browserCase(
  "webpack 5 target webworker + libraryTarget commonjs (VS Code web extension template; README example vscode-web-extension.js, memdir/inline)",
  {
    "package.json": '{ "private": true }',
    "webpack.config.cjs": `module.exports = {
  mode: "production", target: "webworker", entry: "./src/extension.js",
  output: { path: __dirname + "/dist", filename: "extension.js", libraryTarget: "commonjs" },
  resolve: { mainFields: ["browser", "module", "main"], extensions: [".ts", ".js"] },
  externals: { vscode: "commonjs vscode" }, devtool: "nosources-source-map",
};`,
    "src/example.js": example("vscode-web-extension.js"),
    "src/extension.js": `import * as m from "memdir/inline";
import { activate as start } from "./example.js";
import { scenario } from "../scenario.mjs";
export async function activate() {
  const context = { subscriptions: [] };
  const memdir = await start(context);
  if (!(memdir instanceof m.Memdir) || context.subscriptions.length !== 1) throw new Error("the example's activate");
  return scenario(m, "webpack webworker commonjs, over the README example");
}`,
    "dist/host.js": extensionHost("./extension.js"),
    "dist/index.html": workerPage("./host.js"),
  },
  [webpack("webpack.config.cjs")],
  "dist",
  "index.html",
);
nodeCase(
  "webpack 5 target node (memdir, zero config)",
  {
    "package.json": '{ "private": true }',
    "webpack.config.cjs": `module.exports = { mode: "production", target: "node", entry: "./src/main.js", output: { path: __dirname + "/dist", filename: "main.js" } };`,
    "src/main.js": `import * as m from "memdir";
import { scenario } from "../scenario.mjs";${reportNode}
report(scenario(m, "webpack node"));`,
  },
  [webpack("webpack.config.cjs")],
  ["node", "dist/main.js"],
);
browserCase(
  "Vite production build (memdir, zero config)",
  {
    "package.json": '{ "private": true, "type": "module" }',
    "index.html": pageHtml("/main.js"),
    "main.js": `import * as m from "memdir";
import { scenario } from "./scenario.mjs";${reportPage}
report(scenario(m, "vite build"));`,
  },
  [[bin("vite"), "build", "--logLevel", "warn"]],
  "dist",
  "index.html",
);

const vitestFile = (label, env) => `${env ? `// @vitest-environment ${env}\n` : ""}import { test } from "vitest";
import * as m from "memdir";
import { scenario } from "./scenario.mjs";
test("${label}", async () => {
  console.log("MATRIX-OK " + (await scenario(m, "${label}")));
});
`;
nodeCase("Vitest, node environment", { "package.json": '{ "private": true, "type": "module" }', "memdir.test.js": vitestFile("vitest node") }, [], [bin("vitest"), "run"]);
nodeCase(
  "Vitest, jsdom environment",
  { "package.json": '{ "private": true, "type": "module" }', "memdir.test.js": vitestFile("vitest jsdom", "jsdom") },
  [],
  [bin("vitest"), "run"],
);
nodeCase(
  "Jest CommonJS, jsdom environment",
  {
    "package.json": '{ "private": true, "jest": { "testEnvironment": "jsdom" } }',
    "memdir.test.js": `const m = require("memdir");
const { scenario } = require("./scenario.cjs");
test("jest cjs jsdom", async () => {
  if (typeof window === "undefined") throw new Error("not jsdom");
  console.log("MATRIX-OK " + (await scenario(m, "jest cjs jsdom")));
});
`,
  },
  [],
  [bin("jest"), "--ci"],
);
nodeCase(
  "Jest ESM (--experimental-vm-modules), jsdom environment",
  {
    "package.json": '{ "private": true, "type": "module", "jest": { "testEnvironment": "jsdom", "transform": {} } }',
    "memdir.test.js": `import * as m from "memdir";
import { scenario } from "./scenario.mjs";
test("jest esm jsdom", async () => {
  if (typeof window === "undefined") throw new Error("not jsdom");
  console.log("MATRIX-OK " + (await scenario(m, "jest esm jsdom")));
});
`,
  },
  [],
  ["node", "--experimental-vm-modules", join(shared, "jest", "bin", "jest.js"), "--ci"],
);
nodeCase(
  "require() with --no-experimental-require-module",
  {
    "package.json": '{ "private": true }',
    "main.js": `const m = require("memdir");
const { nodeFs } = require("memdir/node");
const { scenario } = require("./scenario.cjs");${reportNode}
if (typeof nodeFs !== "function") throw new Error("memdir/node");
report(scenario(m, "require (CommonJS build)"));`,
  },
  [],
  ["node", "--no-experimental-require-module", "main.js"],
);

// --- TypeScript: 5.x and 7.x; module node16, nodenext, bundler; lib ES2022 (+ @types/node),
// + DOM, + WebWorker, or alone (no host types at all); ESM and CommonJS consumers; strict, skipLibCheck off. Each is compiled and
// the output run. ---
const tsMain = (label, bare) => `${bare ? "declare const console: { log(text: string): void };\n" : ""}import * as m from "memdir";
import { init, Memdir, memoryFs, isMemdirError, MemdirError, type MemdirErrorCode, type MemoryHeader, type Recall } from "memdir";
import { nodeFs } from "memdir/node";
import type { MemoryFs } from "memdir";

async function main(): Promise<string> {
  await init();
  const fs: MemoryFs = memoryFs();
  const makeDisk: () => MemoryFs = nodeFs;
  void makeDisk;
  const memdir = new Memdir({ fs, dir: "/project/memory/" });
  await memdir.save({ name: "Deploy target", description: "Production deploys go to Fly.io, region ams", type: "project", body: "fly deploy" });
  const headers: MemoryHeader[] = await memdir.scan();
  const recall: Recall = await memdir.findRelevant("where does production deploy to?");
  if (headers.length !== 1 || recall.memories.length !== 1) throw new Error("scan/findRelevant");
  try {
    // @ts-expect-error "nonsense" is not a MemoryType
    await memdir.save({ name: "x", description: "x", type: "nonsense", body: "x" });
  } catch (e: unknown) {
    if (!isMemdirError(e) || !(e instanceof MemdirError)) throw e;
    const code: MemdirErrorCode = e.code;
    // @ts-expect-error codes are a union of literals
    const nope: MemdirErrorCode = "NOPE";
    void nope;
    // @ts-expect-error internals are not exported
    void m.initSync;
    // @ts-expect-error internals are not exported
    void m.__parseFrontmatter;
    return "${label}: typed, scan " + headers.length + ", findRelevant " + recall.answeredBy + ", bad input → " + code;
  }
  throw new Error("bad input accepted");
}
main().then((t) => console.log("MATRIX-OK " + t), (e: unknown) => { console.log("MATRIX-FAIL " + String(e)); throw e; });
`;
// One `tsc -b` per TypeScript version builds all of its projects (the lib files are parsed once);
// each case then reads its own errors from that output and runs its own output.
const tsGroups = new Map();
const tsBuild = (tsc) => {
  const group = tsGroups.get(tsc);
  if (!group.result) {
    const mine = group.projects.filter(([label]) => !only || only.test(label));
    for (const [label, files] of mine) project(label, files);
    group.result = sh("node", [tsc, "-b", ...mine.map(([label]) => slug(label))], work);
  }
  return group.result;
};
for (const [ts, tsc] of [
  ["TS 5.9", join(shared, "typescript", "bin", "tsc")],
  ["TS 7.0", join(shared, "ts7", "bin", "tsc")],
]) {
  for (const mod of ["node16", "nodenext", "bundler"]) {
    for (const lib of ["ES2022 + @types/node", "ES2022 + DOM", "ES2022 + WebWorker", "ES2022 alone"]) {
      for (const consumer of mod === "bundler" || lib === "ES2022 alone" ? ["ESM"] : ["ESM", "CJS"]) {
        const label = `${ts}, module ${mod}, lib ${lib}, ${consumer} consumer`;
        const compilerOptions = {
          strict: true,
          skipLibCheck: false,
          target: "ES2022",
          lib: lib.startsWith("ES2022 + @") || lib === "ES2022 alone" ? ["ES2022"] : ["ES2022", lib.split(" + ")[1]],
          types: lib.startsWith("ES2022 + @") ? ["node"] : [],
          module: mod === "bundler" ? "ES2022" : mod,
          moduleResolution: mod,
          outDir: "out",
          rootDir: "src",
        };
        const files = {
          "package.json": JSON.stringify({ private: true, type: consumer === "ESM" ? "module" : "commonjs" }),
          "tsconfig.json": JSON.stringify({ compilerOptions, include: ["src"] }, null, 2),
          "src/main.ts": tsMain(label, lib === "ES2022 alone"),
        };
        if (!tsGroups.has(tsc)) tsGroups.set(tsc, { projects: [] });
        tsGroups.get(tsc).projects.push([label, files]);
        cases.push({
          name: label,
          async go() {
            const built = await tsBuild(tsc);
            const dir = join(work, slug(label));
            if (built.code !== 0) {
              // Some project failed (errors in memdir's declarations are printed once, for no
              // project in particular): this project alone says whether it is one of them.
              const alone = await sh("node", [tsc, "-p", "."], dir);
              if (alone.code !== 0) throw new Error(`tsc -p:\n${tail(alone.out)}`);
            }
            if (!existsSync(join(dir, "out", "main.js"))) throw new Error(`tsc emitted nothing\n${tail(built.out)}`);
            const r = await sh("node", ["out/main.js"], dir);
            if (r.code !== 0) throw new Error(`node out/main.js exited ${r.code}\n${tail(r.out)}`);
            return okLine(r.out);
          },
        });
      }
    }
  }
}

nodeCase(
  "README quick start (Node) type-checks as strict TypeScript (TS 5.9, nodenext, @types/node)",
  {
    "package.json": '{ "private": true, "type": "module" }',
    "tsconfig.json": JSON.stringify({
      compilerOptions: { strict: true, skipLibCheck: false, target: "ES2022", lib: ["ES2022"], types: ["node"], module: "nodenext", moduleResolution: "nodenext", noEmit: true },
      include: ["src"],
    }),
    "src/quick-start.ts": example("quick-start-node.mjs"),
  },
  [["node", join(shared, "typescript", "bin", "tsc"), "-p", "."]],
  ["node", "-e", 'console.log("MATRIX-OK the README example type-checks")'],
);

// --- run ---
const selected = cases.filter((c) => !only || only.test(c.name));
const results = new Map();
const started = Date.now();

async function pool(list, width, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < list.length) {
        const c = list[next++];
        await fn(c);
      }
    }),
  );
}
const attempt = async (c, ...args) => {
  const t0 = Date.now();
  try {
    results.set(c, { ok: true, text: await c.go(...args), ms: Date.now() - t0 });
  } catch (e) {
    results.set(c, { ok: false, text: String(e?.stack ?? e), ms: Date.now() - t0 });
  }
};

// Node cases two at a time; browser cases one after another in one Chromium.
const nodeCases = selected.filter((c) => !c.browser);
const browserCases = selected.filter((c) => c.browser);
const browserRun = (async () => {
  if (browserCases.length === 0) return;
  const require = createRequire(join(root, "scripts", "package.json"));
  const { chromium } = require("playwright-core");
  let served = work;
  const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".map": "application/json" };
  const server = createServer((req, res) => {
    const path = join(served, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!path.startsWith(served) || !existsSync(path)) {
      res.writeHead(404).end("not found");
      return;
    }
    res.writeHead(200, { "content-type": types[extname(path)] ?? "application/octet-stream" });
    res.end(readFileSync(path));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const profile = mkdtempSync(join(tmpdir(), "mxc-"));
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"],
  });
  const browse = async (dir, page) => {
    served = dir;
    const tab = await browser.newPage();
    const errors = [];
    tab.on("pageerror", (e) => errors.push(String(e)));
    tab.on("console", (msg) => msg.type() === "error" && errors.push(msg.text()));
    try {
      await tab.goto(`${origin}/${page}`);
      await tab.waitForFunction(() => document.title.startsWith("MATRIX"), null, { timeout: 60000 }).catch(() => {});
      const title = await tab.title();
      if (!title.startsWith("MATRIX-OK ")) throw new Error(`${title || "(no result)"}\n${errors.join("\n")}`);
      return title.slice("MATRIX-OK ".length);
    } finally {
      await tab.close();
    }
  };
  try {
    for (const c of browserCases) await attempt(c, browse);
  } finally {
    await browser.close();
    server.close();
    rmSync(profile, { recursive: true, force: true });
  }
})();
await pool(nodeCases, 2, attempt);
await browserRun.catch((e) => {
  for (const c of browserCases) if (!results.has(c)) results.set(c, { ok: false, text: `browser: ${e?.stack ?? e}`, ms: 0 });
});

console.log("TAP version 13");
console.log(`1..${selected.length}`);
let pass = 0;
selected.forEach((c, i) => {
  const r = results.get(c);
  if (r.ok) pass++;
  console.log(`${r.ok ? "ok" : "not ok"} ${i + 1} - ${c.name} (${(r.ms / 1000).toFixed(1)} s)`);
  if (r.ok) console.log(`  # ${r.text}`);
  else console.log(r.text.split("\n").map((l) => `  # ${l}`).join("\n"));
});
console.log(`# matrix: ${((Date.now() - started) / 1000).toFixed(0)} s`);
console.log(`# pass ${pass}`);
console.log(`# fail ${selected.length - pass}`);
if (!process.env.MATRIX_KEEP) rmSync(work, { recursive: true, force: true });
else console.log(`# kept ${work}`);
process.exitCode = pass === selected.length ? 0 : 1;

// Browser start-up (issue #17): from navigation to `await init()` resolved (our page) or to
// gray-matter's first parse (the baseline page), both bundled by esbuild into one script, served
// over loopback (HTTP/1.1, uncompressed) by this process, loaded in headless Chromium with a fresh
// context (empty cache) each time, interleaved rounds.
//
//   node benches/browser-start.mjs      # after scripts/build.sh; BENCH_ROUNDS (default 15)
//
// esbuild is pinned in scripts/bench-tools/ (installed by scripts/setup.sh); Chromium is driven by
// playwright-core from scripts/node_modules. Each page writes `performance.now()` (milliseconds
// since navigation start) when it is ready; the figure is its median, with the median per-round
// ratio and its spread. gray-matter needs `Buffer.from`: its page gets a two-line stand-in.
import { createRequire } from "node:module";
import * as fs from "node:fs";
import * as http from "node:http";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const tools = createRequire(`${root}scripts/bench-tools/package.json`);
const scripts = createRequire(`${root}scripts/package.json`);
const esbuild = tools("esbuild");
const { chromium } = scripts("playwright-core");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const OUT = "/tmp/memdir-browser-start/";

const TEXT = "---\\nname: Role\\ndescription: Senior Go dev\\ntype: user\\n---\\nBody\\n";
const pages = {
  ours: `import { init, parseFrontmatter } from ${JSON.stringify(`${root}pkg/index.js`)};
await init();
window.__ready = performance.now();
window.__check = parseFrontmatter("${TEXT}").header.name;`,
  "gray-matter": `import matter from "gray-matter";
window.__check = matter("${TEXT}").data.name;
window.__ready = performance.now();`,
};

fs.rmSync(OUT, { recursive: true, force: true });
for (const [name, source] of Object.entries(pages)) {
  const dir = `${OUT}${name}/`;
  fs.mkdirSync(`${dir}dist`, { recursive: true });
  fs.writeFileSync(`${OUT}${name}.entry.js`, source);
  fs.writeFileSync(`${OUT}empty.js`, "export default {};\n");
  await esbuild.build({
    entryPoints: [`${OUT}${name}.entry.js`],
    bundle: true,
    format: "esm",
    minify: true,
    platform: "browser",
    outfile: `${dir}app.js`,
    nodePaths: [`${root}scripts/node_modules`],
    alias: { fs: `${OUT}empty.js` },
    external: ["isomorphic-git", "isomorphic-git/*"],
    logLevel: "error",
    // gray-matter calls `Buffer.from` (for `file.orig`): the smallest stand-in, lighter than the
    // `buffer` polyfill a real page would carry, so the baseline is not made slower than it is.
    banner: name === "gray-matter" ? { js: "globalThis.Buffer??={from:(s)=>new TextEncoder().encode(s),isBuffer:()=>false};" } : undefined,
  });
  // Our bundle fetches the module beside it (`new URL("./dist/memdir_bg.wasm", import.meta.url)`).
  if (name === "ours") fs.copyFileSync(`${root}pkg/dist/memdir_bg.wasm`, `${dir}dist/memdir_bg.wasm`);
  fs.writeFileSync(`${dir}index.html`, `<!doctype html><meta charset="utf-8"><title>${name}</title><script type="module" src="app.js"></script>\n`);
}

const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
const server = http.createServer((req, res) => {
  const path = `${OUT}${decodeURIComponent(new URL(req.url, "http://x").pathname).replace(/^\/+/, "").replace(/\/$/, "/index.html")}`;
  fs.readFile(path, (err, data) => {
    if (err) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[path.slice(path.lastIndexOf("."))] ?? "application/octet-stream", "cache-control": "no-store" });
    res.end(data);
  });
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `http://127.0.0.1:${server.address().port}/`;

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--no-sandbox"] });
const names = Object.keys(pages);
const times = new Map(names.map((n) => [n, []]));
for (let r = -1; r < ROUNDS; r++) {
  for (let k = 0; k < names.length; k++) {
    const name = names[(k + Math.max(r, 0)) % names.length];
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}${name}/`);
    await page.waitForFunction(() => window.__ready !== undefined, null, { timeout: 30000 });
    const [ready, check] = await page.evaluate(() => [window.__ready, window.__check]);
    if (check !== "Role") throw new Error(`${name}: the page parsed ${check}`);
    if (r >= 0) times.get(name).push(ready);
    await context.close();
  }
}
await browser.close();
server.close();

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const ours = times.get("ours"), gm = times.get("gray-matter");
const ratios = ours.map((x, i) => x / gm[i]);
const size = (name) => fs.readdirSync(`${OUT}${name}`, { recursive: true }).map((f) => `${OUT}${name}/${f}`).filter((f) => fs.statSync(f).isFile()).reduce((n, f) => n + fs.statSync(f).size, 0);
for (const [name, xs] of times) console.log(`  browser      ${name.padEnd(12)} median ${median(xs).toFixed(1)} ms  [${xs.map((x) => x.toFixed(0)).join(" ")}]  ${size(name)} B served`);
const ratio = median(ratios);
console.log(`| browser start, navigation → ready, esbuild bundle, loopback | ${median(ours).toFixed(1)} ms | gray-matter page ${median(gm).toFixed(1)} ms | ${ratio.toFixed(2)}× | ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)} | ≤ 1.2× | ${ratio <= 1.2 ? "yes" : "**no**"} |`);

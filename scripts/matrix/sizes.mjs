// The byte cost of each delivery form, as an app ships it: the entry bundled and minified by
// esbuild (everything the app imports from memdir), plus the .wasm where it is a separate file;
// raw, gzip -9 and brotli 11. Usage: node scripts/matrix/sizes.mjs [pkg-dir]  (prints a table)
import { build } from "esbuild";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const pkg = resolve(process.argv[2] ?? new URL("../../pkg", import.meta.url).pathname);
const wasm = readFileSync(resolve(pkg, "dist/memdir_bg.wasm"));

const sizes = (bytes) => ({
  raw: bytes.length,
  gzip: gzipSync(bytes, { level: 9 }).length,
  brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }).length,
});
async function bundle(entry, platform, format) {
  const out = await build({
    entryPoints: [resolve(pkg, entry)],
    bundle: true,
    minify: true,
    write: false,
    platform,
    format,
    logLevel: "silent",
    external: ["node:*"],
  });
  return Buffer.from(out.outputFiles[0].contents);
}

const rows = [
  ["`memdir` (browser ESM): JS + separate .wasm", await bundle("index.js", "browser", "esm"), wasm],
  ["`memdir/inline`: JS with the .wasm inside (gzipped, base64)", await bundle("inline.js", "browser", "esm"), null],
  ["`memdir` for Node (ESM or the CommonJS build): JS + .wasm", await bundle("index.node.js", "node", "esm"), wasm],
];
const fmt = (n) => n.toLocaleString("en-US");
console.log("| delivery form | JS raw / gzip / brotli | .wasm raw / gzip / brotli | total gzip | total brotli |");
console.log("|---|---|---|---|---|");
for (const [name, js, w] of rows) {
  const a = sizes(js);
  const b = w ? sizes(w) : null;
  console.log(
    `| ${name} | ${fmt(a.raw)} / ${fmt(a.gzip)} / ${fmt(a.brotli)} | ${b ? `${fmt(b.raw)} / ${fmt(b.gzip)} / ${fmt(b.brotli)}` : "—"} | ${fmt(a.gzip + (b?.gzip ?? 0))} | ${fmt(a.brotli + (b?.brotli ?? 0))} |`,
  );
}

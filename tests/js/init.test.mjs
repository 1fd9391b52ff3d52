// init(source) takes the module's bytes, a compiled WebAssembly.Module, a Response, a path or a
// file: URL; a bad source is a typed error and a later good one still loads. Each case runs in a
// fresh process on the browser entry (the Node entry is ready at import, so its init is a no-op).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { fileURLToPath } from "node:url";

const pkg = new URL("./node_modules/memdir/", import.meta.url);
const wasm = fileURLToPath(new URL("dist/memdir_bg.wasm", pkg));
const run = promisify(execFile);

async function load(makeSource) {
  const program = `
    import { readFileSync } from "node:fs";
    import { pathToFileURL } from "node:url";
    const m = await import(${JSON.stringify(new URL("index.js", pkg).href)});
    const path = ${JSON.stringify(wasm)};
    const bytes = readFileSync(path);
    let first = "none";
    await m.init(new Uint8Array([1, 2, 3])).catch((e) => (first = m.isMemdirError(e) ? e.code : "untyped " + e));
    await m.init(${makeSource});
    console.log(first, m.slugify("Senior Go dev"));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", program]);
  return stdout.trim();
}

for (const [what, source] of [
  ["bytes", "bytes"],
  ["an ArrayBuffer", "bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length)"],
  ["a WebAssembly.Module", "await WebAssembly.compile(bytes)"],
  ["a Response", 'new Response(bytes, { headers: { "content-type": "application/wasm" } })'],
  ["a path", "path"],
  ["a file: URL", "pathToFileURL(path)"],
  ["a file: URL as a string", "pathToFileURL(path).href"],
]) {
  test(`init(${what}) loads the module, after a bad source was refused with INVALID_INPUT`, async () => {
    assert.equal(await load(source), "INVALID_INPUT senior_go_dev");
  });
}

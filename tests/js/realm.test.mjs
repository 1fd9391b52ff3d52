// Byte arrays, errors and text from another realm (a vm context stands for jsdom, an iframe or a
// test runner's sandbox), and the TextEncoder/TextDecoder stand-ins of realms that lack them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runInNewContext } from "node:vm";
import { Memdir, memoryFs, isMemdirError, MemdirError } from "memdir";
// The stand-ins are internal (not exported); the test reads the installed file directly.
const { fallback } = await import(new URL("./node_modules/memdir/lib/text.js", import.meta.url).href);

const other = (code) => runInNewContext(code);

test("a readHead answering another realm's Uint8Array (or ArrayBuffer) still lets scan read headers", async () => {
  for (const wrap of [(b) => other("(b) => new Uint8Array(b)")([...b]), (b) => other("(b) => new Uint8Array(b).buffer")([...b])]) {
    const fs = memoryFs();
    const readHead = fs.readHead;
    fs.readHead = async (path, max) => wrap(await readHead(path, max));
    const sample = wrap([1]);
    assert.ok(!(sample instanceof Uint8Array) && !(sample instanceof ArrayBuffer), "from another realm");
    const memdir = new Memdir({ fs, dir: "/mem/" });
    await memdir.save({ name: "Role", description: "Senior Go dev", type: "user", body: "x" });
    const headers = await memdir.scan();
    assert.deepEqual(headers.map((h) => h.description), ["Senior Go dev"]);
  }
});

test("an embedder answering another realm's Float32Arrays is used, not dropped", async () => {
  const vectors = other("(n) => Array.from({ length: n }, (_, i) => new Float32Array([1, i % 2, 0.5]))");
  const embed = async (texts) => vectors(texts.length);
  const memdir = new Memdir({ fs: memoryFs(), dir: "/mem/", embed, embedModel: "t" });
  await memdir.save({ name: "Role", description: "Senior Go dev", type: "user", body: "x" });
  const { answeredBy } = await memdir.findRelevant("what does the senior go dev prefer?");
  assert.match(answeredBy, /semantic/);
});

test("a MemdirError from another realm is a MemdirError; a plain object claiming the name is not", () => {
  const foreign = other('const e = new Error("x"); e.name = "MemdirError"; e.code = "NOT_FOUND"; e');
  assert.equal(foreign instanceof Error, false);
  assert.ok(isMemdirError(foreign));
  assert.ok(foreign instanceof MemdirError);
  assert.equal(isMemdirError({ name: "MemdirError", code: "NOT_FOUND", message: "x" }), false);
});

test("the UTF-8 stand-ins agree with the platform's TextEncoder and TextDecoder", () => {
  const enc = new fallback.TextEncoder();
  const dec = new fallback.TextDecoder("utf-8", { ignoreBOM: true });
  const platformDec = new TextDecoder("utf-8", { ignoreBOM: true });
  const texts = ["", "abc", "é€😀", "\ud800x", "x\udc00", "a\u0800\uffff\u{10ffff}"];
  let seed = 7;
  const rand = (n) => ((seed = (seed * 1103515245 + 12345) % 2147483648), seed % n);
  for (let i = 0; i < 500; i++) texts.push(String.fromCharCode(...Array.from({ length: 6 }, () => rand(0x10000))));
  for (const text of texts) {
    assert.deepEqual(enc.encode(text), new TextEncoder().encode(text), JSON.stringify(text));
    for (const size of [0, 1, 2, 3, 5]) {
      const a = new Uint8Array(size);
      const b = new Uint8Array(size);
      assert.deepEqual(enc.encodeInto(text, a), new TextEncoder().encodeInto(text, b));
      assert.deepEqual(a, b);
    }
  }
  const pieces = [0x41, 0x80, 0xbf, 0xc2, 0xe0, 0xed, 0xf0, 0xf4, 0xa0, 0x9f, 0x90, 0x8f, 0xff, 0xef, 0xbb];
  for (let i = 0; i < 5000; i++) {
    const bytes = Uint8Array.from({ length: rand(8) }, () => pieces[rand(pieces.length)]);
    assert.equal(dec.decode(bytes), platformDec.decode(bytes), [...bytes].join(","));
  }
  assert.throws(() => new fallback.TextDecoder("utf-8", { fatal: true }).decode(new Uint8Array([0xff])), TypeError);
});

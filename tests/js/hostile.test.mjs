// Every export, constructor and method, called with hostile values: each call returns, or fails
// with a `MemdirError` that has a code, and none hangs (issue 19, item 14).
import { test } from "node:test";
import assert from "node:assert/strict";
import * as api from "memdir";
import * as nodeApi from "memdir/node";

/** A Proxy whose every trap throws its own error. */
function throwingProxy() {
  const handler = {};
  for (const trap of [
    "get", "set", "has", "deleteProperty", "ownKeys", "getOwnPropertyDescriptor", "defineProperty",
    "getPrototypeOf", "setPrototypeOf", "isExtensible", "preventExtensions", "apply", "construct",
  ]) {
    handler[trap] = () => {
      throw new Error(`proxy trap ${trap}`);
    };
  }
  return new Proxy(function () {}, handler);
}

/** An array nested `depth` levels deep. */
function nested(depth) {
  let a = [];
  for (let i = 0; i < depth; i++) a = [a];
  return a;
}

/** An object whose likely option names are getters that throw. */
function throwingGetters() {
  const o = {};
  for (const key of [
    "fs", "dir", "llm", "body", "name", "description", "type", "file", "title", "hook", "query",
    "messages", "text", "path", "options", "maxUnits", "maxLines", "signal", "timeoutMs", "baseUrl",
    "repo", "transport", "apiKey", "model", "fetch", "view_range", "command", "length", "0", "1",
  ]) {
    Object.defineProperty(o, key, {
      enumerable: true,
      get() {
        throw new Error(`getter ${key}`);
      },
    });
  }
  return o;
}

const badToString = {
  toString() {
    throw new Error("toString");
  },
  valueOf() {
    throw new Error("valueOf");
  },
  [Symbol.toPrimitive]() {
    throw new Error("toPrimitive");
  },
};

const HOSTILE = [
  ["undefined", () => undefined],
  ["null", () => null],
  ["BigInt", () => 10n],
  ["Symbol", () => Symbol("s")],
  ["throwing Proxy", throwingProxy],
  ["nested array (100k levels)", () => nested(100_000)],
  ["throwing getters", throwingGetters],
  ["NaN", () => NaN],
  ["huge number", () => 1e308],
  ["-Infinity", () => -Infinity],
  ["throwing toString", () => badToString],
];

const CALL_MS = 5000;

/** Run `call`; its outcome as `"ok"`, or the error it threw or rejected with. Fails on a hang. */
async function outcome(label, call) {
  let timer;
  const hang = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${label}: no answer after ${CALL_MS} ms`)), CALL_MS);
  });
  try {
    await Promise.race([Promise.resolve().then(call), hang]);
    return "ok";
  } catch (e) {
    if (e instanceof Error && e.message.endsWith(`no answer after ${CALL_MS} ms`)) throw e;
    return e;
  } finally {
    clearTimeout(timer);
  }
}

function describeError(e) {
  try {
    return `${e?.name}: ${e?.code ?? "(no code)"}: ${e?.message}`;
  } catch {
    return String(typeof e);
  }
}

/** Calls `fn(args)` with each hostile value in each of the first `positions` argument slots. */
async function hostileCalls(label, positions, fn, failures) {
  let calls = 0;
  for (let at = 0; at < positions; at++) {
    for (const [name, make] of HOSTILE) {
      const args = [undefined, undefined, undefined].slice(0, positions);
      args[at] = make();
      const what = `${label} [arg ${at} = ${name}]`;
      const result = await outcome(what, () => fn(args));
      calls++;
      if (result !== "ok" && !(api.isMemdirError(result) && typeof result.code === "string" && result.code !== "")) {
        failures.push(`${what}: ${describeError(result)}`);
      }
    }
  }
  return calls;
}

const CLASSES = new Set(["Memdir", "Extractor", "TeamSync", "RecallSession", "MemdirError"]);

function freshMemdir() {
  return new api.Memdir({ fs: api.memoryFs(), dir: "/mem/" });
}

test("every exported function throws only MemdirErrors for hostile arguments", async () => {
  const failures = [];
  let calls = 0;
  const exports = { ...api, ...nodeApi };
  for (const [name, value] of Object.entries(exports)) {
    // `__` names are the package's own internals (not declared in its types); `__trapInTask`
    // ends the instance on purpose (tests/js/trap.test.mjs).
    if (typeof value !== "function" || CLASSES.has(name) || name.startsWith("__")) continue;
    calls += await hostileCalls(name, Math.max(3, value.length), (args) => value(...args), failures);
  }
  assert.ok(calls > 300, `only ${calls} calls`);
  assert.deepEqual(failures, []);
});

test("every constructor throws only MemdirErrors for hostile arguments", async () => {
  const failures = [];
  for (const name of CLASSES) {
    const cls = api[name];
    assert.equal(typeof cls, "function", name);
    await hostileCalls(`new ${name}`, 3, (args) => new cls(...args), failures);
  }
  assert.deepEqual(failures, []);
});

/** Instances of every exported class, by name, with the names of their methods and getters. */
function instances() {
  const memdir = freshMemdir();
  const sync = memdir.teamSync({ baseUrl: "http://127.0.0.1:9/", repo: "acme/app", transport: api.fetchTransport() });
  return [
    ["Memdir", freshMemdir, api.Memdir],
    ["Extractor", () => new api.Extractor(), api.Extractor],
    ["TeamSync", () => sync, api.TeamSync],
    ["RecallSession", () => new api.RecallSession(), api.RecallSession],
  ];
}

test("every method and getter throws only MemdirErrors for hostile arguments", async () => {
  const failures = [];
  let calls = 0;
  for (const [name, make, cls] of instances()) {
    for (const key of Object.getOwnPropertyNames(cls.prototype)) {
      if (key === "constructor" || key === "free") continue;
      const d = Object.getOwnPropertyDescriptor(cls.prototype, key);
      if (typeof d.get === "function") {
        const result = await outcome(`${name}.${key}`, () => d.get.call(make()));
        if (result !== "ok" && !api.isMemdirError(result)) failures.push(`${name}.${key}: ${describeError(result)}`);
        continue;
      }
      if (typeof d.value !== "function" || key === "start") continue;
      calls += await hostileCalls(`${name}.${key}`, 3, (args) => d.value.apply(make(), args), failures);
      // A receiver that is not an instance.
      const wrongThis = await outcome(`${name}.${key} on {}`, () => d.value.call({}, undefined));
      if (wrongThis !== "ok" && !api.isMemdirError(wrongThis)) failures.push(`${name}.${key} on {}: ${describeError(wrongThis)}`);
    }
  }
  assert.ok(calls > 200, `only ${calls} calls`);
  assert.deepEqual(failures, []);
});

test("Extractor.run refuses something other than a Memdir with INVALID_INPUT", async () => {
  const extractor = new api.Extractor();
  for (const memdir of [{}, null, "x", throwingProxy()]) {
    await assert.rejects(
      async () => extractor.run(memdir, []),
      (e) => api.isMemdirError(e) && e.code === "INVALID_INPUT",
    );
  }
});

test("the adapters take null as no options and refuse unreadable ones", () => {
  for (const make of [api.anthropicLlm, api.openAiLlm, api.openAiEmbed]) {
    assert.throws(() => make(throwingProxy()), (e) => api.isMemdirError(e) && e.code === "INVALID_INPUT");
  }
  // No key: refused with INVALID_INPUT, not a TypeError from destructuring null.
  assert.throws(() => api.anthropicLlm(null), (e) => e.code === "INVALID_INPUT");
  assert.throws(() => api.openAiLlm(null), (e) => e.code === "INVALID_INPUT");
  assert.equal(typeof api.openAiEmbed(null), "function");
  const fs = api.memoryFs(null);
  assert.equal(typeof fs.readFile, "function");
  assert.throws(() => api.memoryFs({ "/a.md": Symbol("x") }), (e) => e.code === "INVALID_INPUT");
});

// Two processes writing one memory directory lose nothing; a writer killed mid-save leaves
// every file whole and the index consistent after the next write.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir, parseFrontmatter, parseIndexEntry } from "memdir";
import { nodeFs } from "memdir/node";

const writer = new URL("./writer.mjs", import.meta.url).pathname;

function run(dir, prefix, count, onLine) {
  const child = spawn(process.execPath, [writer, dir, prefix, String(count)], { stdio: ["ignore", "pipe", "inherit"] });
  let buffered = "";
  child.stdout.on("data", (chunk) => {
    buffered += chunk;
    let i;
    while ((i = buffered.indexOf("\n")) >= 0) {
      onLine?.(buffered.slice(0, i), child);
      buffered = buffered.slice(i + 1);
    }
  });
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
}

async function memoryFiles(dir) {
  return (await readdir(dir)).filter((n) => n.endsWith(".md") && n !== "MEMORY.md");
}

test("two processes saving 300 memories each: MEMORY.md ends with all 600", { timeout: 180000 }, async () => {
  const dir = (await mkdtemp(join(tmpdir(), "memdir-conc-"))) + "/";
  const [a, b] = await Promise.all([run(dir, "alpha", 300), run(dir, "beta", 300)]);
  assert.equal(a.code, 0);
  assert.equal(b.code, 0);
  const files = await memoryFiles(dir);
  assert.equal(files.length, 600);
  const index = await readFile(join(dir, "MEMORY.md"), "utf8");
  const entries = index.split("\n").map(parseIndexEntry).filter(Boolean);
  assert.equal(entries.length, 600);
  assert.deepEqual(new Set(entries.map((e) => e.file)), new Set(files));
  for (const f of files) {
    const parsed = parseFrontmatter(await readFile(join(dir, f), "utf8"));
    assert.ok(parsed.header.name && parsed.header.description && parsed.header.type, f);
  }
});

test("SIGKILL mid-save: no torn file, index consistent after the next write", { timeout: 120000 }, async () => {
  const dir = (await mkdtemp(join(tmpdir(), "memdir-kill-"))) + "/";
  let saves = 0;
  const result = await run(dir, "victim", 100000, (line, child) => {
    if (line.startsWith("saved") && ++saves === 40) child.kill("SIGKILL");
  });
  assert.equal(result.signal, "SIGKILL");
  for (const f of await memoryFiles(dir)) {
    const text = await readFile(join(dir, f), "utf8");
    const parsed = parseFrontmatter(text);
    assert.ok(parsed.header.name && parsed.header.type, `torn file ${f}`);
    assert.ok(text.endsWith(".\n"), `torn body ${f}`);
  }
  // The killed writer's lock is stale after lockStaleMs; the next write recovers and the
  // index then lists exactly the files on disk.
  const m = new Memdir({ fs: nodeFs(), dir, store: { lockStaleMs: 200, lockTimeoutMs: 20000 } });
  await m.save({ name: "after the crash", description: "written after a SIGKILL", type: "project", body: "ok.\n" });
  const listed = await m.list();
  const files = new Set(await memoryFiles(dir));
  for (const l of listed) assert.ok(files.has(l.file), `index points at missing ${l.file}`);
  for (const f of files) assert.ok(listed.some((l) => l.file === f), `file missing from index ${f}`);
});

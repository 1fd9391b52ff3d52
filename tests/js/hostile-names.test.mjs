// Issue #19 items 11, 12, 13 from JS: files that are not UTF-8 on a real disk, the memory
// directory a Memdir is opened on, and secrets in the error messages the CLI prints.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtemp, mkdir, writeFile, readFile, realpath } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Memdir, memoryFs, resolveMemoryDir, isMemdirError } from "memdir";
import { nodeFs } from "memdir/node";

const here = fileURLToPath(new URL(".", import.meta.url));
const BIN = join(here, "node_modules", ".bin", "memdir");
const TOKEN = `ghp_${"a1B2".repeat(9)}`;

async function tempDir() {
  return realpath(await mkdtemp(join(tmpdir(), "memdir-names-")));
}

const hasCode = (code) => (e) => isMemdirError(e) && e.code === code;

for (const [label, options] of [["async", {}], ["sync", { sync: true }]]) {
  test(`an edit of a file that is not UTF-8 is refused and its bytes kept (nodeFs ${label})`, async () => {
    const dir = join(await tempDir(), "memory");
    await mkdir(dir, { recursive: true });
    // `café` with `é` as the Latin-1 byte 0xE9.
    const latin1 = Buffer.concat([
      Buffer.from("---\nname: Cafe\ndescription: a place\ntype: user\n---\n\ncaf"),
      Buffer.from([0xe9]),
      Buffer.from(" on the corner\n"),
    ]);
    await writeFile(join(dir, "cafe.md"), latin1);
    const m = new Memdir({ fs: nodeFs(options), dir });
    await assert.rejects(m.update("cafe.md", { description: "the place" }), hasCode("INVALID_MEMORY"));
    await assert.rejects(
      m.memoryCommand({ command: "str_replace", path: "/memories/cafe.md", old_str: "corner", new_str: "square" }),
      hasCode("INVALID_MEMORY"),
    );
    assert.deepEqual(await readFile(join(dir, "cafe.md")), latin1);
    // Reads for the model stay lossy and keep working.
    const headers = await m.scan();
    assert.equal(headers.find((h) => h.filename === "cafe.md").description, "a place");
    const [shown] = await m.surface([{ path: join(dir, "cafe.md"), mtimeMs: Date.now() }]);
    assert.match(shown.text, /caf\uFFFD on the corner/);
  });
}

test("an empty, relative or NUL memory directory is refused with INVALID_INPUT", async () => {
  for (const dir of ["", "/", "memory/", "./memory", "/tmp/a\0b/"]) {
    assert.throws(() => new Memdir({ fs: memoryFs(), dir }), hasCode("INVALID_INPUT"), JSON.stringify(dir));
  }
  assert.equal(new Memdir({ fs: memoryFs(), dir: "/memory//" }).dir, "/memory/");
  // Without `home` the default directory would be relative: refused, not returned.
  await assert.rejects(resolveMemoryDir({ projectRoot: "/work/app" }), hasCode("INVALID_INPUT"));
  assert.equal(
    await resolveMemoryDir({ projectRoot: "/work/app", home: "/home/u" }),
    "/home/u/.claude/projects/-work-app/memory/",
  );
});

test("error messages redact secrets they quote, in the library and in the CLI", async () => {
  const m = new Memdir({ fs: memoryFs(), dir: "/memory/" });
  const rejected = [
    m.save({ name: "n", description: "d", type: TOKEN, body: "b" }),
    m.save({ name: "n", description: "d", type: "user", body: "b", file: `a/../../${TOKEN}.md` }),
    m.save({ name: "n", description: "d", type: "user", body: "b", file: `${TOKEN}\0.md` }),
    m.save({ name: "n", description: "d", type: "user", body: "b", scope: "team", file: `${TOKEN}.md` }),
  ];
  for (const promise of rejected) {
    await assert.rejects(promise, (e) => {
      assert.ok(isMemdirError(e), String(e));
      assert.ok(!e.message.includes(TOKEN), e.message);
      return true;
    });
  }
  const dir = join(await tempDir(), "memory");
  const result = spawnSync(
    BIN,
    ["save", "--dir", dir, "--name", "n", "--description", "d", "--type", TOKEN, "--body", "b"],
    { encoding: "utf8", env: { PATH: process.env.PATH, HOME: await tempDir() }, timeout: 30_000 },
  );
  assert.equal(result.status, 2, result.stderr);
  assert.match(result.stderr, /INVALID_MEMORY|\[REDACTED\]/);
  assert.ok(result.stderr.includes("[REDACTED]"), result.stderr);
  assert.ok(!result.stderr.includes(TOKEN) && !result.stdout.includes(TOKEN));
});

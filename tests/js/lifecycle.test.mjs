// Lint, extraction, consolidation changesets, proposals, the memory tool and team sync through
// the installed package, with scripted LLM replies.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { Memdir, memoryFs, Extractor, TeamSync, fetchTransport, isMemdirError } from "memdir";

const reply = (obj) => () => JSON.stringify(obj);

test("lint finds planted problems and nothing in a clean directory", async () => {
  const clean = new Memdir({ fs: memoryFs(), dir: "/clean/" });
  await clean.save({ name: "Role", description: "Senior Go dev", type: "user", body: "Go." });
  assert.deepEqual((await clean.lint()).findings, []);

  const fs = memoryFs({
    "/m/MEMORY.md": "- [Gone](gone.md) — points nowhere\n- [Ok](ok.md) — fine\n",
    "/m/ok.md": "---\nname: Ok\ndescription: fine\ntype: user\n---\nbody\n",
    "/m/untyped.md": "---\nname: Untyped\ndescription: no type here\ntype: User\n---\nbody\n",
    "/m/leak.md": `---\nname: Leak\ndescription: a token\ntype: reference\n---\nghp_${"a1B2c3D4".repeat(4)}e5F6\n`,
  });
  const codes = (await new Memdir({ fs, dir: "/m/" }).lint()).findings.map((f) => f.code);
  for (const code of ["DANGLING_INDEX_ENTRY", "UNKNOWN_TYPE", "UNINDEXED_FILE", "SECRET"]) assert.ok(codes.includes(code), code);
});

test("extraction applies valid operations and refuses hostile ones", async () => {
  const llm = reply({
    operations: [
      { op: "create", file: "user_pnpm.md", type: "user", name: "Prefers pnpm", description: "Uses pnpm everywhere", body: "pnpm." },
      { op: "create", file: "../../etc/passwd.md", type: "user", name: "Evil", description: "escape", body: "x" },
      { op: "create", file: "k.md", type: "reference", name: "Key", description: "a key", body: `npm_${"x".repeat(36)}` },
    ],
  });
  const fs = memoryFs();
  const memdir = new Memdir({ fs, dir: "/m/", llm });
  const out = await memdir.extract([{ role: "user", text: "Remember that I use pnpm", id: "1" }]);
  assert.deepEqual(out.created, ["user_pnpm.md"]);
  assert.equal(out.rejected.length, 2);
  assert.ok(!JSON.stringify(out).includes("x".repeat(36)), "no secret in the outcome");
  assert.ok(Object.keys(fs.toJSON()).every((p) => p.startsWith("/m/")));

  const extractor = new Extractor({ everyN: 1 });
  const calls = [];
  const counting = new Memdir({ fs: memoryFs(), dir: "/n/", llm: (r) => (calls.push(r), JSON.stringify({ operations: [] })) });
  const convo = [{ role: "user", text: "hello there", id: "a" }];
  await extractor.run(counting, convo);
  const again = await extractor.run(counting, convo);
  assert.deepEqual(again.status, { status: "skipped", reason: "no-new-messages" });
  assert.equal(calls.length, 1, "nothing is extracted twice");
});

test("consolidation returns a changeset; apply then undo restores the directory", async () => {
  const fs = memoryFs();
  const memdir = new Memdir({
    fs,
    dir: "/m/",
    llm: reply({
      operations: [{ op: "update", file: "user_a.md", type: "user", name: "A", description: "merged", body: "merged body" }],
      index: "- [A](user_a.md) — merged\n",
      summary: "merged two notes",
    }),
  });
  await memdir.save({ name: "A", description: "first", type: "user", body: "one", file: "user_a.md" });
  await memdir.save({ name: "B", description: "second", type: "user", body: "two", file: "user_b.md" });
  const memoryFiles = () => Object.fromEntries(Object.entries(fs.toJSON()).filter(([p]) => !p.endsWith(".consolidate-lock")));
  const before = memoryFiles();
  const out = await memdir.consolidate({ force: true });
  assert.equal(out.status, "ready");
  assert.ok(fs.toJSON()["/m/.consolidate-lock"] !== undefined, "the run is recorded in the lock file");
  assert.deepEqual(memoryFiles(), before, "no memory written before apply");
  await memdir.applyChangeset(out.changeset);
  assert.equal(fs.toJSON()["/m/user_a.md"].includes("merged body"), true);
  await memdir.undoChangeset();
  const after = memoryFiles();
  for (const [path, text] of Object.entries(before)) assert.equal(after[path], text, path);
});

test("confirm mode turns writes into proposals the host can apply", async () => {
  const fs = memoryFs();
  const memdir = new Memdir({ fs, dir: "/m/", writeMode: "confirm" });
  const out = await memdir.save({ name: "N", description: "d", type: "project", body: "b" });
  assert.equal(out.status, "proposed");
  assert.equal(Object.keys(fs.toJSON()).length, 0);
  const applied = await memdir.applyProposal(out);
  assert.equal(applied.status, "saved");
  const readOnly = new Memdir({ fs, dir: "/m/", writeMode: "read-only" });
  await assert.rejects(readOnly.save({ name: "X", description: "d", type: "user", body: "b" }), (e) => e.code === "WRITE_FORBIDDEN");
});

test("the memory tool works under /memories and refuses traversal", async () => {
  const memdir = new Memdir({ fs: memoryFs(), dir: "/m/" });
  await memdir.memoryCommand({ command: "create", path: "/memories/notes.md", file_text: "line one\n" });
  await memdir.memoryCommand({ command: "str_replace", path: "/memories/notes.md", old_str: "one", new_str: "two" });
  const view = await memdir.memoryCommand({ command: "view", path: "/memories/notes.md" });
  assert.match(view.text, /line two/);
  for (const path of ["/memories/../etc/passwd", "/etc/passwd", "/memories/%2e%2e/x", "/memories/a\\b"]) {
    await assert.rejects(memdir.memoryCommand({ command: "view", path }), (e) => isMemdirError(e) && e.code.startsWith("PATH_"), path);
  }
});

test("team sync pulls, pushes changed keys, and skips files with secrets", async () => {
  const server = { entries: { "a.md": "from server\n" }, version: 1, puts: [] };
  const http = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      const checksum = `sha256:v${server.version}`;
      if (req.method === "GET") {
        res.writeHead(200, { "content-type": "application/json", etag: `"${checksum}"` });
        return res.end(JSON.stringify({ version: server.version, checksum, content: { entries: server.entries } }));
      }
      const { entries } = JSON.parse(body);
      server.puts.push(Object.keys(entries));
      Object.assign(server.entries, entries);
      server.version++;
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ checksum: `sha256:v${server.version}` }));
    });
  });
  await new Promise((r) => http.listen(0, "127.0.0.1", r));
  const fs = memoryFs();
  const sync = new TeamSync({ fs, dir: "/m/", baseUrl: `http://127.0.0.1:${http.address().port}`, repo: "acme/app", transport: fetchTransport() });
  const pulled = await sync.pull();
  assert.equal(pulled.filesWritten, 1);
  assert.equal(fs.toJSON()["/m/team/a.md"], "from server\n");
  await fs.writeFile("/m/team/b.md", "new local note\n");
  await fs.writeFile("/m/team/c.md", `token ghp_${"a1B2c3D4".repeat(4)}e5F6\n`);
  const pushed = await sync.push();
  assert.equal(pushed.filesUploaded, 1);
  assert.deepEqual(server.puts.at(-1), ["b.md"]);
  assert.deepEqual(pushed.skippedSecrets.map((s) => s.ruleId), ["github-pat"]);
  http.close();
});

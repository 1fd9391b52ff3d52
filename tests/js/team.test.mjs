// Team memory on a real temporary directory through the Node adapter: symlinks inside team/
// that lead outside, dangle, or loop are refused before anything is written; secrets too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, symlink, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir, isMemdirError } from "memdir";
import { nodeFs } from "memdir/node";

const memory = (file) => ({ name: "Shared note", description: "for the whole team", type: "project", body: "ok", scope: "team", file });

test("symlinks in team/ cannot take a write outside", async () => {
  const root = await mkdtemp(join(tmpdir(), "memdir-team-"));
  const dir = join(root, "memory");
  const outside = join(root, "outside");
  await mkdir(join(dir, "team"), { recursive: true });
  await mkdir(outside);
  await symlink(outside, join(dir, "team", "escape"));
  await symlink(join(root, "nowhere"), join(dir, "team", "dangling"));
  await symlink(join(dir, "team", "loop"), join(dir, "team", "loop"));
  const m = new Memdir({ fs: nodeFs(), dir });

  const cases = [
    ["escape/x.md", "PATH_SYMLINK_ESCAPE"],
    ["dangling/x.md", "PATH_DANGLING_SYMLINK"],
    ["loop/x.md", "PATH_SYMLINK_LOOP"],
    ["../x.md", "PATH_ESCAPES"],
  ];
  for (const [file, code] of cases) {
    await assert.rejects(m.save(memory(file)), (e) => isMemdirError(e) && e.code === code && e.message.includes(file.split("/")[0]), file);
  }
  assert.deepEqual(await readdir(outside), [], "nothing written outside");
  await assert.rejects(readdir(join(root, "nowhere")), { code: "ENOENT" }, "the dangling target was not created");

  const ok = await m.save(memory("notes/ok.md"));
  assert.equal(ok.file, "team/notes/ok.md");
  assert.match(await readFile(join(dir, "team", "MEMORY.md"), "utf8"), /\(notes\/ok\.md\)/);
});

test("the secret guard refuses team writes and never echoes the secret", async () => {
  const dir = join(await mkdtemp(join(tmpdir(), "memdir-team-")), "memory");
  const m = new Memdir({ fs: nodeFs(), dir });
  const secret = `xoxb-${"1234567890"}-${"1234567890123"}-${"a1B2c3D4e5F6g7H8i9J0k1L2"}`;
  const events = [];
  const watched = new Memdir({ fs: nodeFs(), dir, telemetry: (e, f) => events.push(JSON.stringify([e, f])) });
  for (const target of [m, watched]) {
    await assert.rejects(
      target.save({ ...memory("slack.md"), body: `bot token ${secret}` }),
      (e) => isMemdirError(e) && e.code === "SECRET_DETECTED" && /Slack Bot Token/.test(e.message) && !e.message.includes(secret),
    );
  }
  assert.ok(events.every((e) => !e.includes(secret)));
});

test("team pulls are writes of the memory directory: under its lock (memdir.teamSync and a standalone TeamSync), refused in read-only", async () => {
  const { createServer } = await import("node:http");
  const { memoryFs, fetchTransport, TeamSync } = await import("memdir");
  const http = createServer((req, res) => {
    res.writeHead(200, { "content-type": "application/json", etag: '"sha256:v1"' });
    res.end(JSON.stringify({ version: 1, checksum: "sha256:v1", content: { entries: { "a.md": "from server\n" } } }));
  });
  await new Promise((r) => http.listen(0, "127.0.0.1", r));
  const baseUrl = `http://127.0.0.1:${http.address().port}`;
  const fs = memoryFs();
  const readOnly = new Memdir({ fs, dir: "/m/", writeMode: "read-only" });
  await assert.rejects(readOnly.teamSync({ baseUrl, repo: "acme/app", transport: fetchTransport() }).pull(), (e) => e.code === "WRITE_FORBIDDEN");
  assert.equal(fs.toJSON()["/m/team/a.md"], undefined);

  const memdir = new Memdir({ fs, dir: "/m/" });
  const sync = memdir.teamSync({ baseUrl, repo: "acme/app", transport: fetchTransport() });
  // A save and a pull at once: both complete, and neither loses what the other wrote.
  const [saved, pulled] = await Promise.all([
    memdir.save({ name: "Local", description: "written locally", type: "project", body: "b", scope: "team" }),
    sync.pull(),
  ]);
  assert.equal(saved.status, "saved");
  assert.equal(pulled.filesWritten, 1);
  assert.equal(fs.toJSON()["/m/team/a.md"], "from server\n");
  assert.match(fs.toJSON()["/m/team/MEMORY.md"], /Local/);

  // A standalone TeamSync takes the same directory lock as a Memdir over that directory (here
  // the host's lock(), which memoryFs provides).
  try {
    const base = memoryFs();
    const locks = [];
    const lockingFs = { ...base, lock: (name) => (locks.push(name), base.lock(name)) };
    const standalone = new TeamSync({ fs: lockingFs, dir: "/n/", baseUrl, repo: "acme/app", transport: fetchTransport() });
    assert.equal((await standalone.pull()).filesWritten, 1);
    assert.equal(locks.length, 1, "the pull took the lock");
    await new Memdir({ fs: lockingFs, dir: "/n/" }).save({ name: "X", description: "x", type: "user", body: "x" });
    assert.deepEqual(locks, [locks[0], locks[0]], "the same lock as a Memdir's writes");
    assert.equal(base.toJSON()["/n/team/a.md"], "from server\n");
  } finally {
    http.close();
  }
});

test("fetchTransport stops reading a team answer at 16 MiB, and the pull refuses it unparsed", async () => {
  const { createServer } = await import("node:http");
  const { memoryFs, fetchTransport, TeamSync } = await import("memdir");
  const cap = 16 * 1024 * 1024;
  const chunk = Buffer.alloc(256 * 1024, "y");
  let streamed = 0;
  const http = createServer((req, res) => {
    if (req.url.includes("small")) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end('{"checksum":"y","content":{"entries":{"b.md":"bee"}}}');
    }
    if (req.url.includes("declared")) {
      // A Content-Length far over the cap: the body is never read.
      res.writeHead(200, { "content-type": "application/json", "content-length": String(200 * 1024 * 1024) });
      res.write(chunk);
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    // No length, an endless stream (up to 200 MB) that stops when the reader goes away.
    res.write('{"checksum":"x","content":{"entries":{"a.md":"');
    const pump = () => {
      while (streamed < 200 * 1024 * 1024) {
        streamed += chunk.length;
        if (!res.write(chunk)) return res.once("drain", pump);
      }
      res.end('"}}}');
    };
    pump();
  });
  await new Promise((r) => http.listen(0, "127.0.0.1", r));
  const base = `http://127.0.0.1:${http.address().port}`;
  try {
    const fs = memoryFs();
    for (const path of ["stream", "declared"]) {
      const sync = new TeamSync({ fs, dir: "/m/", baseUrl: `${base}/${path}`, repo: "acme/app", transport: fetchTransport() });
      await assert.rejects(sync.pull(), (e) => isMemdirError(e) && e.code === "HTTP" && /cap/.test(e.message), path);
    }
    // What the server got to send before the reader cancelled: the cap plus socket buffers, far
    // from the 200 MB it offered.
    assert.ok(streamed < cap + 8 * 1024 * 1024, `streamed ${streamed} bytes`);
    assert.equal(Object.keys(fs.toJSON()).filter((p) => p.startsWith("/m/team/")).length, 0, "nothing written");

    // Under the cap the body is read whole.
    const small = new TeamSync({ fs, dir: "/m/", baseUrl: `${base}/small`, repo: "acme/app", transport: fetchTransport() });
    assert.equal((await small.pull()).filesWritten, 1);
    assert.equal(fs.toJSON()["/m/team/b.md"], "bee");
  } finally {
    http.closeAllConnections?.();
    http.close();
  }
});

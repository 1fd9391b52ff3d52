// Reads are contained like writes (issue #19 item 4), over nodeFs() with real symlinks in a
// temporary directory: a link to a credentials file outside, a directory link to a /usr-like
// tree outside (and to the real /usr), a link to /, and loops are never read by scan, manifest,
// findRelevant, surface, readIndex, list, lint or the memory tool; links inside still work.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, writeFile, symlink, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir, isMemdirError } from "memdir";
import { nodeFs } from "memdir/node";

// A fake GitHub token: what a leak would show.
const TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0".repeat(2).slice(0, 36);

const memory = (name) => `---\nname: ${name}\ndescription: ${name} memory\ntype: user\n---\n${name} body\n`;

async function hostile() {
  const root = await mkdtemp(join(tmpdir(), "memdir-contain-"));
  const dir = join(root, "memory");
  const outside = join(root, "outside");
  await mkdir(join(dir, "notes"), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(join(dir, "a.md"), memory("a"));
  await writeFile(join(dir, "notes", "real.md"), memory("real"));
  await writeFile(join(dir, "MEMORY.md"), "- [A](a.md) — a\n- [Creds](creds.md) — leaked?\n- [Alias](alias.md) — inside link\n");
  await writeFile(
    join(outside, "credentials"),
    `---\nname: creds\ndescription: SECRET-DESCRIPTION credentials token\ntype: user\n---\ntoken = ${TOKEN}\n`,
  );
  await writeFile(join(outside, "MEMORY.md"), "- [Leak](leak.md) — SECRET-HOOK\n");
  for (let d = 0; d < 30; d++) {
    await mkdir(join(outside, "usrlike", `d${d}`), { recursive: true });
    await writeFile(join(outside, "usrlike", `d${d}`, "f.md"), memory(`usr ${d}`));
  }
  // Out.
  await symlink(join(outside, "credentials"), join(dir, "creds.md"));
  await symlink(join(outside, "usrlike"), join(dir, "usrlike"));
  await symlink("/", join(dir, "root"));
  if (existsSync("/usr")) await symlink("/usr", join(dir, "usr"));
  await symlink("../../outside/usrlike/d0", join(dir, "notes", "rel-out"));
  // Loops.
  await symlink(dir, join(dir, "loop"));
  await symlink("..", join(dir, "notes", "up"));
  await symlink("self.md", join(dir, "self.md"));
  // Inside.
  await symlink("notes/real.md", join(dir, "alias.md"));
  await symlink("notes", join(dir, "shortcut"));
  const events = [];
  const memdir = new Memdir({ fs: nodeFs(), dir: dir + "/", telemetry: (event, fields) => events.push({ event, fields }) });
  return { root, dir, outside, memdir, events };
}

test("scan, manifest and findRelevant see only what is inside", async () => {
  const { root, memdir, events } = await hostile();
  try {
    const started = Date.now();
    const headers = await memdir.scan();
    assert.deepEqual(headers.map((h) => h.filename).sort(), ["a.md", "alias.md", "notes/real.md"]);
    assert.ok(Date.now() - started < 5000, "the scan did not walk /usr or /");
    const outside = events.filter((e) => e.event === "memdir_read_outside");
    assert.equal(outside.length, 1);
    assert.equal(outside[0].fields.operation, "scan");
    assert.ok(outside[0].fields.count >= 4, JSON.stringify(outside[0].fields));
    const manifest = await memdir.manifest();
    assert.ok(!manifest.includes("SECRET") && !manifest.includes("usr"), manifest);
    const { memories } = await memdir.findRelevant("credentials token secret");
    assert.ok(memories.every((m) => !m.path.includes("creds") && !m.path.includes("usr")), JSON.stringify(memories));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("surface leaves out files that lead outside", async () => {
  const { root, dir, memdir } = await hostile();
  try {
    const paths = ["creds.md", "usrlike/d0/f.md", "root/etc/hostname", "notes/rel-out/f.md", "a.md", "alias.md", "shortcut/real.md"];
    const shown = await memdir.surface(paths.map((p) => ({ path: join(dir, p), mtimeMs: Date.now() })));
    assert.deepEqual(
      shown.map((m) => m.path),
      ["a.md", "alias.md", "shortcut/real.md"].map((p) => join(dir, p)),
    );
    assert.ok(shown.every((m) => !m.text.includes("ghp_") && !m.text.includes("usr")));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("list and lint read no file outside; an index link outside is refused", async () => {
  const { root, dir, outside, memdir } = await hostile();
  try {
    const listed = await memdir.list();
    assert.deepEqual(
      listed.map((l) => [l.file, l.exists]),
      [["a.md", true], ["creds.md", false], ["alias.md", true]],
    );
    const report = await memdir.lint();
    assert.equal(report.filesChecked, 3);
    assert.ok(!report.findings.some((f) => f.code === "SECRET"), JSON.stringify(report.findings));

    await rm(join(dir, "MEMORY.md"));
    await symlink(join(outside, "MEMORY.md"), join(dir, "MEMORY.md"));
    for (const call of [() => memdir.readIndex(), () => memdir.list(), () => memdir.lint()]) {
      await assert.rejects(call(), (e) => isMemdirError(e) && e.code === "PATH_SYMLINK_ESCAPE" && !e.message.includes("SECRET"));
    }
    // A write through the same link is refused too.
    await assert.rejects(
      memdir.save({ name: "N", description: "d", type: "user", body: "b" }),
      (e) => isMemdirError(e) && e.code.startsWith("PATH_"),
    );

    await rm(join(dir, "MEMORY.md"));
    await symlink("notes/INDEX.md", join(dir, "MEMORY.md"));
    await writeFile(join(dir, "notes", "INDEX.md"), "- [A](a.md) — inside index\n");
    const view = await memdir.readIndex();
    assert.ok(view.exists && view.content.includes("inside index"));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

test("the memory tool neither lists nor shows what is outside", async () => {
  const { root, memdir } = await hostile();
  try {
    const { text } = await memdir.memoryCommand({ command: "view", path: "/memories" });
    for (const hidden of ["creds.md", "/memories/usr", "/memories/root", "rel-out"]) {
      assert.ok(!text.includes(hidden), `${hidden} listed:\n${text}`);
    }
    for (const shown of ["/memories/a.md", "/memories/alias.md", "/memories/notes/real.md"]) {
      assert.ok(text.includes(shown), `${shown} missing:\n${text}`);
    }
    for (const path of ["/memories/creds.md", "/memories/usrlike/d0/f.md", "/memories/root/etc/hostname"]) {
      await assert.rejects(
        memdir.memoryCommand({ command: "view", path }),
        (e) => isMemdirError(e) && e.code === "PATH_SYMLINK_ESCAPE",
        path,
      );
    }
    const alias = await memdir.memoryCommand({ command: "view", path: "/memories/alias.md" });
    assert.match(alias.text, /real body/);
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});

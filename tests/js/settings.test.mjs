// loadSettings and resolveMemoryDir read the settings files Claude Code reads, so a library
// caller and `memdir path` resolve the same directory (issue #18).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadSettings, memoryFs, resolveMemoryDir, sanitizePath, isAutoMemoryEnabled } from "memdir";
import { nodeFs } from "memdir/node";

const BIN = join(fileURLToPath(new URL(".", import.meta.url)), "node_modules", ".bin", "memdir");
const temp = () => realpathSync(mkdtempSync(join(tmpdir(), "memdir-settings-")));

function cliPath(project, home) {
  const r = spawnSync(BIN, ["path"], { cwd: project, encoding: "utf8", env: { PATH: process.env.PATH, HOME: home } });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.trim();
}

test("resolveMemoryDir with fs reads the settings files, and agrees with `memdir path`", async () => {
  const home = temp();
  const project = temp();
  const ctx = { fs: nodeFs(), projectRoot: project, home, env: {} };
  const fallback = `${home}/.claude/projects/${sanitizePath(project)}/memory/`;
  assert.equal(await resolveMemoryDir(ctx), fallback);
  assert.equal(cliPath(project, home), fallback);

  // The committed project file may not choose the directory.
  mkdirSync(join(project, ".claude"));
  writeFileSync(join(project, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "/tmp/evil" }));
  assert.equal(await resolveMemoryDir(ctx), fallback);
  assert.equal(cliPath(project, home), fallback);

  // ~/.claude/settings.json does (with ~ expanded).
  mkdirSync(join(home, ".claude"));
  writeFileSync(join(home, ".claude", "settings.json"), JSON.stringify({ autoMemoryDirectory: "~/my-memory" }));
  assert.equal(await resolveMemoryDir(ctx), `${home}/my-memory/`);
  assert.equal(cliPath(project, home), `${home}/my-memory/`);

  // .claude/settings.local.json outranks it.
  const local = join(temp(), "local-mem");
  writeFileSync(join(project, ".claude", "settings.local.json"), JSON.stringify({ autoMemoryDirectory: local }));
  assert.equal(await resolveMemoryDir(ctx), `${local}/`);
  assert.equal(cliPath(project, home), `${local}/`);

  // `memdir path --explain` says which rule chose it and what each settings file gave.
  const explained = spawnSync(BIN, ["path", "--explain"], { cwd: project, encoding: "utf8", env: { PATH: process.env.PATH, HOME: home } });
  assert.equal(explained.stdout.trim(), `${local}/`);
  assert.match(explained.stderr, /chosen by: settings autoMemoryDirectory \(local\)/);
  assert.match(explained.stderr, /^user\s+.*settings\.json\s+read$/m);
  assert.match(explained.stderr, /^policy\s+\/etc\/claude-code\/managed-settings\.json\s+absent$/m);

  // Settings given explicitly are used as they are (no file is read).
  assert.equal(await resolveMemoryDir({ ...ctx, settings: {} }), fallback);
});

test("loadSettings reports every file it looked at; a broken one contributes nothing", async () => {
  const fs = memoryFs({
    "/home/u/.claude/settings.json": "{ broken",
    "/work/app/.claude/settings.json": JSON.stringify({ autoMemoryEnabled: false, autoMemoryDirectory: "/x/y" }),
  });
  const { settings, files } = await loadSettings({ fs, projectRoot: "/work/app", home: "/home/u" });
  assert.deepEqual(files.map((f) => [f.source, f.path, f.loaded]), [
    ["policy", "/etc/claude-code/managed-settings.json", false],
    ["user", "/home/u/.claude/settings.json", false],
    ["project", "/work/app/.claude/settings.json", true],
    ["local", "/work/app/.claude/settings.local.json", false],
  ]);
  assert.match(files[1].error, /invalid JSON/);
  assert.equal(files[0].error, undefined, "a missing file is no error");
  assert.equal(settings.project.autoMemoryEnabled, false);
  assert.equal(isAutoMemoryEnabled({ env: {}, settings }), false, "a repository may turn memory off");
  const dir = await resolveMemoryDir({ fs, projectRoot: "/work/app", home: "/home/u" });
  assert.equal(dir, "/home/u/.claude/projects/-work-app/memory/", "but never choose its directory");
  await assert.rejects(async () => loadSettings({ projectRoot: "/p", home: "/h" }), (e) => e.code === "INVALID_INPUT");
});

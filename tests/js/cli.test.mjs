// The `memdir` command line, as installed from the packed tarball (node_modules/.bin/memdir):
// directory resolution, each command, --json, and the exit codes (0 ok, 1 findings/not found,
// 2 usage error, 3 runtime error).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, existsSync, realpathSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as memdir from "memdir";

const { sanitizePath } = memdir;

const here = fileURLToPath(new URL(".", import.meta.url));
const BIN = join(here, "node_modules", ".bin", "memdir");
const SAMPLE = join(here, "fixtures", "sample-memory");

function temp() {
  return realpathSync(mkdtempSync(join(tmpdir(), "memdir-cli-")));
}

/** Run the CLI with a clean environment: HOME is `home`, no keys, no Claude variables. */
function run(args, { cwd = here, home = temp(), env = {}, input } = {}) {
  const result = spawnSync(BIN, args, {
    cwd,
    input,
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, ...env },
    timeout: 30_000,
  });
  if (result.error) throw result.error;
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** `run`, without blocking the event loop (for a server in this process to answer the CLI). */
function runAsync(args, { cwd = here, home = temp(), env = {} } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(BIN, args, { cwd, env: { PATH: process.env.PATH, HOME: home, ...env } });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill(), 30_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function sampleCopy() {
  const dir = join(temp(), "memory");
  cpSync(SAMPLE, dir, { recursive: true });
  return dir;
}

test("path: ~/.claude/projects/<slug of cwd>/memory/ outside a git repository", () => {
  const home = temp();
  const project = join(temp(), "my project");
  mkdirSync(project);
  const r = run(["path"], { cwd: project, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, `${home}/.claude/projects/${sanitizePath(project)}/memory/\n`);
});

test("path: the git root names the project, and worktrees share the main repository's", () => {
  const home = temp();
  const base = temp();
  const main = join(base, "repo");
  mkdirSync(join(main, ".git", "worktrees", "wt"), { recursive: true });
  mkdirSync(join(main, "src", "deep"), { recursive: true });
  const expected = `${home}/.claude/projects/${sanitizePath(main)}/memory/\n`;
  assert.equal(run(["path"], { cwd: join(main, "src", "deep"), home }).stdout, expected);

  const wt = join(base, "wt");
  mkdirSync(join(wt, "lib"), { recursive: true });
  writeFileSync(join(wt, ".git"), `gitdir: ${join(main, ".git", "worktrees", "wt")}\n`);
  writeFileSync(join(main, ".git", "worktrees", "wt", "commondir"), "../..\n");
  writeFileSync(join(main, ".git", "worktrees", "wt", "gitdir"), `${join(wt, ".git")}\n`);
  assert.equal(run(["path"], { cwd: join(wt, "lib"), home }).stdout, expected);

  // A .git file without commondir (a submodule) keeps its own root.
  const sub = join(base, "sub");
  mkdirSync(join(base, "modules", "sub"), { recursive: true });
  mkdirSync(sub);
  writeFileSync(join(sub, ".git"), `gitdir: ${join(base, "modules", "sub")}\n`);
  assert.equal(run(["path"], { cwd: sub, home }).stdout, `${home}/.claude/projects/${sanitizePath(sub)}/memory/\n`);
});

test("path: CLAUDE_CONFIG_DIR, CLAUDE_CODE_REMOTE_MEMORY_DIR and CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", () => {
  const home = temp();
  const project = temp();
  const slug = sanitizePath(project);
  const config = join(temp(), "cfg");
  assert.equal(run(["path"], { cwd: project, home, env: { CLAUDE_CONFIG_DIR: config } }).stdout, `${config}/projects/${slug}/memory/\n`);
  const remote = join(temp(), "remote");
  assert.equal(
    run(["path"], { cwd: project, home, env: { CLAUDE_CONFIG_DIR: config, CLAUDE_CODE_REMOTE_MEMORY_DIR: remote } }).stdout,
    `${remote}/projects/${slug}/memory/\n`,
  );
  assert.equal(
    run(["path"], { cwd: project, home, env: { CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: "/srv/team-mem///" } }).stdout,
    "/srv/team-mem/\n",
  );
  // Not absolute, so not valid: the default applies.
  assert.equal(
    run(["path"], { cwd: project, home, env: { CLAUDE_COWORK_MEMORY_PATH_OVERRIDE: "relative/mem" } }).stdout,
    `${home}/.claude/projects/${slug}/memory/\n`,
  );
  const json = JSON.parse(run(["path", "--json"], { cwd: project, home }).stdout);
  assert.equal(json.dir, `${home}/.claude/projects/${slug}/memory/`);
  assert.equal(json.exists, false);
  assert.equal(json.projectRoot, project);
});

test("ls works on the project's own directory and on any directory through --dir", () => {
  const home = temp();
  const project = temp();
  const dir = join(home, ".claude", "projects", sanitizePath(project), "memory");
  cpSync(SAMPLE, dir, { recursive: true });
  const r = run(["ls"], { cwd: project, home });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout.trim().split("\n").length, 6);
  assert.match(r.stdout, /^feedback\s+feedback_real_database\.md\s+today\s+Integration tests: hit a real database, never mocks$/m);

  const json = JSON.parse(run(["ls", "--json", "--dir", sampleCopy()]).stdout);
  assert.deepEqual(
    json.map((h) => h.filename).sort(),
    [
      "feedback_real_database.md", "feedback_terse_answers.md", "project_auth_rewrite.md",
      "reference_linear_ingest.md", "team/project_release_freeze.md", "user_go_background.md",
    ],
  );
  assert.equal(json.find((h) => h.filename === "user_go_background.md").type, "user");

  const missing = run(["ls", "--dir", join(temp(), "nope")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /no memory directory/);
});

test("show prints a memory; a missing one exits 1, one outside the directory exits 2", () => {
  const dir = sampleCopy();
  const r = run(["show", "feedback_terse_answers.md", "--dir", dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, readFileSync(join(dir, "feedback_terse_answers.md"), "utf8"));
  const json = JSON.parse(run(["show", "feedback_terse_answers.md", "--dir", dir, "--json"]).stdout);
  assert.equal(json.header.name, "Terse answers");
  assert.equal(json.header.type, "feedback");
  assert.equal(run(["show", "nope.md", "--dir", dir]).code, 1);
  assert.equal(run(["show", "../../etc/passwd", "--dir", dir]).code, 2);
  assert.equal(run(["show", "--dir", dir]).code, 2);
});

test("save from flags and from stdin writes the file and its index entry", () => {
  const dir = join(temp(), "memory");
  const a = run(["save", "--dir", dir, "--name", "Prefers pnpm", "--description", "pnpm, never npm", "--type", "feedback", "--body", "Use pnpm."]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, `${dir}/feedback_prefers_pnpm.md\n`);
  const b = run(["save", "--dir", dir, "--json", "--name", "Go background", "--description", "Senior Go dev", "--type", "user"], {
    input: "Ten years of Go.\n",
  });
  assert.equal(b.code, 0, b.stderr);
  const outcome = JSON.parse(b.stdout);
  assert.equal(outcome.status, "saved");
  assert.equal(outcome.file, "user_go_background.md");
  assert.match(readFileSync(join(dir, "user_go_background.md"), "utf8"), /^---\n[\s\S]*type: user[\s\S]*---\n[\s\S]*Ten years of Go\./);
  assert.equal(
    readFileSync(join(dir, "MEMORY.md"), "utf8"),
    "- [Prefers pnpm](feedback_prefers_pnpm.md) — pnpm, never npm\n- [Go background](user_go_background.md) — Senior Go dev\n",
  );
});

test("save refuses bad input with exit code 2", () => {
  const dir = join(temp(), "memory");
  assert.equal(run(["save", "--dir", dir, "--description", "d", "--type", "user", "--body", "b"]).code, 2, "no --name");
  assert.equal(run(["save", "--dir", dir, "--name", "n", "--description", "d", "--type", "nonsense", "--body", "b"]).code, 2);
  assert.equal(run(["save", "--dir", dir, "--name", "n", "--description", "d", "--type", "user", "--body", "b", "--file", "../x.md"]).code, 2);
  assert.equal(existsSync(join(dir, "MEMORY.md")), false);
  const saved = ["save", "--dir", dir, "--name", "n", "--description", "d", "--type", "user", "--body", "b", "--file", "user_n.md"];
  assert.equal(run(saved).code, 0);
  assert.equal(run(saved).code, 2, "an existing file without --replace");
  assert.equal(run([...saved, "--replace"]).code, 0);
});

test("save: a name that exists exits 2 (ALREADY_EXISTS) unless --replace, which updates that memory", () => {
  const dir = join(temp(), "memory");
  const args = ["save", "--dir", dir, "--name", "Prefers pnpm", "--description", "pnpm, never npm", "--type", "feedback", "--body", "Use pnpm."];
  assert.equal(run(args).code, 0);
  const again = run(args);
  assert.equal(again.code, 2);
  assert.match(again.stderr, /feedback_prefers_pnpm\.md.*--replace/);
  const json = run([...args, "--json"]);
  assert.equal(json.code, 2);
  assert.equal(JSON.parse(json.stdout).error.code, "ALREADY_EXISTS");
  assert.equal(existsSync(join(dir, "feedback_prefers_pnpm-2.md")), false, "no silent duplicate");
  const replaced = run(["save", "--dir", dir, "--name", "Prefers pnpm", "--description", "pnpm everywhere", "--type", "feedback", "--body", "Always pnpm.", "--replace", "--json"]);
  assert.equal(replaced.code, 0, replaced.stderr);
  assert.equal(JSON.parse(replaced.stdout).created, false);
  assert.equal(readFileSync(join(dir, "MEMORY.md"), "utf8"), "- [Prefers pnpm](feedback_prefers_pnpm.md) — pnpm everywhere\n");
  assert.match(readFileSync(join(dir, "feedback_prefers_pnpm.md"), "utf8"), /Always pnpm\./);
});

test("log appends to today's daily log", () => {
  const dir = join(temp(), "memory");
  const r = run(["log", "--dir", dir, "user", "prefers", "pnpm"]);
  assert.equal(r.code, 0, r.stderr);
  const now = new Date();
  const yyyy = String(now.getFullYear());
  const mm = String(now.getMonth() + 1).padStart(2, "0");
  const dd = String(now.getDate()).padStart(2, "0");
  const path = `${dir}/logs/${yyyy}/${mm}/${yyyy}-${mm}-${dd}.md`;
  assert.equal(r.stdout, `${path}\n`);
  run(["log", "--dir", dir], { input: "second line" });
  assert.equal(readFileSync(path, "utf8"), "user prefers pnpm\nsecond line\n");
  assert.equal(run(["log", "--dir", dir]).code, 2, "no text");
});

test("usage errors exit 2: no command, unknown command, unknown option", () => {
  assert.equal(run([]).code, 2);
  assert.equal(run(["frobnicate"]).code, 2);
  assert.equal(run(["ls", "--frobnicate"]).code, 2);
  const help = run(["--help"]);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /Exit status: 0 ok, 1 findings or nothing found, 2 usage error [^]*, 3 runtime error/);
});

test("recall: the built-in ranker answers without a key", () => {
  const dir = sampleCopy();
  const r = run(["recall", "should integration tests use a real database or mocks", "--dir", dir, "--json"]);
  assert.equal(r.code, 0, r.stderr);
  const json = JSON.parse(r.stdout);
  assert.equal(json.answeredBy, "lexical");
  assert.ok(json.memories.some((m) => m.path.endsWith("feedback_real_database.md")), r.stdout);
  for (const m of json.memories) assert.match(m.header, /today/);
  const human = run(["recall", "real database mocks", "--dir", dir]);
  assert.match(human.stdout, /Integration tests must run against a real Postgres/);
  assert.equal(run(["recall", "--dir", dir]).code, 2, "no query");
});

test("lint: findings exit 1, a clean directory exits 0", () => {
  const dir = sampleCopy();
  writeFileSync(join(dir, "MEMORY.md"), readFileSync(join(dir, "MEMORY.md"), "utf8") + "- [Gone](feedback_gone.md) — points at nothing\n");
  const r = run(["lint", "--dir", dir, "--json"]);
  assert.equal(r.code, 1, r.stderr);
  assert.ok(JSON.parse(r.stdout).findings.length >= 1);
  const clean = join(temp(), "memory");
  run(["save", "--dir", clean, "--name", "One", "--description", "one memory", "--type", "user", "--body", "b"]);
  const ok = run(["lint", "--dir", clean]);
  assert.equal(ok.code, 0, ok.stdout + ok.stderr);
});

test("prompt prints the memory prompt for a mode", () => {
  const dir = sampleCopy();
  const r = run(["prompt", "--dir", dir]);
  assert.equal(r.code, 0, r.stderr);
  assert.ok(r.stdout.includes(`${dir}/`), r.stdout);
  const agent = run(["prompt", "--dir", dir, "--mode", "agent"]);
  assert.match(agent.stdout, /Terse answers/);
  assert.equal(run(["prompt", "--dir", dir, "--mode", "nonsense"]).code, 2);
});

test("recall --explain: each memory's score and the query words it matched, by field", () => {
  const dir = sampleCopy();
  const human = run(["recall", "integration tests against a real database", "--dir", dir, "--explain"]);
  assert.equal(human.code, 0, human.stderr);
  const line = human.stdout.split("\n").find((l) => l.startsWith("why: "));
  assert.ok(line, human.stdout);
  assert.match(line, /^why: score \d\.\d{3} · lexical \d\.\d{3}: /);
  assert.match(line, /integr\w* \((?:filename, )?name, description, body\)/, line);
  assert.doesNotMatch(line, /cosine/, "no embedder, no cosine");
  const r = run(["recall", "integration tests against a real database", "--dir", dir, "--json", "--explain"]);
  const json = JSON.parse(r.stdout);
  const top = json.memories[0];
  assert.ok(top.path.endsWith("feedback_real_database.md"), r.stdout);
  assert.ok(top.why.score > 0 && top.why.score === top.why.lexical.score, r.stdout);
  for (const t of top.why.lexical.terms) {
    assert.ok(t.fields.length > 0 && t.fields.every((f) => ["filename", "name", "description", "body"].includes(f)), r.stdout);
  }
  assert.equal(top.why.semantic, undefined);
  // Without --explain, no why.
  const plain = JSON.parse(run(["recall", "integration tests against a real database", "--dir", dir, "--json"]).stdout);
  assert.ok(plain.memories.length > 0 && plain.memories.every((m) => !("why" in m)));
});

test("recall --embed-url/--embed-model (or MEMDIR_EMBED_*) fuses embeddings from an /embeddings endpoint", async () => {
  // A loopback OpenAI-compatible server: one dimension per concept, counted from the words.
  const concepts = [/databas|postgres|sql|datastore/g, /test|integration|mock/g, /\bgo\b|golang/g, /auth|login|session/g];
  const vector = (text) => [...concepts.map((c) => (text.toLowerCase().match(c) ?? []).length), 0.2];
  const seen = [];
  const server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = JSON.parse(raw);
      seen.push({ url: req.url, auth: req.headers.authorization, model: body.model, count: body.input.length });
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: body.input.map((t, index) => ({ index, embedding: vector(t) })) }));
    });
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}/v1`;
  try {
    const dir = sampleCopy();
    const query = "which datastore do the integration checks run on";
    // Without the flags, no embedder: the ranker answers and the endpoint sees nothing.
    const lexical = JSON.parse(run(["recall", query, "--dir", dir, "--json"]).stdout);
    assert.equal(lexical.answeredBy, "lexical");
    assert.equal(seen.length, 0);
    const r = await runAsync(["recall", query, "--dir", dir, "--json", "--explain", "--embed-url", base, "--embed-model", "standin"]);
    assert.equal(r.code, 0, r.stderr);
    const json = JSON.parse(r.stdout);
    assert.match(json.answeredBy, /semantic/);
    assert.equal(json.outcome, "ok");
    assert.ok(json.memories[0].path.endsWith("feedback_real_database.md"), r.stdout);
    const cosine = json.memories[0].why.semantic.cosine;
    assert.ok(cosine > 0.5 && cosine <= 1.0001, r.stdout);
    assert.ok(seen.length > 0 && seen.every((s) => s.url === "/v1/embeddings" && s.model === "standin" && s.auth === undefined));
    // The same through the environment, with the key; the human output names the embedder.
    seen.length = 0;
    const env = { MEMDIR_EMBED_URL: base, MEMDIR_EMBED_MODEL: "standin", MEMDIR_EMBED_KEY: "k-123" };
    const human = await runAsync(["recall", query, "--dir", dir, "--explain"], { env });
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^why: score \d\.\d{3} · .* · cosine \d\.\d{3}$/m);
    assert.match(human.stderr, /answered by (lexical\+)?semantic \(embeddings standin\)/);
    assert.ok(seen.length > 0 && seen.every((s) => s.auth === "Bearer k-123"));
    // An endpoint that is down: the ranker answers, and the outcome says why.
    const down = await runAsync(["recall", "integration tests real database", "--dir", dir, "--json", "--embed-url", "http://127.0.0.1:9/v1"]);
    const fallback = JSON.parse(down.stdout);
    assert.equal(fallback.answeredBy, "lexical");
    assert.equal(fallback.outcome, "error");
  } finally {
    server.close();
  }
});

/** A directory of `n` memories `m000.md` … (mtimes ascending with the number). */
function manyMemories(n) {
  const dir = join(temp(), "memory");
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < n; i++) {
    const name = `m${String(i).padStart(3, "0")}.md`;
    writeFileSync(join(dir, name), `---\nname: M${i}\ndescription: memory ${i}\ntype: user\n---\nbody ${i}\n`);
    utimesSync(join(dir, name), 1_700_000_000 + i, 1_700_000_000 + i);
  }
  return dir;
}

test("log: a daily-log bullet starting with '- ' is text, and real options still work", () => {
  const dir = join(temp(), "memory");
  const r = run(["log", "- 14:02 user switched to pnpm", "--dir", dir]);
  assert.equal(r.code, 0, r.stderr);
  const path = r.stdout.trim();
  assert.equal(readFileSync(path, "utf8"), "- 14:02 user switched to pnpm\n");
  // Before the command, mixed with other text, and as an option's value.
  assert.equal(run(["--dir", dir, "log", "-", "-5 degrees", "outside"]).code, 0);
  assert.equal(readFileSync(path, "utf8"), "- 14:02 user switched to pnpm\n- -5 degrees outside\n");
  const saved = run(["save", "--dir", dir, "--name", "Steps", "--description", "d", "--type", "user", "--body", "- step one"]);
  assert.equal(saved.code, 0, saved.stderr);
  assert.match(readFileSync(join(dir, "user_steps.md"), "utf8"), /\n- step one\n?$/);
  // Options are still options: unknown ones fail, -h is help.
  assert.equal(run(["log", "--dir", dir, "-x"]).code, 2);
  assert.equal(run(["log", "--dir", dir, "--frobnicate", "text"]).code, 2);
  assert.equal(run(["-h"]).code, 0);
  assert.equal(run(["recall", "x", "--dir", dir, "--limit", "-5"]).code, 2, "a negative limit is refused, not an option");
});

test("ls honours --limit and says how many rows it left out", () => {
  const dir = manyMemories(205);
  const all = run(["ls", "--dir", dir]);
  assert.equal(all.code, 0, all.stderr);
  const rows = all.stdout.trim().split("\n");
  assert.equal(rows.length, 200);
  assert.match(rows[0], /m204\.md/);
  assert.match(all.stderr, /… 5 more; use --limit 205/);
  const two = run(["ls", "--dir", dir, "--limit", "2"]);
  assert.deepEqual(two.stdout.trim().split("\n").map((l) => l.split(/\s+/)[1]), ["m204.md", "m203.md"]);
  assert.match(two.stderr, /… 203 more; use --limit/);
  const every = run(["ls", "--dir", dir, "--limit", "1000", "--json"]);
  assert.equal(JSON.parse(every.stdout).length, 205);
  assert.equal(every.stderr, "", "nothing left out, nothing said");
  assert.equal(run(["ls", "--dir", dir, "--limit", "0"]).code, 2);
  assert.equal(run(["ls", "--dir", dir, "--limit", "two"]).code, 2);
});

test("the daily log is not a memory: not in ls, not among recall's candidates", () => {
  const dir = sampleCopy();
  const logged = run(["log", "--dir", dir, "- 09:00 zebrafish aquarium pump replaced"]);
  assert.equal(logged.code, 0, logged.stderr);
  const ls = JSON.parse(run(["ls", "--dir", dir, "--json"]).stdout);
  assert.ok(ls.length > 0 && ls.every((h) => !h.filename.startsWith("logs/")), JSON.stringify(ls));
  assert.doesNotMatch(run(["ls", "--dir", dir]).stdout, /logs\//);
  const recall = run(["recall", "zebrafish aquarium pump", "--dir", dir, "--json"]);
  assert.equal(recall.code, 1, recall.stdout);
  assert.deepEqual(JSON.parse(recall.stdout).memories, []);
});

test("--json: every error is {error:{code,message}} on stdout, with the same exit status", () => {
  const dir = sampleCopy();
  const cases = [
    [["ls", "--json", "--dir", join(temp(), "nope")], 1, "NOT_FOUND"],
    [["show", "nope.md", "--json", "--dir", dir], 1, "NOT_FOUND"],
    [["ls", "--json", "--frobnicate"], 2, "USAGE"],
    [["frobnicate", "--json"], 2, "USAGE"],
    [["--json"], 2, "USAGE"],
    [["recall", "--json", "--dir", dir], 2, "USAGE"],
    [["save", "--json", "--dir", dir, "--name", "n", "--description", "d", "--type", "nonsense", "--body", "b"], 2, "INVALID_MEMORY"],
  ];
  for (const [args, code, errorCode] of cases) {
    const r = run(args);
    assert.equal(r.code, code, `${args.join(" ")}: ${r.stdout}${r.stderr}`);
    const { error } = JSON.parse(r.stdout);
    assert.equal(error.code, errorCode, args.join(" "));
    assert.equal(typeof error.message, "string");
    assert.ok(error.message.length > 0);
    assert.equal(r.stderr, "", `${args.join(" ")}: nothing else on stderr`);
  }
  // Without --json, the same failure is text on stderr.
  const text = run(["ls", "--dir", join(temp(), "nope")]);
  assert.equal(text.stdout, "");
  assert.match(text.stderr, /^memdir ls: no memory directory/);
});

test("progress: a counter on a terminal, nothing on a pipe", () => {
  const dir = manyMemories(300);
  const piped = run(["ls", "--dir", dir], { env: { MEMDIR_PROGRESS_AFTER_MS: "0" } });
  assert.equal(piped.code, 0);
  assert.doesNotMatch(piped.stderr, /scanning/);
  assert.match(piped.stderr, /… 100 more/);
  // On a pseudo-terminal (script(1)), the counter shows on stderr and is erased at the end.
  const home = temp();
  const tty = spawnSync("script", ["-qec", `${BIN} ls --dir ${dir}`, "/dev/null"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH, HOME: home, MEMDIR_PROGRESS_AFTER_MS: "0", TERM: "dumb" },
    timeout: 30_000,
  });
  if (tty.error?.code === "ENOENT") return; // no script(1) on this machine
  assert.equal(tty.status, 0, tty.stdout);
  assert.match(tty.stdout, /scanning… \d+ files looked at, \d+ read/);
  assert.match(tty.stdout, /\r\x1b\[K/);
  for (const cmd of [["lint"], ["recall", "memory 5"]]) {
    const r = spawnSync("script", ["-qec", `${BIN} ${cmd.map((a) => JSON.stringify(a)).join(" ")} --dir ${dir}`, "/dev/null"], {
      encoding: "utf8",
      env: { PATH: process.env.PATH, HOME: home, MEMDIR_PROGRESS_AFTER_MS: "0", TERM: "dumb" },
      timeout: 30_000,
    });
    assert.match(r.stdout, /scanning…/, cmd.join(" "));
  }
});

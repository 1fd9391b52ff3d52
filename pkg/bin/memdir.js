#!/usr/bin/env node
// memdir: the command line over a memory directory on disk (a Claude Code one included).
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import * as posix from "node:path/posix";
import { parseArgs } from "node:util";
import * as api from "../index.node.js";
import { nodeFs } from "../node.js";

const EXIT = { OK: 0, FINDINGS: 1, USAGE: 2, RUNTIME: 3 };

// Library error codes that mean "the arguments were wrong" (exit 2, from the core's table of
// codes); other codes are exit 3.
const INPUT_ERRORS = new Set(api.errorCodes().filter((c) => c.input).map((c) => c.code));

const HELP = `memdir — a file-based memory for LLM agents, on the command line

Usage: memdir <command> [options]

Commands:
  path                 print the project's memory directory (as Claude Code resolves it)
  prompt               print the memory system prompt (--mode individual|combined|daily-log|agent)
  ls                   list memories, newest first (the daily log in logs/ is not a memory)
  show <file>          print one memory file
  recall <query>       the memories relevant to a query (built-in ranker, or a model when
                       ANTHROPIC_API_KEY or OPENAI_API_KEY is set; --no-llm to keep to the ranker)
  save                 save a memory: --name --description --type and --body (or the body on stdin)
  lint                 check the directory and its MEMORY.md
  log <text>           append to today's daily log (text or stdin); a bullet such as
                       "- 14:02 user switched to pnpm" is text, not an option
  mcp                  serve the directory to MCP clients (stdio, or --http PORT); see memdir mcp --help
  team sync --git <url>  pull then push team/ through a git remote (--branch, default main;
                       token in MEMDIR_GIT_TOKEN; author MEMDIR_GIT_NAME / MEMDIR_GIT_EMAIL)
  sync --git <url>     the same for this directory's private memory (team/ left out), through
                       a private repository; files with secrets are never pushed

Options:
  --dir <path>         the memory directory (default: the project's, see \`memdir path\`)
  --project <path>     the project whose directory to resolve (default: the current directory)
  --json               machine-readable output on stdout; an error is then
                       {"error":{"code","message"}} on stdout (same exit status)
  --limit <n>          recall: at most n memories (default 5); ls: at most n rows (default 200)
  --explain            recall: print each memory's score and why (matched terms by field, cosine)
  --embed-url <url>    recall: fuse in embeddings from an OpenAI-compatible endpoint (its base
                       URL, e.g. http://localhost:11434/v1); the key is MEMDIR_EMBED_KEY or
                       OPENAI_API_KEY. With a model key set too, the model answers (add --no-llm)
  --embed-model <name> recall: the embedding model (default text-embedding-3-small)
  --mode <mode>        prompt: which prompt (default individual)
  --skip-index         prompt: leave out the MEMORY.md steps
  --file <name>        save: the file name (default: derived from type and name)
  --scope <scope>      save: private (default) or team
  --replace            save: overwrite the memory when its file exists (without it,
                       saving a name that exists fails with exit 2, ALREADY_EXISTS)
  -h, --help           this help;  -v, --version  the version

Environment: CLAUDE_CONFIG_DIR, CLAUDE_CODE_REMOTE_MEMORY_DIR, CLAUDE_COWORK_MEMORY_PATH_OVERRIDE
(where memory lives); ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL,
MEMDIR_MODEL (recall through a model); MEMDIR_EMBED_URL, MEMDIR_EMBED_MODEL, MEMDIR_EMBED_KEY
(recall with embeddings, as --embed-url/--embed-model). On a terminal, ls, recall and lint show
a progress counter on stderr after MEMDIR_PROGRESS_AFTER_MS (default 400); never on a pipe.

Exit status: 0 ok, 1 findings or nothing found, 2 usage error (bad arguments, a refused name or
content, an existing file without --replace), 3 runtime error.`;

class UsageError extends Error {}
class NotFound extends Error {}

function out(text) {
  process.stdout.write(text.endsWith("\n") ? text : text + "\n");
}
function err(text) {
  process.stderr.write(text.endsWith("\n") ? text : text + "\n");
}
function json(value) {
  out(JSON.stringify(value, null, 2));
}

// ---- where memory lives (reference §2.2–2.4, §2.6) ------------------------------------------

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return undefined;
  }
}

function validateMemoryPath(raw, expandTilde, home) {
  return api.validateMemoryPath(raw ?? "", { expandTilde, home }) ?? null;
}

function loadSettings(projectRoot, configHome) {
  const layer = (path) => {
    const s = readJson(path);
    if (!s || typeof s !== "object") return {};
    const out = {};
    if (typeof s.autoMemoryEnabled === "boolean") out.autoMemoryEnabled = s.autoMemoryEnabled;
    if (s.autoMemoryDirectory != null) out.autoMemoryDirectory = String(s.autoMemoryDirectory);
    return out;
  };
  return {
    policy: layer("/etc/claude-code/managed-settings.json"),
    flag: {},
    local: layer(posix.join(projectRoot, ".claude", "settings.local.json")),
    project: layer(posix.join(projectRoot, ".claude", "settings.json")),
    user: layer(posix.join(configHome, "settings.json")),
  };
}

/** The project's memory directory and how it was chosen. */
async function resolveProjectMemory(projectDir, env = process.env, home = homedir()) {
  const projectRoot = posix.resolve(projectDir).normalize("NFC");
  const gitRoot = (await api.findCanonicalGitRoot(nodeFs({ sync: true }), projectRoot)) ?? null;
  const configHome = (env.CLAUDE_CONFIG_DIR ?? posix.join(home, ".claude")).normalize("NFC");
  const settings = loadSettings(projectRoot, configHome);
  const envMap = Object.fromEntries(Object.entries(env).filter(([, v]) => typeof v === "string"));
  const context = { env: envMap, settings, home, projectRoot, cwd: projectRoot, ...(gitRoot ? { gitRoot } : {}) };
  const enabled = api.isAutoMemoryEnabled({ env: envMap, settings });

  let dir;
  let source;
  const override = validateMemoryPath(env.CLAUDE_COWORK_MEMORY_PATH_OVERRIDE, false, home);
  if (override) {
    [dir, source] = [override, "CLAUDE_COWORK_MEMORY_PATH_OVERRIDE"];
  } else {
    // Settings may choose the directory, except the committed project settings (a repository
    // must not redirect writes): first defined of policy, flag, local, user.
    const chosen = [settings.policy, settings.flag, settings.local, settings.user]
      .map((l) => l.autoMemoryDirectory)
      .find((v) => v !== undefined);
    const fromSettings = chosen === undefined ? null : validateMemoryPath(chosen, true, home);
    if (fromSettings) {
      [dir, source] = [fromSettings, "settings autoMemoryDirectory"];
    } else {
      [dir, source] = [await api.resolveMemoryDir(context), "default"];
    }
  }
  return { dir, source, projectRoot, gitRoot, enabled };
}

// ---- filesystem with progress --------------------------------------------------------------

/**
 * nodeFs, counting the files it looks at; on a TTY, work that lasts longer than a moment shows a
 * counter on stderr (erased when done). On a pipe or a file, nothing is written.
 */
function progressFs() {
  const fs = nodeFs();
  if (!process.stderr.isTTY) return { fs, done() {} };
  const started = Date.now();
  const after = Number(process.env.MEMDIR_PROGRESS_AFTER_MS ?? 400);
  let stats = 0;
  let reads = 0;
  let shownAt = 0;
  let shown = false;
  const tick = () => {
    const now = Date.now();
    if (now - started >= after && now - shownAt > 100) {
      shownAt = now;
      shown = true;
      process.stderr.write(`\r\x1b[Kscanning… ${stats} files looked at, ${reads} read`);
    }
  };
  const counted = (fn, count) => async (...args) => {
    const result = await fn(...args);
    count();
    tick();
    return result;
  };
  const read = () => reads++;
  return {
    fs: {
      ...fs,
      stat: counted(fs.stat, () => stats++),
      readFile: counted(fs.readFile, read),
      readHead: counted(fs.readHead, read),
    },
    done() {
      if (shown) process.stderr.write("\r\x1b[K");
    },
  };
}

// ---- commands ------------------------------------------------------------------------------

async function readStdin() {
  if (process.stdin.isTTY) return null;
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return Buffer.concat(chunks).toString("utf8");
}

function dirExists(dir) {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function requireDir(dir) {
  if (!dirExists(dir)) throw new NotFound(`no memory directory at ${dir}`);
}

function memdirAt(dir, fs, extra = {}) {
  return new api.Memdir({ fs, dir, ...extra });
}

function modelFromEnv(env) {
  if (env.ANTHROPIC_API_KEY) {
    const model = env.MEMDIR_MODEL || "claude-sonnet-4-6";
    const llm = api.anthropicLlm({ apiKey: env.ANTHROPIC_API_KEY, model, ...(env.ANTHROPIC_BASE_URL ? { baseUrl: env.ANTHROPIC_BASE_URL } : {}) });
    return { llm, label: `anthropic ${model}` };
  }
  if (env.OPENAI_API_KEY) {
    const model = env.MEMDIR_MODEL || "gpt-4.1-mini";
    const llm = api.openAiLlm({ apiKey: env.OPENAI_API_KEY, model, ...(env.OPENAI_BASE_URL ? { baseUrl: env.OPENAI_BASE_URL } : {}) });
    return { llm, label: `openai-compatible ${model}` };
  }
  return null;
}

// The embedder of --embed-url/--embed-model (or MEMDIR_EMBED_URL/MEMDIR_EMBED_MODEL); null when
// neither is given.
function embedderFrom(values, env) {
  const baseUrl = values["embed-url"] ?? env.MEMDIR_EMBED_URL;
  const model = values["embed-model"] ?? env.MEMDIR_EMBED_MODEL;
  if (!baseUrl && !model) return null;
  const apiKey = env.MEMDIR_EMBED_KEY || env.OPENAI_API_KEY;
  const embed = api.openAiEmbed({ ...(baseUrl ? { baseUrl } : {}), ...(model ? { model } : {}), ...(apiKey ? { apiKey } : {}) });
  return { embed, label: `embeddings ${embed.model}` };
}

// One line on why recall chose a memory: `score 0.61 · deploy (name, body), stage (body) · cosine 0.72`.
function whyLine(why) {
  if (!why) return "why: (not explained)";
  const parts = [`score ${why.score.toFixed(3)}`];
  if (why.lexical) {
    const terms = why.lexical.terms.map((t) => `${t.term} (${t.fields.join(", ")})`).join(", ");
    parts.push(`lexical ${why.lexical.score.toFixed(3)}: ${terms}`);
  } else {
    parts.push("no query word matched");
  }
  if (why.semantic) parts.push(`cosine ${why.semantic.cosine.toFixed(3)}`);
  return `why: ${parts.join(" · ")}`;
}

/** `--limit`'s value as a positive integer (`fallback` when absent). */
function positiveInt(raw, fallback) {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new UsageError("--limit must be a positive integer");
  return n;
}

function age(mtimeMs) {
  return api.memoryAge(mtimeMs, Date.now());
}

const commands = {
  async path({ values, resolved }) {
    if (values.json) return json({ ...resolved, exists: dirExists(resolved.dir), entrypoint: resolved.dir + "MEMORY.md" });
    out(resolved.dir);
  },

  async prompt({ values, dir }) {
    const mode = values.mode ?? "individual";
    if (!["individual", "combined", "daily-log", "agent"].includes(mode)) throw new UsageError(`unknown mode ${JSON.stringify(mode)}`);
    const options = { mode, memoryDir: dir, skipIndex: Boolean(values["skip-index"]) };
    if (mode === "agent") {
      let raw = "";
      try {
        raw = readFileSync(dir + "MEMORY.md", "utf8");
      } catch {}
      if (raw.trim()) options.agentIndex = api.truncateEntrypoint(raw).content;
    }
    const text = api.buildMemoryPrompt(options);
    if (values.json) return json({ mode, dir, prompt: text });
    out(text);
  },

  async ls({ values, dir }) {
    const limit = positiveInt(values.limit, 200);
    requireDir(dir);
    const { fs, done } = progressFs();
    let page;
    try {
      page = await memdirAt(dir, fs, { writeMode: "read-only" }).scanPage({ limit });
    } finally {
      done();
    }
    const { headers, total } = page;
    const more = total - headers.length;
    const cut = more > 0 ? `… ${more} more; use --limit ${total} to list them all` : "";
    if (values.json) {
      json(headers);
      if (cut) err(cut);
      return;
    }
    if (!headers.length) {
      err(`no memories in ${dir}`);
      return;
    }
    const width = Math.min(48, Math.max(...headers.map((h) => h.filename.length)));
    for (const h of headers) {
      out(`${(h.type ?? "-").padEnd(9)} ${h.filename.padEnd(width)}  ${age(h.mtimeMs).padEnd(11)}  ${h.description ?? ""}`);
    }
    if (cut) err(cut);
  },

  async show({ values, positionals, dir }) {
    const file = positionals[0];
    if (!file || positionals.length > 1) throw new UsageError("show needs exactly one file");
    const path = posix.resolve(dir, file);
    if (!path.startsWith(dir)) throw new UsageError(`${file} is outside the memory directory`);
    let text;
    let mtimeMs;
    try {
      text = readFileSync(path, "utf8");
      mtimeMs = statSync(path).mtimeMs;
    } catch (e) {
      if (e.code === "ENOENT" || e.code === "EISDIR" || e.code === "ENOTDIR") throw new NotFound(`no memory file ${file} in ${dir}`);
      throw e;
    }
    if (values.json) {
      const parsed = api.parseFrontmatter(text);
      return json({ file: path.slice(dir.length), path, mtimeMs, ...parsed });
    }
    out(text);
  },

  async recall({ values, positionals, dir }) {
    const query = positionals.join(" ").trim();
    if (!query) throw new UsageError("recall needs a query");
    const limit = positiveInt(values.limit, 5);
    requireDir(dir);
    const model = values["no-llm"] ? null : modelFromEnv(process.env);
    const embedder = embedderFrom(values, process.env);
    const explain = Boolean(values.explain);
    const { fs, done } = progressFs();
    const memdir = memdirAt(dir, fs, {
      writeMode: "read-only",
      ...(model ? { llm: model.llm } : {}),
      ...(embedder ? { embed: embedder.embed } : {}),
    });
    let found;
    let surfaced;
    try {
      found = await memdir.findRelevant(query, { limit, explain });
      surfaced = await surface(memdir, found.memories, fs);
    } finally {
      done();
    }
    if (explain) {
      const whys = new Map(found.memories.map((m) => [m.path, m.why]));
      for (const s of surfaced) s.why = whys.get(s.path);
    }
    if (values.json) {
      json({ query, answeredBy: found.answeredBy, outcome: found.outcome, memories: surfaced });
    } else {
      for (const s of surfaced) {
        out(explain ? `${s.header}\n${whyLine(s.why)}\n\n${s.content.trimEnd()}\n` : `${s.header}\n\n${s.content.trimEnd()}\n`);
      }
      const by = found.answeredBy;
      const labels = [by.startsWith("llm") && model?.label, by.includes("semantic") && embedder?.label].filter(Boolean);
      const note = found.outcome === "ok" ? "" : ` (outcome ${found.outcome})`;
      err(`${surfaced.length} ${surfaced.length === 1 ? "memory" : "memories"}, answered by ${by}${labels.length ? ` (${labels.join(", ")})` : ""}${note}`);
    }
    return surfaced.length ? EXIT.OK : EXIT.FINDINGS;
  },

  async save({ values, positionals, dir }) {
    if (positionals.length) throw new UsageError(`save takes no arguments (got ${positionals.join(" ")}); use --body or stdin`);
    for (const key of ["name", "description", "type"]) if (!values[key]) throw new UsageError(`save needs --${key}`);
    let body = values.body ?? (await readStdin());
    if (body == null) throw new UsageError("save needs --body or the body on stdin");
    const input = { name: values.name, description: values.description, type: values.type, body };
    if (values.file) input.file = values.file;
    if (values.scope) input.scope = values.scope;
    if (values.replace) input.replace = true;
    let outcome;
    try {
      outcome = await memdirAt(dir, nodeFs()).save(input);
    } catch (e) {
      if (e?.code === "ALREADY_EXISTS") e.message = `${e.message} (--replace overwrites it)`;
      throw e;
    }
    if (outcome.indexWarning) {
      const w = outcome.indexWarning;
      err(`warning: MEMORY.md is over its caps (${w.lineCount} lines, ${w.byteCount} units); entries past them are not loaded`);
    }
    if (values.json) return json(outcome);
    out(outcome.path ?? outcome.file);
  },

  async lint({ values, dir }) {
    requireDir(dir);
    const { fs, done } = progressFs();
    let report;
    try {
      report = await memdirAt(dir, fs, { writeMode: "read-only" }).lint();
    } finally {
      done();
    }
    const findings = Array.isArray(report) ? report : report?.findings ?? [];
    if (values.json) json(Array.isArray(report) ? { findings } : report);
    else if (!findings.length) err(`no problems in ${dir}`);
    else for (const f of findings) out(`${f.code}${f.file ? `  ${f.file}` : ""}  ${f.message}`);
    return findings.length ? EXIT.FINDINGS : EXIT.OK;
  },

  async log({ values, positionals, dir }) {
    let text = positionals.length ? positionals.join(" ") : await readStdin();
    if (!text || !text.trim()) throw new UsageError("log needs some text (arguments or stdin)");
    if (!text.endsWith("\n")) text += "\n";
    const path = await memdirAt(dir, nodeFs()).appendLog(text);
    if (values.json) return json({ path });
    out(path);
  },
};

const OPTIONS = {
  dir: { type: "string" },
  project: { type: "string" },
  json: { type: "boolean" },
  limit: { type: "string" },
  mode: { type: "string" },
  "skip-index": { type: "boolean" },
  "no-llm": { type: "boolean" },
  explain: { type: "boolean" },
  "embed-url": { type: "string" },
  "embed-model": { type: "string" },
  name: { type: "string" },
  description: { type: "string" },
  type: { type: "string" },
  body: { type: "string" },
  file: { type: "string" },
  scope: { type: "string" },
  replace: { type: "boolean" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
};

// ---- git sync: `memdir team sync --git URL`, `memdir sync --git URL` ------------------------

Object.assign(OPTIONS, { git: { type: "string" }, branch: { type: "string" } });
Object.assign(commands, {
  team: ({ values, positionals, dir }) => {
    if (positionals[0] !== "sync") throw new UsageError("usage: memdir team sync --git <url> [--branch <name>]");
    return gitSyncCommand(values, dir, "team");
  },
  sync: ({ values, positionals, dir }) => {
    if (positionals.length) throw new UsageError("usage: memdir sync --git <url> [--branch <name>]");
    return gitSyncCommand(values, dir, "private");
  },
});

/** Pull, then push, one scope through a git remote; exit 1 when files were left out. */
async function gitSyncCommand(values, dir, scope) {
  if (!values.git) throw new UsageError("--git <url> is needed (the remote repository)");
  requireDir(dir);
  const env = process.env;
  const git = {
    url: values.git,
    branch: values.branch ?? "main",
    ...(env.MEMDIR_GIT_TOKEN ? { auth: { token: env.MEMDIR_GIT_TOKEN } } : {}),
    author: { name: env.MEMDIR_GIT_NAME ?? "memdir", email: env.MEMDIR_GIT_EMAIL ?? "memdir@localhost" },
  };
  const sync = memdirAt(dir, nodeFs()).teamSync({ git, scope });
  const pull = await sync.pull();
  const push = await sync.push();
  const leftOut = push.skippedSecrets.length + pull.skipped.length;
  if (values.json) json({ scope, pull, push });
  else {
    const where = scope === "team" ? "team/" : "private memory";
    out(`${where}: pulled ${pull.filesWritten} file(s), pushed ${push.filesUploaded}${push.conflict ? ` (after ${push.conflictRetries} conflict retr${push.conflictRetries === 1 ? "y" : "ies"})` : ""}`);
    for (const s of pull.skipped) err(`not pulled: ${s.key} (${s.reason.kind}${s.reason.code ? ` ${s.reason.code}` : ""})`);
    if (pull.entriesOverCap) err(`not pulled: ${pull.entriesOverCap} file(s) past the cap`);
    for (const s of push.skippedSecrets) err(`not pushed (secret: ${s.label}): ${s.path}`);
    const overwritten = [...new Set([...pull.overwritten, ...push.overwritten])];
    if (overwritten.length) err(`changed on both sides: ${overwritten.join(", ")}; the replaced versions are kept in ${[...pull.savedCopies, ...push.savedCopies].join(", ")}`);
  }
  return leftOut ? EXIT.FINDINGS : EXIT.OK;
}

async function surface(memdir, memories, fs) {
  const now = Date.now();
  if (typeof memdir.surface === "function") {
    const result = await memdir.surface(memories);
    const items = Array.isArray(result) ? result : result?.memories ?? result?.surfaced ?? [];
    return items.map((s) => ({
      path: s.path,
      mtimeMs: s.mtimeMs,
      header: s.header ?? api.memoryHeader(s.path, s.mtimeMs ?? now, now),
      content: s.content ?? s.text ?? "",
    }));
  }
  return Promise.all(memories.map(async (m) => ({
    path: m.path,
    mtimeMs: m.mtimeMs,
    header: api.memoryHeader(m.path, m.mtimeMs, now),
    content: String(await fs.readFile(m.path)),
  })));
}

/**
 * Arguments that are text, not options: a `-` followed by something other than a letter or a
 * second `-` (`- 14:02 user switched…`, `-5`), or a single-dash argument holding whitespace.
 * `parseArgs` would read them as unknown short options (or refuse them as an option's value).
 */
function isText(arg) {
  return arg.length > 1 && arg[0] === "-" && arg[1] !== "-" && (!/[A-Za-z]/.test(arg[1]) || /\s/.test(arg));
}

/** parseArgs, with text arguments (see `isText`) kept as positionals or option values. */
function parseArgv(argv) {
  // A placeholder holds each text argument's place: NUL cannot occur in a process argument.
  const texts = [];
  const args = argv.map((a) => (isText(a) ? `\0${texts.push(a) - 1}` : a));
  const restore = (v) => (typeof v === "string" && v.startsWith("\0") ? texts[Number(v.slice(1))] : v);
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  for (const key of Object.keys(values)) values[key] = restore(values[key]);
  return { values, positionals: positionals.map(restore) };
}

/** The error code of a failure, for `--json` output. */
function errorCode(e) {
  if (e instanceof UsageError) return "USAGE";
  if (e instanceof NotFound) return "NOT_FOUND";
  if (api.isMemdirError(e)) return e.code;
  return typeof e?.code === "string" ? e.code : "RUNTIME";
}

async function main(argv = process.argv.slice(2)) {
  // `memdir mcp`: the MCP server (lib/mcp/cli.js, loaded only for it), sharing our resolution.
  if (argv[0] === "mcp") return (await import("../lib/mcp/cli.js")).main(argv.slice(1), { resolveProjectMemory, modelFromEnv, embedderFrom });
  // With --json, every failure is one JSON object on stdout; the exit status is the same.
  const asJson = argv.includes("--json");
  const fail = (e, command, exit) => {
    const message = e?.message ?? String(e);
    if (asJson) json({ error: { code: errorCode(e), message, exit } });
    else if (api.isMemdirError(e)) err(`memdir ${command}: ${message} (${e.code})`);
    else if (command) err(`memdir ${command}: ${message}`);
    else err(`memdir: ${message}\nTry \`memdir --help\`.`);
    return exit;
  };
  let parsed;
  try {
    parsed = parseArgv(argv);
  } catch (e) {
    return fail(new UsageError(e.message), "", EXIT.USAGE);
  }
  const { values, positionals } = parsed;
  if (values.version) {
    out(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version);
    return EXIT.OK;
  }
  const [name, ...rest] = positionals;
  if (values.help || !name) {
    if (!values.help && asJson) return fail(new UsageError("no command given"), "", EXIT.USAGE);
    (values.help ? out : err)(HELP);
    return values.help ? EXIT.OK : EXIT.USAGE;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    return fail(new UsageError(`unknown command ${JSON.stringify(name)}`), "", EXIT.USAGE);
  }
  try {
    const resolved = await resolveProjectMemory(values.project ?? process.cwd());
    let dir = resolved.dir;
    if (values.dir !== undefined) {
      if (!values.dir) throw new UsageError("--dir needs a path");
      dir = posix.resolve(values.dir).replace(/\/*$/, "/");
    }
    const code = await command({ values, positionals: rest, dir, resolved });
    return code ?? EXIT.OK;
  } catch (e) {
    if (e instanceof UsageError) return fail(e, name, EXIT.USAGE);
    if (e instanceof NotFound) return fail(e, name, EXIT.FINDINGS);
    if (api.isMemdirError(e)) {
      if (e.code === "NOT_FOUND") return fail(e, name, EXIT.FINDINGS);
      return fail(e, name, INPUT_ERRORS.has(e.code) ? EXIT.USAGE : EXIT.RUNTIME);
    }
    return fail(e, name, e?.exit ?? EXIT.RUNTIME);
  }
}

process.exitCode = await main();

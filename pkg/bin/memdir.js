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
  ls                   list memories, newest first
  show <file>          print one memory file
  recall <query>       the memories relevant to a query (built-in ranker, or a model when
                       ANTHROPIC_API_KEY or OPENAI_API_KEY is set; --no-llm to keep to the ranker)
  save                 save a memory: --name --description --type and --body (or the body on stdin)
  lint                 check the directory and its MEMORY.md
  log <text>           append to today's daily log (text or stdin)

Options:
  --dir <path>         the memory directory (default: the project's, see \`memdir path\`)
  --project <path>     the project whose directory to resolve (default: the current directory)
  --json               machine-readable output on stdout
  --limit <n>          recall: at most n memories (default 5)
  --explain            recall: print each memory's score and why (matched terms by field, cosine)
  --embed-url <url>    recall: fuse in embeddings from an OpenAI-compatible endpoint (its base
                       URL, e.g. http://localhost:11434/v1); the key is MEMDIR_EMBED_KEY or
                       OPENAI_API_KEY. With a model key set too, the model selects from the
                       embeddings' best and they answer if it fails (--no-llm: embeddings only)
  --embed-model <name> recall: the embedding model (default text-embedding-3-small)
  --mode <mode>        prompt: which prompt (default individual)
  --skip-index         prompt: leave out the MEMORY.md steps
  --file <name>        save: the file name (default: derived from type and name)
  --scope <scope>      save: private (default) or team
  --replace            save: overwrite an existing file of that name
  -h, --help           this help;  -v, --version  the version

Environment: CLAUDE_CONFIG_DIR, CLAUDE_CODE_REMOTE_MEMORY_DIR, CLAUDE_COWORK_MEMORY_PATH_OVERRIDE
(where memory lives); ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL, OPENAI_API_KEY, OPENAI_BASE_URL,
MEMDIR_MODEL (recall through a model); MEMDIR_EMBED_URL, MEMDIR_EMBED_MODEL, MEMDIR_EMBED_KEY
(recall with embeddings, as --embed-url/--embed-model).

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

/** nodeFs, counting reads; on a TTY, long scans show a counter on stderr. */
function progressFs() {
  const fs = nodeFs();
  if (!process.stderr.isTTY) return { fs, done() {} };
  const started = Date.now();
  let files = 0;
  let shownAt = 0;
  let shown = false;
  const tick = () => {
    files++;
    const now = Date.now();
    if (now - started > 400 && now - shownAt > 100) {
      shownAt = now;
      shown = true;
      process.stderr.write(`\r\x1b[Kscanning… ${files} files read`);
    }
  };
  const counted = (fn) => async (...args) => {
    const result = await fn(...args);
    tick();
    return result;
  };
  return {
    fs: { ...fs, readFile: counted(fs.readFile), readHead: counted(fs.readHead) },
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
    requireDir(dir);
    const { fs, done } = progressFs();
    let headers;
    try {
      headers = await memdirAt(dir, fs, { writeMode: "read-only" }).scan();
    } finally {
      done();
    }
    if (values.json) return json(headers);
    if (!headers.length) {
      err(`no memories in ${dir}`);
      return;
    }
    const width = Math.min(48, Math.max(...headers.map((h) => h.filename.length)));
    for (const h of headers) {
      out(`${(h.type ?? "-").padEnd(9)} ${h.filename.padEnd(width)}  ${age(h.mtimeMs).padEnd(11)}  ${h.description ?? ""}`);
    }
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
    const limit = values.limit === undefined ? 5 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1) throw new UsageError("--limit must be a positive integer");
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
    const outcome = await memdirAt(dir, nodeFs()).save(input);
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

async function main(argv = process.argv.slice(2)) {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (e) {
    err(`memdir: ${e.message}\nTry \`memdir --help\`.`);
    return EXIT.USAGE;
  }
  const { values, positionals } = parsed;
  if (values.version) {
    out(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version);
    return EXIT.OK;
  }
  const [name, ...rest] = positionals;
  if (values.help || !name) {
    (values.help ? out : err)(HELP);
    return values.help ? EXIT.OK : EXIT.USAGE;
  }
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (!command) {
    err(`memdir: unknown command ${JSON.stringify(name)}\nTry \`memdir --help\`.`);
    return EXIT.USAGE;
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
    if (e instanceof UsageError) {
      err(`memdir ${name}: ${e.message}`);
      return EXIT.USAGE;
    }
    if (e instanceof NotFound) {
      err(`memdir ${name}: ${e.message}`);
      return EXIT.FINDINGS;
    }
    if (api.isMemdirError(e)) {
      err(`memdir ${name}: ${e.message} (${e.code})`);
      if (e.code === "NOT_FOUND") return EXIT.FINDINGS;
      if (INPUT_ERRORS.has(e.code)) return EXIT.USAGE;
      return EXIT.RUNTIME;
    }
    err(`memdir ${name}: ${e?.message ?? e}`);
    return e?.exit ?? EXIT.RUNTIME;
  }
}

process.exitCode = await main();

// Ready-made tool definitions over a `Memdir`: one description of the memory tools (names, JSON
// Schemas, descriptions, `execute`), and thin adapters for the Anthropic SDK's memory tool and
// the AI SDK. Nothing here imports an SDK: the adapters take the SDK's own functions as
// arguments, so the main import stays dependency-free.
import { MemdirError, isMemdirError } from "./errors.js";

const TYPES = ["user", "feedback", "project", "reference"];
const MEMORY_ROOT = "/memories";

const file = (what) => ({
  type: "string",
  minLength: 1,
  maxLength: 1024,
  description: `${what}, relative to the memory directory (e.g. \`feedback_testing.md\`, \`team/deploys.md\`).`,
});

/** The JSON Schemas of the tools' inputs (draft 2020-12 subset: object, string, integer, boolean, enum). */
const SCHEMAS = {
  recall: {
    type: "object",
    properties: {
      query: {
        type: "string",
        minLength: 1,
        maxLength: 20000,
        description: "What you are about to work on or were asked, in your own words or the user's.",
      },
      limit: { type: "integer", minimum: 1, maximum: 20, description: "At most this many memories (default 5)." },
    },
    required: ["query"],
    additionalProperties: false,
  },
  save: {
    type: "object",
    properties: {
      name: { type: "string", minLength: 1, maxLength: 200, description: "A short title, one line." },
      description: {
        type: "string",
        minLength: 1,
        maxLength: 500,
        description: "One line saying what the memory is about; it decides when the memory is recalled.",
      },
      type: {
        type: "string",
        enum: TYPES,
        description:
          "user: who the user is; feedback: how the user wants you to work; project: facts about the work not in the code; reference: where to find things.",
      },
      body: { type: "string", maxLength: 200000, description: "The memory itself, in markdown. Say why, not only what." },
      scope: {
        type: "string",
        enum: ["private", "team"],
        description: "private (default) or team (shared with the team; refused if it holds a secret).",
      },
      file: file("The file name to use instead of the derived `<type>_<slug>.md`"),
      replace: { type: "boolean", description: "Overwrite an existing file of that name." },
    },
    required: ["name", "description", "type", "body"],
    additionalProperties: false,
  },
  update: {
    type: "object",
    properties: {
      file: file("The memory to change"),
      name: { type: "string", minLength: 1, maxLength: 200, description: "A new title." },
      description: { type: "string", minLength: 1, maxLength: 500, description: "A new one-line description." },
      type: { type: "string", enum: TYPES, description: "A new type." },
      body: { type: "string", maxLength: 200000, description: "A new body (replaces the old one whole)." },
    },
    required: ["file"],
    additionalProperties: false,
  },
  delete: {
    type: "object",
    properties: { file: file("The memory to delete (its index entry goes too)") },
    required: ["file"],
    additionalProperties: false,
  },
  list: { type: "object", properties: {}, additionalProperties: false },
  read: {
    type: "object",
    properties: { file: file("The file to read (a memory, `MEMORY.md`, or a daily log)") },
    required: ["file"],
    additionalProperties: false,
  },
  lint: { type: "object", properties: {}, additionalProperties: false },
  log: {
    type: "object",
    properties: {
      text: { type: "string", minLength: 1, maxLength: 20000, description: "What to note in today's log." },
    },
    required: ["text"],
    additionalProperties: false,
  },
};

const DESCRIPTIONS = {
  recall:
    "Find the memories relevant to a query and return them in full, each headed by its file and how old it is. Call it before starting a task that past sessions may have informed. Memories can be stale: check what they claim against the code before relying on it.",
  save:
    "Save a new memory (a markdown file with name, description and type, plus its line in MEMORY.md). Save what will matter in later conversations: who the user is, how they want you to work, project facts not in the code, where to find things. Never save secrets.",
  update: "Change a memory's name, description, type or body; what you leave out stays as it is. The index line follows.",
  delete: "Delete a memory that is wrong or no longer useful, with its line in MEMORY.md.",
  list: "List every memory in MEMORY.md (title, file, description), and say which entries point to missing files.",
  read: "Read one file of the memory directory whole: a memory, MEMORY.md, or a daily log.",
  lint: "Check the memory directory: broken or missing index lines, bad frontmatter, duplicates, secrets, stale or oversized memories.",
  log: "Append a short timestamped note to today's daily log (logs/YYYY/MM/YYYY-MM-DD.md).",
};

const READ_ONLY = new Set(["recall", "list", "read", "lint"]);

function invalid(tool, message) {
  return new MemdirError("INVALID_INPUT", `${tool}: ${message}`);
}

/** Check `input` against one of the schemas above (the subset they use). */
function check(tool, schema, input) {
  if (input === undefined || input === null) input = {};
  if (typeof input !== "object" || Array.isArray(input)) throw invalid(tool, "the arguments must be an object");
  for (const key of schema.required ?? []) {
    if (input[key] === undefined) throw invalid(tool, `\`${key}\` is required`);
  }
  const out = {};
  for (const [key, value] of Object.entries(input)) {
    const prop = schema.properties[key];
    if (!prop) throw invalid(tool, `unknown argument \`${key}\` (expected ${Object.keys(schema.properties).join(", ") || "none"})`);
    if (value === undefined) continue;
    if (prop.type === "string") {
      if (typeof value !== "string") throw invalid(tool, `\`${key}\` must be a string`);
      if (prop.minLength && value.length < prop.minLength) throw invalid(tool, `\`${key}\` must not be empty`);
      if (prop.maxLength && value.length > prop.maxLength) throw invalid(tool, `\`${key}\` is longer than ${prop.maxLength} characters`);
      if (prop.enum && !prop.enum.includes(value)) throw invalid(tool, `\`${key}\` must be one of ${prop.enum.join(", ")}`);
    } else if (prop.type === "integer") {
      if (!Number.isInteger(value)) throw invalid(tool, `\`${key}\` must be an integer`);
      if (value < prop.minimum || value > prop.maximum) throw invalid(tool, `\`${key}\` must be within ${prop.minimum}..${prop.maximum}`);
    } else if (prop.type === "boolean" && typeof value !== "boolean") {
      throw invalid(tool, `\`${key}\` must be true or false`);
    }
    out[key] = value;
  }
  return out;
}

/** A file of the memory directory, whole, read through the memory tool (contained like it). */
async function readWhole(memdir, rel) {
  const { text } = await memdir.memoryCommand({ command: "view", path: `${MEMORY_ROOT}/${rel}` });
  const lines = text.split("\n");
  if (!lines[0].startsWith("Here's the content of ")) {
    throw new MemdirError("INVALID_INPUT", `${rel} is a directory, not a file`);
  }
  return lines.slice(1).map((line) => line.slice(line.indexOf("\t") + 1)).join("\n");
}

function saved(outcome, verb) {
  if (outcome.status === "proposed") return `Proposed to the user (awaiting approval): ${verb} ${outcome.file ?? outcome.input?.file ?? "the memory"}.`;
  if (outcome.status === "deleted") return `Deleted ${outcome.file}${outcome.removedEntry ? " and its line in MEMORY.md" : ""}.`;
  let text = `${outcome.created ? "Saved" : "Updated"} ${outcome.file}; MEMORY.md points to it.`;
  if (outcome.indexWarning) text += ` Warning: ${outcome.indexWarning.message ?? "MEMORY.md is over its cap"}.`;
  return text;
}

function runners(memdir) {
  return {
    async recall({ query, limit }, { signal } = {}) {
      const found = await memdir.findRelevant(query, { limit: limit ?? 5, ...(signal ? { signal } : {}) });
      if (!found.memories.length) return "No memory is relevant to this query.";
      const shown = await memdir.surface(found.memories);
      return shown.map((m) => m.text).join("\n\n");
    },
    async save(input) {
      return saved(await memdir.save(input), "save");
    },
    async update({ file, ...changes }) {
      return saved(await memdir.update(file, changes), "update");
    },
    async delete({ file }) {
      return saved(await memdir.delete(file), "delete");
    },
    async list() {
      const items = await memdir.list();
      if (!items.length) return "MEMORY.md lists no memories yet.";
      return items
        .map((m) => {
          const where = m.scope === "team" ? `team/${m.entry.file}` : m.entry.file;
          return `- [${m.entry.title}](${where})${m.entry.hook ? ` — ${m.entry.hook}` : ""}${m.exists ? "" : " (file missing)"}`;
        })
        .join("\n");
    },
    async read({ file }) {
      return readWhole(memdir, file);
    },
    async lint() {
      const report = await memdir.lint();
      if (!report.findings.length) return `No problems in ${report.filesChecked} files.`;
      return report.findings
        .map((f) => `${f.severity} ${f.code}${f.file ? ` ${f.file}${f.line ? `:${f.line}` : ""}` : ""}: ${f.message}`)
        .join("\n");
    },
    async log({ text }) {
      const path = await memdir.appendLog(text);
      return `Noted in ${path.startsWith(memdir.dir) ? path.slice(memdir.dir.length) : path}.`;
    },
  };
}

/**
 * The memory tools over one `Memdir`: `recall`, `save`, `update`, `delete`, `list`, `read`,
 * `lint`, `log`, each with a JSON Schema for its input, a description for the model, whether it
 * only reads, and `execute(input, { signal })`, which checks the input against the schema and
 * resolves to the text for the model (or rejects with a `MemdirError`). `readOnly: true` leaves
 * out the tools that write.
 *
 * @example
 * const tools = memoryTools(memdir);
 * const recall = tools.find((t) => t.name === "recall");
 * console.log(await recall.execute({ query: "how do we run the tests" }));
 */
export function memoryTools(memdir, options = {}) {
  const run = runners(memdir);
  return Object.keys(SCHEMAS)
    .filter((name) => !options.readOnly || READ_ONLY.has(name))
    .map((name) => ({
      name,
      description: DESCRIPTIONS[name],
      inputSchema: structuredClone(SCHEMAS[name]),
      readOnly: READ_ONLY.has(name),
      execute: async (input, context) => run[name](check(name, SCHEMAS[name], input), context ?? {}),
    }));
}

/**
 * The handlers of the Anthropic SDK's memory tool (`memory_20250818`) over a `Memdir`:
 * `betaMemoryTool(anthropicMemoryHandlers(memdir))` from `@anthropic-ai/sdk/helpers/beta/memory`.
 * Each answers with the text the SDK's own filesystem backend would (see the README for the
 * differences); errors are thrown for the tool runner to report.
 *
 * @example
 * import { betaMemoryTool } from "@anthropic-ai/sdk/helpers/beta/memory";
 * const memory = betaMemoryTool(anthropicMemoryHandlers(memdir));
 */
export function anthropicMemoryHandlers(memdir) {
  const run = async (command) => {
    const input = { ...command };
    // The SDK's backend ignores a range that is not two numbers; so does this one.
    if (input.command === "view" && !(Array.isArray(input.view_range) && input.view_range.length === 2)) delete input.view_range;
    try {
      return (await memdir.memoryCommand(input)).text;
    } catch (e) {
      // The tool runner reports `Error: <message>`; keep the code for callers that look.
      if (isMemdirError(e)) throw e;
      throw new MemdirError("INVALID_INPUT", String(e?.message ?? e), { cause: e });
    }
  };
  return { view: run, create: run, str_replace: run, insert: run, delete: run, rename: run };
}

/**
 * The memory tools as AI SDK tools: pass the `ai` module (or `{ tool, jsonSchema }` from it).
 * Names get `prefix` (default `memory_`): `memory_recall`, `memory_save` …
 *
 * @example
 * import * as ai from "ai";
 * const result = await ai.generateText({ model, tools: aiSdkTools(memdir, ai), prompt });
 */
export function aiSdkTools(memdir, ai, options = {}) {
  if (!ai || typeof ai.tool !== "function" || typeof ai.jsonSchema !== "function") {
    throw new MemdirError("INVALID_INPUT", "aiSdkTools needs the `ai` module (or { tool, jsonSchema } from it) as its second argument");
  }
  const prefix = options.prefix ?? "memory_";
  const out = {};
  for (const t of memoryTools(memdir, options)) {
    out[prefix + t.name] = ai.tool({
      description: t.description,
      inputSchema: ai.jsonSchema(t.inputSchema),
      execute: (input, context) => t.execute(input, { signal: context?.abortSignal }),
    });
  }
  return out;
}

// memdir in the agent SDKs, driven by the SDKs themselves:
// - the Anthropic SDK's toolRunner with memdir's memory-tool handlers against a fake Messages API
//   on 127.0.0.1, and the same script against the SDK's own local-filesystem backend: the tool
//   results are compared text for text, the README's listed differences being the only ones;
// - an AI SDK agent loop (its MockLanguageModelV3) calling every memdir tool;
// - strict TypeScript accepting the handlers as the SDK's `MemoryToolHandlers` without a cast.
import test from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { copyFile, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import Anthropic from "@anthropic-ai/sdk";
import { betaMemoryTool } from "@anthropic-ai/sdk/helpers/beta/memory";
import { BetaLocalFilesystemMemoryTool } from "@anthropic-ai/sdk/tools/memory/node";
import * as ai from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Memdir, anthropicMemoryHandlers, aiSdkTools, memoryTools, isMemdirError } from "memdir";
import { nodeFs } from "memdir/node";

const run = promisify(execFile);
const repo = process.env.MEMDIR_REPO;

async function tempDir(tag) {
  return mkdtemp(join(tmpdir(), `memdir-${tag}-`));
}

/** A fake Messages API: answers request i with `turns[i]` and records each request's tool results. */
async function fakeMessagesApi(turns) {
  const results = [];
  let calls = 0;
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const params = JSON.parse(body);
    const last = params.messages.at(-1);
    if (Array.isArray(last.content)) {
      for (const block of last.content) {
        if (block.type === "tool_result") {
          const text = typeof block.content === "string" ? block.content : block.content.map((c) => c.text).join("");
          results.push({ text, isError: block.is_error === true });
        }
      }
    }
    const turn = turns[calls];
    const content = turn
      ? [{ type: "tool_use", id: `toolu_${calls}`, name: "memory", input: turn }]
      : [{ type: "text", text: "Done." }];
    calls++;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: `msg_${calls}`,
        type: "message",
        role: "assistant",
        model: params.model,
        content,
        stop_reason: turn ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 1, output_tokens: 1 },
      }),
    );
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, results, close: () => new Promise((r) => server.close(r)) };
}

async function runScript(turns, tool) {
  const api = await fakeMessagesApi(turns);
  try {
    const client = new Anthropic({ apiKey: "test-key", baseURL: api.url, maxRetries: 0 });
    const final = await client.beta.messages.toolRunner({
      model: "claude-test",
      max_tokens: 1024,
      messages: [{ role: "user", content: "Use your memory." }],
      tools: [tool],
      max_iterations: turns.length + 2,
    });
    assert.equal(final.content[0].text, "Done.");
    return api.results;
  } finally {
    await api.close();
  }
}

const NOTE = "---\nname: Testing policy\ndescription: Integration tests hit a real database\ntype: feedback\n---\n\nUse the real database in integration tests.\nWhy: mocks hid a broken migration.\nHow to apply: every test under tests/integration.\n";

// The script: each command of memory_20250818, in the ways a model uses them and gets them wrong.
const SCRIPT = [
  { command: "view", path: "/memories" },
  { command: "create", path: "/memories/feedback_testing.md", file_text: NOTE },
  { command: "view", path: "/memories/feedback_testing.md" },
  { command: "view", path: "/memories/feedback_testing.md", view_range: [6, -1] },
  { command: "view", path: "/memories/feedback_testing.md", view_range: [20, 30] },
  { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "broken migration", new_str: "broken migration (March)" },
  { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "integration", new_str: "e2e" },
  { command: "str_replace", path: "/memories/feedback_testing.md", old_str: "no such text", new_str: "x" },
  { command: "str_replace", path: "/memories/missing.md", old_str: "a", new_str: "b" },
  { command: "insert", path: "/memories/feedback_testing.md", insert_line: 7, insert_text: "Also: seed data per test.\n" },
  { command: "insert", path: "/memories/feedback_testing.md", insert_line: 99, insert_text: "x" },
  { command: "insert", path: "/memories/missing.md", insert_line: 0, insert_text: "x" },
  { command: "create", path: "/memories/notes/reference_dashboards.md", file_text: "---\nname: Dashboards\ndescription: Where the latency dashboards are\ntype: reference\n---\n\ngrafana.internal/d/api-latency\n" },
  { command: "create", path: "/memories/feedback_testing.md", file_text: "again" },
  { command: "view", path: "/memories" },
  { command: "view", path: "/memories/notes" },
  { command: "view", path: "/memories/nothing-here.md" },
  { command: "view", path: "/memories/../etc/passwd" },
  { command: "view", path: "/etc/passwd" },
  { command: "rename", old_path: "/memories/notes/reference_dashboards.md", new_path: "/memories/reference_dashboards.md" },
  { command: "rename", old_path: "/memories/feedback_testing.md", new_path: "/memories/reference_dashboards.md" },
  { command: "rename", old_path: "/memories/gone.md", new_path: "/memories/other.md" },
  { command: "delete", path: "/memories/reference_dashboards.md" },
  { command: "delete", path: "/memories/reference_dashboards.md" },
  { command: "delete", path: "/memories" },
  { command: "rename", old_path: "/memories", new_path: "/memories/x" },
  // Last, so that no later listing shows its (different) size: a file without frontmatter.
  { command: "create", path: "/memories/project_todo.md", file_text: "Ship the beta on Friday.\n" },
  { command: "view", path: "/memories/project_todo.md" },
];

/** The numbered lines of a `view` result, without their numbers. */
function viewed(text) {
  return text.split("\n").slice(1).map((l) => l.slice(l.indexOf("\t") + 1)).join("\n");
}

test("toolRunner: memdir's handlers answer the six commands text for text like the SDK's backend", async () => {
  const sdkBase = await tempDir("sdk");
  const memBase = await tempDir("memdir");
  try {
    const reference = await runScript(SCRIPT, betaMemoryTool(await BetaLocalFilesystemMemoryTool.init(sdkBase)));
    // A fresh directory that does not exist yet: the root is created on first use.
    const dir = join(memBase, "memory") + "/";
    const memdir = new Memdir({ fs: nodeFs(), dir });
    const ours = await runScript(SCRIPT, betaMemoryTool(anthropicMemoryHandlers(memdir)));
    assert.equal(reference.length, SCRIPT.length);
    assert.equal(ours.length, SCRIPT.length);
    const differing = [];
    for (let i = 0; i < SCRIPT.length; i++) {
      const step = SCRIPT[i];
      const [want, got] = [reference[i], ours[i]];
      assert.equal(got.isError, want.isError, `step ${i} ${JSON.stringify(step)}: is_error`);
      if (got.text === want.text) continue;
      differing.push(i);
      if (step.command === "view" && step.path === "/memories") {
        // Listed difference 1: memdir keeps MEMORY.md in step, so the listing shows it.
        const withoutIndex = got.text.split("\n").filter((l) => !l.endsWith("\t/memories/MEMORY.md")).join("\n");
        assert.equal(withoutIndex, want.text, `step ${i}: the listing differs beyond MEMORY.md`);
        assert.match(got.text, /\n\d+B\t\/memories\/MEMORY\.md\n/);
      } else if (step.command === "view" && step.path === "/memories/project_todo.md") {
        // Listed difference 2: a memory written without frontmatter gets one.
        const [mine, theirs] = [viewed(got.text), viewed(want.text)];
        assert.ok(mine.endsWith("---\n\n" + theirs), `step ${i}:\n${mine}\n---- vs ----\n${theirs}`);
        assert.match(mine, /^---\nname: todo\ndescription: .+\ntype: project\n---\n/);
      } else {
        assert.fail(`step ${i} ${JSON.stringify(step)} differs:\n${got.text}\n---- SDK backend ----\n${want.text}`);
      }
    }
    assert.deepEqual(differing, [14, 27]);
    // Errors read as the SDK's: the runner's `Error: <message>`.
    assert.equal(ours[16].text, "Error: The path /memories/nothing-here.md does not exist. Please provide a valid path.");
    assert.match(ours[6].text, /^Error: No replacement was performed\. Multiple occurrences of old_str `integration` in lines: 7, 9\./);
    // What the tool wrote is a proper memory: indexed, and lint finds nothing about it.
    const index = await readFile(join(dir, "MEMORY.md"), "utf8");
    assert.match(index, /^- \[todo\]\(project_todo\.md\) — /m);
    assert.match(index, /^- \[Testing policy\]\(feedback_testing\.md\) — Integration tests hit a real database$/m);
    assert.doesNotMatch(index, /reference_dashboards/);
    const { findings } = await memdir.lint();
    assert.deepEqual(findings.filter((f) => f.severity === "error"), []);
  } finally {
    await rm(sdkBase, { recursive: true, force: true });
    await rm(memBase, { recursive: true, force: true });
  }
});

test("the handlers refuse what memdir refuses, with a MemdirError the runner reports", async () => {
  const base = await tempDir("memdir-ro");
  try {
    const memdir = new Memdir({ fs: nodeFs(), dir: base + "/", writeMode: "read-only" });
    const handlers = anthropicMemoryHandlers(memdir);
    await assert.rejects(handlers.create({ command: "create", path: "/memories/a.md", file_text: "x" }), (e) => isMemdirError(e) && e.code === "WRITE_FORBIDDEN");
    const team = anthropicMemoryHandlers(new Memdir({ fs: nodeFs(), dir: base + "/" }));
    const secret = `ghp_${"a1B2c3D4".repeat(4)}e5F6`;
    await assert.rejects(
      team.create({ command: "create", path: "/memories/team/t.md", file_text: `token ${secret}` }),
      (e) => isMemdirError(e) && e.code === "SECRET_DETECTED" && !e.message.includes(secret),
    );
    // A range that is not two numbers is ignored, as the SDK's backend ignores it.
    await team.create({ command: "create", path: "/memories/a.md", file_text: "---\nname: A\ndescription: a\ntype: user\n---\n\nx\n" });
    assert.match(await team.view({ command: "view", path: "/memories/a.md", view_range: [2] }), /^Here's the content of \/memories\/a\.md with line numbers:\n {5}1\t---/);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test("AI SDK: an agent loop with the mock model calls every memdir tool", async () => {
  const base = await tempDir("ai");
  try {
    const memdir = new Memdir({ fs: nodeFs(), dir: base + "/" });
    const tools = aiSdkTools(memdir, ai);
    assert.deepEqual(Object.keys(tools).sort(), ["memory_delete", "memory_lint", "memory_list", "memory_log", "memory_read", "memory_recall", "memory_save", "memory_update"]);
    const calls = [
      ["memory_save", { name: "Prefers pnpm", description: "The user uses pnpm in every repository", type: "feedback", body: "Use pnpm, never npm.\n" }],
      ["memory_list", {}],
      ["memory_recall", { query: "which package manager does the user prefer" }],
      ["memory_update", { file: "feedback_prefers_pnpm.md", description: "Uses pnpm everywhere, also in CI" }],
      ["memory_read", { file: "feedback_prefers_pnpm.md" }],
      ["memory_log", { text: "Switched the CI job to pnpm." }],
      ["memory_lint", {}],
      ["memory_save", { name: "Bad", type: "nonsense" }],
      ["memory_delete", { file: "feedback_prefers_pnpm.md" }],
    ];
    let step = 0;
    const model = new MockLanguageModelV3({
      doGenerate: async () => {
        const call = calls[step];
        step++;
        const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
        if (!call) return { content: [{ type: "text", text: "All done." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
        return {
          content: [{ type: "tool-call", toolCallId: `call_${step}`, toolName: call[0], input: JSON.stringify(call[1]) }],
          finishReason: { unified: "tool-calls", raw: "tool_use" },
          usage,
          warnings: [],
        };
      },
    });
    const result = await ai.generateText({ model, tools, prompt: "Remember that I use pnpm.", stopWhen: ai.stepCountIs(calls.length + 2) });
    assert.equal(result.text, "All done.");
    const outputs = result.steps.flatMap((s) => s.content.filter((c) => c.type === "tool-result" || c.type === "tool-error"));
    assert.equal(outputs.length, calls.length);
    const byTool = (name) => outputs.filter((o) => o.toolName === name);
    assert.match(byTool("memory_save")[0].output, /^Saved feedback_prefers_pnpm\.md/);
    assert.match(byTool("memory_list")[0].output, /\[Prefers pnpm\]\(feedback_prefers_pnpm\.md\) — The user uses pnpm/);
    assert.match(byTool("memory_recall")[0].output, /Use pnpm, never npm\./);
    assert.match(byTool("memory_update")[0].output, /^Updated feedback_prefers_pnpm\.md/);
    assert.match(byTool("memory_read")[0].output, /description: Uses pnpm everywhere, also in CI/);
    assert.match(byTool("memory_log")[0].output, /^Noted in logs\/\d{4}\/\d{2}\/\d{4}-\d{2}-\d{2}\.md\.$/);
    assert.equal(typeof byTool("memory_lint")[0].output, "string");
    // A malformed call is an error for the model, not a crash of the loop.
    const bad = byTool("memory_save")[1];
    assert.equal(bad.type, "tool-error");
    assert.match(String(bad.error?.message ?? bad.error), /type|description/);
    assert.match(byTool("memory_delete")[0].output, /^Deleted feedback_prefers_pnpm\.md/);
    assert.equal((await memdir.list()).length, 0);
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test("memoryTools: schemas and execute, with input checked before anything runs", async () => {
  const base = await tempDir("defs");
  try {
    const memdir = new Memdir({ fs: nodeFs(), dir: base + "/" });
    const tools = memoryTools(memdir);
    assert.deepEqual(tools.map((t) => t.name), ["recall", "save", "update", "delete", "list", "read", "lint", "log"]);
    for (const t of tools) {
      assert.equal(t.inputSchema.type, "object");
      assert.equal(t.inputSchema.additionalProperties, false);
      assert.ok(t.description.length > 40, t.name);
    }
    const save = tools.find((t) => t.name === "save");
    assert.deepEqual(save.inputSchema.properties.type.enum, ["user", "feedback", "project", "reference"]);
    const cases = [
      [{}, /`name` is required/],
      [{ name: "n", description: "d", type: "user", body: 3 }, /`body` must be a string/],
      [{ name: "n", description: "d", type: "user", body: "b", extra: 1 }, /unknown argument `extra`/],
      ["text", /must be an object/],
    ];
    for (const [input, message] of cases) {
      await assert.rejects(save.execute(input), (e) => isMemdirError(e) && e.code === "INVALID_INPUT" && message.test(e.message));
    }
    assert.deepEqual(memoryTools(memdir, { readOnly: true }).map((t) => t.name), ["recall", "list", "read", "lint"]);
    const read = tools.find((t) => t.name === "read");
    await assert.rejects(read.execute({ file: "../outside.md" }), (e) => isMemdirError(e) && e.code.startsWith("PATH_"));
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test("strict TypeScript takes the handlers as MemoryToolHandlers and the AI SDK tools as a ToolSet, no casts", async () => {
  // agents-types.ts sits next to this file (scripts/test-js.sh copies tests/js/*.ts with it).
  const path = join(process.cwd(), "tsconfig.agents.json");
  try {
    const config = {
      compilerOptions: { target: "ES2022", module: "NodeNext", moduleResolution: "NodeNext", strict: true, noEmit: true, skipLibCheck: true, types: ["node"], lib: ["ES2022", "DOM"] },
      files: ["agents-types.ts"],
    };
    await writeFile(path, JSON.stringify(config));
    const tsc = join(repo, "scripts/node_modules/.bin/tsc");
    await run(tsc, ["-p", path], { cwd: process.cwd() }).catch((e) => assert.fail(`tsc:\n${e.stdout}${e.stderr}`));
  } finally {
    await rm(path, { force: true });
  }
});

test("the README's integration examples run (tests/examples/mcp-*, anthropic-*, ai-sdk-*)", async (t) => {
  const examples = join(repo, "tests", "examples");
  const files = (await readdir(examples)).filter((f) => /^(mcp|anthropic|ai-sdk)-.*\.mjs$/.test(f)).sort();
  assert.deepEqual(files, ["ai-sdk-tools.mjs", "anthropic-memory-tool.mjs", "mcp-client.mjs"]);
  for (const file of files) {
    await t.test(file, async () => {
      // Run from the consumer project, so `memdir` and the SDKs resolve as a user's would.
      const local = join(process.cwd(), `example-${file}`);
      await copyFile(join(examples, file), local);
      const dir = await tempDir("example");
      // The Anthropic example talks to the Messages API: here a fake one that asks for two commands.
      const api = file.startsWith("anthropic-")
        ? await fakeMessagesApi([
            { command: "view", path: "/memories" },
            { command: "create", path: "/memories/user_role.md", file_text: "---\nname: Role\ndescription: Senior Go developer, new to React\ntype: user\n---\n\nExplain frontend ideas in backend terms.\n" },
          ])
        : null;
      try {
        const env = { PATH: process.env.PATH, HOME: process.env.HOME, MEMDIR_EXAMPLE_DIR: dir, ...(api ? { ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: api.url } : {}) };
        const { stdout } = await run(process.execPath, [local], { env, cwd: process.cwd() });
        assert.match(stdout, /^ok /m, stdout);
        if (api) assert.deepEqual(api.results.map((r) => r.isError), [false, false]);
      } finally {
        await api?.close();
        await rm(local, { force: true });
        await rm(dir, { recursive: true, force: true });
      }
    });
  }
});

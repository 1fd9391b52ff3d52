// `memdir mcp` as a child process, driven by the MCP SDK's own client over stdio and over
// Streamable HTTP: tools, prompt, resources, list-changed notifications after an outside write,
// and tool errors (never a crash) for traversal, secrets in team memory, read-only mode and
// malformed arguments.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { request } from "node:http";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ResourceListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";

const bin = join(process.cwd(), "node_modules", "memdir", "bin", "memdir.js");
const SECRET = `ghp_${"a1B2c3D4".repeat(4)}e5F6`;

async function tempDir(tag) {
  return mkdtemp(join(tmpdir(), `memdir-mcp-${tag}-`));
}

/** A client whose list-changed notifications can be awaited. */
function client() {
  const c = new Client({ name: "memdir-test", version: "1.0.0" });
  let waiters = [];
  let count = 0;
  c.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    count++;
    for (const w of waiters) w();
    waiters = [];
  });
  c.listChanged = (timeoutMs = 5000) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no resources/list_changed notification")), timeoutMs);
      waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  c.notificationCount = () => count;
  return c;
}

async function stdioClient(args) {
  const c = client();
  const transport = new StdioClientTransport({ command: process.execPath, args: [bin, "mcp", ...args], stderr: "pipe", env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  await c.connect(transport);
  return c;
}

/** `memdir mcp --http 0 …` as a child; resolves with its URL once it listens. */
async function httpServer(args) {
  const child = spawn(process.execPath, [bin, "mcp", "--http", "0", ...args], { stdio: ["ignore", "ignore", "pipe"], env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  let stderr = "";
  const url = await new Promise((resolve, reject) => {
    child.stderr.on("data", (d) => {
      stderr += d;
      const m = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr);
      if (m) resolve(m[0]);
    });
    child.on("exit", (code) => reject(new Error(`memdir mcp exited ${code}: ${stderr}`)));
  });
  return { url, child, stop: () => new Promise((r) => (child.exitCode !== null ? r() : (child.once("exit", r), child.kill("SIGTERM")))) };
}

const text = (result) => result.content.map((c) => c.text).join("");

/** Everything both transports must do, on a connected client over `dir`. */
async function exercise(c, dir) {
  const { tools } = await c.listTools();
  assert.deepEqual(tools.map((t) => t.name).sort(), ["delete", "lint", "list", "log", "read", "recall", "save", "update"]);
  const save = tools.find((t) => t.name === "save");
  assert.deepEqual(save.inputSchema.required, ["name", "description", "type", "body"]);
  assert.equal(save.inputSchema.additionalProperties, false);
  assert.equal(tools.find((t) => t.name === "recall").annotations.readOnlyHint, true);

  const { prompts } = await c.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name), ["memory"]);
  const prompt = await c.getPrompt({ name: "memory" });
  assert.match(prompt.messages[0].content.text, /MEMORY\.md/);

  const saved = await c.callTool({
    name: "save",
    arguments: { name: "Staging deploys", description: "How staging deploys are triggered", type: "project", body: "Merging to main deploys staging through the deploy-staging workflow.\n" },
  });
  assert.equal(saved.isError, undefined, text(saved));
  assert.match(text(saved), /^Saved project_staging_deploys\.md/);
  const recalled = await c.callTool({ name: "recall", arguments: { query: "how do staging deploys get triggered" } });
  assert.match(text(recalled), /deploy-staging workflow/);
  assert.match(text(recalled), /project_staging_deploys\.md/);

  const { resources } = await c.listResources();
  const uris = resources.map((r) => r.uri);
  assert.ok(uris.includes("memdir:///MEMORY.md"), uris.join(", "));
  assert.ok(uris.includes("memdir:///project_staging_deploys.md"), uris.join(", "));
  const index = await c.readResource({ uri: "memdir:///MEMORY.md" });
  assert.match(index.contents[0].text, /^- \[Staging deploys\]\(project_staging_deploys\.md\) — How staging deploys/m);
  const { resourceTemplates } = await c.listResourceTemplates();
  assert.equal(resourceTemplates[0].uriTemplate, "memdir:///{+file}");

  // An outside write (another agent, an editor) → resources/list_changed.
  const changed = c.listChanged();
  await writeFile(join(dir, "user_role.md"), "---\nname: Role\ndescription: Senior Go developer\ntype: user\n---\n\nNew to React.\n");
  await changed;
  const after = await c.listResources();
  assert.ok(after.resources.some((r) => r.uri === "memdir:///user_role.md"));

  // Errors are results with isError, and the session goes on.
  const errors = [
    ["read", { file: "../../../etc/passwd" }, /^PATH_/],
    ["save", { name: "x", description: "d", type: "user", body: "b", file: "../escape.md" }, /^(PATH_|INVALID_MEMORY)/],
    ["save", { name: "Token", description: "the deploy token", type: "reference", body: `token: ${SECRET}\n`, scope: "team" }, /^SECRET_DETECTED: /],
    ["save", { name: "No type", description: "d", body: "b" }, /^INVALID_INPUT: save: `type` is required/],
    ["recall", { query: 42 }, /^INVALID_INPUT: recall: `query` must be a string/],
    ["update", { file: "nope.md", body: "x" }, /^NOT_FOUND: /],
    ["frobnicate", {}, /^INVALID_INPUT: no tool named "frobnicate"/],
  ];
  for (const [name, args, pattern] of errors) {
    const result = await c.callTool({ name, arguments: args });
    assert.equal(result.isError, true, `${name}: ${text(result)}`);
    assert.match(text(result), pattern);
    assert.ok(!text(result).includes(SECRET));
  }
  assert.equal((await readdir(dir)).includes("escape.md"), false);
  const team = await readdir(join(dir, "team")).catch(() => []);
  assert.deepEqual(team.filter((f) => f !== "MEMORY.md"), []);
  assert.equal((await c.listTools()).tools.length, 8);
}

test("stdio: tools, prompt, resources, notifications and tool errors", async () => {
  const dir = await tempDir("stdio");
  const c = await stdioClient(["--dir", dir]);
  try {
    await exercise(c, dir);
    const log = await c.callTool({ name: "log", arguments: { text: "Deployed staging." } });
    assert.match(text(log), /^Noted in logs\//);
    const lint = await c.callTool({ name: "lint", arguments: {} });
    assert.equal(lint.isError, undefined, text(lint));
  } finally {
    await c.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("Streamable HTTP on 127.0.0.1: the same, and only loopback hosts", async () => {
  const dir = await tempDir("http");
  const server = await httpServer(["--dir", dir]);
  const c = client();
  try {
    await c.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    await exercise(c, dir);
    // DNS rebinding: a foreign Host header is refused.
    const { port } = new URL(server.url);
    const status = await new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: { host: "evil.example", "content-type": "application/json" } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on("error", reject);
      req.end("{}");
    });
    assert.equal(status, 403);
  } finally {
    await c.close();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test("--read-only: only the reading tools, and a write is a tool error that changes nothing", async () => {
  const dir = await tempDir("ro");
  await writeFile(join(dir, "user_role.md"), "---\nname: Role\ndescription: Senior Go developer\ntype: user\n---\n\nNew to React.\n");
  await writeFile(join(dir, "MEMORY.md"), "- [Role](user_role.md) — Senior Go developer\n");
  const c = await stdioClient(["--dir", dir, "--read-only"]);
  try {
    const { tools } = await c.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(), ["lint", "list", "read", "recall"]);
    for (const name of ["save", "delete", "log"]) {
      const result = await c.callTool({ name, arguments: { file: "user_role.md", text: "x" } });
      assert.equal(result.isError, true);
      assert.match(text(result), /^WRITE_FORBIDDEN: /);
    }
    assert.match(text(await c.callTool({ name: "read", arguments: { file: "user_role.md" } })), /New to React/);
    assert.deepEqual((await readdir(dir)).sort(), ["MEMORY.md", "user_role.md"]);
  } finally {
    await c.close();
    await rm(dir, { recursive: true, force: true });
  }
});

test("usage errors exit 2 with a message; --help lists the tools", async () => {
  const run = promisify(execFile);
  const help = await run(process.execPath, [bin, "mcp", "--help"]);
  assert.match(help.stdout, /Tools: recall, save, update, delete, list, read, lint, log/);
  await assert.rejects(run(process.execPath, [bin, "mcp", "--http", "eighty"]), (e) => e.code === 2 && /--http needs a port/.test(e.stderr));
  await assert.rejects(run(process.execPath, [bin, "mcp", "--bogus"]), (e) => e.code === 2);
});

// An MCP server over one memory directory, built on the official SDK's low-level `Server` (so the
// tools' JSON Schemas go out exactly as `memoryTools` writes them). Transport-agnostic: `memdir
// mcp` (./cli.js) connects it to stdio or Streamable HTTP. This file imports the MCP SDK, so it is
// reached only through `memdir mcp` and the `memdir/mcp` entry, never from the main import.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { isMemdirError } from "../errors.js";
import { memoryTools } from "../tools.js";

const SCHEME = "memdir:///";
const WRITES = new Set(["save", "update", "delete", "log"]);
const DESTRUCTIVE = new Set(["update", "delete"]);

const INSTRUCTIONS = `This server is a persistent, file-based memory (a MEMORY.md index of one-line pointers and one markdown file per memory). Call recall before work that past sessions may have informed; save what the user asks you to remember and what will matter later (who they are, how they want you to work, project facts not in the code, where to find things); update or delete memories that turn out wrong. The "memory" prompt explains the conventions in full. Never store secrets.`;

/** The URI of a file of the memory directory (`memdir:///team/deploys.md`). */
export function resourceUri(rel) {
  return SCHEME + rel.split("/").map(encodeURIComponent).join("/");
}

function relOf(uri) {
  if (typeof uri !== "string" || !uri.startsWith(SCHEME)) {
    throw new McpError(ErrorCode.InvalidParams, `not a memdir resource: ${uri} (they start with ${SCHEME})`);
  }
  try {
    return uri.slice(SCHEME.length).split("/").map(decodeURIComponent).join("/");
  } catch {
    throw new McpError(ErrorCode.InvalidParams, `malformed resource URI: ${uri}`);
  }
}

function errorText(e) {
  if (isMemdirError(e)) return `${e.code}: ${e.message}`;
  return `Error: ${e?.message ?? String(e)}`;
}

/**
 * An MCP `Server` (not yet connected) over one `Memdir`: the memory tools (`recall`, `save`,
 * `update`, `delete`, `list`, `read`, `lint`, `log`; with `readOnly`, only those that read),
 * the memory prompt as the prompt `memory`, and `MEMORY.md` plus each memory as resources
 * (`memdir:///<file>`). A failing tool call is a result with `isError: true` whose text starts
 * with the `MemdirError` code; it never ends the session.
 *
 * @example
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * const server = createMemdirMcpServer(memdir);
 * await server.connect(new StdioServerTransport());
 */
export function createMemdirMcpServer(memdir, options = {}) {
  const readOnly = Boolean(options.readOnly);
  const tools = memoryTools(memdir, { readOnly });
  const byName = new Map(tools.map((t) => [t.name, t]));
  const server = new Server(
    { name: options.name ?? "memdir", version: options.version ?? "0.0.0" },
    {
      capabilities: { tools: {}, prompts: {}, resources: { listChanged: true } },
      instructions: INSTRUCTIONS,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      annotations: {
        readOnlyHint: t.readOnly,
        destructiveHint: DESTRUCTIVE.has(t.name),
        idempotentHint: t.readOnly,
        openWorldHint: false,
      },
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    const tool = byName.get(name);
    if (!tool) {
      const why = readOnly && WRITES.has(name)
        ? `WRITE_FORBIDDEN: this memory server runs read-only (--read-only); ${name} is not available`
        : `INVALID_INPUT: no tool named ${JSON.stringify(name)} (tools: ${[...byName.keys()].join(", ")})`;
      return { content: [{ type: "text", text: why }], isError: true };
    }
    try {
      const text = await tool.execute(args ?? {}, { signal: extra?.signal });
      return { content: [{ type: "text", text }] };
    } catch (e) {
      return { content: [{ type: "text", text: errorText(e) }], isError: true };
    }
  });

  server.setRequestHandler(ListPromptsRequestSchema, async () => ({
    prompts: [
      {
        name: "memory",
        title: "Memory",
        description: "How to use this memory directory: the memory system prompt, with the current MEMORY.md.",
      },
    ],
  }));

  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    if (request.params.name !== "memory") {
      throw new McpError(ErrorCode.InvalidParams, `no prompt named ${JSON.stringify(request.params.name)} (prompts: memory)`);
    }
    const text = (await memdir.loadPrompt()) ?? "Memory is turned off for this directory.";
    return {
      description: "The memory system prompt",
      messages: [{ role: "user", content: { type: "text", text } }],
    };
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => {
    const index = await memdir.readIndex().catch(() => ({ exists: false }));
    const resources = [];
    if (index.exists) {
      resources.push({
        uri: resourceUri("MEMORY.md"),
        name: "MEMORY.md",
        title: "Memory index",
        description: "The index of the memory directory: one line per memory.",
        mimeType: "text/markdown",
      });
    }
    for (const h of await memdir.scan()) {
      resources.push({
        uri: resourceUri(h.filename),
        name: h.filename,
        ...(h.name ? { title: h.name } : {}),
        ...(h.description ? { description: h.description } : {}),
        mimeType: "text/markdown",
      });
    }
    return { resources };
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: `${SCHEME}{+file}`,
        name: "memory file",
        description: "Any file of the memory directory by its path (a memory, MEMORY.md, team/MEMORY.md, a daily log).",
        mimeType: "text/markdown",
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const rel = relOf(uri);
    try {
      const text = await byName.get("read").execute({ file: rel });
      return { contents: [{ uri, mimeType: "text/markdown", text }] };
    } catch (e) {
      const code = isMemdirError(e) && e.code === "NOT_FOUND" ? -32002 : ErrorCode.InvalidParams;
      throw new McpError(code, errorText(e), { uri });
    }
  });

  return server;
}

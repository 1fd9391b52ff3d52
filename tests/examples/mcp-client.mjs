// memdir as an MCP server, started the way an MCP client's configuration starts it (Claude
// Desktop's claude_desktop_config.json, VS Code's .vscode/mcp.json, Cursor's .cursor/mcp.json all
// hold the same command and arguments), then driven with the MCP SDK's client.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = process.env.MEMDIR_EXAMPLE_DIR ?? mkdtempSync(join(tmpdir(), "memdir-"));

// The server entry of the client's configuration (leave out "--dir" to use the project's
// Claude Code memory directory, resolved as `memdir path` prints it).
const server = { command: "npx", args: ["-y", "memdir", "mcp", "--dir", dir] };

const client = new Client({ name: "example", version: "1.0.0" });
await client.connect(new StdioClientTransport({ ...server, env: { PATH: process.env.PATH, HOME: process.env.HOME } }));

const { tools } = await client.listTools();
console.log("tools:", tools.map((t) => t.name).join(", "));

await client.callTool({
  name: "save",
  arguments: {
    name: "Testing policy",
    description: "Integration tests hit a real database, never mocks",
    type: "feedback",
    body: "Why: mocked tests passed while a broken migration shipped.\n",
  },
});
const recalled = await client.callTool({ name: "recall", arguments: { query: "should the integration tests mock the database" } });
console.log(recalled.content[0].text);

const index = await client.readResource({ uri: "memdir:///MEMORY.md" });
console.log(index.contents[0].text);
await client.close();
if (!recalled.content[0].text.includes("broken migration")) throw new Error("recall missed the memory");
console.log(`ok ${tools.length} tools`);

// The Anthropic SDK's memory tool (memory_20250818) backed by a memdir directory: the model's
// view/create/str_replace/insert/delete/rename land in a Claude-Code-compatible memory, with
// MEMORY.md kept in step. ANTHROPIC_API_KEY (and ANTHROPIC_BASE_URL, if any) come from the
// environment, as the SDK reads them.
import Anthropic from "@anthropic-ai/sdk";
import { betaMemoryTool } from "@anthropic-ai/sdk/helpers/beta/memory";
import { Memdir, anthropicMemoryHandlers } from "memdir";
import { nodeFs } from "memdir/node";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = (process.env.MEMDIR_EXAMPLE_DIR ?? mkdtempSync(join(tmpdir(), "memdir-"))) + "/";
const memdir = new Memdir({ fs: nodeFs(), dir });

const client = new Anthropic();
const final = await client.beta.messages.toolRunner({
  model: "claude-sonnet-4-5",
  max_tokens: 2048,
  betas: ["context-management-2025-06-27"],
  messages: [{ role: "user", content: "I'm a Go developer new to React. Remember that." }],
  tools: [betaMemoryTool(anthropicMemoryHandlers(memdir))],
});
console.log(final.content.filter((b) => b.type === "text").map((b) => b.text).join("\n"));

const index = readFileSync(join(dir, "MEMORY.md"), "utf8");
console.log(index);
console.log(`ok ${(await memdir.list()).length} memories indexed`);

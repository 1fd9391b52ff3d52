// memdir's tools in a Vercel AI SDK agent loop. The model here is the AI SDK's mock, scripted to
// save a memory and recall it; use your provider's model instead (e.g. `anthropic("claude-sonnet-4-5")`
// from @ai-sdk/anthropic) and drop the script.
import * as ai from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { Memdir, aiSdkTools } from "memdir";
import { nodeFs } from "memdir/node";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = (process.env.MEMDIR_EXAMPLE_DIR ?? mkdtempSync(join(tmpdir(), "memdir-"))) + "/";
const memdir = new Memdir({ fs: nodeFs(), dir });

const script = [
  { toolName: "memory_save", input: { name: "Prefers pnpm", description: "The user uses pnpm in every repository", type: "feedback", body: "Use pnpm, never npm or yarn.\n" } },
  { toolName: "memory_recall", input: { query: "should I install with npm or pnpm" } },
];
let turn = 0;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const model = new MockLanguageModelV3({
  doGenerate: async () => {
    const call = script[turn++];
    if (!call) return { content: [{ type: "text", text: "Noted: pnpm." }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
    return {
      content: [{ type: "tool-call", toolCallId: `c${turn}`, toolName: call.toolName, input: JSON.stringify(call.input) }],
      finishReason: { unified: "tool-calls", raw: "tool_use" },
      usage,
      warnings: [],
    };
  },
});

const result = await ai.generateText({
  model,
  system: await memdir.loadPrompt(),
  tools: aiSdkTools(memdir, ai),
  stopWhen: ai.stepCountIs(5),
  prompt: "I always use pnpm. Remember that.",
});
const outputs = result.steps.flatMap((s) => s.toolResults.map((r) => `${r.toolName}: ${r.output}`));
console.log(outputs.join("\n\n"));
if (!outputs.some((o) => o.startsWith("memory_recall:") && o.includes("never npm"))) throw new Error("recall missed the memory");
console.log(`ok ${result.steps.length} steps`);

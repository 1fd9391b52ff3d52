// Type-checked by agents.test.mjs with strict tsc against the installed SDKs: memdir's adapters
// fit the SDKs' own types without a cast.
import Anthropic from "@anthropic-ai/sdk";
import { betaMemoryTool, type MemoryToolHandlers } from "@anthropic-ai/sdk/helpers/beta/memory";
import * as ai from "ai";
import { Memdir, memoryFs, anthropicMemoryHandlers, aiSdkTools, memoryTools, type MemoryToolDefinition } from "memdir";

const memdir = new Memdir({ fs: memoryFs(), dir: "/m/" });

const handlers: MemoryToolHandlers = anthropicMemoryHandlers(memdir);
const tool = betaMemoryTool(anthropicMemoryHandlers(memdir));
const client = new Anthropic({ apiKey: "k" });
export const runner = client.beta.messages.toolRunner({ model: "m", max_tokens: 1, messages: [], tools: [tool] });

const tools: ai.ToolSet = aiSdkTools(memdir, ai);
export const generate = (model: ai.LanguageModel) => ai.generateText({ model, tools, prompt: "p" });

const defs: MemoryToolDefinition[] = memoryTools(memdir, { readOnly: true });
export const names: string[] = defs.map((d) => d.name);
export { handlers };

import { Memdir, resolveMemoryDir, anthropicLlm } from "memdir";
import { nodeFs } from "memdir/node";
import { homedir } from "node:os";

const fs = nodeFs();
// The directory Claude Code would use for this project (all worktrees share it).
const dir = await resolveMemoryDir({ fs, projectRoot: process.cwd(), home: homedir(), env: process.env });
const apiKey = process.env.ANTHROPIC_API_KEY;
const memdir = new Memdir({
  fs,
  dir,
  llm: apiKey ? anthropicLlm({ apiKey }) : undefined, // without a key the built-in ranker answers
});

// Once per conversation: the memory section of the system prompt.
const system = ["You are a coding agent.", await memdir.loadPrompt()].join("\n\n");

// When the user says "remember …" (replace: true updates the memory on a second run).
await memdir.save({
  name: "Prefers pnpm",
  description: "Uses pnpm in every repository",
  type: "feedback",
  body: "Use pnpm, never npm.",
  replace: true,
});

// Each turn: recall, then give the picks to the model with the user's message.
const userText = "should I install the dependencies with npm or pnpm?";
const { memories, answeredBy } = await memdir.findRelevant(userText, { signal: AbortSignal.timeout(10_000) });
const messages = [];
for (const m of await memdir.surface(memories)) messages.push({ role: "user", content: m.text });
messages.push({ role: "user", content: userText });

console.log(`${system.length} chars of system prompt; recall (${answeredBy}) picked ${memories.length}:`);
console.log(messages[0]?.content ?? "(nothing)");

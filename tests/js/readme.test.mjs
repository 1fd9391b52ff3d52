// The README's Node quick start, run as written (with a temporary home and no API key).
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Memdir, resolveMemoryDir, RecallSession, shouldRecall } from "memdir";
import { nodeFs } from "memdir/node";

test("README quick start: resolve, prompt, save, recall, surface", async () => {
  const home = await mkdtemp(join(tmpdir(), "memdir-home-"));
  const fs = nodeFs();
  const dir = await resolveMemoryDir({ fs, projectRoot: "/work/app", home, env: {} });
  assert.equal(dir, `${home}/.claude/projects/-work-app/memory/`);
  const memdir = new Memdir({ fs, dir, telemetry: () => {} });

  const section = await memdir.loadPrompt();
  assert.match(section, /^# auto memory\n/);
  assert.ok(section.includes(dir));

  await memdir.save({ name: "Prefers pnpm", description: "Uses pnpm in every repository", type: "feedback", body: "Use pnpm, never npm.\n" });
  const index = await memdir.readIndex();
  assert.equal(index.content, "- [Prefers pnpm](feedback_prefers_pnpm.md) \u2014 Uses pnpm in every repository");

  const session = new RecallSession();
  const prompt = "should I install the deps with npm or pnpm?";
  assert.ok(shouldRecall(prompt) && !session.exhausted);
  const { memories, answeredBy } = await memdir.findRelevant(prompt, { alreadySurfaced: session.surfacedPaths });
  assert.equal(answeredBy, "lexical");
  assert.equal(memories.length, 1);
  const shown = await memdir.surface(memories);
  session.record(shown);
  assert.ok(shown[0].text.startsWith(`<system-reminder>\nMemory (saved today): ${dir}feedback_prefers_pnpm.md:\n\n---\nname: Prefers pnpm\n`), shown[0].text);
  assert.ok(session.usedUnits > 0);
  assert.deepEqual(session.surfacedPaths, [memories[0].path]);
});

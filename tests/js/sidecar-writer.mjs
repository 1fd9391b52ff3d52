// A child process that keeps rewriting a memory directory's `.memdir-vectors` sidecar through
// nodeFs: node sidecar-writer.mjs DIR. Each round opens a Memdir whose embedder names the other
// model (`model-a`, `model-b`), so every recall re-embeds every memory and replaces the whole
// sidecar. Prints "round <i>" after each one so a parent can kill it mid-write.
import { Memdir } from "memdir";
import { nodeFs } from "memdir/node";

const [dir] = process.argv.slice(2);
const DIMS = 384;

/** A deterministic unit-length-able vector per text (and per model, so each model's differ). */
function embedderFor(model) {
  const embed = (texts) =>
    texts.map((text) => {
      const v = new Float32Array(DIMS);
      for (let i = 0; i < text.length; i++) v[(text.charCodeAt(i) * 31 + i + model.length) % DIMS] += 1;
      v[model === "model-a" ? 0 : 1] += 1;
      return v;
    });
  embed.model = model;
  return embed;
}

for (let round = 0; ; round++) {
  const memdir = new Memdir({ fs: nodeFs(), dir, embed: embedderFor(round % 2 === 0 ? "model-a" : "model-b") });
  const recall = await memdir.findRelevant("which database do the integration tests use");
  if (recall.outcome !== "ok") throw new Error(`round ${round}: ${recall.outcome}`);
  process.stdout.write(`round ${round}\n`);
}

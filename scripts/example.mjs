// The short tour: open the sample memory directory with the built package, print MEMORY.md as
// the model gets it and the parsed headers. Run by scripts/start.sh.
import { Memdir, formatFileSize } from "../pkg/index.node.js";
import { nodeFs } from "../pkg/node.js";

const dir = new URL("../tests/fixtures/sample-memory/", import.meta.url).pathname;
const memdir = new Memdir({ fs: nodeFs(), dir, writeMode: "read-only" });

const index = await memdir.readIndex();
console.log(`MEMORY.md (${index.lineCount} lines, ${formatFileSize(index.byteCount)}), as the model gets it:\n`);
console.log(index.content.replace(/^/gm, "  "));

console.log("\nMemory headers, newest first:\n");
for (const h of await memdir.scan()) {
  console.log(`  ${(h.type ?? "?").padEnd(9)} ${h.filename.padEnd(30)} ${h.description ?? ""}`);
}
console.log("\nManifest for the recall model:\n");
console.log((await memdir.manifest()).replace(/^/gm, "  "));

// A child process that saves memories into one directory: node writer.mjs DIR PREFIX COUNT
// Prints "saved <i>" after each save so a parent can kill it mid-way.
import { Memdir } from "memdir";
import { nodeFs } from "memdir/node";

const [dir, prefix, count] = process.argv.slice(2);
const memdir = new Memdir({ fs: nodeFs(), dir, store: { lockTimeoutMs: 60000, lockStaleMs: 5000, indexOverCap: "warn" } });
for (let i = 0; i < Number(count); i++) {
  await memdir.save({
    name: `${prefix} memory ${i}`,
    description: `What ${prefix} learned in step ${i}`,
    type: ["user", "feedback", "project", "reference"][i % 4],
    body: `Body ${i} from ${prefix}.\n`.repeat(20),
  });
  process.stdout.write(`saved ${i}\n`);
}

// `list()` over 2k … 32k index entries with nodeFs() (async) on a real temporary directory
// (issue #19 item 8: it was quadratic, 2k → 16k entries took 148 → 4,195 ms). Prints a table
// with each time's ratio to the time with half the entries: ≈ 2 when the growth is linear.
// Not a timed test; run by hand against pkg/ as built (scripts/build.sh):
//
//   node benches/list-scale.mjs            # LIST_SIZES=2000,4000,8000,16000,32000 LIST_ROUNDS=3
//
// LIST_PKG=/path/to/pkg measures another build of the package (e.g. one before the fix).
import { mkdtemp, mkdir, writeFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SIZES = (process.env.LIST_SIZES ?? "2000,4000,8000,16000,32000").split(",").map(Number);
const ROUNDS = Number(process.env.LIST_ROUNDS ?? 3);
const PKG = process.env.LIST_PKG ? new URL(`file://${process.env.LIST_PKG.replace(/\/?$/, "/")}`) : new URL("../pkg/", import.meta.url);
const { Memdir } = await import(new URL("index.node.js", PKG));
const { nodeFs } = await import(new URL("node.js", PKG));

const root = await mkdtemp(join(tmpdir(), "memdir-list-"));
try {
  console.log("| entries | list() ms (best of " + ROUNDS + ") | × previous |");
  console.log("|---:|---:|---:|");
  let previous;
  for (const n of SIZES) {
    const dir = join(root, `m${n}`);
    await mkdir(dir, { recursive: true });
    const lines = [];
    for (let i = 0; i < n; i++) {
      const file = `m${String(i).padStart(6, "0")}.md`;
      lines.push(`- [Memory ${i}](${file}) — hook ${i}`);
      // Every other file exists, so both answers are exercised.
      if (i % 2 === 0) await writeFile(join(dir, file), "---\nname: x\n---\nbody\n");
    }
    await writeFile(join(dir, "MEMORY.md"), lines.join("\n") + "\n");
    const memdir = new Memdir({ fs: nodeFs(), dir: dir + "/" });
    let best = Infinity;
    for (let r = 0; r < ROUNDS; r++) {
      const started = performance.now();
      const listed = await memdir.list();
      best = Math.min(best, performance.now() - started);
      if (listed.length !== n || listed.filter((l) => l.exists).length !== n / 2) throw new Error("wrong list");
    }
    console.log(`| ${n} | ${best.toFixed(1)} | ${previous ? (best / previous).toFixed(2) : "–"} |`);
    previous = best;
    await rm(dir, { recursive: true, force: true });
  }
} finally {
  await rm(root, { recursive: true, force: true });
}

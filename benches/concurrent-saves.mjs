// N concurrent saves on one Memdir instance (issue #19 item 6): every save must land, and the
// time must grow linearly with N (writers queue FIFO on the in-process lock; nobody polls).
//
//   node benches/concurrent-saves.mjs      # against pkg/ as built (scripts/build.sh)
//
// Environment: SAVES_N (comma list, default 50,100,200,400), SAVES_ROUNDS (3 timed rounds after
// one warm-up per N), SAVES_FS (node | node-sync | memory; default node, a fresh temp dir per
// round). Prints per N the median wall time of N concurrent saves, the time per save and its
// ratio to the smallest N's, and the same N saves made one after another (the baseline: the
// same work, since each save rewrites a MEMORY.md that grows with N). The queue is linear when
// concurrent/sequential stays flat across the doublings; the per-save figure also carries the
// index growth. Not a test: timings on a shared VM vary; compare ratios from one run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const PKG = new URL("../pkg/index.node.js", import.meta.url);
const { Memdir, memoryFs } = await import(PKG.href);
const { nodeFs } = await import(new URL("../pkg/node.js", import.meta.url).href);

const sizes = (process.env.SAVES_N ?? "50,100,200,400").split(",").map(Number);
const rounds = Number(process.env.SAVES_ROUNDS ?? 3);
const kind = process.env.SAVES_FS ?? "node";

function host() {
  if (kind === "memory") return { fs: memoryFs(), dir: "/m/", done() {} };
  const root = mkdtempSync(join(tmpdir(), "memdir-saves-"));
  return { fs: nodeFs({ sync: kind === "node-sync" }), dir: root + "/memory/", done: () => rmSync(root, { recursive: true, force: true }) };
}

async function once(n, concurrent) {
  const { fs, dir, done } = host();
  const m = new Memdir({ fs, dir });
  const save = (i) => m.save({ name: `Note ${i}`, description: `about ${i}`, type: "project", body: `body ${i}` });
  const t0 = performance.now();
  let outs;
  if (concurrent) {
    outs = await Promise.allSettled(Array.from({ length: n }, (_, i) => save(i)));
  } else {
    outs = [];
    for (let i = 0; i < n; i++) outs.push(await save(i).then((value) => ({ status: "fulfilled", value }), (reason) => ({ status: "rejected", reason })));
  }
  const ms = performance.now() - t0;
  done();
  const failed = outs.filter((o) => o.status === "rejected");
  if (failed.length) throw new Error(`${failed.length}/${n} saves failed: ${failed[0].reason?.code} ${failed[0].reason?.message}`);
  return ms;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`saves on one instance, ${kind} fs, median of ${rounds} (concurrent and sequential rounds interleaved)`);
let base;
for (const n of sizes) {
  await once(n, true);
  const conc = [];
  const seq = [];
  for (let r = 0; r < rounds; r++) {
    conc.push(await once(n, true));
    seq.push(await once(n, false));
  }
  const [c, q] = [median(conc), median(seq)];
  base ??= c / n;
  console.log(
    `  N=${String(n).padStart(4)}  concurrent ${c.toFixed(0).padStart(6)} ms (${(c / n).toFixed(2)} ms/save, ×${(c / n / base).toFixed(2)} vs N=${sizes[0]})` +
      `  sequential ${q.toFixed(0).padStart(6)} ms  concurrent/sequential ×${(c / q).toFixed(2)}  (all ${n} saved)`,
  );
}

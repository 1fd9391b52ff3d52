// `nodeFs().watch` on a real temporary directory, and recall through it: a change made behind a
// Memdir's back is reported (in the directory, in a directory below it that existed before the
// watch, and in one created after), so a warm recall sees it without a stat pass; a directory
// holding a symbolic link is stat'ed on every recall, because a change behind the link would go
// unreported.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, mkdir, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fsModule from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { Memdir } from "memdir";
import { nodeFs } from "memdir/node";

const linux = process.platform === "linux";
const memory = (description) => `---\nname: note\ndescription: ${description}\ntype: project\n---\nbody\n`;

/** Resolves with the first reported path for which `wanted(path)` holds (rejects after 5 s). */
function reported(events, wanted) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not reported; seen: ${JSON.stringify(events.seen)}`)), 5000);
    events.waiters.push((path) => {
      if (!wanted(path)) return false;
      clearTimeout(timer);
      resolve(path);
      return true;
    });
  });
}

function recorder() {
  const events = { seen: [], waiters: [] };
  events.onChange = (path) => {
    events.seen.push(path);
    events.waiters = events.waiters.filter((w) => !w(path));
  };
  return events;
}

/** Makes `dir/later`, then `dir/later/c.md`: both must be reported (the new directory gets a
 * watcher of its own when its creation is reported). */
async function madeLaterIsWatched(dir, events) {
  let seen = reported(events, (p) => p === "later");
  await mkdir(join(dir, "later"));
  await seen;
  // Give the new directory's own watcher a moment to be set up (it is, on the event above).
  await new Promise((r) => setTimeout(r, 50));
  seen = reported(events, (p) => p === "later/c.md");
  await writeFile(join(dir, "later", "c.md"), "x");
  await seen;
}

/** `nodeFs()` whose `stat` and `lstat` calls are counted. */
function countingFs() {
  const fs = nodeFs();
  const counts = { stats: 0 };
  for (const name of ["stat", "lstat"]) {
    const inner = fs[name];
    fs[name] = (...args) => (counts.stats++, inner.apply(fs, args));
  }
  return { fs, counts };
}

test("the watch reports changes in the directory, in a directory that was there, and in one created after", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memdir-watch-"));
  await mkdir(join(dir, "team"));
  const events = recorder();
  const w = nodeFs().watch(`${dir}/`, events.onChange, () => assert.fail("lost"));
  try {
    let seen = reported(events, (p) => p === "a.md");
    await writeFile(join(dir, "a.md"), "x");
    await seen;
    seen = reported(events, (p) => p === "team/b.md");
    await writeFile(join(dir, "team", "b.md"), "x");
    await seen;
    await madeLaterIsWatched(dir, events);
  } finally {
    w.close();
  }
});

// Where the temporary directory's filesystem keeps the directory link count (ext4, XFS, tmpfs).
const linkCounting = (() => {
  try {
    return linux && [0xef53, 0x58465342, 0x01021994].includes(fsModule.statfsSync(tmpdir()).type);
  } catch {
    return false;
  }
})();

test("a flat directory is not listed to start the watch (its link count says it has no subdirectory)", { skip: !linkCounting && "needs Linux on ext4, XFS or tmpfs" }, async () => {
  const dir = await mkdtemp(join(tmpdir(), "memdir-watch-flat-"));
  for (let i = 0; i < 20; i++) await writeFile(join(dir, `n${i}.md`), "x");
  const listed = [];
  const original = fsModule.readdirSync;
  const watchWhileCounting = () => {
    fsModule.readdirSync = (...args) => (listed.push(String(args[0])), original(...args));
    syncBuiltinESMExports();
    try {
      nodeFs().watch(`${dir}/`, () => {}, () => {}).close();
    } finally {
      fsModule.readdirSync = original;
      syncBuiltinESMExports();
    }
  };
  watchWhileCounting();
  assert.deepEqual(listed, []);
  // With a subdirectory, the root is listed (to watch what is below it), and so is that one.
  await mkdir(join(dir, "sub"));
  watchWhileCounting();
  assert.deepEqual(listed, [dir, join(dir, "sub")]);
});

test("a directory created after the watch started in a flat directory is watched too", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memdir-watch-flat-later-"));
  await writeFile(join(dir, "a.md"), "x");
  const events = recorder();
  const w = nodeFs().watch(`${dir}/`, events.onChange, () => assert.fail("lost"));
  try {
    await madeLaterIsWatched(dir, events);
  } finally {
    w.close();
  }
});

test("recall through the watch: a change behind the instance's back is seen, with no stat pass", async () => {
  const dir = await mkdtemp(join(tmpdir(), "memdir-watch-recall-"));
  for (let i = 0; i < 30; i++) await writeFile(join(dir, `note_${i}.md`), memory(`Miscellaneous note ${i}`));
  const { fs, counts } = countingFs();
  const events = recorder();
  const watch = fs.watch;
  fs.watch = (d, onChange, onLost) => watch(d, (p) => (events.onChange(p), onChange(p)), onLost);
  const m = new Memdir({ fs, dir: `${dir}/` });
  assert.deepEqual((await m.findRelevant("grafana dashboards provisioned")).memories, []);
  const seen = reported(events, (p) => p === "grafana.md");
  await writeFile(join(dir, "grafana.md"), memory("Grafana dashboards are provisioned from code"));
  await seen;
  counts.stats = 0;
  const found = (await m.findRelevant("grafana dashboards provisioned")).memories.map((r) => r.path);
  assert.deepEqual(found, [join(dir, "grafana.md")]);
  assert.ok(counts.stats <= 1, `${counts.stats} stats: only the reported path`);
  m.free?.();
});

test("recall in a directory holding a symbolic link stats every file each time, and sees a change behind the link", async () => {
  // A flat directory (so on Linux the watch starts without listing it): `linked.md` leads to
  // `target.txt`, which is not a memory. A write to target.txt is reported as target.txt, never
  // as linked.md: the core's walk meets the link and stops trusting the watch.
  const dir = await mkdtemp(join(tmpdir(), "memdir-watch-link-"));
  for (let i = 0; i < 10; i++) await writeFile(join(dir, `note_${i}.md`), memory(`Miscellaneous note ${i}`));
  await writeFile(join(dir, "target.txt"), memory("Placeholder"));
  await symlink(join(dir, "target.txt"), join(dir, "linked.md"));
  const { fs, counts } = countingFs();
  const m = new Memdir({ fs, dir: `${dir}/` });
  await m.findRelevant("anything at all");
  await writeFile(join(dir, "target.txt"), memory("Grafana dashboards are provisioned from code"));
  await new Promise((r) => setTimeout(r, 100)); // let the watch report what it reports
  counts.stats = 0;
  const found = (await m.findRelevant("grafana dashboards provisioned")).memories.map((r) => r.path);
  assert.deepEqual(found, [join(dir, "linked.md")]);
  assert.ok(counts.stats >= 11, `${counts.stats} stats: a full pass`);
  m.free?.();
});

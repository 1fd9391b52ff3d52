// What every matrix case runs against the memdir it was built with: save, scan, findRelevant and
// a bad input that must come back as a typed MemdirError. `m` is the package's module namespace.
export async function scenario(m, label) {
  const fail = (what) => {
    throw new Error(`${label}: ${what}`);
  };
  await m.init();
  const memdir = new m.Memdir({ fs: m.memoryFs(), dir: "/project/memory/" });
  await memdir.save({ name: "Prefers tabs", description: "The user indents Go code with tabs", type: "feedback", body: "Tabs, not spaces." });
  await memdir.save({ name: "Deploy target", description: "Production deploys go to Fly.io, region ams", type: "project", body: "fly deploy --region ams" });
  const headers = await memdir.scan();
  const names = headers.map((h) => h.name).sort().join(", ");
  if (names !== "Deploy target, Prefers tabs") fail(`scan found [${names}]`);
  const { memories, answeredBy } = await memdir.findRelevant("where does production deploy to?");
  if (!memories.some((r) => r.path.endsWith(headers.find((h) => h.name === "Deploy target").filename))) {
    fail(`findRelevant (${answeredBy}) missed the deploy memory: ${JSON.stringify(memories)}`);
  }
  let error;
  try {
    await memdir.save({ name: "No type", description: "x", type: "nonsense", body: "x" });
  } catch (e) {
    error = e;
  }
  if (!error) fail("a save with an unknown type succeeded");
  if (!m.isMemdirError(error) || !(error instanceof m.MemdirError) || !(error instanceof Error)) fail(`bad input threw ${error}`);
  if (!m.errorCodes().some((c) => (typeof c === "string" ? c : c.code) === error.code)) fail(`unknown code ${error.code}`);
  return `${label}: scan ${headers.length}, findRelevant ${answeredBy} → ${memories.length}, bad input → MemdirError ${error.code}`;
}

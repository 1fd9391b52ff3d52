// Private memory refuses secrets by default (issue #18), with the same SECRET_DETECTED error as
// team memory, and never echoes the value; `store: { guardPrivateSecrets: false }` turns it off.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Memdir, memoryFs, isMemdirError } from "memdir";

const secret = "ghp_" + "Zq7".repeat(12);

function refused(err) {
  assert.ok(isMemdirError(err), String(err));
  assert.equal(err.code, "SECRET_DETECTED");
  assert.match(err.message, /GitHub PAT/);
  assert.ok(!err.message.includes(secret), "the message never holds the secret");
  assert.ok(!JSON.stringify(err).includes(secret));
  return true;
}

test("save, update, appendLog and the memory tool refuse a secret in private memory by default", async () => {
  const fs = memoryFs();
  const m = new Memdir({ fs, dir: "/memory/" });
  const kept = await m.save({ name: "Role", description: "Senior Go dev", type: "user", body: "Terse answers." });
  const before = JSON.stringify(await m.list());
  const index = await m.readIndex();
  await assert.rejects(m.save({ name: "Deploy", description: "deploys", type: "reference", body: `token ${secret}` }), refused);
  await assert.rejects(m.save({ name: "Deploy", description: `token ${secret}`, type: "reference", body: "b" }), refused);
  await assert.rejects(m.update(kept.file, { body: `now ${secret}` }), refused);
  await assert.rejects(m.appendLog(`- 14:02 token ${secret}`), refused);
  await assert.rejects(m.memoryCommand({ command: "create", path: "/memories/notes.md", file_text: `token ${secret}` }), refused);
  assert.equal(JSON.stringify(await m.list()), before);
  assert.deepEqual(await m.readIndex(), index);
});

test("guardPrivateSecrets: false lets private writes through; team memory stays guarded", async () => {
  const fs = memoryFs();
  const m = new Memdir({ fs, dir: "/memory/", store: { guardPrivateSecrets: false } });
  const saved = await m.save({ name: "Deploy", description: "deploys", type: "reference", body: `token ${secret}` });
  assert.equal(saved.status, "saved");
  assert.ok((await fs.readFile(saved.path)).includes(secret));
  await assert.rejects(
    m.save({ name: "Deploy", description: "deploys", type: "reference", body: `token ${secret}`, scope: "team" }),
    refused,
  );
});

// CommonJS, on every Node ≥ 20 (a CommonJS build; no require(esm) needed):
const { Memdir, memoryFs, isMemdirError } = require("memdir");

const memdir = new Memdir({ fs: memoryFs(), dir: "/memory/" });
memdir
  .save({ name: "Role", description: "Senior Go dev", type: "user", body: "…" })
  .then(() => memdir.scan())
  .then((headers) => console.log(headers.map((h) => h.filename)))
  .catch((e) => console.error(isMemdirError(e) ? e.code : e));

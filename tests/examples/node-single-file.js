// A single-file Node CLI: esbuild cli.js --bundle --platform=node --format=cjs --outfile=dist/cli.cjs
import { init, Memdir } from "memdir/inline";
import { nodeFs } from "memdir/node";

async function main() {
  await init();
  const memdir = new Memdir({ fs: nodeFs(), dir: process.argv[2] ?? "./memory/" });
  for (const h of await memdir.scan()) console.log(h.filename, "—", h.description);
}
main().catch((e) => {
  console.error(e.code ?? "", e.message);
  process.exitCode = 1;
});

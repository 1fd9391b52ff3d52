// extension.js of a VS Code web extension (webpack target "webworker", or esbuild --format=cjs):
// `memdir/inline` carries the .wasm inside the bundle, so nothing is fetched or copied.
import { init, Memdir, memoryFs } from "memdir/inline";

export async function activate(context) {
  await init();
  const memdir = new Memdir({ fs: memoryFs(), dir: "/memory/" }); // or a MemoryFs over vscode.workspace.fs
  context.subscriptions.push({ dispose: () => memdir.free() });
  return memdir;
}

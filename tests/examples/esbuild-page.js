// esbuild app.js --bundle --format=esm --loader:.wasm=file --outdir=dist
import { init, Memdir, opfsFs } from "memdir";
import wasmUrl from "memdir/memdir_bg.wasm"; // the file loader copies it into dist/

await init(wasmUrl);
export const memdir = new Memdir({ fs: opfsFs(), dir: "/memory/" });

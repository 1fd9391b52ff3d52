// Node entry: the module is compiled and instantiated synchronously at import, so no set-up
// call is needed; `init()` exists so the same code runs in browsers.
import { readFileSync } from "node:fs";
import { initSync } from "./dist/memdir.js";

initSync({ module: readFileSync(new URL("./dist/memdir_bg.wasm", import.meta.url)) });

export * from "./lib/api.js";
export { openAiEmbed } from "./lib/embed.js";

/** A no-op in Node (the module is ready at import); needed in browsers. */
export async function init() {}

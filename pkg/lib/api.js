// The public API shared by the Node and browser entries: the WebAssembly exports plus the
// JS-side adapters.
export * from "../dist/memdir.js";
export { MemdirError, isMemdirError } from "./errors.js";
export { memoryFs } from "./memory-fs.js";
export { opfsFs } from "./opfs-fs.js";
export { anthropicLlm, openAiLlm } from "./llm.js";
export { fetchTransport } from "./transport.js";

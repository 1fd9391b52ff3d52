// `memdir/inline`: the same API as `memdir`, with the WebAssembly module carried in the JavaScript.
export * from "./index.js";

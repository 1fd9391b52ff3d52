import type { MemoryFs } from "./dist/memdir.js";

/**
 * A `MemoryFs` over Node's filesystem with every optional capability (atomic writes by temp file
 * + rename, realpath, lstat, exclusive create, append, head reads). `{ sync: true }` makes every
 * method synchronous: faster scans, but the event loop waits.
 */
export function nodeFs(options?: { sync?: boolean }): MemoryFs;

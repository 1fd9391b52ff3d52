/**
 * The error every memdir failure is: a real `Error` with `name === "MemdirError"`, a stable
 * `code` (e.g. `"NOT_FOUND"`, `"PATH_ESCAPES"`, `"HTTP"`), the host's own error as `cause`, and
 * `status` for HTTP failures. Errors thrown by the WebAssembly core are also `instanceof
 * MemdirError`.
 *
 * @example
 * try { await memdir.delete("nope.md"); }
 * catch (e) { if (isMemdirError(e) && e.code === "NOT_FOUND") { … } }
 */
export class MemdirError extends Error {
  constructor(code, message, options = {}) {
    super(message, "cause" in options ? { cause: options.cause } : undefined);
    this.name = "MemdirError";
    this.code = code;
    if (options.status !== undefined) this.status = options.status;
  }

  static [Symbol.hasInstance](value) {
    return isMemdirError(value);
  }
}

/**
 * True for errors raised by memdir (from JS or from the WebAssembly core).
 *
 * @example
 * if (isMemdirError(err)) console.log(err.code);
 */
export function isMemdirError(value) {
  return value instanceof Error && value.name === "MemdirError" && typeof value.code === "string";
}

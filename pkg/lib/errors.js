import { isKind } from "./realm.js";

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
  constructor(code, message, options) {
    // Never throws: whatever it is given, the result is a MemdirError with a string code.
    let cause;
    let hasCause = false;
    let status;
    try {
      if (options !== null && typeof options === "object") {
        hasCause = "cause" in options;
        cause = options.cause;
        status = options.status;
      }
    } catch {}
    super(text(message), hasCause ? { cause } : undefined);
    this.name = "MemdirError";
    this.code = typeof code === "string" && code !== "" ? code : "INVALID_INPUT";
    if (status !== undefined) this.status = status;
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
  try {
    // Realm-independent: a MemdirError from another realm (an iframe, a vm context, a test
    // runner's sandbox, a second copy of the package) is one too.
    return isKind(value, "Error") && value.name === "MemdirError" && typeof value.code === "string";
  } catch {
    // A Proxy whose traps throw is not one.
    return false;
  }
}

/**
 * Run `read` (which reads a caller's arguments) so that whatever it throws is a `MemdirError`:
 * a `MemdirError` passes through, anything else (a getter or a Proxy trap that throws, a value
 * that cannot be converted) becomes `INVALID_INPUT` naming `what`, with the original as `cause`.
 *
 * @example
 * export function makeThing(options) {
 *   return readArgs("makeThing", () => build(options ?? {}));
 * }
 */
export function readArgs(what, read) {
  try {
    return read();
  } catch (cause) {
    if (isMemdirError(cause)) throw cause;
    throw new MemdirError("INVALID_INPUT", `${what}: its arguments cannot be read (${describe(cause)})`, { cause });
  }
}

/** A short description of a thrown value that never throws itself. */
export function describe(value) {
  try {
    if (isKind(value, "Error")) return `${value.name}: ${value.message}`;
    return typeof value;
  } catch {
    return "a value that cannot be described";
  }
}

/** `value` as message text, without throwing. */
function text(value) {
  if (value === undefined || typeof value === "string") return value;
  try {
    return String(value);
  } catch {
    return "(a message that cannot be converted to text)";
  }
}

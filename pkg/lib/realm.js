// Realm-independent type checks. `instanceof Uint8Array` is false for a byte array made in
// another realm (a jsdom window, an iframe, a `vm` context, a test runner's sandbox), although
// every operation on it works. The generated glue (dist/memdir.js) asks here instead; the checks
// read internal slots through the built-in getters, which work across realms and cannot be faked
// by an object that only claims a `Symbol.toStringTag`.

const typedArrayTag = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype),
  Symbol.toStringTag,
).get;
const arrayBufferLength = Object.getOwnPropertyDescriptor(ArrayBuffer.prototype, "byteLength").get;
const dateTime = Date.prototype.getTime;
const toString = Object.prototype.toString;

const brand = (value, read) => {
  try {
    read.call(value);
    return true;
  } catch {
    return false;
  }
};

/**
 * True when `value` is a `kind` (`"Uint8Array"`, `"Float32Array"`, `"ArrayBuffer"`, `"Date"`,
 * `"Error"`, `"Promise"`) from any realm.
 *
 * @example
 * import { runInNewContext } from "node:vm";
 * isKind(runInNewContext("new Uint8Array(2)"), "Uint8Array"); // true, where instanceof is false
 */
export function isKind(value, kind) {
  if (value === null || (typeof value !== "object" && typeof value !== "function")) return false;
  switch (kind) {
    case "Uint8Array":
    case "Float32Array":
      return ArrayBuffer.isView(value) && typedArrayTag.call(value) === kind;
    case "ArrayBuffer":
      return value instanceof ArrayBuffer || brand(value, arrayBufferLength);
    case "Date":
      return value instanceof Date || brand(value, dateTime);
    case "Error":
      // Objects made by an Error constructor of any realm carry the [[ErrorData]] slot that
      // Object.prototype.toString reports (unless they override Symbol.toStringTag).
      return value instanceof Error || (!safeHas(value, Symbol.toStringTag) && toString.call(value) === "[object Error]");
    case "Promise":
      return value instanceof Promise || (toString.call(value) === "[object Promise]" && typeof value.then === "function");
    default:
      return false;
  }
}

function safeHas(value, key) {
  try {
    return key in value;
  } catch {
    return true;
  }
}

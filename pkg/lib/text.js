// UTF-8 TextEncoder / TextDecoder: the platform's when it has them, else the small ones below.
// Some test environments (Jest's jsdom environment) run code in a realm without these globals;
// memdir must still load there.

/** A UTF-8-only stand-in for `TextEncoder` (`encode`, `encodeInto`). */
class Utf8Encoder {
  get encoding() {
    return "utf-8";
  }

  encode(input = "") {
    const text = String(input);
    const out = new Uint8Array(text.length * 3);
    return out.slice(0, this.encodeInto(text, out).written);
  }

  encodeInto(input, dest) {
    const text = String(input);
    let read = 0;
    let written = 0;
    while (read < text.length) {
      let c = text.charCodeAt(read);
      let units = 1;
      if (c >= 0xd800 && c <= 0xdbff && read + 1 < text.length) {
        const low = text.charCodeAt(read + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
          units = 2;
        }
      }
      if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd; // a lone surrogate
      const n = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
      if (written + n > dest.length) break;
      if (n === 1) dest[written++] = c;
      else {
        dest[written++] = (n === 2 ? 0xc0 : n === 3 ? 0xe0 : 0xf0) | (c >> (6 * (n - 1)));
        for (let k = n - 2; k >= 0; k--) dest[written++] = 0x80 | ((c >> (6 * k)) & 0x3f);
      }
      read += units;
    }
    return { read, written };
  }
}

/** A UTF-8-only stand-in for `TextDecoder` (`decode` of a whole buffer; `fatal`, `ignoreBOM`). */
class Utf8Decoder {
  constructor(_label = "utf-8", options = {}) {
    this.fatal = Boolean(options?.fatal);
    this.ignoreBOM = Boolean(options?.ignoreBOM);
  }

  get encoding() {
    return "utf-8";
  }

  decode(input) {
    if (input === undefined) return "";
    const b = ArrayBuffer.isView(input)
      ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
      : new Uint8Array(input);
    const units = [];
    let out = "";
    const flush = () => {
      out += String.fromCharCode.apply(null, units);
      units.length = 0;
    };
    const bad = () => {
      if (this.fatal) throw new TypeError("The encoded data was not valid utf-8");
      units.push(0xfffd);
    };
    let i = !this.ignoreBOM && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf ? 3 : 0;
    while (i < b.length) {
      const lead = b[i];
      let need = 0;
      let cp = lead;
      let lo = 0x80;
      let hi = 0xbf;
      if (lead >= 0xc2 && lead <= 0xdf) [need, cp] = [1, lead & 0x1f];
      else if (lead >= 0xe0 && lead <= 0xef) {
        [need, cp] = [2, lead & 0x0f];
        if (lead === 0xe0) lo = 0xa0;
        if (lead === 0xed) hi = 0x9f;
      } else if (lead >= 0xf0 && lead <= 0xf4) {
        [need, cp] = [3, lead & 0x07];
        if (lead === 0xf0) lo = 0x90;
        if (lead === 0xf4) hi = 0x8f;
      } else if (lead >= 0x80) {
        bad();
        i++;
        continue;
      }
      let k = 1;
      for (; k <= need; k++) {
        const next = b[i + k];
        if (next === undefined || next < lo || next > hi) break;
        cp = (cp << 6) | (next & 0x3f);
        [lo, hi] = [0x80, 0xbf];
      }
      if (k <= need) {
        // The maximal valid prefix becomes one U+FFFD; the offending byte is read again.
        bad();
        i += k;
        continue;
      }
      if (cp >= 0x10000) units.push(0xd800 + ((cp - 0x10000) >> 10), 0xdc00 + ((cp - 0x10000) & 0x3ff));
      else units.push(cp);
      i += need + 1;
      if (units.length >= 8192) flush();
    }
    flush();
    return out;
  }
}

/** The platform's `TextEncoder`, or a UTF-8 stand-in where the realm has none. */
export const TextEncoder = globalThis.TextEncoder ?? Utf8Encoder;
/** The platform's `TextDecoder`, or a UTF-8 stand-in where the realm has none. */
export const TextDecoder = globalThis.TextDecoder ?? Utf8Decoder;
/** The stand-ins themselves (tested against the platform's). */
export const fallback = { TextEncoder: Utf8Encoder, TextDecoder: Utf8Decoder };

// Where the bytes of a .wasm go: function body sizes from the code section, named from the
// `name` section, grouped by crate / module path prefix. Use on the un-stripped cargo output:
//   node benches/wasm-size.mjs target/wasm32-unknown-unknown/release/memdir.wasm [depth=2] [top=40]
// (the shipped pkg/dist/memdir_bg.wasm has no names: run wasm-opt there for the real total).
import { readFileSync } from "node:fs";

const [file, depthArg = "2", topArg = "40"] = process.argv.slice(2);
const bytes = readFileSync(file);
let pos = 8;
const u32 = () => {
  let result = 0, shift = 0, b;
  do { b = bytes[pos++]; result += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
  return result;
};
const str = () => { const n = u32(); const s = bytes.toString("utf8", pos, pos + n); pos += n; return s; };

let importedFuncs = 0; const bodies = []; const names = new Map(); const sections = {};
while (pos < bytes.length) {
  const id = bytes[pos++]; const size = u32(); const end = pos + size;
  if (id === 2) {
    for (let n = u32(), i = 0; i < n; i++) {
      str(); str(); const kind = bytes[pos++];
      if (kind === 0) { u32(); importedFuncs++; }
      else if (kind === 1) { pos++; const f = bytes[pos++]; u32(); if (f & 1) u32(); }
      else if (kind === 2) { const f = bytes[pos++]; u32(); if (f & 1) u32(); }
      else if (kind === 3) { pos += 2; }
      else if (kind === 4) { pos++; u32(); }
    }
  } else if (id === 10) {
    for (let n = u32(), i = 0; i < n; i++) { const s = u32(); bodies.push(s); pos += s; }
  } else if (id === 0) {
    const name = str(); sections[`custom:${name}`] = size;
    if (name === "name") {
      while (pos < end) {
        const sub = bytes[pos++]; const subSize = u32(); const subEnd = pos + subSize;
        if (sub === 1) for (let n = u32(), i = 0; i < n; i++) { const idx = u32(); names.set(idx, str()); }
        pos = subEnd;
      }
    }
  }
  sections[id] = (sections[id] ?? 0) + size;
  pos = end;
}

const depth = Number(depthArg);
// Legacy Rust mangling (`_ZN<len><ident>…E`) → `a::b::c`; v0 (`_R…`) names are left as they are.
const demangle = (name) => {
  if (!name.startsWith("_ZN")) return name;
  const parts = []; let i = 3;
  while (i < name.length && name[i] !== "E") {
    const m = name.slice(i).match(/^\d+/); if (!m) break;
    i += m[0].length; const len = Number(m[0]); parts.push(name.slice(i, i + len)); i += len;
  }
  if (parts.length && /^h[0-9a-f]{16}$/.test(parts.at(-1))) parts.pop();
  return parts.join("::").replace(/\$LT\$/g, "<").replace(/\$GT\$/g, ">").replace(/\$u20\$/g, " ")
    .replace(/\$RF\$/g, "&").replace(/\$C\$/g, ",").replace(/\$u7b\$/g, "{").replace(/\$u7d\$/g, "}")
    .replace(/\.\./g, "::").replace(/^_/, "");
};
const v0Crate = (name) => { const m = name.match(/^_R.*?C[sa-zA-Z0-9_]*?\d+([a-z_][a-z0-9_]+)/); return m ? m[1] : name; };
const group = (raw) => {
  const name = raw.startsWith("_R") ? v0Crate(raw) : demangle(raw);
  // demangled Rust paths: `core::fmt::write`, `<serde_yaml::de::X as ...>::f`, `_ZN...` kept raw
  const m = name.replace(/^</, "").match(/^[A-Za-z_][\w]*(::[A-Za-z_][\w]*)*/);
  return m ? m[0].split("::").slice(0, depth).join("::") : name.slice(0, 30);
};
const totals = new Map(); let total = 0;
bodies.forEach((size, i) => {
  const name = names.get(i + importedFuncs) ?? "?";
  const key = group(name); totals.set(key, (totals.get(key) ?? 0) + size); total += size;
});
console.log(`code section: ${total} bytes in ${bodies.length} functions; data section: ${sections[11] ?? 0} bytes`);
for (const [key, size] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg)))
  console.log(`${String(size).padStart(8)}  ${(100 * size / total).toFixed(1).padStart(5)}%  ${key}`);

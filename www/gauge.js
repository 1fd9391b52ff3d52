// The MEMORY.md gauge: what the index would become with the memory being edited, and what the
// reference's caps would keep of it. Pure functions over the package's own helpers.
import { formatIndexEntry, parseIndexEntry, truncateEntrypoint } from "../pkg/index.js";

/** The reference's caps on MEMORY.md (what `truncateEntrypoint` applies by default). */
export const MAX_LINES = 200;
export const MAX_UNITS = 25_000;

const MAX_SLUG_LEN = 60;

/** The slug the library derives a file name from (`<type>_<slug>.md`), ported for the preview. */
export function slugify(name) {
  const words = String(name).toLowerCase().match(/[a-z0-9]+/g) ?? [];
  const slug = words.join("_").slice(0, MAX_SLUG_LEN).replace(/_+$/, "");
  return slug || "memory";
}

/** The file name `save` would pick for a new memory, avoiding the names already taken. */
export function derivedFileName(type, name, taken) {
  const slug = slugify(name);
  for (let attempt = 1; ; attempt++) {
    const file = attempt === 1 ? `${type}_${slug}.md` : `${type}_${slug}-${attempt}.md`;
    if (!taken.has(file)) return file;
  }
}

/**
 * MEMORY.md as it would read after saving `edit` (`{ title, file, hook }`): its entry replaced in
 * place, or appended when the index has none. `edit` null leaves the text as it is.
 */
export function wouldBeIndex(raw, edit) {
  if (!edit) return raw;
  const line = formatIndexEntry(edit);
  const lines = raw.split("\n");
  let replaced = false;
  const out = lines.map((l) => {
    const entry = parseIndexEntry(l);
    if (entry && entry.file === edit.file) {
      replaced = true;
      return line;
    }
    return l;
  });
  if (replaced) return out.join("\n");
  const body = raw === "" || raw.endsWith("\n") ? raw : raw + "\n";
  return body + line + "\n";
}

/**
 * Measure an index against the caps: the truncation result, and each raw line marked kept or
 * cut (with its parsed entry, if it is one).
 */
export function measure(raw) {
  const result = truncateEntrypoint(raw);
  const text = raw.trim(); // the caps apply to the trimmed text, as the reference's do
  const lines = text.split("\n");
  const rows = [];
  let prefix = "";
  let cutting = false;
  for (let i = 0; i < lines.length; i++) {
    prefix = i === 0 ? lines[0] : `${prefix}\n${lines[i]}`;
    if (!cutting && !result.content.startsWith(prefix)) cutting = true;
    rows.push({ number: i + 1, text: lines[i], entry: parseIndexEntry(lines[i]), kept: !cutting });
  }
  const truncated = result.wasLineTruncated || result.wasByteTruncated;
  return {
    ...result,
    truncated,
    rows: text === "" ? [] : rows,
    cut: rows.filter((r) => !r.kept && r.entry).map((r) => r.entry),
    linesRatio: result.lineCount / MAX_LINES,
    unitsRatio: result.byteCount / MAX_UNITS,
  };
}

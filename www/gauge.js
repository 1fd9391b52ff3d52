// The MEMORY.md gauge: what the index would become with the memory being edited, and what the
// reference's caps would keep of it. Pure functions over the package's own helpers: the file
// name, the index upsert, the caps and the cut lines all come from the core.
import {
  derivedFileName as coreFileName,
  entrypointCaps,
  linesCut,
  parseIndexEntry,
  truncateEntrypoint,
  upsertIndexEntry,
} from "../pkg/index.js";

/** The caps `truncateEntrypoint` applies by default: `{ maxLines, maxUnits }`. */
export function caps() {
  return entrypointCaps();
}

/** The file name `save` would pick for a new memory, avoiding the names already taken. */
export function derivedFileName(type, name, taken) {
  for (let attempt = 1; ; attempt++) {
    const file = coreFileName(type, name, attempt);
    if (!taken.has(file)) return file;
  }
}

/**
 * MEMORY.md as it would read after saving `edit` (`{ title, file, hook }`), as `save` writes
 * it. `edit` null leaves the text as it is.
 */
export function wouldBeIndex(raw, edit) {
  return edit ? upsertIndexEntry(raw, edit) : raw;
}

/**
 * Measure an index against the caps: the truncation result, and each line of the trimmed text
 * marked kept or cut (with its parsed entry, if it is one).
 */
export function measure(raw) {
  const { maxLines, maxUnits } = caps();
  const result = truncateEntrypoint(raw);
  const text = raw.trim(); // the caps apply to the trimmed text, as the reference's do
  const { start } = linesCut(raw);
  const rows = text === ""
    ? []
    : text.split("\n").map((line, i) => ({ number: i + 1, text: line, entry: parseIndexEntry(line), kept: i < start }));
  return {
    ...result,
    truncated: result.wasLineTruncated || result.wasByteTruncated,
    rows,
    cut: rows.filter((r) => !r.kept && r.entry).map((r) => r.entry),
    linesRatio: result.lineCount / maxLines,
    unitsRatio: result.byteCount / maxUnits,
  };
}

// The reference's MEMORY.md truncation (reference.md §3.1), written in plain JS from the spec:
// the baseline `truncateEntrypoint` is measured against in benches/run.mjs.
const MAX_LINES = 200;
const MAX_UNITS = 25000;

// formatFileSize (reference §3.1): toFixed(1) with a trailing ".0" removed.
export function formatFileSize(n) {
  const fixed = (x) => x.toFixed(1).replace(/\.0$/, "");
  const kb = n / 1024;
  if (kb < 1) return `${n} bytes`;
  if (kb < 1024) return `${fixed(kb)}KB`;
  const mb = kb / 1024;
  if (mb < 1024) return `${fixed(mb)}MB`;
  return `${fixed(mb / 1024)}GB`;
}

export function truncateEntrypointReference(raw) {
  const trimmed = raw.trim();
  const lines = trimmed.split("\n");
  const lineCount = lines.length;
  const byteCount = trimmed.length;
  const wasLineTruncated = lineCount > MAX_LINES;
  const wasByteTruncated = byteCount > MAX_UNITS;
  if (!wasLineTruncated && !wasByteTruncated) {
    return { content: trimmed, lineCount, byteCount, wasLineTruncated, wasByteTruncated };
  }
  let truncated = wasLineTruncated ? lines.slice(0, MAX_LINES).join("\n") : trimmed;
  if (truncated.length > MAX_UNITS) {
    const cutAt = truncated.lastIndexOf("\n", MAX_UNITS);
    truncated = truncated.slice(0, cutAt > 0 ? cutAt : MAX_UNITS);
  }
  const reason = wasByteTruncated && !wasLineTruncated
    ? `${formatFileSize(byteCount)} (limit: ${formatFileSize(MAX_UNITS)}) \u2014 index entries are too long`
    : wasLineTruncated && !wasByteTruncated
      ? `${lineCount} lines (limit: ${MAX_LINES})`
      : `${lineCount} lines and ${formatFileSize(byteCount)}`;
  const advice = "Keep each index entry to a single line of about 200 characters or fewer, and move the details into topic files.";
  return {
    content: `${truncated}\n\n> WARNING: MEMORY.md is ${reason}. Only part of it was loaded. ${advice}`,
    lineCount, byteCount, wasLineTruncated, wasByteTruncated,
  };
}

// The reference's MEMORY.md truncation (reference.md §3.1), written in plain JS from the spec:
// the baseline `truncateEntrypoint` is measured against in benches/run.mjs.

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

export function truncateEntrypointReference(raw, { maxLines = 200, maxUnits = 25000 } = {}) {
  const trimmed = raw.trim();
  const lines = trimmed.split("\n");
  const lineCount = lines.length;
  const byteCount = trimmed.length;
  const wasLineTruncated = lineCount > maxLines;
  const wasByteTruncated = byteCount > maxUnits;
  if (!wasLineTruncated && !wasByteTruncated) {
    return { content: trimmed, lineCount, byteCount, wasLineTruncated, wasByteTruncated };
  }
  let truncated = wasLineTruncated ? lines.slice(0, maxLines).join("\n") : trimmed;
  if (truncated.length > maxUnits) {
    const cutAt = truncated.lastIndexOf("\n", maxUnits);
    truncated = truncated.slice(0, cutAt > 0 ? cutAt : maxUnits);
  }
  const reason = wasByteTruncated && !wasLineTruncated
    ? `${formatFileSize(byteCount)} (limit: ${formatFileSize(maxUnits)}) \u2014 index entries are too long`
    : wasLineTruncated && !wasByteTruncated
      ? `${lineCount} lines (limit: ${maxLines})`
      : `${lineCount} lines and ${formatFileSize(byteCount)}`;
  const advice = "Keep each index entry to a single line of about 200 characters or fewer, and move the details into topic files.";
  return {
    content: `${truncated}\n\n> WARNING: MEMORY.md is ${reason}. Only part of it was loaded. ${advice}`,
    lineCount, byteCount, wasLineTruncated, wasByteTruncated,
  };
}

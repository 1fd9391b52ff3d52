// Import and export of a memory directory as one JSON object `{ "relative/path.md": content }`.

/** Write `{ relativePath: content }` under `dir`, creating folders as needed. */
export async function writeFiles(fs, dir, files) {
  for (const [rel, content] of Object.entries(files)) {
    const parts = rel.split("/");
    if (parts.length > 1) await fs.mkdir(dir + parts.slice(0, -1).join("/"));
    await fs.writeFile(dir + rel, content);
  }
}

/** Every file under `dir`, keyed by its path relative to `dir`, but the names in `leaveOut`
 * (the app passes recall's caches from `libraryFiles()`: they are rebuilt on demand). */
export async function exportDirectory(fs, dir, leaveOut = new Set()) {
  const out = {};
  async function walk(prefix) {
    for (const entry of await fs.readDir(dir + prefix)) {
      const rel = prefix + entry.name;
      if (leaveOut.has(rel)) continue;
      if (entry.kind === "dir") await walk(rel + "/");
      else if (entry.kind === "file") out[rel] = await fs.readFile(dir + rel);
    }
  }
  await walk("");
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * Check an export: an object of relative paths (no `..`, no absolute paths, no empty segments)
 * to strings. Returns the files, or throws an Error naming the first problem.
 */
export function checkExport(json) {
  let data;
  try {
    data = JSON.parse(json);
  } catch {
    throw new Error("the file is not JSON");
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw new Error("expected an object of { path: content }");
  const files = {};
  for (const [key, content] of Object.entries(data)) {
    const rel = key.replace(/^\.\//, "");
    const parts = rel.split("/");
    if (rel.startsWith("/") || parts.some((p) => p === "" || p === "." || p === "..") || rel.includes("\\") || rel.includes("\0")) {
      throw new Error(`refusing the path ${JSON.stringify(key)}`);
    }
    if (typeof content !== "string") throw new Error(`${JSON.stringify(key)} is not a string`);
    files[rel] = content;
  }
  if (!Object.keys(files).length) throw new Error("the export holds no files");
  return files;
}

/** Remove the whole directory `dir` (an absolute OPFS path) and what it holds. */
export async function clearDirectory(dir) {
  const parts = dir.split("/").filter(Boolean);
  const last = parts.pop();
  let handle = await navigator.storage.getDirectory();
  try {
    for (const part of parts) handle = await handle.getDirectoryHandle(part);
    await handle.removeEntry(last, { recursive: true });
  } catch (err) {
    if (err?.name !== "NotFoundError") throw err;
  }
}

/** Replace the directory with the files of an export; resolves to how many were written. */
export async function importDirectory(fs, dir, json) {
  const files = checkExport(json);
  await clearDirectory(dir);
  await fs.mkdir(dir);
  await writeFiles(fs, dir, files);
  return Object.keys(files).length;
}

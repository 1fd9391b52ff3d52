// Type-checked with `tsc --noEmit` against the installed package: the .d.ts is part of the API.
import {
  init,
  Memdir,
  memoryFs,
  truncateEntrypoint,
  parseFrontmatter,
  formatMemoryFile,
  formatIndexEntry,
  parseIndexEntry,
  formatManifest,
  formatFileSize,
  memoryHeader,
  validateMemoryPath,
  isMemdirError,
  MemdirError,
  anthropicLlm,
  type EntrypointTruncation,
  type ParsedFrontmatter,
  type MemoryFs,
  type LlmCallback,
  type SaveOutcome,
  type MemoryHeader,
} from "memdir";
import { nodeFs } from "memdir/node";

await init();

const t: EntrypointTruncation = truncateEntrypoint("- [A](a.md) — hook", { maxLines: 10 });
const lines: number = t.lineCount;
const plain: EntrypointTruncation = truncateEntrypoint("- [A](a.md) — hook");
const home: string | null = validateMemoryPath("~/mem", { expandTilde: true, home: "/home/u" });
const rejected: string | null = validateMemoryPath("/a");
const p: ParsedFrontmatter = parseFrontmatter("---\nname: x\n---\n");
const maybeType: "user" | "feedback" | "project" | "reference" | undefined = p.header.type;
const text: string = formatMemoryFile({ name: "n", description: "d", type: "user" }, "body");
const entry = parseIndexEntry("- [A](a.md) — hook");
if (entry) formatIndexEntry(entry);
const manifest: string = formatManifest([{ filename: "a.md", mtimeMs: 1 }]);
const size: string = formatFileSize(2048);
const header: string = memoryHeader("/m/a.md", 0, 1);

const fs: MemoryFs = memoryFs({ "/m/MEMORY.md": "" });
const disk: MemoryFs = nodeFs({ sync: true });
const llm: LlmCallback = async (request) => {
  request.signal.throwIfAborted();
  return JSON.stringify({ selected_memories: [] });
};
const memdir = new Memdir({ fs, dir: "/m/", llm, telemetry: (event, fields) => void [event, fields], writeMode: "auto" });
const out: SaveOutcome = await memdir.save({ name: "n", description: "d", type: "user", body: "b" });
if (out.status === "saved") console.log(out.file, out.indexWarning?.lineCount);
const headers: MemoryHeader[] = await memdir.scan();
const anthropic: LlmCallback = anthropicLlm({ apiKey: "k" });

try {
  await memdir.delete("x.md");
} catch (e) {
  if (isMemdirError(e)) console.log(e.code);
  if (e instanceof MemdirError) console.log(e.status);
}

// @ts-expect-error: type must be one of the four
formatMemoryFile({ type: "User" }, "");
// @ts-expect-error: truncateEntrypoint takes a string
truncateEntrypoint(42);

void [plain, home, rejected];
void [lines, maybeType, text, manifest, size, header, disk, headers, anthropic];

//! The TypeScript declarations of the shapes that cross the boundary.

use wasm_bindgen::prelude::*;

/// `MemdirErrorCode`, generated from the core's table of codes (`crate::error`).
#[wasm_bindgen(typescript_custom_section)]
const ERROR_CODES: &str = crate::error::MEMDIR_ERROR_CODE_TS;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &'static str = r#"
/** The four kinds of memory. */
export type MemoryType = "user" | "feedback" | "project" | "reference";

/** Caps for `truncateEntrypoint`; both default to the reference's (200 lines, 25,000 UTF-16 units). */
export interface TruncateOptions { maxLines?: number; maxUnits?: number }

/** MEMORY.md as loaded. `byteCount` counts UTF-16 units, as the reference does. */
export interface EntrypointTruncation {
  content: string;
  lineCount: number;
  byteCount: number;
  wasLineTruncated: boolean;
  wasByteTruncated: boolean;
}

/** The frontmatter fields the memory system reads. */
export interface MemoryFields { name?: string; description?: string; type?: MemoryType }

/** A YAML value as JS sees it. */
export type YamlValue = string | number | boolean | null | YamlValue[] | { [key: string]: YamlValue };

/** What `parseFrontmatter` found. */
export interface ParsedFrontmatter {
  frontmatter: { [key: string]: YamlValue };
  body: string;
  header: MemoryFields;
  diagnostics: string[];
}

/** One MEMORY.md line: `- [title](file) — hook`. */
export interface IndexEntry { title: string; file: string; hook: string }

/** A manifest line's data. */
export interface ManifestEntry { filename: string; mtimeMs: number; description?: string | null; type?: MemoryType }

/** What a scan knows of one memory file. */
export interface MemoryHeader {
  filename: string;
  filePath: string;
  mtimeMs: number;
  description?: string;
  type?: MemoryType;
  name?: string;
}

/** `Memdir.scanPage`: the newest headers and how many memory files there are in all. */
export interface ScanPage { headers: MemoryHeader[]; total: number }

/** One entry of `MemoryFs.readDir`. */
export interface DirEntry { name: string; kind: "file" | "dir" | "symlink" }

/** `MemoryFs.stat`/`lstat` result. */
export interface FileStat { kind: "file" | "dir" | "symlink"; size: number; mtimeMs: number }

type MaybePromise<T> = T | Promise<T>;

/**
 * The filesystem a `Memdir` works over. Every method may return a value or a Promise; a failure
 * is a throw or a rejection, ideally an error with a Node-style `code` (`"ENOENT"` …).
 */
export interface MemoryFs {
  readFile(path: string): MaybePromise<string | Uint8Array>;
  writeFile(path: string, data: string): MaybePromise<void>;
  readDir(path: string): MaybePromise<DirEntry[]>;
  stat(path: string): MaybePromise<FileStat>;
  mkdir(path: string): MaybePromise<void>;
  remove(path: string): MaybePromise<void>;
  /** Atomic replace. */
  rename?(from: string, to: string): MaybePromise<void>;
  realpath?(path: string): MaybePromise<string>;
  lstat?(path: string): MaybePromise<FileStat>;
  appendFile?(path: string, data: string): MaybePromise<void>;
  /** Create only if absent; `false` if it exists. */
  createExclusive?(path: string, data: string): MaybePromise<boolean>;
  /** The first `maxBytes` bytes. */
  readHead?(path: string, maxBytes: number): MaybePromise<Uint8Array>;
  /** Host mutual exclusion (Web Locks): resolves to a release function. */
  lock?(name: string): MaybePromise<() => void>;
  /** `true` when `writeFile` already replaces a file atomically (temp file + rename, or a commit on close): memdir then writes once instead of adding its own temp file and `rename`. */
  atomicWrite?: boolean;
  /** `true` when `appendFile` adds its data at the end in one write and never changes what was there (a crash may cut the added data short; a reader at that moment may see part of it): a new `MEMORY.md` entry is then appended instead of the index being rewritten, and the next writer takes off a line cut short. */
  atomicAppend?: boolean;
  /** This machine's id (e.g. `os.hostname()`). With `processId` and `processAlive`, a lock file left by a dead process on this machine is broken at once. */
  hostId?(): string;
  /** This process's id (e.g. `process.pid`). */
  processId?(): number;
  /** Whether process `pid` on this machine is alive (e.g. `process.kill(pid, 0)` succeeds or fails with `EPERM`). */
  processAlive?(pid: number): MaybePromise<boolean>;
  /**
   * Change notifications for `dir` and below: call `onChange(path?)` after each change (`path`
   * absolute or relative to `dir`, omitted when unknown) and `onLost()` if the watch breaks;
   * return a handle with `close()` (or a stop function). With it, a recall over an unchanged
   * directory stats nothing. Only implement it if no change can go unreported.
   */
  watch?(
    dir: string,
    onChange: (path?: string) => void,
    onLost: () => void,
  ): MaybePromise<{ close(): void } | (() => void)>;
  /** The path rules of its paths, as `process.platform` (`"win32"`: Windows). `resolveMemoryDir` and `loadSettings` use it when the context names no `platform`. */
  platform?: string;
}

/** What the library asks of the host's model. */
export interface LlmRequest {
  purpose: "recall" | "extract" | "consolidate";
  system: string;
  messages: { role: "user" | "assistant"; content: string }[];
  maxTokens: number;
  /** JSON Schema the reply must follow. */
  responseSchema?: object;
  /** Aborted on the caller's abort or the library's timeout. */
  signal: AbortSignal;
}

/** The model's reply: its text, `{ text }`, or a Messages-API-style `{ content: [{ type: "text", text }] }`. */
export type LlmReply = string | { text: string } | { content: { type: string; text?: string }[] };

/** The host's model. */
export type LlmCallback = (request: LlmRequest) => MaybePromise<LlmReply>;

/** The host's telemetry sink: fire-and-forget; what it throws or returns is ignored. */
export type Telemetry = (event: string, fields: Record<string, string | number | boolean>) => void;

/** Options of `new Memdir(...)`. */
export interface MemdirOptions {
  /** The host filesystem. */
  fs: MemoryFs;
  /** The memory directory, absolute (a trailing `/` is added). */
  dir: string;
  /** The host's model, for recall; without it the built-in ranker answers. */
  llm?: LlmCallback;
  /**
   * The host's embedder, for semantic recall without an LLM: memory vectors are kept in
   * `.memdir-vectors` in the directory, and cosine is fused with the ranker's score. A failing,
   * slow or lying embedder falls back to the ranker (see `Recall.outcome`).
   */
  embed?: import("../lib/api.js").EmbedCallback;
  /** The embedder's model id (default `embed.model`, else `"default"`); stored vectors are reused only under it. */
  embedModel?: string;
  /** Telemetry sink. */
  telemetry?: Telemetry;
  /** Clock, in ms since the epoch (default `Date.now`). */
  now?: () => number;
  /** What the library may write (default `"auto"`). */
  writeMode?: "off" | "read-only" | "confirm" | "auto";
  /** How `loadPrompt` builds the prompt. */
  prompt?: PromptConfig;
  /** Recall tuning: LLM/embedder timeout (default 10 s), selector budget (200), ranker fallback (on). */
  recall?: { timeoutMs?: number; selectorBudget?: number; fallbackToLexical?: boolean };
  /**
   * Index caps, lock tuning, and the secret guard: team writes are always scanned, and so are
   * private memory and the daily log unless `guardPrivateSecrets` is `false` (default `true`).
   * `indexOverCap`: a save or update that would leave MEMORY.md over its caps (what the model
   * loads) is refused with `INDEX_OVER_CAP` (`"error"`, default) or written with an
   * `indexWarning` (`"warn"`). `hostCallTimeoutMs`
   * (default 10000; 0 waits forever) bounds each filesystem call of a write: a call that does
   * not answer fails the write with `TIMEOUT` and the lock is given back.
   */
  store?: { maxLines?: number; maxUnits?: number; lockTimeoutMs?: number; lockStaleMs?: number; hostCallTimeoutMs?: number; guardPrivateSecrets?: boolean; indexOverCap?: "error" | "warn" };
}

/** Tool names the prompt mentions; rename them to match the host's tools. */
export interface ToolNames { write?: string; edit?: string; read?: string; grep?: string; glob?: string; bash?: string }

/** Section ids accepted by `sectionOverrides`. */
export type PromptSectionId =
  | "intro" | "memory-scope" | "types" | "what-not-to-save" | "how-to-save" | "when-to-access"
  | "trusting-recall" | "persistence" | "what-to-log" | "daily-log-index" | "searching-past-context"
  | "index-compaction";

/** How the memory prompt is built by `Memdir.loadPrompt`. */
export interface PromptConfig {
  mode?: "individual" | "combined" | "daily-log" | "agent";
  /** Team memory on: individual becomes combined. */
  team?: boolean;
  teamDir?: string;
  skipIndex?: boolean;
  extraGuidelines?: string[];
  displayName?: string;
  agentScope?: "user" | "project" | "local";
  searchingPastContext?: "shell" | "tool";
  transcriptsDir?: string;
  toolNames?: ToolNames;
  sectionOverrides?: Partial<Record<PromptSectionId, string>>;
}

/** Options of `buildMemoryPrompt`. */
export interface PromptOptions {
  mode?: "individual" | "combined" | "daily-log" | "agent";
  memoryDir: string;
  teamDir?: string;
  skipIndex?: boolean;
  extraGuidelines?: string[];
  displayName?: string;
  agentScope?: "user" | "project" | "local";
  /** Agent mode: the (already truncated) MEMORY.md text to include. */
  agentIndex?: string;
  searchingPastContext?: "shell" | "tool";
  transcriptsDir?: string;
  toolNames?: ToolNames;
  sectionOverrides?: Partial<Record<PromptSectionId, string>>;
  /** How full MEMORY.md is (what the model loads); at 80 % of either cap the prompt reminds the
   * model to compact it (section `index-compaction`). `maxLines`/`maxUnits` default to 200 / 25000. */
  indexUsage?: { lineCount: number; unitCount: number; maxLines?: number; maxUnits?: number };
}

/** One settings source's memory keys. */
export interface MemorySettingsLayer { autoMemoryEnabled?: boolean; autoMemoryDirectory?: string }

/** Settings by source (first defined wins: policy, flag, local, project, user); top-level keys act as `user`. */
export interface MemorySettings extends MemorySettingsLayer {
  policy?: MemorySettingsLayer;
  flag?: MemorySettingsLayer;
  local?: MemorySettingsLayer;
  project?: MemorySettingsLayer;
  user?: MemorySettingsLayer;
}

/** What memory-directory resolution depends on. */
export interface PathContext {
  env?: Record<string, string | undefined>;
  settings?: MemorySettings;
  home?: string;
  projectRoot?: string;
  cwd?: string;
  gitRoot?: string;
  /** `process.platform`: `"win32"` follows the Windows path rules (drives, `\\`), anything else POSIX. */
  platform?: string;
}

/** One settings file `loadSettings` looked at. */
export interface SettingsFile {
  source: "policy" | "user" | "project" | "local";
  path: string;
  /** Found and read as a JSON object. */
  loaded: boolean;
  /** Why a file that is there was not used. */
  error?: string;
}

/** What `loadSettings` read: the layers for `resolveMemoryDir`, and every file looked at. */
export interface LoadedSettings { settings: MemorySettings; files: SettingsFile[] }

/** Options of `findRelevant`. */
export interface FindOptions {
  /** Aborts the recall (and the LLM request's signal). */
  signal?: AbortSignal;
  /** Tools used successfully since the last prompt. */
  recentTools?: string[];
  /** Absolute paths already shown this session. */
  alreadySurfaced?: string[];
  /** Most memories returned (default 5). */
  limit?: number;
  /** Add `why` to each memory: its score, matched terms by field, cosine. */
  explain?: boolean;
}

/** One recalled memory; `why` only with `explain: true`. */
export interface RecalledMemory {
  path: string;
  mtimeMs: number;
  why?: RecallWhy;
}

/** Why a memory was recalled. `score`: fused when an embedder answered, else lexical. */
export interface RecallWhy {
  score: number;
  /** The query terms it matched (lower-cased, stemmed) and where. */
  lexical?: LexicalWhy;
  /** Present when an embedder answered. */
  semantic?: { cosine: number };
}

/** The lexical part of `RecallWhy`. */
export interface LexicalWhy {
  score: number;
  terms: { term: string; fields: ("filename" | "name" | "description" | "body")[] }[];
}

/** What `findRelevant` found and how. */
export interface Recall {
  memories: RecalledMemory[];
  answeredBy: "llm" | "lexical" | "llm+prefilter" | "llm+semantic-prefilter" | "lexical+semantic" | "semantic";
  outcome: "ok" | "error" | "timeout" | "aborted" | "invalid_reply";
}

/** A memory ready for the model. `text` is the rendered system reminder. */
export interface SurfacedMemory {
  path: string;
  content: string;
  mtimeMs: number;
  header: string;
  /** Lines shown, when the file was truncated. */
  limit?: number;
  text: string;
}

/** Thresholds of `lint`. */
export interface LintOptions { staleDays?: number; nearDuplicateThreshold?: number; maxIndexLineChars?: number; checkIndex?: boolean }

/** One problem `lint` found. `code` is stable (e.g. `DANGLING_INDEX_ENTRY`, `SECRET`, `INDEX_OVER_CAP`). */
export interface LintFinding {
  code: string;
  severity: "error" | "warning" | "info";
  message: string;
  file?: string;
  line?: number;
  /** Other files involved (duplicates), or the index entries that would be cut. */
  related?: string[];
}

/** What `lint` found. */
export interface LintReport { findings: LintFinding[]; filesChecked: number }

/** A conversation message for extraction. `toolUses` lets it see that the agent already saved memories. */
export interface ConversationMessage {
  role: "user" | "assistant";
  text?: string;
  id?: string;
  toolUses?: { name: string; filePath?: string }[];
}

/** Extraction tuning. */
export interface ExtractOptions { maxTokens?: number; timeoutMs?: number }

/** An operation the model proposed and the library refused, with why. */
export interface RejectedOperation { index: number; file?: string; code: string; reason: string }

/** What an extraction run did. */
export interface ExtractOutcome {
  status:
    | { status: "extracted" }
    | { status: "skipped"; reason: "no-new-messages" | "direct-write" | "throttled" }
    | { status: "coalesced" }
    | { status: "failed"; code: string; message: string };
  messageCount: number;
  created: string[];
  updated: string[];
  deleted: string[];
  proposals: Proposal[];
  rejected: RejectedOperation[];
  indexWarnings: [string, IndexWarning][];
  trailing: ExtractOutcome[];
}

/** A reviewable set of changes to a memory directory. */
export interface Changeset {
  create: { file: string; content: string }[];
  update: { file: string; before: string; after: string }[];
  delete: { file: string; before: string }[];
  index?: { before?: string | null; after: string } | null;
  summary?: string;
  rejected?: RejectedOperation[];
}

/** What `applyChangeset` wrote. */
export interface ApplyReport { created: number; updated: number; deleted: number; indexChanged: boolean; indexWarning?: IndexWarning }

/** Consolidation options: gates (24 h, 5 sessions by default), the host's sessions, `force` to skip the gates. */
export interface ConsolidateOptions {
  gates?: { minHours?: number; minSessions?: number };
  sessions?: { id: string; mtimeMs: number }[];
  currentSession?: string;
  force?: boolean;
  holder?: string;
  maxTokens?: number;
  timeoutMs?: number;
  /** In `auto` mode, apply at once (still undoable). */
  autoApply?: boolean;
}

/** The result of `consolidate`. */
export type ConsolidateOutcome =
  | { status: "skipped"; reason: "too-soon"; hoursSince: number }
  | { status: "skipped"; reason: "too-few-sessions"; count: number; needed: number }
  | { status: "skipped"; reason: "locked" }
  | { status: "ready"; changeset: Changeset; previousConsolidatedAt: number; sessionsReviewed: number; applied?: ApplyReport | null };

/** A command of Anthropic's memory tool (`memory_20250818`). Paths start with `/memories`. */
export type MemoryToolCommand =
  | { command: "view"; path: string; view_range?: [number, number] }
  | { command: "create"; path: string; file_text: string }
  | { command: "str_replace"; path: string; old_str: string; new_str: string }
  | { command: "insert"; path: string; insert_line: number; insert_text: string }
  | { command: "delete"; path: string }
  | { command: "rename"; old_path: string; new_path: string };

/** A memory-tool result: `text` is the tool result for the model. */
export type MemoryToolOutcome =
  | { status: "done"; text: string }
  | { status: "proposed"; text: string; command: MemoryToolCommand };

/** The host's HTTP client for team sync; an error status is a normal response, a throw means no response. */
export type Transport = (request: { method: string; url: string; headers: Record<string, string>; body?: string }) =>
  MaybePromise<{ status: number; headers?: Record<string, string>; body?: string }>;

/** Options of `new TeamSync(...)`. */
export interface TeamSyncOptions {
  fs: MemoryFs;
  /** The memory directory; team memory is its `team/`. */
  dir: string;
  baseUrl: string;
  /** `owner/name`. */
  repo: string;
  /** Required, unless `git` is given (then `baseUrl` and `repo` are not needed either). */
  transport: Transport;
  headers?: Record<string, string>;
  timeoutMs?: number;
  telemetry?: Telemetry;
  now?: () => number;
  /** What is synced: `"team"` (the default) the `team/` folder; `"private"` the memory directory itself, its `team/` folder left out. */
  scope?: Scope;
  /** A pull takes memory files only (`.md`, no hidden segment); others are skipped as `not-synced`. Default: true for the private scope. */
  memoryFilesOnly?: boolean;
}

/** What a pull did. `team/MEMORY.md` is merged by entries, never replaced as text. */
export interface PullOutcome {
  notModified: boolean;
  serverHasContent: boolean;
  filesWritten: number;
  /** Entries not written; `write-failed` carries the host's code (`EEXIST` …), and the next pull tries again. */
  skipped: { key: string; reason: { kind: "invalid-key"; code: string } | { kind: "too-large" } | { kind: "write-failed"; code: string } | { kind: "not-synced" } | { kind: "refused"; code: string } }[];
  /** Entries past the cap of 2,000 per pull (first keys in key order are written). */
  entriesOverCap: number;
  /** Keys whose unpushed local edits the server's version replaced. */
  overwritten: string[];
  /** Where those local versions were kept, relative to `team/` (`.conflicts/<key>.<ms>`). */
  savedCopies: string[];
}

/** What a push did. Files with secrets are skipped and named here (never the secret). */
export interface PushOutcome {
  filesUploaded: number;
  conflict: boolean;
  conflictRetries: number;
  putBatches: number;
  /** Files (secret in the name redacted) or `MEMORY.md` lines left out because of secrets. */
  skippedSecrets: { path: string; ruleId: string; label: string }[];
  droppedByCap: number;
  /** After a conflict: keys another client had changed that this push replaced (it wins). */
  overwritten: string[];
  /** Where the server's replaced versions were kept, relative to `team/` (`.conflicts/<key>.<ms>`). */
  savedCopies: string[];
}

/** A secret rule that matched (never the secret itself). */
export interface SecretFinding { ruleId: string; label: string }

/** Private memory (the directory) or team memory (`team/`). */
export type Scope = "private" | "team";

/** What `save` writes. */
export interface SaveInput {
  name: string;
  description: string;
  type: MemoryType;
  body: string;
  /** File name relative to the scope's directory; derived from name and type when absent. */
  file?: string;
  scope?: Scope;
  /** Leave MEMORY.md alone. */
  skipIndex?: boolean;
  /** Overwrite the memory when its file exists (derived or given); without it, `ALREADY_EXISTS`. */
  replace?: boolean;
}

/** Field changes for `update`; absent fields keep their value. */
export interface MemoryChanges { name?: string; description?: string; type?: MemoryType; body?: string; skipIndex?: boolean }

/** How far MEMORY.md goes past its caps after a write (nothing is cut on disk). */
export interface IndexWarning { lineCount: number; byteCount: number; wasLineTruncated: boolean; wasByteTruncated: boolean }

/** A write held back for approval (write mode `"confirm"`). */
export type Proposal =
  | ({ kind: "save" } & SaveInput)
  | { kind: "update"; file: string; changes: MemoryChanges }
  | { kind: "delete"; file: string };

/** The result of `save`, `update` and `delete`. */
export type SaveOutcome =
  | { status: "saved"; file: string; path: string; scope: Scope; created: boolean; indexWarning?: IndexWarning }
  | { status: "deleted"; file: string; removedFile: boolean; removedEntry: boolean }
  | ({ status: "proposed" } & Proposal);

/** MEMORY.md as the model gets it. */
export interface IndexView {
  path: string;
  exists: boolean;
  content: string;
  lineCount: number;
  byteCount: number;
  wasLineTruncated: boolean;
  wasByteTruncated: boolean;
}

/** One index entry and whether its file exists. */
export interface ListedMemory { entry: IndexEntry; file: string; scope: Scope; exists: boolean }
"#;

import type { Memdir } from "../dist/memdir.js";
import type { AbortSignal } from "./host-types.js";

/** The names of the memory tools. */
export type MemoryToolName = "recall" | "save" | "update" | "delete" | "list" | "read" | "lint" | "log";

/** A JSON Schema (the subset the tools use). */
export interface ToolJsonSchema {
  type: "object";
  properties: Record<string, Record<string, unknown>>;
  required?: string[];
  additionalProperties: false;
}

/** One memory tool: what a model is shown, and how to run it. */
export interface MemoryToolDefinition {
  name: MemoryToolName;
  /** For the model: what the tool does and when to call it. */
  description: string;
  /** JSON Schema of the input. */
  inputSchema: ToolJsonSchema;
  /** True for the tools that never write (`recall`, `list`, `read`, `lint`). */
  readOnly: boolean;
  /**
   * Check `input` against `inputSchema` (a `MemdirError` `INVALID_INPUT` naming the argument when
   * it does not fit), run it, and resolve to the text for the model.
   */
  execute(input: unknown, context?: { signal?: AbortSignal }): Promise<string>;
}

/** Options of `memoryTools`. */
export interface MemoryToolsOptions {
  /** Leave out the tools that write. */
  readOnly?: boolean;
}

/**
 * The memory tools over one `Memdir` (`recall`, `save`, `update`, `delete`, `list`, `read`,
 * `lint`, `log`).
 *
 * @example
 * const recall = memoryTools(memdir).find((t) => t.name === "recall")!;
 * console.log(await recall.execute({ query: "how do we run the tests" }));
 */
export function memoryTools(memdir: Memdir, options?: MemoryToolsOptions): MemoryToolDefinition[];

/**
 * Handlers for the Anthropic SDK's `betaMemoryTool`: assignable to its `MemoryToolHandlers`
 * without a cast (each accepts the SDK's command type and resolves to the tool result text).
 */
export interface AnthropicMemoryHandlers {
  view: (command: { command: "view"; path: string; view_range?: readonly number[] | null }) => Promise<string>;
  create: (command: { command: "create"; path: string; file_text: string }) => Promise<string>;
  str_replace: (command: { command: "str_replace"; path: string; old_str: string; new_str: string }) => Promise<string>;
  insert: (command: { command: "insert"; path: string; insert_line: number; insert_text: string }) => Promise<string>;
  delete: (command: { command: "delete"; path: string }) => Promise<string>;
  rename: (command: { command: "rename"; old_path: string; new_path: string }) => Promise<string>;
}

/**
 * The memory tool's handlers over a `Memdir`, with the texts of the SDK's own filesystem backend.
 *
 * @example
 * import { betaMemoryTool } from "@anthropic-ai/sdk/helpers/beta/memory";
 * const memory = betaMemoryTool(anthropicMemoryHandlers(memdir));
 */
export function anthropicMemoryHandlers(memdir: Memdir): AnthropicMemoryHandlers;

/** Options of `aiSdkTools`. */
export interface AiSdkToolsOptions extends MemoryToolsOptions {
  /** Prefix of the tool names (default `memory_`). */
  prefix?: string;
}

/**
 * The memory tools as AI SDK tools (`memory_recall`, `memory_save` …): pass the `ai` module.
 *
 * @example
 * import * as ai from "ai";
 * await ai.generateText({ model, tools: aiSdkTools(memdir, ai), prompt });
 */
export function aiSdkTools<T>(
  memdir: Memdir,
  ai: { tool: (definition: never) => T; jsonSchema: (schema: never) => unknown },
  options?: AiSdkToolsOptions,
): Record<string, T>;

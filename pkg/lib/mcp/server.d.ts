import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Memdir } from "../../dist/memdir.js";

/** Options of `createMemdirMcpServer`. */
export interface MemdirMcpServerOptions {
  /** Offer only the tools that read (`recall`, `list`, `read`, `lint`). */
  readOnly?: boolean;
  /** The server's name and version as clients see them (default `memdir`, `0.0.0`). */
  name?: string;
  version?: string;
}

/**
 * An MCP `Server` (not yet connected) over one `Memdir`: the memory tools, the prompt `memory`,
 * and `MEMORY.md` plus each memory as resources (`memdir:///<file>`). Failing tool calls are
 * results with `isError: true` whose text starts with the `MemdirError` code.
 *
 * @example
 * import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
 * await createMemdirMcpServer(memdir).connect(new StdioServerTransport());
 */
export function createMemdirMcpServer(memdir: Memdir, options?: MemdirMcpServerOptions): Server;

/** The URI of a file of the memory directory (`memdir:///team/deploys.md`). */
export function resourceUri(rel: string): string;

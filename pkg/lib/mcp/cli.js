// `memdir mcp`: serve one memory directory over MCP, on stdio (default) or Streamable HTTP on
// 127.0.0.1 (`--http PORT`). bin/memdir.js hands over the command line and its own directory
// and model resolution, so the directory is the one every other command uses.
import { watch, mkdirSync, statSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { randomUUID } from "node:crypto";
import * as posix from "node:path/posix";
import { parseArgs } from "node:util";

const EXIT = { OK: 0, USAGE: 2, RUNTIME: 3 };

export const HELP = `memdir mcp — serve a memory directory to MCP clients (Claude Desktop, VS Code, Cursor …)

Usage: memdir mcp [options]

Options:
  --dir <path>         the memory directory (default: the project's, see \`memdir path\`)
  --project <path>     the project whose directory to resolve (default: the current directory)
  --http <port>        serve Streamable HTTP on http://127.0.0.1:<port>/mcp instead of stdio
                       (0 picks a free port; the address is printed on stderr)
  --read-only          offer only the tools that read (recall, list, read, lint); nothing is written
  --no-llm             recall with the built-in ranker even when a model key is set
  --embed-url <url>    recall: fuse in embeddings from an OpenAI-compatible endpoint
  --embed-model <name> recall: the embedding model
  -h, --help           this help

Tools: recall, save, update, delete, list, read, lint, log. Prompt: memory. Resources: MEMORY.md
and each memory (memdir:///<file>), with list-changed notifications when files change.
Recall uses a model only when ANTHROPIC_API_KEY or OPENAI_API_KEY is set (and not --no-llm), and
embeddings only with --embed-url/--embed-model (or MEMDIR_EMBED_URL/MEMDIR_EMBED_MODEL).
Needs @modelcontextprotocol/sdk next to memdir (npm install memdir @modelcontextprotocol/sdk).`;

const OPTIONS = {
  dir: { type: "string" },
  project: { type: "string" },
  http: { type: "string" },
  "read-only": { type: "boolean" },
  "no-llm": { type: "boolean" },
  "embed-url": { type: "string" },
  "embed-model": { type: "string" },
  help: { type: "boolean", short: "h" },
};

function err(text) {
  process.stderr.write(text.endsWith("\n") ? text : text + "\n");
}

/** The MCP SDK's modules, or null with the reason when it is not installed. */
async function loadSdk() {
  try {
    const [server, stdio, http] = await Promise.all([
      import("./server.js"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    ]);
    return { ...server, ...stdio, ...http };
  } catch (e) {
    if (e?.code === "ERR_MODULE_NOT_FOUND" && String(e.message).includes("@modelcontextprotocol/sdk")) return null;
    throw e;
  }
}

/**
 * Watch the directory (recursively) and call `onChange` once per burst of changes to files a
 * client can see (hidden files, lock and temp files left out). Returns a function that stops.
 */
function watchDir(dir, onChange) {
  let timer = null;
  let watcher;
  try {
    watcher = watch(dir, { recursive: true }, (_event, name) => {
      const file = String(name ?? "");
      const base = file.split("/").pop();
      if (base.startsWith(".") || base.includes(".tmp-")) return;
      clearTimeout(timer);
      timer = setTimeout(onChange, 100);
    });
  } catch (e) {
    err(`memdir mcp: not watching ${dir} (${e.message}); clients get no list-changed notifications`);
    return () => {};
  }
  watcher.on("error", () => {});
  return () => {
    clearTimeout(timer);
    watcher.close();
  };
}

function isLoopbackHost(host, port) {
  return [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`].includes(String(host ?? "").toLowerCase());
}

function isLoopbackOrigin(origin) {
  if (origin === undefined) return true;
  try {
    const { hostname } = new URL(origin);
    return ["127.0.0.1", "localhost", "[::1]"].includes(hostname);
  } catch {
    return false;
  }
}

function jsonRpcError(res, status, message) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
}

/** Serve Streamable HTTP on 127.0.0.1: one MCP session (server + transport) per client. */
async function serveHttp(sdk, port, create, onListen) {
  const sessions = new Map();
  const httpServer = createServer(async (req, res) => {
    try {
      const { port: actual } = httpServer.address();
      // DNS rebinding: only loopback names in Host, only loopback pages as Origin.
      if (!isLoopbackHost(req.headers.host, actual) || !isLoopbackOrigin(req.headers.origin)) {
        return jsonRpcError(res, 403, "forbidden: memdir mcp answers loopback clients only");
      }
      if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") {
        return jsonRpcError(res, 404, "not found: the MCP endpoint is /mcp");
      }
      const id = req.headers["mcp-session-id"];
      if (typeof id === "string") {
        const session = sessions.get(id);
        if (!session) return jsonRpcError(res, 404, "unknown or expired session");
        return await session.transport.handleRequest(req, res);
      }
      if (req.method !== "POST") return jsonRpcError(res, 400, "start a session with an initialize POST");
      const server = create();
      const transport = new sdk.StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sid) => sessions.set(sid, { server, transport }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
      };
      await server.connect(transport);
      await transport.handleRequest(req, res);
      if (!transport.sessionId) await server.close();
    } catch (e) {
      if (!res.headersSent) jsonRpcError(res, 500, `internal error: ${e?.message ?? e}`);
    }
  });
  await new Promise((resolve, reject) => {
    httpServer.once("error", reject);
    httpServer.listen(port, "127.0.0.1", resolve);
  });
  onListen(httpServer.address().port);
  return {
    servers: () => [...sessions.values()].map((s) => s.server),
    close: async () => {
      for (const s of sessions.values()) await s.server.close().catch(() => {});
      await new Promise((resolve) => httpServer.close(resolve));
    },
  };
}

/**
 * Run `memdir mcp` with `argv` (after `mcp`). `cli` is what bin/memdir.js shares:
 * `resolveProjectMemory`, `modelFromEnv`, `embedderFrom`. Resolves to an exit code when the
 * server stops (stdin closed, or SIGINT/SIGTERM).
 */
export async function main(argv, cli) {
  let values;
  try {
    ({ values } = parseArgs({ args: argv, options: OPTIONS, allowPositionals: false, strict: true }));
  } catch (e) {
    err(`memdir mcp: ${e.message}\nTry \`memdir mcp --help\`.`);
    return EXIT.USAGE;
  }
  if (values.help) {
    process.stdout.write(HELP + "\n");
    return EXIT.OK;
  }
  let port = null;
  if (values.http !== undefined) {
    port = Number(values.http);
    if (!/^\d+$/.test(values.http) || port > 65535) {
      err("memdir mcp: --http needs a port number (0 for any free port)");
      return EXIT.USAGE;
    }
  }
  const sdk = await loadSdk();
  if (!sdk) {
    err(
      "memdir mcp: the MCP SDK is not installed. memdir keeps it optional so the library stays dependency-free;\n" +
        "install it next to memdir:  npm install @modelcontextprotocol/sdk\n" +
        "or run both with npx:       npx -y -p memdir -p @modelcontextprotocol/sdk memdir mcp",
    );
    return EXIT.RUNTIME;
  }
  const api = await import("../../index.node.js");
  const { nodeFs } = await import("../../node.js");
  const readOnly = Boolean(values["read-only"]);

  let dir;
  if (values.dir !== undefined) {
    if (!values.dir) {
      err("memdir mcp: --dir needs a path");
      return EXIT.USAGE;
    }
    dir = posix.resolve(values.dir).replace(/\/*$/, "/");
  } else {
    dir = (await cli.resolveProjectMemory(values.project ?? process.cwd())).dir;
  }
  if (!readOnly) mkdirSync(dir, { recursive: true });
  else {
    try {
      statSync(dir);
    } catch {
      err(`memdir mcp: no memory directory at ${dir} (and --read-only creates none)`);
      return EXIT.RUNTIME;
    }
  }

  const model = values["no-llm"] ? null : cli.modelFromEnv(process.env);
  const embedder = cli.embedderFrom(values, process.env);
  const memdir = new api.Memdir({
    fs: nodeFs(),
    dir,
    writeMode: readOnly ? "read-only" : "auto",
    ...(model ? { llm: model.llm } : {}),
    ...(embedder ? { embed: embedder.embed } : {}),
  });
  const version = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;
  const create = () => sdk.createMemdirMcpServer(memdir, { readOnly, version });
  const recallBy = model ? model.label : embedder ? `ranker + ${embedder.label}` : "the built-in ranker";

  let servers;
  let closeAll;
  let stopped;
  const done = new Promise((resolve) => (stopped = resolve));
  if (port === null) {
    const server = create();
    const transport = new sdk.StdioServerTransport();
    transport.onclose = () => stopped();
    process.stdin.on("end", () => stopped());
    await server.connect(transport);
    servers = () => [server];
    closeAll = () => server.close();
    err(`memdir mcp: serving ${dir} on stdio${readOnly ? " (read-only)" : ""}; recall by ${recallBy}`);
  } else {
    const http = await serveHttp(sdk, port, create, (actual) =>
      err(`memdir mcp: serving ${dir} on http://127.0.0.1:${actual}/mcp${readOnly ? " (read-only)" : ""}; recall by ${recallBy}`),
    );
    servers = http.servers;
    closeAll = http.close;
  }
  const unwatch = watchDir(dir, () => {
    for (const server of servers()) server.sendResourceListChanged().catch(() => {});
  });
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => stopped());
  await done;
  unwatch();
  await closeAll().catch(() => {});
  return EXIT.OK;
}

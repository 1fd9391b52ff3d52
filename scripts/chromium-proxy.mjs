// A loopback HTTP proxy for the Chromium stage of the wasm tests (scripts/test.sh).
//
// Why: wasm-bindgen-test-runner serves the test page with tiny_http, whose task pool can queue a
// new connection behind a worker that is busy with a kept-alive one. When Chromium opens more
// connections at once than the pool has idle threads (the page imports ~9 JS snippets in
// parallel), one of them is never served and the page never finishes loading: the runner then
// reports "Failed to detect test as having been run" (seen in about half the runs on a 2-core
// machine). Through this proxy every request reaches the runner on a connection of its own that
// closes after the response, so no worker is held by an idle connection and every queued
// connection gets served.
//
//   node scripts/chromium-proxy.mjs <webdriver.json to write>
//
// Listens on a free loopback port, writes a webdriver.json that makes Chromium use it (also for
// loopback addresses, which Chromium otherwise never proxies), prints the port, and serves until
// killed.
import * as http from "node:http";
import { writeFileSync } from "node:fs";

const out = process.argv[2];
if (!out) {
  console.error("usage: node scripts/chromium-proxy.mjs <webdriver.json to write>");
  process.exit(2);
}

const server = http.createServer((req, res) => {
  let target;
  try {
    target = new URL(req.url);
  } catch {
    res.writeHead(400).end("absolute URL expected");
    return;
  }
  const headers = { ...req.headers, connection: "close" };
  delete headers["proxy-connection"];
  const upstream = http.request(
    { host: target.hostname, port: target.port || 80, path: target.pathname + target.search, method: req.method, headers, agent: false },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", (e) => {
    if (!res.headersSent) res.writeHead(502);
    res.end(String(e));
  });
  req.pipe(upstream);
});

server.listen(0, "127.0.0.1", () => {
  const { port } = server.address();
  const capabilities = {
    "goog:chromeOptions": {
      args: [`proxy-server=http://127.0.0.1:${port}`, "proxy-bypass-list=<-loopback>"],
    },
  };
  writeFileSync(out, JSON.stringify(capabilities, null, 2) + "\n");
  console.log(port);
});

#!/usr/bin/env node
// A language server that speaks LSP on stdio and does nothing else: it answers
// `initialize` (full sync, no features) and `shutdown`, exits on `exit`, and never
// publishes a diagnostic. The e2e test against it must FAIL at its first step:
//
//   node editors/vscode/test/e2e.js --server editors/vscode/test/silent-server.js
//
// which shows the test's squiggle comes from grounded, not from VS Code's own
// JavaScript support or a stale screenshot. Any arguments (`serve --stdio`) are ignored.

"use strict";

let buf = Buffer.alloc(0);

function send(msg) {
  const body = Buffer.from(JSON.stringify(msg), "utf8");
  process.stdout.write(`Content-Length: ${body.length}\r\n\r\n`);
  process.stdout.write(body);
}

function handle(msg) {
  if (msg.method === "initialize") {
    send({ jsonrpc: "2.0", id: msg.id, result: { capabilities: { textDocumentSync: 1 } } });
  } else if (msg.method === "shutdown") {
    send({ jsonrpc: "2.0", id: msg.id, result: null });
  } else if (msg.method === "exit") {
    process.exit(0);
  } else if (msg.id !== undefined && msg.method !== undefined) {
    send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: `${msg.method}: not served` } });
  }
}

process.stdin.on("data", (chunk) => {
  buf = Buffer.concat([buf, chunk]);
  for (;;) {
    const end = buf.indexOf("\r\n\r\n");
    if (end < 0) return;
    const m = /Content-Length:\s*(\d+)/i.exec(buf.subarray(0, end).toString("ascii"));
    const len = m ? Number(m[1]) : 0;
    if (buf.length < end + 4 + len) return;
    const body = buf.subarray(end + 4, end + 4 + len).toString("utf8");
    buf = buf.subarray(end + 4 + len);
    try {
      handle(JSON.parse(body));
    } catch {
      // A bad frame costs that frame.
    }
  }
});

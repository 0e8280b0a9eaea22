// A scripted OpenAI-compatible chat-completions server on 127.0.0.1, over real HTTP, for
// the end-to-end test's "ask agent" step: it answers the n-th POST with the n-th
// scripted completion (past the end, a plain "script exhausted" answer) and keeps every
// request body, so the test can say what the agent asked. The same idea as the Rust
// tests' tests/common/model_server.rs, in the language the e2e test runs in.

"use strict";

const http = require("http");

/** A completion whose message calls tools: [[id, name, args], ...]. */
function calls(list) {
  return {
    id: "cmpl",
    object: "chat.completion",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: null,
          tool_calls: list.map(([id, name, args]) => ({
            id,
            type: "function",
            function: { name, arguments: JSON.stringify(args) },
          })),
        },
        finish_reason: "tool_calls",
      },
    ],
  };
}

/** A completion whose message is plain text (the turn's final answer). */
function say(text) {
  return {
    id: "cmpl",
    object: "chat.completion",
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
  };
}

/**
 * `completion`, answered only after `ms` milliseconds: the test's window to see the turn
 * while it waits for the model (the progress notification and the status bar).
 */
function after(ms, completion) {
  return { delayMs: ms, completion };
}

/**
 * Starts the server with `script` (completions, in order). Resolves to
 * `{ url, received, close }`: `url` is the base URL (`http://127.0.0.1:PORT/v1`),
 * `received` the parsed request bodies so far.
 */
function start(script) {
  const received = [];
  let n = 0;
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      let body = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = null;
      }
      received.push({ method: req.method, url: req.url, body });
      const entry = n < script.length ? script[n] : say("script exhausted");
      n++;
      const delayMs = entry.delayMs || 0;
      const answer = entry.delayMs !== undefined ? entry.completion : entry;
      const text = JSON.stringify(answer);
      setTimeout(() => {
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
        res.end(text);
      }, delayMs);
    });
  });
  return new Promise((resolve, reject) => {
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}/v1`,
        received,
        close: () => new Promise((r) => server.close(() => r())),
      });
    });
  });
}

module.exports = { start, calls, say, after };

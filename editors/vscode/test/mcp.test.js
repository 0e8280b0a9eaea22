// The extension's MCP registration (src/mcp.ts, bundled here with the extension's own
// esbuild): with the editor's API it registers one provider under the id package.json
// contributes, whose definition names the language server's binary with `mcp`, the
// workspace folder and `grounded.docs`; that definition, started as the editor starts it,
// is a working MCP server (the real binary answers `initialize` and lists six tools).
// Without the API (VS Code before 1.101, code-server) nothing is registered and nothing
// throws.
//
//   node --test editors/vscode/test/mcp.test.js     (after npm ci in editors/vscode)
"use strict";

const assert = require("node:assert");
const { execFileSync, spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const test = require("node:test");

const ext = path.resolve(__dirname, "..");
const repo = path.resolve(ext, "../..");
// Absolute: the server is started with the project as its working folder, so a relative
// GROUNDED_BIN (CI passes `target/debug/grounded`) would name nothing there.
const binary = path.resolve(
  process.env.GROUNDED_BIN || path.join(process.env.CARGO_TARGET_DIR || path.join(repo, "target"), "debug", "grounded"),
);
const manifest = JSON.parse(fs.readFileSync(path.join(ext, "package.json"), "utf8"));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "grounded-mcp-test-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const bundle = path.join(tmp, "mcp.js");
execFileSync(path.join(ext, "node_modules/.bin/esbuild"), ["src/mcp.ts", "--bundle", "--platform=node", "--format=cjs", `--outfile=${bundle}`], {
  cwd: ext,
  stdio: "ignore",
});
const mcp = require(bundle);

/** A stand-in for the `vscode` module's MCP parts, recording what is registered. */
function fakeApi() {
  const registered = [];
  class McpStdioServerDefinition {
    constructor(label, command, args, env, version) {
      Object.assign(this, { label, command, args, env, version });
    }
  }
  return {
    registered,
    api: {
      lm: {
        registerMcpServerDefinitionProvider(id, provider) {
          registered.push({ id, provider });
          return { dispose() {} };
        },
      },
      McpStdioServerDefinition,
      Uri: { file: (p) => ({ fsPath: p }) },
    },
  };
}

test("the provider's id is the one package.json contributes", () => {
  const ids = (manifest.contributes.mcpServerDefinitionProviders || []).map((p) => p.id);
  assert.deepStrictEqual(ids, [mcp.PROVIDER_ID]);
});

test("the registration names the language server's binary with `mcp`, the folder and the docs", () => {
  const { api, registered } = fakeApi();
  const launch = { command: "/opt/grounded/bin/grounded", folder: "/work/project", docs: "/work/project/docs", version: "0.1.0" };
  const d = mcp.registerMcp(api, () => launch);
  assert.ok(d, "registered");
  assert.strictEqual(registered.length, 1);
  assert.strictEqual(registered[0].id, "grounded.mcp");
  const defs = registered[0].provider.provideMcpServerDefinitions();
  assert.strictEqual(defs.length, 1);
  assert.strictEqual(defs[0].label, "grounded");
  assert.strictEqual(defs[0].command, "/opt/grounded/bin/grounded");
  assert.deepStrictEqual(defs[0].args, ["mcp", "--root", "/work/project", "--docs", "/work/project/docs"]);
  assert.deepStrictEqual(defs[0].cwd, { fsPath: "/work/project" });
  assert.strictEqual(defs[0].version, "0.1.0");
  // No binary found: no server offered (the language server says why).
  launch.command = undefined;
  assert.deepStrictEqual(registered[0].provider.provideMcpServerDefinitions(), []);
});

test("an editor without the MCP API gets nothing registered and no error", () => {
  const launch = () => ({ command: binary, folder: undefined, docs: "", version: "" });
  assert.strictEqual(mcp.registerMcp({}, launch), undefined);
  assert.strictEqual(mcp.registerMcp({ lm: {} }, launch), undefined);
  assert.strictEqual(mcp.registerMcp({ lm: { registerMcpServerDefinitionProvider() {} } }, launch), undefined);
});

test("an editor that refuses the registration gets it said, never thrown", () => {
  // code-server 4.100 (VS Code 1.100) has the function and throws unless the provider is
  // declared under an earlier contribution name: the throw once stopped activation, so the
  // language server never started.
  const { api } = fakeApi();
  api.lm.registerMcpServerDefinitionProvider = () => {
    throw new Error("MCP configuration providers must be registered in the contributes.modelContextServerCollections array");
  };
  let said;
  const got = mcp.registerMcp(api, () => ({ command: "/bin/grounded", folder: "/w", docs: "", version: "0.1.0" }), (r) => (said = r));
  assert.strictEqual(got, undefined);
  assert.match(said, /modelContextServerCollections/);
});

test("the registered definition starts a working MCP server", async () => {
  const project = path.join(tmp, "project");
  fs.mkdirSync(project, { recursive: true });
  fs.writeFileSync(path.join(project, "grounded.toml"), `docs = ${JSON.stringify(path.join(repo, "corpus/demo"))}\n`);
  const { api, registered } = fakeApi();
  mcp.registerMcp(api, () => ({ command: binary, folder: project, docs: "", version: "0.1.0" }));
  const [def] = registered[0].provider.provideMcpServerDefinitions();
  const child = spawn(def.command, def.args, { cwd: def.cwd.fsPath, stdio: ["pipe", "pipe", "ignore"] });
  const lines = [];
  let buf = "";
  const got = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer; stdout: ${buf}`)), 20000);
    child.stdout.on("data", (d) => {
      buf += d.toString();
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        lines.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
        if (lines.some((m) => m.id === 2)) {
          clearTimeout(timer);
          resolve();
        }
      }
    });
  });
  const send = (m) => child.stdin.write(JSON.stringify(m) + "\n");
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "vscode-test", version: "1" } } });
  send({ jsonrpc: "2.0", method: "notifications/initialized" });
  send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  try {
    await got;
  } finally {
    child.stdin.end();
  }
  const init = lines.find((m) => m.id === 1);
  assert.strictEqual(init.result.serverInfo.name, "grounded");
  const tools = lines.find((m) => m.id === 2).result.tools.map((t) => t.name);
  assert.deepStrictEqual(tools, ["lookup_docs", "resolve_topic", "get_doc", "check_code", "check_files", "dry_run"]);
});

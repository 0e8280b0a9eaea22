// Which binary the extension starts and what it says when that binary cannot start
// (src/server.ts, bundled here with the extension's own esbuild): the spec's order
// (grounded.serverPath, the bundled server, PATH) with no fallback past a broken one,
// and each broken binary one reason with what to do. Real files in a temp folder and
// the real grounded binary (GROUNDED_BIN, default target/debug/grounded).
//
//   node --test editors/vscode/test/server.test.js     (after npm ci in editors/vscode)
"use strict";

const assert = require("node:assert");
const { execFileSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const test = require("node:test");

const ext = path.resolve(__dirname, "..");
const repo = path.resolve(ext, "../..");
const binary =
  process.env.GROUNDED_BIN || path.join(process.env.CARGO_TARGET_DIR || path.join(repo, "target"), "debug", "grounded");
const version = /^version = "(.*)"$/m.exec(fs.readFileSync(path.join(repo, "Cargo.toml"), "utf8"))[1];

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "grounded-server-test-"));
test.after(() => fs.rmSync(tmp, { recursive: true, force: true }));
const bundle = path.join(tmp, "server.js");
execFileSync(path.join(ext, "node_modules/.bin/esbuild"), ["src/server.ts", "--bundle", "--platform=node", "--format=cjs", `--outfile=${bundle}`], {
  cwd: ext,
  stdio: "ignore",
});
const server = require(bundle);

/** An extension folder, with or without a bundled server. */
function extension(name, { bundled } = {}) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, "server"), { recursive: true });
  if (bundled) {
    fs.copyFileSync(binary, path.join(dir, "server/grounded"));
    fs.chmodSync(path.join(dir, "server/grounded"), 0o755);
  }
  return dir;
}

function withPath(dirs, f) {
  const old = process.env.PATH;
  process.env.PATH = dirs.join(path.delimiter);
  try {
    return f();
  } finally {
    process.env.PATH = old;
  }
}

test("the order: serverPath, then the bundled server, then PATH", { skip: process.platform === "win32" }, () => {
  const onPath = path.join(tmp, "path-bin");
  fs.mkdirSync(onPath, { recursive: true });
  fs.copyFileSync(binary, path.join(onPath, "grounded"));
  const withServer = extension("with", { bundled: true });
  const without = extension("without");
  withPath([onPath], () => {
    assert.deepStrictEqual(server.findServer("/opt/g/grounded", withServer, undefined), { path: "/opt/g/grounded", source: "setting" });
    assert.deepStrictEqual(server.findServer("bin/grounded", withServer, "/ws"), { path: "/ws/bin/grounded", source: "setting" });
    assert.deepStrictEqual(server.findServer("", withServer, undefined), { path: path.join(withServer, "server/grounded"), source: "bundled" });
    assert.deepStrictEqual(server.findServer("", without, undefined), { path: path.join(onPath, "grounded"), source: "path" });
  });
  withPath([path.join(tmp, "nothing")], () => assert.strictEqual(server.findServer("", without, undefined), undefined));
});

test("a working binary reports its version", async () => {
  const p = await server.probe({ path: path.join(extension("ok", { bundled: true }), "server/grounded"), source: "bundled" });
  assert.deepStrictEqual(p, { version, fixed: undefined });
});

test("a set serverPath that names nothing is said, not replaced by the bundled server", async () => {
  const dir = extension("set", { bundled: true });
  const found = server.findServer(path.join(tmp, "no/such/grounded"), dir, undefined);
  assert.strictEqual(found.source, "setting");
  assert.deepStrictEqual(await server.probe(found), { reason: "no such file" });
});

test("a damaged binary is said as such", async () => {
  const dir = extension("damaged");
  const p = path.join(dir, "server/grounded");
  fs.writeFileSync(p, "<html>502 Bad Gateway</html>\n");
  fs.chmodSync(p, 0o755);
  const r = await server.probe({ path: p, source: "bundled" });
  assert.match(r.reason, /not a program this machine runs/);
});

test("the bundled binary's lost run bit is restored; a user's binary is not touched", { skip: process.platform === "win32" }, async () => {
  const dir = extension("runbit", { bundled: true });
  const p = path.join(dir, "server/grounded");
  fs.chmodSync(p, 0o644);
  const r = await server.probe({ path: p, source: "bundled" });
  assert.strictEqual(r.version, version);
  assert.match(r.fixed, /run bit was missing/);
  const mine = path.join(tmp, "mine-grounded");
  fs.copyFileSync(binary, mine);
  fs.chmodSync(mine, 0o644);
  const m = await server.probe({ path: mine, source: "setting" });
  assert.strictEqual(m.reason, `it is not executable (chmod +x ${mine})`);
  assert.strictEqual(fs.statSync(mine).mode & 0o111, 0);
});

test("a binary whose --version fails says its exit and first line", { skip: process.platform === "win32" }, async () => {
  // A program that runs and fails, as the loader does on too old a glibc.
  const p = path.join(tmp, "old-glibc");
  fs.writeFileSync(p, "#!/bin/sh\necho \"$0: /lib/x86_64-linux-gnu/libc.so.6: version \\`GLIBC_2.99' not found\" >&2\nexit 1\n");
  fs.chmodSync(p, 0o755);
  const r = await server.probe({ path: p, source: "path" });
  assert.match(r.reason, /`--version` exited with 1: .*GLIBC_2\.99' not found/);
});

test("a program that is not grounded is said", { skip: process.platform === "win32" }, async () => {
  const r = await server.probe({ path: "/bin/echo", source: "setting" });
  assert.match(r.reason, /^`--version` printed "echo \(GNU coreutils\).*": not grounded$/);
});

test("with no binary, the advice names the platform VSIX and the package managers", () => {
  const advice = withPath([path.join(tmp, "nothing")], () => server.installAdvice());
  const target = `${process.platform}-${process.arch}`;
  if (target in server.TARGETS) {
    assert.match(advice, new RegExp(`Install the grounded extension for ${target} \\(its VSIX carries the server\\)`));
    assert.match(advice, /pipx install grounded-js`.*npm install -g grounded-js`/);
    // `grounded` on PyPI and npm is another project's: the advice never names it.
    assert.doesNotMatch(advice, /install (-g )?grounded`/);
  } else {
    assert.match(advice, /build it from source/);
  }
});

// The npm launcher (npm/grounded/bin/grounded.js) over a node_modules laid out as npm
// lays it out, with the real grounded binary as the platform package's: arguments,
// stdio, exit status and signals pass through, and each broken install (platform
// package missing, binary damaged, missing or without its run bit, an unsupported
// platform, too old a glibc) is one line that says what to do.
//
//   node --test npm/test/     (GROUNDED_BIN: the binary; default target/debug/grounded)
"use strict";

const assert = require("node:assert");
const { spawn, spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const test = require("node:test");

const repo = path.resolve(__dirname, "../..");
const targetDir = process.env.CARGO_TARGET_DIR || path.join(repo, "target");
const binary = process.env.GROUNDED_BIN || path.join(targetDir, "debug", process.platform === "win32" ? "grounded.exe" : "grounded");
const platform = `${process.platform}-${process.arch}`;
const version = /^version = "(.*)"$/m.exec(fs.readFileSync(path.join(repo, "Cargo.toml"), "utf8"))[1];

/** The processes whose parent is `pid` (Linux /proc: no procps needed). */
function childrenOf(pid) {
  return fs
    .readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        // The fields after the command's closing parenthesis: state, ppid, ...
        const stat = fs.readFileSync(`/proc/${d}/stat`, "utf8");
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A project whose node_modules holds the launcher and this platform's package. */
function install(t, { platformPackage = true, glibc, global = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "grounded-npm-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  // A project has its package.json beside node_modules; a global prefix (lib/node_modules) has none.
  if (!global) fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "project", private: true }));
  const launcher = path.join(dir, "node_modules/grounded-js");
  fs.mkdirSync(path.join(launcher, "bin"), { recursive: true });
  fs.copyFileSync(path.join(repo, "npm/grounded/package.json"), path.join(launcher, "package.json"));
  fs.copyFileSync(path.join(repo, "npm/grounded/bin/grounded.js"), path.join(launcher, "bin/grounded.js"));
  const pkg = path.join(dir, "node_modules", `grounded-js-${platform}`);
  const bin = path.join(pkg, "bin", process.platform === "win32" ? "grounded.exe" : "grounded");
  if (platformPackage) {
    fs.mkdirSync(path.dirname(bin), { recursive: true });
    const meta = { name: `grounded-js-${platform}`, version };
    if (glibc) meta.grounded = { glibc };
    fs.writeFileSync(path.join(pkg, "package.json"), JSON.stringify(meta));
    fs.copyFileSync(binary, bin);
    fs.chmodSync(bin, 0o755);
  }
  return { dir, launcher: path.join(launcher, "bin/grounded.js"), bin };
}

function run(inst, args, opts = {}) {
  return spawnSync(process.execPath, [...(opts.pre || []), inst.launcher, ...args], {
    cwd: opts.cwd || repo,
    encoding: "utf8",
    input: opts.input,
    env: { ...process.env, NO_COLOR: "1" },
  });
}

/** The launcher failed with exactly one line on stderr, matching every pattern. */
function oneLine(r, ...patterns) {
  assert.strictEqual(r.status, 2, `exit status: ${r.status} ${r.stderr}`);
  const lines = r.stderr.split("\n").filter((l) => l.trim());
  assert.strictEqual(lines.length, 1, `one line expected: ${r.stderr}`);
  for (const p of patterns) assert.match(lines[0], p);
  assert.strictEqual(r.stdout, "");
}

test("the binary exists", () => {
  assert.ok(fs.existsSync(binary), `no grounded binary at ${binary} (cargo build, or GROUNDED_BIN)`);
});

test("arguments, stdout and the exit status pass through", (t) => {
  const inst = install(t);
  const v = run(inst, ["--version"]);
  assert.strictEqual(v.status, 0, v.stderr);
  assert.strictEqual(v.stdout.trim(), `grounded ${version}`);
  const r = run(inst, ["check", "examples/demo"]);
  assert.strictEqual(r.status, 1, r.stderr);
  assert.match(r.stdout, /examples\/demo\/mistakes\/member\.js:8:8/);
  // A clean file: exit 0, nothing on stdout.
  const ok = run(inst, ["check", "examples/demo/main.js"]);
  assert.strictEqual(ok.status, 0, ok.stdout + ok.stderr);
});

test("stdin passes through: the language server answers initialize", { skip: process.platform === "win32" }, async (t) => {
  const inst = install(t);
  const child = spawn(process.execPath, [inst.launcher, "serve"], { cwd: repo, stdio: ["pipe", "pipe", "pipe"] });
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { processId: null, rootUri: null, capabilities: {} } });
  child.stdin.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  let out = "";
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer to initialize: ${out}`)), 20000);
    child.stdout.on("data", (d) => {
      out += d;
      if (/"id":1/.test(out) && /"capabilities"/.test(out)) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  // SIGTERM to the launcher reaches grounded, and the launcher ends as grounded did.
  const ended = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  child.kill("SIGTERM");
  const { code, signal } = await ended;
  assert.deepStrictEqual({ code, signal }, { code: null, signal: "SIGTERM" });
});

test("a signal that kills grounded kills the launcher with the same signal", { skip: process.platform !== "linux" }, async (t) => {
  const inst = install(t);
  // `serve` waits on its idle stdin (a pipe: the launcher once made it non-blocking and
  // grounded exited at once); SIGKILL cannot be caught, so grounded surely dies of it.
  const child = spawn(process.execPath, [inst.launcher, "serve"], { cwd: repo, stdio: ["pipe", "ignore", "ignore"] });
  await new Promise((r) => setTimeout(r, 1500));
  const pids = childrenOf(child.pid);
  assert.strictEqual(pids.length, 1, "the launcher runs one grounded");
  const ended = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
  process.kill(Number(pids[0]), "SIGKILL");
  assert.deepStrictEqual(await ended, { code: null, signal: "SIGKILL" });
});

test("the platform package missing from node_modules is one line saying to reinstall", (t) => {
  const inst = install(t, { platformPackage: false });
  const r = run(inst, ["--version"]);
  oneLine(r, new RegExp(`grounded-js-${platform}, `), /is not in node_modules/, /download failed/, /--omit=optional/, /\(npm install grounded-js\)$/);
  // `grounded` on npm is another project's; the scoped names were never published.
  assert.doesNotMatch(r.stderr, /npm install grounded\b(?!-js)|@grounded\//);
});

test("a global install missing its platform package is told the global command", (t) => {
  const inst = install(t, { platformPackage: false, global: true });
  const r = run(inst, ["--version"]);
  oneLine(r, new RegExp(`grounded-js-${platform}, `), /\(npm install -g grounded-js\)$/);
  const local = run(install(t, { platformPackage: false }), ["--version"]);
  assert.doesNotMatch(local.stderr, /-g/);
});

test("an unsupported platform is one line naming it and the supported ones", (t) => {
  const inst = install(t);
  const pre = path.join(inst.dir, "freebsd.js");
  fs.writeFileSync(pre, 'Object.defineProperty(process, "platform", { value: "freebsd" });\n');
  oneLine(run(inst, ["--version"], { pre: ["--require", pre] }), new RegExp(`freebsd-${process.arch}`), /linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64/);
});

test("a damaged binary is one line saying to reinstall", (t) => {
  const inst = install(t);
  fs.writeFileSync(inst.bin, "<html>502 Bad Gateway</html>\n");
  oneLine(run(inst, ["--version"]), /is not a program/, /reinstall grounded-js-.* \(npm install grounded-js\)/);
});

test("a missing binary is one line saying to reinstall", (t) => {
  const inst = install(t);
  fs.rmSync(inst.bin);
  oneLine(run(inst, ["--version"]), /cannot be read \(ENOENT\)/, /reinstall grounded-js-.* \(npm install grounded-js\)/);
});

test("a binary without its run bit gets it back and runs", { skip: process.platform === "win32" }, (t) => {
  const inst = install(t);
  fs.chmodSync(inst.bin, 0o644);
  const r = run(inst, ["--version"]);
  assert.strictEqual(r.status, 0, r.stderr);
  assert.strictEqual(r.stdout.trim(), `grounded ${version}`);
  assert.ok(fs.statSync(inst.bin).mode & 0o100);
});

test("too old a glibc is one line naming both versions", { skip: process.platform !== "linux" }, (t) => {
  const inst = install(t, { glibc: "99.0" });
  oneLine(run(inst, ["--version"]), /needs glibc 99\.0 or newer and this system has \d+\.\d+/, /from source/);
  // The floor the release writes is met here: the same layout with today's glibc runs.
  const fine = install(t, { glibc: "2.17" });
  assert.strictEqual(run(fine, ["--version"]).status, 0);
});

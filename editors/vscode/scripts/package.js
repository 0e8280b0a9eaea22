#!/usr/bin/env node
// `npm run package [-- --target TARGET] [--server PATH] [--out FILE]`: the .vsix.
//
// Without --target: the universal VSIX, with no server (the extension then runs
// grounded.serverPath or `grounded` on PATH). With a vsce platform target (linux-x64,
// darwin-arm64, ...): a platform VSIX carrying the release binary as server/grounded,
// as rust-analyzer ships its server. The binary is --server, else the release build of
// the target's Rust triple in cargo's target folder (target/TRIPLE/release, or
// target/release for the host). Its `--version` must be the extension's version when it
// runs here: a VSIX whose server is another release would be a mismatch nobody sees.
"use strict";

const { execFileSync, spawnSync } = require("child_process");
const fs = require("fs");
const path = require("path");

const ext = path.resolve(__dirname, "..");
const repo = path.resolve(ext, "../..");
// Kept in step with src/server.ts TARGETS and dist/release.sh.
const TARGETS = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
};

function die(msg) {
  console.error(`package: ${msg}`);
  process.exit(1);
}

const o = { target: undefined, server: undefined, out: path.join(ext, "grounded.vsix") };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (a === "--target") o.target = argv[++i];
  else if (a === "--server") o.server = path.resolve(argv[++i]);
  else if (a === "--out") o.out = path.resolve(argv[++i]);
  else die(`unknown argument ${a} (usage: npm run package -- [--target TARGET] [--server PATH] [--out FILE])`);
}

const version = JSON.parse(fs.readFileSync(path.join(ext, "package.json"), "utf8")).version;
const serverDir = path.join(ext, "server");
// A server/ left by an earlier platform build must not ride along in another VSIX.
fs.rmSync(serverDir, { recursive: true, force: true });

if (o.target) {
  const triple = TARGETS[o.target];
  if (!triple) die(`no release target ${o.target} (targets: ${Object.keys(TARGETS).join(", ")})`);
  const exe = o.target.startsWith("win32") ? ".exe" : "";
  let bin = o.server;
  if (!bin) {
    const meta = JSON.parse(
      execFileSync("cargo", ["metadata", "--format-version", "1", "--no-deps"], { cwd: repo, encoding: "utf8" }),
    );
    const host = /^host: (\S+)$/m.exec(execFileSync("rustc", ["-vV"], { encoding: "utf8" }))[1];
    const candidates = [path.join(meta.target_directory, triple, "release", `grounded${exe}`)];
    if (host === triple) candidates.push(path.join(meta.target_directory, "release", `grounded${exe}`));
    bin = candidates.find((p) => fs.existsSync(p));
    if (!bin) die(`no release binary for ${triple} (looked at ${candidates.join(", ")}): run cargo build --release first, or pass --server PATH`);
  }
  if (!fs.existsSync(bin)) die(`no binary at ${bin}`);
  const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
  if (r.status === 0) {
    const got = r.stdout.trim().split(/\s+/)[1];
    if (got !== version) die(`${bin} is grounded ${got}, the extension is ${version}: build the release of this version`);
  } else if (r.error?.code !== "ENOEXEC" && r.error?.code !== "EBADARCH") {
    // Another platform's binary cannot run here; one of this platform's must.
    const os = { linux: "linux", darwin: "darwin", win32: "win32" }[process.platform];
    if (o.target.startsWith(os) && o.target.endsWith(process.arch)) {
      die(`${bin} --version failed: ${r.error ? r.error.message : r.stderr.trim()}`);
    }
  }
  fs.mkdirSync(serverDir);
  const dest = path.join(serverDir, `grounded${exe}`);
  fs.copyFileSync(bin, dest);
  fs.chmodSync(dest, 0o755);
}

const args = ["package", "--allow-missing-repository", "--out", o.out];
if (o.target) args.push("--target", o.target);
const vsce = path.join(ext, "node_modules", ".bin", process.platform === "win32" ? "vsce.cmd" : "vsce");
const r = spawnSync(vsce, args, { cwd: ext, stdio: "inherit", shell: process.platform === "win32" });
fs.rmSync(serverDir, { recursive: true, force: true });
if (r.status !== 0) die(`vsce package exited with ${r.status ?? r.signal}`);

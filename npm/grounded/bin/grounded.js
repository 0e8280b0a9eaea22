#!/usr/bin/env node
// `grounded` from npm (the package grounded-js: `grounded` on npm is another project's):
// finds this platform's package (grounded-js-<platform>-<arch>, one of
// the optionalDependencies; npm installs only the one whose `os` and `cpu` match, the
// esbuild / Biome pattern) and runs its binary with the same arguments, stdio, exit
// status and signals. No install script: npm may run none (--ignore-scripts, or npm's
// own install-script approval), and the binary must work all the same.
"use strict";

const { spawn } = require("child_process");
const fs = require("fs");
const path = require("path");

// The platforms a release builds (dist/release.sh, .github/workflows/release.yml).
const SUPPORTED = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];

function fail(msg) {
  process.stderr.write(`grounded: ${msg}\n`);
  process.exit(2);
}

/** The glibc this Node runs on ("2.36"), or undefined on musl and other systems. */
function glibc() {
  try {
    return process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return undefined;
  }
}

function older(have, need) {
  const a = have.split(".").map(Number);
  const b = need.split(".").map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] || 0) !== (b[i] || 0)) return (a[i] || 0) < (b[i] || 0);
  }
  return false;
}

const platform = `${process.platform}-${process.arch}`;
const fromSource = "build it from source: cargo install --locked --path . in a clone of grounded";
if (!SUPPORTED.includes(platform)) {
  fail(`no npm build for ${platform} (built for ${SUPPORTED.join(", ")}); ${fromSource}`);
}
if (process.platform === "linux" && glibc() === undefined) {
  fail(`no npm build for ${platform} with musl libc (the linux builds need glibc); ${fromSource}`);
}

const pkg = `grounded-js-${platform}`;
// How this launcher was installed, for the command that reinstalls it: a global install
// lives in the prefix's node_modules, whose parent holds no package.json (a project's,
// and npx's cache folder, do). Telling a global user `npm install grounded-js` installs
// a second copy into whatever folder they stand in and fixes nothing.
const launcherDir = path.resolve(__dirname, "..");
const globalInstall = !fs.existsSync(path.join(launcherDir, "..", "..", "package.json"));
const reinstallCmd = globalInstall ? "npm install -g grounded-js" : "npm install grounded-js";
let pkgJson;
try {
  pkgJson = require.resolve(`${pkg}/package.json`);
} catch {
  // npm skips an optional dependency whose download failed without failing the install,
  // so a network error looks exactly like --omit=optional here: say every cause, blame none.
  fail(
    `${pkg}, the package with this platform's binary, is not in node_modules ` +
      "(its download failed, which npm skips silently for an optional dependency; or optional dependencies " +
      "were left out with --omit=optional; or node_modules came from another platform): " +
      `reinstall with optional dependencies (${reinstallCmd})`,
  );
}
const meta = JSON.parse(fs.readFileSync(pkgJson, "utf8"));
const need = meta.grounded && meta.grounded.glibc;
if (need && glibc() && older(glibc(), need)) {
  fail(`this build of grounded needs glibc ${need} or newer and this system has ${glibc()}: ${fromSource}`);
}
const bin = path.join(path.dirname(pkgJson), "bin", process.platform === "win32" ? "grounded.exe" : "grounded");
const reinstall = `reinstall ${pkg} (${reinstallCmd})`;

let head;
try {
  const fd = fs.openSync(bin, "r");
  head = Buffer.alloc(4);
  fs.readSync(fd, head, 0, 4, 0);
  fs.closeSync(fd);
} catch (e) {
  fail(`${bin} cannot be read (${e.code || e.message}): ${reinstall}`);
}
// A truncated or damaged download otherwise runs as a shell script (execvp's fallback
// on ENOEXEC) and prints screens of nonsense; its first bytes say what it is.
const magic = head.readUInt32BE(0);
const runnable =
  magic === 0x7f454c46 || // ELF
  [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic) || // Mach-O
  head.toString("latin1", 0, 2) === "MZ"; // PE
if (!runnable) {
  fail(`${bin} is not a program (damaged or incomplete download): ${reinstall}`);
}
if (process.platform !== "win32" && (fs.statSync(bin).mode & 0o111) === 0) {
  // A tarball unpacked by a tool that drops modes leaves the binary unrunnable.
  try {
    fs.chmodSync(bin, 0o755);
  } catch (e) {
    fail(`${bin} is not executable and cannot be made so (${e.code || e.message}): chmod +x ${bin}, or ${reinstall}`);
  }
}

const child = spawn(bin, process.argv.slice(2), { stdio: "inherit", windowsHide: false });

// Signals sent to this launcher go on to grounded. SIGINT is the exception when a
// terminal is attached: Ctrl-C reaches every process of the terminal's foreground group,
// grounded included, and a second copy from here would be a second Ctrl-C, which makes
// `grounded agent` quit outright instead of cancelling its turn.
// isatty, not process.stdin.isTTY: touching process.stdin opens fd 0 as a stream, which
// makes a pipe non-blocking for grounded too, and its first read then fails (`grounded
// serve` behind the launcher exited 1 at once on an idle pipe).
const tty = [0, 1, 2].some((fd) => require("tty").isatty(fd));
const forwarded = ["SIGTERM", "SIGHUP", "SIGQUIT", "SIGINT", "SIGUSR1", "SIGUSR2"].filter(
  (s) => process.platform !== "win32" || s === "SIGINT",
);
const handlers = {};
for (const sig of forwarded) {
  handlers[sig] = () => {
    if (sig === "SIGINT" && tty) return;
    try {
      child.kill(sig);
    } catch {}
  };
  process.on(sig, handlers[sig]);
}

child.on("error", (e) => {
  const why =
    e.code === "EACCES"
      ? `permission denied: chmod +x ${bin}, or ${reinstall}`
      : e.code === "ENOEXEC"
        ? `not a program for this machine: ${reinstall}`
        : `${e.code || e.message}: ${reinstall}`;
  fail(`${bin} cannot start (${why})`);
});

child.on("exit", (code, signal) => {
  if (signal) {
    // Die of the same signal, so the caller sees what grounded saw (a shell: 128 + n).
    for (const sig of forwarded) process.removeListener(sig, handlers[sig]);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code === null ? 1 : code);
});

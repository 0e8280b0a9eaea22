// Which `grounded` binary the extension starts, and whether it can start.
//
// The order is the interfaces spec's (*Installing*): `grounded.serverPath` if set, else
// the binary bundled in a platform VSIX (`server/grounded`), else `grounded` on PATH.
// Each is tried alone: a binary that is there but cannot run is said, with its path and
// the reason, and nothing else is started in its place; a silent fallback would run a
// different grounded (an old one on PATH) than the one the user chose or installed.

import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";

/** The VSIX targets a release builds, with their Rust triples (dist/release.sh). */
export const TARGETS: Record<string, string> = {
  "linux-x64": "x86_64-unknown-linux-gnu",
  "linux-arm64": "aarch64-unknown-linux-gnu",
  "darwin-x64": "x86_64-apple-darwin",
  "darwin-arm64": "aarch64-apple-darwin",
  "win32-x64": "x86_64-pc-windows-msvc",
};

export type Source = "setting" | "bundled" | "path";

export interface Found {
  path: string;
  source: Source;
}

const exe = process.platform === "win32" ? ".exe" : "";

/** The binary a platform VSIX carries, whether or not it is there. */
export function bundledPath(extensionPath: string): string {
  return path.join(extensionPath, "server", `grounded${exe}`);
}

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A name looked up on PATH as the OS would. */
export function onPath(name: string): string | undefined {
  const exts = process.platform === "win32" ? [".exe", ".cmd", ""] : [""];
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    for (const ext of exts) {
      const p = path.join(dir, name + ext);
      if (dir && isFile(p)) {
        return p;
      }
    }
  }
  return undefined;
}

/**
 * The binary to start, in the spec's order; `setting` is `grounded.serverPath` ("" when
 * unset). A set path that names nothing is still returned (as the setting's), so that its
 * failure is said rather than replaced by the bundled binary.
 */
export function findServer(setting: string, extensionPath: string, folder: string | undefined): Found | undefined {
  if (setting) {
    if (setting.includes("/") || setting.includes("\\")) {
      const p = path.isAbsolute(setting) || !folder ? setting : path.join(folder, setting);
      return { path: p, source: "setting" };
    }
    return { path: onPath(setting) ?? setting, source: "setting" };
  }
  const bundled = bundledPath(extensionPath);
  if (fs.existsSync(bundled)) {
    return { path: bundled, source: "bundled" };
  }
  const p = onPath("grounded");
  return p ? { path: p, source: "path" } : undefined;
}

/** The first bytes of a program this OS can run (ELF, Mach-O, PE, a `#!` script). */
function looksRunnable(p: string): boolean {
  if (process.platform === "win32" && /\.(cmd|bat)$/i.test(p)) {
    return true;
  }
  const head = Buffer.alloc(4);
  let n = 0;
  const fd = fs.openSync(p, "r");
  try {
    n = fs.readSync(fd, head, 0, 4, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (n < 2) {
    return false;
  }
  const magic = head.readUInt32BE(0);
  return (
    (n === 4 && (magic === 0x7f454c46 || [0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe, 0xcafebabe].includes(magic))) ||
    head.toString("latin1", 0, 2) === "MZ" ||
    head.toString("latin1", 0, 2) === "#!"
  );
}

export type Probe = { version: string; fixed?: string } | { reason: string };

/**
 * Runs `BINARY --version`: the version it reports, or why it cannot start, in words the
 * user acts on. The bundled binary's lost run bit is restored (a VSIX is a zip, and an
 * unzip that drops the mode leaves it unrunnable); anyone else's binary is not touched.
 */
export async function probe(found: Found): Promise<Probe> {
  const p = found.path;
  if (!isFile(p)) {
    return { reason: fs.existsSync(p) ? "it is not a file" : "no such file" };
  }
  let fixed: string | undefined;
  try {
    if (!looksRunnable(p)) {
      return { reason: "it is not a program this machine runs (a damaged or partial download?)" };
    }
    if (process.platform !== "win32" && (fs.statSync(p).mode & 0o111) === 0) {
      if (found.source !== "bundled") {
        return { reason: `it is not executable (chmod +x ${p})` };
      }
      fs.chmodSync(p, 0o755);
      fixed = "its run bit was missing (lost when the VSIX was unpacked) and was restored";
    }
  } catch (e) {
    return { reason: e instanceof Error ? e.message : String(e) };
  }
  return await new Promise<Probe>((resolve) => {
    execFile(p, ["--version"], { timeout: 15000, windowsHide: true }, (err, stdout, stderr) => {
      if (err) {
        const code = (err as NodeJS.ErrnoException).code;
        const first = String(stderr).split("\n").find((l) => l.trim()) ?? "";
        const why =
          code === "EACCES"
            ? `permission denied (chmod +x ${p})`
            : code === "ENOEXEC"
              ? "it is not a program this machine runs (a damaged download, or built for another platform)"
              : typeof code === "string"
                ? `${code}: ${err.message}`
                : err.killed
                  ? "`--version` did not answer within 15 s"
                  : `\`--version\` exited with ${code ?? err.signal}${first ? `: ${first.trim()}` : ""}`;
        resolve({ reason: why });
        return;
      }
      const m = /^grounded (\S+)/.exec(String(stdout).trim());
      resolve(m ? { version: m[1], fixed } : { reason: `\`--version\` printed ${JSON.stringify(String(stdout).trim().slice(0, 80))}: not grounded` });
    });
  });
}

/**
 * What to install where no binary was found: the platform VSIX carries the server, so a
 * supported platform is told that first; pip or npm when either is on PATH; from source
 * where no release exists.
 */
export function installAdvice(): string {
  const target = `${process.platform}-${process.arch}`;
  const tools: string[] = [];
  if (onPath("pipx")) tools.push("`pipx install grounded-js`");
  if (onPath("uv")) tools.push("`uv tool install grounded-js`");
  if (!onPath("pipx") && !onPath("uv") && (onPath("pip") || onPath("pip3"))) tools.push("`pip install grounded-js`");
  if (onPath("npm")) tools.push("`npm install -g grounded-js`");
  if (!(target in TARGETS)) {
    return `No release of grounded is built for ${target} (built for ${Object.keys(TARGETS).join(", ")}): build it from source (\`cargo install --locked --path .\` in its repository) and set grounded.serverPath to it.`;
  }
  const other = tools.length ? tools.join(" or ") : "`pipx install grounded-js` or `npm install -g grounded-js`";
  return `Install the grounded extension for ${target} (its VSIX carries the server), or ${other}, or set grounded.serverPath.`;
}

#!/usr/bin/env python3
"""An independent LSP client: edit -> diagnostics latency as an editor sees it.

Written against the protocol alone (Python 3, standard library only), sharing no code
with grounded or its tests, so that what it measures is what any outside client would:
it starts `grounded serve` on a project of the demo corpus, opens a 10,000-line script
with the server's defaults (no initialization options), then sends typo edits
(`didChange`, incremental) that alternately add and remove a finding, from the first
edit after open on. Each edit is timed from sending it to the first
`publishDiagnostics` that REFLECTS it: of that version, and holding the typo's finding
(after a typo) or no finding at all on the typo's line (after the fix). A publish of the
version that does not reflect the edit would count as stale; the client reports how many
it saw.

Run (release build first):

    cargo build --release
    python3 benches/lsp_client.py --server target/release/grounded

Options: --lines N (10000), --edits N (120), --pause-ms LIST (pauses after each edit's
diagnostics, cycled; default 0,300,0,600,0,1700,0: a typist's, past the index refresh's
quiet time and the dry run's), --options JSON (initializationOptions; default: none,
the defaults), --verbose (each edit's time), --server-log FILE.
Prints p50/p95/max over all edits and over the first 30 edits after open.
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def script(lines):
    """Blocks of ten lines of the demo engine's API; line 3 of each block (from 0) is
    `layout.tableRow();`, the line the typos land on."""
    out = []
    for i in range(lines // 10):
        out.append(
            f"var t{i} = new Table();\n"
            f"t{i}.columns = 2;\n"
            f"layout.tableStart(t{i}, {{ cellPadding: 3 }});\n"
            f"layout.tableRow();\n"
            f'layout.tableCell("a{i}");\n'
            f'layout.tableCell("b{i}");\n'
            f"layout.tableEnd();\n"
            f"function f{i}(a) {{\n"
            f"    return a + {i};\n"
            f"}}\n"
        )
    return "".join(out)


class Server:
    """The server over stdio: framed JSON-RPC, every message stamped on arrival."""

    def __init__(self, argv, cwd, log=None):
        self.proc = subprocess.Popen(
            argv,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log or subprocess.DEVNULL,
        )
        self.inbox = queue.Queue()
        self.next_id = 1
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        f = self.proc.stdout
        while True:
            length = None
            while True:
                line = f.readline()
                if not line:
                    self.inbox.put((time.perf_counter(), None))
                    return
                line = line.strip()
                if not line:
                    break
                k, _, v = line.partition(b":")
                if k.lower() == b"content-length":
                    length = int(v)
            body = f.read(length)
            self.inbox.put((time.perf_counter(), json.loads(body)))

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params):
        i = self.next_id
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": i, "method": method, "params": params})
        return self.wait(lambda m: m.get("id") == i and "method" not in m)[1]

    def wait(self, pred, timeout=60.0):
        """The first message satisfying `pred`, with its arrival time; the server's
        requests to the client are answered on the way (an editor answers them)."""
        deadline = time.perf_counter() + timeout
        while True:
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError("no matching message from the server")
            t, m = self.inbox.get(timeout=left)
            if m is None:
                raise EOFError("the server closed its output")
            if "method" in m and "id" in m:
                result = None
                if m["method"] == "workspace/configuration":
                    result = [None for _ in m["params"].get("items", [])]
                self.send({"jsonrpc": "2.0", "id": m["id"], "result": result})
                continue
            if pred(m):
                return t, m


def percentiles(ms):
    s = sorted(ms)
    at = lambda q: s[int((len(s) - 1) * q)]
    return at(0.5), at(0.95), s[-1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(ROOT, "target/release/grounded"))
    ap.add_argument("--lines", type=int, default=10_000)
    ap.add_argument("--edits", type=int, default=120)
    ap.add_argument(
        "--pause-ms",
        default="0,300,0,600,0,1700,0",
        help="pauses after each edit's diagnostics, cycled (ms): a typist's, past the "
        "index refresh's quiet time (250 ms) and the dry run's (1.5 s)",
    )
    ap.add_argument("--options", default=None)
    ap.add_argument("--verbose", action="store_true", help="each edit's time to stderr")
    ap.add_argument("--server-log", default=None, help="the server's stderr to this file")
    args = ap.parse_args()
    pauses = [float(p) for p in args.pause_ms.split(",")]

    with tempfile.TemporaryDirectory() as d:
        d = os.path.realpath(d)
        with open(os.path.join(d, "grounded.toml"), "w") as f:
            f.write('docs = %s\n' % json.dumps(os.path.join(ROOT, "corpus/demo")))
        text = script(args.lines)
        path = os.path.join(d, "big.js")
        with open(path, "w") as f:
            f.write(text)
        uri = "file://" + path
        log = open(args.server_log, "w") if args.server_log else None
        srv = Server([os.path.abspath(args.server), "serve"], d, log)
        init = {
            "processId": os.getpid(),
            "rootUri": "file://" + d,
            "workspaceFolders": [{"uri": "file://" + d, "name": "bench"}],
            "capabilities": {
                "workspace": {"configuration": True},
                "textDocument": {"publishDiagnostics": {"versionSupport": True}},
            },
        }
        if args.options:
            init["initializationOptions"] = json.loads(args.options)
        srv.request("initialize", init)
        srv.notify("initialized", {})
        t0 = time.perf_counter()
        srv.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "javascript", "version": 1, "text": text}},
        )
        is_diag = lambda m: (
            m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
        )
        t, m = srv.wait(lambda m: is_diag(m) and m["params"].get("version") in (1, None))
        open_ms = (t - t0) * 1e3
        if m["params"]["diagnostics"]:
            sys.exit("the generated script is not clean: %s" % m["params"]["diagnostics"][:3])

        blocks = args.lines // 10
        times = []
        stale = 0
        version = 1
        for n in range(args.edits):
            # A typo on `layout.tableRow();` of a block walking through the file, then
            # its fix: `tableRow` -> `tableRw` adds an unknown-member finding, and
            # putting the `o` back removes it.
            line = (n // 2 * 37 % blocks) * 10 + 3
            typo = n % 2 == 0
            version += 1
            change = {
                "range": {
                    "start": {"line": line, "character": 13},
                    "end": {"line": line, "character": 14 if typo else 13},
                },
                "text": "" if typo else "o",
            }

            def reflects(m, v=version, line=line, typo=typo):
                nonlocal stale
                if not is_diag(m) or m["params"].get("version") not in (v, None):
                    return False
                on_line = [x for x in m["params"]["diagnostics"] if x["range"]["start"]["line"] == line]
                ok = bool(on_line) if typo else not on_line
                if not ok and m["params"].get("version") == v:
                    stale += 1
                return ok

            t0 = time.perf_counter()
            srv.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            )
            t, _ = srv.wait(reflects)
            times.append((t - t0) * 1e3)
            if args.verbose:
                print(f"edit {n} v{version} {'typo' if typo else 'fix '} line {line}: {times[-1]:.2f} ms", file=sys.stderr)
            time.sleep(pauses[n % len(pauses)] / 1e3)

        srv.request("shutdown", None)
        srv.notify("exit", None)
        srv.proc.wait(timeout=10)

    p50, p95, mx = percentiles(times)
    f50, f95, fmx = percentiles(times[:30])
    load = os.getloadavg()
    print(
        f"independent client: edit->diagnostics reflecting the edit, {args.lines}-line script, "
        f"options {args.options or 'none (defaults)'}, {len(times)} typo edits, "
        f"pauses {args.pause_ms} ms: "
        f"p50 {p50:.2f} ms, p95 {p95:.2f} ms, max {mx:.2f} ms; "
        f"first 30 after open: p50 {f50:.2f} ms, p95 {f95:.2f} ms, max {fmx:.2f} ms; "
        f"open->diagnostics {open_ms:.1f} ms; stale publishes {stale}; "
        f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""An independent LSP client: edit -> diagnostics latency as an editor sees it.

Written against the protocol alone (Python 3, standard library only), sharing no code
with grounded or its tests, so that what it measures is what any outside client would:
it starts `grounded serve` on a project of the demo corpus, opens a generated script
with the server's defaults (no initialization options), then sends edits (`didChange`,
incremental) that alternately add and remove a finding, from the first edit after open
on. Each edit is timed from sending it to the first `publishDiagnostics` that REFLECTS
it: of that version, and holding a finding on the edited line (after the mistake) or no
finding there at all (after its fix). A publish of the version that does not reflect
the edit counts as stale; the client reports how many it saw.

Two scripts (`--shape`):

- `functions` (the default): written as real scripts are, functions that open and close
  tables and blocks, loops, helpers and calls between them, top-level calls at the end;
  among them one function of 2,000 lines, ten of 100 and the rest of about ten.
- `flat`: top-level statements only (ten-line blocks), the script of the first version
  of this client.

Kinds of edit (`--kinds`, reported each on its own):

- `start-typo`, `end-typo`: `Q` typed at the end of `layout.tableStart` / `tableEnd`
  inside a function, then deleted;
- `call-10`, `call-100`, `call-2000`: the same on a `layout.text` call in the middle of a
  function body of about 10, 100 and 2,000 lines;
- `option-key`: `Q` typed at the end of the option key `cellPadding`, then deleted;
- `delete-line`: a function's `var t = new Table();` line deleted (its uses then name
  a variable declared nowhere) and restored;
- `paste-20`: 20 lines pasted into a function body (one of them a call of a member the
  docs lack), then deleted;
- `own-call-typo`: `Q` typed at the end of a call of the script's own function
  (`table3(...)` in `note3`), then deleted;
- `decl-typo`: `Q` typed at the end of `Table` in a function's `var t = new Table();`
  (what the line declares changes), then deleted;
- `decl-2000` (only when named in `--kinds`): the same on `var b = new Block();` of the
  2,000-line function, which is then parsed and analysed alone (issue 48; see the
  README); `--kinds decl-2000,call-2000` types in turn there and in the loop below.
(`flat` has `row-typo` only: `tableRow` -> `tableRw` on a top-level statement.)

Run (release build first):

    cargo build --release
    python3 benches/lsp_client.py --server target/release/grounded

Options: --shape functions|flat, --lines N (10000), --edits N (per kind, 40),
--kinds LIST, --pause-ms LIST (pauses after each edit's diagnostics, cycled; default
0,300,0,600,0,1700,0: a typist's, past the index refresh's quiet time and the dry
run's; 0 for back to back), --options JSON (initializationOptions; default: none, the
defaults), --verbose (each edit's time), --server-log FILE.
Prints p50/p95/max per kind, and over all edits.
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


def flat_script(lines):
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


def body(name, n):
    """A function of about `n` lines: a block opened and closed around `layout.text`
    calls in a loop."""
    out = [
        f"function {name}(lines) {{\n",
        "    var b = new Block();\n",
        "    layout.blockStart(b, { padding: 4 });\n",
        "    for (var i = 0; i < lines.length; i++) {\n",
    ]
    for k in range(max(1, n - 7)):
        out.append(f'        layout.text(lines[i] + "{k}", {{ fontSize: 9 }});\n')
    out += ["    }\n", "    layout.blockEnd();\n", "}\n"]
    return out


def unit(i):
    """Twenty lines: a table function (a 10-line body), a note function using it."""
    return [
        f"function table{i}(rows) {{\n",
        "    var t = new Table();\n",
        "    t.columns = 2;\n",
        "    layout.tableStart(t, { cellPadding: 3 });\n",
        "    for (var i = 0; i < rows.length; i++) {\n",
        "        layout.tableRow();\n",
        '        layout.text(rows[i], { fontSize: 9 });\n',
        "    }\n",
        "    layout.tableEnd();\n",
        "}\n",
        f"function note{i}(title) {{\n",
        "    var b = new Block();\n",
        "    layout.blockStart(b, { padding: 6 });\n",
        '    layout.paragraph(title, { bold: true });\n',
        f"    table{i}([title, \"{i}\"]);\n",
        "    layout.blockEnd();\n",
        "}\n",
        f"note{i}(\"Section {i}\");\n",
        "\n",
        "\n",
    ]


def functions_script(lines):
    """The script written as functions: one 2,000-line function, ten of 100, then
    twenty-line units (a table function and a note function calling it) up to `lines`.
    Returns the text and where each kind of edit lands: {kind: [(line, column)]}, the
    column where `Q` is typed (or, for the line kinds, the line)."""
    out = []
    spots = {k: [] for k in ("start-typo", "end-typo", "call-10", "call-100", "call-2000",
                             "option-key", "delete-line", "paste-20", "own-call-typo", "decl-typo", "decl-2000")}

    def add(ls):
        out.extend(ls)

    big = body("big", min(2000, max(20, lines // 5)))
    spots["decl-2000"].append((len(out) + 1, big[1].index("Block") + len("Block")))
    spots["call-2000"].append((len(out) + len(big) // 2, big[len(big) // 2].index("layout.text") + 11))
    add(big)
    for j in range(10):
        b = body(f"medium{j}", 100)
        spots["call-100"].append((len(out) + len(b) // 2, b[len(b) // 2].index("layout.text") + 11))
        add(b)
    i = 0
    while len(out) + 20 <= lines:
        u = unit(i)
        base = len(out)
        spots["start-typo"].append((base + 3, u[3].index("tableStart") + len("tableStart")))
        spots["end-typo"].append((base + 8, u[8].index("tableEnd") + len("tableEnd")))
        spots["call-10"].append((base + 6, u[6].index("layout.text") + 11))
        spots["option-key"].append((base + 3, u[3].index("cellPadding") + len("cellPadding")))
        spots["delete-line"].append((base + 1, 0))
        spots["paste-20"].append((base + 6, 0))
        spots["own-call-typo"].append((base + 14, u[14].index(f"table{i}") + len(f"table{i}")))
        spots["decl-typo"].append((base + 1, u[1].index("Table") + len("Table")))
        add(u)
        i += 1
    for k in spots:
        if k != "call-2000" and len(spots[k]) > 1:
            # Spread the edits through the file: every 37th spot, cycled.
            n = len(spots[k])
            spots[k] = [spots[k][(j * 37) % n] for j in range(n)]
    return "".join(out), spots


PASTE = "".join(
    f'        layout.text("pasted {k}", {{ fontSize: 9 }});\n' if k != 10 else "        layout.textQ(\"pasted\");\n"
    for k in range(20)
)


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


def change(line, col, end_line, end_col, text):
    return {
        "range": {
            "start": {"line": line, "character": col},
            "end": {"line": end_line, "character": end_col},
        },
        "text": text,
    }


def edit_pairs(kind, spot):
    """The two changes of one kind at one spot, and the line whose findings show each:
    [(change, line, expect a finding there)]."""
    line, col = spot
    if kind == "delete-line":
        return [
            (change(line, 0, line + 1, 0, ""), line, True),
            (change(line, 0, line, 0, "    var t = new Table();\n"), line, False),
        ]
    if kind == "paste-20":
        return [
            (change(line, 0, line, 0, PASTE), line + 10, True),
            (change(line, 0, line + 20, 0, ""), line + 10, False),
        ]
    if kind == "row-typo":
        return [(change(line, 13, line, 14, ""), line, True), (change(line, 13, line, 13, "o"), line, False)]
    return [(change(line, col, line, col, "Q"), line, True), (change(line, col, line, col + 1, ""), line, False)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", default=os.path.join(ROOT, "target/release/grounded"))
    ap.add_argument("--shape", default="functions", choices=["functions", "flat"])
    ap.add_argument("--lines", type=int, default=10_000)
    ap.add_argument("--edits", type=int, default=40, help="edits per kind (a mistake and its fix are two)")
    ap.add_argument("--kinds", default=None, help="comma-separated kinds (default: all of the shape)")
    ap.add_argument(
        "--pause-ms",
        default="0,300,0,600,0,1700,0",
        help="pauses after each edit's diagnostics, cycled (ms): a typist's, past the "
        "index refresh's quiet time (250 ms) and the dry run's (1.5 s); 0: back to back",
    )
    ap.add_argument("--options", default=None)
    ap.add_argument("--verbose", action="store_true", help="each edit's time to stderr")
    ap.add_argument("--server-log", default=None, help="the server's stderr to this file")
    args = ap.parse_args()
    pauses = [float(p) for p in args.pause_ms.split(",")]

    if args.shape == "flat":
        text = flat_script(args.lines)
        blocks = args.lines // 10
        spots = {"row-typo": [((n * 37 % blocks) * 10 + 3, 13) for n in range(blocks)]}
    else:
        text, spots = functions_script(args.lines)
    # `decl-2000` re-checks the 2,000-line function at each edit: only when asked for.
    kinds = args.kinds.split(",") if args.kinds else [k for k in spots if k != "decl-2000"]
    for k in kinds:
        if k not in spots:
            sys.exit(f"unknown kind {k} for shape {args.shape}: {', '.join(spots)}")

    with tempfile.TemporaryDirectory() as d:
        d = os.path.realpath(d)
        with open(os.path.join(d, "grounded.toml"), "w") as f:
            f.write('docs = %s\n' % json.dumps(os.path.join(ROOT, "corpus/demo")))
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

        times = {k: [] for k in kinds}
        stale = 0
        version = 1
        n = 0
        # Round robin over the kinds, a mistake and its fix at a time: every kind has
        # edits early after open and late.
        for r in range((args.edits + 1) // 2):
            for kind in kinds:
                spot = spots[kind][r % len(spots[kind])]
                for ch, line, expect in edit_pairs(kind, spot):
                    version += 1

                    def reflects(m, v=version, line=line, expect=expect):
                        nonlocal stale
                        if not is_diag(m) or m["params"].get("version") not in (v, None):
                            return False
                        on_line = [x for x in m["params"]["diagnostics"] if x["range"]["start"]["line"] == line]
                        ok = bool(on_line) if expect else not on_line
                        if not ok and m["params"].get("version") == v:
                            stale += 1
                        return ok

                    t0 = time.perf_counter()
                    srv.notify(
                        "textDocument/didChange",
                        {"textDocument": {"uri": uri, "version": version}, "contentChanges": [ch]},
                    )
                    t, _ = srv.wait(reflects)
                    times[kind].append((t - t0) * 1e3)
                    if args.verbose:
                        print(f"{kind} v{version} line {line}: {times[kind][-1]:.2f} ms", file=sys.stderr)
                    time.sleep(pauses[n % len(pauses)] / 1e3)
                    n += 1

        srv.request("shutdown", None)
        srv.notify("exit", None)
        srv.proc.wait(timeout=10)

    load = os.getloadavg()
    print(
        f"independent client: edit->diagnostics reflecting the edit, {args.shape} script of "
        f"{args.lines} lines, options {args.options or 'none (defaults)'}, pauses "
        f"{args.pause_ms} ms, open->diagnostics {open_ms:.1f} ms, stale publishes {stale}, "
        f"load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )
    print(f"| kind | edits | p50 ms | p95 ms | max ms |")
    print(f"|---|---|---|---|---|")
    every = []
    for k in kinds:
        p50, p95, mx = percentiles(times[k])
        every += times[k]
        print(f"| {k} | {len(times[k])} | {p50:.2f} | {p95:.2f} | {mx:.2f} |")
    p50, p95, mx = percentiles(every)
    print(f"| all | {len(every)} | {p50:.2f} | {p95:.2f} | {mx:.2f} |")


if __name__ == "__main__":
    main()

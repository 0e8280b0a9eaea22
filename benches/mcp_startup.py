#!/usr/bin/env python3
"""Start-up of `grounded mcp` as a client sees it: from spawning the process to the
answer to `initialize` read on its stdout (target: ≤ 100 ms), a new process each run.

    python3 benches/mcp_startup.py --server target/release/grounded [--runs 30] [--root DIR]

Prints min, median, p95 and max in milliseconds. The project is `--root` (default: the
repository's examples/demo); the corpus cache is whatever the user's is (a first run
without one is slower, and is the warm-up here).
"""

import argparse
import json
import os
import statistics
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def one(server, root):
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "startup-bench", "version": "1"},
        },
    }
    t0 = time.perf_counter()
    p = subprocess.Popen(
        [server, "mcp", "--root", root],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    p.stdin.write((json.dumps(init) + "\n").encode())
    p.stdin.flush()
    line = p.stdout.readline()
    elapsed = time.perf_counter() - t0
    answer = json.loads(line)
    assert answer["result"]["serverInfo"]["name"] == "grounded", answer
    p.stdin.close()
    p.wait(timeout=20)
    return elapsed * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--server", required=True)
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--root", default=os.path.join(REPO, "examples", "demo"))
    a = ap.parse_args()
    one(a.server, a.root)  # warm-up: the corpus cache, the page cache
    times = sorted(one(a.server, a.root) for _ in range(a.runs))
    p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
    print(
        f"mcp start-up to initialize answered, {a.runs} runs: min {times[0]:.1f} ms, "
        f"median {statistics.median(times):.1f} ms, p95 {p95:.1f} ms, max {times[-1]:.1f} ms"
    )


main()

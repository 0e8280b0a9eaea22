//! The language server's memory over time, measured on the real binary over stdio.
//!
//! - RSS (VmRSS) after 1,000 open/close cycles of a 10,000-line file (each open waits
//!   for its diagnostics, so each cycle is a full analysis): memory that stays put.
//! - RSS of an idle server whose workspace holds a 20 MB script that is never opened
//!   (the project index must skip it, not parse it).
//!
//! Criterion times one open/close cycle; the figures are printed on stderr.
//!
//! Run: `cargo bench --bench memory` (`GROUNDED_MEMORY_CYCLES` changes the 1,000).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;

fn script(lines: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.matches('\n').count() + 10 <= lines {
        s.push_str(&format!(
            "var t{i} = new Table();\nt{i}.columns = 2;\nlayout.tableStart(t{i}, {{ cellPadding: 3 }});\nlayout.tableRow();\nlayout.tableCell(\"a{i}\");\nlayout.tableCell(\"b{i}\");\nlayout.tableEnd();\nfunction f{i}(a) {{\n    return a + {i};\n}}\n"
        ));
        i += 1;
    }
    s
}

fn status_kb(pid: u32, key: &str) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn mb(kb: Option<u64>) -> String {
    kb.map_or("?".into(), |k| format!("{:.1} MB", k as f64 / 1024.0))
}

struct Cycles {
    lsp: Lsp,
    uri: String,
    text: String,
    version: i32,
    _dir: tempfile::TempDir,
}

impl Cycles {
    fn start() -> Cycles {
        let text = script(10_000);
        let dir = project(&demo_corpus(), &[("small.js", b"print(1);\n")]);
        let mut lsp = Lsp::start(&[], &[("GROUNDED_LOG", "warn")]);
        lsp.initialize(
            dir.path(),
            json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
        );
        let uri = uri(&dir.path().join("big.js"));
        Cycles {
            lsp,
            uri,
            text,
            version: 0,
            _dir: dir,
        }
    }

    /// Opens the file, waits for its diagnostics, closes it.
    fn cycle(&mut self) -> Duration {
        self.version += 1;
        let t0 = Instant::now();
        self.lsp.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": self.uri, "languageId": "javascript", "version": self.version, "text": self.text}}),
        );
        self.lsp
            .diagnostics_where(&self.uri, Some(self.version), |_| true);
        self.lsp.notify(
            "textDocument/didClose",
            json!({"textDocument": {"uri": self.uri}}),
        );
        let dt = t0.elapsed();
        self.lsp.published.clear();
        self.lsp.inbox.clear();
        dt
    }
}

fn report_figures() {
    let cycles: usize = std::env::var("GROUNDED_MEMORY_CYCLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000);
    let mut c = Cycles::start();
    c.cycle();
    let after_one = status_kb(c.lsp.pid, "VmRSS:");
    let t0 = Instant::now();
    for _ in 1..cycles {
        c.cycle();
    }
    // Let a close's clean-up land before reading.
    std::thread::sleep(Duration::from_millis(500));
    eprintln!(
        "server RSS after {cycles} open/close cycles of a 10,000-line file: {} (after 1 cycle: {}; peak {}; {:.1} s)",
        mb(status_kb(c.lsp.pid, "VmRSS:")),
        mb(after_one),
        mb(status_kb(c.lsp.pid, "VmHWM:")),
        t0.elapsed().as_secs_f64()
    );
    c.lsp.shutdown();

    // A 20 MB script in the workspace, never opened; a small file opened so the
    // index scan runs (it is what reads the workspace).
    let line = "var generated = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]; layout.tableRow();\n";
    let big = line.repeat(20 * 1000 * 1000 / line.len() + 1);
    let dir = project(
        &demo_corpus(),
        &[("gen/huge.js", big.as_bytes()), ("main.js", b"print(1);\n")],
    );
    let mut lsp = Lsp::start(&[], &[("GROUNDED_LOG", "warn")]);
    lsp.initialize(
        dir.path(),
        json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
    );
    let u = uri(&dir.path().join("main.js"));
    lsp.open(&u, "print(1);\n");
    lsp.diagnostics_where(&u, Some(1), |_| true);
    // The index is built after an idle moment; give it time, then edit once more so a
    // check that needs it has run.
    std::thread::sleep(Duration::from_secs(3));
    lsp.change(&u, 2, [0, 0, 0, 0], " ");
    lsp.diagnostics_where(&u, Some(2), |_| true);
    eprintln!(
        "idle server RSS with a 20 MB script in the workspace, never opened: {} (peak {})",
        mb(status_kb(lsp.pid, "VmRSS:")),
        mb(status_kb(lsp.pid, "VmHWM:"))
    );
    lsp.shutdown();
}

fn bench(c: &mut Criterion) {
    report_figures();
    let mut s = Cycles::start();
    let mut g = c.benchmark_group("memory");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("open_close_10k_lines", |b| {
        b.iter_custom(|n| (0..n).map(|_| s.cycle()).sum())
    });
    g.finish();
    s.lsp.shutdown();
}

criterion_group!(benches, bench);
criterion_main!(benches);

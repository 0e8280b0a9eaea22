//! The language server's edit latency and memory, measured on the real binary over stdio.
//!
//! A 10,000-line script is open; each iteration sends a typo edit that adds or removes a
//! finding and waits for the `publishDiagnostics` of that version that reflects it, as a
//! client sees it. Besides criterion's figures it prints p50/p95 over the edits from the
//! first after open on, with debounce 0 and with the default settings (the adaptive
//! debounce, the dry run), with a typist's pauses between edits, the same on a 7.8 MB
//! script (the statement-level fast path on a file near the size limit), and the server's
//! peak resident memory (VmHWM) with the demo corpus, once with the demo's `main.js` open
//! and once after the edits. `benches/lsp_client.py` measures the same from outside,
//! sharing no code with the server or these tests.
//!
//! Run: `cargo bench --bench lsp`

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::*;
use criterion::{criterion_group, criterion_main, Criterion};
use serde_json::json;

fn script(lines: usize) -> String {
    script_until(lines, usize::MAX)
}

/// The generated script: blocks of 10 lines while under `lines` lines and `bytes` bytes.
fn script_until(lines: usize, bytes: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    let mut n = 0;
    while n + 10 <= lines && s.len() < bytes {
        n += 10;
        s.push_str(&format!(
            "var t{i} = new Table();\nt{i}.columns = 2;\nlayout.tableStart(t{i}, {{ cellPadding: 3 }});\nlayout.tableRow();\nlayout.tableCell(\"a{i}\");\nlayout.tableCell(\"b{i}\");\nlayout.tableEnd();\nfunction f{i}(a) {{\n    return a + {i};\n}}\n"
        ));
        i += 1;
    }
    s
}

fn vm_hwm_kb(pid: u32) -> Option<u64> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

struct Session {
    lsp: Lsp,
    uri: String,
    version: i32,
    lines: usize,
    /// Whether [`Session::request_during_check`]'s string edit is in.
    inserted: bool,
    _dir: tempfile::TempDir,
}

impl Session {
    fn start(lines: usize) -> Session {
        Session::start_with(
            script(lines),
            json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
        )
    }

    /// A server with `options` as its initialization options, `text` open.
    fn start_with(text: String, options: serde_json::Value) -> Session {
        let lines = text.matches('\n').count();
        let dir = project(&demo_corpus(), &[("big.js", text.as_bytes())]);
        let mut lsp = Lsp::start(&[], &[("GROUNDED_LOG", "warn")]);
        lsp.initialize(dir.path(), options);
        let uri = uri(&dir.path().join("big.js"));
        lsp.open(&uri, &text);
        lsp.diagnostics_where(&uri, Some(1), |_| true);
        lsp.published.clear();
        Session {
            lsp,
            uri,
            version: 1,
            lines,
            inserted: false,
            _dir: dir,
        }
    }

    /// One typo edit, timed to the diagnostics that reflect it, as a client sees them:
    /// `layout.tableRow();` of a block walking through the script loses its `o`
    /// (a finding appears on that line), and the next edit puts it back (the finding
    /// goes). Only a publish of this version that shows that counts.
    ///
    /// Why: this bench once timed any publish of the version after a string edit that
    /// changed no finding, while an outside client waiting for its typo's finding to
    /// come and go saw 13 times as long (a dry-run finding of the typo outlived its fix).
    fn edit(&mut self) -> Duration {
        self.version += 1;
        let v = self.version;
        let n = (v - 2) as usize;
        let blocks = (self.lines / 10).max(1);
        let line = ((n / 2 * 37) % blocks * 10 + 3) as u32;
        let typo = n.is_multiple_of(2);
        let t0 = Instant::now();
        if typo {
            self.lsp.change(&self.uri, v, [line, 13, line, 14], "");
        } else {
            self.lsp.change(&self.uri, v, [line, 13, line, 13], "o");
        }
        self.lsp.diagnostics_where(&self.uri, Some(v), |d| {
            let on_line = d.iter().any(|x| x["range"]["start"]["line"] == json!(line));
            on_line == typo
        });
        let dt = t0.elapsed();
        self.lsp.published.clear();
        dt
    }

    /// One edit in the middle of the script, then at once a request at `pos` (its answer
    /// timed, while the edit is being checked), then the edit's diagnostics awaited.
    fn request_during_check(&mut self, method: &str, pos: (u32, u32)) -> Duration {
        self.version += 1;
        let v = self.version;
        let line = (self.lines / 20 * 10 + 4) as u32;
        if self.inserted {
            self.lsp.change(&self.uri, v, [line, 18, line, 19], "");
        } else {
            self.lsp.change(&self.uri, v, [line, 18, line, 18], "x");
        }
        self.inserted = !self.inserted;
        let t0 = Instant::now();
        let r = self.lsp.request_full(
            method,
            json!({"textDocument": {"uri": self.uri}, "position": {"line": pos.0, "character": pos.1}}),
        );
        let dt = t0.elapsed();
        assert!(
            r.get("error").is_none() && !r["result"].is_null(),
            "{method} answered nothing: {r}"
        );
        self.lsp.diagnostics_where(&self.uri, Some(v), |_| true);
        self.lsp.published.clear();
        dt
    }
}

/// A function of about `n` lines: a block opened and closed around `layout.text` calls in
/// a loop.
fn body(name: &str, n: usize) -> Vec<String> {
    let mut out = vec![
        format!("function {name}(lines) {{\n"),
        "    var b = new Block();\n".into(),
        "    layout.blockStart(b, { padding: 4 });\n".into(),
        "    for (var i = 0; i < lines.length; i++) {\n".into(),
    ];
    for k in 0..n.saturating_sub(7).max(1) {
        out.push(format!(
            "        layout.text(lines[i] + \"{k}\", {{ fontSize: 9 }});\n"
        ));
    }
    out.extend([
        "    }\n".into(),
        "    layout.blockEnd();\n".into(),
        "}\n".into(),
    ]);
    out
}

/// The kinds of edit of the script written as functions (the same as
/// `benches/lsp_client.py`'s).
const KINDS: [&str; 10] = [
    "start-typo",
    "end-typo",
    "call-10",
    "call-100",
    "call-2000",
    "option-key",
    "delete-line",
    "paste-20",
    "own-call-typo",
    "decl-typo",
];

/// The script written as functions (as `benches/lsp_client.py` writes it): one function of
/// 2,000 lines (a fifth of the script, at most), ten of 100, then twenty-line units of a
/// table function and a note function calling it; and where each kind of edit lands:
/// (line, column) by kind, spread through the file.
fn functions_script(lines: usize) -> (String, Vec<Vec<(u32, u32)>>) {
    let mut out: Vec<String> = Vec::new();
    let mut spots: Vec<Vec<(u32, u32)>> = vec![Vec::new(); KINDS.len()];
    let col = |l: &str, w: &str| (l.find(w).unwrap() + w.len()) as u32;
    let big = body("big", (lines / 5).clamp(20, 2000));
    spots[4].push((
        (big.len() / 2) as u32,
        col(&big[big.len() / 2], "layout.text"),
    ));
    out.extend(big);
    for j in 0..10 {
        let b = body(&format!("medium{j}"), 100);
        let at = out.len() + b.len() / 2;
        spots[3].push((at as u32, col(&b[b.len() / 2], "layout.text")));
        out.extend(b);
    }
    let mut i = 0;
    while out.len() + 20 <= lines {
        let u: Vec<String> = [
            format!("function table{i}(rows) {{\n"),
            "    var t = new Table();\n".into(),
            "    t.columns = 2;\n".into(),
            "    layout.tableStart(t, { cellPadding: 3 });\n".into(),
            "    for (var i = 0; i < rows.length; i++) {\n".into(),
            "        layout.tableRow();\n".into(),
            "        layout.text(rows[i], { fontSize: 9 });\n".into(),
            "    }\n".into(),
            "    layout.tableEnd();\n".into(),
            "}\n".into(),
            format!("function note{i}(title) {{\n"),
            "    var b = new Block();\n".into(),
            "    layout.blockStart(b, { padding: 6 });\n".into(),
            "    layout.paragraph(title, { bold: true });\n".into(),
            format!("    table{i}([title, \"{i}\"]);\n"),
            "    layout.blockEnd();\n".into(),
            "}\n".into(),
            format!("note{i}(\"Section {i}\");\n"),
            "\n".into(),
            "\n".into(),
        ]
        .into();
        let base = out.len() as u32;
        spots[0].push((base + 3, col(&u[3], "tableStart")));
        spots[1].push((base + 8, col(&u[8], "tableEnd")));
        spots[2].push((base + 6, col(&u[6], "layout.text")));
        spots[5].push((base + 3, col(&u[3], "cellPadding")));
        spots[6].push((base + 1, 0));
        spots[7].push((base + 6, 0));
        spots[8].push((base + 14, col(&u[14], &format!("table{i}"))));
        spots[9].push((base + 1, col(&u[1], "Table")));
        out.extend(u);
        i += 1;
    }
    for s in &mut spots {
        let n = s.len();
        if n > 1 {
            *s = (0..n).map(|j| s[(j * 37) % n]).collect();
        }
    }
    (out.concat(), spots)
}

/// Twenty lines pasted into a function body; the eleventh calls a member the docs lack.
fn pasted() -> String {
    (0..20)
        .map(|k| {
            if k == 10 {
                "        layout.textQ(\"pasted\");\n".to_string()
            } else {
                format!("        layout.text(\"pasted {k}\", {{ fontSize: 9 }});\n")
            }
        })
        .collect()
}

/// Edit → the diagnostics that reflect it, per kind of edit, on the script written as
/// functions, with the server's defaults (dry run on): a mistake (a finding appears on
/// its line) and its fix (the line is clean again), kinds in turn from the first edit
/// after open, with `pauses` after each edit's diagnostics.
fn report_kinds(lines: usize, pairs: usize, pauses: &[u64], what: &str) {
    let (text, spots) = functions_script(lines);
    let mut s = Session::start_with(text, json!({}));
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); KINDS.len()];
    let mut n = 0;
    let paste = pasted();
    for r in 0..pairs {
        for (k, kind) in KINDS.iter().enumerate() {
            let (line, col) = spots[k][r % spots[k].len()];
            let steps: [([u32; 4], String, u32, bool); 2] = match *kind {
                "delete-line" => [
                    ([line, 0, line + 1, 0], String::new(), line, true),
                    (
                        [line, 0, line, 0],
                        "    var t = new Table();\n".into(),
                        line,
                        false,
                    ),
                ],
                "paste-20" => [
                    ([line, 0, line, 0], paste.clone(), line + 10, true),
                    ([line, 0, line + 20, 0], String::new(), line + 10, false),
                ],
                _ => [
                    ([line, col, line, col], "Q".into(), line, true),
                    ([line, col, line, col + 1], String::new(), line, false),
                ],
            };
            for (range, new, at, finding) in steps {
                s.version += 1;
                let v = s.version;
                let t0 = Instant::now();
                s.lsp.change(&s.uri, v, range, &new);
                s.lsp.diagnostics_where(&s.uri, Some(v), |d| {
                    d.iter().any(|x| x["range"]["start"]["line"] == json!(at)) == finding
                });
                times[k].push(t0.elapsed());
                s.lsp.published.clear();
                std::thread::sleep(Duration::from_millis(pauses[n % pauses.len()]));
                n += 1;
            }
        }
    }
    for (k, kind) in KINDS.iter().enumerate() {
        let (p50, p95, max) = percentiles(times[k].clone());
        eprintln!(
            "lsp edit→diagnostics by kind, {lines}-line script written as functions, {what}: {kind} ({} edits): p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms",
            times[k].len()
        );
    }
    s.lsp.shutdown();
}

/// p50, p95 and max of `times`, in milliseconds.
fn percentiles(mut times: Vec<Duration>) -> (f64, f64, f64) {
    times.sort();
    let p = |q: f64| times[((times.len() as f64 - 1.0) * q) as usize].as_secs_f64() * 1e3;
    (p(0.5), p(0.95), times.last().unwrap().as_secs_f64() * 1e3)
}

/// Hover and completion on the 7.8 MB script, each sent right after an edit, so that
/// it arrives while that edit is being checked: requests are answered from the last
/// snapshot, never after the check.
fn report_requests_on_large_file() {
    let text = script_until(usize::MAX, 7_800_000);
    let bytes = text.len();
    let mut s = Session::start_with(text, json!({"dryRun": {"enabled": false}}));
    // Of each block of ten lines, line 2 (from 0) is `layout.tableStart(...)` and
    // line 8 is `    return a + N;`.
    let block = (s.lines / 10 / 3) as u32 * 10;
    let cases = [
        (
            "textDocument/hover",
            (block + 8, 11),
            "hover on a parameter",
        ),
        (
            "textDocument/hover",
            (block + 2, 10),
            "hover on a documented member",
        ),
        (
            "textDocument/hover",
            (block + 2, 18),
            "hover on a variable declared two statements up",
        ),
        (
            "textDocument/completion",
            (block + 8, 12),
            "completion in a function body",
        ),
    ];
    for (method, pos, what) in cases {
        for _ in 0..3 {
            s.request_during_check(method, pos);
        }
        let times: Vec<Duration> = (0..40)
            .map(|_| s.request_during_check(method, pos))
            .collect();
        let (p50, p95, max) = percentiles(times);
        eprintln!(
            "lsp {what} on a 7.8 MB script ({bytes} bytes), sent right after an edit (40 requests): p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms"
        );
    }
    s.lsp.shutdown();
}

fn report_figures() {
    // Memory with the demo corpus and the demo's main.js open.
    let demo = format!("{}/examples/demo", env!("CARGO_MANIFEST_DIR"));
    let mut lsp = Lsp::start(&[], &[("GROUNDED_LOG", "warn")]);
    lsp.initialize(
        std::path::Path::new(&demo),
        json!({"debounceMs": 0, "dryRun": {"enabled": false}}),
    );
    let main = std::path::Path::new(&demo).join("main.js");
    let u = uri(&main);
    lsp.open(&u, &std::fs::read_to_string(&main).unwrap());
    lsp.diagnostics_where(&u, Some(1), |_| true);
    let demo_hwm = vm_hwm_kb(lsp.pid);
    lsp.shutdown();

    // The defaults are the defaults, dry run included: a client measures them so.
    let defaults = || json!({});
    let zero = || json!({"debounceMs": 0, "dryRun": {"enabled": false}});
    // Pauses after each edit's diagnostics, as a typist makes them: none, past the
    // index refresh's quiet time (250 ms), past the dry run's (1.5 s). Seven, so the
    // long pause falls after a typo and after a fix in turn: a dry run that saw the typo
    // must not outlive its fix.
    let typist = [0, 300, 0, 600, 0, 1700, 0];
    let runs: [(&str, String, serde_json::Value, usize, &[u64]); 5] = [
        (
            "1,000-line script, debounce 0",
            script(1_000),
            zero(),
            200,
            &[0],
        ),
        (
            "10,000-line script, debounce 0",
            script(10_000),
            zero(),
            200,
            &[0],
        ),
        (
            "10,000-line script, default settings",
            script(10_000),
            defaults(),
            200,
            &[0],
        ),
        (
            "10,000-line script, default settings, typist's pauses (0/300/0/600/0/1700/0 ms)",
            script(10_000),
            defaults(),
            60,
            &typist,
        ),
        (
            "7.8 MB script, default settings",
            script_until(usize::MAX, 7_800_000),
            defaults(),
            100,
            &[0],
        ),
    ];
    for (what, text, options, n, pauses) in runs {
        let bytes = text.len();
        let mut s = Session::start_with(text, options);
        // From the first edit after open on: those are edits a client sees too.
        let times: Vec<Duration> = (0..n)
            .map(|i| {
                let dt = s.edit();
                std::thread::sleep(Duration::from_millis(pauses[i % pauses.len()]));
                dt
            })
            .collect();
        let (p50, p95, max) = percentiles(times.clone());
        let (f50, f95, _) = percentiles(times[..30.min(n)].to_vec());
        eprintln!(
            "lsp typo edit→diagnostics reflecting it on a {what} ({} lines, {bytes} bytes, {n} edits): p50 {p50:.2} ms, p95 {p95:.2} ms, max {max:.2} ms; first 30 after open p50 {f50:.2} ms, p95 {f95:.2} ms; server VmHWM {} kB",
            s.lines,
            vm_hwm_kb(s.lsp.pid).map_or("?".into(), |k| k.to_string())
        );
        s.lsp.shutdown();
    }
    eprintln!(
        "server peak memory (VmHWM) with the demo corpus, demo main.js open: {} kB",
        demo_hwm.map_or("?".into(), |k| k.to_string())
    );
}

fn bench(c: &mut Criterion) {
    // Per kind of edit on a script written as functions (issue 30): what users type.
    // `GROUNDED_BENCH_KINDS_ONLY=1` runs only these.
    let typist = [0, 300, 0, 600, 0, 1700, 0];
    report_kinds(10_000, 10, &[0], "back to back");
    report_kinds(
        10_000,
        10,
        &typist,
        "typist's pauses (0/300/0/600/0/1700/0 ms)",
    );
    report_kinds(100_000, 5, &[0], "back to back");
    if std::env::var_os("GROUNDED_BENCH_KINDS_ONLY").is_some() {
        return;
    }
    report_figures();
    report_requests_on_large_file();
    let mut s = Session::start(10_000);
    let mut g = c.benchmark_group("lsp");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("edit_to_diagnostics_10k_lines", |b| {
        b.iter_custom(|n| (0..n).map(|_| s.edit()).sum())
    });
    g.finish();
    s.lsp.shutdown();
}

criterion_group!(benches, bench);
criterion_main!(benches);

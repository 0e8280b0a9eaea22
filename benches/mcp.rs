//! The MCP server's tools in a warm session (issue 45): `check_code` of a 300-line
//! buffer (target p50 ≤ 5 ms), `lookup_docs` and `get_doc` (p50 ≤ 5 ms) on the demo
//! corpus and on a generated corpus of 20,000 member chunks. The lookups are measured
//! live: the session's cache of identical calls is cleared before each.
//!
//! Besides criterion's estimates, each tool's p50 and p95 over 400 calls are printed on
//! stderr (`mcp p50 ...`): the target is a median.
//! Run: `cargo bench --bench mcp`. Start-up to `initialize` answered is a whole process,
//! measured by `python3 benches/mcp_startup.py --server target/release/grounded`.

use std::fmt::Write;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use grounded::mcp::{call_tool, Options, Session};
use serde_json::{json, Map, Value};

/// A realistic buffer an agent is about to write: the demo project's table and helper
/// functions, renamed per copy so that they declare new names, with one invented member
/// and one invented option (what a check before a write finds), `lines` lines long.
fn buffer(lines: usize) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo/lib");
    let tables = std::fs::read_to_string(root.join("tables.js")).unwrap();
    let helpers = std::fs::read_to_string(root.join("helpers.js")).unwrap();
    let mut out = String::new();
    let mut copy = 0;
    while out.lines().count() < lines {
        copy += 1;
        for src in [&tables, &helpers] {
            let renamed = src
                .replace("function ", &format!("function v{copy}_"))
                .replace("loadJS(", "// loadJS(");
            out.push_str(&renamed);
            out.push('\n');
        }
        if copy == 1 {
            out.push_str("layout.tableCellEnd();\nvar box = new Block();\nlayout.blockStart(box, { borderColour: \"red\" });\nlayout.blockEnd();\n");
        }
    }
    out.lines().take(lines).collect::<Vec<_>>().join("\n") + "\n"
}

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap()
}

/// A project in a temp folder: `grounded.toml` naming `docs`, and the demo's scripts.
fn project(docs: &Path) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    std::fs::create_dir_all(dir.path().join("lib")).unwrap();
    for f in ["main.js", "lib/helpers.js", "lib/tables.js"] {
        std::fs::copy(demo.join(f), dir.path().join(f)).unwrap();
    }
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {:?}\n", docs),
    )
    .unwrap();
    dir
}

fn session(dir: &Path) -> Session {
    Session::load(
        dir,
        Options {
            docs: None,
            start: dir.to_path_buf(),
            exe: PathBuf::from(env!("CARGO_BIN_EXE_grounded")),
            finding_json: grounded::cli::mcp::finding_json,
        },
    )
    .expect("the project loads")
}

/// A corpus of `interfaces` × `members` member chunks, one Markdown file per interface.
fn generate(dir: &Path, interfaces: usize, members: usize) {
    const WORDS: &[&str] = &[
        "table", "block", "page", "frame", "style", "color", "border", "width", "text", "font",
    ];
    for i in 0..interfaces {
        let mut s = format!("# Iface{i}\nThe {} interface.\n", WORDS[i % WORDS.len()]);
        if i == 0 {
            s.push_str("This object is accessed using the global property \"root\".\n");
        }
        for m in 0..members {
            let name = format!(
                "{}{}{m}",
                WORDS[(i + m) % 10],
                WORDS[(i * 3 + m * 7) % 10].to_uppercase()
            );
            writeln!(
                s,
                "\n## Iface{i}-{name}\nSyntax: {name}(value: number): void\nSets the {} of the {}.",
                WORDS[m % 10],
                WORDS[i % 10]
            )
            .unwrap();
        }
        std::fs::write(dir.join(format!("iface{i}.md")), s).unwrap();
    }
}

/// p50 and p95 of `n` calls of `f`, printed on stderr.
/// One lookup asked as a new question: the session's cache of identical calls emptied
/// first, so the figure is the corpus's work, not a repeat served from memory.
fn live(s: &Session, tool: &str, key: &str, value: &str) {
    s.cache.clear();
    let mut a = Map::new();
    a.insert(key.to_string(), Value::from(value));
    black_box(call_tool(s, &[], tool, &a));
}

fn percentiles(what: &str, n: usize, mut f: impl FnMut(usize)) {
    let mut times: Vec<Duration> = (0..n)
        .map(|i| {
            let t = Instant::now();
            f(i);
            t.elapsed()
        })
        .collect();
    times.sort();
    eprintln!(
        "mcp p50 {what}: {:.3} ms (p95 {:.3} ms, {n} calls)",
        times[n / 2].as_secs_f64() * 1e3,
        times[n * 95 / 100].as_secs_f64() * 1e3
    );
}

fn benches(c: &mut Criterion) {
    let demo = project(&Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/demo"));
    let s = session(demo.path());
    let text = buffer(300);
    let check = args(json!({"code": text, "path": "lib/report.js"}));
    let first = call_tool(&s, &[], "check_code", &check).unwrap();
    assert!(!first.error, "{}", first.text);
    // The invented member and the invented option key, whatever else the copies find.
    assert!(
        first.text.contains("tableCellEnd") && first.text.contains("borderColour"),
        "{}",
        first.text
    );

    let names = [
        "Layout",
        "Layout.tableStart",
        "layout.paragraph",
        "Table",
        "loadJS",
        "Layout.noSuchThing",
    ];
    let queries = [
        "tableStart",
        "paragraph",
        "page footer",
        "font size",
        "xml stream",
        "tabelStrat",
    ];
    percentiles("check_code 300 lines (demo)", 400, |_| {
        black_box(call_tool(&s, &[], "check_code", &check));
    });
    percentiles("lookup_docs live (demo)", 400, |i| {
        live(&s, "lookup_docs", "query", queries[i % 6]);
    });
    percentiles("get_doc live (demo)", 400, |i| {
        live(&s, "get_doc", "name", names[i % 6]);
    });

    let mut g = c.benchmark_group("mcp");
    g.sample_size(30).measurement_time(Duration::from_secs(3));
    g.bench_function("check_code 300 lines (warm session)", |b| {
        b.iter(|| call_tool(&s, &[], "check_code", &check))
    });
    let mut i = 0;
    g.bench_function("lookup_docs live (demo corpus)", |b| {
        b.iter(|| {
            i += 1;
            live(&s, "lookup_docs", "query", queries[i % 6]);
        })
    });
    g.bench_function("get_doc live (demo corpus)", |b| {
        b.iter(|| {
            i += 1;
            live(&s, "get_doc", "name", names[i % 6]);
        })
    });
    g.bench_function("lookup_docs served from the cache", |b| {
        b.iter(|| {
            call_tool(
                &s,
                &[],
                "lookup_docs",
                &args(json!({"query": "tableStart"})),
            )
        })
    });

    // A corpus of 20,000 member chunks (400 interfaces of 50).
    let docs = tempfile::tempdir().unwrap();
    generate(docs.path(), 400, 50);
    let big_project = project(docs.path());
    let big = session(big_project.path());
    let big_names = [
        "Iface7",
        "Iface12.tableBLOCK4",
        "Iface399",
        "Iface3.noSuch",
        "root",
        "Iface200.textTEXT0",
    ];
    let big_queries = [
        "tableBLOCK4",
        "border",
        "frame width",
        "colr",
        "fontFONT9",
        "Iface250",
    ];
    // The first lookup builds the full-text index: not part of a warm session's calls.
    call_tool(&big, &[], "lookup_docs", &args(json!({"query": "warm"})));
    percentiles("lookup_docs live (20,000 chunks)", 200, |i| {
        live(&big, "lookup_docs", "query", big_queries[i % 6]);
    });
    percentiles("get_doc live (20,000 chunks)", 200, |i| {
        live(&big, "get_doc", "name", big_names[i % 6]);
    });
    g.bench_function("lookup_docs live (20,000 chunks)", |b| {
        b.iter(|| {
            i += 1;
            live(&big, "lookup_docs", "query", big_queries[i % 6]);
        })
    });
    g.bench_function("get_doc live (20,000 chunks)", |b| {
        b.iter(|| {
            i += 1;
            live(&big, "get_doc", "name", big_names[i % 6]);
        })
    });
    g.finish();
}

criterion_group!(mcp_benches, benches);
criterion_main!(mcp_benches);

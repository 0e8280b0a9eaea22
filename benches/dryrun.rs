//! Dry-run speed: the demo project, and a generated 10,000-line script. Each iteration
//! is a whole `run_project`: fake-engine generation from the corpus, engine start, the
//! run, and the findings.
//!
//! Targets (issue 5): demo project ≤ 50 ms; 10,000 lines ≤ 200 ms.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use grounded::docs::bundled;
use grounded::dryrun::{run_project, Options};

/// A 10,000-line script of the kind the demo project holds: helpers, loops, tables,
/// blocks, lists, property writes and a few invented members (so findings are made
/// and deduplicated too).
fn generated_script(lines: usize) -> String {
    let mut s: Vec<String> = Vec::new();
    let push = |s: &mut Vec<String>, l: &str| s.push(l.to_string());
    let mut i = 0;
    while s.len() < lines {
        push(&mut s, &format!("function section{i}(title, rows) {{"));
        push(&mut s, "    var heading = layout.heading(title, 2);");
        push(&mut s, "    heading.keepWithNext = true;");
        push(&mut s, "    var box = new Block();");
        push(&mut s, "    box.keepTogether = true;");
        push(
            &mut s,
            "    layout.blockStart(box, { padding: 4, borderWidth: 0.5 });",
        );
        push(
            &mut s,
            "    layout.paragraph(title + \" (\" + rows + \" rows)\", { bold: true });",
        );
        push(&mut s, "    layout.blockEnd();");
        push(&mut s, "    var t = new Table();");
        push(&mut s, "    t.columns = 2;");
        push(&mut s, "    t.caption = title;");
        push(&mut s, "    layout.tableStart(t, { cellPadding: 3 });");
        push(&mut s, "    for (var r = 0; r < rows; r++) {");
        push(&mut s, "        layout.tableRow();");
        push(&mut s, "        layout.tableCell(\"row \" + r);");
        push(
            &mut s,
            "        layout.tableCell((r * 1.5).toFixed(2), { align: \"right\" });",
        );
        push(&mut s, "    }");
        push(&mut s, "    layout.tableEnd();");
        if i % 50 == 0 {
            push(&mut s, "    t.cellSpacing = 2;");
        }
        if i % 100 == 0 {
            // A statement without a call: placed through the parse tree.
            push(&mut s, "    var spacing = t.rowGap;");
        }
        push(&mut s, "    return t;");
        push(&mut s, "}");
        push(
            &mut s,
            &format!("section{i}(\"Section {i}\", {});", 3 + i % 5),
        );
        i += 1;
    }
    s.join("\n") + "\n"
}

fn bench(c: &mut Criterion) {
    let corpus = bundled::demo().unwrap();
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo");
    let opts = Options::default();
    let overlay = HashMap::new();

    let mut g = c.benchmark_group("dryrun");
    g.sample_size(10).measurement_time(Duration::from_secs(3));
    g.bench_function("demo_project", |b| {
        b.iter(|| {
            let r = run_project(&corpus, &demo, &[PathBuf::from("main.js")], &overlay, &opts);
            assert!(r.findings.is_empty());
        })
    });

    let dir = tempfile::tempdir().unwrap();
    let script = generated_script(10_000);
    assert!(script.lines().count() >= 10_000);
    std::fs::write(dir.path().join("big.js"), &script).unwrap();
    g.bench_function("generated_10000_lines", |b| {
        b.iter(|| {
            let r = run_project(
                &corpus,
                dir.path(),
                &[PathBuf::from("big.js")],
                &overlay,
                &opts,
            );
            assert!(!r.findings.is_empty());
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

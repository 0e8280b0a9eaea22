//! The checker's speed beside tree-sitter's own parse of the same text, in the same run.
//!
//! Run: `cargo bench --bench check`. Targets (issue 3): the full check of a generated
//! 10,000-line ES3 script costs at most 1.5× the bare parse; a re-check after a one-line
//! edit (incremental reparse, analysis of what changed) ≤ 10 ms p50. Issue 48's single
//! 100,000-line script (≤ 0.5 s whole process): the same interleaved figure is printed
//! for a 100,000-line script of the same shape, whose bare parse is the floor.

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

use grounded::check::{self, ProjectIndex};
use grounded::docs::bundled;

/// An ES3 script of at least `lines` lines (whole sections) written against the demo API: helper functions, tables,
/// blocks, lists, option literals, loops, string work.
fn script(lines: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    // Counted as sections are added: counting the whole text each time made a
    // 100,000-line script take seconds to write.
    let mut count = 0;
    while count < lines {
        let at = s.len();
        s.push_str(&format!(
            r##"// Section {i}: a table of figures and a note.
function section{i}(rows, title) {{
    var table = new Table();
    table.columns = 3;
    table.caption = "Figures " + title;
    layout.heading(title + " {i}", 2);
    layout.tableStart(table, {{ cellPadding: 4, gridColor: "#bbbbbb", stripeColor: "#f4f4f4" }});
    layout.tableHeader(["Item", "Count", "Total"]);
    var sum = 0;
    for (var r = 0; r < rows.length; r++) {{
        layout.tableRow();
        layout.tableCell(String(rows[r].name));
        layout.tableCell(String(rows[r].count), {{ align: "right" }});
        layout.tableCell(rows[r].total.toFixed(2), {{ align: "decimal" }});
        sum = sum + rows[r].total;
    }}
    layout.tableEnd();
    var box = new Block();
    box.keepTogether = true;
    layout.blockStart(box, {{ backgroundColor: "#f4f6f8", borderWidth: 0.5, padding: 6 }});
    layout.paragraph("Sum: " + sum.toFixed(2), {{ bold: true }});
    var text = title.replace(/^\s+|\s+$/g, "");
    if (text.length > 0 && text.indexOf("x") < 0) {{
        layout.text(text.toUpperCase(), {{ italic: true }});
    }}
    layout.blockEnd();
    var list = new List();
    layout.listStart(list, {{ bullet: "-", indent: 12 }});
    layout.listItem("Rows: " + rows.length);
    layout.listEnd();
    return sum;
}}
section{i}([{{ name: "a", count: 1, total: 2.5 }}, {{ name: "b", count: 2, total: 4 }}], "Part");

"##
        ));
        count += s[at..].lines().count();
        i += 1;
    }
    // Whole sections only: a cut section would be a parse error.
    s
}

/// The full check against the bare parse, measured alternately in the same loop: on a
/// shared machine the speed of memory drifts over minutes, and two criterion groups
/// run one after the other can see different machines. Prints medians and the ratio.
fn interleaved_ratio(
    corpus: &grounded::docs::Corpus,
    project: &ProjectIndex,
    text: &str,
    rounds: usize,
) {
    let mut parse = Vec::new();
    let mut full = Vec::new();
    for _ in 0..rounds {
        let t = Instant::now();
        black_box(grounded::js::parse(text));
        parse.push(t.elapsed());
        let t = Instant::now();
        black_box(check::check_text(corpus, project, "bench.js", text));
        full.push(t.elapsed());
    }
    parse.sort();
    full.sort();
    let (p, f) = (parse[parse.len() / 2], full[full.len() / 2]);
    eprintln!(
        "{} lines, interleaved, {rounds} rounds: parse median {:.1} ms, full check median {:.1} ms, ratio {:.2}x",
        text.lines().count(),
        p.as_secs_f64() * 1e3,
        f.as_secs_f64() * 1e3,
        f.as_secs_f64() / p.as_secs_f64()
    );
}

fn benches(c: &mut Criterion) {
    let corpus = Arc::new(bundled::demo().expect("the bundled corpus loads"));
    let text = script(10_000);
    let project = Arc::new(ProjectIndex::default());
    assert!(
        check::check_text(&corpus, &project, "bench.js", &text).is_empty(),
        "the generated script is correct"
    );

    interleaved_ratio(&corpus, &project, &text, 30);
    // Issue 48's 100,000-line script: how much of its check the parse alone takes.
    let big = script(100_000);
    assert!(
        check::check_text(&corpus, &project, "bench.js", &big).is_empty(),
        "the generated script is correct"
    );
    interleaved_ratio(&corpus, &project, &big, 5);

    let mut g = c.benchmark_group("check_10k_lines");
    g.sample_size(10).measurement_time(Duration::from_secs(4));
    // The parse exactly as the check does it: a parser made for the file, as a program
    // that parses one file would. (A parser kept from an earlier parse was up to 60%
    // slower here under glibc's malloc, depending on what the last tree left in the
    // heap: that measures the heap, not tree-sitter.)
    g.bench_function("tree-sitter parse (baseline)", |b| {
        b.iter(|| grounded::js::parse(&text))
    });
    g.bench_function("full check (parse + analysis + families)", |b| {
        b.iter(|| check::check_text(&corpus, &project, "bench.js", &text))
    });
    // The checker's own share, on a tree parsed once: full check = parse + this.
    let tree = grounded::js::parse(&text);
    g.bench_function("check of a parsed tree (analysis + families)", |b| {
        b.iter(|| check::check_tree(&corpus, &project, "bench.js", &text, &tree))
    });

    // A one-line edit in the middle: `cellPadding: 4` → `cellPadding: 5`.
    let at = text.find("cellPadding: 4").expect("present") + text.len() / 2;
    let at = text[at..]
        .find("cellPadding: 4")
        .map(|i| at + i + "cellPadding: ".len());
    let at = at.expect("a second occurrence");
    let mut session = check::Session::new(corpus.clone(), project.clone(), "bench.js", &text);
    let mut flip = false;
    let mut edits = 0usize;
    g.bench_function("re-check after a one-line edit (incremental)", |b| {
        b.iter(|| {
            flip = !flip;
            edits += 1;
            let new = if flip { "5" } else { "4" };
            session.edit(at, at + 1, new).len()
        })
    });
    g.finish();
    decl_in_long_function(c, &corpus, &project);
    // (Only when that benchmark ran: a name filter may have left it out.)
    assert!(
        edits == 0 || session.incremental_edits() > 0,
        "the one-line edit is re-checked statement-only"
    );
}

/// A function of `n` lines (as `benches/lsp_client.py` writes its 2,000-line one): a
/// block opened and closed around `layout.text` calls in a loop.
fn long_function(n: usize) -> String {
    let mut s = String::from(
        "function big(lines) {\n    var b = new Block();\n    layout.blockStart(b, { padding: 4 });\n    for (var i = 0; i < lines.length; i++) {\n",
    );
    for k in 0..n.saturating_sub(7) {
        s.push_str(&format!(
            "        layout.text(lines[i] + \"{k}\", {{ fontSize: 9 }});\n"
        ));
    }
    s.push_str("    }\n    layout.blockEnd();\n}\nbig([\"a\"]);\n");
    s
}

/// `decl-2000` of `benches/lsp_client.py` without the server: `Q` typed at the end of
/// `Block` in the first line of a 2,000-line function (what the line declares changes),
/// then deleted, on a 10,000-line script.
fn decl_in_long_function(
    c: &mut Criterion,
    corpus: &Arc<grounded::docs::Corpus>,
    project: &Arc<ProjectIndex>,
) {
    let text = long_function(2000) + &script(8000);
    let at = text.find("new Block").expect("present") + "new Block".len();
    let mut session = check::Session::new(corpus.clone(), project.clone(), "bench.js", &text);
    assert!(
        session.findings().is_empty(),
        "the generated script is correct"
    );
    let mut g = c.benchmark_group("session_10k_lines");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    let mut typed = false;
    g.bench_function("declaration typo in a 2,000-line function", |b| {
        b.iter(|| {
            typed = !typed;
            let n = if typed {
                session.edit(at, at, "Q").len()
            } else {
                session.edit(at, at + 1, "").len()
            };
            assert_eq!(
                n > 0,
                typed,
                "`new BlockQ()` is reported, `new Block()` is not"
            );
            n
        })
    });
    g.finish();
}

criterion_group!(check_benches, benches);
criterion_main!(check_benches);

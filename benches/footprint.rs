//! Footprint speed: the construct footprints of a 10,000-line script (budget 2 ms),
//! and `find` over a generated project of 2,000 files (budget 100 ms).
//!
//! Run: `cargo bench --bench footprint`

use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use grounded::docs::bundled;
use grounded::footprint::{self, FindOptions};

/// One 25-line unit of a realistic script: a function with a block and a table.
fn unit(i: usize) -> String {
    format!(
        "// Section {i}: a note and a table.
function section{i}(rows) {{
    var note = new Block();
    note.name = \"note{i}\";
    layout.blockStart(note, {{ padding: 4 }});
    layout.paragraph(\"Section {i}\");
    layout.blockEnd();
    var t = new Table();
    t.columns = 2;
    t.caption = \"Table {i}\";
    layout.tableStart(t, {{
        cellPadding: 3
    }});
    layout.tableHeader([\"Item\", \"Price\"]);
    for (var r = 0; r < rows.length; r++) {{
        layout.tableRow();
        layout.tableCell(rows[r].name);
        layout.tableCell(String(rows[r].price));
    }}
    layout.tableEnd();
    return rows.length;
}}
var count{i} = section{i}([]);
print(\"section {i}: \" + count{i});

"
    )
}

fn script(lines: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.lines().count() < lines {
        s.push_str(&unit(i));
        i += 1;
    }
    s
}

fn bench(c: &mut Criterion) {
    let corpus = bundled::demo().unwrap();
    let text = script(10_000);
    let tree = grounded::js::parse(&text);
    let n = footprint::instances(&corpus, &text, &tree).len();
    assert!(n > 700, "{n} instances");
    let mid = text.len() / 2;

    let mut g = c.benchmark_group("footprint");
    g.sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    g.bench_function("bare_walk_10k_lines", |b| {
        b.iter(|| {
            let mut c = tree.walk();
            let mut n = 0usize;
            loop {
                n += 1;
                if c.goto_first_child() {
                    continue;
                }
                loop {
                    if c.goto_next_sibling() {
                        break;
                    }
                    if !c.goto_parent() {
                        return n;
                    }
                }
            }
        })
    });
    g.bench_function("instances_10k_lines", |b| {
        b.iter(|| footprint::instances(&corpus, &text, &tree))
    });
    g.bench_function("instance_at_10k_lines", |b| {
        b.iter(|| footprint::instance_at(&corpus, &text, &tree, mid))
    });
    g.bench_function("check_construct_10k_lines", |b| {
        b.iter(|| grounded::check::construct::check(&corpus, "big.js", &text, &tree))
    });

    // A project of 2,000 files: 40 folders of 50 scripts, a few of which mention the
    // pattern.
    let dir = tempfile::tempdir().unwrap();
    for d in 0..40 {
        let sub = dir.path().join(format!("part{d}"));
        std::fs::create_dir_all(&sub).unwrap();
        for f in 0..50 {
            let k = d * 50 + f;
            let mut body = unit(k);
            if k % 100 == 0 {
                body.push_str("layout.exportPDF(\"out.pdf\");\n");
            }
            std::fs::write(sub.join(format!("script{f}.js")), body).unwrap();
        }
    }
    let opts = FindOptions::default();
    let r = footprint::find_in_files(&corpus, dir.path(), "exportPDF", &opts).unwrap();
    assert_eq!(r.files_searched, 2000);
    assert_eq!(r.files.len(), 20);
    g.bench_function("find_2000_files", |b| {
        b.iter(|| footprint::find_in_files(&corpus, dir.path(), "exportPDF", &opts).unwrap())
    });
    g.bench_function("find_2000_files_with_footprints", |b| {
        b.iter(|| footprint::find_in_files(&corpus, dir.path(), "tableStart", &opts).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

//! The corpus layer at scale: a generated corpus of 20,000 member chunks.
//!
//! Targets (issue 2): cold load including the full-text index ≤ 1 s; `lookup_docs` p50
//! ≤ 1 ms; `resolve_topic` p50 ≤ 1 ms. Run: `cargo bench --bench corpus`.

use std::fmt::Write;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use grounded::docs::{Corpus, Library};

const WORDS: &[&str] = &[
    "table", "block", "page", "frame", "style", "color", "border", "width", "height", "margin",
    "text", "font", "image", "list", "item", "cell", "row", "column", "footer", "header", "number",
    "field", "data", "stream", "xml", "node", "element", "document", "layout", "grid",
];

/// Writes a corpus of `interfaces` × `members` member chunks (plus interface chunks,
/// a global, constructs and guides) to `dir`, one Markdown file per interface.
fn generate(dir: &std::path::Path, interfaces: usize, members: usize) {
    for i in 0..interfaces {
        let iface = format!("Iface{i}");
        let mut s = String::new();
        writeln!(
            s,
            "# {iface}\nThe {} {} interface.",
            WORDS[i % 30],
            WORDS[(i * 7) % 30]
        )
        .unwrap();
        if i == 0 {
            writeln!(
                s,
                "This object is accessed using the global property \"root\"."
            )
            .unwrap();
        } else {
            writeln!(
                s,
                "Parent interface: Iface{}\nConstructor: new {iface}()",
                i / 2
            )
            .unwrap();
        }
        for m in 0..members {
            let a = WORDS[(i + m) % 30];
            let b = WORDS[(i * 3 + m * 7) % 30];
            let name = if i == 0 && m < 20 {
                if m % 2 == 0 {
                    format!("part{m}Start")
                } else {
                    format!("part{}End", m - 1)
                }
            } else {
                format!("{a}{}{m}", b[..1].to_uppercase() + &b[1..])
            };
            let sig = if i == 0 && m < 20 && m % 2 == 0 {
                format!("{name}(obj: Iface{}, opts?: Iface{}): void", m + 1, m + 2)
            } else if m % 3 == 0 {
                format!("{name}: number")
            } else {
                format!(
                    "{name}(value: string, other?: Iface{}): Iface{}",
                    (m * 13) % interfaces,
                    (m * 17) % interfaces
                )
            };
            writeln!(
                s,
                "\n## {iface}-{name}\nSyntax: {sig}\nSets the {a} {b} of the {} in points. Use it to adjust the {a} when the {b} changes.",
                WORDS[(m * 11) % 30]
            )
            .unwrap();
        }
        std::fs::write(dir.join(format!("{iface}.md")), s).unwrap();
    }
    let mut g = String::new();
    for k in 0..40 {
        writeln!(
            g,
            "# How to put the {} in a {} with {}\nCall `root.part0Start(x)` to open it and `root.part0End()` to close it. The {} goes inside.\n",
            WORDS[k % 30], WORDS[(k * 7 + 3) % 30], WORDS[(k * 11 + 5) % 30], WORDS[(k * 13 + 1) % 30]
        )
        .unwrap();
    }
    std::fs::write(dir.join("guides.md"), g).unwrap();
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 400, 50);
    let corpus = Library::from(Corpus::load(dir.path()).unwrap());
    assert!(corpus.counts().1 >= 20_000, "{:?}", corpus.counts());

    let mut g = c.benchmark_group("corpus-20k");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("cold load + full-text index", |b| {
        b.iter(|| {
            let c = Library::from(Corpus::load(dir.path()).unwrap());
            black_box(c.search_index());
            c
        })
    });
    g.bench_function("cold load + full-text index + phrasebook", |b| {
        b.iter(|| {
            let c = Library::from(Corpus::load(dir.path()).unwrap());
            black_box(c.search_index());
            black_box(c.phrasebook().len());
            c
        })
    });
    g.finish();

    corpus.search_index();
    corpus.phrasebook();
    let mut g = c.benchmark_group("queries-20k");
    g.sample_size(50).measurement_time(Duration::from_secs(3));
    let terms = [
        "borderWidth7",
        "table",
        "Iface12-colorText4",
        "footer",
        "part0Start",
    ];
    let mut i = 0;
    g.bench_function("lookup_docs", |b| {
        b.iter(|| {
            i += 1;
            black_box(corpus.lookup(terms[i % terms.len()], 10))
        })
    });
    let goals = [
        "put the xml in a table",
        "footer with page numbers",
        "border color of a cell",
        "grid of images",
    ];
    g.bench_function("resolve_topic", |b| {
        b.iter(|| {
            i += 1;
            black_box(corpus.resolve_topic(goals[i % goals.len()], 5))
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

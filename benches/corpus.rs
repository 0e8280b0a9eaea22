//! The corpus layer at scale: a generated corpus of 20,000 member chunks.
//!
//! Targets (issue 2): cold load including the full-text index ≤ 1 s; `lookup_docs` p50
//! ≤ 1 ms; `resolve_topic` p50 ≤ 1 ms. Start-up (issue 16): `grounded check` of one
//! small project against the 20,000-chunk corpus, the whole process, ≤ 50 ms on the
//! second run (the corpus cache warm); the first run (no cache) is reported beside it.
//! Run: `cargo bench --bench corpus`.

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

/// `grounded check` of a one-script project whose `grounded.toml` names the generated
/// corpus, as a user runs it: a new process each time.
fn startup(c: &mut Criterion, corpus: &std::path::Path) {
    let project = tempfile::tempdir().unwrap();
    std::fs::write(
        project.path().join("grounded.toml"),
        format!("docs = {:?}\n", corpus.to_string_lossy()),
    )
    .unwrap();
    std::fs::write(
        project.path().join("main.js"),
        "var t = new Iface3();\nroot.part0Start(new Iface1());\nroot.part0End();\nroot.noSuchMember(1);\n",
    )
    .unwrap();
    let cache = tempfile::tempdir().unwrap();
    let check = |cache_dir: &std::path::Path| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_grounded"))
            .args(["check", "--format", "json", "main.js"])
            .current_dir(project.path())
            .env("GROUNDED_CACHE_DIR", cache_dir)
            .output()
            .unwrap();
        // One finding (noSuchMember): the run really checked against the big corpus.
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    };
    let none = std::path::Path::new("");
    let mut g = c.benchmark_group("startup-20k");
    g.sample_size(10).measurement_time(Duration::from_secs(8));
    g.bench_function("grounded check, first run (no cache)", |b| {
        b.iter(|| check(none))
    });
    check(cache.path());
    g.bench_function("grounded check, second run (cache warm)", |b| {
        b.iter(|| check(cache.path()))
    });
    g.finish();

    let mut g = c.benchmark_group("load-20k");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.bench_function("Corpus::load (derive)", |b| {
        b.iter(|| Corpus::load(corpus).unwrap())
    });
    g.bench_function("Corpus::load_cached_in (hit)", |b| {
        b.iter(|| Corpus::load_cached_in(corpus, Some(cache.path())).unwrap())
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    generate(dir.path(), 400, 50);
    let corpus = Library::from(Corpus::load(dir.path()).unwrap());
    assert!(corpus.counts().1 >= 20_000, "{:?}", corpus.counts());
    startup(c, dir.path());

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

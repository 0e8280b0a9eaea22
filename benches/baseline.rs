//! Baseline speed: a baseline of 10,000 entries matched against 10,000 findings (9,000
//! of them recorded, 1,000 new) across 200 files, keys taken from the files' texts as
//! `check --baseline` takes them (budget 10 ms); and the same with the file's JSON read
//! first; and `check --prune-baseline`'s own work on it (read, match, drop the 1,000
//! stale entries, write the JSON: budget 20 ms).
//!
//! Run: `cargo bench --bench baseline`

use std::collections::HashSet;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use grounded::check::baseline::{key_of, Baseline};
use grounded::check::{Code, Finding, Span};

/// 200 files of 50 findings each, one finding a line: `layout.memberN();`.
fn files() -> Vec<(String, String, Vec<Finding>)> {
    (0..200)
        .map(|f| {
            let path = format!("scripts/part{f}/file{f}.js");
            let mut text = String::new();
            let mut spans = Vec::new();
            for i in 0..50 {
                let start = text.len() + "    layout.".len();
                let name = format!("member{}", f * 50 + i);
                text.push_str(&format!("    layout.{name}(\"row {i}\");\n"));
                spans.push(Span::new(start, start + name.len()));
            }
            let findings = spans
                .into_iter()
                .map(|s| Finding::new(&path, &text, s, Code::Member, "no such member"))
                .collect();
            (path, text, findings)
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let files = files();
    let keys = files
        .iter()
        .flat_map(|(p, t, fs)| fs.iter().map(move |f| key_of(f, p, Some(t))));
    // Every tenth finding is new since the baseline: it records the other 9,000 and
    // 1,000 entries that match nothing (stale).
    let recorded: Vec<_> = keys
        .enumerate()
        .map(|(i, mut k)| {
            if i % 10 == 0 {
                k.name.push_str("Old");
            }
            k
        })
        .collect();
    let baseline = Baseline::record(recorded);
    assert_eq!(baseline.len(), 10_000);
    let json = baseline.to_json();
    let checked: HashSet<&str> = files.iter().map(|(p, _, _)| p.as_str()).collect();

    let run = || {
        let b = Baseline::parse(&json).unwrap();
        let keys: Vec<_> = files
            .iter()
            .flat_map(|(p, t, fs)| fs.iter().map(move |f| key_of(f, p, Some(t))))
            .collect();
        b.apply(&keys, &checked)
    };
    let m = run();
    assert_eq!(m.silenced.iter().filter(|&&s| s).count(), 9_000);
    assert_eq!(m.stale.len(), 1_000);

    let loaded = Baseline::parse(&json).unwrap();
    let matching = || {
        let keys: Vec<_> = files
            .iter()
            .flat_map(|(p, t, fs)| fs.iter().map(move |f| key_of(f, p, Some(t))))
            .collect();
        loaded.apply(&keys, &checked)
    };

    // --prune-baseline: what it adds to a run (the file read, the findings matched, the
    // stale entries dropped and the new file's text made).
    let prune = || {
        let b = Baseline::parse(&json).unwrap();
        let keys: Vec<_> = files
            .iter()
            .flat_map(|(p, t, fs)| fs.iter().map(move |f| key_of(f, p, Some(t))))
            .collect();
        let m = b.apply_with(&keys, &checked, |_| false);
        b.pruned_json(&m.stale).0
    };
    let pruned = Baseline::parse(&prune()).unwrap();
    assert_eq!(pruned.len(), 9_000);

    let mut g = c.benchmark_group("baseline");
    g.measurement_time(Duration::from_secs(5));
    // What `check --baseline` adds to a run: the file read and the findings matched.
    g.bench_function("read_and_match_10000_entries", |b| b.iter(run));
    // The matching alone (keys taken from the texts, counted, stale entries listed).
    g.bench_function("match_10000_entries", |b| b.iter(matching));
    g.bench_function("prune_10000_entries", |b| b.iter(prune));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

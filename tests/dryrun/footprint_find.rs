//! Project search over real files in temp dirs: file names, footprints, concept words,
//! ignores, binary and huge files.

use std::path::Path;

use grounded::docs::{bundled, Corpus};
use grounded::footprint::find::HitKind;
use grounded::footprint::{find_in_files, FindOptions};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(
        r,
        "main.js",
        "// Lays out the report.\nvar note = new Block();\nnote.padding = 4;\nlayout.blockStart(note);\nlayout.paragraph(\"Read from the data file.\");\nlayout.blockEnd();\n",
    );
    write(r, "data/sampleData.json", "{\"rows\": [1, 2, 3]}\n");
    write(r, "lib/table.js", "var t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableCell(\"a\");\nlayout.tableEnd();\n");
    dir
}

fn kinds(r: &grounded::footprint::FindResult) -> Vec<(String, usize, HitKind)> {
    r.hits().map(|h| (h.path.clone(), h.line, h.kind)).collect()
}

#[test]
fn a_file_name_is_searchable_when_no_content_says_it() {
    let corpus = bundled::demo().unwrap();
    let dir = project();
    let r = find_in_files(&corpus, dir.path(), "json", &FindOptions::default()).unwrap();
    assert_eq!(
        kinds(&r),
        vec![("data/sampleData.json".to_string(), 0, HitKind::Filename)]
    );
    assert!(r.concept.is_none());
    assert!(r
        .render_human()
        .contains("data/sampleData.json (filename match)"));
}

#[test]
fn a_hit_on_a_declared_variable_brings_its_footprint_and_a_global_does_not() {
    let corpus = bundled::demo().unwrap();
    let dir = project();
    let r = find_in_files(&corpus, dir.path(), "blockStart", &FindOptions::default()).unwrap();
    assert_eq!(
        kinds(&r),
        vec![
            ("main.js".to_string(), 2, HitKind::Footprint),
            ("main.js".to_string(), 3, HitKind::Footprint),
            ("main.js".to_string(), 4, HitKind::Match),
        ]
    );
    assert!(r
        .hits()
        .filter(|h| h.kind == HitKind::Footprint)
        .all(|h| h.variable.as_deref() == Some("note")));
    // `layout` is a global: a hit on `layout.paragraph` brings nothing more.
    let r = find_in_files(&corpus, dir.path(), "paragraph", &FindOptions::default()).unwrap();
    assert_eq!(kinds(&r), vec![("main.js".to_string(), 5, HitKind::Match)]);
}

#[test]
fn concept_words_expand_to_engine_symbols_when_the_literal_finds_nothing() {
    let corpus = bundled::demo().unwrap();
    let dir = project();
    let opts = FindOptions {
        fixed: true,
        ..FindOptions::default()
    };
    let r = find_in_files(&corpus, dir.path(), "the box", &opts).unwrap();
    let c = r.concept.as_ref().expect("the result says it expanded");
    assert!(c.symbols.contains(&"blockStart".to_string()), "{c:?}");
    let got = kinds(&r);
    assert!(
        got.contains(&("main.js".to_string(), 4, HitKind::Concept)),
        "{got:?}"
    );
    assert!(
        got.contains(&("main.js".to_string(), 6, HitKind::Concept)),
        "{got:?}"
    );
    assert!(!got.iter().any(|h| h.0 == "lib/table.js"), "{got:?}");
    assert!(r
        .render_human()
        .starts_with("no match for `the box`; searched"));

    let r = find_in_files(&corpus, dir.path(), "grid", &opts).unwrap();
    assert!(r.concept.is_some());
    assert!(kinds(&r).contains(&("lib/table.js".to_string(), 3, HitKind::Concept)));

    // A literal that matches is not expanded; a word nothing stands for stays empty.
    let r = find_in_files(&corpus, dir.path(), "Lays out", &opts).unwrap();
    assert!(r.concept.is_none());
    assert_eq!(kinds(&r), vec![("main.js".to_string(), 1, HitKind::Match)]);
    let r = find_in_files(&corpus, dir.path(), "zebra", &opts).unwrap();
    assert!(r.concept.is_none() && r.is_empty());
}

#[test]
fn concept_words_come_from_the_project_s_own_corpus() {
    let corpus = Corpus::from_texts(&[
        (
            "api.md",
            "# Document\n\nThis object is accessed using the global property \"doc\".\n\n\
             ## Document-sectionStart\n\nSyntax: sectionStart(section: Section): void\n\n\
             ## Document-sectionEnd\n\nSyntax: sectionEnd(): void\n\n\
             # Section\n\nA section. Constructor: new Section()\n",
        ),
        (
            "facts.toml",
            "[[construct]]\nid = \"section\"\naliases = [\"chapter\"]\n",
        ),
    ])
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "a.js",
        "var s = new Section();\ndoc.sectionStart(s);\ndoc.sectionEnd();\n",
    );
    let r = find_in_files(&corpus, dir.path(), "chapter", &FindOptions::default()).unwrap();
    assert_eq!(
        r.concept.as_ref().unwrap().symbols,
        vec!["sectionStart", "sectionEnd", "Section"]
    );
    assert_eq!(
        kinds(&r),
        vec![
            ("a.js".to_string(), 1, HitKind::Concept),
            ("a.js".to_string(), 2, HitKind::Concept),
            ("a.js".to_string(), 3, HitKind::Concept),
        ]
    );
    // The demo engine's words mean nothing here.
    let r = find_in_files(&corpus, dir.path(), "the box", &FindOptions::default()).unwrap();
    assert!(r.is_empty() && r.concept.is_none());
}

#[test]
fn ignores_binary_and_huge_files_are_skipped() {
    let corpus = bundled::demo().unwrap();
    let dir = project();
    let r = dir.path();
    write(r, ".gitignore", "build/\n");
    write(r, "build/out.js", "var needle = 1;\n");
    write(r, "src/a.js", "var needle = 2;\n");
    std::fs::write(r.join("blob.bin"), b"needle\x00\x01").unwrap();
    write(r, "big.txt", &"needle\n".repeat(200));
    let opts = FindOptions {
        max_file_bytes: 1000,
        ..FindOptions::default()
    };
    let res = find_in_files(&corpus, r, "needle", &opts).unwrap();
    assert_eq!(
        kinds(&res),
        vec![("src/a.js".to_string(), 1, HitKind::Match)]
    );
    assert!(
        res.notes.iter().any(|n| n.starts_with("big.txt: skipped")),
        "{:?}",
        res.notes
    );
}

#[test]
fn paths_context_limits_and_bad_regexes() {
    let corpus = bundled::demo().unwrap();
    let dir = project();
    let opts = FindOptions {
        paths: vec!["lib".into()],
        context: 1,
        footprints: false,
        ..FindOptions::default()
    };
    let r = find_in_files(&corpus, dir.path(), r"table(Start|End)", &opts).unwrap();
    assert_eq!(
        kinds(&r),
        vec![
            ("lib/table.js".to_string(), 3, HitKind::Match),
            ("lib/table.js".to_string(), 5, HitKind::Match),
        ]
    );
    let ctx: Vec<usize> = r
        .hits()
        .next()
        .unwrap()
        .context
        .iter()
        .map(|c| c.line)
        .collect();
    assert_eq!(ctx, vec![2, 4]);
    let limited = FindOptions {
        max_hits: Some(1),
        ..FindOptions::default()
    };
    let r = find_in_files(&corpus, dir.path(), "layout", &limited).unwrap();
    assert!(r.truncated);
    assert_eq!(r.hits().filter(|h| h.kind == HitKind::Match).count(), 1);
    let err =
        find_in_files(&corpus, dir.path(), "tableStart(", &FindOptions::default()).unwrap_err();
    assert!(err.contains("not a valid regex"), "{err}");
    // A regex that finds nothing is not a concept search.
    let r = find_in_files(&corpus, dir.path(), "bo+x$", &FindOptions::default()).unwrap();
    assert!(r.is_empty() && r.concept.is_none());
}

#[test]
fn human_rendering_marks_each_kind() {
    let corpus = bundled::demo().unwrap();
    let dir = project();
    write(dir.path(), "notes/box.txt", "nothing here\n");
    let r = find_in_files(&corpus, dir.path(), "the box", &FindOptions::default()).unwrap();
    insta::assert_snapshot!(r.render_human(), @r#"
    no match for `the box`; searched the engine's symbols it stands for instead: blockStart, blockEnd, Block (via construct `block` ("box"))
    main.js
      2* var note = new Block();
      3+ note.padding = 4;    (footprint of `note`)
      4* layout.blockStart(note);
      --
      6* layout.blockEnd();
    "#);
    let r = find_in_files(&corpus, dir.path(), "box", &FindOptions::default()).unwrap();
    insta::assert_snapshot!(r.render_human(), @"notes/box.txt (filename match)");
}

#[test]
fn paths_are_shown_relative_to_a_root_given_with_dots() {
    let corpus = bundled::demo().unwrap();
    let dir = project();
    let dotted = dir.path().join("lib").join("..");
    let opts = FindOptions {
        paths: vec!["lib".into()],
        ..FindOptions::default()
    };
    let r = find_in_files(&corpus, &dotted, "tableEnd", &opts).unwrap();
    assert_eq!(
        kinds(&r),
        vec![("lib/table.js".to_string(), 5, HitKind::Match)]
    );
}

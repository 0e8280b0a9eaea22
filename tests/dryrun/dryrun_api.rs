//! The dry run through the library API: real files in temp dirs, the bundled demo
//! corpus and corpora written here.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use grounded::check::{Code, Finding};
use grounded::docs::{bundled, Corpus};
use grounded::dryrun::{self, Options, Report};

fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo")
}

/// A temp project holding `files` (relative path, text).
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (p, t) in files {
        let full = dir.path().join(p);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, t).unwrap();
    }
    dir
}

fn run(corpus: &Corpus, root: &Path, entry: &str) -> Report {
    run_with(corpus, root, &[entry], Options::default())
}

/// A run of `entries` (none: every top-level script) with `opts`, no unsaved buffers.
fn run_with(corpus: &Corpus, root: &Path, entries: &[&str], opts: Options) -> Report {
    let entries: Vec<PathBuf> = entries.iter().map(PathBuf::from).collect();
    dryrun::run_project(corpus, root, &entries, &HashMap::new(), &opts)
}

fn demo_run(files: &[(&str, &str)], entry: &str) -> Vec<Finding> {
    let dir = project(files);
    run(&bundled::demo().unwrap(), dir.path(), entry).findings
}

/// `path:line:col code message` of each finding, for readable assertions.
fn brief(fs: &[Finding]) -> Vec<String> {
    fs.iter()
        .map(|f| {
            format!(
                "{}:{}:{} {} {}",
                f.path,
                f.line,
                f.column,
                f.code.as_str(),
                f.message
            )
        })
        .collect()
}

fn one(fs: &[Finding]) -> &Finding {
    assert_eq!(
        fs.len(),
        1,
        "expected exactly one finding: {:#?}",
        brief(fs)
    );
    &fs[0]
}

#[test]
fn the_demo_project_is_silent() {
    let report = run(&bundled::demo().unwrap(), &demo_dir(), "main.js");
    assert!(report.findings.is_empty(), "{:#?}", brief(&report.findings));
    assert!(report.limits.iter().any(|l| l.contains("rendering")));
    assert!(report.limits.iter().any(|l| l.contains("zero times")));
}

#[test]
fn the_demo_project_runs_to_its_last_line() {
    // An unsaved buffer of main.js with one invented call after everything else: the
    // run must get through both loads and every helper to reach it.
    let root = demo_dir();
    let main = std::fs::read_to_string(root.join("main.js")).unwrap();
    let edited = format!("{main}layout.currentPage().inventedMember();\n");
    let last_line = edited.lines().count();
    let mut overlay = HashMap::new();
    // The editor names the file as it likes (here: not in canonical form).
    overlay.insert(root.join("lib/../main.js"), edited);
    let report = dryrun::run_project(
        &bundled::demo().unwrap(),
        &root,
        &[PathBuf::from("main.js")],
        &overlay,
        &Options::default(),
    );
    let f = one(&report.findings);
    assert_eq!(
        (f.path.as_str(), f.line, f.column),
        ("main.js", last_line, 22)
    );
    assert_eq!(f.code, Code::DryRun);
    assert!(f.message.contains("`Page` has no member `inventedMember`"));
}

#[test]
fn dynamic_js_gives_exactly_its_one_finding() {
    let report = run(
        &bundled::demo().unwrap(),
        &demo_dir(),
        "mistakes/dynamic.js",
    );
    let f = one(&report.findings);
    assert_eq!(
        (f.path.as_str(), f.line, f.column, f.end_column),
        ("mistakes/dynamic.js", 6, 10, 21)
    );
    assert!(
        f.message.contains("`Table` has no member `cellSpacing`"),
        "{}",
        f.message
    );
}

#[test]
fn an_absent_member_carries_the_overlay_reason() {
    let report = run(&bundled::demo().unwrap(), &demo_dir(), "mistakes/member.js");
    let f = one(&report.findings);
    assert_eq!((f.line, f.column), (8, 8));
    assert!(
        f.message.contains("Rows and cells end implicitly"),
        "{}",
        f.message
    );
}

#[test]
fn invented_member_through_a_parameter() {
    let fs = demo_run(
        &[(
            "main.js",
            "function style(b) {\n    b.keepTogether = true;\n    b.shadowColor = \"#000\";\n}\nstyle(new Block());\n",
        )],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!((f.line, f.column), (3, 7));
    assert!(f.message.contains("`Block` has no member `shadowColor`"));
}

#[test]
fn invented_member_through_a_return_value() {
    let fs = demo_run(
        &[(
            "main.js",
            "function makeTable() {\n    var t = new Table();\n    return t;\n}\nvar x = makeTable();\nx.columns = 2;\nx.addRow();\nlayout.currentPage().frameOf();\n",
        )],
        "main.js",
    );
    assert_eq!(fs.len(), 2, "{:#?}", brief(&fs));
    assert_eq!((fs[0].line, fs[0].column), (7, 3));
    assert!(fs[0].message.contains("`Table` has no member `addRow`"));
    assert_eq!((fs[1].line, fs[1].column), (8, 22));
    assert!(fs[1].message.contains("`Page` has no member `frameOf`"));
}

#[test]
fn invented_member_through_a_callback() {
    let fs = demo_run(
        &[(
            "main.js",
            "function each(items, fn) {\n    for (var i = 0; i < items.length; i++) {\n        fn(items[i]);\n    }\n}\neach([new List(), new List()], function (l) {\n    l.bulletStyle = \"disc\";\n});\n",
        )],
        "main.js",
    );
    // Reached twice, reported once.
    let f = one(&fs);
    assert_eq!((f.line, f.column), (7, 7));
    assert!(f.message.contains("`List` has no member `bulletStyle`"));
}

#[test]
fn invented_member_in_a_helper_loaded_from_another_file() {
    let fs = demo_run(
        &[
            (
                "main.js",
                "loadJS(\"lib/util.js\");\nvar box = new Block();\nframeIt(box);\n",
            ),
            (
                "lib/util.js",
                "// a helper\nfunction frameIt(b) {\n    layout.blockStart(b);\n    layout.blockClose();\n}\n",
            ),
        ],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!(
        (f.path.as_str(), f.line, f.column, f.end_column),
        ("lib/util.js", 4, 12, 22)
    );
    assert!(f.message.contains("`Layout` has no member `blockClose`"));
}

#[test]
fn include_directives_load_files_and_are_not_javascript() {
    let fs = demo_run(
        &[
            (
                "main.jsx",
                "#target folio\n#include \"lib/fmt.jsx\"\nvar p = layout.paragraph(fmt(2));\np.glow = 1;\n",
            ),
            ("lib/fmt.jsx", "function fmt(n) { return n.toFixed(2); }\n"),
        ],
        "main.jsx",
    );
    let f = one(&fs);
    assert_eq!((f.path.as_str(), f.line, f.column), ("main.jsx", 4, 3));
    assert!(f.message.contains("`Paragraph` has no member `glow`"));
}

#[test]
fn language_probes_are_never_findings() {
    let fs = demo_run(
        &[(
            "main.js",
            "var t = new Table();\nvar s = String(t) + t + t.toString() + t.valueOf();\nvar o = t.hasOwnProperty(\"columns\") && t.constructor && t instanceof Table;\nfor (var k in t) { s += k; }\nvar has = \"nothing\" in t;\nvar n = typeof t.columns + typeof layout.paragraph;\nvar arr = [t, layout]; arr.sort(); arr.join(\",\");\nvar page = layout.currentPage();\nif (page == null || page === t) { print(\"no\"); }\nvar w = t.columnWidths; w.push(3);\nprint(t.propertyIsEnumerable(\"x\"));\nObject.prototype.extend = function (o) { return this; };\nt.extend({});\nlayout.currentPage().extend({});\n",
        )],
        "main.js",
    );
    assert!(fs.is_empty(), "{:#?}", brief(&fs));
}

#[test]
fn an_endless_loop_is_stopped_within_budget() {
    let dir = project(&[(
        "main.js",
        "var n = 0;\nfunction spin() {\n    while (true) { n = n + layout.pageCount; }\n}\nspin();\n",
    )]);
    let t0 = Instant::now();
    let report = run_with(
        &bundled::demo().unwrap(),
        dir.path(),
        &["main.js"],
        Options {
            budget_ms: 200,
            ..Options::default()
        },
    );
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    let f = one(&report.findings);
    assert_eq!(f.line, 3);
    assert!(
        f.message.contains("did not finish in 200 ms"),
        "{}",
        f.message
    );
}

#[test]
fn a_script_cannot_catch_the_timeout() {
    let dir = project(&[(
        "main.js",
        "for (;;) { try { while (true) {} } catch (e) { } }\n",
    )]);
    let t0 = Instant::now();
    let report = run_with(
        &bundled::demo().unwrap(),
        dir.path(),
        &[],
        Options {
            budget_ms: 100,
            ..Options::default()
        },
    );
    assert!(t0.elapsed() < Duration::from_secs(2));
    assert!(one(&report.findings).message.contains("did not finish"));
}

#[test]
fn a_huge_allocation_is_a_finding() {
    // A generous time budget: on a loaded machine filling the heap took longer than
    // the default 2 s, and the run stopped as a timeout before memory ran out.
    let dir = project(&[(
        "main.js",
        "var parts = [];\nfor (var i = 0; i < 1e9; i++) {\n    parts.push(\"some text that takes room \" + i);\n}\n",
    )]);
    let fs = run_with(
        &bundled::demo().unwrap(),
        dir.path(),
        &["main.js"],
        Options {
            budget_ms: 60_000,
            ..Options::default()
        },
    )
    .findings;
    let f = one(&fs);
    assert!(f.message.contains("ran out of memory"), "{}", f.message);
    assert_eq!(f.path, "main.js");
}

#[test]
fn endless_recursion_is_a_finding() {
    let fs = demo_run(
        &[(
            "main.js",
            "function down(n) {\n    return down(n + 1) + 1;\n}\ndown(0);\n",
        )],
        "main.js",
    );
    let f = one(&fs);
    assert!(f.message.contains("stack overflow"), "{}", f.message);
    assert_eq!(f.line, 2);
}

#[test]
fn a_throw_is_a_finding_at_its_line() {
    let fs = demo_run(
        &[(
            "main.js",
            "var total = 0;\nfunction check() {\n    if (total == 0) {\n        throw new Error(\"no orders\");\n    }\n}\ncheck();\n",
        )],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!(f.line, 4);
    assert!(
        f.message.contains("uncaught Error: no orders"),
        "{}",
        f.message
    );
}

#[test]
fn a_syntax_error_is_a_finding_at_its_place() {
    let fs = demo_run(
        &[
            ("main.js", "loadJS(\"lib/bad.js\");\n"),
            ("lib/bad.js", "var a = 1;\nvar b = (a + ;\n"),
        ],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!((f.path.as_str(), f.line), ("lib/bad.js", 2));
    assert!(f.message.starts_with("syntax error"), "{}", f.message);
}

#[test]
fn an_undefined_name_at_top_level_points_at_the_name() {
    let fs = demo_run(
        &[(
            "main.js",
            "// loadXMLData is mentioned in a comment first\nvar title = \"x\";\nvar doc = loadXMLData(\"data/orders.xml\");\n",
        )],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!((f.line, f.column, f.end_column), (3, 11, 22));
    assert!(f.message.contains("ReferenceError"));
}

#[test]
fn a_missing_loaded_file_is_a_file_finding_and_the_run_goes_on() {
    let fs = demo_run(
        &[(
            "main.js",
            "loadJS(\"lib/missing.js\");\nvar t = new Table();\nt.spacing = 1;\n",
        )],
        "main.js",
    );
    assert_eq!(fs.len(), 2, "{:#?}", brief(&fs));
    assert_eq!(fs[0].code, Code::File);
    assert_eq!((fs[0].line, fs[0].column, fs[0].end_column), (1, 8, 24));
    assert_eq!((fs[1].line, fs[1].code), (3, Code::DryRun));
}

#[test]
fn a_load_outside_the_root_is_refused() {
    let outer = tempfile::tempdir().unwrap();
    std::fs::write(outer.path().join("outside.js"), "var leaked = 1;\n").unwrap();
    let root = outer.path().join("proj");
    std::fs::create_dir(&root).unwrap();
    std::fs::write(
        root.join("main.js"),
        "loadJS(\"../outside.js\");\nprint(typeof leaked);\nif (typeof leaked != \"undefined\") { layout.leakedIn(); }\n",
    )
    .unwrap();
    let report = run(&bundled::demo().unwrap(), &root, "main.js");
    let f = one(&report.findings);
    assert_eq!((f.line, f.column, f.code), (1, 8, Code::DryRun));
    assert!(f.message.contains("outside the project root"));
}

#[test]
fn a_data_api_reports_a_missing_file_and_returns_a_stub() {
    let fs = demo_run(
        &[(
            "main.js",
            "var doc = xml.load(\"data/none.xml\");\nvar nodes = doc.selectNodes(\"/a\");\nfor (var i = 0; i < nodes.length; i++) { nodes.item(i).bogus(); }\ndoc.bogusTwo();\n",
        )],
        "main.js",
    );
    assert_eq!(fs.len(), 2, "{:#?}", brief(&fs));
    assert_eq!((fs[0].line, fs[0].code), (1, Code::File));
    assert!(fs[1]
        .message
        .contains("`XMLDocument` has no member `bogusTwo`"));
}

#[test]
fn without_entries_every_top_level_script_runs() {
    let dir = project(&[
        ("a.js", "loadJS(\"lib/h.js\");\nhelper(new Table());\n"),
        ("lib/h.js", "function helper(t) { t.rows = 1; }\n"),
        ("b.js", "layout.nothingHere();\n"),
    ]);
    let corpus = bundled::demo().unwrap();
    let entries = dryrun::entries(&corpus, dir.path(), None);
    assert_eq!(entries, vec![PathBuf::from("a.js"), PathBuf::from("b.js")]);
    let report = run_with(&corpus, dir.path(), &[], Options::default());
    let got = brief(&report.findings);
    assert_eq!(got.len(), 2, "{got:#?}");
    assert!(got[0].starts_with("b.js:1:8 dry-run"), "{got:#?}");
    assert!(got[1].starts_with("lib/h.js:1:24 dry-run"), "{got:#?}");
}

/// A second engine, written here: different names everywhere, a loader that is not
/// called loadJS, `.jsx` scripts, an `#import` directive, a documented callback.
const PRESS_DOCS: &str = r#"# Engine

ECMAScript: 3
Script extensions: .jsx
Directives: #include #pragma

# Press

The press, accessed using the global property "press".

## Press-currentSheet

Syntax: currentSheet(): Sheet

## Press-eachSheet

Syntax: eachSheet(fn: Function): void

## Press-sheets

Syntax: readonly sheets: Sheet[]

## Press-readBatch

Syntax: readBatch(file: path): Batch

# Sheet

Constructor: new Sheet()

## Sheet-ink

Syntax: ink: string

## Sheet-frame

Syntax: frame: Frame

# Frame

Parent interface: Box

## Frame-bleed

Syntax: bleed: number

# Box

## Box-width

Syntax: width: number

# Batch

## Batch-count

Syntax: readonly count: number

# Global

## Global-bring

Syntax: bring(script: path): void
"#;

fn press() -> Corpus {
    Corpus::from_texts(&[("press.md", PRESS_DOCS)]).unwrap()
}

#[test]
fn the_fake_engine_is_built_from_any_corpus() {
    let dir = project(&[
        (
            "run.jsx",
            "#pragma once\nbring(\"lib/ink.jsx\");\n#include \"lib/more.jsx\"\nvar s = new Sheet();\ninkIt(s);\ns.frame.width = 3;\ns.frame.bleed = 2;\ns.frame.margin = 1;\npress.currentSheet().invented();\npress.eachSheet(function () { press.currentSheet().fromCallback = 1; });\nvar b = press.readBatch(\"batch.csv\");\nb.count + more();\n",
        ),
        ("lib/ink.jsx", "function inkIt(sheet) {\n    sheet.ink = \"black\";\n    sheet.colour = \"red\";\n}\n"),
        ("lib/more.jsx", "function more() { return press.sheets.length; }\n"),
    ]);
    let report = run(&press(), dir.path(), "run.jsx");
    let got = brief(&report.findings);
    let want = [
        "lib/ink.jsx:3:11 dry-run `Sheet` has no member `colour`",
        "run.jsx:8:9 dry-run `Frame` has no member `margin`",
        "run.jsx:9:22 dry-run `Sheet` has no member `invented`",
        "run.jsx:10:52 dry-run `Sheet` has no member `fromCallback`",
        "run.jsx:11:25 file `batch.csv` does not exist",
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (g, w) in got.iter().zip(want) {
        assert!(g.starts_with(w), "{g}\n  does not start with\n{w}");
    }
    // The same script against the demo corpus: `#pragma` is no directive of that
    // engine, and none of these names exist there.
    let demo = run(&bundled::demo().unwrap(), dir.path(), "run.jsx");
    let f = one(&demo.findings);
    assert!(f.message.starts_with("syntax error"), "{}", f.message);
}

#[test]
fn array_elements_read_by_index_have_the_element_type() {
    let fs = demo_run(
        &[(
            "main.js",
            "var first = layout.pages[0];\nvar n = first.pageNumber;\nvar rows = data.openCsv(\"p.csv\").readAll();\nvar cell = rows[0][1];\nvar up = cell.toUpperCase();\nlayout.pages[2].turnOver();\n",
        ), ("p.csv", "a,b\n")],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!((f.line, f.column), (6, 17));
    assert!(
        f.message.contains("`Page` has no member `turnOver`"),
        "{}",
        f.message
    );
}

#[test]
fn a_name_another_script_declares_is_not_the_runs_to_judge() {
    // One shared global scope: `shared` comes from a script the engine runs first, not
    // from a load. The run of main.js alone cannot see it and must not accuse it.
    let dir = project(&[
        ("main.js", "var x = shared(1);\n"),
        ("setup.js", "function shared(n) { return n; }\n"),
    ]);
    let report = run(&bundled::demo().unwrap(), dir.path(), "main.js");
    assert!(report.findings.is_empty(), "{:#?}", brief(&report.findings));
    assert!(
        report
            .limits
            .iter()
            .any(|l| l.contains("`shared` is declared by `setup.js`")),
        "{:#?}",
        report.limits
    );
}

#[test]
fn a_name_another_script_declares_only_inside_a_function_is_still_undefined() {
    // The other script's `var shared` is local to its function: the shared global
    // scope does not have it, so the run's ReferenceError is a finding, not a limit.
    let dir = project(&[
        ("main.js", "var x = shared(1);\n"),
        (
            "setup.js",
            "function setup() { var shared = 1; return shared; }\n",
        ),
    ]);
    let report = run(&bundled::demo().unwrap(), dir.path(), "main.js");
    let f = one(&report.findings);
    assert!(f.message.contains("shared"), "{}", f.message);
    assert!(
        !report.limits.iter().any(|l| l.contains("declared by")),
        "{:#?}",
        report.limits
    );
}

#[test]
fn a_statement_without_a_call_is_placed_on_its_own_line() {
    // `var n = first.numbr;` makes no call: the engine notes no position for it, the
    // finding must still name line 3, not an earlier one.
    let fs = demo_run(
        &[(
            "main.js",
            "var first = layout.currentPage();\nvar a = 1;\nvar n = first.numbr;\n",
        )],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!((f.line, f.column, f.end_column), (3, 15, 20));
}

#[test]
fn a_crash_on_stubbed_data_is_a_limit_not_a_finding() {
    // The stub's empty text has no second field: real data would. Say nothing.
    let dir = project(&[
        (
            "main.js",
            "var text = data.readText(\"p.csv\");\nvar first = text.split(\"\\n\")[0].split(\",\");\nvar price = first[1].replace(\"$\", \"\");\n",
        ),
        ("p.csv", "toner,$38\n"),
    ]);
    let report = run(&bundled::demo().unwrap(), dir.path(), "main.js");
    assert!(report.findings.is_empty(), "{:#?}", brief(&report.findings));
    assert!(
        report
            .limits
            .iter()
            .any(|l| l.contains("stopped at main.js:3") && l.contains("TypeError")),
        "{:#?}",
        report.limits
    );
    // The same crash on the script's own values is a finding.
    let fs = demo_run(
        &[("main.js", "var cfg = {};\nvar w = cfg.table.width;\n")],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!(f.line, 2);
    assert!(f.message.contains("uncaught TypeError"), "{}", f.message);
}

#[test]
fn a_misspelt_member_gets_a_replace_fix_and_the_interface_chunk() {
    let dir = project(&[(
        "main.js",
        "function setup(t) {\n    t.colums = 3;\n}\nsetup(new Table());\n",
    )]);
    let report = run(&bundled::demo().unwrap(), dir.path(), "main.js");
    let f = one(&report.findings);
    assert!(
        f.message.contains("did you mean `columns`?"),
        "{}",
        f.message
    );
    match f.fixes.as_slice() {
        [grounded::check::Fix::Replace { span, text, .. }] => {
            assert_eq!(text, "columns");
            assert_eq!(span.end - span.start, "colums".len());
        }
        other => panic!("{other:?}"),
    }
    let rel = f.related.as_ref().expect("the interface's chunk");
    assert_eq!(rel.message, "interface `Table`");
    assert!(rel.file.ends_with("tables.md"), "{}", rel.file);
}

#[test]
fn a_large_corpus_does_not_eat_the_scripts_memory() {
    // 300 interfaces of 30 members each, chained by inheritance; the script gets 2 MiB
    // of its own however large the fake engine is.
    let mut docs = String::from("# Engine\n\nECMAScript: 5\n\n");
    for i in 0..300 {
        docs.push_str(&format!("# Thing{i}\n\n"));
        if i == 0 {
            docs.push_str("The root, accessed using the global property \"root\".\n\n");
        } else {
            docs.push_str(&format!("Parent interface: Thing{}\n\n", i - 1));
        }
        for m in 0..30 {
            docs.push_str(&format!(
                "## Thing{i}-member{i}x{m}\n\nSyntax: member{i}x{m}(a: string, b?: number): Thing{}\n\n",
                (i + 1) % 300
            ));
        }
    }
    let corpus = Corpus::from_texts(&[("big.md", docs.as_str())]).unwrap();
    let dir = project(&[(
        "main.js",
        "var t = root.member0x1(\"a\");\nvar u = t.member0x5(\"b\").member1x3(\"c\");\nu.member0x0(\"x\").notThere = 1;\n",
    )]);
    let report = run_with(
        &corpus,
        dir.path(),
        &["main.js"],
        Options {
            memory_limit: 2 << 20,
            ..Options::default()
        },
    );
    let f = one(&report.findings);
    assert_eq!(f.line, 3);
    assert!(
        f.message.contains("`Thing1` has no member `notThere`"),
        "{}",
        f.message
    );
}

#[test]
fn a_top_level_endless_loop_is_placed_on_the_loop() {
    let dir = project(&[(
        "main.js",
        "// counts forever\nvar i = 0;\n\nwhile (i >= 0) {\n    i = i + 1;\n}\n",
    )]);
    let report = run_with(
        &bundled::demo().unwrap(),
        dir.path(),
        &["main.js"],
        Options {
            budget_ms: 100,
            ..Options::default()
        },
    );
    let f = one(&report.findings);
    assert_eq!((f.line, f.column, f.end_column), (4, 1, 6));
    assert!(f.message.contains("did not finish in 100 ms"));
}

#[test]
fn a_script_replacing_language_objects_does_not_blind_the_engine() {
    let fs = demo_run(
        &[(
            "main.js",
            "Object.create = function (o) { function F() {} F.prototype = o; return new F(); };\nError = function (m) { this.message = m; };\nvar Proxy = null;\nfunction fill(t) {\n    t.colour = \"red\";\n}\nfill(new Table());\n",
        )],
        "main.js",
    );
    let f = one(&fs);
    assert_eq!((f.line, f.column), (5, 7));
}

#[test]
fn a_script_too_large_to_compile_is_a_stated_limit_not_a_finding() {
    // Valid code, far more of it than 1 MiB of heap can compile: the size of the
    // script, not a mistake in it.
    let mut big = String::new();
    for i in 0..60_000 {
        big.push_str(&format!(
            "var value{i} = {{ name: \"item {i}\", size: {i} }};\n"
        ));
    }
    let dir = project(&[("main.js", big.as_str())]);
    let report = run_with(
        &bundled::demo().unwrap(),
        dir.path(),
        &["main.js"],
        Options {
            memory_limit: 1 << 20,
            ..Options::default()
        },
    );
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert!(
        report
            .limits
            .iter()
            .any(|l| l.contains("`main.js` ran out of memory while the dry run compiled it")),
        "{:#?}",
        report.limits
    );
    // Memory that runs out while the script runs stays a finding (see
    // `a_huge_allocation_is_a_finding`).
}

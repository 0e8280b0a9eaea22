//! `grounded check --write-baseline` / `--baseline` from outside: today's findings are
//! recorded by file, code, name and line text (never a line number), only the others
//! are reported, stale entries are said, and a broken baseline is one line (exit 2)
//! that leaves the file as it was. In `.js`, `.jsx` and Markdown.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{demo_corpus, project};

fn grounded(dir: &Path, args: &[&str]) -> Output {
    common::grounded_in(dir, args)
}

fn stderr(o: &Output) -> String {
    common::stderr_of(o)
}

fn json(o: &Output) -> Vec<serde_json::Value> {
    serde_json::from_slice::<serde_json::Value>(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&o.stdout)))
        .as_array()
        .unwrap()
        .clone()
}

const OLD_JS: &str = "var t = new Table();\nlayout.tableStart(t, { cellPadding: 3 });\nlayout.tableCel(\"a\");\nlayout.tableEnd();\nengine.loadXML(\"x\");\n";
const OLD_JSX: &str = "var n = 1;\nlayout.paragrafh(\"\" + n);\n";
const OLD_MD: &str = "# Notes\n\n```js\nlayout.pargraph(\"a\");\n```\n";

fn old_project() -> tempfile::TempDir {
    project(
        &demo_corpus(),
        &[
            ("lib/a.js", OLD_JS.as_bytes()),
            ("ui/b.jsx", OLD_JSX.as_bytes()),
            ("notes.md", OLD_MD.as_bytes()),
        ],
    )
}

#[test]
fn recorded_findings_are_not_reported_and_new_ones_are() {
    let dir = old_project();
    let d = dir.path();
    let before = json(&grounded(d, &["check", "--format", "json", "."]));
    assert!(before.len() >= 4, "{before:#?}");

    let w = grounded(
        d,
        &["check", "--write-baseline", "grounded-baseline.json", "."],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    assert!(
        stderr(&w).contains("wrote grounded-baseline.json"),
        "{}",
        stderr(&w)
    );
    let file = std::fs::read_to_string(d.join("grounded-baseline.json")).unwrap();
    // Sorted JSON, one entry a line, no line numbers.
    let lines: Vec<&str> = file.lines().collect();
    assert_eq!(lines.first(), Some(&"["));
    assert_eq!(lines.last(), Some(&"]"));
    let entries = &lines[1..lines.len() - 1];
    assert_eq!(entries.len(), before.len(), "{file}");
    let mut sorted = entries.to_vec();
    sorted.sort();
    assert_eq!(sorted, entries, "sorted");
    let e0: serde_json::Value = serde_json::from_str(entries[0].trim_end_matches(',')).unwrap();
    let keys: Vec<&String> = e0.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["code", "count", "file", "line", "name"], "{file}");
    assert!(file.contains(r#"{"file":"lib/a.js","code":"member","name":"tableCel","line":"layout.tableCel(\"a\");","count":1}"#), "{file}");
    assert!(
        file.contains(r#""file":"ui/b.jsx""#) && file.contains(r#""file":"notes.md""#),
        "{file}"
    );
    let v: serde_json::Value = serde_json::from_str(&file).unwrap();
    assert_eq!(v.as_array().unwrap().len(), before.len());

    // Known-good: the same code, nothing reported, exit 0.
    let quiet = grounded(d, &["check", "--baseline", "grounded-baseline.json", "."]);
    assert_eq!(quiet.status.code(), Some(0), "{}", stderr(&quiet));
    assert!(String::from_utf8_lossy(&quiet.stdout).contains("no findings"));
    assert!(
        stderr(&quiet).contains(&format!("{} known findings silenced", before.len())),
        "{}",
        stderr(&quiet)
    );

    // Lines added above, and indentation changed: still the same findings.
    let moved = format!(
        "// a new header\n\nvar first = 1;\n{}",
        OLD_JS.replace("layout.tableCel", "    layout.tableCel")
    );
    std::fs::write(d.join("lib/a.js"), &moved).unwrap();
    std::fs::write(d.join("ui/b.jsx"), format!("\n\n{OLD_JSX}")).unwrap();
    let out = grounded(
        d,
        &[
            "check",
            "--format",
            "json",
            "--baseline",
            "grounded-baseline.json",
            ".",
        ],
    );
    assert_eq!(
        json(&out),
        Vec::<serde_json::Value>::new(),
        "{}",
        stderr(&out)
    );
    assert_eq!(out.status.code(), Some(0));

    // Known-bad: a new finding (and a second copy of an old line) is reported.
    std::fs::write(
        d.join("ui/b.jsx"),
        format!("{OLD_JSX}layout.paragrafh(\"\" + n);\nlayout.tablStart();\n"),
    )
    .unwrap();
    let out = grounded(
        d,
        &[
            "check",
            "--format",
            "json",
            "--baseline",
            "grounded-baseline.json",
            ".",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let new = json(&out);
    assert_eq!(new.len(), 2, "{new:#?}");
    assert!(new.iter().all(|f| f["path"] == "ui/b.jsx"), "{new:#?}");
    assert_eq!(
        new[0]["line"], 3,
        "the second copy of the recorded line is new"
    );
    assert_eq!(new[1]["line"], 4);
}

#[test]
fn stale_entries_are_said_and_dropped_by_the_next_write() {
    let dir = old_project();
    let d = dir.path();
    grounded(d, &["check", "--write-baseline", "base.json", "."]);
    // The Markdown finding is fixed by hand.
    std::fs::write(
        d.join("notes.md"),
        "# Notes\n\n```js\nlayout.paragraph(\"a\");\n```\n",
    )
    .unwrap();
    let out = grounded(d, &["check", "--baseline", "base.json", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    let stale: Vec<&str> = err.lines().filter(|l| l.contains("stale")).collect();
    assert_eq!(stale.len(), 1, "{err}");
    assert!(stale[0].contains("notes.md member `pargraph`"), "{err}");
    // Checking another folder says nothing about notes.md's entries.
    let out = grounded(d, &["check", "--baseline", "base.json", "lib"]);
    assert!(!stderr(&out).contains("stale"), "{}", stderr(&out));
    // The next --write-baseline drops it.
    grounded(d, &["check", "--write-baseline", "base.json", "."]);
    let file = std::fs::read_to_string(d.join("base.json")).unwrap();
    assert!(!file.contains("notes.md"), "{file}");
    let out = grounded(d, &["check", "--baseline", "base.json", "."]);
    assert!(!stderr(&out).contains("stale"), "{}", stderr(&out));
}

#[test]
fn a_broken_or_missing_baseline_is_one_line_and_exit_2_and_keeps_its_bytes() {
    let dir = old_project();
    let d = dir.path();
    grounded(d, &["check", "--write-baseline", "base.json", "."]);
    let mut text = std::fs::read_to_string(d.join("base.json")).unwrap();
    // A merge conflict resolved by hand, badly: a missing comma.
    text = text.replacen("},\n", "}\n", 1);
    std::fs::write(d.join("base.json"), &text).unwrap();
    let out = grounded(d, &["check", "--baseline", "base.json", "."]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("grounded: baseline base.json: not a grounded baseline at line 3 column"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
    assert_eq!(std::fs::read_to_string(d.join("base.json")).unwrap(), text);

    let out = grounded(d, &["check", "--baseline", "nowhere.json", "."]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("baseline nowhere.json:") && err.contains("--write-baseline"),
        "{err}"
    );

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("base.json"), std::fs::Permissions::from_mode(0o000))
            .unwrap();
        // Root reads anything: the case only exists for other users.
        if std::fs::read(d.join("base.json")).is_err() {
            let out = grounded(d, &["check", "--baseline", "base.json", "."]);
            assert_eq!(out.status.code(), Some(2));
            assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
        }
        std::fs::set_permissions(d.join("base.json"), std::fs::Permissions::from_mode(0o644))
            .unwrap();
    }
}

#[test]
fn fix_then_baseline_work_together() {
    // --fix applies the sure fixes first; the baseline then silences what is left.
    let dir = project(
        &demo_corpus(),
        &[(
            "a.js",
            b"const n = 1;\nlayout.tableSomething(\"a\" + n);\n" as &[u8],
        )],
    );
    let d = dir.path();
    grounded(d, &["check", "--write-baseline", "b.json", "a.js"]);
    let out = grounded(d, &["check", "--fix", "--baseline", "b.json", "a.js"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(d.join("a.js")).unwrap(),
        "var n = 1;\nlayout.tableSomething(\"a\" + n);\n"
    );
    // The `const` entry matches nothing now: stale.
    assert!(stderr(&out).contains("stale"), "{}", stderr(&out));
}

#[test]
fn the_config_key_silences_as_the_flag_does_and_show_ignored_and_sarif_keep_them() {
    let dir = old_project();
    let d = dir.path();
    let toml = format!(
        "docs = {:?}\n\n[check]\nbaseline = \"ci/grounded-baseline.json\"\n",
        demo_corpus()
    );
    std::fs::write(d.join("grounded.toml"), toml).unwrap();
    std::fs::create_dir_all(d.join("ci")).unwrap();
    // Configured but not recorded yet: one line saying how to record it.
    let out = grounded(d, &["check", "."]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--write-baseline"),
        "{}",
        stderr(&out)
    );
    // --write-baseline does not read the file it replaces.
    let w = grounded(
        d,
        &[
            "check",
            "--write-baseline",
            "ci/grounded-baseline.json",
            ".",
        ],
    );
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    let out = grounded(d, &["check", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(json(&out), Vec::<serde_json::Value>::new());

    let shown = json(&grounded(
        d,
        &["check", "--format", "json", "--show-ignored", "."],
    ));
    assert!(shown.len() >= 4, "{shown:#?}");
    for f in &shown {
        assert_eq!(f["ignored"]["by"], "baseline", "{f:#}");
    }
    let sarif: serde_json::Value =
        serde_json::from_slice(&grounded(d, &["check", "--format", "sarif", "."]).stdout).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), shown.len());
    for r in results {
        assert_eq!(r["suppressions"][0]["kind"], "external", "{r:#}");
    }
    // A new finding is reported, and only it.
    std::fs::write(d.join("lib/new.js"), "layout.tableSomething();\n").unwrap();
    let out = grounded(d, &["check", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(1));
    let new = json(&out);
    assert_eq!(new.len(), 1, "{new:#?}");
    assert_eq!(new[0]["path"], "lib/new.js");
    // A finding an ignore comment silences is not recorded in the baseline.
    std::fs::write(
        d.join("lib/new.js"),
        "// grounded-ignore member: drawn by the host's own plug-in\nlayout.tableSomething();\n",
    )
    .unwrap();
    grounded(
        d,
        &[
            "check",
            "--write-baseline",
            "ci/grounded-baseline.json",
            ".",
        ],
    );
    let file = std::fs::read_to_string(d.join("ci/grounded-baseline.json")).unwrap();
    assert!(!file.contains("lib/new.js"), "{file}");
}

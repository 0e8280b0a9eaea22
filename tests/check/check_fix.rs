//! `grounded check --fix` and `--diff` from outside, on real files in temp folders:
//! the sure fixes go in (in `.js`, `.jsx` and Markdown), a choice between near names
//! never does, a second run changes nothing, bytes the fixes did not touch stay as
//! they were (line endings, byte-order mark, permissions), and a file that cannot or
//! must not be written is said in one line and keeps every byte.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::{demo_corpus, project};

fn grounded(dir: &Path, args: &[&str]) -> Output {
    common::grounded_in(dir, args)
}

fn stderr(o: &Output) -> String {
    common::stderr_of(o)
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// `const` (the one sure fix: `var`), `Date.now()` (the level's expression) and a
/// call whose absence the docs explain (deleting it loses nothing).
const BAD_JS: &str = "var net = 100;\nconst VAT_RATE = 0.2;\nvar started = Date.now();\nvar t = new Table();\nlayout.tableStart(t, { cellPadding: 3 });\nlayout.tableRow();\nlayout.tableCell(\"Toner\");\nlayout.tableCellEnd();\nlayout.tableEnd();\nlayout.paragraph(\"Gross: \" + net * (1 + VAT_RATE) + started);\n";

const FIXED_JS: &str = "var net = 100;\nvar VAT_RATE = 0.2;\nvar started = new Date().getTime();\nvar t = new Table();\nlayout.tableStart(t, { cellPadding: 3 });\nlayout.tableRow();\nlayout.tableCell(\"Toner\");\nlayout.tableEnd();\nlayout.paragraph(\"Gross: \" + net * (1 + VAT_RATE) + started);\n";

const GOOD_JS: &str = "var net = 100;\nlayout.paragraph(\"Net: \" + net);\n";

#[test]
fn sure_fixes_go_in_across_js_jsx_and_markdown_and_a_second_run_changes_nothing() {
    let md = format!("# Report\n\nSome prose.\n\n```js\n{BAD_JS}```\n\nMore prose.\n");
    let dir = project(
        &demo_corpus(),
        &[
            ("a.js", BAD_JS.as_bytes()),
            ("b.jsx", BAD_JS.as_bytes()),
            ("c.md", md.as_bytes()),
            ("good.js", GOOD_JS.as_bytes()),
        ],
    );
    let d = dir.path();
    let out = grounded(d, &["check", "--fix", "--format", "json", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let left: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(left, serde_json::json!([]), "nothing left");
    assert!(
        stderr(&out).contains("fixed 9 findings in 3 files"),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(d, "a.js"), FIXED_JS);
    assert_eq!(read(d, "b.jsx"), FIXED_JS);
    assert_eq!(
        read(d, "c.md"),
        format!("# Report\n\nSome prose.\n\n```js\n{FIXED_JS}```\n\nMore prose.\n")
    );
    assert_eq!(read(d, "good.js"), GOOD_JS, "a clean file is not touched");

    // Idempotent: the fixed files hold no sure fix any more.
    let again = grounded(d, &["check", "--fix", "."]);
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert!(
        stderr(&again).contains("fixed 0 findings in 0 files"),
        "{}",
        stderr(&again)
    );
    assert_eq!(read(d, "a.js"), FIXED_JS);
    assert!(String::from_utf8_lossy(&again.stdout).contains("no findings"));
}

#[test]
fn a_choice_between_near_names_is_left_to_the_user_and_sets_the_exit_status() {
    // `helperC()`: `helperA` or `helperB`? A pick, not a sure fix. A misspelt option
    // key: replace it or remove it? Also a pick.
    let text = "function helperA() { return 1; }\nfunction helperB() { return 2; }\nhelperC();\nvar t = new Table();\nlayout.tableStart(t, { cellPaddin: 3 });\nlayout.tableEnd();\nconst n = 1;\nlayout.paragraph(\"\" + n);\n";
    let dir = project(&demo_corpus(), &[("pick.js", text.as_bytes())]);
    let d = dir.path();
    let out = grounded(d, &["check", "--fix", "--format", "json", "pick.js"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "the picks are left: {}",
        stderr(&out)
    );
    let left: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<&str> = left
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["function", "option"], "{left:#}");
    assert_eq!(left[0]["fixes"].as_array().unwrap().len(), 2);
    let now = read(d, "pick.js");
    assert_eq!(
        now,
        text.replace("const n", "var n"),
        "only the sure fix went in"
    );
}

#[test]
fn line_endings_byte_order_mark_and_permissions_are_kept() {
    let crlf = format!("\u{feff}{}", BAD_JS.replace('\n', "\r\n"));
    let cr = BAD_JS.replace('\n', "\r");
    let dir = project(
        &demo_corpus(),
        &[("crlf.js", crlf.as_bytes()), ("cr.js", cr.as_bytes())],
    );
    let d = dir.path();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(d.join("crlf.js"), std::fs::Permissions::from_mode(0o750))
            .unwrap();
    }
    let out = grounded(d, &["check", "--fix", "crlf.js", "cr.js"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        std::fs::read(d.join("crlf.js")).unwrap(),
        format!("\u{feff}{}", FIXED_JS.replace('\n', "\r\n")).into_bytes()
    );
    assert_eq!(
        std::fs::read(d.join("cr.js")).unwrap(),
        FIXED_JS.replace('\n', "\r").into_bytes()
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(d.join("crlf.js"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o750);
    }
    let leftovers: Vec<_> = std::fs::read_dir(d)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn diff_prints_what_fix_would_write_and_writes_nothing() {
    let dir = project(
        &demo_corpus(),
        &[("a.js", BAD_JS.as_bytes()), ("good.js", GOOD_JS.as_bytes())],
    );
    let d = dir.path();
    let out = grounded(d, &["check", "--diff", "."]);
    let diff = String::from_utf8_lossy(&out.stdout).into_owned();
    assert_eq!(
        out.status.code(),
        Some(0),
        "nothing would be left: {}",
        stderr(&out)
    );
    assert_eq!(read(d, "a.js"), BAD_JS, "--diff writes nothing");
    assert!(diff.starts_with("--- a/a.js\n+++ b/a.js\n@@ "), "{diff}");
    for l in [
        "-const VAT_RATE = 0.2;",
        "+var VAT_RATE = 0.2;",
        "-var started = Date.now();",
        "+var started = new Date().getTime();",
        "-layout.tableCellEnd();",
    ] {
        assert!(diff.lines().any(|x| x == l), "{l:?} in\n{diff}");
    }
    assert!(!diff.contains("good.js"), "{diff}");
    assert!(
        stderr(&out).contains("3 fixes in 1 file (--diff: nothing written)"),
        "{}",
        stderr(&out)
    );
    // The diff is exactly what --fix writes: applied with git, it gives the fixed file.
    std::fs::write(d.join("fix.patch"), &diff).unwrap();
    let git = Command::new("git")
        .args(["apply", "fix.patch"])
        .current_dir(d)
        .output();
    if let Ok(g) = git {
        assert!(g.status.success(), "{}", String::from_utf8_lossy(&g.stderr));
        assert_eq!(read(d, "a.js"), FIXED_JS);
    }
    // Nothing to fix: no diff, and the exit status is the findings'.
    let clean = grounded(d, &["check", "--diff", "good.js"]);
    assert!(clean.stdout.is_empty());
    assert_eq!(clean.status.code(), Some(0));
}

#[test]
fn a_fix_that_would_bring_a_new_finding_leaves_the_file_as_it_was() {
    // `tableEn` has one near name, `tableEnd`: but no table was started, so the fix
    // would trade the member finding for an End without a Start. (A near name is an
    // unsafe fix: only `--unsafe-fixes` tries it.)
    let text = "layout.paragraph(\"x\");\nlayout.tableEn();\n";
    let dir = project(&demo_corpus(), &[("gain.js", text.as_bytes())]);
    let d = dir.path();
    let out = grounded(d, &["check", "--fix", "--unsafe-fixes", "gain.js"]);
    let err = stderr(&out);
    assert_eq!(read(d, "gain.js"), text);
    assert!(
        err.contains("gain.js: the fixes would bring a new finding (construct:"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
}

#[test]
fn a_read_only_file_is_said_in_one_line_and_keeps_its_bytes() {
    let dir = project(&demo_corpus(), &[("ro.js", BAD_JS.as_bytes())]);
    let d = dir.path();
    let mut perms = std::fs::metadata(d.join("ro.js")).unwrap().permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(d.join("ro.js"), perms).unwrap();
    let out = grounded(d, &["check", "--fix", "ro.js"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(read(d, "ro.js"), BAD_JS);
    let said: Vec<&str> = err.lines().filter(|l| l.contains("ro.js:")).collect();
    assert_eq!(
        said,
        ["grounded: ro.js: read-only; not fixed (its bytes are as they were)"],
        "{err}"
    );
    // The report of what is left still went out.
    assert!(String::from_utf8_lossy(&out.stdout).contains("const"));
}

#[test]
fn a_file_changed_on_disk_while_fixing_keeps_the_other_writers_bytes() {
    let dir = project(&demo_corpus(), &[("race.js", BAD_JS.as_bytes())]);
    let d = dir.path();
    let go = d.join("go");
    let child = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(["check", "--fix", "race.js"])
        .current_dir(d)
        .env("GROUNDED_DEBUG_FIX_WAIT", &go)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let ready = d.join("go.ready");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !ready.exists() {
        assert!(
            std::time::Instant::now() < until,
            "the fixer never got ready"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    // Another writer (an editor's save) lands between the read and the write.
    let theirs = format!("{BAD_JS}// saved by the editor\n");
    std::fs::write(d.join("race.js"), &theirs).unwrap();
    std::fs::write(&go, b"").unwrap();
    let out = child.wait_with_output().unwrap();
    let err = stderr(&out);
    assert_eq!(read(d, "race.js"), theirs, "{err}");
    assert!(
        err.contains("grounded: race.js: changed on disk while grounded fixed it; not fixed"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(2), "{err}");
}

#[test]
fn a_silenced_finding_is_not_fixed_and_an_unused_ignore_is_removed() {
    let text = "// grounded-ignore syntax: the host's preprocessor reads it\nconst a = 1;\nvar b = 2; // grounded-ignore member\nlayout.paragraph(\"\" + a + b);\n";
    let dir = project(&demo_corpus(), &[("s.js", text.as_bytes())]);
    let d = dir.path();
    let out = grounded(d, &["check", "--fix", "s.js"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        read(d, "s.js"),
        "// grounded-ignore syntax: the host's preprocessor reads it\nconst a = 1;\nvar b = 2;\nlayout.paragraph(\"\" + a + b);\n"
    );
    // grounded.toml turning the family off: nothing of it is fixed either.
    std::fs::write(
        d.join("grounded.toml"),
        format!(
            "docs = {:?}\n[check]\nignore = [\"syntax\"]\n",
            demo_corpus()
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("t.js"),
        "const c = 1;\nlayout.paragraph(\"\" + c);\n",
    )
    .unwrap();
    let out = grounded(d, &["check", "--fix", "t.js"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        read(d, "t.js"),
        "const c = 1;\nlayout.paragraph(\"\" + c);\n"
    );
}

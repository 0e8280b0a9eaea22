//! A team's second week (issue 46; interfaces.md, "A team's second week"), from outside
//! through the real binary: safe and unsafe fixes, `--add-ignore`, a baseline that only
//! shrinks, `--output` with the human report on the terminal, the summary by code, and
//! the runs that check nothing. Each with a known-bad case.

use crate::common;

use std::path::Path;
use std::process::Output;

use common::{demo_corpus, project};
use serde_json::Value;

fn grounded(dir: &Path, args: &[&str]) -> Output {
    common::grounded_in(dir, args)
}

fn stderr(o: &Output) -> String {
    common::stderr_of(o)
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn json(o: &Output) -> Vec<Value> {
    serde_json::from_slice::<Value>(&o.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", stdout(o)))
        .as_array()
        .unwrap()
        .clone()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap()
}

/// What the team met: a near member (`paragrap`), and a bare call whose only near name
/// is a function of an unrelated script; beside them a sure rewrite (`const`).
const TEAM_JS: &str =
    "var t = new Table();\nlayout.paragrap(\"x\");\nconst n = 1;\nmaskFromSelection();\n";
const OTHER_JS: &str = "function makeSelection() {}\n";

#[test]
fn fix_applies_only_safe_fixes_and_unsafe_fixes_need_the_flag() {
    let dir = project(
        &demo_corpus(),
        &[
            ("a.js", TEAM_JS.as_bytes()),
            ("tools/other.js", OTHER_JS.as_bytes()),
        ],
    );
    let d = dir.path();
    // Every JSON fix says whether it is safe: the near names are not, `const` is.
    let found = json(&grounded(d, &["check", "--format", "json", "a.js"]));
    let safe_of = |needle: &str| -> Vec<bool> {
        let f = found
            .iter()
            .find(|f| f["message"].as_str().unwrap().contains(needle))
            .unwrap_or_else(|| panic!("no finding about {needle}: {found:#?}"));
        f["fixes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["safe"].as_bool().expect("\"safe\" on every fix"))
            .collect()
    };
    assert_eq!(safe_of("paragrap"), [false]);
    assert_eq!(safe_of("maskFromSelection"), [false]);
    assert_eq!(safe_of("const"), [true]);

    // The human summary counts by code and says what --fix would fix.
    let out = grounded(d, &["check", "a.js"]);
    let text = stdout(&out);
    assert!(
        text.contains("by code: member 1, function 1, syntax 1"),
        "{text}"
    );
    assert!(
        text.contains("1 fixable with --fix (2 more with --fix --unsafe-fixes"),
        "{text}"
    );
    assert!(
        text.contains("fix (unsafe): Replace with `paragraph`"),
        "{text}"
    );

    // --fix: the sure rewrite only. Known-bad: the near names stay as the team wrote them.
    let out = grounded(d, &["check", "--fix", "a.js"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert_eq!(
        read(d, "a.js"),
        TEAM_JS.replace("const n", "var n"),
        "{}",
        stderr(&out)
    );
    // --diff --unsafe-fixes shows the picks and writes nothing.
    let out = grounded(d, &["check", "--diff", "--unsafe-fixes", "a.js"]);
    assert!(
        stdout(&out).contains("+layout.paragraph(\"x\");"),
        "{}",
        stdout(&out)
    );
    assert!(
        stdout(&out).contains("+makeSelection();"),
        "{}",
        stdout(&out)
    );
    assert!(read(d, "a.js").contains("paragrap(\""));
    // --fix --unsafe-fixes applies them.
    let out = grounded(d, &["check", "--fix", "--unsafe-fixes", "a.js"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        read(d, "a.js"),
        "var t = new Table();\nlayout.paragraph(\"x\");\nvar n = 1;\nmakeSelection();\n"
    );
}

#[test]
fn a_fix_never_drops_an_ignore_comments_reason() {
    let js = "// grounded-ignore member the host adds it\nlayout.tableSomething();\n\
              // grounded-ignore object: kept for the old host\nvar x = 1;\n\
              // grounded-ignore object\nvar y = 2;\n";
    let dir = project(&demo_corpus(), &[("a.js", js.as_bytes())]);
    let d = dir.path();
    let found = json(&grounded(d, &["check", "--format", "json", "a.js"]));
    let malformed = found
        .iter()
        .find(|f| f["message"].as_str().unwrap().starts_with("malformed"))
        .unwrap_or_else(|| panic!("{found:#?}"));
    // The words after the code are the author's reason: no fix deletes them.
    assert_eq!(malformed["fixes"], serde_json::json!([]), "{malformed:#}");
    let unused: Vec<&Value> = found
        .iter()
        .filter(|f| f["message"].as_str().unwrap().starts_with("unused ignore"))
        .collect();
    assert_eq!(unused.len(), 2, "{found:#?}");
    // Removing an unused ignore with a reason would drop it: unsafe; without one: safe.
    assert_eq!(unused[0]["fixes"][0]["safe"], false, "{:#}", unused[0]);
    assert_eq!(unused[1]["fixes"][0]["safe"], true, "{:#}", unused[1]);
    grounded(d, &["check", "--fix", "a.js"]);
    let after = read(d, "a.js");
    assert!(after.contains("member the host adds it"), "{after}");
    assert!(after.contains("object: kept for the old host"), "{after}");
    // Known-bad for "nothing is removed": the reasonless unused ignore is.
    assert!(!after.contains("// grounded-ignore object\n"), "{after}");
}

#[test]
fn eslints_dashes_give_an_ignore_its_reason() {
    let js = "// grounded-ignore member -- drawn by the host's plug-in\nlayout.tableSomething();\n";
    let dir = project(&demo_corpus(), &[("a.js", js.as_bytes())]);
    let d = dir.path();
    let out = grounded(d, &["check", "--format", "json", "--show-ignored", "a.js"]);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    let found = json(&out);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0]["ignored"]["reason"], "drawn by the host's plug-in");
    // Known-bad: dashes glued to the code make an unknown code, not a reason.
    std::fs::write(
        d.join("a.js"),
        "// grounded-ignore member--why\nlayout.tableSomething();\n",
    )
    .unwrap();
    let out = grounded(d, &["check", "--format", "json", "a.js"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        json(&out).iter().any(|f| f["message"]
            .as_str()
            .unwrap()
            .contains("unknown code `member--why`")),
        "{}",
        stdout(&out)
    );
}

#[test]
fn add_ignore_writes_a_comment_for_every_finding_left_and_leaves_templates_alone() {
    let js =
        "function f() {\n    layout.paragrap(helperX());\n}\nvar s = `a\n${layout.tableCel()}`;\n";
    let dir = project(&demo_corpus(), &[("a.js", js.as_bytes())]);
    let d = dir.path();
    let out = grounded(d, &["check", "--add-ignore=legacy, ticket 12", "a.js"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The template literal itself is `syntax` under ES3: its first line gets a comment.
    assert!(
        stderr(&out).contains("added 2 ignore comments for 3 findings in 1 file"),
        "{}",
        stderr(&out)
    );
    // Inside a template literal a comment would be text of the program: none, said.
    assert!(
        stderr(&out).contains("a.js:5: no ignore comment added"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        read(d, "a.js"),
        "function f() {\n    // grounded-ignore member, function: legacy, ticket 12\n    layout.paragrap(helperX());\n}\n// grounded-ignore syntax: legacy, ticket 12\nvar s = `a\n${layout.tableCel()}`;\n"
    );
    let left = json(&grounded(d, &["check", "--format", "json", "a.js"]));
    assert_eq!(
        left.len(),
        1,
        "only the template's finding is left: {left:#?}"
    );
    assert_eq!(left[0]["line"], 7);
    // A second run adds nothing (without a reason: the bare comment form).
    let out = grounded(d, &["check", "--add-ignore", "a.js"]);
    assert!(
        stderr(&out).contains("added 0 ignore comments"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn the_baseline_only_shrinks() {
    let dir = project(
        &demo_corpus(),
        &[
            (
                "lib/a.js",
                b"layout.tableCel(\"a\");\nlayout.paragrap(\"b\");\n" as &[u8],
            ),
            ("lib/b.js", b"layout.tableSomething();\n"),
            ("ui/c.js", b"layout.fooBar();\n"),
        ],
    );
    let d = dir.path();
    let w = grounded(d, &["check", "--write-baseline", "b.json", "."]);
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    assert_eq!(
        read(d, "b.json").lines().count(),
        6,
        "{}",
        read(d, "b.json")
    );

    // --write-baseline with a path replaces that folder's entries only (35 → 1 once).
    std::fs::write(d.join("ui/c.js"), "layout.barFoo();\n").unwrap();
    let w = grounded(d, &["check", "--write-baseline", "b.json", "ui"]);
    assert_eq!(w.status.code(), Some(0), "{}", stderr(&w));
    assert!(
        stderr(&w).contains("(4 entries, 4 findings; 3 entries of files not checked kept)"),
        "{}",
        stderr(&w)
    );
    let file = read(d, "b.json");
    assert_eq!(file.lines().count(), 6, "{file}");
    assert!(
        file.contains("barFoo") && !file.contains("fooBar"),
        "{file}"
    );
    assert!(
        file.contains("lib/b.js") && file.contains("paragrap"),
        "{file}"
    );

    // A fixed finding, one silenced by a comment, a deleted file, and a new finding.
    std::fs::write(
        d.join("lib/a.js"),
        "layout.tableCell(\"a\");\n// grounded-ignore member: the host adds it\nlayout.paragrap(\"b\");\nlayout.newMistake();\n",
    )
    .unwrap();
    std::fs::remove_file(d.join("lib/b.js")).unwrap();
    let out = grounded(d, &["check", "--baseline", "b.json", "lib"]);
    let err = stderr(&out);
    let stale: Vec<&str> = err.lines().filter(|l| l.contains("stale entry")).collect();
    assert_eq!(stale.len(), 2, "{err}");
    assert!(
        stale
            .iter()
            .any(|l| l.contains("matches nothing any more: lib/a.js member `tableCel`")),
        "{err}"
    );
    assert!(
        stale
            .iter()
            .any(|l| l.contains("its file is gone: lib/b.js")),
        "{err}"
    );
    // Silenced by a comment is not gone: its entry is not stale.
    assert!(!err.contains("`paragrap`"), "{err}");
    assert!(stdout(&out).contains("newMistake"), "{}", stdout(&out));

    // --prune-baseline drops the stale entries and adds nothing.
    let out = grounded(
        d,
        &["check", "--baseline", "b.json", "--prune-baseline", "."],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let file = read(d, "b.json");
    assert!(
        !file.contains("tableCel") && !file.contains("lib/b.js"),
        "{file}"
    );
    assert!(
        !file.contains("newMistake"),
        "pruning recorded a new finding: {file}"
    );
    assert!(
        file.contains("paragrap") && file.contains("barFoo"),
        "{file}"
    );
    // Known-bad: the new finding still fails the run.
    let out = grounded(d, &["check", "--baseline", "b.json", "."]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    // Nothing stale: the file is left as it was.
    let out = grounded(
        d,
        &["check", "--baseline", "b.json", "--prune-baseline", "."],
    );
    assert!(stderr(&out).contains("nothing stale"), "{}", stderr(&out));
    assert_eq!(read(d, "b.json"), file);

    // --no-baseline ignores the configured one; --prune-baseline without one is exit 2.
    let toml = format!(
        "docs = {:?}\n[check]\nbaseline = \"b.json\"\n",
        demo_corpus()
    );
    std::fs::write(d.join("grounded.toml"), toml).unwrap();
    let quiet = json(&grounded(d, &["check", "--format", "json", "ui"]));
    assert!(quiet.is_empty(), "{quiet:#?}");
    let all = json(&grounded(
        d,
        &["check", "--format", "json", "--no-baseline", "ui"],
    ));
    assert_eq!(all.len(), 1, "{all:#?}");
    let out = grounded(d, &["check", "--no-baseline", "--prune-baseline", "."]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn output_writes_the_format_to_the_file_and_the_human_report_to_the_terminal() {
    let dir = project(
        &demo_corpus(),
        &[(
            "a.js",
            b"layout.tableCel(\"a\");\nlayout.paragrap(\"b\");\n" as &[u8],
        )],
    );
    let d = dir.path();
    grounded(d, &["check", "--write-baseline", "b.json", "a.js"]);
    std::fs::write(
        d.join("a.js"),
        "layout.tableCel(\"a\");\nlayout.paragrap(\"b\");\nlayout.fooBar();\n",
    )
    .unwrap();
    let out = grounded(
        d,
        &[
            "check",
            "--baseline",
            "b.json",
            "--format",
            "sarif",
            "-o",
            "out.sarif",
            "a.js",
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let sarif: Value = serde_json::from_str(&read(d, "out.sarif")).unwrap();
    let results = sarif["runs"][0]["results"].as_array().unwrap();
    assert_eq!(
        results.len(),
        3,
        "the file keeps the silenced ones as suppressions"
    );
    // The terminal says what failed: the new finding, not only "2 known findings silenced".
    let text = stdout(&out);
    assert!(
        text.contains("fooBar") && text.contains("a.js:3:8"),
        "{text}"
    );
    assert!(
        !text.contains("tableCel\""),
        "silenced findings are not listed: {text}"
    );
    assert!(
        text.contains("1 error(s), 0 warning(s), 2 ignored"),
        "{text}"
    );

    // A configuration error writes no file (not an empty one for the upload to choke on).
    std::fs::write(
        d.join("grounded.toml"),
        format!(
            "docs = {:?}\n[check]\nselect = [\"membr\"]\n",
            demo_corpus()
        ),
    )
    .unwrap();
    let out = grounded(
        d,
        &["check", "--format", "sarif", "-o", "new.sarif", "a.js"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(!d.join("new.sarif").exists());
}

#[test]
fn info_is_counted_as_info() {
    let dir = project(
        &demo_corpus(),
        &[("a.js", b"layout.fooBar();\nconst x = 1;\n" as &[u8])],
    );
    let d = dir.path();
    std::fs::write(
        d.join("grounded.toml"),
        format!(
            "docs = {:?}\n[check]\nseverity = {{ member = \"info\" }}\n",
            demo_corpus()
        ),
    )
    .unwrap();
    let out = grounded(d, &["check", "a.js"]);
    let text = stdout(&out);
    assert!(text.contains("1 error(s), 0 warning(s), 1 info"), "{text}");
}

#[test]
fn a_run_that_checks_nothing_is_not_clean() {
    let dir = project(&demo_corpus(), &[("a.js", b"layout.fooBar();\n" as &[u8])]);
    let d = dir.path();
    let toml = |check: &str| {
        std::fs::write(
            d.join("grounded.toml"),
            format!("docs = {:?}\n{check}", demo_corpus()),
        )
        .unwrap()
    };
    toml("[check]\nexclude = [\"*.js\"]\n");
    let out = grounded(d, &["check", "."]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("nothing checked: grounded.toml's [check] exclude leaves out every script under . (1 file: a.js)"), "{}", stderr(&out));
    toml("[check]\nselect = []\n");
    let out = grounded(d, &["check", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("nothing to check: every code is turned off"),
        "{}",
        stderr(&out)
    );
    // A typo'd table is a configuration error naming its line, not a warning.
    toml("\n[checks]\nignore = [\"member\"]\n");
    let out = grounded(d, &["check", "."]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("grounded.toml:3: unknown table `[checks]`")
            && err.contains("did you mean `[check]`"),
        "{err}"
    );
    // Known-good: the real table.
    toml("\n[check]\nignore = [\"member\"]\n");
    let out = grounded(d, &["check", "."]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // A folder of prose alone is still "no scripts found"; a prose file named is clean.
    std::fs::create_dir(d.join("docs")).unwrap();
    std::fs::write(d.join("docs/README.md"), "# Notes\n\nprose\n").unwrap();
    assert_eq!(grounded(d, &["check", "docs"]).status.code(), Some(2));
    assert_eq!(
        grounded(d, &["check", "docs/README.md"]).status.code(),
        Some(0)
    );
}

#[test]
fn suppression_reasons_and_glob_warnings_name_grounded_toml_relative_to_the_root() {
    let dir = project(&demo_corpus(), &[("a.js", b"layout.fooBar();\n" as &[u8])]);
    let d = dir.path();
    std::fs::write(
        d.join("grounded.toml"),
        format!(
            "docs = {:?}\n[check]\nignore = [\"member\"]\nexclude = [\"vendr/**\"]\n",
            demo_corpus()
        ),
    )
    .unwrap();
    let out = grounded(d, &["check", "--format", "sarif", "."]);
    let sarif: Value = serde_json::from_slice(&out.stdout).unwrap();
    let why = sarif["runs"][0]["results"][0]["suppressions"][0]["justification"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(why, "grounded.toml: `ignore` (grounded.toml:3)");
    let root = d.canonicalize().unwrap();
    // Known-bad: the machine's own folders in a message (the CI runner's, in every PR).
    assert!(
        !stderr(&out).contains(&*root.to_string_lossy()),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("grounded.toml:4: [check] exclude glob `vendr/**` matches no file"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_corpus_not_found_says_the_path_came_from_grounded_toml() {
    // A copied demo keeps its relative `docs`, which now names nothing.
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("grounded.toml"), "docs = \"../../corpus/demo\"\n").unwrap();
    std::fs::write(d.join("main.js"), "var a = 1;\n").unwrap();
    let out = grounded(d, &["check", "main.js"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("corpus not found"), "{err}");
    assert!(
        err.contains("(the path is `docs = \"../../corpus/demo\"` in ")
            && err.contains("grounded.toml, relative to its folder"),
        "{err}"
    );
    // Known-bad: a --docs path is the user's own, not grounded.toml's.
    let out = grounded(d, &["check", "--docs", "nowhere", "main.js"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!stderr(&out).contains("grounded.toml"), "{}", stderr(&out));
}

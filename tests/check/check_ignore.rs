//! Issue 41, adopting on code that exists: ignore comments, `[check]` in
//! `grounded.toml`, `--select`/`--ignore`/`--show-ignored`, SARIF suppressions, through
//! the real binary, in `.js`, `.jsx` and Markdown. Each case has known-good input (what
//! must stay silent) and known-bad input (what must be said, in one clear line).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

use common::{demo_corpus, project};
use serde_json::Value;

fn grounded(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("runs")
}

fn json(args: &[&str], dir: &Path) -> (Vec<Value>, Output) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let out = grounded(&all, dir);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}", String::from_utf8_lossy(&out.stderr));
    });
    (v.as_array().cloned().unwrap_or_default(), out)
}

/// `code@line` of each finding, in order.
fn codes(v: &[Value]) -> Vec<String> {
    v.iter()
        .map(|f| format!("{}@{}", f["code"].as_str().unwrap(), f["line"]))
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A project whose `grounded.toml` holds `docs` and then `extra`.
fn with_toml(extra: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
    let files: Vec<(&str, &[u8])> = files.iter().map(|(n, t)| (*n, t.as_bytes())).collect();
    let dir = project(&demo_corpus(), &files);
    let toml = dir.path().join("grounded.toml");
    let mut text = std::fs::read_to_string(&toml).unwrap();
    text.push_str(extra);
    std::fs::write(toml, text).unwrap();
    dir
}

const BAD: &str = "layout.tableCellEnd();\n";

#[test]
fn each_form_silences_its_line_or_file_and_nothing_else() {
    let js = "\
// grounded-ignore member: Folio 3 has it
layout.tableCellEnd();
layout.tableCellEnd(); // grounded-ignore member
layout.tableCellEnd(); /* grounded-ignore all */
/* grounded-ignore member */
layout.tableCellEnd();
// grounded-ignore member: first reason
// grounded-ignore function: second reason
missing(layout.tableCellEnd());
layout.tableCellEnd();
";
    let jsx = "\
function Row() {
    return (
        <div>
            {/* grounded-ignore member */}
            {layout.tableCellEnd()}
            {layout.tableCellEnd()}
        </div>
    );
}
";
    let md = "\
# Notes

```js
// grounded-ignore member
layout.tableCellEnd();
layout.tableCellEnd();
```
";
    let dir = with_toml("", &[("a.js", js), ("b.jsx", jsx), ("c.md", md)]);
    let (v, out) = json(&["a.js", "b.jsx", "c.md"], dir.path());
    // Known-bad: the unsilenced calls, each once; known-good: every silenced line.
    assert_eq!(
        codes(&v),
        ["member@10", "member@6", "member@6"],
        "{v:#?}\n{}",
        stderr(&out)
    );
    let paths: Vec<&str> = v.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.js", "b.jsx", "c.md"]);
    assert!(v.iter().all(|f| f.get("ignored").is_none()));
    assert_eq!(out.status.code(), Some(1));
    // `--show-ignored` lists what was silenced, by what and why.
    let (all, _) = json(&["--show-ignored", "a.js"], dir.path());
    let ignored: Vec<&Value> = all.iter().filter(|f| f.get("ignored").is_some()).collect();
    assert_eq!(ignored.len(), 6, "{all:#?}");
    assert_eq!(ignored[0]["ignored"]["by"], "comment");
    assert_eq!(ignored[0]["ignored"]["reason"], "Folio 3 has it");
    let second = ignored.iter().find(|f| f["code"] == "function").unwrap();
    assert_eq!(second["ignored"]["reason"], "second reason");
}

#[test]
fn a_file_comment_before_the_first_statement_silences_the_file() {
    let js = "/* Report. */\n// grounded-ignore-file member: the docs predate Folio 3\nlayout.tableCellEnd();\nfunction f() {\n    layout.tableCellEnd();\n}\nmissing();\n";
    let md = "<!-- grounded-ignore-file member -->\n# Notes\n\n```js\nlayout.tableCellEnd();\n```\n\n```js\nlayout.tableCellEnd();\n```\n";
    let dir = with_toml("", &[("a.js", js), ("c.md", md)]);
    let (v, out) = json(&["a.js", "c.md"], dir.path());
    assert_eq!(codes(&v), ["function@7"], "{}", stderr(&out));
    // Known-bad: after the first statement it silences nothing, and says why.
    let late = "layout.tableCellEnd();\n// grounded-ignore-file member\n";
    std::fs::write(dir.path().join("late.js"), late).unwrap();
    let (v, _) = json(&["late.js"], dir.path());
    assert_eq!(codes(&v), ["member@1", "ignore@2"]);
    let msg = v[1]["message"].as_str().unwrap();
    assert!(msg.contains("before the first statement"), "{msg}");
}

#[test]
fn unknown_unused_and_malformed_ignores_are_warnings_with_a_fix() {
    let js = "\
layout.tableCellEnd(); // grounded-ignore membr
// grounded-ignore object: never needed
layout.paragraph(\"x\");
// grounded-ignore member, object
layout.tableCellEnd();
// grounded-ignore
layout.paragraph(\"y\");
// grounded-ignore-next-line member
layout.paragraph(\"z\");
// grounded-ignore member why
layout.paragraph(\"w\");
";
    let dir = with_toml("", &[("a.js", js)]);
    let (v, out) = json(&["a.js"], dir.path());
    assert_eq!(
        codes(&v),
        [
            "member@1",
            "ignore@1",
            "ignore@2",
            "ignore@4",
            "ignore@6",
            "ignore@8",
            "ignore@10"
        ],
        "{v:#?}"
    );
    let by_line = |l: u64| {
        v.iter()
            .find(|f| f["code"] == "ignore" && f["line"] == l)
            .unwrap()
    };
    let unknown = by_line(1);
    assert!(unknown["message"]
        .as_str()
        .unwrap()
        .contains("did you mean `member`"));
    assert_eq!(unknown["fixes"][0]["edits"][0]["text"], "member");
    assert_eq!(unknown["severity"], "warning");
    let unused = by_line(2);
    assert!(unused["message"]
        .as_str()
        .unwrap()
        .starts_with("unused ignore"));
    assert!(unused["fixes"][0]["title"]
        .as_str()
        .unwrap()
        .starts_with("Remove the unused ignore"));
    // The whole line goes: line 2 from column 1 to line 3 column 1.
    let e = &unused["fixes"][0]["edits"][0];
    assert_eq!(
        (
            e["line"].as_u64(),
            e["end_line"].as_u64(),
            e["text"].as_str()
        ),
        (Some(2), Some(3), Some(""))
    );
    // One of two codes unused: the fix corrects the list.
    let partly = by_line(4);
    assert_eq!(partly["fixes"][0]["edits"][0]["text"], "member");
    for l in [6, 8, 10] {
        let m = by_line(l)["message"].as_str().unwrap().to_string();
        assert!(m.starts_with("malformed ignore comment: "), "{m}");
        assert_eq!(m.lines().count(), 1, "{m}");
    }
    // Warnings only: the exit status is the unsilenced member error's.
    assert_eq!(out.status.code(), Some(1));
    // Known-good: an ignore inside a string is no comment, and is not judged.
    std::fs::write(
        dir.path().join("s.js"),
        "var s = \"// grounded-ignore membr\";\n",
    )
    .unwrap();
    let (v, out) = json(&["s.js"], dir.path());
    assert!(v.is_empty(), "{v:#?}");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn select_ignore_severity_and_overrides() {
    let toml = "
[check]
ignore = [\"construct\"]
severity = { syntax = \"warning\", function = \"info\" }

[[check.overrides]]
files = [\"legacy/**\"]
ignore = [\"member\"]
";
    let dir = with_toml(
        toml,
        &[
            ("a.js", "layout.tableStart(new Table());\nmissing();\nvar f = () => 1;\nlayout.tableCellEnd();\n"),
            ("legacy/old.js", BAD),
        ],
    );
    let (v, out) = json(&["."], dir.path());
    let got: Vec<String> = v
        .iter()
        .map(|f| {
            format!(
                "{} {} {}",
                f["path"].as_str().unwrap(),
                f["code"].as_str().unwrap(),
                f["severity"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            "a.js function info",
            "a.js syntax warning",
            "a.js member error"
        ],
        "{}",
        stderr(&out)
    );
    // `--select` replaces `select` (here: every code but these), `--ignore` replaces
    // `ignore`: the construct comes back, the member goes.
    let (v, out) = json(&["--ignore", "member,syntax", "."], dir.path());
    assert_eq!(codes(&v), ["construct@1", "function@2"]);
    assert_eq!(out.status.code(), Some(0), "info and warning only");
    let (v, _) = json(&["--select", "member", "."], dir.path());
    assert_eq!(codes(&v), ["member@4"]);
    // Config-silenced findings are listed by `--show-ignored` with where it says so.
    let (v, _) = json(&["--show-ignored", "legacy"], dir.path());
    assert_eq!(v[0]["ignored"]["by"], "config");
    let reason = v[0]["ignored"]["reason"].as_str().unwrap();
    assert!(reason.contains("grounded.toml:9"), "{reason}");
}

#[test]
fn exclude_leaves_files_out_but_keeps_their_names() {
    let dir = with_toml(
        "[check]\nexclude = [\"vendor/**\", \"*.min.js\"]\n",
        &[
            (
                "vendor/lib.js",
                "function helper() {}\nlayout.tableCellEnd();\n",
            ),
            ("app.min.js", BAD),
            ("main.js", "helper();\n"),
        ],
    );
    let (v, out) = json(&["."], dir.path());
    assert!(v.is_empty(), "{v:#?}");
    assert_eq!(out.status.code(), Some(0));
    assert!(
        !stderr(&out).contains("matches no file"),
        "{}",
        stderr(&out)
    );
    // Known-bad: a glob that matches nothing is one clear line, and the check goes on.
    let dir = with_toml("[check]\nexclude = [\"vendr/**\"]\n", &[("main.js", BAD)]);
    let (v, out) = json(&["."], dir.path());
    assert_eq!(codes(&v), ["member@1"]);
    let err = stderr(&out);
    let lines: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("matches no file"))
        .collect::<Vec<_>>();
    assert_eq!(lines.len(), 1, "{}", stderr(&out));
    assert!(
        lines[0].contains("grounded.toml:3") && lines[0].contains("`vendr/**`"),
        "{}",
        lines[0]
    );
}

#[test]
fn a_bad_check_table_is_exit_2_naming_the_key_and_its_line() {
    for (toml, want) in [
        (
            "[check]\nselct = [\"member\"]\n",
            ["grounded.toml:3", "selct"],
        ),
        (
            "[check]\nselect = [\"member\",\n  \"membr\"]\n",
            ["grounded.toml:4", "`membr`"],
        ),
        (
            "[check]\nseverity = { member = \"loud\" }\n",
            ["grounded.toml:3", "`loud`"],
        ),
        (
            "[check]\n\n[[check.overrides]]\nfiles = [\"a/**\"]\nignor = [\"x\"]\n",
            ["grounded.toml:6", "ignor"],
        ),
        (
            "[check]\nexclude = [\"[oops\"]\n",
            ["grounded.toml:3", "[oops"],
        ),
    ] {
        let dir = with_toml(toml, &[("main.js", BAD)]);
        let out = grounded(&["check", "main.js"], dir.path());
        assert_eq!(out.status.code(), Some(2), "{toml}");
        assert!(out.stdout.is_empty());
        let err = stderr(&out);
        let line = err.lines().last().unwrap();
        for w in want {
            assert!(line.contains(w), "{toml}: {err}");
        }
    }
    let dir = with_toml("", &[("main.js", BAD)]);
    let out = grounded(&["check", "--select", "membr", "main.js"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--select: unknown code `membr`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn sarif_keeps_what_is_silenced_as_suppressions() {
    let dir = with_toml(
        "[check]\nignore = [\"function\"]\n",
        &[("a.js", "// grounded-ignore member: Folio 3 has it\nlayout.tableCellEnd();\nmissing();\nlayout.tableCellEnd();\n")],
    );
    let out = grounded(&["check", "--format", "sarif", "a.js"], dir.path());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = v["runs"][0]["results"].as_array().unwrap();
    assert_eq!(results.len(), 3);
    let kinds: Vec<(u64, Value)> = results
        .iter()
        .map(|r| {
            (
                r["locations"][0]["physicalLocation"]["region"]["startLine"]
                    .as_u64()
                    .unwrap(),
                r["suppressions"].clone(),
            )
        })
        .collect();
    assert_eq!(kinds[0].1[0]["kind"], "inSource");
    assert!(kinds[0].1[0]["justification"]
        .as_str()
        .unwrap()
        .contains("Folio 3 has it"));
    assert_eq!(kinds[1].1[0]["kind"], "external");
    assert!(kinds[2].1.is_null(), "the unsilenced call: {:?}", kinds[2]);
    // The run fails on the unsilenced error alone.
    assert_eq!(out.status.code(), Some(1));
    let rules = v["runs"][0]["tool"]["driver"]["rules"].as_array().unwrap();
    assert_eq!(rules.last().unwrap()["id"], "ignore");
}

#[test]
fn human_output_counts_what_was_silenced() {
    let dir = with_toml(
        "",
        &[(
            "a.js",
            "layout.tableCellEnd(); // grounded-ignore member: old docs\n",
        )],
    );
    let out = grounded(&["check", "a.js"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        text.trim(),
        "no findings, 1 ignored (--show-ignored lists them)"
    );
    assert_eq!(out.status.code(), Some(0));
    let out = grounded(&["check", "--show-ignored", "a.js"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ignored by an ignore comment: old docs"),
        "{text}"
    );
}

#[test]
fn the_dry_runs_findings_are_silenced_the_same_way() {
    let bad = "function close(l) {\n    l.tableCellEnd();\n}\nclose(layout);\n";
    let good = "function close(l) {\n    // grounded-ignore dry-run: Folio 3 has it\n    l.tableCellEnd();\n}\nclose(layout);\n";
    let dir = with_toml("", &[("bad.js", bad), ("good.js", good)]);
    let (v, out) = json(&["--dry-run", "bad.js"], dir.path());
    assert_eq!(codes(&v), ["dry-run@2"], "{}", stderr(&out));
    let (v, out) = json(&["--dry-run", "good.js"], dir.path());
    assert!(v.is_empty(), "{v:#?}\n{}", stderr(&out));
    assert_eq!(out.status.code(), Some(0));
    // Without `--dry-run` the comment is not said unused: that run did not happen.
    let (v, _) = json(&["good.js"], dir.path());
    assert!(v.is_empty(), "{v:#?}");
}

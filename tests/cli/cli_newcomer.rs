//! What a newcomer meets first, through the real binary: paths that open from where
//! the command ran, fixes and docs in JSON and SARIF, long lines kept to a screen's
//! width, no "clean" after checking nothing, `doc`, `find`'s exit status, one way of
//! refusing `--format sarif`, warnings for unknown `grounded.toml` keys, and the
//! corpus cache seen from outside.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{parent_and_name, paths_of};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn demo_corpus() -> String {
    repo().join("corpus/demo").to_string_lossy().into_owned()
}

fn run(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_grounded"));
    c.args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("GROUNDED_CACHE_DIR", "");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("runs")
}

fn grounded(args: &[&str], dir: &Path) -> Output {
    run(args, dir, &[])
}

/// The findings of `grounded check --format json ARGS` run in `dir`.
fn check_json(args: &[&str], dir: &Path) -> Value {
    let mut all = vec!["check", "--format", "json"];
    all.extend(args);
    json(&grounded(&all, dir))
}

fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

/// A project using the demo corpus, with the given files.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let toml = format!("docs = {:?}\n", demo_corpus());
    std::fs::write(dir.path().join("grounded.toml"), toml).unwrap();
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

const TYPO: &str = "layout.tableCellEnd();\n";
const CLEAN: &str = "layout.paragraph(\"hello\");\n";

#[test]
fn two_files_of_one_name_in_two_folders_never_look_alike() {
    let dir = project(&[("a/typo.js", TYPO), ("b/typo.js", TYPO)]);
    let v = check_json(&["a", "b"], dir.path());
    let paths = paths_of(&v);
    assert_eq!(paths, ["a/typo.js", "b/typo.js"]);
    // Each opens from where the command ran.
    for p in paths {
        assert!(dir.path().join(p).is_file(), "{p}");
    }
    // From a folder above, the folder argument as given is kept.
    let (parent, name) = parent_and_name(dir.path());
    let arg = format!("{name}/a");
    let v = check_json(&[&arg], parent);
    assert_eq!(v[0]["path"], format!("{name}/a/typo.js"));
    // The current folder itself adds nothing; a file given is shown as given.
    let v = check_json(&[], &dir.path().join("a"));
    assert_eq!(v[0]["path"], "typo.js");
    let v = check_json(&["./b/typo.js"], dir.path());
    assert_eq!(v[0]["path"], "./b/typo.js");
}

#[test]
fn a_folder_argument_names_files_from_the_current_folder() {
    let v = check_json(&["examples/demo/mistakes"], &repo());
    let member = v
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "member")
        .expect("member finding");
    assert_eq!(member["path"], "examples/demo/mistakes/member.js");
    // Human output too: the location line opens from here.
    let out = grounded(&["check", "examples/demo/mistakes/../mistakes"], &repo());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("┌─ examples/demo/mistakes/../mistakes/member.js:8:8"),
        "{text}"
    );
}

#[test]
fn json_carries_fixes_and_the_docs_link() {
    let v = check_json(&["mistakes/member.js"], &repo().join("examples/demo"));
    let f = &v[0];
    assert_eq!(f["code"], "member");
    let fix = &f["fixes"][0];
    assert_eq!(fix["title"], "Delete `layout.tableCellEnd()`");
    // Deleting line 8 whole: from its start to the start of line 9.
    assert_eq!(
        fix["edits"][0],
        serde_json::json!({"line": 8, "column": 1, "end_line": 9, "end_column": 1, "text": ""})
    );
    // The docs link opens from here: the corpus's layout chunk.
    let docs = &f["docs"];
    let path = repo()
        .join("examples/demo")
        .join(docs["path"].as_str().unwrap());
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let line = docs["line"].as_u64().unwrap() as usize;
    assert_eq!(text.lines().nth(line - 1), Some("# Layout"));
    // A finding without docs or fixes still has both keys.
    let v = check_json(&["mistakes/construct.js"], &repo().join("examples/demo"));
    assert!(
        v[0]["fixes"].is_array() && v[0].get("docs").is_some(),
        "{v:#}"
    );
}

#[test]
fn sarif_paths_are_relative_to_srcroot_and_fixes_are_fix_objects() {
    let out = grounded(
        &["check", "--format", "sarif", "examples/demo/mistakes"],
        &repo(),
    );
    let v = json(&out);
    let run = &v["runs"][0];
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
    let cwd = std::fs::canonicalize(repo()).unwrap();
    assert_eq!(base, format!("file://{}/", cwd.to_string_lossy()));
    let results = run["results"].as_array().unwrap();
    let member = results.iter().find(|r| r["ruleId"] == "member").unwrap();
    let loc = &member["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uri"], "examples/demo/mistakes/member.js");
    assert_eq!(loc["uriBaseId"], "%SRCROOT%");
    for r in results {
        assert_eq!(
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uriBaseId"],
            "%SRCROOT%"
        );
    }
    let fix = &member["fixes"][0];
    assert_eq!(fix["description"]["text"], "Delete `layout.tableCellEnd()`");
    let change = &fix["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uriBaseId"], "%SRCROOT%");
    let rep = &change["replacements"][0];
    assert_eq!(rep["deletedRegion"]["startLine"], 8);
    assert_eq!(rep["deletedRegion"]["endLine"], 9);
    assert_eq!(rep["insertedContent"]["text"], "");
}

/// A minified one-line script of about 400 KB with two mistakes in its middle.
fn minified() -> String {
    let filler = "layout.paragraph(\"x\");".repeat(9000);
    format!("{filler}layout.tableCellEnd();{filler}layout.tableRowEnd();{filler}\n")
}

#[test]
fn a_long_line_is_shown_as_a_window_around_the_finding() {
    let script = minified();
    let dir = project(&[("min.js", &script)]);
    let out = run(&["check", "min.js"], dir.path(), &[("COLUMNS", "100")]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.len() < 4000, "{} bytes printed", text.len());
    assert!(text.lines().all(|l| l.chars().count() <= 200), "{text}");
    assert!(text.contains("min.js:1:"), "{text}");
    // The window holds the wrong name with the caret under it, and says it was cut.
    let lines: Vec<&str> = text.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.starts_with("1 │ ") && l.contains("tableCellEnd"))
        .expect("the excerpt line");
    assert!(lines[i].contains('…'));
    let src: Vec<char> = lines[i].chars().collect();
    let caret: Vec<char> = lines[i + 1].chars().collect();
    let at = caret.iter().position(|&c| c == '^').unwrap();
    let under: String = src[at..]
        .iter()
        .take_while(|c| c.is_alphanumeric())
        .collect();
    assert_eq!(under, "tableCellEnd");
    assert_eq!(
        text.matches('^').count(),
        "tableCellEnd".len() + "tableRowEnd".len()
    );

    // A short line is shown whole, without `…`.
    let dir = project(&[("short.js", TYPO)]);
    let text =
        String::from_utf8_lossy(&grounded(&["check", "short.js"], dir.path()).stdout).into_owned();
    assert!(
        text.contains("1 │ layout.tableCellEnd();") && !text.contains('…'),
        "{text}"
    );
}

#[test]
fn the_dry_run_windows_a_long_line_too() {
    let filler = "var a = 1;".repeat(20000);
    let script =
        format!("{filler}function f(t) {{ t.cellSpacing = 2; }} f(new Table());{filler}\n");
    let dir = project(&[("min.js", &script)]);
    let out = run(&["dry-run", "min.js"], dir.path(), &[("COLUMNS", "100")]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("cellSpacing"), "{text}");
    assert!(text.len() < 6000, "{} bytes printed", text.len());
    assert!(text.lines().all(|l| l.chars().count() <= 400), "{text}");
    assert!(text.contains('…'), "{text}");
}

#[test]
fn checking_no_script_is_an_error_not_a_clean_run() {
    // The demo engine's scripts are `.js` and `.jsx`; a `.ts` file is none of them.
    let dir = project(&[("notes.txt", "nothing"), ("src/app.ts", TYPO)]);
    let out = grounded(&["check", "src"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no scripts found under src: the engine's script extensions are .js .jsx"),
        "{err}"
    );
    assert!(!String::from_utf8_lossy(&out.stdout).contains("no findings"));
    assert_eq!(err.trim().lines().count(), 1, "{err}");
    // Markdown with no js block is no script either.
    let dir = project(&[("README.md", "# Notes\n\nNo code.\n")]);
    let out = grounded(&["check"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    // A folder that holds a script is checked as before.
    let dir = project(&[("ok.js", CLEAN)]);
    let out = grounded(&["check"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no findings"));
}

#[test]
fn an_engine_without_the_folders_extension_says_which_extensions_it_has() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    std::fs::write(
        dir.path().join("docs/engine.md"),
        "# Engine\nECMAScript: 3\nScript extensions: .jsx\n\n# Box\nA box.\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("grounded.toml"), "docs = \"docs\"\n").unwrap();
    std::fs::write(dir.path().join("main.js"), "var a = 1;\n").unwrap();
    let out = grounded(&["check"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no scripts found under .: the engine's script extensions are .jsx"),
        "{err}"
    );
}

#[test]
fn doc_prints_a_whole_chunk_and_an_interfaces_members() {
    let demo = repo().join("examples/demo");
    let out = grounded(&["doc", "Layout.tableStart"], &demo);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("Syntax: tableStart(table: Table, style?: TableStyle): void"),
        "{text}"
    );
    // The whole chunk, not one line: its last paragraph is there too.
    assert!(
        text.contains("there is no `tableCellEnd`") || text.lines().count() > 5,
        "{text}"
    );
    // The global's name and the member title lead to the same chunk.
    for alias in ["layout.tableStart", "Layout-tableStart"] {
        let out = grounded(&["doc", alias], &demo);
        assert_eq!(String::from_utf8_lossy(&out.stdout), text, "{alias}");
    }
    let out = grounded(&["doc", "Layout"], &demo);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("accessed using the global property"),
        "{text}"
    );
    assert!(text.contains("Members of Layout"), "{text}");
    assert!(
        text.contains("  blockStart(block: Block, style?: BlockStyle): void"),
        "{text}"
    );
    // JSON: the members with their signatures.
    let v = json(&grounded(&["doc", "--format", "json", "Layout"], &demo));
    let members = v["members"].as_array().unwrap();
    let ts = members.iter().find(|m| m["name"] == "tableStart").unwrap();
    assert_eq!(
        ts["signatures"][0],
        "tableStart(table: Table, style?: TableStyle): void"
    );
    // A name the docs do not have: exit 1, and near names.
    let out = grounded(&["doc", "Layout.tableCellEnd"], &demo);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no `Layout.tableCellEnd`"));
    let out = grounded(&["doc", "Layuot"], &demo);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`Layout`"),
        "near name"
    );
}

#[test]
fn find_exits_1_when_nothing_matches() {
    let demo = repo().join("examples/demo");
    let hit = grounded(&["find", "-F", "formatMoney"], &demo);
    assert_eq!(hit.status.code(), Some(0));
    let miss = grounded(&["find", "-F", "noSuchThingAnywhere123"], &demo);
    assert_eq!(
        miss.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&miss.stdout)
    );
    let miss = grounded(
        &["find", "--format", "json", "-F", "noSuchThingAnywhere123"],
        &demo,
    );
    assert_eq!(miss.status.code(), Some(1));
    assert_eq!(json(&miss), serde_json::json!([]));
}

#[test]
fn every_command_refuses_sarif_the_same_way() {
    let demo = repo().join("examples/demo");
    let cases: Vec<Vec<&str>> = vec![
        vec!["lookup", "tableStart"],
        vec!["topic", "a table"],
        vec!["corpus"],
        vec!["doc", "Layout"],
        vec!["dry-run", "main.js"],
        vec!["constructs", "main.js"],
        vec!["find", "layout"],
    ];
    for args in cases {
        let mut a = args.clone();
        a.extend(["--format", "sarif"]);
        let out = grounded(&a, &demo);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!(
                "`{}` prints human or json; sarif is for `check`",
                args[0]
            )),
            "{args:?}: {err}"
        );
        assert!(out.stdout.is_empty(), "{args:?}");
        // json is accepted by each.
        let mut a = args.clone();
        a.extend(["--format", "json"]);
        let out = grounded(&a, &demo);
        assert_ne!(
            out.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn an_unknown_config_key_is_a_warning_naming_the_nearest_key() {
    let dir = project(&[("main.js", CLEAN)]);
    let toml = format!(
        "docs = {:?}\nentri = \"main.js\"\n[model]\nbase_url = \"http://127.0.0.1:1/v1\"\nnmae = \"m\"\n[agent]\nmax_steps = 3\nvalidate = \"true\"\n",
        demo_corpus()
    );
    std::fs::write(dir.path().join("grounded.toml"), toml).unwrap();
    let out = grounded(&["check"], dir.path());
    assert_eq!(out.status.code(), Some(0), "a warning, not an error");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown key `entri`") && err.contains("did you mean `entry`?"),
        "{err}"
    );
    assert!(
        err.contains("unknown key `model.nmae`") && err.contains("`model.name`"),
        "{err}"
    );
    // Known keys, [agent]'s included, are not warned about.
    for known in ["base_url", "max_steps", "validate", "`docs`"] {
        assert!(!err.contains(&format!("unknown key `{known}")), "{err}");
    }
    assert_eq!(err.matches("unknown key").count(), 2, "{err}");
    // A clean file says nothing.
    let dir = project(&[("main.js", CLEAN)]);
    let err = String::from_utf8_lossy(&grounded(&["check"], dir.path()).stderr).into_owned();
    assert!(!err.contains("unknown key"), "{err}");
}

#[test]
fn the_corpus_cache_lives_in_the_cache_folder_and_follows_the_bytes() {
    let cache = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("docs")).unwrap();
    let corpus = "# Desk\nThis object is accessed using the global property \"desk\".\n\n## Desk-fade\nSyntax: fade(level: number): void\n";
    std::fs::write(dir.path().join("docs/desk.md"), corpus).unwrap();
    std::fs::write(dir.path().join("grounded.toml"), "docs = \"docs\"\n").unwrap();
    std::fs::write(
        dir.path().join("main.js"),
        "desk.fade(1);\ndesk.fadeAll(0);\n",
    )
    .unwrap();
    let env = [("GROUNDED_CACHE_DIR", cache.path().to_str().unwrap())];
    let lines = |out: &Output| -> Vec<u64> {
        json(out)
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["line"].as_u64().unwrap())
            .collect()
    };
    let first = run(&["check", "--format", "json"], dir.path(), &env);
    assert_eq!(lines(&first), [2]);
    assert_eq!(
        std::fs::read_dir(cache.path()).unwrap().count(),
        1,
        "one cache file"
    );
    let before: Vec<_> = std::fs::read_dir(dir.path().join("docs"))
        .unwrap()
        .collect();
    assert_eq!(before.len(), 1, "nothing written beside the corpus");
    let second = run(&["check", "--format", "json"], dir.path(), &env);
    assert_eq!(second.stdout, first.stdout);
    assert_eq!(second.stderr, first.stderr);
    // One byte of the corpus changes (`fade` becomes `fadf`): the answer follows it.
    std::fs::write(
        dir.path().join("docs/desk.md"),
        corpus.replace("fade", "fadf"),
    )
    .unwrap();
    let third = run(&["check", "--format", "json"], dir.path(), &env);
    assert_eq!(lines(&third), [1, 2]);
    // A cache file made unreadable garbage is rebuilt silently.
    for e in std::fs::read_dir(cache.path()).unwrap() {
        std::fs::write(e.unwrap().path(), b"garbage").unwrap();
    }
    let fourth = run(&["check", "--format", "json"], dir.path(), &env);
    assert_eq!(fourth.stdout, third.stdout);
    assert_eq!(fourth.stderr, third.stderr);
}

#[test]
fn check_dry_run_of_a_folder_runs_its_top_level_scripts_or_the_configured_entry() {
    let files = [
        ("main.js", "loadJS(\"lib/t.js\");\nfill(new Table());\n"),
        (
            "lib/t.js",
            "function fill(t) {\n    t.rowsPerPage = 30;\n}\n",
        ),
        (
            "other.js",
            "function f(t) { t.cellSpacing = 2; }\nf(new Table());\n",
        ),
    ];
    // No entry named: main.js and other.js run (lib/t.js is loaded by main.js).
    let dir = project(&files);
    let out = grounded(&["check", "--dry-run", "--format", "json", "."], dir.path());
    let v = json(&out);
    let mut got: Vec<(String, u64)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["path"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect();
    got.sort();
    assert_eq!(
        got,
        [("lib/t.js".to_string(), 2), ("other.js".to_string(), 1)]
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("dry run of main.js, other.js\n"), "{err}");
    // With `entry` in grounded.toml: that entry only, and it says so.
    let toml = format!("docs = {:?}\nentry = \"main.js\"\n", demo_corpus());
    std::fs::write(dir.path().join("grounded.toml"), toml).unwrap();
    let out = grounded(&["check", "--dry-run", "--format", "json", "."], dir.path());
    let v = json(&out);
    let paths = paths_of(&v);
    assert_eq!(paths, ["lib/t.js"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("dry run of main.js (grounded.toml's entry)"),
        "{err}"
    );
    // From a folder above, the run's findings carry the path that opens from there.
    let (parent, name) = parent_and_name(dir.path());
    let out = grounded(&["check", "--dry-run", "--format", "json", &name], parent);
    let v = json(&out);
    assert_eq!(v[0]["path"], format!("{name}/lib/t.js"), "{v:#}");
}

/// `grounded corpus` counts in words a newcomer reads as written: a one-global,
/// one-constructor engine says "1 global, 1 constructor", not "1 globals".
#[test]
fn the_corpus_summary_counts_in_the_right_number() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = dir.path().join("docs");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(
        corpus.join("api.md"),
        "# Book\n\nThis object is accessed using the global property \"book\".\n\n\
         Constructor: new Book()\n\n## Book-title\n\nSyntax: title: string\n\n\
         ## Book-pages\n\nSyntax: pages: number\n",
    )
    .unwrap();
    let out = grounded(&["corpus", "--docs", "docs"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("1 interface, 2 members, 1 global, 1 constructor, 0 constructs"),
        "{stdout}"
    );
    // The demo engine has several of each: the plural stays.
    let out = grounded(&["corpus", "--docs", &demo_corpus()], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(" interfaces, ") && stdout.contains(" members, "),
        "{stdout}"
    );
}

/// `grounded doc`'s title stands over one blank line, then the chunk's first line.
#[test]
fn doc_puts_one_blank_line_under_the_title() {
    let dir = tempfile::tempdir().unwrap();
    let out = grounded(
        &["doc", "--docs", &demo_corpus(), "Layout.tableStart"],
        dir.path(),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("Layout-tableStart"), "{stdout}");
    assert_eq!(lines[1], "", "{stdout}");
    assert!(lines[2].starts_with("Syntax: tableStart("), "{stdout}");
}

// ---- Issue 28, the second pass: one test per point, each through the binary. ----

/// Point 1: a file the project scan could not read whole (Latin-1 elsewhere) is not a
/// script that was checked: `check data` of a folder with only a CSV still says no
/// script was found, and exits 2.
#[test]
fn an_unreadable_project_file_elsewhere_does_not_make_a_scriptless_folder_clean() {
    let dir = project(&[("data/t.csv", "a,b\n")]);
    std::fs::write(dir.path().join("latin1.js"), b"var s = \"caf\xe9\";\n").unwrap();
    let out = grounded(&["check", "data"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("no scripts found under data"), "{err}");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("no findings"));
}

/// Point 11: checking `bom.js` names `latin1.js` only as a file read for the project's
/// names, not as one the user asked to check.
#[test]
fn a_file_read_only_for_the_project_scan_says_so() {
    let dir = project(&[("bom.js", "\u{feff}layout.paragraph(\"x\");\n")]);
    std::fs::write(dir.path().join("latin1.js"), b"var s = \"caf\xe9\";\n").unwrap();
    let out = grounded(&["check", "bom.js"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "grounded: latin1.js (read for the project's names, not checked): not valid UTF-8"
        ),
        "{err}"
    );
    // Named by the user, the same file is said plainly.
    let out = grounded(&["check", "latin1.js"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("grounded: latin1.js: not valid UTF-8"),
        "{err}"
    );
    assert!(!err.contains("read for the project"), "{err}");
    // From a folder above, the scanned file's path opens from there.
    let (parent, name) = parent_and_name(dir.path());
    let arg = format!("{name}/bom.js");
    let out = grounded(&["check", &arg], parent);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!(
            "grounded: {name}/latin1.js (read for the project's names"
        )),
        "{err}"
    );
}

/// A corpus whose JSONL line for `Cell-note` is broken: the member is missing.
fn broken_corpus() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(
        docs.join("cell.md"),
        "# Cell\n\nThis object is accessed using the global property \"cell\".\n\n## Cell-text\n\nSyntax: text: string\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("more.jsonl"),
        "{\"title\": \"Cell-note\", \"text\": \"Syntax: note: string\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("grounded.toml"), "docs = \"docs\"\n").unwrap();
    std::fs::write(dir.path().join("main.js"), "var n = cell.note;\n").unwrap();
    dir
}

/// Point 2: a finding read without a word of the corpus's load diagnostics looked like
/// the script's fault. `check` says so on stderr; the demo corpus (whose only
/// diagnostic is a pair skipped as no construct) stays quiet.
#[test]
fn check_says_the_corpus_has_load_diagnostics() {
    let dir = broken_corpus();
    let out = grounded(&["check"], dir.path());
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("`Cell` has no member `note`"), "{stdout}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "grounded: warning: the corpus has 1 load diagnostic (`grounded corpus` lists it)"
        ),
        "{err}"
    );
    assert_eq!(err.matches("load diagnostic").count(), 1, "{err}");
    let demo = repo().join("examples/demo");
    let err = String::from_utf8_lossy(&grounded(&["check", "main.js"], &demo).stderr).into_owned();
    assert!(!err.contains("load diagnostic"), "{err}");
}

/// Issue 46: the load diagnostics on every run and hook, with no way to quiet them once
/// read, taught a team to skip stderr. `load_diagnostics_read = N` quiets them while the
/// corpus has no more than N; one more speaks again. Said once a run either way.
#[test]
fn load_diagnostics_are_quiet_once_the_project_has_read_them() {
    let dir = broken_corpus();
    let err = String::from_utf8_lossy(&grounded(&["check"], dir.path()).stderr).into_owned();
    assert!(
        err.contains("`load_diagnostics_read = 1` in grounded.toml quiets this"),
        "{err}"
    );
    std::fs::write(
        dir.path().join("grounded.toml"),
        "docs = \"docs\"\nload_diagnostics_read = 1\n",
    )
    .unwrap();
    let out = grounded(&["check", "--fix"], dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("load diagnostic"), "{err}");
    // The finding itself is still reported: only the caveat is quiet.
    assert!(String::from_utf8_lossy(&out.stdout).contains("`Cell` has no member `note`"));
    // Known-bad: the corpus has more than the project read.
    std::fs::write(
        dir.path().join("grounded.toml"),
        "docs = \"docs\"\nload_diagnostics_read = 0\n",
    )
    .unwrap();
    let err = String::from_utf8_lossy(&grounded(&["check"], dir.path()).stderr).into_owned();
    assert_eq!(
        err.matches("the corpus has 1 load diagnostic").count(),
        1,
        "{err}"
    );
}

/// Point 2, in the editor: one log line and one `window/showMessage` per corpus load.
#[test]
fn the_server_says_the_corpus_has_load_diagnostics_once() {
    let dir = broken_corpus();
    let mut lsp = common::Lsp::start(&[], &[("GROUNDED_CACHE_DIR", "")]);
    lsp.initialize(dir.path(), serde_json::json!({}));
    let msg = lsp.wait_for("the load-diagnostics message", |m| {
        m["method"] == "window/showMessage"
            && m["params"]["message"]
                .as_str()
                .is_some_and(|t| t.contains("load diagnostic"))
    });
    assert_eq!(msg["params"]["type"], 2, "a warning: {msg}");
    assert!(
        msg["params"]["message"]
            .as_str()
            .unwrap()
            .starts_with("grounded: the corpus has 1 load diagnostic"),
        "{msg}"
    );
    let main = dir.path().join("main.js");
    lsp.open(&common::uri(&main), "var n = cell.note;\n");
    lsp.wait_for("diagnostics", |m| {
        m["method"] == "textDocument/publishDiagnostics"
    });
    // One load, one log line (opening a file loads nothing again). The log is the
    // server's stderr, read by its own thread: at load average 12 the count was once
    // taken before that thread had read the line, so wait for it before counting.
    let count = |lsp: &common::Lsp| {
        lsp.log()
            .iter()
            .filter(|l| l.contains("the corpus has 1 load diagnostic"))
            .count()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while count(&lsp) == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert_eq!(count(&lsp), 1, "{:#?}", lsp.log());
    lsp.shutdown();
}

/// Point 3: `find` from the repository's root names files as `check` does, from there.
#[test]
fn find_names_files_from_where_it_ran() {
    let out = grounded(
        &["find", "-F", "layout.tableEnd(", "examples/demo/lib"],
        &repo(),
    );
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines().any(|l| l == "examples/demo/lib/tables.js"),
        "{text}"
    );
    let v = json(&grounded(
        &[
            "find",
            "--format",
            "json",
            "-F",
            "layout.tableEnd(",
            "examples/demo/lib",
        ],
        &repo(),
    ));
    let paths: Vec<&str> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["path"].as_str().unwrap())
        .collect();
    assert!(!paths.is_empty());
    for p in paths {
        assert!(repo().join(p).is_file(), "{p} does not open from the root");
    }
    // Run from the project's own root, the paths stay as they were.
    let out = grounded(
        &["find", "-F", "layout.tableEnd("],
        &repo().join("examples/demo"),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.lines().any(|l| l == "lib/tables.js"), "{text}");
}

/// Point 8: docs/corpus.md answers what a newcomer asked, and the tool does what it
/// says: a construct's `id` is its Start/End stem, `Global` needs no chunk of its own,
/// and `readonly` is said for what it is.
#[test]
fn the_corpus_guide_answers_the_newcomers_questions() {
    let guide = std::fs::read_to_string(repo().join("docs/corpus.md")).unwrap();
    assert!(guide.contains("`batch` for `batchStart`"), "construct id");
    assert!(
        guide.contains("`Global` needs no `# Global` chunk"),
        "Global"
    );
    assert!(
        guide.contains("is read-only\", quoting the signature line"),
        "readonly"
    );
    // As said: no `# Global` chunk, a `batch` construct named by its stem.
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(
        docs.join("api.md"),
        "## Global-include\n\nSyntax: include(file: path): void\n\n# Job\n\nA job.\n\nConstructor: new Job()\n\n# Queue\n\nThis object is accessed using the global property \"queue\".\n\n## Queue-batchStart\n\nSyntax: batchStart(job: Job): void\n\n## Queue-batchEnd\n\nSyntax: batchEnd(): void\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("facts.toml"),
        "[[construct]]\nid = \"batch\"\naliases = [\"batch\"]\n",
    )
    .unwrap();
    let out = grounded(&["corpus", "--docs", "docs"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("global functions: include"), "{text}");
    assert!(
        text.contains("construct batch: queue.batchStart(Job)"),
        "{text}"
    );
    assert!(text.contains("no load diagnostics"), "{text}");
}

/// Point 9: an unknown `facts.toml` key is a load diagnostic naming the nearest key.
#[test]
fn an_unknown_facts_key_is_a_load_diagnostic() {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::write(
        docs.join("api.md"),
        "# Book\n\nThis object is accessed using the global property \"book\".\n\n## Book-title\n\nSyntax: title: string\n",
    )
    .unwrap();
    std::fs::write(
        docs.join("facts.toml"),
        "# the overlay\n\n[extra]\nmembrs = [\"Book.pages\"]\n",
    )
    .unwrap();
    let out = grounded(&["corpus", "--docs", "docs"], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("diagnostic facts.toml:4: unknown key `extra.membrs`")
            && text.contains("did you mean `extra.members`?"),
        "{text}"
    );
}

/// Point 9: a `grounded.toml` syntax error names its line.
#[test]
fn a_grounded_toml_syntax_error_names_its_line() {
    let dir = project(&[("main.js", CLEAN)]);
    let toml = format!(
        "docs = {:?}\n\n[agent]\nmax_steps = 3\n\nmax_tokens = = 160\n",
        demo_corpus()
    );
    std::fs::write(dir.path().join("grounded.toml"), toml).unwrap();
    let out = grounded(&["check"], dir.path());
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("grounded.toml:6: "), "{err}");
}

/// An ES5 engine's corpus (the demo's with `ECMAScript: 5`).
fn es5_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    for e in std::fs::read_dir(repo().join("corpus/demo")).unwrap() {
        let p = e.unwrap().path();
        if p.is_file() {
            std::fs::copy(&p, docs.join(p.file_name().unwrap())).unwrap();
        }
    }
    let engine = std::fs::read_to_string(docs.join("engine.md")).unwrap();
    assert!(engine.contains("ECMAScript: 3"), "the demo's level line");
    std::fs::write(
        docs.join("engine.md"),
        engine.replace("ECMAScript: 3", "ECMAScript: 5"),
    )
    .unwrap();
    std::fs::write(dir.path().join("grounded.toml"), "docs = \"docs\"\n").unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

/// Point 10: under ES5, `includes` on an array says `indexOf` and offers it as a fix;
/// `startsWith`'s message and fix say the same expression.
#[test]
fn engine_messages_fit_the_engines_level() {
    let dir = es5_project(&[(
        "main.js",
        "var names = [\"a\", \"b\"];\nif (names.includes(\"a\")) { layout.paragraph(\"x\"); }\nvar s = \"abc\";\nif (s.startsWith(\"a\")) { layout.paragraph(\"y\"); }\n",
    )]);
    let v = check_json(&["main.js"], dir.path());
    let all = v.as_array().unwrap();
    let inc = all
        .iter()
        .find(|f| f["message"].as_str().unwrap().contains("includes"))
        .unwrap_or_else(|| panic!("{v:#}"));
    let msg = inc["message"].as_str().unwrap();
    assert!(msg.contains("test `a.indexOf(x) != -1`"), "{msg}");
    assert!(!msg.contains("loop with an index"), "{msg}");
    assert_eq!(
        inc["fixes"][0]["title"],
        "Replace with `(names.indexOf(\"a\") != -1)`"
    );
    let sw = all
        .iter()
        .find(|f| f["message"].as_str().unwrap().contains("startsWith"))
        .unwrap_or_else(|| panic!("{v:#}"));
    let msg = sw["message"].as_str().unwrap();
    assert!(msg.contains("`s.indexOf(prefix) === 0`"), "{msg}");
    assert!(!msg.contains("substring"), "{msg}");
    assert_eq!(
        sw["fixes"][0]["title"],
        "Replace with `(s.indexOf(\"a\") === 0)`"
    );
    // Under ES3 (the demo) arrays have no `indexOf`: the loop stays, with no fix.
    let dir = project(&[(
        "main.js",
        "var names = [\"a\", \"b\"];\nif (names.includes(\"a\")) { layout.paragraph(\"x\"); }\n",
    )]);
    let v = check_json(&["main.js"], dir.path());
    let msg = v[0]["message"].as_str().unwrap();
    assert!(msg.contains("loop with an index"), "{msg}");
    assert_eq!(v[0]["fixes"], serde_json::json!([]));
}

/// Point 10: a function a project file declares but this script never loads is said
/// as such, with the file, not "defined nowhere".
#[test]
fn a_function_of_a_file_not_loaded_says_where_it_is() {
    let dir = project(&[
        ("lib/util.js", "function helper() { return 1; }\n"),
        ("lib/other.js", "var x = 1;\n"),
        ("main.js", "loadJS(\"lib/other.js\");\nhelper();\n"),
    ]);
    let v = check_json(&["main.js"], dir.path());
    let f = &v[0];
    assert_eq!(f["code"], "function", "{v:#}");
    let msg = f["message"].as_str().unwrap();
    assert!(
        msg.contains(
            "`helper` is declared in the project's `lib/util.js`, which this script does not load"
        ),
        "{msg}"
    );
    assert!(!msg.contains("defined nowhere"), "{msg}");
    // Loaded, it is found; declared nowhere, it is still "defined nowhere".
    std::fs::write(
        dir.path().join("main.js"),
        "loadJS(\"lib/util.js\");\nhelper();\nhelpr2();\n",
    )
    .unwrap();
    let v = check_json(&["main.js"], dir.path());
    assert_eq!(v.as_array().unwrap().len(), 1, "{v:#}");
    assert!(v[0]["message"]
        .as_str()
        .unwrap()
        .contains("defined nowhere"));
}

/// Point 10: `topic` shows a construct's `no_close` where there is no call: it says
/// nothing of deleting one.
#[test]
fn topic_says_nothing_of_a_call_it_does_not_have() {
    let demo = repo().join("examples/demo");
    let out = grounded(&["topic", "display the data in a table"], &demo);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("Rows and cells end implicitly"), "{text}");
    assert!(!text.contains("Deleting the call"), "{text}");
}

/// Point 12: `grounded corpus` lists the global functions (`Global`'s and `[extra]`'s).
#[test]
fn the_corpus_summary_lists_the_global_functions() {
    let dir = tempfile::tempdir().unwrap();
    let out = grounded(&["corpus", "--docs", &demo_corpus()], dir.path());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("global functions: alert, confirm, importJS, loadJS, print, exit ([extra])"),
        "{text}"
    );
    assert!(
        text.contains("global variables: engineVersion, scriptName"),
        "{text}"
    );
}

/// Point 12: a prose-only Markdown file named on the command line is said to have no
/// js block, not "no scripts found under" it as if it were a folder. Issue 46: and it is
/// checked and clean (exit 0): a prose README staged alone failed the pre-commit hook.
#[test]
fn a_prose_only_markdown_file_says_it_has_no_js_block() {
    let dir = project(&[("prose/prose.md", "# Notes\n\nNo code here.\n")]);
    let out = grounded(&["check", "prose/prose.md"], dir.path());
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("no findings"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("grounded: prose/prose.md has no fenced js block"),
        "{err}"
    );
    assert!(!err.contains("no scripts found under"), "{err}");
}

/// Point 12: a refused connection is said as one, not as "unreachable".
#[test]
fn a_refused_connection_says_connection_refused() {
    let dir = project(&[("main.js", CLEAN)]);
    let home = tempfile::tempdir().unwrap();
    // A port nothing listens on: bound, then freed.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let h = home.path().to_str().unwrap();
    let out = run(
        &["agent", "--base-url", &url, "--model", "m", "say hello"],
        dir.path(),
        &[("HOME", h), ("XDG_CONFIG_HOME", h), ("XDG_CACHE_HOME", h)],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(&format!("model endpoint {url}: connection refused")),
        "{err}"
    );
    assert!(!err.contains("unreachable"), "{err}");
}

/// What a terminal shows after `bytes`: `\r` returns to the line's start, `ESC [K`
/// clears to its end, `\n` starts the next line.
fn screen(bytes: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(bytes);
    let mut lines: Vec<Vec<char>> = vec![Vec::new()];
    let mut col = 0;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let line = lines.last_mut().unwrap();
        match c {
            '\r' => col = 0,
            '\n' => {
                lines.push(Vec::new());
                col = 0;
            }
            '\x1b' => {
                // Only `ESC [ K` is written; anything else is skipped to its letter.
                let mut seq = String::new();
                for n in chars.by_ref() {
                    seq.push(n);
                    if n.is_ascii_alphabetic() {
                        break;
                    }
                }
                if seq == "[K" {
                    line.truncate(col);
                }
            }
            c => {
                if col < line.len() {
                    line[col] = c;
                } else {
                    line.push(c);
                }
                col += 1;
            }
        }
    }
    lines.into_iter().map(|l| l.into_iter().collect()).collect()
}

/// Point 12: on a terminal, Ctrl-C during a wait leaves no spinner line on screen.
#[cfg(unix)]
#[test]
fn ctrl_c_clears_the_spinners_line_on_a_terminal() {
    use common::model_server::{say, ModelServer, Scripted};
    use std::io::Read;
    use std::os::fd::FromRawFd;
    use std::time::{Duration, Instant};

    let dir = project(&[("main.js", CLEAN)]);
    let home = tempfile::tempdir().unwrap();
    let server = ModelServer::start(vec![Scripted::Hang(
        Duration::from_secs(60),
        say("too late"),
    )]);
    let (mut master, mut slave) = (0, 0);
    // SAFETY: openpty fills two descriptors; no name, default settings.
    let rc = unsafe {
        libc::openpty(
            &mut master,
            &mut slave,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(rc, 0, "openpty");
    // SAFETY: both descriptors were just opened and are owned here alone.
    let (master, slave) = unsafe {
        (
            std::fs::File::from_raw_fd(master),
            std::fs::File::from_raw_fd(slave),
        )
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .args([
            "agent",
            "--base-url",
            &server.url,
            "--model",
            "scripted",
            "say hi",
        ])
        .current_dir(dir.path())
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path())
        .env("XDG_CACHE_HOME", home.path())
        .env("GROUNDED_CACHE_DIR", "")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(slave)
        .spawn()
        .unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let mut reader = master;
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        // Ends with EIO once the child has exited and the slave is closed.
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buf[..n]);
        }
    });
    let t0 = Instant::now();
    while !String::from_utf8_lossy(&seen.lock().unwrap()).contains("waiting for the model") {
        assert!(
            t0.elapsed() < Duration::from_secs(30),
            "no spinner: {:?}",
            String::from_utf8_lossy(&seen.lock().unwrap())
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // SAFETY: a signal to our own child.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(1));
    std::thread::sleep(Duration::from_millis(300));
    let bytes = seen.lock().unwrap().clone();
    let lines = screen(&bytes);
    assert!(
        lines.iter().any(|l| l.contains("cancelling the turn")),
        "{lines:#?}"
    );
    assert!(
        !lines.iter().any(|l| l.contains("waiting for the model")),
        "the spinner's line stayed: {lines:#?}\n{:?}",
        String::from_utf8_lossy(&bytes)
    );
}

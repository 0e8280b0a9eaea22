//! What a newcomer meets first, through the real binary: paths that open from where
//! the command ran, fixes and docs in JSON and SARIF, long lines kept to a screen's
//! width, no "clean" after checking nothing, `doc`, `find`'s exit status, one way of
//! refusing `--format sarif`, warnings for unknown `grounded.toml` keys, and the
//! corpus cache seen from outside.

mod common;

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

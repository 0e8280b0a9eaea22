//! Every family against its fixtures (`tests/fixtures/check/FAMILY/`): the known-good
//! files (script and Markdown) check clean, every finding of a known-bad file has the
//! family's code, and the findings are snapshots (`tests/snapshots/`).
//!
//! The fixtures hold the hard cases: shadowed globals, parameters, user objects with
//! arbitrary properties, the engine's DOM names, members reached through inheritance,
//! functions and constructors defined in another (loaded) file, feature detection,
//! polyfills, engine directives.

use std::path::{Path, PathBuf};

use grounded::check::{self, Code, Finding, Fix, ProjectIndex};
use grounded::docs::{bundled, Corpus};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/check")
}

fn render(findings: &[Finding]) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&format!(
            "{}:{}:{}-{}:{} [{}] {}\n",
            f.path,
            f.line,
            f.column,
            f.end_line,
            f.end_column,
            f.code.as_str(),
            f.message
        ));
        for fix in &f.fixes {
            match fix {
                Fix::Replace { title, .. } => out.push_str(&format!("    fix: {title}\n")),
                Fix::Delete { title, span, .. } => out.push_str(&format!(
                    "    fix: {title} (bytes {}..{})\n",
                    span.start, span.end
                )),
            }
        }
        if let Some(r) = &f.related {
            out.push_str(&format!(
                "    docs: {} at {}:{}\n",
                r.message, r.file, r.line
            ));
        }
    }
    out
}

/// The findings of one fixture file, the `construct` and `dry-run` families left out
/// (other layers own them).
fn findings(corpus: &Corpus, project: &ProjectIndex, rel: &str) -> Vec<Finding> {
    let text = std::fs::read_to_string(fixtures().join(rel)).expect("fixture exists");
    check::check_text(corpus, project, rel, &text)
        .into_iter()
        .filter(|f| !matches!(f.code, Code::Construct | Code::DryRun))
        .collect()
}

fn family(name: &str, code: Code) {
    let corpus = bundled::demo().expect("bundled corpus");
    let project = ProjectIndex::scan(&corpus, &fixtures());
    for good in ["good.js", "good.md"] {
        let rel = format!("{name}/{good}");
        let f = findings(&corpus, &project, &rel);
        assert!(f.is_empty(), "{rel} must check clean:\n{}", render(&f));
    }
    for bad in ["bad.js", "bad.md"] {
        let rel = format!("{name}/{bad}");
        let f = findings(&corpus, &project, &rel);
        assert!(!f.is_empty(), "{rel} must have findings");
        assert!(
            f.iter().all(|x| x.code == code),
            "{rel}: every finding is `{}`:\n{}",
            code.as_str(),
            render(&f)
        );
        insta::assert_snapshot!(format!("{name}_{}", bad.replace('.', "_")), render(&f));
    }
}

#[test]
fn member() {
    family("member", Code::Member);
}

#[test]
fn object() {
    family("object", Code::Object);
}

#[test]
fn function() {
    family("function", Code::Function);
}

#[test]
fn syntax() {
    family("syntax", Code::Syntax);
}

#[test]
fn option() {
    family("option", Code::Option);
}

#[test]
fn constructor() {
    family("constructor", Code::Constructor);
}

#[test]
fn engine() {
    family("engine", Code::Engine);
}

#[test]
fn file() {
    family("file", Code::File);
}

/// An absent member's fix deletes the whole statement line, and says why nothing is
/// lost.
#[test]
fn absent_member_fix_deletes_the_line() {
    let corpus = bundled::demo().expect("bundled corpus");
    let project = ProjectIndex::scan(&corpus, &fixtures());
    let rel = "member/bad.js";
    let text = std::fs::read_to_string(fixtures().join(rel)).unwrap();
    let f = findings(&corpus, &project, rel);
    let absent = f
        .iter()
        .find(|x| x.message.contains("tableCellEnd"))
        .expect("tableCellEnd reported");
    let Some(Fix::Delete { span, detail, .. }) = absent.fixes.first() else {
        panic!("a Delete fix");
    };
    assert_eq!(&text[span.start..span.end], "layout.tableCellEnd();\n");
    assert!(detail.as_deref().unwrap_or("").contains("implicitly"));
}

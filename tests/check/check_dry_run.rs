//! `grounded check --dry-run`: the fake-engine run's findings merged with the static
//! ones, once each.

use std::process::Command;

fn demo() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/demo")
}

fn check(args: &[&str]) -> (i32, Vec<serde_json::Value>) {
    let out = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .arg("check")
        .args(args)
        .args(["--format", "json"])
        .current_dir(demo())
        .output()
        .expect("runs");
    (
        out.status.code().unwrap_or(-1),
        serde_json::from_slice(&out.stdout).expect("JSON array"),
    )
}

#[test]
fn dry_run_catches_what_the_static_check_cannot_judge() {
    // A parameter is never judged statically: without --dry-run, nothing.
    let (code, findings) = check(&["mistakes/dynamic.js"]);
    assert_eq!((code, findings.len()), (0, 0), "{findings:?}");
    let (code, findings) = check(&["--dry-run", "mistakes/dynamic.js"]);
    assert_eq!(code, 1);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0]["code"], "dry-run");
    assert_eq!(findings[0]["line"], 6);
    assert!(findings[0]["message"]
        .as_str()
        .unwrap()
        .contains("cellSpacing"));
}

#[test]
fn a_mistake_both_layers_see_is_reported_once() {
    let (_, statics) = check(&["mistakes/member.js"]);
    let (code, merged) = check(&["--dry-run", "mistakes/member.js"]);
    assert_eq!(code, 1);
    assert_eq!(statics.len(), 1);
    assert_eq!(
        merged, statics,
        "the run meets tableCellEnd too, but it is said once"
    );
}

#[test]
fn the_clean_project_stays_clean_with_the_dry_run() {
    let (code, findings) = check(&["--dry-run", "main.js", "lib"]);
    assert_eq!((code, findings.len()), (0, 0), "{findings:?}");
}

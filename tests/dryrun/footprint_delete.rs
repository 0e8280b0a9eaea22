//! Delete-scan on real files: only marked lines go, the result is shorter, and every
//! refusal leaves the file untouched.

use grounded::footprint::{delete_lines, parse_delete_marks, DeleteRefusal, FileStamp};

fn setup(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("s.js");
    std::fs::write(&p, text).unwrap();
    (dir, p)
}

const TEXT: &str = "var t = new Table();\nlayout.tableStart(t);\nlayout.tableCell(\"a\");\nlayout.tableCellEnd();\nlayout.tableEnd();\n";

#[test]
fn agent_markers_delete_exactly_those_lines() {
    let (dir, p) = setup(TEXT);
    let marks = parse_delete_marks("4: DELETE\n").unwrap();
    let out = delete_lines(&p, &marks, &FileStamp::of(TEXT)).unwrap();
    let now = std::fs::read_to_string(&p).unwrap();
    assert_eq!(now, TEXT.replace("layout.tableCellEnd();\n", ""));
    assert_eq!(out.removed, vec![(4, "layout.tableCellEnd();".to_string())]);
    assert!(now.len() < TEXT.len());
    assert_eq!(out.stamp, FileStamp::of(&now));
    // No temporary file is left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn refusals_write_nothing() {
    let (dir, p) = setup(TEXT);
    let stamp = FileStamp::of(TEXT);
    let r = delete_lines(&p, &[6], &stamp).unwrap_err();
    assert_eq!(r, DeleteRefusal::OutOfRange { line: 6, lines: 5 });
    assert!(r.to_string().contains("nothing was changed"));
    assert_eq!(
        delete_lines(&p, &[], &stamp).unwrap_err(),
        DeleteRefusal::NoMarks
    );
    assert_eq!(std::fs::read_to_string(&p).unwrap(), TEXT);

    // Someone edits the file after it was read: the old marks are refused.
    let edited = format!("// edited\n{TEXT}");
    std::fs::write(&p, &edited).unwrap();
    let r = delete_lines(&p, &[4], &stamp).unwrap_err();
    assert!(matches!(r, DeleteRefusal::Changed { .. }), "{r:?}");
    assert_eq!(std::fs::read_to_string(&p).unwrap(), edited);

    let missing = dir.path().join("gone.js");
    assert!(matches!(
        delete_lines(&missing, &[1], &stamp),
        Err(DeleteRefusal::Io(_))
    ));
    assert!(!missing.exists());
}

#[test]
fn markers_that_are_not_markers_are_refused() {
    assert!(parse_delete_marks("4: DELETE\nplease also tidy line 5\n").is_err());
    assert_eq!(
        parse_delete_marks("L2: DELETE\n3-4: DELETE").unwrap(),
        vec![2, 3, 4]
    );
}

//! Files are checked on every core (issue 48): every output is byte for byte what one
//! thread gives. A project of many files, with findings of several families, a file
//! skipped, one read with a caveat, one excluded and ignore comments, checked through the
//! real binary with `RAYON_NUM_THREADS=1` and with more threads than files per thread;
//! and with the project scan's trees kept for the check (`GROUNDED_KEEP_TREES`: none,
//! only the first file's, all), which must not change a byte either.

use crate::common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// Mistakes of several families, one file each, copied into many folders so the
/// threads interleave: member, function, option, constructor, object, construct, file,
/// syntax; an ignore comment that silences one and one that silences nothing.
const MISTAKES: &[(&str, &str)] = &[
    ("member.js", "layout.pageBrek();\nlayout.paragraph(\"a\");\n"),
    ("function.js", "missingHelper(1);\nformatMoney(2);\n"),
    (
        "option.js",
        "layout.paragraph(\"x\", { colour: \"red\", bold: true });\n",
    ),
    ("constructor.js", "var t = new Tabel();\n"),
    ("object.js", "engine.loadXML(\"a.xml\");\n"),
    (
        "construct.js",
        "function f() {\n    var t = new Table();\n    layout.tableStart(t);\n    layout.tableRow();\n}\nf();\n",
    ),
    ("file.js", "loadJS(\"lib/nowhere.js\");\n"),
    ("syntax.js", "var a = [1, 2;\nlet b = 3;\n"),
    (
        "ignored.js",
        "// grounded-ignore member: known\nlayout.pageBrek();\n// grounded-ignore option\nlayout.paragraph(\"y\");\n",
    ),
];

/// The project: `folders` copies of the mistakes beside a library they load, a Latin-1
/// file (read with a caveat), a binary `.js` (skipped), an excluded folder.
fn project(folders: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(
        root.join("grounded.toml"),
        format!(
            "docs = {:?}\n[check]\nexclude = [\"vendor/**\"]\n",
            common::demo_corpus()
        ),
    )
    .unwrap();
    std::fs::create_dir_all(root.join("lib")).unwrap();
    std::fs::write(
        root.join("lib/helpers.js"),
        "function formatMoney(v) {\n    return v.toFixed(2);\n}\n",
    )
    .unwrap();
    for k in 0..folders {
        let d = root.join(format!("part{k:02}"));
        std::fs::create_dir_all(&d).unwrap();
        for (name, text) in MISTAKES {
            std::fs::write(
                d.join(name),
                format!("loadJS(\"lib/helpers.js\");\n// part {k}\n{text}"),
            )
            .unwrap();
        }
    }
    std::fs::write(
        root.join("part03/latin1.js"),
        b"// caf\xe9\nlayout.pageBrek();\n",
    )
    .unwrap();
    std::fs::write(root.join("part05/binary.js"), b"var a\0 = 1;\n").unwrap();
    std::fs::create_dir_all(root.join("vendor")).unwrap();
    std::fs::write(root.join("vendor/lib.js"), "layout.pageBrek();\n").unwrap();
    dir
}

/// `grounded check --format FORMAT .` in `root` on `threads` threads, keeping `keep`
/// bytes of the scan's trees (`None`: the default): status, stdout, stderr.
fn run(
    root: &Path,
    format: &str,
    threads: &str,
    keep: Option<&str>,
) -> (Option<i32>, Vec<u8>, Vec<u8>) {
    let mut cmd = Command::new(common::bin());
    cmd.args(["check", "--format", format, "."])
        .current_dir(root)
        .env("RAYON_NUM_THREADS", threads)
        .env("NO_COLOR", "1")
        .env_remove("GROUNDED_KEEP_TREES");
    if let Some(k) = keep {
        cmd.env("GROUNDED_KEEP_TREES", k);
    }
    let out = cmd.output().expect("runs");
    (out.status.code(), out.stdout, out.stderr)
}

#[test]
fn parallel_output_is_byte_for_byte_the_single_threaded_one() {
    let dir = project(12);
    let root = dir.path();
    // The run is judged first: a comparison of two empty outputs would prove nothing.
    let (status, json, err) = run(root, "json", "1", Some("0"));
    assert_eq!(status, Some(1), "{}", String::from_utf8_lossy(&err));
    let findings: Vec<Value> = serde_json::from_slice(&json).unwrap();
    let mut codes: Vec<&str> = findings.iter().filter_map(|f| f["code"].as_str()).collect();
    codes.sort();
    codes.dedup();
    for family in [
        "member",
        "function",
        "option",
        "constructor",
        "object",
        "construct",
        "file",
        "syntax",
    ] {
        assert!(codes.contains(&family), "{family} not found in {codes:?}");
    }
    let err = String::from_utf8_lossy(&err);
    assert!(
        err.contains("latin1.js") && err.contains("binary.js"),
        "{err}"
    );
    for format in ["human", "json", "sarif"] {
        // One thread, every file parsed twice: the way before either change.
        let one = run(root, format, "1", Some("0"));
        for (threads, keep) in [
            ("1", None),
            ("1", Some("1")),
            ("2", Some("0")),
            ("2", None),
            ("4", Some("1")),
            ("4", None),
            ("7", Some("0")),
            ("7", None),
        ] {
            let many = run(root, format, threads, keep);
            let how = format!("{threads} threads, trees kept {keep:?}");
            assert_eq!(one.0, many.0, "{format}: exit status on {how}");
            assert!(
                one.1 == many.1,
                "{format}: stdout on {how} differs from one thread:\n{}\n---\n{}",
                String::from_utf8_lossy(&one.1),
                String::from_utf8_lossy(&many.1)
            );
            assert!(
                one.2 == many.2,
                "{format}: stderr on {how} differs:\n{}\n---\n{}",
                String::from_utf8_lossy(&one.2),
                String::from_utf8_lossy(&many.2)
            );
        }
    }
}

/// `grounded check --format FORMAT FILE` in `cwd` (one file: the scan's analysis of it
/// is kept for its check unless `GROUNDED_KEEP_TREES=0`): status, stdout, stderr.
fn run_one(cwd: &Path, format: &str, file: &str, keep: Option<&str>) -> (Option<i32>, Vec<u8>) {
    let mut cmd = Command::new(common::bin());
    cmd.args(["check", "--format", format, file])
        .current_dir(cwd)
        .env("NO_COLOR", "1")
        .env_remove("GROUNDED_KEEP_TREES");
    if let Some(k) = keep {
        cmd.env("GROUNDED_KEEP_TREES", k);
    }
    let out = cmd.output().expect("runs");
    let mut both = out.stdout;
    both.extend(out.stderr);
    (out.status.code(), both)
}

/// Issue 48: a run of one file keeps the project scan's analysis of it, not only its
/// tree, and judges with it; what it prints is byte for byte what parsing and analysing
/// the file again gives, named from the root or from its own folder (where the name
/// shown and the path in the project differ).
#[test]
fn one_file_checked_with_the_scans_analysis_prints_what_a_fresh_one_does() {
    // Six folders: `part03` holds the Latin-1 file, `part05` the binary one.
    let dir = project(6);
    let root = dir.path();
    let mut judged = 0;
    for (name, _) in MISTAKES.iter().copied().chain([("latin1.js", "")]) {
        let folder = if name == "latin1.js" {
            "part03"
        } else {
            "part01"
        };
        for (cwd, file) in [
            (root.to_path_buf(), format!("{folder}/{name}")),
            (root.join(folder), name.to_string()),
        ] {
            for format in ["human", "json", "sarif"] {
                let fresh = run_one(&cwd, format, &file, Some("0"));
                let kept = run_one(&cwd, format, &file, None);
                assert_eq!(fresh, kept, "{format} of {file} in {}", cwd.display());
                judged += usize::from(fresh.0 == Some(1));
            }
        }
    }
    // Known-bad files: the comparisons are of findings, not of empty outputs.
    assert!(judged >= 6, "only {judged} runs found anything");
}

//! `grounded check` of a project of many files, as users' projects are: not one big file
//! but hundreds of scripts of a few hundred lines, loading each other's helpers, with
//! constructs, objects kept in variables and a few mistakes.
//!
//! Run: `cargo bench --bench project`. Issue 48's targets are whole-process ones
//! (`grounded check` of the project against `tsc -p` with `checkJs` over the same files),
//! so the generated project can be written out and left in place:
//! `GROUNDED_BENCH_PROJECT=DIR cargo bench --bench project` writes it to `DIR` (with a
//! `grounded.toml` naming the bundled demo corpus) and exits; time `grounded check DIR`
//! from outside (`/usr/bin/time -v`, paired runs). The in-process figure below excludes
//! the corpus load (a warm cache makes that a few milliseconds) and process start-up.
//!
//! The project: `FOLDERS` folders of ten scripts each (four libraries, five reports, a
//! main script), about 130 lines a script (51,000 lines, 1.8 MB); every folder loads its libraries by literal
//! path, and one script loads by a computed path, so every top-level name of the project
//! counts in every script (how scripts of engines that share one global scope are
//! judged, and the costliest case for the project index).

use std::fmt::Write as _;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

use grounded::check;
use grounded::docs::bundled;

/// Folders of ten scripts: 40 makes the 400-file project of issue 48.
const FOLDERS: usize = 40;

/// Sections of a report, and table, note, list and data helpers of a library: 8 makes
/// about 130 lines a script, 51,000 in the project (issue 48's real scripts: 55,000 lines
/// in 390 files).
const SECTIONS: usize = 8;

/// A library of formatting helpers, an options object kept in a variable, and an
/// implicit global.
fn format_lib(k: usize) -> String {
    let mut s = format!(
        "// Formatting helpers of report set {k}.\n\
         var STYLE_{k} = {{ fontSize: 9, color: \"#333333\", bold: false }};\n\
         var NOTE_STYLE_{k} = {{ backgroundColor: \"#f4f6f8\", borderWidth: 0.5, padding: 6 }};\n\
         counter{k} = 0;\n\n"
    );
    for i in 0..12 {
        let _ = write!(
            s,
            r#"// Formats a value for column {i}.
function format{i}_{k}(value, digits) {{
    if (value === null || value === undefined) {{
        return "";
    }}
    var text = typeof value === "number" ? value.toFixed(digits || 2) : String(value);
    text = text.replace(/^\s+|\s+$/g, "");
    while (text.length < 8) {{
        text = " " + text;
    }}
    counter{k} = counter{k} + 1;
    return text.toUpperCase().substring(0, 40);
}}

"#
        );
    }
    s
}

/// Table builders: a construct per function, an object made with `new` and configured.
fn tables_lib(k: usize) -> String {
    let mut s = format!("// Tables of report set {k}.\nloadJS(\"p{k}/lib/format.js\");\n\n");
    for i in 0..SECTIONS {
        let _ = write!(
            s,
            r##"function table{i}_{k}(rows, title) {{
    var table = new Table();
    table.columns = 3;
    table.caption = title + " {i}";
    table.repeatHeader = true;
    layout.tableStart(table, {{ cellPadding: 4, headerBackground: "#eeeeee" }});
    layout.tableHeader(["Item", "Count", "Total"], {{ align: "center" }});
    var sum = 0;
    for (var r = 0; r < rows.length; r++) {{
        layout.tableRow();
        layout.tableCell(format{i}_{k}(rows[r].name));
        layout.tableCell(format{i}_{k}(rows[r].count, 0), {{ align: "right" }});
        layout.tableCell(format{i}_{k}(rows[r].total, 2), {{ align: "decimal" }});
        sum = sum + rows[r].total;
    }}
    layout.tableEnd();
    return sum;
}}

"##
        );
    }
    s
}

/// Blocks and lists around paragraphs.
fn blocks_lib(k: usize) -> String {
    let mut s =
        format!("// Notes and lists of report set {k}.\nloadJS(\"p{k}/lib/format.js\");\n\n");
    for i in 0..SECTIONS {
        let _ = write!(
            s,
            r##"function note{i}_{k}(title, lines) {{
    var box = new Block();
    box.name = "note{i}";
    box.keepTogether = true;
    layout.blockStart(box, NOTE_STYLE_{k});
    layout.paragraph(title, {{ bold: true }});
    for (var i = 0; i < lines.length; i++) {{
        layout.paragraph(format{i}_{k}(lines[i]), STYLE_{k});
    }}
    layout.blockEnd();
}}

function list{i}_{k}(items) {{
    var list = new List();
    layout.listStart(list, {{ bullet: "-", indent: 12 }});
    for (var i = 0; i < items.length; i++) {{
        layout.listItem(String(items[i]));
    }}
    layout.listEnd();
    return items.length;
}}

"##
        );
    }
    s
}

/// Reading data through the documented readers.
fn data_lib(k: usize) -> String {
    let mut s = format!("// Data of report set {k}.\n\n");
    for i in 0..SECTIONS {
        let _ = write!(
            s,
            r#"function rows{i}_{k}(name) {{
    var csv = data.openCsv("p{k}/data/prices.csv");
    csv.hasHeader = true;
    var out = [];
    while (!csv.eof) {{
        var row = csv.readRow();
        out.push({{ name: row[0], count: data.parseNumber(row[1]), total: data.parseNumber(row[2]) }});
    }}
    csv.close();
    if (out.length === 0) {{
        print("no rows in " + name);
    }}
    return out;
}}

"#
        );
    }
    s
}

/// A report: loads the libraries, lays out sections at the top level and in functions;
/// one report in seven holds mistakes of several families.
fn report(k: usize, n: usize) -> String {
    let mut s = format!(
        "// Report {n} of set {k}.\n\
         loadJS(\"p{k}/lib/tables.js\");\n\
         loadJS(\"p{k}/lib/blocks.js\");\n\
         loadJS(\"p{k}/lib/data.js\");\n\n\
         var doc = app.activeDocument;\n\
         var title = \"Report {n} \" + doc.name;\n\
         layout.setHeader(title, STYLE_{k});\n\n"
    );
    for i in 0..SECTIONS {
        let _ = write!(
            s,
            r#"function section{i}_{n}(rows) {{
    var heading = layout.heading("Section {i}", 2);
    heading.keepWithNext = true;
    var total = table{i}_{k}(rows, "Figures");
    note{i}_{k}("Total", ["Sum " + total, "Rows " + rows.length]);
    if (total > 100) {{
        list{i}_{k}(["Over budget", "Check the figures"]);
    }}
    return total;
}}

var rows{i} = rows{i}_{k}("section {i}");
var total{i} = section{i}_{n}(rows{i});
print("Section {i}: " + total{i});

"#
        );
    }
    if (k * 5 + n) % 7 == 3 {
        s.push_str(
            "layout.pageBrek();\n\
             missingHelper(doc);\n\
             layout.paragraph(\"x\", { colour: \"red\" });\n\
             var t = new Tabel();\n",
        );
    }
    s.push_str("layout.exportPDF(\"report.pdf\");\n");
    s
}

/// The main script of a folder: loads every report.
fn main_script(k: usize) -> String {
    let mut s = format!("// Runs the reports of set {k}.\n");
    for n in 0..5 {
        let _ = writeln!(s, "loadJS(\"p{k}/reports/r{n}.js\");");
    }
    if k == 0 {
        // A load by a computed path: every script's names count everywhere.
        s.push_str("var extra = data.baseFolder + \"/extra.js\";\nloadJS(extra);\n");
    }
    s.push_str("print(\"done \" + layout.pageCount);\n");
    s
}

/// Writes the project under `dir`: `grounded.toml`, `folders` folders of ten scripts
/// and a data file each. Returns the number of scripts and lines.
pub fn write_project(dir: &Path, folders: usize) -> (usize, usize) {
    let corpus = format!("{}/corpus/demo", env!("CARGO_MANIFEST_DIR"));
    std::fs::write(dir.join("grounded.toml"), format!("docs = {corpus:?}\n")).unwrap();
    let (mut files, mut lines) = (0, 0);
    for k in 0..folders {
        let p = dir.join(format!("p{k}"));
        for sub in ["lib", "reports", "data"] {
            std::fs::create_dir_all(p.join(sub)).unwrap();
        }
        std::fs::write(p.join("data/prices.csv"), "name,count,total\na,1,2.5\n").unwrap();
        let mut scripts = vec![
            ("lib/format.js".to_string(), format_lib(k)),
            ("lib/tables.js".to_string(), tables_lib(k)),
            ("lib/blocks.js".to_string(), blocks_lib(k)),
            ("lib/data.js".to_string(), data_lib(k)),
            ("main.js".to_string(), main_script(k)),
        ];
        for n in 0..5 {
            scripts.push((format!("reports/r{n}.js"), report(k, n)));
        }
        for (rel, text) in scripts {
            files += 1;
            lines += text.lines().count();
            std::fs::write(p.join(rel), text).unwrap();
        }
    }
    (files, lines)
}

fn benches(c: &mut Criterion) {
    if let Some(dir) = std::env::var_os("GROUNDED_BENCH_PROJECT") {
        let dir = PathBuf::from(dir);
        std::fs::create_dir_all(&dir).unwrap();
        let (files, lines) = write_project(&dir, FOLDERS);
        eprintln!("wrote {files} scripts, {lines} lines, to {}", dir.display());
        return;
    }
    let corpus = bundled::demo().expect("the bundled corpus loads");
    let dir = tempfile::tempdir().unwrap();
    let (files, lines) = write_project(dir.path(), FOLDERS);
    let root = dir.path().to_path_buf();
    let paths = [root.clone()];
    let report = check::check_paths(&corpus, &root, &paths);
    assert_eq!(report.checked.len(), files, "every script is checked");
    assert!(
        !report.findings.is_empty(),
        "the project holds findings to report"
    );
    eprintln!(
        "project: {files} scripts, {lines} lines, {} findings",
        report.findings.len()
    );
    let mut g = c.benchmark_group(format!("project_{files}_files"));
    g.sample_size(10).measurement_time(Duration::from_secs(10));
    g.bench_function("check the project (scan + every file)", |b| {
        b.iter(|| {
            black_box(check::check_paths(&corpus, &root, &paths))
                .findings
                .len()
        })
    });
    g.finish();
}

criterion_group!(project_benches, benches);
criterion_main!(project_benches);

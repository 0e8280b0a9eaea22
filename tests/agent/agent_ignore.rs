//! Issue 41: the agent cannot silence its own checker. Its pre-write refusal, its
//! measurements and its finish gate judge as if every ignore comment the turn itself
//! wrote were absent; an ignore the user wrote before the turn still counts. The real
//! binary, a scripted OpenAI-compatible server over real HTTP, real files.

use crate::common;

use std::path::Path;

use common::agent::{events, run_agent};
use common::model_server::{calls, say, ModelServer, Scripted};
use common::{demo_corpus, project};
use serde_json::json;

const MAIN: &str = "var t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableRow();\nlayout.tableCell(\"a\");\nlayout.tableEnd();\nlayout.paragraph(\"done\");\n";

fn read(root: &Path, rel: &str) -> String {
    std::fs::read_to_string(root.join(rel)).unwrap()
}

/// The model writes `// grounded-ignore member` above an invented call, by an edit and
/// by a whole-file write, in `.js` and in a Markdown block: each is refused as the bare
/// call is, and nothing reaches the disk.
#[test]
fn an_ignore_the_turn_writes_is_refused_as_the_call_alone() {
    let md = "# Report\n\n```js\nlayout.tableEnd();\n```\n";
    let dir = project(
        &demo_corpus(),
        &[("main.js", MAIN.as_bytes()), ("notes.md", md.as_bytes())],
    );
    let with_ignore = "// grounded-ignore member\nlayout.tableCellEnd();\nlayout.tableEnd();";
    let trailing =
        "layout.tableCellEnd(); // grounded-ignore all: the docs are old\nlayout.tableEnd();";
    let server = ModelServer::start(vec![
        Scripted::Json(calls(&[
            ("r", "read_file", json!({"path": "main.js"})),
            ("r2", "read_file", json!({"path": "notes.md"})),
        ])),
        Scripted::Json(calls(&[(
            "e",
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.tableEnd();", "replace": with_ignore}]}),
        )])),
        Scripted::Json(calls(&[(
            "w",
            "write_file",
            json!({"path": "main.js", "content": MAIN.replace("layout.tableEnd();", trailing)}),
        )])),
        Scripted::Json(calls(&[(
            "m",
            "edit_file",
            json!({"path": "notes.md", "edits": [{"find": "layout.tableEnd();", "replace": with_ignore}]}),
        )])),
        Scripted::Json(say("I could not close the cell.")),
    ]);
    let r = run_agent(dir.path(), &server, "close the cell", &[]);
    assert_eq!(read(dir.path(), "main.js"), MAIN);
    assert_eq!(read(dir.path(), "notes.md"), md);
    let edits = events(&r.transcript, "edit");
    let refused: Vec<_> = edits.iter().filter(|e| e["status"] == "refused").collect();
    assert_eq!(refused.len(), 3, "{edits:#?}");
    for e in refused {
        let why = e["reason"].as_str().unwrap_or("");
        assert!(why.contains("tableCellEnd"), "{why}");
    }
}

/// An ignore the user wrote before the turn still counts: the turn edits another line
/// of the file, and neither the pre-write check nor the finish gate holds the silenced
/// call against it (known-good). Without the comment the same call is outstanding on a
/// file the turn wrote, and the finish gate pushes back (known-bad).
#[test]
fn an_ignore_from_before_the_turn_still_counts() {
    for (ignored, pushes) in [(true, 0), (false, 1)] {
        let head = if ignored {
            "// grounded-ignore member: Folio 3 has it\n"
        } else {
            ""
        };
        let main = MAIN.replace(
            "layout.tableEnd();",
            &format!("{head}layout.tableCellEnd();\nlayout.tableEnd();"),
        );
        let dir = project(&demo_corpus(), &[("main.js", main.as_bytes())]);
        let server = ModelServer::start(vec![
            Scripted::Json(calls(&[("r", "read_file", json!({"path": "main.js"}))])),
            Scripted::Json(calls(&[(
                "e",
                "edit_file",
                json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");", "replace": "layout.paragraph(\"finished\");"}]}),
            )])),
            Scripted::Json(say(
                "Changed the closing paragraph of main.js to say finished.",
            )),
            Scripted::Json(say(
                "Changed the closing paragraph of main.js to say finished.",
            )),
            Scripted::Json(say(
                "Changed the closing paragraph of main.js to say finished.",
            )),
        ]);
        // A change by its words ("say finished at the end" reads as a question, and a
        // question writes nothing).
        let r = run_agent(
            dir.path(),
            &server,
            "make the closing paragraph say finished",
            &[],
        );
        assert_eq!(
            read(dir.path(), "main.js"),
            main.replace("\"done\"", "\"finished\""),
            "ignored: {ignored}\n{}",
            r.stderr
        );
        let verify: Vec<_> = events(&r.transcript, "push")
            .into_iter()
            .filter(|p| p["gate"] == "verify")
            .collect();
        assert_eq!(verify.len(), pushes, "ignored: {ignored}: {verify:#?}");
    }
}

//! The editor experience over stdio: hover on the project's names, the language's
//! built-ins and option keys; completion that knows the scope and the engine's level;
//! definition, references, rename and symbols over the project and the corpus;
//! signature help that reads strings; short messages.

use crate::common;

use common::*;
use serde_json::json;

fn start(files: &[(&str, &[u8])]) -> (tempfile::TempDir, Lsp) {
    let dir = project(&demo_corpus(), files);
    let mut lsp = Lsp::start(&[], &[]);
    lsp.initialize(dir.path(), json!({"debounceMs": 0, "dryRun": false}));
    (dir, lsp)
}

const HELPERS: &str = "// Formats a number with two decimals.\nfunction formatMoney(value) {\n    return value.toFixed(2);\n}\nvar CURRENCY = \"EUR\";\n";

const MAIN: &str = "loadJS(\"lib/helpers.js\");\n// The report's title, on every page.\nvar TITLE = \"Orders\";\nfunction total(items, rate) {\n    var sum = 0;\n    for (var i = 0; i < items.length; i++) {\n        sum += items[i];\n    }\n    return sum * rate;\n}\nlayout.heading(TITLE + \" \" + formatMoney(total([1, 2], 2)) + CURRENCY, 1);\nvar word = \"toner\";\nlayout.paragraph(word.toUpperCase() + Math.max(1, 2));\nvar box = new Block();\nlayout.blockStart(box, { borderWidth: 1 });\nlayout.blockEnd();\n";

fn hover_text(lsp: &mut Lsp, uri: &str, text: &str, needle: &str, delta: u32) -> String {
    let h = lsp.request("textDocument/hover", at(uri, text, needle, delta));
    h["contents"]["value"].as_str().unwrap_or("").to_string()
}

#[test]
fn hover_on_project_names_built_ins_and_option_keys() {
    let (dir, mut lsp) = start(&[
        ("lib/helpers.js", HELPERS.as_bytes()),
        ("main.js", MAIN.as_bytes()),
    ]);
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, MAIN);
    // A variable: its declaration line and the comment above it.
    let v = hover_text(&mut lsp, &uri, MAIN, "TITLE + ", 1);
    assert!(v.contains("var TITLE = \"Orders\";"), "{v}");
    assert!(v.contains("The report's title, on every page."), "{v}");
    // A function of another project file: its declaration and comment there.
    let f = hover_text(&mut lsp, &uri, MAIN, "formatMoney(total", 2);
    assert!(f.contains("function formatMoney(value)"), "{f}");
    assert!(f.contains("Formats a number with two decimals."), "{f}");
    assert!(f.contains("helpers.js"), "{f}");
    // A parameter, at its use.
    let p = hover_text(&mut lsp, &uri, MAIN, "rate;", 1);
    assert!(
        p.contains("function total(items, rate)") && p.contains("parameter"),
        "{p}"
    );
    // The language's built-ins, with their edition.
    let m = hover_text(&mut lsp, &uri, MAIN, "Math.max", 1);
    assert!(m.contains("Math") && m.contains("ES3"), "{m}");
    let max = hover_text(&mut lsp, &uri, MAIN, "max(1", 1);
    assert!(max.contains("Math.max") && max.contains("ES3"), "{max}");
    let up = hover_text(&mut lsp, &uri, MAIN, "toUpperCase", 2);
    assert!(up.contains("String.prototype.toUpperCase"), "{up}");
    // An option key: the member of the option interface.
    let k = hover_text(&mut lsp, &uri, MAIN, "borderWidth", 2);
    assert!(k.contains("borderWidth"), "{k}");
    assert!(k.contains("BlockStyle"), "{k}");
    // A name nobody declares or documents has none.
    let none = lsp.request("textDocument/hover", at(&uri, MAIN, "++", 0));
    assert!(none.is_null(), "{none}");
    lsp.shutdown();
}

#[test]
fn completion_knows_scope_level_members_and_open_literals() {
    let (dir, mut lsp) = start(&[
        ("lib/helpers.js", HELPERS.as_bytes()),
        ("main.js", MAIN.as_bytes()),
    ]);
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, MAIN);
    lsp.diagnostics_where(&uri, Some(1), |_| true);
    // Inside `total`: its locals and parameters, the file's and the project's names, the
    // engine's globals, the language's of ES3 only.
    let inside = lsp.request(
        "textDocument/completion",
        at(&uri, MAIN, "    return sum", 4),
    );
    let l = labels(&inside);
    for want in [
        "sum",
        "items",
        "rate",
        "i",
        "total",
        "TITLE",
        "formatMoney",
        "CURRENCY",
        "layout",
        "Math",
        "parseInt",
    ] {
        assert!(l.contains(&want.to_string()), "{want} missing: {l:?}");
    }
    assert!(!l.contains(&"JSON".to_string()), "JSON is ES5: {l:?}");
    // Outside `total`, its locals are not offered.
    let outside = lsp.request(
        "textDocument/completion",
        at(&uri, MAIN, "layout.heading", 0),
    );
    assert!(!labels(&outside).contains(&"sum".to_string()));

    // Members of built-ins: `Math.` and a string, of the level only.
    let mut text = MAIN.to_string();
    let line = text.matches('\n').count() as u32;
    lsp.change(&uri, 2, [line, 0, line, 0], "Math.");
    text.push_str("Math.");
    let m = labels(&lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 5}}),
    ));
    assert!(
        m.contains(&"max".to_string()) && m.contains(&"floor".to_string()),
        "{m:?}"
    );
    assert!(
        !m.contains(&"trunc".to_string()),
        "Math.trunc is ES2015: {m:?}"
    );
    lsp.change(&uri, 3, [line, 0, line, 5], "word.");
    let w = labels(&lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 5}}),
    ));
    assert!(w.contains(&"toUpperCase".to_string()), "{w:?}");
    assert!(!w.contains(&"trim".to_string()), "trim is ES5: {w:?}");

    // Option keys inside an object literal still being typed.
    lsp.change(&uri, 4, [line, 0, line, 5], "layout.blockStart(box, { bord");
    let o = labels(&lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 29}}),
    ));
    assert!(o.contains(&"borderWidth".to_string()), "{o:?}");
    assert!(
        !o.contains(&"layout".to_string()),
        "keys, not globals: {o:?}"
    );
    // A key already written in the literal is not offered again; the one being typed is.
    lsp.change(
        &uri,
        5,
        [line, 0, line, 29],
        "layout.blockStart(box, { borderColor: \"red\", padding: 2, bord",
    );
    let o = labels(&lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 61}}),
    ));
    assert!(o.contains(&"borderWidth".to_string()), "{o:?}");
    assert!(!o.contains(&"borderColor".to_string()), "written: {o:?}");
    assert!(!o.contains(&"padding".to_string()), "written: {o:?}");
    lsp.change(
        &uri,
        6,
        [line, 0, line, 61],
        "layout.blockStart(box, { bord",
    );

    // The construct snippet after `layout.`.
    lsp.change(&uri, 7, [line, 0, line, 29], "layout.");
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 7}}),
    );
    let all = items
        .as_array()
        .cloned()
        .or_else(|| items["items"].as_array().cloned())
        .unwrap();
    let snip = all
        .iter()
        .find(|i| {
            i["label"].as_str().unwrap().starts_with("tableStart") && i["insertTextFormat"] == 2
        })
        .expect("a tableStart snippet");
    let body = snip["insertText"].as_str().unwrap();
    assert!(
        body.starts_with("tableStart(") && body.ends_with("layout.tableEnd();"),
        "{body}"
    );
    lsp.shutdown();
}

#[test]
fn definition_of_variables_and_documented_apis() {
    let (dir, mut lsp) = start(&[
        ("lib/helpers.js", HELPERS.as_bytes()),
        ("main.js", MAIN.as_bytes()),
    ]);
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, MAIN);
    let d = lsp.request("textDocument/definition", at(&uri, MAIN, "TITLE + ", 1));
    let (l, c) = pos_of(MAIN, "TITLE = ");
    assert_eq!(d["uri"], uri.as_str());
    assert_eq!(d["range"]["start"], json!({"line": l, "character": c}));
    // A project variable of another file.
    let cur = lsp.request("textDocument/definition", at(&uri, MAIN, "CURRENCY, 1", 1));
    assert!(
        cur["uri"].as_str().unwrap().ends_with("lib/helpers.js"),
        "{cur}"
    );
    assert_eq!(cur["range"]["start"]["line"], 4);
    // A documented member: the chunk's file and line in the corpus, a normalised path.
    let h = lsp.request("textDocument/definition", at(&uri, MAIN, "heading(", 1));
    let target = h["uri"].as_str().unwrap();
    assert!(target.ends_with("corpus/demo/layout.md"), "{h}");
    assert!(
        !target.contains("/../") && !target.contains("/./"),
        "{target}"
    );
    let line = h["range"]["start"]["line"].as_u64().unwrap() as usize;
    let md = std::fs::read_to_string(format!("{}/layout.md", demo_corpus())).unwrap();
    assert!(
        md.lines().nth(line).unwrap().contains("heading"),
        "line {line}"
    );
    lsp.shutdown();
}

#[test]
fn references_and_rename_across_project_files_respect_scope() {
    let other = "loadJS(\"lib/helpers.js\");\nfunction shadow(CURRENCY) {\n    return CURRENCY;\n}\nlayout.paragraph(CURRENCY + formatMoney(1));\n";
    let (dir, mut lsp) = start(&[
        ("lib/helpers.js", HELPERS.as_bytes()),
        ("main.js", MAIN.as_bytes()),
        ("other.js", other.as_bytes()),
    ]);
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, MAIN);
    let mut p = at(&uri, MAIN, "CURRENCY, 1", 1);
    p["context"] = json!({"includeDeclaration": true});
    let refs = lsp.request("textDocument/references", p.clone());
    let refs = refs.as_array().unwrap();
    let files: Vec<String> = refs
        .iter()
        .map(|r| r["uri"].as_str().unwrap().to_string())
        .collect();
    // main.js's use, helpers.js's declaration, other.js's top-level use; not the
    // parameter of `shadow` nor its use.
    assert_eq!(refs.len(), 3, "{refs:#?}");
    assert!(files.iter().any(|f| f.ends_with("lib/helpers.js")));
    assert_eq!(
        files.iter().filter(|f| f.ends_with("other.js")).count(),
        1,
        "{files:?}"
    );

    let mut r = at(&uri, MAIN, "CURRENCY, 1", 1);
    r["newName"] = json!("MONEY_UNIT");
    let edit = lsp.request("textDocument/rename", r);
    let changes = edit["changes"].as_object().unwrap();
    let other_uri = common::uri(&dir.path().join("other.js"));
    let renamed = apply_edits(other, changes[&other_uri].as_array().unwrap());
    assert!(
        renamed.contains("function shadow(CURRENCY) {\n    return CURRENCY;"),
        "{renamed}"
    );
    assert!(
        renamed.contains("layout.paragraph(MONEY_UNIT + "),
        "{renamed}"
    );

    // A local: only inside its function.
    let mut l = at(&uri, MAIN, "sum * rate", 1);
    l["context"] = json!({"includeDeclaration": true});
    let locals = lsp.request("textDocument/references", l);
    assert_eq!(locals.as_array().unwrap().len(), 3, "{locals}");
    // A documented API is not the project's to rename.
    let mut bad = at(&uri, MAIN, "layout.heading", 1);
    bad["newName"] = json!("x");
    let refused = lsp.request_full("textDocument/rename", bad);
    assert!(
        refused.get("error").is_some() || refused["result"].is_null(),
        "{refused}"
    );
    lsp.shutdown();
}

#[test]
fn document_and_workspace_symbols() {
    let (dir, mut lsp) = start(&[
        ("lib/helpers.js", HELPERS.as_bytes()),
        ("main.js", MAIN.as_bytes()),
    ]);
    let uri = uri(&dir.path().join("main.js"));
    lsp.open(&uri, MAIN);
    let syms = lsp.request(
        "textDocument/documentSymbol",
        json!({"textDocument": {"uri": uri}}),
    );
    let names = names_of(&syms);
    for want in ["TITLE", "total", "word", "box"] {
        assert!(names.contains(&want), "{want}: {names:?}");
    }
    assert!(
        !names.contains(&"sum"),
        "locals are not top-level: {names:?}"
    );
    let ws = lsp.request("workspace/symbol", json!({"query": "money"}));
    let ws = ws.as_array().unwrap();
    assert!(
        ws.iter().any(|s| s["name"] == "formatMoney"
            && s["location"]["uri"]
                .as_str()
                .unwrap()
                .ends_with("lib/helpers.js")),
        "{ws:#?}"
    );
    let docs = lsp.request("workspace/symbol", json!({"query": "tableStart"}));
    let docs = docs.as_array().unwrap();
    let t = docs
        .iter()
        .find(|s| s["name"] == "tableStart")
        .expect("the documented member");
    assert!(
        t["location"]["uri"].as_str().unwrap().ends_with(".md"),
        "{t}"
    );
    assert!(
        !t["location"]["uri"].as_str().unwrap().contains("/../"),
        "{t}"
    );
    lsp.shutdown();
}

#[test]
fn signature_help_skips_strings_and_shows_option_keys() {
    let (dir, mut lsp) = start(&[("s.js", b"")]);
    let uri = uri(&dir.path().join("s.js"));
    let text = "var box = new Block();\nlayout.heading(\"a, b\", ";
    lsp.open(&uri, text);
    let (l, _) = pos_of(text, "layout.heading");
    let end = json!({"textDocument": {"uri": uri}, "position": {"line": l, "character": 23}});
    let s = lsp.request("textDocument/signatureHelp", end);
    assert_eq!(s["activeParameter"], 1, "{s}");
    let nested = "var box = new Block();\nlayout.heading(f(1, 2), /* x, y */ ";
    lsp.change(
        &uri,
        2,
        [1, 0, 1, 23],
        "layout.heading(f(1, 2), /* x, y */ ",
    );
    let s = lsp.request("textDocument/signatureHelp", json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": nested.lines().nth(1).unwrap().len()}}));
    assert_eq!(s["activeParameter"], 1, "{s}");
    lsp.change(&uri, 3, [1, 0, 1, 35], "layout.blockStart(box, { bor");
    let s = lsp.request(
        "textDocument/signatureHelp",
        json!({"textDocument": {"uri": uri}, "position": {"line": 1, "character": 28}}),
    );
    assert_eq!(s["activeParameter"], 1, "{s}");
    let params = s["signatures"][0]["parameters"].as_array().unwrap();
    let doc = params[1]["documentation"]["value"].as_str().unwrap_or("");
    assert!(doc.contains("borderWidth"), "{s}");
    lsp.shutdown();
}

/// Every demo mistake's message fits an editor's line; what a long one held moves to
/// related information.
#[test]
fn messages_are_short_and_lose_nothing() {
    let names: Vec<String> = (0..40).map(|i| format!("m{i}")).collect();
    let text = format!(
        "var t = new Table();\nlayout.tableStart(t, {{ {} }});\nlayout.tableEnd();\n",
        names
            .iter()
            .map(|n| format!("{n}: 1"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (dir, mut lsp) = start(&[("m.js", text.as_bytes())]);
    let uri = uri(&dir.path().join("m.js"));
    lsp.open(&uri, &text);
    let d = lsp.diagnostics_where(&uri, Some(1), |d| d.len() >= 40);
    for x in &d {
        let m = x["message"].as_str().unwrap();
        assert!(m.chars().count() <= 160, "{} chars: {m}", m.chars().count());
    }
    let demo = format!("{}/examples/demo", env!("CARGO_MANIFEST_DIR"));
    let mut lsp2 = Lsp::start(&[], &[]);
    lsp2.initialize(
        std::path::Path::new(&demo),
        json!({"debounceMs": 0, "dryRun": false}),
    );
    for f in PLANTED {
        let p = std::path::Path::new(&demo).join(format!("mistakes/{f}.js"));
        let u = common::uri(&p);
        lsp2.open(&u, &std::fs::read_to_string(&p).unwrap());
        let d = lsp2.diagnostics_where(&u, Some(1), |d| !d.is_empty());
        for x in &d {
            let m = x["message"].as_str().unwrap();
            assert!(
                m.chars().count() <= 160,
                "{f}: {} chars: {m}",
                m.chars().count()
            );
            if let Some(rel) = x["relatedInformation"].as_array() {
                for r in rel {
                    assert!(
                        !r["location"]["uri"].as_str().unwrap().contains("/../"),
                        "{r}"
                    );
                }
            }
        }
    }
    lsp2.shutdown();
    lsp.shutdown();
}

/// On a buffer past the size where requests analyse only the statements around the
/// cursor (1 MiB), hover and completion still know the whole file: a function declared
/// a megabyte away is hovered with its own declaration line and comment, its
/// parameters and the file's globals are completed, an option key is hovered, and an
/// edit typed just before is seen.
#[test]
fn requests_on_a_large_buffer_know_the_whole_file() {
    let mut text = String::from(
        "// Scales a width to the page.\nfunction scaleWidth(w) {\n    return w * 2;\n}\nvar PAGE = 3;\n\
         function early() {\n    var LIMIT = 1;\n    return LIMIT;\n}\n\
         if (PAGE) {\n    // The widest table.\n    var LIMIT = 9;\n}\n\
         // Tables drawn so far.\ncounter = 0;\n",
    );
    let mut i = 0;
    while text.len() < 1_100_000 {
        text.push_str(&format!(
            "var t{i} = new Table();\nlayout.tableStart(t{i}, {{ cellPadding: {i} }});\nlayout.tableEnd();\nfunction f{i}(a) {{\n    return a + scaleWidth({i});\n}}\n"
        ));
        i += 1;
    }
    let (dir, mut lsp) = start(&[("big.js", text.as_bytes())]);
    let uri = uri(&dir.path().join("big.js"));
    lsp.open(&uri, &text);
    lsp.diagnostics_where(&uri, Some(1), |_| true);
    let last = i - 1;
    // An edit near the end: a new line inside the last function, typed before the
    // requests.
    let needle = format!("    return a + scaleWidth({last});");
    let (line, _) = pos_of(&text, &needle);
    let typed = "    var local = PAGE + LIMIT + counter;\n";
    lsp.change(&uri, 2, [line, 0, line, 0], typed);
    text = {
        let at = text.find(&needle).unwrap();
        format!("{}{typed}{}", &text[..at], &text[at..])
    };
    let h = hover_text(&mut lsp, &uri, &text, &format!("scaleWidth({last})"), 1);
    assert!(
        h.contains("function scaleWidth(w) {") && h.contains("Scales a width to the page."),
        "the declaration a megabyte away: {h}"
    );
    let h = hover_text(&mut lsp, &uri, &text, "local = PAGE", 9);
    assert!(h.contains("var PAGE = 3;"), "{h}");
    // Where the analysis says the top level declares a name, a megabyte away: a `var`
    // inside a top-level block (not the function's own `var` of that name before it),
    // and an implicit global at its first assignment.
    let h = hover_text(&mut lsp, &uri, &text, "LIMIT + counter", 1);
    assert!(
        h.contains("var LIMIT = 9;") && h.contains("The widest table."),
        "{h}"
    );
    let h = hover_text(&mut lsp, &uri, &text, "counter;", 1);
    assert!(
        h.contains("counter = 0;") && h.contains("Tables drawn so far."),
        "{h}"
    );
    let h = hover_text(&mut lsp, &uri, &text, &format!("cellPadding: {last}"), 2);
    assert!(h.contains("cellPadding"), "the option key: {h}");
    // Thousands of names in scope: the answer is the first 1,000, marked incomplete,
    // the function's own names first; what is typed narrows it to what starts so.
    let items = lsp.request(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": 4}}),
    );
    assert_eq!(items["isIncomplete"], true, "{}", items["isIncomplete"]);
    let l = labels(&items);
    assert!(l.len() <= 1000, "{}", l.len());
    for want in ["a", "local"] {
        assert!(l.contains(&want.to_string()), "{want} missing: {l:?}");
    }
    let mut version = 3;
    for (typed, want) in [
        ("lay", "layout"),
        ("scal", "scaleWidth"),
        ("PA", "PAGE"),
        ("f0", "f0"),
    ] {
        lsp.change(&uri, version, [line, 0, line, 0], &format!("{typed}\n"));
        let items = lsp.request(
            "textDocument/completion",
            json!({"textDocument": {"uri": uri}, "position": {"line": line, "character": typed.len()}}),
        );
        let l = labels(&items);
        assert!(
            l.contains(&want.to_string()),
            "{want} missing after `{typed}`: {l:?}"
        );
        lsp.change(&uri, version + 1, [line, 0, line + 1, 0], "");
        version += 2;
    }
    lsp.shutdown();
}

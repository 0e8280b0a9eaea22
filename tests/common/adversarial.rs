//! A seeded adversarial model: a grammar of the replies real models send (valid tool
//! calls with plausible arguments, and the faults they really produce), drawn from a
//! seed into a reply sequence that the scripted server ([`super::model_server`]) serves
//! over real HTTP on 127.0.0.1, one reply per request, in order.
//!
//! Why a sequence drawn up front and not a model that reads the requests: the same seed
//! must give the same turn on every machine, and a failing sequence must shrink (drop
//! one reply, run again) to the shortest that still fails. The arguments are plausible
//! because the generator knows the fixture project ([`MAIN`]'s lines, the files).

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use super::model_server::{say, Scripted};

/// The project's main script: a price table (lines 2-8), a helper call, a paragraph.
pub const MAIN: &str = "loadJS(\"lib/util.js\");\nvar prices = new Table();\nprices.columns = 2;\nlayout.tableStart(prices);\nlayout.tableRow();\nlayout.tableCell(\"toner\");\nlayout.tableCell(\"12.50\");\nlayout.tableEnd();\nbanner(\"Report\");\nlayout.paragraph(\"done\");\n";
/// The helper `main.js` loads.
pub const UTIL: &str = "function banner(title) {\n    layout.heading(title, 1);\n}\n";
/// A Markdown file with a script block (the checker checks it).
pub const README: &str =
    "# Report\n\nThe report's script:\n\n```js\nlayout.paragraph(\"hi\");\n```\n";
/// A file outside the root; its token must never reach the model.
pub const SECRET: &str = "var token = \"OUTSIDE-SECRET-4d1f\";\n";
/// The token of [`SECRET`].
pub const TOKEN: &str = "OUTSIDE-SECRET-4d1f";

/// What a request asks, as the test (not the agent) labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Asked {
    /// To be told something.
    Question,
    /// To change files.
    Change,
    /// Only to remove.
    Removal,
}

/// The requests a case draws from, labelled.
pub const REQUESTS: &[(&str, Asked)] = &[
    ("What does main.js draw?", Asked::Question),
    (
        "Explain what main.js draws. Do not change any file.",
        Asked::Question,
    ),
    ("Which files call banner?", Asked::Question),
    ("How is the table in main.js built?", Asked::Question),
    ("Tidy up main.js.", Asked::Change),
    ("Add a closing paragraph to main.js.", Asked::Change),
    ("Rename banner to heading in lib/util.js.", Asked::Change),
    ("Fix main.js.", Asked::Change),
    ("Remove the table from main.js.", Asked::Removal),
    ("Delete the banner call from main.js.", Asked::Removal),
    ("Get rid of the heading in lib/util.js.", Asked::Removal),
];

/// One reply of the grammar, as data: printed when a seed fails, materialised into the
/// server's answer for one run ([`Step::scripted`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// Native tool calls: `(name, arguments)`; `ids` false sends calls without ids.
    Calls {
        calls: Vec<(String, Value)>,
        ids: bool,
    },
    /// A call whose arguments are not JSON.
    BadArguments { name: String, text: String },
    /// A tool call written as JSON in the text.
    TextCall { name: String, args: Value },
    /// A plain answer.
    Say(String),
    /// An HTTP error status.
    Status(u16),
    /// A 200 whose body is not a chat completion.
    BadBody(String),
    /// The inner reply after a delay (milliseconds).
    Slow(u64, Box<Step>),
    /// No answer for this long (milliseconds): the client times out first.
    Silent(u64),
}

/// The grammar's behaviours, by name: what a long run counts.
pub const BEHAVIOURS: &[&str] = &[
    "read",
    "list",
    "find",
    "lookup",
    "edit_add",
    "edit_invented",
    "edit_util",
    "write_new",
    "write_invented",
    "write_plain",
    "delete_table",
    "delete_end",
    "delete_start",
    "delete_random",
    "escape",
    "large",
    "bad_arguments",
    "bad_body",
    "unknown_tool",
    "repeat",
    "text_call",
    "claim",
    "answer",
    "empty",
    "http500",
    "http429",
    "slow",
    "silent",
    "plan",
    "no_ids",
    "batch",
    "numbers",
    "multibyte",
    "search_queries",
];

/// splitmix64: a seeded generator whose sequence never changes with a crate's version.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }
    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    /// One of `v`.
    pub fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

fn call(name: impl Into<String>, args: Value) -> Step {
    Step::Calls {
        calls: vec![(name.into(), args)],
        ids: true,
    }
}

/// Paths that lead out of the root: `..`, an absolute path elsewhere, a link to a
/// folder outside, a link to a file outside, a dangling link. `{OUTSIDE}` is the
/// outside folder's absolute path, filled in when the step is materialised.
const ESCAPES: &[&str] = &[
    "../outside/secret.js",
    "a/../../outside/secret.js",
    "{OUTSIDE}/secret.js",
    "link/secret.js",
    "lib/secret.js",
    "dangling.js",
    "/etc/passwd",
    "link/new.js",
];

/// One behaviour of the grammar: its name and the reply (`prev` is the reply before,
/// for `repeat`).
pub fn draw(rng: &mut Rng, prev: Option<&Step>) -> (&'static str, Step) {
    // Weights: the valid moves a model makes most, the faults often enough that a
    // one-minute run meets each of them.
    let table: &[(&str, usize)] = &[
        ("read", 14),
        ("list", 3),
        ("find", 3),
        ("lookup", 3),
        ("edit_add", 6),
        ("edit_invented", 4),
        ("edit_util", 4),
        ("write_new", 4),
        ("write_invented", 3),
        ("write_plain", 4),
        ("delete_table", 5),
        ("delete_end", 5),
        ("delete_start", 3),
        ("delete_random", 3),
        ("escape", 6),
        ("large", 2),
        ("bad_arguments", 3),
        ("bad_body", 1),
        ("unknown_tool", 3),
        ("repeat", 4),
        ("text_call", 3),
        ("claim", 4),
        ("answer", 9),
        ("empty", 2),
        ("http500", 2),
        ("http429", 2),
        ("slow", 2),
        ("silent", 1),
        ("plan", 3),
        ("no_ids", 3),
        ("batch", 4),
        ("numbers", 2),
        ("multibyte", 2),
        ("search_queries", 2),
    ];
    let total: usize = table.iter().map(|(_, w)| w).sum();
    let mut n = rng.below(total);
    let mut name = table[0].0;
    for &(b, w) in table {
        if n < w {
            name = b;
            break;
        }
        n -= w;
    }
    let step = match name {
        "read" => {
            let path = *rng.pick(&[
                "main.js",
                "main.js",
                "lib/util.js",
                "README.md",
                "notes.txt",
                ".gitignore",
            ]);
            if rng.below(4) == 0 {
                call(
                    "read_file",
                    json!({"path": path, "start_line": 2, "end_line": 8}),
                )
            } else {
                call("read_file", json!({"path": path}))
            }
        }
        "list" => call("list_files", json!({})),
        "find" => call(
            "find_in_files",
            json!({"pattern": rng.pick(&["table", "banner", "json", "tableEnd"])}),
        ),
        "lookup" => call(
            "lookup_docs",
            json!({"term": rng.pick(&["tableStart", "tableCellEnd", "paragraph", "heading"])}),
        ),
        "edit_add" => call(
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
                "replace": "layout.paragraph(\"done\");\nlayout.paragraph(\"Thank you.\");"}]}),
        ),
        "edit_invented" => call(
            "edit_file",
            json!({"path": "main.js", "edits": [{"find": "layout.tableRow();",
                "replace": "layout.tableRow();\nlayout.tableCellEnd();"}]}),
        ),
        "edit_util" => call(
            "edit_file",
            json!({"path": "lib/util.js", "edits": [{"find": "layout.heading(title, 1);",
                "replace": *rng.pick(&["layout.heading(title, 2);", "layout.heading(title.toUpperCase(), 1);"])}]}),
        ),
        "write_new" => {
            let (path, content) = *rng.pick(&[
                ("lib/extra.js", "layout.paragraph(\"extra\");\n"),
                ("out/new/deep.js", "layout.paragraph(\"deep\");\n"),
                (
                    "out/new/open.js",
                    "var t = new Table();\nlayout.tableStart(t);\n",
                ),
                (
                    "docs/NOTE.md",
                    "# Note\n\n```js\nlayout.paragraph(\"n\");\n```\n",
                ),
            ]);
            call("write_file", json!({"path": path, "content": content}))
        }
        "write_invented" => call(
            "write_file",
            json!({"path": *rng.pick(&["lib/bad.js", "main.js"]), "content": "layout.tableCellEnd();\nTable.cellSpacing = 2;\n"}),
        ),
        "write_plain" => {
            let (path, content) = *rng.pick(&[
                (".gitignore", "*.log\n"),
                (".gitignore", "*.log\nmain.js\n"),
                ("notes.txt", "remember the toner (and the paper)\n"),
                ("CHANGES", "v2: the price table\n"),
            ]);
            call("write_file", json!({"path": path, "content": content}))
        }
        "delete_table" => call(
            "delete_lines",
            json!({"path": "main.js", "marks": "2-8: DELETE"}),
        ),
        "delete_end" => call(
            "delete_lines",
            json!({"path": "main.js", "marks": "8: DELETE"}),
        ),
        "delete_start" => call(
            "delete_lines",
            json!({"path": "main.js", "marks": "4: DELETE"}),
        ),
        "delete_random" => {
            let path = *rng.pick(&["main.js", "lib/util.js", "README.md"]);
            let a = 1 + rng.below(12);
            let b = a + rng.below(3);
            call(
                "delete_lines",
                json!({"path": path, "marks": format!("{a}-{b}: DELETE")}),
            )
        }
        "escape" => {
            let path = *rng.pick(ESCAPES);
            match rng.below(4) {
                0 => call("read_file", json!({"path": path})),
                1 => call(
                    "write_file",
                    json!({"path": path, "content": "var x = 1;\n"}),
                ),
                2 => call("delete_lines", json!({"path": path, "marks": "1: DELETE"})),
                _ => call("list_files", json!({"path": path})),
            }
        }
        "large" => {
            // Valid script text, so only its size can be wrong: 1 MB now and then.
            let lines = if rng.below(4) == 0 { 40_000 } else { 3_000 };
            let big = "// padding padding padding\n".repeat(lines);
            match rng.below(3) {
                0 => call(
                    "write_file",
                    json!({"path": "main.js", "content": format!("{MAIN}{big}")}),
                ),
                1 => call("write_file", json!({"path": "big.js", "content": big})),
                _ => call(
                    "edit_file",
                    json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
                        "replace": format!("layout.paragraph(\"done\");\n{big}")}]}),
                ),
            }
        }
        "bad_arguments" => Step::BadArguments {
            name: rng
                .pick(&["read_file", "edit_file", "delete_lines"])
                .to_string(),
            text: rng
                .pick(&[
                    "{\"path\": \"main.js\"",
                    "{path: main.js}",
                    "{\"path\": \"main.js\", \"edits\": [{\"find\": \"x\n\"}]}",
                    "null",
                    "[1, 2",
                ])
                .to_string(),
        },
        "bad_body" => Step::BadBody(
            rng.pick(&[
                "<html>busy</html>",
                "{\"choices\": [",
                "{\"error\": {\"message\": \"x\"}}",
            ])
            .to_string(),
        ),
        "unknown_tool" => call(
            rng.pick(&["run_shell", "apply_patch", "browser"])
                .to_owned(),
            json!({"cmd": "rm -rf /"}),
        ),
        "repeat" => match prev {
            Some(p) => p.clone(),
            None => call("read_file", json!({"path": "main.js"})),
        },
        "text_call" => {
            if rng.below(2) == 0 {
                Step::TextCall {
                    name: "read_file".into(),
                    args: json!({"path": "main.js"}),
                }
            } else {
                Step::TextCall {
                    name: "delete_lines".into(),
                    args: json!({"path": "main.js", "marks": "9: DELETE"}),
                }
            }
        }
        "claim" => Step::Say(
            rng.pick(&[
                "Updated main.js: removed the table and added a footer.",
                "I have created lib/footer.js and updated main.js to load it.",
                "Removed the banner call from main.js.",
            ])
            .to_string(),
        ),
        "answer" => Step::Say(
            rng.pick(&[
                "main.js draws a price table with one row, a banner and a paragraph.",
                "Done.",
                "The table is opened with layout.tableStart and closed with layout.tableEnd.",
                "I could not find what to change; you may need to do it manually.",
            ])
            .to_string(),
        ),
        "empty" => Step::Say(String::new()),
        "http500" => Step::Status(500),
        "http429" => Step::Status(429),
        "slow" => Step::Slow(
            200 + rng.below(1200) as u64,
            Box::new(call("read_file", json!({"path": "main.js"}))),
        ),
        "silent" => Step::Silent(5_000),
        "plan" => call(
            "plan",
            json!({"items": rng.pick(&[
                ["add a note line to main.js", "remove the table from main.js"],
                ["explain what main.js draws", "write lib/extra.js with one paragraph"],
            ])}),
        ),
        "no_ids" => Step::Calls {
            calls: vec![
                ("read_file".into(), json!({"path": "main.js"})),
                ("list_files".into(), json!({})),
            ],
            ids: false,
        },
        "batch" => Step::Calls {
            calls: vec![
                ("read_file".into(), json!({"path": "main.js"})),
                (
                    "delete_lines".into(),
                    json!({"path": "main.js", "marks": "8: DELETE"}),
                ),
                (
                    "edit_file".into(),
                    json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
                        "replace": "layout.paragraph(\"finished\");"}]}),
                ),
            ],
            ids: true,
        },
        "numbers" => call(
            "read_file",
            json!({"path": "main.js", "start_line": rng.pick(&[json!(-5), json!(1e308), json!(u64::MAX), json!(0)]).clone(),
                   "end_line": rng.pick(&[json!(-1), json!(i64::MIN), json!(3)]).clone()}),
        ),
        "multibyte" => call(
            "write_file",
            json!({"path": *rng.pick(&["lib/ü.js", "日本/テスト.js"]),
                   "content": "layout.paragraph(\"héllo — 日本 🎉\");\n"}),
        ),
        "search_queries" => call(
            "search_queries",
            json!({"queries": [{"query": "table", "about": "tables"}]}),
        ),
        _ => unreachable!("every behaviour has a reply"),
    };
    (name, step)
}

/// A case: the request and the reply sequence drawn from `seed`.
pub fn case(seed: u64) -> (usize, Vec<(&'static str, Step)>) {
    let mut rng = Rng::new(seed);
    let request = rng.below(REQUESTS.len());
    let len = 1 + rng.below(10);
    let mut steps: Vec<(&'static str, Step)> = Vec::new();
    for _ in 0..len {
        let prev = steps.last().map(|(_, s)| s);
        let drawn = draw(&mut rng, prev);
        steps.push(drawn);
    }
    (request, steps)
}

fn fill(v: &Value, outside: &Path) -> Value {
    match v {
        Value::String(s) => Value::String(s.replace("{OUTSIDE}", &outside.to_string_lossy())),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| (k.clone(), fill(x, outside)))
                .collect(),
        ),
        Value::Array(a) => Value::Array(a.iter().map(|x| fill(x, outside)).collect()),
        _ => v.clone(),
    }
}

fn completion(message: Value) -> Value {
    json!({"id": "cmpl", "object": "chat.completion", "choices": [{"index": 0,
        "message": message, "finish_reason": "stop"}]})
}

impl Step {
    /// The server's answer for this step, with `{OUTSIDE}` filled in. `n` numbers the
    /// ids (`c<n>_<i>`), as a server that counts its own calls would.
    pub fn scripted(&self, n: usize, outside: &Path) -> Scripted {
        match self {
            Step::Calls { calls, ids } => {
                let tc: Vec<Value> = calls
                    .iter()
                    .enumerate()
                    .map(|(i, (name, args))| {
                        let mut c = json!({"type": "function",
                            "function": {"name": name, "arguments": fill(args, outside).to_string()}});
                        if *ids {
                            c["id"] = json!(format!("c{n}_{i}"));
                        }
                        c
                    })
                    .collect();
                Scripted::Json(completion(
                    json!({"role": "assistant", "content": null, "tool_calls": tc}),
                ))
            }
            Step::BadArguments { name, text } => Scripted::Json(completion(json!({
                "role": "assistant", "content": null,
                "tool_calls": [{"id": format!("c{n}_0"), "type": "function",
                    "function": {"name": name, "arguments": text}}]}))),
            Step::TextCall { name, args } => Scripted::Json(say(&format!(
                "I will do that now.\n{}",
                json!({"name": name, "arguments": fill(args, outside)})
            ))),
            Step::Say(t) => Scripted::Json(say(t)),
            Step::Status(c) => Scripted::Status(*c, "{\"error\": \"adversarial\"}".into()),
            Step::BadBody(b) => Scripted::Raw(b.clone()),
            Step::Slow(ms, inner) => match inner.scripted(n, outside) {
                Scripted::Json(v) => Scripted::Delay(Duration::from_millis(*ms), v),
                other => other,
            },
            Step::Silent(ms) => Scripted::Hang(Duration::from_millis(*ms), say("too late")),
        }
    }
}

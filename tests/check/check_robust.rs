//! Bad input gets findings, never a panic: empty text, deep nesting, broken Markdown
//! fences, multibyte characters at every edge, directives without arguments.

use grounded::check::{self, Code, ProjectIndex};
use grounded::docs::bundled;

#[test]
fn odd_inputs_never_panic_and_parse_errors_are_syntax_findings() {
    let corpus = bundled::demo().unwrap();
    let project = ProjectIndex::default();
    let deep = format!("var x = {}1{};", "(".repeat(3000), ")".repeat(3000));
    let chain = format!("layout{}.x;", ".currentPage().frame".repeat(500));
    let inputs: Vec<(&str, String)> = vec![
        ("a.js", String::new()),
        ("a.js", "\u{feff}layout.tableCellEnd();".into()),
        ("a.js", deep),
        ("a.js", chain),
        (
            "a.js",
            "var s = \"unterminated;\nlayout.héading('é');".into(),
        ),
        ("a.js", "#include\n#include \"\n#target\né".into()),
        (
            "a.md",
            "```js\nvar a = new Table();\na.colums = 1;\n".into(),
        ),
        ("a.md", "```js\n```\n```javascript\n```".into()),
        (
            "a.js",
            "var o = {a: 1,,};\nfoo(,);\nfunction (a,) {}".into(),
        ),
        ("a.js", "\u{1F600}.x; layout.\u{1F600}();".into()),
    ];
    for (path, text) in &inputs {
        let f = check::check_text(&corpus, &project, path, text);
        for x in &f {
            assert!(x.span.start <= x.span.end && x.span.end <= text.len());
            assert!(text.is_char_boundary(x.span.start) && text.is_char_boundary(x.span.end));
        }
    }
    // The unclosed fence still checks what it holds.
    let f = check::check_text(&corpus, &project, "a.md", &inputs[6].1);
    assert!(f.iter().any(|x| x.code == Code::Member));
    // A parse error is a syntax finding.
    let f = check::check_text(&corpus, &project, "a.js", &inputs[8].1);
    assert!(f.iter().any(|x| x.code == Code::Syntax));
}

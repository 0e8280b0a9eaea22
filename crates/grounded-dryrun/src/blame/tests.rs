use super::*;

fn project(files: &[(&str, &str)]) -> Project {
    let c = Corpus::from_texts(&[("e.md", "# Engine\n\nECMAScript: 3\n")]).unwrap();
    let mut p = Project::default();
    for (i, (rel, text)) in files.iter().enumerate() {
        p.add(&c, i, rel, text);
        p.files.push((rel.to_string(), text.to_string()));
    }
    p
}

fn failure<'a>(
    file: &'a str,
    text: &'a str,
    at: &str,
    name: &'a str,
    message: &'a str,
) -> Failure<'a> {
    Failure {
        file,
        text,
        pos: text.find(at).unwrap(),
        name,
        message,
        shown: message,
    }
}

#[test]
fn a_declared_non_function_takes_the_blame_for_its_call() {
    let p = project(&[("a.js", "var helper = 5;\n"), ("b.js", "helper();\n")]);
    let f = failure(
        "b.js",
        "helper();\n",
        "helper",
        "TypeError",
        "not a function",
    );
    let Some(Verdict::Moved { at }) = p.judge(&f, &[]) else {
        panic!("{:?}", p.judge(&f, &[]));
    };
    assert_eq!((at.file.as_str(), at.start), ("a.js", 4));
    assert!(
        at.message.contains("a number") && at.message.contains("b.js:1"),
        "{}",
        at.message
    );
    // A function anywhere: the text cannot say which ran; the use keeps it.
    let p = project(&[("a.js", "var helper = 5;\nhelper = function () {};\n")]);
    assert_eq!(p.judge(&f, &[]), None);
}

#[test]
fn a_local_declaration_takes_the_blame_for_a_global_use() {
    let p = project(&[("a.js", "function init() {\n    var total = 1;\n}\n")]);
    let f = failure(
        "b.js",
        "log(total);\n",
        "total",
        "ReferenceError",
        "total is not defined",
    );
    let Some(Verdict::Moved { at }) = p.judge(&f, &[]) else {
        panic!();
    };
    assert!(at.message.contains("inside `init()`"), "{}", at.message);
    // Declared locally in two functions: no one declaration is the mistake.
    let p = project(&[("a.js", "function f() { var i; }\nfunction g() { var i; }\n")]);
    let f = failure(
        "b.js",
        "log(i);\n",
        "i",
        "ReferenceError",
        "i is not defined",
    );
    assert!(matches!(p.judge(&f, &[]), Some(Verdict::Stays(n)) if n.len() == 2));
}

#[test]
fn a_member_nobody_sets_stays_at_the_use_pointing_at_the_object() {
    let p = project(&[("a.js", "var cfg = {};\ncfg.rendr = function () {};\n")]);
    let text = "cfg.render();\n";
    let f = failure("b.js", text, ".", "TypeError", "not a function");
    let Some(Verdict::Stays(notes)) = p.judge(&f, &[]) else {
        panic!();
    };
    assert_eq!(notes.len(), 2, "{notes:?}");
    assert!(notes[1].message.contains("`cfg.rendr`"), "{notes:?}");
    // Set to a string: that assignment is the mistake.
    let p = project(&[("a.js", "var cfg = { render: \"x\" };\n")]);
    assert!(matches!(p.judge(&f, &[]), Some(Verdict::Moved { at }) if at.start == 12));
}

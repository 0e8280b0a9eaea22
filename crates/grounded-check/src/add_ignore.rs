//! `add_ignore`: the ignore comments `check --add-ignore[=REASON]` writes, one above
//! each line with a finding left (ruff's `--add-noqa`), so that a team can start from
//! zero with its debt visible in the code rather than in a baseline file.
//!
//! The comment goes on a line of its own at the line's indentation, as the editor's
//! *Ignore `CODE` on this line* puts it: appended to the end of the line it would land
//! after a `//` comment already there, or inside a template literal that goes on. A
//! line that starts inside a string, template, comment or JSX text gets none: a
//! comment there would be text of the program, and a tool that silences by changing
//! what a script prints is worse than the finding.

use std::collections::BTreeMap;

use crate::suppress::DIRECTIVE;
use crate::{Code, Finding, Span};

/// What `--add-ignore` would do to one file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Insertions, in order: `(at, comment line)`.
    pub edits: Vec<(Span, String)>,
    /// How many findings the comments silence.
    pub silenced: usize,
    /// 1-based lines left without a comment, because they start inside a string,
    /// template, comment or JSX text.
    pub skipped: Vec<usize>,
}

/// Node kinds whose inside is text of the program, not a place for a comment line.
const TEXT_KINDS: &[&str] = &[
    "string",
    "template_string",
    "comment",
    "regex",
    "jsx_text",
    "jsx_element",
    "jsx_fragment",
];

/// The comments for `findings` (those of one file, not silenced) in `text`, whose
/// parser view is `script` (`grounded_js::script_text`). `reason`: the text after the
/// colon, or empty for none. `ignore` warnings get no comment (their fix is to
/// correct the comment they are about).
pub fn plan(text: &str, script: &str, findings: &[&Finding], reason: &str) -> Plan {
    let mut by_line: BTreeMap<usize, Vec<Code>> = BTreeMap::new();
    let mut counts: BTreeMap<usize, usize> = BTreeMap::new();
    for f in findings.iter().filter(|f| f.code != Code::Ignore) {
        let codes = by_line.entry(f.line).or_default();
        if !codes.contains(&f.code) {
            codes.push(f.code);
        }
        *counts.entry(f.line).or_default() += 1;
    }
    if by_line.is_empty() {
        return Plan::default();
    }
    let idx = grounded_js::LineIndex::new(text);
    let tree = grounded_js::parse(script);
    let root = tree.root_node();
    let reason = reason.split_whitespace().collect::<Vec<_>>().join(" ");
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = Plan::default();
    for (line, mut codes) in by_line {
        let at = idx.line_start(line.saturating_sub(1));
        if at > text.len() || inside_text(root, at) {
            out.skipped.push(line);
            continue;
        }
        codes.sort();
        let names: Vec<&str> = codes.iter().map(|c| c.as_str()).collect();
        let indent: String = text[at..]
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        let why = if reason.is_empty() {
            String::new()
        } else {
            format!(": {reason}")
        };
        out.edits.push((
            Span::new(at, at),
            format!("{indent}// {DIRECTIVE} {}{why}{eol}", names.join(", ")),
        ));
        out.silenced += counts.get(&line).copied().unwrap_or(0);
    }
    out
}

/// Whether byte `at` (a line's start) lies strictly inside a node whose inside is text.
fn inside_text(root: tree_sitter::Node, at: usize) -> bool {
    let mut node = root.descendant_for_byte_range(at, at);
    while let Some(n) = node {
        if TEXT_KINDS.contains(&n.kind()) && n.start_byte() < at && at < n.end_byte() {
            return true;
        }
        node = n.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(text: &str, needle: &str, code: Code) -> Finding {
        let at = text.find(needle).unwrap();
        Finding::new("t.js", text, Span::new(at, at + needle.len()), code, "m")
    }

    /// One comment a line (codes merged, at the line's indentation, with the reason);
    /// a line that starts inside a template literal gets none.
    #[test]
    fn one_comment_a_line_and_none_inside_a_template() {
        let text = "function f() {\n    layout.foo(bar());\n}\nvar s = `a\n${layout.baz()}`;\n";
        let a = finding(text, "foo", Code::Member);
        let b = finding(text, "bar", Code::Function);
        let c = finding(text, "baz", Code::Member);
        let p = plan(text, text, &[&a, &b, &c], "legacy\nexport");
        assert_eq!(
            p.edits,
            vec![(
                Span::new(15, 15),
                "    // grounded-ignore member, function: legacy export\n".to_string()
            )]
        );
        assert_eq!(p.silenced, 2);
        assert_eq!(p.skipped, vec![5]);
        let q = plan(text, text, &[&a], "");
        assert_eq!(q.edits[0].1, "    // grounded-ignore member\n");
    }
}

//! Code actions: the findings' fixes as quick fixes, and removing a whole construct.
//!
//! Every edit is computed in bytes on the buffer's text and converted to UTF-16
//! positions once, here: an editor applies positions, and a position off by one code
//! unit after an `é` deletes the wrong character.

use std::collections::HashMap;

use tower_lsp_server::ls_types::{
    CodeAction, CodeActionKind, CodeActionOrCommand, Diagnostic, TextEdit, Uri, WorkspaceEdit,
};

use super::document::range_of;
use grounded_check::{Finding, Fix};
use grounded_docs::Corpus;
use grounded_js::LineIndex;

fn edit(uri: &Uri, edits: Vec<TextEdit>) -> WorkspaceEdit {
    let mut changes = HashMap::new();
    changes.insert(uri.clone(), edits);
    WorkspaceEdit {
        changes: Some(changes),
        ..Default::default()
    }
}

/// Quick fixes for the findings overlapping `[start, end]`, each with the diagnostic it
/// fixes (`diag_of` maps a finding to its published diagnostic).
pub fn quick_fixes(
    uri: &Uri,
    text: &str,
    findings: &[Finding],
    start: usize,
    end: usize,
    diag_of: impl Fn(&Finding) -> Diagnostic,
) -> Vec<CodeActionOrCommand> {
    let idx = LineIndex::new(text);
    let mut out = Vec::new();
    for f in findings {
        let overlaps = f.span.start <= end && start <= f.span.end;
        if !overlaps || f.span.end > text.len() {
            continue;
        }
        // Preferred (applied by "fix all", `check --fix` and one key in some editors):
        // the finding's one sure fix, the same rule everywhere.
        let sure = f.sure_fix();
        for fix in &f.fixes {
            let preferred = sure.is_some_and(|s| std::ptr::eq(s, fix));
            let (title, span, new_text) = match fix {
                Fix::Delete {
                    title,
                    detail,
                    span,
                    ..
                } => {
                    let title = match detail {
                        Some(d) => format!("{title} — {d}"),
                        None => title.clone(),
                    };
                    (title, *span, String::new())
                }
                Fix::Replace {
                    title, span, text, ..
                } => (title.clone(), *span, text.clone()),
            };
            if span.end > text.len() || span.start > span.end {
                continue;
            }
            out.push(CodeActionOrCommand::CodeAction(CodeAction {
                title,
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![diag_of(f)]),
                edit: Some(edit(
                    uri,
                    vec![TextEdit {
                        range: range_of(&idx, span.start, span.end),
                        new_text,
                    }],
                )),
                is_preferred: Some(preferred),
                ..Default::default()
            }));
        }
    }
    out
}

/// The kind of the source action that applies every sure fix of a document (VS Code's
/// `editor.codeActionsOnSave: {"source.fixAll.grounded": "explicit"}`).
pub const FIX_ALL: &str = "source.fixAll.grounded";

/// Whether an action of `kind` answers a request for the kinds `only` (none: every
/// kind). Kinds are hierarchical: a request for `source.fixAll` wants
/// `source.fixAll.grounded`.
pub fn wanted(only: Option<&[CodeActionKind]>, kind: &str) -> bool {
    only.is_none_or(|o| {
        o.iter().any(|k| {
            let k = k.as_str();
            kind == k || (kind.starts_with(k) && kind.as_bytes().get(k.len()) == Some(&b'.'))
        })
    })
}

/// *Fix all sure fixes*: `fixed` (the text after [`crate::check::fix::fix_text`]) as one
/// edit of the document, the changed stretch only, positions in UTF-16.
pub fn fix_all(uri: &Uri, text: &str, fixed: &str, applied: usize) -> Option<CodeActionOrCommand> {
    if fixed == text {
        return None;
    }
    let (a, b) = (text.as_bytes(), fixed.as_bytes());
    let mut pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !text.is_char_boundary(pre) || !fixed.is_char_boundary(pre) {
        pre -= 1;
    }
    let max_suf = a.len().min(b.len()) - pre;
    let mut suf = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suf)
        .take_while(|(x, y)| x == y)
        .count();
    while !text.is_char_boundary(a.len() - suf) || !fixed.is_char_boundary(b.len() - suf) {
        suf -= 1;
    }
    let idx = LineIndex::new(text);
    let s = if applied == 1 { "" } else { "es" };
    Some(CodeActionOrCommand::CodeAction(CodeAction {
        title: format!("Apply grounded's {applied} sure fix{s}"),
        kind: Some(CodeActionKind::new(FIX_ALL)),
        edit: Some(edit(
            uri,
            vec![TextEdit {
                range: range_of(&idx, pre, a.len() - suf),
                new_text: fixed[pre..b.len() - suf].to_string(),
            }],
        )),
        ..Default::default()
    }))
}

/// *Ignore `CODE` on this line* and *Ignore `CODE` in this file* for each finding
/// overlapping `[start, end]` (not for the `ignore` warnings themselves, whose fix is to
/// correct or remove the comment). The line's comment goes above it at its
/// indentation, the file's at the top (in Markdown prose, the HTML form).
pub fn ignore_actions(
    uri: &Uri,
    text: &str,
    findings: &[Finding],
    start: usize,
    end: usize,
    diag_of: impl Fn(&Finding) -> Diagnostic,
) -> Vec<CodeActionOrCommand> {
    use grounded_check::suppress::DIRECTIVE;
    let idx = LineIndex::new(text);
    let markdown = grounded_js::is_markdown(uri.path().as_str());
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for f in findings {
        let overlaps = f.span.start <= end && start <= f.span.end;
        if !overlaps || f.span.end > text.len() || f.code == grounded_check::Code::Ignore {
            continue;
        }
        let code = f.code.as_str();
        if !seen.insert((code, f.line)) {
            continue;
        }
        let line_start = idx.line_start(f.line.saturating_sub(1));
        let line = &text[line_start..];
        let indent: String = line
            .chars()
            .take_while(|c| *c == ' ' || *c == '\t')
            .collect();
        let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
        let insert = |at: usize, new_text: String| {
            let pos = range_of(&idx, at, at);
            Some(edit(
                uri,
                vec![TextEdit {
                    range: pos,
                    new_text,
                }],
            ))
        };
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Ignore `{code}` on this line"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diag_of(f)]),
            edit: insert(line_start, format!("{indent}// {DIRECTIVE} {code}{eol}")),
            is_preferred: Some(false),
            ..Default::default()
        }));
        // After a `#!` line, which must stay first.
        let top = if text.starts_with("#!") {
            text.find('\n').map_or(text.len(), |n| n + 1)
        } else {
            0
        };
        let file_comment = if markdown {
            format!("<!-- {DIRECTIVE}-file {code} -->{eol}")
        } else {
            format!("// {DIRECTIVE}-file {code}{eol}")
        };
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Ignore `{code}` in this file"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![diag_of(f)]),
            edit: insert(top, file_comment),
            is_preferred: Some(false),
            ..Default::default()
        }));
    }
    out
}

/// *Remove this table* (one per construct kind) on any line of a construct instance's
/// footprint: one workspace edit deleting all of its lines.
pub fn remove_construct(
    corpus: &Corpus,
    uri: &Uri,
    text: &str,
    tree: &tree_sitter::Tree,
    line0: u32,
) -> Vec<CodeActionOrCommand> {
    let idx = LineIndex::new(text);
    let line = line0 as usize + 1;
    let mut out = Vec::new();
    for inst in grounded_footprint::instances(corpus, text, tree) {
        if !inst.lines.iter().any(|&(a, b)| a <= line && line <= b) {
            continue;
        }
        let removal = grounded_footprint::removal(text, tree, &inst);
        let edits = removal
            .lines
            .iter()
            .map(|&(a, b)| {
                let s = idx.line_start(a.saturating_sub(1));
                let e = idx.line_start(b).max(s);
                TextEdit {
                    range: range_of(&idx, s, e),
                    new_text: String::new(),
                }
            })
            .collect();
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: match (removal.still_used.as_slice(), inst.object.as_deref()) {
                ([], _) | (_, None) => format!("Remove this {}", inst.construct),
                (lines, Some(o)) => format!(
                    "Remove this {} (`{o}` is still used on line{} {})",
                    inst.construct,
                    if lines.len() == 1 { "" } else { "s" },
                    lines
                        .iter()
                        .map(|l| l.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            kind: Some(CodeActionKind::REFACTOR_REWRITE),
            edit: Some(edit(uri, edits)),
            ..Default::default()
        }));
    }
    out
}

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
        // Preferred (applied by "fix all" and by one key in some editors) only when it
        // is the one fix: among near names, picking one is the user's call.
        // An unclosed construct also has *Remove this table*: inserting the End is one of
        // two ways, not the sure one.
        let single = f.fixes.len() == 1 && f.code != grounded_check::Code::Construct;
        for fix in &f.fixes {
            let (title, span, new_text, preferred) = match fix {
                Fix::Delete {
                    title,
                    detail,
                    span,
                } => {
                    let title = match detail {
                        Some(d) => format!("{title} — {d}"),
                        None => title.clone(),
                    };
                    (title, *span, String::new(), detail.is_some())
                }
                Fix::Replace { title, span, text } => (title.clone(), *span, text.clone(), single),
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

//! The facts the finish gates judge a draft against ([`TurnFacts`]), asked of the
//! workspace when the model offers a final answer: the files changed, the findings
//! outstanding on them, the plan's items, what names a file here.
//!
//! Why asked and not told: a model reported "Updated template.js" when nothing was
//! written, and finished with invented calls on disk after an essay about them. The
//! gates read these facts, never the model's account.
//!
//! May import `edits`, `gates`, `intent` and `tools`; the turn imports it.

use super::gates::TurnFacts;
use super::intent;
use super::tools::ToolCtx;
use grounded_check as check;

/// The facts the finish gates see, asked of the workspace.
pub fn facts(ctx: &ToolCtx, request: &str, intent: &intent::Intent, steps: usize) -> TurnFacts {
    let changed = ctx.edits.changed(ctx);
    let snaps = ctx.edits.snapshots();
    let mut outstanding = Vec::new();
    let index = super::tools::project_index(ctx);
    let rules = super::tools::turn_rules(ctx);
    for rel in &changed {
        // Only what the checker checks: `.gitignore`, `notes.txt` or `CHANGES` read as
        // a script gave a phantom syntax finding that `grounded check` never reports.
        if !(check::project::is_script(ctx.corpus, std::path::Path::new(rel))
            || grounded_js::is_markdown(rel))
        {
            continue;
        }
        let Ok(bytes) = ctx.workspace.read(&ctx.root.join(rel)) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        // Judged as the turn's gates judge (the `[check]` rules, and only the ignore
        // comments that were there when the turn began).
        let start = super::tools::turn_start(ctx, rel, None);
        let found = super::tools::check_as_turn(ctx, &index, &rules, rel, &text, start.as_deref());
        // A construct the turn left open is outstanding too (its warning was not
        // there before): the measure would undo the turn for it.
        let before: Vec<check::Finding> = match snaps.get(rel) {
            Some(Some(b)) => super::tools::check_as_turn(
                ctx,
                &index,
                &rules,
                rel,
                &String::from_utf8_lossy(b),
                start.as_deref(),
            ),
            _ => Vec::new(),
        };
        let mut had: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for f in before.iter().filter(|f| f.code == check::Code::Construct) {
            *had.entry(super::edits::finding_key(f)).or_default() += 1;
        }
        for f in found {
            let counts = if f.severity == check::Severity::Error {
                true
            } else if f.code == check::Code::Construct {
                match had.get_mut(&super::edits::finding_key(&f)) {
                    Some(n) if *n > 0 => {
                        *n -= 1;
                        false
                    }
                    _ => true,
                }
            } else {
                false
            };
            if counts {
                outstanding.push(format!(
                    "{rel}:{}:{} {}: {}",
                    f.line,
                    f.column,
                    f.code.as_str(),
                    f.message
                ));
            }
        }
    }
    let writes = ctx.edits.counts();
    TurnFacts {
        request: request.to_string(),
        asks_change: intent.asks_change(),
        names: file_names(ctx, &index),
        changed,
        writes,
        outstanding,
        plan: ctx.edits.plan(),
        steps,
    }
}

/// What names a file here: the project's paths and those the turn wrote, the script
/// extensions and the project's own, and the code names (documented globals and
/// interfaces, the project's declarations).
fn file_names(ctx: &ToolCtx, index: &check::project::ProjectIndex) -> super::gates::FileNames {
    let mut paths = super::tools::base::project_files(ctx, ctx.root);
    paths.extend(ctx.edits.snapshots().into_keys());
    paths.sort();
    paths.dedup();
    let mut extensions: Vec<String> = ctx
        .corpus
        .engine
        .script_extensions
        .iter()
        .map(|e| e.trim_start_matches('.').to_ascii_lowercase())
        .collect();
    for p in &paths {
        let name = p.rsplit('/').next().unwrap_or(p);
        if let Some((_, ext)) = name.rsplit_once('.') {
            extensions.push(ext.to_ascii_lowercase());
        }
    }
    extensions.sort();
    extensions.dedup();
    let corpus = ctx.corpus.corpus();
    let mut code: Vec<String> = corpus.globals.keys().cloned().collect();
    code.extend(corpus.interfaces.keys().cloned());
    for f in index.files.values() {
        code.extend(f.decls.iter().cloned());
    }
    super::gates::FileNames {
        paths,
        extensions,
        code,
    }
}

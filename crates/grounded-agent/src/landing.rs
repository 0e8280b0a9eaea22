//! Where a write lands: the pre-write refusal (the checker on old against new content),
//! landing through the workspace with a snapshot and a measurement before the first
//! write, the refusal's words, and undoing the turn byte for byte.
//!
//! Above the tools and the measurements, which it uses through [`ToolCtx`]; the write
//! ledger it records into is `edits`, below both. May import `edits`, `tools`,
//! `measure`, `check` and `footprint`; nothing imports it (its methods are `Edits`').

use std::path::Path;

use serde_json::json;

use super::edits::{added, Edits};
use super::tools::{check_as_turn, project_index, ToolCtx};
use grounded_check::{self as check, Code, Finding, Fix};
use grounded_footprint::FileStamp;

impl Edits {
    /// Counts a write tool call refused by a rule before it reached the workspace.
    pub fn refuse(&self, ctx: &ToolCtx, rel: &str, bytes_before: usize, reason: &str) -> String {
        {
            let mut s = self.lock();
            s.attempted += 1;
            s.refused += 1;
        }
        ctx.transcript.event(
            "edit",
            json!({"path": rel, "status": "refused", "reason": reason,
                   "bytes_before": bytes_before, "bytes_after": bytes_before}),
        );
        ctx.progress.say(&format!("refused a write to {rel}"));
        format!("refused: {reason}\nNothing was written to {rel}.")
    }

    /// The relative paths whose bytes differ now from before the turn (created files
    /// included, removed ones too): asked of the workspace, never of the model.
    pub fn changed(&self, ctx: &ToolCtx) -> Vec<String> {
        let snaps = self.lock().snapshots.clone();
        snaps
            .into_iter()
            .filter(|(rel, before)| {
                let now = ctx.workspace.read(&ctx.root.join(rel)).ok();
                now.as_deref() != before.as_deref()
            })
            .map(|(rel, _)| rel)
            .collect()
    }

    /// Refuses content that adds checker findings to a script, judged as the end measure
    /// judges the turn: a new error, or a new `construct` finding (a construct the write
    /// leaves open); `Ok` means the content may be written.
    pub fn pre_write(
        &self,
        ctx: &ToolCtx,
        rel: &str,
        old: Option<&str>,
        new: &str,
    ) -> Result<(), String> {
        let corpus = ctx.corpus;
        let is_checked =
            check::project::is_script(corpus, Path::new(rel)) || grounded_js::is_markdown(rel);
        if !is_checked {
            return Ok(());
        }
        let mut s = self.lock();
        if s.index.is_none() {
            s.index = Some(project_index(ctx));
        }
        let state = &mut *s;
        // The file as the turn found it: ignore comments count only if they were there.
        let start: Option<String> = match state.snapshots.get(rel) {
            Some(Some(b)) => Some(String::from_utf8_lossy(b).into_owned()),
            Some(None) => None,
            None => old.map(str::to_string),
        };
        if state.rules.is_none() {
            drop(s);
            let rules = super::tools::turn_rules(ctx);
            s = self.lock();
            s.rules = Some(rules);
        }
        let state = &mut *s;
        let rules = state.rules.clone().unwrap_or_default();
        let index = state.index.as_mut().expect("set above");
        let before = match old {
            Some(o) => {
                let key = (rel.to_string(), FileStamp::of(o));
                match state.checked.get(&key) {
                    Some(f) => f.clone(),
                    None => {
                        index.update_file(corpus, rel, o);
                        let f = check_as_turn(ctx, index, &rules, rel, o, start.as_deref());
                        state.checked.insert(key, f.clone());
                        f
                    }
                }
            }
            None => Vec::new(),
        };
        index.update_file(corpus, rel, new);
        let after = check_as_turn(ctx, index, &rules, rel, new, start.as_deref());
        state
            .checked
            .insert((rel.to_string(), FileStamp::of(new)), after.clone());
        let added = added(&before, &after);
        if added.is_empty() {
            return Ok(());
        }
        match old {
            Some(o) => index.update_file(corpus, rel, o),
            None => index.remove_file(rel),
        }
        drop(s);
        Err(refusal_text(ctx, rel, &added))
    }

    /// Writes `new` to `rel` through the workspace: measures the project before the
    /// turn's first write, snapshots the file's bytes before its first write, and
    /// records the edit. Returns the tool's answer.
    pub fn land(
        &self,
        ctx: &ToolCtx,
        rel: &str,
        abs: &Path,
        old: Option<&[u8]>,
        new: &[u8],
        label: &str,
    ) -> Result<String, String> {
        // A question changes no file: the write tools are withheld and refused before
        // they run, and this is the one place every write passes, so no other path
        // (a plan's worker, a tool added later) lands one either.
        if let Err(why) = self.question_check() {
            return Err(self.refuse(ctx, rel, old.map_or(0, <[u8]>::len), &why));
        }
        // The removal rule at the one place every write passes: a tool that forgot to
        // ask, or a plan's worker, cannot grow a file in a removal turn.
        let old_text = old.map(String::from_utf8_lossy);
        if let Err(why) = self.removal_check(old_text.as_deref(), &String::from_utf8_lossy(new)) {
            return Err(self.refuse(ctx, rel, old.map_or(0, <[u8]>::len), &why));
        }
        self.ensure_before(ctx);
        {
            let mut s = self.lock();
            s.attempted += 1;
            s.snapshots
                .entry(rel.to_string())
                .or_insert_with(|| old.map(<[u8]>::to_vec));
        }
        let bytes_before = old.map_or(0, <[u8]>::len);
        if old.is_none() {
            let made = missing_dirs(ctx.root, rel);
            self.adopt_dirs(made);
        }
        ctx.progress.say(&format!("editing {rel}"));
        match ctx.workspace.write(abs, new, label) {
            Ok(()) => {
                let mut s = self.lock();
                s.landed += 1;
                // The pre-write check already put the new text in the index. Other
                // files' findings may depend on this one (a function it declared):
                // only this file's cached findings stay valid.
                s.read.insert(rel.to_string(), FileStamp::of_bytes(new));
                s.checked.retain(|(r, _), _| r == rel);
                drop(s);
                ctx.transcript.event(
                    "edit",
                    json!({"path": rel, "status": "applied", "reason": label,
                           "bytes_before": bytes_before, "bytes_after": new.len()}),
                );
                Ok(format!(
                    "{label}: {rel} written ({bytes_before} → {} bytes).",
                    new.len()
                ))
            }
            Err(e) => {
                let mut s = self.lock();
                s.refused += 1;
                // Nothing landed: the index goes back to the text that is there.
                let state = &mut *s;
                if let Some(index) = state.index.as_mut() {
                    match old.map(String::from_utf8_lossy) {
                        Some(o) => index.update_file(ctx.corpus, rel, &o),
                        None => index.remove_file(rel),
                    }
                }
                drop(s);
                ctx.transcript.event(
                    "edit",
                    json!({"path": rel, "status": "refused", "reason": format!("the write was not done: {e}"),
                           "bytes_before": bytes_before, "bytes_after": bytes_before}),
                );
                Err(format!("the write to {rel} was not done: {e}"))
            }
        }
    }

    /// Measures the project before the turn's first write, once.
    pub fn ensure_before(&self, ctx: &ToolCtx) {
        if self.lock().before.is_none() {
            let m = super::measure::measure(ctx, "before");
            self.lock().before = Some(m);
        }
    }

    /// Restores every file the turn wrote to its bytes before the turn (created files
    /// removed). Returns one line per file that could not be restored.
    pub fn undo_all(&self, ctx: &ToolCtx, why: &str) -> Vec<String> {
        let snaps = self.lock().snapshots.clone();
        let mut failed = Vec::new();
        for (rel, before) in snaps {
            let abs = ctx.root.join(&rel);
            let now = ctx.workspace.read(&abs).ok();
            if now.as_deref() == before.as_deref() {
                continue;
            }
            let label = format!("grounded agent: undo {rel}");
            let (r, after) = match &before {
                Some(b) => (ctx.workspace.write(&abs, b, &label), b.len()),
                None => (ctx.workspace.remove(&abs, &label), 0),
            };
            let bytes_before = now.as_ref().map_or(0, Vec::len);
            match r {
                Ok(()) => ctx.transcript.event(
                    "edit",
                    json!({"path": rel, "status": "undone", "reason": why,
                           "bytes_before": bytes_before, "bytes_after": after}),
                ),
                Err(e) => failed.push(format!("{rel}: could not be restored: {e}")),
            }
        }
        // Folders the turn created go too, innermost first, each only once empty: the
        // tree is as it was, and nothing the turn did not make is touched.
        let mut dirs = self.created_dirs();
        dirs.sort_by_key(|d| std::cmp::Reverse(d.matches('/').count()));
        for d in dirs {
            let abs = ctx.root.join(&d);
            if abs.is_dir() && std::fs::remove_dir(&abs).is_err() {
                failed.push(format!(
                    "{d}/: a folder the turn created is not empty; left"
                ));
            }
        }
        failed
    }
}

/// The folders of `rel` under `root` that do not exist yet (relative, outermost first):
/// the ones a write of `rel` creates.
fn missing_dirs(root: &Path, rel: &str) -> Vec<String> {
    let parts: Vec<&str> = rel.split('/').collect();
    let mut out = Vec::new();
    for i in 1..parts.len() {
        let d = parts[..i].join("/");
        if !root.join(&d).exists() {
            out.push(d);
        }
    }
    out
}

fn refusal_text(ctx: &ToolCtx, rel: &str, added: &[Finding]) -> String {
    let mut s = format!(
        "the content would add {} checker finding{} to {rel}:\n",
        added.len(),
        if added.len() == 1 { "" } else { "s" }
    );
    let mut listed = Vec::new();
    for f in added {
        s.push_str(&format!(
            "- line {}:{} {}: {}\n",
            f.line,
            f.column,
            f.code.as_str(),
            f.message
        ));
        for fix in &f.fixes {
            let title = match fix {
                Fix::Replace { title, .. } | Fix::Delete { title, .. } => title,
            };
            s.push_str(&format!("  fix: {title}\n"));
        }
        if f.code == Code::Member {
            if let Some(iface) = first_ticked(&f.message) {
                if ctx.corpus.interfaces.contains_key(iface) && !listed.contains(&iface) {
                    listed.push(iface);
                    let names: Vec<String> = ctx
                        .corpus
                        .members_of(iface)
                        .iter()
                        .map(|m| m.name.clone())
                        .collect();
                    s.push_str(&format!(
                        "  the real members of `{iface}`: {}\n",
                        names.join(", ")
                    ));
                }
            }
        }
    }
    if added.iter().any(|f| f.code == Code::Construct) {
        s.push_str(super::wording::CONSTRUCT_OPEN);
        s.push('\n');
    }
    if added.iter().any(|f| f.code != Code::Construct) {
        s.push_str("Use the real members named above, or leave out what has no real member and say so; do not look up the invented name again.");
    }
    s.trim_end().to_string()
}

fn first_ticked(msg: &str) -> Option<&str> {
    let a = msg.find('`')?;
    let rest = &msg[a + 1..];
    let b = rest.find('`')?;
    Some(&rest[..b])
}

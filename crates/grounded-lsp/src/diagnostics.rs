//! Scheduling and diagnostics: the debounced check of a buffer through its incremental
//! session, the project index kept in step with buffers and disk (and the dependents it
//! re-checks), and publishing static and dry-run findings as diagnostics.
//!
//! Every result carries the version it was computed for and is dropped when the buffer
//! moved on: handlers and checks interleave, and a late result must not overwrite a newer
//! one.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;

use tower_lsp_server::ls_types::*;

use super::document::{range_of, Document, Kind};
use super::state::{guard, read, Backend, INDEX_IDLE};
use super::typing::LOCAL_ANALYSIS_BYTES;
use grounded_check::{Finding, ProjectIndex, Session, Severity};
use grounded_js::LineIndex;

/// The one diagnostic of a buffer too large to analyse. An empty publish would look like
/// a clean file: the user must know nothing was checked, and why.
fn not_analysed(doc: &Document) -> Option<Diagnostic> {
    let max = super::document::MAX_ANALYSED_BYTES;
    if doc.kind != Kind::Skipped || doc.text.len() <= max {
        return None;
    }
    Some(Diagnostic {
        range: Range::default(),
        severity: Some(DiagnosticSeverity::INFORMATION),
        source: Some("grounded".into()),
        message: format!(
            "not analysed: this file is {:.1} MB, over the {} MB grounded analyses",
            doc.text.len() as f64 / 1e6,
            max >> 20
        ),
        ..Default::default()
    })
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Info => DiagnosticSeverity::INFORMATION,
        Severity::Hint => DiagnosticSeverity::HINT,
    }
}

/// The byte offset of a 1-based line and character column in `text` (clamped to the
/// line's end).
fn offset_at(idx: &LineIndex, text: &str, line: usize, col: usize) -> usize {
    let start = idx.line_start(line.saturating_sub(1));
    let rest = &text[start..];
    rest.char_indices()
        .take_while(|(_, c)| *c != '\n')
        .nth(col.saturating_sub(1))
        .map(|(i, _)| start + i)
        .unwrap_or_else(|| start + rest.find('\n').unwrap_or(rest.len()))
}

/// The range of a finding by its 1-based line and character column, for findings computed
/// on another text than the buffer's current one (the dry run).
fn range_by_line_col(idx: &LineIndex, text: &str, f: &Finding) -> Range {
    let s = offset_at(idx, text, f.line, f.column);
    let e = offset_at(idx, text, f.end_line, f.end_column).max(s);
    range_of(idx, s, e)
}

/// Where a dry-run finding made on the buffer text `seen` lies in the buffer's text
/// `now`: its byte span there, shifted past the edits since; `None` when the edits
/// touched it.
///
/// Why: dry-run findings were published with every later version at their old line and
/// column, so fixing the typo a dry run had reported left the finding on screen until the
/// next dry run, 1.6 s after the fix; a client waiting for diagnostics that reflect its
/// edit waited that long. A finding about text the user has since changed no longer
/// says anything about it; the next dry run says again what still holds.
fn carried(seen: &str, seen_idx: &LineIndex, now: &str, f: &Finding) -> Option<(usize, usize)> {
    let s = offset_at(seen_idx, seen, f.line, f.column);
    let e = offset_at(seen_idx, seen, f.end_line, f.end_column).max(s);
    match diff(seen, now) {
        None => Some((s, e)),
        // Strictly before or after: a character typed right against the finding's text
        // changes the word it is about.
        Some((start, _, _)) if e < start => Some((s, e)),
        Some((start, end, new)) if s > end => {
            let delta = new.len() as isize - (end - start) as isize;
            let at = |x: usize| (x as isize + delta) as usize;
            Some((at(s), at(e)))
        }
        Some(_) => None,
    }
}

/// What one check of a buffer found, and what it says about the buffer's index entry.
struct Checked {
    rel: String,
    findings: Vec<Finding>,
    seed: Option<(Arc<grounded_js::Seed>, tree_sitter::Tree)>,
    /// Whether the buffer's index facts may have changed with this check.
    facts_changed: bool,
}

/// Whether `index` holds an entry for `rel` read from a file whose text is `text`: the
/// buffer is then the file the project scan read, and its entry is current.
fn index_read_this(index: &ProjectIndex, rel: &str, path: Option<&Path>, text: &str) -> bool {
    index
        .files
        .contains_key(&grounded_check::project::normalize(rel))
        && path
            .and_then(|p| std::fs::read(p).ok())
            .is_some_and(|b| b == text.as_bytes())
}

/// Brings a buffer's session to `text` (one edit spanning everything that differs) and
/// returns the findings.
fn bring_to(session: &mut Session, text: &str) -> Vec<Finding> {
    if let Some((start, end, new)) = diff(session.text(), text) {
        session.edit(start, end, new);
    }
    session.findings().to_vec()
}

/// The one edit turning `old` into `new`: the byte range of `old` between their common
/// prefix and suffix, and what replaces it; `None` when equal. Several keystrokes that
/// arrived within one debounce become one edit.
fn diff<'n>(old: &str, new: &'n str) -> Option<(usize, usize, &'n str)> {
    if old == new {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut p = grounded_textfile::diff::common_prefix(a, b);
    while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
        p -= 1;
    }
    let max = a.len().min(b.len()) - p;
    let mut sfx = grounded_textfile::diff::common_suffix(&a[p..], &b[p..]).min(max);
    while !old.is_char_boundary(a.len() - sfx) || !new.is_char_boundary(b.len() - sfx) {
        sfx -= 1;
    }
    Some((p, a.len() - sfx, &new[p..b.len() - sfx]))
}

impl Backend {
    /// The `[check]` rules of a buffer (`grounded.toml`'s, for a file inside the root;
    /// the defaults outside it), or `None` when the rules exclude it: an excluded file
    /// shows nothing. One answer for the check's findings and the dry run's.
    fn rules_for(&self, rel: &str) -> Option<grounded_check::suppress::FileRules> {
        let inside = self.inside_root(rel);
        if !inside {
            return Some(grounded_check::suppress::FileRules::default());
        }
        let rules = read(&self.state.rules);
        (!rules.excluded(rel)).then(|| rules.for_file(rel))
    }

    /// The findings the editor shows of a buffer: its ignore comments and `[check]`
    /// applied ([`grounded_check::suppress::apply`]) and what they silenced left out, as
    /// `grounded check` prints them. An excluded file shows nothing.
    pub(super) fn unsilenced(
        &self,
        rel: &str,
        text: &str,
        mut findings: Vec<Finding>,
        directives: &[String],
    ) -> Vec<Finding> {
        use grounded_check::suppress;
        let Some(file_rules) = self.rules_for(rel) else {
            return Vec::new();
        };
        let baseline = if self.inside_root(rel) {
            read(&self.state.baseline).clone()
        } else {
            None
        };
        let comments = text.contains(suppress::DIRECTIVE);
        if !comments && file_rules.is_default() && baseline.is_none() {
            return findings;
        }
        let script = grounded_js::script_text(rel, text, directives);
        let before = findings.len();
        suppress::apply_file(&mut findings, rel, text, &script, &file_rules);
        if let Some(b) = &baseline {
            mark_baselined(&mut findings, b, rel, text);
        }
        findings.retain(|f| f.ignored.is_none());
        if findings.len() != before || comments {
            findings.sort_by_key(|f| (f.span.start, f.code));
        }
        findings
    }

    /// The dry run's findings of a buffer less what its ignore comments and `[check]`
    /// silence, as `check --dry-run` leaves them out (an ignore is never said unused for
    /// a run that may not have happened).
    fn silenced_dry(&self, rel: &str, text: &str, mut found: Vec<Finding>) -> Vec<Finding> {
        use grounded_check::suppress;
        if found.is_empty() {
            return found;
        }
        let Some(file_rules) = self.rules_for(rel) else {
            return Vec::new();
        };
        if file_rules.is_default() && !text.contains(suppress::DIRECTIVE) {
            return found;
        }
        let script = grounded_js::script_text(rel, text, &self.corpus().engine.directives);
        let dirs = suppress::directives(rel, text, &script);
        suppress::mark(&mut found, &dirs, &file_rules);
        found.retain(|f| f.ignored.is_none());
        found
    }

    /// A finding as the protocol's diagnostic: placed by its byte span (`by_span`) when
    /// it was computed on the buffer's current text, else by its line and column.
    pub(super) fn diagnostic_of(
        &self,
        uri: Option<&Uri>,
        idx: &LineIndex,
        text: &str,
        f: &Finding,
        by_span: bool,
    ) -> Diagnostic {
        let range = if by_span
            && f.span.end <= text.len()
            && text.is_char_boundary(f.span.start)
            && text.is_char_boundary(f.span.end)
        {
            range_of(idx, f.span.start, f.span.end)
        } else {
            range_by_line_col(idx, text, f)
        };
        let dir = read(&self.state.corpus_dir);
        let mut code_description = None;
        let mut related: Vec<DiagnosticRelatedInformation> = Vec::new();
        // A dry-run message stays whole: its last sentence, moved to a related line at
        // the same place, read as a second finding.
        let (message, rest) = match f.code {
            grounded_check::Code::DryRun => (f.message.clone(), None),
            _ => super::features::split_message(&f.message),
        };
        if let (Some(rest), Some(uri)) = (rest, uri) {
            // What the short message left out, at the finding itself.
            related.push(DiagnosticRelatedInformation {
                location: Location {
                    uri: uri.clone(),
                    range,
                },
                message: rest,
            });
        }
        if let (Some(rel), Some(dir)) = (&f.related, dir) {
            let file = super::navigation::normalize(&dir.join(&rel.file));
            if let Some(uri) = Uri::from_file_path(file) {
                let line = rel.line.saturating_sub(1) as u32;
                code_description = Some(CodeDescription { href: uri.clone() });
                related.push(DiagnosticRelatedInformation {
                    location: Location {
                        uri,
                        range: Range::new(Position::new(line, 0), Position::new(line, 0)),
                    },
                    message: rel.message.clone(),
                });
            }
        }
        for p in &f.places {
            // Absolute paths (the dry run's scheduler made them so). The column counts
            // characters: the same UTF-16 units on lines of ASCII, and on any other
            // line still the right line to open.
            if let Some(uri) = Uri::from_file_path(Path::new(&p.path)) {
                let pos = Position::new(
                    p.line.saturating_sub(1) as u32,
                    p.column.saturating_sub(1) as u32,
                );
                related.push(DiagnosticRelatedInformation {
                    location: Location {
                        uri,
                        range: Range::new(pos, pos),
                    },
                    message: p.message.clone(),
                });
            }
        }
        let related_information = (!related.is_empty()).then_some(related);
        Diagnostic {
            range,
            severity: Some(severity(f.severity)),
            code: Some(NumberOrString::String(f.code.as_str().into())),
            code_description,
            source: Some("grounded".into()),
            message,
            related_information,
            tags: None,
            data: None,
        }
    }

    /// Publishes the static and dry-run findings of one URI.
    pub(super) async fn publish(&self, key: &str) {
        let (uri, version, diags) = {
            let dry = self
                .state
                .dry
                .get(key)
                .map(|d| (d.uri.clone(), d.findings.clone(), d.seen.clone()));
            match self.state.docs.get(key) {
                Some(e) => {
                    let text = &e.doc.text;
                    let idx = e.doc.line_index();
                    // A dry-run finding where a static one stands is folded into it
                    // (`dry_run::fold_into_static`): one diagnostic, not two.
                    let mut statics: Vec<Finding> = e.findings.to_vec();
                    let (dry_now, by_span) = match &dry {
                        Some((_, fs, Some(seen))) => {
                            let seen_idx = LineIndex::new(seen);
                            let now = fs.iter().filter_map(|f| {
                                let (s, end) = carried(seen, &seen_idx, text, f)?;
                                let mut f = f.clone();
                                f.span = grounded_check::Span::new(s, end);
                                Some(f)
                            });
                            (now.collect(), true)
                        }
                        Some((_, fs, None)) => (fs.clone(), false),
                        None => (Vec::new(), true),
                    };
                    let dry_now = self.silenced_dry(&e.rel, text, dry_now);
                    let standing = super::dry_run::fold_into_static(&mut statics, dry_now, by_span);
                    let mut d: Vec<Diagnostic> = statics
                        .iter()
                        .map(|f| self.diagnostic_of(Some(&e.uri), &idx, text, f, true))
                        .collect();
                    d.extend(
                        standing
                            .iter()
                            .map(|f| self.diagnostic_of(Some(&e.uri), &idx, text, f, by_span)),
                    );
                    if let Some(d0) = not_analysed(&e.doc) {
                        d.push(d0);
                    }
                    (e.uri.clone(), Some(e.doc.version), d)
                }
                None => match dry {
                    Some((uri, fs, _)) => {
                        let text = uri
                            .to_file_path()
                            .and_then(|p| grounded_textfile::read(&p).ok())
                            .map(|d| d.text)
                            .unwrap_or_default();
                        let idx = LineIndex::new(&text);
                        let d = fs
                            .iter()
                            .map(|f| self.diagnostic_of(Some(&uri), &idx, &text, f, false))
                            .collect();
                        (uri, None, d)
                    }
                    None => return,
                },
            }
        };
        self.state
            .client
            .publish_diagnostics(uri, diags, version)
            .await;
    }

    /// Re-checks every open buffer (corpus or settings changed).
    pub(super) fn recheck_all(&self) {
        let keys: Vec<(String, i32)> = self
            .state
            .docs
            .iter()
            .map(|e| (e.key().clone(), e.doc.version))
            .collect();
        for (k, v) in keys {
            self.schedule_check(k, v, false, true);
        }
    }

    /// Checks a buffer's latest version; `cascade` also refreshes what depends on it.
    ///
    /// No wait: an edit that arrives when no check of the buffer runs is checked at once;
    /// edits that arrive while one runs are merged, and the latest version is checked as
    /// soon as it ends. The wait used to be the last check's cost (capped by
    /// `debounceMs`) whatever time had passed since the last keystroke: a typo checked
    /// in 0.7 ms after a pause was published 50 ms after it was typed, because the check
    /// before it had cost 80 ms (issue 30). A burst typed during a check is still
    /// checked once, for its last version.
    pub(super) fn schedule_check(&self, key: String, _version: i32, cascade: bool, _now: bool) {
        let Some(checks) = self.state.docs.get(&key).map(|e| e.checks.clone()) else {
            return;
        };
        {
            let mut c = checks.lock().unwrap_or_else(|p| p.into_inner());
            c.cascade |= cascade;
            if c.running {
                c.again = true;
                return;
            }
            c.running = true;
        }
        let this = self.clone();
        tokio::spawn(async move {
            // Notifications already read (an editor's several changes of one moment)
            // are applied before the check reads the text.
            tokio::task::yield_now().await;
            loop {
                let cascade = {
                    let mut c = checks.lock().unwrap_or_else(|p| p.into_inner());
                    c.again = false;
                    std::mem::take(&mut c.cascade)
                };
                let version = this.state.docs.get(&key).map(|e| e.doc.version);
                let same = this
                    .state
                    .docs
                    .get(&key)
                    .is_some_and(|e| Arc::ptr_eq(&e.checks, &checks));
                if let (Some(version), true) = (version, same) {
                    this.check_now(key.clone(), version, cascade).await;
                }
                let mut c = checks.lock().unwrap_or_else(|p| p.into_inner());
                if !c.again {
                    c.running = false;
                    return;
                }
            }
        });
    }

    async fn check_now(&self, key: String, version: i32, cascade: bool) {
        // The buffer's session: a result is for this opening of the buffer only (a
        // close and a reopen at once starts again at version 1 with another text).
        let cell = match self.state.docs.get(&key) {
            Some(e) if e.doc.version == version => e.session.clone(),
            _ => return, // superseded or closed
        };
        let this = self.clone();
        let key2 = key.clone();
        let cell2 = cell.clone();
        let res = tokio::task::spawn_blocking(move || {
            guard("check", || {
                let t0 = std::time::Instant::now();
                let cell = cell2;
                // A panic inside the session poisons its lock: start it afresh.
                let mut slot = match cell.lock() {
                    Ok(g) => g,
                    Err(p) => {
                        let mut g = p.into_inner();
                        *g = None;
                        cell.clear_poison();
                        g
                    }
                };
                let (rel, text, kind, path) = match this.state.docs.get(&key2) {
                    Some(e) if e.doc.version == version && Arc::ptr_eq(&e.session, &cell) => (
                        e.rel.clone(),
                        e.doc.text.clone(),
                        e.doc.kind,
                        e.path.clone(),
                    ),
                    _ => return None, // a newer check is on its way
                };
                if kind == Kind::Skipped {
                    *slot = None;
                    return Some(Checked {
                        rel,
                        findings: Vec::new(),
                        seed: None,
                        facts_changed: true,
                    });
                }
                let corpus = this.corpus();
                let index = read(&this.state.index);
                let reuse = slot.as_ref().is_some_and(|s| {
                    Arc::ptr_eq(s.corpus(), &corpus)
                        && Arc::ptr_eq(s.project(), &index)
                        && s.path() == rel
                });
                let (findings, facts_changed) = match slot.as_mut().filter(|_| reuse) {
                    Some(s) => {
                        let (same_text, before) = (s.text() == text, s.incremental_edits());
                        let f = bring_to(s, &text);
                        // A statement-only re-check kept every statement's summary,
                        // which holds all the file's index facts.
                        (f, !same_text && s.incremental_edits() == before)
                    }
                    None => {
                        let s = Session::new(corpus.clone(), index.clone(), &rel, &text);
                        let f = s.findings().to_vec();
                        *slot = Some(s);
                        (f, !index_read_this(&index, &rel, path.as_deref(), &text))
                    }
                };
                let findings = this.unsilenced(&rel, &text, findings, &corpus.engine.directives);
                tracing::debug!(
                    "checked {rel} v{version} in {:?}{}: {} findings",
                    t0.elapsed(),
                    if reuse { "" } else { " (new session)" },
                    findings.len()
                );
                let seed = slot.as_ref().map(|s| (s.seed(), s.edited_tree().clone()));
                Some(Checked {
                    rel,
                    findings,
                    seed,
                    facts_changed,
                })
            })
        })
        .await;
        let c = match res {
            Ok(Ok(Some(c))) => c,
            Ok(Ok(None)) => return,
            Ok(Err(_)) => match self.state.docs.get(&key) {
                Some(e) => Checked {
                    rel: e.rel.clone(),
                    findings: Vec::new(),
                    seed: None,
                    facts_changed: true,
                },
                None => return,
            },
            Err(e) => {
                tracing::error!("check task failed: {e}");
                return;
            }
        };
        let rel = c.rel;
        // A result computed for an old version is dropped: the buffer moved on.
        match self.state.docs.get_mut(&key) {
            Some(mut e) => {
                // Even a dropped result moved the session: the next check starts from
                // this text and cannot see what this one changed.
                if !Arc::ptr_eq(&e.session, &cell) {
                    return; // closed and opened again meanwhile
                }
                e.facts_stale |= c.facts_changed;
                if e.doc.version != version {
                    return;
                }
                e.findings = Arc::new(c.findings);
                e.findings_version = version;
                if let Some((seed, tree)) = c.seed {
                    e.seed = Some(seed);
                    // A large buffer's requests read the tree around the cursor
                    // ([`Backend::script_at`]); the first needs one without parsing
                    // the buffer again (seconds on a 7.8 MB script).
                    if e.doc.tree.is_none() && e.doc.text.len() >= LOCAL_ANALYSIS_BYTES {
                        e.doc.tree = Some(tree);
                    }
                }
            }
            None => return,
        }
        self.publish(&key).await;
        let stale = self.state.docs.get(&key).is_some_and(|e| e.facts_stale);
        if cascade && stale && self.inside_root(&rel) {
            self.schedule_index_update(key, version);
        }
    }

    /// After a quiet spell, refreshes the buffer's entry in the project index (its
    /// declarations and loads) and, if it changed, re-checks the open files that depend
    /// on it. Deferred because computing the entry costs a second analysis of the file,
    /// and typing inside a function body changes no declaration.
    fn schedule_index_update(&self, key: String, version: i32) {
        let this = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep(INDEX_IDLE).await;
            if this.state.docs.get(&key).map(|e| e.doc.version) != Some(version) {
                return;
            }
            let this2 = this.clone();
            let key2 = key.clone();
            let res = tokio::task::spawn_blocking(move || {
                guard("index update", || this2.update_index_entry(&key2, version))
            })
            .await;
            if let Ok(Ok(Some(rel))) = res {
                this.recheck_dependents(&[rel], Some(&key));
            }
        });
    }

    /// Recomputes a buffer's index entry; returns its path when the entry changed.
    fn update_index_entry(&self, key: &str, version: i32) -> Option<String> {
        let snap = self.fresh(key)?;
        if snap.version != version || snap.kind == Kind::Skipped || !self.inside_root(&snap.rel) {
            return None;
        }
        let corpus = self.corpus();
        let script = grounded_js::script_text(&snap.rel, &snap.text, &corpus.engine.directives);
        let own_tree;
        let tree = match (&snap.tree, &script) {
            (Some(t), std::borrow::Cow::Borrowed(_)) => t,
            _ => {
                own_tree = grounded_js::parse(&script);
                &own_tree
            }
        };
        let a = grounded_js::Analysis::new(&corpus, &script, tree);
        let facts =
            grounded_check::FileFacts::of_parts(&corpus, &snap.rel, &snap.text, &a, a.sites());
        let norm = grounded_check::project::normalize(&snap.rel);
        let mut ix = self.state.index.write().unwrap_or_else(|e| e.into_inner());
        if let Some(mut e) = self.state.docs.get_mut(key) {
            if e.doc.version == version {
                e.facts_stale = false;
            }
        }
        if ix.files.get(&norm) == Some(&facts) {
            return None;
        }
        Arc::make_mut(&mut ix).files.insert(norm, facts);
        Some(snap.rel)
    }

    /// Sets a file's index entry from the disk (removes it when unreadable or gone);
    /// returns whether the entry changed. The index is replaced only on a change: every
    /// open buffer's session holds it, and a new index means new sessions.
    pub(super) fn index_from_disk(&self, rel: &str, path: &Path) -> bool {
        let corpus = self.corpus();
        let norm = grounded_check::project::normalize(rel);
        let facts = match std::fs::read(path) {
            Ok(b) => Some(grounded_check::FileFacts::of(
                &corpus,
                &norm,
                &grounded_textfile::decode(b).text,
            )),
            Err(_) => None,
        };
        let mut lock = self.state.index.write().unwrap_or_else(|x| x.into_inner());
        if lock.files.get(&norm) == facts.as_ref() {
            return false;
        }
        let ix = Arc::make_mut(&mut lock);
        match facts {
            Some(f) => ix.files.insert(norm, f),
            None => ix.files.remove(&norm),
        };
        true
    }

    /// Schedules a check of the open buffers that depend on `rels` (all but `except`).
    pub(super) fn recheck_dependents(&self, rels: &[String], except: Option<&str>) {
        let deps: HashSet<String> = {
            let ix = self.state.index.read().unwrap_or_else(|e| e.into_inner());
            rels.iter().flat_map(|r| ix.dependents(r)).collect()
        };
        if deps.is_empty() {
            return;
        }
        let targets: Vec<(String, i32)> = self
            .state
            .docs
            .iter()
            .filter(|e| deps.contains(&e.rel) && Some(e.key().as_str()) != except)
            .map(|e| (e.key().clone(), e.doc.version))
            .collect();
        for (k, v) in targets {
            self.schedule_check(k, v, false, false);
        }
    }
}

/// Marks the findings of `rel` that the baseline records, as `grounded check --baseline`
/// does (its entries are keyed by file, code, name and line text, so a buffer's edits
/// elsewhere do not bring them back). Findings already silenced are not matched.
fn mark_baselined(
    findings: &mut [Finding],
    b: &grounded_check::baseline::Baseline,
    rel: &str,
    text: &str,
) {
    let open: Vec<usize> = (0..findings.len())
        .filter(|&i| findings[i].ignored.is_none())
        .collect();
    let keys: Vec<_> = open
        .iter()
        .map(|&i| grounded_check::baseline::key_of(&findings[i], rel, Some(text)))
        .collect();
    let m = b.apply(&keys, &std::collections::HashSet::new());
    for (&i, silenced) in open.iter().zip(&m.silenced) {
        if *silenced {
            findings[i].ignored = Some(grounded_check::Ignored {
                by: grounded_check::IgnoredBy::Baseline,
                reason: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::diff;

    fn apply(old: &str, new: &str) -> String {
        match diff(old, new) {
            None => old.to_string(),
            Some((s, e, t)) => {
                let mut o = old.to_string();
                o.replace_range(s..e, t);
                o
            }
        }
    }

    #[test]
    fn diff_is_one_edit_on_char_boundaries() {
        for (a, b) in [
            ("abc", "abc"),
            ("abc", "abxc"),
            ("abxc", "abc"),
            ("", "x"),
            ("x", ""),
            ("aaa", "aa"),
            ("é😀é", "é😃é"),
            ("ée", "éé"),
            ("layout.tableCell(\"a\");", "layout.tableCell(\"ab\");"),
        ] {
            assert_eq!(apply(a, b), b, "{a:?} → {b:?}");
        }
        assert_eq!(diff("abc", "abxc"), Some((2, 2, "x")));
        // Longer than a block of the prefix and suffix scans, the change at every place
        // around a block's edge.
        let long = "é".repeat(700);
        for at in [0, 2, 254, 256, 258, 512, 700, 1398, 1400] {
            let mut b = long.clone();
            b.insert_str(at, "xy");
            assert_eq!(apply(&long, &b), b, "insert at {at}");
            assert_eq!(diff(&long, &b), Some((at, at, "xy")), "insert at {at}");
            assert_eq!(apply(&b, &long), long, "delete at {at}");
        }
        let mut b = long.clone();
        b.replace_range(300..302, "a");
        assert_eq!(diff(&long, &b), Some((300, 302, "a")));
        assert_eq!(diff("same", "same"), None);
    }
}

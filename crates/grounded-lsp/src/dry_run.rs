//! Dry-run scheduling: the dry run ([`grounded_dryrun`]) runs on save and after idle, one
//! at a time, in `spawn_blocking` off the request path; its findings are kept per URI
//! (open or not) and published with the static ones.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use tower_lsp_server::ls_types::*;

use super::config::Settings;
use super::document::Kind;
use super::state::{guard, read, Backend, DryEntry};

/// Runs `f` on a thread of its own at a lower scheduling priority, for work no keystroke
/// waits for.
///
/// Why: the idle dry run of a 10,000-line script runs for a second or more, and a user
/// who starts typing again meanwhile had each keystroke's re-check share the CPU with it
/// (on two busy cores, 4 ms became 20-70 ms). A thread of its own because a niced thread
/// cannot be given its priority back without privileges: a niced pool thread would later
/// run keystrokes' checks at the low priority too.
async fn in_background<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, tokio::sync::oneshot::error::RecvError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("grounded-dry-run".into())
        .spawn(move || {
            lower_priority();
            let _ = tx.send(f());
        });
    if let Err(e) = spawned {
        tracing::error!("cannot start the dry run's thread: {e}");
    }
    rx.await
}

/// Lowers the calling thread's scheduling priority (Linux: a thread's nice value is its
/// own); elsewhere, or when refused, the work runs at the usual priority.
fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: gettid and setpriority only read and set this thread's scheduling value.
    // The raw syscall, not glibc's `gettid()`: that wrapper is glibc 2.30's, and the
    // release binary is linked for glibc 2.17 (the link failed on it).
    unsafe {
        let tid = libc::syscall(libc::SYS_gettid);
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 10);
    }
}

impl Backend {
    /// `textDocument/didSave`: a dry run with the saved file as an entry of its own.
    pub(super) fn saved(&self, params: DidSaveTextDocumentParams) {
        self.schedule_dry_run(Some(params.text_document.uri.as_str().to_string()));
    }

    /// Runs the dry run off the request path; one at a time, a request during a run
    /// runs once more after it.
    pub(super) fn schedule_dry_run(&self, trigger: Option<String>) {
        let s = read(&self.state.settings);
        if !s.dry_run || self.root().is_none() {
            return;
        }
        if self.state.dry_running.swap(true, Ordering::SeqCst) {
            self.state.dry_pending.store(true, Ordering::SeqCst);
            return;
        }
        let this = self.clone();
        tokio::spawn(async move {
            let mut trigger = trigger;
            loop {
                this.dry_run(trigger.take(), &s).await;
                if !this.state.dry_pending.swap(false, Ordering::SeqCst) {
                    break;
                }
            }
            this.state.dry_running.store(false, Ordering::SeqCst);
        });
    }

    /// One dry run: the project's entry and `trigger` (when it is a script of the
    /// project), over the open buffers' text; then its findings are published.
    async fn dry_run(&self, trigger: Option<String>, s: &Settings) {
        let Some(root) = self.root() else { return };
        let mut entries: Vec<PathBuf> = Vec::new();
        if let Some(e) = read(&self.state.project).and_then(|p| p.config.entry) {
            entries.push(PathBuf::from(e));
        }
        if let Some(t) = trigger {
            if let Some(e) = self.state.docs.get(&t) {
                if self.inside_root(&e.rel)
                    && e.doc.kind == Kind::Script
                    && !entries.contains(&PathBuf::from(&e.rel))
                {
                    entries.push(PathBuf::from(&e.rel));
                }
            }
        }
        if entries.is_empty() {
            return;
        }
        let overlay: Arc<HashMap<PathBuf, String>> = Arc::new(
            self.state
                .docs
                .iter()
                .filter_map(|e| Some((e.path.clone()?, e.doc.text.clone())))
                .collect(),
        );
        let overlay2 = overlay.clone();
        let corpus = self.corpus();
        let opts = grounded_dryrun::Options {
            budget_ms: s.dry_run_budget_ms,
            globals: read(&self.state.project)
                .as_ref()
                .map(|p| p.config.globals.clone())
                .unwrap_or_default(),
            ..Default::default()
        };
        let root2 = root.clone();
        // The progress report is asked for alongside the run, never before it: a client
        // that does not answer `window/workDoneProgress/create` once held every dry run
        // back by the whole client timeout. The report ends when both are done.
        let progress = {
            let this = self.clone();
            tokio::spawn(async move { this.begin_progress("grounded: dry run").await })
        };
        let res = in_background(move || {
            guard("dry run", || {
                grounded_dryrun::run_project(&corpus, &root2, &entries, &overlay2, &opts)
            })
        })
        .await;
        let (report, failure) = match res {
            Ok(Ok(r)) => {
                let failure = r.failures.first().map(|f| format!("grounded: {f}"));
                (Some(r), failure)
            }
            Ok(Err(e)) => (None, Some(e.message.to_string())),
            Err(e) => (None, Some(format!("grounded: the dry run stopped: {e}"))),
        };
        let summary = match (&report, &failure) {
            (_, Some(_)) => "failed".to_string(),
            (Some(r), None) => {
                let n = r.findings.len();
                format!("{n} finding{}", if n == 1 { "" } else { "s" })
            }
            (None, None) => String::new(),
        };
        tokio::spawn(async move {
            if let Ok(Some(p)) = progress.await {
                p.finish_with_message(summary).await;
            }
        });
        if let Some(m) = failure {
            // A failure that only reaches the log looks like a clean run: say it.
            self.state.client.show_message(MessageType::ERROR, m).await;
        }
        let Some(report) = report else {
            return;
        };
        let mut by_uri: HashMap<String, DryEntry> = HashMap::new();
        for mut f in report.findings {
            // Related places open from the editor by absolute path.
            for place in &mut f.places {
                place.path = root.join(&place.path).to_string_lossy().into_owned();
            }
            let p = Path::new(&f.path);
            let abs = if p.is_absolute() {
                p.to_path_buf()
            } else {
                root.join(p)
            };
            let Some(uri) = Uri::from_file_path(&abs) else {
                continue;
            };
            // An open buffer is keyed by the URI the client sent.
            let key = self
                .state
                .docs
                .iter()
                .find(|e| e.path.as_deref() == Some(abs.as_path()))
                .map(|e| e.key().clone())
                .unwrap_or_else(|| uri.as_str().to_string());
            by_uri
                .entry(key)
                .or_insert_with(|| DryEntry {
                    uri,
                    findings: Vec::new(),
                    seen: overlay.get(&abs).map(|t| Arc::from(t.as_str())),
                })
                .findings
                .push(f);
        }
        let mut keys: HashSet<String> = self.state.dry.iter().map(|e| e.key().clone()).collect();
        keys.extend(by_uri.keys().cloned());
        self.state.dry.clear();
        for (k, v) in by_uri {
            self.state.dry.insert(k, v);
        }
        for k in keys {
            if !self.state.dry.contains_key(&k) && !self.state.docs.contains_key(&k) {
                // A closed file whose dry-run findings went away: clear them.
                if let Ok(uri) = k.parse::<Uri>() {
                    self.state
                        .client
                        .publish_diagnostics(uri, Vec::new(), None)
                        .await;
                }
                continue;
            }
            self.publish(&k).await;
        }
    }

    /// Counts an edit of `key`; after the idle time with no further edit anywhere, the
    /// dry run runs (the project's entry, and `key` as an entry of its own).
    pub(super) fn note_edit(&self, key: &str) {
        let n = self.state.edits.fetch_add(1, Ordering::SeqCst) + 1;
        let s = read(&self.state.settings);
        if !s.dry_run {
            return;
        }
        let this = self.clone();
        let key = key.to_string();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(s.dry_run_idle_ms)).await;
            if this.state.edits.load(Ordering::SeqCst) == n {
                this.schedule_dry_run(Some(key));
            }
        });
    }
}

/// Folds each dry-run finding that stands where a static finding stands (the same file,
/// so the same place is the same member) into that static finding, as the command line
/// does: the static one stays, with the run's places added to its related locations,
/// and the dry-run one is not published. Returns the dry-run findings that stand on
/// their own. `by_span`: both were placed on the buffer's current text, so the byte
/// span decides; otherwise line and column.
///
/// Why: after a save, one mistake in `mistakes/member.js` was listed twice at the same
/// place, once as `member` and once as `dry-run`; a user reads two problems, fixes one,
/// and wonders about the other.
pub(super) fn fold_into_static(
    statics: &mut [grounded_check::Finding],
    dry: Vec<grounded_check::Finding>,
    by_span: bool,
) -> Vec<grounded_check::Finding> {
    let mut standing = Vec::new();
    for d in dry {
        let same = statics.iter_mut().find(|s| {
            if by_span {
                s.span.start == d.span.start
            } else {
                s.line == d.line && s.column == d.column
            }
        });
        match same {
            Some(s) => {
                for p in d.places {
                    if !s.places.contains(&p) {
                        s.places.push(p);
                    }
                }
            }
            None => standing.push(d),
        }
    }
    standing
}

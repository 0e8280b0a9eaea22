//! The `LanguageServer` implementation: the document store, scheduling, and the protocol.

use std::collections::{HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use dashmap::DashMap;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::{Client, LanguageServer};

use super::config::Settings;
use super::document::{range_of, Document, Kind};
use super::{actions, features, navigation};
use crate::check::{Finding, ProjectIndex, Severity};
use crate::docs::Corpus;
use crate::js::LineIndex;
use crate::project::{Project, CONFIG_FILE};

/// How long the server waits for the client to answer a request it sent (configuration,
/// registration, applyEdit): a client that never answers must not freeze the session.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// Quiet time after an edit before the buffer's project-index entry is refreshed.
pub const INDEX_IDLE: Duration = Duration::from_millis(250);

/// The environment variable that enables the test-only `grounded/debugPanic` request.
pub const DEBUG_PANIC_ENV: &str = "GROUNDED_LSP_DEBUG_PANIC";

/// One open buffer and what was last published for it.
struct Entry {
    uri: Uri,
    /// The file's path, for `file:` URIs.
    path: Option<PathBuf>,
    /// How findings and the project index name the file: relative to the root when inside
    /// it, else the absolute path (or the URI for non-file URIs).
    rel: String,
    doc: Document,
    /// Findings of the static check, and the version they were computed for.
    findings: Arc<Vec<Finding>>,
    findings_version: i32,
    /// The checker's incremental session, brought to the buffer's text at each check.
    session: Arc<Mutex<Option<DocSession>>>,
    /// What the last check of this buffer cost: the adaptive debounce's measure.
    last_check: Duration,
}

/// The checker's incremental session for one buffer ([`crate::check::Session`]: an edit
/// inside one top-level statement re-checks that statement alone), with the corpus and
/// project index it borrows.
struct DocSession {
    // Declared first so it is dropped before the `Arc`s it borrows from.
    session: crate::check::Session<'static>,
    corpus: Arc<Corpus>,
    index: Arc<ProjectIndex>,
    rel: String,
}

impl DocSession {
    /// Opens a session (a full check of `text`).
    fn new(corpus: Arc<Corpus>, index: Arc<ProjectIndex>, rel: &str, text: &str) -> DocSession {
        // SAFETY: the session borrows the corpus and the index for as long as it lives.
        // Both sit on the heap behind the `Arc`s stored beside it in this struct, which
        // are dropped after it (field order) and only ever give shared access, so the
        // references stay valid and unaliased by any `&mut`. The `'static` never escapes:
        // the session is reachable only through this struct's private field.
        let c: &'static Corpus = unsafe { &*Arc::as_ptr(&corpus) };
        let i: &'static ProjectIndex = unsafe { &*Arc::as_ptr(&index) };
        DocSession {
            session: crate::check::Session::new(c, i, rel, text),
            corpus,
            index,
            rel: rel.to_string(),
        }
    }

    /// Brings the session to `text` (one edit spanning everything that differs) and
    /// returns the findings.
    fn check(&mut self, text: &str) -> Vec<Finding> {
        if let Some((start, end, new)) = diff(self.session.text(), text) {
            self.session.edit(start, end, new);
        }
        self.session.findings().to_vec()
    }
}

/// The one edit turning `old` into `new`: the byte range of `old` between their common
/// prefix and suffix, and what replaces it; `None` when equal. Several keystrokes that
/// arrived within one debounce become one edit.
fn diff<'n>(old: &str, new: &'n str) -> Option<(usize, usize, &'n str)> {
    if old == new {
        return None;
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let mut p = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    while !old.is_char_boundary(p) || !new.is_char_boundary(p) {
        p -= 1;
    }
    let max = a.len().min(b.len()) - p;
    let mut sfx = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max)
        .take_while(|(x, y)| x == y)
        .count();
    while !old.is_char_boundary(a.len() - sfx) || !new.is_char_boundary(b.len() - sfx) {
        sfx -= 1;
    }
    Some((p, a.len() - sfx, &new[p..b.len() - sfx]))
}

/// A buffer's state at one version, for analysis off the store's lock.
struct Snapshot {
    rel: String,
    text: String,
    tree: Option<tree_sitter::Tree>,
    kind: Kind,
    version: i32,
}

/// Findings of the last dry run, by URI string (open or not).
type DryFindings = DashMap<String, (Uri, Vec<Finding>)>;

/// Everything the handlers share.
pub struct State {
    client: Client,
    cli_docs: Option<PathBuf>,
    docs: DashMap<String, Entry>,
    dry: DryFindings,
    corpus: RwLock<Arc<Corpus>>,
    /// The corpus folder on disk (related information links), `None` for the bundled one.
    corpus_dir: RwLock<Option<PathBuf>>,
    /// Replaced, never mutated in place while shared: a buffer's session borrows the one it
    /// was made with (copy-on-write through `Arc::make_mut`).
    index: RwLock<Arc<ProjectIndex>>,
    root: RwLock<Option<PathBuf>>,
    project: RwLock<Option<Project>>,
    settings: RwLock<Settings>,
    /// Bumped by every edit: the idle dry run runs only if nothing changed meanwhile.
    edits: AtomicU64,
    dry_running: AtomicBool,
    dry_pending: AtomicBool,
    can_pull_config: AtomicBool,
    can_register_watchers: AtomicBool,
    can_show_progress: AtomicBool,
    /// Numbers the progress tokens of dry runs.
    runs: AtomicU64,
}

/// The server: a handle on the shared state.
#[derive(Clone)]
pub struct Backend {
    state: Arc<State>,
}

fn read<T: Clone>(l: &RwLock<T>) -> T {
    l.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn write<T>(l: &RwLock<T>, v: T) {
    *l.write().unwrap_or_else(|e| e.into_inner()) = v;
}

fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".into()
    }
}

/// Runs analysis code, turning a panic into a logged error answer: one bad input must
/// cost one answer, never the session.
fn guard<T>(what: &str, f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = panic_message(&*p);
        tracing::error!("panic in {what}: {msg}");
        Error {
            code: ErrorCode::InternalError,
            message: format!("grounded: internal error in {what}: {msg}").into(),
            data: None,
        }
    })
}

fn severity(s: Severity) -> DiagnosticSeverity {
    match s {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
    }
}

/// The range of a finding by its 1-based line and character column, for findings computed
/// on another text than the buffer's current one (the dry run).
fn range_by_line_col(idx: &LineIndex, text: &str, f: &Finding) -> Range {
    let at = |line: usize, col: usize| {
        let start = idx.line_start(line.saturating_sub(1));
        let rest = &text[start..];
        let off = rest
            .char_indices()
            .take_while(|(_, c)| *c != '\n')
            .nth(col.saturating_sub(1))
            .map(|(i, _)| start + i)
            .unwrap_or_else(|| start + rest.find('\n').unwrap_or(rest.len()));
        off
    };
    let s = at(f.line, f.column);
    let e = at(f.end_line, f.end_column).max(s);
    range_of(idx, s, e)
}

impl Backend {
    /// A server talking to `client`; `cli_docs` is `serve --docs`.
    pub fn new(client: Client, cli_docs: Option<PathBuf>) -> Backend {
        let corpus = crate::docs::bundled::demo()
            .map(Arc::new)
            .expect("the bundled corpus loads");
        Backend {
            state: Arc::new(State {
                client,
                cli_docs,
                docs: DashMap::new(),
                dry: DashMap::new(),
                corpus: RwLock::new(corpus),
                corpus_dir: RwLock::new(None),
                index: RwLock::new(Arc::new(ProjectIndex::default())),
                root: RwLock::new(None),
                project: RwLock::new(None),
                settings: RwLock::new(Settings::default()),
                edits: AtomicU64::new(0),
                dry_running: AtomicBool::new(false),
                dry_pending: AtomicBool::new(false),
                can_pull_config: AtomicBool::new(false),
                can_register_watchers: AtomicBool::new(false),
                can_show_progress: AtomicBool::new(false),
                runs: AtomicU64::new(0),
            }),
        }
    }

    fn corpus(&self) -> Arc<Corpus> {
        read(&self.state.corpus)
    }

    fn root(&self) -> Option<PathBuf> {
        read(&self.state.root)
    }

    /// How a file is named for the checker and the index.
    fn rel_of(&self, uri: &Uri) -> (Option<PathBuf>, String) {
        let Some(path) = uri.to_file_path().map(|p| p.into_owned()) else {
            return (None, uri.as_str().to_string());
        };
        if let Some(root) = self.root() {
            let root_c = std::fs::canonicalize(&root).unwrap_or(root.clone());
            let full = std::fs::canonicalize(&path).unwrap_or(path.clone());
            for r in [&root, &root_c] {
                if let Ok(rel) = full.strip_prefix(r).or_else(|_| path.strip_prefix(r)) {
                    let rel = rel
                        .components()
                        .map(|c| c.as_os_str().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join("/");
                    return (Some(path), rel);
                }
            }
        }
        let s = path.display().to_string();
        (Some(path), s)
    }

    /// When the workspace folder has no `grounded.toml` at or above it but the opened
    /// file has one (the repository opened at its top, a script project inside it), that
    /// file's project becomes the session's: its root, its corpus. Without this, `path`
    /// arguments would resolve against the wrong folder and every `loadJS` would be a
    /// false `file` finding. Returns whether the project changed (and all was re-checked).
    async fn adopt_project_of(&self, key: &str) -> bool {
        if read(&self.state.project).is_some_and(|p| p.has_config) {
            return false;
        }
        let Some(path) = self.state.docs.get(key).and_then(|e| e.path.clone()) else {
            return false;
        };
        let Some(root) = crate::project::find_root(&path) else {
            return false;
        };
        if self.root().as_deref() == Some(root.as_path()) {
            return false;
        }
        tracing::info!(
            "adopting the project of {}: {}",
            path.display(),
            root.display()
        );
        write(&self.state.root, Some(root));
        // Every open buffer is named relative to the new root.
        let keys: Vec<(String, Uri)> = self
            .state
            .docs
            .iter()
            .map(|e| (e.key().clone(), e.uri.clone()))
            .collect();
        for (k, uri) in keys {
            let (p, rel) = self.rel_of(&uri);
            if let Some(mut e) = self.state.docs.get_mut(&k) {
                e.path = p;
                e.rel = rel;
            }
        }
        self.reload().await;
        self.recheck_all();
        true
    }

    /// Whether a name from [`Backend::rel_of`] is a file of the project (relative to its
    /// root), rather than an absolute path outside it or a non-file URI.
    fn inside_root(&self, rel: &str) -> bool {
        !Path::new(rel).is_absolute() && !rel.contains(':') && self.root().is_some()
    }

    // ---- configuration and corpus -------------------------------------------------

    /// Where the corpus comes from now: `--docs`, the client's setting, `grounded.toml`,
    /// else `None` (bundled).
    fn docs_path(&self) -> Option<PathBuf> {
        if let Some(d) = &self.state.cli_docs {
            return Some(d.clone());
        }
        let root = self.root();
        if let Some(root) = &root {
            if let Some(p) = read(&self.state.settings).docs_path(root) {
                return Some(p);
            }
        }
        read(&self.state.project).and_then(|p| p.docs_path(None))
    }

    /// Reads `grounded.toml`, loads the corpus, rescans the project; off the async
    /// threads. Errors are shown to the user and the previous corpus stays.
    async fn reload(&self) {
        let this = self.clone();
        let res = tokio::task::spawn_blocking(move || {
            guard("reload", || {
                if let Some(root) = this.root() {
                    match Project::discover(&root, &root) {
                        Ok(p) => write(&this.state.project, Some(p)),
                        Err(e) => return Err(e),
                    }
                }
                let path = this.docs_path();
                let corpus = match &path {
                    Some(p) => Corpus::load(p).map_err(|e| e.to_string())?,
                    None => {
                        tracing::warn!(
                            "no --docs, no `docs` setting and no `docs` in grounded.toml; using the bundled demo engine's corpus"
                        );
                        crate::docs::bundled::demo().map_err(|e| e.to_string())?
                    }
                };
                let corpus = Arc::new(corpus);
                let dir = path.map(|p| {
                    let d = if p.is_file() {
                        p.parent().map(Path::to_path_buf).unwrap_or(p)
                    } else {
                        p
                    };
                    navigation::normalize(&d)
                });
                let index = match this.root() {
                    Some(root) => {
                        let mut ix = ProjectIndex::scan(&corpus, &root);
                        for e in this.state.docs.iter() {
                            if this.inside_root(&e.rel) && e.doc.kind != Kind::Skipped {
                                ix.update_file(&corpus, &e.rel, &e.doc.text);
                            }
                        }
                        ix
                    }
                    None => ProjectIndex::default(),
                };
                tracing::info!("corpus {} loaded", corpus.origin);
                // Another engine may have other directives: what the parser sees changes.
                for mut e in this.state.docs.iter_mut() {
                    if e.doc.directives != corpus.engine.directives {
                        e.doc.directives = corpus.engine.directives.clone();
                        e.doc.tree = None;
                        e.doc.dirty = true;
                    }
                }
                write(&this.state.corpus, corpus);
                write(&this.state.corpus_dir, dir);
                write(&this.state.index, Arc::new(index));
                Ok(())
            })
        })
        .await;
        let msg = match res {
            Ok(Ok(Ok(()))) => None,
            Ok(Ok(Err(e))) => Some(e),
            Ok(Err(e)) => Some(e.message.to_string()),
            Err(e) => Some(format!("reload failed: {e}")),
        };
        if let Some(m) = msg {
            tracing::warn!("{m}");
            self.state
                .client
                .show_message(MessageType::ERROR, format!("grounded: {m}"))
                .await;
        }
    }

    /// Asks the client for the `grounded` section, with a timeout.
    async fn pull_configuration(&self) -> Option<Value> {
        if !self.state.can_pull_config.load(Ordering::Relaxed) {
            return None;
        }
        let items = vec![ConfigurationItem {
            scope_uri: None,
            section: Some("grounded".into()),
        }];
        match tokio::time::timeout(CLIENT_TIMEOUT, self.state.client.configuration(items)).await {
            Ok(Ok(mut v)) => v.pop(),
            Ok(Err(e)) => {
                tracing::warn!("workspace/configuration failed: {e}");
                None
            }
            Err(_) => {
                tracing::warn!("workspace/configuration: no answer in {CLIENT_TIMEOUT:?}");
                None
            }
        }
    }

    /// Applies new client settings; reloads the corpus if its path changed.
    async fn apply_settings(&self, v: &Value) {
        let before = read(&self.state.settings);
        let mut after = before.clone();
        after.merge(v);
        if after == before {
            return;
        }
        write(&self.state.settings, after.clone());
        if after.docs != before.docs {
            self.reload().await;
        }
        self.recheck_all();
    }

    async fn register_watchers(&self) {
        if !self.state.can_register_watchers.load(Ordering::Relaxed) {
            return;
        }
        let mut globs: Vec<String> = vec![format!("**/{CONFIG_FILE}")];
        for ext in &self.corpus().engine.script_extensions {
            globs.push(format!("**/*{ext}"));
        }
        globs.extend([
            "**/*.md".into(),
            "**/*.jsonl".into(),
            "**/facts.toml".into(),
        ]);
        let watchers = globs
            .into_iter()
            .map(|g| FileSystemWatcher {
                glob_pattern: GlobPattern::String(g),
                kind: None,
            })
            .collect();
        let reg = Registration {
            id: "grounded-watch".into(),
            method: "workspace/didChangeWatchedFiles".into(),
            register_options: serde_json::to_value(DidChangeWatchedFilesRegistrationOptions {
                watchers,
            })
            .ok(),
        };
        match tokio::time::timeout(
            CLIENT_TIMEOUT,
            self.state.client.register_capability(vec![reg]),
        )
        .await
        {
            Ok(Ok(())) => {}
            Ok(Err(e)) => tracing::warn!("registering file watchers failed: {e}"),
            Err(_) => tracing::warn!("client/registerCapability: no answer in {CLIENT_TIMEOUT:?}"),
        }
    }

    // ---- diagnostics --------------------------------------------------------------

    fn diagnostic_of(
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
        let (message, rest) = features::split_message(&f.message);
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
            if let Some(uri) = Uri::from_file_path(navigation::normalize(&dir.join(&rel.file))) {
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
    async fn publish(&self, key: &str) {
        let (uri, version, diags) = {
            let dry = self.state.dry.get(key).map(|d| (d.0.clone(), d.1.clone()));
            match self.state.docs.get(key) {
                Some(e) => {
                    let text = &e.doc.text;
                    let idx = LineIndex::new(text);
                    let mut d: Vec<Diagnostic> = e
                        .findings
                        .iter()
                        .map(|f| self.diagnostic_of(Some(&e.uri), &idx, text, f, true))
                        .collect();
                    if let Some((_, fs)) = &dry {
                        d.extend(
                            fs.iter()
                                .map(|f| self.diagnostic_of(Some(&e.uri), &idx, text, f, false)),
                        );
                    }
                    (e.uri.clone(), Some(e.doc.version), d)
                }
                None => match dry {
                    Some((uri, fs)) => {
                        let text = uri
                            .to_file_path()
                            .and_then(|p| std::fs::read(&*p).ok())
                            .map(|b| String::from_utf8_lossy(&b).into_owned())
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
    fn recheck_all(&self) {
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

    /// Checks a buffer after the debounce, unless a newer version arrives meanwhile;
    /// `cascade` also re-checks the open files that depend on it.
    fn schedule_check(&self, key: String, version: i32, cascade: bool, now: bool) {
        let this = self.clone();
        tokio::spawn(async move {
            let last = this.state.docs.get(&key).map(|e| e.last_check);
            let wait = read(&this.state.settings).debounce_for(last.unwrap_or_default());
            if !wait.is_zero() && !now {
                tokio::time::sleep(wait).await;
            }
            this.check_now(key, version, cascade).await;
        });
    }

    async fn check_now(&self, key: String, version: i32, cascade: bool) {
        match self.state.docs.get(&key) {
            Some(e) if e.doc.version == version => {}
            _ => return, // superseded or closed
        }
        let this = self.clone();
        let key2 = key.clone();
        let res = tokio::task::spawn_blocking(move || {
            guard("check", || {
                let t0 = std::time::Instant::now();
                let cell = this.state.docs.get(&key2)?.session.clone();
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
                let (rel, text, kind) = match this.state.docs.get(&key2) {
                    Some(e) if e.doc.version == version => {
                        (e.rel.clone(), e.doc.text.clone(), e.doc.kind)
                    }
                    _ => return None, // a newer check is on its way
                };
                if kind == Kind::Skipped {
                    *slot = None;
                    return Some((rel, Vec::new(), t0.elapsed()));
                }
                let corpus = this.corpus();
                let index = read(&this.state.index);
                let reuse = slot.as_ref().is_some_and(|s| {
                    Arc::ptr_eq(&s.corpus, &corpus) && Arc::ptr_eq(&s.index, &index) && s.rel == rel
                });
                let findings = if reuse {
                    slot.as_mut().map(|s| s.check(&text)).unwrap_or_default()
                } else {
                    *slot = None;
                    let s = DocSession::new(corpus, index, &rel, &text);
                    let f = s.session.findings().to_vec();
                    *slot = Some(s);
                    f
                };
                tracing::debug!(
                    "checked {rel} v{version} in {:?}{}: {} findings",
                    t0.elapsed(),
                    if reuse { "" } else { " (new session)" },
                    findings.len()
                );
                Some((rel, findings, t0.elapsed()))
            })
        })
        .await;
        let (rel, findings, cost) = match res {
            Ok(Ok(Some(f))) => f,
            Ok(Ok(None)) => return,
            Ok(Err(_)) => match self.state.docs.get(&key) {
                Some(e) => (e.rel.clone(), Vec::new(), e.last_check),
                None => return,
            },
            Err(e) => {
                tracing::error!("check task failed: {e}");
                return;
            }
        };
        // A result computed for an old version is dropped: the buffer moved on.
        match self.state.docs.get_mut(&key) {
            Some(mut e) if e.doc.version == version => {
                e.findings = Arc::new(findings);
                e.findings_version = version;
                e.last_check = cost;
            }
            _ => return,
        }
        self.publish(&key).await;
        if cascade && self.inside_root(&rel) {
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
        let script = crate::js::script_text(&snap.rel, &snap.text, &corpus.engine.directives);
        let own_tree;
        let tree = match (&snap.tree, &script) {
            (Some(t), std::borrow::Cow::Borrowed(_)) => t,
            _ => {
                own_tree = crate::js::parse(&script);
                &own_tree
            }
        };
        let a = crate::js::Analysis::new(&corpus, &script, tree);
        let facts =
            crate::check::FileFacts::of_parts(&corpus, &snap.rel, &snap.text, &a, a.sites());
        let norm = crate::check::project::normalize(&snap.rel);
        let mut ix = self.state.index.write().unwrap_or_else(|e| e.into_inner());
        if ix.files.get(&norm) == Some(&facts) {
            return None;
        }
        Arc::make_mut(&mut ix).files.insert(norm, facts);
        Some(snap.rel)
    }

    /// Sets a file's index entry from the disk (removes it when unreadable or gone);
    /// returns whether the entry changed. The index is replaced only on a change: every
    /// open buffer's session borrows it, and a new index means new sessions.
    fn index_from_disk(&self, rel: &str, path: &Path) -> bool {
        let corpus = self.corpus();
        let norm = crate::check::project::normalize(rel);
        let facts = match std::fs::read(path) {
            Ok(b) => Some(crate::check::FileFacts::of(
                &corpus,
                &norm,
                &String::from_utf8_lossy(&b),
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

    fn recheck_dependents(&self, rels: &[String], except: Option<&str>) {
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

    // ---- dry run ------------------------------------------------------------------

    /// Runs the dry run off the request path; one at a time, a request during a run
    /// runs once more after it.
    fn schedule_dry_run(&self, trigger: Option<String>) {
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
        let overlay: HashMap<PathBuf, String> = self
            .state
            .docs
            .iter()
            .filter_map(|e| Some((e.path.clone()?, e.doc.text.clone())))
            .collect();
        let corpus = self.corpus();
        let opts = crate::dryrun::Options {
            budget_ms: s.dry_run_budget_ms,
            ..Default::default()
        };
        let root2 = root.clone();
        let progress = self.begin_progress("grounded: dry run").await;
        let res = tokio::task::spawn_blocking(move || {
            guard("dry run", || {
                crate::dryrun::run_project(&corpus, &root2, &entries, &overlay, &opts)
            })
        })
        .await;
        let report = match res {
            Ok(Ok(r)) => r,
            _ => {
                if let Some(p) = progress {
                    p.finish_with_message("failed (see the log)").await;
                }
                return;
            }
        };
        if let Some(p) = progress {
            let n = report.findings.len();
            p.finish_with_message(format!("{n} finding{}", if n == 1 { "" } else { "s" }))
                .await;
        }
        let mut by_uri: HashMap<String, (Uri, Vec<Finding>)> = HashMap::new();
        for f in report.findings {
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
                .or_insert_with(|| (uri, Vec::new()))
                .1
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

    /// Starts a work-done progress report when the client shows them; the creation
    /// request is bounded by [`CLIENT_TIMEOUT`], and without an answer the work goes on
    /// unreported (eglot, for one, shows no progress: nothing may depend on it).
    async fn begin_progress(
        &self,
        title: &str,
    ) -> Option<
        tower_lsp_server::OngoingProgress<
            tower_lsp_server::Unbounded,
            tower_lsp_server::NotCancellable,
        >,
    > {
        if !self.state.can_show_progress.load(Ordering::Relaxed) {
            return None;
        }
        let n = self.state.runs.fetch_add(1, Ordering::Relaxed);
        let token = ProgressToken::String(format!("grounded/{n}"));
        let created = tokio::time::timeout(
            CLIENT_TIMEOUT,
            self.state.client.create_work_done_progress(token.clone()),
        )
        .await;
        match created {
            Ok(Ok(())) => Some(self.state.client.progress(token, title).begin().await),
            Ok(Err(e)) => {
                tracing::warn!("window/workDoneProgress/create failed: {e}");
                None
            }
            Err(_) => {
                tracing::warn!("window/workDoneProgress/create: no answer in {CLIENT_TIMEOUT:?}");
                None
            }
        }
    }

    /// Counts an edit of `key`; after the idle time with no further edit anywhere, the
    /// dry run runs (the project's entry, and `key` as an entry of its own).
    fn note_edit(&self, key: &str) {
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

    // ---- test-only ----------------------------------------------------------------

    /// `grounded/debugPanic`: panics inside the same guard every handler uses, when
    /// [`DEBUG_PANIC_ENV`] is set (tests prove a panic costs one answer, not the session).
    pub async fn debug_panic(&self, _params: Value) -> Result<Value> {
        if std::env::var_os(DEBUG_PANIC_ENV).is_none() {
            return Err(Error::method_not_found());
        }
        guard("grounded/debugPanic", || -> Value {
            panic!("debug panic requested")
        })
    }

    /// A buffer's text and current tree, reparsing (without holding the store's lock)
    /// when edits came since the last parse. Blocking: call off the async threads.
    fn fresh(&self, key: &str) -> Option<Snapshot> {
        let (input, rel) = {
            let e = self.state.docs.get(key)?;
            match e.doc.parse_input() {
                None => {
                    return Some(Snapshot {
                        rel: e.rel.clone(),
                        text: e.doc.text.clone(),
                        tree: e.doc.tree.clone(),
                        kind: e.doc.kind,
                        version: e.doc.version,
                    })
                }
                Some(input) => (input, e.rel.clone()),
            }
        };
        let tree = input.parse(&rel);
        if let Some(mut e) = self.state.docs.get_mut(key) {
            e.doc.store_tree(input.version, tree.clone());
        }
        Some(Snapshot {
            rel,
            text: input.text,
            tree,
            kind: input.kind,
            version: input.version,
        })
    }

    /// [`Backend::fresh`] on the blocking pool.
    async fn fresh_async(&self, key: &str) -> Option<Snapshot> {
        let this = self.clone();
        let key = key.to_string();
        tokio::task::spawn_blocking(move || guard("parse", || this.fresh(&key)))
            .await
            .ok()?
            .ok()?
    }

    /// A buffer with a tree (scripts, and Markdown's fenced blocks), for a request.
    async fn script(&self, uri: &Uri) -> Option<(String, tree_sitter::Tree)> {
        match self.fresh_async(uri.as_str()).await? {
            Snapshot {
                text,
                tree: Some(tree),
                kind: Kind::Script | Kind::Markdown,
                ..
            } => Some((text, tree)),
            _ => None,
        }
    }

    fn find_function_in_project(&self, name: &str) -> Option<Location> {
        let root = self.root()?;
        let corpus = self.corpus();
        // Open buffers first: they are the truth.
        for e in self.state.docs.iter() {
            if e.doc.kind == Kind::Script {
                if let Some((s, en)) = features::find_function(&e.doc.text, name) {
                    let idx = LineIndex::new(&e.doc.text);
                    return Some(Location {
                        uri: e.uri.clone(),
                        range: range_of(&idx, s, en),
                    });
                }
            }
        }
        // The index knows which files declare what: read those first.
        let declaring: Vec<PathBuf> = {
            let ix = self.state.index.read().unwrap_or_else(|e| e.into_inner());
            ix.files
                .iter()
                .filter(|(_, f)| f.decls.contains(name))
                .map(|(rel, _)| root.join(rel))
                .collect()
        };
        let exts = corpus.engine.script_extensions.clone();
        let walked = ignore::WalkBuilder::new(&root)
            .build()
            .flatten()
            .take(20_000)
            .map(|e| e.into_path());
        for p in declaring.into_iter().chain(walked) {
            let p = p.as_path();
            let name_s = p.to_string_lossy();
            if !p.is_file() || !exts.iter().any(|x| name_s.ends_with(x.as_str())) {
                continue;
            }
            let Ok(bytes) = std::fs::read(p) else {
                continue;
            };
            if bytes.len() > super::document::MAX_ANALYSED_BYTES {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            if !text.contains(name) {
                continue;
            }
            if let Some((s, en)) = features::find_function(&text, name) {
                let idx = LineIndex::new(&text);
                let uri = Uri::from_file_path(p)?;
                return Some(Location {
                    uri,
                    range: range_of(&idx, s, en),
                });
            }
        }
        None
    }
}

fn workspace_root(params: &InitializeParams) -> Option<PathBuf> {
    if let Some(f) = params.workspace_folders.as_ref().and_then(|f| f.first()) {
        return f.uri.to_file_path().map(|p| p.into_owned());
    }
    #[allow(deprecated)]
    params
        .root_uri
        .as_ref()
        .and_then(|u| u.to_file_path().map(|p| p.into_owned()))
}

impl LanguageServer for Backend {
    async fn initialize(&self, params: InitializeParams) -> Result<InitializeResult> {
        let root = workspace_root(&params);
        tracing::info!("initialize, root {:?}", root);
        write(&self.state.root, root);
        if let Some(opts) = &params.initialization_options {
            let mut s = read(&self.state.settings);
            s.merge(opts);
            write(&self.state.settings, s);
        }
        self.state.can_show_progress.store(
            params
                .capabilities
                .window
                .as_ref()
                .and_then(|w| w.work_done_progress)
                .unwrap_or(false),
            Ordering::Relaxed,
        );
        let ws = params.capabilities.workspace.as_ref();
        self.state.can_pull_config.store(
            ws.and_then(|w| w.configuration).unwrap_or(false),
            Ordering::Relaxed,
        );
        self.state.can_register_watchers.store(
            ws.and_then(|w| w.did_change_watched_files.as_ref())
                .and_then(|d| d.dynamic_registration)
                .unwrap_or(false),
            Ordering::Relaxed,
        );
        self.reload().await;
        Ok(InitializeResult {
            server_info: Some(ServerInfo {
                name: "grounded".into(),
                version: Some(env!("CARGO_PKG_VERSION").into()),
            }),
            capabilities: ServerCapabilities {
                text_document_sync: Some(TextDocumentSyncCapability::Options(
                    TextDocumentSyncOptions {
                        open_close: Some(true),
                        change: Some(TextDocumentSyncKind::INCREMENTAL),
                        save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                        ..Default::default()
                    },
                )),
                hover_provider: Some(HoverProviderCapability::Simple(true)),
                completion_provider: Some(CompletionOptions {
                    trigger_characters: Some(vec![".".into()]),
                    ..Default::default()
                }),
                signature_help_provider: Some(SignatureHelpOptions {
                    trigger_characters: Some(vec!["(".into(), ",".into()]),
                    retrigger_characters: None,
                    work_done_progress_options: Default::default(),
                }),
                definition_provider: Some(OneOf::Left(true)),
                references_provider: Some(OneOf::Left(true)),
                rename_provider: Some(OneOf::Left(true)),
                workspace_symbol_provider: Some(OneOf::Left(true)),
                document_symbol_provider: Some(OneOf::Left(true)),
                code_action_provider: Some(CodeActionProviderCapability::Options(
                    CodeActionOptions {
                        code_action_kinds: Some(vec![
                            CodeActionKind::QUICKFIX,
                            CodeActionKind::REFACTOR_REWRITE,
                        ]),
                        ..Default::default()
                    },
                )),
                ..Default::default()
            },
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        // Requests to the client run in their own task: a handler awaiting an answer
        // holds one of the library's few concurrency slots, and a client slow to answer
        // would hold back the edits queued behind it.
        let this = self.clone();
        tokio::spawn(async move {
            this.register_watchers().await;
            if let Some(v) = this.pull_configuration().await {
                this.apply_settings(&v).await;
            }
        });
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        let td = params.text_document;
        let key = td.uri.as_str().to_string();
        let (path, rel) = self.rel_of(&td.uri);
        let directives = self.corpus().engine.directives.clone();
        let doc = Document::open(&rel, td.text, td.version, &directives);
        if doc.kind == Kind::Skipped {
            tracing::warn!("{rel}: too large or binary, not analysed");
        }
        let version = doc.version;
        self.state.docs.insert(
            key.clone(),
            Entry {
                uri: td.uri,
                path,
                rel,
                doc,
                findings: Arc::new(Vec::new()),
                findings_version: -1,
                session: Arc::new(Mutex::new(None)),
                last_check: Duration::ZERO,
            },
        );
        if self.adopt_project_of(&key).await {
            return; // everything open was re-checked against the new project
        }
        self.schedule_check(key, version, true, true);
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        // Applied before any `.await`: handlers interleave at awaits (tower-lsp #284),
        // and an edit applied late corrupts every later one.
        let key = params.text_document.uri.as_str().to_string();
        let version = params.text_document.version;
        {
            let Some(mut e) = self.state.docs.get_mut(&key) else {
                tracing::warn!("didChange for a document that is not open: {key}");
                return;
            };
            let rel = e.rel.clone();
            let res = guard("didChange", || {
                e.doc.apply(&rel, params.content_changes, version)
            });
            if res.is_err() {
                return;
            }
        }
        self.note_edit(&key);
        self.schedule_check(key, version, true, false);
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.schedule_dry_run(Some(params.text_document.uri.as_str().to_string()));
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        let key = params.text_document.uri.as_str().to_string();
        if let Some((_, e)) = self.state.docs.remove(&key) {
            // The file on disk is the truth again for its dependents.
            if let (true, Some(p)) = (self.inside_root(&e.rel), e.path.clone()) {
                let this = self.clone();
                let rel = e.rel.clone();
                let changed = tokio::task::spawn_blocking(move || {
                    guard("index update", || this.index_from_disk(&rel, &p))
                })
                .await;
                if let Ok(Ok(true)) = changed {
                    self.recheck_dependents(&[e.rel], None);
                }
            }
        }
        self.state.dry.remove(&key);
        if let Ok(uri) = key.parse::<Uri>() {
            self.state
                .client
                .publish_diagnostics(uri, Vec::new(), None)
                .await;
        }
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        let pushed = match &params.settings {
            Value::Object(m) if !m.is_empty() => Some(params.settings.clone()),
            _ => None,
        };
        let this = self.clone();
        tokio::spawn(async move {
            let v = match pushed {
                Some(v) if v.get("grounded").is_some() || this.pull_configuration_skipped() => v,
                _ => match this.pull_configuration().await {
                    Some(v) => v,
                    None => params.settings,
                },
            };
            this.apply_settings(&v).await;
        });
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        let corpus_dir = read(&self.state.corpus_dir);
        let mut reload = false;
        let mut created_or_deleted = false;
        let mut changed_rels = Vec::new();
        for ch in params.changes {
            let Some(path) = ch.uri.to_file_path().map(|p| p.into_owned()) else {
                continue;
            };
            if path.file_name().is_some_and(|n| n == CONFIG_FILE) {
                reload = true;
                continue;
            }
            if let Some(dir) = &corpus_dir {
                if path.starts_with(dir) {
                    reload = true;
                    continue;
                }
            }
            let (_, rel) = self.rel_of(&ch.uri);
            if !self.inside_root(&rel) {
                continue;
            }
            let exts = self.corpus().engine.script_extensions.clone();
            if !exts.iter().any(|x| rel.ends_with(x.as_str())) && !rel.ends_with(".md") {
                // Data files (`path` targets): their existence matters to `file` findings.
                created_or_deleted |= ch.typ != FileChangeType::CHANGED;
                continue;
            }
            if self.state.docs.contains_key(ch.uri.as_str()) {
                continue; // the buffer wins over the disk
            }
            let this = self.clone();
            let rel2 = rel.clone();
            let changed = tokio::task::spawn_blocking(move || {
                guard("index update", || this.index_from_disk(&rel2, &path))
            })
            .await;
            created_or_deleted |= ch.typ != FileChangeType::CHANGED;
            if let Ok(Ok(true)) = changed {
                changed_rels.push(rel);
            }
        }
        if reload {
            self.reload().await;
            self.recheck_all();
        } else if created_or_deleted {
            self.recheck_all();
        } else {
            self.recheck_dependents(&changed_rels, None);
        }
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        let p = params.text_document_position_params;
        let Some((text, tree)) = self.script(&p.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        guard("hover", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            features::hover(&corpus, &text, &tree, off)
        })
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        let p = params.text_document_position;
        let Some((text, tree)) = self.script(&p.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        let project = self.project_names(&p.text_document.uri);
        guard("completion", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            let items = features::completion(&corpus, &text, &tree, off, &project);
            (!items.is_empty()).then_some(CompletionResponse::Array(items))
        })
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        let p = params.text_document_position_params;
        let Some((text, tree)) = self.script(&p.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        guard("signatureHelp", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            features::signature_help(&corpus, &text, &tree, off)
        })
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        let Some((text, tree)) = self.script(&params.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        guard("documentSymbol", || {
            Some(DocumentSymbolResponse::Nested(features::document_symbols(
                &corpus, &text, &tree,
            )))
        })
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        let p = params.text_document_position_params;
        let uri = p.text_document.uri.clone();
        let Some((text, tree)) = self.script(&uri).await else {
            return Ok(None);
        };
        let Some(root) = self.root() else {
            return Ok(None);
        };
        let corpus = self.corpus();
        let target = guard("definition", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            features::definition(&corpus, &root, &text, &tree, off)
        })?;
        let loc = match target {
            None => None,
            Some(features::Target::File(path)) => Uri::from_file_path(&path).map(|uri| Location {
                uri,
                range: Range::default(),
            }),
            Some(features::Target::Here(s, e)) => Some(Location {
                uri,
                range: range_of(&LineIndex::new(&text), s, e),
            }),
            Some(features::Target::Docs(file, line)) => read(&self.state.corpus_dir)
                .and_then(|dir| Uri::from_file_path(navigation::normalize(&dir.join(file))))
                .map(|uri| {
                    let at = Position::new(line.saturating_sub(1) as u32, 0);
                    Location {
                        uri,
                        range: Range::new(at, at),
                    }
                }),
            Some(features::Target::Function(name)) => {
                let this = self.clone();
                tokio::task::spawn_blocking(move || {
                    guard("definition", || this.find_function_in_project(&name))
                })
                .await
                .map_err(|_| Error::internal_error())??
            }
        };
        Ok(loc.map(GotoDefinitionResponse::Scalar))
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        let p = params.text_document_position;
        let Some((sym, _)) = self.symbol_at(&p).await? else {
            return Ok(None);
        };
        let this = self.clone();
        let home = p.text_document.uri.clone();
        let mut locs = tokio::task::spawn_blocking(move || {
            guard("references", || {
                let scripts = this.project_scripts(&home, sym.global);
                navigation::references(&this.corpus(), &home, &scripts, &sym)
            })
        })
        .await
        .map_err(|_| Error::internal_error())??;
        if !params.context.include_declaration {
            // The declaration is one of the occurrences; the client asked without it.
            locs.retain(|l| !self.is_declaration(l));
        }
        Ok(Some(locs))
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        let p = params.text_document_position;
        if !navigation::is_identifier(&params.new_name) {
            return Err(Error::invalid_params(format!(
                "`{}` is not a name the script's language accepts",
                params.new_name
            )));
        }
        let Some((sym, _)) = self.symbol_at(&p).await? else {
            return Err(Error::invalid_params(
                "only the project's own functions and variables can be renamed here",
            ));
        };
        let this = self.clone();
        let home = p.text_document.uri.clone();
        let new_name = params.new_name.clone();
        let changes = tokio::task::spawn_blocking(move || {
            guard("rename", || {
                let scripts = this.project_scripts(&home, sym.global);
                navigation::rename_edits(&this.corpus(), &home, &scripts, &sym, &new_name)
            })
        })
        .await
        .map_err(|_| Error::internal_error())??;
        Ok(Some(WorkspaceEdit {
            changes: Some(changes),
            ..Default::default()
        }))
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        let this = self.clone();
        let syms = tokio::task::spawn_blocking(move || {
            guard("workspace/symbol", || {
                let scripts = match this.root() {
                    Some(_) => this.project_scripts_all(),
                    None => Vec::new(),
                };
                let dir = read(&this.state.corpus_dir);
                navigation::workspace_symbols(
                    &this.corpus(),
                    dir.as_deref(),
                    &scripts,
                    &params.query,
                )
            })
        })
        .await
        .map_err(|_| Error::internal_error())??;
        Ok(Some(WorkspaceSymbolResponse::Flat(syms)))
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        let uri = params.text_document.uri.clone();
        let Some(snap) = self.fresh_async(uri.as_str()).await else {
            return Ok(None);
        };
        if snap.kind == Kind::Skipped {
            return Ok(None);
        }
        // Fixes computed for another text would edit the wrong bytes.
        let findings = match self.state.docs.get(uri.as_str()) {
            Some(e) if e.findings_version == snap.version => e.findings.clone(),
            _ => Arc::new(Vec::new()),
        };
        let (text, tree) = (snap.text, snap.tree);
        let corpus = self.corpus();
        let r = params.range;
        let actions = guard("codeAction", || {
            let idx = LineIndex::new(&text);
            let start = idx.offset_utf16(r.start.line, r.start.character);
            let end = idx.offset_utf16(r.end.line, r.end.character);
            let mut out = actions::quick_fixes(&uri, &text, &findings, start, end, |f| {
                self.diagnostic_of(Some(&uri), &idx, &text, f, true)
            });
            if let Some(tree) = &tree {
                out.extend(actions::remove_construct(
                    &corpus,
                    &uri,
                    &text,
                    tree,
                    r.start.line,
                ));
            }
            out
        })?;
        Ok((!actions.is_empty()).then_some(actions))
    }
}

impl Backend {
    /// Whether the client cannot be asked for configuration (then pushed settings are
    /// taken as they come).
    fn pull_configuration_skipped(&self) -> bool {
        !self.state.can_pull_config.load(Ordering::Relaxed)
    }

    /// The project's top-level names with the file declaring each, but those of `uri`'s
    /// own file (its analysis knows them better), for completion.
    fn project_names(&self, uri: &Uri) -> Vec<(String, String)> {
        let own = self
            .state
            .docs
            .get(uri.as_str())
            .map(|e| crate::check::project::normalize(&e.rel));
        let ix = self.state.index.read().unwrap_or_else(|e| e.into_inner());
        ix.files
            .iter()
            .filter(|(rel, _)| Some(rel.as_str()) != own.as_deref())
            .flat_map(|(rel, f)| f.decls.iter().map(move |d| (d.clone(), rel.clone())))
            .collect()
    }

    /// The project symbol under the cursor (see [`features::symbol_at`]).
    async fn symbol_at(
        &self,
        p: &TextDocumentPositionParams,
    ) -> Result<Option<(features::Symbol, usize)>> {
        let Some((text, tree)) = self.script(&p.text_document.uri).await else {
            return Ok(None);
        };
        let corpus = self.corpus();
        let names: HashSet<String> = {
            let ix = self.state.index.read().unwrap_or_else(|e| e.into_inner());
            ix.files
                .values()
                .flat_map(|f| f.decls.iter().cloned())
                .collect()
        };
        guard("symbol", || {
            let off = LineIndex::new(&text).offset_utf16(p.position.line, p.position.character);
            features::symbol_at(&corpus, &text, &tree, off, &|n| names.contains(n))
                .map(|(s, start, _)| (s, start))
        })
    }

    /// The scripts references and rename read: the open buffers, and for a top-level
    /// name every script of the project on disk. Blocking.
    fn project_scripts(&self, home: &Uri, global: bool) -> Vec<(Uri, String)> {
        if !global {
            return self
                .state
                .docs
                .get(home.as_str())
                .map(|e| vec![(e.uri.clone(), e.doc.text.clone())])
                .unwrap_or_default();
        }
        self.project_scripts_all()
    }

    /// Every script of the project: open buffers, then the files on disk. Blocking.
    fn project_scripts_all(&self) -> Vec<(Uri, String)> {
        let open: Vec<(Uri, Option<PathBuf>, String)> = self
            .state
            .docs
            .iter()
            .filter(|e| e.doc.kind != Kind::Skipped)
            .map(|e| (e.uri.clone(), e.path.clone(), e.doc.text.clone()))
            .collect();
        match self.root() {
            Some(root) => {
                navigation::project_scripts(&root, &self.corpus().engine.script_extensions, &open)
            }
            None => open.into_iter().map(|(u, _, t)| (u, t)).collect(),
        }
    }

    /// Whether a location is a declaration of what it names (a `var`, `function` or
    /// parameter name), read from the text.
    fn is_declaration(&self, l: &Location) -> bool {
        let text = match self.state.docs.get(l.uri.as_str()) {
            Some(e) => e.doc.text.clone(),
            None => match l.uri.to_file_path().and_then(|p| std::fs::read(&*p).ok()) {
                Some(b) => String::from_utf8_lossy(&b).into_owned(),
                None => return false,
            },
        };
        let idx = LineIndex::new(&text);
        let at = idx.offset_utf16(l.range.start.line, l.range.start.character);
        let before = text[..at].trim_end();
        before.ends_with("var")
            || before.ends_with("function")
            || before.ends_with("let")
            || before.ends_with("const")
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
        assert_eq!(diff("same", "same"), None);
    }
}

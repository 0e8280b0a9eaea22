//! The server's state and its guards, below every handler: [`Backend`] (the one place the
//! shared state is mutated: every concern module adds methods to it), [`State`] with the
//! types it holds (a buffer's [`Entry`], the dry run's findings, the agent's slot), the
//! panic guard and the lock helpers.
//!
//! May import `config`, `document` and the layers below `lsp`; never a handler
//! (`store`, `diagnostics`, `requests`, `workspace`, `dry_run`, `agent`) nor the
//! dispatch (`server`), which all import this: once the state sat in `server` beside the
//! dispatch, which took the handlers' types back, and no handler could be read alone.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use dashmap::DashMap;
use serde_json::Value;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;
use tower_lsp_server::Client;

use super::config::Settings;
use super::document::Document;
use grounded_check::{Finding, ProjectIndex};
use grounded_docs::{Corpus, Library};
use grounded_project::Project;

/// How long the server waits for the client to answer a request it sent (configuration,
/// registration, applyEdit): a client that never answers must not freeze the session.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(5);

/// [`CLIENT_TIMEOUT`], or `GROUNDED_CLIENT_TIMEOUT_MS`: the tests that prove nothing
/// waits on an unanswered request set it far beyond their own patience, so a server that
/// waited could not pass them by luck of timing.
pub fn client_timeout() -> Duration {
    static T: std::sync::OnceLock<Duration> = std::sync::OnceLock::new();
    *T.get_or_init(|| {
        std::env::var("GROUNDED_CLIENT_TIMEOUT_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(CLIENT_TIMEOUT, Duration::from_millis)
    })
}

/// Quiet time after an edit before the buffer's project-index entry is refreshed.
pub const INDEX_IDLE: Duration = Duration::from_millis(250);

/// The environment variable that enables the test-only `grounded/debugPanic` request.
pub const DEBUG_PANIC_ENV: &str = "GROUNDED_LSP_DEBUG_PANIC";

/// Everything the handlers share.
pub struct State {
    pub(super) client: Client,
    pub(super) cli_docs: Option<PathBuf>,
    pub(super) docs: DashMap<String, Entry>,
    pub(super) dry: DryFindings,
    /// The corpus with its lazily built indexes (the agent's lookups reuse them across
    /// turns; replaced whole on reload).
    pub(super) corpus: RwLock<Arc<Library>>,
    /// The corpus folder on disk (related information links), `None` for the bundled one.
    pub(super) corpus_dir: RwLock<Option<PathBuf>>,
    /// Replaced, never mutated in place while shared: a buffer's session holds the one it
    /// was made with (copy-on-write through `Arc::make_mut`).
    pub(super) index: RwLock<Arc<ProjectIndex>>,
    pub(super) root: RwLock<Option<PathBuf>>,
    pub(super) project: RwLock<Option<Project>>,
    /// `[check]` of `grounded.toml` (replaced when the file changes): what the editor
    /// publishes is what `grounded check` prints.
    pub(super) rules: RwLock<Arc<grounded_check::Rules>>,
    /// The baseline `[check] baseline` names, read with the rules: the findings it
    /// records are silenced in the editor as `grounded check` silences them.
    pub(super) baseline: RwLock<Option<Arc<grounded_check::baseline::Baseline>>>,
    pub(super) settings: RwLock<Settings>,
    /// Bumped by every edit: the idle dry run runs only if nothing changed meanwhile.
    pub(super) edits: AtomicU64,
    pub(super) dry_running: AtomicBool,
    pub(super) dry_pending: AtomicBool,
    pub(super) can_pull_config: AtomicBool,
    pub(super) can_register_watchers: AtomicBool,
    pub(super) can_show_progress: AtomicBool,
    /// Numbers the progress tokens of dry runs.
    pub(super) runs: AtomicU64,
    /// What the last project scan left out or read lossily, not yet said to the user.
    pub(super) scan_notes: Mutex<Vec<String>>,
    /// Every scan note said so far: each is said once per session, not at every reload.
    pub(super) said: Mutex<HashSet<String>>,
    /// The agent's running turn (one per workspace).
    pub(super) agent: AgentSlot,
}

/// The server: a handle on the shared state.
#[derive(Clone)]
pub struct Backend {
    pub(super) state: Arc<State>,
}

/// A copy of what `l` holds; a poisoned lock is read anyway (a panic costs one answer,
/// never the session).
pub(super) fn read<T: Clone>(l: &RwLock<T>) -> T {
    l.read().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Replaces what `l` holds, poisoned or not.
pub(super) fn write<T>(l: &RwLock<T>, v: T) {
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
pub(super) fn guard<T>(what: &str, f: impl FnOnce() -> T) -> Result<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| {
        let msg = panic_message(&*p);
        // The file this thread was reading is what a bug report needs.
        let reading = grounded_textfile::being_read()
            .map(|f| format!(" while reading {f}"))
            .unwrap_or_default();
        tracing::error!("panic in {what}{reading}: {msg}");
        Error {
            code: ErrorCode::InternalError,
            message: format!(
                "grounded: internal error in {what}{reading}: {msg}; this is a bug in grounded: please report it"
            )
            .into(),
            data: None,
        }
    })
}

impl Backend {
    /// A server talking to `client`; `cli_docs` is `serve --docs`.
    pub fn new(client: Client, cli_docs: Option<PathBuf>) -> Backend {
        let corpus = grounded_docs::bundled::demo()
            .map(Arc::new)
            .expect("the bundled corpus loads");
        Backend {
            state: Arc::new(State {
                client,
                cli_docs,
                docs: DashMap::new(),
                dry: DashMap::new(),
                corpus: RwLock::new(Arc::new(Library::new(corpus))),
                corpus_dir: RwLock::new(None),
                index: RwLock::new(Arc::new(ProjectIndex::default())),
                root: RwLock::new(None),
                project: RwLock::new(None),
                rules: RwLock::new(Arc::new(grounded_check::Rules::default())),
                baseline: RwLock::new(None),
                settings: RwLock::new(Settings::default()),
                edits: AtomicU64::new(0),
                dry_running: AtomicBool::new(false),
                dry_pending: AtomicBool::new(false),
                can_pull_config: AtomicBool::new(false),
                can_register_watchers: AtomicBool::new(false),
                can_show_progress: AtomicBool::new(false),
                runs: AtomicU64::new(0),
                scan_notes: Mutex::new(Vec::new()),
                said: Mutex::new(HashSet::new()),
                agent: Default::default(),
            }),
        }
    }

    /// The corpus now (replaced on reload, never mutated).
    pub(super) fn corpus(&self) -> Arc<Corpus> {
        read(&self.state.corpus).corpus().clone()
    }

    /// The corpus now with its indexes, for the agent's lookups.
    pub(super) fn library(&self) -> Arc<Library> {
        read(&self.state.corpus)
    }

    /// The project root now (it moves when the project of an opened file is adopted).
    pub(super) fn root(&self) -> Option<PathBuf> {
        read(&self.state.root)
    }

    /// Starts a work-done progress report when the client shows them; the creation
    /// request is bounded by [`CLIENT_TIMEOUT`], and without an answer the work goes on
    /// unreported (eglot, for one, shows no progress: nothing may depend on it).
    pub(super) async fn begin_progress(
        &self,
        title: &str,
    ) -> Option<
        tower_lsp_server::OngoingProgress<
            tower_lsp_server::Unbounded,
            tower_lsp_server::NotCancellable,
        >,
    > {
        let token = self.create_progress().await?;
        Some(self.state.client.progress(token, title).begin().await)
    }

    /// A work-done progress with a cancel button, and its token: the client sends
    /// `window/workDoneProgress/cancel` with that token when the button is pressed.
    pub(super) async fn begin_cancellable_progress(
        &self,
        title: &str,
    ) -> Option<(
        ProgressToken,
        tower_lsp_server::OngoingProgress<
            tower_lsp_server::Unbounded,
            tower_lsp_server::Cancellable,
        >,
    )> {
        let token = self.create_progress().await?;
        let p = self
            .state
            .client
            .progress(token.clone(), title)
            .with_cancel_button()
            .begin()
            .await;
        Some((token, p))
    }

    /// `window/workDoneProgress/create` with a fresh token, when the client shows
    /// progress and answers in time.
    async fn create_progress(&self) -> Option<ProgressToken> {
        if !self.state.can_show_progress.load(Ordering::Relaxed) {
            return None;
        }
        let n = self.state.runs.fetch_add(1, Ordering::Relaxed);
        let token = ProgressToken::String(format!("grounded/{n}"));
        let created = tokio::time::timeout(
            client_timeout(),
            self.state.client.create_work_done_progress(token.clone()),
        )
        .await;
        match created {
            Ok(Ok(())) => Some(token),
            Ok(Err(e)) => {
                tracing::warn!("window/workDoneProgress/create failed: {e}");
                None
            }
            Err(_) => {
                tracing::warn!(
                    "window/workDoneProgress/create: no answer in {:?}",
                    client_timeout()
                );
                None
            }
        }
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
}

/// One open buffer and what was last published for it.
pub(super) struct Entry {
    pub(super) uri: Uri,
    /// The file's path, for `file:` URIs.
    pub(super) path: Option<PathBuf>,
    /// How findings and the project index name the file: relative to the root when inside
    /// it, else the absolute path (or the URI for non-file URIs).
    pub(super) rel: String,
    pub(super) doc: Document,
    /// Findings of the static check, and the version they were computed for.
    pub(super) findings: Arc<Vec<Finding>>,
    pub(super) findings_version: i32,
    /// The checker's incremental session ([`grounded_check::Session`]: an edit inside one
    /// top-level statement re-checks that statement alone), brought to the buffer's text
    /// at each check. It owns the corpus and project index it was opened with.
    pub(super) session: Arc<Mutex<Option<grounded_check::Session>>>,
    /// Whether a check of this buffer is running, and whether an edit (or a request to
    /// re-check) came in meanwhile: the running check then checks the latest version as
    /// soon as it ends. One check at a time per buffer, and no edit waits for anything
    /// but a check already running.
    pub(super) checks: Arc<Mutex<Checks>>,
    /// Whether the buffer's project-index entry may be out of date: a check since the
    /// last index update read more than one statement whose summary stayed the same (see
    /// [`grounded_check::Session`]), or the buffer differs from the file the index read.
    /// Only then is the entry recomputed after a pause: that costs a second analysis of
    /// the whole file, which ran after every 250 ms pause in typing and, on a 10,000-line
    /// script, delayed the next keystroke's diagnostics from 4 ms to 25 ms.
    pub(super) facts_stale: bool,
    /// The seed of the session's last full check: hover and completion on a large buffer
    /// analyse the statement under the cursor with it, instead of the whole buffer,
    /// while the next check runs.
    pub(super) seed: Option<Arc<grounded_js::Seed>>,
}

/// A buffer's check scheduling (see [`Entry::checks`]).
#[derive(Debug, Default)]
pub(super) struct Checks {
    /// A check loop is running for the buffer.
    pub(super) running: bool,
    /// Something came in while it ran: check the latest version again when it ends.
    pub(super) again: bool,
    /// The next check also refreshes what depends on the buffer.
    pub(super) cascade: bool,
}

/// Findings of the last dry run, by URI string (open or not).
pub(super) type DryFindings = DashMap<String, DryEntry>;

/// The last dry run's findings of one file.
pub(super) struct DryEntry {
    pub(super) uri: Uri,
    pub(super) findings: Vec<Finding>,
    /// The buffer's text the run read, when the file was open: later versions publish
    /// only the findings their edits left untouched, moved to where they are now.
    pub(super) seen: Option<Arc<str>>,
}

/// The running turn of this workspace, if any.
#[derive(Default)]
pub struct AgentSlot {
    pub(super) running: Mutex<Option<(u64, Arc<AtomicBool>)>>,
    /// The running turn's progress token: the progress bar's cancel button sends it.
    pub(super) token: Mutex<Option<(ProgressToken, Arc<AtomicBool>)>>,
    pub(super) next: AtomicU64,
}

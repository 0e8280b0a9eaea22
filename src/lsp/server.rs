//! The server's state and the protocol: [`Backend`] (the one place the shared state is
//! mutated: every concern module adds methods to it), the capabilities announced at
//! `initialize`, and the `LanguageServer` dispatch, each handler one call into the module
//! of its concern. Also the guards every module uses: the panic guard and bounded
//! requests to the client.

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
use tower_lsp_server::{Client, LanguageServer};

use super::config::Settings;
use super::dry_run::DryFindings;
use super::store::Entry;
use super::workspace::workspace_root;
use crate::check::ProjectIndex;
use crate::docs::{Corpus, Library};
use crate::project::Project;

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
    pub(super) agent: super::agent::AgentSlot,
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
        let reading = crate::textfile::being_read()
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
        let corpus = crate::docs::bundled::demo()
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
                execute_command_provider: Some(ExecuteCommandOptions {
                    commands: vec![super::agent::ASK.into(), super::agent::CANCEL.into()],
                    work_done_progress_options: Default::default(),
                }),
                ..Default::default()
            },
            offset_encoding: None,
        })
    }

    async fn initialized(&self, _: InitializedParams) {
        self.on_initialized();
    }

    async fn shutdown(&self) -> Result<()> {
        Ok(())
    }

    async fn did_open(&self, params: DidOpenTextDocumentParams) {
        self.open_document(params).await;
    }

    async fn did_change(&self, params: DidChangeTextDocumentParams) {
        self.change_document(params).await;
    }

    async fn did_save(&self, params: DidSaveTextDocumentParams) {
        self.saved(params);
    }

    async fn did_close(&self, params: DidCloseTextDocumentParams) {
        self.close_document(params).await;
    }

    async fn did_change_configuration(&self, params: DidChangeConfigurationParams) {
        self.change_configuration(params);
    }

    async fn did_change_watched_files(&self, params: DidChangeWatchedFilesParams) {
        self.change_watched_files(params).await;
    }

    async fn hover(&self, params: HoverParams) -> Result<Option<Hover>> {
        self.hover_at(params).await
    }

    async fn completion(&self, params: CompletionParams) -> Result<Option<CompletionResponse>> {
        self.complete_at(params).await
    }

    async fn signature_help(&self, params: SignatureHelpParams) -> Result<Option<SignatureHelp>> {
        self.signature_at(params).await
    }

    async fn document_symbol(
        &self,
        params: DocumentSymbolParams,
    ) -> Result<Option<DocumentSymbolResponse>> {
        self.symbols_of(params).await
    }

    async fn goto_definition(
        &self,
        params: GotoDefinitionParams,
    ) -> Result<Option<GotoDefinitionResponse>> {
        self.definition_at(params).await
    }

    async fn references(&self, params: ReferenceParams) -> Result<Option<Vec<Location>>> {
        self.references_at(params).await
    }

    async fn rename(&self, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
        self.rename_at(params).await
    }

    async fn symbol(
        &self,
        params: WorkspaceSymbolParams,
    ) -> Result<Option<WorkspaceSymbolResponse>> {
        self.workspace_symbols(params).await
    }

    async fn code_action(&self, params: CodeActionParams) -> Result<Option<CodeActionResponse>> {
        self.actions_for(params).await
    }

    async fn execute_command(&self, params: ExecuteCommandParams) -> Result<Option<Value>> {
        self.agent_command(params).await
    }
}

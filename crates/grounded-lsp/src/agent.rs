//! The agent in the editor (interfaces.md, "The agent in the editor"):
//! `grounded.askAgent` answers at once with `{"turn": ID}` and runs the turn on a
//! thread of its own; each write it lands is one labelled `workspace/applyEdit`
//! (versioned for open buffers); progress goes out as work-done progress; the end is a
//! `window/showMessage` and a `grounded/agentFinished` notification.
//!
//! Why answer at once: eglot blocks the editor until a command answers and Helix gives
//! up after 20 s, while a turn takes minutes. Why one turn per workspace: two turns
//! editing the same files would each measure the other's writes as their own.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

use super::state::{read, Backend, State, CLIENT_TIMEOUT};
use grounded_agent::{
    self as agent, AgentConfig, HttpModel, Progress, Transcript, Turn, TurnRequest, UserModel,
    Workspace,
};
use grounded_js::LineIndex;
use grounded_project::Project;

/// The command that asks the agent.
pub const ASK: &str = "grounded.askAgent";
/// The command that cancels a turn.
pub const CANCEL: &str = "grounded.cancelAgent";

/// How long the client may take to answer one `workspace/applyEdit`: a client that
/// never answers leaves the write not done, and the turn is told so.
const APPLY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// `grounded/agentFinished`.
pub enum AgentFinished {}

impl notification::Notification for AgentFinished {
    type Params = Value;
    const METHOD: &'static str = "grounded/agentFinished";
}

/// Reads from the editor's buffers (then the disk) and writes through
/// `workspace/applyEdit`, from the turn's own thread.
struct EditorWorkspace {
    state: Arc<State>,
    rt: tokio::runtime::Handle,
    /// What this turn's landed writes made of each file: the client's didChange may
    /// arrive after its applyEdit answer, and the turn must read what it wrote.
    written: Mutex<HashMap<PathBuf, Option<Vec<u8>>>>,
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}

impl EditorWorkspace {
    /// The open buffer of `path`: URI, text, version.
    fn open(&self, path: &Path) -> Option<(Uri, String, i32)> {
        self.state.docs.iter().find_map(|e| {
            let p = e.path.as_ref()?;
            same_file(p, path).then(|| (e.uri.clone(), e.doc.text.clone(), e.doc.version))
        })
    }

    fn apply(&self, edit: WorkspaceEdit, label: &str) -> std::result::Result<(), String> {
        let client = self.state.client.clone();
        let label = label.to_string();
        let answer = self.rt.block_on(async move {
            tokio::time::timeout(
                APPLY_TIMEOUT,
                client.send_request::<request::ApplyWorkspaceEdit>(ApplyWorkspaceEditParams {
                    label: Some(label),
                    edit,
                }),
            )
            .await
        });
        match answer {
            Err(_) => Err(format!(
                "the editor did not answer workspace/applyEdit within {} s",
                APPLY_TIMEOUT.as_secs()
            )),
            Ok(Err(e)) => Err(format!(
                "the editor answered workspace/applyEdit with an error: {}",
                e.message
            )),
            Ok(Ok(r)) if r.applied => Ok(()),
            Ok(Ok(r)) => Err(format!(
                "the editor refused the edit{}",
                r.failure_reason
                    .map(|f| format!(": {f}"))
                    .unwrap_or_default()
            )),
        }
    }
}

fn whole(text: &str) -> Range {
    let idx = LineIndex::new(text);
    let end = super::document::position_of(&idx, text.len());
    Range::new(Position::new(0, 0), end)
}

impl Workspace for EditorWorkspace {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        if let Some(w) = self
            .written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(path)
        {
            return w
                .clone()
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound));
        }
        if let Some((_, text, _)) = self.open(path) {
            return Ok(text.into_bytes());
        }
        std::fs::read(path)
    }

    fn write(&self, path: &Path, bytes: &[u8], label: &str) -> std::result::Result<(), String> {
        let new_text =
            String::from_utf8(bytes.to_vec()).map_err(|_| "not UTF-8 text".to_string())?;
        let uri =
            Uri::from_file_path(path).ok_or_else(|| format!("{}: no file URI", path.display()))?;
        let mut ops = Vec::new();
        let (version, old) = match self.open(path) {
            Some((_, text, v)) => (Some(v), Some(text)),
            None => match std::fs::read(path) {
                Ok(b) => (None, Some(String::from_utf8_lossy(&b).into_owned())),
                Err(_) => (None, None),
            },
        };
        // A write made against an older buffer is refused by the client, not written
        // over the user's typing: the version says which buffer the edit was made for.
        let old = self
            .written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(path)
            .cloned()
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .or(old);
        if old.is_none() {
            ops.push(DocumentChangeOperation::Op(ResourceOp::Create(
                CreateFile {
                    uri: uri.clone(),
                    options: None,
                    annotation_id: None,
                },
            )));
        }
        let range = old.as_deref().map(whole).unwrap_or_default();
        ops.push(DocumentChangeOperation::Edit(TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
            edits: vec![OneOf::Left(TextEdit::new(range, new_text))],
        }));
        self.apply(
            WorkspaceEdit {
                document_changes: Some(DocumentChanges::Operations(ops)),
                ..Default::default()
            },
            label,
        )?;
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.to_path_buf(), Some(bytes.to_vec()));
        Ok(())
    }

    fn remove(&self, path: &Path, label: &str) -> std::result::Result<(), String> {
        let uri =
            Uri::from_file_path(path).ok_or_else(|| format!("{}: no file URI", path.display()))?;
        self.apply(
            WorkspaceEdit {
                document_changes: Some(DocumentChanges::Operations(vec![
                    DocumentChangeOperation::Op(ResourceOp::Delete(DeleteFile {
                        uri,
                        options: None,
                        annotation_id: None,
                    })),
                ])),
                ..Default::default()
            },
            label,
        )?;
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(path.to_path_buf(), None);
        Ok(())
    }

    fn overlay(&self) -> HashMap<PathBuf, String> {
        let mut out: HashMap<PathBuf, String> = self
            .state
            .docs
            .iter()
            .filter_map(|e| Some((e.path.clone()?, e.doc.text.clone())))
            .collect();
        for (p, b) in self
            .written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            if let Some(b) = b {
                out.insert(p.clone(), String::from_utf8_lossy(b).into_owned());
            }
        }
        out
    }
}

/// Work-done progress from the turn's thread (nothing when the client has none).
struct EditorProgress {
    rt: tokio::runtime::Handle,
    progress: Option<
        tower_lsp_server::OngoingProgress<
            tower_lsp_server::Unbounded,
            tower_lsp_server::Cancellable,
        >,
    >,
}

impl Progress for EditorProgress {
    fn say(&self, text: &str) {
        if let Some(p) = &self.progress {
            self.rt
                .block_on(p.report_with_message(text.to_string(), None));
        }
    }
}

impl Backend {
    /// `window/workDoneProgress/cancel`: the cancel button of the turn's progress bar
    /// stops the turn as `grounded.cancelAgent` does. The button was shown and did
    /// nothing: the library has no handler for the notification.
    pub async fn work_done_progress_cancel(&self, params: WorkDoneProgressCancelParams) {
        let slot = self
            .state
            .agent
            .token
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if let Some((token, flag)) = slot {
            if token == params.token {
                flag.store(true, Ordering::SeqCst);
            }
        }
    }

    /// `workspace/executeCommand` for the agent's two commands.
    pub(super) async fn agent_command(
        &self,
        params: ExecuteCommandParams,
    ) -> Result<Option<Value>> {
        match params.command.as_str() {
            ASK => {
                self.ask_agent(params.arguments.first().cloned().unwrap_or(Value::Null))
                    .await
            }
            CANCEL => {
                let id = params
                    .arguments
                    .first()
                    .and_then(|a| a.get("turn"))
                    .and_then(Value::as_u64);
                let running = self
                    .state
                    .agent
                    .running
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .clone();
                match running {
                    Some((t, flag)) if id.is_none() || id == Some(t) => {
                        flag.store(true, Ordering::SeqCst);
                        Ok(Some(json!({"turn": t, "cancelled": true})))
                    }
                    _ => Ok(Some(json!({"cancelled": false}))),
                }
            }
            other => Err(Error::invalid_params(format!("unknown command `{other}`"))),
        }
    }

    async fn refuse(&self, msg: String) -> Result<Option<Value>> {
        self.state
            .client
            .show_message(MessageType::ERROR, &msg)
            .await;
        let mut e = Error::invalid_request();
        e.message = msg.into();
        Err(e)
    }

    async fn ask_agent(&self, arg: Value) -> Result<Option<Value>> {
        let Some(request) = arg
            .get("request")
            .and_then(Value::as_str)
            .filter(|r| !r.trim().is_empty())
        else {
            return self
                .refuse("grounded agent: the command needs {\"request\": \"...\"}".into())
                .await;
        };
        let Some(root) = self.root() else {
            return self
                .refuse("grounded agent: no workspace folder is open".into())
                .await;
        };
        let project = read(&self.state.project)
            .or_else(|| Project::discover(&root, &root).ok())
            .unwrap_or(Project {
                root: root.clone(),
                config: Default::default(),
                has_config: false,
                warnings: Vec::new(),
            });
        let settings = read(&self.state.settings);
        let user = UserModel {
            base_url: settings.agent_base_url.clone(),
            model: settings.agent_model.clone(),
            api_key_env: settings.agent_api_key_env.clone(),
        };
        let endpoint = match agent::config::resolve_endpoint(&project, &user) {
            Ok(e) => e,
            Err(e) => {
                return self
                    .refuse(format!("grounded agent: {}", editor_words(&e)))
                    .await
            }
        };
        let config = AgentConfig::for_project(&project, settings.agent_allow_validate);
        let cancel = Arc::new(AtomicBool::new(false));
        let busy = {
            let mut running = self
                .state
                .agent
                .running
                .lock()
                .unwrap_or_else(|e| e.into_inner());
            match &*running {
                Some((t, _)) => Err(*t),
                None => {
                    let id = self.state.agent.next.fetch_add(1, Ordering::SeqCst) + 1;
                    *running = Some((id, cancel.clone()));
                    Ok(id)
                }
            }
        };
        let id = match busy {
            Ok(id) => id,
            Err(t) => {
                return self
                    .refuse(format!("grounded agent: turn {t} is still running in this workspace; cancel it (grounded.cancelAgent) or wait for it"))
                    .await
            }
        };
        let context = context_of(&arg);
        // The document the request is about: a change to it is the change asked for,
        // whatever file names the request's words carry ("Fix this: `banner` is
        // declared in the project's lib/util.js, which this script does not load").
        let about: Vec<String> = arg
            .get("uri")
            .and_then(Value::as_str)
            .and_then(|u| u.parse::<Uri>().ok())
            .and_then(|u| u.to_file_path().map(|p| p.display().to_string()))
            .into_iter()
            .collect();
        // The transcript, when `agent.transcript` names one: opened before the turn
        // starts, so a path that cannot be written is said at once, not after the turn.
        let transcript_path = settings.agent_transcript.as_ref().map(|t| {
            let p = PathBuf::from(t);
            if p.is_absolute() {
                p
            } else {
                root.join(p)
            }
        });
        let transcript = match &transcript_path {
            Some(p) => match Transcript::to_file(p) {
                Ok(t) => t,
                Err(e) => {
                    *self
                        .state
                        .agent
                        .running
                        .lock()
                        .unwrap_or_else(|e| e.into_inner()) = None;
                    return self
                        .refuse(format!("grounded agent: agent.transcript: {e}"))
                        .await;
                }
            },
            None => Transcript::none(),
        };
        let progress = match self.begin_cancellable_progress("grounded agent").await {
            Some((token, p)) => {
                *self
                    .state
                    .agent
                    .token
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = Some((token, cancel.clone()));
                Some(p)
            }
            None => None,
        };
        let state = self.state.clone();
        let corpus = self.library();
        let rt = tokio::runtime::Handle::current();
        let exclude: Vec<PathBuf> = read(&self.state.corpus_dir).into_iter().collect();
        let request = request.to_string();
        tracing::info!("agent turn {id}: request {request:?}");
        // The HTTP client runs a runtime of its own: it is built, used and dropped on
        // the turn's thread, never on the server's runtime (where dropping it panics).
        std::thread::spawn(move || {
            let model = match HttpModel::new(endpoint, &config) {
                Ok(m) => m,
                Err(e) => {
                    *state
                        .agent
                        .running
                        .lock()
                        .unwrap_or_else(|e| e.into_inner()) = None;
                    *state.agent.token.lock().unwrap_or_else(|e| e.into_inner()) = None;
                    let msg = format!("grounded agent: {e}");
                    rt.block_on(async {
                        state.client.show_message(MessageType::ERROR, &msg).await;
                        state
                            .client
                            .send_notification::<AgentFinished>(json!({
                                "turn": id, "status": "failed", "reason": msg,
                                "answer": msg, "changed": []}))
                            .await;
                    });
                    return;
                }
            };
            let ws = EditorWorkspace {
                state: state.clone(),
                rt: rt.clone(),
                written: Mutex::new(HashMap::new()),
            };
            let prog = EditorProgress {
                rt: rt.clone(),
                progress,
            };
            // The editor's turn gets the same guardrails as the command line's.
            let (guards, gates) = agent::guardrails::standard(&config, &corpus);
            let turn = Turn {
                corpus: &corpus,
                root: project.root.clone(),
                exclude,
                entry: project.config.entry.clone(),
                workspace: &ws,
                model: &model,
                config: &config,
                transcript: &transcript,
                progress: &prog,
                cancel,
                registry: agent::plan::registry(),
                guards,
                gates,
            };
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                agent::run_turn(
                    turn,
                    &TurnRequest {
                        text: request,
                        context,
                        about,
                    },
                )
            }));
            *state
                .agent
                .running
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = None;
            *state.agent.token.lock().unwrap_or_else(|e| e.into_inner()) = None;
            let (status, answer, changed, reason) = match out {
                Ok(o) => (o.status.as_str(), o.answer, o.changed, o.reason),
                Err(_) => (
                    "failed",
                    "the turn failed internally (see the log)".to_string(),
                    Vec::new(),
                    "the turn failed internally (see the log)".to_string(),
                ),
            };
            // The server's log keeps every turn: the editor's notification may be gone
            // before anyone reads it.
            tracing::info!(
                "agent turn {id}: {status}: {reason}; changed: {}",
                if changed.is_empty() {
                    "none".to_string()
                } else {
                    changed.join(", ")
                }
            );
            let summary = format!(
                "grounded agent: {status}; {}",
                if changed.is_empty() {
                    "no file changed".to_string()
                } else {
                    format!("changed {}", changed.join(", "))
                }
            );
            rt.block_on(async {
                if let Some(p) = prog.progress {
                    p.finish_with_message(summary.clone()).await;
                }
                let typ = if status == "done" {
                    MessageType::INFO
                } else {
                    MessageType::WARNING
                };
                state.client.show_message(typ, &summary).await;
                let mut finished = json!({
                    "turn": id, "status": status, "reason": reason, "answer": answer,
                    "changed": changed});
                if let Some(p) = &transcript_path {
                    finished["transcript"] = Value::String(p.display().to_string());
                }
                state
                    .client
                    .send_notification::<AgentFinished>(finished)
                    .await;
            });
        });
        let _ = CLIENT_TIMEOUT;
        Ok(Some(json!({"turn": id})))
    }

    /// *Ask grounded agent to fix this* for each diagnostic of a code-action request.
    pub(super) fn agent_actions(&self, params: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        params
            .context
            .diagnostics
            .iter()
            .map(|d| {
                let arg = json!({
                    "request": format!("Fix this: {}", d.message),
                    "uri": params.text_document.uri.as_str(),
                    "range": d.range,
                    "diagnostics": [d],
                });
                CodeActionOrCommand::CodeAction(CodeAction {
                    title: "Ask grounded agent to fix this".into(),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![d.clone()]),
                    command: Some(Command::new(
                        "Ask grounded agent to fix this".into(),
                        ASK.into(),
                        Some(vec![arg]),
                    )),
                    ..Default::default()
                })
            })
            .collect()
    }
}

/// An endpoint error as an editor's user reads it: the settings to set, not the
/// command line's flags.
fn editor_words(e: &str) -> String {
    use grounded_agent::wording::{NO_MODEL, NO_MODEL_EDITOR, NO_MODEL_NAME, NO_MODEL_NAME_EDITOR};
    if e == NO_MODEL {
        return NO_MODEL_EDITOR.to_string();
    }
    if e == NO_MODEL_NAME {
        return NO_MODEL_NAME_EDITOR.to_string();
    }
    e.replace(
        "approve it with --base-url ",
        "approve it by setting the editor setting grounded.agent.baseUrl to ",
    )
}

/// What the editor adds to the request: the file, the selection, the diagnostics.
fn context_of(arg: &Value) -> Option<String> {
    let mut parts = Vec::new();
    if let Some(uri) = arg.get("uri").and_then(Value::as_str) {
        let shown = uri
            .parse::<Uri>()
            .ok()
            .and_then(|u| u.to_file_path().map(|p| p.display().to_string()))
            .unwrap_or_else(|| uri.to_string());
        parts.push(format!("The file: {shown}"));
    }
    if let Some(r) = arg.get("range") {
        if let (Some(a), Some(b)) = (r["start"]["line"].as_u64(), r["end"]["line"].as_u64()) {
            parts.push(format!("The selection: lines {}-{}", a + 1, b + 1));
        }
    }
    if let Some(Value::Array(ds)) = arg.get("diagnostics") {
        for d in ds {
            if let Some(m) = d.get("message").and_then(Value::as_str) {
                let line = d["range"]["start"]["line"].as_u64().unwrap_or(0) + 1;
                parts.push(format!("Diagnostic at line {line}: {m}"));
            }
        }
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

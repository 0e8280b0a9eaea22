//! The protocol: rmcp's server handler over stdio, the client's roots, and the guard
//! that keeps one bad call from costing the session.
//!
//! Why the project loads in the background: a client counts the time to `initialize`'s
//! answer (some give up after seconds), and a corpus load is tens of milliseconds to
//! seconds. `initialize` answers at once; the first tool call waits for the load.
//!
//! Why each call runs on a blocking thread inside `catch_unwind`: the analysis is
//! synchronous, and a panic in it must cost one answer (a tool error saying it is a
//! bug), never the session an agent is in the middle of.
//!
//! May import `guard`, `paths`, `session`, `tools`.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData,
    Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value};
use tokio::sync::{Mutex, OnceCell};

use super::guard;
use super::paths::root_of_uri;
use super::session::Session;
use super::{tools, Answer, Options, MAX_LINE};

/// How long a `roots/list` request to the client may take before the server goes on
/// with the project root alone: a client that never answers must not freeze a call.
const ROOTS_WAIT: Duration = Duration::from_secs(5);

/// The server: the session (loaded once) and the client's roots.
#[derive(Clone)]
pub struct Grounded {
    options: Options,
    session: Arc<OnceCell<Result<Arc<Session>, String>>>,
    /// The client's roots as folders; `None` until asked (and again after the client
    /// says they changed).
    roots: Arc<Mutex<Option<Vec<PathBuf>>>>,
}

impl Grounded {
    /// A server for `options`; the project loads on first use ([`Grounded::preload`]
    /// starts it early).
    pub fn new(options: Options) -> Grounded {
        Grounded {
            options,
            session: Arc::new(OnceCell::new()),
            roots: Arc::new(Mutex::new(None)),
        }
    }

    /// Starts loading the project in the background.
    pub fn preload(&self) {
        let me = self.clone();
        tokio::spawn(async move {
            let _ = me.session().await;
        });
    }

    /// The session, loaded on first use; a load that failed stays failed (its reason is
    /// every tool's error, and stderr's).
    pub async fn session(&self) -> Result<Arc<Session>, String> {
        self.session
            .get_or_init(|| async {
                let options = self.options.clone();
                let loaded = tokio::task::spawn_blocking(move || {
                    let start = options.start.clone();
                    Session::load(&start, options)
                })
                .await
                .map_err(|e| format!("loading the project failed: {e}"))
                .and_then(|r| r);
                if let Err(e) = &loaded {
                    eprintln!("grounded: {e}");
                }
                loaded.map(Arc::new)
            })
            .await
            .clone()
    }

    /// The client's roots (asked once, when it declared the capability), as folders.
    // Roots are deprecated by the protocol's newest revision (SEP-2577), but the clients
    // of today declare them and the contract honours them: a client that gave roots
    // expects nothing outside them to be read.
    #[allow(deprecated)]
    async fn roots(&self, peer: &rmcp::Peer<RoleServer>) -> Vec<PathBuf> {
        let mut guard = self.roots.lock().await;
        if let Some(r) = &*guard {
            return r.clone();
        }
        let declared = peer
            .peer_info()
            .is_some_and(|i| i.capabilities.roots.is_some());
        let mut folders = Vec::new();
        if declared {
            match tokio::time::timeout(ROOTS_WAIT, peer.list_roots()).await {
                Ok(Ok(list)) => {
                    folders = list.roots.iter().filter_map(|r| root_of_uri(&r.uri)).collect();
                    // Roots were given but none is a folder of this machine: nothing may
                    // be read, rather than everything.
                    if folders.is_empty() && !list.roots.is_empty() {
                        folders.push(PathBuf::from("/nonexistent-root-of-no-file-uri"));
                    }
                }
                Ok(Err(e)) => eprintln!("grounded: roots/list failed ({e}); the project root alone decides"),
                Err(_) => eprintln!("grounded: the client did not answer roots/list in {} s; the project root alone decides", ROOTS_WAIT.as_secs()),
            }
        }
        *guard = Some(folders.clone());
        folders
    }

    /// Answers one call of the tool `name` (the whole answer, as the protocol sends it);
    /// `None` for a tool that does not exist.
    pub async fn call(
        &self,
        name: &str,
        args: Map<String, Value>,
        roots: Vec<PathBuf>,
    ) -> Option<Answer> {
        let session = match self.session().await {
            Ok(s) => s,
            Err(e) => {
                return tools::all()
                    .iter()
                    .any(|t| t.name == name)
                    .then(|| Answer::error(format!("grounded could not load the project: {e}")))
            }
        };
        let name = name.to_string();
        let joined = tokio::task::spawn_blocking(move || {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                tools::call(&session, &roots, &name, &args)
            }))
        })
        .await;
        match joined {
            Ok(Ok(a)) => a,
            _ => Some(Answer::error(
                "internal error in grounded while answering this call (a bug: please report it); the server goes on",
            )),
        }
    }
}

/// The tools as the protocol lists them, every one annotated read-only.
fn listed() -> Vec<Tool> {
    tools::all()
        .into_iter()
        .map(|t| {
            let schema = |v: Value| Arc::new(v.as_object().cloned().unwrap_or_default());
            Tool::new(t.name, t.description, schema(t.input))
                .with_title(t.title)
                .with_raw_output_schema(schema(t.output))
                .with_annotations(
                    ToolAnnotations::with_title(t.title)
                        .read_only(true)
                        .destructive(false)
                        .idempotent(true)
                        .open_world(false),
                )
        })
        .collect()
}

impl ServerHandler for Grounded {
    fn get_info(&self) -> ServerConfig {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("grounded", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "grounded knows this engine's documented API (its docs are the only truth) and checks scripts against it. Before writing engine script code, call check_code with the whole file and fix what it reports; look names up with get_doc / lookup_docs / resolve_topic instead of guessing; after writing, check_files.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(listed()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let roots = self.roots(&context.peer).await;
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        match self.call(&name, args, roots).await {
            Some(a) => Ok(result(a).into()),
            None => {
                let names: Vec<&str> = tools::all().iter().map(|t| t.name).collect();
                Err(ErrorData::invalid_params(
                    Cow::Owned(format!(
                        "no tool `{name}`; the tools are {}",
                        names.join(", ")
                    )),
                    None,
                ))
            }
        }
    }

    async fn on_roots_list_changed(&self, _context: NotificationContext<RoleServer>) {
        *self.roots.lock().await = None;
    }
}

/// An answer as the protocol's result: the text, and the structured content beside it
/// (a tool error carries the text alone: its sentence is the whole answer).
fn result(a: Answer) -> CallToolResult {
    if a.error {
        return CallToolResult::error(vec![ContentBlock::text(a.text)]);
    }
    let mut r = CallToolResult::success(vec![ContentBlock::text(a.text)]);
    r.structured_content = Some(a.structured);
    r
}

/// Serves on stdin/stdout until the client closes stdin: 0. Logs go to stderr; stdout
/// carries only JSON-RPC lines, rmcp's and the guard's (`guard`), one writer for both.
pub async fn serve_stdio(options: Options) -> Result<i32, String> {
    let server = Grounded::new(options);
    server.preload();
    let (rmcp_in, guard_to_rmcp) = tokio::io::duplex(1 << 16);
    let (rmcp_to_guard, rmcp_out) = tokio::io::duplex(1 << 16);
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let writer = tokio::spawn(guard::write_lines(tokio::io::stdout(), rx));
    let out = tokio::spawn(guard::pump_out(rmcp_out, tx.clone()));
    tokio::spawn(guard::pump_in(tokio::io::stdin(), guard_to_rmcp, tx));
    let transport = rmcp::transport::async_rw::AsyncRwTransport::new(rmcp_in, rmcp_to_guard)
        .with_max_line_length(MAX_LINE);
    let running = server
        .serve(transport)
        .await
        .map_err(|e| format!("the MCP session did not start: {e}"))?;
    running
        .waiting()
        .await
        .map_err(|e| format!("the MCP session ended: {e}"))?;
    // rmcp's last answers are in the pipe: written out before the process ends.
    let _ = out.await;
    let _ = tokio::time::timeout(Duration::from_secs(5), writer).await;
    Ok(0)
}

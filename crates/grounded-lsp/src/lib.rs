//! `lsp`: the language server (`grounded serve`), where users meet grounded: squiggles
//! on invented APIs, quick fixes, hover and completion from the engine's own docs.
//!
//! Built on **tower-lsp-server 0.23**, the maintained fork of tower-lsp (which stopped at
//! 0.20 in 2023). The fork tracks the current protocol types (`ls-types`) and has the
//! work-done progress API (`Client::progress`) the agent will need to report long turns;
//! tower-lsp has neither.
//!
//! Both run messages several at a time, didChange included, so handlers interleave at
//! every `.await` (tower-lsp issue 284). Hence the rules of this module:
//!
//! - text changes are applied to the document store (a `dashmap` of open buffers that
//!   every analysis reads instead of the disk) before the handler's first `.await`;
//! - every analysis result carries the document version it was computed for and is
//!   dropped when the buffer moved on; an edit is checked at once when no check of its
//!   buffer runs, and edits that arrive during one are merged into one edit checked as
//!   soon as it ends, through the checker's incremental session (`grounded_check::Session`);
//! - every request the server sends the client (configuration, registration) is bounded
//!   by a timeout, so a client that never answers cannot freeze the session;
//! - analysis runs inside a panic guard: a panic costs one answer, logged, never the
//!   session;
//! - the analysis speaks byte offsets; only this module converts to the protocol's UTF-16
//!   positions (`grounded_js::LineIndex`);
//! - logs go to stderr (or `GROUNDED_LOG_FILE`), never stdout, which carries the protocol.
//!
//! Rooms, one concern each, every one adding methods to the one [`Backend`]:
//!
//! - `state`: the shared state and its guards, below every handler (they import it, it
//!   imports none of them);
//! - `server`: the capabilities and the protocol dispatch (one call per handler into the
//!   module of its concern);
//! - `store`: the document store: open buffers, their versions and names, snapshots
//!   for analysis off its lock;
//! - `diagnostics`: debounced checks through each buffer's session, the project index
//!   kept current, and publishing;
//! - `requests`: hover, completion, signature help, symbols, definition, code actions,
//!   handed to `features` and `actions`;
//! - `workspace`: configuration (settings, `grounded.toml`, the corpus), file watching,
//!   reloads;
//! - `dry_run`: the dry run's scheduling on save and after idle;
//! - `agent`: room for the agent's command, progress and applyEdit glue;
//! - `document` (a buffer and its incremental reparse), `config` (settings and their
//!   precedence), `typing` (the editor's reading of certain receivers), `features`,
//!   `actions` (the analysis behind the requests), `navigation` (references, rename and
//!   workspace symbols across the project's files and the corpus), `scan` (the brackets
//!   open at the cursor, read from the text), `transport` (stdio framing that survives
//!   malformed input).

#![warn(missing_docs)]

pub mod actions;
mod agent;
pub mod config;
mod diagnostics;
pub mod document;
mod dry_run;
pub mod features;
pub mod navigation;
mod requests;
pub mod scan;
pub mod server;
mod state;
mod store;
pub mod transport;
pub mod typing;
mod workspace;

use std::path::PathBuf;

use tower_lsp_server::{LspService, Server};

pub use server::Backend;

/// Sends logs to `GROUNDED_LOG_FILE` if set, else stderr; the level from `GROUNDED_LOG`
/// (default `info`). Never stdout: it carries the protocol.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GROUNDED_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false);
    let file = std::env::var_os("GROUNDED_LOG_FILE").and_then(|p| {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .ok()
    });
    let _ = match file {
        Some(f) => builder.with_writer(std::sync::Mutex::new(f)).try_init(),
        None => builder.with_writer(std::io::stderr).try_init(),
    };
    std::panic::set_hook(Box::new(|info| {
        tracing::error!("panic: {info}");
    }));
}

/// Caps glibc's malloc arenas before any thread starts. glibc gives each thread that
/// allocates concurrently an arena of its own (up to 8 per core) and rarely returns their
/// freed pages: opening and closing a 10,000-line file five times took the server from
/// 24 to 97 MB, each analysis on a different blocking thread leaving its arena full of
/// holes. Two arenas keep the contention of two concurrent analyses low and the memory
/// where it was (`benches/memory.rs` measures 1,000 open/close cycles).
fn cap_malloc_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called once, before the runtime
    // starts any thread.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

/// Returns the allocator's free pages to the system (glibc's `malloc_trim`), after a
/// buffer is closed: RSS that only grows makes a long session look like a leak.
pub(crate) fn trim_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; any thread may call it.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Serves the protocol on stdin/stdout until the client exits. `docs` is `--docs`.
/// Returns the exit status: 0 after `shutdown`, 1 when the session ended without it.
pub fn serve_stdio(docs: Option<PathBuf>) -> std::io::Result<i32> {
    cap_malloc_arenas();
    init_logging();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let ending = std::sync::Arc::new(transport::Ending::default());
    let seen = ending.clone();
    rt.block_on(async move {
        let ending = seen;
        let (service, socket) = LspService::build(|client| Backend::new(client, docs))
            .custom_method("grounded/debugPanic", Backend::debug_panic)
            // The library has no handler for the progress bar's cancel button yet.
            .custom_method(
                "window/workDoneProgress/cancel",
                Backend::work_done_progress_cancel,
            )
            .finish();
        // The library talks to in-memory pipes; `transport` stands between them and
        // stdio so malformed input is answered without ending the session.
        let (server_in_w, server_in_r) = tokio::io::duplex(1 << 16);
        let (server_out_w, server_out_r) = tokio::io::duplex(1 << 16);
        let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
        let writer = tokio::spawn(transport::write_frames(tokio::io::stdout(), rx));
        let framer = tokio::spawn(transport::frames_of(server_out_r, tx.clone()));
        let input = tokio::spawn(transport::guard_input(
            tokio::io::stdin(),
            server_in_w,
            tx,
            ending.clone(),
        ));
        Server::new(server_in_r, server_out_w, socket)
            .serve(service)
            .await;
        let _ = framer.await;
        input.abort();
        let _ = input.await;
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), writer).await;
    });
    // Blocking analysis tasks may still run; the client is gone, so do not wait for them.
    rt.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(ending.status())
}

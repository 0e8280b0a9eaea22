//! The language server over stdio, as an editor drives it.
//!
//! One test binary per area (each links the whole crate graph once), one module per
//! concern; see ARCHITECTURE.md, *Tests*.

#[path = "../common/mod.rs"]
mod common;

mod lsp_agent;
mod lsp_agent_finish;
mod lsp_agent_seen;
mod lsp_diagnostics;
mod lsp_differential;
mod lsp_dry_run_merge;
mod lsp_editor;
mod lsp_features;
mod lsp_fix_all;
mod lsp_fixes;
mod lsp_ignore;
mod lsp_modules;
mod lsp_reliability;
mod lsp_robust;
mod lsp_transport;
mod lsp_unions;
mod lsp_workspace;

//! Real editors (Neovim, Emacs) driving the real server.
//!
//! One test binary per area (each links the whole crate graph once), one module per
//! concern; see ARCHITECTURE.md, *Tests*.

#[path = "../common/mod.rs"]
mod common;

mod editor_emacs_agent;
mod editor_neovim;
mod editor_neovim_agent;

//! The coding agent, headless (`grounded agent`) against scripted and real model servers.
//!
//! One test binary per area (each links the whole crate graph once), one module per
//! concern; see ARCHITECTURE.md, *Tests*.

#[path = "../common/mod.rs"]
mod common;

mod agent_adversarial;
mod agent_asked;
mod agent_cli;
mod agent_finish;
mod agent_guard;
mod agent_ignore;
mod agent_real_model;
mod agent_seen;
mod agent_wait;

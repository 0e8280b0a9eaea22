//! `agent`: the coding agent — a tool loop over an OpenAI-compatible model, grounded
//! in the docs and in the file system.
//!
//! The checker, footprints and dry run are its instruments: tools answer from the
//! corpus and the project; every write is confined to the root, made against a version
//! the model read, refused when it adds checker findings, measured before and after,
//! and undone byte for byte when it makes the project worse. What the turn changed is
//! asked of the file system, never of the model.
//!
//! Seams for the guardrails (issue 13): [`dispatch::Guard`] around every tool call,
//! [`turn::Gate`] at the finish step, the figures in [`config::AgentConfig`], the fixed
//! texts in [`wording`]. The guardrails themselves: [`guard`] (the dispatcher's policy),
//! [`cache`], [`gates`], [`audit`], [`queries`], [`plan`], wired by [`guardrails`].
//!
//! ## Layer
//!
//! May depend on: `grounded-es`, `grounded-docs`, `grounded-project`, `grounded-js`,
//! `grounded-footprint`, `grounded-check`, `grounded-dryrun` (its `Cargo.toml`, which
//! the compiler holds; `tests/cli/layers.rs` keeps this line equal to it).
//!
//! Must never know: the protocol (the server drives it through `Workspace` and
//! `Progress`), or anything the model says happened: it asks the file system.

#![warn(missing_docs)]

pub mod audit;
pub mod cache;
pub mod config;
pub mod dispatch;
pub mod edits;
pub mod facts;
pub mod gates;
pub mod guard;
pub mod guardrails;
pub mod honest;
pub mod intent;
mod landing;
pub mod measure;
pub mod model;
pub mod plan;
pub mod prompt;
pub mod queries;
pub mod tools;
pub mod transcript;
pub mod turn;
pub mod wording;

pub use config::{AgentConfig, Endpoint, UserModel};
pub use dispatch::{Dispatcher, Guard, Served, ToolResult};
pub use edits::{FsWorkspace, Workspace};
pub use model::{ChatModel, HttpModel, Reply, ToolCall};
pub use tools::{Progress, Registry, ToolCtx};
pub use transcript::Transcript;
pub use turn::{run_turn, Gate, Outcome, Status, Turn, TurnFacts, TurnRequest};

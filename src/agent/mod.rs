//! `agent`: the coding agent's tools and guardrails. It asks the file system, not the
//! model, what happened.

pub mod audit;
pub mod cache;
pub mod config;
pub mod gates;
pub mod guard;
pub mod plan;
pub mod queries;
pub mod wording;

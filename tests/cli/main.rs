//! The command line as a newcomer meets it, the README's commands, the fuzz loops, the module graph, and one version across the ways it is installed.
//!
//! One test binary per area (each links the whole crate graph once), one module per
//! concern; see ARCHITECTURE.md, *Tests*.

#[path = "../common/mod.rs"]
mod common;

mod cli_newcomer;
mod fuzz;
mod install;
mod layers;
mod module_graph;
mod readme_commands;

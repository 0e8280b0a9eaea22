//! The checker: every family through the real binary, its sessions, its bounds.
//!
//! One test binary per area (each links the whole crate graph once), one module per
//! concern; see ARCHITECTURE.md, *Tests*.

#[path = "../common/mod.rs"]
mod common;

mod bom;
mod check_baseline;
mod check_bounded;
mod check_cli;
mod check_demo;
mod check_dry_run;
mod check_families;
mod check_fix;
mod check_ignore;
mod check_modern;
mod check_parallel;
mod check_real_scripts;
mod check_robust;
mod check_rules;
mod check_second_corpus;
mod check_session;
mod check_variables;
mod check_week;
mod global_members;
mod module_classes;
mod modules;

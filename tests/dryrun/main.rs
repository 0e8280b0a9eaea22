//! The dry run and the construct footprints (`dry-run`, `constructs`, `find`).
//!
//! One test binary per area (each links the whole crate graph once), one module per
//! concern; see ARCHITECTURE.md, *Tests*.

#[path = "../common/mod.rs"]
mod common;

mod dryrun_api;
mod dryrun_blame;
mod dryrun_cli;
mod dryrun_modules;
mod footprint_cli;
mod footprint_constructs;
mod footprint_delete;
mod footprint_find;

//! grounded: makes an engine's documentation decidable and puts it where the code is
//! written. See `ARCHITECTURE.md` for the layers and their arrows.

#![warn(missing_docs)]

pub mod agent;
pub mod check;
pub mod cli;
pub mod docs;
pub mod dryrun;
pub mod es;
pub mod footprint;
pub mod import;
pub mod js;
pub mod lsp;
pub mod project;
pub mod textfile;

//! grounded: makes an engine's documentation decidable and puts it where the code is
//! written. See `ARCHITECTURE.md` for the layers and their arrows.
//!
//! This crate is the command line (`cli`) over the workspace's layers, each its own
//! crate; it re-exports them under their old module names so that `grounded::check::…`
//! names the same item it always did.

#![warn(missing_docs)]

pub use grounded_agent as agent;
pub use grounded_check as check;
pub mod cli;
pub use grounded_docs as docs;
pub use grounded_dryrun as dryrun;
pub use grounded_es as es;
pub use grounded_footprint as footprint;
pub use grounded_import as import;
pub use grounded_js as js;
pub use grounded_lsp as lsp;
pub use grounded_mcp as mcp;
pub use grounded_project as project;
pub use grounded_textfile as textfile;

//! grounded: makes an engine's documentation decidable and puts it where the code is
//! written. See `ARCHITECTURE.md` for the layers and their arrows.

#![warn(missing_docs)]

pub mod docs;
pub mod es;
pub mod project;
pub mod cli;

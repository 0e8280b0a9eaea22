//! The corpus: loading, non-ASCII text, the guide's walkthrough, `import dts`.
//!
//! One test binary per area (each links the whole crate graph once), one module per
//! concern; see ARCHITECTURE.md, *Tests*.

#[path = "../common/mod.rs"]
mod common;

mod corpus_demo;
mod corpus_load;
mod corpus_nonascii;
mod docs_guide;
mod import_dts;
mod import_modules;
mod import_values;

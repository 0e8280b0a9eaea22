//! `lsp`: (to be built).

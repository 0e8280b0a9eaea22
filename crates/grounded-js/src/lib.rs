//! `js`: parsing scripts with tree-sitter, scopes, and receiver typing.
//!
//! - [`script_text`]: what the parser sees (directive lines and Markdown prose blanked,
//!   offsets kept).
//! - [`Analysis`]: scopes, bindings and the certain type of an expression — what the
//!   checker judges and what the language server shows on hover and completion; made
//!   [`Analysis::with_refs`], also what every identifier refers to ([`Ref`]), which the
//!   footprints, references/rename and the dry run read: the one scope analysis.
//! - [`query`]: the patterns of `grammars/javascript/*.scm`, compiled once.
//! - [`Whole`]: a large buffer's statements cut from its last tree and parsed alone
//!   ([`parse_range`]), and where its program scope declares a name, asked of them.
//! - [`Preorder`]: the one way the tree is walked (no probing for absent siblings).
//!
//! ## Layer
//!
//! May depend on: `grounded-es`, `grounded-textfile`, `grounded-docs` (its
//! `Cargo.toml`, which the compiler holds; `tests/cli/layers.rs` keeps this line equal
//! to it).
//!
//! Must never know: findings and their output formats, or the protocol: it answers what
//! a name refers to and what type a receiver certainly has, nothing more; no other
//! crate decides either.

#![warn(missing_docs)]

mod analysis;
mod cut;
mod globals;
mod lines;
mod project_names;
pub mod query;
mod source;
mod walk;

pub use analysis::{
    builtin_proto, is_function_kind, literal_text, member_type, type_certain, Analysis, Binding,
    BindingId, BindingKind, Certain, ConstructName, ExportForm, Exports, IdHash, IdHasher,
    ImportPart, ModuleRequest, NameHash, NameHasher, Part, PathNode, Ref, Scope, ScopeFacts,
    ScopeId, ScopeKind, Seed, SeedType, Union, WalkPath,
};
pub use cut::{parse_range, Whole};
pub use globals::{global_value, global_value_interface};
pub use lines::{offset_utf16, splice_starts, LineIndex};
pub use project_names::ProjectNames;
pub use source::{directives, is_markdown, script_text, Directive};
pub use walk::Preorder;

/// A tree-sitter parser for JavaScript.
pub fn parser() -> tree_sitter::Parser {
    let mut p = tree_sitter::Parser::new();
    p.set_language(&tree_sitter_javascript::LANGUAGE.into())
        .expect("the bundled JavaScript grammar matches the tree-sitter version");
    p
}

/// Parses a script (no old tree).
pub fn parse(text: &str) -> tree_sitter::Tree {
    parser()
        .parse(text, None)
        .expect("a parser with a language and no timeout always returns a tree")
}

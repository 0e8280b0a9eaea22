//! `docs`: the corpus — chunks to member index, globals, constructors, constructs
//! (`model`) — and, above it, the indexes built over it: full-text lookup (`search`) and
//! the topic phrasebook (`topic`), held with the corpus by [`Library`].
//!
//! ## Layer
//!
//! May depend on: `grounded-es`, `grounded-textfile` (its `Cargo.toml`, which the
//! compiler holds; `tests/cli/layers.rs` keeps this line equal to it).
//!
//! Must never know: scripts, findings, the server or the agent; and any particular
//! engine: everything comes from the corpus, and a malformed line is a load diagnostic,
//! never a failed load.

#![warn(missing_docs)]

pub mod bundled;
pub mod cache;
pub mod chunk;
pub mod diag;
pub mod facts;
pub mod family;
pub mod globals;
pub mod library;
pub mod model;
pub mod names;
pub mod search;
pub mod signature;
pub mod topic;

pub use chunk::{Chunk, Chunks, SourceFile};
pub use diag::LoadDiagnostic;
pub use library::Library;
pub use model::{
    ChunkId, ChunkKind, Construct, Constructor, Corpus, CorpusError, Engine, Interface, Member,
    MemberKind, SkippedPair,
};
pub use signature::{Param, Signature, Type};

impl Corpus {
    /// Builds a corpus from `(path, text)` pairs held in memory; a pair whose path is
    /// `facts.toml` is the overlay. Tests and embedders use it.
    pub fn from_texts(files: &[(&str, &str)]) -> Result<Corpus, CorpusError> {
        let mut sources = Vec::new();
        let mut facts = None;
        for (p, t) in files {
            let f = SourceFile {
                path: p.to_string(),
                text: t.to_string(),
            };
            if *p == "facts.toml" {
                facts = Some(f);
            } else {
                sources.push(f);
            }
        }
        Corpus::from_sources(sources, facts, Vec::new(), "<memory>")
    }
}

//! `docs`: the corpus — chunks to member index, globals, constructors, constructs,
//! full-text lookup and the topic phrasebook.
//!
//! Invariant: this layer depends on nothing else of the crate but [`crate::es`] (the
//! language's built-in names). It knows no engine: everything comes from the corpus.

pub mod bundled;
pub mod cache;
pub mod chunk;
pub mod diag;
pub mod facts;
pub mod model;
pub mod search;
pub mod signature;
pub mod topic;

pub use chunk::{Chunk, SourceFile};
pub use diag::LoadDiagnostic;
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

    /// Full-text search: the chunks that contain every word of `term`, best first.
    pub fn lookup(&self, term: &str, limit: usize) -> Vec<search::Hit> {
        self.search_index().lookup(term, limit)
    }

    /// The phrasebook's answer to a goal in the user's words.
    pub fn resolve_topic(&self, goal: &str, limit: usize) -> topic::TopicAnswer {
        self.phrasebook().resolve(goal, limit)
    }
}

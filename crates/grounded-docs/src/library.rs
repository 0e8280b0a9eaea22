//! The corpus together with the indexes built over it: the full-text index and the
//! phrasebook.
//!
//! Why a type above the model: when `Corpus` held the indexes itself, `model` imported
//! `search` and `topic`, which import `model` — a cycle that made every new index an
//! edit to the corpus model. Now the model knows nothing of what is built over it, and
//! each index is built here on first use (a `check` run never pays for tantivy).

use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use super::model::Corpus;
use super::search::{Hit, SearchIndex};
use super::topic::{Phrasebook, TopicAnswer};

/// A corpus and its lazily built full-text index and phrasebook. It dereferences to the
/// [`Corpus`], so everything the model answers is answered here too.
pub struct Library {
    corpus: Arc<Corpus>,
    search: OnceLock<SearchIndex>,
    topics: OnceLock<Phrasebook>,
}

impl Library {
    /// Wraps a shared corpus; nothing is indexed until first asked.
    pub fn new(corpus: Arc<Corpus>) -> Library {
        Library {
            corpus,
            search: OnceLock::new(),
            topics: OnceLock::new(),
        }
    }

    /// The corpus, shareable with a checker session.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    /// The full-text index, built on first use.
    pub fn search_index(&self) -> &SearchIndex {
        self.search
            .get_or_init(|| SearchIndex::build(&self.corpus.chunks))
    }

    /// The phrasebook, mined on first use.
    pub fn phrasebook(&self) -> &Phrasebook {
        self.topics.get_or_init(|| Phrasebook::mine(&self.corpus))
    }

    /// Full-text search: the chunks that contain every word of `term`, best first.
    pub fn lookup(&self, term: &str, limit: usize) -> Vec<Hit> {
        self.search_index().lookup(term, limit)
    }

    /// The phrasebook's answer to a goal in the user's words.
    pub fn resolve_topic(&self, goal: &str, limit: usize) -> TopicAnswer {
        self.phrasebook().resolve(goal, limit)
    }
}

impl From<Corpus> for Library {
    fn from(corpus: Corpus) -> Library {
        Library::new(Arc::new(corpus))
    }
}

impl From<Arc<Corpus>> for Library {
    fn from(corpus: Arc<Corpus>) -> Library {
        Library::new(corpus)
    }
}

impl Deref for Library {
    type Target = Corpus;

    fn deref(&self) -> &Corpus {
        &self.corpus
    }
}

impl std::fmt::Debug for Library {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Library")
            .field("corpus", &self.corpus)
            .field("search_built", &self.search.get().is_some())
            .field("phrasebook_built", &self.topics.get().is_some())
            .finish()
    }
}

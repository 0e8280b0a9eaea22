//! The project, corpus and index one server answers from, loaded once (every command
//! finds them the same way: `grounded.toml` above the start, `--docs` over it, the
//! bundled demo corpus otherwise, said on stderr).
//!
//! Why the project index is re-scanned when a script changed: the agent writes files
//! with its own tools between calls, and a `check_code` judged against the project as
//! it was at start-up accused `function` findings of names a file written a minute ago
//! declares. A wrong accusation is worse than a miss, so every check compares a stamp of
//! the scripts (path, size, modification time) and scans again when it moved.
//!
//! May import `cache` (the session's lookup cache lives here).

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use grounded_check::baseline::Baseline;
use grounded_check::{ProjectIndex, Rules};
use grounded_docs::{Corpus, Library};
use grounded_project::Project;

use super::cache::Cache;
use super::Options;

/// One server's project and what was built over it.
pub struct Session {
    /// The project (root canonical).
    pub project: Project,
    /// The corpus, shared with the library.
    pub corpus: Arc<Corpus>,
    /// Full-text lookup and the phrasebook (built on first use).
    pub library: Library,
    /// `[check]` of `grounded.toml` (every code when it has none).
    pub rules: Rules,
    /// `[check] baseline`, when it names one that reads.
    pub baseline: Option<Baseline>,
    /// What loading said (a corpus caveat, `grounded.toml` warnings, a broken baseline),
    /// repeated in `check_code`'s answer so the agent knows what it is judged by.
    pub notes: Vec<String>,
    /// The project's declarations, with the stamp of the scripts they were read from.
    index: Mutex<(u64, ProjectIndex)>,
    /// Identical lookups of this session.
    pub cache: Cache,
    /// How the server was started.
    pub options: Options,
}

impl Session {
    /// Loads the project around `start` (a folder) and its corpus.
    pub fn load(start: &Path, options: Options) -> Result<Session, String> {
        let start =
            std::fs::canonicalize(start).map_err(|e| format!("{}: {e}", start.display()))?;
        let mut project = Project::discover(&start, &start)?;
        if let Ok(root) = std::fs::canonicalize(&project.root) {
            project.root = root;
        }
        let mut notes = project.warnings.clone();
        for w in &notes {
            eprintln!("grounded: warning: {w}");
        }
        let corpus = project.load_corpus(options.docs.as_deref(), true)?;
        if let Some(c) = corpus.load_caveat() {
            eprintln!("grounded: warning: {c}");
            notes.push(c.to_string());
        }
        let corpus = Arc::new(corpus);
        let rules = Rules::new(&project.config.check, &project.root, None, None)?;
        let baseline = match &rules.baseline {
            Some(file) => match std::fs::read_to_string(file)
                .map_err(|e| e.to_string())
                .and_then(|t| Baseline::parse(&t))
            {
                Ok(b) => Some(b),
                Err(e) => {
                    let note = format!("baseline {}: {e} (not applied)", file.display());
                    eprintln!("grounded: {note}");
                    notes.push(note);
                    None
                }
            },
            None => None,
        };
        let library = Library::new(corpus.clone());
        let mut session = Session {
            project,
            library,
            rules,
            baseline,
            notes,
            index: Mutex::new((0, ProjectIndex::default())),
            cache: Cache::default(),
            corpus,
            options,
        };
        session.index = Mutex::new(session.scan());
        Ok(session)
    }

    /// The project root (canonical).
    pub fn root(&self) -> &Path {
        &self.project.root
    }

    /// Scans the project's scripts: their stamp and their declarations.
    fn scan(&self) -> (u64, ProjectIndex) {
        let mut index = ProjectIndex::scan(&self.corpus, self.root());
        index.set_globals(&self.corpus, &self.project.config.globals);
        (self.stamp(), index)
    }

    /// A hash of every script's path, size and modification time.
    fn stamp(&self) -> u64 {
        let mut h = DefaultHasher::new();
        let walk = grounded_check::project::script_files(&self.corpus, self.root(), false);
        for f in walk.files {
            f.hash(&mut h);
            if let Ok(m) = std::fs::metadata(&f) {
                m.len().hash(&mut h);
                m.modified().ok().hash(&mut h);
            }
        }
        h.finish()
    }

    /// Runs `f` with the project index, scanned again first when a script changed on
    /// disk since the last scan.
    pub fn with_index<T>(&self, f: impl FnOnce(&mut ProjectIndex) -> T) -> T {
        let stamp = self.stamp();
        let mut guard = self.index.lock().unwrap_or_else(|p| p.into_inner());
        if guard.0 != stamp {
            *guard = self.scan();
        }
        f(&mut guard.1)
    }

    /// The folder `check_files` and `dry_run` run the binary in, and the `--docs` they
    /// pass (absolute: the run's folder is the root, not the server's).
    pub fn docs_arg(&self) -> Option<PathBuf> {
        self.options
            .docs
            .as_ref()
            .map(|d| std::fs::canonicalize(d).unwrap_or_else(|_| d.clone()))
    }
}

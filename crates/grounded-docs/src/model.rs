//! The corpus model: interfaces, members, globals, constructors, constructs, derived
//! from chunks by the rules of `corpus-format.md` and nothing else.
//!
//! Invariant: nothing here names a particular engine. Every fact comes from a chunk or
//! from the overlay; a corpus the code has never seen must load the same way.
//!
//! Rooms: the types and the entry points are here; `load` reads chunks into them,
//! `derive` adds what follows from them (constructs) and the overlay's facts, `queries`
//! answers the checker and the server. The children read the private fields here and
//! never one another's private items.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::chunk::{chunks_of, read_corpus_path, Chunk, Chunks, SourceFile};
use super::diag::LoadDiagnostic;
use super::facts::{line_of, Facts};
use super::signature::{self, is_identifier, Signature, Type};

mod derive;
mod load;
mod queries;

/// Index of a chunk in [`Corpus::chunks`].
pub type ChunkId = usize;

/// What a chunk is, by its title.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ChunkKind {
    /// Title is an identifier: an interface.
    Interface,
    /// Title is `Interface-member`.
    Member,
    /// Title is `Engine`.
    Engine,
    /// Anything else: guides, how-tos.
    Prose,
}

/// Whether a member is a method or a property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MemberKind {
    /// Called: `name(...)`.
    Method,
    /// Read or written: `name: type`.
    Property,
    /// Documented without a signature line.
    Unknown,
}

/// A documented member of an interface.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Member {
    /// The member's name.
    pub name: String,
    /// The interface that declares it.
    pub interface: String,
    /// Method, property or unknown (decided by the first overload).
    pub kind: MemberKind,
    /// Every signature line of the chunk, in order.
    pub overloads: Vec<Signature>,
    /// The member's chunk, `None` for `[extra]` members.
    pub chunk: Option<ChunkId>,
}

impl Member {
    /// The first overload, if any.
    pub fn signature(&self) -> Option<&Signature> {
        self.overloads.first()
    }

    /// The type of the value this member gives: a method's return type or a property's
    /// type; `Any` when undocumented or when overloads disagree.
    pub fn value_type(&self) -> Type {
        let mut it = self.overloads.iter().map(|s| &s.ty);
        match it.next() {
            Some(first) if it.all(|t| t == first) => first.clone(),
            _ => Type::Any,
        }
    }
}

/// A documented interface.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Interface {
    /// The interface's name.
    pub name: String,
    /// `Parent interface:` names (after cycle breaking).
    pub parents: Vec<String>,
    /// Its own members (not inherited ones).
    pub members: BTreeMap<String, Member>,
    /// Its chunk, if it has one (a member chunk may name an interface with none).
    pub chunk: Option<ChunkId>,
    /// `Index: [key: string]: T`: any string key is a member (HTTP headers, E4X child
    /// elements), so no key or member of it is ever reported.
    pub string_index: Option<Type>,
    /// `Index: [index: number]: T`: `x[i]` is a `T` (collections).
    pub number_index: Option<Type>,
    /// `Extensible: yes`: scripts add their own properties (dialog windows).
    pub extensible: bool,
    /// `Loose member names: yes`: the engine takes each member in any case, with or
    /// without underscores (`pageOrigin` for `PAGE_ORIGIN`); see `docs::family`.
    pub loose_names: bool,
    /// `Module: "k6/http"`: this interface is what that module exports (each member a
    /// named export).
    pub module: Option<String>,
    /// `Default export: Http`: the interface a default import of the module gives;
    /// without it, a default import gives the module object itself.
    pub default_export: Option<String>,
}

/// `Constructor: new X(...)` in an interface chunk.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Constructor {
    /// The name scripts write after `new`.
    pub name: String,
    /// The interface the object gets.
    pub interface: String,
    /// Parameters, when the line gave them.
    pub params: Vec<signature::Param>,
    /// The line as written.
    pub text: String,
    /// Another interface's chunk writes `Constructor: new X()` with the same name (two
    /// modules' classes both named `Document`, as an import of UXP's declarations
    /// gives): `interface` is the first one read, so which object `new X()` makes is
    /// not certain from the name alone where the name is reached through a binding.
    pub shared: bool,
}

/// A construct: a Start/End pair whose Start takes a documented interface.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Construct {
    /// `table` for `tableStart`.
    pub id: String,
    /// The interface that declares Start (may be a parent of the global's interface).
    pub interface: String,
    /// A global whose interface has the pair.
    pub global: String,
    /// `tableStart`
    pub start: String,
    /// `tableEnd`
    pub end: String,
    /// The interface of Start's first parameter.
    pub object: String,
    /// Goal words from the overlay.
    pub aliases: Vec<String>,
    /// Why nothing more needs closing, from the overlay.
    pub no_close: Option<String>,
    /// `(interface, member)` pairs that do not exist, from the overlay.
    pub absent: Vec<(String, String)>,
}

/// A Start/End pair that is not a construct, and why.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SkippedPair {
    /// The interface.
    pub interface: String,
    /// Start member.
    pub start: String,
    /// End member.
    pub end: String,
    /// Why it was skipped.
    pub reason: String,
}

impl SkippedPair {
    /// The load diagnostic that says the pair was skipped.
    pub fn note(&self) -> String {
        format!(
            "`{}`/`{}` is not a construct: {}; skipped",
            self.start, self.end, self.reason
        )
    }
}

/// The engine chunk's facts.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Engine {
    /// ECMAScript edition as a year: 3 → 1999, 5 → 2009, 6 → 2015, 2017 → 2017.
    pub es_year: u16,
    /// The edition as the docs wrote it (`3`, `5`, `2015`).
    pub es_label: String,
    /// File extensions of scripts, with the dot.
    pub script_extensions: Vec<String>,
    /// Directive prefixes such as `#include`.
    pub directives: Vec<String>,
    /// `Also allows:` syntax rules the engine accepts beyond its level, by the stable
    /// names of `docs/syntax-rules.md` (`trailing-commas`, `e4x`).
    pub also_allows: Vec<String>,
    /// `Also has:` language built-ins beyond its level, written as the engine check
    /// names them (`JSON`, `Object.keys`, `Array.prototype.indexOf`).
    pub also_has: Vec<String>,
    /// `Modules: esm commonjs` as written (lowercased); `None` without the line, when
    /// the level decides ([`Engine::has_esm`]).
    pub modules: Option<Vec<String>>,
    /// `Remote modules: yes`: a URL specifier is loaded from elsewhere, never judged.
    pub remote_modules: bool,
    /// `Entry exports: setup default teardown`: what the engine calls of an entry
    /// script after its top level, in order.
    pub entry_exports: Vec<String>,
    /// `Scripts run alone: yes`: each script sees its own top-level names and what it
    /// loads, not every script of the project.
    pub scripts_alone: bool,
}

impl Engine {
    /// Whether the engine accepts the syntax rule `name` whatever its level.
    pub fn allows(&self, name: &str) -> bool {
        self.also_allows.iter().any(|a| a == name)
    }

    /// Whether scripts load modules with `import`/`export`: the `Modules:` line, or
    /// without it ECMAScript 2015 and later (the edition that brought them).
    pub fn has_esm(&self) -> bool {
        match &self.modules {
            Some(forms) => forms.iter().any(|f| f == "esm"),
            None => self.es_year >= 2015,
        }
    }

    /// Whether scripts load modules with `require`/`module.exports`: only when the
    /// `Modules:` line says `commonjs` (no edition of the language has it).
    pub fn has_commonjs(&self) -> bool {
        self.modules
            .as_ref()
            .is_some_and(|forms| forms.iter().any(|f| f == "commonjs"))
    }

    /// Whether the engine loads modules in any form.
    pub fn has_modules(&self) -> bool {
        self.has_esm() || self.has_commonjs()
    }
}

impl Default for Engine {
    fn default() -> Self {
        Engine {
            es_year: 1999,
            es_label: "3".into(),
            script_extensions: vec![".js".into()],
            directives: Vec::new(),
            also_allows: Vec::new(),
            also_has: Vec::new(),
            modules: None,
            remote_modules: false,
            entry_exports: Vec::new(),
            scripts_alone: false,
        }
    }
}

/// Converts an `ECMAScript:` value to a year.
pub fn es_year(v: u32) -> u16 {
    match v {
        0..=3 => 1999,
        4 | 5 => 2009,
        6..=99 => (2009 + v) as u16,
        y => y.min(9999) as u16,
    }
}

/// The documentation of one engine, loaded and derived. Serializable for the load
/// cache ([`super::cache`]); the search index and phrasebook (in `Library`) are not
/// part of it.
#[derive(Serialize, Deserialize)]
pub struct Corpus {
    /// Every chunk, in load order. In the cache too: reading them back in its binary
    /// form costs less than chunking the text again, and from there they are decoded
    /// on first use (see [`Chunks`]).
    pub chunks: Chunks,
    /// Kind of each chunk, parallel to `chunks`.
    pub kinds: Vec<ChunkKind>,
    /// Interfaces by name.
    pub interfaces: BTreeMap<String, Interface>,
    /// Global variable → interface.
    pub globals: BTreeMap<String, String>,
    /// Interfaces whose members are global names (`Global members: yes`), in order
    /// (see `docs::globals`).
    pub global_members: Vec<String>,
    /// Constructors by the name scripts write after `new`.
    pub constructors: BTreeMap<String, Constructor>,
    /// Constructs by id.
    pub constructs: BTreeMap<String, Construct>,
    /// Start/End pairs that are not constructs.
    pub skipped_pairs: Vec<SkippedPair>,
    /// The engine chunk.
    pub engine: Engine,
    /// Module name → the interface that documents its exports (`Module:` lines).
    pub modules: BTreeMap<String, String>,
    /// Globals declared by `[extra]` (no interface known).
    pub extra_globals: BTreeSet<String>,
    /// Global functions declared by `[extra]`.
    pub extra_functions: BTreeSet<String>,
    /// `(interface, member)` → reason, from `absent` facts.
    #[serde(with = "pair_keys")]
    pub absent: BTreeMap<(String, String), String>,
    /// Everything the loader reported.
    pub diagnostics: Vec<LoadDiagnostic>,
    /// Where the corpus came from, for messages.
    pub origin: String,
    /// Each interface's ancestors, nearest first, itself excluded, cycles broken.
    pub(super) ancestors: BTreeMap<String, Vec<String>>,
    /// The inverse: each interface's descendants (every interface documented as
    /// extending it, transitively), in name order; computed once at load
    /// (`docs::family`).
    pub(super) descendants: BTreeMap<String, Vec<String>>,
}

/// A map keyed by pairs, written as a list of entries: JSON keys are strings only.
mod pair_keys {
    use std::collections::BTreeMap;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    type Map = BTreeMap<(String, String), String>;

    pub fn serialize<S: Serializer>(m: &Map, s: S) -> Result<S::Ok, S::Error> {
        m.iter().collect::<Vec<_>>().serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Map, D::Error> {
        let v: Vec<((String, String), String)> = Vec::deserialize(d)?;
        Ok(v.into_iter().collect())
    }
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus")
            .field("origin", &self.origin)
            .field("chunks", &self.chunks.count())
            .field("interfaces", &self.interfaces.len())
            .finish()
    }
}

/// Why a corpus could not be loaded at all.
#[derive(Debug)]
pub enum CorpusError {
    /// The path does not exist or cannot be read.
    NotFound(String),
    /// The corpus has no chunk.
    Empty(String),
}

impl std::fmt::Display for CorpusError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CorpusError::NotFound(m) => write!(f, "corpus not found: {m}"),
            CorpusError::Empty(p) => write!(
                f,
                "corpus {p} has no chunk (no .md heading, no JSONL record)"
            ),
        }
    }
}

impl std::error::Error for CorpusError {}

/// The `Global` interface: its members are global functions and variables.
pub const GLOBAL_INTERFACE: &str = "Global";

impl Corpus {
    /// Loads a corpus from a folder or a single file.
    pub fn load(path: &Path) -> Result<Corpus, CorpusError> {
        if !path.exists() {
            return Err(CorpusError::NotFound(format!(
                "{} does not exist",
                path.display()
            )));
        }
        let mut diags = Vec::new();
        let (files, facts) = read_corpus_path(path, &mut diags)
            .map_err(|e| CorpusError::NotFound(format!("{}: {e}", path.display())))?;
        Corpus::from_sources(files, facts, diags, &path.display().to_string())
    }

    /// A corpus that documents nothing: what the script analysis types against when a
    /// question needs no docs (a variable's footprint, `find`'s footprints): no global,
    /// no construct, no member, so nothing is certain and no call is a construct's.
    pub fn empty() -> Corpus {
        Corpus {
            chunks: Chunks::new(Vec::new()),
            kinds: Vec::new(),
            interfaces: BTreeMap::new(),
            globals: BTreeMap::new(),
            global_members: Vec::new(),
            constructors: BTreeMap::new(),
            constructs: BTreeMap::new(),
            skipped_pairs: Vec::new(),
            engine: Engine::default(),
            modules: BTreeMap::new(),
            extra_globals: BTreeSet::new(),
            extra_functions: BTreeSet::new(),
            absent: BTreeMap::new(),
            diagnostics: Vec::new(),
            origin: String::new(),
            ancestors: BTreeMap::new(),
            descendants: BTreeMap::new(),
        }
    }

    /// Builds a corpus from files already in memory (the bundled corpus, tests).
    /// `facts` is the overlay file, if any.
    pub fn from_sources(
        files: Vec<SourceFile>,
        facts: Option<SourceFile>,
        diags: Vec<LoadDiagnostic>,
        origin: &str,
    ) -> Result<Corpus, CorpusError> {
        Corpus::derive(&files, facts.as_ref(), diags, origin)
    }

    /// [`Corpus::from_sources`] on borrowed files: the cache keys its file by the same
    /// bytes after deriving, and copying a whole corpus to keep them cost a first run.
    pub(crate) fn derive(
        files: &[SourceFile],
        facts: Option<&SourceFile>,
        mut diags: Vec<LoadDiagnostic>,
        origin: &str,
    ) -> Result<Corpus, CorpusError> {
        let chunks = chunks_of(files, &mut diags);
        if chunks.is_empty() {
            return Err(CorpusError::Empty(origin.to_string()));
        }
        let mut c = Corpus {
            kinds: chunks.iter().map(|ch| kind_of(&ch.title)).collect(),
            chunks: Chunks::new(chunks),
            diagnostics: diags,
            origin: origin.to_string(),
            ..Corpus::empty()
        };
        c.read_chunks();
        c.link_modules();
        c.resolve_types();
        c.link_ancestors();
        c.derive_constructs();
        if let Some(f) = facts {
            c.apply_facts(f);
        }
        Ok(c)
    }
}

/// Splits `Iface-member` into its parts when the title is a member title.
pub fn split_member_title(title: &str) -> Option<(&str, &str)> {
    let (a, b) = title.split_once('-')?;
    (is_identifier(a) && is_identifier(b)).then_some((a, b))
}

/// The kind of a chunk by its title.
pub fn kind_of(title: &str) -> ChunkKind {
    if title == "Engine" {
        ChunkKind::Engine
    } else if is_identifier(title) {
        ChunkKind::Interface
    } else if split_member_title(title).is_some() {
        ChunkKind::Member
    } else {
        ChunkKind::Prose
    }
}

//! The corpus model: interfaces, members, globals, constructors, constructs, derived
//! from chunks by the rules of `corpus-format.md` and nothing else.
//!
//! Invariant: nothing here names a particular engine. Every fact comes from a chunk or
//! from the overlay; a corpus the code has never seen must load the same way.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use std::sync::OnceLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::chunk::{chunks_of, read_corpus_path, Chunk, Chunks, SourceFile};
use super::diag::LoadDiagnostic;
use super::facts::{line_of, Facts};
use super::signature::{self, is_identifier, Signature, Type};

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
}

impl Engine {
    /// Whether the engine accepts the syntax rule `name` whatever its level.
    pub fn allows(&self, name: &str) -> bool {
        self.also_allows.iter().any(|a| a == name)
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

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("static regex"))
}

const Q_OPEN: &str = r#"[`"'\u{201C}\u{2018}]"#;

fn parent_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(
        &C,
        r#"(?i)parent\s+interface\s*:\s*[`"'\u{201C}\u{2018}]?([A-Za-z_$][A-Za-z0-9_$]*)"#,
    )
}

fn global_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    let _ = Q_OPEN;
    re(
        &C,
        r#"(?i)accessed\s+using\s+the\s+global\s+property\s*[`"'\u{201C}\u{2018}]([A-Za-z_$][A-Za-z0-9_$]*)[`"'\u{201D}\u{2019}]"#,
    )
}

fn index_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(
        &C,
        r"(?im)\bindex\s*:\s*`?\s*\[\s*[A-Za-z_$][A-Za-z0-9_$]*\s*:\s*(string|number)\s*\]\s*:\s*([^`\n]+)",
    )
}

fn extensible_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(&C, r"(?im)^[\s*_-]*extensible[*_]*\s*:\s*[*_`]*\s*yes\b")
}

fn ctor_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(
        &C,
        r#"(?i)constructor\s*:\s*`?\s*new\s+([A-Za-z_$][A-Za-z0-9_$]*)\s*(\([^)]*\))?"#,
    )
}

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
            extra_globals: BTreeSet::new(),
            extra_functions: BTreeSet::new(),
            absent: BTreeMap::new(),
            diagnostics: Vec::new(),
            origin: String::new(),
            ancestors: BTreeMap::new(),
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
        c.resolve_types();
        c.link_ancestors();
        c.derive_constructs();
        if let Some(f) = facts {
            c.apply_facts(f);
        }
        Ok(c)
    }

    fn read_chunks(&mut self) {
        let mut seen: HashMap<String, ChunkId> = HashMap::new();
        let mut parents: BTreeMap<String, Vec<(String, ChunkId)>> = BTreeMap::new();
        for id in 0..self.chunks.len() {
            crate::textfile::reading(&self.chunks[id].file);
            let title = self.chunks[id].title.clone();
            if let Some(&first) = seen.get(&title) {
                let (f, l) = (self.chunks[first].file.clone(), self.chunks[first].line);
                let ch = &self.chunks[id];
                let msg = format!(
                    "duplicate chunk title `{title}` (first at {f}:{l}); both are searchable, the first one's facts win"
                );
                self.diagnostics
                    .push(LoadDiagnostic::new(&ch.file, ch.line, msg));
                if self.kinds[id] != ChunkKind::Prose {
                    continue;
                }
            } else {
                seen.insert(title.clone(), id);
            }
            match self.kinds[id] {
                ChunkKind::Engine => self.read_engine(id),
                ChunkKind::Interface => {
                    let name = title.clone();
                    let text = self.chunks[id].text.clone();
                    let iface = self.interface_mut(&name);
                    iface.chunk = Some(id);
                    for cap in parent_re().captures_iter(&text) {
                        parents
                            .entry(name.clone())
                            .or_default()
                            .push((cap[1].to_string(), id));
                    }
                    for cap in global_re().captures_iter(&text) {
                        self.globals.insert(cap[1].to_string(), name.clone());
                    }
                    for cap in ctor_re().captures_iter(&text) {
                        self.read_constructor(id, &name, &cap);
                    }
                    if extensible_re().is_match(&text) {
                        self.interface_mut(&name).extensible = true;
                    }
                    if super::globals::says_global_members(&text) {
                        self.global_members.push(name.clone());
                    }
                    for cap in index_re().captures_iter(&text) {
                        let ty_text = cap[2].trim().trim_end_matches(['.', ';']).trim();
                        match signature::parse_type(ty_text) {
                            Ok(ty) => {
                                let iface = self.interface_mut(&name);
                                if cap[1].eq_ignore_ascii_case("string") {
                                    iface.string_index = Some(ty);
                                } else {
                                    iface.number_index = Some(ty);
                                }
                            }
                            Err(e) => {
                                let ch = &self.chunks[id];
                                let msg = format!(
                                    "`{name}`: index type `{ty_text}` cannot be read: {e}; ignored"
                                );
                                self.diagnostics
                                    .push(LoadDiagnostic::new(&ch.file, ch.line, msg));
                            }
                        }
                    }
                }
                ChunkKind::Member => self.read_member(id),
                ChunkKind::Prose => {}
            }
        }
        for (name, ps) in parents {
            for (p, chunk) in ps {
                if !self.interfaces.contains_key(&p) {
                    let ch = &self.chunks[chunk];
                    let msg = format!(
                        "`{name}` names parent interface `{p}`, which is not documented; ignored"
                    );
                    self.diagnostics
                        .push(LoadDiagnostic::new(&ch.file, ch.line, msg));
                    continue;
                }
                let iface = self.interfaces.get_mut(&name).expect("declared above");
                if !iface.parents.contains(&p) {
                    iface.parents.push(p);
                }
            }
        }
    }

    fn interface_mut(&mut self, name: &str) -> &mut Interface {
        self.interfaces
            .entry(name.to_string())
            .or_insert_with(|| Interface {
                name: name.to_string(),
                parents: Vec::new(),
                members: BTreeMap::new(),
                chunk: None,
                string_index: None,
                number_index: None,
                extensible: false,
            })
    }

    fn read_engine(&mut self, id: ChunkId) {
        let text = self.chunks[id].text.clone();
        for (n, line) in text.lines().enumerate() {
            let l = line.trim().trim_start_matches(['-', '*', ' ']).trim();
            let Some((key, value)) = l.split_once(':') else {
                continue;
            };
            let key = key.trim().trim_matches(['*', '`']).to_ascii_lowercase();
            let value = value.trim().trim_matches('`').trim();
            match key.as_str() {
                "ecmascript" => {
                    let digits: String = value
                        .trim_start_matches(|c: char| !c.is_ascii_digit())
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    match digits.parse::<u32>() {
                        Ok(v) => {
                            self.engine.es_year = es_year(v);
                            self.engine.es_label = digits;
                        }
                        Err(_) => {
                            let ch = &self.chunks[id];
                            let msg = format!(
                                "`ECMAScript: {value}` is not an edition number; level 3 assumed"
                            );
                            self.diagnostics.push(LoadDiagnostic::new(
                                &ch.file,
                                ch.line_of_text_line(n),
                                msg,
                            ));
                        }
                    }
                }
                "script extensions" => {
                    let exts: Vec<String> = value
                        .split([' ', ','])
                        .map(|e| e.trim().trim_matches('`'))
                        .filter(|e| !e.is_empty())
                        .map(|e| {
                            if e.starts_with('.') {
                                e.to_string()
                            } else {
                                format!(".{e}")
                            }
                        })
                        .collect();
                    if !exts.is_empty() {
                        self.engine.script_extensions = exts;
                    }
                }
                "also allows" => {
                    self.engine.also_allows = words(value);
                }
                "also has" => {
                    self.engine.also_has = words(value);
                }
                "directives" => {
                    self.engine.directives = value
                        .split([' ', ','])
                        .map(|e| e.trim().trim_matches('`'))
                        .filter(|e| e.starts_with('#') && e.len() > 1)
                        .map(str::to_string)
                        .collect();
                }
                _ => {}
            }
        }
    }

    fn read_constructor(&mut self, id: ChunkId, iface: &str, cap: &regex::Captures<'_>) {
        let name = cap[1].to_string();
        let mut params = Vec::new();
        if let Some(p) = cap.get(2) {
            let sig_text = format!("{name}{}", p.as_str());
            match signature::parse(&sig_text, &name) {
                Ok(s) => params = s.params.unwrap_or_default(),
                Err(e) => {
                    let ch = &self.chunks[id];
                    let msg = format!("constructor `{}`: {e}; parameters ignored", cap[0].trim());
                    self.diagnostics
                        .push(LoadDiagnostic::new(&ch.file, ch.line, msg));
                }
            }
        }
        self.constructors
            .entry(name.clone())
            .or_insert(Constructor {
                name,
                interface: iface.to_string(),
                params,
                text: cap[0].trim().to_string(),
            });
    }

    fn read_member(&mut self, id: ChunkId) {
        let (iface, name) = split_member_title(&self.chunks[id].title).expect("kind checked");
        let (iface, name) = (iface.to_string(), name.to_string());
        let mut overloads = Vec::new();
        let mut fence = false;
        let text = self.chunks[id].text.clone();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.starts_with("```") || t.starts_with("~~~") {
                fence = !fence;
                continue;
            }
            let _ = fence; // inside or outside a fence, the same rule applies
            let s = signature::strip_label(t);
            if !signature::is_signature_of(s, &name) {
                continue;
            }
            match signature::parse(s, &name) {
                Ok(sig) => overloads.push(sig),
                Err(e) => {
                    let ch = &self.chunks[id];
                    let msg =
                        format!("unparseable signature of `{iface}-{name}` (`{s}`): {e}; skipped");
                    self.diagnostics.push(LoadDiagnostic::new(
                        &ch.file,
                        ch.line_of_text_line(n),
                        msg,
                    ));
                }
            }
        }
        let kind = match overloads.first() {
            Some(s) if s.is_method() => MemberKind::Method,
            Some(_) => MemberKind::Property,
            None => MemberKind::Unknown,
        };
        let member = Member {
            name: name.clone(),
            interface: iface.clone(),
            kind,
            overloads,
            chunk: Some(id),
        };
        self.interface_mut(&iface)
            .members
            .entry(name)
            .or_insert(member);
    }

    /// Resolves `Named` types to interfaces or built-ins; unknown names become `any`
    /// and are reported.
    fn resolve_types(&mut self) {
        let known: BTreeSet<String> = self.interfaces.keys().cloned().collect();
        let mut reports = Vec::new();
        for iface in self.interfaces.values_mut() {
            for m in iface.members.values_mut() {
                for sig in &mut m.overloads {
                    let mut unknown = Vec::new();
                    resolve(&mut sig.ty, &known, &mut unknown);
                    if let Some(ps) = &mut sig.params {
                        for p in ps {
                            resolve(&mut p.ty, &known, &mut unknown);
                        }
                    }
                    for u in unknown {
                        reports.push((
                            m.chunk,
                            format!(
                                "`{}-{}` uses type `{u}`, which is not documented; read as `any`",
                                m.interface, m.name
                            ),
                        ));
                    }
                }
            }
        }
        for iface in self.interfaces.values_mut() {
            for t in [&mut iface.string_index, &mut iface.number_index]
                .into_iter()
                .flatten()
            {
                let mut unknown = Vec::new();
                resolve(t, &known, &mut unknown);
                for u in unknown {
                    reports.push((
                        iface.chunk,
                        format!(
                            "`{}`'s index type uses `{u}`, which is not documented; read as `any`",
                            iface.name
                        ),
                    ));
                }
            }
        }
        for c in self.constructors.values_mut() {
            for p in &mut c.params {
                let mut unknown = Vec::new();
                resolve(&mut p.ty, &known, &mut unknown);
            }
        }
        for (chunk, msg) in reports {
            let (file, line) = chunk
                .map(|id| (self.chunks[id].file.clone(), self.chunks[id].line))
                .unwrap_or_default();
            self.diagnostics.push(LoadDiagnostic::new(&file, line, msg));
        }
    }

    /// Computes every interface's ancestors; a cycle is reported once and broken.
    fn link_ancestors(&mut self) {
        let names: Vec<String> = self.interfaces.keys().cloned().collect();
        let mut reported: BTreeSet<(String, String)> = BTreeSet::new();
        for name in &names {
            let mut out = Vec::new();
            let mut seen = BTreeSet::new();
            seen.insert(name.clone());
            let mut stack: Vec<String> = self.interfaces[name]
                .parents
                .iter()
                .rev()
                .cloned()
                .collect();
            while let Some(p) = stack.pop() {
                if p == *name {
                    let key = (name.clone(), p.clone());
                    if reported.insert(key) {
                        let (file, line) = self.interfaces[name]
                            .chunk
                            .map(|id| (self.chunks[id].file.clone(), self.chunks[id].line))
                            .unwrap_or_default();
                        self.diagnostics.push(LoadDiagnostic::new(
                            &file,
                            line,
                            format!("inheritance cycle through `{name}`: `Parent interface:` loops back; the loop is broken"),
                        ));
                    }
                    continue;
                }
                if !seen.insert(p.clone()) {
                    continue;
                }
                if let Some(pi) = self.interfaces.get(&p) {
                    stack.extend(pi.parents.iter().rev().cloned());
                }
                out.push(p);
            }
            self.ancestors.insert(name.clone(), out);
        }
    }

    fn derive_constructs(&mut self) {
        let globals: Vec<(String, String)> = self
            .globals
            .iter()
            .map(|(g, i)| (g.clone(), i.clone()))
            .collect();
        let mut skipped_seen = BTreeSet::new();
        for (global, iface) in globals {
            let members: Vec<Member> = self.members_of(&iface).into_iter().cloned().collect();
            for m in &members {
                let Some(prefix) = m.name.strip_suffix("Start") else {
                    continue;
                };
                if prefix.is_empty() {
                    continue;
                }
                let end = format!("{prefix}End");
                if !members.iter().any(|e| e.name == end) {
                    continue;
                }
                let first = m
                    .signature()
                    .and_then(|s| s.params.as_ref())
                    .and_then(|p| p.first())
                    .map(|p| p.ty.clone());
                match first {
                    Some(Type::Interface(obj)) => {
                        self.constructs
                            .entry(prefix.to_string())
                            .or_insert(Construct {
                                id: prefix.to_string(),
                                interface: m.interface.clone(),
                                global: global.clone(),
                                start: m.name.clone(),
                                end: end.clone(),
                                object: obj,
                                aliases: Vec::new(),
                                no_close: None,
                                absent: Vec::new(),
                            });
                    }
                    other => {
                        if !skipped_seen.insert((m.interface.clone(), m.name.clone())) {
                            continue;
                        }
                        let reason = match other {
                            Some(t) => {
                                format!("its first parameter is `{t}`, not a documented interface")
                            }
                            None => "it takes no parameter (or has no signature)".to_string(),
                        };
                        self.skipped_pairs.push(SkippedPair {
                            interface: m.interface.clone(),
                            start: m.name.clone(),
                            end: end.clone(),
                            reason: reason.clone(),
                        });
                        let (file, line) = m
                            .chunk
                            .map(|id| (self.chunks[id].file.clone(), self.chunks[id].line))
                            .unwrap_or_default();
                        self.diagnostics.push(LoadDiagnostic::new(
                            &file,
                            line,
                            format!("`{}`/`{end}` is not a construct: {reason}; skipped", m.name),
                        ));
                    }
                }
            }
        }
        self.constructs.retain(|id, c| {
            let _ = id;
            !c.start.is_empty()
        });
    }

    fn apply_facts(&mut self, f: &SourceFile) {
        crate::textfile::reading(&f.path);
        let facts = match Facts::parse(&f.text) {
            Ok(x) => x,
            Err(e) => {
                let line = e
                    .split("line ")
                    .nth(1)
                    .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(1);
                self.diagnostics.push(LoadDiagnostic::new(
                    &f.path,
                    line,
                    format!(
                        "facts.toml is not valid and was ignored: {}",
                        e.lines().last().unwrap_or(&e)
                    ),
                ));
                return;
            }
        };
        for cf in &facts.construct {
            let line = line_of(&f.text, &format!("\"{}\"", cf.id));
            let mut absent = Vec::new();
            for a in &cf.absent {
                let aline = line_of(&f.text, a);
                let Some((iface, member)) = a.split_once('.') else {
                    self.diagnostics.push(LoadDiagnostic::new(
                        &f.path,
                        aline,
                        format!("absent `{a}` is not `Interface.member`; ignored"),
                    ));
                    continue;
                };
                if !self.interfaces.contains_key(iface) {
                    self.diagnostics.push(LoadDiagnostic::new(
                        &f.path,
                        aline,
                        format!(
                        "absent `{a}` names interface `{iface}`, which is not documented; ignored"
                    ),
                    ));
                    continue;
                }
                if self.member(iface, member).is_some() {
                    self.diagnostics.push(LoadDiagnostic::new(&f.path, aline, format!(
                        "absent `{a}` is documented: the docs and the overlay disagree; the docs win"
                    )));
                    continue;
                }
                let reason = cf.no_close.clone().unwrap_or_else(|| {
                    format!("`{member}` does not exist on `{iface}` (overlay fact)")
                });
                self.absent
                    .insert((iface.to_string(), member.to_string()), reason);
                absent.push((iface.to_string(), member.to_string()));
            }
            match self.constructs.get_mut(&cf.id) {
                Some(c) => {
                    c.aliases = cf.aliases.clone();
                    c.no_close = cf.no_close.clone();
                    c.absent = absent;
                }
                None => {
                    self.diagnostics.push(LoadDiagnostic::new(&f.path, line, format!(
                        "construct `{}` in facts.toml matches no construct derived from the docs (no `{}Start`/`{}End` pair on a global); its aliases are ignored",
                        cf.id, cf.id, cf.id
                    )));
                }
            }
        }
        for m in &facts.extra.members {
            let line = line_of(&f.text, m);
            let Some((iface, member)) = m.split_once('.') else {
                self.diagnostics.push(LoadDiagnostic::new(
                    &f.path,
                    line,
                    format!("extra member `{m}` is not `Interface.member`; ignored"),
                ));
                continue;
            };
            if !is_identifier(iface) || !is_identifier(member) {
                self.diagnostics.push(LoadDiagnostic::new(
                    &f.path,
                    line,
                    format!("extra member `{m}` is not `Interface.member`; ignored"),
                ));
                continue;
            }
            if !self.interfaces.contains_key(iface) {
                self.diagnostics.push(LoadDiagnostic::new(&f.path, line, format!(
                    "extra member `{m}`: interface `{iface}` is not documented; it is added with this member only"
                )));
                self.ancestors.insert(iface.to_string(), Vec::new());
            }
            let i = self.interface_mut(iface);
            i.members.entry(member.to_string()).or_insert(Member {
                name: member.to_string(),
                interface: iface.to_string(),
                kind: MemberKind::Unknown,
                overloads: Vec::new(),
                chunk: None,
            });
        }
        for g in &facts.extra.globals {
            self.extra_globals.insert(g.clone());
        }
        for g in &facts.extra.functions {
            self.extra_functions.insert(g.clone());
        }
    }

    // ---- queries ------------------------------------------------------------------

    /// The interface's ancestors, nearest first (itself excluded).
    pub fn ancestors(&self, iface: &str) -> &[String] {
        self.ancestors.get(iface).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether `iface` is `other` or inherits from it.
    pub fn is_a(&self, iface: &str, other: &str) -> bool {
        iface == other || self.ancestors(iface).iter().any(|a| a == other)
    }

    /// A member of an interface, its own or inherited (nearest first).
    pub fn member(&self, iface: &str, name: &str) -> Option<&Member> {
        let own = self.interfaces.get(iface)?;
        if let Some(m) = own.members.get(name) {
            return Some(m);
        }
        self.ancestors(iface)
            .iter()
            .filter_map(|a| self.interfaces.get(a))
            .find_map(|i| i.members.get(name))
    }

    /// Every member of an interface, inherited ones included (an own member hides a
    /// parent's of the same name), sorted by name.
    pub fn members_of(&self, iface: &str) -> Vec<&Member> {
        let mut out: BTreeMap<&str, &Member> = BTreeMap::new();
        let chain = std::iter::once(iface).chain(self.ancestors(iface).iter().map(String::as_str));
        for name in chain {
            if let Some(i) = self.interfaces.get(name) {
                for (k, m) in &i.members {
                    out.entry(k.as_str()).or_insert(m);
                }
            }
        }
        out.into_values().collect()
    }

    /// The `absent` reason for `iface.member`, looking through ancestors.
    pub fn absent_reason(&self, iface: &str, member: &str) -> Option<&str> {
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .find_map(|i| self.absent.get(&(i.to_string(), member.to_string())))
            .map(String::as_str)
    }

    /// Whether `iface` (or an ancestor) takes any string key (`Index: [key: string]`).
    pub fn open_keys(&self, iface: &str) -> bool {
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .any(|i| {
                self.interfaces
                    .get(i)
                    .is_some_and(|x| x.string_index.is_some())
            })
    }

    /// Whether scripts add their own properties to objects of `iface` (or an ancestor
    /// says so): `Extensible: yes`.
    pub fn is_extensible(&self, iface: &str) -> bool {
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .any(|i| self.interfaces.get(i).is_some_and(|x| x.extensible))
    }

    /// The type of `x[i]` for an object of `iface` (`Index: [index: number]: T`), own or
    /// inherited, nearest first.
    pub fn number_index(&self, iface: &str) -> Option<&Type> {
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .find_map(|i| self.interfaces.get(i)?.number_index.as_ref())
    }

    /// The interface of a documented global variable.
    pub fn global_interface(&self, name: &str) -> Option<&str> {
        self.globals.get(name).map(String::as_str)
    }

    /// A documented global function or variable (member of `Global`).
    /// A member of a `Global members: yes` interface is one too (`docs::globals`).
    pub fn global_member(&self, name: &str) -> Option<&Member> {
        self.interfaces
            .get(GLOBAL_INTERFACE)
            .and_then(|g| g.members.get(name))
            .or_else(|| self.member_as_global(name))
    }

    /// Whether the name is any global the engine has: a documented global object, a
    /// `Global` member, an extra global or function.
    pub fn is_engine_global(&self, name: &str) -> bool {
        self.globals.contains_key(name)
            || self.global_member(name).is_some()
            || self.extra_globals.contains(name)
            || self.extra_functions.contains(name)
    }

    /// The construct whose Start or End member is `name`, with whether it was the Start.
    pub fn construct_of_call(&self, name: &str) -> Option<(&Construct, bool)> {
        self.constructs.values().find_map(|c| {
            if c.start == name {
                Some((c, true))
            } else if c.end == name {
                Some((c, false))
            } else {
                None
            }
        })
    }

    /// The chunk by id.
    pub fn chunk(&self, id: ChunkId) -> &Chunk {
        &self.chunks[id]
    }

    /// The documentation text of a member (its chunk's text), if it has a chunk.
    pub fn member_doc(&self, m: &Member) -> Option<&str> {
        m.chunk.map(|id| self.chunks[id].text.as_str())
    }

    /// Counts of what was derived: `(interfaces, members, globals, constructs)`.
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let members = self.interfaces.values().map(|i| i.members.len()).sum();
        (
            self.interfaces.len(),
            members,
            self.globals.len(),
            self.constructs.len(),
        )
    }
}

fn resolve(t: &mut Type, known: &BTreeSet<String>, unknown: &mut Vec<String>) {
    match t {
        Type::Named(n) => {
            *t = if known.contains(n.as_str()) {
                Type::Interface(n.clone())
            } else if crate::es::is_builtin_object(n) {
                Type::Builtin(n.clone())
            } else {
                unknown.push(n.clone());
                Type::Any
            };
        }
        Type::Array(inner) => resolve(inner, known, unknown),
        Type::Union(v) => v.iter_mut().for_each(|x| resolve(x, known, unknown)),
        _ => {}
    }
}

/// The names of an Engine line's value: `trailing-commas e4x`, commas or spaces.
fn words(value: &str) -> Vec<String> {
    value
        .split([' ', ','])
        .map(|e| e.trim().trim_matches('`'))
        .filter(|e| !e.is_empty())
        .map(str::to_string)
        .collect()
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

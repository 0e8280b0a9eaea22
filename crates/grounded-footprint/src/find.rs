//! Project search: `grounded find` and the agent's search tool.
//!
//! Three lessons are built in. A file's *name* is part of what a search sees: asked
//! about "the json", a search of contents alone misses `sampleData.json`, which no
//! line names. A hit on a declared variable is not the whole story: its footprint (the
//! lines that declare and configure it) comes with it, so whoever edits the hit sees
//! what else it drags along. And users speak in concepts ("the box", "grid") that no
//! script spells: when a literal search finds nothing, the words are expanded through
//! the corpus's phrasebook and construct aliases to the engine's real symbols, the
//! search is retried with those, and the result says so.
//!
//! Ignores follow `.gitignore`/`.ignore` (the `ignore` crate, also outside a git
//! repository), hidden files are skipped, binary files (a NUL byte) are skipped, and
//! files above a size limit are skipped with a note.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use regex::{Regex, RegexBuilder};
use serde::Serialize;

use super::analysis::Analysis;
use super::{variables_at, At};
use grounded_docs::topic::{significant, stem};
use grounded_docs::Corpus;

/// How to search.
#[derive(Debug, Clone)]
pub struct FindOptions {
    /// The pattern is a literal string, not a regex.
    pub fixed: bool,
    /// Ignore case.
    pub ignore_case: bool,
    /// Lines of context around each hit (grep's `-C`).
    pub context: usize,
    /// Files and folders to search (relative ones are relative to the root); empty
    /// means the root.
    pub paths: Vec<PathBuf>,
    /// Files larger than this are skipped, with a note.
    pub max_file_bytes: u64,
    /// Stop after this many `match`/`concept` hits (the result says it was cut).
    pub max_hits: Option<usize>,
    /// Bring the footprints of declared variables on hit lines.
    pub footprints: bool,
    /// Expand concept words when a literal search finds nothing.
    pub concepts: bool,
    /// Folders and files left out (the project's corpus: `lookup` searches the
    /// docs), unless given as a search path themselves.
    pub exclude: Vec<PathBuf>,
    /// Texts that stand in for files on disk (absolute path → text): the editor's
    /// unsaved buffers. An agent turn in the editor once searched the disk and missed
    /// the line the user had just typed, while its `read_file` showed it.
    pub overlay: std::collections::HashMap<PathBuf, String>,
}

impl Default for FindOptions {
    fn default() -> Self {
        FindOptions {
            fixed: false,
            ignore_case: false,
            context: 0,
            paths: Vec::new(),
            max_file_bytes: 4 * 1024 * 1024,
            max_hits: None,
            footprints: true,
            concepts: true,
            exclude: Vec::new(),
            overlay: std::collections::HashMap::new(),
        }
    }
}

/// What brought a line into the result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum HitKind {
    /// The line matches the pattern.
    Match,
    /// The file's name matches the pattern.
    Filename,
    /// A line of the footprint of a variable used on a hit line.
    Footprint,
    /// The line matches an engine symbol that a concept word expanded to.
    Concept,
}

impl HitKind {
    /// The kind as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            HitKind::Match => "match",
            HitKind::Filename => "filename",
            HitKind::Footprint => "footprint",
            HitKind::Concept => "concept",
        }
    }
}

/// A line around a hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContextLine {
    /// 1-based line.
    pub line: usize,
    /// Its text.
    pub text: String,
}

/// One hit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hit {
    /// The file, relative to the root (`/`-separated) when inside it.
    pub path: String,
    /// 1-based line; 0 for a `filename` hit.
    pub line: usize,
    /// The line's text (the file's name for a `filename` hit).
    pub text: String,
    /// What brought it.
    pub kind: HitKind,
    /// For a `footprint` line: the variable whose footprint it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variable: Option<String>,
    /// Context lines before and after (with `context` > 0).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<ContextLine>,
}

/// The hits of one file, in line order (a `filename` hit first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileHits {
    /// The file, as in [`Hit::path`].
    pub path: String,
    /// Its hits.
    pub hits: Vec<Hit>,
}

/// How concept words were expanded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConceptExpansion {
    /// The words as searched.
    pub words: String,
    /// Where the symbols came from: `construct block (alias "box")`, a topic route.
    pub via: Vec<String>,
    /// The engine symbols searched instead.
    pub symbols: Vec<String>,
}

/// The result of a project search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FindResult {
    /// The pattern as given.
    pub pattern: String,
    /// Hits grouped per file, files in path order.
    pub files: Vec<FileHits>,
    /// Set when the literal search found nothing and concept words were expanded.
    pub concept: Option<ConceptExpansion>,
    /// Files skipped and why (huge, unreadable), paths that do not exist.
    pub notes: Vec<String>,
    /// How many files were searched.
    pub files_searched: usize,
    /// Whether `max_hits` cut the result.
    pub truncated: bool,
}

impl FindResult {
    /// Every hit, file by file.
    pub fn hits(&self) -> impl Iterator<Item = &Hit> {
        self.files.iter().flat_map(|f| f.hits.iter())
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// grep-style text: per file a header, then `N:` match, `N*` concept match, `N+`
    /// footprint line, `N-` context line; `--` between separate runs of lines.
    pub fn render_human(&self) -> String {
        let mut out = String::new();
        if let Some(c) = &self.concept {
            let _ = writeln!(
                out,
                "no match for `{}`; searched the engine's symbols it stands for instead: {} (via {})",
                c.words,
                c.symbols.join(", "),
                c.via.join("; ")
            );
        }
        if self.is_empty() {
            let _ = writeln!(
                out,
                "no match for `{}` in {} file{}",
                self.pattern,
                self.files_searched,
                if self.files_searched == 1 { "" } else { "s" }
            );
        }
        for f in &self.files {
            let mut lines: BTreeMap<usize, (char, &str, Option<&str>)> = BTreeMap::new();
            let mut by_name = false;
            for h in &f.hits {
                if h.kind == HitKind::Filename {
                    by_name = true;
                    continue;
                }
                for c in &h.context {
                    lines.entry(c.line).or_insert(('-', &c.text, None));
                }
                let mark = match h.kind {
                    HitKind::Match => ':',
                    HitKind::Concept => '*',
                    _ => '+',
                };
                let e = lines
                    .entry(h.line)
                    .or_insert((mark, &h.text, h.variable.as_deref()));
                if e.0 == '-' || (e.0 == '+' && mark != '+') {
                    *e = (mark, &h.text, h.variable.as_deref());
                }
            }
            if by_name {
                let _ = writeln!(out, "{} (filename match)", f.path);
            } else {
                let _ = writeln!(out, "{}", f.path);
            }
            let mut prev: Option<usize> = None;
            for (n, (mark, text, var)) in lines {
                if prev.is_some_and(|p| n > p + 1) {
                    let _ = writeln!(out, "  --");
                }
                prev = Some(n);
                match var {
                    Some(v) if mark == '+' => {
                        let _ = writeln!(out, "  {n}{mark} {text}    (footprint of `{v}`)");
                    }
                    _ => {
                        let _ = writeln!(out, "  {n}{mark} {text}");
                    }
                }
            }
        }
        if self.truncated {
            let _ = writeln!(
                out,
                "(cut at the hit limit; narrow the pattern or the paths)"
            );
        }
        for n in &self.notes {
            let _ = writeln!(out, "note: {n}");
        }
        out
    }
}

/// A searched file: its display path, text, and whether it is a script.
struct Source {
    path: String,
    name: String,
    text: String,
    script: bool,
}

/// Whether a pattern is plain words (no regex syntax): only such a search falls back
/// to concept words.
fn is_plain(pattern: &str) -> bool {
    pattern
        .chars()
        .all(|c| c.is_alphanumeric() || c == ' ' || c == '_' || c == '-' || c == '\'')
}

fn display_path(root: &Path, p: &Path) -> String {
    let rel = p.strip_prefix(root).unwrap_or(p);
    let s = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    if s.is_empty() {
        p.display().to_string()
    } else {
        s
    }
}

/// Reads the files under the search paths, honouring ignores.
fn collect(
    corpus: &Corpus,
    root: &Path,
    opts: &FindOptions,
    notes: &mut Vec<String>,
) -> Vec<Source> {
    let mut starts: Vec<PathBuf> = Vec::new();
    if opts.paths.is_empty() {
        starts.push(root.to_path_buf());
    }
    for p in &opts.paths {
        let full = if p.is_absolute() {
            p.clone()
        } else {
            root.join(p)
        };
        let full = if full.exists() {
            full
        } else if p.exists() {
            p.clone()
        } else {
            notes.push(format!("{}: no such file or folder", p.display()));
            continue;
        };
        starts.push(std::fs::canonicalize(&full).unwrap_or(full));
    }
    let Some(first) = starts.first() else {
        return Vec::new();
    };
    let mut b = ignore::WalkBuilder::new(first);
    for s in &starts[1..] {
        b.add(s);
    }
    let exclude: Vec<PathBuf> = opts
        .exclude
        .iter()
        .map(|p| {
            let full = if p.is_absolute() {
                p.clone()
            } else {
                root.join(p)
            };
            std::fs::canonicalize(&full).unwrap_or(full)
        })
        .filter(|p| !starts.contains(p))
        .collect();
    b.require_git(false).sort_by_file_name(|a, b| a.cmp(b));
    if !exclude.is_empty() {
        b.filter_entry(move |e| e.depth() == 0 || !exclude.iter().any(|x| x == e.path()));
    }
    let exts: Vec<&str> = corpus
        .engine
        .script_extensions
        .iter()
        .map(|e| e.trim_start_matches('.'))
        .collect();
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for entry in b.build() {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                notes.push(format!("skipped: {e}"));
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        if !seen.insert(path.to_path_buf()) {
            continue;
        }
        let shown = display_path(root, path);
        let len = entry.metadata().map(|m| m.len()).unwrap_or(0);
        if len > opts.max_file_bytes {
            notes.push(format!(
                "{shown}: skipped, {} bytes is over the {} byte limit",
                len, opts.max_file_bytes
            ));
            continue;
        }
        files.push((entry.into_path(), shown));
    }
    let overlay: std::collections::HashMap<PathBuf, &String> = opts
        .overlay
        .iter()
        .map(|(p, t)| (std::fs::canonicalize(p).unwrap_or_else(|_| p.clone()), t))
        .collect();
    let loaded = par_map(&files, |(path, shown)| -> Result<Option<Source>, String> {
        let bytes = match overlay.get(path) {
            Some(t) => t.as_bytes().to_vec(),
            None => std::fs::read(path).map_err(|e| format!("{shown}: skipped, {e}"))?,
        };
        if bytes.contains(&0) {
            return Ok(None);
        }
        let text = grounded_textfile::decode(bytes).text;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let script = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.iter().any(|x| x.eq_ignore_ascii_case(e)));
        Ok(Some(Source {
            path: shown.clone(),
            name,
            text,
            script,
        }))
    });
    let mut out = Vec::with_capacity(loaded.len());
    for l in loaded {
        match l {
            Ok(Some(s)) => out.push(s),
            Ok(None) => {}
            Err(n) => notes.push(n),
        }
    }
    out
}

/// Searches the project's files under `root` (or `opts.paths`) for `pattern`.
/// A regex that does not compile is an error.
pub fn find_in_files(
    corpus: &Corpus,
    root: &Path,
    pattern: &str,
    opts: &FindOptions,
) -> Result<FindResult, String> {
    let source = if opts.fixed {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    let re = RegexBuilder::new(&source)
        .case_insensitive(opts.ignore_case)
        .build()
        .map_err(|e| {
            format!(
                "`{pattern}` is not a valid regex ({}); use -F for a literal",
                e.to_string().lines().last().unwrap_or("")
            )
        })?;
    let mut notes = Vec::new();
    // Paths are shown relative to the root; both sides must be spelled alike.
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let sources = collect(corpus, &root, opts, &mut notes);
    let mut result = FindResult {
        pattern: pattern.to_string(),
        files: Vec::new(),
        concept: None,
        notes,
        files_searched: sources.len(),
        truncated: false,
    };
    let mut budget = opts.max_hits;
    search(
        &sources,
        &re,
        HitKind::Match,
        true,
        opts,
        &mut budget,
        &mut result,
    );
    if result.is_empty() && opts.concepts && (opts.fixed || is_plain(pattern)) {
        if let Some(exp) = expand_concepts(corpus, pattern) {
            let alt = exp
                .symbols
                .iter()
                .map(|s| regex::escape(s))
                .collect::<Vec<_>>()
                .join("|");
            if let Ok(re) = Regex::new(&format!(r"\b(?:{alt})\b")) {
                search(
                    &sources,
                    &re,
                    HitKind::Concept,
                    false,
                    opts,
                    &mut budget,
                    &mut result,
                );
            }
            result.concept = Some(exp);
        }
    }
    Ok(result)
}

fn search(
    sources: &[Source],
    re: &Regex,
    kind: HitKind,
    names: bool,
    opts: &FindOptions,
    budget: &mut Option<usize>,
    result: &mut FindResult,
) {
    let per_file: Vec<Vec<Hit>> = if budget.is_some() {
        // A hit limit is the agent's: exact and in order, so sequential.
        let mut out = Vec::new();
        for src in sources {
            if budget.is_some_and(|b| b == 0) {
                result.truncated = true;
                break;
            }
            out.push(file_hits(
                src,
                re,
                kind,
                names,
                opts,
                budget,
                &mut result.truncated,
            ));
        }
        out
    } else {
        par_map(sources, |src| {
            file_hits(src, re, kind, names, opts, &mut None, &mut false)
        })
    };
    for (src, hits) in sources.iter().zip(per_file) {
        if !hits.is_empty() {
            result.files.push(FileHits {
                path: src.path.clone(),
                hits,
            });
        }
    }
}

/// Maps `f` over `items` on the machine's cores, keeping the order. Parsing for
/// footprints dominates a search whose pattern hits many scripts.
fn par_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(8);
    if threads < 2 || items.len() < 64 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| s.spawn(move || c.iter().map(f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(v) => v,
                Err(p) => std::panic::resume_unwind(p),
            })
            .collect()
    })
}

fn file_hits(
    src: &Source,
    re: &Regex,
    kind: HitKind,
    names: bool,
    opts: &FindOptions,
    budget: &mut Option<usize>,
    truncated: &mut bool,
) -> Vec<Hit> {
    let mut hits: Vec<Hit> = Vec::new();
    if names && re.is_match(&src.name) {
        hits.push(Hit {
            path: src.path.clone(),
            line: 0,
            text: src.name.clone(),
            kind: HitKind::Filename,
            variable: None,
            context: Vec::new(),
        });
    }
    if !re.is_match(&src.text) {
        return hits;
    }
    let lines: Vec<&str> = src.text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if !re.is_match(line) {
            continue;
        }
        if let Some(b) = budget.as_mut() {
            if *b == 0 {
                *truncated = true;
                break;
            }
            *b -= 1;
        }
        let mut context = Vec::new();
        if opts.context > 0 {
            let lo = i.saturating_sub(opts.context);
            let hi = (i + opts.context).min(lines.len() - 1);
            for (j, text) in lines.iter().enumerate().take(hi + 1).skip(lo) {
                if j != i {
                    context.push(ContextLine {
                        line: j + 1,
                        text: text.to_string(),
                    });
                }
            }
        }
        hits.push(Hit {
            path: src.path.clone(),
            line: i + 1,
            text: line.to_string(),
            kind,
            variable: None,
            context,
        });
    }
    if opts.footprints && src.script && hits.iter().any(|h| h.line > 0) {
        add_footprints(src, &lines, &mut hits);
    }
    hits.sort_by_key(|h| (h.line, h.kind));
    hits
}

fn add_footprints(src: &Source, lines: &[&str], hits: &mut Vec<Hit>) {
    // One parser per thread: making a parser costs about as much as parsing a short
    // script, and a search may parse thousands.
    thread_local! {
        static PARSER: std::cell::RefCell<tree_sitter::Parser> =
            std::cell::RefCell::new(grounded_js::parser());
    }
    let Some(tree) = PARSER.with(|p| p.borrow_mut().parse(&src.text, None)) else {
        return;
    };
    let an = Analysis::new(&src.text, &tree, None);
    let mut taken: std::collections::HashSet<usize> = hits.iter().map(|h| h.line).collect();
    let hit_lines: Vec<usize> = hits.iter().filter(|h| h.line > 0).map(|h| h.line).collect();
    let mut extra = Vec::new();
    for l in hit_lines {
        for v in variables_at(&an, At::Line(l)) {
            for fl in v.lines {
                if taken.insert(fl) {
                    extra.push(Hit {
                        path: src.path.clone(),
                        line: fl,
                        text: lines.get(fl - 1).copied().unwrap_or("").to_string(),
                        kind: HitKind::Footprint,
                        variable: Some(v.name.clone()),
                        context: Vec::new(),
                    });
                }
            }
        }
    }
    hits.extend(extra);
}

/// The engine symbols that the words of `pattern` stand for: construct aliases first
/// (the overlay says `box` means the block construct), then the phrasebook's best
/// strict route.
pub fn expand_concepts(corpus: &Corpus, pattern: &str) -> Option<ConceptExpansion> {
    let words = significant(pattern);
    if words.is_empty() {
        return None;
    }
    let mut symbols: Vec<String> = Vec::new();
    let mut via: Vec<String> = Vec::new();
    let push = |s: &str, symbols: &mut Vec<String>| {
        if grounded_docs::signature::is_identifier(s) && !symbols.iter().any(|x| x == s) {
            symbols.push(s.to_string());
        }
    };
    for c in corpus.constructs.values() {
        let hit = words
            .iter()
            .find(|w| stem(&c.id) == **w || c.aliases.iter().any(|a| stem(a) == **w));
        if let Some(w) = hit {
            via.push(format!("construct `{}` (\"{w}\")", c.id));
            push(&c.start, &mut symbols);
            push(&c.end, &mut symbols);
            push(&c.object, &mut symbols);
            for k in corpus
                .constructors
                .values()
                .filter(|k| k.interface == c.object)
            {
                push(&k.name, &mut symbols);
            }
        }
    }
    if symbols.is_empty() {
        // Mined here rather than cached: the phrasebook is an index above the corpus
        // model (`docs::Library`), and `find` reaches this fallback at most once per
        // search, only when neither the pattern nor a construct alias matched.
        let answer = grounded_docs::topic::Phrasebook::mine(corpus).resolve(pattern, 3);
        if answer.strict {
            if let Some(m) = answer.matches.first() {
                via.push(format!("topic route `{}`", m.route.name));
                for s in &m.route.symbols {
                    if s.starts_with("global ") {
                        continue;
                    }
                    let s = s.trim_start_matches("new ");
                    let s = s.split('(').next().unwrap_or(s);
                    let s = s.rsplit('.').next().unwrap_or(s).trim();
                    push(s, &mut symbols);
                }
            }
        }
    }
    if symbols.is_empty() {
        return None;
    }
    Some(ConceptExpansion {
        words: pattern.to_string(),
        via,
        symbols,
    })
}

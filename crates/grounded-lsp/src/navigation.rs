//! Navigation over the project's files and the corpus: references, rename and
//! workspace symbols. The project's files are the open buffers (the truth while they
//! are open) and the scripts on disk under the root; the corpus's chunks are files the
//! editor can open.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use tower_lsp_server::ls_types::{Location, Position, Range, SymbolInformation, Uri};

use super::document::range_of;
use super::features::{self, Symbol};
use grounded_docs::Corpus;
use grounded_js::LineIndex;

/// Files walked at most, so a huge folder opened by mistake cannot stall a request.
const MAX_FILES: usize = 5_000;

/// A path without `.` and `..` components, resolved lexically (a corpus configured as
/// `../../corpus/demo` gave links such as `.../examples/demo/../../corpus/demo/x.md`,
/// which some editors open as a second buffer of the same file). Canonical when the
/// file exists.
pub fn normalize(p: &Path) -> PathBuf {
    if let Ok(c) = std::fs::canonicalize(p) {
        return c;
    }
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The scripts of the project: open buffers first, then the files on disk under `root`
/// with one of `exts` that are not open. Each with its URI and text.
pub fn project_scripts(
    root: &Path,
    exts: &[String],
    open: &[(Uri, Option<PathBuf>, String)],
) -> Vec<(Uri, String)> {
    let mut out: Vec<(Uri, String)> = open
        .iter()
        .map(|(u, _, t)| (u.clone(), t.clone()))
        .collect();
    let open_paths: Vec<PathBuf> = open
        .iter()
        .filter_map(|(_, p, _)| p.as_ref().map(|p| normalize(p)))
        .collect();
    let walked = ignore::WalkBuilder::new(root)
        .build()
        .flatten()
        .take(MAX_FILES)
        .map(|e| e.into_path());
    for p in walked {
        let name = p.to_string_lossy();
        if !p.is_file() || !exts.iter().any(|x| name.ends_with(x.as_str())) {
            continue;
        }
        if open_paths.contains(&normalize(&p)) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&p) else {
            continue;
        };
        if bytes.len() > super::document::MAX_ANALYSED_BYTES {
            continue;
        }
        if let Some(uri) = Uri::from_file_path(&p) {
            out.push((uri, grounded_textfile::decode(bytes).text));
        }
    }
    out
}

/// Where `sym` is written across `scripts`: a local only in `home` (its file), a
/// top-level name in every script (they share one global scope).
pub fn references(
    corpus: &Corpus,
    home: &Uri,
    scripts: &[(Uri, String)],
    sym: &Symbol,
) -> Vec<Location> {
    let mut out = Vec::new();
    for (uri, text) in scripts {
        if !sym.global && uri != home {
            continue;
        }
        if !text.contains(sym.name.as_str()) {
            continue;
        }
        let script = grounded_js::script_text(uri.as_str(), text, &corpus.engine.directives);
        let tree = grounded_js::parse(&script);
        let idx = LineIndex::new(text);
        for (s, e) in features::occurrences(corpus, &script, &tree, sym) {
            out.push(Location {
                uri: uri.clone(),
                range: range_of(&idx, s, e),
            });
        }
    }
    out
}

/// The edits renaming `sym` to `new_name` everywhere [`references`] finds it.
pub fn rename_edits(
    corpus: &Corpus,
    home: &Uri,
    scripts: &[(Uri, String)],
    sym: &Symbol,
    new_name: &str,
) -> HashMap<Uri, Vec<tower_lsp_server::ls_types::TextEdit>> {
    let mut changes: HashMap<Uri, Vec<_>> = HashMap::new();
    for loc in references(corpus, home, scripts, sym) {
        changes
            .entry(loc.uri)
            .or_default()
            .push(tower_lsp_server::ls_types::TextEdit {
                range: loc.range,
                new_text: new_name.to_string(),
            });
    }
    changes
}

/// Whether `name` can be written as an identifier of the script's language (a rename
/// to anything else would break the script).
pub fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$');
    first_ok
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        && !grounded_es::es3_reserved(name)
}

/// Workspace symbols: the project scripts' top-level functions and variables, then the
/// corpus's documented APIs (when the corpus is a folder on disk the editor can open),
/// whose name contains `query` (any case).
#[allow(deprecated)] // `SymbolInformation::deprecated` must be written; `tags` replaces it.
pub fn workspace_symbols(
    corpus: &Corpus,
    corpus_dir: Option<&Path>,
    scripts: &[(Uri, String)],
    query: &str,
) -> Vec<SymbolInformation> {
    const LIMIT: usize = 500;
    let q = query.to_lowercase();
    let mut out = Vec::new();
    for (uri, text) in scripts {
        if !q.is_empty() && !text.to_lowercase().contains(&q) {
            continue;
        }
        let script = grounded_js::script_text(uri.as_str(), text, &corpus.engine.directives);
        let tree = grounded_js::parse(&script);
        let idx = LineIndex::new(text);
        for (name, kind, s, e) in features::top_level_symbols(&script, &tree) {
            if name.to_lowercase().contains(&q) {
                out.push(SymbolInformation {
                    name,
                    kind,
                    tags: None,
                    deprecated: None,
                    location: Location {
                        uri: uri.clone(),
                        range: range_of(&idx, s, e),
                    },
                    container_name: None,
                });
            }
        }
        if out.len() >= LIMIT {
            return out;
        }
    }
    let Some(dir) = corpus_dir else {
        return out;
    };
    for (name, kind, container, file, line) in
        features::corpus_symbols(corpus, query, LIMIT - out.len())
    {
        let Some(uri) = Uri::from_file_path(normalize(&dir.join(&file))) else {
            continue;
        };
        let at = Position::new(line.saturating_sub(1) as u32, 0);
        out.push(SymbolInformation {
            name,
            kind,
            tags: None,
            deprecated: None,
            location: Location {
                uri,
                range: Range::new(at, at),
            },
            container_name: container,
        });
    }
    out
}

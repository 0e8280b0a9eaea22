//! Reading corpus files into chunks.
//!
//! A corpus is whatever the engine's documentation exports: Markdown pages and JSON Lines
//! dumps of a retrieval index. Both become the same [`Chunk`]; nothing downstream knows
//! which file format a chunk came from. A bad line never stops the load: the documentation
//! we are handed is real-world export output, and one broken record must not hide the
//! other ten thousand.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use super::diag::LoadDiagnostic;

/// One source file of a corpus, already read into memory.
#[derive(Debug, Clone)]
pub struct SourceFile {
    /// Path as shown in diagnostics (relative to the corpus root where possible).
    pub path: String,
    /// The file's text.
    pub text: String,
}

/// One chunk of documentation: a title and its text, with where it came from.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Chunk {
    /// The chunk's title (heading text, or the JSONL `title`).
    pub title: String,
    /// The chunk's body text.
    pub text: String,
    /// The file it came from, as in [`SourceFile::path`].
    pub file: String,
    /// 1-based line of the chunk's start (the heading, or the JSONL line).
    pub line: usize,
    /// 1-based line in `file` of the first line of `text` (JSONL: the record's line).
    pub text_line: usize,
    /// Keys other than `title`/`text` of a JSONL record (`url`, `source`, ...).
    pub meta: BTreeMap<String, String>,
}

/// A corpus's chunks, in load order. They read like a slice (`chunks[id]`, `len`,
/// `iter`); a corpus answered by the load cache decodes them on first such use,
/// because the checker never reads a chunk's text: decoding 20,000 chunks was a
/// quarter of a warm `check`. Where a chunk starts ([`Chunks::place`]) is always at
/// hand, for the "see the docs" links of findings.
pub struct Chunks {
    all: OnceLock<Vec<Chunk>>,
    /// Until decoded: a buffer holding the encoded chunks (postcard `Vec<Chunk>`) and
    /// where in it they are.
    encoded: Option<(Vec<u8>, std::ops::Range<usize>)>,
    /// Each chunk's file (index into `files`) and line.
    places: Vec<(u32, u32)>,
    files: Vec<String>,
}

impl Chunks {
    /// Chunks already decoded.
    pub fn new(chunks: Vec<Chunk>) -> Chunks {
        let mut files: Vec<String> = Vec::new();
        let places = chunks
            .iter()
            .map(|c| {
                if files.last() != Some(&c.file) {
                    files.push(c.file.clone());
                }
                let file = u32::try_from(files.len() - 1).unwrap_or(u32::MAX);
                (file, u32::try_from(c.line).unwrap_or(u32::MAX))
            })
            .collect();
        let all = OnceLock::from(chunks);
        Chunks {
            all,
            encoded: None,
            places,
            files,
        }
    }

    /// Chunks to decode from `buffer[range]` on first use (the load cache checked
    /// those bytes against their hash), with their places.
    pub(crate) fn encoded(
        buffer: Vec<u8>,
        range: std::ops::Range<usize>,
        places: Vec<(u32, u32)>,
        files: Vec<String>,
    ) -> Chunks {
        Chunks {
            all: OnceLock::new(),
            encoded: Some((buffer, range)),
            places,
            files,
        }
    }

    /// The places and file table, to store beside the encoded chunks.
    pub(crate) fn places(&self) -> (&[(u32, u32)], &[String]) {
        (&self.places, &self.files)
    }

    /// Whether the places table fits `n` chunks (a cache's parts must agree).
    pub(crate) fn places_fit(&self, n: usize) -> bool {
        self.places.len() == n
            && self
                .places
                .iter()
                .all(|&(f, _)| (f as usize) < self.files.len())
    }

    /// How many chunks there are, without decoding them.
    pub fn count(&self) -> usize {
        self.places.len()
    }

    /// The file and 1-based line where chunk `id` starts, without decoding chunks.
    pub fn place(&self, id: usize) -> Option<(&str, usize)> {
        let &(f, line) = self.places.get(id)?;
        Some((self.files.get(f as usize)?.as_str(), line as usize))
    }

    /// Whether the chunks have been decoded (tests of the load cache's promise, which
    /// live with the checker in `grounded-check`: they run a check).
    #[doc(hidden)]
    pub fn is_decoded(&self) -> bool {
        self.all.get().is_some()
    }

    fn all(&self) -> &Vec<Chunk> {
        self.all.get_or_init(|| match &self.encoded {
            Some((buffer, range)) => buffer
                .get(range.clone())
                .and_then(|b| postcard::from_bytes(b).ok())
                // The bytes passed the cache's hash and were written by this build:
                // failing here is a bug, not bad input.
                .expect("the load cache's chunks decode"),
            None => Vec::new(),
        })
    }
}

impl std::ops::Deref for Chunks {
    type Target = Vec<Chunk>;
    fn deref(&self) -> &Vec<Chunk> {
        self.all()
    }
}

impl<'a> IntoIterator for &'a Chunks {
    type Item = &'a Chunk;
    type IntoIter = std::slice::Iter<'a, Chunk>;
    fn into_iter(self) -> Self::IntoIter {
        self.all().iter()
    }
}

impl From<Vec<Chunk>> for Chunks {
    fn from(chunks: Vec<Chunk>) -> Chunks {
        Chunks::new(chunks)
    }
}

impl serde::Serialize for Chunks {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(self.all(), s)
    }
}

impl<'de> serde::Deserialize<'de> for Chunks {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Chunks, D::Error> {
        <Vec<Chunk> as serde::Deserialize>::deserialize(d).map(Chunks::new)
    }
}

impl Chunk {
    /// The file line of the `n`-th (0-based) line of the text. JSONL chunks have their
    /// whole text on one file line.
    pub fn line_of_text_line(&self, n: usize) -> usize {
        if self.file.ends_with(".jsonl") {
            self.text_line
        } else {
            self.text_line + n
        }
    }
}

/// Reads a corpus path (folder, recursively in sorted order, or one file) into source
/// files. `facts.toml` is returned separately. Non-UTF-8 files are decoded lossily and
/// reported, so the rest of the file still counts.
pub fn read_corpus_path(
    root: &Path,
    diags: &mut Vec<LoadDiagnostic>,
) -> std::io::Result<(Vec<SourceFile>, Option<SourceFile>)> {
    let mut files = Vec::new();
    let mut facts = None;
    if root.is_file() {
        if let Some(f) = read_one(root, root.parent().unwrap_or(Path::new("")), diags)? {
            files.push(f);
        }
        return Ok((files, facts));
    }
    let mut paths = Vec::new();
    collect(root, &mut paths)?;
    paths.sort();
    for p in paths {
        let rel = p.strip_prefix(root).unwrap_or(&p);
        if rel == Path::new("facts.toml") {
            facts = read_one(&p, root, diags)?;
            continue;
        }
        if let Some(f) = read_one(&p, root, diags)? {
            files.push(f);
        }
    }
    Ok((files, facts))
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let path = entry.path();
        let ft = entry.file_type()?;
        if ft.is_dir() {
            collect(&path, out)?;
        } else if ft.is_file() || ft.is_symlink() {
            let keep = matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("md") | Some("jsonl")
            ) || path.file_name().and_then(|n| n.to_str()) == Some("facts.toml");
            if keep {
                out.push(path);
            }
        }
    }
    Ok(())
}

fn read_one(
    path: &Path,
    root: &Path,
    diags: &mut Vec<LoadDiagnostic>,
) -> std::io::Result<Option<SourceFile>> {
    let shown = path
        .strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/");
    grounded_textfile::reading(&shown);
    let decoded = grounded_textfile::read(path)?;
    if decoded.lossy {
        diags.push(LoadDiagnostic::new(
            &shown,
            1,
            format!("file is {}", grounded_textfile::LOSSY_NOTE),
        ));
    }
    Ok(Some(SourceFile {
        path: shown,
        text: decoded.text,
    }))
}

/// Splits source files into chunks by their format (by extension).
pub fn chunks_of(files: &[SourceFile], diags: &mut Vec<LoadDiagnostic>) -> Vec<Chunk> {
    let mut out = Vec::new();
    for f in files {
        grounded_textfile::reading(&f.path);
        if f.path.ends_with(".jsonl") {
            jsonl_chunks(f, &mut out, diags);
        } else if f.path.ends_with(".md") {
            markdown_chunks(f, &mut out);
        }
    }
    out
}

fn jsonl_chunks(f: &SourceFile, out: &mut Vec<Chunk>, diags: &mut Vec<LoadDiagnostic>) {
    for (i, line) in f.text.lines().enumerate() {
        let lineno = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let value: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                diags.push(LoadDiagnostic::new(
                    &f.path,
                    lineno,
                    format!("malformed JSON line skipped: {e}"),
                ));
                continue;
            }
        };
        let Some(obj) = value.as_object() else {
            diags.push(LoadDiagnostic::new(
                &f.path,
                lineno,
                "JSON line is not an object; skipped",
            ));
            continue;
        };
        let title = obj.get("title").and_then(|v| v.as_str());
        let text = obj.get("text").and_then(|v| v.as_str());
        let (Some(title), Some(text)) = (title, text) else {
            diags.push(LoadDiagnostic::new(
                &f.path,
                lineno,
                "JSON line lacks a string \"title\" or \"text\"; skipped",
            ));
            continue;
        };
        let meta = obj
            .iter()
            .filter(|(k, _)| *k != "title" && *k != "text")
            .map(|(k, v)| {
                let s = match v {
                    serde_json::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                (k.clone(), s)
            })
            .collect();
        out.push(Chunk {
            title: title.trim().to_string(),
            text: text.to_string(),
            file: f.path.clone(),
            line: lineno,
            text_line: lineno,
            meta,
        });
    }
}

/// The title of an ATX heading of level 1 or 2, or `None`.
fn heading_title(line: &str) -> Option<String> {
    let t = line.trim_start_matches(' ');
    if line.len() - t.len() > 3 {
        return None;
    }
    let rest = if let Some(r) = t.strip_prefix("## ") {
        r
    } else if let Some(r) = t.strip_prefix("# ") {
        r
    } else if t == "#" || t == "##" {
        ""
    } else {
        return None;
    };
    let mut title = rest.trim();
    // Closing sequence: trailing #s preceded by a space.
    let stripped = title.trim_end_matches('#');
    if stripped.len() != title.len() && (stripped.is_empty() || stripped.ends_with(' ')) {
        title = stripped.trim_end();
    }
    let title = title.trim();
    let title = title
        .strip_prefix('`')
        .and_then(|t| t.strip_suffix('`'))
        .unwrap_or(title);
    Some(title.trim().to_string())
}

fn markdown_chunks(f: &SourceFile, out: &mut Vec<Chunk>) {
    let mut current: Option<(String, usize, Vec<&str>)> = None;
    let mut fence: Option<String> = None;
    let flush = |cur: Option<(String, usize, Vec<&str>)>, out: &mut Vec<Chunk>| {
        if let Some((title, line, body)) = cur {
            let mut text = body.join("\n");
            while text.ends_with('\n') {
                text.pop();
            }
            out.push(Chunk {
                title,
                text,
                file: f.path.clone(),
                line,
                text_line: line + 1,
                meta: BTreeMap::new(),
            });
        }
    };
    for (i, line) in f.text.lines().enumerate() {
        let trimmed = line.trim_start();
        // A `#` inside a fenced code block is a comment or directive, not a heading.
        if let Some(marker) = &fence {
            if trimmed.starts_with(marker.as_str()) {
                fence = None;
            }
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            let ch = &trimmed[..3];
            let n = trimmed.chars().take_while(|c| ch.starts_with(*c)).count();
            fence = Some(ch.chars().next().unwrap().to_string().repeat(n));
        } else if let Some(title) = heading_title(line) {
            flush(current.take(), out);
            current = Some((title, i + 1, Vec::new()));
            continue;
        }
        if let Some((_, _, body)) = current.as_mut() {
            body.push(line);
        }
    }
    flush(current.take(), out);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings() {
        assert_eq!(heading_title("# Table").as_deref(), Some("Table"));
        assert_eq!(heading_title("## `Table-x` ##").as_deref(), Some("Table-x"));
        assert_eq!(heading_title("### deeper"), None);
        assert_eq!(heading_title("#nospace"), None);
        assert_eq!(heading_title("# C# #").as_deref(), Some("C#"));
    }

    #[test]
    fn fenced_hash_is_not_heading() {
        let f = SourceFile {
            path: "a.md".into(),
            text: "# A\ntext\n```js\n# not a heading\n```\n## B\nb".into(),
        };
        let mut out = Vec::new();
        markdown_chunks(&f, &mut out);
        assert_eq!(out.len(), 2);
        assert!(out[0].text.contains("# not a heading"));
        assert_eq!(out[1].title, "B");
        assert_eq!(out[1].line, 6);
    }
}

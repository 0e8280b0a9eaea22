//! One open buffer: its text, version and syntax tree, kept current by incremental edits.
//!
//! Every analysis reads the buffer, never the disk: the user's unsaved text is the truth.

use tower_lsp_server::ls_types::{Position, Range, TextDocumentContentChangeEvent};
use tree_sitter::{InputEdit, Point, Tree};

use grounded_js::LineIndex;

/// Buffers above this size are kept but not analysed: a generated 50 MB bundle must not
/// stall the session on every keystroke.
pub const MAX_ANALYSED_BYTES: usize = 8 << 20;

/// What kind of text a buffer holds, deciding how it is checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A script: parsed and kept as a tree, reparsed incrementally.
    Script,
    /// Markdown: its fenced `js` blocks are parsed (prose blanked), reparsed whole,
    /// because one new fence changes the meaning of every line after it.
    Markdown,
    /// Too large or binary: stored, never analysed.
    Skipped,
}

/// An open buffer.
///
/// An edit only edits the old tree ([`Tree::edit`], cheap); the reparse happens when a
/// check or a request needs the tree ([`Document::parse_input`] then
/// [`Document::store_tree`]), off the notification path and once per checked version:
/// while the user types faster than the debounce, intermediate versions are never
/// parsed.
#[derive(Debug, Clone)]
pub struct Document {
    /// The text as the editor has it.
    pub text: String,
    /// Engine directive prefixes (`#include`) blanked before parsing, from the corpus.
    pub directives: Vec<String>,
    /// The editor's version of the text.
    pub version: i32,
    /// The last tree, edited to match `text` when `dirty`: what the parser sees of the
    /// text ([`grounded_js::script_text`]: same offsets, directive lines and Markdown prose
    /// blanked); `None` when skipped or never parsed.
    pub tree: Option<Tree>,
    /// Whether `tree` is out of date (edited, not reparsed).
    pub dirty: bool,
    /// How the buffer is checked.
    pub kind: Kind,
    /// Line starts of `text`, kept across edits: a keystroke in a 100,000-line buffer
    /// indexed every line of it twice (the edit's position, the publish), ~2 ms.
    starts: Vec<usize>,
}

/// What a reparse needs, taken from the store so the parse runs without its lock.
pub struct ParseInput {
    /// The text to parse.
    pub text: String,
    /// The edited old tree to reuse (scripts only).
    pub old: Option<Tree>,
    /// Directive prefixes.
    pub directives: Vec<String>,
    /// Scripts or Markdown.
    pub kind: Kind,
    /// The version this is for.
    pub version: i32,
}

impl ParseInput {
    /// Parses; `path` decides how Markdown is read.
    pub fn parse(&self, path: &str) -> Option<Tree> {
        if self.kind == Kind::Skipped {
            return None;
        }
        let src = grounded_js::script_text(path, &self.text, &self.directives);
        let mut parser = grounded_js::parser();
        let tree = parser.parse(src.as_bytes(), self.old.as_ref())?;
        // An incremental reparse recovers from a syntax error otherwise than a fresh
        // parse: the project index read from this tree then kept a declaration that
        // `grounded check` of the same text does not see (issue 30, found by the
        // differential test). A tree with an error is a fresh parse's.
        if self.old.is_some() && tree.root_node().has_error() {
            return parser.parse(src.as_bytes(), None);
        }
        Some(tree)
    }
}

/// Whether a text looks binary: a NUL byte in its first 8 KiB, as git decides.
pub fn looks_binary(text: &str) -> bool {
    grounded_textfile::looks_binary(text)
}

fn kind_of(path: &str, text: &str) -> Kind {
    if text.len() > MAX_ANALYSED_BYTES || looks_binary(text) {
        Kind::Skipped
    } else if grounded_js::is_markdown(path) {
        Kind::Markdown
    } else {
        Kind::Script
    }
}

fn point_at(idx: &LineIndex, offset: usize) -> Point {
    let row = idx.line0(offset);
    Point::new(row, offset - idx.line_start(row))
}

impl Document {
    /// A freshly opened buffer, parsed when first needed; `path` decides Markdown from
    /// script.
    pub fn open(path: &str, text: String, version: i32, directives: &[String]) -> Document {
        let mut d = Document {
            // Lone CRs read as LF, as every reader does (`grounded_textfile`): the editor
            // counts them as line breaks, and positions must agree.
            text: grounded_textfile::lone_cr_to_lf(text),
            directives: directives.to_vec(),
            version,
            tree: None,
            dirty: true,
            kind: Kind::Skipped,
            starts: Vec::new(),
        };
        d.kind = kind_of(path, &d.text);
        d.starts = LineIndex::new(&d.text).into_starts();
        d
    }

    /// The line index of `text`, from the kept line starts.
    pub fn line_index(&self) -> LineIndex<'_> {
        LineIndex::from_starts(&self.text, self.starts.clone())
    }

    /// What a reparse of the current text needs, or `None` when the tree is current.
    pub fn parse_input(&self) -> Option<ParseInput> {
        if !self.dirty {
            return None;
        }
        Some(ParseInput {
            text: self.text.clone(),
            // Markdown is reparsed whole: a new fence changes every line after it.
            old: if self.kind == Kind::Script {
                self.tree.clone()
            } else {
                None
            },
            directives: self.directives.clone(),
            kind: self.kind,
            version: self.version,
        })
    }

    /// Keeps a tree parsed for `version`, if the buffer is still at that version.
    pub fn store_tree(&mut self, version: i32, tree: Option<Tree>) -> bool {
        if self.version != version || !self.dirty {
            return false;
        }
        self.tree = tree;
        self.dirty = false;
        true
    }

    /// The current tree, reparsing here if needed (tests, and open).
    pub fn reparse(&mut self, path: &str) {
        if let Some(input) = self.parse_input() {
            let t = input.parse(path);
            self.store_tree(input.version, t);
        }
    }

    /// Applies the editor's changes in order, editing the tree so the next parse reuses
    /// everything the edit did not touch.
    pub fn apply(
        &mut self,
        path: &str,
        changes: Vec<TextDocumentContentChangeEvent>,
        version: i32,
    ) {
        self.version = version;
        for ch in changes {
            match ch.range {
                None => {
                    self.text = grounded_textfile::lone_cr_to_lf(ch.text);
                    self.starts = LineIndex::new(&self.text).into_starts();
                    self.tree = None;
                }
                Some(range) => {
                    let ch = TextDocumentContentChangeEvent {
                        text: grounded_textfile::lone_cr_to_lf(ch.text),
                        ..ch
                    };
                    let idx = LineIndex::from_starts(&self.text, std::mem::take(&mut self.starts));
                    let start = idx.offset_utf16(range.start.line, range.start.character);
                    let end = idx
                        .offset_utf16(range.end.line, range.end.character)
                        .max(start);
                    let start_position = point_at(&idx, start);
                    let old_end_position = point_at(&idx, end);
                    self.starts = idx.into_starts();
                    self.text.replace_range(start..end, &ch.text);
                    grounded_js::splice_starts(&mut self.starts, start, end, &ch.text);
                    let new_end = start + ch.text.len();
                    let new_end_position = {
                        let nl = ch.text.matches('\n').count();
                        match ch.text.rfind('\n') {
                            Some(i) => Point::new(start_position.row + nl, ch.text.len() - i - 1),
                            None => Point::new(
                                start_position.row,
                                start_position.column + ch.text.len(),
                            ),
                        }
                    };
                    // Deleting the LF of a CRLF leaves a lone CR the editor now counts
                    // as a line break: make it the LF it means (and reparse whole, since
                    // the edit above did not say so).
                    let b = self.text.as_bytes();
                    if start > 0 && b[start - 1] == b'\r' && b.get(start) != Some(&b'\n') {
                        self.text.replace_range(start - 1..start, "\n");
                        grounded_js::splice_starts(&mut self.starts, start - 1, start, "\n");
                        self.tree = None;
                    }
                    if let Some(tree) = self.tree.as_mut() {
                        tree.edit(&InputEdit {
                            start_byte: start,
                            old_end_byte: end,
                            new_end_byte: new_end,
                            start_position,
                            old_end_position,
                            new_end_position,
                        });
                    }
                }
            }
        }
        let kind = kind_of(path, &self.text);
        if kind != self.kind {
            self.tree = None;
        }
        self.kind = kind;
        self.dirty = true;
    }
}

/// Byte offset of an LSP position in `text`.
pub fn offset_of(text: &str, pos: Position) -> usize {
    LineIndex::new(text).offset_utf16(pos.line, pos.character)
}

/// The LSP position of a byte offset.
pub fn position_of(idx: &LineIndex, offset: usize) -> Position {
    let (line, character) = idx.line_col_utf16(offset);
    Position { line, character }
}

/// [`range_of`] without an index of the whole text: for one range in a large buffer.
pub fn range_in(text: &str, start: usize, end: usize) -> Range {
    let pos = |at: usize| {
        let at = at.min(text.len());
        let head = text.get(..at).unwrap_or_default();
        let line_start = head.rfind('\n').map_or(0, |i| i + 1);
        Position::new(
            head.matches('\n').count() as u32,
            head[line_start..].encode_utf16().count() as u32,
        )
    };
    Range {
        start: pos(start),
        end: pos(end),
    }
}

/// The LSP range of a byte range.
pub fn range_of(idx: &LineIndex, start: usize, end: usize) -> Range {
    Range {
        start: position_of(idx, start),
        end: position_of(idx, end),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(sl: u32, sc: u32, el: u32, ec: u32, text: &str) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: Some(Range {
                start: Position::new(sl, sc),
                end: Position::new(el, ec),
            }),
            range_length: None,
            text: text.into(),
        }
    }

    #[test]
    fn incremental_edits_match_a_fresh_parse() {
        let mut d = Document::open("a.js", "var é = 1;\nfoo(é);\n".into(), 1, &[]);
        d.reparse("a.js");
        // "é" is one UTF-16 unit: replace `foo` on line 1.
        d.apply("a.js", vec![change(1, 0, 1, 3, "bar\nbaz")], 2);
        assert_eq!(d.text, "var é = 1;\nbar\nbaz(é);\n");
        d.reparse("a.js");
        d.apply("a.js", vec![change(0, 5, 0, 5, "x")], 3);
        d.reparse("a.js");
        assert_eq!(d.text, "var éx = 1;\nbar\nbaz(é);\n");
        let fresh = grounded_js::parse(&d.text);
        assert_eq!(
            d.tree.as_ref().unwrap().root_node().to_sexp(),
            fresh.root_node().to_sexp()
        );
    }

    /// Lone CRs are line breaks, as the editor counts them: at open, in a change, and
    /// when a change deletes the LF of a CRLF.
    #[test]
    fn lone_carriage_returns_are_line_breaks() {
        let mut d = Document::open("a.js", "a;\rb;\r\nc;\r".into(), 1, &[]);
        assert_eq!(d.text, "a;\nb;\r\nc;\n");
        d.reparse("a.js");
        // Line 2 (0-based) is `c;`: the editor addresses it past the lone CR.
        d.apply("a.js", vec![change(2, 0, 2, 1, "d\re")], 2);
        assert_eq!(d.text, "a;\nb;\r\nd\ne;\n");
        // An edit inside line 1's CRLF: what is left still ends the line once.
        d.apply("a.js", vec![change(1, 2, 1, 3, "")], 3);
        d.reparse("a.js");
        assert_eq!(d.text, "a;\nb;\nd\ne;\n");
        let fresh = grounded_js::parse(&d.text);
        assert_eq!(
            d.tree.as_ref().unwrap().root_node().to_sexp(),
            fresh.root_node().to_sexp()
        );
    }

    #[test]
    fn binary_and_huge_are_skipped() {
        assert_eq!(
            Document::open("a.js", "a\0b".into(), 1, &[]).kind,
            Kind::Skipped
        );
        assert_eq!(
            Document::open("a.md", "# x".into(), 1, &[]).kind,
            Kind::Markdown
        );
    }
}

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
    /// Offsets of the `\n` bytes of `text` that the editor holds as a lone `\r`
    /// (sorted). A client that sends a typed line break as two changes (`\r`, then `\n`
    /// right after it) makes one CRLF of them, one line break as LSP counts lines; read as
    /// two, every line below drifted one off (issue 48). Usually empty.
    lone_crs: Vec<usize>,
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

/// [`point_at`] from line starts alone.
fn point_in(starts: &[usize], offset: usize) -> Point {
    let row = starts.partition_point(|&s| s <= offset).saturating_sub(1);
    Point::new(row, offset - starts.get(row).copied().unwrap_or(0))
}

/// `text` with its lone CRs read as LF (byte for byte), and where they were.
fn lone_crs_read(text: String) -> (String, Vec<usize>) {
    let b = text.as_bytes();
    let lone: Vec<usize> = cr_offsets(b)
        .filter(|&i| b.get(i + 1) != Some(&b'\n'))
        .collect();
    if lone.is_empty() {
        return (text, lone);
    }
    (grounded_textfile::lone_cr_to_lf(text), lone)
}

fn cr_offsets(b: &[u8]) -> impl Iterator<Item = usize> + '_ {
    b.iter()
        .enumerate()
        .filter(|(_, &c)| c == b'\r')
        .map(|(i, _)| i)
}

impl Document {
    /// A freshly opened buffer, parsed when first needed; `path` decides Markdown from
    /// script.
    pub fn open(path: &str, text: String, version: i32, directives: &[String]) -> Document {
        // Lone CRs read as LF, as every reader does (`grounded_textfile`): the editor
        // counts them as line breaks, and positions must agree.
        let (text, lone_crs) = lone_crs_read(text);
        let mut d = Document {
            text,
            directives: directives.to_vec(),
            version,
            tree: None,
            dirty: true,
            kind: Kind::Skipped,
            starts: Vec::new(),
            lone_crs,
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
                    (self.text, self.lone_crs) = lone_crs_read(ch.text);
                    self.starts = LineIndex::new(&self.text).into_starts();
                    self.tree = None;
                }
                Some(range) => self.apply_range(range, ch.text),
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

impl Document {
    /// One ranged change. The text is replaced, then the two places where old and new
    /// text meet are read again as the editor reads them: a lone CR (held as `\n`) now
    /// followed by an LF is one CRLF, and the CR of a CRLF whose LF went is a lone CR.
    /// The tree is told the whole of it as one edit, so the next parse still reuses
    /// what did not change.
    fn apply_range(&mut self, range: Range, new: String) {
        let (new, new_crs) = lone_crs_read(new);
        let idx = LineIndex::from_starts(&self.text, std::mem::take(&mut self.starts));
        let start = idx.offset_utf16(range.start.line, range.start.character);
        let end = idx
            .offset_utf16(range.end.line, range.end.character)
            .max(start);
        let old_end_position = point_at(&idx, end);
        self.starts = idx.into_starts();
        self.text.replace_range(start..end, &new);
        grounded_js::splice_starts(&mut self.starts, start, end, &new);
        let delta = new.len() as isize - (end - start) as isize;
        let lo = self.lone_crs.partition_point(|&x| x < start);
        let hi = self.lone_crs.partition_point(|&x| x < end);
        for x in &mut self.lone_crs[hi..] {
            *x = (*x as isize + delta) as usize;
        }
        self.lone_crs
            .splice(lo..hi, new_crs.iter().map(|&i| start + i));
        let new_end = start + new.len();
        let mut first = start;
        for at in [start, new_end] {
            if self.rejoin(at) {
                first = first.min(at - 1);
            }
            if new.is_empty() {
                break;
            }
        }
        if let Some(tree) = self.tree.as_mut() {
            // The lines before `first` did not move: its point is the same in both.
            tree.edit(&InputEdit {
                start_byte: first,
                old_end_byte: end,
                new_end_byte: new_end,
                start_position: point_in(&self.starts, first),
                old_end_position,
                new_end_position: point_in(&self.starts, new_end),
            });
        }
    }

    /// Reads the line break just before `at` again after an edit met there; whether it
    /// changed (the byte before `at` did).
    fn rejoin(&mut self, at: usize) -> bool {
        if at == 0 {
            return false;
        }
        let b = self.text.as_bytes();
        let next = b.get(at).copied();
        let next_is_lf = next == Some(b'\n') && self.lone_crs.binary_search(&at).is_err();
        match (b[at - 1], self.lone_crs.binary_search(&(at - 1))) {
            // A lone CR, now followed by an LF: one CRLF.
            (b'\n', Ok(i)) if next_is_lf => {
                self.lone_crs.remove(i);
                self.text.replace_range(at - 1..at, "\r");
                grounded_js::splice_starts(&mut self.starts, at - 1, at, "\r");
                true
            }
            // The CR of a CRLF whose LF went: a lone CR, the line break the editor sees.
            // (Or followed by another lone CR: the editor has two line breaks.)
            (b'\r', _) if !next_is_lf => {
                let i = self.lone_crs.partition_point(|&x| x < at - 1);
                self.lone_crs.insert(i, at - 1);
                self.text.replace_range(at - 1..at, "\n");
                grounded_js::splice_starts(&mut self.starts, at - 1, at, "\n");
                true
            }
            _ => false,
        }
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

    /// The LSP position of byte `at` of an editor's text: `\r\n`, `\r` and `\n` each end
    /// a line (the specification's line ends).
    fn lsp_position(text: &str, at: usize) -> Position {
        let b = text.as_bytes();
        let (mut line, mut ls) = (0, 0);
        let mut i = 0;
        while i < at {
            match b[i] {
                b'\r' if b.get(i + 1) == Some(&b'\n') && i + 1 < at => {
                    i += 2;
                    line += 1;
                    ls = i;
                    continue;
                }
                b'\r' if b.get(i + 1) != Some(&b'\n') => {
                    line += 1;
                    ls = i + 1;
                }
                b'\n' => {
                    line += 1;
                    ls = i + 1;
                }
                _ => {}
            }
            i += 1;
        }
        Position::new(line, text[ls..at].encode_utf16().count() as u32)
    }

    /// Edits `editor` (the client's text) and the document alike, then holds the
    /// document to a fresh open of the client's text: same text, same line starts, same
    /// tree.
    fn edit_both(d: &mut Document, editor: &mut String, s: usize, e: usize, new: &str) {
        let (p1, p2) = (lsp_position(editor, s), lsp_position(editor, e));
        editor.replace_range(s..e, new);
        let v = d.version + 1;
        d.apply(
            "a.js",
            vec![change(p1.line, p1.character, p2.line, p2.character, new)],
            v,
        );
        d.reparse("a.js");
        let fresh = Document::open("a.js", editor.clone(), v, &[]);
        assert_eq!(d.text, fresh.text, "after {new:?} at {s}..{e}");
        assert_eq!(d.starts, fresh.starts, "line starts after {new:?}");
        assert_eq!(d.lone_crs, fresh.lone_crs, "lone CRs after {new:?}");
        assert_eq!(
            d.tree.as_ref().unwrap().root_node().to_sexp(),
            grounded_js::parse(&d.text).root_node().to_sexp()
        );
    }

    /// A line break typed as two changes (`\r`, then `\n` right after it, as some
    /// clients send it) is one line break, as the editor counts it; so is a CR typed
    /// before an LF, an LF that meets a lone CR when what stood between them is deleted,
    /// and two lone CRs side by side are two.
    #[test]
    fn crlf_halves_typed_apart_join() {
        let mut editor = String::from("a;\r\nfoo();\r\nbar();\r\n");
        let mut d = Document::open("a.js", editor.clone(), 1, &[]);
        d.reparse("a.js");
        // Enter typed after `a;` as two changes.
        edit_both(&mut d, &mut editor, 2, 2, "\r");
        edit_both(&mut d, &mut editor, 3, 3, "\n");
        assert_eq!(editor, "a;\r\n\r\nfoo();\r\nbar();\r\n");
        assert_eq!(d.line_index().len(), 5, "four line breaks, five lines");
        // The CR of the first pair deleted: a lone LF is left.
        edit_both(&mut d, &mut editor, 2, 3, "");
        assert_eq!(editor, "a;\n\r\nfoo();\r\nbar();\r\n");
        assert_eq!(d.line_index().len(), 5);
        // A CR typed before it, and something between them, then deleted: they join.
        edit_both(&mut d, &mut editor, 2, 2, "\r");
        edit_both(&mut d, &mut editor, 3, 3, "x");
        assert_eq!(d.line_index().len(), 6, "a lone CR and a lone LF");
        edit_both(&mut d, &mut editor, 3, 4, "");
        assert_eq!(d.line_index().len(), 5, "one CRLF again");
        // A CR typed right before an LF joins it at once.
        edit_both(&mut d, &mut editor, 2, 3, "");
        edit_both(&mut d, &mut editor, 2, 2, "\r");
        assert_eq!(d.line_index().len(), 5);
        // Two lone CRs side by side, then an LF after the second.
        edit_both(&mut d, &mut editor, 0, 0, "\r\r");
        edit_both(&mut d, &mut editor, 2, 2, "\n");
        edit_both(&mut d, &mut editor, 1, 1, "\n");
        assert_eq!(&editor[..5], "\r\n\r\na");
        // A replacement that ends in a CR before an LF, and one that starts with the LF
        // of a lone CR before it.
        let at = editor.find("bar").unwrap();
        edit_both(&mut d, &mut editor, at, at + 3, "b\r");
        edit_both(&mut d, &mut editor, at + 2, at + 3, "\nq");
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

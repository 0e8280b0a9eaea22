//! Statements cut from a large buffer's tree and parsed alone, and the questions a
//! request on such a buffer asks of the rest of the file through them.
//!
//! Why: on a buffer of a megabyte and more the language server never reparses the whole
//! text for a request (tree-sitter's incremental reparse of a 7.8 MB script cost over a
//! second of CPU behind every keystroke); it keeps the buffer's last tree, edited to the
//! text's positions, and parses only the statements it needs. Where a top-level name is
//! declared is one such question: the statement under the cursor, analysed with the
//! checker's seed, knows the name but not its position. It used to be answered by a walk
//! of the piece's tree and a text search for `var name`/`function name`, two rules of
//! their own beside [`Analysis`]'s; they missed what the analysis knows (a `var` inside a
//! top-level `if`, an implicit global's first assignment) and found what it does not (a
//! `var name` inside a function body). Here the statements that spell the name are
//! analysed like any other, and the analysis says.
//!
//! Owns the cutting and that search; may import `js`'s own modules and `docs`, nothing
//! of the checker or the server.

use std::ops::Range;

use tree_sitter::{Point, Tree};

use super::{Analysis, BindingKind, Seed};
use grounded_docs::Corpus;

/// The point `text` ends at, starting from `p`.
fn advance(p: Point, text: &str) -> Point {
    match text.rfind('\n') {
        Some(i) => Point::new(p.row + text.matches('\n').count(), text.len() - i - 1),
        None => Point::new(p.row, p.column + text.len()),
    }
}

/// Parses the bytes `range` of `script` (what the parser reads of the file:
/// [`super::script_text`]) alone, starting at `start` (the point of `range.start`). The
/// tree holds only the statements in the range, at their offsets in the whole text, so
/// an [`Analysis`] of one of them reads the whole text as usual.
pub fn parse_range(script: &str, range: Range<usize>, start: Point) -> Option<Tree> {
    let end = range.end.min(script.len());
    if range.start >= end || !script.is_char_boundary(range.start) || !script.is_char_boundary(end)
    {
        return None;
    }
    let r = tree_sitter::Range {
        start_byte: range.start,
        end_byte: end,
        start_point: start,
        end_point: advance(start, &script[range.start..end]),
    };
    let mut parser = super::parser();
    parser.set_included_ranges(&[r]).ok()?;
    parser.parse(script.as_bytes(), None)
}

/// The whole file behind a request that analyses one statement: the buffer's last tree,
/// edited to its text's positions but not reparsed, and what the parser reads of the
/// text.
pub struct Whole {
    /// The buffer's last tree (edited, possibly stale inside the edited spans).
    pub tree: Tree,
    /// [`super::script_text`] of the buffer (same offsets, directive lines blanked), or
    /// `None` when the parser reads the text as it is.
    pub script: Option<String>,
}

impl Whole {
    /// The cut holding byte `offset`: the top-level statement of [`Whole::tree`] around
    /// it, or, between two statements, the gap between them (text typed there since the
    /// tree was made), or the tail after the last one.
    ///
    /// Found by the cursor's descent to the byte, not a walk of every statement: a walk
    /// of a 7.8 MB script's 240,000 top-level statements, with the words of each, made a
    /// hover on a name declared near it take 127 ms instead of 32 (p50).
    fn cut_holding(&self, offset: usize, len: usize) -> (Range<usize>, Point) {
        let root = self.tree.root_node();
        let mut c = root.walk();
        if c.goto_first_child_for_byte(offset).is_some() {
            let n = c.node();
            if n.start_byte() <= offset {
                return (n.start_byte()..n.end_byte().min(len), n.start_position());
            }
            let end = n.start_byte().min(len);
            return match c.goto_previous_sibling() {
                true => (c.node().end_byte().min(end)..end, c.node().end_position()),
                false => (0..end, Point::new(0, 0)),
            };
        }
        match root.child(root.child_count().saturating_sub(1)) {
            Some(last) => (last.end_byte().min(len)..len, last.end_position()),
            None => (0..len, Point::new(0, 0)),
        }
    }

    /// Where the file's program scope declares `name`: the byte offset of the declaring
    /// identifier, as a whole-file [`Analysis`] gives it in [`crate::Binding::start`].
    ///
    /// `kind` is what the checker's seed says the binding is: an
    /// [`BindingKind::Implicit`] global is found at the first statement that assigns it,
    /// any other at the first statement that declares it (a statement that only assigns
    /// it, read alone, would make it implicit). Only the statements that spell `name`
    /// as a word are parsed and analysed, in document order, and the search stops at
    /// the first answer.
    pub fn top_level_declaration(
        &self,
        corpus: &Corpus,
        text: &str,
        name: &str,
        kind: BindingKind,
    ) -> Option<usize> {
        if name.is_empty() {
            return None;
        }
        let none = Seed::default();
        let script = self.script.as_deref().unwrap_or(text);
        // A character of a word, as [`Seed::words`] reads words.
        let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '$' | '\\');
        let mut read_to = 0usize;
        for (i, _) in text.match_indices(name) {
            let before = text[..i].chars().next_back();
            let after = text[i + name.len()..].chars().next();
            if i < read_to || before.is_some_and(word) || after.is_some_and(word) {
                continue;
            }
            let (range, start) = self.cut_holding(i, text.len());
            read_to = range.end.max(i + 1);
            let Some(piece) = parse_range(script, range, start) else {
                continue;
            };
            let root = piece.root_node();
            let mut c = root.walk();
            for stmt in root.named_children(&mut c) {
                let a = Analysis::for_node(corpus, text, &piece, stmt, &none);
                let Some(b) = a.program_binding(name) else {
                    continue;
                };
                if (b.kind == BindingKind::Implicit) == (kind == BindingKind::Implicit) {
                    return Some(b.start);
                }
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus() -> Corpus {
        Corpus::from_texts(&[(
            "a.md",
            "# Layout\n\nThis object is accessed using the global property \"layout\".\n\n\
             ## Layout-tableStart\n\nSyntax: tableStart(table: Table): void\n\n\
             # Table\n\nConstructor: new Table()\n",
        )])
        .expect("a small corpus")
    }

    fn whole(text: &str) -> Whole {
        Whole {
            tree: super::super::parse(text),
            script: None,
        }
    }

    /// Every program-scope name of a whole-file analysis is found where that analysis
    /// declares it: the statement-wise search and the whole agree.
    #[test]
    fn the_search_agrees_with_the_whole_files_analysis() {
        let corpus = corpus();
        let scripts = [
            "// a width\nfunction scaleWidth(w) { return w * 2; }\nvar PAGE = 3;\nscaleWidth(PAGE);\n",
            // Used before it is declared, in a function body and at the top level.
            "function f() { return later + 1; }\nf(later);\nvar later = 2;\n",
            // `var` inside a top-level block, and a loop's variable.
            "if (true) { var inBlock = 1; }\nfor (var i = 0; i < 3; i++) { inBlock += i; }\n",
            // An implicit global, assigned inside a function first, then at the top.
            "function init() { counter = 0; }\ncounter = 5;\ninit();\n",
            // A name assigned at the top before its `var`: the `var` declares it.
            "total = 1;\nvar total;\n",
            // A `var` of the same name inside a function is not the top level's.
            "function g() { var name = 1; return name; }\nvar name = 'x';\n",
            // Two declarations: the first counts.
            "var twice = 1;\nvar twice = 2;\nfunction alsoFn() {}\nvar alsoFn;\n",
        ];
        for text in scripts {
            let tree = super::super::parse(text);
            let full = Analysis::new(&corpus, text, &tree);
            let w = whole(text);
            for name in full.top_level_names() {
                let b = full.program_binding(name).unwrap();
                assert_eq!(
                    w.top_level_declaration(&corpus, text, name, b.kind),
                    Some(b.start),
                    "{name} in {text:?}"
                );
            }
        }
    }

    /// A name the file never declares at its top level has no declaration, even where
    /// a function declares one of that name, or a comment or string spells it.
    #[test]
    fn an_undeclared_name_has_no_declaration() {
        let corpus = corpus();
        let text = "function g() { var inner = 1; }\n// inner\nvar s = 'inner';\n";
        let w = whole(text);
        for kind in [BindingKind::Var, BindingKind::Implicit] {
            assert_eq!(w.top_level_declaration(&corpus, text, "inner", kind), None);
        }
    }

    /// Text typed between two statements after the tree was made (the tree only edited)
    /// is searched too: the cuts cover every byte.
    #[test]
    fn text_typed_after_the_tree_between_statements_is_read() {
        let corpus = corpus();
        let before = "var a = 1;\nvar b = 2;\n";
        let text = "var a = 1;\nvar typed = 3;\nvar b = 2;\n";
        let mut tree = super::super::parse(before);
        let at = "var a = 1;\n".len();
        let added = "var typed = 3;\n".len();
        tree.edit(&tree_sitter::InputEdit {
            start_byte: at,
            old_end_byte: at,
            new_end_byte: at + added,
            start_position: Point::new(1, 0),
            old_end_position: Point::new(1, 0),
            new_end_position: Point::new(2, 0),
        });
        let w = Whole { tree, script: None };
        assert_eq!(
            w.top_level_declaration(&corpus, text, "typed", BindingKind::Var),
            Some(text.find("typed").unwrap())
        );
        assert_eq!(
            w.top_level_declaration(&corpus, text, "b", BindingKind::Var),
            Some(text.find("b =").unwrap())
        );
    }

    /// Text typed after the last statement (the tree only edited) is the tail's cut.
    #[test]
    fn text_typed_after_the_last_statement_is_read() {
        let corpus = corpus();
        let before = "var a = 1;\n";
        let text = "var a = 1;\nvar tail = a;\n";
        let mut tree = super::super::parse(before);
        let at = before.len();
        tree.edit(&tree_sitter::InputEdit {
            start_byte: at,
            old_end_byte: at,
            new_end_byte: text.len(),
            start_position: Point::new(1, 0),
            old_end_position: Point::new(1, 0),
            new_end_position: Point::new(2, 0),
        });
        let w = Whole { tree, script: None };
        assert_eq!(
            w.top_level_declaration(&corpus, text, "tail", BindingKind::Var),
            Some(text.find("tail").unwrap())
        );
        // `a` is spelt in the tail too; its declaration is the first statement.
        assert_eq!(
            w.top_level_declaration(&corpus, text, "a", BindingKind::Var),
            Some(4)
        );
    }

    #[test]
    fn a_range_is_parsed_alone_at_its_offsets() {
        let text = "var a = 1;\nfunction f() {}\nvar b = 2;\n";
        let s = text.find("function").unwrap();
        let e = text.find("var b").unwrap();
        let piece = parse_range(text, s..e, Point::new(1, 0)).unwrap();
        let root = piece.root_node();
        assert_eq!(root.named_child_count(), 1);
        let f = root.named_child(0).unwrap();
        assert_eq!(f.kind(), "function_declaration");
        assert_eq!(f.start_byte(), s);
        assert_eq!(f.start_position(), Point::new(1, 0));
        assert!(parse_range(text, e..s, Point::new(0, 0)).is_none());
    }
}

//! One mistake, one finding: what the parser could not place draws no finding of its
//! own besides the parse error.
//!
//! What: after a parse error, a finding of any other family on a line that a
//! tree-sitter `ERROR` node touches (from its first line to its last) is dropped: the
//! text an unterminated or unusual string literal swallowed (`var msg = "Line one`,
//! the prose after it read as code up to the next quote, `'it's a test of zap(2) '`).
//! The `syntax` finding at the error stays. Lines the parser placed again (the next
//! whole statement) are judged as usual.
//!
//! Why: measured on real scripts, six parse errors in one file brought 21 `function`
//! findings for words on the swallowed lines; fixing the quote removes all of them, so
//! they were one mistake said 27 times. E4X shapes on an engine that allows E4X are
//! `ERROR`s too but the script's own syntax: findings there stay.
//!
//! Called by `syntax::parse_errors` before it adds its findings, only when the tree
//! has an error; owns the E4X shape test (`e4x_lines`), which both read. May import
//! `check`'s shared state, never `syntax` (which imports it).

use tree_sitter::Node;

use super::{Code, Ctx};

/// Drops the non-`syntax` findings on the lines of the tree's `ERROR` nodes.
pub(crate) fn drop_unplaced(cx: &mut Ctx, root: Node) {
    if !root.has_error() || cx.out.iter().all(|f| f.code == Code::Syntax) {
        return;
    }
    let e4x = cx.corpus.engine.allows("e4x");
    // 1-based line ranges, inclusive.
    let mut errors: Vec<(usize, usize)> = Vec::new();
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        if node.is_error() {
            if !(e4x && e4x_lines(cx.text, node)) {
                let end = node.end_position();
                // An error that ends at a line's first column does not touch that line.
                let last = if end.column == 0 && end.row > node.start_position().row {
                    end.row
                } else {
                    end.row + 1
                };
                errors.push((node.start_position().row + 1, last));
            }
        } else if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                break 'walk;
            }
        }
    }
    if errors.is_empty() {
        return;
    }
    cx.out.retain(|f| {
        f.code == Code::Syntax
            || !errors
                .iter()
                .any(|&(first, last)| first <= f.line && f.line <= last)
    });
}

/// Whether the lines an error node touches hold an E4X shape (outside string
/// literals): `default xml namespace`, `x.@attr`, `x..child`, `x.(@id == 1)`,
/// `ns::name`.
pub(crate) fn e4x_lines(text: &str, node: Node) -> bool {
    let start = text[..node.start_byte().min(text.len())]
        .rfind('\n')
        .map_or(0, |i| i + 1);
    let end = node.end_byte().min(text.len());
    let end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    text[start..end].lines().any(e4x_shape)
}

/// One line's E4X shape, judged on its code with string literals blanked.
pub(crate) fn e4x_shape(line: &str) -> bool {
    let mut code = String::with_capacity(line.len());
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for c in line.chars() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
                code.push(' ');
            }
            None => {
                if c == '"' || c == '\'' {
                    quote = Some(c);
                }
                code.push(c);
            }
        }
    }
    let code = code.split("//").next().unwrap_or("");
    let squeezed: String = code.split_whitespace().collect::<Vec<_>>().join(" ");
    squeezed.contains("default xml namespace")
        || code.contains(".@")
        || code.contains("::")
        || code.contains(".(")
        || code.replace("...", "").contains("..")
        || code.contains("(@")
}

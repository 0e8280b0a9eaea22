//! Reading the brackets around the cursor from the text, where the parser cannot help
//! yet: `layout.tableStart(t, { cellP` is an unclosed call holding an unclosed object
//! literal, and the tree has only an `ERROR` node there.
//!
//! A backward count of brackets and commas took every comma for an argument separator:
//! `heading("a, b", |` put the cursor on parameter 3. So the text is read forward from
//! the start of the statement, and strings, template literals, comments and regular
//! expression literals are stepped over as the language reads them.

use tree_sitter::Tree;

/// An open bracket before the cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Open {
    /// Its byte offset.
    pub at: usize,
    /// `(`, `[` or `{`.
    pub bracket: u8,
    /// Top-level commas after it, before the cursor (the argument or item index).
    pub commas: usize,
}

/// Never more than this many bytes back.
const MAX_BACK: usize = 20_000;

/// Top-level siblings looked at going back from the cursor.
const MAX_SIBLINGS: usize = 200;

/// Where the scan starts: the start of the error-free top-level statement holding
/// `offset`, else the end of the last complete statement before it. While a call is
/// typed the parser splits the text into pieces (an `ERROR`, an expression, a comment
/// as a top-level extra), so the nearest top-level node is no statement start.
fn floor(tree: Option<&Tree>, text: &str, offset: usize) -> usize {
    let mut at = 0;
    if let Some(tree) = tree {
        let root = tree.root_node();
        let mut c = root.walk();
        let found = c.goto_first_child_for_byte(offset).is_some()
            || (c.goto_first_child() && {
                while c.goto_next_sibling() {}
                true
            });
        if found {
            let n = c.node();
            if n.start_byte() <= offset && offset < n.end_byte() && !n.has_error() && !n.is_extra()
            {
                at = n.start_byte();
            } else {
                for _ in 0..MAX_SIBLINGS {
                    let n = c.node();
                    let complete = !n.is_extra()
                        && !n.has_error()
                        && n.end_byte() <= offset
                        && text[n.byte_range()].trim_end().ends_with([';', '}']);
                    if complete {
                        at = n.end_byte();
                        break;
                    }
                    if !c.goto_previous_sibling() {
                        break;
                    }
                    at = c.node().start_byte();
                }
            }
        }
    }
    let min = offset.saturating_sub(MAX_BACK);
    if at < min {
        // Too far back: start at a line start, the likeliest place outside a string.
        at = text[..min].rfind('\n').map_or(min, |i| i + 1);
    }
    at.min(offset)
}

/// The brackets open at `offset`, outermost first, and whether `offset` sits inside a
/// string, template literal, comment or regular expression.
pub fn open_brackets(text: &str, tree: Option<&Tree>, offset: usize) -> (Vec<Open>, bool) {
    let offset = offset.min(text.len());
    let b = text.as_bytes();
    let mut i = floor(tree, text, offset);
    let mut stack: Vec<Open> = Vec::new();
    // The last significant byte: decides whether `/` starts a regular expression.
    let mut prev: u8 = b'(';
    while i < offset {
        let c = b[i];
        match c {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                if end >= offset {
                    return (stack, true);
                }
                i = end;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..]
                    .find("*/")
                    .map_or(text.len(), |n| i + 2 + n + 2);
                if end > offset {
                    return (stack, true);
                }
                i = end;
                continue;
            }
            b'"' | b'\'' | b'`' => {
                let end = skip_quoted(b, i, c);
                if end > offset || (end == offset && !closed(b, end, c)) {
                    return (stack, true);
                }
                i = end;
                prev = c;
                continue;
            }
            b'/' if b"(,=:[!&|?{};+-*%<>~^".contains(&prev) => {
                let end = skip_regex(b, i);
                if end > offset {
                    return (stack, true);
                }
                i = end;
                prev = b'/';
                continue;
            }
            b'(' | b'[' | b'{' => stack.push(Open {
                at: i,
                bracket: c,
                commas: 0,
            }),
            b')' | b']' | b'}' => {
                stack.pop();
            }
            b',' => {
                if let Some(top) = stack.last_mut() {
                    top.commas += 1;
                }
            }
            _ => {}
        }
        if !c.is_ascii_whitespace() {
            prev = c;
        }
        i += 1;
    }
    (stack, false)
}

/// The keys already written in the object literal whose `{` is at `open`, at its own
/// depth, before and after the cursor, except the key being typed at `word` (the start
/// of the word under the cursor). Reads to the literal's `}`, or at most [`MAX_BACK`]
/// bytes while it is still unclosed.
///
/// Why: completion inside `{ cellPadding: 3, |` offered `cellPadding` again, and a key
/// written twice in an options literal is a mistake the checker would then report.
pub fn literal_keys(text: &str, open: usize, word: usize) -> Vec<String> {
    let b = text.as_bytes();
    let end = text.len().min(open.saturating_add(MAX_BACK));
    let mut keys = Vec::new();
    let mut depth = 0usize;
    // Whether a key may start here: right after the `{` or a comma of the literal.
    let mut key_place = true;
    let mut i = open + 1;
    while i < end {
        let c = b[i];
        match c {
            _ if c.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = text[i..].find('\n').map_or(end, |n| i + n);
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = text[i + 2..].find("*/").map_or(end, |n| i + 2 + n + 2);
                continue;
            }
            _ => {}
        }
        if depth == 0 && key_place {
            key_place = false;
            let (name, after) = match c {
                b'"' | b'\'' => {
                    let e = skip_quoted(b, i, c);
                    (text.get(i + 1..e.saturating_sub(1)), e)
                }
                _ if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' => {
                    let e = b[i..]
                        .iter()
                        .position(|&x| !(x.is_ascii_alphanumeric() || x == b'_' || x == b'$'))
                        .map_or(b.len(), |n| i + n);
                    (text.get(i..e), e)
                }
                _ => (None, i),
            };
            if let Some(name) = name {
                let colon = text[after.min(text.len())..].trim_start().starts_with(':');
                if colon && !(i..=after).contains(&word) {
                    keys.push(name.to_string());
                }
                i = after.max(i + 1);
                continue;
            }
        }
        match c {
            b'"' | b'\'' | b'`' => {
                i = skip_quoted(b, i, c);
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth == 0 => break,
            b')' | b']' | b'}' => depth -= 1,
            b',' if depth == 0 => key_place = true,
            b';' if depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    keys
}

/// Whether the quoted literal that ends at `end` was closed by its quote.
fn closed(b: &[u8], end: usize, quote: u8) -> bool {
    end > 0 && b[end - 1] == quote
}

/// One past the closing quote of the literal opening at `i` (a `'`/`"` string also ends
/// at a line break: it cannot span lines, and the user is typing it).
fn skip_quoted(b: &[u8], i: usize, quote: u8) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'\n' if quote != b'`' => return j,
            c if c == quote => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// One past a regular expression literal opening at `i` (character classes may hold
/// `/`).
fn skip_regex(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    let mut class = false;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 1,
            b'[' => class = true,
            b']' => class = false,
            b'/' if !class => {
                j += 1;
                while j < b.len() && b[j].is_ascii_alphabetic() {
                    j += 1;
                }
                return j;
            }
            b'\n' => return j,
            _ => {}
        }
        j += 1;
    }
    b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at_end(text: &str) -> (Vec<(u8, usize)>, bool) {
        let (s, inside) = open_brackets(text, None, text.len());
        (s.iter().map(|o| (o.bracket, o.commas)).collect(), inside)
    }

    #[test]
    fn strings_comments_and_closed_calls_hide_their_commas() {
        assert_eq!(at_end("heading(\"a, b\", "), (vec![(b'(', 1)], false));
        assert_eq!(at_end("f('x,y', g(1, 2), "), (vec![(b'(', 2)], false));
        assert_eq!(at_end("f(/* a, b */ 1, "), (vec![(b'(', 1)], false));
        assert_eq!(at_end("f(`a, ${b}`, "), (vec![(b'(', 1)], false));
        assert_eq!(at_end("f(/,/g, "), (vec![(b'(', 1)], false));
        assert_eq!(at_end("f(a / 2, "), (vec![(b'(', 1)], false));
        assert_eq!(
            at_end("t.start(x, { a: 1, b"),
            (vec![(b'(', 1), (b'{', 1)], false)
        );
        assert!(at_end("f(\"a, ").1, "inside a string");
        assert!(at_end("f(1, // note, ").1, "inside a comment");
    }

    #[test]
    fn literal_keys_are_those_written_at_its_depth_but_the_one_typed() {
        let t = "f(x, { a: 1, \"b\": g({ c: 2 }), // d: 3\n e: [1, 2], cellP";
        let open = t.find('{').unwrap();
        let word = t.len() - "cellP".len();
        assert_eq!(literal_keys(t, open, word), ["a", "b", "e"]);
        // The key under the cursor is not "written": it is being typed.
        let a = t.find("a:").unwrap();
        assert_eq!(literal_keys(t, open, a), ["b", "e"]);
        // Keys after the cursor count, up to the literal's end.
        let t = "f({ , cellPadding: 3 }); var z = { q: 1 };";
        assert_eq!(literal_keys(t, 2, 4), ["cellPadding"]);
        // A value is no key, nor is a ternary's branch.
        assert!(literal_keys("f({ a: b ? c : d, ", 2, 99).eq(&["a"]));
    }
}

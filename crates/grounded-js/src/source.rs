//! What the parser sees of a file: engine directives and Markdown prose blanked out, so
//! that byte offsets (and therefore lines and columns) stay those of the file itself.
//!
//! Why blank instead of cut: a finding in the third fenced block of a README must carry
//! the README's own line number, and the language server maps offsets back to the open
//! buffer. Replacing every byte of a skipped line by a space (newlines kept) keeps all
//! offsets valid with no mapping table.

use std::borrow::Cow;

/// Whether `path` names a Markdown file (checked by its fenced `js` blocks).
pub fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown")
}

/// An engine directive line found in a script: `#include "lib/x.jsx"`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Directive {
    /// The directive as written, e.g. `#include`.
    pub name: String,
    /// The quoted argument without its quotes, if the line has one.
    pub argument: Option<String>,
    /// Byte range of the quoted argument, quotes included (the `file` finding's range).
    pub argument_span: Option<(usize, usize)>,
    /// Byte offset of the line's start.
    pub line_start: usize,
}

/// The text the parser should see for a file: for Markdown, only the lines inside fenced
/// `js`/`javascript` blocks (every other byte a space); for every file, engine directive
/// lines (`directives` from the Engine chunk, such as `#include`) blanked. Borrowed when
/// nothing had to change.
pub fn script_text<'a>(path: &str, text: &'a str, directives: &[String]) -> Cow<'a, str> {
    let md = is_markdown(path);
    if !md && !directives.iter().any(|d| text.contains(d.as_str())) {
        return Cow::Borrowed(text);
    }
    let mut out: Option<Vec<u8>> = None;
    let mut in_code = !md;
    let mut fence: Option<(u8, usize)> = None;
    let mut pos = 0usize;
    for line in text.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let trimmed = line_body(line, start);
        let mut blank = false;
        if md {
            let indent = line.len() - trimmed.len();
            match fence {
                None => {
                    if let Some((ch, n, info)) = fence_open(trimmed) {
                        if indent <= 3 {
                            let lang = info
                                .split(|c: char| c.is_whitespace() || c == '{' || c == ',')
                                .next()
                                .unwrap_or("")
                                .to_ascii_lowercase();
                            in_code = lang == "js" || lang == "javascript";
                            fence = Some((ch, n));
                        }
                    }
                    blank = true;
                }
                Some((ch, n)) => {
                    if fence_close(trimmed, ch, n) {
                        fence = None;
                        in_code = false;
                        blank = true;
                    } else if !in_code {
                        blank = true;
                    }
                }
            }
        }
        if !blank && in_code && is_directive(trimmed, directives) {
            blank = true;
        }
        if blank {
            let buf = out.get_or_insert_with(|| text.as_bytes().to_vec());
            for b in &mut buf[start..pos] {
                if *b != b'\n' && *b != b'\r' {
                    *b = b' ';
                }
            }
        }
    }
    match out {
        // Only whole lines were replaced by ASCII spaces, so the bytes stay UTF-8.
        Some(buf) => Cow::Owned(String::from_utf8(buf).unwrap_or_default()),
        None => Cow::Borrowed(text),
    }
}

/// A line without its indentation, and, on the first line, without a byte-order mark:
/// a buffer an editor sends may still begin with one (files read from disk lose it in
/// `grounded_textfile`), and `\u{feff}#target x` is a directive line all the same (it was
/// "unexpected `#target`" at 1:2). The mark's bytes are blanked with the line when the
/// line is, so offsets hold.
fn line_body(line: &str, start: usize) -> &str {
    let line = if start == 0 {
        grounded_textfile::without_bom(line)
    } else {
        line
    };
    line.trim_start_matches([' ', '\t'])
}

fn is_directive(trimmed: &str, directives: &[String]) -> bool {
    trimmed.starts_with('#')
        && directives.iter().any(|d| {
            trimmed.starts_with(d.as_str())
                && trimmed[d.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c.is_whitespace() || c == '"' || c == '\'')
        })
}

fn fence_open(trimmed: &str) -> Option<(u8, usize, &str)> {
    let first = *trimmed.as_bytes().first()?;
    if first != b'`' && first != b'~' {
        return None;
    }
    let n = trimmed.bytes().take_while(|&b| b == first).count();
    if n < 3 {
        return None;
    }
    let info = trimmed[n..].trim();
    if first == b'`' && info.contains('`') {
        return None;
    }
    Some((first, n, info))
}

fn fence_close(trimmed: &str, ch: u8, n: usize) -> bool {
    let k = trimmed.bytes().take_while(|&b| b == ch).count();
    k >= n && trimmed[k..].trim().is_empty()
}

/// The engine directive lines of a file (for Markdown, those inside `js` blocks), in
/// order. `directives` are the Engine chunk's prefixes.
pub fn directives(path: &str, text: &str, directives: &[String]) -> Vec<Directive> {
    if !directives.iter().any(|d| text.contains(d.as_str())) {
        return Vec::new();
    }
    let visible = if is_markdown(path) {
        // Lines outside code blocks are blanked by `script_text` without directives.
        script_text(path, text, &[])
    } else {
        Cow::Borrowed(text)
    };
    let mut out = Vec::new();
    let mut pos = 0usize;
    for line in visible.split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let trimmed = line_body(line, start);
        if !is_directive(trimmed, directives) {
            continue;
        }
        let indent = line.len() - trimmed.len();
        let name_len = trimmed
            .find(|c: char| c.is_whitespace() || c == '"' || c == '\'')
            .unwrap_or(trimmed.trim_end().len());
        let name = trimmed[..name_len].to_string();
        let rest = &trimmed[name_len..];
        let mut argument = None;
        let mut argument_span = None;
        if let Some(q) = rest.find(['"', '\'']) {
            let quote = rest.as_bytes()[q];
            if let Some(len) = rest[q + 1..].find(quote as char) {
                let abs = start + indent + name_len + q;
                argument = Some(rest[q + 1..q + 1 + len].to_string());
                argument_span = Some((abs, abs + len + 2));
            }
        }
        out.push(Directive {
            name,
            argument,
            argument_span,
            line_start: start,
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_keeps_offsets_of_js_blocks_only() {
        let md = "# T\n\n```js\nvar a = 1;\n```\n\n```text\nbad(\n```\n~~~javascript\nb();\n~~~\n";
        let s = script_text("x.md", md, &[]);
        assert_eq!(s.len(), md.len());
        assert_eq!(&s[md.find("var").unwrap()..][..10], "var a = 1;");
        assert!(!s.contains("bad"));
        assert!(s.contains("b();"));
        assert!(!s.contains('#'));
    }

    #[test]
    fn directives_are_blanked_and_read() {
        let d = vec!["#include".to_string(), "#target".to_string()];
        let t = "#target folio\n#include \"lib/x.jsx\"\nvar a;\n";
        let s = script_text("a.jsx", t, &d);
        assert_eq!(s.trim(), "var a;");
        let found = directives("a.jsx", t, &d);
        assert_eq!(found.len(), 2);
        assert_eq!(found[1].argument.as_deref(), Some("lib/x.jsx"));
        let (a, b) = found[1].argument_span.unwrap();
        assert_eq!(&t[a..b], "\"lib/x.jsx\"");
        // Without declared directives a `#` line stays (and is a syntax error).
        assert_eq!(script_text("a.js", t, &[]), t);
    }

    #[test]
    fn a_leading_byte_order_mark_does_not_hide_a_directive_or_a_fence() {
        let d = vec!["#include".to_string(), "#target".to_string()];
        let t = "\u{feff}#include \"x.jsx\"\nvar a;\n";
        let s = script_text("a.jsx", t, &d);
        assert_eq!(s.len(), t.len());
        assert_eq!(s.trim(), "var a;");
        let found = directives("a.jsx", t, &d);
        let (a, b) = found[0].argument_span.unwrap();
        assert_eq!(&t[a..b], "\"x.jsx\"");
        let md = "\u{feff}```js\nvar b;\n```\n";
        let s = script_text("a.md", md, &[]);
        assert_eq!(s.len(), md.len());
        assert_eq!(s.trim(), "var b;");
        // A mark that does not open the text is not one.
        let t = "var a;\n\u{feff}#target x\n";
        assert!(script_text("a.jsx", t, &d).contains("#target"));
    }
}

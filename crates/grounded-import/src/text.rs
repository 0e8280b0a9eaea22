//! The text around the tree: doc comments (`/** ... */` with `@param`, `@returns`,
//! `@deprecated`), `/// <reference path>` lines, and the two workarounds for gaps of
//! the TypeScript grammar that tsc does not have.
//!
//! Imports nothing of the crate; `dts` uses it.

use tree_sitter::Node;

/// A doc comment, read from `/** ... */`.
#[derive(Debug, Clone, Default)]
pub struct Doc {
    /// The prose, tags removed, lines trimmed.
    pub text: String,
    /// `@param name text`, in order.
    pub params: Vec<(String, String)>,
    /// `@returns text`.
    pub returns: Option<String>,
    /// `@deprecated text` (empty text when the tag stands alone).
    pub deprecated: Option<String>,
}

/// Works around two gaps of tree-sitter-typescript 0.23 that tsc reads without
/// complaint, found on real declaration files (types-for-adobe): a member that starts
/// with `<` (a generic call or construct signature) right after a line that ends
/// without `;` is read as the end of the previous line's type, so a `;` is added
/// there; and `using` as a parameter or property name is read as the keyword of
/// `using` declarations, so it is written `usinG` (same length: offsets and lines
/// hold) and read back as `using`. Returns the text and the offsets of the renames.
pub fn work_around(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len() + 64);
    let mut in_comment = false;
    // Byte length of `out` at the end of the last code line's code.
    let mut last_code_end: Option<(usize, char)> = None;
    for line in text.split_inclusive('\n') {
        let start = out.len();
        let trimmed = line.trim_start();
        let mut code_seen = false;
        if !in_comment && trimmed.starts_with('<') {
            if let Some((end, ch)) = last_code_end {
                if ch.is_ascii_alphanumeric() || matches!(ch, ']' | ')' | '>' | '_' | '$') {
                    out.insert(end, ';');
                }
            }
        }
        let start = if out.len() > start { start + 1 } else { start };
        out.push_str(line);
        // Where this line's code ends, outside comments.
        let bytes = line.as_bytes();
        let mut i = 0;
        let mut code_end = None;
        while i < bytes.len() {
            if in_comment {
                if line.get(i..).is_some_and(|r| r.starts_with("*/")) {
                    in_comment = false;
                    i += 2;
                    continue;
                }
                i += 1;
                continue;
            }
            let rest = line.get(i..).unwrap_or("");
            if rest.starts_with("/*") {
                in_comment = true;
                i += 2;
                continue;
            }
            if rest.starts_with("//") {
                break;
            }
            if !bytes[i].is_ascii_whitespace() {
                code_end = Some(i + 1);
                code_seen = true;
            }
            i += 1;
        }
        if code_seen {
            if let Some(e) = code_end {
                let ch = line[..e].chars().last().unwrap_or(' ');
                last_code_end = Some((start + e, ch));
            }
        }
    }
    let mut masked = Vec::new();
    let mut from = 0;
    while let Some(at) = out.get(from..).and_then(|r| r.find("using")) {
        let i = from + at;
        from = i + 5;
        let before = out.get(..i).and_then(|b| b.chars().last()).unwrap_or(' ');
        let after = out.get(i + 5..).unwrap_or("").trim_start();
        let named = after.trim_start_matches('?').trim_start().starts_with(':')
            && !(before.is_ascii_alphanumeric() || matches!(before, '_' | '$' | '.'));
        if named {
            out.replace_range(i..i + 5, "usinG");
            masked.push(i);
        }
    }
    (out, masked)
}

/// `/// <reference path="x" />` → `x`.
pub fn reference_path(comment: &str) -> Option<String> {
    let rest = comment.strip_prefix("///")?.trim_start();
    let rest = rest.strip_prefix("<reference")?;
    let at = rest.find("path")?;
    let rest = rest
        .get(at + 4..)?
        .trim_start()
        .strip_prefix('=')?
        .trim_start();
    let q = rest.chars().next()?;
    if q != '"' && q != '\'' {
        return None;
    }
    let body = rest.get(1..)?;
    let end = body.find(q)?;
    Some(body.get(..end)?.to_string())
}

/// The doc comment right before `kids[i]`: the nearest preceding `/** */` comment,
/// with nothing but other comments between.
pub fn doc_before(kids: &[Node], i: usize, src: &str) -> Doc {
    let mut j = i;
    while j > 0 {
        j -= 1;
        let k = kids[j];
        if k.kind() != "comment" {
            break;
        }
        let t = src.get(k.byte_range()).unwrap_or("");
        if t.starts_with("/**") {
            // `work_around`'s renames stay out of the prose.
            return parse_doc(&t.replace("usinG", "using"));
        }
    }
    Doc::default()
}

/// Reads a `/** ... */` comment: prose, `@param`, `@returns`, `@deprecated`; other tags
/// stay in the prose as written.
pub fn parse_doc(c: &str) -> Doc {
    let body = c.strip_prefix("/**").unwrap_or(c);
    let body = body.strip_suffix("*/").unwrap_or(body);
    let mut doc = Doc::default();
    let mut prose: Vec<String> = Vec::new();
    // Which part a continuation line belongs to.
    enum At {
        Prose,
        Param,
        Returns,
        Deprecated,
    }
    let mut at = At::Prose;
    for line in body.lines() {
        let l = line.trim();
        let l = l.strip_prefix('*').unwrap_or(l);
        let l = l.strip_prefix(' ').unwrap_or(l).trim_end();
        if let Some(rest) = l.strip_prefix("@param") {
            let rest = rest.trim_start();
            // `@param {T} name text`: the braces are a JSDoc type, not part of the name.
            let rest = match rest.strip_prefix('{') {
                Some(r) => r.split_once('}').map(|(_, b)| b.trim_start()).unwrap_or(""),
                None => rest,
            };
            let (name, text) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            let name = name
                .trim_matches(['[', ']'])
                .split('=')
                .next()
                .unwrap_or("");
            let text = text.trim_start().trim_start_matches('-').trim();
            doc.params.push((name.to_string(), text.to_string()));
            at = At::Param;
        } else if let Some(rest) = l
            .strip_prefix("@returns")
            .or_else(|| l.strip_prefix("@return"))
        {
            doc.returns = Some(rest.trim().to_string());
            at = At::Returns;
        } else if let Some(rest) = l.strip_prefix("@deprecated") {
            doc.deprecated = Some(rest.trim().to_string());
            at = At::Deprecated;
        } else if l.starts_with('@') {
            prose.push(l.to_string());
            at = At::Prose;
        } else {
            let add = |s: &mut String| {
                if !l.is_empty() {
                    if !s.is_empty() {
                        s.push(' ');
                    }
                    s.push_str(l);
                }
            };
            match at {
                At::Prose => prose.push(l.to_string()),
                At::Param => {
                    if let Some(p) = doc.params.last_mut() {
                        add(&mut p.1)
                    }
                }
                At::Returns => {
                    if let Some(r) = doc.returns.as_mut() {
                        add(r)
                    }
                }
                At::Deprecated => {
                    if let Some(r) = doc.deprecated.as_mut() {
                        add(r)
                    }
                }
            }
        }
    }
    while prose.last().is_some_and(|l| l.is_empty()) {
        prose.pop();
    }
    while prose.first().is_some_and(|l| l.is_empty()) {
        prose.remove(0);
    }
    doc.text = prose.join("\n");
    doc
}

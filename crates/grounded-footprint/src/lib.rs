//! `footprint`: a construct is all of its lines, not the one that matched.
//!
//! An agent asked to "remove the table" that deletes the `tableStart` line it found
//! leaves rows and cells floating in whatever comes next, and the `var t = new Table()`
//! and `t.columns = 3` lines dangling. The footprint of a construct instance is every
//! line of it: its object's declaration and configuration, the Start call, everything
//! up to the matching End (nesting counted), and the End call. The footprint of a
//! variable is every statement that declares or configures it.
//!
//! This layer also holds the two operations built on footprints: project search
//! ([`find`]) and deletion that can only shrink a file ([`delete`]).
//!
//! Invariant: depends on `docs` (which calls are constructs) and `js` (parsing, and
//! what each name refers to: the checker's scopes) only; every construct comes from the
//! corpus, none is named here.

#![warn(missing_docs)]

pub mod analysis;
pub mod constructs;
pub mod delete;
pub mod find;

use std::ops::Range;

use serde::Serialize;

use grounded_docs::Corpus;

pub use analysis::Analysis;
pub use delete::{
    delete_lines, delete_lines_in_text, parse_delete_marks, DeleteOutcome, DeleteRefusal, FileStamp,
};
pub use find::{find_in_files, FindOptions, FindResult};

/// One construct instance in a script.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConstructInstance {
    /// The construct's id (`table`).
    pub construct: String,
    /// The variable passed to Start, if Start took a plain identifier.
    pub object: Option<String>,
    /// 1-based line of Start.
    pub start_line: usize,
    /// 1-based line of End (of Start when unclosed).
    pub end_line: usize,
    /// The whole footprint, 1-based inclusive line ranges, sorted, merged: the
    /// object's declaration and configuration, Start through End.
    pub lines: Vec<(usize, usize)>,
    /// The lines outside the footprint that still name the object (`log(t.rows)`,
    /// `return t;`), 1-based inclusive ranges: removing the footprint alone would
    /// leave them using a variable nothing declares.
    pub uses: Vec<(usize, usize)>,
    /// Byte range of the Start call's member name (`tableStart`), for editors.
    #[serde(skip)]
    pub start_span: Range<usize>,
    /// Byte range of the End call's member name, `None` when unclosed.
    #[serde(skip)]
    pub end_span: Option<Range<usize>>,
}

impl ConstructInstance {
    /// Whether the instance has a matching End.
    pub fn is_closed(&self) -> bool {
        self.end_span.is_some()
    }

    /// The 1-based numbers of every line of the footprint, ascending: the marks that
    /// [`delete_lines`] takes to remove the instance.
    pub fn line_numbers(&self) -> Vec<usize> {
        self.lines.iter().flat_map(|&(a, b)| a..=b).collect()
    }

    /// The byte ranges of the footprint's whole lines in `text` (line endings
    /// included), ascending and disjoint: what an editor deletes to remove it.
    pub fn byte_spans(&self, text: &str) -> Vec<Range<usize>> {
        line_spans(text, &self.lines)
    }
}

/// What *Remove this ...* deletes for an instance, and what it cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Removal {
    /// The footprint and the object's other uses that are whole statements only
    /// reading it (`log(t.rows);`), 1-based inclusive ranges, merged.
    pub lines: Vec<(usize, usize)>,
    /// 1-based lines that still use the object after the removal (`return t;`,
    /// `total += t.rows;`): the user decides.
    pub still_used: Vec<usize>,
}

/// The lines removing `inst` deletes: its footprint, and each of its object's other
/// uses that is a whole statement of its own lines doing nothing but reading the
/// object (an expression statement with no assignment, naming no other variable than
/// the object except as the function it calls). Any other use is listed as still
/// using the object rather than guessed at.
pub fn removal(text: &str, tree: &tree_sitter::Tree, inst: &ConstructInstance) -> Removal {
    let mut lines = inst.lines.clone();
    let mut still_used = Vec::new();
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    for &(a, b) in &inst.uses {
        for line in a..=b {
            match reading_statement(text, tree, &starts, line, inst.object.as_deref()) {
                Some(range) => lines.push(range),
                None => still_used.push(line),
            }
        }
    }
    Removal {
        lines: merge_ranges(lines),
        still_used,
    }
}

/// The rows (1-based, inclusive) of the statement on `line` when it only reads
/// `object` and owns its lines.
fn reading_statement(
    text: &str,
    tree: &tree_sitter::Tree,
    starts: &[usize],
    line: usize,
    object: Option<&str>,
) -> Option<(usize, usize)> {
    let object = object?;
    let ls = *starts.get(line.checked_sub(1)?)?;
    let le = starts.get(line).copied().unwrap_or(text.len());
    let first = ls + text.get(ls..le)?.find(|c: char| !c.is_whitespace())?;
    let mut n = tree.root_node().descendant_for_byte_range(first, first)?;
    loop {
        let p = n.parent()?;
        if matches!(
            p.kind(),
            "program" | "statement_block" | "switch_case" | "switch_default"
        ) {
            break;
        }
        n = p;
    }
    if n.kind() != "expression_statement" {
        return None;
    }
    // The statement owns its lines: nothing before it on its first line, nothing
    // after it on its last.
    let (s, e) = (n.start_byte(), n.end_byte());
    let line_end = text[e..].find('\n').map_or(text.len(), |i| e + i);
    if !text[ls..s].trim().is_empty() || !text[e..line_end].trim().is_empty() {
        return None;
    }
    let mut stack = vec![n];
    while let Some(x) = stack.pop() {
        match x.kind() {
            "assignment_expression"
            | "augmented_assignment_expression"
            | "update_expression"
            | "function_expression"
            | "arrow_function" => return None,
            "identifier" => {
                let name = text.get(x.byte_range()).unwrap_or("");
                let callee = x.parent().is_some_and(|p| {
                    p.kind() == "call_expression" && p.child_by_field_name("function") == Some(x)
                });
                if name != object && !callee {
                    return None;
                }
            }
            _ => {
                let mut c = x.walk();
                stack.extend(x.named_children(&mut c));
            }
        }
    }
    Some((n.start_position().row + 1, n.end_position().row + 1))
}

/// Every construct instance of a script, in order of its Start.
pub fn instances(corpus: &Corpus, text: &str, tree: &tree_sitter::Tree) -> Vec<ConstructInstance> {
    if !mentions_constructs(corpus, text) {
        return Vec::new();
    }
    let an = Analysis::new(text, tree, Some(corpus));
    constructs::instances_of(&an)
}

/// Whether the text names any construct's Start or End at all: a script that does not
/// is not walked (most files of a project, most of the time).
pub fn mentions_constructs(corpus: &Corpus, text: &str) -> bool {
    corpus
        .constructs
        .values()
        .any(|c| text.contains(c.start.as_str()) || text.contains(c.end.as_str()))
}

/// The construct instance whose footprint holds byte `offset`, the innermost when
/// they nest (the language server's "Remove this table").
///
/// It reads only the function around the offset, widening to enclosing functions (and
/// at last the whole script) while the construct or its object's declaration lies
/// outside: on a huge script a query costs the size of one function, not the file.
pub fn instance_at(
    corpus: &Corpus,
    text: &str,
    tree: &tree_sitter::Tree,
    offset: usize,
) -> Option<ConstructInstance> {
    let offset = offset.min(text.len());
    let line = text
        .get(..offset)
        .map_or(1, |h| h.matches('\n').count() + 1);
    // The functions around the offset, innermost first; the program last.
    let mut scopes = Vec::new();
    let mut cursor = tree.walk();
    while cursor.goto_first_child_for_byte(offset).is_some() {
        let n = cursor.node();
        if n.start_byte() > offset {
            break;
        }
        if grounded_js::is_function_kind(n.kind_id()) {
            scopes.push(n);
        }
    }
    scopes.reverse();
    scopes.push(tree.root_node());
    let last = scopes.len() - 1;
    for (k, top) in scopes.into_iter().enumerate() {
        let an = Analysis::of_node(text, tree, top, Some(corpus));
        let best = constructs::resolved_instances(&an)
            .into_iter()
            .filter(|(i, _)| i.lines.iter().any(|&(a, b)| a <= line && line <= b))
            .min_by_key(|(i, _)| i.lines.iter().map(|&(a, b)| b - a + 1).sum::<usize>());
        match best {
            Some((i, settled)) if settled || k == last => return Some(i),
            _ => {}
        }
    }
    None
}

/// Where to look for variables: a byte offset (the identifier there) or a 1-based line
/// (every declared variable used on it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// A byte offset in the text.
    Offset(usize),
    /// A 1-based line.
    Line(usize),
}

/// The footprint of one declared variable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct VariableFootprint {
    /// The variable's name.
    pub name: String,
    /// 1-based line of its declaration.
    pub declared_line: usize,
    /// Every line that declares or configures it, 1-based, ascending.
    pub lines: Vec<usize>,
}

/// The footprints of the declared variables at `at`: every line that declares or
/// configures each (`var box = new Block()`, each `box.prop = ...`, each call that
/// takes it), in order. Globals (names no scope declares, such as `layout`) never
/// expand.
pub fn variable_footprint(text: &str, tree: &tree_sitter::Tree, at: At) -> Vec<VariableFootprint> {
    let an = Analysis::new(text, tree, None);
    variables_at(&an, at)
}

/// [`variable_footprint`] on an analysis already made (one per file, many queries).
pub fn variables_at(an: &Analysis, at: At) -> Vec<VariableFootprint> {
    let mut bindings: Vec<usize> = Vec::new();
    match at {
        At::Offset(o) => bindings.extend(an.js.ref_at(o).and_then(|r| an.variable(r))),
        At::Line(l) if l >= 1 => {
            for r in an.js.refs_on_row(l - 1) {
                if let Some(b) = an.variable(r) {
                    if !bindings.contains(&b) {
                        bindings.push(b);
                    }
                }
            }
        }
        At::Line(_) => {}
    }
    bindings
        .into_iter()
        .map(|b| {
            let mut lines: Vec<usize> = an
                .uses_of(b)
                .flat_map(|u| u.start_row + 1..=u.end_row + 1)
                .collect();
            lines.sort_unstable();
            lines.dedup();
            VariableFootprint {
                name: an.name(b).to_string(),
                declared_line: an.decl_row(b) + 1,
                lines,
            }
        })
        .collect()
}

/// Sorts 1-based inclusive ranges and merges those that overlap or touch.
pub fn merge_ranges(mut r: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    r.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(r.len());
    for (a, b) in r {
        match out.last_mut() {
            Some(last) if a <= last.1 + 1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// The byte ranges of whole 1-based lines of `text`, each with its line ending;
/// ranges past the end are dropped, adjacent ones merged.
pub fn line_spans(text: &str, lines: &[(usize, usize)]) -> Vec<Range<usize>> {
    // Lines as every reader counts them (a lone CR ends a line too): a CR-only file read
    // as one line made "delete line 1" delete the whole file.
    let lf = grounded_textfile::normalize_cr(text);
    let mut starts = vec![0];
    starts.extend(lf.match_indices('\n').map(|(i, _)| i + 1));
    if starts.last() == Some(&text.len()) && !text.is_empty() {
        starts.pop();
    }
    let n = starts.len();
    let mut out: Vec<Range<usize>> = Vec::new();
    for &(a, b) in &merge_ranges(lines.to_vec()) {
        if a == 0 || a > n {
            continue;
        }
        let b = b.min(n);
        let s = starts[a - 1];
        let e = starts.get(b).copied().unwrap_or(text.len());
        match out.last_mut() {
            Some(last) if last.end == s => last.end = e,
            _ => out.push(s..e),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merges_touching_ranges() {
        assert_eq!(
            merge_ranges(vec![(5, 7), (3, 3), (4, 4), (10, 12), (11, 11)]),
            vec![(3, 7), (10, 12)]
        );
    }

    #[test]
    fn spans_of_whole_lines() {
        let t = "a\nbb\nccc";
        assert_eq!(line_spans(t, &[(2, 2)]), vec![2..5]);
        assert_eq!(line_spans(t, &[(3, 3)]), vec![5..8]);
        assert_eq!(line_spans(t, &[(1, 1), (2, 2)]), vec![0..5]);
        assert!(line_spans(t, &[(4, 4)]).is_empty());
    }
}

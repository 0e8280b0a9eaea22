//! The certain interface of an expression, for hover, completion and signature help.
//!
//! The checker's receiver typing ([`grounded_js::Analysis`]) is the authority: an
//! expression the buffer's tree holds is typed by it, so hover and completion agree with
//! the diagnostics. While the user types, the receiver before a `.` is often not a node
//! of the tree (`layout.currentPage().` parses as an error); then the receiver chain is
//! cut from the text and typed here by the same rules (interfaces.md, "certain receivers
//! only"): a documented global not declared in the file; a variable the checker types
//! (declared once in the file) or, else, whose every assignment is `new X()` of a
//! documented constructor; a member whose type is exactly one interface, reached from a
//! certain receiver. Anything else has no interface, and
//! the editor offers nothing rather than guess.

use tree_sitter::{Node, Tree};

use grounded_docs::{Corpus, Member};
use grounded_js::{Analysis, Seed};

/// From this size on, a request analyses only the top-level statement under the cursor,
/// with the rest of the file standing in as the checker's last [`Seed`].
///
/// Why: hover and completion analysed the whole buffer for every request, and on a
/// 7.8 MB script that is hundreds of milliseconds while the check of the last keystroke
/// is still running: the editor felt frozen. Smaller files keep the whole analysis,
/// which also knows the positions of declarations in other statements.
pub const LOCAL_ANALYSIS_BYTES: usize = 1 << 20;

/// The file an expression lives in: names resolve against its declarations.
pub struct FileCtx<'a> {
    /// The corpus.
    pub corpus: &'a Corpus,
    /// The whole file's text.
    pub text: &'a str,
    /// The whole file's tree.
    pub tree: &'a Tree,
    /// The checker's analysis of the file (or of the statement at the request's
    /// offset, see [`FileCtx::at`]).
    pub analysis: Analysis<'a>,
    /// Whether `analysis` covers only one top-level statement: the program scope's
    /// bindings then come from the seed, without their positions.
    pub local: bool,
}

fn text_of<'s>(node: Node, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// The checker's `seed` cut to the names the statement at `offset` spells (see
/// [`FileCtx::at`]), when the file is large enough to be analysed by statement.
///
/// Why: a statement analysed with all of a 7.8 MB script's 68,000 top-level names and
/// 34,000 polyfills spent 25 ms inserting them, for each hover; a name the statement
/// never spells cannot change how it is read. Completion offers the rest from the
/// whole seed itself.
pub fn request_seed(seed: Option<&Seed>, text: &str, tree: &Tree, offset: usize) -> Option<Seed> {
    let seed = seed.filter(|_| text.len() >= LOCAL_ANALYSIS_BYTES)?;
    let node = top_level_at(tree, offset)?;
    Some(seed.spelt_in(text.get(node.byte_range()).unwrap_or_default()))
}

/// The top-level node holding `offset`, else the last one starting before it.
pub fn top_level_at(tree: &Tree, offset: usize) -> Option<Node<'_>> {
    let root = tree.root_node();
    let mut c = root.walk();
    if c.goto_first_child_for_byte(offset).is_some() {
        if c.node().start_byte() > offset {
            // Between statements: the one before (else the first, after it).
            c.goto_previous_sibling();
        }
        return Some(c.node());
    }
    root.child(root.child_count().checked_sub(1)?)
}

/// Walks every node of a tree, depth first.
pub fn walk(tree: &Tree, mut f: impl FnMut(Node)) {
    let mut cursor = tree.walk();
    loop {
        f(cursor.node());
        if cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

impl<'a> FileCtx<'a> {
    /// Analyses the file.
    pub fn new(corpus: &'a Corpus, text: &'a str, tree: &'a Tree) -> FileCtx<'a> {
        FileCtx {
            corpus,
            text,
            tree,
            analysis: Analysis::new(corpus, text, tree),
            local: false,
        }
    }

    /// The context a request at `offset` needs: the whole file analysed, or on a file of
    /// [`LOCAL_ANALYSIS_BYTES`] and more, with the checker's last `seed`, the top-level
    /// statement holding `offset` (or the last one before it) alone.
    pub fn at(
        corpus: &'a Corpus,
        text: &'a str,
        tree: &'a Tree,
        offset: usize,
        seed: Option<&'a Seed>,
    ) -> FileCtx<'a> {
        let (Some(seed), true) = (seed, text.len() >= LOCAL_ANALYSIS_BYTES) else {
            return FileCtx::new(corpus, text, tree);
        };
        let Some(node) = top_level_at(tree, offset) else {
            return FileCtx::new(corpus, text, tree);
        };
        FileCtx {
            corpus,
            text,
            tree,
            analysis: Analysis::for_node(corpus, text, tree, node, seed),
            local: true,
        }
    }

    /// The certain interface of a node of the file's own tree (the checker's answer).
    pub fn node_interface(&self, node: Node<'a>) -> Option<String> {
        self.analysis.interface_of(node)
    }

    /// The interfaces a node of the file's tree may be when the checker reads it as a
    /// union the docs give (interfaces.md, "What modern typings say"); `None` otherwise.
    pub fn node_union(&self, node: Node<'a>) -> Option<Vec<&'a str>> {
        match self.analysis.certain(node)? {
            grounded_js::Certain::Union(u) => Some(u.interfaces().collect()),
            _ => None,
        }
    }

    /// The documented member a `member_expression` of the file's tree names: of its
    /// receiver's interface, or of the first interface of its union that has it.
    pub fn node_member(&self, member_expr: Node<'a>) -> Option<&'a Member> {
        let obj = member_expr.child_by_field_name("object")?;
        let prop = member_expr.child_by_field_name("property")?;
        let name = text_of(prop, self.text);
        match self.node_interface(obj) {
            Some(iface) => self.corpus.member(&iface, name),
            None => self
                .node_union(obj)?
                .into_iter()
                .find_map(|i| self.corpus.member(i, name)),
        }
    }

    /// [`FileCtx::node_union`] of the node spanning exactly `[start, end)`.
    pub fn range_union(&self, start: usize, end: usize) -> Option<Vec<&'a str>> {
        let root = self.tree.root_node();
        let mut n = root.named_descendant_for_byte_range(start, end);
        while let Some(x) = n {
            if x.start_byte() != start || x.end_byte() != end {
                break;
            }
            if let Some(u) = self.node_union(x) {
                return Some(u);
            }
            n = x.parent();
        }
        None
    }

    /// The certain interface of the receiver spanning `[start, end)` of the file: the
    /// tree's node when it has one with exactly that range, else the chain cut from the
    /// text.
    pub fn range_interface(&self, start: usize, end: usize) -> Option<String> {
        let root = self.tree.root_node();
        let mut n = root.named_descendant_for_byte_range(start, end);
        while let Some(x) = n {
            if x.start_byte() != start || x.end_byte() != end {
                break;
            }
            if !x.has_error() {
                if let Some(i) = self.node_interface(x) {
                    return Some(i);
                }
            }
            n = x.parent();
        }
        let snippet = self.text.get(start..end)?;
        let t = parse_snippet(snippet);
        let e = snippet_expr(&t)?;
        self.interface_of(e, snippet)
    }

    /// The documented member named by a receiver chain cut from the text and parsed
    /// alone (`snippet`), e.g. the callee of an unclosed call.
    pub fn snippet_member(&self, e: Node, snippet: &str) -> Option<&'a Member> {
        match e.kind() {
            "member_expression" => self.member_at(e, snippet),
            "identifier" => self.corpus.global_member(text_of(e, snippet)),
            _ => None,
        }
    }

    /// The interface of a variable name used in this file, when certain (the text-cut
    /// fallback's reading).
    pub fn name_interface(&self, name: &str) -> Option<String> {
        // The checker's answer when the file declares the name once: a variable typed
        // from the docs (`var r = sheet.range("A1")`) while its use is being typed.
        let a = &self.analysis;
        let mut named = a
            .bindings
            .iter()
            .enumerate()
            .filter(|(_, b)| b.name == name);
        if let (Some((id, _)), None) = (named.next(), named.next()) {
            return match a.binding_certain_type(id) {
                Some(grounded_js::Certain::Interface(i)) => Some(i.to_string()),
                _ => None,
            };
        }
        let src = self.text;
        let mut declared = false;
        let mut uncertain = false;
        let mut seen: Option<String> = None;
        let mut note = |iface: Option<String>, uncertain: &mut bool| match iface {
            Some(i) if seen.as_ref().is_none_or(|s| *s == i) => seen = Some(i),
            _ => *uncertain = true,
        };
        walk(self.tree, |n| {
            if uncertain {
                return;
            }
            let named = n.child_by_field_name("name").map(|x| text_of(x, src)) == Some(name);
            match n.kind() {
                "variable_declarator" if named => {
                    declared = true;
                    if let Some(v) = n.child_by_field_name("value") {
                        note(self.new_interface(v, src), &mut uncertain);
                    }
                }
                "assignment_expression" => {
                    let left = n.child_by_field_name("left");
                    if left.map(|x| x.kind() == "identifier" && text_of(x, src) == name)
                        == Some(true)
                    {
                        declared = true;
                        let v = n.child_by_field_name("right");
                        note(v.and_then(|v| self.new_interface(v, src)), &mut uncertain);
                    }
                }
                "formal_parameters" | "catch_clause" => {
                    let mut c = n.walk();
                    for p in n.named_children(&mut c) {
                        if p.kind() == "identifier" && text_of(p, src) == name {
                            uncertain = true;
                        }
                    }
                }
                "function_declaration" | "function_expression" | "class_declaration" if named => {
                    uncertain = true;
                }
                "binary_expression" => {
                    // `x instanceof Y` narrows to a subtype this reading does not follow.
                    let op = n.child_by_field_name("operator").map(|o| text_of(o, src));
                    let left = n.child_by_field_name("left").map(|l| text_of(l, src));
                    if op == Some("instanceof") && left == Some(name) {
                        uncertain = true;
                    }
                }
                _ => {}
            }
        });
        if uncertain {
            return None;
        }
        if declared {
            return seen;
        }
        self.corpus
            .global_interface(name)
            .or_else(|| grounded_js::global_value_interface(self.corpus, name))
            .map(str::to_string)
    }

    fn new_interface(&self, v: Node, src: &str) -> Option<String> {
        if v.kind() != "new_expression" {
            return None;
        }
        let c = v.child_by_field_name("constructor")?;
        self.corpus
            .constructors
            .get(text_of(c, src))
            .map(|c| c.interface.clone())
    }

    /// The certain interface of `node`, an expression whose text is in `src` (the file's
    /// text, or a snippet cut from it while the user types).
    pub fn interface_of(&self, node: Node, src: &str) -> Option<String> {
        match node.kind() {
            "identifier" => self.name_interface(text_of(node, src)),
            "parenthesized_expression" => self.interface_of(node.named_child(0)?, src),
            "new_expression" => self.new_interface(node, src),
            "member_expression" => {
                let m = self.member_at(node, src)?;
                // `layout.currentPage` without a call is a function value, not a Page.
                if is_method(m) {
                    return None;
                }
                m.value_type().interface().map(str::to_string)
            }
            "call_expression" => {
                let f = node.child_by_field_name("function")?;
                let m = match f.kind() {
                    "member_expression" => self.member_at(f, src)?,
                    "identifier" => self.corpus.global_member(text_of(f, src))?,
                    _ => return None,
                };
                if !is_method(m) {
                    return None;
                }
                m.value_type().interface().map(str::to_string)
            }
            _ => None,
        }
    }

    /// The documented member a `member_expression` names, with its receiver's interface.
    pub fn member_at(&self, member_expr: Node, src: &str) -> Option<&'a Member> {
        let obj = member_expr.child_by_field_name("object")?;
        let prop = member_expr.child_by_field_name("property")?;
        let iface = self.interface_of(obj, src)?;
        self.corpus.member(&iface, text_of(prop, src))
    }
}

fn is_method(m: &Member) -> bool {
    m.overloads.first().is_some_and(|s| s.is_method())
}

/// Parses a snippet cut from the buffer (a receiver chain such as `layout.currentPage()`)
/// and returns its tree; the expression is the first statement's child.
pub fn parse_snippet(snippet: &str) -> Tree {
    grounded_js::parse(snippet)
}

/// The expression of a snippet parsed with [`parse_snippet`].
pub fn snippet_expr(tree: &Tree) -> Option<Node<'_>> {
    let stmt = tree.root_node().named_child(0)?;
    if stmt.kind() != "expression_statement" {
        return None;
    }
    stmt.named_child(0)
}

/// Cuts the receiver chain ending at byte `end` (exclusive) out of `text`: identifiers,
/// dots and balanced brackets, e.g. `layout.currentPage()` before a `.`. Returns its start.
pub fn chain_start(text: &str, end: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut i = end;
    let mut depth = 0i32;
    while i > 0 {
        let c = b[i - 1];
        match c {
            b')' | b']' => depth += 1,
            b'(' | b'[' => {
                if depth == 0 {
                    break;
                }
                depth -= 1;
            }
            b'\n' if depth == 0 => break,
            _ if depth > 0 => {}
            b'.' => {}
            c if c.is_ascii_alphanumeric() || c == b'_' || c == b'$' => {}
            c if c >= 0x80 => {}
            b' ' | b'\t' => {
                // `new X()` is a chain too.
                let before = &text[..i - 1];
                if before.ends_with("new") {
                    i -= 1 + 3;
                    continue;
                }
                break;
            }
            _ => break,
        }
        i -= 1;
    }
    (i < end && depth == 0).then_some(i)
}

//! A pre-order walk of a syntax tree that never asks the cursor for a sibling that is
//! not there.
//!
//! Why: tree-sitter's `goto_next_sibling` on a last child does not fail at once. It pops
//! the cursor's stack through every hidden parent (`_expression`, `_statement`...),
//! iterates what follows, and then restores the stack. A walk calls it once per parent
//! node, and on a 10,000-line script those failures were a tenth of the checker's walk.
//! A node's `child_count` (the visible children, which is exactly what the cursor
//! visits) is stored in the tree, so the walk counts down instead of probing.

use tree_sitter::{Node, TreeCursor};

/// Every node of a subtree in document order (a parent before its children), with
/// its depth below the walk's root (the root is at depth 0).
///
/// ```
/// let tree = grounded::js::parse("f(a);");
/// let mut walk = grounded::js::Preorder::new(tree.root_node());
/// let mut kinds = Vec::new();
/// while let Some((node, depth)) = walk.next() {
///     kinds.push((node.kind(), depth));
/// }
/// assert_eq!(kinds[0], ("program", 0));
/// assert!(kinds.contains(&("arguments", 3)));
/// ```
pub struct Preorder<'t> {
    cursor: TreeCursor<'t>,
    /// Siblings still to visit after the current node, per depth.
    left: Vec<u32>,
    /// The node returned last, whose children come next unless skipped.
    last: Option<Node<'t>>,
    started: bool,
}

impl<'t> Preorder<'t> {
    /// A walk of `root`'s subtree (nothing outside it, even when `root` has siblings).
    pub fn new(root: Node<'t>) -> Preorder<'t> {
        Preorder {
            cursor: root.walk(),
            left: vec![0],
            last: None,
            started: false,
        }
    }

    /// The next node and its depth, or `None` when the subtree is done.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<(Node<'t>, usize)> {
        if !self.started {
            self.started = true;
            let node = self.cursor.node();
            self.last = Some(node);
            return Some((node, 0));
        }
        if let Some(last) = self.last.take() {
            let kids = last.child_count() as u32;
            if kids > 0 && self.cursor.goto_first_child() {
                self.left.push(kids - 1);
                return self.here();
            }
        }
        loop {
            let more = self.left.last_mut()?;
            if *more > 0 {
                *more -= 1;
                if self.cursor.goto_next_sibling() {
                    return self.here();
                }
            }
            self.left.pop();
            if self.left.is_empty() || !self.cursor.goto_parent() {
                self.left.clear();
                return None;
            }
        }
    }

    /// Do not visit the children of the node returned last (strings, comments: nothing
    /// inside them matters).
    pub fn skip_children(&mut self) {
        self.last = None;
    }

    fn here(&mut self) -> Option<(Node<'t>, usize)> {
        let node = self.cursor.node();
        self.last = Some(node);
        Some((node, self.left.len() - 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain cursor walk, probing for siblings: what `Preorder` must equal.
    fn probing(root: Node) -> Vec<(usize, usize, usize, u16)> {
        let mut out = Vec::new();
        let mut c = root.walk();
        let mut depth = 0;
        loop {
            let n = c.node();
            out.push((n.start_byte(), n.end_byte(), depth, n.kind_id()));
            if c.goto_first_child() {
                depth += 1;
                continue;
            }
            loop {
                if c.goto_next_sibling() {
                    break;
                }
                if !c.goto_parent() {
                    return out;
                }
                depth -= 1;
            }
        }
    }

    fn counted(root: Node) -> Vec<(usize, usize, usize, u16)> {
        let mut out = Vec::new();
        let mut w = Preorder::new(root);
        while let Some((n, depth)) = w.next() {
            out.push((n.start_byte(), n.end_byte(), depth, n.kind_id()));
        }
        out
    }

    const SCRIPTS: &[&str] = &[
        "",
        "f(a);",
        "var x = { a: 1, b: [1, 2, , 3], 'c': function (p, q) { return p ? q : -p; } };\n// done\n",
        "/* c */ if (a) { b(); } else if (c) d(); else { try { e() } catch (x) { throw x } finally { } }",
        "for (var i = 0; i < 3; i++) { switch (i) { case 1: break; default: continue; } }",
        "class A extends B { get x() { return `a${1 + `b${2}`}`; } }\nconst f = async (...a) => { for (const [k, v] of a) yield* k; };",
        // Broken input: ERROR and MISSING nodes are children like any other.
        "function (a, { var x = ;\n f(1,, 2\n} } ) layout.tableStart(",
        "a.b.c.d(e.f(g.h(i)))[j]['k'] = new L(m, new N());",
        "x = /re[/]gex/gi.test(\"s\\\"tr\") && 0x1F || 1e3 || 'q';",
    ];

    #[test]
    fn visits_exactly_what_a_probing_walk_visits() {
        for src in SCRIPTS {
            let tree = crate::js::parse(src);
            assert_eq!(
                counted(tree.root_node()),
                probing(tree.root_node()),
                "{src}"
            );
        }
    }

    #[test]
    fn wide_nodes_are_visited_whole() {
        // Many children at several levels: the program, a block, an array, arguments.
        let items: Vec<String> = (0..40).map(|i| format!("a{i}")).collect();
        let mut src = String::new();
        for i in 0..30 {
            src.push_str(&format!(
                "f{i}([{}], {});\n",
                items.join(", "),
                items.join(", ")
            ));
        }
        src.push_str(&format!("function g() {{ {} }}\n", "x(); ".repeat(50)));
        src.push_str("broken(, ;\n");
        let tree = crate::js::parse(&src);
        let walked = counted(tree.root_node());
        assert_eq!(walked, probing(tree.root_node()));
        assert!(walked.len() > 5_000, "{}", walked.len());
    }

    #[test]
    fn stays_inside_a_subtree_and_can_skip_children() {
        let src = "f(1); g(\"two\", 3); h();";
        let tree = crate::js::parse(src);
        let second = tree.root_node().child(1).unwrap();
        let inside = counted(second);
        assert_eq!(inside, probing(second));
        assert!(inside.iter().all(|n| n.0 >= 6 && n.1 <= 18), "{inside:?}");

        let mut w = Preorder::new(tree.root_node());
        let mut kinds = Vec::new();
        while let Some((n, _)) = w.next() {
            kinds.push(n.kind());
            if n.kind() == "string" {
                w.skip_children();
            }
        }
        assert!(kinds.contains(&"string") && !kinds.contains(&"string_fragment"));
        assert!(kinds.contains(&"number"), "the walk goes on after a skip");
    }
}

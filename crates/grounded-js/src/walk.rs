//! A pre-order walk of a syntax tree that never asks for a node that is not there,
//! and can step over tokens.
//!
//! Why: a `TreeCursor` step costs several hundred instructions. Moving to a sibling
//! pops the cursor's stack through every hidden parent (`_expression`, `_statement`...)
//! and rebuilds an iterator over the parent's children; on a last child it does all
//! that only to fail, once per parent node, a tenth of the checker's walk on a
//! 10,000-line script. A node's `child_count` is stored in the tree, so the walk counts
//! down instead of probing.
//!
//! Four nodes in ten are tokens (`(`, `,`, `;`, `.`, `var`). A walk that only needs the
//! named nodes, and the tokens of a few kinds (see
//! [`crate::query::AnonymousRoots`]), asks a narrow node for its named children by
//! index (a light scan of its child array that steps over tokens without building
//! them), which took a quarter off the walk. Wide nodes (a program's statements, long
//! lists) are still stepped with a cursor: indexing from the first child each time would
//! be quadratic.

use tree_sitter::{Node, TreeCursor};

/// Above this many children a node's children are stepped with a cursor.
const WIDE: usize = 12;

/// A node whose children are being visited.
struct Frame<'t> {
    node: Node<'t>,
    /// How many children `next` counts through: all of them when stepping with the
    /// cursor or visiting tokens, else the named ones.
    count: usize,
    next: usize,
    /// Whether its tokens are visited.
    tokens: bool,
    /// For a wide node, a cursor on the child last visited; a narrow one is indexed.
    cursor: Option<TreeCursor<'t>>,
}

/// Every node of a subtree in document order (a parent before its children), with
/// its depth below the walk's root (the root is at depth 0).
///
/// ```
/// let tree = grounded_js::parse("f(a);");
/// let mut walk = grounded_js::Preorder::new(tree.root_node());
/// let mut kinds = Vec::new();
/// while let Some((node, depth)) = walk.next() {
///     kinds.push((node.kind(), depth));
/// }
/// assert_eq!(kinds[0], ("program", 0));
/// assert!(kinds.contains(&("arguments", 3)));
/// assert!(kinds.contains(&(";", 2)));
/// ```
pub struct Preorder<'t> {
    root: Node<'t>,
    /// The current node's ancestors, innermost last.
    stack: Vec<Frame<'t>>,
    /// The node returned last, whose children come next unless skipped.
    last: Option<Node<'t>>,
    started: bool,
    /// By kind id, whose tokens are visited; `None`: everyone's.
    keep_tokens: Option<&'static [bool]>,
}

impl<'t> Preorder<'t> {
    /// A walk of everything in `root`'s subtree (nothing outside it, even when `root`
    /// has siblings): named nodes, tokens, extras (comments), `ERROR` and `MISSING`
    /// nodes, exactly what a cursor walk visits.
    pub fn new(root: Node<'t>) -> Preorder<'t> {
        Preorder {
            root,
            stack: Vec::with_capacity(64),
            last: None,
            started: false,
            keep_tokens: None,
        }
    }

    /// A walk of the named nodes of `root`'s subtree, and of the tokens of the kinds
    /// `keep_tokens` marks (by kind id) and of `ERROR` nodes.
    pub fn named(root: Node<'t>, keep_tokens: &'static [bool]) -> Preorder<'t> {
        Preorder {
            keep_tokens: Some(keep_tokens),
            ..Preorder::new(root)
        }
    }

    /// The next node and its depth, or `None` when the subtree is done.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> Option<(Node<'t>, usize)> {
        if !self.started {
            self.started = true;
            self.last = Some(self.root);
            return Some((self.root, 0));
        }
        if let Some(last) = self.last.take() {
            self.open(last);
        }
        loop {
            let f = self.stack.last_mut()?;
            if f.next >= f.count {
                self.stack.pop();
                continue;
            }
            let i = f.next;
            f.next += 1;
            let child = match &mut f.cursor {
                Some(c) => {
                    let moved = if i == 0 {
                        c.goto_first_child()
                    } else {
                        c.goto_next_sibling()
                    };
                    if !moved {
                        // Counted children that are not there: not expected; never loop.
                        f.next = f.count;
                        continue;
                    }
                    let n = c.node();
                    if !f.tokens && !n.is_named() {
                        continue;
                    }
                    n
                }
                None => {
                    let n = if f.tokens {
                        f.node.child(i)
                    } else {
                        f.node.named_child(i)
                    };
                    match n {
                        Some(n) => n,
                        None => {
                            f.next = f.count;
                            continue;
                        }
                    }
                }
            };
            self.last = Some(child);
            return Some((child, self.stack.len()));
        }
    }

    /// Pushes the frame that visits `node`'s children, if it has any to visit.
    fn open(&mut self, node: Node<'t>) {
        let all = node.child_count();
        if all == 0 {
            return;
        }
        let tokens = match self.keep_tokens {
            None => true,
            Some(keep) => {
                let k = node.kind_id();
                // `ERROR` (the largest id) holds whatever the parser could not place.
                k == u16::MAX || keep.get(k as usize).copied().unwrap_or(true)
            }
        };
        let frame = if all > WIDE {
            Frame {
                node,
                count: all,
                next: 0,
                tokens,
                cursor: Some(node.walk()),
            }
        } else {
            let count = if tokens {
                all
            } else {
                node.named_child_count()
            };
            if count == 0 {
                return;
            }
            Frame {
                node,
                count,
                next: 0,
                tokens,
                cursor: None,
            }
        };
        self.stack.push(frame);
    }

    /// Do not visit the children of the node returned last (strings, comments: nothing
    /// inside them matters).
    pub fn skip_children(&mut self) {
        self.last = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plain cursor walk, probing for siblings: what `Preorder` must equal.
    fn probing(root: Node) -> Vec<(usize, usize, usize, u16)> {
        probing_where(root, None)
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
            let tree = crate::parse(src);
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
        let tree = crate::parse(&src);
        let walked = counted(tree.root_node());
        assert_eq!(walked, probing(tree.root_node()));
        assert!(walked.len() > 5_000, "{}", walked.len());
    }

    /// The probing walk, keeping what [`Preorder::named`] must visit: named nodes, and
    /// tokens whose parent keeps them or is an `ERROR`.
    fn probing_named(root: Node, keep: &[bool]) -> Vec<(usize, usize, usize, u16)> {
        probing_where(root, Some(keep))
    }

    /// The probing walk; with `keep`, only named nodes and the tokens of kept parents.
    fn probing_where(root: Node, keep: Option<&[bool]>) -> Vec<(usize, usize, usize, u16)> {
        let mut out = Vec::new();
        let mut c = root.walk();
        let mut parents: Vec<u16> = Vec::new();
        loop {
            let n = c.node();
            let shown = keep.is_none_or(|keep| {
                n.is_named()
                    || parents
                        .last()
                        .is_some_and(|&p| p == u16::MAX || keep[p as usize])
            });
            if shown {
                out.push((n.start_byte(), n.end_byte(), parents.len(), n.kind_id()));
            }
            if c.goto_first_child() {
                parents.push(n.kind_id());
                continue;
            }
            loop {
                if c.goto_next_sibling() {
                    break;
                }
                if !c.goto_parent() {
                    return out;
                }
                parents.pop();
            }
        }
    }

    #[test]
    fn the_named_walk_keeps_the_tokens_it_is_asked_to() {
        let keep = &crate::query::anonymous_roots().keep;
        let mut sources: Vec<String> = SCRIPTS.iter().map(|s| s.to_string()).collect();
        sources.push(
            "if (typeof x === 'undefined' || a instanceof B) { for (var k in o) y **= 2; }".into(),
        );
        sources.push(format!(
            "f({});\n",
            (0..30)
                .map(|i| format!("a{i}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        for src in &sources {
            let tree = crate::parse(src);
            let mut w = Preorder::named(tree.root_node(), keep);
            let mut got = Vec::new();
            while let Some((n, depth)) = w.next() {
                got.push((n.start_byte(), n.end_byte(), depth, n.kind_id()));
            }
            assert_eq!(got, probing_named(tree.root_node(), keep), "{src}");
        }
        let tree = crate::parse("typeof x; f(a, b);");
        let mut w = Preorder::named(tree.root_node(), keep);
        let mut kinds = Vec::new();
        while let Some((n, _)) = w.next() {
            kinds.push(n.kind());
        }
        assert!(kinds.contains(&"typeof") && !kinds.contains(&";") && !kinds.contains(&","));
    }

    #[test]
    fn stays_inside_a_subtree_and_can_skip_children() {
        let src = "f(1); g(\"two\", 3); h();";
        let tree = crate::parse(src);
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

//! The value a name holds at a use, from the write just before it (`var m = await
//! instance.getMainComponentAsync(); if (m && m.parent ...)`), where the name as a
//! whole holds values of several types or ones the docs do not type.
//!
//! Why: a real plugin's message handler, six thousand lines in one function, declares
//! `var node` twenty-four times and `var mainComponent` twice, one of them over a value
//! the docs do not type. Every later use of them was unjudged, though each sits right
//! after a write the docs type, with no other write between (four of thirty awaited
//! values of a second Figma set). The rule holds only where the write must have run
//! and nothing can have changed the name since: the write is a statement of a block
//! around the use, no loop or function lies between them, no other write of the name
//! lies between, and no other function writes the name at all.
//!
//! What a statement re-checked alone cannot see (the writes before it) is told to the
//! editor's nested re-check: such names are opaque in [`Analysis::scope_facts`], and
//! a statement spelling one is re-checked with its function.
//!
//! May import the parent `analysis` and its `flow` (the narrowing's barrier).

use tree_sitter::Node;

use super::flow::Barrier;
use super::*;

impl<'a> Analysis<'a> {
    /// The certain type of binding `b` at the identifier `use_node`, from the write of
    /// it that just precedes the use (see the module docs), when the binding as a whole
    /// has none.
    pub(super) fn reaching_type(&self, b: BindingId, use_node: Node<'a>) -> Option<Certain<'a>> {
        let bind = &self.bindings[b];
        if !self.reaches(bind) {
            return None;
        }
        if self.settle_depth.get() > 64 {
            return None;
        }
        let value = self.reaching_write(b, use_node)?;
        self.settle_depth.set(self.settle_depth.get() + 1);
        let scope = self.scope_at(value.start_byte());
        let c = self.certain_in(value, scope);
        self.settle_depth.set(self.settle_depth.get() - 1);
        match c? {
            // A test before the write is of an older value: the write is a write of the
            // name, so the narrowing's barrier is at or after it.
            Certain::Union(u) => self.narrow_up(
                bind,
                use_node,
                bind.name,
                Some(Barrier::Writes(use_node)),
                u,
            ),
            c => Some(c),
        }
    }

    /// Whether a use of `bind` may be typed by the write before it: a `var`/`let`/
    /// `const` of a function (not the program: a statement re-checked alone at the top
    /// level sees only the seed), written in that function only, never tested by
    /// constructor, and written more than once (one write types the binding itself).
    pub(super) fn reaches(&self, bind: &Binding<'a>) -> bool {
        matches!(bind.kind, BindingKind::Var | BindingKind::Lexical)
            && bind.scope != 0
            && !bind.seeded
            && !bind.foreign
            && !bind.narrowed
            && bind.assigns.len() > 1
            && bind.assigns.iter().any(|a| {
                matches!(
                    a,
                    Assign::Expr(..) | Assign::New(..) | Assign::Prop(..) | Assign::Elem(..)
                )
            })
    }

    /// The value of the write of `bind` that a use at `use_node` reads: the last write
    /// of its name that ends before the use, when that write is a whole statement of a
    /// block around the use (`var name = v;`, `name = v;`) with no loop or function
    /// between the block and the use.
    ///
    /// Why an index and not a walk per use: walking the function at each use (for the
    /// writes before it) and up the tree (for the blocks around it) made a 3,000-line
    /// function that writes one name a thousand times take 6.7 s instead of 0.1 s, and
    /// a real 7,000-line plugin 1.9 s instead of 0.24 s. The function is read once for
    /// all its names; each use is then a binary search and a look at the loops and
    /// functions that hold it.
    fn reaching_write(&self, b: BindingId, use_node: Node<'a>) -> Option<Node<'a>> {
        let bind = &self.bindings[b];
        let idx = self.writes_of(bind.scope);
        let writes = idx.writes.get(bind.name)?;
        let at = use_node.start_byte();
        let n = writes.partition_point(|w| w.end <= at);
        let last = writes.get(n.checked_sub(1)?)?;
        let (value, bs, be) = last.whole?;
        if !(bs <= at && use_node.end_byte() <= be) {
            return None;
        }
        let held = idx
            .barriers
            .iter()
            .any(|&(s, e)| bs < s && s <= at && use_node.end_byte() <= e);
        (!held).then_some(value)
    }

    /// The write index of scope `scope`'s function, read on first use.
    fn writes_of(&self, scope: ScopeId) -> std::sync::Arc<WriteIndex<'a>> {
        let mut memo = self.reach_memo.borrow_mut();
        memo.entry(scope)
            .or_insert_with(|| std::sync::Arc::new(self.write_index(scope)))
            .clone()
    }

    /// Where the last write of `bind`'s name that ends before `use_node` ends (0: none),
    /// in the binding's function (functions made there left out: a name written in one
    /// is never narrowed, `foreign`).
    ///
    /// Why from the index: the narrowing of a name written more than once asked this at
    /// every test it met by walking the whole function, and once a use right after a
    /// write was typed, a real 7,000-line handler's check spent most of its time there.
    pub(super) fn last_write_before(&self, bind: &Binding<'a>, use_node: Node<'a>) -> usize {
        let idx = self.writes_of(bind.scope);
        let Some(writes) = idx.writes.get(bind.name) else {
            return 0;
        };
        let n = writes.partition_point(|w| w.end <= use_node.start_byte());
        n.checked_sub(1).map_or(0, |i| writes[i].end)
    }

    /// Every write of every name in the function of scope `scope`, and the loops and
    /// functions made there (see [`WriteIndex`]): one walk for all the names (a real
    /// handler has dozens of names written more than once, and a walk each tripled its
    /// check).
    fn write_index(&self, scope: ScopeId) -> WriteIndex<'a> {
        let sc = &self.scopes[scope];
        let mut out = WriteIndex::default();
        let Some(func) = self
            .tree
            .root_node()
            .descendant_for_byte_range(sc.start, sc.end.saturating_sub(1))
        else {
            return out;
        };
        let f = query::fields();
        let text: &'a str = self.text;
        // Each node with its parent and grandparent: a whole write is an assignment
        // statement or a declarator of a declaration, directly in a block.
        let mut stack: Vec<(Node<'a>, Option<Node<'a>>, Option<Node<'a>>)> =
            vec![(func, None, None)];
        while let Some((n, parent, grand)) = stack.pop() {
            if n.id() != func.id() && is_function_kind(n.kind_id()) {
                out.barriers.push((n.start_byte(), n.end_byte()));
                continue;
            }
            let kind = n.kind();
            if matches!(
                kind,
                "for_statement" | "for_in_statement" | "while_statement" | "do_statement"
            ) {
                out.barriers.push((n.start_byte(), n.end_byte()));
            }
            let target = match kind {
                "assignment_expression" | "augmented_assignment_expression" => {
                    n.child_by_field_id(f.left)
                }
                "update_expression" => n.child_by_field_id(f.argument),
                "variable_declarator" => n.child_by_field_id(f.name),
                "for_in_statement" => n.child_by_field_id(f.left),
                _ => None,
            };
            if let Some(t) = target {
                let whole = if t.kind() == "identifier" {
                    let in_block = parent
                        .zip(grand)
                        .filter(|(_, g)| g.kind() == "statement_block");
                    match kind {
                        "assignment_expression" => in_block
                            .filter(|(p, _)| p.kind() == "expression_statement")
                            .and_then(|(_, g)| {
                                Some((n.child_by_field_id(f.right)?, g.start_byte(), g.end_byte()))
                            }),
                        "variable_declarator" => in_block
                            .filter(|(p, _)| {
                                matches!(p.kind(), "variable_declaration" | "lexical_declaration")
                            })
                            .and_then(|(_, g)| {
                                Some((n.child_by_field_id(f.value)?, g.start_byte(), g.end_byte()))
                            }),
                        _ => None,
                    }
                } else {
                    None
                };
                let spelt = text.get(t.start_byte()..t.end_byte()).unwrap_or("");
                for w in crate::Seed::words(spelt) {
                    // Only an identifier target is this name's whole write; a word of a
                    // member or pattern target is a write of it, never a typed one.
                    let whole = whole.filter(|_| w == spelt);
                    out.writes.entry(w).or_default().push(Write {
                        end: n.end_byte(),
                        whole,
                    });
                }
            }
            let mut c = n.walk();
            for k in n.children(&mut c) {
                stack.push((k, Some(n), parent));
            }
        }
        for ws in out.writes.values_mut() {
            ws.sort_by_key(|w| w.end);
        }
        out
    }
}

/// What [`Analysis::reaching_write`] needs of a binding's function, read once.
#[derive(Debug, Default)]
pub(super) struct WriteIndex<'a> {
    /// Every write of each name, by where it ends: assignments, `++`/`--`,
    /// declarators and `for...in`/`of` targets that spell it (as a word of a member
    /// target too: `n.x = 1` counts for `n`, a miss at worst).
    writes: HashMap<&'a str, Vec<Write<'a>>, NameHash>,
    /// Byte ranges of the loops and the functions made in the function.
    barriers: Vec<(usize, usize)>,
}

/// One write of [`WriteIndex`].
#[derive(Debug)]
struct Write<'a> {
    end: usize,
    /// For a whole statement of a block: the value written, and the block's bytes.
    whole: Option<(Node<'a>, usize, usize)>,
}

//! The value a name holds at a use, from the write just before it (`var m = await
//! instance.getMainComponentAsync(); if (m && m.parent ...)`), where the name as a
//! whole holds values of several types or ones the docs do not type.
//!
//! Why: a real plugin's message handler, six thousand lines in one function, declares
//! `var node` twenty-four times and `var mainComponent` twice, one of them over a value
//! the docs do not type. Every later use of them was unjudged, though each sits right
//! after a write the docs type, with no other write between (three of thirty awaited
//! values of a second Figma set). The rule holds only where the write must have run
//! and nothing can have changed the name since: the write is a statement of a block
//! around the use, no loop or function lies between them, no other write of the name
//! lies between, and no other function writes the name at all.
//!
//! What a statement re-checked alone cannot see (the writes before it) is told to the
//! editor's nested re-check: such names are opaque in [`Analysis::scope_facts`], and
//! a statement spelling one is re-checked with its function.
//!
//! May import the parent `analysis` and its `flow` (the narrowing and the writes).

use tree_sitter::Node;

use super::flow::{writes_before, Barrier};
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
        let value = self.reaching_write(bind.name, use_node)?;
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

    /// The value of the write of `name` that a use at `use_node` reads: the nearest earlier statement of a block around the use that writes
    /// the name whole (`var name = v;`, `name = v;`), with no loop or function between
    /// the block and the use and no other write of the name between the two.
    fn reaching_write(&self, name: &str, use_node: Node<'a>) -> Option<Node<'a>> {
        let f = query::fields();
        let mut child = use_node;
        let mut depth = 0;
        while let Some(parent) = child.parent() {
            depth += 1;
            if depth > 200
                || is_function_kind(parent.kind_id())
                || matches!(
                    parent.kind(),
                    "for_statement" | "for_in_statement" | "while_statement" | "do_statement"
                )
            {
                return None;
            }
            if parent.kind() == "statement_block" {
                let mut before: Vec<Node<'a>> = Vec::new();
                let mut c = parent.walk();
                for stmt in parent.named_children(&mut c) {
                    if stmt.start_byte() >= child.start_byte() {
                        break;
                    }
                    before.push(stmt);
                }
                for stmt in before.into_iter().rev() {
                    if let Some(value) = self.whole_write(stmt, name, f) {
                        let end = stmt.end_byte();
                        return (writes_before(use_node, name, self.text) <= end).then_some(value);
                    }
                }
            }
            child = parent;
        }
        None
    }

    /// The value `stmt` writes `name` with, when the statement itself is that write:
    /// `var/let/const name = v;` (its last declarator of `name`) or `name = v;`.
    fn whole_write(&self, stmt: Node<'a>, name: &str, f: &query::Fields) -> Option<Node<'a>> {
        match stmt.kind() {
            "variable_declaration" | "lexical_declaration" => {
                let mut c = stmt.walk();
                let mut found = None;
                for d in stmt.named_children(&mut c) {
                    if d.kind() != "variable_declarator" {
                        continue;
                    }
                    let n = d.child_by_field_id(f.name)?;
                    if n.kind() == "identifier" && self.node_text(n) == name {
                        found = d.child_by_field_id(f.value);
                    }
                }
                found
            }
            "expression_statement" => {
                let e = stmt.named_child(0)?;
                if e.kind() != "assignment_expression" {
                    return None;
                }
                let left = e.child_by_field_id(f.left)?;
                (left.kind() == "identifier" && self.node_text(left) == name)
                    .then(|| e.child_by_field_id(f.right))
                    .flatten()
            }
            _ => None,
        }
    }
}

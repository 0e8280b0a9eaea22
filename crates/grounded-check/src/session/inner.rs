//! Re-checks of a statement nested inside a top-level one (a line of a function's
//! body): the statement alone, parsed alone, analysed with the bindings of the
//! functions around it standing in for them.
//!
//! Why: the statement-only re-check of the parent module stops at top-level
//! statements, and a keystroke on line 1,000 of a 2,000-line function parsed and
//! analysed the whole function three times (~100 ms, issue 30). Real scripts are
//! written as functions, so most keystrokes land in one.
//!
//! When: the edit lies strictly inside a simple statement (an expression, a
//! declaration, a `return` or `throw`) of a statement list inside the top-level
//! statement, whose [`Analysis::summary`] (what it declares and assigns, narrows and
//! tests with `typeof`; analysed alone, every outer name is a global) is unchanged
//! by the edit and which names no construct. Anything else goes the parent's way.
//!
//! Owns the bindings kept per top-level statement ([`Facts`]). May import the parent
//! `session`, the dispatch and the families through `check`; nothing above `check`.

use tree_sitter::Node;

use super::*;
use grounded_js::{ScopeFacts, SeedType};

/// The bindings of a top-level statement's inner scopes, as of its last analysis, and
/// its own summary: valid while every edit inside it went through an inner re-check
/// (which leaves both unchanged) and no whole check came between.
#[derive(Debug)]
pub(super) struct Facts {
    /// The top-level statement's bytes.
    pub(super) s: usize,
    pub(super) e: usize,
    pub(super) scopes: Vec<ScopeFacts>,
    /// The top-level statement's text when the facts were taken: nested edits since
    /// leave its summary as this text's.
    old: String,
    /// That summary, computed when first asked (an analysis of the whole statement; a
    /// nested edit never asks).
    summary: std::cell::OnceCell<Option<Vec<String>>>,
}

/// How many top-level statements keep their facts: those being typed in. (Eight were
/// too few: typing in turn in ten functions evicted, every time, the facts of the one
/// typed in next, and a 2,000-line function's keystroke cost a whole check.)
const KEPT: usize = 32;

/// The nested statement an edit falls strictly inside, before the edit.
pub(super) struct Inner {
    /// The edit: the bytes it replaced, and whether they held a line break.
    at: (usize, usize),
    old_lines: bool,
    s: usize,
    e: usize,
    kind: u16,
    prev: Option<(u16, usize, usize)>,
    next: Option<(u16, usize, usize)>,
    summary: Vec<String>,
}

/// Node kinds of the statement lists a nested statement stands in.
fn is_list(kind: &str) -> bool {
    matches!(kind, "statement_block" | "switch_case" | "switch_default")
}

/// Statements that are re-checked alone: they hold no test that guards what follows
/// them (an `if` may: `if (!app.key) return;`), and no construct's structure.
fn is_simple(kind: &str) -> bool {
    matches!(
        kind,
        "expression_statement"
            | "variable_declaration"
            | "lexical_declaration"
            | "return_statement"
            | "throw_statement"
    )
}

impl Session {
    /// The nested statement `start..end` falls strictly inside, when an inner re-check
    /// may answer the edit. Computes (and keeps) the top-level statement's facts.
    pub(super) fn inner_before(&self, start: usize, end: usize) -> Option<Inner> {
        // Same rule as the piece path: a fresh parse of an unparsable file may take in
        // a statement that parses cleanly alone.
        if self.tree.root_node().has_error() {
            return None;
        }
        let top = statement_around(&self.tree, start, end)?;
        let (ts, te) = (top.start_byte(), top.end_byte());
        // A top-level statement re-checked from a piece: its subtree here is stale.
        if self.dirty.iter().any(|d| d.0 < te && ts < d.1) {
            return None;
        }
        let t = self.nested_at(top, start, end)?;
        let (s, e) = (t.start_byte(), t.end_byte());
        if !is_simple(t.kind()) {
            return None;
        }
        let old = self.text.get(s..e)?;
        if self.names_construct(old) {
            return None;
        }
        let inner_dirty = self.inner_dirty.borrow();
        // A statement holding one edited alone before: its subtree is stale.
        if inner_dirty
            .iter()
            .any(|d| s <= d.0 && d.1 <= e && (d.0, d.1) != (s, e))
        {
            return None;
        }
        let summary = match inner_dirty.iter().find(|d| (d.0, d.1) == (s, e)) {
            Some(d) => d.2.clone(),
            None => self.summary_of(&self.text, &self.tree, t),
        };
        let dirty_inside = inner_dirty.iter().any(|d| ts <= d.0 && d.1 <= te);
        drop(inner_dirty);
        let at = self
            .facts
            .borrow()
            .iter()
            .position(|f| (f.s, f.e) == (ts, te));
        match at {
            // The most recently used last.
            Some(i) => {
                let mut kept = self.facts.borrow_mut();
                let f = kept.remove(i);
                kept.push(f);
            }
            None => {
                // Facts are read off the tree, which must describe the whole statement.
                if dirty_inside {
                    return None;
                }
                let facts = self.facts_of(top)?;
                let mut kept = self.facts.borrow_mut();
                if kept.len() >= KEPT {
                    // The least recently used, sparing those with nested edits since the
                    // last parse: without their facts, the next edit there that is not
                    // nested has no summary to go by and is checked whole.
                    let inner_dirty = self.inner_dirty.borrow();
                    let edited = |f: &Facts| inner_dirty.iter().any(|d| f.s <= d.0 && d.1 <= f.e);
                    let i = kept.iter().position(|f| !edited(f)).unwrap_or(0);
                    kept.remove(i);
                }
                kept.push(facts);
            }
        }
        let part = |n: Node| (n.kind_id(), n.start_byte(), n.end_byte());
        Some(Inner {
            at: (start, end),
            old_lines: self.text[start..end].contains('\n'),
            s,
            e,
            kind: t.kind_id(),
            prev: t.prev_named_sibling().map(part),
            next: t.next_named_sibling().map(part),
            summary,
        })
    }

    /// The innermost simple statement of a statement list under `top` that holds
    /// `start..end` strictly inside; `None` when there is none or when the way there
    /// passes a `with` (whose bare names the statement alone could not read). Stops at
    /// a statement edited alone before, whose subtree is stale.
    fn nested_at<'t>(&self, top: Node<'t>, start: usize, end: usize) -> Option<Node<'t>> {
        let inner_dirty = self.inner_dirty.borrow();
        let mut node = top;
        let mut found = None;
        while let Some(child) = node.first_child_for_byte(start) {
            if !(child.start_byte() <= start && end < child.end_byte()) {
                break;
            }
            if child.kind() == "with_statement" {
                return None;
            }
            if is_list(node.kind()) && child.is_named() && !child.is_extra() {
                found = Some(child);
                if inner_dirty
                    .iter()
                    .any(|d| (d.0, d.1) == (child.start_byte(), child.end_byte()))
                {
                    break;
                }
            }
            node = child;
        }
        found
    }

    /// The inner scopes' bindings of top-level statement `top` (analysed with the
    /// file's seed) and its own summary.
    fn facts_of(&self, top: Node) -> Option<Facts> {
        let own = self.text.get(top.byte_range())?;
        let cut = self.seed_names.for_text(&self.seed, own);
        let a = Analysis::for_node(&self.corpus, &self.text, &self.tree, top, &cut);
        let scopes = a.scope_facts();
        let summary = std::cell::OnceCell::new();
        if let Some((t, sum)) = &*self.summarised.borrow() {
            if t == own {
                let _ = summary.set(Some(sum.clone()));
            }
        }
        Some(Facts {
            s: top.start_byte(),
            e: top.end_byte(),
            scopes,
            old: own.to_string(),
            summary,
        })
    }

    /// Whether top-level statement `s..e` has its facts kept.
    pub(super) fn has_facts(&self, s: usize, e: usize) -> bool {
        self.facts.borrow().iter().any(|f| (f.s, f.e) == (s, e))
    }

    /// The summary of top-level statement `s..e` (as it was before the current edit)
    /// when its facts are kept: that of its text when they were taken, parsed alone.
    pub(super) fn kept_summary(&self, s: usize, e: usize) -> Option<Vec<String>> {
        let facts = self.facts.borrow();
        let f = facts.iter().find(|f| (f.s, f.e) == (s, e))?;
        f.summary
            .get_or_init(|| {
                let tree = grounded_js::parse(&f.old);
                let root = tree.root_node();
                let node = root.child(0).filter(|n| {
                    root.child_count() == 1 && !root.has_error() && n.end_byte() == f.old.len()
                })?;
                Some(self.summary_of(&f.old, &tree, node))
            })
            .clone()
    }

    /// Moves kept positions past an edit ending at `end` (before it was made) that changed the length by
    /// `delta`.
    pub(super) fn shift_inner(&mut self, end: usize, delta: isize) {
        let shift = |x: usize| (x as isize + delta) as usize;
        let mv = |s: &mut usize, e: &mut usize| {
            if *s >= end {
                *s = shift(*s);
                *e = shift(*e);
            } else if *e > end {
                *e = shift(*e);
            }
        };
        for d in self.inner_dirty.get_mut() {
            mv(&mut d.0, &mut d.1);
        }
        for f in self.facts.get_mut() {
            mv(&mut f.s, &mut f.e);
            for sc in &mut f.scopes {
                mv(&mut sc.start, &mut sc.end);
            }
        }
    }

    /// Forgets the facts of the top-level statements an edit at `start` (after it was
    /// made) falls in: it was not re-checked as a nested statement.
    pub(super) fn forget_inner(&self, start: usize) {
        self.facts
            .borrow_mut()
            .retain(|f| !(f.s <= start && start <= f.e));
        let facts = self.facts.borrow();
        self.inner_dirty
            .borrow_mut()
            .retain(|d| facts.iter().any(|f| f.s <= d.0 && d.1 <= f.e));
    }

    /// The findings with the nested statement `b` re-checked alone, or `None` when the
    /// edit is not one an inner re-check answers.
    pub(super) fn recheck_inner(&mut self, b: &Inner, delta: isize) -> Option<Vec<Finding>> {
        let shift = |x: usize| (x as isize + delta) as usize;
        let new_e = shift(b.e);
        let new = self.text.get(b.s..new_e)?.to_string();
        if self.names_construct(&new) {
            return None;
        }
        // The statement in the edited tree, with its neighbours where they were: the
        // guards around it are read there.
        let top = statement_around(&self.tree, b.s, new_e.saturating_sub(1))?;
        let top_start = top.start_byte();
        let outer = self.nested_at(top, b.s, b.s)?;
        if (outer.start_byte(), outer.end_byte(), outer.kind_id()) != (b.s, new_e, b.kind) {
            return None;
        }
        let expect = super::recheck::expected_parts(b.prev, (b.kind, b.s, new_e), b.next, delta);
        let part = |n: &Node| (n.kind_id(), n.start_byte(), n.end_byte());
        let stale: Vec<(u16, usize, usize)> = outer
            .prev_named_sibling()
            .filter(|_| b.prev.is_some())
            .into_iter()
            .chain(Some(outer))
            .chain(outer.next_named_sibling().filter(|_| b.next.is_some()))
            .map(|n| part(&n))
            .collect();
        if stale != expect {
            return None;
        }
        // The statement and its neighbours parsed alone: the same three nodes, or the
        // edit changed how the list is cut.
        let lo_node = if b.prev.is_some() {
            outer.prev_named_sibling()?
        } else {
            outer
        };
        let hi_node = if b.next.is_some() {
            outer.next_named_sibling()?
        } else {
            outer
        };
        let range = super::recheck::range_of(lo_node, hi_node);
        let piece = super::recheck::parse_piece(
            &mut self.piece_parser,
            &self.text,
            range,
            &expect,
            Some(&self.tree),
        )?;
        let proot = piece.root_node();
        let node = proot.child(usize::from(b.prev.is_some()))?;
        let summary = self.summary_of(&self.text, &piece, node);
        let found = if summary != b.summary {
            // What the statement assigns a name of its function changed: what reads
            // that name is judged again, not the function (`scoped`).
            let ed = super::scoped::Edited {
                s: b.s,
                e: b.e,
                new_e,
                delta,
                old_summary: &b.summary,
                new_summary: &summary,
            };
            let top = (top.kind_id(), super::recheck::range_of(top, top));
            self.recheck_scoped(&ed, top)?
        } else {
            // The bindings of the functions around the statement, innermost last.
            let overlay = self.visible_facts(b.s, new_e)?;
            let words: std::collections::HashSet<&str> = grounded_js::Seed::words(&new).collect();
            if overlay
                .iter()
                .any(|(n, _, _, opaque)| *opaque && words.contains(n.as_str()))
            {
                return None;
            }
            let found = self.recheck_in_with(
                &piece,
                node,
                b.s,
                b.e,
                delta,
                ConstructPass::Keep,
                Some((&overlay, outer)),
            )?;
            self.inner += 1;
            found
        };
        let inserted = &self.text[b.at.0..shift(b.at.1)];
        let bare = crate::construct::bare_calls(&self.text, proot, node, &|_| true);
        self.pairing_nested(
            top_start,
            (b.s, b.e),
            b.at.1,
            delta,
            !b.old_lines && !inserted.contains('\n'),
            &bare,
        );
        let mut inner_dirty = self.inner_dirty.borrow_mut();
        inner_dirty.retain(|d| d.0 != b.s);
        inner_dirty.push((b.s, new_e, summary));
        drop(inner_dirty);
        Some(found)
    }

    /// The bindings visible at the nested statement `s..e` from the scopes of its
    /// top-level statement's facts, outermost first (so inner ones shadow them).
    #[allow(clippy::type_complexity)]
    fn visible_facts(
        &self,
        s: usize,
        e: usize,
    ) -> Option<Vec<(String, grounded_js::BindingKind, Option<SeedType>, bool)>> {
        let facts = self.facts.borrow();
        let f = facts.iter().find(|f| f.s <= s && e <= f.e)?;
        let holds = |sc: &ScopeFacts| sc.start <= s && e <= sc.end && (sc.start < s || e < sc.end);
        let innermost = f
            .scopes
            .iter()
            .enumerate()
            .filter(|(_, sc)| holds(sc))
            .max_by_key(|(_, sc)| sc.start)
            .map(|(i, _)| i);
        let mut chain = Vec::new();
        let mut at = innermost;
        while let Some(i) = at {
            chain.push(i);
            at = f.scopes[i].parent;
        }
        let mut out = Vec::new();
        for &i in chain.iter().rev() {
            out.extend(f.scopes[i].names.iter().cloned());
        }
        Some(out)
    }
}

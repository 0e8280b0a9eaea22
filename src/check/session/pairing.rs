//! Construct pairing kept per top-level statement: what each statement opens and closes
//! (its construct calls) and its calls of bare names (each stands for a helper's Start
//! or End once that name is a helper's), so that an edit of a Start or End reads that
//! statement again and pairs the file from what is kept.
//!
//! Why: a typo in `tableStart` of a function called elsewhere makes that function a
//! helper (see `check::construct`), which changes the pairing where it is called; the
//! file was then analysed whole again, 40-90 ms a keystroke on 10,000 lines and 550 ms
//! on 100,000 (issue 30). Pairing from the kept parts costs the number of construct
//! calls in the file, and gives what the full check gives: the same calls, paired by
//! the same code ([`construct::pair_kept`]).
//!
//! Node ids are addresses, compared for identity (scopes, branches, blocks); ids of
//! trees since freed can come back for other nodes, so each kept statement's ids are
//! renumbered to ids of the session's own ([`Pairing::renumber`]); the program is one id
//! for all, 0 stays "top level".
//!
//! Owns the kept parts; the parent `Session` holds them and decides when a statement is
//! re-checked alone. May import the parent `session`, `check::construct` and the
//! footprint layer; nothing above `check`.

use tree_sitter::Node;

use super::*;
use crate::footprint::analysis::{construct_calls_on_paths, ChainNode, ConstructCall};

/// The id of the program node in every kept chain.
const PROGRAM: usize = 1;

/// What one top-level statement contributes to the pairing.
#[derive(Debug, Default)]
pub(super) struct Entry {
    /// Where the statement starts now.
    start: usize,
    /// Where it started and its first row (0-based) when `calls` and `bare` were read:
    /// their positions are of then, moved when paired.
    base: usize,
    base_row: usize,
    /// Its construct calls, in document order.
    calls: Vec<ConstructCall>,
    /// Its calls of bare names, as a helper's calls stand, without their construct.
    bare: Vec<ConstructCall>,
}

impl Entry {
    fn is_empty(&self) -> bool {
        self.calls.is_empty() && self.bare.is_empty()
    }
}

/// The kept parts of a file's pairing, by statement.
#[derive(Debug)]
pub(super) struct Pairing {
    /// In document order; only statements with a construct call or a bare call.
    entries: Vec<Entry>,
    /// The next id [`Pairing::renumber`] gives.
    next_id: std::cell::Cell<usize>,
}

impl Pairing {
    /// The parts of every statement of `tree` (the file's, without a syntax error),
    /// from `calls`, every construct call of the file as the full check located them.
    pub(super) fn of_tree(
        text: &str,
        tree: &tree_sitter::Tree,
        calls: Vec<ConstructCall>,
    ) -> Pairing {
        let p = Pairing {
            entries: Vec::new(),
            next_id: std::cell::Cell::new(PROGRAM + 1),
        };
        let root = tree.root_node();
        let mut calls = calls.into_iter().peekable();
        let mut entries = Vec::new();
        let mut cursor = root.walk();
        for top in root.children(&mut cursor) {
            let mut own = Vec::new();
            while let Some(c) = calls.next_if(|c| c.member_span.0 < top.end_byte()) {
                own.push(c);
            }
            let bare = construct::bare_calls(text, root, top, &|_| true);
            let e = p.entry(top, own, bare);
            if !e.is_empty() {
                entries.push(e);
            }
        }
        // Calls past the last statement cannot be (every call is inside one); kept with
        // the last rather than lost.
        if let Some(last) = entries.last_mut() {
            last.calls.extend(calls);
        }
        Pairing { entries, ..p }
    }

    /// The parts of statement `node` of `tree` (the file's or a piece's), read alone.
    ///
    /// Whether a receiver is the engine's global depends on the statement only: a
    /// declaration of the global at the top level is the file's (the session then
    /// pairs the whole file).
    fn statement(
        &self,
        corpus: &Corpus,
        text: &str,
        tree: &tree_sitter::Tree,
        node: Node,
    ) -> Entry {
        let seed = crate::js::Seed::default();
        let a = Analysis::for_node(corpus, text, tree, node, &seed);
        let mut calls = construct_calls_on_paths(text, corpus, a.construct_paths(), &|n, o| {
            a.is_declared(n, o)
        });
        // The analysis walked from the statement: its chains start there. A full
        // check's start at the program, whose child the statement is.
        for c in &mut calls {
            c.chain.insert(
                0,
                ChainNode {
                    id: PROGRAM,
                    start_row: 0,
                    end_row: 0,
                    list_child: false,
                    branches: false,
                },
            );
            if let Some(n) = c.chain.get_mut(1) {
                n.list_child = true;
            }
        }
        let bare = construct::bare_calls(text, tree.root_node(), node, &|_| true);
        self.entry(node, calls, bare)
    }

    /// The entry of statement `top`, its ids renumbered.
    fn entry(
        &self,
        top: Node,
        mut calls: Vec<ConstructCall>,
        mut bare: Vec<ConstructCall>,
    ) -> Entry {
        if !calls.is_empty() || !bare.is_empty() {
            self.renumber(&mut calls, &mut bare);
        }
        Entry {
            start: top.start_byte(),
            base: top.start_byte(),
            base_row: top.start_position().row,
            calls,
            bare,
        }
    }

    /// Gives the nodes of one statement's calls ids of the session's own, one per node,
    /// the program [`PROGRAM`] (the chains' first node), 0 kept.
    fn renumber(&self, calls: &mut [ConstructCall], bare: &mut [ConstructCall]) {
        let mut ids: std::collections::HashMap<usize, usize> = Default::default();
        let mut next = self.next_id.get();
        let mut map = |id: usize| {
            *ids.entry(id).or_insert_with(|| {
                next += 1;
                next - 1
            })
        };
        for c in calls.iter_mut().chain(bare.iter_mut()) {
            for (i, n) in c.chain.iter_mut().enumerate() {
                if i == 0 {
                    *n = ChainNode {
                        id: PROGRAM,
                        start_row: 0,
                        end_row: 0,
                        list_child: false,
                        branches: false,
                    };
                } else {
                    n.id = map(n.id);
                }
            }
            if c.func.0 != 0 {
                c.func.0 = map(c.func.0);
            }
            c.scope = c.func.0;
        }
        self.next_id.set(next);
    }

    /// The kept entries in document order after statement `s..e` (before the edit)
    /// grew by `delta` bytes and became `new`: each with where it starts now.
    fn after<'p>(
        &'p self,
        s: usize,
        e: usize,
        delta: isize,
        new: &'p Entry,
    ) -> impl Iterator<Item = (&'p Entry, usize)> + 'p {
        let k = self.entries.partition_point(|x| x.start < s);
        let rest = self.entries[k..]
            .iter()
            .filter(move |x| x.start >= e)
            .map(move |x| (x, x.start.saturating_add_signed(delta)));
        self.entries[..k]
            .iter()
            .map(|x| (x, x.start))
            .chain(Some((new, new.start)))
            .chain(rest)
    }

    /// Keeps `new` as statement `s..e` (before the edit, which grew it by `delta`).
    fn replace(&mut self, s: usize, e: usize, delta: isize, new: Entry) {
        let k = self.entries.partition_point(|x| x.start < s);
        let mut j = k;
        while j < self.entries.len() && self.entries[j].start < e {
            j += 1;
        }
        for x in &mut self.entries[j..] {
            x.start = x.start.saturating_add_signed(delta);
        }
        let new = (!new.is_empty()).then_some(new);
        self.entries.splice(k..j, new);
    }
}

impl Session {
    /// Keeps the pairing's parts of the file as the full check just paired it (its
    /// construct calls `calls`), when statements can be re-paired from them: a plain
    /// file (no Markdown, no directive), without a syntax error or a declaration of a
    /// construct's global, that has construct calls at all.
    pub(super) fn keep_pairing(&mut self, calls: Vec<ConstructCall>) {
        let usable = !calls.is_empty()
            && self.plain()
            && !self.tree.root_node().has_error()
            && !self.declares_global.get();
        *self.pairing.get_mut() = usable.then(|| Pairing::of_tree(&self.text, &self.tree, calls));
    }

    /// The construct findings and helpers of the whole file with statement `node` of
    /// `tree` (bytes `s..e` before the edit, grown by `delta`) read again alone and every
    /// other statement's parts as kept; and that statement's new parts, to keep if the
    /// re-check stands. `None` when the kept parts cannot say (none kept, a syntax
    /// error, a declaration of a construct's global).
    pub(super) fn kept_pairing(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        s: usize,
        e: usize,
        delta: isize,
    ) -> Option<(Vec<Finding>, Vec<String>, Entry)> {
        let kept = self.pairing.borrow();
        let kept = kept.as_ref()?;
        let new_e = e.saturating_add_signed(delta);
        if self.declares_global.get()
            || tree.root_node().has_error()
            || self.declares_in(self.text.get(s..new_e)?)
        {
            return None;
        }
        let entry = kept.statement(&self.corpus, &self.text, tree, node);
        let row_of = |b: usize| self.starts.partition_point(|&x| x <= b).saturating_sub(1);
        let moved = |x: &Entry, now: usize| {
            let bytes = now as isize - x.base as isize;
            let rows = row_of(now) as isize - x.base_row as isize;
            (bytes, rows)
        };
        let mut calls = Vec::new();
        for (x, now) in kept.after(s, e, delta, &entry) {
            let (bytes, rows) = moved(x, now);
            calls.extend(x.calls.iter().map(|c| c.moved(bytes, rows)));
        }
        let mut bare = |named: &dyn Fn(&str) -> bool| {
            let mut out = Vec::new();
            for (x, now) in kept.after(s, e, delta, &entry) {
                let (bytes, rows) = moved(x, now);
                out.extend(
                    x.bare
                        .iter()
                        .filter(|c| named(&c.member))
                        .map(|c| c.moved(bytes, rows)),
                );
            }
            out
        };
        let idx = LineIndex::from_starts(&self.text, self.starts.clone());
        let (found, helpers) =
            construct::pair_kept(&self.corpus, &self.path, &self.text, calls, &mut bare, idx);
        Some((found, helpers, entry))
    }

    /// After statement `node` of `tree` (bytes `s..e` before the edit, grown by `delta`)
    /// was re-checked as `pass` says: its new parts kept (those the pass read, or its
    /// bare calls read again when no construct was named), the statements after it
    /// moved. A pass that paired otherwise leaves nothing kept until the next full
    /// check or whole pairing.
    pub(super) fn pairing_after(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        s: usize,
        e: usize,
        delta: isize,
        pass: &mut ConstructPass,
    ) {
        let mut slot = self.pairing.borrow_mut();
        let Some(kept) = slot.as_mut() else {
            return;
        };
        let new = match pass {
            ConstructPass::Kept(_, _, entry) => std::mem::take(entry),
            ConstructPass::Keep => {
                // Neither text names a Start or End: the statement had no construct
                // call, and has none. Its bare calls may have changed.
                let k = kept.entries.partition_point(|x| x.start < s);
                if kept
                    .entries
                    .get(k)
                    .is_some_and(|x| x.start == s && !x.calls.is_empty())
                {
                    *slot = None;
                    return;
                }
                let bare = construct::bare_calls(&self.text, tree.root_node(), node, &|_| true);
                kept.entry(node, Vec::new(), bare)
            }
            _ => {
                *slot = None;
                return;
            }
        };
        kept.replace(s, e, delta, new);
    }
}

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
use grounded_footprint::analysis::{construct_calls_on_paths, ChainNode, ConstructCall};

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
    /// Whether an edit before it moved it since its calls were last moved.
    moved: bool,
    /// Whether an edit nested in it changed what the kept calls can say (a bare call
    /// typed or renamed, a line break): it is read again before it is paired from.
    stale: bool,
}

impl Entry {
    /// The entry of the statement starting at `start`, to be read before it is paired
    /// from.
    fn stale_at(start: usize) -> Entry {
        Entry {
            start,
            base: start,
            stale: true,
            ..Default::default()
        }
    }

    fn is_empty(&self) -> bool {
        self.calls.is_empty() && self.bare.is_empty() && !self.stale
    }

    /// Moves its calls to where the statement is now (see [`Pairing::settle`]).
    fn settle(&mut self, starts: &[usize]) {
        let row = starts
            .partition_point(|&b| b <= self.start)
            .saturating_sub(1);
        let bytes = self.start as isize - self.base as isize;
        let rows = row as isize - self.base_row as isize;
        if bytes != 0 || rows != 0 {
            for c in self.calls.iter_mut().chain(self.bare.iter_mut()) {
                c.shift(bytes, rows);
            }
        }
        (self.base, self.base_row, self.moved) = (self.start, row, false);
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
        let mut ids = Default::default();
        for top in root.children(&mut cursor) {
            let mut own = Vec::new();
            while let Some(c) = calls.next_if(|c| c.member_span.0 < top.end_byte()) {
                own.push(c);
            }
            let bare = construct::bare_calls(text, root, top, &|_| true);
            let e = p.entry(top, own, bare, &mut ids);
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
        let seed = grounded_js::Seed::default();
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
        self.entry(node, calls, bare, &mut Default::default())
    }

    /// The entry of statement `top`, its ids renumbered (`ids`: a map to reuse).
    fn entry(
        &self,
        top: Node,
        mut calls: Vec<ConstructCall>,
        mut bare: Vec<ConstructCall>,
        ids: &mut std::collections::HashMap<usize, usize>,
    ) -> Entry {
        if !calls.is_empty() || !bare.is_empty() {
            ids.clear();
            self.renumber(&mut calls, &mut bare, ids);
        }
        Entry {
            start: top.start_byte(),
            base: top.start_byte(),
            base_row: top.start_position().row,
            calls,
            bare,
            moved: false,
            stale: false,
        }
    }

    /// Gives the nodes of one statement's calls ids of the session's own, one per node,
    /// the program [`PROGRAM`] (the chains' first node), 0 kept.
    fn renumber(
        &self,
        calls: &mut [ConstructCall],
        bare: &mut [ConstructCall],
        ids: &mut std::collections::HashMap<usize, usize>,
    ) {
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

    /// Keeps `new` as statement `s..e` (before the edit, which grew it by `delta`).
    fn replace(&mut self, s: usize, e: usize, delta: isize, new: Entry) {
        let k = self.entries.partition_point(|x| x.start < s);
        let mut j = k;
        while j < self.entries.len() && self.entries[j].start < e {
            j += 1;
        }
        for x in &mut self.entries[j..] {
            x.start = x.start.saturating_add_signed(delta);
            x.moved = true;
        }
        let new = (!new.is_empty()).then_some(new);
        self.entries.splice(k..j, new);
    }

    /// Moves the calls of the entries an edit moved to where they are now (`starts`:
    /// the text's line starts), so that they can be paired where they are kept.
    fn settle(&mut self, starts: &[usize]) {
        for x in self.entries.iter_mut().filter(|x| x.moved) {
            x.settle(starts);
        }
    }
}

impl Session {
    /// Keeps the pairing's parts of the file as the full check just paired it (its
    /// construct calls `calls`), when statements can be re-paired from them: a plain
    /// file (no Markdown, no directive), without a syntax error or a declaration of a
    /// construct's global, that has construct calls at all.
    pub(super) fn keep_pairing(&mut self, calls: Vec<ConstructCall>) {
        // A construct's global declared at the top level in any form (`var x, layout`,
        // `let layout`, an assignment), found by the full analysis: whether a call in
        // one statement is a construct's then depends on another statement.
        let declared = self.corpus.constructs.values().any(|c| {
            self.seed
                .globals
                .binary_search_by(|g| g.0.as_str().cmp(c.global.as_str()))
                .is_ok()
        });
        let usable = !calls.is_empty()
            && self.plain()
            && !declared
            && !self.tree.root_node().has_error()
            && !self.declares_global.get();
        *self.pairing.get_mut() = usable.then(|| Pairing::of_tree(&self.text, &self.tree, calls));
    }

    /// The parts of statement `node` of `tree` (bytes `s..e` before the edit, grown by
    /// `delta`) read again alone, to pair the file from once the re-check stands. `None`
    /// when the kept parts cannot say (none kept, a syntax error, a declaration of a
    /// construct's global).
    pub(super) fn kept_entry(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        s: usize,
        e: usize,
        delta: isize,
    ) -> Option<Entry> {
        if !self.keepable(tree, s, e, delta) {
            return None;
        }
        let kept = self.pairing.borrow();
        Some(
            kept.as_ref()?
                .statement(&self.corpus, &self.text, tree, node),
        )
    }

    /// Whether statement `s..e` of `tree` (grown by `delta`) can have kept parts: see
    /// [`Session::kept_entry`].
    fn keepable(&self, tree: &tree_sitter::Tree, s: usize, e: usize, delta: isize) -> bool {
        let new_e = e.saturating_add_signed(delta);
        self.pairing.borrow().is_some()
            && !self.declares_global.get()
            && !tree.root_node().has_error()
            && self
                .text
                .get(s..new_e)
                .is_some_and(|t| !self.declares_in(t))
    }

    /// What a statement's re-check does with construct findings when its old or new
    /// text names a Start, an End or a helper: paired within the statement when that
    /// cannot change the rest of the file (a function that is not and does not become a
    /// helper called elsewhere: see `local_constructs`), else from the kept parts.
    /// `None`: neither can say.
    ///
    /// Why the local pairing first: it reads the function only, where pairing the whole
    /// file from the kept parts costs the number of construct calls in it (20 ms on
    /// 100,000 lines, for each keystroke inside a function that opens a table).
    pub(super) fn construct_pass(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        b: &Before,
        delta: isize,
    ) -> Option<ConstructPass> {
        let new_e = b.e.saturating_add_signed(delta);
        match self.local_constructs(tree, node, b.s, new_e, &b.old) {
            // Paired within the function: its kept parts are read when a pairing from
            // them first needs them (`refresh_stale`), not now. Reading them was a
            // third of a keystroke's re-check in a 2,000-line function that opens a
            // block, for every keystroke.
            Some((found, helpers)) => {
                let entry = self
                    .keepable(tree, b.s, b.e, delta)
                    .then(|| Entry::stale_at(node.start_byte()));
                Some(ConstructPass::Local(found, helpers, entry))
            }
            None => self
                .kept_entry(tree, node, b.s, b.e, delta)
                .map(ConstructPass::Kept),
        }
    }

    /// After statement `node` of `tree` (bytes `s..e` before the edit, grown by `delta`)
    /// was re-checked as `pass` says: its new parts kept (those the pass read, or its
    /// bare calls read again when no construct was named), the statements after it
    /// moved; for a pass from the kept parts, the construct findings of the file and its
    /// helpers, paired from them. A pass that paired otherwise leaves nothing kept until
    /// the next full check.
    pub(super) fn pairing_after(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        s: usize,
        e: usize,
        delta: isize,
        pass: &mut ConstructPass,
    ) -> Option<(Vec<Finding>, Vec<String>)> {
        let mut slot = self.pairing.borrow_mut();
        let kept = slot.as_mut()?;
        let new = match pass {
            ConstructPass::Kept(entry) | ConstructPass::Local(_, _, Some(entry)) => {
                std::mem::take(entry)
            }
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
                    return None;
                }
                let bare = construct::bare_calls(&self.text, tree.root_node(), node, &|_| true);
                kept.entry(node, Vec::new(), bare, &mut Default::default())
            }
            _ => {
                *slot = None;
                return None;
            }
        };
        kept.replace(s, e, delta, new);
        if !matches!(pass, ConstructPass::Kept(_)) {
            return None;
        }
        if !self.refresh_stale(kept) {
            *slot = None;
            return None;
        }
        kept.settle(&self.starts);
        let calls: Vec<&ConstructCall> = kept.entries.iter().flat_map(|x| &x.calls).collect();
        let mut bare = |named: &dyn Fn(&str) -> bool| {
            kept.entries
                .iter()
                .flat_map(|x| &x.bare)
                .filter(|c| named(&c.member))
                .collect()
        };
        let idx = LineIndex::from_starts(&self.text, self.starts.clone());
        Some(construct::pair_kept(
            &self.corpus,
            &self.path,
            &self.text,
            calls,
            &mut bare,
            idx,
        ))
    }
}

impl Session {
    /// After a statement nested in the top-level statement at `top` was re-checked alone
    /// (`inner`: it names no Start, End or helper): bytes `old` of it before the edit,
    /// which replaced bytes up to `edit_end` and grew the text by `delta`; `same_rows`:
    /// no line break came or went; `bare`: its calls of bare names now.
    ///
    /// The top-level statement's kept parts stand, moved in place, when the edit changed
    /// no line count and the nested statement calls the same bare names at the same
    /// places (a helper's call there would pair); otherwise they are marked stale and
    /// read again, that statement alone, by the next pairing from the kept parts
    /// ([`Session::refresh_stale`]).
    pub(super) fn pairing_nested(
        &self,
        top: usize,
        old: (usize, usize),
        edit_end: usize,
        delta: isize,
        same_rows: bool,
        bare: &[ConstructCall],
    ) {
        let mut slot = self.pairing.borrow_mut();
        let Some(kept) = slot.as_mut() else {
            return;
        };
        let k = kept.entries.partition_point(|x| x.start <= top);
        for x in &mut kept.entries[k..] {
            x.start = x.start.saturating_add_signed(delta);
            x.moved = true;
        }
        let at = |b: usize| {
            if b >= edit_end {
                b.saturating_add_signed(delta)
            } else {
                b
            }
        };
        let own = k.checked_sub(1).filter(|&i| kept.entries[i].start == top);
        if own.is_some_and(|i| kept.entries[i].stale) {
            return;
        }
        let fits = match own {
            Some(i) => {
                let x = &mut kept.entries[i];
                x.settle(&self.starts);
                let was: Vec<(&str, usize)> = x
                    .bare
                    .iter()
                    .filter(|c| old.0 <= c.member_span.0 && c.member_span.0 < old.1)
                    .map(|c| (c.member.as_str(), at(c.member_span.0)))
                    .collect();
                let now: Vec<(&str, usize)> = bare
                    .iter()
                    .map(|c| (c.member.as_str(), c.member_span.0))
                    .collect();
                same_rows && was == now
            }
            None => bare.is_empty(),
        };
        if !fits {
            // Read again before the next pairing from the kept parts, rather than
            // dropped: dropping sent every later construct edit to a whole pairing
            // until a full check, 40 ms on 10,000 lines, 300 on 100,000, for a typo in
            // a plain call (`drawRowQ()`) a moment before.
            match own {
                Some(i) => kept.entries[i].stale = true,
                None => kept.entries.insert(k, Entry::stale_at(top)),
            }
            return;
        }
        if let Some(i) = own {
            let x = &mut kept.entries[i];
            for c in x.calls.iter_mut().chain(x.bare.iter_mut()) {
                if c.member_span.0 >= edit_end {
                    c.shift(delta, 0);
                }
            }
        }
    }
}

impl Session {
    /// Reads again, alone, every top-level statement whose kept parts a nested edit made
    /// stale (see [`Session::pairing_nested`]), once the kept entries stand where the
    /// statements are now; `false` when one does not parse alone as it stands in the
    /// file (the caller then keeps nothing).
    ///
    /// Reading one statement costs its analysis (10 ms for a 2,000-line function),
    /// paid by the first pairing from the kept parts that needs it, not by the
    /// keystroke that made it stale.
    fn refresh_stale(&self, kept: &mut Pairing) -> bool {
        for i in 0..kept.entries.len() {
            if !kept.entries[i].stale {
                continue;
            }
            let at = kept.entries[i].start;
            let Some(node) = top_level_at(&self.tree, at).filter(|n| n.start_byte() == at) else {
                return false;
            };
            let part = (node.kind_id(), node.start_byte(), node.end_byte());
            let mut parser = grounded_js::parser();
            let Some(piece) = super::recheck::parse_piece(
                &mut parser,
                &self.text,
                super::recheck::range_of(node, node),
                &[part],
                Some(&self.tree),
            ) else {
                return false;
            };
            let Some(fresh) = piece.root_node().child(0) else {
                return false;
            };
            kept.entries[i] = kept.statement(&self.corpus, &self.text, &piece, fresh);
        }
        true
    }
}

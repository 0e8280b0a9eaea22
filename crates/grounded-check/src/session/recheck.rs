//! Statement re-checks: the statement an edit falls inside, whether its summary and
//! constructs stand, and its findings judged alone against the rest of the file.
//!
//! Owns no state (the parent `Session` does). May import the parent `session` and the
//! dispatch through `check`; nothing above `check`.

use std::collections::HashSet;

use tree_sitter::Node;

use super::*;
use crate::dispatch::run_sites_in;

impl Session {
    /// The findings of top-level statement `node` judged by `a` (its analysis): its
    /// sites (only those wholly inside `ranges`, when given), its imports, its guards
    /// (and those of the function `outer` around a nested statement), its parse errors.
    /// The statement re-check and the scoped re-check (`scoped.rs`) judge alike, so an
    /// edit's findings do not depend on which path re-checked it.
    pub(super) fn judge_statement<'a>(
        &'a self,
        a: Analysis<'a>,
        idx: LineIndex<'a>,
        polyfills: &[String],
        ranges: Option<&[(usize, usize)]>,
        node: Node<'a>,
        outer: Option<Node<'a>>,
    ) -> Vec<Finding> {
        let mut cx = Ctx::new(
            &self.corpus,
            &self.project,
            &self.path,
            &self.text,
            a,
            idx,
            std::borrow::Cow::Owned(polyfills.iter().cloned().collect()),
        );
        run_sites_in(&mut cx, ranges);
        crate::module::check(&mut cx);
        guard::drop_guarded(&mut cx, node);
        if let Some(outer) = outer {
            guard::drop_guarded_around(&mut cx, node, outer);
        }
        syntax::parse_errors(&mut cx, node);
        cx.out
    }

    /// The top-level statement `start..end` falls strictly inside, and its summary.
    ///
    /// `defer`: the edit may be answered as a nested statement; then a summary kept with
    /// the statement's facts is not computed now (see [`Before::deferred`]).
    pub(super) fn statement_before(&self, start: usize, end: usize, defer: bool) -> Option<Before> {
        let node = statement_around(&self.tree, start, end)?;
        let (s, e) = (node.start_byte(), node.end_byte());
        let deferred = defer && self.has_facts(s, e);
        let summary = match self.dirty.iter().find(|d| d.0 == s && d.1 == e) {
            _ if deferred => Vec::new(),
            Some(d) => d.2.clone(),
            // The stale tree's nodes there describe older text.
            None if self.dirty.iter().any(|d| d.0 < e && s < d.1) => return None,
            // Nested statements edited alone leave its summary as kept with its facts.
            None if self
                .inner_dirty
                .borrow()
                .iter()
                .any(|d| s <= d.0 && d.1 <= e) =>
            {
                self.kept_summary(s, e)?
            }
            None => match &*self.summarised.borrow() {
                Some((t, sum)) if self.text.get(s..e) == Some(t.as_str()) => sum.clone(),
                _ => self.summary_of(&self.text, &self.tree, node),
            },
        };
        let part = |n: Node| (n.kind_id(), n.start_byte(), n.end_byte());
        Some(Before {
            s,
            e,
            kind: node.kind_id(),
            point: node.start_position(),
            prev: node.prev_sibling().map(part),
            next: node.next_sibling().map(part),
            summary,
            deferred,
            old: self.text[s..e].to_string(),
        })
    }

    pub(super) fn summary_of(
        &self,
        text: &str,
        tree: &tree_sitter::Tree,
        node: Node,
    ) -> Vec<String> {
        let empty = grounded_js::Seed::default();
        let a = Analysis::for_node(&self.corpus, text, tree, node, &empty);
        let mut s = a.summary();
        // Only the statement's own text is searched for directives: a statement is
        // summarised only in a file without any (see `plain`), and searching the whole
        // text cost a tenth of a keystroke's re-check on a 7.8 MB script.
        let own = text.get(node.byte_range()).unwrap_or_default();
        let facts = FileFacts::of_parts(&self.corpus, &self.path, own, &a, a.sites());
        s.extend(facts.loads.iter().map(|l| format!("load {l}")));
        s.push(format!("dynamic {}", facts.dynamic_loads));
        // Whether the file is a module, and so which plain scripts' names it sees
        // (`ProjectIndex::reach`), turns on these words: an edit that changes their
        // count re-checks the whole file.
        for w in ["module", "exports", "require", "import", "export"] {
            s.push(format!("{w} {}", own.matches(w).count()));
        }
        s
    }

    /// Keeps `summary` as that of `node`'s text, for the next edit in it.
    fn remember_summary(&self, node: Node, summary: &[String]) {
        let text = self.text.get(node.byte_range()).unwrap_or_default();
        *self.summarised.borrow_mut() = Some((text.to_string(), summary.to_vec()));
    }

    /// Whether `t` names a construct's Start or End: construct findings pair them across
    /// the file, so such a statement needs the whole tree.
    pub(super) fn names_construct(&self, t: &str) -> bool {
        self.corpus
            .constructs
            .values()
            .any(|c| t.contains(c.start.as_str()) || t.contains(c.end.as_str()))
            || self.helpers.borrow().iter().any(|h| t.contains(h.as_str()))
    }

    /// The path without a reparse of the file: the statement and its neighbours parsed
    /// alone. `None` when that parse does not cut them exactly as before.
    pub(super) fn recheck_piece(&mut self, b: &Before, delta: isize) -> Option<Vec<Finding>> {
        // In a file with a syntax error anywhere, a fresh parse's error recovery may take
        // in a statement that parses cleanly alone (a comment typed into at the top of
        // an unparsable file became part of the error; found by the differential test,
        // seed 172): only a fresh parse of the file says what a fresh check says.
        if self.tree.root_node().has_error() {
            return None;
        }
        let shift = |x: usize| (x as isize + delta) as usize;
        let new_e = shift(b.e);
        let constructs =
            self.names_construct(&b.old) || self.names_construct(&self.text[b.s..new_e]);
        let expect = expected_parts(b.prev, (b.kind, b.s, new_e), b.next, delta);
        // The edited (stale) tree must agree, or later edits would find wrong bounds.
        let node = top_level_at(&self.tree, b.s)?;
        let stale: Vec<Node> = node
            .prev_sibling()
            .filter(|_| b.prev.is_some())
            .into_iter()
            .chain(Some(node))
            .chain(node.next_sibling().filter(|_| b.next.is_some()))
            .collect();
        let part = |n: &Node| (n.kind_id(), n.start_byte(), n.end_byte());
        if stale.len() != expect.len() || stale.iter().map(part).ne(expect.iter().copied()) {
            return None;
        }
        let range = range_of(stale[0], stale[stale.len() - 1]);
        let piece = self.parse_piece(range, &expect)?;
        let node = piece.root_node().child(usize::from(b.prev.is_some()))?;
        let summary = self.summary_of(&self.text, &piece, node);
        self.remember_summary(node, &summary);
        if summary != b.summary {
            return None;
        }
        // A Start or End typed, renamed or mistyped inside a function: its constructs are
        // paired again from the piece alone (see `local_constructs`); the file's tree
        // is not needed, nor its reparse (a construct edit cost a whole check, 33-110 ms
        // on 10,000 lines, issue 30).
        let pass = if constructs {
            self.construct_pass(&piece, node, b, delta)?
        } else {
            ConstructPass::Keep
        };
        let out = self.recheck_in(&piece, node, b.s, b.e, delta, pass)?;
        self.dirty.retain(|d| d.0 != b.s);
        self.dirty.push((b.s, new_e, summary));
        Some(out)
    }

    /// [`parse_piece`] with the session's piece parser and the file's tree as the old
    /// tree.
    pub(super) fn parse_piece(
        &mut self,
        range: tree_sitter::Range,
        expect: &[(u16, usize, usize)],
    ) -> Option<tree_sitter::Tree> {
        parse_piece(
            &mut self.piece_parser,
            &self.text,
            range,
            expect,
            Some(&self.tree),
        )
    }

    /// The path after an incremental reparse; `None` when the edit reaches beyond the
    /// statement.
    pub(super) fn recheck_statement(
        &self,
        old_tree: &tree_sitter::Tree,
        b: &Before,
        delta: isize,
    ) -> Option<Vec<Finding>> {
        let tree = &self.tree;
        let (s, e) = (b.s, b.e);
        let root = tree.root_node();
        if root.child_count() != old_tree.root_node().child_count() {
            return None;
        }
        let node = top_level_at(tree, s)?;
        let new_e = (e as isize + delta) as usize;
        // A statement with a syntax error is judged with the whole file: what a full
        // check reports of an error depends on the errors around it (randomised edits
        // found findings the statement alone gave and a full check did not).
        if node.start_byte() != s || node.end_byte() != new_e || node.has_error() {
            return None;
        }
        if old_tree
            .changed_ranges(tree)
            .any(|r| r.start_byte < s || r.end_byte > new_e)
        {
            return None;
        }
        let summary = self.summary_of(&self.text, tree, node);
        self.remember_summary(node, &summary);
        if summary != b.summary {
            return None;
        }
        let pass = if self.names_construct(&b.old) || self.names_construct(&self.text[s..new_e]) {
            self.construct_pass(tree, node, b, delta)
                .unwrap_or(ConstructPass::Whole)
        } else {
            ConstructPass::Keep
        };
        self.recheck_in(tree, node, s, e, delta, pass)
    }

    /// The construct findings of a top-level function declaration, paired within it
    /// alone; `None` when they may depend on the rest of the file.
    ///
    /// Starts and Ends pair within their function, so a function's findings are its
    /// own — unless a helper's name is in it (a helper's calls pair where they are
    /// made, and a function that was or becomes one changes the pairing elsewhere), or
    /// the file declares a construct's global (`var layout`), which decides whether the
    /// calls inside are constructs at all. Re-pairing the whole file for a keystroke
    /// inside one function cost ~20 ms on 10,000 lines; any helper anywhere in the file
    /// used to send every construct edit there.
    pub(super) fn local_constructs(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        s: usize,
        new_e: usize,
        old: &str,
    ) -> Option<(Vec<Finding>, Vec<String>)> {
        if node.kind() != "function_declaration" {
            return None;
        }
        let new = self.text.get(s..new_e)?;
        let own_new = node
            .child_by_field_name("name")
            .and_then(|n| self.text.get(n.byte_range()));
        let own_old = function_name(old);
        // A helper named in the function: only its own name (it is, or was, the
        // helper), called nowhere else. A helper called here pairs with the file's.
        let mut helpers = self.helpers.borrow().clone();
        for h in &helpers {
            if !old.contains(h.as_str()) && !new.contains(h.as_str()) {
                continue;
            }
            let own = own_new == Some(h.as_str()) || own_old == Some(h.as_str());
            if !own || self.named_outside(h, s, new_e) {
                return None;
            }
        }
        if self.declares_global.get() || self.declares_in(new) {
            return None;
        }
        // The function alone: a tree of it (a piece holding only it), so the
        // analysis reads the function and nothing else.
        let alone;
        let tree = if tree.root_node().child_count() == 1 {
            tree
        } else {
            let mut parser = js::parser();
            let range = tree_sitter::Range {
                start_byte: node.start_byte(),
                end_byte: node.end_byte(),
                start_point: node.start_position(),
                end_point: node.end_position(),
            };
            parser.set_included_ranges(&[range]).ok()?;
            // The file's tree as the old one, as in `parse_piece`.
            alone = parser.parse(&self.text, Some(&self.tree))?;
            &alone
        };
        if tree.root_node().has_error() || tree.root_node().child_count() != 1 {
            return None;
        }
        let (found, now) = construct::check_helpers(&self.corpus, &self.path, &self.text, tree);
        // A typo in the one End (or Start) of a function makes it a helper, whose calls
        // elsewhere would stand for that Start: alone only when nothing else names it.
        if now.iter().any(|h| self.named_outside(h, s, new_e)) {
            return None;
        }
        helpers.retain(|h| Some(h.as_str()) != own_old && Some(h.as_str()) != own_new);
        helpers.extend(now);
        helpers.sort();
        let found = found
            .into_iter()
            .filter(|f| f.span.start >= s && f.span.end <= new_e)
            .collect();
        Some((found, helpers))
    }

    /// Whether the word `name` occurs in the text outside bytes `s..e`.
    fn named_outside(&self, name: &str, s: usize, e: usize) -> bool {
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '$');
        self.text.match_indices(name).any(|(i, _)| {
            let end = i + name.len();
            (i < s || i >= e)
                && !word(self.text[..i].chars().next_back())
                && !word(self.text[end..].chars().next())
        })
    }

    /// Whether `text` declares or assigns a construct's global (`var layout`,
    /// `layout = ...`): then whether a call is a construct depends on that declaration.
    pub(super) fn declares_in(&self, text: &str) -> bool {
        self.declares.iter().any(|r| r.is_match(text))
    }

    /// The findings with statement `node` (bytes `s..e` before the edit) re-checked
    /// alone from `tree` (the file's, or a piece's: its nodes carry file offsets) and
    /// every other finding kept, shifted; `None` when a finding from outside reaches
    /// into the statement. Construct findings are kept, recomputed over `tree` (then the
    /// whole file's) or given for the statement alone, as `pass` says.
    fn recheck_in(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        s: usize,
        e: usize,
        delta: isize,
        pass: ConstructPass,
    ) -> Option<Vec<Finding>> {
        self.recheck_in_with(tree, node, s, e, delta, pass, None)
    }

    /// [`Session::recheck_in`]; for a nested statement (`inner`), with the bindings of
    /// the functions around it (outermost first) seeded as globals, and its guards read
    /// on up from its node in the file's (edited) tree.
    #[allow(clippy::too_many_arguments, clippy::type_complexity)]
    pub(super) fn recheck_in_with(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        s: usize,
        e: usize,
        delta: isize,
        pass: ConstructPass,
        inner: Option<(
            &[(
                String,
                grounded_js::BindingKind,
                Option<grounded_js::SeedType>,
                bool,
            )],
            Node,
        )>,
    ) -> Option<Vec<Finding>> {
        if self.declares_in(self.text.get(node.byte_range()).unwrap_or_default()) {
            self.declares_global.set(true);
        }
        // A construct finding kept from outside the statement whose message names a line
        // at or after it ("closed on line 36 only on the path...") would keep the old
        // number when the edit moves lines (found by the differential test): such an
        // edit is checked whole.
        let first = node.start_position().row + 1;
        if !pass.whole_file()
            && self.findings.iter().any(|f| {
                (f.span.start < s || f.span.start >= e)
                    && f.code == Code::Construct
                    && closed_line(&f.message).is_some_and(|l| l >= first)
            })
        {
            return None;
        }
        let mut out: Vec<Finding> = Vec::new();
        let mut after = Vec::new();
        for f in &self.findings {
            if pass.whole_file() && f.code == Code::Construct {
                continue;
            }
            let (a, b) = (f.span.start, f.span.end);
            if b <= s && a < s {
                out.push(kept_before(f, s, e, delta));
            } else if a >= e {
                after.push(f);
            } else if a < s || b > e || (a == s && b == s) {
                // A finding reaching into the statement from outside (a parse error of
                // the text around it): the statement alone cannot say it again.
                return None;
            }
        }
        let idx = LineIndex::from_starts(&self.text, self.starts.clone());
        out.extend(
            after
                .into_iter()
                .map(|f| rebuilt(f, &self.path, &idx, delta)),
        );
        let idx = &idx;
        let run = |seed: &grounded_js::Seed| {
            let a = Analysis::for_node(&self.corpus, &self.text, tree, node, seed);
            let outer = inner.map(|(_, outer)| outer);
            self.judge_statement(a, idx.clone(), &seed.polyfills, None, node, outer)
        };
        // The functions' bindings shadow the file's names.
        let overlaid = |mut seed: grounded_js::Seed, words: Option<&HashSet<&str>>| {
            if let Some((overlay, _)) = inner {
                let shadowed: HashSet<&str> = overlay.iter().map(|o| o.0.as_str()).collect();
                seed.globals.retain(|g| !shadowed.contains(g.0.as_str()));
                seed.globals.extend(
                    overlay
                        .iter()
                        .filter(|o| words.is_none_or(|w| w.contains(o.0.as_str())))
                        .map(|o| (o.0.clone(), o.1, o.2.clone())),
                );
            }
            seed
        };
        let own_text = &self.text[node.byte_range()];
        let words: HashSet<&str> = match inner {
            Some(_) => grounded_js::Seed::words(own_text).collect(),
            None => HashSet::new(),
        };
        let cut = overlaid(self.seed_names.for_text(&self.seed, own_text), Some(&words));
        let mut own = run(&cut);
        // The `object` and `function` families suggest the file's names near the wrong
        // one, which the statement does not spell: the cut seed lacks them, and the
        // re-check dropped the "did you mean" a full check gives (issue 30). Only then
        // is the statement analysed again with every name of the file.
        if own
            .iter()
            .any(|f| matches!(f.code, Code::Object | Code::Function))
        {
            own = match inner {
                Some(_) => run(&overlaid((*self.seed).clone(), None)),
                None => run(&self.seed),
            };
        }
        out.extend(own);
        let mut pass = pass;
        // A nested statement's kept parts are its top-level statement's: moved by the
        // caller (`Session::pairing_nested`).
        let kept = match inner {
            Some(_) => None,
            None => self.pairing_after(tree, node, s, e, delta, &mut pass),
        };
        match pass {
            ConstructPass::Keep => {}
            ConstructPass::Whole => {
                let (found, helpers) =
                    construct::check_helpers(&self.corpus, &self.path, &self.text, tree);
                out.extend(found);
                *self.helpers.borrow_mut() = helpers;
                self.whole_pairings.set(self.whole_pairings.get() + 1);
            }
            ConstructPass::Local(found, helpers, entry) => {
                out.extend(found);
                *self.helpers.borrow_mut() = helpers;
                if entry.is_some() {
                    self.kept_pairings.set(self.kept_pairings.get() + 1);
                }
            }
            ConstructPass::Kept(_) => {
                // The kept parts could not be read (a stale statement that does not
                // parse alone): the caller's next path says, not an empty pairing.
                let (found, helpers) = kept?;
                out.extend(found);
                *self.helpers.borrow_mut() = helpers;
                self.kept_pairings.set(self.kept_pairings.get() + 1);
            }
        }
        sort_findings(&mut out);
        Some(out)
    }
}

/// The bytes of `range` of `text` parsed alone by `parser` (tree-sitter's included
/// ranges: nodes keep the file's offsets); `None` unless the parse is clean and cuts
/// exactly the nodes of `expect` (kind and bytes, in order): a statement and its
/// neighbours, whose bounds the whole file's parse would then cut the same way.
///
/// `old`: the file's tree, told of every edit (`Tree::edit`), stale or not: the parse
/// reuses its unchanged subtrees. Parsing a 2,000-line function from nothing was a
/// third of the re-check of an edit in it (70 ms → 40 ms with the old tree).
pub(super) fn parse_piece(
    parser: &mut tree_sitter::Parser,
    text: &str,
    range: tree_sitter::Range,
    expect: &[(u16, usize, usize)],
    old: Option<&tree_sitter::Tree>,
) -> Option<tree_sitter::Tree> {
    parser.set_included_ranges(&[range]).ok()?;
    let piece = parser.parse(text, old)?;
    let root = piece.root_node();
    let mut c = root.walk();
    let cut = !root.has_error()
        && root.child_count() == expect.len()
        && root
            .children(&mut c)
            .map(|n| (n.kind_id(), n.start_byte(), n.end_byte()))
            .eq(expect.iter().copied());
    drop(c);
    cut.then_some(piece)
}

/// The nodes a statement's piece parse must cut (kind and bytes): its previous
/// neighbour as it was, the statement `now`, its next neighbour moved by the edit's
/// `delta`.
pub(super) fn expected_parts(
    prev: Option<(u16, usize, usize)>,
    now: (u16, usize, usize),
    next: Option<(u16, usize, usize)>,
    delta: isize,
) -> Vec<(u16, usize, usize)> {
    let shift = |x: usize| (x as isize + delta) as usize;
    prev.into_iter()
        .chain(Some(now))
        .chain(next.map(|(k, s, e)| (k, shift(s), shift(e))))
        .collect()
}

/// The bytes and points from the start of `lo` to the end of `hi`.
pub(super) fn range_of(lo: Node, hi: Node) -> tree_sitter::Range {
    tree_sitter::Range {
        start_byte: lo.start_byte(),
        end_byte: hi.end_byte(),
        start_point: lo.start_position(),
        end_point: hi.end_position(),
    }
}

/// The name a function declaration's text declares (`function name(`).
fn function_name(text: &str) -> Option<&str> {
    let rest = text.trim_start().strip_prefix("function")?;
    let rest = rest.trim_start();
    let n = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(rest.len());
    (n > 0).then(|| &rest[..n])
}

/// The line a construct finding's message names ("is closed on line N only on the
/// path..."), if any.
pub(super) fn closed_line(message: &str) -> Option<usize> {
    let rest = message.split_once(" is closed on line ")?.1;
    let n = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    rest[..n].parse().ok()
}

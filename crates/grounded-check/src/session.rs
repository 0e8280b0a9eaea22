//! The session: one script kept open for editing, its text, tree, seed and findings, and
//! the edit that decides between a statement-only re-check and a whole check.
//!
//! Owns the kept state and its helpers; the statement re-checks are the child `recheck`,
//! the seed's index by name the child `seeding`, the construct pairing kept per
//! statement the child `pairing`. May import the dispatch and the
//! families through the parent `check`, `js` and `docs`; nothing above `check`.

use std::sync::Arc;

use tree_sitter::Node;

use super::*;

mod inner;
mod pairing;
mod recheck;
mod scoped;
mod seeding;

use seeding::SeedNames;

/// A script kept open for editing: its text, its tree, its findings.
///
/// An edit strictly inside one top-level statement that leaves what the statement
/// contributes to the whole file unchanged (its top-level declarations and what it
/// assigns them, narrowing, `typeof` tests, polyfills, loads) re-checks that statement
/// alone, against the rest of the file's facts (the [`grounded_js::Seed`] of the last full
/// check); every other finding is kept, shifted. Such an edit does not even reparse the
/// file: only the statement and its two neighbours are parsed (tree-sitter's included
/// ranges, so nodes keep the file's offsets), and the file's tree gets the edit applied
/// (`tree.edit`) but is reparsed only when something needs it: the next edit that is
/// not of this kind, or [`Session::tree`]. On a flat 10,000-line script tree-sitter's
/// incremental reparse still visits every top-level statement (~20 ms), more than the
/// whole budget of a keystroke in the language server.
///
/// The neighbours are parsed too because statement boundaries depend on context: a
/// statement now ending in an expression can swallow a next line starting with `(`,
/// and a previous statement without a semicolon can run on into this one. When the
/// three parse cleanly to exactly the same three nodes (same kinds, same ranges), the
/// whole file's parse would cut them the same way: what follows the next statement is
/// parsed from the same state over the same text as before.
///
/// An edit strictly inside a simple statement nested in a function's body goes one
/// level further (`inner`): that statement alone, with the function's bindings
/// standing in for the function, as the seed stands in for the file.
///
/// A Start or End (or a helper's name) in the statement is paired within its function
/// when nothing else can change, else from what each statement opens and closes, kept
/// per statement (the child `pairing`): neither reads the rest of the file.
///
/// Anything else (an edit across statements, a syntax error, a changed summary) reparses
/// incrementally and re-checks the one statement if the new tree allows it, or the whole
/// file.
pub struct Session {
    /// Owned (shared), not borrowed: the language server keeps a session per buffer
    /// across requests beside the corpus and index it was opened with, and a borrowed
    /// session there needed a faked `'static` lifetime behind `unsafe`.
    corpus: Arc<Corpus>,
    project: Arc<ProjectIndex>,
    path: String,
    text: String,
    parser: tree_sitter::Parser,
    /// Parses a statement and its neighbours alone (included ranges set per edit).
    piece_parser: tree_sitter::Parser,
    /// The file's tree; when `stale`, edits are applied to it but not parsed yet.
    tree: tree_sitter::Tree,
    stale: bool,
    /// Statements re-checked from a piece parse since `tree` was last parsed: their byte
    /// range now and their summary. Inside them the stale tree describes older text.
    dirty: Vec<(usize, usize, Vec<String>)>,
    /// Nested statements re-checked alone (see `inner`) since `tree` was last parsed:
    /// their byte range now and their summary. Inside them the tree is stale.
    inner_dirty: std::cell::RefCell<Vec<(usize, usize, Vec<String>)>>,
    /// Per top-level statement being typed in: the bindings of its inner scopes.
    facts: std::cell::RefCell<Vec<inner::Facts>>,
    findings: Vec<Finding>,
    /// Shared: the language server answers hover and completion on a large file from
    /// the last seed while the next check runs.
    seed: Arc<grounded_js::Seed>,
    /// Where each of the seed's globals and project names is, by name (built with the
    /// seed): a statement's re-check is seeded with the names it contains only.
    ///
    /// Why: seeding all of them cost a hash-map insert per top-level name per keystroke,
    /// a third of an edit's re-check on a 7.8 MB script of 34,000 functions.
    seed_names: SeedNames,
    /// The file's construct helpers as last paired (a full check, or a re-check that
    /// paired the whole file): a keystroke may make or unmake one, which changes the
    /// findings at its calls elsewhere.
    helpers: std::cell::RefCell<Vec<String>>,
    /// Patterns of a declaration or assignment of a construct's global, compiled once.
    declares: Vec<regex::Regex>,
    /// Whether the text declared one at the last full check, or any statement re-checked
    /// since does (sticky until the next full check: never wrongly false).
    declares_global: std::cell::Cell<bool>,
    /// The last statement summarised after an edit: its text and summary. The next
    /// keystroke in it needs the summary of that text before its edit, which costs an
    /// analysis of the whole statement (a 2,000-line function) otherwise. A statement's
    /// summary is of its text alone (analysed with no seed), so the text is the key.
    summarised: std::cell::RefCell<Option<(String, Vec<String>)>>,
    /// The last functions parsed alone by a declaration re-check, the most recent
    /// last, for the next one's parse to start from (see `scoped`).
    last_pieces: Vec<scoped::LastPiece>,
    incremental: usize,
    unparsed: usize,
    inner: usize,
    /// Edits of a nested declaration re-checked with what reads it (see `scoped`).
    scoped: usize,
    /// Of those, the ones whose function was parsed from its last parse there.
    from_last_piece: usize,
    /// The line of the last edit re-checked from a piece (see [`Session::catch_up`]).
    piece_row: Option<usize>,
    /// What each top-level statement contributes to the construct pairing, when kept
    /// (see `pairing`): a construct edit re-pairs the file from it.
    pairing: std::cell::RefCell<Option<pairing::Pairing>>,
    /// Edits whose constructs were paired by analysing the whole file, and edits paired
    /// from the kept parts (for tests and benchmarks).
    whole_pairings: std::cell::Cell<usize>,
    kept_pairings: std::cell::Cell<usize>,
    /// Line starts of `text`, kept across edits.
    starts: Vec<usize>,
    /// Whether `text` contains an engine directive (then it is blanked before parsing).
    directive: bool,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("path", &self.path)
            .field("findings", &self.findings.len())
            .field("stale", &self.stale)
            .finish()
    }
}

/// The statement an edit falls strictly inside, before the edit.
pub(super) struct Before {
    s: usize,
    e: usize,
    kind: u16,
    /// The position of `s`.
    point: tree_sitter::Point,
    /// The previous and next top-level children: kind and byte range.
    prev: Option<(u16, usize, usize)>,
    next: Option<(u16, usize, usize)>,
    summary: Vec<String>,
    /// The summary is left to [`Session::kept_summary`], asked only if the edit is not
    /// answered as a nested statement (it costs an analysis of the whole statement).
    deferred: bool,
    /// Its text before the edit.
    old: String,
}

/// What a statement-only re-check does with construct findings.
enum ConstructPass {
    /// The statement names no Start or End: the file's construct findings stand.
    Keep,
    /// Re-pair the whole file.
    Whole,
    /// The statement's own, computed alone (a function declaration), and the file's
    /// helpers after the edit; and the statement's new parts, to keep (see `pairing`).
    Local(Vec<Finding>, Vec<String>, Option<pairing::Entry>),
    /// The whole file's, paired from the parts kept per statement once the statement's
    /// new parts (read again alone) are kept in place of its old ones.
    Kept(pairing::Entry),
}

impl ConstructPass {
    /// Whether the pass gives every construct finding of the file.
    fn whole_file(&self) -> bool {
        matches!(self, ConstructPass::Whole | ConstructPass::Kept(..))
    }
}

impl Session {
    /// Opens `text` as `path` and checks it against `corpus` and `project`, which the
    /// session keeps for every later edit.
    pub fn new(corpus: Arc<Corpus>, project: Arc<ProjectIndex>, path: &str, text: &str) -> Session {
        let mut parser = js::parser();
        let script = js::script_text(path, text, &corpus.engine.directives);
        let tree = parser
            .parse(script.as_ref(), None)
            .expect("a parser with a language and no timeout always returns a tree");
        let (findings, seed, calls) =
            check_script_full(&corpus, &project, path, path, text, &script, &tree, true);
        let directive = has_directive(&corpus, text);
        let declares = declare_patterns(&corpus);
        let declares_global = declares.iter().any(|r| r.is_match(text)).into();
        let mut session = Session {
            declares,
            declares_global,
            corpus,
            project,
            path: path.to_string(),
            text: text.to_string(),
            parser,
            piece_parser: js::parser(),
            tree,
            stale: false,
            dirty: Vec::new(),
            inner_dirty: Default::default(),
            facts: Default::default(),
            findings,
            helpers: std::cell::RefCell::new(seed.construct_helpers.clone()),
            seed_names: SeedNames::of(&seed),
            seed: Arc::new(seed),
            summarised: Default::default(),
            last_pieces: Vec::new(),
            incremental: 0,
            unparsed: 0,
            inner: 0,
            scoped: 0,
            from_last_piece: 0,
            piece_row: None,
            starts: LineIndex::new(text).starts().to_vec(),
            directive,
            pairing: Default::default(),
            whole_pairings: Default::default(),
            kept_pairings: Default::default(),
        };
        session.keep_pairing(calls);
        session
    }

    /// Parses the file again before an edit at `start..end` inside a large top-level
    /// statement re-checked from a piece since the last parse, whose subtree in the
    /// file's tree is therefore stale: a nested re-check (`inner.rs`) reads that
    /// subtree, and was refused there until the next whole check.
    ///
    /// Why: one edit that changed what a line of a 2,000-line function declares
    /// (`new BlockQ()`) left every later keystroke in that function to the statement
    /// path, ~65 ms each instead of ~1 ms. Large: re-checking the statement costs more
    /// than the incremental parse of the file, which costs about a sixtieth as much per
    /// byte (3.7 ms for 12,000 lines, 35 ms for 92,000, under load); a small statement
    /// is cheaper to keep re-checking whole.
    ///
    /// Not for an edit on the line of the last one re-checked from a piece: typing on
    /// in a declaration (`new BlockQu`) stays there, and would pay the parse each time.
    fn catch_up(&mut self, start: usize, end: usize) {
        if self.piece_row == Some(self.starts.partition_point(|&x| x <= start)) {
            return;
        }
        let large = self
            .dirty
            .iter()
            .any(|d| d.0 < start && end < d.1 && (d.1 - d.0) * 64 >= self.text.len());
        if large {
            self.tree();
        }
    }

    /// Whether the file needs no blanking (no Markdown, no engine directive): then the
    /// tree is of the text itself and statements can be re-checked alone.
    fn plain(&self) -> bool {
        !js::is_markdown(&self.path) && !self.directive
    }

    /// Replaces bytes `start..end` with `new_text` and re-checks; returns the findings.
    /// Out-of-range or non-boundary offsets are clamped to the nearest character
    /// boundary, never a panic.
    pub fn edit(&mut self, start: usize, end: usize, new_text: &str) -> &[Finding] {
        let mut start = start.min(self.text.len());
        let mut end = end.clamp(start, self.text.len());
        while !self.text.is_char_boundary(start) {
            start -= 1;
        }
        while !self.text.is_char_boundary(end) {
            end += 1;
        }
        let (inner, mut before) = if self.plain() {
            self.catch_up(start, end);
            let inner = self.inner_before(start, end);
            let before = self.statement_before(start, end, inner.is_some());
            (inner, before)
        } else {
            (None, None)
        };
        // Positions from the statement's start when known: scanning the whole text
        // for line breaks costs as much as the rest of a keystroke's re-check.
        let start_position = match &before {
            Some(b) => advance(b.point, &self.text[b.s..start]),
            None => point_of(&self.text, start),
        };
        let edit = tree_sitter::InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: start + new_text.len(),
            start_position,
            old_end_position: advance(start_position, &self.text[start..end]),
            new_end_position: advance(start_position, new_text),
        };
        self.text.replace_range(start..end, new_text);
        let delta = new_text.len() as isize - (end - start) as isize;
        let shift = |x: usize| (x as isize + delta) as usize;
        js::splice_starts(&mut self.starts, start, end, new_text);
        // A directive can only appear around the edit; one that was there may have gone.
        let reach = self
            .corpus
            .engine
            .directives
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(0);
        let mut lo = start.saturating_sub(reach);
        while !self.text.is_char_boundary(lo) {
            lo -= 1;
        }
        let mut hi = (start + new_text.len() + reach).min(self.text.len());
        while !self.text.is_char_boundary(hi) {
            hi += 1;
        }
        self.directive = if self.directive {
            has_directive(&self.corpus, &self.text)
        } else {
            has_directive(&self.corpus, &self.text[lo..hi])
        };
        self.tree.edit(&edit);
        self.stale = true;
        for d in &mut self.dirty {
            if d.0 >= end {
                d.0 = shift(d.0);
                d.1 = shift(d.1);
            } else if d.1 > end {
                d.1 = shift(d.1);
            }
        }
        self.shift_inner(end, delta);
        if let Some(b) = &inner {
            if let Some(findings) = self.recheck_inner(b, delta) {
                self.findings = findings;
                self.incremental += 1;
                self.unparsed += 1;
                return &self.findings;
            }
        }
        if let Some(b) = before.as_mut().filter(|b| b.deferred) {
            // The kept facts were moved past the edit with the rest (`shift_inner`);
            // asked by where they were before it, the lookup missed and every edit
            // that changed a nested line's summary (`new TableQ()`) paid a whole check.
            let e = if b.e > end { shift(b.e) } else { b.e };
            match self.kept_summary(b.s, e) {
                Some(summary) => {
                    b.summary = summary;
                    b.deferred = false;
                }
                None => before = None,
            }
        }
        self.forget_inner(start);
        if let Some(b) = &before {
            if let Some(findings) = self.recheck_piece(b, delta) {
                self.piece_row = Some(self.starts.partition_point(|&x| x <= start));
                self.findings = findings;
                self.incremental += 1;
                self.unparsed += 1;
                return &self.findings;
            }
        }
        let script = js::script_text(&self.path, &self.text, &self.corpus.engine.directives);
        let (tree, fresh) = reparse(&mut self.parser, &self.tree, script.as_ref());
        let old_tree = std::mem::replace(&mut self.tree, tree);
        self.stale = false;
        self.dirty.clear();
        self.inner_dirty.get_mut().clear();
        if let (Some(b), false) = (before, fresh) {
            if let Some(findings) = self.recheck_statement(&old_tree, &b, delta) {
                self.findings = findings;
                self.incremental += 1;
                return &self.findings;
            }
        }
        let (findings, seed, calls) = check_script_full(
            &self.corpus,
            &self.project,
            &self.path,
            &self.path,
            &self.text,
            &script,
            &self.tree,
            true,
        );
        self.findings = findings;
        self.facts.get_mut().clear();
        self.declares_global
            .set(self.declares.iter().any(|r| r.is_match(&self.text)));
        *self.helpers.borrow_mut() = seed.construct_helpers.clone();
        self.seed_names = SeedNames::of(&seed);
        self.seed = Arc::new(seed);
        self.whole_pairings.set(self.whole_pairings.get() + 1);
        self.keep_pairing(calls);
        &self.findings
    }
    /// How many edits re-checked one statement alone (for tests and benchmarks),
    /// whether or not the file was reparsed.
    pub fn incremental_edits(&self) -> usize {
        self.incremental
    }

    /// How many edits re-checked a statement nested in a top-level one alone, from a
    /// parse of it and its neighbours (for tests and benchmarks; counted in
    /// [`Session::unparsed_edits`] too).
    pub fn inner_edits(&self) -> usize {
        self.inner
    }

    /// How many edits changed what a statement nested in a function assigns one of the
    /// function's names, and were re-checked with what reads that name alone (for tests
    /// and benchmarks; counted in [`Session::unparsed_edits`] too).
    pub fn scoped_edits(&self) -> usize {
        self.scoped
    }

    /// How many of [`Session::scoped_edits`] parsed the function from its last parse
    /// there, told only where its text differs now (for tests and benchmarks).
    pub fn scoped_from_last_parse(&self) -> usize {
        self.from_last_piece
    }

    /// How many edits paired the file's constructs by analysing the whole file (a full
    /// check, or a statement's re-check that paired the whole tree again).
    pub fn whole_pairings(&self) -> usize {
        self.whole_pairings.get()
    }

    /// How many construct edits were paired without analysing the whole file, with only
    /// the edited statement read again and what each statement opens and closes kept:
    /// the file paired from the kept parts, or the edited function alone when nothing
    /// else can change.
    pub fn kept_pairings(&self) -> usize {
        self.kept_pairings.get()
    }

    /// How many edits re-checked one statement from a parse of that statement and its
    /// neighbours only, leaving the file's reparse for later (for tests and benchmarks).
    pub fn unparsed_edits(&self) -> usize {
        self.unparsed
    }

    /// The file's tree without a reparse: current after a full check; after re-checks
    /// of single statements, edited to the text's positions but not reparsed (its
    /// top-level statements' bounds are right; what is inside an edited one may not be).
    pub fn edited_tree(&self) -> &tree_sitter::Tree {
        &self.tree
    }

    /// The whole file's facts as of the last full check (see [`grounded_js::Seed`]).
    pub fn seed(&self) -> Arc<grounded_js::Seed> {
        self.seed.clone()
    }

    /// The findings of the text as it is now.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The current text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The path the session checks the text as (findings and the project index name
    /// the file by it).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The corpus the session checks against.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    /// The project index the session checks against.
    pub fn project(&self) -> &Arc<ProjectIndex> {
        &self.project
    }

    /// The current tree: reparsed first when edits were re-checked without it, so the
    /// tree returned is always of the current text (as blanked for Markdown and engine
    /// directives).
    pub fn tree(&mut self) -> &tree_sitter::Tree {
        if self.stale {
            let script = js::script_text(&self.path, &self.text, &self.corpus.engine.directives);
            self.tree = reparse(&mut self.parser, &self.tree, script.as_ref()).0;
            self.stale = false;
            self.dirty.clear();
            self.inner_dirty.get_mut().clear();
        }
        &self.tree
    }
}

/// The tree of `script` (the current text as parsed), reparsed from the edited tree `old`;
/// and whether that tree has a syntax error, in which case it is parsed afresh.
///
/// Why: tree-sitter's incremental reparse recovers from an error differently from a
/// fresh parse of the same text. A `{` typed inside `try` made the server report
/// "`}` is missing" where `grounded check` reports the unexpected `{` (issue 30); a
/// keystroke in an unparsable file dropped a finding above it. The findings must be
/// those of a fresh check, so a tree with an error is always a fresh parse's.
fn reparse(
    parser: &mut tree_sitter::Parser,
    old: &tree_sitter::Tree,
    script: &str,
) -> (tree_sitter::Tree, bool) {
    let tree = parser
        .parse(script, Some(old))
        .expect("a parser with a language and no timeout always returns a tree");
    if !tree.root_node().has_error() {
        return (tree, false);
    }
    let fresh = parser
        .parse(script, None)
        .expect("a parser with a language and no timeout always returns a tree");
    (fresh, true)
}

/// A declaration or assignment of each construct's global (`var layout`, `function
/// layout`, `layout = ...`), by line.
fn declare_patterns(corpus: &Corpus) -> Vec<regex::Regex> {
    let mut globals: Vec<&str> = corpus
        .constructs
        .values()
        .map(|c| c.global.as_str())
        .collect();
    globals.sort_unstable();
    globals.dedup();
    globals
        .into_iter()
        .filter_map(|g| {
            let g = regex::escape(g);
            regex::Regex::new(&format!(
                r"(?m)(\bvar\s+|\bfunction\s+|^\s*){g}\b\s*(=[^=]|[,;(]|$)"
            ))
            .ok()
        })
        .collect()
}

/// Whether `text` contains one of the engine's directives.
fn has_directive(corpus: &Corpus, text: &str) -> bool {
    corpus
        .engine
        .directives
        .iter()
        .any(|d| text.contains(d.as_str()))
}

/// The top-level statement that `start..end` falls strictly inside (none when it has
/// a syntax error).
fn statement_around(tree: &tree_sitter::Tree, start: usize, end: usize) -> Option<Node<'_>> {
    let n = top_level_at(tree, start)?;
    if n.start_byte() <= start && end < n.end_byte() && !n.is_error() && !n.has_error() {
        Some(n)
    } else {
        None
    }
}

/// The first top-level child ending after `byte`. The program's children sit in
/// balanced hidden repetition nodes, which this descends (logarithmic), where walking
/// the children one by one visits every statement of the file.
fn top_level_at(tree: &tree_sitter::Tree, byte: usize) -> Option<Node<'_>> {
    tree.root_node().first_child_for_byte(byte)
}

/// A finding before the edited statement `s..e`, kept: its own span stays, but a fix
/// may point past the edit (an unclosed Start's *Insert End* at the end of the
/// script) and moves with the text there; a fix reaching into the edit is dropped,
/// since what it would replace changed.
fn kept_before(f: &Finding, s: usize, e: usize, delta: isize) -> Finding {
    let mut g = f.clone();
    let shift = |x: usize| (x as isize + delta).max(0) as usize;
    g.fixes.retain_mut(|x| {
        let span = match x {
            Fix::Replace { span, .. } | Fix::Delete { span, .. } => span,
        };
        if span.start >= e {
            *span = Span::new(shift(span.start), shift(span.end));
            true
        } else {
            span.end <= s
        }
    });
    g
}

/// A kept finding at its new place: spans shifted by `delta`, positions recomputed.
fn rebuilt(f: &Finding, path: &str, idx: &LineIndex, delta: isize) -> Finding {
    let shift = |x: usize| (x as isize + delta).max(0) as usize;
    let span = Span::new(shift(f.span.start), shift(f.span.end));
    let mut g = Finding::with_index(path, idx, span, f.code, f.message.clone());
    g.severity = f.severity;
    g.related = f.related.clone();
    g.fixes = f
        .fixes
        .iter()
        .map(|x| {
            let mut x = x.clone();
            match &mut x {
                Fix::Replace { span, .. } | Fix::Delete { span, .. } => {
                    *span = Span::new(shift(span.start), shift(span.end));
                }
            }
            x
        })
        .collect();
    g
}

/// The position after `text` when it starts at `p`.
fn advance(p: tree_sitter::Point, text: &str) -> tree_sitter::Point {
    match text.rfind('\n') {
        Some(last) => tree_sitter::Point::new(
            p.row + text.bytes().filter(|&b| b == b'\n').count(),
            text.len() - last - 1,
        ),
        None => tree_sitter::Point::new(p.row, p.column + text.len()),
    }
}

fn point_of(text: &str, offset: usize) -> tree_sitter::Point {
    let before = &text[..offset];
    let row = before.matches('\n').count();
    let col = offset - before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    tree_sitter::Point::new(row, col)
}

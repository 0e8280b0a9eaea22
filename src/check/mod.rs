//! `check`: the families of findings, one file each, decided against the corpus.
//!
//! One parse, one query pass over the tree (`grammars/javascript/*.scm`), one scope walk
//! ([`crate::js::Analysis`]); every site the query captures is handed to the families
//! that judge it. Nothing here names an engine: every fact comes from the corpus.
//!
//! | family | file | finds |
//! |---|---|---|
//! | `member` | `member.rs` | a member the certain receiver's interface lacks |
//! | `object` | `object.rs` | a receiver declared nowhere |
//! | `function` | `function.rs` | a bare call of a function defined nowhere |
//! | `syntax` | `syntax.rs` | parse errors, syntax above the engine's level |
//! | `option` | `option.rs` | an object-literal key the parameter's interface lacks |
//! | `constructor` | `constructor.rs` | `new X()` of nothing |
//! | `engine` | `engine.rs` | a built-in the engine's level lacks |
//! | `file` | `file.rs` | a `path` literal naming no file of the project |
//! | `construct` | `construct.rs` | Start without End (owned by the footprint layer) |

pub mod construct;
mod constructor;
mod engine;
mod file;
pub mod finding;
mod function;
mod guard;
mod member;
mod object;
mod option;
pub mod project;
pub mod suggest;
mod syntax;

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use finding::{Code, CodeInfo, Finding, Fix, Place, Related, Severity, Span, CODES};
pub use project::{FileFacts, ProjectIndex};
pub use syntax::{rule_name, RULE_NAMES};

use tree_sitter::Node;

use crate::docs::{Corpus, Member};
use crate::js::query::CaptureKind;
use crate::js::{self, Analysis, Certain, LineIndex, ScopeId};

/// Checks one script's text. `path` is how findings name the file (relative to the
/// root for project files). Markdown is checked by its fenced `js` blocks.
pub fn check_text(corpus: &Corpus, project: &ProjectIndex, path: &str, text: &str) -> Vec<Finding> {
    let script = js::script_text(path, text, &corpus.engine.directives);
    let tree = js::parse(&script);
    check_script(corpus, project, path, path, text, &script, &tree)
}

/// Like [`check_text`] with a tree the caller keeps (incremental reparse). The tree must
/// be of `text` as given; when the file needs blanking (engine directives, Markdown) the
/// blanked text is parsed here instead.
pub fn check_tree(
    corpus: &Corpus,
    project: &ProjectIndex,
    path: &str,
    text: &str,
    tree: &tree_sitter::Tree,
) -> Vec<Finding> {
    let script = js::script_text(path, text, &corpus.engine.directives);
    match &script {
        Cow::Borrowed(s) => check_script(corpus, project, path, path, text, s, tree),
        Cow::Owned(s) => {
            let own = js::parse(s);
            check_script(corpus, project, path, path, text, s, &own)
        }
    }
}

/// One file of a [`check_paths`] run that was skipped or read with a caveat (not UTF-8,
/// too large, left out of a bounded walk).
#[derive(Debug, Clone)]
pub struct Unreadable {
    /// The path as shown.
    pub path: String,
    /// What happened, starting with `skipped` when the file was not checked.
    pub reason: String,
}

/// One file a [`check_paths`] run checked.
#[derive(Debug, Clone)]
pub struct Checked {
    /// The path as shown (see [`check_paths`]).
    pub shown: String,
    /// The path to read it back from.
    pub file: PathBuf,
    /// Whether it held any script: a script file, or a Markdown file with a fenced
    /// `js` block. A run that checked Markdown prose alone checked nothing.
    pub script: bool,
}

/// What a [`check_paths`] run did.
#[derive(Debug, Clone, Default)]
pub struct PathsReport {
    /// The findings, in the order the files were checked.
    pub findings: Vec<Finding>,
    /// Files that could not be read.
    pub unreadable: Vec<Unreadable>,
    /// Every file read and checked.
    pub checked: Vec<Checked>,
}

/// Checks files and folders (folders: every script by the engine's script extensions,
/// and every `.md` file). `root` is the project root (loads and `path` arguments are
/// relative to it). Findings name a file as the user would from the current folder: a
/// file argument as given, a file found in a folder argument as the folder joined with
/// its path inside it ([`project::shown_in`]); two `typo.js` in two folders taught that
/// a path relative to its own folder argument names nothing the user can open.
pub fn check_paths(corpus: &Corpus, root: &Path, paths: &[PathBuf]) -> PathsReport {
    let project = ProjectIndex::scan(corpus, root);
    let mut report = PathsReport::default();
    let mut noted: HashSet<(PathBuf, String)> = HashSet::new();
    let mut say = |bad: &mut Vec<Unreadable>, path: String, reason: String| {
        // The index's walk and a folder argument's walk often cover the same files:
        // each thing skipped is said once.
        let key = std::fs::canonicalize(&path).unwrap_or_else(|_| PathBuf::from(&path));
        if noted.insert((key, reason.clone())) {
            bad.push(Unreadable { path, reason });
        }
    };
    for n in &project.notes {
        say(&mut report.unreadable, n.path.clone(), n.reason.clone());
    }
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for p in paths {
        if p.is_dir() {
            let walk = project::script_files(corpus, p, true);
            for n in walk.notes {
                say(&mut report.unreadable, n.path, n.reason);
            }
            for f in walk.files {
                let shown = match f.strip_prefix(p) {
                    Ok(r) => project::shown_in(p, r),
                    Err(_) => f.to_string_lossy().into_owned(),
                };
                files.push((shown, f));
            }
        } else {
            files.push((p.to_string_lossy().into_owned(), p.clone()));
        }
    }
    let mut seen = HashSet::new();
    for (shown, file) in files {
        let key = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if !seen.insert(key) {
            continue;
        }
        crate::textfile::reading(&shown);
        let bad = &mut report.unreadable;
        let text = match crate::textfile::read_at_most(&file, project::MAX_SCRIPT_BYTES) {
            Ok(Some(d)) if crate::textfile::looks_binary(&d.text) => {
                say(
                    bad,
                    shown,
                    "skipped, binary (a NUL byte), not a script".into(),
                );
                continue;
            }
            Ok(Some(d)) => {
                if d.lossy {
                    say(bad, shown.clone(), crate::textfile::LOSSY_NOTE.into());
                }
                d.text
            }
            Ok(None) => {
                let reason = format!(
                    "skipped, over the {} MB a script may have",
                    project::MAX_SCRIPT_BYTES >> 20
                );
                say(bad, shown, reason);
                continue;
            }
            Err(e) => {
                say(bad, shown, format!("skipped, {e}"));
                continue;
            }
        };
        let rel = project::relative(root, &file);
        let script = js::script_text(&shown, &text, &corpus.engine.directives);
        let is_script =
            !js::is_markdown(&shown) || script.bytes().any(|b| !b.is_ascii_whitespace());
        let tree = js::parse(&script);
        report.findings.extend(check_script(
            corpus, &project, &shown, &rel, &text, &script, &tree,
        ));
        report.checked.push(Checked {
            shown,
            file,
            script: is_script,
        });
    }
    report
}

/// The families' shared state for one script.
pub(crate) struct Ctx<'a> {
    pub corpus: &'a Corpus,
    pub project: &'a ProjectIndex,
    pub path: &'a str,
    pub text: &'a str,
    pub a: Analysis<'a>,
    pub idx: LineIndex<'a>,
    /// The engine's ECMAScript level as a year.
    pub level: u16,
    /// Built-ins the script or its reachable files supply themselves.
    pub polyfills: HashSet<String>,
    pub out: Vec<Finding>,
    documented_memo: std::collections::HashMap<&'a str, bool, crate::js::NameHash>,
    /// One cursor for every child listing (creating a cursor allocates).
    cursor: Option<tree_sitter::TreeCursor<'a>>,
    /// The documented member each judged member expression names (by node id): a
    /// method call reuses what its callee's member site found.
    /// By site index: `None` not judged yet, `Some(m)` the member found (or not).
    member_at: Vec<Option<Option<&'a Member>>>,
    param_buf: Vec<&'a [crate::docs::Param]>,
    arg_buf: Vec<Node<'a>>,
    /// The kinds of `arg_buf`'s nodes.
    kind_buf: Vec<u16>,
}

impl<'a> Ctx<'a> {
    /// A context for judging the sites of `a` in `text`.
    fn new(
        corpus: &'a Corpus,
        project: &'a ProjectIndex,
        path: &'a str,
        text: &'a str,
        a: Analysis<'a>,
        idx: LineIndex<'a>,
        polyfills: HashSet<String>,
    ) -> Ctx<'a> {
        let sites = a.sites().len();
        // The engine's `Also has:` built-ins exist as if the script supplied them.
        let mut polyfills = polyfills;
        polyfills.extend(corpus.engine.also_has.iter().cloned());
        Ctx {
            corpus,
            project,
            path,
            text,
            a,
            idx,
            level: corpus.engine.es_year,
            polyfills,
            out: Vec::new(),
            documented_memo: Default::default(),
            cursor: None,
            member_at: vec![None; sites],
            param_buf: Vec::new(),
            arg_buf: Vec::new(),
            kind_buf: Vec::new(),
        }
    }

    /// The named children of `node` (comments left out), with the shared cursor.
    pub fn kids(&mut self, node: Node<'a>) -> Vec<Node<'a>> {
        if let Some(l) = self.a.list(node) {
            return l.to_vec();
        }
        let c = match &mut self.cursor {
            Some(c) => {
                c.reset(node);
                c
            }
            None => self.cursor.insert(node.walk()),
        };
        let mut out = Vec::new();
        if c.goto_first_child() {
            loop {
                let n = c.node();
                if n.is_named() && !n.is_extra() {
                    out.push(n);
                }
                if !c.goto_next_sibling() {
                    break;
                }
            }
        }
        out
    }

    pub fn push(&mut self, start: usize, end: usize, code: Code, message: String) -> &mut Finding {
        self.out.push(Finding::with_index(
            self.path,
            &self.idx,
            Span::new(start, end),
            code,
            message,
        ));
        self.out.last_mut().expect("just pushed")
    }

    pub fn push_node(&mut self, node: Node, code: Code, message: String) -> &mut Finding {
        self.push(node.start_byte(), node.end_byte(), code, message)
    }

    /// The level's name, `ES3`.
    pub fn level_name(&self) -> String {
        crate::es::edition_name(self.level)
    }

    /// Whether `name` (unresolved in the script) is something the corpus documents: a
    /// global, a `Global` member, an extra, a constructor or an interface name.
    pub fn documented(&mut self, name: &'a str) -> bool {
        if let Some(&d) = self.documented_memo.get(name) {
            return d;
        }
        let d = self.corpus.is_engine_global(name)
            || self.corpus.constructors.contains_key(name)
            || self.corpus.interfaces.contains_key(name);
        self.documented_memo.insert(name, d);
        d
    }

    /// The documented member a call invokes: `receiver.m(...)` on a certain receiver,
    /// or a bare call of an undeclared `Global` function.
    /// The documented `Global` function a bare call of `name` in `scope` reaches (none
    /// when the script declares the name there).
    pub fn called_global(&self, name: &'a str, scope: ScopeId) -> Option<&'a Member> {
        if self.a.is_declared_in(name, scope) {
            return None;
        }
        self.corpus.global_member(name)
    }

    pub fn called_member(&self, callee: Node<'a>, scope: ScopeId) -> Option<&'a Member> {
        let ids = crate::js::query::kind_ids();
        let k = callee.kind_id();
        let kind = if k == ids.member_expression {
            "member_expression"
        } else if k == ids.identifier {
            "identifier"
        } else {
            return None;
        };
        match kind {
            "member_expression" => {
                let obj = self.a.head(callee)?;
                let prop = self.a.tail(callee)?;
                match self.a.certain_in(obj, scope)? {
                    Certain::Interface(i) => self.a.member(i, self.a.node_text(prop)),
                    Certain::Builtin(_) => None,
                }
            }
            "identifier" => self.called_global(self.a.node_text(callee), scope),
            _ => None,
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn check_script(
    corpus: &Corpus,
    project: &ProjectIndex,
    shown: &str,
    rel: &str,
    text: &str,
    script: &str,
    tree: &tree_sitter::Tree,
) -> Vec<Finding> {
    check_script_full(corpus, project, shown, rel, text, script, tree, false).0
}

/// The full check, and the seed an incremental re-check of one statement needs.
#[allow(clippy::too_many_arguments)]
fn check_script_full(
    corpus: &Corpus,
    project: &ProjectIndex,
    shown: &str,
    rel: &str,
    text: &str,
    script: &str,
    tree: &tree_sitter::Tree,
    want_seed: bool,
) -> (Vec<Finding>, crate::js::Seed) {
    let root = tree.root_node();
    let mut a = Analysis::new(corpus, script, tree);
    let own = FileFacts::of_parts(corpus, shown, text, &a, a.sites());
    let reach = project.reach(rel, &own);
    let mut polyfills = reach.polyfills;
    polyfills.extend(own.polyfills.iter().cloned());
    a.set_project_names(reach.names);
    let mut cx = Ctx::new(
        corpus,
        project,
        shown,
        script,
        a,
        LineIndex::new(text),
        polyfills,
    );
    run_sites(&mut cx);
    guard::drop_guarded(&mut cx, root);
    syntax::parse_errors(&mut cx, root);
    file::directives(&mut cx, text);
    let mut seed = crate::js::Seed::default();
    if want_seed {
        seed = cx.a.seed();
        seed.polyfills = cx.polyfills.iter().cloned().collect();
        seed.polyfills.sort();
    }
    let (constructs, helpers) = construct::check_with_helpers(corpus, shown, script, &cx.a);
    seed.construct_helpers = helpers;
    let mut out = cx.out;
    out.extend(constructs);
    sort_findings(&mut out);
    (out, seed)
}

fn sort_findings(out: &mut Vec<Finding>) {
    out.sort_by_key(|x| (x.span.start, x.span.end, x.code));
    out.dedup_by(|x, y| x.span == y.span && x.code == y.code);
}

fn run_sites(cx: &mut Ctx) {
    // Backwards: a call's callee (a member expression) comes after the call in document
    // order, so its member is known when the call is judged. Findings are sorted later.
    // (By index: the sites belong to the analysis the context owns, and copying them
    // out would be two megabytes per 10,000 lines.)
    for i in (0..cx.a.sites().len()).rev() {
        let (kind, node, scope) = cx.a.sites()[i];
        match kind {
            CaptureKind::Member => visit_member(cx, node, scope, i),
            CaptureKind::Call => visit_call(cx, scope, i),
            CaptureKind::New => visit_new(cx, node, i),
            other => syntax::feature(cx, other, node),
        }
    }
}

fn visit_member<'a>(cx: &mut Ctx<'a>, node: Node<'a>, scope: ScopeId, site: usize) {
    // Parts as the walk read them: asking the tree now would be a memory load each.
    let [Some(obj), Some(prop)] = cx.a.site_part_info(site) else {
        return;
    };
    let ids = crate::js::query::kind_ids();
    if obj.kind == ids.identifier && !object::receiver(cx, obj.node, cx.a.part_text(&obj), scope) {
        // The receiver itself is reported (or is a built-in judged by its statics).
        set_member(cx, site, None);
        engine::static_member(cx, obj.node, prop.node);
        return;
    }
    match cx.a.certain_part(&obj, scope) {
        Some(Certain::Interface(iface)) => {
            let m = cx.a.member(iface, cx.a.part_text(&prop));
            set_member(cx, site, m);
            if m.is_none() {
                member::check(cx, node, iface, prop.node);
            }
        }
        Some(Certain::Builtin(proto)) => {
            set_member(cx, site, None);
            engine::proto_member(cx, proto, prop.node)
        }
        None => {
            set_member(cx, site, None);
            engine::prototype_chain(cx, obj.node, prop.node)
        }
    }
}

fn visit_call<'a>(cx: &mut Ctx<'a>, scope: ScopeId, site: usize) {
    let [Some(callee), tail] = cx.a.site_part_info(site) else {
        return;
    };
    let ids = crate::js::query::kind_ids();
    let bare = callee.kind == ids.identifier;
    if bare {
        function::check(cx, callee.node, cx.a.part_text(&callee), scope);
    }
    let Some(args) = tail else {
        return;
    };
    if args.kind != ids.arguments {
        return;
    }
    // The callee, when a member expression, is the next site (pre-order).
    let next = cx.member_at.get(site + 1).copied().flatten();
    let called = match next {
        Some(m)
            if cx
                .a
                .site_node(site + 1)
                .is_some_and(|n| n.id() == callee.node.id()) =>
        {
            m
        }
        _ if bare => cx.called_global(cx.a.part_text(&callee), scope),
        _ => cx.called_member(callee.node, scope),
    };
    if let Some(m) = called {
        // Reused buffers: a call site must not cost an allocation.
        let mut params = std::mem::take(&mut cx.param_buf);
        params.clear();
        params.extend(m.overloads.iter().filter_map(|s| s.params.as_deref()));
        let judged = params.iter().any(|ps| {
            ps.iter()
                .any(|p| p.ty.interface().is_some() || p.ty.is_path())
        });
        if judged {
            let mut list = std::mem::take(&mut cx.arg_buf);
            let mut kinds = std::mem::take(&mut cx.kind_buf);
            list.clear();
            kinds.clear();
            match cx.a.list_part(&args) {
                Some((l, k)) => {
                    list.extend_from_slice(l);
                    kinds.extend_from_slice(k);
                }
                None => {
                    list.extend(cx.kids(args.node));
                    kinds.extend(list.iter().map(|n| n.kind_id()));
                }
            }
            option::check_args(cx, &params, &list, Some(&kinds));
            file::check_args(cx, &params, &list, Some(&kinds));
            cx.arg_buf = list;
            cx.kind_buf = kinds;
        }
        cx.param_buf = params;
    }
}

fn set_member<'a>(cx: &mut Ctx<'a>, site: usize, m: Option<&'a Member>) {
    if let Some(slot) = cx.member_at.get_mut(site) {
        *slot = Some(m);
    }
}

fn visit_new<'a>(cx: &mut Ctx<'a>, node: Node<'a>, site: usize) {
    let _ = node;
    let (Some(ctor), tail) = cx.a.site_parts(site) else {
        return;
    };
    if !matches!(ctor.kind(), "identifier" | "member_expression") {
        // `new function () { ... }` constructs the script's own function: there is no
        // name to judge (the whole nine-line body was once quoted as one).
        return;
    }
    constructor::check(cx, ctor);
    let name = cx.a.node_text(ctor);
    if cx.a.is_declared_anywhere(name, ctor.start_byte()) {
        return;
    }
    let Some(c) = cx.corpus.constructors.get(name) else {
        return;
    };
    if let Some(args) = tail.filter(|t| t.id() != ctor.id()) {
        let params: [&'a [crate::docs::Param]; 1] = [c.params.as_slice()];
        let list = cx.kids(args);
        option::check_args(cx, &params, &list, None);
        file::check_args(cx, &params, &list, None);
    }
}

/// The whole-line span of the statement holding `node` (for a Delete fix): from the
/// start of its first line through the newline of its last, when nothing else shares
/// those lines; otherwise the statement's own bytes.
pub(crate) fn statement_lines(text: &str, node: Node) -> Span {
    let mut n = node;
    while let Some(p) = n.parent() {
        if n.kind().ends_with("statement") || n.kind() == "lexical_declaration" {
            break;
        }
        n = p;
    }
    let (s, e) = (n.start_byte(), n.end_byte());
    let line_start = text[..s].rfind('\n').map(|i| i + 1).unwrap_or(0);
    let line_end = text[e..]
        .find('\n')
        .map(|i| e + i + 1)
        .unwrap_or(text.len());
    let before = &text[line_start..s];
    let after = &text[e..line_end];
    if before.trim().is_empty() && after.trim().is_empty() {
        Span::new(line_start, line_end)
    } else {
        Span::new(s, e)
    }
}

/// A script kept open for editing: its text, its tree, its findings.
///
/// An edit strictly inside one top-level statement that leaves what the statement
/// contributes to the whole file unchanged (its top-level declarations and what it
/// assigns them, narrowing, `typeof` tests, polyfills, loads) re-checks that statement
/// alone, against the rest of the file's facts (the [`crate::js::Seed`] of the last full
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
/// Anything else (an edit across statements, a syntax error, a changed summary, a
/// construct Start or End in the statement) reparses incrementally and re-checks the one
/// statement if the new tree allows it, or the whole file.
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
    findings: Vec<Finding>,
    /// Shared: the language server answers hover and completion on a large file from
    /// the last seed while the next check runs.
    seed: Arc<crate::js::Seed>,
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
    incremental: usize,
    unparsed: usize,
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
struct Before {
    s: usize,
    e: usize,
    kind: u16,
    /// The position of `s`.
    point: tree_sitter::Point,
    /// The previous and next top-level children: kind and byte range.
    prev: Option<(u16, usize, usize)>,
    next: Option<(u16, usize, usize)>,
    summary: Vec<String>,
    /// Its text before the edit.
    old: String,
}

/// What a statement-only re-check does with construct findings.
enum ConstructPass {
    /// The statement names no Start or End: the file's construct findings stand.
    Keep,
    /// Re-pair the whole file.
    Whole,
    /// The statement's own, computed alone (a function declaration).
    Local(Vec<Finding>),
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
        let (findings, seed) =
            check_script_full(&corpus, &project, path, path, text, &script, &tree, true);
        let directive = has_directive(&corpus, text);
        Session {
            corpus,
            project,
            path: path.to_string(),
            text: text.to_string(),
            parser,
            piece_parser: js::parser(),
            tree,
            stale: false,
            dirty: Vec::new(),
            findings,
            helpers: std::cell::RefCell::new(seed.construct_helpers.clone()),
            seed_names: SeedNames::of(&seed),
            seed: Arc::new(seed),
            incremental: 0,
            unparsed: 0,
            starts: LineIndex::new(text).starts().to_vec(),
            directive,
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
        let before = if self.plain() {
            self.statement_before(start, end)
        } else {
            None
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
        // Line starts: those of removed line breaks go, later ones move, new ones come.
        let lo = self.starts.partition_point(|&x| x <= start);
        let hi = self.starts.partition_point(|&x| x <= end);
        for x in &mut self.starts[hi..] {
            *x = shift(*x);
        }
        let added = new_text.match_indices('\n').map(|(i, _)| start + i + 1);
        self.starts.splice(lo..hi, added);
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
        if let Some(b) = &before {
            if let Some(findings) = self.recheck_piece(b, delta) {
                self.findings = findings;
                self.incremental += 1;
                self.unparsed += 1;
                return &self.findings;
            }
        }
        let script = js::script_text(&self.path, &self.text, &self.corpus.engine.directives);
        let tree = self
            .parser
            .parse(script.as_ref(), Some(&self.tree))
            .expect("a parser with a language and no timeout always returns a tree");
        let old_tree = std::mem::replace(&mut self.tree, tree);
        self.stale = false;
        self.dirty.clear();
        if let Some(b) = before {
            if let Some(findings) = self.recheck_statement(&old_tree, &b, delta) {
                self.findings = findings;
                self.incremental += 1;
                return &self.findings;
            }
        }
        let (findings, seed) = check_script_full(
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
        *self.helpers.borrow_mut() = seed.construct_helpers.clone();
        self.seed_names = SeedNames::of(&seed);
        self.seed = Arc::new(seed);
        &self.findings
    }

    /// The top-level statement `start..end` falls strictly inside, and its summary.
    fn statement_before(&self, start: usize, end: usize) -> Option<Before> {
        let node = statement_around(&self.tree, start, end)?;
        let (s, e) = (node.start_byte(), node.end_byte());
        let summary = match self.dirty.iter().find(|d| d.0 == s && d.1 == e) {
            Some(d) => d.2.clone(),
            // The stale tree's nodes there describe older text.
            None if self.dirty.iter().any(|d| d.0 < e && s < d.1) => return None,
            None => self.summary_of(&self.text, &self.tree, node),
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
            old: self.text[s..e].to_string(),
        })
    }

    fn summary_of(&self, text: &str, tree: &tree_sitter::Tree, node: Node) -> Vec<String> {
        let empty = crate::js::Seed::default();
        let a = Analysis::for_node(&self.corpus, text, tree, node, &empty);
        let mut s = a.summary();
        // Only the statement's own text is searched for directives: a statement is
        // summarised only in a file without any (see `plain`), and searching the whole
        // text cost a tenth of a keystroke's re-check on a 7.8 MB script.
        let own = text.get(node.byte_range()).unwrap_or_default();
        let facts = FileFacts::of_parts(&self.corpus, &self.path, own, &a, a.sites());
        s.extend(facts.loads.iter().map(|l| format!("load {l}")));
        s.push(format!("dynamic {}", facts.dynamic_loads));
        s
    }

    /// Whether `t` names a construct's Start or End: construct findings pair them across
    /// the file, so such a statement needs the whole tree.
    fn names_construct(&self, t: &str) -> bool {
        self.corpus
            .constructs
            .values()
            .any(|c| t.contains(c.start.as_str()) || t.contains(c.end.as_str()))
            || self.helpers.borrow().iter().any(|h| t.contains(h.as_str()))
    }

    /// The path without a reparse of the file: the statement and its neighbours parsed
    /// alone. `None` when that parse does not cut them exactly as before.
    fn recheck_piece(&mut self, b: &Before, delta: isize) -> Option<Vec<Finding>> {
        let shift = |x: usize| (x as isize + delta) as usize;
        let new_e = shift(b.e);
        if self.names_construct(&b.old) || self.names_construct(&self.text[b.s..new_e]) {
            return None;
        }
        let expect: Vec<(u16, usize, usize)> = b
            .prev
            .into_iter()
            .chain(Some((b.kind, b.s, new_e)))
            .chain(b.next.map(|(k, s, e)| (k, shift(s), shift(e))))
            .collect();
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
        let (lo, hi) = (stale[0], stale[stale.len() - 1]);
        let range = tree_sitter::Range {
            start_byte: lo.start_byte(),
            end_byte: hi.end_byte(),
            start_point: lo.start_position(),
            end_point: hi.end_position(),
        };
        self.piece_parser.set_included_ranges(&[range]).ok()?;
        let piece = self.piece_parser.parse(&self.text, None)?;
        let proot = piece.root_node();
        if proot.has_error() || proot.child_count() != expect.len() {
            return None;
        }
        let mut c = proot.walk();
        if proot
            .children(&mut c)
            .map(|n| part(&n))
            .ne(expect.iter().copied())
        {
            return None;
        }
        let node = proot.child(usize::from(b.prev.is_some()))?;
        let summary = self.summary_of(&self.text, &piece, node);
        if summary != b.summary {
            return None;
        }
        let out = self.recheck_in(&piece, node, b.s, b.e, delta, ConstructPass::Keep)?;
        self.dirty.retain(|d| d.0 != b.s);
        self.dirty.push((b.s, new_e, summary));
        Some(out)
    }

    /// The path after an incremental reparse; `None` when the edit reaches beyond the
    /// statement.
    fn recheck_statement(
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
        if self.summary_of(&self.text, tree, node) != b.summary {
            return None;
        }
        let pass = if self.names_construct(&b.old) || self.names_construct(&self.text[s..new_e]) {
            match self.local_constructs(node, s, new_e, &b.old) {
                Some(found) => ConstructPass::Local(found),
                None => ConstructPass::Whole,
            }
        } else {
            ConstructPass::Keep
        };
        self.recheck_in(tree, node, s, e, delta, pass)
    }

    /// The construct findings of a top-level function declaration, from a parse of it
    /// alone; `None` when they may depend on the rest of the file.
    ///
    /// Starts and Ends pair within their function, so a function's findings are its
    /// own — unless the file's top level declares a construct's global (`var layout`),
    /// which decides whether the calls inside are constructs at all. Re-pairing the
    /// whole file for a keystroke inside one function cost ~20 ms on 10,000 lines.
    fn local_constructs(
        &self,
        node: Node,
        s: usize,
        new_e: usize,
        old: &str,
    ) -> Option<Vec<Finding>> {
        if node.kind() != "function_declaration" || !self.helpers.borrow().is_empty() {
            // A helper's calls pair across the file.
            return None;
        }
        // Nor may the function have been a helper before the edit.
        let old_tree = js::parse(old);
        if !construct::check_helpers(&self.corpus, &self.path, old, &old_tree)
            .1
            .is_empty()
        {
            return None;
        }
        for c in self.corpus.constructs.values() {
            let g = regex::escape(&c.global);
            let declares = regex::Regex::new(&format!(
                r"(?m)(\bvar\s+|\bfunction\s+|^\s*){g}\b\s*(=[^=]|[,;(]|$)"
            ))
            .ok()?;
            if declares.is_match(&self.text) {
                return None;
            }
        }
        let mut parser = js::parser();
        let range = tree_sitter::Range {
            start_byte: node.start_byte(),
            end_byte: node.end_byte(),
            start_point: node.start_position(),
            end_point: node.end_position(),
        };
        parser.set_included_ranges(&[range]).ok()?;
        let piece = parser.parse(&self.text, None)?;
        if piece.root_node().has_error() || piece.root_node().child_count() != 1 {
            return None;
        }
        let (found, helpers) =
            construct::check_helpers(&self.corpus, &self.path, &self.text, &piece);
        if !helpers.is_empty() {
            return None;
        }
        Some(
            found
                .into_iter()
                .filter(|f| f.span.start >= s && f.span.end <= new_e)
                .collect(),
        )
    }

    /// The findings with statement `node` (bytes `s..e` before the edit) re-checked
    /// alone from `tree` (the file's, or a piece's: its nodes carry file offsets) and
    /// every other finding kept, shifted; `None` when a finding from outside reaches
    /// into the statement. Construct findings are kept, recomputed over `tree` (then the
    /// whole file's) or given for the statement alone, as `pass` says.
    #[allow(clippy::too_many_arguments)]
    fn recheck_in(
        &self,
        tree: &tree_sitter::Tree,
        node: Node,
        s: usize,
        e: usize,
        delta: isize,
        pass: ConstructPass,
    ) -> Option<Vec<Finding>> {
        let mut out: Vec<Finding> = Vec::new();
        let mut after = Vec::new();
        for f in &self.findings {
            if matches!(pass, ConstructPass::Whole) && f.code == Code::Construct {
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
        let seed = self
            .seed_names
            .for_text(&self.seed, &self.text[node.byte_range()]);
        let a = Analysis::for_node(&self.corpus, &self.text, tree, node, &seed);
        let polyfills = seed.polyfills.iter().cloned().collect();
        let mut cx = Ctx::new(
            &self.corpus,
            &self.project,
            &self.path,
            &self.text,
            a,
            idx,
            polyfills,
        );
        run_sites(&mut cx);
        guard::drop_guarded(&mut cx, node);
        syntax::parse_errors(&mut cx, node);
        out.extend(cx.out);
        match pass {
            ConstructPass::Keep => {}
            ConstructPass::Whole => {
                let (found, helpers) =
                    construct::check_helpers(&self.corpus, &self.path, &self.text, tree);
                out.extend(found);
                *self.helpers.borrow_mut() = helpers;
            }
            ConstructPass::Local(found) => out.extend(found),
        }
        sort_findings(&mut out);
        Some(out)
    }

    /// How many edits re-checked one statement alone (for tests and benchmarks),
    /// whether or not the file was reparsed.
    pub fn incremental_edits(&self) -> usize {
        self.incremental
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

    /// The whole file's facts as of the last full check (see [`crate::js::Seed`]).
    pub fn seed(&self) -> Arc<crate::js::Seed> {
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
            self.tree = self
                .parser
                .parse(script.as_ref(), Some(&self.tree))
                .expect("a parser with a language and no timeout always returns a tree");
            self.stale = false;
            self.dirty.clear();
        }
        &self.tree
    }
}

/// The seed's globals and project names by name, for [`SeedNames::for_text`].
#[derive(Debug, Default)]
struct SeedNames {
    globals: std::collections::HashMap<String, usize>,
    project: std::collections::HashMap<String, usize>,
    /// Polyfills by their last name (`trim` for `String.prototype.trim`): every
    /// question asked of them ends in a name the statement spells. A script's every
    /// top-level function counts (it may supply a built-in), so there can be tens of
    /// thousands.
    polyfills: std::collections::HashMap<String, Vec<usize>>,
}

impl SeedNames {
    fn of(seed: &crate::js::Seed) -> SeedNames {
        let index = |names: &mut dyn Iterator<Item = &String>| {
            let mut m = std::collections::HashMap::new();
            for (i, n) in names.enumerate() {
                m.entry(n.clone()).or_insert(i);
            }
            m
        };
        let mut polyfills: std::collections::HashMap<String, Vec<usize>> = Default::default();
        for (i, p) in seed.polyfills.iter().enumerate() {
            polyfills
                .entry(crate::js::Seed::polyfill_name(p).to_string())
                .or_default()
                .push(i);
        }
        SeedNames {
            globals: index(&mut seed.globals.iter().map(|g| &g.0)),
            project: index(&mut seed.project_names.iter()),
            polyfills,
        }
    }

    /// [`crate::js::Seed::spelt_in`], from this index: one lookup per word of the
    /// statement instead of a pass over the whole seed on every keystroke.
    fn for_text(&self, seed: &crate::js::Seed, text: &str) -> crate::js::Seed {
        let mut globals = Vec::new();
        let mut project = Vec::new();
        let mut polyfills = Vec::new();
        let mut seen = HashSet::new();
        for w in crate::js::Seed::words(text) {
            if !seen.insert(w) {
                continue;
            }
            if let Some(&i) = self.globals.get(w) {
                globals.push(i);
            }
            if let Some(&i) = self.project.get(w) {
                project.push(i);
            }
            if let Some(is) = self.polyfills.get(w) {
                polyfills.extend_from_slice(is);
            }
        }
        // The seed's order, as a full seed would give them.
        globals.sort_unstable();
        project.sort_unstable();
        polyfills.sort_unstable();
        crate::js::Seed {
            globals: globals.iter().map(|&i| seed.globals[i].clone()).collect(),
            narrowed: seed.narrowed.clone(),
            typeof_names: seed.typeof_names.clone(),
            polyfills: polyfills
                .iter()
                .map(|&i| seed.polyfills[i].clone())
                .collect(),
            project_names: project
                .iter()
                .map(|&i| seed.project_names[i].clone())
                .collect(),
            construct_helpers: seed.construct_helpers.clone(),
        }
    }
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
        .map(|x| match x {
            Fix::Replace { title, span, text } => Fix::Replace {
                title: title.clone(),
                span: Span::new(shift(span.start), shift(span.end)),
                text: text.clone(),
            },
            Fix::Delete {
                title,
                detail,
                span,
            } => Fix::Delete {
                title: title.clone(),
                detail: detail.clone(),
                span: Span::new(shift(span.start), shift(span.end)),
            },
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

#[cfg(test)]
mod tests {
    use super::SeedNames;
    use crate::js::{BindingKind, Seed};

    /// The session's indexed cut of the seed and the request's linear one
    /// ([`Seed::spelt_in`]) keep the same names, in the seed's order: a hover and the
    /// diagnostics must read a statement alike.
    #[test]
    fn the_indexed_cut_of_a_seed_is_the_linear_one() {
        let seed = Seed {
            globals: ["far", "near", "t1", "unused"]
                .iter()
                .map(|n| (n.to_string(), BindingKind::Var, None))
                .collect(),
            narrowed: vec!["n".into()],
            typeof_names: vec!["JSON".into()],
            polyfills: vec![
                "String.prototype.trim".into(),
                "f0".into(),
                "Object.keys".into(),
            ],
            project_names: vec!["helper".into(), "other".into()],
            construct_helpers: vec!["openBox".into()],
        };
        let text = "var x = near + far.t1; s.trim(); helper(\"unused\") // keys";
        let cut = SeedNames::of(&seed).for_text(&seed, text);
        assert_eq!(cut, seed.spelt_in(text));
        let names: Vec<&str> = cut.globals.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(names, ["far", "near", "t1", "unused"]);
        assert_eq!(cut.polyfills, ["String.prototype.trim", "Object.keys"]);
        assert_eq!(cut.project_names, ["helper"]);
        let none = SeedNames::of(&seed).for_text(&seed, "x = 1;");
        assert!(
            none.globals.is_empty() && none.polyfills.is_empty(),
            "{none:?}"
        );
        assert_eq!(none.construct_helpers, ["openBox"], "kept whole");
    }
}

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
mod member;
mod object;
mod option;
pub mod project;
pub mod suggest;
mod syntax;

use std::borrow::Cow;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use finding::{Code, Finding, Fix, Related, Severity, Span};
pub use project::{FileFacts, ProjectIndex};

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

/// One file of a [`check_paths`] run that could not be read.
#[derive(Debug, Clone)]
pub struct Unreadable {
    /// The path as shown.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// Checks files and folders (folders: every script by the engine's script extensions,
/// and every `.md` file). `root` is the project root (loads and `path` arguments are
/// relative to it). Findings name a file as given on the command line, or relative to
/// the folder given; they come in file then position order.
pub fn check_paths(
    corpus: &Corpus,
    root: &Path,
    paths: &[PathBuf],
) -> (Vec<Finding>, Vec<Unreadable>) {
    let project = ProjectIndex::scan(corpus, root);
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    for p in paths {
        if p.is_dir() {
            for f in project::script_files(corpus, p, true) {
                let shown = f
                    .strip_prefix(p)
                    .map(|r| project::normalize(&r.to_string_lossy()))
                    .unwrap_or_else(|_| f.to_string_lossy().into_owned());
                files.push((shown, f));
            }
        } else {
            files.push((p.to_string_lossy().into_owned(), p.clone()));
        }
    }
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let mut bad = Vec::new();
    for (shown, file) in files {
        let key = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
        if !seen.insert(key) {
            continue;
        }
        let text = match std::fs::read(&file) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(t) => t,
                Err(_) => {
                    bad.push(Unreadable {
                        path: shown,
                        reason: "not UTF-8 text".into(),
                    });
                    continue;
                }
            },
            Err(e) => {
                bad.push(Unreadable {
                    path: shown,
                    reason: e.to_string(),
                });
                continue;
            }
        };
        let rel = project::relative(root, &file);
        let script = js::script_text(&shown, &text, &corpus.engine.directives);
        let tree = js::parse(&script);
        out.extend(check_script(
            corpus, &project, &shown, &rel, &text, &script, &tree,
        ));
    }
    (out, bad)
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
    member_at: std::collections::HashMap<usize, Option<&'a Member>, crate::js::IdHash>,
}

impl<'a> Ctx<'a> {
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
            "identifier" => {
                let name = self.a.node_text(callee);
                if self.a.is_declared_in(name, scope) {
                    return None;
                }
                self.corpus.global_member(name)
            }
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
    let caps: Vec<(CaptureKind, Node, ScopeId)> = a.sites().to_vec();
    let own = FileFacts::of_parts(corpus, shown, text, &a, &caps);
    let reach = project.reach(rel, &own);
    let mut polyfills = reach.polyfills;
    polyfills.extend(own.polyfills.iter().cloned());
    a.set_project_names(reach.names);
    let mut cx = Ctx {
        corpus,
        project,
        path: shown,
        text: script,
        a,
        idx: LineIndex::new(text),
        level: corpus.engine.es_year,
        polyfills,
        out: Vec::new(),
        documented_memo: Default::default(),
        cursor: None,
        member_at: Default::default(),
    };
    run_sites(&mut cx, &caps);
    syntax::parse_errors(&mut cx, root);
    file::directives(&mut cx, text);
    let mut seed = crate::js::Seed::default();
    if want_seed {
        seed = cx.a.seed();
        seed.polyfills = cx.polyfills.iter().cloned().collect();
        seed.polyfills.sort();
    }
    let mut out = cx.out;
    out.extend(construct::check(corpus, shown, script, tree));
    sort_findings(&mut out);
    (out, seed)
}

fn sort_findings(out: &mut Vec<Finding>) {
    out.sort_by_key(|x| (x.span.start, x.span.end, x.code));
    out.dedup_by(|x, y| x.span == y.span && x.code == y.code);
}

fn run_sites<'a>(cx: &mut Ctx<'a>, caps: &[(CaptureKind, Node<'a>, ScopeId)]) {
    // Backwards: a call's callee (a member expression) comes after the call in document
    // order, so its member is known when the call is judged. Findings are sorted later.
    for &(kind, node, scope) in caps.iter().rev() {
        match kind {
            CaptureKind::Member => visit_member(cx, node, scope),
            CaptureKind::Call => visit_call(cx, node, scope),
            CaptureKind::New => visit_new(cx, node),
            other => syntax::feature(cx, other, node),
        }
    }
}

fn visit_member<'a>(cx: &mut Ctx<'a>, node: Node<'a>, scope: ScopeId) {
    let (Some(obj), Some(prop)) = (cx.a.head(node), cx.a.tail(node)) else {
        return;
    };
    let ids = crate::js::query::kind_ids();
    if obj.kind_id() == ids.identifier && !object::receiver(cx, obj, scope) {
        // The receiver itself is reported (or is a built-in judged by its statics).
        cx.member_at.insert(node.id(), None);
        engine::static_member(cx, obj, prop);
        return;
    }
    match cx.a.certain_in(obj, scope) {
        Some(Certain::Interface(iface)) => {
            let m = cx.a.member(iface, cx.a.node_text(prop));
            cx.member_at.insert(node.id(), m);
            if m.is_none() {
                member::check(cx, node, iface, prop);
            }
        }
        Some(Certain::Builtin(proto)) => {
            cx.member_at.insert(node.id(), None);
            engine::proto_member(cx, proto, prop)
        }
        None => {
            cx.member_at.insert(node.id(), None);
            engine::prototype_chain(cx, obj, prop)
        }
    }
}

fn visit_call<'a>(cx: &mut Ctx<'a>, node: Node<'a>, scope: ScopeId) {
    let Some(callee) = cx.a.head(node) else {
        return;
    };
    let ids = crate::js::query::kind_ids();
    if callee.kind_id() == ids.identifier {
        function::check(cx, callee, scope);
    }
    let Some(args) = cx.a.tail(node) else {
        return;
    };
    if args.kind_id() != ids.arguments {
        return;
    }
    let called = match cx.member_at.get(&callee.id()) {
        Some(&m) => m,
        None => cx.called_member(callee, scope),
    };
    if let Some(m) = called {
        let params: Vec<&'a [crate::docs::Param]> = m
            .overloads
            .iter()
            .filter_map(|s| s.params.as_deref())
            .collect();
        if params.iter().any(|p| !p.is_empty()) {
            let list = cx.kids(args);
            option::check_args(cx, &params, &list);
            file::check_args(cx, &params, &list);
        }
    }
}

fn visit_new<'a>(cx: &mut Ctx<'a>, node: Node<'a>) {
    let Some(ctor) = cx.a.head(node) else {
        return;
    };
    constructor::check(cx, ctor);
    let name = cx.a.node_text(ctor);
    if cx.a.is_declared_anywhere(name, ctor.start_byte()) {
        return;
    }
    let Some(c) = cx.corpus.constructors.get(name) else {
        return;
    };
    if let Some(args) = cx.a.tail(node) {
        let params: [&'a [crate::docs::Param]; 1] = [c.params.as_slice()];
        let list = cx.kids(args);
        option::check_args(cx, &params, &list);
        file::check_args(cx, &params, &list);
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

/// A script kept open for editing: its text, its tree, its findings. An edit reparses
/// incrementally (`tree.edit` then `parser.parse(text, Some(&old))`) and re-checks only
/// what changed where it can: when the edit stays inside one top-level statement and
/// leaves what that statement contributes to the whole file unchanged (its top-level
/// declarations and what it assigns them, narrowing, `typeof` tests, polyfills, loads),
/// only that statement is analysed again, against the rest of the file's facts (the
/// [`crate::js::Seed`] of the last full check); every other finding is kept, shifted.
/// Anything else is a full check.
pub struct Session<'c> {
    corpus: &'c Corpus,
    project: &'c ProjectIndex,
    path: String,
    text: String,
    parser: tree_sitter::Parser,
    tree: tree_sitter::Tree,
    findings: Vec<Finding>,
    seed: crate::js::Seed,
    incremental: usize,
}

impl std::fmt::Debug for Session<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("path", &self.path)
            .field("findings", &self.findings.len())
            .finish()
    }
}

impl<'c> Session<'c> {
    /// Opens `text` as `path` and checks it.
    pub fn new(
        corpus: &'c Corpus,
        project: &'c ProjectIndex,
        path: &str,
        text: &str,
    ) -> Session<'c> {
        let mut parser = js::parser();
        let script = js::script_text(path, text, &corpus.engine.directives);
        let tree = parser
            .parse(script.as_ref(), None)
            .expect("a parser with a language and no timeout always returns a tree");
        let (findings, seed) =
            check_script_full(corpus, project, path, path, text, &script, &tree, true);
        Session {
            corpus,
            project,
            path: path.to_string(),
            text: text.to_string(),
            parser,
            tree,
            findings,
            seed,
            incremental: 0,
        }
    }

    /// Whether the file needs no blanking (no Markdown, no engine directive): then the
    /// tree is of the text itself and statements can be re-checked alone.
    fn plain(&self) -> bool {
        !js::is_markdown(&self.path)
            && !self
                .corpus
                .engine
                .directives
                .iter()
                .any(|d| self.text.contains(d.as_str()))
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
        // The statement the edit falls strictly inside, and what it contributes.
        let before = if self.plain() {
            statement_around(&self.tree, start, end).map(|(i, s, e)| {
                let node = self.tree.root_node().child(i as usize);
                let summary = node.map(|n| self.summary_of(&self.text, &self.tree, n));
                (i, s, e, summary)
            })
        } else {
            None
        };
        let old_text = std::mem::take(&mut self.text);
        let mut text = old_text.clone();
        text.replace_range(start..end, new_text);
        let new_end = start + new_text.len();
        let edit = tree_sitter::InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: new_end,
            start_position: point_of(&old_text, start),
            old_end_position: point_of(&old_text, end),
            new_end_position: point_of(&text, new_end),
        };
        let mut old_tree = self.tree.clone();
        old_tree.edit(&edit);
        self.text = text;
        let script = js::script_text(&self.path, &self.text, &self.corpus.engine.directives);
        let tree = self
            .parser
            .parse(script.as_ref(), Some(&old_tree))
            .expect("a parser with a language and no timeout always returns a tree");
        let delta = new_text.len() as isize - (end - start) as isize;
        if let Some((i, s, e, Some(summary))) = before {
            if let Some(findings) =
                self.recheck_statement(&old_text, &old_tree, &tree, i, s, e, delta, &summary)
            {
                self.findings = findings;
                self.tree = tree;
                self.incremental += 1;
                return &self.findings;
            }
        }
        let (findings, seed) = check_script_full(
            self.corpus,
            self.project,
            &self.path,
            &self.path,
            &self.text,
            &script,
            &tree,
            true,
        );
        self.findings = findings;
        self.seed = seed;
        self.tree = tree;
        &self.findings
    }

    fn summary_of(&self, text: &str, tree: &tree_sitter::Tree, node: Node) -> Vec<String> {
        let empty = crate::js::Seed::default();
        let a = Analysis::for_node(self.corpus, text, tree, node, &empty);
        let mut s = a.summary();
        let facts = FileFacts::of_parts(self.corpus, &self.path, text, &a, a.sites());
        s.extend(facts.loads.iter().map(|l| format!("load {l}")));
        s.push(format!("dynamic {}", facts.dynamic_loads));
        s
    }

    /// The incremental path; `None` when the edit reaches beyond statement `i`.
    #[allow(clippy::too_many_arguments)]
    fn recheck_statement(
        &self,
        old_text: &str,
        old_tree: &tree_sitter::Tree,
        tree: &tree_sitter::Tree,
        i: u32,
        s: usize,
        e: usize,
        delta: isize,
        summary: &[String],
    ) -> Option<Vec<Finding>> {
        let root = tree.root_node();
        if root.child_count() != old_tree.root_node().child_count() {
            return None;
        }
        let node = root.child(i as usize)?;
        let new_e = (e as isize + delta) as usize;
        if node.start_byte() != s || node.end_byte() != new_e {
            return None;
        }
        if old_tree
            .changed_ranges(tree)
            .any(|r| r.start_byte < s || r.end_byte > new_e)
        {
            return None;
        }
        if self.summary_of(&self.text, tree, node) != summary {
            return None;
        }
        // Construct findings pair Starts and Ends across the file: keep them unless the
        // statement names a Start or an End before or after the edit.
        let names_construct = |t: &str| {
            self.corpus
                .constructs
                .values()
                .any(|c| t.contains(c.start.as_str()) || t.contains(c.end.as_str()))
        };
        let rerun_constructs =
            names_construct(&old_text[s..e]) || names_construct(&self.text[s..new_e]);
        let idx = LineIndex::new(&self.text);
        let mut out: Vec<Finding> = Vec::new();
        for f in &self.findings {
            if rerun_constructs && f.code == Code::Construct {
                continue;
            }
            if f.span.end <= s && f.span.start < s {
                out.push(rebuilt(f, &self.path, &idx, 0));
            } else if f.span.start >= e {
                out.push(rebuilt(f, &self.path, &idx, delta));
            }
        }
        let a = Analysis::for_node(self.corpus, &self.text, tree, node, &self.seed);
        let caps: Vec<(CaptureKind, Node, ScopeId)> = a.sites().to_vec();
        let mut cx = Ctx {
            corpus: self.corpus,
            project: self.project,
            path: &self.path,
            text: &self.text,
            a,
            idx,
            level: self.corpus.engine.es_year,
            polyfills: self.seed.polyfills.iter().cloned().collect(),
            out: Vec::new(),
            documented_memo: Default::default(),
            cursor: None,
            member_at: Default::default(),
        };
        run_sites(&mut cx, &caps);
        syntax::parse_errors(&mut cx, node);
        out.extend(cx.out);
        if rerun_constructs {
            out.extend(construct::check(self.corpus, &self.path, &self.text, tree));
        }
        sort_findings(&mut out);
        Some(out)
    }

    /// How many edits were re-checked statement-only (for tests and benchmarks).
    pub fn incremental_edits(&self) -> usize {
        self.incremental
    }

    /// The current findings.
    pub fn findings(&self) -> &[Finding] {
        &self.findings
    }

    /// The current text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The current tree.
    pub fn tree(&self) -> &tree_sitter::Tree {
        &self.tree
    }
}

/// The top-level statement that `start..end` falls strictly inside: its index among
/// the program's children and its byte range.
fn statement_around(
    tree: &tree_sitter::Tree,
    start: usize,
    end: usize,
) -> Option<(u32, usize, usize)> {
    let root = tree.root_node();
    let mut c = root.walk();
    if !c.goto_first_child() {
        return None;
    }
    let mut i = 0u32;
    loop {
        let n = c.node();
        if n.start_byte() <= start && end < n.end_byte() {
            if n.is_error() || n.has_error() {
                return None;
            }
            return Some((i, n.start_byte(), n.end_byte()));
        }
        if n.start_byte() >= end {
            return None;
        }
        if !c.goto_next_sibling() {
            return None;
        }
        i += 1;
    }
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

fn point_of(text: &str, offset: usize) -> tree_sitter::Point {
    let before = &text[..offset];
    let row = before.matches('\n').count();
    let col = offset - before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    tree_sitter::Point::new(row, col)
}

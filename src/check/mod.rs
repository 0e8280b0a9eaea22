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
}

impl<'a> Ctx<'a> {
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
                    Certain::Interface(i) => self.corpus.member(i, self.a.node_text(prop)),
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
    };
    for &(kind, node, scope) in &caps {
        match kind {
            CaptureKind::Member => visit_member(&mut cx, node, scope),
            CaptureKind::Call => visit_call(&mut cx, node, scope),
            CaptureKind::New => visit_new(&mut cx, node),
            other => syntax::feature(&mut cx, other, node),
        }
    }
    syntax::parse_errors(&mut cx, root);
    file::directives(&mut cx, text);
    let mut out = cx.out;
    out.extend(construct::check(corpus, shown, script, tree));
    out.sort_by(|x, y| (x.span.start, x.span.end, x.code).cmp(&(y.span.start, y.span.end, y.code)));
    out.dedup_by(|x, y| x.span == y.span && x.code == y.code);
    out
}

fn visit_member<'a>(cx: &mut Ctx<'a>, node: Node<'a>, scope: ScopeId) {
    let (Some(obj), Some(prop)) = (cx.a.head(node), cx.a.tail(node)) else {
        return;
    };
    let ids = crate::js::query::kind_ids();
    if obj.kind_id() == ids.identifier && !object::receiver(cx, obj, scope) {
        // The receiver itself is reported (or is a built-in judged by its statics).
        engine::static_member(cx, obj, prop);
        return;
    }
    match cx.a.certain_in(obj, scope) {
        Some(Certain::Interface(iface)) => member::check(cx, node, iface, prop),
        Some(Certain::Builtin(proto)) => engine::proto_member(cx, proto, prop),
        None => engine::prototype_chain(cx, obj, prop),
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
    if let Some(m) = cx.called_member(callee, scope) {
        let params: Vec<&[crate::docs::Param]> = m
            .overloads
            .iter()
            .filter_map(|s| s.params.as_deref())
            .collect();
        if params.iter().any(|p| !p.is_empty()) {
            let list = named_children(args);
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
        let params = [c.params.as_slice()];
        let list = named_children(args);
        option::check_args(cx, &params, &list);
        file::check_args(cx, &params, &list);
    }
}

/// The named children of a node, walked with a cursor (`named_children` counts them
/// first, which scans them twice).
pub(crate) fn named_children(node: Node) -> Vec<Node> {
    let mut out = Vec::new();
    let mut c = node.walk();
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
/// incrementally (`tree.edit` then `parser.parse(text, Some(&old))`) and re-checks.
pub struct Session<'c> {
    corpus: &'c Corpus,
    project: &'c ProjectIndex,
    path: String,
    text: String,
    parser: tree_sitter::Parser,
    tree: tree_sitter::Tree,
    findings: Vec<Finding>,
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
        let findings = check_script(corpus, project, path, path, text, &script, &tree);
        Session {
            corpus,
            project,
            path: path.to_string(),
            text: text.to_string(),
            parser,
            tree,
            findings,
        }
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
        let old_end_pos = point_of(&self.text, end);
        let start_pos = point_of(&self.text, start);
        self.text.replace_range(start..end, new_text);
        let new_end = start + new_text.len();
        let edit = tree_sitter::InputEdit {
            start_byte: start,
            old_end_byte: end,
            new_end_byte: new_end,
            start_position: start_pos,
            old_end_position: old_end_pos,
            new_end_position: point_of(&self.text, new_end),
        };
        self.tree.edit(&edit);
        let script = js::script_text(&self.path, &self.text, &self.corpus.engine.directives);
        let tree = self
            .parser
            .parse(script.as_ref(), Some(&self.tree))
            .expect("a parser with a language and no timeout always returns a tree");
        self.findings = check_script(
            self.corpus,
            self.project,
            &self.path,
            &self.path,
            &self.text,
            &script,
            &tree,
        );
        self.tree = tree;
        &self.findings
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

fn point_of(text: &str, offset: usize) -> tree_sitter::Point {
    let before = &text[..offset];
    let row = before.matches('\n').count();
    let col = offset - before.rfind('\n').map(|i| i + 1).unwrap_or(0);
    tree_sitter::Point::new(row, col)
}

//! The families' dispatch: the shared state of one script's check ([`Ctx`]) and the
//! walk over the sites the query captured, handing each to the families that judge it.
//!
//! Owns the order in which families run and what they share; judges nothing itself (each
//! family's file does). May import the families, `js` and `docs`; never `Session`.

use std::collections::HashSet;

use tree_sitter::Node;

use super::*;

/// The families' shared state for one script.
pub(crate) struct Ctx<'a> {
    pub corpus: &'a Corpus,
    pub project: &'a ProjectIndex,
    pub path: &'a str,
    /// The script relative to the project root (`path` is how findings name it).
    pub rel: &'a str,
    pub text: &'a str,
    pub a: Analysis<'a>,
    pub idx: LineIndex<'a>,
    /// The engine's ECMAScript level as a year.
    pub level: u16,
    /// Built-ins the script or its reachable files supply themselves, and the engine's
    /// `Also has:` ones.
    pub polyfills: std::borrow::Cow<'a, HashSet<String>>,
    pub out: Vec<Finding>,
    documented_memo: std::collections::HashMap<&'a str, bool, grounded_js::NameHash>,
    /// One cursor for every child listing (creating a cursor allocates).
    cursor: Option<tree_sitter::TreeCursor<'a>>,
    /// The documented member each judged member expression names (by node id): a
    /// method call reuses what its callee's member site found.
    /// By site index: `None` not judged yet, `Some(m)` the member found (or not).
    member_at: Vec<Option<Option<&'a Member>>>,
    param_buf: Vec<&'a [grounded_docs::Param]>,
    arg_buf: Vec<Node<'a>>,
    /// The kinds of `arg_buf`'s nodes.
    kind_buf: Vec<u16>,
    /// Near names of the names declared nowhere, kept per name (`suggest::NearMemo`).
    pub near_memo: super::suggest::NearMemo,
    /// What the scripts of a batch run share (answers read once for the run), when
    /// this check is one of them.
    pub run: Option<&'a project::SharedNames<'a>>,
    /// Whether the script's project names are the run's shared set
    /// ([`project::SharedNames::names`]) less names only it declares.
    pub sees_shared: bool,
}

impl<'a> Ctx<'a> {
    /// A context for judging the sites of `a` in `text`.
    pub(super) fn new(
        corpus: &'a Corpus,
        project: &'a ProjectIndex,
        path: &'a str,
        text: &'a str,
        a: Analysis<'a>,
        idx: LineIndex<'a>,
        polyfills: std::borrow::Cow<'a, HashSet<String>>,
    ) -> Ctx<'a> {
        let sites = a.sites().len();
        // The engine's `Also has:` built-ins exist as if the script supplied them (a
        // borrowed set is the run's, which holds them already).
        let mut polyfills = polyfills;
        if let std::borrow::Cow::Owned(p) = &mut polyfills {
            p.extend(corpus.engine.also_has.iter().cloned());
        }
        Ctx {
            corpus,
            project,
            path,
            rel: path,
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
            near_memo: Default::default(),
            run: None,
            sees_shared: false,
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
        grounded_es::edition_name(self.level)
    }

    /// Whether `name` (unresolved in the script) is something the corpus documents: a
    /// global, a `Global` member, an extra, a constructor or an interface name.
    pub fn documented(&mut self, name: &'a str) -> bool {
        if let Some(&d) = self.documented_memo.get(name) {
            return d;
        }
        // `require`, `module` and `exports` are the module system's own names where the
        // engine loads CommonJS: `module.exports = ...` is no receiver declared nowhere.
        let commonjs =
            matches!(name, "require" | "module" | "exports") && self.corpus.engine.has_commonjs();
        let d = commonjs
            || self.corpus.is_engine_global(name)
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
        let ids = grounded_js::query::kind_ids();
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
                let c = self.a.certain_in(obj, scope)?;
                common_member(&self.a, c, self.a.node_text(prop))
            }
            "identifier" => self.called_global(self.a.node_text(callee), scope),
            _ => None,
        }
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn check_script(
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

/// A full check's findings, the seed of an incremental re-check, and the construct calls
/// it paired.
pub(super) type FullCheck = (
    Vec<Finding>,
    grounded_js::Seed,
    Vec<grounded_footprint::analysis::ConstructCall>,
);

/// The full check, and (`want_seed`) the seed an incremental re-check of one statement
/// needs and the construct calls it paired (the session keeps them per statement).
#[allow(clippy::too_many_arguments)]
pub(super) fn check_script_full(
    corpus: &Corpus,
    project: &ProjectIndex,
    shown: &str,
    rel: &str,
    text: &str,
    script: &str,
    tree: &tree_sitter::Tree,
    want_seed: bool,
) -> FullCheck {
    check_script_in(
        corpus, project, None, shown, rel, text, script, tree, want_seed,
    )
}

/// [`check_script_full`] with the project's names shared by the scripts of a batch run
/// (`shared`: the index's [`ProjectIndex::shared_names`]), so a script that sees every
/// other script's names reads them from one set instead of a copy of its own.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_script_in<'a>(
    corpus: &Corpus,
    project: &ProjectIndex,
    shared: Option<&'a project::SharedNames<'a>>,
    shown: &str,
    rel: &str,
    text: &str,
    script: &str,
    tree: &tree_sitter::Tree,
    want_seed: bool,
) -> FullCheck {
    let a = Analysis::new(corpus, script, tree);
    check_analysed(
        corpus, project, shared, shown, rel, text, script, tree, a, want_seed,
    )
}

/// [`check_script_in`] of a script analysed already (`a`: [`Analysis::new`] of
/// `script` parsed as `tree`, with no project names set yet), as the project scan
/// keeps it for the check.
#[allow(clippy::too_many_arguments)]
pub(super) fn check_analysed<'a>(
    corpus: &'a Corpus,
    project: &'a ProjectIndex,
    shared: Option<&'a project::SharedNames<'a>>,
    shown: &'a str,
    rel: &'a str,
    text: &'a str,
    script: &'a str,
    tree: &'a tree_sitter::Tree,
    mut a: Analysis<'a>,
    want_seed: bool,
) -> FullCheck {
    let root = tree.root_node();
    let mut own = FileFacts::of_parts(corpus, shown, text, &a, a.sites());
    if shown != rel {
        // Relative imports are relative to the script's own folder, named here by `rel`.
        own.loads.extend(project::import_loads(corpus, rel, &a));
    }
    let reached = shared.and_then(|s| Some((s, project.shared_names_of(rel, &own, s)?)));
    let sees_shared = reached.is_some();
    let polyfills = match reached {
        Some((s, names)) => {
            a.set_project_names_shared(names);
            if project.sees_every_polyfill(rel, &own, s) {
                std::borrow::Cow::Borrowed(s.every_polyfill(corpus))
            } else {
                let mut p = project.polyfills_shared(rel, s);
                p.extend(own.polyfills.iter().cloned());
                std::borrow::Cow::Owned(p)
            }
        }
        None => {
            let reach = project.reach(rel, &own);
            a.set_project_names(reach.names);
            let mut p = reach.polyfills;
            p.extend(own.polyfills.iter().cloned());
            std::borrow::Cow::Owned(p)
        }
    };
    let typed = module::relative_types(corpus, project, rel, &a);
    if !typed.is_empty() {
        a.set_relative_exports(typed);
    }
    let elsewhere: Vec<String> = a
        .implicit_names()
        .filter(|n| {
            project
                .files
                .iter()
                .any(|(k, f)| k.as_str() != rel && f.decls.contains(*n))
        })
        .map(str::to_string)
        .collect();
    if !elsewhere.is_empty() {
        a.set_written_elsewhere(elsewhere);
    }
    let mut cx = Ctx::new(
        corpus,
        project,
        shown,
        script,
        a,
        LineIndex::new(text),
        polyfills,
    );
    cx.rel = rel;
    cx.run = shared;
    cx.sees_shared = sees_shared;
    run_sites(&mut cx);
    module::check(&mut cx);
    guard::drop_guarded(&mut cx, root);
    syntax::parse_errors(&mut cx, root);
    file::directives(&mut cx, text);
    let mut seed = grounded_js::Seed::default();
    if want_seed {
        seed = cx.a.seed();
        seed.polyfills = cx.polyfills.iter().cloned().collect();
        seed.polyfills.sort();
    }
    let (constructs, helpers, calls) =
        construct::check_with_calls(corpus, shown, script, &cx.a, want_seed);
    seed.construct_helpers = helpers;
    let mut out = cx.out;
    out.extend(constructs);
    sort_findings(&mut out);
    (out, seed, calls)
}

pub(super) fn sort_findings(out: &mut Vec<Finding>) {
    out.sort_by_key(|x| (x.span.start, x.span.end, x.code));
    out.dedup_by(|x, y| x.span == y.span && x.code == y.code);
}

pub(super) fn run_sites(cx: &mut Ctx) {
    run_sites_in(cx, None)
}

/// [`run_sites`] for the sites lying wholly inside one of `ranges` (sorted, disjoint
/// byte ranges; `None`: every site). A site's callee and arguments lie inside it, so a
/// range that holds a site holds what its judgement reads of the tree.
pub(super) fn run_sites_in(cx: &mut Ctx, ranges: Option<&[(usize, usize)]>) {
    // Backwards: a call's callee (a member expression) comes after the call in document
    // order, so its member is known when the call is judged. Findings are sorted later.
    // (By index: the sites belong to the analysis the context owns, and copying them
    // out would be two megabytes per 10,000 lines.)
    for i in (0..cx.a.sites().len()).rev() {
        let (kind, node, scope) = cx.a.sites()[i];
        if let Some(r) = ranges {
            if !within(r, node.start_byte(), node.end_byte()) {
                continue;
            }
        }
        match kind {
            CaptureKind::Member => visit_member(cx, node, scope, i),
            CaptureKind::Call => visit_call(cx, scope, i),
            CaptureKind::New => visit_new(cx, node, i),
            other => syntax::feature(cx, other, node),
        }
    }
}

/// Whether `s..e` lies wholly inside one of `ranges` (sorted, disjoint).
pub(super) fn within(ranges: &[(usize, usize)], s: usize, e: usize) -> bool {
    let i = ranges.partition_point(|r| r.1 < e);
    ranges.get(i).is_some_and(|r| r.0 <= s && e <= r.1)
}

fn visit_member<'a>(cx: &mut Ctx<'a>, node: Node<'a>, scope: ScopeId, site: usize) {
    // Parts as the walk read them: asking the tree now would be a memory load each.
    let [Some(obj), Some(prop)] = cx.a.site_part_info(site) else {
        return;
    };
    let ids = grounded_js::query::kind_ids();
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
            match m {
                None => member::check(cx, node, iface, prop.node),
                Some(m) if m.overloads.first().is_some_and(|s| s.readonly) => {
                    member::readonly(cx, node, m, prop.node)
                }
                Some(_) => member::literal_test(cx, node, &[iface], prop.node),
            }
        }
        Some(c @ Certain::Union(u)) => {
            let name = cx.a.part_text(&prop);
            set_member(cx, site, common_member(&cx.a, c, name));
            let ifaces: Vec<&str> = u.interfaces().collect();
            if ifaces.iter().all(|i| cx.a.member(i, name).is_none()) {
                member::check_union(cx, node, &ifaces, prop.node);
            } else {
                member::literal_test(cx, node, &ifaces, prop.node);
            }
        }
        Some(Certain::Array(_)) => {
            // An array the docs type: the engine's edition of `Array.prototype` is
            // judged, but not as a literal (the engine's collection may have more).
            set_member(cx, site, None);
            engine::proto_member(cx, grounded_es::Proto::Array, prop.node);
        }
        Some(Certain::Builtin(proto)) => {
            set_member(cx, site, None);
            engine::proto_member(cx, proto, prop.node);
            if cx.a.is_language_value(&obj, scope) {
                member::builtin(cx, node, proto, prop.node);
            }
        }
        // A promise's members are the language's: not judged here.
        Some(Certain::Promise(_)) | None => {
            set_member(cx, site, None);
            engine::prototype_chain(cx, obj.node, prop.node)
        }
    }
}

/// The documented member `name` of a value of type `c`: of its interface, or the one
/// member every interface of its union shares (inherited from one parent), so that a
/// call of it is judged by its one signature.
fn common_member<'a>(a: &Analysis<'a>, c: Certain<'a>, name: &'a str) -> Option<&'a Member> {
    let mut it = c.interfaces().into_iter().map(|i| a.member(i, name));
    let first = it.next()??;
    it.all(|m| m.is_some_and(|m| std::ptr::eq(m, first)))
        .then_some(first)
}

fn visit_call<'a>(cx: &mut Ctx<'a>, scope: ScopeId, site: usize) {
    let [Some(callee), tail] = cx.a.site_part_info(site) else {
        return;
    };
    let ids = grounded_js::query::kind_ids();
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
            option::check_args(cx, &params, &list, Some(&kinds), scope);
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
        let params: [&'a [grounded_docs::Param]; 1] = [c.params.as_slice()];
        let list = cx.kids(args);
        let scope = cx.a.scope_at(args.start_byte());
        option::check_args(cx, &params, &list, None, scope);
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

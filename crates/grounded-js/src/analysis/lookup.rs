//! Questions on what the walk recorded: lists, parts, sites, and what a name refers to
//! at an offset (scopes, bindings, references).
//!
//! Owns no state of its own and changes none; it never types an expression (that is
//! `typing`). May import the parent `analysis`, `js::query` and `docs`.

use tree_sitter::Node;

use super::*;

impl<'a> Analysis<'a> {
    /// Every property name that is a construct's Start or End, in document order, each
    /// with the path of nodes from the analysed root down to it
    /// (`[program, …, call_expression, member_expression, property_identifier]`).
    pub fn construct_paths(&self) -> &[ConstructName<'a>] {
        &self.construct_paths
    }

    /// The named children of an object literal, argument list or parameter list
    /// (comments left out), as read during the walk; `None` for other nodes.
    pub fn list(&self, node: Node<'a>) -> Option<&[Node<'a>]> {
        self.list_items
            .get(self.list_range(node.start_byte(), node.end_byte())?)
    }

    /// Where the items of the list spanning `start..end` are in `list_items`.
    fn list_range(&self, start: usize, end: usize) -> Option<std::ops::Range<usize>> {
        // Lists start at their bracket: no two start at the same byte.
        let i = self.lists.binary_search_by_key(&start, |e| e.0).ok()?;
        let (_, list_end, first, len) = self.lists[i];
        (list_end == end).then_some(first as usize..(first + len) as usize)
    }

    /// [`Analysis::list`] of a site's part, with the items' kinds (in the same order),
    /// without asking the tree (see [`Part`]).
    pub fn list_part(&self, part: &Part<'a>) -> Option<(&[Node<'a>], &[u16])> {
        let range = self.list_range(part.node.start_byte(), part.end)?;
        Some((
            self.list_items.get(range.clone())?,
            self.list_kinds.get(range)?,
        ))
    }

    /// The documented member `name` of `iface` (inherited ones included), memoised.
    pub fn member(&self, iface: &'a str, name: &'a str) -> Option<&'a Member> {
        if let Ok(memo) = self.member_memo.try_borrow() {
            if let Some(&m) = memo.get(&(iface, name)) {
                return m;
            }
        }
        let m = self.corpus.member(iface, name);
        if let Ok(mut memo) = self.member_memo.try_borrow_mut() {
            memo.insert((iface, name), m);
        }
        m
    }

    /// The interface of a documented global variable, memoised.
    pub fn global_interface(&self, name: &'a str) -> Option<&'a str> {
        if let Ok(memo) = self.global_memo.try_borrow() {
            if let Some(&g) = memo.get(name) {
                return g;
            }
        }
        let g = self.corpus.global_interface(name);
        if let Ok(mut memo) = self.global_memo.try_borrow_mut() {
            memo.insert(name, g);
        }
        g
    }

    /// The object of a member expression, the function of a call, the constructor of a
    /// `new` (read during the walk; any other node asks the tree).
    pub fn head(&self, node: Node<'a>) -> Option<Node<'a>> {
        let f = query::fields();
        match node.kind() {
            "member_expression" => node.child_by_field_id(f.object),
            "call_expression" => node.child_by_field_id(f.function),
            "new_expression" => node.child_by_field_id(f.constructor),
            _ => None,
        }
    }

    /// The property of a member expression, the arguments of a call or a `new`.
    pub fn tail(&self, node: Node<'a>) -> Option<Node<'a>> {
        let f = query::fields();
        match node.kind() {
            "member_expression" => node.child_by_field_id(f.property),
            "call_expression" | "new_expression" => node.child_by_field_id(f.arguments),
            _ => None,
        }
    }

    /// The node of site `i` of [`Analysis::sites`].
    pub fn site_node(&self, i: usize) -> Option<Node<'a>> {
        self.sites.get(i).map(|s| s.1)
    }

    /// [`Analysis::head`] and [`Analysis::tail`] of site `i` of [`Analysis::sites`],
    /// read off the cursor during the walk (`child_by_field_id` scans children).
    pub fn site_parts(&self, i: usize) -> (Option<Node<'a>>, Option<Node<'a>>) {
        match self.parts.get(i) {
            Some(p) => (p[0].map(|p| p.node), p[1].map(|p| p.node)),
            None => (None, None),
        }
    }

    /// [`Analysis::site_parts`] with their kinds and ends, which cost nothing to read
    /// here (see [`Part`]).
    pub fn site_part_info(&self, i: usize) -> [Option<Part<'a>>; 2] {
        self.parts.get(i).copied().unwrap_or([None, None])
    }

    /// The source text of a part.
    pub fn part_text(&self, part: &Part) -> &'a str {
        self.text
            .get(part.node.start_byte()..part.end)
            .unwrap_or("")
    }

    /// The captures of `sites.scm` and `syntax.scm`, in document order: what the
    /// checker's families judge.
    /// Each comes with the scope it is in.
    pub fn sites(&self) -> &[(CaptureKind, Node<'a>, ScopeId)] {
        &self.sites
    }

    /// The binding `name` refers to when written in `scope`.
    pub fn resolve(&self, name: &str, scope: ScopeId) -> Option<BindingId> {
        let mut s = Some(scope);
        while let Some(id) = s {
            let sc = self.scopes.get(id)?;
            if let Some(&b) = sc.names.get(name) {
                return Some(b);
            }
            s = sc.parent;
        }
        None
    }

    /// The binding an assignment at byte `at` writes, given the binding its name
    /// resolves to in the assignment's scope.
    ///
    /// `let`/`const` are kept function-scoped, so an assignment before a block's
    /// declaration resolved to that declaration. A real plugin wrote
    /// `for (const g of layerList = doc.layers) ...` (an implicit global) and, in a
    /// later loop, `const layerList = doc.layers.getByName(n)`: the loop's constant
    /// took the global's value as a second one and was never judged again. An
    /// assignment before a function's `let`/`const` is either outside that
    /// declaration's block or in its temporal dead zone, where it throws: it never
    /// gives the binding a value. It writes what the name means outside the function
    /// instead (`None`: an implicit global). At the top level the program scope holds
    /// both meanings under one name, so there the old reading stays (a miss, never an
    /// accusation).
    pub(super) fn assigned_binding(&self, b: BindingId, at: usize) -> Option<BindingId> {
        let bind = &self.bindings[b];
        if bind.kind != BindingKind::Lexical || at >= bind.start || bind.scope == 0 {
            return Some(b);
        }
        let outer = self.scopes[bind.scope].parent?;
        self.resolve(bind.name, outer)
    }

    /// The innermost scope containing byte `offset`.
    pub fn scope_at(&self, offset: usize) -> ScopeId {
        // Scopes are in document order of their start; the last one starting at or
        // before the offset, walked out until it contains the offset, is the innermost.
        let i = self.scopes.partition_point(|s| s.start <= offset);
        let mut s = i.saturating_sub(1);
        loop {
            let sc = &self.scopes[s];
            if sc.start <= offset && offset < sc.end.max(sc.start + 1) || sc.parent.is_none() {
                return s;
            }
            s = sc.parent.unwrap_or(0);
        }
    }

    /// The binding `name` refers to at byte `offset`, if the script declares it there.
    pub fn binding_at(&self, name: &str, offset: usize) -> Option<&Binding<'a>> {
        self.resolve(name, self.scope_at(offset))
            .map(|b| &self.bindings[b])
    }

    /// Whether the script declares `name` in scope at `offset` (a local `var layout`
    /// hides the global `layout`).
    pub fn is_declared(&self, name: &str, offset: usize) -> bool {
        self.binding_at(name, offset).is_some()
    }

    /// Every identifier of the analysed code in document order, with the binding it
    /// names; empty unless the analysis was made [`Analysis::with_refs`].
    pub fn refs(&self) -> &[Ref] {
        &self.refs
    }

    /// The refs whose identifier lies on 0-based `row`.
    pub fn refs_on_row(&self, row: usize) -> &[Ref] {
        let a = self.refs.partition_point(|r| r.row < row);
        let b = self.refs.partition_point(|r| r.row <= row);
        &self.refs[a..b]
    }

    /// The ref whose identifier covers byte `offset` (its end included, as a cursor
    /// right after a name is on it).
    pub fn ref_at(&self, offset: usize) -> Option<&Ref> {
        let i = self.refs.partition_point(|r| r.end < offset);
        self.refs
            .get(i)
            .filter(|r| r.start <= offset && offset <= r.end)
    }

    /// The ref whose identifier starts at byte `start`.
    pub fn ref_starting_at(&self, start: usize) -> Option<&Ref> {
        let i = self.refs.partition_point(|r| r.start < start);
        self.refs.get(i).filter(|r| r.start == start)
    }

    /// Whether `name` is declared in `scope` (or an enclosing one) by the script, or at
    /// the top level of a reachable project file.
    pub fn is_declared_in(&self, name: &str, scope: ScopeId) -> bool {
        self.resolve(name, scope).is_some() || self.project_names.contains(name)
    }

    /// Whether `name` in `scope` is a variable whose every assignment is `new X()`: its
    /// object is exactly an `X`, never one of a sub-interface (`docs::family`).
    pub fn is_constructed(&self, name: &str, scope: ScopeId) -> bool {
        self.resolve(name, scope).is_some_and(|b| {
            let a = &self.bindings[b].assigns;
            !a.is_empty() && a.iter().all(|x| matches!(x, super::Assign::New(..)))
        })
    }

    /// Whether `name` is declared at `offset` by the script, or at the top level of a
    /// reachable project file ([`Analysis::set_project_names`]).
    pub fn is_declared_anywhere(&self, name: &str, offset: usize) -> bool {
        self.is_declared(name, offset) || self.project_names.contains(name)
    }

    /// Every binding visible at `offset`, innermost first (a shadowed name appears
    /// once, as its innermost binding). For completion.
    pub fn visible_bindings(&self, offset: usize) -> Vec<&Binding<'a>> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut s = Some(self.scope_at(offset));
        while let Some(id) = s {
            let sc = &self.scopes[id];
            let mut local: Vec<&Binding<'a>> =
                sc.names.values().map(|&b| &self.bindings[b]).collect();
            local.sort_by_key(|b| b.start);
            for b in local {
                if seen.insert(b.name) {
                    out.push(b);
                }
            }
            s = sc.parent;
        }
        out
    }

    /// The names [`Analysis::visible_bindings`] gives at `offset` from the scopes
    /// below the program's, innermost first; the program's own are
    /// [`Analysis::program_names`], visible everywhere.
    ///
    /// Why apart: near names of a name declared nowhere score the program's names once
    /// per file and only these at each site (a concatenated 84,000-line script has
    /// thousands of top-level names and 18,000 such sites, issue 48).
    pub fn visible_below_program(&self, offset: usize) -> Vec<&'a str> {
        let mut out = Vec::new();
        let mut s = Some(self.scope_at(offset));
        while let Some(id) = s.filter(|&id| id != 0) {
            let sc = &self.scopes[id];
            out.extend(sc.names.values().map(|&b| self.bindings[b].name));
            s = sc.parent;
        }
        out
    }

    /// The names of the program scope (declared, implicit or seeded).
    pub fn program_names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.scopes[0]
            .names
            .values()
            .map(|&b| self.bindings[b].name)
    }

    /// The certain type of binding `id` of [`Analysis::bindings`] (see the module docs
    /// for what counts).
    pub fn binding_certain_type(&self, id: BindingId) -> Option<Certain<'a>> {
        self.binding_type(id)
    }

    /// The program scope's binding of `name` (declared, implicit or seeded).
    pub fn program_binding(&self, name: &str) -> Option<&Binding<'a>> {
        self.scopes[0].names.get(name).map(|&b| &self.bindings[b])
    }

    /// The top-level declarations of the script (functions and variables, implicit
    /// globals included): what other project files may use.
    pub fn top_level_names(&self) -> Vec<&'a str> {
        let mut v: Vec<&'a str> = self.scopes[0].names.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Whether `offset` lies inside a `with` statement, where a bare name may be a
    /// property of the `with` object: such names are not accused of being undeclared.
    pub fn in_with(&self, offset: usize) -> bool {
        self.with_ranges
            .iter()
            .any(|&(s, e)| s <= offset && offset < e)
    }

    /// Whether the script tests `name` with `typeof` somewhere (feature detection such
    /// as `if (typeof console != "undefined")`): such a name is not accused of being
    /// undeclared.
    pub fn is_typeof_tested(&self, name: &str) -> bool {
        self.typeof_names.contains(name)
    }

    /// Whether the script assigns the built-in itself (`Object.keys = ...`,
    /// `String.prototype.trim = ...`). `path` is written as in that assignment.
    pub fn is_polyfilled(&self, path: &str) -> bool {
        self.polyfills.contains(path)
    }

    /// Every member path the script assigns (`Object.keys`, `String.prototype.trim`).
    pub fn polyfills(&self) -> impl Iterator<Item = &str> {
        self.polyfills.iter().map(String::as_str)
    }

    /// The smallest node of kind `kind` that contains byte `offset` (for tests and the
    /// language server's cursor position).
    pub fn node_at(&self, offset: usize, kind: &str) -> Option<Node<'a>> {
        let mut n = self
            .tree
            .root_node()
            .descendant_for_byte_range(offset, offset)?;
        loop {
            if n.kind() == kind {
                return Some(n);
            }
            n = n.parent()?;
        }
    }
}

/// The bindings of one scope below the program's, owned: what a statement nested in
/// a function needs of the code around it when it is analysed alone (see
/// [`Analysis::scope_facts`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ScopeFacts {
    /// First byte of the node that opened the scope.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// The enclosing scope's index in the same list (`None`: the program).
    pub parent: Option<usize>,
    /// Name, kind, certain type, and whether the analysis reads more of it than a seed
    /// can carry (an object literal the option check reads when it is passed by name,
    /// a name typed at each use by the write before it).
    pub names: Vec<(String, BindingKind, Option<SeedType>, bool)>,
}

impl<'a> Analysis<'a> {
    /// Every scope below the program's with its bindings and their settled types, in
    /// document order of their start.
    ///
    /// Why: a keystroke on line 1,000 of a 2,000-line function re-analysed the whole
    /// function (~100 ms, issue 30). A statement inside it is analysed alone with these
    /// bindings standing in for the function around it, as the program's [`Seed`]
    /// stands in for the rest of the file.
    pub fn scope_facts(&self) -> Vec<ScopeFacts> {
        let mut out = Vec::new();
        for (id, sc) in self.scopes.iter().enumerate().skip(1) {
            let mut names: Vec<(String, BindingKind, Option<SeedType>, bool)> = sc
                .names
                .values()
                .map(|&b| {
                    let bind = &self.bindings[b];
                    let ty = self.seed_type(b);
                    // A name typed use by use from the write before it (`reach`): a
                    // statement analysed alone does not see that write.
                    let opaque = self.object_literal_of(bind.name, id).is_some()
                        || (ty.is_none() && self.reaches(bind));
                    (bind.name.to_string(), bind.kind, ty, opaque)
                })
                .collect();
            names.sort_by(|x, y| x.0.cmp(&y.0));
            out.push(ScopeFacts {
                start: sc.start,
                end: sc.end,
                parent: sc.parent.filter(|&p| p != 0).map(|p| p - 1),
                names,
            });
        }
        out
    }

    /// The certain type of binding `b` as a [`Seed`] carries it.
    pub(super) fn seed_type(&self, b: BindingId) -> Option<SeedType> {
        let own = self.own_seed_type(b);
        match self.binding_ctor(b) {
            Some(iface) => Some(SeedType::Constructor(iface.to_string(), own.map(Box::new))),
            None => own,
        }
    }

    /// [`Analysis::seed_type`] without what `new` of the binding gives.
    fn own_seed_type(&self, b: BindingId) -> Option<SeedType> {
        let bind = &self.bindings[b];
        self.binding_type(b).map(|c| match c {
            Certain::Interface(i) => SeedType::Interface(i.to_string()),
            Certain::Builtin(p) if bind.literal.get() => SeedType::Literal(p),
            Certain::Builtin(p) => SeedType::Builtin(p),
            Certain::Union(u) => {
                let (of, mask) = u.parts();
                SeedType::Union(of.to_vec(), mask, self.assigned_once(bind))
            }
            Certain::Array(t) => SeedType::Of(t.clone(), false),
            Certain::Promise(t) => SeedType::Of(t.clone(), true),
        })
    }
}

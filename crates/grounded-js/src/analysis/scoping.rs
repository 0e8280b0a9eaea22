//! The walk that fills an [`Analysis`]: scopes, bindings, assignments, narrowing, the
//! sites the families judge and (made [`Analysis::with_refs`]) every reference.
//!
//! Owns how the tree is read into the analysis; never answers a question about it (that
//! is `lookup` and `typing`). May import the parent `analysis`, `js::query`, `docs`
//! and `es`; nothing above `js`.

use tree_sitter::Node;

use super::*;

impl<'a> Analysis<'a> {
    // ---- the walk -------------------------------------------------------------------

    /// One cursor walk over `root`. A node whose kind roots a pattern of `scopes.scm`
    /// builds scopes and bindings; of `sites.scm`, is kept for the families; of
    /// `syntax.scm`, has the query run at that one node (see [`query::Roles`]).
    ///
    /// With `refs`, every identifier is recorded in [`Analysis::refs`] and `visit` sees
    /// every node with its ancestors.
    pub(super) fn walk<V: FnMut(WalkPath<'_, 'a>)>(
        &mut self,
        root: Node<'a>,
        p: &mut Pending<'a>,
        every_token: bool,
        refs: bool,
        visit: &mut V,
    ) {
        let roles = query::roles();
        let ids = query::kind_ids();
        // Tokens matter only where a pattern is rooted at one (`typeof`, `let`...);
        // the others are stepped over (see `js::walk`).
        let anonymous = query::anonymous_roots();
        let span = self.text.get(root.byte_range()).unwrap_or(self.text);
        let mut walk = if every_token || anonymous.unlisted_in(span) {
            crate::Preorder::new(root)
        } else {
            crate::Preorder::named(root, &anonymous.keep)
        };
        // (scope, depth of the node that opened it)
        let mut open: Vec<(ScopeId, usize)> = vec![(0, 0)];
        // (depth, id) of site nodes whose fields are being read off the cursor
        let mut open_sites: Vec<(usize, usize)> = Vec::new();
        // Dense engine code has a site every 9 bytes or so. Reserving that much costs
        // address space only (untouched pages are never mapped), while growing by
        // doubling copied megabytes and left the freed blocks to fragment the heap the
        // next parse allocates from.
        let estimate = root.end_byte().saturating_sub(root.start_byte()) / 8;
        self.sites.reserve(estimate);
        self.parts.reserve(estimate);
        // (depth, id, mark in `pending_items`) of lists whose children are being read
        let mut open_lists: Vec<(usize, usize, usize)> = Vec::new();
        let mut pending_items: Vec<(Node<'a>, u16)> = Vec::new();
        // The node being visited and its ancestors, from `root`.
        let mut path: Vec<(Node<'a>, u16)> = Vec::with_capacity(64);
        let construct_names = ConstructNames::of(self.corpus);
        while let Some((node, depth)) = walk.next() {
            // Everything opened by a node at this depth or deeper is closed: the walk has
            // left it.
            let closing = (open.len() > 1 && open.last().is_some_and(|s| s.1 >= depth))
                || open_sites.last().is_some_and(|s| s.0 >= depth)
                || open_lists.last().is_some_and(|s| s.0 >= depth);
            if closing {
                self.close(
                    depth,
                    &mut open,
                    &mut open_sites,
                    &mut open_lists,
                    &mut pending_items,
                );
            }
            path.truncate(depth);
            let k = node.kind_id();
            if let Some(&(d, _, _)) = open_lists.last() {
                if d + 1 == depth && node.is_named() && !node.is_extra() {
                    pending_items.push((node, k));
                }
            }
            // The first named child of a site is its object / function / constructor,
            // the last one its property / arguments (read here: `child_by_field_id`
            // scans children, and the families ask many times).
            if let Some(&(d, idx)) = open_sites.last() {
                if d + 1 == depth && node.is_named() {
                    if let Some(entry) = self.parts.get_mut(idx) {
                        let part = Some(Part {
                            node,
                            kind: k,
                            end: node.end_byte(),
                        });
                        if entry[0].is_none() {
                            entry[0] = part;
                        } else {
                            entry[1] = part;
                        }
                    }
                }
            }
            path.push((node, k));
            if refs {
                if k == ids.identifier {
                    self.refs.push(Ref {
                        start: node.start_byte(),
                        end: node.end_byte(),
                        row: node.start_position().row,
                        scope: open.last().map_or(0, |s| s.0),
                        binding: None,
                    });
                }
                visit(&path[..]);
            }
            if k == ids.property_identifier {
                let name = self.node_text(node);
                if grounded_es::es3_reserved(name) {
                    let scope = open.last().map(|s| s.0).unwrap_or(0);
                    self.sites
                        .push((CaptureKind::ReservedProperty, node, scope));
                    self.parts.push([None, None]);
                }
                if construct_names.has(name) {
                    // The member expression is the innermost open site; its object is read.
                    let object = open_sites
                        .last()
                        .filter(|s| s.0 + 1 == depth)
                        .and_then(|s| self.parts.get(s.1))
                        .and_then(|p| p[0]);
                    let path = path
                        .iter()
                        .map(|&(node, kind)| PathNode {
                            node,
                            kind,
                            end: node.end_byte(),
                            end_row: node.end_position().row,
                        })
                        .collect();
                    self.construct_paths.push(ConstructName { path, object });
                }
            }
            let r = roles.of(k);
            if r == 0 {
                continue;
            }
            let scope = open.last().map(|s| s.0).unwrap_or(0);
            if r & role::SCOPE != 0 {
                if let Some(new_scope) = self.enter(node, scope, p) {
                    open.push((new_scope, depth));
                }
            }
            if r & role::SITE != 0 {
                let kind = if k == ids.member_expression {
                    // Only `x.constructor` narrows; skip the field lookups else.
                    if self.text[..node.end_byte()].ends_with("constructor") {
                        self.enter(node, scope, p);
                    }
                    CaptureKind::Member
                } else if k == ids.call_expression {
                    CaptureKind::Call
                } else {
                    CaptureKind::New
                };
                let scope = open.last().map(|s| s.0).unwrap_or(0);
                open_sites.push((depth, self.sites.len()));
                self.sites.push((kind, node, scope));
                self.parts.push([None, None]);
            }
            if r & role::SYNTAX != 0 {
                let scope = open.last().map(|s| s.0).unwrap_or(0);
                let mut found = Vec::new();
                query::captures_at(node, self.text, &mut found);
                for (k, n) in found {
                    self.sites.push((k, n, scope));
                    self.parts.push([None, None]);
                }
            }
            let scope = open.last().map(|s| s.0).unwrap_or(0);
            if r & role::REGEX != 0 {
                self.sites.push((CaptureKind::RegexFlags, node, scope));
                self.parts.push([None, None]);
            }
            if r & role::NUMBER != 0 {
                self.sites.push((CaptureKind::Number, node, scope));
                self.parts.push([None, None]);
            }
            if r & role::LIST != 0 {
                // The entry is reserved now, so `lists` stays in document order.
                open_lists.push((depth, self.lists.len(), pending_items.len()));
                self.lists.push((node.start_byte(), node.end_byte(), 0, 0));
                if trailing_comma(self.text, node) {
                    let kind = match node.kind() {
                        "object" => CaptureKind::TrailingObject,
                        "arguments" => CaptureKind::TrailingArguments,
                        _ => CaptureKind::TrailingParameters,
                    };
                    self.sites.push((kind, node, scope));
                    self.parts.push([None, None]);
                }
            }
            if r & role::OPAQUE != 0 {
                walk.skip_children();
            }
        }
        self.close(
            0,
            &mut open,
            &mut open_sites,
            &mut open_lists,
            &mut pending_items,
        );
        debug_assert_eq!(
            self.parts.len(),
            self.sites.len(),
            "one parts entry per site"
        );
    }

    /// Closes what nodes at `depth` or deeper opened: their scopes, sites, and lists
    /// (whose items are filed).
    fn close(
        &mut self,
        depth: usize,
        open: &mut Vec<(ScopeId, usize)>,
        open_sites: &mut Vec<(usize, usize)>,
        open_lists: &mut Vec<(usize, usize, usize)>,
        pending_items: &mut Vec<(Node<'a>, u16)>,
    ) {
        while open.len() > 1 && open.last().is_some_and(|s| s.1 >= depth) {
            open.pop();
        }
        while open_sites.last().is_some_and(|s| s.0 >= depth) {
            open_sites.pop();
        }
        while open_lists.last().is_some_and(|s| s.0 >= depth) {
            if let Some((_, entry, mark)) = open_lists.pop() {
                let start = self.list_items.len() as u32;
                for (n, k) in pending_items.drain(mark..) {
                    self.list_items.push(n);
                    self.list_kinds.push(k);
                }
                let len = self.list_items.len() as u32 - start;
                if let Some(e) = self.lists.get_mut(entry) {
                    e.2 = start;
                    e.3 = len;
                }
            }
        }
    }

    fn new_scope(&mut self, kind: ScopeKind, node: Node, parent: ScopeId) -> ScopeId {
        self.scopes.push(Scope {
            kind,
            start: node.start_byte(),
            end: node.end_byte(),
            parent: Some(parent),
            names: HashMap::default(),
        });
        self.scopes.len() - 1
    }

    /// The nearest scope that `var` and function declarations hoist to.
    fn function_scope(&self, mut s: ScopeId) -> ScopeId {
        while self.scopes[s].kind == ScopeKind::Catch {
            match self.scopes[s].parent {
                Some(p) => s = p,
                None => break,
            }
        }
        s
    }

    pub(super) fn declare(
        &mut self,
        scope: ScopeId,
        name_node: Node,
        kind: BindingKind,
    ) -> BindingId {
        let name = self.node_text(name_node);
        if let Some(&b) = self.scopes[scope].names.get(name) {
            return b;
        }
        self.bindings.push(Binding {
            name,
            kind,
            scope,
            start: name_node.start_byte(),
            end: name_node.end_byte(),
            narrowed: false,
            ctor_tested: false,
            seeded_once: false,
            assigns: Vec::new(),
            foreign: false,
            certain: std::cell::Cell::new(None),
            settled: std::cell::Cell::new(0),
            literal: std::cell::Cell::new(false),
            seeded: false,
        });
        let id = self.bindings.len() - 1;
        self.scopes[scope].names.insert(name, id);
        id
    }

    fn classify(&self, value: Node<'a>, scope: ScopeId) -> Assign<'a> {
        let mut v = value;
        while v.kind() == "parenthesized_expression" {
            match v.named_child(0) {
                Some(inner) => v = inner,
                None => return Assign::Other,
            }
        }
        match v.kind() {
            "new_expression" => match v.child_by_field_id(crate::query::fields().constructor) {
                Some(c) if c.kind() == "identifier" => Assign::New(self.node_text(c), scope),
                _ => Assign::Other,
            },
            "array" => Assign::Array,
            "string" | "template_string" => Assign::String,
            "number" => Assign::Number,
            "regex" => Assign::Regex,
            "object" => Assign::Object(v),
            // Typed when asked, by the same rules as a receiver: a documented global,
            // a member of a certain receiver, an element, another certain variable.
            "identifier"
            | "member_expression"
            | "call_expression"
            | "subscript_expression"
            | "await_expression"
                if self.chain_shape(v, None) =>
            {
                Assign::Expr(v, scope)
            }
            _ => Assign::Other,
        }
    }

    fn enter(&mut self, node: Node<'a>, scope: ScopeId, p: &mut Pending<'a>) -> Option<ScopeId> {
        match node.kind() {
            "function_declaration" | "generator_function_declaration" => {
                if let Some(name) = node.child_by_field_id(crate::query::fields().name) {
                    let fs = self.function_scope(scope);
                    self.declare(fs, name, BindingKind::Function);
                }
                Some(self.new_scope(ScopeKind::Function, node, scope))
            }
            "function_expression" | "generator_function" | "function" => {
                let s = self.new_scope(ScopeKind::Function, node, scope);
                if let Some(name) = node.child_by_field_id(crate::query::fields().name) {
                    self.declare(s, name, BindingKind::Function);
                }
                Some(s)
            }
            "arrow_function" => {
                let s = self.new_scope(ScopeKind::Function, node, scope);
                if let Some(param) = node.child_by_field_id(crate::query::fields().parameter) {
                    self.declare(s, param, BindingKind::Param);
                }
                Some(s)
            }
            "method_definition" => Some(self.new_scope(ScopeKind::Function, node, scope)),
            "formal_parameters" => {
                self.declare_pattern(scope, node, BindingKind::Param);
                None
            }
            "lexical_declaration" => {
                self.lexical_until = node.end_byte();
                None
            }
            "import_statement" | "export_statement" => {
                self.note_import(node, scope, p);
                None
            }
            "with_statement" => {
                self.with_ranges.push((node.start_byte(), node.end_byte()));
                None
            }
            "class_declaration" => {
                if let Some(name) = node.child_by_field_id(crate::query::fields().name) {
                    let fs = self.function_scope(scope);
                    self.declare(fs, name, BindingKind::Class);
                }
                None
            }
            "catch_clause" => {
                let s = self.new_scope(ScopeKind::Catch, node, scope);
                if let Some(param) = node.child_by_field_id(crate::query::fields().parameter) {
                    self.declare_pattern(s, param, BindingKind::Catch);
                }
                Some(s)
            }
            "variable_declarator" => {
                // `parent()` walks down from the root: remember the enclosing
                // `let`/`const` instead.
                let kind = if node.start_byte() < self.lexical_until {
                    BindingKind::Lexical
                } else {
                    BindingKind::Var
                };
                if let Some(name) = node.child_by_field_id(crate::query::fields().name) {
                    let fs = self.function_scope(scope);
                    self.declare_pattern(fs, name, kind);
                    if name.kind() == "identifier" {
                        if let Some(value) = node.child_by_field_id(crate::query::fields().value) {
                            let a = self.classify(value, scope);
                            p.assigns
                                .push((self.node_text(name), scope, name.start_byte(), a));
                        }
                    } else if let Some(value) = node.child_by_field_id(crate::query::fields().value)
                    {
                        // `var { a, b: c } = figma`: each name holds a member of the
                        // value, certain as the member is; anything else a pattern binds
                        // (nested, defaulted, rest) is never certain.
                        let value = match self.classify(value, scope) {
                            Assign::Expr(v, _) if name.kind() == "object_pattern" => Some(v),
                            _ => None,
                        };
                        self.note_destructure(p, name, value, scope);
                    }
                }
                None
            }
            "assignment_expression" => {
                if let Some(left) = node.child_by_field_id(crate::query::fields().left) {
                    match left.kind() {
                        "identifier" => {
                            let a = node
                                .child_by_field_id(crate::query::fields().right)
                                .map(|r| self.classify(r, scope))
                                .unwrap_or(Assign::Other);
                            p.assigns
                                .push((self.node_text(left), scope, left.start_byte(), a));
                        }
                        "member_expression" => self.note_polyfill(left),
                        // `[a, b] = [b, a]`, `({ n } = o)`: a write like any other; unseen,
                        // a `let` swapped so kept its first value's narrowing.
                        "array_pattern" | "object_pattern" => {
                            self.note_pattern_assigns(p, left, scope)
                        }
                        _ => {}
                    }
                }
                None
            }
            "augmented_assignment_expression" => {
                if let Some(left) = node.child_by_field_id(crate::query::fields().left) {
                    self.note_other_assign(p, left, scope);
                }
                None
            }
            "update_expression" => {
                if let Some(arg) = node.child_by_field_id(crate::query::fields().argument) {
                    self.note_other_assign(p, arg, scope);
                }
                None
            }
            "for_in_statement" => {
                if let Some(left) = node.child_by_field_id(crate::query::fields().left) {
                    if node
                        .child_by_field_id(crate::query::fields().kind)
                        .is_some()
                    {
                        let fs = self.function_scope(scope);
                        let kind = match node
                            .child_by_field_id(crate::query::fields().kind)
                            .map(|k| k.kind())
                        {
                            Some("var") => BindingKind::Var,
                            _ => BindingKind::Lexical,
                        };
                        self.declare_pattern(fs, left, kind);
                    }
                    // `for (const n of xs)`: `n` holds each element of `xs`, certain as
                    // the elements are; a `for...in` key is a string, not followed.
                    let of = node
                        .child_by_field_id(crate::query::fields().operator)
                        .is_some_and(|o| o.kind() == "of");
                    let right = node.child_by_field_id(crate::query::fields().right);
                    match right.map(|r| self.classify(r, scope)) {
                        Some(Assign::Expr(r, _)) if of && left.kind() == "identifier" => {
                            p.assigns.push((
                                self.node_text(left),
                                scope,
                                left.start_byte(),
                                Assign::Elem(r, scope),
                            ));
                        }
                        _ if left.kind() == "identifier" => self.note_other_assign(p, left, scope),
                        _ => self.note_pattern_assigns(p, left, scope),
                    }
                }
                None
            }
            "instanceof" => {
                // The token's parent is the binary expression (rare: `parent()` walks).
                if let Some(bin) = node.parent() {
                    if let Some(left) = bin.child_by_field_id(crate::query::fields().left) {
                        if left.kind() == "identifier" {
                            p.narrows.push((self.node_text(left), scope, false));
                        }
                    }
                }
                None
            }
            "member_expression" => {
                let prop = node.child_by_field_id(crate::query::fields().property);
                if prop.is_some_and(|pr| self.node_text(pr) == "constructor") {
                    if let Some(obj) = node.child_by_field_id(crate::query::fields().object) {
                        if obj.kind() == "identifier" {
                            p.narrows.push((self.node_text(obj), scope, true));
                        }
                    }
                }
                None
            }
            "typeof" => {
                if let Some(arg) = node
                    .parent()
                    .and_then(|u| u.child_by_field_id(crate::query::fields().argument))
                {
                    if arg.kind() == "identifier" {
                        self.typeof_names.insert(self.node_text(arg));
                    }
                }
                None
            }
            _ => None,
        }
    }

    pub(super) fn settle(&mut self, p: Pending<'a>) {
        for (name, scope, at, a) in p.assigns {
            let b = match self
                .resolve(name, scope)
                .and_then(|b| self.assigned_binding(b, at))
            {
                Some(b) => b,
                None => {
                    self.bindings.push(Binding {
                        name,
                        kind: BindingKind::Implicit,
                        scope: 0,
                        start: at,
                        end: at + name.len(),
                        narrowed: false,
                        ctor_tested: false,
                        seeded_once: false,
                        assigns: Vec::new(),
                        foreign: false,
                        certain: std::cell::Cell::new(None),
                        settled: std::cell::Cell::new(0),
                        literal: std::cell::Cell::new(false),
                        seeded: false,
                    });
                    let id = self.bindings.len() - 1;
                    self.scopes[0].names.insert(name, id);
                    id
                }
            };
            if !self.bindings[b].seeded {
                let home = self.bindings[b].scope;
                if self.function_scope(scope) != home {
                    self.bindings[b].foreign = true;
                }
                self.bindings[b].assigns.push(a);
            }
        }
        for (name, scope, by_ctor) in p.narrows {
            match self.resolve(name, scope) {
                Some(b) if self.bindings[b].seeded => {}
                Some(b) => {
                    self.bindings[b].narrowed = true;
                    self.bindings[b].ctor_tested |= by_ctor;
                }
                None => {
                    self.narrowed_globals.insert(name);
                }
            }
        }
    }

    /// The certain type of binding `b`, settled on first use: a variable assigned from
    /// another is typed after it, whatever their order in the text. A cycle (`var a = b;
    /// var b = a;`) meets a binding being settled and is not certain.
    pub(super) fn binding_type(&self, b: BindingId) -> Option<Certain<'a>> {
        let bind = &self.bindings[b];
        match bind.settled.get() {
            2 => return bind.certain.get(),
            1 => return None,
            _ => {}
        }
        // A chain of variables each assigned the next is followed this deep; a deeper
        // one (generated code) is not certain rather than a stack overflow.
        if self.settle_depth.get() > 64 {
            return None;
        }
        bind.settled.set(1);
        self.settle_depth.set(self.settle_depth.get() + 1);
        let c = self.binding_certain(b);
        self.settle_depth.set(self.settle_depth.get() - 1);
        bind.certain.set(c);
        bind.literal
            .set(matches!(c, Some(Certain::Builtin(_))) && self.assigned_literals(b));
        bind.settled.set(2);
        c
    }

    /// Whether every assignment of binding `b` is a value of the language's own: a
    /// literal, `new Array()` (or `String`, `RegExp`...), or a variable that holds one.
    fn assigned_literals(&self, b: BindingId) -> bool {
        self.bindings[b].assigns.iter().all(|a| match *a {
            Assign::Array | Assign::String | Assign::Number | Assign::Regex => true,
            Assign::New(ctor, scope) => {
                matches!(self.new_type(ctor, scope), Some(Certain::Builtin(_)))
            }
            Assign::Expr(n, scope) => {
                n.kind_id() == query::kind_ids().identifier
                    && self.resolve(self.node_text(n), scope).is_some_and(|v| {
                        self.binding_type(v).is_some() && self.bindings[v].literal.get()
                    })
            }
            Assign::Object(_)
            | Assign::Module(..)
            | Assign::Prop(..)
            | Assign::Elem(..)
            | Assign::Other => false,
        })
    }

    /// Whether the value of `part` (in `scope`) is the language's own by how the script
    /// writes it: a string, number, array or regular-expression literal, or a variable
    /// whose every assignment is one. A value the docs type `string` or `T[]` is not:
    /// an engine's collection documented as an array may have members of its own.
    pub fn is_language_value(&self, part: &Part<'a>, scope: ScopeId) -> bool {
        let ids = query::kind_ids();
        let mut node = part.node;
        while node.kind_id() == ids.parenthesized_expression {
            match node.named_child(0) {
                Some(inner) => node = inner,
                None => return false,
            }
        }
        let k = node.kind_id();
        if k == ids.string
            || k == ids.template_string
            || k == ids.number
            || k == ids.regex
            || k == ids.array
        {
            return true;
        }
        if k != ids.identifier {
            return false;
        }
        match self.resolve(self.node_text(node), scope) {
            Some(b) => self.binding_type(b).is_some() && self.bindings[b].literal.get(),
            None => false,
        }
    }

    /// Whether every assignment of binding `b` is a certain value of one and the same
    /// type (interfaces.md, "What is judged"), and which.
    fn binding_certain(&self, b: BindingId) -> Option<Certain<'a>> {
        let bind = &self.bindings[b];
        if bind.kind == BindingKind::Import {
            // An import binding is read-only: its one value is what the module gives.
            return match bind.assigns.first() {
                Some(&Assign::Module(spec, part)) => self.import_certain(spec, part),
                _ => None,
            };
        }
        if bind.narrowed {
            // A variable the script tests by its constructor is one it does not take
            // for the type the docs give; a union the docs give is still every value
            // it may hold, and `instanceof` narrows it where it guards (`flow`).
            let c = if bind.ctor_tested || !self.assigned_once(bind) {
                None
            } else {
                self.unnarrowed_certain(b)
            };
            return c.filter(|c| matches!(c, Certain::Union(_)));
        }
        self.unnarrowed_certain(b)
    }

    /// [`Analysis::binding_certain`] as if the script never tested the binding.
    fn unnarrowed_certain(&self, b: BindingId) -> Option<Certain<'a>> {
        let bind = &self.bindings[b];
        if bind.kind == BindingKind::Param {
            // A parameter the docs type: of a function literal passed as a callback
            // (`flow`).
            return self.param_certain(b);
        }
        if bind.kind == BindingKind::Function && bind.assigns.is_empty() {
            // A declared function never reassigned is a `Function`: `f.bind(o)` is
            // judged by the engine check like `[].map` (ES5 on an ES3 engine).
            return Some(Certain::Builtin(Proto::Function));
        }
        // A global a sloppy script assigns without `var` (`doc = app.activeDocument;`,
        // as ExtendScript scripts do) is typed like a `var` when that is its one write
        // in the whole project, made unconditionally: any value it ever holds is that
        // one. 7 of the 11 variable receivers a measure on real scripts missed were so.
        let implicit_once = bind.kind == BindingKind::Implicit
            && bind.assigns.len() == 1
            && !self.written_elsewhere.contains(bind.name)
            && !self.project_names.contains(bind.name)
            && self.unconditional_write(bind.start);
        let declared = matches!(bind.kind, BindingKind::Var | BindingKind::Lexical);
        if !implicit_once && (bind.foreign || !declared) || bind.assigns.is_empty() {
            return None;
        }
        let mut result = None;
        for a in &bind.assigns {
            let t = match *a {
                Assign::New(ctor, scope) => self.new_type(ctor, scope)?,
                Assign::Array => Certain::Builtin(Proto::Array),
                Assign::String => Certain::Builtin(Proto::String),
                Assign::Number => Certain::Builtin(Proto::Number),
                Assign::Regex => Certain::Builtin(Proto::RegExp),
                Assign::Expr(node, scope) => self.certain_in(node, scope)?,
                // A destructured property: read, never called (a method taken off its
                // object is a function value).
                Assign::Prop(node, scope, key) => match self.relative_require(node, scope) {
                    // `const { dev } = require("./lib")`: what that project file's
                    // certain `module.exports` gives `dev`, as an `import` is typed.
                    Some(exports) => {
                        let iface = exports.get(key)?;
                        let (k, _) = self.corpus.interfaces.get_key_value(iface.as_str())?;
                        Certain::Interface(k.as_str())
                    }
                    None => {
                        let obj = self.certain_in(node, scope)?;
                        self.step(obj, Some(key), false)?
                    }
                },
                Assign::Elem(node, scope) => {
                    let coll = self.certain_in(node, scope)?;
                    self.step(coll, None, false)?
                }
                Assign::Object(_) | Assign::Module(..) | Assign::Other => return None,
            };
            result = Some(match result {
                Some(r) => Certain::join(r, t)?,
                None => t,
            });
        }
        result
    }

    /// The type `new ctor()` gives at `scope`: a documented constructor's interface, or a
    /// built-in array/string/date/regexp; for a name the script declares, only the
    /// documented constructor its binding holds (`aliases`).
    pub(super) fn new_type(&self, ctor: &str, scope: ScopeId) -> Option<Certain<'a>> {
        if let Some(b) = self.resolve(ctor, scope) {
            return self.binding_ctor(b).map(Certain::Interface);
        }
        if self.project_names.contains(ctor) {
            return None;
        }
        if let Some(c) = self.corpus.constructors.get(ctor) {
            return Some(Certain::Interface(c.interface.as_str()));
        }
        builtin_proto(ctor).map(Certain::Builtin)
    }
}

/// Whether a list node (`{...}`, `(...)`) ends with a comma before its closing token,
/// judged by the text: skipping white space back from the closing token.
fn trailing_comma(text: &str, list: Node) -> bool {
    let end = list.end_byte();
    // A list cut short by a syntax error can be its opening token alone (`f(` at the
    // end of the text, the `)` missing): nothing between the brackets then.
    if end < list.start_byte() + 2 || end > text.len() {
        return false;
    }
    let inner = &text.as_bytes()[list.start_byte() + 1..end - 1];
    inner
        .iter()
        .rev()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b',')
}

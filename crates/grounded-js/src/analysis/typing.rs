//! Receiver typing: the certain interface or built-in of an expression, and nothing when
//! it is not certain (the parent module's opening comment says what counts).
//!
//! Owns the rules of certainty; reads scopes and bindings through `lookup`, never builds
//! them. May import the parent `analysis`, `js::query`, `docs` and `es`.

use tree_sitter::Node;

use super::*;

impl<'a> Analysis<'a> {
    /// The certain interface of an expression node, or `None` (see the module docs for
    /// what counts as certain).
    pub fn interface_of(&self, node: Node<'a>) -> Option<String> {
        match self.certain(node)? {
            Certain::Interface(i) => Some(i.to_string()),
            _ => None,
        }
    }

    /// The certain type of an expression node: a documented interface or a built-in
    /// value type.
    pub fn certain(&self, node: Node<'a>) -> Option<Certain<'a>> {
        self.certain_in(node, self.scope_at(node.start_byte()))
    }

    /// Like [`Analysis::certain`] when the caller knows the node's scope.
    pub fn certain_in(&self, node: Node<'a>, scope: ScopeId) -> Option<Certain<'a>> {
        // Walk down to the head of the chain, then type it back up step by step, so a
        // long chain costs no stack.
        // (property, is a call); no property: a numeric index `x[i]`.
        let mut steps: Vec<(Option<Node<'a>>, bool)> = Vec::new();
        let mut n = node;
        let mut bare_call = false;
        let mut call = node;
        let ids = query::kind_ids();
        loop {
            let k = n.kind_id();
            if k == ids.parenthesized_expression {
                n = n.named_child(0)?;
            } else if k == ids.member_expression {
                steps.push((Some(self.tail(n)?), false));
                n = self.head(n)?;
            } else if k == ids.subscript_expression {
                // `pages[0]`, `pages[i]`: a string key names a member, not an element.
                let index = n.child_by_field_name("index")?;
                if index.kind_id() == ids.string || index.kind_id() == ids.template_string {
                    return None;
                }
                steps.push((None, false));
                n = n.child_by_field_id(query::fields().object)?;
            } else if k == ids.call_expression {
                let f = self.head(n)?;
                let fk = f.kind_id();
                if fk == ids.member_expression {
                    steps.push((Some(self.tail(f)?), true));
                    n = self.head(f)?;
                } else if fk == ids.identifier {
                    call = n;
                    n = f;
                    bare_call = true;
                    break;
                } else {
                    return None;
                }
            } else {
                break;
            }
        }
        let mut t = if bare_call {
            // A bare call of a documented global function: its return type.
            let name = self.node_text(n);
            if let Some(spec) = self.require_spec(call, scope) {
                // `require("m")`: the module object, as `import * as` gives it.
                Certain::Interface(self.corpus.module_interface(spec)?)
            } else if let Some(b) = self.resolve(name, scope) {
                // A call of an imported function (`import { get } from "m"; get(url)`)
                // gives what the export's docs say it returns.
                let Some((spec, ImportPart::Named(export))) = self.import_of(b) else {
                    return None;
                };
                let m = self.imported_member(spec, export)?;
                if !m.overloads.first().is_some_and(|s| s.is_method()) {
                    return None;
                }
                type_certain(member_type(m)?)?
            } else if self.project_names.contains(name) {
                return None;
            } else {
                let m = self.corpus.global_member(name)?;
                type_certain(member_type(m)?)?
            }
        } else {
            self.head_certain(n, scope)?
        };
        while let Some((prop, is_call)) = steps.pop() {
            t = self.step(t, prop.map(|p| self.node_text(p)), is_call)?;
            if let (Certain::Union(u), Some(p), false) = (t, prop, is_call) {
                // `node.parent` where a test of `node.parent.type` guards it (`flow`).
                if let Some(chain) = p.parent() {
                    t = self.narrowed_chain_at(chain, scope, u)?;
                }
            }
        }
        Some(t)
    }

    /// The type of one step from a value of type `t`: member `prop` (called or read),
    /// or a numeric element (`prop` `None`).
    pub(super) fn step(
        &self,
        t: Certain<'a>,
        prop: Option<&'a str>,
        is_call: bool,
    ) -> Option<Certain<'a>> {
        let Some(name) = prop else {
            // `Index: [index: number]: T` keeps a collection's element certain, and so
            // does a `T[]`; a union's, when every interface of it agrees.
            return match t {
                Certain::Array(el) => type_certain(el),
                _ => {
                    let mut types = t
                        .interfaces()
                        .into_iter()
                        .map(|i| self.corpus.number_index(i));
                    let first = types.next()??;
                    types
                        .all(|x| x == Some(first))
                        .then(|| type_certain(first))?
                }
            };
        };
        match t {
            Certain::Interface(_) | Certain::Union(_) => {
                // A union's member is certain when every interface of it documents it
                // with one type (`node.parent` on `FrameNode | TextNode`).
                let mut found: Option<&'a Type> = None;
                for iface in t.interfaces() {
                    let m = self.member(iface, name)?;
                    let is_method = m.overloads.first().is_some_and(|s| s.is_method());
                    if is_call != is_method {
                        // `layout.heading` without a call is a function value, not a
                        // Paragraph.
                        return None;
                    }
                    let ty = member_type(m)?;
                    if found.is_some_and(|f| f != ty) {
                        return None;
                    }
                    found = Some(ty);
                }
                type_certain(found?)
            }
            // The language's own array methods keep the docs' element type.
            Certain::Array(el) if is_call => match name {
                "filter" | "slice" | "concat" | "reverse" | "sort" | "splice" | "toReversed"
                | "toSorted" => Some(Certain::Array(el)),
                "find" | "findLast" | "pop" | "shift" | "at" => type_certain(el),
                _ => None,
            },
            _ => None,
        }
    }

    /// Whether `node` has the shape receiver typing may find certain: a chain of names,
    /// members, calls and elements from a name, `new X()` or a literal
    /// (`layout.currentPage()`, `doc.pages[0]`, `b`). With `out`, writes the chain
    /// without its arguments (`sheet.range().format()`): what the chain's type depends
    /// on, and all of it, so that a statement summary holding it changes with the type
    /// and not with an edit inside a callback passed along the chain.
    pub(super) fn chain_shape(&self, node: Node<'a>, mut out: Option<&mut String>) -> bool {
        let ids = query::kind_ids();
        // Only a summary asks for the text; the walk's classification allocates nothing.
        let want = out.is_some();
        let mut rev: Vec<&str> = Vec::new();
        let push = |part: &'a str, rev: &mut Vec<&'a str>| {
            if want {
                rev.push(part);
            }
        };
        let mut n = node;
        loop {
            let k = n.kind_id();
            if k == ids.parenthesized_expression {
                match n.named_child(0) {
                    Some(inner) => n = inner,
                    None => return false,
                }
            } else if k == ids.member_expression {
                let (Some(obj), Some(prop)) = (self.head(n), self.tail(n)) else {
                    return false;
                };
                push(self.node_text(prop), &mut rev);
                push(".", &mut rev);
                n = obj;
            } else if k == ids.subscript_expression {
                let Some(index) = n.child_by_field_name("index") else {
                    return false;
                };
                let keyed = index.kind_id() == ids.string || index.kind_id() == ids.template_string;
                push(if keyed { "[key]" } else { "[i]" }, &mut rev);
                let Some(obj) = n.child_by_field_id(query::fields().object) else {
                    return false;
                };
                n = obj;
            } else if k == ids.call_expression {
                let Some(f) = self.head(n) else {
                    return false;
                };
                let fk = f.kind_id();
                if fk != ids.member_expression && fk != ids.identifier {
                    return false;
                }
                push("()", &mut rev);
                n = f;
            } else if k == ids.identifier {
                push(self.node_text(n), &mut rev);
                break;
            } else if k == ids.new_expression {
                match n.child_by_field_id(query::fields().constructor) {
                    Some(c) if c.kind_id() == ids.identifier => {
                        push(self.node_text(c), &mut rev);
                        push("new ", &mut rev);
                        break;
                    }
                    _ => return false,
                }
            } else if k == ids.string || k == ids.template_string {
                push("\"\"", &mut rev);
                break;
            } else if n.kind() == "await_expression" {
                let Some(arg) = n.named_child(0) else {
                    return false;
                };
                push("await ", &mut rev);
                n = arg;
            } else if k == ids.array {
                push("[]", &mut rev);
                break;
            } else if k == ids.number || k == ids.regex {
                push(n.kind(), &mut rev);
                break;
            } else {
                return false;
            }
        }
        if let Some(out) = out.as_mut() {
            for part in rev.iter().rev() {
                out.push_str(part);
            }
        }
        true
    }

    /// Whether the identifier at `start` is the target of a plain `name = value;`
    /// statement that runs whenever its script or function body does: at the top of
    /// the program or of a function, in plain blocks only (not under `if`, a loop,
    /// `try`, `switch`, a `&&` or another assignment).
    pub(super) fn unconditional_write(&self, start: usize) -> bool {
        let ids = query::kind_ids();
        let Some(id) = self
            .tree
            .root_node()
            .descendant_for_byte_range(start, start)
            .filter(|n| n.kind_id() == ids.identifier && n.start_byte() == start)
        else {
            return false;
        };
        let Some(assign) = id.parent().filter(|p| {
            p.kind() == "assignment_expression"
                && p.child_by_field_id(query::fields().left) == Some(id)
        }) else {
            return false;
        };
        let Some(mut cur) = assign
            .parent()
            .filter(|p| p.kind() == "expression_statement")
        else {
            return false;
        };
        while let Some(p) = cur.parent() {
            match p.kind() {
                "program" => return true,
                "statement_block" => cur = p,
                _ => return p.kind_id() != 0 && is_function_kind(p.kind_id()),
            }
        }
        false
    }

    /// Whether a bare name stands inside a `with` statement, where it may be a property
    /// of the `with` object rather than the variable or global of that name.
    fn in_with_body(&self, n: Node) -> bool {
        !self.with_ranges.is_empty() && self.in_with(n.start_byte())
    }

    /// [`Analysis::certain_in`] of a site's part (see [`Part`]): a bare name is typed
    /// without asking the tree.
    pub fn certain_part(&self, part: &Part<'a>, scope: ScopeId) -> Option<Certain<'a>> {
        if part.kind == query::kind_ids().identifier {
            if self.in_with_body(part.node) {
                return None;
            }
            self.certain_ident(part.node, self.part_text(part), scope)
        } else {
            self.certain_in(part.node, scope)
        }
    }

    /// The certain type of the identifier `node` (spelling `name`) used in `scope`,
    /// narrowed by the tests that guard it there (`flow`).
    fn certain_ident(&self, node: Node<'a>, name: &'a str, scope: ScopeId) -> Option<Certain<'a>> {
        let Some(c) = self.certain_name(name, scope) else {
            return self
                .resolve(name, scope)
                .and_then(|b| self.reaching_type(b, node));
        };
        match c {
            Certain::Union(u) => match self.resolve(name, scope) {
                Some(b) => self.narrowed_at(b, node, u),
                None => Some(c),
            },
            _ => Some(c),
        }
    }

    /// The certain type of the bare name `name` used in `scope`.
    fn certain_name(&self, name: &'a str, scope: ScopeId) -> Option<Certain<'a>> {
        match self.resolve(name, scope) {
            Some(b) => self.binding_type(b),
            None => {
                if self.project_names.contains(name) || self.narrowed_globals.contains(name) {
                    return None;
                }
                self.global_interface(name)
                    .map(Certain::Interface)
                    .or_else(|| crate::global_value(self.corpus, name))
            }
        }
    }

    /// Whether an object of `iface` is certain to have no `then` member, so that `await`
    /// of it gives the object itself.
    fn not_thenable(&self, iface: &'a str) -> bool {
        self.member(iface, "then").is_none()
            && !self.corpus.open_keys(iface)
            && !self.corpus.is_extensible(iface)
    }

    fn head_certain(&self, n: Node<'a>, scope: ScopeId) -> Option<Certain<'a>> {
        let ids = query::kind_ids();
        let k = n.kind_id();
        if k == ids.identifier {
            if self.in_with_body(n) {
                return None;
            }
            return self.certain_ident(n, self.node_text(n), scope);
        }
        if n.kind() == "await_expression" {
            // `await api.getAsync(id)` is the `T` of the `Promise<T>`. `await v` of a value
            // that is no thenable is `v` itself (ECMA-262, Await): dropping it lost every
            // member finding after `await app.documents.getByName(n)` on real Photoshop
            // UXP scripts, whose declarations type that lookup `Document`, not a promise.
            // Only a value certain to have no `then` keeps its type: an interface that
            // documents none, takes no open keys and gets no script properties.
            return match self.certain_in(n.named_child(0)?, scope)? {
                Certain::Promise(t) => type_certain(t),
                c @ Certain::Interface(i) => self.not_thenable(i).then_some(c),
                c @ (Certain::Array(_) | Certain::Builtin(_)) => {
                    (!matches!(c, Certain::Builtin(Proto::Function))).then_some(c)
                }
                Certain::Union(_) => None,
            };
        }
        if k == ids.new_expression {
            let c = n.child_by_field_id(query::fields().constructor)?;
            if c.kind_id() != ids.identifier {
                return None;
            }
            return self.new_type(self.node_text(c), scope);
        }
        if k == ids.array {
            Some(Certain::Builtin(Proto::Array))
        } else if k == ids.string || k == ids.template_string {
            Some(Certain::Builtin(Proto::String))
        } else if k == ids.regex {
            Some(Certain::Builtin(Proto::RegExp))
        } else if k == ids.number {
            Some(Certain::Builtin(Proto::Number))
        } else {
            None
        }
    }
}

/// The type of the value a member gives (a method's return, a property's type), when
/// every overload agrees; borrowed from the corpus (what [`grounded_docs::Member::value_type`]
/// computes, without the copy).
pub fn member_type(m: &grounded_docs::Member) -> Option<&Type> {
    let mut it = m.overloads.iter().map(|s| &s.ty);
    let first = it.next()?;
    it.all(|t| t == first).then_some(first)
}

/// The certain type of a documented type: one interface, a union of interfaces, a
/// built-in value, an array of a documented element type, a promise.
pub fn type_certain(t: &Type) -> Option<Certain<'_>> {
    match t {
        Type::Interface(i) => Some(Certain::Interface(i.as_str())),
        Type::String | Type::Path | Type::StringLit(_) => Some(Certain::Builtin(Proto::String)),
        Type::Number | Type::NumberLit(_) => Some(Certain::Builtin(Proto::Number)),
        Type::Array(el) => Some(Certain::Array(el)),
        Type::Union(v) => Union::of(v),
        Type::Promise(t) => Some(Certain::Promise(t)),
        Type::Builtin(b) => builtin_proto(b).map(Certain::Builtin),
        _ => None,
    }
}

/// The prototype of `new Name()` for the built-ins whose methods the table lists.
pub fn builtin_proto(name: &str) -> Option<Proto> {
    Some(match name {
        "Array" => Proto::Array,
        "String" => Proto::String,
        "Date" => Proto::Date,
        "RegExp" => Proto::RegExp,
        "Number" => Proto::Number,
        "Function" => Proto::Function,
        _ => return None,
    })
}

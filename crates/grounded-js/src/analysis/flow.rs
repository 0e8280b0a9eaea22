//! What the code around a use says of a name's type (interfaces.md, "What modern typings
//! say"): the tests that guard it (narrowing a union by a literal-typed discriminant,
//! `node.type === "TEXT"`), and the call a function literal is passed to (a callback's
//! parameters, typed by the docs' function type or by the language's array methods).
//!
//! Why only so far: each rule here gives a type only where the docs and the language
//! leave no other reading. A name assigned twice may hold another value by the time of
//! the use, so narrowing is for names assigned once in their declaration (a `var` only
//! outside loops), for parameters never assigned, and for property chains of those
//! where nothing runs between test and use; a function literal stored and called
//! elsewhere has callers the docs do not type, so only one written as the argument is
//! typed.
//!
//! May import the parent `analysis` only.

use tree_sitter::Node;

use super::*;

/// The language's array methods whose callback's first parameter is an element.
const ELEMENT_FIRST: &[&str] = &[
    "forEach",
    "map",
    "filter",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "some",
    "every",
    "flatMap",
    "sort",
];

/// How far up from a use the narrowing looks: deeper code is generated, and a miss is
/// cheaper than a walk per use.
const MAX_GUARD_DEPTH: usize = 200;

impl<'a> Analysis<'a> {
    /// The union `u` that binding `b` holds, narrowed at `use_node` by the tests that
    /// guard it there; `u` itself when the binding may change between test and use.
    pub(super) fn narrowed_at(
        &self,
        b: BindingId,
        use_node: Node<'a>,
        u: Union<'a>,
    ) -> Option<Certain<'a>> {
        let bind = &self.bindings[b];
        if !self.assigned_once(bind) {
            // A variable written more than once (`target = await getNodeByIdAsync(id)`
            // in one branch, `= selection[0]` in the other, then `if (target.type ===
            // "INSTANCE")`) may change between a test and a use: a test holds only
            // where none of its own writes lies between them. Writes from another
            // function leave it uncertain before this point (`foreign`).
            if matches!(bind.kind, BindingKind::Var | BindingKind::Lexical) {
                return self.narrow_up(
                    bind,
                    use_node,
                    bind.name,
                    Some(Barrier::Writes(use_node)),
                    u,
                );
            }
            return Some(Certain::Union(u));
        }
        self.narrow_up(bind, use_node, bind.name, None, u)
    }

    /// The union `u` that the property chain `chain` (`node.parent`, its head a name
    /// that holds one value, its steps property reads) gives, narrowed at the chain by
    /// the tests of that very chain that guard it (`if (node.parent.type === "FRAME")
    /// node.parent.layoutMode`).
    ///
    /// Why more is asked than of a name: a property can change without the script
    /// writing the name (`frame.appendChild(node)` moves `node.parent`), so a test holds
    /// only where nothing runs between it and the use: no call, `new`, assignment,
    /// `++`, `delete`, `await` or `yield` in between, and no loop or function between
    /// the test and the use (either may run the code after the use before it again).
    pub(super) fn narrowed_chain_at(
        &self,
        chain: Node<'a>,
        scope: ScopeId,
        u: Union<'a>,
    ) -> Option<Certain<'a>> {
        let whole = Some(Certain::Union(u));
        let mut head = chain;
        while head.kind() == "member_expression" {
            if self
                .tail(head)
                .is_none_or(|p| p.kind() != "property_identifier")
            {
                return whole;
            }
            head = match self.head(head) {
                Some(h) => h,
                None => return whole,
            };
        }
        if head.kind() != "identifier" || head.id() == chain.id() {
            return whole;
        }
        let Some(b) = self.resolve(self.node_text(head), scope) else {
            return whole;
        };
        let bind = &self.bindings[b];
        if !self.assigned_once(bind) {
            return whole;
        }
        let name: String = self.node_text(chain).split_whitespace().collect();
        self.narrow_up(bind, chain, &name, Some(Barrier::Runs(chain)), u)
    }

    /// The walk of [`Analysis::narrowed_at`] up from `use_node`, narrowing `u` by the
    /// tests of `name` (a name, or a chain's text). With `held`, only the tests that
    /// nothing of that [`Barrier`] follows, and none across a loop or function (see
    /// [`Analysis::narrowed_chain_at`]).
    pub(super) fn narrow_up(
        &self,
        bind: &Binding<'a>,
        use_node: Node<'a>,
        name: &str,
        held: Option<Barrier<'a>>,
        u: Union<'a>,
    ) -> Option<Certain<'a>> {
        let changes = |b: Barrier<'a>| match b {
            Barrier::Runs(at) => changes_before(at),
            Barrier::Writes(at) => self.last_write_before(bind, at),
        };
        let mut keep = u.interfaces().collect::<Vec<_>>();
        let mut child = use_node;
        let mut depth = 0;
        // Where the last code that may change the tested value ends, before the use
        // (found when a test is met).
        let mut barrier: Option<usize> = None;
        while let Some(parent) = child.parent() {
            depth += 1;
            if held.is_some()
                && (is_function_kind(parent.kind_id())
                    || matches!(
                        parent.kind(),
                        "for_statement" | "for_in_statement" | "while_statement" | "do_statement"
                    ))
            {
                break;
            }
            let before_test = keep.clone();
            // A test written before the name was declared is of another value (or of
            // another binding of the name): only the block that declares it is read,
            // from the declaration on.
            let before = parent.start_byte() < bind.start;
            let block = matches!(parent.kind(), "statement_block" | "program");
            if depth > MAX_GUARD_DEPTH || (before && !block) {
                break;
            }
            let f = query::fields();
            match parent.kind() {
                "if_statement" => {
                    let cond = parent.child_by_field_name("condition");
                    let cons = parent.child_by_field_name("consequence");
                    let alt = parent.child_by_field_name("alternative");
                    if let Some(c) = cond {
                        if cons.is_some_and(|x| x.id() == child.id()) {
                            self.narrow(c, name, true, &mut keep);
                        } else if alt.is_some_and(|x| x.id() == child.id()) {
                            self.narrow(c, name, false, &mut keep);
                        }
                    }
                }
                "ternary_expression" => {
                    if let Some(c) = parent.child_by_field_name("condition") {
                        if parent
                            .child_by_field_name("consequence")
                            .is_some_and(|x| x.id() == child.id())
                        {
                            self.narrow(c, name, true, &mut keep);
                        } else if parent
                            .child_by_field_name("alternative")
                            .is_some_and(|x| x.id() == child.id())
                        {
                            self.narrow(c, name, false, &mut keep);
                        }
                    }
                }
                "binary_expression" => {
                    let op = parent.child_by_field_id(f.operator).map(|o| o.kind());
                    let left = parent.child_by_field_id(f.left);
                    let on_right = parent
                        .child_by_field_id(f.right)
                        .is_some_and(|x| x.id() == child.id());
                    if let (Some(l), true) = (left, on_right) {
                        match op {
                            Some("&&") => self.narrow(l, name, true, &mut keep),
                            Some("||") => self.narrow(l, name, false, &mut keep),
                            _ => {}
                        }
                    }
                }
                "switch_case" => self.narrow_case(parent, child, name, &mut keep),
                "statement_block" | "program" => {
                    // `if (node.type !== "TEXT") return;` before the use: what follows
                    // runs only when the test failed.
                    let mut c = parent.walk();
                    for stmt in parent.named_children(&mut c) {
                        if stmt.start_byte() >= child.start_byte() {
                            break;
                        }
                        if stmt.start_byte() < bind.end {
                            continue;
                        }
                        if stmt.kind() == "if_statement"
                            && stmt.child_by_field_name("alternative").is_none()
                            && stmt.child_by_field_name("consequence").is_some_and(exits)
                        {
                            if let Some(cond) = stmt.child_by_field_name("condition") {
                                let k0 = keep.clone();
                                self.narrow(cond, name, false, &mut keep);
                                if let (Some(h), true) = (held, keep != k0) {
                                    let from = *barrier.get_or_insert_with(|| changes(h));
                                    if stmt.start_byte() < from {
                                        keep = k0;
                                    }
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
            // Where the test that narrowed here starts: a `switch`'s is its value (a case
            // may be reached by falling through code that runs after it); a block's
            // early exits were weighed one by one above.
            let test_start = match parent.kind() {
                "statement_block" | "program" => usize::MAX,
                "switch_case" => parent
                    .parent()
                    .and_then(|b| b.parent())
                    .map_or(0, |sw| sw.start_byte()),
                _ => parent.start_byte(),
            };
            if let (Some(h), true) = (held, keep != before_test) {
                let from = *barrier.get_or_insert_with(|| changes(h));
                if test_start < from {
                    // Something may have changed the tested value since this test, and since
                    // every test further out.
                    keep = before_test;
                    break;
                }
            }
            // A function declaration is hoisted: it may run before the tests around it
            // (`g(); if (n.type !== "TEXT") return; function g() { n.characters }`).
            let hoisted = matches!(
                parent.kind(),
                "function_declaration" | "generator_function_declaration"
            );
            if before
                || hoisted
                || (is_function_kind(parent.kind_id()) && parent.start_byte() <= bind.start)
            {
                break;
            }
            child = parent;
        }
        u.keep(|i| keep.contains(&i))
    }

    /// Whether `bind` holds one value wherever it is used, so that a test of it holds
    /// at the uses it guards: a parameter never assigned, a `let`/`const` assigned once,
    /// in its declaration, or a `var` so assigned outside any loop.
    pub(super) fn assigned_once(&self, bind: &Binding<'a>) -> bool {
        if bind.seeded {
            // The rest of the file, standing in for a statement analysed alone: the
            // whole file's analysis said so.
            return bind.seeded_once;
        }
        match bind.kind {
            BindingKind::Param => bind.assigns.is_empty(),
            BindingKind::Lexical => {
                bind.assigns.len() == 1 && self.declared_with_value(bind).is_some()
            }
            // A `var` is one binding for the whole function: in a loop, every iteration
            // writes it again, and a function made in one iteration (`setTimeout(() =>
            // n.characters)` under `if (n.type === "TEXT")`) reads whatever the last
            // one wrote. Outside loops its one write runs once per call of its
            // function, before any test that follows it (tests written before the
            // declaration are never read, see `narrowed_at`), as for a `let`.
            BindingKind::Var => {
                bind.assigns.len() == 1
                    && self.declared_with_value(bind).is_some_and(|d| !in_loop(d))
            }
            _ => false,
        }
    }

    /// The declarator (or `for...of`) that gives `bind` its one value where it is first
    /// declared: `const n = ...`, `var n = ...`, or the variable of a `for...of`.
    fn declared_with_value(&self, bind: &Binding<'a>) -> Option<Node<'a>> {
        let id = self
            .tree
            .root_node()
            .descendant_for_byte_range(bind.start, bind.end)?;
        id.parent().filter(|p| match p.kind() {
            "variable_declarator" => {
                p.child_by_field_id(query::fields().value).is_some()
                    && p.child_by_field_id(query::fields().name) == Some(id)
            }
            "for_in_statement" => true,
            _ => false,
        })
    }

    /// Narrows `keep` by condition `cond` being `truth`, as far as it tests `name`'s
    /// discriminant (`name.type === "TEXT"`, `!`, `&&`, `||`, parentheses).
    fn narrow(&self, cond: Node<'a>, name: &str, truth: bool, keep: &mut Vec<&'a str>) {
        let f = query::fields();
        match cond.kind() {
            "parenthesized_expression" => {
                if let Some(inner) = cond.named_child(0) {
                    self.narrow(inner, name, truth, keep);
                }
            }
            "unary_expression" => {
                let not = cond
                    .child_by_field_id(f.operator)
                    .is_some_and(|o| o.kind() == "!");
                if let (true, Some(arg)) = (not, cond.child_by_field_id(f.argument)) {
                    self.narrow(arg, name, !truth, keep);
                }
            }
            "binary_expression" => {
                let op = cond.child_by_field_id(f.operator).map(|o| o.kind());
                let (Some(l), Some(r)) = (
                    cond.child_by_field_id(f.left),
                    cond.child_by_field_id(f.right),
                ) else {
                    return;
                };
                match op {
                    Some("&&") if truth => {
                        self.narrow(l, name, true, keep);
                        self.narrow(r, name, true, keep);
                    }
                    Some("||") if !truth => {
                        self.narrow(l, name, false, keep);
                        self.narrow(r, name, false, keep);
                    }
                    Some("||") => {
                        // Either side held: what either leaves.
                        let mut a = keep.clone();
                        let mut b = keep.clone();
                        self.narrow(l, name, true, &mut a);
                        self.narrow(r, name, true, &mut b);
                        keep.retain(|i| a.contains(i) || b.contains(i));
                    }
                    Some(op @ ("===" | "==" | "!==" | "!=")) => {
                        let equal = matches!(op, "===" | "==") == truth;
                        let Some((prop, lit)) = self
                            .discriminant_test(l, r, name)
                            .or_else(|| self.discriminant_test(r, l, name))
                        else {
                            return;
                        };
                        keep.retain(|&i| self.may_be(i, prop, &lit, equal));
                    }
                    Some("instanceof") if truth => {
                        // `x instanceof TextNode` of a documented constructor: the
                        // value is that interface's object (or a descendant's).
                        let is_name = self.is_subject(l, name);
                        if !is_name || r.kind() != "identifier" {
                            return;
                        }
                        let ctor = self.node_text(r);
                        let Some(c) = self.corpus.constructors.get(ctor) else {
                            // A test by a constructor the docs do not give: the script
                            // expects a value the docs do not type; nothing is certain
                            // where it holds.
                            keep.clear();
                            return;
                        };
                        let target = c.interface.as_str();
                        keep.retain(|i| {
                            *i == target || self.corpus.ancestors(i).iter().any(|a| a == target)
                        });
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }

    /// `name.prop` compared with a literal (`node.type === "TEXT"`): the property and
    /// the literal's text (`TEXT`, `3`).
    pub fn discriminant_test(
        &self,
        side: Node<'a>,
        other: Node<'a>,
        name: &str,
    ) -> Option<(&'a str, String)> {
        if side.kind() != "member_expression" {
            return None;
        }
        let obj = self.head(side)?;
        if !self.is_subject(obj, name) {
            return None;
        }
        let prop = self.node_text(self.tail(side)?);
        Some((prop, literal_text(self.node_text(other), other.kind())?))
    }

    /// Whether `n` is what a test narrows: the name `name`, or (a `name` with dots) the
    /// property chain written so (`node.parent`, white space aside).
    fn is_subject(&self, n: Node<'a>, name: &str) -> bool {
        match n.kind() {
            "identifier" => self.node_text(n) == name,
            "member_expression" if name.contains('.') => {
                let text = self.node_text(n);
                text.len() >= name.len() && text.split_whitespace().collect::<String>() == name
            }
            _ => false,
        }
    }

    /// Whether an object of `iface` may pass `iface.prop == lit` being `equal`: always,
    /// unless the docs type `prop` with literals alone (`readonly type: "TEXT"`) that
    /// decide it. A property the interface lacks may be a descendant's: kept.
    pub fn may_be(&self, iface: &'a str, prop: &'a str, lit: &str, equal: bool) -> bool {
        let Some(lits) = self.literals_of(iface, prop) else {
            return true;
        };
        if equal {
            lits.iter().any(|l| l == lit)
        } else {
            !(lits.len() == 1 && lits[0] == lit)
        }
    }

    /// The literals `iface.prop` is documented as, when it is documented as literals
    /// only (`"TEXT"`, `"A" | "B"`, `3`); descendants may only narrow them.
    pub fn literals_of(&self, iface: &'a str, prop: &'a str) -> Option<Vec<String>> {
        let m = self.member(iface, prop)?;
        let t = member_type(m)?;
        let mut out = Vec::new();
        let mut push = |t: &Type| match t {
            Type::StringLit(s) | Type::NumberLit(s) => {
                out.push(s.clone());
                true
            }
            _ => false,
        };
        let all = match t {
            Type::Union(v) => v.iter().all(&mut push),
            t => push(t),
        };
        (all && !out.is_empty()).then_some(out)
    }

    /// Narrows by the `switch (name.prop)` case `case_node` when the use (`child`, in
    /// its body) is reached only through cases whose values are literals.
    fn narrow_case(
        &self,
        case_node: Node<'a>,
        child: Node<'a>,
        name: &str,
        keep: &mut Vec<&'a str>,
    ) {
        let f = query::fields();
        if case_node
            .child_by_field_id(f.value)
            .is_some_and(|v| v.id() == child.id())
        {
            return;
        }
        let Some(body) = case_node.parent() else {
            return;
        };
        let Some(switch) = body.parent().filter(|s| s.kind() == "switch_statement") else {
            return;
        };
        let Some(disc) = switch
            .child_by_field_id(f.value)
            .map(|v| strip_parens(v))
            .filter(|v| v.kind() == "member_expression")
        else {
            return;
        };
        if !self.head(disc).is_some_and(|o| self.is_subject(o, name)) {
            return;
        }
        let Some(prop) = self.tail(disc).map(|p| self.node_text(p)) else {
            return;
        };
        // The cases that reach this one: it, and each before it that may fall through.
        let mut cases: Vec<Node<'a>> = Vec::new();
        let mut c = body.walk();
        for kid in body.named_children(&mut c) {
            if kid.kind() == "switch_default" {
                if kid.start_byte() < case_node.start_byte() && !case_exits(kid) {
                    // A default that falls into this case: any value reaches it.
                    cases.clear();
                    cases.push(kid);
                } else if kid.start_byte() < case_node.start_byte() {
                    cases.clear();
                }
                continue;
            }
            if kid.kind() != "switch_case" || kid.start_byte() > case_node.start_byte() {
                continue;
            }
            if kid.id() != case_node.id() && case_exits(kid) {
                cases.clear();
                continue;
            }
            cases.push(kid);
        }
        let mut lits = Vec::new();
        for case in &cases {
            let v = case.child_by_field_id(f.value);
            match v.and_then(|v| literal_text(self.node_text(v), v.kind())) {
                Some(l) => lits.push(l),
                None => return,
            }
        }
        keep.retain(|&i| lits.iter().any(|l| self.may_be(i, prop, l, true)));
    }

    /// The type the docs give parameter binding `b`: a parameter of a function literal
    /// written as an argument of a documented method whose parameter there is a function
    /// type, of an array method on a certain array, or of `.then` on a promise; a name
    /// destructured from such a parameter gets its member's type. Never assigned.
    pub(super) fn param_certain(&self, b: BindingId) -> Option<Certain<'a>> {
        let bind = &self.bindings[b];
        if !bind.assigns.is_empty() || bind.seeded {
            return None;
        }
        let id = self
            .tree
            .root_node()
            .descendant_for_byte_range(bind.start, bind.end)?;
        // Up from the name to the parameter: `n`, `{ n }`, `{ k: n }` (one level).
        let mut key = None;
        let mut node = id;
        let mut parent = node.parent()?;
        if parent.kind() == "pair_pattern" {
            let k = parent.child_by_field_id(query::fields().key)?;
            if k.kind() != "property_identifier" {
                return None;
            }
            key = Some(self.node_text(k));
            node = parent;
            parent = node.parent()?;
        } else if node.kind() == "shorthand_property_identifier_pattern" {
            key = Some(self.node_text(node));
        }
        if key.is_some() {
            if parent.kind() != "object_pattern" {
                return None;
            }
            node = parent;
            parent = node.parent()?;
        }
        let (func, index) = match parent.kind() {
            "formal_parameters" => {
                let mut c = parent.walk();
                let index = parent
                    .named_children(&mut c)
                    .filter(|n| n.kind() != "comment")
                    .position(|n| n.id() == node.id())?;
                (parent.parent()?, index)
            }
            "arrow_function" => (parent, 0),
            _ => return None,
        };
        if !matches!(
            func.kind(),
            "arrow_function" | "function_expression" | "function"
        ) {
            return None;
        }
        let t = self.callback_param(func, index)?;
        match key {
            Some(k) => self.step(t, Some(k), false),
            None => Some(t),
        }
    }

    /// The type of parameter `index` of `func`, a function literal passed as an
    /// argument of a call, by what the call's callee is.
    fn callback_param(&self, func: Node<'a>, index: usize) -> Option<Certain<'a>> {
        let args = func.parent().filter(|a| a.kind() == "arguments")?;
        let call = args.parent().filter(|c| c.kind() == "call_expression")?;
        let mut c = args.walk();
        let arg_index = args
            .named_children(&mut c)
            .filter(|n| n.kind() != "comment")
            .position(|n| n.id() == func.id())?;
        let callee = call.child_by_field_id(query::fields().function)?;
        let scope = self.scope_at(call.start_byte());
        let members: Vec<&'a grounded_docs::Member> = match callee.kind() {
            "member_expression" => {
                let recv = self.certain_in(self.head(callee)?, scope)?;
                let name = self.node_text(self.tail(callee)?);
                match recv {
                    Certain::Array(el) => {
                        return self.array_callback(name, arg_index, index, el);
                    }
                    Certain::Promise(t) if name == "then" && arg_index == 0 && index == 0 => {
                        return type_certain(t);
                    }
                    Certain::Interface(_) | Certain::Union(_) => {
                        let mut ms = Vec::new();
                        for i in recv.interfaces() {
                            match self.member(i, name) {
                                Some(m) => ms.push(m),
                                None if ms.is_empty() => {
                                    // A collection with `Index: [index: number]: T`
                                    // takes the language's array methods' callbacks.
                                    let el = self.corpus.number_index(i)?;
                                    if recv.interfaces().len() != 1 {
                                        return None;
                                    }
                                    return self.array_callback(name, arg_index, index, el);
                                }
                                None => return None,
                            }
                        }
                        ms
                    }
                    _ => return None,
                }
            }
            "identifier" => {
                let name = self.node_text(callee);
                if self.resolve(name, scope).is_some() || self.project_names.contains(name) {
                    return None;
                }
                vec![self.corpus.global_member(name)?]
            }
            _ => return None,
        };
        // Every overload of every member the callee may be agrees on the parameter.
        let mut found: Option<&'a Type> = None;
        for m in members {
            for sig in &m.overloads {
                let p = sig.params.as_ref()?.get(arg_index)?;
                let Type::Func(ps, _) = &p.ty else {
                    return None;
                };
                let q = ps.get(index).filter(|q| !q.rest)?;
                if found.is_some_and(|f| f != &q.ty) {
                    return None;
                }
                found = Some(&q.ty);
            }
        }
        type_certain(found?)
    }

    /// The type of parameter `index` of the callback passed as argument `arg` of the
    /// language's array method `name` on elements of type `el`.
    fn array_callback(
        &self,
        name: &str,
        arg: usize,
        index: usize,
        el: &'a Type,
    ) -> Option<Certain<'a>> {
        let element = match name {
            _ if arg != 0 => false,
            "reduce" | "reduceRight" => index == 1,
            "sort" => index <= 1,
            _ => ELEMENT_FIRST.contains(&name) && index == 0,
        };
        if element {
            type_certain(el)
        } else {
            None
        }
    }
}

/// The literal a node is, as text (`"TEXT"` → `TEXT`, `3` → `3`).
fn literal_text(text: &str, kind: &str) -> Option<String> {
    match kind {
        "string" => Some(text.get(1..text.len().saturating_sub(1))?.to_string()),
        "number" => Some(text.to_string()),
        _ => None,
    }
}

fn strip_parens(mut n: Node) -> Node {
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(i) => n = i,
            None => break,
        }
    }
    n
}

/// What may change a tested value between the test and a use at the node given, for a
/// narrowing that needs nothing to change there.
#[derive(Clone, Copy)]
pub(super) enum Barrier<'a> {
    /// Anything that runs: a property chain (`frame.appendChild(node)` moves
    /// `node.parent` without the script writing `node`).
    Runs(Node<'a>),
    /// Only the name's own writes: a name written more than once, which no other
    /// function writes (that would leave it uncertain before this point: `foreign`).
    Writes(Node<'a>),
}

/// Whether a statement always leaves the code that follows it: `return`, `throw`,
/// `break`, `continue`, or a block ending in one.
fn exits(stmt: Node) -> bool {
    match stmt.kind() {
        "return_statement" | "throw_statement" | "break_statement" | "continue_statement" => true,
        "statement_block" => {
            let n = stmt.named_child_count();
            n > 0 && stmt.named_child(n - 1).is_some_and(exits)
        }
        _ => false,
    }
}

/// Where the last code that may change a property before `use` ends, in the function
/// (or script) that holds `use`: a call, `new`, assignment, `++`/`--`, `delete`,
/// `await` or `yield` that ends before it (0 when none). A function written there is
/// not run there; an expression that holds `use` runs its own change after reading it
/// (`x = n.parent.y`), save what ends before `use` inside it (`f(g(), n.parent.y)`).
fn changes_before(use_node: Node) -> usize {
    last_before(use_node, |n| match n.kind() {
        "call_expression"
        | "new_expression"
        | "assignment_expression"
        | "augmented_assignment_expression"
        | "update_expression"
        | "await_expression"
        | "yield_expression" => true,
        "unary_expression" => n.child(0).is_some_and(|o| o.kind() == "delete"),
        _ => false,
    })
}

/// Where the last node that `counts` ends before `use_node` starts, within `use_node`'s
/// function (0 when none), functions written there left out (they do not run there);
/// a counted node's own inside is not read (it ends before it).
fn last_before(use_node: Node, counts: impl Fn(Node) -> bool) -> usize {
    let at = use_node.start_byte();
    let mut root = use_node;
    while let Some(p) = root.parent() {
        root = p;
        if is_function_kind(p.kind_id()) {
            break;
        }
    }
    let mut last = 0;
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.start_byte() >= at {
            continue;
        }
        if n.id() != root.id() && is_function_kind(n.kind_id()) {
            continue;
        }
        if n.end_byte() <= at && counts(n) {
            last = last.max(n.end_byte());
            continue;
        }
        let mut c = n.walk();
        stack.extend(n.children(&mut c));
    }
    last
}

/// Whether `node` (a declarator, or a `for...of` itself) runs in a loop of its own
/// function (or of the script's top level).
fn in_loop(node: Node) -> bool {
    let mut cur = Some(node);
    while let Some(n) = cur {
        if is_function_kind(n.kind_id()) {
            return false;
        }
        if matches!(
            n.kind(),
            "for_statement" | "for_in_statement" | "while_statement" | "do_statement"
        ) {
            return true;
        }
        cur = n.parent();
    }
    false
}

/// Whether a `case` (or `default`) body ends by leaving: it does not fall into the next.
fn case_exits(case: Node) -> bool {
    let n = case.named_child_count();
    let value = case.child_by_field_id(query::fields().value);
    n > 0
        && case.named_child(n - 1).is_some_and(|last| {
            // A `case` with no body (`case "A": case "B": ...`) ends in its value.
            let empty = value.is_some_and(|v| v.id() == last.id());
            last.kind() != "comment" && !empty && exits(last)
        })
}

#[cfg(test)]
mod tests;

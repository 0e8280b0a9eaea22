//! Patterns and object literals: what a destructuring pattern (`{ a, b: c }`, `[a,
//! ...b]`, a parameter list) declares and what each name it binds is assigned, for the
//! walk (`scoping`); the keys of an object literal and the one a variable holds.
//!
//! Why apart: the walk's file grew past what one can read at once; a pattern's names
//! are one question, asked by declarations, parameters, `catch` and `for` heads alike.
//!
//! May import the parent `analysis` only.

use tree_sitter::Node;

use super::*;

impl<'a> Analysis<'a> {
    /// Declares every identifier a pattern binds (`a`, `{a, b: c}`, `[a, ...b]`, `a = 1`).
    pub(super) fn declare_pattern(&mut self, scope: ScopeId, pattern: Node, kind: BindingKind) {
        let mut stack = vec![pattern];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    self.declare(scope, n, kind);
                }
                "assignment_pattern" | "object_assignment_pattern" => {
                    if let Some(l) = n.child_by_field_id(crate::query::fields().left) {
                        stack.push(l);
                    }
                }
                "pair_pattern" => {
                    if let Some(v) = n.child_by_field_id(crate::query::fields().value) {
                        stack.push(v);
                    }
                }
                "object_pattern" | "array_pattern" | "rest_pattern" | "formal_parameters" => {
                    let mut c = n.walk();
                    for child in n.named_children(&mut c) {
                        stack.push(child);
                    }
                }
                _ => {}
            }
        }
    }

    /// Records an assignment to `target` that is not `new X()` (`x += 1`, `x++`, the
    /// variable of a `for (x in o)`): it makes the variable's type uncertain.
    pub(super) fn note_other_assign(&self, p: &mut Pending<'a>, target: Node<'a>, scope: ScopeId) {
        if target.kind() == "identifier" {
            p.assigns.push((
                self.node_text(target),
                scope,
                target.start_byte(),
                Assign::Other,
            ));
        }
    }

    /// `Object.keys = ...`, `String.prototype.trim = ...`: the script supplies the
    /// built-in itself, so the engine family must not report it.
    pub(super) fn note_polyfill(&mut self, left: Node) {
        let t = self.node_text(left);
        let plain = t.split('.').all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        });
        if plain {
            self.polyfills.insert(t.to_string());
        }
    }

    /// Records an uncertain assignment to every name a destructuring pattern binds.
    pub(super) fn note_pattern_assigns(
        &self,
        p: &mut Pending<'a>,
        pattern: Node<'a>,
        scope: ScopeId,
    ) {
        let f = crate::query::fields();
        let mut stack = vec![pattern];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    p.assigns
                        .push((self.node_text(n), scope, n.start_byte(), Assign::Other));
                }
                "assignment_pattern" | "object_assignment_pattern" => {
                    stack.extend(n.child_by_field_id(f.left));
                }
                "pair_pattern" => stack.extend(n.child_by_field_id(f.value)),
                "object_pattern" | "array_pattern" | "rest_pattern" => {
                    let mut c = n.walk();
                    stack.extend(n.named_children(&mut c));
                }
                _ => {}
            }
        }
    }

    /// Records what each name of a destructuring `pattern` is assigned: member `key` of
    /// `value` (a chain) for `{ key }` and `{ key: name }`, an uncertain value for the
    /// rest.
    pub(super) fn note_destructure(
        &self,
        p: &mut Pending<'a>,
        pattern: Node<'a>,
        value: Option<Node<'a>>,
        scope: ScopeId,
    ) {
        let Some(value) = value else {
            self.note_pattern_assigns(p, pattern, scope);
            return;
        };
        let f = crate::query::fields();
        let mut c = pattern.walk();
        for kid in pattern.named_children(&mut c) {
            let (key, target) = match kid.kind() {
                "shorthand_property_identifier_pattern" => (Some(self.node_text(kid)), kid),
                "pair_pattern" => {
                    match (kid.child_by_field_id(f.key), kid.child_by_field_id(f.value)) {
                        (Some(k), Some(v))
                            if k.kind() == "property_identifier" && v.kind() == "identifier" =>
                        {
                            (Some(self.node_text(k)), v)
                        }
                        _ => (None, kid),
                    }
                }
                _ => (None, kid),
            };
            match key {
                Some(key) => p.assigns.push((
                    self.node_text(target),
                    scope,
                    target.start_byte(),
                    Assign::Prop(value, scope, key),
                )),
                None => self.note_pattern_assigns(p, target, scope),
            }
        }
    }

    /// The keys of an object literal, nested literals' keys in braces (`{a b{c d} }`):
    /// all that the option check reads of it. For a statement summary.
    pub(super) fn object_keys(&self, obj: Node<'a>) -> String {
        let mut out = String::new();
        self.keys_into(obj, 0, &mut out);
        out
    }

    fn keys_into(&self, obj: Node<'a>, depth: usize, out: &mut String) {
        let f = crate::query::fields();
        out.push('{');
        let mut c = obj.walk();
        for kid in obj.named_children(&mut c) {
            let key = match kid.kind() {
                "pair" => kid.child_by_field_id(f.key),
                "method_definition" => kid.child_by_field_id(f.name),
                "shorthand_property_identifier" => Some(kid),
                "comment" => continue,
                _ => None,
            };
            match key {
                Some(k) => out.push_str(self.node_text(k)),
                None => out.push_str(kid.kind()),
            }
            if kid.kind() == "pair" && depth < 8 {
                if let Some(v) = kid
                    .child_by_field_id(f.value)
                    .filter(|v| v.kind() == "object")
                {
                    self.keys_into(v, depth + 1, out);
                }
            }
            out.push(' ');
        }
        out.push('}');
    }

    /// The object literal a variable holds, when it is its only assignment (`var cfg =
    /// { bold: true }`, never reassigned, narrowed or written by another function): an
    /// options object passed by name is judged as the literal would be.
    pub fn object_literal_of(&self, name: &str, scope: ScopeId) -> Option<Node<'a>> {
        let bind = &self.bindings[self.resolve(name, scope)?];
        if bind.narrowed
            || bind.foreign
            || bind.seeded
            || !matches!(bind.kind, BindingKind::Var | BindingKind::Lexical)
        {
            return None;
        }
        match bind.assigns.as_slice() {
            [Assign::Object(n)] => Some(*n),
            _ => None,
        }
    }
}

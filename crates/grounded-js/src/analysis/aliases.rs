//! Documented constructors a script reaches through a binding of its own: `new X()` of
//! an import binding of a documented module's export `X`, or of a variable whose every
//! value is a documented member `X` holding a function (`const SolidColor =
//! require("photoshop").app.SolidColor; new SolidColor()`).
//!
//! Why: a script-declared name is never taken for the docs' global of the same name,
//! and on module engines every class reaches the script through such a binding. Read
//! as nothing, 9 of the 14 `new` sites of real Photoshop UXP scripts were never judged
//! (`goldenColor.rgbQx.red` passed after `new SolidColor()`), where tsc judged all 14.
//!
//! What links the value to the constructor is the docs' name, as corpus-format.md says
//! ("The name after `new` is what scripts write"): the member (or export) the binding
//! takes is named `X` and typed `Function`, and exactly one interface documents
//! `Constructor: new X()`. The binding's own name does not matter, as `import { Socket
//! as S }` gives `new S()` its `Socket`.
//!
//! Owns that rule; reads types through `typing` and bindings through `lookup`. May
//! import the parent `analysis`, `docs` and `es`.

use tree_sitter::Node;

use super::*;

impl<'a> Analysis<'a> {
    /// The interface `new b()` gives, when binding `b` holds a documented constructor
    /// by the rule of this module; `None` when it holds anything else or not certainly.
    pub(super) fn binding_ctor(&self, b: BindingId) -> Option<&'a str> {
        let bind = &self.bindings[b];
        if bind.seeded {
            // The whole file's answer, as its seed carried it (`SeedType::Constructor`).
            return self.seeded_ctors.get(bind.name).copied();
        }
        if let Some((spec, part)) = self.import_of(b) {
            // A class a documented module exports (`import { Client } from
            // "k6/net/grpc"; new Client()`): typing every script-declared name as
            // unknown lost all 40 `new` sites of a real module engine that main had
            // caught when the class was a global.
            return match part {
                ImportPart::Named(export) if self.corpus.module_interface(spec).is_some() => {
                    self.documented_ctor(export)
                }
                _ => None,
            };
        }
        // A variable: every value it is ever given is the same documented member, read
        // in the function that declares it, and the script never tests what it holds.
        let declared = matches!(bind.kind, BindingKind::Var | BindingKind::Lexical);
        if !declared || bind.foreign || bind.narrowed || bind.assigns.is_empty() {
            return None;
        }
        // `const X = new X().X` reads itself back through `new_type`: a cycle is not
        // certain (the guard as `binding_type`'s).
        if self.settle_depth.get() > 64 {
            return None;
        }
        self.settle_depth.set(self.settle_depth.get() + 1);
        let mut result = None;
        for a in &bind.assigns {
            let iface = match *a {
                Assign::Expr(node, scope) => self.member_ctor(node, scope),
                Assign::Prop(node, scope, key) if self.relative_require(node, scope).is_none() => {
                    self.ctor_member_of(node, scope, key)
                }
                _ => None,
            };
            if iface.is_none() || result.is_some_and(|r| Some(r) != iface) {
                result = None;
                break;
            }
            result = iface;
        }
        self.settle_depth.set(self.settle_depth.get() - 1);
        result
    }

    /// The documented constructor `new name()` names, when one interface alone
    /// documents it.
    fn documented_ctor(&self, name: &str) -> Option<&'a str> {
        let c = self.corpus.constructors.get(name)?;
        (!c.shared).then_some(c.interface.as_str())
    }

    /// `value` is `obj.X` (parentheses aside): the constructor member `X` gives.
    fn member_ctor(&self, value: Node<'a>, scope: ScopeId) -> Option<&'a str> {
        let ids = query::kind_ids();
        let mut v = value;
        while v.kind_id() == ids.parenthesized_expression {
            v = v.named_child(0)?;
        }
        if v.kind_id() != ids.member_expression {
            return None;
        }
        let prop = self.tail(v)?;
        let obj = self.head(v)?;
        self.ctor_member_of(obj, scope, self.node_text(prop))
    }

    /// Member `name` of the certain value `obj`: the constructor it is, when every
    /// interface `obj` may be documents `name` as a property of type `Function` and one
    /// interface documents `Constructor: new name()`. A member typed otherwise (an
    /// enumeration of the same name as a class, `WarpStyle` in UXP's constants) or a
    /// method is no constructor by the docs.
    fn ctor_member_of(&self, obj: Node<'a>, scope: ScopeId, name: &'a str) -> Option<&'a str> {
        let ctor = self.documented_ctor(name)?;
        let t = self.certain_in(obj, scope)?;
        let ifaces = t.interfaces();
        if ifaces.is_empty() {
            return None;
        }
        for iface in ifaces {
            let m = self.member(iface, name)?;
            let property = !m.overloads.first().is_some_and(|s| s.is_method());
            if !property || member_type(m) != Some(&Type::Function) {
                return None;
            }
        }
        Some(ctor)
    }
}

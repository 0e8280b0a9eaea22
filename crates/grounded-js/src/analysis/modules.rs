//! Modules in the scope analysis: what an `import` statement binds and what each binding
//! holds, `require("m")` as a certain value, and the module requests the checker judges.
//!
//! Why bindings and not names: an import is a declaration like any other (corpus-format.md,
//! "Modules"). Read as nothing, `import http from "k6/http"` made `http` "declared
//! nowhere" and left `http.gett(url)` unjudged.
//!
//! Owns the reading of `import`/`export ... from` statements into bindings and records;
//! types a binding only from the corpus's `Module:` interfaces (a relative or unknown
//! module gives nothing certain). May import the parent `analysis`, `js::query`, `docs`
//! and `es`.

use tree_sitter::Node;

use super::*;

/// What an import binding takes from its module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportPart<'a> {
    /// `import * as http from "m"`: the module object.
    Namespace,
    /// `import http from "m"`: the module's default export.
    Default,
    /// `import { get } from "m"`, `import { get as g } from "m"`: the export `get`.
    Named(&'a str),
}

/// A module an `import` (or `export ... from`) statement names, as written.
#[derive(Debug, Clone)]
pub struct ModuleRequest<'a> {
    /// The specifier without its quotes; `None` when the source is no plain string.
    pub spec: Option<&'a str>,
    /// The source node (the string).
    pub source: Node<'a>,
    /// The named exports asked for: the node of each name as written, and the name.
    pub names: Vec<(Node<'a>, &'a str)>,
    /// The binding of the default export (`x` of `import x from "m"`, of `import {
    /// default as x }`), when the statement asks for it.
    pub default: Option<Node<'a>>,
}

/// The value of a plain string literal node's text (`"k6/http"`), without escapes.
pub fn literal_text(text: &str) -> Option<&str> {
    let inner = ['"', '\'']
        .iter()
        .find_map(|q| text.strip_prefix(*q)?.strip_suffix(*q))
        .filter(|_| text.len() >= 2)?;
    (!inner.contains('\\')).then_some(inner)
}

impl<'a> Analysis<'a> {
    /// Every `import` and `export ... from` statement's module, in document order.
    pub fn module_requests(&self) -> &[ModuleRequest<'a>] {
        &self.module_requests
    }

    /// Reads an `import` or `export ... from` statement: each import binding is declared
    /// in `scope` (the program) with what it takes from the module.
    pub(super) fn note_import(&mut self, node: Node<'a>, scope: ScopeId, p: &mut Pending<'a>) {
        let Some(source) = node.child_by_field_name("source") else {
            return;
        };
        let spec = literal_text(self.node_text(source));
        let mut names = Vec::new();
        let mut default = None;
        let mut c = node.walk();
        let kids: Vec<Node<'a>> = node.named_children(&mut c).collect();
        for kid in kids {
            match kid.kind() {
                "import_clause" => {
                    let mut c2 = kid.walk();
                    let parts: Vec<Node<'a>> = kid.named_children(&mut c2).collect();
                    for part in parts {
                        match part.kind() {
                            "identifier" => {
                                default = Some(part);
                                self.bind_import(scope, part, spec, ImportPart::Default, p)
                            }
                            "namespace_import" => {
                                let mut c3 = part.walk();
                                let id = part
                                    .named_children(&mut c3)
                                    .find(|n| n.kind() == "identifier");
                                if let Some(id) = id {
                                    self.bind_import(scope, id, spec, ImportPart::Namespace, p);
                                }
                            }
                            "named_imports" => {
                                self.named_list(part, scope, spec, true, &mut names, p);
                                default = default.or(self.default_in(part));
                            }
                            _ => {}
                        }
                    }
                }
                // `export { a, b as c } from "m"`: names asked of the module, bound nowhere.
                "export_clause" => self.named_list(kid, scope, spec, false, &mut names, p),
                _ => {}
            }
        }
        self.module_requests.push(ModuleRequest {
            spec,
            source,
            names,
            default,
        });
    }

    /// The `default` of `{ default as x }`, as written.
    fn default_in(&self, list: Node<'a>) -> Option<Node<'a>> {
        let mut c = list.walk();
        let found = list.named_children(&mut c).find_map(|s| {
            let name = s.child_by_field_name("name")?;
            let written = self.node_text(name);
            (literal_text(written).unwrap_or(written) == "default").then_some(name)
        });
        found
    }

    /// The specifiers of `{ a, b as c }`: each name asked of the module, and (for an
    /// import) bound under its local name.
    fn named_list(
        &mut self,
        list: Node<'a>,
        scope: ScopeId,
        spec: Option<&'a str>,
        bind: bool,
        names: &mut Vec<(Node<'a>, &'a str)>,
        p: &mut Pending<'a>,
    ) {
        let mut c = list.walk();
        let specs: Vec<Node<'a>> = list.named_children(&mut c).collect();
        for s in specs {
            let Some(name) = s.child_by_field_name("name") else {
                continue;
            };
            let written = self.node_text(name);
            // `import { "a-b" as ab }` (ES2022) names the export by a string.
            let imported = literal_text(written).unwrap_or(written);
            let local = s.child_by_field_name("alias").unwrap_or(name);
            if imported != "default" {
                names.push((name, imported));
            }
            if bind && local.kind() == "identifier" {
                let part = if imported == "default" {
                    ImportPart::Default
                } else {
                    ImportPart::Named(imported)
                };
                self.bind_import(scope, local, spec, part, p);
            }
        }
    }

    fn bind_import(
        &mut self,
        scope: ScopeId,
        local: Node<'a>,
        spec: Option<&'a str>,
        part: ImportPart<'a>,
        p: &mut Pending<'a>,
    ) {
        self.declare(scope, local, BindingKind::Import);
        let a = match spec {
            Some(spec) => Assign::Module(spec, part),
            None => Assign::Other,
        };
        p.assigns
            .push((self.node_text(local), scope, local.start_byte(), a));
    }

    /// What an import binding holds: the module object, its default export or one
    /// export, typed by the module's interface; `None` for a module the docs do not
    /// document (a project file, a bundled dependency) or an export that is no value of
    /// one certain type. A method export is a `Function`.
    pub(super) fn import_certain(&self, spec: &str, part: ImportPart<'a>) -> Option<Certain<'a>> {
        if let Some(exports) = self.relative_exports.get(spec) {
            let name = match part {
                ImportPart::Namespace => return None,
                ImportPart::Default => "default",
                ImportPart::Named(n) => n,
            };
            let iface = exports.get(name)?;
            let (k, _) = self.corpus.interfaces.get_key_value(iface.as_str())?;
            return Some(Certain::Interface(k.as_str()));
        }
        match part {
            ImportPart::Namespace => self.corpus.module_interface(spec).map(Certain::Interface),
            ImportPart::Default => self.corpus.module_default(spec).map(Certain::Interface),
            ImportPart::Named(name) => {
                let m = self.imported_member(spec, name)?;
                if m.overloads.first().is_some_and(|s| s.is_method()) {
                    Some(Certain::Builtin(Proto::Function))
                } else {
                    type_certain(member_type(m)?)
                }
            }
        }
    }

    /// What the project files this script imports by relative specifiers export, typed:
    /// per specifier as written, each export whose value that file's own typing makes
    /// certainly one documented interface (`export const doc = app.activeDocument`).
    /// Their import bindings are then typed the same, as a documented module's are.
    /// Only certain exports are given (the checker reads them from the project index).
    pub fn set_relative_exports(&mut self, exports: HashMap<String, HashMap<String, String>>) {
        self.relative_exports = exports;
        for b in &self.bindings {
            if !b.seeded {
                b.settled.set(0);
            }
        }
    }

    /// The typed exports of the project file `call` requires (`require("./lib")`), when
    /// the checker gave them ([`Analysis::set_relative_exports`]).
    pub(super) fn relative_require(
        &self,
        call: Node<'a>,
        scope: ScopeId,
    ) -> Option<&HashMap<String, String>> {
        if self.relative_exports.is_empty() || call.kind() != "call_expression" {
            return None;
        }
        self.relative_exports.get(self.require_spec(call, scope)?)
    }

    /// The documented export `name` of module `spec`.
    pub fn imported_member(&self, spec: &str, name: &'a str) -> Option<&'a Member> {
        let iface = self.corpus.module_interface(spec)?;
        self.member(iface, name)
    }

    /// The documented export an import binding names (`get` of `import { get } from
    /// "k6/http"`), for a call of it and for hover.
    pub fn import_of(&self, b: BindingId) -> Option<(&'a str, ImportPart<'a>)> {
        let bind = &self.bindings[b];
        if bind.kind != BindingKind::Import {
            return None;
        }
        bind.assigns.iter().find_map(|a| match *a {
            Assign::Module(spec, part) => Some((spec, part)),
            _ => None,
        })
    }

    /// [`Analysis::import_of`] of a binding met by name ([`Analysis::binding_at`]).
    pub fn binding_import(&self, b: &Binding<'a>) -> Option<(&'a str, ImportPart<'a>)> {
        if b.kind != BindingKind::Import {
            return None;
        }
        b.assigns.iter().find_map(|a| match *a {
            Assign::Module(spec, part) => Some((spec, part)),
            _ => None,
        })
    }

    /// The module `require("m")` loads, when `call` is such a call of the engine's
    /// `require` (the engine says `Modules: commonjs`, nothing declares `require`) with a
    /// plain string: its specifier.
    pub fn require_spec(&self, call: Node<'a>, scope: ScopeId) -> Option<&'a str> {
        if !self.corpus.engine.has_commonjs() {
            return None;
        }
        let f = self.head(call)?;
        if f.kind_id() != query::kind_ids().identifier || self.node_text(f) != "require" {
            return None;
        }
        if self.resolve("require", scope).is_some() || self.project_names.contains("require") {
            return None;
        }
        let args = self.tail(call)?;
        let mut c = args.walk();
        let first = args
            .named_children(&mut c)
            .find(|n| n.kind() != "comment")?;
        if first.kind() != "string" {
            return None;
        }
        literal_text(self.node_text(first))
    }
}

//! The statements that make a declaration file a module: `import`, `export` in its
//! forms, and `declare module "x" { }` blocks. They are read as [`Link`]s with their
//! specifiers as written; which module a specifier names is the parent `import`'s
//! business (it knows the files' paths).
//!
//! Why a module's declarations are kept apart: the importer once flattened every
//! module's exports into globals, so a bare `post(url)` passed with no import at all,
//! and two modules' `Response` interfaces merged into one.

use tree_sitter::Node;

use super::{line_of, Doc, ImportError, Reader};

impl<'a> Reader<'a> {
    /// Whether `ns` is the top level of the module being read.
    pub(super) fn at_module_top(&self, ns: &[String]) -> bool {
        self.module.is_some() && ns.len() == 1 && ns[0].starts_with('"')
    }

    pub(super) fn link(&mut self, l: Link, n: Node) {
        if let Some(m) = self.module {
            self.out.modules[m].links.push((l, line_of(n)));
        }
    }

    /// The specifier of a `source` string node, unquoted.
    fn spec_of(&self, n: Node) -> Option<String> {
        let t = self.text(n.child_by_field_name("source")?);
        let inner = t.get(1..t.len().saturating_sub(1))?;
        (!inner.is_empty()).then(|| inner.to_string())
    }

    /// A name of an export or import specifier: an identifier, or a string.
    fn spec_name(&self, n: Option<Node>) -> Option<String> {
        let n = n?;
        let t = self.text(n);
        Some(match n.kind() {
            "string" => t.get(1..t.len().saturating_sub(1))?.to_string(),
            _ => t.to_string(),
        })
    }

    /// `export ...` at a module's top level.
    pub(super) fn export(
        &mut self,
        n: Node,
        ns: &[String],
        doc: Doc,
        depth: usize,
    ) -> Result<(), ImportError> {
        let text = self.text(n);
        let rest = text.strip_prefix("export").unwrap_or(text).trim_start();
        if let Some(d) = n.child_by_field_name("declaration") {
            let before = self.out.decls.len();
            let saved = self.exporting;
            self.exporting = true;
            let r = self.statement(d, ns, doc, depth);
            self.exporting = saved;
            r?;
            // `export namespace N { }`: the namespace's object is the export (its
            // declarations are `N`'s members, named by their path).
            let mut spaces: Vec<String> = Vec::new();
            for d in &self.out.decls[before..] {
                if d.ns.len() >= 2 && d.ns[..1] == ns[..1] && !spaces.contains(&d.ns[1]) {
                    spaces.push(d.ns[1].clone());
                }
            }
            for sp in spaces {
                self.link(
                    Link::Export {
                        local: sp.clone(),
                        exported: sp,
                    },
                    n,
                );
            }
            if rest.starts_with("default") {
                // `export default function f()`, `export default class C`: the default
                // export is that declaration, and it is no named export.
                if let Some(name) = self.out.decls.get(before).map(|d| d.name.clone()) {
                    for d in &mut self.out.decls[before..] {
                        d.exported = false;
                    }
                    self.link(
                        Link::Export {
                            local: name,
                            exported: "default".into(),
                        },
                        n,
                    );
                }
            }
            return Ok(());
        }
        if rest.starts_with("type") && !rest.starts_with("type(") {
            // `export type { A } from "m"`: types only, no value a script imports.
            return Ok(());
        }
        if let Some(g) = rest
            .strip_prefix("as")
            .map(str::trim_start)
            .and_then(|r| r.strip_prefix("namespace"))
        {
            let g = g.trim().trim_end_matches(';').trim();
            if super::is_ident(g) {
                self.link(Link::Umd { global: g.into() }, n);
            }
            return Ok(());
        }
        if let Some(v) = rest.strip_prefix('=') {
            let v = v.trim().trim_end_matches(';').trim();
            if super::is_ident(v) {
                self.link(Link::Equals { local: v.into() }, n);
            } else {
                self.skip(n, "`export =` of an expression that is not a name");
            }
            return Ok(());
        }
        if rest.starts_with("default") {
            match n.child_by_field_name("value") {
                Some(v) if v.kind() == "identifier" => {
                    let local = self.text(v).to_string();
                    self.link(
                        Link::Export {
                            local,
                            exported: "default".into(),
                        },
                        n,
                    );
                }
                _ => self.skip(n, "a default export of an expression that is not a name"),
            }
            return Ok(());
        }
        let spec = self.spec_of(n);
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        if let Some(nsx) = kids.iter().find(|k| k.kind() == "namespace_export") {
            let name = self.spec_name(nsx.named_child(0));
            match (spec, name) {
                (Some(spec), Some(exported)) => self.link(Link::StarAs { spec, exported }, n),
                _ => self.skip(n, "an `export * as` this reader cannot follow"),
            }
            return Ok(());
        }
        if let Some(clause) = kids.iter().find(|k| k.kind() == "export_clause") {
            let mut c2 = clause.walk();
            let specs: Vec<Node> = clause
                .named_children(&mut c2)
                .filter(|k| k.kind() == "export_specifier")
                .collect();
            for s in specs {
                let Some(name) = self.spec_name(s.child_by_field_name("name")) else {
                    continue;
                };
                let exported = self
                    .spec_name(s.child_by_field_name("alias"))
                    .unwrap_or_else(|| name.clone());
                let l = match &spec {
                    Some(spec) => Link::ReExport {
                        spec: spec.clone(),
                        name,
                        exported,
                    },
                    None => Link::Export {
                        local: name,
                        exported,
                    },
                };
                self.link(l, s);
            }
            return Ok(());
        }
        if rest.starts_with('*') {
            match spec {
                Some(spec) => self.link(Link::Star { spec }, n),
                None => self.skip(n, "an `export *` with no module"),
            }
        }
        Ok(())
    }

    /// `import ...` at a module's top level: names the module's own declarations may
    /// refer to, and that its `export { }` may export again.
    pub(super) fn import(&mut self, n: Node) {
        let mut c = n.walk();
        let kids: Vec<Node> = n.named_children(&mut c).collect();
        if let Some(req) = kids.iter().find(|k| k.kind() == "import_require_clause") {
            // `import x = require("m")`.
            let local = req.named_child(0).map(|k| self.text(k).to_string());
            let spec = self.spec_of(*req);
            if let (Some(local), Some(spec)) = (local, spec) {
                self.link(Link::ImportAll { spec, local }, n);
            }
            return;
        }
        let Some(spec) = self.spec_of(n) else { return };
        let Some(clause) = kids.iter().find(|k| k.kind() == "import_clause") else {
            // `import "./global.js"`: read for its side effects (its globals), no name.
            self.link(
                Link::Import {
                    spec,
                    name: String::new(),
                    local: String::new(),
                },
                n,
            );
            return;
        };
        let mut c2 = clause.walk();
        for k in clause.named_children(&mut c2) {
            match k.kind() {
                "identifier" => {
                    let local = self.text(k).to_string();
                    self.link(
                        Link::Import {
                            spec: spec.clone(),
                            name: "default".into(),
                            local,
                        },
                        k,
                    );
                }
                "namespace_import" => {
                    if let Some(id) = k.named_child(0) {
                        let local = self.text(id).to_string();
                        self.link(
                            Link::ImportAll {
                                spec: spec.clone(),
                                local,
                            },
                            k,
                        );
                    }
                }
                "named_imports" => {
                    let mut c3 = k.walk();
                    let specs: Vec<Node> = k
                        .named_children(&mut c3)
                        .filter(|x| x.kind() == "import_specifier")
                        .collect();
                    for s in specs {
                        let Some(name) = self.spec_name(s.child_by_field_name("name")) else {
                            continue;
                        };
                        let local = self
                            .spec_name(s.child_by_field_name("alias"))
                            .unwrap_or_else(|| name.clone());
                        self.link(
                            Link::Import {
                                spec: spec.clone(),
                                name,
                                local,
                            },
                            s,
                        );
                    }
                }
                _ => {}
            }
        }
    }

    /// `declare module "x" { ... }`: a module of its own, whatever file it is in;
    /// `declare module Foo { }` is a namespace.
    pub(super) fn declare_module(
        &mut self,
        n: Node,
        ns: &[String],
        _doc: Doc,
        depth: usize,
    ) -> Result<(), ImportError> {
        let Some(name) = n.child_by_field_name("name") else {
            return Ok(());
        };
        if name.kind() != "string" {
            let mut path = ns.to_vec();
            path.extend(self.text(name).split('.').map(|s| s.trim().to_string()));
            if let Some(body) = n.child_by_field_name("body") {
                self.statements(body, &path, depth + 1)?;
            }
            return Ok(());
        }
        let t = self.text(name);
        let spec = t
            .get(1..t.len().saturating_sub(1))
            .unwrap_or("")
            .to_string();
        let Some(body) = n.child_by_field_name("body") else {
            self.skip(
                n,
                "a module declared without a body (`declare module \"x\";`): all it exports is `any`, so nothing of it is written",
            );
            return Ok(());
        };
        if spec.is_empty() || spec.contains('*') {
            self.skip(
                n,
                "a module pattern (`declare module \"*.css\"`): it names no one module",
            );
            return Ok(());
        }
        let key = module_key(&spec);
        // TypeScript: an ambient module that marks no export exports all it declares.
        let mut c = body.walk();
        let marks = body.named_children(&mut c).any(|k| {
            k.kind() == "export_statement" && {
                let t = self.text(k).trim_start_matches("export").trim_start();
                t.starts_with('{') || t.starts_with('=') || t.starts_with("default")
            }
        });
        self.out.modules.push(ModuleDecl {
            key: key.clone(),
            file: self.file,
            line: line_of(n),
            is_file: false,
            links: Vec::new(),
            implicit: !marks,
        });
        let saved = (self.module, self.exporting, self.implicit_export);
        self.module = Some(self.out.modules.len() - 1);
        self.exporting = false;
        self.implicit_export = !marks;
        let r = self.statements(body, &[key], depth + 1);
        (self.module, self.exporting, self.implicit_export) = saved;
        r
    }
}

/// A module's import or export statement, as written (specifiers unresolved).
#[derive(Debug, Clone, PartialEq)]
pub enum Link {
    /// `export { local as exported }`, `export default local`.
    Export {
        /// The name in the module's scope.
        local: String,
        /// The name it is exported as (`default` for the default export).
        exported: String,
    },
    /// `export { name as exported } from "spec"`.
    ReExport {
        /// The module it comes from.
        spec: String,
        /// Its name there.
        name: String,
        /// Its name here.
        exported: String,
    },
    /// `export * from "spec"`: every named export of `spec`.
    Star {
        /// The module.
        spec: String,
    },
    /// `export * as exported from "spec"`: the object of `spec`, as one export.
    StarAs {
        /// The module.
        spec: String,
        /// Its name here (`default` for `export * as default`).
        exported: String,
    },
    /// `export = local`: the module object is `local` (CommonJS).
    Equals {
        /// The name in the module's scope.
        local: String,
    },
    /// `export as namespace G`: the module is also the global `G` of scripts that
    /// import nothing (UMD).
    Umd {
        /// The global's name.
        global: String,
    },
    /// `import { name as local } from "spec"`, `import local from "spec"` (`default`).
    Import {
        /// The module.
        spec: String,
        /// Its export.
        name: String,
        /// The local name.
        local: String,
    },
    /// `import * as local from "spec"`, `import local = require("spec")`.
    ImportAll {
        /// The module.
        spec: String,
        /// The local name.
        local: String,
    },
}

/// A module the file declares: the file itself when it is an ES module (it has
/// `import` or `export` at its top level), or a `declare module "x" { }` block.
#[derive(Debug, Clone)]
pub struct ModuleDecl {
    /// The module as `Decl::ns` names it: its specifier in double quotes (`"k6/http"`).
    pub key: String,
    /// Index of the file.
    pub file: usize,
    /// 1-based line.
    pub line: usize,
    /// The file itself (its key given by where it lies), not a `declare module` block.
    pub is_file: bool,
    /// Its import and export statements, with their lines.
    pub links: Vec<(Link, usize)>,
    /// A `declare module` block that marks no export: everything in it is exported.
    pub implicit: bool,
}

/// The key of module `spec` as `Decl::ns` writes it: quoted, so that no namespace
/// (an identifier) is ever taken for a module.
pub fn module_key(spec: &str) -> String {
    format!("\"{spec}\"")
}

/// The specifier of a module key (`"k6/http"` → `k6/http`); `None` for a namespace.
pub fn module_spec(ns0: &str) -> Option<&str> {
    ns0.strip_prefix('"').and_then(|s| s.strip_suffix('"'))
}

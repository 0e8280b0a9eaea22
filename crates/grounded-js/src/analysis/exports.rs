//! What a script exports, when that is certain: the names its `export` statements give
//! (ES modules) or its `module.exports = { ... }` / `exports.x = ...` assignments give
//! (CommonJS), and the documented interface each exported value certainly holds.
//!
//! Why: a project file imported by a relative specifier is a module like a documented
//! one (issue 44, "their `export`s and `module.exports` read like the file's
//! declarations"): `import { formt } from "./util.js"` binds `undefined` when util.js
//! exports `format`, and fails far from the import. Why "when certain": a file whose
//! exports are computed (`module.exports[key] = ...`, `module.exports = make()`,
//! `Object.assign(exports, ...)`, `export *` from a module nobody documents) or that
//! mixes both systems may export any name, and calling a name it lacks would accuse
//! correct code. Such a file gives no [`Exports`] and nothing is judged against it.
//!
//! May import the parent `analysis` (bindings and typing) and tree-sitter nodes.

use std::collections::BTreeMap;

use tree_sitter::Node;

use super::*;

/// The module system whose forms a file's exports are written in. An importer is judged
/// against a file only in its own system: interop between the two (a named ES import of
/// a CommonJS file, `require` of an ES module) is the loader's business, not the docs'.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ExportForm {
    /// `export` statements (and `import`s: the file is an ES module).
    Esm,
    /// `module.exports = { ... }`, `module.exports.x = ...`, `exports.x = ...`.
    CommonJs,
}

/// A file's exports, certain: every name an importer can take from it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Exports {
    /// Which system the file exports in.
    pub form: ExportForm,
    /// Each exported name (`default` for `export default`), and the documented
    /// interface its value is certain to be, where the file's typing says so.
    pub names: BTreeMap<String, Option<String>>,
    /// The specifiers of `export * from "x"`: their exports are the file's too (the
    /// reader resolves them; one it cannot resolve makes the exports uncertain).
    pub star_from: Vec<String>,
}

impl<'a> Analysis<'a> {
    /// The script's exports, when they are certain (module docs); `None` when the file
    /// has no export form, mixes the two systems, does not parse, or computes any.
    pub fn exports(&self) -> Option<Exports> {
        // Both systems' words contain "export": a script without it exports nothing
        // and costs no walk.
        if !self.text.contains("export") {
            return None;
        }
        let root = self.tree.root_node();
        if root.has_error() {
            return None;
        }
        let esm = self.esm_exports(root)?;
        let cjs = if self.corpus.engine.has_commonjs() {
            self.commonjs_exports(root)?
        } else {
            None
        };
        match (esm, cjs) {
            (Some(e), None) => Some(e),
            (None, Some(c)) => Some(c),
            // Neither: a plain script, not written as a module. Both: a bundler's mix.
            _ => None,
        }
    }

    /// The module system the script is written in, when it is a module: an ES module
    /// (an `import` or `export` statement) or a CommonJS one (it names the engine's free
    /// `module` or `exports`), where the engine has that system; `None` for a plain
    /// script (one that only calls `require` is one). Unlike [`Analysis::exports`], true
    /// of any such file, certain exports or not: a module's top-level names are its own,
    /// a plain script's are globals.
    pub fn module_form(&self) -> Option<ExportForm> {
        let root = self.tree.root_node();
        if self.corpus.engine.has_esm() {
            let mut c = root.walk();
            let esm = root
                .named_children(&mut c)
                .any(|st| matches!(st.kind(), "import_statement" | "export_statement"));
            if esm {
                return Some(ExportForm::Esm);
            }
        }
        if !self.corpus.engine.has_commonjs()
            || !self.text.contains("module") && !self.text.contains("exports")
        {
            return None;
        }
        let declared = self
            .bindings
            .iter()
            .any(|b| matches!(b.name, "module" | "exports") && b.kind != BindingKind::Implicit);
        let free = ["module", "exports"].into_iter().any(|word| {
            self.text.match_indices(word).any(|(at, _)| {
                let end = at + word.len();
                root.descendant_for_byte_range(at, end).is_some_and(|n| {
                    n.kind() == "identifier" && n.start_byte() == at && n.end_byte() == end
                })
            })
        });
        (free && !declared).then_some(ExportForm::CommonJs)
    }

    /// The ES exports: `Ok(None)` when the file has no `import`/`export` statement
    /// (or the engine has no ES modules); `None` when one is not certain.
    fn esm_exports(&self, root: Node<'a>) -> Option<Option<Exports>> {
        if !self.corpus.engine.has_esm() {
            return Some(None);
        }
        let mut out = Exports {
            form: ExportForm::Esm,
            names: BTreeMap::new(),
            star_from: Vec::new(),
        };
        let mut module = false;
        let mut c = root.walk();
        for st in root.named_children(&mut c) {
            match st.kind() {
                "import_statement" => module = true,
                "export_statement" => {
                    module = true;
                    self.export_statement(st, &mut out)?;
                }
                _ => {}
            }
        }
        Some(module.then_some(out))
    }

    fn export_statement(&self, st: Node<'a>, out: &mut Exports) -> Option<()> {
        let source = st.child_by_field_name("source");
        let mut is_default = false;
        let mut listed = false;
        let mut c = st.walk();
        for kid in st.children(&mut c) {
            match kid.kind() {
                "default" => is_default = true,
                "export_clause" => {
                    listed = true;
                    let mut c2 = kid.walk();
                    for spec in kid.named_children(&mut c2) {
                        if spec.kind() != "export_specifier" {
                            continue;
                        }
                        let name = spec.child_by_field_name("name")?;
                        let alias = spec.child_by_field_name("alias").unwrap_or(name);
                        let exported = self.export_name(alias)?;
                        // `export { a }` of a local binding is typed as the binding;
                        // `export { a } from "m"` is another module's value.
                        let ty = match source {
                            None if name.kind() == "identifier" => {
                                self.program_interface(self.node_text(name))
                            }
                            _ => None,
                        };
                        out.names.insert(exported, ty);
                    }
                }
                "namespace_export" => {
                    listed = true;
                    let mut c2 = kid.walk();
                    let id = kid.named_children(&mut c2).next()?;
                    out.names.insert(self.export_name(id)?, None);
                }
                _ => {}
            }
        }
        if is_default {
            let ty = st
                .child_by_field_name("value")
                .and_then(|v| self.exported_interface(v));
            out.names.insert("default".into(), ty);
            return Some(());
        }
        if let Some(decl) = st.child_by_field_name("declaration") {
            return self.declared_exports(decl, out);
        }
        if !listed {
            // `export * from "m"`: the names of another module, read by whoever knows it.
            let spec = literal_text(self.node_text(source?))?;
            out.star_from.push(spec.to_string());
        }
        Some(())
    }

    /// The names `export function f`, `export class C`, `export const a = 1, b = 2`
    /// declare; a destructuring pattern other than plain names is not certain.
    fn declared_exports(&self, decl: Node<'a>, out: &mut Exports) -> Option<()> {
        match decl.kind() {
            "function_declaration" | "generator_function_declaration" | "class_declaration" => {
                let name = decl.child_by_field_name("name")?;
                out.names.insert(self.node_text(name).to_string(), None);
            }
            "lexical_declaration" | "variable_declaration" => {
                let mut c = decl.walk();
                for d in decl.named_children(&mut c) {
                    if d.kind() != "variable_declarator" {
                        continue;
                    }
                    let name = d.child_by_field_name("name")?;
                    if name.kind() != "identifier" {
                        return None;
                    }
                    let n = self.node_text(name);
                    out.names.insert(n.to_string(), self.program_interface(n));
                }
            }
            _ => return None,
        }
        Some(())
    }

    /// An exported name as written: an identifier, or a string (`export { a as "a-b" }`).
    fn export_name(&self, node: Node<'a>) -> Option<String> {
        let t = self.node_text(node);
        match node.kind() {
            "identifier" => Some(t.to_string()),
            "string" => literal_text(t).map(str::to_string),
            _ => None,
        }
    }

    /// The documented interface the program's binding `name` certainly holds.
    fn program_interface(&self, name: &str) -> Option<String> {
        let id = *self.scopes[0].names.get(name)?;
        match self.binding_certain_type(id)? {
            Certain::Interface(i) => Some(i.to_string()),
            _ => None,
        }
    }

    /// The documented interface an expression certainly holds.
    fn exported_interface(&self, node: Node<'a>) -> Option<String> {
        match self.certain(node)? {
            Certain::Interface(i) => Some(i.to_string()),
            _ => None,
        }
    }

    /// The CommonJS exports: `Ok(None)` when the file never names `module` or
    /// `exports`; `None` when a use of them is no plain export (module docs).
    fn commonjs_exports(&self, root: Node<'a>) -> Option<Option<Exports>> {
        let mut out = Exports {
            form: ExportForm::CommonJs,
            names: BTreeMap::new(),
            star_from: Vec::new(),
        };
        let mut any = false;
        let declared = self
            .bindings
            .iter()
            .any(|b| matches!(b.name, "module" | "exports") && b.kind != BindingKind::Implicit);
        for word in ["module", "exports"] {
            for (at, _) in self.text.match_indices(word) {
                let end = at + word.len();
                let Some(id) = root.descendant_for_byte_range(at, end).filter(|n| {
                    n.kind() == "identifier" && n.start_byte() == at && n.end_byte() == end
                }) else {
                    // Part of a longer word, a property name, a string or a comment.
                    continue;
                };
                if declared {
                    // The script's own `module` or `exports`: what it holds is unknown.
                    return None;
                }
                any = true;
                self.commonjs_use(id, word == "module", &mut out)?;
            }
        }
        Some(any.then_some(out))
    }

    /// One use of `module` or `exports`: a plain export adds its name; anything else is
    /// not certain (`module.exports = make()`, `exports[k] = v`, `Object.assign(exports,
    /// ...)`, a read of `module.id`).
    fn commonjs_use(&self, id: Node<'a>, is_module: bool, out: &mut Exports) -> Option<()> {
        let mut target = id;
        if is_module {
            // `module.exports`: the exports object.
            let m = id.parent().filter(|p| self.is_object_of(*p, id))?;
            if self.property_name(m)? != "exports" {
                return None;
            }
            target = m;
            let parent = m.parent()?;
            if parent.kind() == "assignment_expression"
                && parent.child_by_field_name("left") == Some(m)
            {
                return self.exports_object(parent.child_by_field_name("right")?, out);
            }
        }
        // `<exports>.x = value`, `<exports>["x"] = value`.
        let m = target.parent().filter(|p| self.is_object_of(*p, target))?;
        let name = self.property_name(m)?;
        let assign = m
            .parent()
            .filter(|p| p.kind() == "assignment_expression")
            .filter(|p| p.child_by_field_name("left") == Some(m))?;
        let ty = assign
            .child_by_field_name("right")
            .and_then(|v| self.exported_interface(v));
        out.names.insert(name.to_string(), ty);
        Some(())
    }

    /// `module.exports = { a, b: f, c() {} }`: each key; a spread or computed key is not
    /// certain, nor is a value other than an object literal.
    fn exports_object(&self, obj: Node<'a>, out: &mut Exports) -> Option<()> {
        if obj.kind() != "object" {
            return None;
        }
        let mut c = obj.walk();
        for kid in obj.named_children(&mut c) {
            match kid.kind() {
                "shorthand_property_identifier" => {
                    let n = self.node_text(kid);
                    out.names.insert(n.to_string(), self.program_interface(n));
                }
                "pair" => {
                    let key = kid.child_by_field_name("key")?;
                    let name = self.key_name(key)?;
                    let ty = kid
                        .child_by_field_name("value")
                        .and_then(|v| self.exported_interface(v));
                    out.names.insert(name, ty);
                }
                "method_definition" => {
                    let key = kid.child_by_field_name("name")?;
                    out.names.insert(self.key_name(key)?, None);
                }
                "comment" => {}
                _ => return None,
            }
        }
        Some(())
    }

    /// A literal object key: `a`, `"a"`.
    fn key_name(&self, key: Node<'a>) -> Option<String> {
        let t = self.node_text(key);
        match key.kind() {
            "property_identifier" => Some(t.to_string()),
            "string" => literal_text(t).map(str::to_string),
            _ => None,
        }
    }

    /// Whether `m` is a member or subscript expression whose object is `obj`.
    fn is_object_of(&self, m: Node<'a>, obj: Node<'a>) -> bool {
        matches!(m.kind(), "member_expression" | "subscript_expression")
            && m.child_by_field_name("object") == Some(obj)
    }

    /// The member `m` names: `x` of `o.x`, `"x"` of `o["x"]`; `None` when computed.
    fn property_name(&self, m: Node<'a>) -> Option<&'a str> {
        match m.kind() {
            "member_expression" => Some(self.node_text(m.child_by_field_name("property")?)),
            "subscript_expression" => {
                let index = m.child_by_field_name("index")?;
                (index.kind() == "string")
                    .then(|| literal_text(self.node_text(index)))
                    .flatten()
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exports_of(modules: &str, text: &str) -> Option<(ExportForm, Vec<String>, Vec<String>)> {
        let engine = format!("# Engine\n\nECMAScript: 2020\nModules: {modules}\n");
        let c = Corpus::from_texts(&[("e.md", engine.as_str())]).unwrap();
        let tree = crate::parse(text);
        let a = Analysis::new(&c, text, &tree);
        let e = a.exports()?;
        Some((e.form, e.names.keys().cloned().collect(), e.star_from))
    }

    #[test]
    fn every_es_export_form_names_its_exports() {
        let (form, names, stars) = exports_of(
            "esm commonjs",
            "export function f() {}\nexport class C {}\nexport const a = 1, b = 2;\nlet x;\n\
             export { x as y, x as \"z-z\" };\nexport * as ns from \"m\";\nexport { q } from \"./q.js\";\n\
             export * from \"./all.js\";\nexport default 3;\n",
        )
        .unwrap();
        assert_eq!(form, ExportForm::Esm);
        assert_eq!(
            names,
            ["C", "a", "b", "default", "f", "ns", "q", "y", "z-z"].map(String::from)
        );
        assert_eq!(stars, ["./all.js"]);
        // A module that says it exports nothing is certain too.
        assert_eq!(
            exports_of("esm", "import \"./x.js\";\nexport {};\n").map(|e| e.1),
            Some(vec![])
        );
    }

    #[test]
    fn commonjs_exports_are_read_only_from_plain_assignments() {
        let (form, names, _) = exports_of(
            "esm commonjs",
            "module.exports = { a, b: 1, \"c\": 2, d() {} };\nexports.e = 1;\nmodule.exports.f = 2;\nexports[\"g\"] = 3;\n",
        )
        .unwrap();
        assert_eq!(form, ExportForm::CommonJs);
        assert_eq!(names, ["a", "b", "c", "d", "e", "f", "g"].map(String::from));
        for uncertain in [
            "module.exports[k] = 1;\n",
            "module.exports = make();\n",
            "module.exports = { ...o };\n",
            "module.exports = { [k]: 1 };\n",
            "Object.assign(module.exports, o);\n",
            "exports.a = 1;\nif (module.id) {}\n",
            "var exports = {};\nexports.a = 1;\n",
            "export const a = 1;\nexports.b = 2;\n",
            "export const a = ;\n",
            "export * from m;\n",
            "export const { a, b: [c] } = o;\n",
            "function f() {}\n",
        ] {
            assert_eq!(exports_of("esm commonjs", uncertain), None, "{uncertain}");
        }
        // Without CommonJS, `module.exports` is an ordinary name: no export form.
        assert_eq!(exports_of("esm", "module.exports = { a };\n"), None);
    }
}

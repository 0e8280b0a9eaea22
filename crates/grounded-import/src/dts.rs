//! Reading one `.d.ts` file: tree-sitter-typescript's tree to the importer's own
//! declarations ([`Decl`]), with their doc comments. Knows TypeScript's syntax only:
//! which declaration means what in the corpus is `map`'s business.
//!
//! Imports nothing of the crate but the parent `import` (for [`super::ImportError`]).

use tree_sitter::{Node, Parser};

pub use super::text::Doc;
use super::text::{doc_before, first_error, reference_path, work_around};
use super::ImportError;

mod links;
mod types;

pub use links::{module_key, module_spec, Link, ModuleDecl};
pub use types::literal;
use types::literal_value;

/// How deeply types and namespaces may nest before the reader gives up on the part
/// (`Array<Array<...>>` ten thousand deep would otherwise overflow the stack, which no
/// guard catches).
const MAX_DEPTH: usize = 64;

/// A type, as written.
#[derive(Debug, Clone)]
pub enum Ty {
    /// A predefined or literal type, by its primitive name (`string`, `number`,
    /// `boolean`, `void`, `any`, `unknown`, `object`, `null`, `undefined`, `never`, ...).
    Prim(String),
    /// A type known only by its primitive (an enum value's `string` or `number`, a
    /// `true` literal's `boolean`, a template literal type's `string`).
    Lit(&'static str),
    /// A string or number literal type, as the corpus writes it (`"TEXT"`, `3`): kept,
    /// because modern typings discriminate unions by them (`readonly type: "TEXT"`).
    Literal(String),
    /// A named type, `A` or `A.B.C`, with its type arguments.
    Ref(Vec<String>, Vec<Ty>),
    /// `T[]`, `readonly T[]`.
    Array(Box<Ty>),
    /// `[A, B]`.
    Tuple(Vec<Ty>),
    /// `A | B`.
    Union(Vec<Ty>),
    /// A function type: its parameters and return type (`(node: SceneNode) =>
    /// boolean`), kept because a callback's parameters are typed by it.
    Func(Vec<ParamDecl>, Box<Ty>),
    /// A constructor type (`new (...) => T`): `Function` in the corpus.
    Ctor,
    /// The object of module `key` (as `Decl::ns` names modules): `export * as ns`.
    Module(String),
    /// `{ ... }`: the members of an object type.
    Object(Vec<MemberDecl>),
    /// `typeof A.B`.
    Query(Vec<String>),
    /// `this`.
    This,
    /// Anything else, by its node kind (conditional, mapped, keyof, intersection...).
    Other(String),
}

/// What a member is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    /// A property or field.
    Prop,
    /// A method.
    Method,
    /// A `get` accessor.
    Getter,
    /// A `set` accessor.
    Setter,
    /// An enum value.
    EnumValue,
    /// A class constructor or an interface's construct signature.
    Construct,
    /// A call signature.
    Call,
    /// An index signature; `name` is its key type (`string` or `number`).
    Index,
}

/// A parameter.
#[derive(Debug, Clone)]
pub struct ParamDecl {
    /// Its name (`arg1` for a destructuring pattern).
    pub name: String,
    /// Its type, when written.
    pub ty: Option<Ty>,
    /// `?` or a default.
    pub optional: bool,
    /// `...rest`.
    pub rest: bool,
}

/// A member of an interface, class, enum or object type.
#[derive(Debug, Clone)]
pub struct MemberDecl {
    /// Its name (`None` when it is not a plain name: computed, or a string that is not
    /// an identifier).
    pub name: Option<String>,
    /// The name as written, for the summary.
    pub raw: String,
    /// What it is.
    pub kind: MemberKind,
    /// `static`.
    pub is_static: bool,
    /// `readonly`.
    pub readonly: bool,
    /// `private` or `protected`.
    pub hidden: bool,
    /// Parameters of a method, accessor or signature.
    pub params: Vec<ParamDecl>,
    /// Its type (a property's, a method's return, an enum value's primitive).
    pub ty: Option<Ty>,
    /// Its doc comment.
    pub doc: Doc,
    /// 1-based line.
    pub line: usize,
    /// The namespace path its types are written in, when it is not its interface's
    /// (a module's export re-exported by another module).
    pub ctx: Option<Vec<String>>,
}

/// What a declaration is.
#[derive(Debug, Clone)]
pub enum DeclKind {
    /// `interface`.
    Interface,
    /// `class`.
    Class,
    /// `enum`.
    Enum,
    /// `type X = ...`.
    Alias(Ty),
    /// `var`, `let`, `const`, with its type.
    Var(Option<Ty>),
    /// A function signature (one overload).
    Function,
}

/// One declaration of a file, its namespace path flattened into `ns`.
#[derive(Debug, Clone)]
pub struct Decl {
    /// What it is.
    pub kind: DeclKind,
    /// Its own name.
    pub name: String,
    /// The namespaces it is declared in, outermost first.
    pub ns: Vec<String>,
    /// Index of its file in the import's file list.
    pub file: usize,
    /// 1-based line.
    pub line: usize,
    /// Its doc comment.
    pub doc: Doc,
    /// `extends` / `implements` types.
    pub parents: Vec<Ty>,
    /// Members (interface, class, enum, object alias), or the function's one overload
    /// as a `Method` member.
    pub members: Vec<MemberDecl>,
    /// `abstract class`: TypeScript gives it no constructor a script may call.
    pub is_abstract: bool,
    /// Declared with `export` (or inside a `declare module` block that exports all):
    /// a named export of the module its `ns` begins with.
    pub exported: bool,
}

impl Decl {
    /// A declaration the import makes itself, of `kind`, `name` in `ns`, placed at
    /// `file` and `line`: no doc, parents or members, not abstract.
    pub(crate) fn made(
        kind: DeclKind,
        name: String,
        ns: Vec<String>,
        file: usize,
        line: usize,
        exported: bool,
    ) -> Decl {
        Decl {
            kind,
            name,
            ns,
            file,
            line,
            doc: Doc::default(),
            parents: Vec::new(),
            members: Vec::new(),
            is_abstract: false,
            exported,
        }
    }
}

/// A declaration the reader saw and did not take, with why.
#[derive(Debug, Clone)]
pub struct Skip {
    /// Index of the file.
    pub file: usize,
    /// 1-based line.
    pub line: usize,
    /// What, as written (`declare module "x"`).
    pub what: String,
    /// Why.
    pub why: String,
}

/// What one file gives.
#[derive(Debug, Default)]
pub struct FileDecls {
    /// The modules it declares, the file's own first.
    pub modules: Vec<ModuleDecl>,
    /// `/// <reference path="...">` targets with their lines.
    pub references: Vec<(String, usize)>,
    /// Declarations.
    pub decls: Vec<Decl>,
    /// What was not taken.
    pub skipped: Vec<Skip>,
}

/// Parses `text` (file number `file`, shown as `shown` in errors). A syntax error or a
/// statement that is not a declaration is an error naming the line. A file with
/// `import` or `export` at its top level is the module `spec` (its declarations are
/// that module's, not globals).
pub fn read(text: &str, file: usize, shown: &str, spec: &str) -> Result<FileDecls, ImportError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into())
        .map_err(|e| ImportError::new(shown, 0, format!("cannot load the parser: {e}")))?;
    let (fixed, masked) = work_around(text);
    let text = fixed.as_str();
    let tree = parser
        .parse(text, None)
        .ok_or_else(|| ImportError::new(shown, 0, "the parser gave up"))?;
    let root = tree.root_node();
    if root.has_error() {
        let (line, what) = first_error(root, text);
        return Err(ImportError::new(
            shown,
            line,
            format!(
                "syntax error: {what}; this is not a TypeScript declaration file tsc would read"
            ),
        ));
    }
    let mut r = Reader {
        src: text,
        masked,
        file,
        shown,
        out: FileDecls::default(),
        module: None,
        exporting: false,
        implicit_export: false,
    };
    let mut c = root.walk();
    let is_module = root
        .named_children(&mut c)
        .any(|k| matches!(k.kind(), "import_statement" | "export_statement"));
    if is_module {
        let key = module_key(spec);
        r.out.modules.push(ModuleDecl {
            key: key.clone(),
            file,
            line: 1,
            is_file: true,
            links: Vec::new(),
            implicit: false,
        });
        r.module = Some(0);
        r.statements(root, &[key], 0)?;
    } else {
        r.statements(root, &[], 0)?;
    }
    Ok(r.out)
}

struct Reader<'a> {
    src: &'a str,
    masked: Vec<usize>,
    file: usize,
    shown: &'a str,
    out: FileDecls,
    /// The module whose top level is being read (index into `out.modules`).
    module: Option<usize>,
    /// Inside `export <declaration>` at a module's top level.
    exporting: bool,
    /// Inside a `declare module` block that marks no export: all it declares is
    /// exported (TypeScript's rule for ambient modules).
    implicit_export: bool,
}

fn line_of(n: Node) -> usize {
    n.start_position().row + 1
}

impl<'a> Reader<'a> {
    fn text(&self, n: Node) -> &'a str {
        if n.byte_range().len() == 5 && self.masked.binary_search(&n.start_byte()).is_ok() {
            return "using";
        }
        self.src.get(n.byte_range()).unwrap_or("")
    }

    fn skip(&mut self, n: Node, why: &str) {
        let what: String = self
            .text(n)
            .lines()
            .next()
            .unwrap_or("")
            .chars()
            .take(60)
            .collect();
        self.out.skipped.push(Skip {
            file: self.file,
            line: line_of(n),
            what: what.trim().trim_end_matches('{').trim().to_string(),
            why: why.to_string(),
        });
    }

    /// The statements of a program or namespace body.
    fn statements(&mut self, parent: Node, ns: &[String], depth: usize) -> Result<(), ImportError> {
        if depth > MAX_DEPTH {
            self.skip(parent, "namespaces nested too deeply");
            return Ok(());
        }
        let mut c = parent.walk();
        let kids: Vec<Node> = parent.named_children(&mut c).collect();
        for (i, n) in kids.iter().enumerate() {
            let doc = doc_before(&kids, i, self.src);
            self.statement(*n, ns, doc, depth)?;
        }
        Ok(())
    }

    fn statement(
        &mut self,
        n: Node,
        ns: &[String],
        doc: Doc,
        depth: usize,
    ) -> Result<(), ImportError> {
        match n.kind() {
            "comment" => {
                let t = self.text(n);
                if let Some(p) = reference_path(t) {
                    self.out.references.push((p, line_of(n)));
                }
            }
            "ambient_declaration" => {
                let mut c = n.walk();
                let kids: Vec<Node> = n.named_children(&mut c).collect();
                if n.child(1).is_some_and(|k| k.kind() == "global") {
                    // `declare global { ... }`: its declarations are global.
                    if let Some(b) = kids.iter().find(|k| k.kind() == "statement_block") {
                        let saved = (self.module.take(), self.exporting, self.implicit_export);
                        self.exporting = false;
                        self.implicit_export = false;
                        let r = self.statements(*b, &[], depth + 1);
                        (self.module, self.exporting, self.implicit_export) = saved;
                        r?;
                    }
                    return Ok(());
                }
                for k in kids {
                    self.statement(k, ns, doc.clone(), depth)?;
                }
            }
            "export_statement" if self.at_module_top(ns) => self.export(n, ns, doc, depth)?,
            "export_statement" => {
                if let Some(d) = n.child_by_field_name("declaration") {
                    self.statement(d, ns, doc, depth)?;
                }
                // `export {}` and `export = X` declare nothing.
            }
            "internal_module" => {
                let Some(name) = n.child_by_field_name("name") else {
                    return Ok(());
                };
                let mut path = ns.to_vec();
                path.extend(self.text(name).split('.').map(|s| s.trim().to_string()));
                if let Some(body) = n.child_by_field_name("body") {
                    self.statements(body, &path, depth + 1)?;
                }
            }
            "module" => self.declare_module(n, ns, doc, depth)?,
            "import_statement" if self.at_module_top(ns) => self.import(n),
            "import_statement" | "import_alias" => {
                self.skip(n, "an import outside a module: it binds nothing a script sees")
            }
            "interface_declaration" | "class_declaration" | "abstract_class_declaration" => {
                let kind = if n.kind() == "interface_declaration" {
                    DeclKind::Interface
                } else {
                    DeclKind::Class
                };
                let name = n.child_by_field_name("name").map(|x| self.text(x).to_string());
                let mut parents = Vec::new();
                let mut c = n.walk();
                for k in n.named_children(&mut c) {
                    match k.kind() {
                        "extends_type_clause" | "class_heritage" => {
                            self.heritage(k, &mut parents, depth)
                        }
                        _ => {}
                    }
                }
                let members = match n.child_by_field_name("body") {
                    Some(b) => self.members(b, depth),
                    None => Vec::new(),
                };
                if let Some(name) = name {
                    self.push(kind, name, ns, n, doc, parents, members);
                    if n.kind() == "abstract_class_declaration" {
                        if let Some(d) = self.out.decls.last_mut() {
                            d.is_abstract = true;
                        }
                    }
                }
            }
            "enum_declaration" => {
                let name = n.child_by_field_name("name").map(|x| self.text(x).to_string());
                let members = match n.child_by_field_name("body") {
                    Some(b) => self.enum_members(b),
                    None => Vec::new(),
                };
                if let Some(name) = name {
                    self.push(DeclKind::Enum, name, ns, n, doc, Vec::new(), members);
                }
            }
            "type_alias_declaration" => {
                let name = n.child_by_field_name("name").map(|x| self.text(x).to_string());
                let value = n.child_by_field_name("value");
                if let (Some(name), Some(v)) = (name, value) {
                    let ty = self.ty(v, depth);
                    self.push(DeclKind::Alias(ty), name, ns, n, doc, Vec::new(), Vec::new());
                }
            }
            "variable_declaration" | "lexical_declaration" => {
                let mut c = n.walk();
                for d in n.named_children(&mut c) {
                    if d.kind() != "variable_declarator" {
                        continue;
                    }
                    let Some(name) = d.child_by_field_name("name") else {
                        continue;
                    };
                    // `export const TLS_1_2 = "tls1.2";`: TypeScript allows a literal
                    // initializer in a declaration file (it is the constant's type); the
                    // published k6 typings stopped the whole import here.
                    let lit = match d.child_by_field_name("value") {
                        None => None,
                        Some(v) => match literal_value(v, self.text(v)) {
                            Some(t) => Some(t),
                            None => {
                                return Err(ImportError::new(
                                    self.shown,
                                    line_of(d),
                                    "a variable with an initializer that is not a literal: a declaration file declares values without them (this looks like a script, not a .d.ts)",
                                ))
                            }
                        },
                    };
                    if name.kind() != "identifier" {
                        self.skip(d, "a destructuring declaration names no one global");
                        continue;
                    }
                    let ty = d
                        .child_by_field_name("type")
                        .and_then(|t| t.named_child(0))
                        .map(|t| self.ty(t, depth))
                        .or(lit);
                    let name = self.text(name).to_string();
                    self.push(DeclKind::Var(ty), name, ns, d, doc.clone(), Vec::new(), Vec::new());
                }
            }
            "function_signature" => {
                let Some(name) = n.child_by_field_name("name") else {
                    return Ok(());
                };
                let name = self.text(name).to_string();
                let m = self.callable(n, Some(name.clone()), MemberKind::Method, doc.clone(), depth);
                self.push(DeclKind::Function, name, ns, n, doc, Vec::new(), vec![m]);
            }
            "empty_statement" => {}
            // Inside a namespace, `namespace B { }` is read as an expression statement.
            "expression_statement"
                if n.named_child_count() == 1
                    && n.named_child(0).is_some_and(|k| k.kind() == "internal_module") =>
            {
                if let Some(k) = n.named_child(0) {
                    self.statement(k, ns, doc, depth)?;
                }
            }
            "function_declaration" => {
                return Err(ImportError::new(
                    self.shown,
                    line_of(n),
                    "a function with a body: a declaration file declares functions without bodies (this looks like a script, not a .d.ts)",
                ))
            }
            k => {
                return Err(ImportError::new(
                    self.shown,
                    line_of(n),
                    format!("`{k}` is not a declaration: a declaration file holds declarations only (this looks like a script, not a .d.ts)"),
                ))
            }
        }
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        kind: DeclKind,
        name: String,
        ns: &[String],
        n: Node,
        doc: Doc,
        parents: Vec<Ty>,
        members: Vec<MemberDecl>,
    ) {
        self.out.decls.push(Decl {
            kind,
            name,
            ns: ns.to_vec(),
            file: self.file,
            line: line_of(n),
            doc,
            parents,
            members,
            is_abstract: false,
            exported: self.exporting
                || (self.implicit_export && ns.len() == 1 && ns[0].starts_with('"')),
        });
    }

    fn heritage(&mut self, n: Node, out: &mut Vec<Ty>, depth: usize) {
        let mut c = n.walk();
        for k in n.named_children(&mut c) {
            match k.kind() {
                "extends_clause" | "implements_clause" => self.heritage(k, out, depth),
                // A class's `extends Array<Layer>`: the arguments follow the value.
                "type_arguments" => {
                    let mut c2 = k.walk();
                    let args: Vec<Ty> = k
                        .named_children(&mut c2)
                        .map(|a| self.ty(a, depth + 1))
                        .collect();
                    if let Some(Ty::Ref(_, slot)) = out.last_mut() {
                        if slot.is_empty() {
                            *slot = args;
                        }
                    }
                }
                _ => {
                    let t = match k.kind() {
                        // A class's `extends` is a value expression: `A` or `A.B`.
                        "identifier" | "member_expression" => Ty::Ref(
                            self.text(k)
                                .split('.')
                                .map(|s| s.trim().to_string())
                                .collect(),
                            Vec::new(),
                        ),
                        _ => self.ty(k, depth),
                    };
                    out.push(t);
                }
            }
        }
    }

    fn members(&mut self, body: Node, depth: usize) -> Vec<MemberDecl> {
        let mut c = body.walk();
        let kids: Vec<Node> = body.named_children(&mut c).collect();
        let mut out = Vec::new();
        for (i, n) in kids.iter().enumerate() {
            let doc = doc_before(&kids, i, self.src);
            if let Some(m) = self.member(*n, doc, depth) {
                out.push(m);
            }
        }
        out
    }

    fn member(&mut self, n: Node, doc: Doc, depth: usize) -> Option<MemberDecl> {
        let mut flags = (false, false, false, None::<MemberKind>); // static, readonly, hidden, accessor
        let mut c = n.walk();
        for k in n.children(&mut c) {
            match k.kind() {
                "static" => flags.0 = true,
                "readonly" => flags.1 = true,
                "accessibility_modifier" => {
                    let t = self.text(k);
                    flags.2 = t == "private" || t == "protected";
                }
                "get" => flags.3 = Some(MemberKind::Getter),
                "set" => flags.3 = Some(MemberKind::Setter),
                _ => {}
            }
        }
        let name_node = n.child_by_field_name("name");
        let name = name_node.and_then(|x| self.member_name(x));
        let raw = name_node
            .map(|x| self.text(x).to_string())
            .unwrap_or_default();
        let mut m = match n.kind() {
            "property_signature" | "public_field_definition" => {
                let ty = n
                    .child_by_field_name("type")
                    .and_then(|t| t.named_child(0))
                    .map(|t| self.ty(t, depth));
                MemberDecl {
                    name,
                    raw,
                    kind: MemberKind::Prop,
                    is_static: false,
                    readonly: false,
                    hidden: false,
                    params: Vec::new(),
                    ty,
                    doc,
                    line: line_of(n),
                    ctx: None,
                }
            }
            "method_signature" | "method_definition" | "abstract_method_signature" => {
                let kind = if name.as_deref() == Some("constructor") {
                    MemberKind::Construct
                } else {
                    flags.3.unwrap_or(MemberKind::Method)
                };
                let mut m = self.callable(n, name, kind, doc, depth);
                m.raw = raw;
                m
            }
            "construct_signature" => self.callable(n, None, MemberKind::Construct, doc, depth),
            "call_signature" => self.callable(n, None, MemberKind::Call, doc, depth),
            "index_signature" => {
                let key = n
                    .child_by_field_name("index_type")
                    .map(|k| self.text(k).to_string());
                let ty = n
                    .child_by_field_name("type")
                    .and_then(|t| t.named_child(0))
                    .map(|t| self.ty(t, depth));
                MemberDecl {
                    name: key,
                    raw: "[index]".into(),
                    kind: MemberKind::Index,
                    is_static: false,
                    readonly: false,
                    hidden: false,
                    params: Vec::new(),
                    ty,
                    doc,
                    line: line_of(n),
                    ctx: None,
                }
            }
            _ => return None,
        };
        m.is_static = flags.0;
        m.readonly |= flags.1;
        m.hidden = flags.2;
        Some(m)
    }

    /// A member name: an identifier, or a string literal that holds one.
    fn member_name(&self, n: Node) -> Option<String> {
        let t = self.text(n);
        let t = match n.kind() {
            "string" => t.get(1..t.len().saturating_sub(1)).unwrap_or(""),
            "property_identifier" | "identifier" | "private_property_identifier" => t,
            _ => return None,
        };
        is_ident(t).then(|| t.to_string())
    }

    fn callable(
        &mut self,
        n: Node,
        name: Option<String>,
        kind: MemberKind,
        doc: Doc,
        depth: usize,
    ) -> MemberDecl {
        let mut params = Vec::new();
        if let Some(ps) = n.child_by_field_name("parameters") {
            let mut c = ps.walk();
            for (i, p) in ps.named_children(&mut c).enumerate() {
                if !matches!(p.kind(), "required_parameter" | "optional_parameter") {
                    continue;
                }
                let pat = p.child_by_field_name("pattern");
                let (pname, rest) = match pat {
                    Some(x) if x.kind() == "this" => continue,
                    Some(x) if x.kind() == "identifier" => (self.text(x).to_string(), false),
                    Some(x) if x.kind() == "rest_pattern" => {
                        let inner = x.named_child(0).map(|y| self.text(y)).unwrap_or("");
                        let nm = if is_ident(inner) {
                            inner.to_string()
                        } else {
                            format!("arg{}", i + 1)
                        };
                        (nm, true)
                    }
                    _ => (format!("arg{}", i + 1), false),
                };
                let ty = p
                    .child_by_field_name("type")
                    .and_then(|t| t.named_child(0))
                    .map(|t| self.ty(t, depth));
                params.push(ParamDecl {
                    name: pname,
                    ty,
                    optional: p.kind() == "optional_parameter"
                        || p.child_by_field_name("value").is_some(),
                    rest,
                });
            }
        }
        let ret = n
            .child_by_field_name("return_type")
            .or_else(|| n.child_by_field_name("type"))
            .map(|t| match t.kind() {
                "type_predicate_annotation" | "asserts_annotation" => Ty::Prim("boolean".into()),
                "type_annotation" => t
                    .named_child(0)
                    .map(|x| self.ty(x, depth))
                    .unwrap_or(Ty::Prim("any".into())),
                _ => self.ty(t, depth),
            });
        MemberDecl {
            name,
            raw: String::new(),
            kind,
            is_static: false,
            readonly: false,
            hidden: false,
            params,
            ty: ret,
            doc,
            line: line_of(n),
            ctx: None,
        }
    }

    fn enum_members(&mut self, body: Node) -> Vec<MemberDecl> {
        let mut c = body.walk();
        let kids: Vec<Node> = body.named_children(&mut c).collect();
        let mut out = Vec::new();
        for (i, n) in kids.iter().enumerate() {
            let (name_node, value) = match n.kind() {
                "enum_assignment" => (
                    n.child_by_field_name("name"),
                    n.child_by_field_name("value"),
                ),
                "property_identifier" | "string" => (Some(*n), None),
                _ => continue,
            };
            let Some(name_node) = name_node else { continue };
            let prim = match value.map(|v| v.kind()) {
                Some("string") | Some("template_string") => "string",
                _ => "number",
            };
            out.push(MemberDecl {
                name: self.member_name(name_node),
                raw: self.text(name_node).to_string(),
                kind: MemberKind::EnumValue,
                is_static: false,
                readonly: true,
                hidden: false,
                params: Vec::new(),
                ty: Some(Ty::Lit(prim)),
                doc: doc_before(&kids, i, self.src),
                line: line_of(*n),
                ctx: None,
            });
        }
        out
    }
}

/// Whether `s` is a JavaScript identifier as the corpus format defines it.
pub fn is_ident(s: &str) -> bool {
    let mut cs = s.chars();
    matches!(cs.next(), Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

//! Types as written: tree-sitter's type nodes to [`Ty`], and literal types as the
//! corpus writes them.

use tree_sitter::Node;

use super::{Doc, MemberKind, Reader, Ty, MAX_DEPTH};

impl<'a> Reader<'a> {
    pub(super) fn ty(&mut self, n: Node, depth: usize) -> Ty {
        if depth > MAX_DEPTH {
            return Ty::Other("nested too deeply".into());
        }
        let d = depth + 1;
        let list = |r: &mut Self, n: Node| -> Vec<Ty> {
            let mut c = n.walk();
            let kids: Vec<Node> = n.named_children(&mut c).collect();
            kids.into_iter().map(|k| r.ty(k, d)).collect()
        };
        if matches!(n.kind(), "member_expression" | "nested_type_identifier")
            && self.text(n).starts_with("import(")
        {
            return self.import_type(n);
        }
        match n.kind() {
            "predefined_type" => Ty::Prim(self.text(n).to_string()),
            "literal_type" => match n.named_child(0).map(|k| k.kind()) {
                Some("string") | Some("number") | Some("unary_expression") => {
                    literal(self.text(n)).unwrap_or(Ty::Lit("string"))
                }
                Some("true") | Some("false") => Ty::Lit("boolean"),
                Some("null") => Ty::Prim("null".into()),
                Some("undefined") => Ty::Prim("undefined".into()),
                _ => Ty::Other("literal".into()),
            },
            "template_literal_type" | "template_type" => Ty::Lit("string"),
            "type_identifier" | "identifier" => Ty::Ref(vec![self.text(n).to_string()], Vec::new()),
            "nested_type_identifier" => Ty::Ref(
                self.text(n)
                    .split('.')
                    .map(|s| s.trim().to_string())
                    .collect(),
                Vec::new(),
            ),
            "generic_type" => {
                let base = n.child_by_field_name("name").map(|b| self.ty(b, d));
                let args = n
                    .child_by_field_name("type_arguments")
                    .map(|a| list(self, a))
                    .unwrap_or_default();
                match base {
                    Some(Ty::Ref(p, _)) => Ty::Ref(p, args),
                    _ => Ty::Other("generic".into()),
                }
            }
            "array_type" => Ty::Array(Box::new(
                n.named_child(0)
                    .map(|k| self.ty(k, d))
                    .unwrap_or(Ty::Prim("any".into())),
            )),
            "readonly_type" | "parenthesized_type" => n
                .named_child(0)
                .map(|k| self.ty(k, d))
                .unwrap_or(Ty::Prim("any".into())),
            "tuple_type" => Ty::Tuple(list(self, n)),
            "optional_type" | "rest_type" => n
                .named_child(0)
                .map(|k| self.ty(k, d))
                .unwrap_or(Ty::Prim("any".into())),
            "union_type" => {
                let mut v = Vec::new();
                for t in list(self, n) {
                    match t {
                        Ty::Union(inner) => v.extend(inner),
                        t => v.push(t),
                    }
                }
                Ty::Union(v)
            }
            "function_type" => {
                let f = self.callable(n, None, MemberKind::Method, Doc::default(), d);
                Ty::Func(f.params, Box::new(f.ty.unwrap_or(Ty::Prim("any".into()))))
            }
            "constructor_type" => Ty::Ctor,
            "object_type" => Ty::Object(self.members(n, d)),
            "type_query" => match n.named_child(0) {
                Some(k)
                    if matches!(
                        k.kind(),
                        "identifier" | "member_expression" | "nested_identifier"
                    ) =>
                {
                    Ty::Query(
                        self.text(k)
                            .split('.')
                            .map(|s| s.trim().to_string())
                            .collect(),
                    )
                }
                _ => Ty::Other("typeof".into()),
            },
            "this_type" => Ty::This,
            k => Ty::Other(k.to_string()),
        }
    }
}

impl Reader<'_> {
    /// `import("./lib").App`: the declaration `App` of that module. In a module it is
    /// an `import * as` of its own (so that a relative specifier is resolved as the
    /// module's imports are); elsewhere the ambient module's declaration by its path.
    ///
    /// Why: @types/photoshop's `export declare const app: import("./lib").App` was
    /// `any`, and nothing a script reached from `require("photoshop").app` was judged.
    fn import_type(&mut self, n: Node) -> Ty {
        let text = self.text(n).to_string();
        let Some((spec, rest)) = import_type_parts(&text) else {
            return Ty::Other("import type".into());
        };
        let local = format!("import(\"{spec}\")");
        if self.module.is_some() {
            let m = self.module.unwrap_or_default();
            let known = self.out.modules[m].links.iter().any(
                |(l, _)| matches!(l, super::Link::ImportAll { local: l2, .. } if *l2 == local),
            );
            if !known {
                self.link(
                    super::Link::ImportAll {
                        spec: spec.clone(),
                        local: local.clone(),
                    },
                    n,
                );
            }
            let mut path = vec![local];
            path.extend(rest);
            return Ty::Ref(path, Vec::new());
        }
        if spec.starts_with('.') {
            return Ty::Other("import type of a relative file outside a module".into());
        }
        let mut path = vec![super::module_key(&spec)];
        path.extend(rest);
        Ty::Ref(path, Vec::new())
    }
}

/// `import("./lib").A.B` → (`./lib`, [`A`, `B`]); `None` when it is not that shape.
fn import_type_parts(text: &str) -> Option<(String, Vec<String>)> {
    let t = text.strip_prefix("import(")?.trim_start();
    let q = t.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let t = &t[1..];
    let end = t.find(q)?;
    let spec = t[..end].to_string();
    let after = t[end + 1..].trim_start().strip_prefix(')')?.trim_start();
    let after = after.strip_prefix('.')?;
    let rest: Vec<String> = after.split('.').map(|s| s.trim().to_string()).collect();
    if spec.is_empty() || rest.iter().any(|s| !super::is_ident(s)) {
        return None;
    }
    Some((spec, rest))
}

/// A literal type's text as the corpus writes it: a string in double quotes, a number
/// as written; `true`/`false` are `boolean`.
pub fn literal(text: &str) -> Option<Ty> {
    let t = text.trim();
    if let Some(q) = t.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let inner = t.strip_prefix(q)?.strip_suffix(q)?;
        // Re-quoted with double quotes; a string holding one is no identifier-like
        // literal a discriminant would be tested against.
        if inner.contains('"') || inner.contains('\\') || inner.contains('\n') {
            return Some(Ty::Lit("string"));
        }
        return Some(Ty::Literal(format!("\"{inner}\"")));
    }
    match t {
        "true" | "false" => return Some(Ty::Lit("boolean")),
        _ => {}
    }
    let num = t.strip_prefix('-').unwrap_or(t).trim();
    if !num.is_empty()
        && num
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_')
        && num
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit() || c == '.')
    {
        return Some(Ty::Literal(t.replace(' ', "")));
    }
    None
}

/// The type of a literal initializer (`= "tls1.2"`, `= 3`, `= -1`, `= true`); `None`
/// for any other expression.
pub(super) fn literal_value(v: Node, text: &str) -> Option<Ty> {
    match v.kind() {
        "string" | "number" | "true" | "false" => literal(text),
        "unary_expression" if v.named_child(0).is_some_and(|k| k.kind() == "number") => {
            literal(text)
        }
        "template_string" if v.named_child_count() == 0 => Some(Ty::Lit("string")),
        _ => None,
    }
}

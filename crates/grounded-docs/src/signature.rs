//! TypeScript-like member signatures, as the corpus writes them.
//!
//! `tableStart(table: Table, style?: TableStyle): void`, `readonly pageNumber: number`.
//! Type names are kept as written here; resolving them against the documented interfaces
//! happens once the whole corpus is read (an interface may be documented after its use).

use serde::{Deserialize, Serialize};

/// A type as the docs write it, resolved against the corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Type {
    /// `void`
    Void,
    /// `any`, or a name the corpus does not document.
    Any,
    /// `string`
    String,
    /// `number`
    Number,
    /// `boolean`
    Boolean,
    /// `object`
    Object,
    /// `Function`
    Function,
    /// `Array`, `T[]`, `Array<T>`
    Array(Box<Type>),
    /// `path`: a string naming a file of the project, relative to its root.
    Path,
    /// A built-in object of the language: `Date`, `RegExp`, `Error`, ...
    Builtin(String),
    /// A documented interface.
    Interface(String),
    /// `A | B`
    Union(Vec<Type>),
    /// A name not yet resolved (only between parsing and resolution).
    Named(String),
    /// A string literal type, `"TEXT"` (the text between the quotes): a string whose
    /// value the docs name. Interfaces that each document one for the same property
    /// (`readonly type: "TEXT"`) are told apart by it (narrowing, interfaces.md).
    StringLit(String),
    /// A number literal type, `3`, as written.
    NumberLit(String),
    /// A function type, `(node: SceneNode) => boolean`: a callback's parameters and what
    /// it returns. A function literal passed where one is documented has its
    /// parameters typed so.
    Func(Vec<Param>, Box<Type>),
    /// `Promise<T>`: `await` of it, and the parameter of its `.then` callback, is a `T`.
    Promise(Box<Type>),
}

impl Type {
    /// The interface this type is, when it is exactly one documented interface.
    pub fn interface(&self) -> Option<&str> {
        match self {
            Type::Interface(n) => Some(n),
            _ => None,
        }
    }

    /// Whether the type is, or may be, a `path`.
    pub fn is_path(&self) -> bool {
        match self {
            Type::Path => true,
            Type::Union(v) => v.iter().any(Type::is_path),
            _ => false,
        }
    }

    /// Whether the type is a primitive (not an object).
    pub fn is_primitive(&self) -> bool {
        matches!(
            self,
            Type::Void
                | Type::String
                | Type::Number
                | Type::Boolean
                | Type::Path
                | Type::StringLit(_)
                | Type::NumberLit(_)
        )
    }

    /// Whether the type is a function of any form (`Function` or a function type).
    pub fn is_function(&self) -> bool {
        matches!(self, Type::Function | Type::Func(..))
    }
}

impl std::fmt::Display for Type {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Type::Void => f.write_str("void"),
            Type::Any => f.write_str("any"),
            Type::String => f.write_str("string"),
            Type::Number => f.write_str("number"),
            Type::Boolean => f.write_str("boolean"),
            Type::Object => f.write_str("object"),
            Type::Function => f.write_str("Function"),
            Type::Array(t) => match **t {
                Type::Any => f.write_str("Array"),
                Type::Union(_) | Type::Func(..) => write!(f, "({t})[]"),
                _ => write!(f, "{t}[]"),
            },
            Type::Path => f.write_str("path"),
            Type::Builtin(n) | Type::Interface(n) | Type::Named(n) => f.write_str(n),
            Type::Union(v) => {
                for (i, t) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" | ")?;
                    }
                    write!(f, "{t}")?;
                }
                Ok(())
            }
            Type::StringLit(s) => write!(f, "\"{s}\""),
            Type::NumberLit(n) => f.write_str(n),
            Type::Func(params, ret) => {
                f.write_str("(")?;
                for (i, p) in params.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    let dots = if p.rest { "..." } else { "" };
                    let q = if p.optional && !p.rest { "?" } else { "" };
                    write!(f, "{dots}{}{q}: {}", p.name, p.ty)?;
                }
                write!(f, ") => {ret}")
            }
            Type::Promise(t) => write!(f, "Promise<{t}>"),
        }
    }
}

/// One parameter of a method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Param {
    /// The parameter's name.
    pub name: String,
    /// Its type.
    pub ty: Type,
    /// `name?:` or a default value.
    pub optional: bool,
    /// `...name`
    pub rest: bool,
}

/// One overload of a member: a method's parameters and return, or a property's type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Signature {
    /// The line as the docs wrote it (trimmed).
    pub text: String,
    /// `Some` for a method, `None` for a property.
    pub params: Option<Vec<Param>>,
    /// A method's return type or a property's type.
    pub ty: Type,
    /// `readonly name: type`
    pub readonly: bool,
}

impl Signature {
    /// Whether this overload is a method.
    pub fn is_method(&self) -> bool {
        self.params.is_some()
    }
}

/// Strips what may stand before a signature: a `Syntax:`/`Signature:` label and
/// backticks. Returns the rest, trimmed.
pub fn strip_label(line: &str) -> &str {
    let mut s = line.trim();
    for label in ["syntax:", "signature:"] {
        // `get`, not `s[..n]`: a doc line may hold a multi-byte character (a non-breaking
        // space) right where the label would end, and slicing there panicked the whole
        // load of a real corpus (InDesign's reference, 18,805 chunks, nine such lines).
        if let Some(rest) = s
            .get(..label.len())
            .filter(|head| head.eq_ignore_ascii_case(label))
            .and_then(|_| s.get(label.len()..))
        {
            s = rest.trim_start();
            break;
        }
    }
    let s = s.trim_start_matches('`').trim_end();
    let s = s.trim_end_matches('`').trim_end();
    s.trim_end_matches(';').trim_end()
}

/// Whether `line` (label already stripped) is a signature line of member `name`:
/// the name (or `readonly` and the name) followed by `(` or `:`.
pub fn is_signature_of(line: &str, name: &str) -> bool {
    let s = line
        .strip_prefix("readonly ")
        .map(str::trim_start)
        .unwrap_or(line);
    match s.strip_prefix(name) {
        Some(rest) => {
            let rest = rest.trim_start();
            rest.starts_with('(') || rest.starts_with(':')
        }
        None => false,
    }
}

/// Parses a signature line (label stripped) of member `name`. Type names stay
/// [`Type::Named`] until resolved.
pub fn parse(line: &str, name: &str) -> Result<Signature, String> {
    let text = line.trim().to_string();
    let (readonly, s) = match line.strip_prefix("readonly ") {
        Some(r) => (true, r.trim_start()),
        None => (false, line),
    };
    let rest = s
        .strip_prefix(name)
        .ok_or_else(|| format!("does not start with `{name}`"))?
        .trim_start();
    if let Some(after) = rest.strip_prefix('(') {
        let close = matching_paren(after).ok_or("unbalanced parentheses")?;
        let params_text = &after[..close];
        let tail = after[close + 1..].trim();
        let ret = if let Some(t) = tail.strip_prefix(':') {
            parse_type(t.trim())?
        } else if tail.is_empty() {
            Type::Any
        } else if let Some(t) = tail.strip_prefix("=>") {
            parse_type(t.trim())?
        } else {
            return Err(format!("unexpected `{tail}` after the parameters"));
        };
        let mut params = Vec::new();
        for p in split_top(params_text, ',') {
            let p = p.trim();
            if p.is_empty() {
                continue;
            }
            params.push(parse_param(p)?);
        }
        Ok(Signature {
            text,
            params: Some(params),
            ty: ret,
            readonly,
        })
    } else if let Some(t) = rest.strip_prefix(':') {
        Ok(Signature {
            text,
            params: None,
            ty: parse_type(t.trim())?,
            readonly,
        })
    } else {
        Err("expected `(` or `:` after the name".into())
    }
}

fn parse_param(p: &str) -> Result<Param, String> {
    param_at_depth(p, 0)
}

fn param_at_depth(p: &str, depth: usize) -> Result<Param, String> {
    let (rest, p) = match p.strip_prefix("...") {
        Some(r) => (true, r.trim_start()),
        None => (false, p),
    };
    // A default value makes the parameter optional: `size: number = 10`.
    let (p, has_default) = match split_top(p, '=').as_slice() {
        [head, _, ..] => (head.trim(), true),
        _ => (p, false),
    };
    let (name_part, ty) = match p.find(':') {
        Some(i) => (p[..i].trim(), type_at_depth(p[i + 1..].trim(), depth)?),
        None => (p.trim(), Type::Any),
    };
    let (name, optional) = match name_part.strip_suffix('?') {
        Some(n) => (n.trim(), true),
        None => (name_part, false),
    };
    if !is_identifier(name) {
        return Err(format!("`{name}` is not a parameter name"));
    }
    Ok(Param {
        name: name.to_string(),
        ty,
        optional: optional || has_default || rest,
        rest,
    })
}

/// Parses a type expression: `A | B`, `T[]`, `Array<T>`, `(A | B)[]`, `{...}`.
pub fn parse_type(s: &str) -> Result<Type, String> {
    type_at_depth(s, 0)
}

/// How deeply a type may nest (`((A))`, `A[][]`, `Array<Array<A>>`). Real documentation
/// nests two or three levels; a line of ten thousand `(` (a fuzzer's, or a broken export)
/// would otherwise recurse until the stack overflows, which no panic guard can catch.
const MAX_TYPE_DEPTH: usize = 32;

fn type_at_depth(s: &str, depth: usize) -> Result<Type, String> {
    let s = s.trim();
    if s.is_empty() {
        return Err("empty type".into());
    }
    if depth > MAX_TYPE_DEPTH {
        return Err(format!(
            "type nested more than {MAX_TYPE_DEPTH} levels deep"
        ));
    }
    let parse_type = |t: &str| type_at_depth(t, depth + 1);
    // `(node: SceneNode) => A | B` is one function type whose return is the union (as
    // TypeScript reads it), so the arrow is found before the union is split.
    if let Some(inner) = s.strip_prefix('(') {
        if let Some(close) = matching_paren(inner) {
            if let Some(ret) = inner[close + 1..].trim_start().strip_prefix("=>") {
                let mut params = Vec::new();
                for p in split_top(&inner[..close], ',') {
                    let p = p.trim();
                    if !p.is_empty() {
                        params.push(param_at_depth(p, depth + 1)?);
                    }
                }
                return Ok(Type::Func(params, Box::new(parse_type(ret)?)));
            }
        }
    }
    let parts = split_top(s, '|');
    if parts.len() > 1 {
        let mut v = Vec::new();
        for p in parts {
            if !p.trim().is_empty() {
                v.push(parse_type(p)?);
            }
        }
        return Ok(if v.len() == 1 {
            v.pop().unwrap()
        } else {
            Type::Union(v)
        });
    }
    if let Some(inner) = s.strip_suffix("[]") {
        return Ok(Type::Array(Box::new(parse_type(inner)?)));
    }
    // `(A | B)`: the parenthesis that opens the type closes at its end. (A lone `(`
    // once made `s.len() - 2` underflow: found by the signature fuzz loop.)
    if let Some(inner) = s.strip_prefix('(') {
        if let Some(close) = matching_paren(inner).filter(|&c| c + 1 == inner.len()) {
            return parse_type(&inner[..close]);
        }
    }
    if s.starts_with('{') && s.ends_with('}') {
        return Ok(Type::Object);
    }
    for array in ["Array<", "ReadonlyArray<"] {
        if let Some(inner) = s.strip_prefix(array).and_then(|r| r.strip_suffix('>')) {
            return Ok(Type::Array(Box::new(parse_type(inner)?)));
        }
    }
    if let Some(inner) = s.strip_prefix("Promise<").and_then(|r| r.strip_suffix('>')) {
        return Ok(Type::Promise(Box::new(parse_type(inner)?)));
    }
    for q in ['"', '\'', '`'] {
        if let Some(lit) = s.strip_prefix(q).and_then(|r| r.strip_suffix(q)) {
            return Ok(Type::StringLit(lit.to_string()));
        }
    }
    if s.starts_with('"') || s.starts_with('\'') {
        return Ok(Type::String);
    }
    if s.parse::<f64>().is_ok() {
        return Ok(Type::NumberLit(s.to_string()));
    }
    // Generic arguments of other names are ignored: `Promise<X>` is `Promise`.
    let base = s.split('<').next().unwrap_or(s).trim();
    if !is_identifier(base) && !base.contains('.') {
        return Err(format!("`{s}` is not a type"));
    }
    Ok(match base {
        "void" | "undefined" | "null" => Type::Void,
        "any" | "unknown" | "*" => Type::Any,
        "string" => Type::String,
        "number" | "int" | "integer" | "float" | "double" => Type::Number,
        "boolean" | "bool" => Type::Boolean,
        "object" => Type::Object,
        "Function" | "function" => Type::Function,
        "Array" | "array" => Type::Array(Box::new(Type::Any)),
        "path" => Type::Path,
        _ => Type::Named(base.to_string()),
    })
}

/// Index of the `)` that closes an already-opened `(`, in `s`.
fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    let mut prev = '\0';
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' if depth == 0 => return Some(i),
            // The `>` of an arrow (`cb: (n: A) => void`) closes nothing.
            '>' if prev == '=' => {}
            ')' | ']' | '}' | '>' => depth -= 1,
            _ => {}
        }
        prev = c;
    }
    None
}

/// Splits at `sep` outside brackets (and outside `=>`'s `>`).
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let mut prev = '\0';
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' if prev != '=' => depth -= 1,
            // The `=` of an arrow (`cb: (n: A) => void`) is no default value.
            '=' if sep == '=' && s[i + 1..].starts_with('>') => {}
            _ if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
        prev = c;
    }
    out.push(&s[start..]);
    out
}

/// Whether `s` is a JavaScript identifier (`[A-Za-z_$][A-Za-z0-9_$]*`).
pub fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' || c == '$' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn method() {
        let s = parse(
            "tableStart(table: Table, style?: TableStyle): void",
            "tableStart",
        )
        .unwrap();
        let p = s.params.as_ref().unwrap();
        assert_eq!(p.len(), 2);
        assert_eq!(p[0].ty, Type::Named("Table".into()));
        assert!(p[1].optional);
        assert_eq!(s.ty, Type::Void);
    }

    #[test]
    fn property_and_readonly() {
        let s = parse("readonly pageNumber: number", "pageNumber").unwrap();
        assert!(s.readonly && s.params.is_none());
        assert_eq!(s.ty, Type::Number);
        let s = parse("items: (Node | string)[]", "items").unwrap();
        assert!(matches!(s.ty, Type::Array(_)));
    }

    #[test]
    fn labels() {
        assert_eq!(
            strip_label("Syntax: `foo(a: string): void`"),
            "foo(a: string): void"
        );
        assert_eq!(
            strip_label("Signature: signature: string"),
            "signature: string"
        );
        assert!(is_signature_of("readonly x: number", "x"));
        assert!(!is_signature_of("xy: number", "x"));
    }

    #[test]
    fn rest_and_default() {
        let s = parse("f(...items: any[], n: number = 2): Array", "f").unwrap();
        let p = s.params.unwrap();
        assert!(p[0].rest && p[1].optional);
    }

    #[test]
    fn modern_types() {
        let s = parse(
            "findAll(callback?: (node: SceneNode, i: number) => boolean): Array<SceneNode>",
            "findAll",
        )
        .unwrap();
        let p = &s.params.as_ref().unwrap()[0];
        assert!(p.optional);
        let Type::Func(ps, ret) = &p.ty else {
            panic!("{:?}", p.ty)
        };
        assert_eq!(ps[0].ty, Type::Named("SceneNode".into()));
        assert_eq!(**ret, Type::Boolean);
        assert_eq!(
            parse_type("() => A | B").unwrap(),
            Type::Func(
                vec![],
                Box::new(Type::Union(vec![
                    Type::Named("A".into()),
                    Type::Named("B".into())
                ]))
            )
        );
        assert_eq!(
            parse_type("Promise<Variable | null>").unwrap().to_string(),
            "Promise<Variable | void>"
        );
        assert_eq!(
            parse_type("\"TEXT\"").unwrap(),
            Type::StringLit("TEXT".into())
        );
        assert_eq!(parse_type("'A'").unwrap(), Type::StringLit("A".into()));
        assert_eq!(parse_type("3").unwrap(), Type::NumberLit("3".into()));
        assert_eq!(
            parse_type("ReadonlyArray<SceneNode>").unwrap(),
            Type::Array(Box::new(Type::Named("SceneNode".into())))
        );
        let s = parse("readonly type: \"TEXT\"", "type").unwrap();
        assert_eq!(s.ty.to_string(), "\"TEXT\"");
        assert!(s.ty.is_primitive());
        // A default value still makes a parameter optional beside an arrow.
        let s = parse("f(cb: (a: A) => void, n: number = 2): void", "f").unwrap();
        let p = s.params.unwrap();
        assert!(p[0].ty.is_function() && !p[0].optional && p[1].optional);
    }

    #[test]
    fn broken() {
        assert!(parse("f(a: string: void", "f").is_err());
        assert!(parse("f(a b): void", "f").is_err());
    }
}

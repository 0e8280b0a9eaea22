//! The tree-sitter queries of `grammars/javascript/*.scm`, compiled once.
//!
//! The patterns live in `.scm` files rather than in hand-written walks because a pattern
//! says "an object literal passed as an argument" in one line that anyone who knows
//! tree-sitter can read and extend; the Rust side only interprets the captures.

use std::sync::OnceLock;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor};

/// What the scope analysis reads (`scopes.scm`).
pub const SCOPES_SCM: &str = include_str!("../../../grammars/javascript/scopes.scm");
/// The sites the families judge (`sites.scm`).
pub const SITES_SCM: &str = include_str!("../../../grammars/javascript/sites.scm");
/// Syntax above a language level (`syntax.scm`).
pub const SYNTAX_SCM: &str = include_str!("../../../grammars/javascript/syntax.scm");

/// What a capture of the combined query is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CaptureKind {
    /// A node that opens a scope (functions, catch clauses).
    Scope,
    /// A declaring node (parameters, declarators, classes).
    Declare,
    /// An assignment, update or `for...in` head.
    Write,
    /// `x instanceof T`
    Narrow,
    /// `typeof x`
    Typeof,
    /// `receiver.name`
    Member,
    /// `f(...)` or `o.f(...)`
    Call,
    /// `new X(...)`
    New,
    /// A syntax feature introduced in edition `year`; index into [`Queries::features`].
    Feature {
        /// Edition year (1999 = ES3).
        year: u16,
        /// Index of the feature key.
        feature: usize,
    },
    /// Regex flags, judged by flag (`y`, `u`, `s` are later than ES3).
    RegexFlags,
    /// A number literal, judged by form (`0b`, `0o`, `1_000`, `10n`).
    Number,
    /// A property name that is an ES3 reserved word (`a.class`, `{ default: 1 }`).
    ReservedProperty,
    /// A list whose trailing comma may be above the level: object literals (ES5).
    TrailingObject,
    /// Call arguments (trailing comma: ES2017).
    TrailingArguments,
    /// Formal parameters (trailing comma: ES2017).
    TrailingParameters,
}

/// The compiled query and what each capture index means.
pub struct Queries {
    /// Scope, site and syntax patterns in one query, so the tree is matched once.
    pub query: Query,
    /// Capture index → kind.
    pub kinds: Vec<CaptureKind>,
    /// Feature keys (`arrow_function`), indexed by [`CaptureKind::Feature::feature`].
    pub features: Vec<String>,
}

/// The queries, compiled on first use.
pub fn queries() -> &'static Queries {
    static Q: OnceLock<Queries> = OnceLock::new();
    Q.get_or_init(|| {
        let source = format!("{SCOPES_SCM}\n{SITES_SCM}\n{SYNTAX_SCM}");
        let query = Query::new(&tree_sitter_javascript::LANGUAGE.into(), &source)
            .expect("the bundled .scm queries compile against the bundled grammar");
        let mut features = Vec::new();
        let kinds = query
            .capture_names()
            .iter()
            .map(|name| capture_kind(name, &mut features))
            .collect();
        Queries {
            query,
            kinds,
            features,
        }
    })
}

fn capture_kind(name: &str, features: &mut Vec<String>) -> CaptureKind {
    match name {
        "scope" => CaptureKind::Scope,
        "declare" => CaptureKind::Declare,
        "write" => CaptureKind::Write,
        "narrow" => CaptureKind::Narrow,
        "typeof" => CaptureKind::Typeof,
        "site.member" => CaptureKind::Member,
        "site.call" => CaptureKind::Call,
        "site.new" => CaptureKind::New,
        other => {
            let (year, feature) = other
                .strip_prefix("es")
                .and_then(|r| r.split_once('.'))
                .and_then(|(y, f)| Some((y.parse::<u16>().ok()?, f)))
                .unwrap_or((9999, other));
            let idx = match features.iter().position(|f| f == feature) {
                Some(i) => i,
                None => {
                    features.push(feature.to_string());
                    features.len() - 1
                }
            };
            CaptureKind::Feature { year, feature: idx }
        }
    }
}

/// Every capture of the combined query in `node`'s subtree, in document order of the
/// captured nodes (a scope's node comes before anything inside it), as `(kind, node)`.
/// The checker does not use it on whole files (see [`Roles`]); tools and tests may.
pub fn captures<'t>(node: Node<'t>, text: &str) -> Vec<(CaptureKind, Node<'t>)> {
    let q = queries();
    let mut cursor = QueryCursor::new();
    let mut out = Vec::new();
    let mut caps = cursor.captures(&q.query, node, text.as_bytes());
    while let Some((m, i)) = caps.next() {
        let c = m.captures[*i];
        out.push((q.kinds[c.index as usize], c.node));
    }
    out
}

/// The captures of the patterns rooted at `node` itself (not its descendants): how the
/// checker's single walk asks `syntax.scm` about one candidate node.
pub fn captures_at<'t>(node: Node<'t>, text: &str, out: &mut Vec<(CaptureKind, Node<'t>)>) {
    thread_local! {
        // A cursor allocates; the walk may ask at every regex of a file.
        static CURSOR: std::cell::RefCell<QueryCursor> = std::cell::RefCell::new({
            let mut c = QueryCursor::new();
            c.set_max_start_depth(Some(0));
            c
        });
    }
    CURSOR.with(|c| match c.try_borrow_mut() {
        Ok(mut cursor) => captures_with(&mut cursor, node, text, out),
        Err(_) => {
            let mut cursor = QueryCursor::new();
            cursor.set_max_start_depth(Some(0));
            captures_with(&mut cursor, node, text, out)
        }
    });
}

fn captures_with<'t>(
    cursor: &mut QueryCursor,
    node: Node<'t>,
    text: &str,
    out: &mut Vec<(CaptureKind, Node<'t>)>,
) {
    let q = queries();
    let mut caps = cursor.captures(&q.query, node, text.as_bytes());
    while let Some((m, i)) = caps.next() {
        let c = m.captures[*i];
        out.push((q.kinds[c.index as usize], c.node));
    }
}

/// Role bits of a node kind: which `.scm` file has a pattern rooted at it.
pub mod role {
    /// `scopes.scm`: the analysis reads it.
    pub const SCOPE: u8 = 1;
    /// `sites.scm`: a family judges it.
    pub const SITE: u8 = 2;
    /// `syntax.scm`: a feature above some level may start here.
    pub const SYNTAX: u8 = 4;
    /// Judged by its text in code: numbers (`0b1`, `1_000`).
    pub const NUMBER: u8 = 8;
    /// A list whose trailing comma is judged by its text (objects, arguments, parameters).
    pub const LIST: u8 = 16;
    /// Nothing inside matters (strings, regexes): the walk does not descend.
    pub const OPAQUE: u8 = 32;
    /// A regex, whose flags are judged by its text.
    pub const REGEX: u8 = 64;
}

/// For every node kind id of the grammar, the roles of [`role`], derived from the root
/// of every pattern of the `.scm` files. This is what lets one cursor walk over the tree
/// replace a query pass per file: the walk looks a node's kind up here and only then
/// does the work (or runs the query at that one node).
pub struct Roles {
    by_kind: Vec<u8>,
}

impl Roles {
    /// The roles of a kind id.
    #[inline]
    pub fn of(&self, kind_id: u16) -> u8 {
        self.by_kind.get(kind_id as usize).copied().unwrap_or(0)
    }
}

/// The roles, computed once.
pub fn roles() -> &'static Roles {
    static R: OnceLock<Roles> = OnceLock::new();
    R.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
        let mut by_kind = vec![0u8; lang.node_kind_count()];
        for (scm, bit) in [
            (SCOPES_SCM, role::SCOPE),
            (SITES_SCM, role::SITE),
            (SYNTAX_SCM, role::SYNTAX),
        ] {
            for (name, named) in pattern_roots(scm) {
                for id in 0..by_kind.len() as u16 {
                    if lang.node_kind_is_named(id) == named
                        && lang.node_kind_for_id(id) == Some(name.as_str())
                    {
                        by_kind[id as usize] |= bit;
                    }
                }
            }
        }
        for (name, bit) in [
            ("number", role::NUMBER),
            ("object", role::LIST),
            ("arguments", role::LIST),
            ("formal_parameters", role::LIST),
            ("string", role::OPAQUE),
            ("regex", role::OPAQUE | role::REGEX),
            ("comment", role::OPAQUE),
        ] {
            let id = lang.id_for_node_kind(name, true);
            if let Some(r) = by_kind.get_mut(id as usize) {
                *r |= bit;
            }
        }
        Roles { by_kind }
    })
}

/// What a walk that steps over anonymous tokens (`(`, `;`, `var`...) must still see:
/// the anonymous kinds that root a pattern of the `.scm` files (`typeof`, `let`,
/// `**`...) can only be met as children of certain named kinds, which the grammar's
/// `node-types.json` lists (`typeof` is a `unary_expression`'s operator).
///
/// Why: stepping onto a token costs as much as stepping onto a call, and four nodes in
/// ten are tokens. A keyword the grammar lists under no field (`class`, `yield`,
/// `async`...) cannot be placed that way; a script whose text holds one as a word is
/// walked whole.
pub struct AnonymousRoots {
    /// By kind id: whether the walk visits that kind's anonymous children.
    pub keep: Vec<bool>,
    /// The anonymous pattern roots no kind lists as a child.
    pub unlisted: Vec<String>,
    unlisted_re: Option<regex::Regex>,
}

impl AnonymousRoots {
    /// Whether `text` may hold an unlisted anonymous root (as a whole word, for a
    /// keyword): then the walk must see every token.
    pub fn unlisted_in(&self, text: &str) -> bool {
        self.unlisted_re
            .as_ref()
            .is_some_and(|re| re.is_match(text))
    }
}

/// The anonymous roots, computed once from the `.scm` files and the grammar.
pub fn anonymous_roots() -> &'static AnonymousRoots {
    static A: OnceLock<AnonymousRoots> = OnceLock::new();
    A.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
        let mut roots: Vec<String> = [SCOPES_SCM, SITES_SCM, SYNTAX_SCM]
            .iter()
            .flat_map(|scm| pattern_roots(scm))
            .filter(|(_, named)| !named)
            .map(|(name, _)| name)
            .collect();
        roots.sort();
        roots.dedup();
        let mut keep = vec![false; lang.node_kind_count()];
        let mut listed = std::collections::HashSet::new();
        let types: serde_json::Value = serde_json::from_str(tree_sitter_javascript::NODE_TYPES)
            .expect("the bundled grammar's node-types.json is JSON");
        for entry in types.as_array().into_iter().flatten() {
            if entry["named"] != serde_json::Value::Bool(true) {
                continue;
            }
            let Some(parent) = entry["type"].as_str() else {
                continue;
            };
            let fields = entry["fields"]
                .as_object()
                .into_iter()
                .flat_map(|f| f.values());
            let children = entry.get("children").into_iter();
            for child in fields.chain(children) {
                for t in child["types"].as_array().into_iter().flatten() {
                    let Some(name) = t["type"].as_str() else {
                        continue;
                    };
                    if t["named"] == serde_json::Value::Bool(false)
                        && roots.iter().any(|r| r == name)
                    {
                        listed.insert(name.to_string());
                        let id = lang.id_for_node_kind(parent, true);
                        if let Some(k) = keep.get_mut(id as usize) {
                            *k = true;
                        }
                    }
                }
            }
        }
        let unlisted: Vec<String> = roots.into_iter().filter(|r| !listed.contains(r)).collect();
        let alternatives: Vec<String> = unlisted
            .iter()
            .map(|r| {
                let word = r.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
                if word {
                    format!(r"\b{}\b", regex::escape(r))
                } else {
                    regex::escape(r)
                }
            })
            .collect();
        let unlisted_re = (!alternatives.is_empty()).then(|| {
            regex::Regex::new(&alternatives.join("|"))
                .expect("escaped alternatives always form a regex")
        });
        AnonymousRoots {
            keep,
            unlisted,
            unlisted_re,
        }
    })
}

/// The root node of every top-level pattern of a query source: `(kind ...)` gives a
/// named kind, `"tok"` an anonymous one, `["a" "b"]` each of its alternatives.
pub fn pattern_roots(scm: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let b = scm.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b';' => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if depth == 0 {
                    out.push((scm[start..i.min(b.len())].to_string(), false));
                }
            }
            b'(' => {
                if depth == 0 {
                    let rest = &scm[i + 1..];
                    let name: String = rest
                        .chars()
                        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                        .collect();
                    if !name.is_empty() {
                        out.push((name, true));
                    }
                }
                depth += 1;
            }
            b')' => depth -= 1,
            _ => {}
        }
        i += 1;
    }
    out
}

/// Kind ids of the node kinds the hot paths compare against (`Node::kind` computes a
/// string length on every call).
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub struct KindIds {
    pub identifier: u16,
    pub member_expression: u16,
    pub call_expression: u16,
    pub new_expression: u16,
    pub object: u16,
    pub arguments: u16,
    pub string: u16,
    pub parenthesized_expression: u16,
    pub array: u16,
    pub template_string: u16,
    pub regex: u16,
    pub property_identifier: u16,
    pub pair: u16,
    pub shorthand_property_identifier: u16,
    pub method_definition: u16,
    pub number: u16,
    pub subscript_expression: u16,
    pub function_declaration: u16,
    pub generator_function_declaration: u16,
    pub function_expression: u16,
    pub generator_function: u16,
    pub arrow_function: u16,
}

impl KindIds {
    /// Whether `k` is a function of any form (see [`crate::is_function_kind`]).
    pub fn is_function(&self, k: u16) -> bool {
        k == self.function_declaration
            || k == self.generator_function_declaration
            || k == self.function_expression
            || k == self.generator_function
            || k == self.arrow_function
            || k == self.method_definition
    }
}

/// The kind ids, computed once.
pub fn kind_ids() -> &'static KindIds {
    static K: OnceLock<KindIds> = OnceLock::new();
    K.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
        let id = |n: &str| lang.id_for_node_kind(n, true);
        KindIds {
            identifier: id("identifier"),
            member_expression: id("member_expression"),
            call_expression: id("call_expression"),
            new_expression: id("new_expression"),
            object: id("object"),
            arguments: id("arguments"),
            string: id("string"),
            parenthesized_expression: id("parenthesized_expression"),
            array: id("array"),
            template_string: id("template_string"),
            regex: id("regex"),
            property_identifier: id("property_identifier"),
            pair: id("pair"),
            shorthand_property_identifier: id("shorthand_property_identifier"),
            method_definition: id("method_definition"),
            number: id("number"),
            subscript_expression: id("subscript_expression"),
            function_declaration: id("function_declaration"),
            generator_function_declaration: id("generator_function_declaration"),
            function_expression: id("function_expression"),
            generator_function: id("generator_function"),
            arrow_function: id("arrow_function"),
        }
    })
}

/// Field ids of the grammar, looked up once (by-name lookups scan every field name).
#[derive(Debug, Clone, Copy)]
#[allow(missing_docs)]
pub struct Fields {
    pub object: u16,
    pub property: u16,
    pub function: u16,
    pub arguments: u16,
    pub constructor: u16,
    pub name: u16,
    pub value: u16,
    pub left: u16,
    pub right: u16,
    pub operator: u16,
    pub argument: u16,
    pub parameter: u16,
    pub kind: u16,
    pub key: u16,
}

/// The field ids, computed once.
pub fn fields() -> &'static Fields {
    static F: OnceLock<Fields> = OnceLock::new();
    F.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
        let id = |n: &str| {
            lang.field_id_for_name(n)
                .map(|f| f.get())
                .expect("the grammar has this field")
        };
        Fields {
            object: id("object"),
            property: id("property"),
            function: id("function"),
            arguments: id("arguments"),
            constructor: id("constructor"),
            name: id("name"),
            value: id("value"),
            left: id("left"),
            right: id("right"),
            operator: id("operator"),
            argument: id("argument"),
            parameter: id("parameter"),
            kind: id("kind"),
            key: id("key"),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_come_from_the_patterns() {
        let lang: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
        let r = roles();
        let arrow = lang.id_for_node_kind("arrow_function", true);
        assert!(r.of(arrow) & role::SCOPE != 0);
        assert!(r.of(arrow) & role::SYNTAX != 0);
        let konst = lang.id_for_node_kind("const", false);
        assert!(r.of(konst) & role::SYNTAX != 0);
        let member = lang.id_for_node_kind("member_expression", true);
        assert!(r.of(member) & role::SITE != 0);
        let ident = lang.id_for_node_kind("identifier", true);
        assert_eq!(r.of(ident), 0);
        let _ = fields();
    }

    #[test]
    fn anonymous_roots_are_placed_by_the_grammar_or_found_by_text() {
        let lang: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
        let a = anonymous_roots();
        let id = |k: &str| lang.id_for_node_kind(k, true) as usize;
        // `typeof x`, `a instanceof B`, `a ** b`, `let x`, `for (x of y)`.
        for k in [
            "unary_expression",
            "binary_expression",
            "lexical_declaration",
            "for_in_statement",
        ] {
            assert!(a.keep[id(k)], "{k}");
        }
        assert!(!a.keep[id("call_expression")] && !a.keep[id("arguments")]);
        assert!(a.unlisted.iter().any(|u| u == "class"), "{:?}", a.unlisted);
        assert!(a.unlisted_in("var k = new Klass(); class A {}"));
        assert!(a.unlisted_in("async function f() {}"));
        assert!(!a.unlisted_in("var className = 'a'; layout.classify(x); // subclass"));
    }

    #[test]
    fn queries_compile_and_name_features() {
        let q = queries();
        assert!(q.features.iter().any(|f| f == "arrow_function"));
        assert!(q.kinds.iter().any(|k| matches!(k, CaptureKind::Member)));
        assert!(!q
            .kinds
            .iter()
            .any(|k| matches!(k, CaptureKind::Feature { year: 9999, .. })));
    }
}

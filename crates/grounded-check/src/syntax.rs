//! `syntax`: parse errors, and syntax above the engine's ECMAScript level.
//!
//! What: under ES3, `let`/`const`, arrow functions, classes, template literals,
//! destructuring, spread and rest, default parameters, `for...of`, shorthand and computed
//! properties, method shorthand, getters and setters in literals (ES5), trailing commas
//! in object literals (ES5) and in calls and parameter lists (ES2017), `**`, `async`,
//! `?.`, `??`, regex flags `y`/`u`/`s`, binary and octal literals, numeric separators.
//! The features and their editions are the patterns of `grammars/javascript/syntax.scm`.
//! Engine directives (`#include "x"`) are blanked before parsing and never reported.
//!
//! Why: `node --check` passes what the engine cannot run; an ES3 host refuses the
//! whole file, so one `const` loses every line of the script.

use tree_sitter::Node;

use grounded_js::query::{queries, CaptureKind};

use super::{Code, Ctx, Fix, Span};

/// The stable name of a syntax rule, as an Engine chunk's `Also allows:` lists it and
/// `docs/syntax-rules.md` documents it. `token` is the captured text (`let` or `const`
/// share one pattern but are two rules: engines took `const` years before `let`).
pub fn rule_name(feature: &str, token: &str) -> &'static str {
    match feature {
        "let_const" if token == "let" => "let",
        "let_const" => "const",
        "arrow_function" => "arrow-functions",
        "class" => "classes",
        "template_literal" => "template-literals",
        "destructuring" => "destructuring",
        "spread" => "spread",
        "rest_parameter" => "rest-parameters",
        "default_parameter" => "default-parameters",
        "for_of" => "for-of",
        "shorthand_property" => "shorthand-properties",
        "computed_property" => "computed-property-names",
        "method_shorthand" => "method-shorthand",
        "generator" => "generators",
        "module" => "modules",
        "exponent" => "exponent-operator",
        "async" => "async-await",
        "nullish" => "nullish-coalescing",
        "logical_assignment" => "logical-assignment",
        "optional_chain" => "optional-chaining",
        "accessor" => "accessors",
        _ => "other",
    }
}

/// Every rule name of the syntax check, for the docs and their test.
pub const RULE_NAMES: &[&str] = &[
    "const",
    "let",
    "arrow-functions",
    "classes",
    "template-literals",
    "destructuring",
    "spread",
    "rest-parameters",
    "default-parameters",
    "for-of",
    "shorthand-properties",
    "computed-property-names",
    "method-shorthand",
    "accessors",
    "generators",
    "modules",
    "exponent-operator",
    "async-await",
    "nullish-coalescing",
    "logical-assignment",
    "optional-chaining",
    "regex-flags",
    "binary-octal-literals",
    "bigint",
    "numeric-separators",
    "reserved-property-names",
    "trailing-commas",
    "trailing-comma-arguments",
    "e4x",
];

/// What a feature is called and what to write instead.
fn describe(feature: &str) -> (&'static str, &'static str) {
    match feature {
        "let_const" => ("block-scoped declarations", "declare with `var`"),
        "arrow_function" => ("arrow functions", "write `function (...) { ... }`"),
        "class" => (
            "classes",
            "write a constructor function and add methods to its `prototype`",
        ),
        "template_literal" => ("template literals", "concatenate strings with `+`"),
        "destructuring" => ("destructuring", "assign each value on its own line"),
        "spread" => ("spread syntax", "use `apply` or `concat`"),
        "rest_parameter" => ("rest parameters", "read the extra values from `arguments`"),
        "default_parameter" => (
            "default parameters",
            "test the parameter for `undefined` in the body",
        ),
        "for_of" => (
            "`for...of` loops",
            "loop with an index: `for (var i = 0; i < a.length; i++)`",
        ),
        "shorthand_property" => ("shorthand properties", "write `name: name`"),
        "computed_property" => (
            "computed property names",
            "create the object, then assign `obj[key] = value`",
        ),
        "method_shorthand" => ("method shorthand", "write `name: function (...) { ... }`"),
        "generator" => ("generators", "return an array or take a callback"),
        "module" => ("modules", "load files with the engine's documented loader"),
        "exponent" => ("the `**` operator", "use `Math.pow(a, b)`"),
        "async" => ("`async`/`await`", "call the code directly"),
        "nullish" => (
            "the `??` operator",
            "test for `null` and `undefined` explicitly",
        ),
        "logical_assignment" => ("logical assignment", "write `a = a || b`"),
        "optional_chain" => (
            "optional chaining",
            "test each step before reading the next",
        ),
        "accessor" => (
            "getters and setters in object literals",
            "use a method such as `getName()`",
        ),
        _ => (
            "this syntax",
            "rewrite it with the language of the engine's level",
        ),
    }
}

/// Reports `what` at `span` when `year` is above the engine's level and the engine's
/// `Also allows:` does not name `rule`; returns whether it did (then the finding is
/// `cx.out`'s last).
#[allow(clippy::too_many_arguments)]
fn above(
    cx: &mut Ctx,
    node: Node,
    span: Span,
    year: u16,
    rule: &str,
    what: &str,
    hint: &str,
) -> bool {
    // An engine whose `Modules:` line says `esm` takes `import`/`export` whatever its
    // level (corpus-format.md, "Modules").
    let esm = rule == "modules" && cx.corpus.engine.has_esm();
    if year <= cx.level || esm || cx.corpus.engine.allows(rule) || in_error(cx, node) {
        return false;
    }
    let token = cx.text[span.start..span.end].lines().next().unwrap_or("");
    let shown = if token.len() <= 12 && !token.is_empty() {
        format!("`{token}`: ")
    } else {
        String::new()
    };
    let msg = format!(
        "{shown}{what} {} {}; this engine runs {}: {hint}",
        if what.ends_with('s') && !what.starts_with("the ") {
            "are"
        } else {
            "is"
        },
        grounded_es::edition_name(year),
        cx.level_name()
    );
    cx.push(span.start, span.end, Code::Syntax, msg);
    true
}

/// Judges one capture of `syntax.scm`.
pub(crate) fn feature(cx: &mut Ctx, kind: CaptureKind, node: Node) {
    let span = Span::new(node.start_byte(), node.end_byte());
    match kind {
        CaptureKind::Feature { year, feature } => {
            let key = queries().features[feature].as_str();
            let in_class = node
                .parent()
                .and_then(|m| m.parent())
                .is_some_and(|b| b.kind() == "class_body");
            if matches!(key, "method_shorthand" | "accessor") && in_class {
                // The class itself is reported.
                return;
            }
            if key == "method_shorthand" {
                // A getter or setter is an accessor, reported as such.
                let accessor = node.parent().is_some_and(|m| {
                    let mut c = m.walk();
                    let found = m
                        .children(&mut c)
                        .any(|ch| matches!(ch.kind(), "get" | "set"));
                    found
                });
                if accessor {
                    return;
                }
            }
            let (what, hint) = describe(key);
            let rule = rule_name(key, cx.a.node_text(node));
            if above(cx, node, span, year, rule, what, hint) {
                if let Some(fix) = rewrite(cx.text, key, node) {
                    if let Some(f) = cx.out.last_mut() {
                        f.fixes.push(fix);
                    }
                }
            }
        }
        CaptureKind::RegexFlags => {
            // `/pattern/flags`: the flags follow the last slash.
            let text = cx.a.node_text(node);
            let Some(slash) = text.rfind('/') else {
                return;
            };
            let flags = &text[slash + 1..];
            if flags.bytes().all(|b| matches!(b, b'g' | b'i' | b'm')) {
                return;
            }
            let span = Span::new(node.start_byte() + slash + 1, node.end_byte());
            let year = flags
                .chars()
                .map(|c| match c {
                    'g' | 'i' | 'm' => 1999,
                    'y' | 'u' => 2015,
                    's' => 2018,
                    'd' => 2022,
                    'v' => 2024,
                    _ => 1999,
                })
                .max()
                .unwrap_or(1999);
            above(
                cx,
                node,
                span,
                year,
                "regex-flags",
                "these regular expression flags",
                "use only `g`, `i` and `m`",
            );
        }
        CaptureKind::Number => {
            let t = cx.a.node_text(node);
            // Nearly every number is plain: decide that without allocating.
            if !t
                .bytes()
                .any(|b| matches!(b, b'b' | b'B' | b'o' | b'O' | b'n' | b'_'))
            {
                return;
            }
            let lower = t.to_ascii_lowercase();
            let (year, rule, what, hint) = if lower.starts_with("0b") || lower.starts_with("0o") {
                (
                    2015,
                    "binary-octal-literals",
                    "binary and octal literals",
                    "write the number in decimal or hex",
                )
            } else if lower.ends_with('n') && !lower.starts_with("0x") {
                (2020, "bigint", "BigInt literals", "use a plain number")
            } else if t.contains('_') {
                (
                    2021,
                    "numeric-separators",
                    "numeric separators",
                    "write the digits without `_`",
                )
            } else {
                return;
            };
            above(cx, node, span, year, rule, what, hint);
        }
        CaptureKind::ReservedProperty => reserved_property(cx, node),
        CaptureKind::TrailingObject => {
            trailing(cx, node, "trailing-commas", 2009, "object literals")
        }
        CaptureKind::TrailingArguments => {
            trailing(cx, node, "trailing-comma-arguments", 2017, "argument lists")
        }
        CaptureKind::TrailingParameters => trailing(
            cx,
            node,
            "trailing-comma-arguments",
            2017,
            "parameter lists",
        ),
        _ => {}
    }
}

/// The rewrite of a feature in the level's language, where one exists that keeps the
/// meaning: an editor applies it as a quick fix and the agent as an edit. Features
/// whose rewrite needs new statements elsewhere (destructuring, classes) get none.
fn rewrite(text: &str, key: &str, node: Node) -> Option<Fix> {
    match key {
        "let_const" => {
            // `let`/`const` → `var`: function scope is wider, so a name that shadowed
            // an outer one in a block is still visible; the checker's scopes already
            // treat both as function-scoped, so re-checking judges the same names.
            let kw = &text[node.byte_range()];
            Some(Fix::Replace {
                title: format!("Change `{kw}` to `var`"),
                span: Span::new(node.start_byte(), node.end_byte()),
                text: "var".into(),
                safe: true,
            })
        }
        "arrow_function" => arrow_to_function(text, node.parent()?),
        "template_literal" => template_to_concat(text, node),
        "default_parameter" => default_to_test(text, node.parent()?),
        _ => None,
    }
}

/// `(a, b) => a + b` → `function (a, b) { return a + b; }`. Not offered when the body
/// reads `this` or `arguments`: an arrow takes them from its surroundings and a
/// function expression does not, so the rewrite would change what runs.
fn arrow_to_function(text: &str, arrow: Node) -> Option<Fix> {
    if arrow.kind() != "arrow_function" {
        return None;
    }
    let body = arrow.child_by_field_name("body")?;
    let whole = &text[arrow.byte_range()];
    if whole.starts_with("async") || mentions_word(&text[body.byte_range()], &["this", "arguments"])
    {
        return None;
    }
    let params = match (
        arrow.child_by_field_name("parameters"),
        arrow.child_by_field_name("parameter"),
    ) {
        (Some(p), _) => text[p.byte_range()].to_string(),
        (None, Some(p)) => format!("({})", &text[p.byte_range()]),
        _ => return None,
    };
    let body_text = &text[body.byte_range()];
    let new_body = if body.kind() == "statement_block" {
        body_text.to_string()
    } else {
        format!("{{ return {body_text}; }}")
    };
    Some(Fix::Replace {
        title: "Rewrite as a function expression".into(),
        span: Span::new(arrow.start_byte(), arrow.end_byte()),
        text: format!("function {params} {new_body}"),
        safe: true,
    })
}

/// Whether `text` holds one of `words` as a whole identifier.
fn mentions_word(text: &str, words: &[&str]) -> bool {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    words.iter().any(|w| {
        text.match_indices(w).any(|(i, _)| {
            let before = text[..i].chars().next_back();
            let after = text[i + w.len()..].chars().next();
            !before.is_some_and(ident) && !after.is_some_and(ident)
        })
    })
}

/// `` `Total: ${n} items` `` → `"Total: " + n + " items"`. The literal parts keep their
/// escapes (a template's escapes are a string's, but for `` \` `` and `\$`) and gain
/// `\n` for raw line breaks; a substitution that is not a plain name, member or call
/// is parenthesised, so `+` cannot bind into it. A template starting with a
/// substitution starts with `""` so the result is a string whatever the first value is.
/// Tagged templates get nothing: the tag receives the parts, not a string.
fn template_to_concat(text: &str, tpl: Node) -> Option<Fix> {
    if tpl.parent().is_some_and(|p| p.kind() == "call_expression") {
        return None;
    }
    let (start, end) = (tpl.start_byte() + 1, tpl.end_byte().checked_sub(1)?);
    if end < start || !text[tpl.byte_range()].ends_with('`') {
        return None;
    }
    let mut parts: Vec<String> = Vec::new();
    let mut lit = String::new();
    let mut at = start;
    let flush_lit = |lit: &mut String, parts: &mut Vec<String>| {
        if !lit.is_empty() {
            parts.push(format!("\"{lit}\""));
            lit.clear();
        }
    };
    let mut cursor = tpl.walk();
    let subs: Vec<Node> = tpl
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "template_substitution")
        .collect();
    let push_literal = |raw: &str, lit: &mut String| {
        let mut chars = raw.chars();
        while let Some(c) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some('`') => lit.push('`'),
                    Some('$') => lit.push('$'),
                    Some('\n') => {}
                    Some(n) => {
                        lit.push('\\');
                        lit.push(n);
                    }
                    None => lit.push_str("\\\\"),
                },
                '"' => lit.push_str("\\\""),
                '\n' => lit.push_str("\\n"),
                '\r' => lit.push_str("\\r"),
                c => lit.push(c),
            }
        }
    };
    for sub in &subs {
        push_literal(&text[at..sub.start_byte()], &mut lit);
        flush_lit(&mut lit, &mut parts);
        let expr = sub.named_child(0)?;
        let e = &text[expr.byte_range()];
        let plain = matches!(
            expr.kind(),
            "identifier"
                | "member_expression"
                | "call_expression"
                | "subscript_expression"
                | "string"
                | "number"
                | "parenthesized_expression"
        );
        parts.push(if plain {
            e.to_string()
        } else {
            format!("({e})")
        });
        at = sub.end_byte();
    }
    push_literal(&text[at..end], &mut lit);
    flush_lit(&mut lit, &mut parts);
    if parts.is_empty() {
        parts.push("\"\"".into());
    }
    if !parts[0].starts_with('"') {
        parts.insert(0, "\"\"".into());
    }
    let mut joined = parts.join(" + ");
    // Inside a wider expression (`tpl.length`, `a * tpl`) the sum needs parentheses.
    let bare = tpl.parent().is_none_or(|p| {
        matches!(
            p.kind(),
            "arguments"
                | "variable_declarator"
                | "assignment_expression"
                | "return_statement"
                | "expression_statement"
                | "pair"
                | "array"
                | "parenthesized_expression"
                | "template_substitution"
        )
    });
    if !bare && parts.len() > 1 {
        joined = format!("({joined})");
    }
    Some(Fix::Replace {
        title: "Rewrite as string concatenation".into(),
        span: Span::new(tpl.start_byte(), tpl.end_byte()),
        text: joined,
        safe: true,
    })
}

/// `function f(a, b = 1) {` → `function f(a, b) {` and `if (b === undefined) { b = 1; }`
/// as the body's first statement: ES2015 applies a default exactly when the argument is
/// `undefined`. One replacement from the parameter's name to the body's `{`, so the fix
/// is a single edit; other parameters in between are copied as they are.
fn default_to_test(text: &str, pat: Node) -> Option<Fix> {
    if pat.kind() != "assignment_pattern" {
        return None;
    }
    let (left, right) = (
        pat.child_by_field_name("left")?,
        pat.child_by_field_name("right")?,
    );
    let params = pat.parent().filter(|p| p.kind() == "formal_parameters")?;
    let func = params.parent()?;
    let body = func
        .child_by_field_name("body")
        .filter(|b| b.kind() == "statement_block")?;
    if left.kind() != "identifier" || body.start_byte() < right.end_byte() {
        return None;
    }
    let name = &text[left.byte_range()];
    let value = &text[right.byte_range()];
    let line_start = text[..func.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let kept = &text[right.end_byte()..body.start_byte() + 1];
    Some(Fix::Replace {
        title: format!("Test `{name}` for `undefined` in the body"),
        span: Span::new(left.end_byte(), body.start_byte() + 1),
        text: format!("{kept}\n{indent}    if ({name} === undefined) {{ {name} = {value}; }}"),
        safe: true,
    })
}

/// A reserved word as a property name: `a.class`, `{ default: 1 }`. ES3 reads the word
/// as the keyword and the script does not parse on the engine, though every ES5 parser
/// (and `node --check`) passes it. A name the docs use as a member is the engine's own
/// and never flagged.
fn reserved_property(cx: &mut Ctx, prop: Node) {
    if 2009 <= cx.level || cx.corpus.engine.allows("reserved-property-names") {
        return;
    }
    let name = cx.a.node_text(prop);
    let documented = cx
        .corpus
        .interfaces
        .values()
        .any(|i| i.members.contains_key(name));
    if documented {
        return;
    }
    let Some(parent) = prop.parent() else {
        return;
    };
    let (span, text, how) = match parent.kind() {
        "member_expression" => {
            // From the dot: `a.class` becomes `a["class"]`.
            let before = &cx.text[..prop.start_byte()];
            let dot = before.trim_end().len();
            if !before[..dot].ends_with('.') || before[..dot].ends_with("?.") {
                return;
            }
            (
                Span::new(dot - 1, prop.end_byte()),
                format!("[\"{name}\"]"),
                format!("write `[\"{name}\"]`"),
            )
        }
        "pair" => (
            Span::new(prop.start_byte(), prop.end_byte()),
            format!("\"{name}\""),
            format!("quote the key: `\"{name}\"`"),
        ),
        _ => return,
    };
    let msg = format!(
        "`{name}` is a reserved word: as a property name it is {}; this engine runs {}: {how}",
        grounded_es::edition_name(2009),
        cx.level_name()
    );
    let f = cx.push(prop.start_byte(), prop.end_byte(), Code::Syntax, msg);
    f.fixes.push(Fix::Replace {
        title: format!("Replace with {text}"),
        span,
        text,
        safe: true,
    });
}

/// A comma right before the closing token of a list (the walk found it by the text).
fn trailing(cx: &mut Ctx, list: Node, rule: &str, year: u16, where_: &str) {
    if year <= cx.level || cx.corpus.engine.allows(rule) || in_error(cx, list) {
        return;
    }
    let end = list.end_byte().saturating_sub(1);
    let Some(comma) = cx.text[list.start_byte()..end].rfind(',') else {
        return;
    };
    let at = list.start_byte() + comma;
    let span = Span::new(at, at + 1);
    let msg = format!(
        "a trailing comma in {where_} is {}; this engine runs {}: delete the comma",
        grounded_es::edition_name(year),
        cx.level_name()
    );
    let f = cx.push(span.start, span.end, Code::Syntax, msg);
    f.fixes.push(Fix::Replace {
        title: "Delete the trailing comma".into(),
        span,
        text: String::new(),
        safe: true,
    });
}

/// Whether `node` lies inside a part the parser could not parse: what it made of the
/// text there is a guess (a `for` header read as destructuring), and the parse error
/// is the one report.
fn in_error(cx: &Ctx, node: Node) -> bool {
    if !cx.a.tree().root_node().has_error() {
        return false;
    }
    let mut n = node.parent();
    while let Some(p) = n {
        if p.is_error() {
            return true;
        }
        n = p.parent();
    }
    false
}

/// Whether `kind` is a list of statements (what [`statement_slot`] counts in).
fn is_statement_list(kind: &str) -> bool {
    matches!(
        kind,
        "program" | "statement_block" | "switch_case" | "switch_default" | "class_body"
    )
}

/// A walk in document order that knows each node's [`statement_slot`] from its own
/// path: each ancestor of the node it is on (below the walk's root), with the index
/// among that ancestor's children of the child it went into.
///
/// Why: `statement_slot` finds a node's index by listing its list's children, and each
/// `Node::parent` searches down from the root: on an 84,000-line script with parse
/// errors, reading them was 5% of the check, every error paying for every top-level
/// statement twice (issue 48).
struct SlotWalk<'t> {
    cursor: tree_sitter::TreeCursor<'t>,
    path: Vec<(Node<'t>, usize)>,
}

impl<'t> SlotWalk<'t> {
    /// A walk of `root`'s subtree, on `root`.
    fn new(root: Node<'t>) -> SlotWalk<'t> {
        SlotWalk {
            cursor: root.walk(),
            path: Vec::new(),
        }
    }

    /// The node the walk is on.
    fn node(&self) -> Node<'t> {
        self.cursor.node()
    }

    /// [`statement_slot`] of the node the walk is on: from the path, or asked of the
    /// node when no ancestor on the path is a list of statements (a statement re-checked
    /// alone, whose list lies above the walk's root).
    fn slot(&self) -> Option<(usize, usize)> {
        self.path
            .iter()
            .rev()
            .find(|(p, _)| is_statement_list(p.kind()))
            .map(|&(p, i)| (p.id(), i))
            .or_else(|| statement_slot(self.node()))
    }

    /// Moves to the next node: into the current node's children when `descend`, else
    /// past them. `false` when the subtree is done.
    fn advance(&mut self, descend: bool) -> bool {
        let node = self.node();
        if descend && self.cursor.goto_first_child() {
            self.path.push((node, 0));
            return true;
        }
        loop {
            if self.cursor.goto_next_sibling() {
                if let Some(top) = self.path.last_mut() {
                    top.1 += 1;
                }
                return true;
            }
            if !self.cursor.goto_parent() {
                return false;
            }
            self.path.pop();
        }
    }
}

/// The statement holding `node` as `(the list it stands in, its index there)`: what
/// one parse error is counted by.
fn statement_slot(node: Node) -> Option<(usize, usize)> {
    let mut n = node;
    while let Some(p) = n.parent() {
        if is_statement_list(p.kind()) {
            let mut c = p.walk();
            let i = p.children(&mut c).position(|ch| ch.id() == n.id())?;
            return Some((p.id(), i));
        }
        n = p;
    }
    None
}

/// Every parse error: `ERROR` nodes (what could not be parsed) and `MISSING` nodes (a
/// token the parser had to invent), once: the parser's recovery often leaves a second
/// error in the same statement or the next one (`log(1` then a missing `)` two lines
/// on), which is the same mistake reported again.
pub(crate) fn parse_errors(cx: &mut Ctx, root: Node) {
    if !root.has_error() {
        return;
    }
    super::unplaced::drop_unplaced(cx, root);
    let e4x = cx.corpus.engine.allows("e4x");
    let mut last: Option<(usize, usize)> = None;
    let mut walk = SlotWalk::new(root);
    loop {
        let node = walk.node();
        let mut descend = node.has_error();
        let bad = node.is_error() || node.is_missing();
        if bad && e4x && super::unplaced::e4x_lines(cx.text, node) {
            // tree-sitter does not parse E4X; on an engine that lists it, its shapes are
            // the script's own syntax, not errors.
            descend = false;
        } else if bad
            && {
                let slot = walk.slot();
                let same = matches!((last, slot), (Some((l, i)), Some((m, j))) if l == m && (j == i || j == i + 1));
                if !same {
                    last = slot;
                }
                same
            }
        {
            descend = false;
        } else if node.is_error() {
            descend = false;
            let text = cx.a.node_text(node);
            let first_line = text.lines().next().unwrap_or("").trim_end();
            let end = node.start_byte() + first_line.len().max(1).min(text.len().max(1));
            let end = end.min(cx.text.len()).max(node.start_byte());
            let shown: String = first_line.chars().take(40).collect();
            let msg = if shown.is_empty() {
                "the script cannot be parsed here".to_string()
            } else {
                format!("the script cannot be parsed here: unexpected `{shown}`")
            };
            cx.push(node.start_byte(), end, Code::Syntax, msg);
        } else if node.is_missing() {
            descend = false;
            let msg = format!(
                "the script cannot be parsed here: `{}` is missing",
                node.kind()
            );
            cx.push(node.start_byte(), node.end_byte(), Code::Syntax, msg);
        }
        if !walk.advance(descend) {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The walk's path (each ancestor with the index of the child taken, kept as the
    /// cursor moves: `SlotWalk`, the walk of `parse_errors`) gives every node the slot
    /// `statement_slot` finds from the node alone: in nested blocks, `switch` cases and
    /// class bodies, with comments between statements, and in broken texts whose
    /// recovery leaves `ERROR` and `MISSING` nodes.
    #[test]
    fn the_walks_path_gives_each_node_its_statement_slot() {
        let base = "var a = 1; // one\nfunction f(x) {\n  if (x) { g(x); /* two */ h(); }\n  \
                    switch (x) { case 1: a++; break; default: f(2); }\n}\n\
                    class C { m() { return 1; } }\nwhile (a < 3) { a++; }\n";
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut checked = 0;
        for round in 0..200 {
            let mut t: Vec<char> = base.chars().collect();
            for _ in 0..(round % 6) {
                let i = next(t.len());
                match next(3) {
                    0 => {
                        t.remove(i);
                    }
                    1 => t.insert(i, ['{', '}', '(', ')', ';', ','][next(6)]),
                    _ => t[i] = ['{', '}', '('][next(3)],
                }
            }
            let text: String = t.into_iter().collect();
            let tree = grounded_js::parse(&text);
            let mut walk = SlotWalk::new(tree.root_node());
            loop {
                let node = walk.node();
                assert_eq!(
                    walk.slot(),
                    statement_slot(node),
                    "{text:?}: {}",
                    node.kind()
                );
                checked += 1;
                if !walk.advance(true) {
                    break;
                }
            }
        }
        assert!(checked > 10_000, "{checked} nodes");
    }
}

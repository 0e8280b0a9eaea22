//! Guards: a feature test keeps the code it guards from the `engine` and `object`
//! families, and a tested member from the `member` family.
//!
//! What: `if (typeof JSON !== "undefined" && JSON.parse)`, `if (Object.keys) { ... }`,
//! `"indexOf" in Array.prototype ? a.indexOf(x) : loop(a, x)`. A test of `typeof X`,
//! of `X.y` or of `"y" in X` guards the rest of the same condition (`&&`, `?:`) and the
//! branches of the `if` or `?:` it controls; the test itself only reads a value that
//! may be `undefined`, which is what it is for.
//!
//! Members: the tested member itself is not judged (`typeof app.vignetteKey !==
//! "undefined"`, `"vignetteKey" in app`, `app.vignetteKey && ...`), nor that member of
//! that receiver where the test guards it, nor after an early exit of the enclosing
//! block when the test fails (`if (!app.vignetteKey) return;`). Only that member of
//! that receiver: `typeof app.a && app.b` still reports `b`, and a test of `app` alone
//! guards none of its members (the receiver is certain; its members are what is asked).
//!
//! Why: real scripts that run on several engines (or several versions of one) test
//! before they use: four such tests in 130 scripts drew wrong `engine` findings, and
//! member tests drew 12 wrong `member` findings in 4 real scripts. A guard is read
//! only around a finding (the few that exist), so clean code pays nothing.

use tree_sitter::Node;

use super::{Code, Ctx};

/// Drops the `engine`, `object` and `member` findings that a feature test guards, or
/// that are the test.
pub(crate) fn drop_guarded(cx: &mut Ctx, root: Node) {
    if !cx
        .out
        .iter()
        .any(|f| matches!(f.code, Code::Engine | Code::Object | Code::Member))
    {
        return;
    }
    let text = cx.text;
    // The ancestors are read down from the tree's root (`root` is a statement when one
    // is re-checked alone), as `Node::parent` would give them.
    let mut top: Option<Node> = None;
    let mut exits = Exits::default();
    cx.out.retain(|f| {
        !matches!(f.code, Code::Engine | Code::Object | Code::Member)
            || !root
                .descendant_for_byte_range(f.span.start, f.span.end)
                .is_some_and(|n| {
                    let top = *top.get_or_insert_with(|| {
                        let mut t = root;
                        while let Some(p) = t.parent() {
                            t = p;
                        }
                        t
                    });
                    let up = ancestors(top, n);
                    guarded(text, n, &up, f.code == Code::Member, &mut exits)
                })
    });
}

/// Whether the member name at `span` of a script's `text` is a tested member, or one
/// that a test of it guards: the dry run's fake engine sees every read, the test's
/// own (`typeof app.key`) and the guarded ones, and the same rule keeps them silent.
pub fn member_guarded(text: &str, span: super::Span) -> bool {
    let tree = grounded_js::parse(text);
    let root = tree.root_node();
    let found = root
        .descendant_for_byte_range(span.start, span.end)
        .is_some_and(|n| {
            n.kind() == "property_identifier"
                && guarded(text, n, &ancestors(root, n), true, &mut Exits::default())
        });
    found
}

/// The ancestors of `node`, from the root of its tree (`top`) down to its parent: what
/// `Node::parent` gives one by one, read in one descent.
///
/// Why: `Node::parent` searches down from the tree's root at every call, through the
/// root's children one by one, so walking a finding's ancestors up cost its depth times
/// the script's statements: on a 100,000-line script the guards of its findings were
/// an eighth of the whole check (perf).
fn ancestors<'t>(top: Node<'t>, node: Node<'t>) -> Vec<Node<'t>> {
    if let Some(up) = descend(top, node) {
        return up;
    }
    // Not reached by byte offsets (a node of no width among others at its offset): one
    // parent at a time, as before.
    let mut up = Vec::new();
    let mut cur = node;
    while let Some(p) = cur.parent() {
        up.push(p);
        cur = p;
    }
    up.reverse();
    up
}

/// The nodes from `top` down to `node`'s parent, stepping into the child that holds
/// `node`'s first byte; `None` when that does not lead to `node` itself.
fn descend<'t>(top: Node<'t>, node: Node<'t>) -> Option<Vec<Node<'t>>> {
    let (s, e) = (node.start_byte(), node.end_byte());
    let mut c = top.walk();
    let mut up = Vec::new();
    loop {
        let cur = c.node();
        if cur.id() == node.id() {
            return Some(up);
        }
        up.push(cur);
        c.goto_first_child_for_byte(s)?;
        let child = c.node();
        if child.start_byte() > s || child.end_byte() < e {
            return None;
        }
    }
}

/// Each block's early exits (see [`exits_before`]), read once per block for all the
/// findings of a check, and only as far as a finding asks: reading them for each
/// finding went through every statement before it, a script's every top-level
/// statement for each finding.
#[derive(Default)]
struct Exits<'t> {
    by_block: std::collections::HashMap<usize, BlockExits<'t>>,
}

/// The early exits of one block read so far.
struct BlockExits<'t> {
    /// The start byte and the condition of each `if (TEST) return/throw ...;` without
    /// `else` read so far, in order.
    found: Vec<(usize, Node<'t>)>,
    /// On the first statement not read yet; `None` when all are read.
    cursor: Option<tree_sitter::TreeCursor<'t>>,
}

/// Whether the finding at `node` (a name: `JSON`, `keys` of `Object.keys`, `map` of
/// `[].map`, a member's name) is a feature test or sits where one guards it. `member`:
/// only a test of that very member guards it. `up`: `node`'s ancestors ([`ancestors`]).
fn guarded<'t>(
    text: &str,
    node: Node<'t>,
    up: &[Node<'t>],
    member: bool,
    exits: &mut Exits<'t>,
) -> bool {
    let Some((value, up, key)) = value_of(text, node, up, member) else {
        return false;
    };
    // `if (Object.keys)` reads a property that may be `undefined`: safe. A bare global
    // is safe only under `typeof` (`if (JSON)` throws where there is no `JSON`), and
    // `typeof X` is no site of the families.
    if value.kind() == "member_expression" && is_test(text, value, up, member) {
        return true;
    }
    guarded_above(text, value, up, &key, member, exits)
}

/// The value a finding at `node` names (the member expression whose property it is, or
/// the name with the member expressions it heads: `JSON` of `JSON.parse`), its
/// ancestors (of `up`, `node`'s), and its text without white space; `None` for a member
/// finding on no member expression.
fn value_of<'t, 'u>(
    text: &str,
    node: Node<'t>,
    up: &'u [Node<'t>],
    member: bool,
) -> Option<(Node<'t>, &'u [Node<'t>], String)> {
    let mut value = node;
    let mut value_up = up;
    if let Some((&p, rest)) = up.split_last() {
        if p.kind() == "member_expression" && p.child_by_field_name("property") == Some(node) {
            value = p;
            value_up = rest;
        }
    }
    if member && value.kind() != "member_expression" {
        return None;
    }
    let key: String = text
        .get(value.byte_range())
        .unwrap_or("")
        .split_whitespace()
        .collect();
    Some((value, value_up, key))
}

/// Drops the findings that a test around `outer` guards: `root` is a nested statement
/// analysed alone (its findings already passed [`drop_guarded`]), `outer` the same
/// statement in the file's tree, whose ancestors and earlier statements are the
/// tests around it (`if (app.key) { for (...) { app.key(i); } }`).
pub(crate) fn drop_guarded_around(cx: &mut Ctx, root: Node, outer: Node) {
    let text = cx.text;
    let mut outer_up: Option<Vec<Node>> = None;
    let mut exits = Exits::default();
    cx.out.retain(|f| {
        if !matches!(f.code, Code::Engine | Code::Object | Code::Member) {
            return true;
        }
        let member = f.code == Code::Member;
        // Only the name's parent is read here (the statement is small).
        let key = root
            .descendant_for_byte_range(f.span.start, f.span.end)
            .and_then(|n| {
                let parent: Vec<Node> = n.parent().into_iter().collect();
                value_of(text, n, &parent, member).map(|v| v.2)
            });
        !key.is_some_and(|key| {
            let up = outer_up.get_or_insert_with(|| {
                let mut out_top = outer;
                while let Some(p) = out_top.parent() {
                    out_top = p;
                }
                ancestors(out_top, outer)
            });
            guarded_above(text, outer, up, &key, member, &mut exits)
        })
    });
}

/// Whether a test of `key` guards `cur` (whose ancestors are `up`), read from its
/// ancestors up (see [`guarded`]).
fn guarded_above<'t>(
    text: &str,
    mut cur: Node<'t>,
    up: &[Node<'t>],
    key: &str,
    member: bool,
    exits: &mut Exits<'t>,
) -> bool {
    for &p in up.iter().rev() {
        let guard = match p.kind() {
            "binary_expression" if operator(text, p) == "&&" => {
                p.child_by_field_name("right") == Some(cur)
                    && p.child_by_field_name("left")
                        .is_some_and(|l| tests(text, l, key, member))
            }
            "ternary_expression" | "if_statement" => {
                p.child_by_field_name("condition") != Some(cur)
                    && p.child_by_field_name("condition")
                        .is_some_and(|c| tests(text, c, key, member))
            }
            "statement_block" | "program" if member => exits_before(text, p, cur, key, exits),
            _ => false,
        };
        if guard {
            return true;
        }
        cur = p;
    }
    false
}

/// Whether a statement of `block` before `stmt` is `if (TEST) return/throw ...;` whose
/// test is of `key`: a function (or script) that leaves early when the test fails.
/// The test's sense is not weighed: a miss costs less than a wrong accusation.
fn exits_before<'t>(
    text: &str,
    block: Node<'t>,
    stmt: Node<'t>,
    key: &str,
    exits: &mut Exits<'t>,
) -> bool {
    let until = stmt.start_byte();
    let read = exits.by_block.entry(block.id()).or_insert_with(|| {
        let mut c = block.walk();
        let any = c.goto_first_child();
        BlockExits {
            found: Vec::new(),
            cursor: any.then_some(c),
        }
    });
    while let Some(c) = &mut read.cursor {
        let s = c.node();
        if s.start_byte() >= until {
            break;
        }
        if s.is_named() {
            if let Some(cond) = early_exit(s) {
                read.found.push((s.start_byte(), cond));
            }
        }
        if !c.goto_next_sibling() {
            read.cursor = None;
        }
    }
    read.found
        .iter()
        .take_while(|(start, _)| *start < until)
        .any(|&(_, cond)| tests(text, cond, key, true))
}

/// The condition of `s` when it is `if (TEST) return/throw ...;` without `else`.
fn early_exit(s: Node) -> Option<Node> {
    if s.kind() != "if_statement" || s.child_by_field_name("alternative").is_some() {
        return None;
    }
    let exits = s.child_by_field_name("consequence").is_some_and(|b| {
        let last = if b.kind() == "statement_block" {
            b.named_child(b.named_child_count().saturating_sub(1))
        } else {
            Some(b)
        };
        last.is_some_and(|l| matches!(l.kind(), "return_statement" | "throw_statement"))
    });
    if exits {
        s.child_by_field_name("condition")
    } else {
        None
    }
}

fn operator<'t>(text: &'t str, bin: Node) -> &'t str {
    bin.child_by_field_name("operator")
        .and_then(|o| text.get(o.byte_range()))
        .unwrap_or("")
}

/// Whether `o` is `null` or `undefined`: the values a comparison that tests a member's
/// existence compares it with.
fn is_absent(text: &str, o: Node) -> bool {
    let mut o = o;
    while o.kind() == "parenthesized_expression" {
        match o.named_child(0) {
            Some(i) => o = i,
            None => return false,
        }
    }
    matches!(o.kind(), "null" | "undefined") || text.get(o.byte_range()) == Some("undefined")
}

/// Whether `o` is a literal default value: a number (`-1` too), a string, a template
/// without substitutions, `null`, `undefined`, `true`/`false`, or an array or object
/// literal (whatever it holds: `{}` and `{ x: 0 }` are both a value, not a feature).
fn is_default_value(text: &str, o: Node) -> bool {
    let mut o = o;
    while o.kind() == "parenthesized_expression" {
        match o.named_child(0) {
            Some(i) => o = i,
            None => return false,
        }
    }
    match o.kind() {
        "number" | "string" | "null" | "undefined" | "true" | "false" | "array" | "object" => true,
        "template_string" => {
            let mut c = o.walk();
            let plain = !o
                .named_children(&mut c)
                .any(|k| k.kind() == "template_substitution");
            plain
        }
        "unary_expression" => {
            let op = o.child(0).map(|x| x.kind()).unwrap_or("");
            matches!(op, "-" | "+")
                && o.child_by_field_name("argument")
                    .is_some_and(|a| a.kind() == "number")
        }
        "identifier" => text.get(o.byte_range()) == Some("undefined"),
        _ => false,
    }
}

/// Whether the value `e` is only tested: an operand of `!`, `&&`, `||`, `typeof`, or
/// a comparison, or a whole condition. `member`: a comparison tests it only against
/// `null` or `undefined` (`app.key !== null`), not a value it may hold: `doc.pagse ==
/// 3` and `doc.nameX == "a"` read the member and compare what it holds, a use and a
/// misspelt one (a string here kept 11 real misspellings from ever being judged).
fn is_test(text: &str, e: Node, up: &[Node], member: bool) -> bool {
    let mut cur = e;
    let mut tested = false;
    for &p in up.iter().rev() {
        match p.kind() {
            "parenthesized_expression" => {}
            "unary_expression" => {
                let op = p.child(0).map(|o| o.kind()).unwrap_or("");
                if op != "!" && op != "typeof" {
                    return false;
                }
                tested = true;
            }
            "binary_expression" => {
                let op = p
                    .child_by_field_name("operator")
                    .map(|o| o.kind())
                    .unwrap_or("");
                if !matches!(op, "&&" | "||" | "==" | "!=" | "===" | "!==") {
                    return false;
                }
                // `typeof app.a && app.b`: the right operand is the expression's
                // value, used, not tested (a guard of `a` is no test of `b`). One that
                // is already a test is still one there: `if (!api.lib ||
                // !api.lib.getAsync) return;` and `!("kids" in n) || typeof n.flatten
                // !== "function"` ask whether the member exists (two such tests in
                // real Figma plugins drew wrong `member` findings).
                if member
                    && !tested
                    && matches!(op, "&&" | "||")
                    && p.child_by_field_name("right") == Some(cur)
                {
                    return false;
                }
                // `node.width || 0`, `comp.description || "No description"`: a literal
                // fallback is the value's default, not another way to the same feature
                // (`app.newThing || app.oldThing` stays a test). Read as a test, it kept
                // 5 of the 6 missed misspellings on union and callback receivers of real
                // Figma plugins from ever being judged; by the docs an undocumented
                // member's read is always the default.
                // Only the member's own fallback decides: in `a.b || c.d || 0`, `a.b`'s
                // is `c.d`. (`??` was never a test, so `x.y ?? 0` is judged already.)
                if member
                    && op == "||"
                    && !tested
                    && p.child_by_field_name("left") == Some(cur)
                    && p.child_by_field_name("right")
                        .is_some_and(|r| is_default_value(text, r))
                {
                    return false;
                }
                if member && !matches!(op, "&&" | "||") {
                    let other = if p.child_by_field_name("left") == Some(cur) {
                        p.child_by_field_name("right")
                    } else {
                        p.child_by_field_name("left")
                    };
                    if !other.is_some_and(|o| is_absent(text, o)) && !tested {
                        return false;
                    }
                }
                tested = true;
            }
            "if_statement" | "while_statement" | "do_statement" => {
                return p.child_by_field_name("condition") == Some(cur) || tested;
            }
            "ternary_expression" => {
                return p.child_by_field_name("condition") == Some(cur) || tested;
            }
            _ => return tested,
        }
        cur = p;
    }
    tested
}

/// Whether the condition `c` tests `key` (`JSON`, `Object.keys`,
/// `Array.prototype.indexOf`) or what holds it: `typeof X`, `X.y`, `"y" in X`, joined
/// by `&&`, `||`, `!` and comparisons. `member`: `key` itself only.
fn tests(text: &str, c: Node, key: &str, member: bool) -> bool {
    let covers = |tested: &str| {
        let tested: String = tested.split_whitespace().collect();
        !tested.is_empty() && (key == tested || (!member && key.starts_with(&format!("{tested}."))))
    };
    let mut stack = vec![c];
    while let Some(n) = stack.pop() {
        match n.kind() {
            "parenthesized_expression" => stack.extend(n.named_child(0)),
            "unary_expression" => {
                if let Some(arg) = n.child_by_field_name("argument") {
                    let op = n.child(0).map(|o| o.kind()).unwrap_or("");
                    if op == "typeof" && covers(text.get(arg.byte_range()).unwrap_or("")) {
                        return true;
                    }
                    stack.push(arg);
                }
            }
            "binary_expression" => {
                let (Some(l), Some(r)) = (
                    n.child_by_field_name("left"),
                    n.child_by_field_name("right"),
                ) else {
                    continue;
                };
                let op = operator(text, n);
                if member && matches!(op, "==" | "!=" | "===" | "!==") {
                    // `app.key != null` tests `key`; `doc.name == "a"` uses it (see
                    // [`is_test`]): only an operand compared with an absent value, or
                    // under `typeof`, is a test.
                    for (x, other) in [(l, r), (r, l)] {
                        let typed = x.kind() == "unary_expression"
                            && x.child(0)
                                .is_some_and(|o| matches!(o.kind(), "typeof" | "!"));
                        if is_absent(text, other) || typed {
                            stack.push(x);
                        }
                    }
                    continue;
                }
                if op == "in" && l.kind() == "string" {
                    let name = text
                        .get(l.byte_range())
                        .unwrap_or("")
                        .trim_matches(['"', '\'']);
                    let holder = text.get(r.byte_range()).unwrap_or("");
                    let holder: String = holder.split_whitespace().collect();
                    if covers(&format!("{holder}.{name}")) {
                        return true;
                    }
                    continue;
                }
                stack.push(l);
                stack.push(r);
            }
            "member_expression" | "identifier"
                if covers(text.get(n.byte_range()).unwrap_or("")) =>
            {
                return true;
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node's ancestors as `Node::parent` gives them one at a time.
    fn by_parent(node: Node) -> Vec<Node> {
        let mut up = Vec::new();
        let mut cur = node;
        while let Some(p) = cur.parent() {
            up.push(p);
            cur = p;
        }
        up.reverse();
        up
    }

    #[test]
    fn ancestors_read_down_are_those_read_up() {
        // Nesting, tokens, comments, a template, and broken code (error and missing
        // nodes, some of no width) where the descent may not reach a node.
        for text in [
            "if (app.x) { for (var i = 0; i < 3; i++) { f(app.x(i), `a${b.c}`); } }\n// end\n",
            "function f(a) { if (!a.b) return; var t = a.b.c; return t ? t.d : null; }",
            "var x = {a: [1, 2, {b: (c)}]}; x.a[2].b;",
            "if (a.b { c.d(; } var = ;\nfunction (",
            "a.b(\n",
            "",
        ] {
            let tree = grounded_js::parse(text);
            let root = tree.root_node();
            let mut walk = grounded_js::Preorder::new(root);
            let mut seen = 0;
            while let Some((node, _)) = walk.next() {
                let want = by_parent(node);
                let got = ancestors(root, node);
                assert_eq!(
                    got.iter().map(|n| n.id()).collect::<Vec<_>>(),
                    want.iter().map(|n| n.id()).collect::<Vec<_>>(),
                    "{text:?} at {}",
                    node.kind()
                );
                seen += 1;
            }
            assert!(seen > 0);
        }
    }

    #[test]
    fn an_early_exit_guards_only_what_follows_it() {
        let text = "app.key(0);\nif (!app.key) return;\napp.key(1);\n";
        let tree = grounded_js::parse(text);
        let root = tree.root_node();
        let mut exits = Exits::default();
        let at = |n: usize| {
            let s = text.match_indices("key").nth(n).unwrap().0;
            root.descendant_for_byte_range(s, s + 3).unwrap()
        };
        // Asked out of order, from one cache: the last use is guarded, the first not.
        for (n, want) in [(2, true), (0, false), (2, true)] {
            let node = at(n);
            let up = ancestors(root, node);
            assert_eq!(guarded(text, node, &up, true, &mut exits), want, "use {n}");
        }
    }
}

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
    cx.out.retain(|f| {
        !matches!(f.code, Code::Engine | Code::Object | Code::Member)
            || !root
                .descendant_for_byte_range(f.span.start, f.span.end)
                .is_some_and(|n| guarded(text, n, f.code == Code::Member))
    });
}

/// Whether the member name at `span` of a script's `text` is a tested member, or one
/// that a test of it guards: the dry run's fake engine sees every read, the test's
/// own (`typeof app.key`) and the guarded ones, and the same rule keeps them silent.
pub fn member_guarded(text: &str, span: super::Span) -> bool {
    let tree = grounded_js::parse(text);
    let found = tree
        .root_node()
        .descendant_for_byte_range(span.start, span.end)
        .is_some_and(|n| n.kind() == "property_identifier" && guarded(text, n, true));
    found
}

/// Whether the finding at `node` (a name: `JSON`, `keys` of `Object.keys`, `map` of
/// `[].map`, a member's name) is a feature test or sits where one guards it. `member`:
/// only a test of that very member guards it.
fn guarded(text: &str, node: Node, member: bool) -> bool {
    let Some((value, key)) = value_of(text, node, member) else {
        return false;
    };
    // `if (Object.keys)` reads a property that may be `undefined`: safe. A bare global
    // is safe only under `typeof` (`if (JSON)` throws where there is no `JSON`), and
    // `typeof X` is no site of the families.
    if value.kind() == "member_expression" && is_test(text, value, member) {
        return true;
    }
    guarded_above(text, value, &key, member)
}

/// The value a finding at `node` names (the member expression whose property it is, or
/// the name with the member expressions it heads: `JSON` of `JSON.parse`), and its
/// text without white space; `None` for a member finding on no member expression.
fn value_of<'t>(text: &str, node: Node<'t>, member: bool) -> Option<(Node<'t>, String)> {
    let mut value = node;
    if let Some(p) = node.parent() {
        if p.kind() == "member_expression" && p.child_by_field_name("property") == Some(node) {
            value = p;
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
    Some((value, key))
}

/// Drops the findings that a test around `outer` guards: `root` is a nested statement
/// analysed alone (its findings already passed [`drop_guarded`]), `outer` the same
/// statement in the file's tree, whose ancestors and earlier statements are the
/// tests around it (`if (app.key) { for (...) { app.key(i); } }`).
pub(crate) fn drop_guarded_around(cx: &mut Ctx, root: Node, outer: Node) {
    let text = cx.text;
    cx.out.retain(|f| {
        if !matches!(f.code, Code::Engine | Code::Object | Code::Member) {
            return true;
        }
        let member = f.code == Code::Member;
        let key = root
            .descendant_for_byte_range(f.span.start, f.span.end)
            .and_then(|n| value_of(text, n, member));
        !key.is_some_and(|(_, key)| guarded_above(text, outer, &key, member))
    });
}

/// Whether a test of `key` guards `cur`, read from its ancestors up (see [`guarded`]).
fn guarded_above(text: &str, mut cur: Node, key: &str, member: bool) -> bool {
    while let Some(p) = cur.parent() {
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
            "statement_block" | "program" if member => exits_before(text, p, cur, key),
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
fn exits_before(text: &str, block: Node, stmt: Node, key: &str) -> bool {
    let mut c = block.walk();
    for s in block.named_children(&mut c) {
        if s.start_byte() >= stmt.start_byte() {
            break;
        }
        if s.kind() != "if_statement" || s.child_by_field_name("alternative").is_some() {
            continue;
        }
        let exits = s.child_by_field_name("consequence").is_some_and(|b| {
            let last = if b.kind() == "statement_block" {
                b.named_child(b.named_child_count().saturating_sub(1))
            } else {
                Some(b)
            };
            last.is_some_and(|l| matches!(l.kind(), "return_statement" | "throw_statement"))
        });
        if exits
            && s.child_by_field_name("condition")
                .is_some_and(|cond| tests(text, cond, key, true))
        {
            return true;
        }
    }
    false
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
fn is_test(text: &str, e: Node, member: bool) -> bool {
    let mut cur = e;
    let mut tested = false;
    while let Some(p) = cur.parent() {
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

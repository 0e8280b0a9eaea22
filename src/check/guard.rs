//! Guards: a feature test keeps the code it guards from the `engine` and `object`
//! families.
//!
//! What: `if (typeof JSON !== "undefined" && JSON.parse)`, `if (Object.keys) { ... }`,
//! `"indexOf" in Array.prototype ? a.indexOf(x) : loop(a, x)`. A test of `typeof X`,
//! of `X.y` or of `"y" in X` guards the rest of the same condition (`&&`, `?:`) and the
//! branches of the `if` or `?:` it controls; the test itself only reads a value that
//! may be `undefined`, which is what it is for.
//!
//! Why: real scripts that run on several engines test before they use, and four such
//! tests in 130 scripts drew wrong `engine` findings. A guard is read only around a
//! finding (the few that exist), so clean code pays nothing.

use tree_sitter::Node;

use super::{Code, Ctx};

/// Drops the `engine` and `object` findings that a feature test guards, or that are
/// the test.
pub(crate) fn drop_guarded(cx: &mut Ctx, root: Node) {
    if !cx
        .out
        .iter()
        .any(|f| matches!(f.code, Code::Engine | Code::Object))
    {
        return;
    }
    let text = cx.text;
    cx.out.retain(|f| {
        !matches!(f.code, Code::Engine | Code::Object)
            || !root
                .descendant_for_byte_range(f.span.start, f.span.end)
                .is_some_and(|n| guarded(text, n))
    });
}

/// Whether the finding at `node` (a name: `JSON`, `keys` of `Object.keys`, `map` of
/// `[].map`) is a feature test or sits where one guards it.
fn guarded(text: &str, node: Node) -> bool {
    // The value the finding names: the member expression whose property it is, or the
    // name with the member expressions it heads (`JSON` of `JSON.parse`).
    let mut value = node;
    if let Some(p) = node.parent() {
        if p.kind() == "member_expression" && p.child_by_field_name("property") == Some(node) {
            value = p;
        }
    }
    let key = text.get(value.byte_range()).unwrap_or("").to_string();
    // `if (Object.keys)` reads a property that may be `undefined`: safe. A bare global
    // is safe only under `typeof` (`if (JSON)` throws where there is no `JSON`), and
    // `typeof X` is no site of the families.
    if value.kind() == "member_expression" && is_test(value) {
        return true;
    }
    let mut cur = value;
    while let Some(p) = cur.parent() {
        let guard = match p.kind() {
            "binary_expression" if operator(text, p) == "&&" => {
                p.child_by_field_name("right") == Some(cur)
                    && p.child_by_field_name("left")
                        .is_some_and(|l| tests(text, l, &key))
            }
            "ternary_expression" => {
                p.child_by_field_name("condition") != Some(cur)
                    && p.child_by_field_name("condition")
                        .is_some_and(|c| tests(text, c, &key))
            }
            "if_statement" => {
                p.child_by_field_name("condition") != Some(cur)
                    && p.child_by_field_name("condition")
                        .is_some_and(|c| tests(text, c, &key))
            }
            _ => false,
        };
        if guard {
            return true;
        }
        cur = p;
    }
    false
}

fn operator<'t>(text: &'t str, bin: Node) -> &'t str {
    bin.child_by_field_name("operator")
        .and_then(|o| text.get(o.byte_range()))
        .unwrap_or("")
}

/// Whether the value `e` is only tested: an operand of `!`, `&&`, `||`, `typeof`, or
/// a comparison, or a whole condition.
fn is_test(e: Node) -> bool {
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
/// by `&&`, `||`, `!` and comparisons.
fn tests(text: &str, c: Node, key: &str) -> bool {
    let covers = |tested: &str| {
        let tested: String = tested.split_whitespace().collect();
        !tested.is_empty() && (key == tested || key.starts_with(&format!("{tested}.")))
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
                if operator(text, n) == "in" && l.kind() == "string" {
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

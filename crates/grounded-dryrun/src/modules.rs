//! ES modules and CommonJS in the fake engine: a script that imports, exports or
//! `require`s is rewritten, line for line, into a function the prelude runs as a module
//! (its own scope, its own `exports`), its imports into calls that give the corpus's
//! fake module objects or another project file's exports.
//!
//! Why a rewrite and not QuickJS's own module loader: the fake engine's objects are
//! Proxies built at run time from the corpus, and a module the loader compiles must name
//! its exports before it runs; and the run's places (file, line) must stay the script's.
//! Every rewritten statement keeps its line breaks, so every later line keeps its number.
//!
//! Owns the rewrite only; imports nothing of the dry run (the prelude gives the helpers
//! `__grounded_module__` and `__grounded_import__` their meaning).

use tree_sitter::Node;

/// The script as a module, or `None` when it neither imports nor exports nor uses
/// CommonJS's names (it then runs as global code, as before).
pub fn rewrite(rel: &str, text: &str, commonjs: bool) -> Option<String> {
    let tree = grounded_js::parse(text);
    let root = tree.root_node();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut tail = String::new();
    let mut is_module = false;
    let mut c = root.walk();
    let quoted_rel = json(rel);
    let mut n = 0usize;
    for stmt in root.named_children(&mut c) {
        match stmt.kind() {
            "import_statement" => {
                is_module = true;
                let Some(code) = import_code(text, stmt, &quoted_rel, &mut n) else {
                    continue;
                };
                edits.push((
                    stmt.start_byte(),
                    stmt.end_byte(),
                    keep_lines(text, stmt, code),
                ));
            }
            "export_statement" => {
                is_module = true;
                export_edit(text, stmt, &quoted_rel, &mut n, &mut edits, &mut tail);
            }
            _ => {}
        }
    }
    if !is_module && commonjs {
        is_module = ["require", "module", "exports"]
            .iter()
            .any(|w| grounded_js::Seed::words(text).any(|x| x == *w));
    }
    if !is_module {
        return None;
    }
    let mut out = String::with_capacity(text.len() + 256);
    out.push_str(&format!(
        "__grounded_module__({quoted_rel}, function (module, exports, require, __grounded_exports__) {{"
    ));
    let mut at = 0;
    edits.sort_by_key(|e| e.0);
    for (s, e, code) in edits {
        if s < at {
            continue;
        }
        out.push_str(&text[at..s]);
        out.push_str(&code);
        at = e;
    }
    out.push_str(&text[at..]);
    out.push_str("\n;");
    out.push_str(&tail);
    out.push_str("\n});");
    Some(out)
}

fn json(s: &str) -> String {
    serde_json::Value::from(s).to_string()
}

fn text_of<'t>(text: &'t str, n: Node) -> &'t str {
    text.get(n.byte_range()).unwrap_or("")
}

/// `code`, followed by as many line breaks as `stmt` spans, so later lines keep their
/// numbers.
fn keep_lines(text: &str, stmt: Node, code: String) -> String {
    let breaks = text_of(text, stmt).matches('\n').count();
    let mut out = code;
    for _ in 0..breaks {
        out.push('\n');
    }
    out
}

/// The specifier of a statement's `source`, as a JSON string.
fn source_of(text: &str, stmt: Node) -> Option<String> {
    let s = stmt.child_by_field_name("source")?;
    let lit = grounded_js::literal_text(text_of(text, s))?;
    Some(json(lit))
}

/// `import ... from "m"` as `var` declarations reading the module record.
fn import_code(text: &str, stmt: Node, rel: &str, n: &mut usize) -> Option<String> {
    let spec = source_of(text, stmt)?;
    *n += 1;
    let tmp = format!("__grounded_m{n}__");
    let mut decls = vec![format!("{tmp} = __grounded_import__({spec}, {rel})")];
    let mut c = stmt.walk();
    for kid in stmt.named_children(&mut c) {
        if kid.kind() != "import_clause" {
            continue;
        }
        let mut c2 = kid.walk();
        for part in kid.named_children(&mut c2) {
            match part.kind() {
                "identifier" => decls.push(format!("{} = {tmp}.d", text_of(text, part))),
                "namespace_import" => {
                    let mut c3 = part.walk();
                    let id = part
                        .named_children(&mut c3)
                        .find(|x| x.kind() == "identifier");
                    if let Some(id) = id {
                        decls.push(format!("{} = {tmp}.ns", text_of(text, id)));
                    }
                }
                "named_imports" => {
                    let mut c3 = part.walk();
                    for s in part.named_children(&mut c3) {
                        let Some(name) = s.child_by_field_name("name") else {
                            continue;
                        };
                        let written = text_of(text, name);
                        let imported = grounded_js::literal_text(written).unwrap_or(written);
                        let local = s.child_by_field_name("alias").unwrap_or(name);
                        let read = if imported == "default" {
                            format!("{tmp}.d")
                        } else {
                            format!("{tmp}.ns[{}]", json(imported))
                        };
                        decls.push(format!("{} = {read}", text_of(text, local)));
                    }
                }
                _ => {}
            }
        }
    }
    Some(format!("var {};", decls.join(", ")))
}

/// An `export` statement: the keyword blanked (or the default made an assignment), and
/// the exported names copied to the module's exports at its end.
fn export_edit(
    text: &str,
    stmt: Node,
    rel: &str,
    n: &mut usize,
    edits: &mut Vec<(usize, usize, String)>,
    tail: &mut String,
) {
    if let Some(spec) = source_of(text, stmt) {
        // `export { a } from "m"`, `export * from "m"`: the module is loaded.
        *n += 1;
        let mut code = format!("var __grounded_m{n}__ = __grounded_import__({spec}, {rel});");
        let mut c = stmt.walk();
        for kid in stmt.named_children(&mut c) {
            if kid.kind() == "export_clause" {
                let mut c2 = kid.walk();
                for s in kid.named_children(&mut c2) {
                    let Some(name) = s.child_by_field_name("name") else {
                        continue;
                    };
                    let local = s.child_by_field_name("alias").unwrap_or(name);
                    code.push_str(&format!(
                        " __grounded_exports__[{}] = __grounded_m{n}__.ns[{}];",
                        json(text_of(text, local)),
                        json(text_of(text, name))
                    ));
                }
            }
        }
        edits.push((
            stmt.start_byte(),
            stmt.end_byte(),
            keep_lines(text, stmt, code),
        ));
        return;
    }
    let is_default = {
        let mut c = stmt.walk();
        let found = stmt.children(&mut c).any(|k| k.kind() == "default");
        found
    };
    if is_default {
        // `export default <expr or declaration>` → `__grounded_exports__.default = ...`.
        let start = stmt.start_byte();
        let mut c = stmt.walk();
        let Some(default_kw) = stmt.children(&mut c).find(|k| k.kind() == "default") else {
            return;
        };
        edits.push((
            start,
            default_kw.end_byte(),
            "__grounded_exports__[\"default\"] =".into(),
        ));
        return;
    }
    // `export function f`, `export const a = 1`, `export { a, b as c }`: the keyword
    // (or the clause) blanked, column for column; the names exported at the end.
    let mut c = stmt.walk();
    for kid in stmt.named_children(&mut c) {
        match kid.kind() {
            "export_clause" => {
                let mut c2 = kid.walk();
                for s in kid.named_children(&mut c2) {
                    let Some(name) = s.child_by_field_name("name") else {
                        continue;
                    };
                    let alias = s.child_by_field_name("alias").unwrap_or(name);
                    tail.push_str(&format!(
                        "__grounded_exports__[{}] = {};\n",
                        json(text_of(text, alias)),
                        text_of(text, name)
                    ));
                }
                let blank: String = text_of(text, stmt)
                    .chars()
                    .map(|ch| if ch == '\n' { '\n' } else { ' ' })
                    .collect();
                edits.push((stmt.start_byte(), stmt.end_byte(), blank));
                return;
            }
            "function_declaration" | "generator_function_declaration" | "class_declaration" => {
                if let Some(name) = kid.child_by_field_name("name") {
                    let nm = text_of(text, name);
                    tail.push_str(&format!("__grounded_exports__[{}] = {nm};\n", json(nm)));
                }
            }
            "lexical_declaration" | "variable_declaration" => {
                let mut c2 = kid.walk();
                for d in kid.named_children(&mut c2) {
                    if let Some(name) = d
                        .child_by_field_name("name")
                        .filter(|x| x.kind() == "identifier")
                    {
                        let nm = text_of(text, name);
                        tail.push_str(&format!("__grounded_exports__[{}] = {nm};\n", json(nm)));
                    }
                }
            }
            _ => {}
        }
    }
    // The `export` keyword itself, blanked.
    let s = stmt.start_byte();
    edits.push((
        s,
        s + "export".len().min(stmt.end_byte() - s),
        "      ".into(),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_module_keeps_its_lines_and_global_code_is_left_alone() {
        let text = "import a, { b as c } from \"m\";\nimport * as ns from \"./x.js\";\nexport function f() {}\nexport default function () { c(); }\nexport { a };\n";
        let out = rewrite("s.js", text, false).unwrap();
        // Line for line: what was on line 3 and 4 is still there.
        let lines: Vec<&str> = out.lines().collect();
        assert!(
            lines[2].trim_start().starts_with("function f() {}"),
            "{out}"
        );
        assert!(
            lines[3].starts_with("__grounded_exports__[\"default\"] = function () { c(); }"),
            "{out}"
        );
        assert!(out.contains("c = __grounded_m1__.ns[\"b\"]"), "{out}");
        assert!(out.contains("ns = __grounded_m2__.ns"), "{out}");
        assert!(
            out.contains("__grounded_exports__[\"default\"] = function"),
            "{out}"
        );
        assert!(out.contains("__grounded_exports__[\"f\"] = f;"), "{out}");
        assert!(out.contains("__grounded_exports__[\"a\"] = a;"), "{out}");
        assert_eq!(rewrite("g.js", "var x = require;\n", false), None);
        assert!(rewrite("c.js", "var x = require(\"m\");\n", true).is_some());
    }
}

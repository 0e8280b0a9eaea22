//! Modules in the editor: completion of module names inside a specifier string and of a
//! module's exports inside `import { ... }`, hover on a specifier and on an import
//! binding, and the chunk (or project file) a specifier or import binding leads to.
//!
//! Owns what the editor says about modules; what a binding holds comes from the one
//! scope analysis (`js`), what a module exports from the corpus's `Module:` interfaces.
//! May import the parent `features`, `js`, `docs` and `check::module` (how a relative
//! specifier names a file).

use super::*;

/// The string node holding a module specifier at `offset`: the source of an `import` or
/// `export ... from`, or the first argument of `require(...)`.
pub fn specifier_at<'t>(tree: &'t Tree, text: &str, offset: usize) -> Option<Node<'t>> {
    let mut n = tree
        .root_node()
        .descendant_for_byte_range(offset.saturating_sub(1), offset)?;
    while !matches!(n.kind(), "string" | "program") {
        n = n.parent()?;
    }
    if n.kind() != "string" || offset <= n.start_byte() || offset > n.end_byte() {
        return None;
    }
    // After the closing quote is outside the string (an unterminated one runs on).
    let lit = text_of_bytes(n);
    if offset == n.end_byte() && lit.0 > 1 && lit.1 {
        return None;
    }
    let p = n.parent()?;
    let is_spec = match p.kind() {
        "import_statement" | "export_statement" => true,
        "arguments" => {
            let call = p.parent()?;
            let f = call.child_by_field_name("function")?;
            let mut c = p.walk();
            let first = p.named_children(&mut c).next();
            // Only `require` and `import()`: another call's string (a `path` loader's
            // `"./lib/x.js"`) is relative to the project root, not a module specifier.
            (f.kind() == "import" || (f.kind() == "identifier" && text_of(f, text) == "require"))
                && first.is_some_and(|a| a.id() == n.id())
                && call.kind() == "call_expression"
        }
        _ => false,
    };
    is_spec.then_some(n)
}

/// Whether the specifier string `s` is the argument of `require(...)` (not of an
/// `import` or `import()`).
fn is_require(s: Node, text: &str) -> bool {
    s.parent()
        .filter(|p| p.kind() == "arguments")
        .and_then(|p| p.parent())
        .and_then(|call| call.child_by_field_name("function"))
        .is_some_and(|f| f.kind() == "identifier" && text_of(f, text) == "require")
}

/// A string node's length in bytes and whether it ends with a closing quote (its last
/// child is the quote token, not a fragment).
fn text_of_bytes(n: Node) -> (usize, bool) {
    let len = n.end_byte() - n.start_byte();
    let closed = n.child_count() >= 2
        && n.child(n.child_count() - 1)
            .is_some_and(|c| !c.is_named() && !c.is_missing());
    (len, closed)
}

/// The text of a string node without its quotes.
fn inner<'s>(s: Node, text: &'s str) -> &'s str {
    let lit = text_of(s, text);
    lit.get(1..lit.len().saturating_sub(1)).unwrap_or("")
}

/// Completion inside a specifier string: the documented modules and the project's own
/// (`modules = [...]`), each with its interface; `None` outside one.
pub fn specifier_completion(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
) -> Option<Vec<CompletionItem>> {
    specifier_at(tree, text, offset)?;
    Some(
        corpus
            .modules
            .iter()
            .map(|(m, iface)| CompletionItem {
                label: m.clone(),
                kind: Some(CompletionItemKind::MODULE),
                detail: Some(format!("module: {iface}")),
                ..Default::default()
            })
            .collect(),
    )
}

/// Completion between the braces of `import { ... } from "m"`: the module's exports.
pub fn export_completion(
    corpus: &Corpus,
    text: &str,
    offset: usize,
) -> Option<Vec<CompletionItem>> {
    let head = &text[..offset];
    let start = head.rfind("import")?;
    let clause = &head[start + "import".len()..];
    if !clause.contains('{') || clause.contains('}') || clause.contains(';') {
        return None;
    }
    let rest = &text[offset..];
    let close = rest.find('}')?;
    let after = rest[close + 1..]
        .trim_start()
        .strip_prefix("from")?
        .trim_start();
    let q = after.chars().next().filter(|c| matches!(c, '"' | '\''))?;
    let end = after[1..].find(q)?;
    let spec = &after[1..1 + end];
    let iface = corpus.module_interface(spec)?;
    Some(
        corpus
            .members_of(iface)
            .into_iter()
            .map(|m| CompletionItem {
                label: m.name.clone(),
                kind: Some(match m.kind {
                    MemberKind::Method => CompletionItemKind::FUNCTION,
                    _ => CompletionItemKind::VARIABLE,
                }),
                detail: Some(match m.signature() {
                    Some(s) => format!("export of \"{spec}\": {}", s.text),
                    None => format!("export of \"{spec}\""),
                }),
                documentation: Some(Documentation::MarkupContent(markdown(member_markdown(
                    corpus, m,
                )))),
                ..Default::default()
            })
            .collect(),
    )
}

/// Hover on a specifier of a documented module: its interface and exports.
pub fn specifier_hover(corpus: &Corpus, text: &str, tree: &Tree, offset: usize) -> Option<String> {
    let s = specifier_at(tree, text, offset)?;
    let spec = inner(s, text);
    let iface = corpus.module_interface(spec)?;
    let mut md = format!("```js\nmodule \"{spec}\": {iface}\n```");
    if let Some(d) = corpus
        .interfaces
        .get(iface)
        .and_then(|i| i.default_export.as_deref())
    {
        md.push_str(&format!("\n\nDefault export: `{d}`"));
    }
    let names: Vec<String> = corpus
        .members_of(iface)
        .into_iter()
        .map(|m| format!("`{}`", m.name))
        .collect();
    md.push_str(&format!("\n\nExports: {}", names.join(", ")));
    Some(md)
}

/// What an import binding takes from a documented module, for its hover: the export's
/// docs, or the module (default export) interface.
pub fn import_markdown(
    corpus: &Corpus,
    spec: &str,
    part: grounded_js::ImportPart,
) -> Option<String> {
    let iface = corpus.module_interface(spec)?;
    Some(match part {
        grounded_js::ImportPart::Named(name) => {
            let m = corpus.member(iface, name)?;
            format!(
                "Export `{name}` of module \"{spec}\":\n\n{}",
                member_markdown(corpus, m)
            )
        }
        grounded_js::ImportPart::Namespace => format!("Module \"{spec}\": `{iface}`"),
        grounded_js::ImportPart::Default => {
            let d = corpus.module_default(spec).unwrap_or(iface);
            format!("Default export of module \"{spec}\": `{d}`")
        }
    })
}

/// Where a specifier string leads: a documented module's chunk, or the project file a
/// relative specifier names (`from` is the script's path, the root's file or absolute).
pub fn specifier_target(
    corpus: &Corpus,
    root: &Path,
    from: Option<&Path>,
    text: &str,
    s: Node,
) -> Option<Target> {
    let spec = inner(s, text);
    if grounded_check::module::is_relative(spec) {
        let from = from?;
        let rel = grounded_check::project::relative(root, from);
        let exts = &corpus.engine.script_extensions;
        // A `require` starts where the checker's does (Photoshop UXP: the plug-in's
        // folder, above `ui/js/`): with the import's rule, definition on `main.js`'s
        // `"./modules/util.js"` led nowhere while the checker read that very file. Two
        // folders giving two files: which one loads is not certain, so no answer.
        let file = if is_require(s, text) {
            grounded_check::module::resolve_require(root, &rel, spec, exts).ok()??
        } else {
            grounded_check::module::resolve_relative(root, &rel, spec, exts).ok()?
        };
        return Some(Target::File(root.join(file)));
    }
    let iface = corpus.module_interface(spec)?;
    let c = corpus.chunk(corpus.interfaces.get(iface)?.chunk?);
    Some(Target::Docs(c.file.clone(), c.line))
}

/// Where an import binding of a documented module leads: the export's chunk, or the
/// module's (or its default export's) interface chunk.
pub fn import_target(corpus: &Corpus, spec: &str, part: grounded_js::ImportPart) -> Option<Target> {
    let iface = corpus.module_interface(spec)?;
    let chunk = match part {
        grounded_js::ImportPart::Named(name) => corpus.member(iface, name)?.chunk?,
        grounded_js::ImportPart::Namespace => corpus.interfaces.get(iface)?.chunk?,
        grounded_js::ImportPart::Default => {
            corpus.interfaces.get(corpus.module_default(spec)?)?.chunk?
        }
    };
    let c = corpus.chunk(chunk);
    Some(Target::Docs(c.file.clone(), c.line))
}

//! The outline, go to definition, and symbols: the project's own top-level names, their
//! occurrences, and the corpus's documented names.
//!
//! Owns what a symbol is and where it is; the search across files is `lsp::navigation`,
//! which imports this. May import `features`, `lsp::typing`, `js` and `docs`.

use super::*;

/// The outline: construct instances and functions.
#[allow(deprecated)] // `DocumentSymbol::deprecated` must be written; `tags` replaces it.
pub fn document_symbols(corpus: &Corpus, text: &str, tree: &Tree) -> Vec<DocumentSymbol> {
    let idx = LineIndex::new(text);
    let mut out = Vec::new();
    for inst in grounded_footprint::instances(corpus, text, tree) {
        let start = idx.line_start(inst.start_line.saturating_sub(1));
        let end_line0 = inst.end_line.saturating_sub(1);
        let end = idx
            .line_start(end_line0 + 1)
            .saturating_sub(1)
            .max(idx.line_start(end_line0));
        let end = end.max(start).min(text.len());
        let range = range_of(&idx, start, end);
        out.push(DocumentSymbol {
            name: match &inst.object {
                Some(o) => format!("{} {}", inst.construct, o),
                None => inst.construct.clone(),
            },
            detail: Some(format!("lines {}–{}", inst.start_line, inst.end_line)),
            kind: SymbolKind::STRUCT,
            tags: None,
            deprecated: None,
            range,
            selection_range: range,
            children: None,
        });
    }
    walk(tree, |n| {
        let (name, whole, kind) = match n.kind() {
            "function_declaration" => (n.child_by_field_name("name"), n, SymbolKind::FUNCTION),
            "variable_declarator" => match n.child_by_field_name("value") {
                Some(v) if v.kind() == "function_expression" || v.kind() == "function" => {
                    (n.child_by_field_name("name"), n, SymbolKind::FUNCTION)
                }
                // Top-level variables are what other files of the project read.
                _ if n
                    .parent()
                    .and_then(|d| d.parent())
                    .is_some_and(|p| p.kind() == "program") =>
                {
                    (n.child_by_field_name("name"), n, SymbolKind::VARIABLE)
                }
                _ => return,
            },
            _ => return,
        };
        let Some(name) = name.filter(|n| n.kind() == "identifier") else {
            return;
        };
        let sel = range_of(&idx, name.start_byte(), name.end_byte());
        out.push(DocumentSymbol {
            name: text_of(name, text).to_string(),
            detail: None,
            kind,
            tags: None,
            deprecated: None,
            range: range_of(&idx, whole.start_byte(), whole.end_byte()),
            selection_range: sel,
            children: None,
        });
    });
    out.sort_by_key(|s| (s.range.start.line, s.range.start.character));
    out
}

/// What go to definition found.
pub enum Target {
    /// A file named by a `path` literal.
    File(PathBuf),
    /// A name declared in this buffer, at a byte range.
    Here(usize, usize),
    /// A top-level name to find among the project's files.
    Function(String),
    /// A documented API: its chunk's corpus file and 1-based line.
    Docs(String, usize),
}

/// The corpus chunk documenting what `node` names: a member of a certain receiver, a
/// `Global` function, a global object's interface, a constructor's interface.
fn docs_target<'a>(ctx: &FileCtx<'a>, node: Node<'a>) -> Option<Target> {
    let corpus = ctx.corpus;
    let name = text_of(node, ctx.text);
    let chunk = match node.kind() {
        "property_identifier" => {
            let p = node.parent()?;
            match p.kind() {
                "member_expression" => ctx.node_member(p)?.chunk?,
                "pair" => option_member(ctx, p)?.chunk?,
                _ => return None,
            }
        }
        "identifier" => {
            if ctx.analysis.is_declared(name, node.start_byte()) {
                return None;
            }
            if let Some(m) = corpus.global_member(name) {
                m.chunk?
            } else if let Some(iface) = corpus.global_interface(name) {
                corpus.interfaces.get(iface)?.chunk?
            } else if let Some(c) = corpus.constructors.get(name) {
                corpus.interfaces.get(&c.interface)?.chunk?
            } else {
                return None;
            }
        }
        _ => return None,
    };
    let c = corpus.chunk(chunk);
    Some(Target::Docs(c.file.clone(), c.line))
}

/// Go to definition at `offset`: a string literal given to a `path` parameter (or naming
/// an existing file) opens it; a name declared in the file goes to its declaration, a
/// documented API to its chunk in the corpus, any other bare name to the project's
/// top-level declaration of it.
pub fn definition(
    corpus: &Corpus,
    root: &Path,
    from: Option<&Path>,
    text: &str,
    tree: &Tree,
    offset: usize,
) -> Option<Target> {
    let ctx = FileCtx::new(corpus, text, tree);
    if let Some(s) = super::modules::specifier_at(tree, text, offset) {
        if let Some(t) = super::modules::specifier_target(corpus, root, from, text, s) {
            return Some(t);
        }
    }
    let node = node_at(tree, offset)?;
    let string = if node.kind() == "string" {
        Some(node)
    } else if node.kind() == "string_fragment" {
        node.parent()
    } else {
        None
    };
    if let Some(s) = string {
        let lit = text_of(s, text);
        let inner = lit.get(1..lit.len().saturating_sub(1)).unwrap_or("");
        let is_path_arg = s
            .parent()
            .filter(|a| a.kind() == "arguments")
            .and_then(|args| {
                let call = args.parent()?;
                let mut c = args.walk();
                let i = args.named_children(&mut c).position(|a| a.id() == s.id())?;
                let m = callee_member(&ctx, call)?;
                Some(param_type(m, i)?.is_path())
            })
            .unwrap_or(false);
        let p = root.join(inner);
        if !inner.is_empty()
            && (is_path_arg || p.is_file())
            && grounded_project::is_inside(root, &p)
        {
            return Some(Target::File(p));
        }
        return None;
    }
    if let Some(t) = docs_target(&ctx, node) {
        return Some(t);
    }
    if node.kind() != "identifier" {
        return None;
    }
    let name = text_of(node, text).to_string();
    if let Some(b) = ctx.analysis.binding_at(&name, node.start_byte()) {
        // An import of a documented module leads to the export's docs.
        if let Some(t) = ctx
            .analysis
            .binding_import(b)
            .and_then(|(spec, part)| super::modules::import_target(corpus, spec, part))
        {
            return Some(t);
        }
        if b.kind != BindingKind::Implicit {
            return Some(Target::Here(b.start, b.end));
        }
    }
    Some(Target::Function(name))
}

/// The byte range of the top-level declaration of `name` in `text` (a function, or a
/// variable's first declaration), if any.
pub fn find_function(text: &str, name: &str) -> Option<(usize, usize)> {
    let tree = grounded_js::parse(text);
    let mut found = None;
    walk(&tree, |n| {
        if found.is_some() {
            return;
        }
        let top = match n.kind() {
            "function_declaration" => n.parent().is_some_and(|p| p.kind() == "program"),
            "variable_declarator" => n
                .parent()
                .and_then(|d| d.parent())
                .is_some_and(|p| p.kind() == "program"),
            _ => false,
        };
        if let Some(nm) = n.child_by_field_name("name").filter(|_| top) {
            if text_of(nm, text) == name {
                found = Some((nm.start_byte(), nm.end_byte()));
            }
        }
    });
    found
}

/// What references and rename work on: a name the project declares, and whether it is
/// a top-level one (shared by every file the engine loads into the same global scope).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    /// The name.
    pub name: String,
    /// Whether it is a program-level (or undeclared, project-wide) name.
    pub global: bool,
    /// Start of the declaring identifier in this file, for a local name.
    decl: Option<usize>,
}

/// The project name under the cursor, if it is one: declared in the file, or a
/// top-level name of another project file (`project_names`). Documented engine names
/// and the language's built-ins are not the project's to rename.
pub fn symbol_at(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
    project_names: &dyn Fn(&str) -> bool,
) -> Option<(Symbol, usize, usize)> {
    let node = node_at(tree, offset)?;
    if node.kind() != "identifier" {
        return None;
    }
    let a = grounded_js::Analysis::new(corpus, text, tree);
    let name = text_of(node, text);
    let sym = match a.binding_at(name, node.start_byte()) {
        Some(b) => Symbol {
            name: name.to_string(),
            global: b.scope == 0,
            decl: (b.scope != 0).then_some(b.start),
        },
        None if project_names(name) => Symbol {
            name: name.to_string(),
            global: true,
            decl: None,
        },
        None => return None,
    };
    Some((sym, node.start_byte(), node.end_byte()))
}

/// The byte ranges in `text` where `sym` is written: identifiers of that name that
/// resolve to the same binding (a local), or to the program scope or nothing (a
/// top-level name: every project file shares the one global scope).
pub fn occurrences(corpus: &Corpus, text: &str, tree: &Tree, sym: &Symbol) -> Vec<(usize, usize)> {
    if !text.contains(sym.name.as_str()) {
        return Vec::new();
    }
    let a = grounded_js::Analysis::with_refs(corpus, text, tree, tree.root_node(), |_| {});
    let mut out = Vec::new();
    for r in a.refs() {
        if text.get(r.start..r.end) != Some(sym.name.as_str()) {
            continue;
        }
        let b = r.binding.and_then(|b| a.bindings.get(b));
        let same = match (&sym.decl, b) {
            (Some(d), Some(b)) => b.start == *d,
            (Some(_), None) => false,
            (None, Some(b)) => b.scope == 0,
            (None, None) => true,
        };
        if same {
            out.push((r.start, r.end));
        }
    }
    out
}

/// A top-level declaration of a script, for workspace symbols: name, kind, byte range
/// of its name.
pub fn top_level_symbols(text: &str, tree: &Tree) -> Vec<(String, SymbolKind, usize, usize)> {
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut c = root.walk();
    for stmt in root.named_children(&mut c) {
        match stmt.kind() {
            "function_declaration" => {
                if let Some(n) = stmt.child_by_field_name("name") {
                    out.push((
                        text_of(n, text).to_string(),
                        SymbolKind::FUNCTION,
                        n.start_byte(),
                        n.end_byte(),
                    ));
                }
            }
            "variable_declaration" | "lexical_declaration" => {
                let mut c2 = stmt.walk();
                for d in stmt.named_children(&mut c2) {
                    let Some(n) = d
                        .child_by_field_name("name")
                        .filter(|n| n.kind() == "identifier")
                    else {
                        continue;
                    };
                    let is_fn = d
                        .child_by_field_name("value")
                        .is_some_and(|v| matches!(v.kind(), "function_expression" | "function"));
                    out.push((
                        text_of(n, text).to_string(),
                        if is_fn {
                            SymbolKind::FUNCTION
                        } else {
                            SymbolKind::VARIABLE
                        },
                        n.start_byte(),
                        n.end_byte(),
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

/// A documented API as a workspace symbol: name, kind, container, corpus file, line.
pub type DocSymbol = (String, SymbolKind, Option<String>, String, usize);

/// The corpus's interfaces, their members and the globals whose name contains `query`
/// (any case), with the chunk that documents each.
pub fn corpus_symbols(corpus: &Corpus, query: &str, limit: usize) -> Vec<DocSymbol> {
    let q = query.to_lowercase();
    let hit = |s: &str| s.to_lowercase().contains(&q);
    let mut out = Vec::new();
    for (name, i) in &corpus.interfaces {
        if out.len() >= limit {
            break;
        }
        if let (true, Some(id)) = (hit(name), i.chunk) {
            let c = corpus.chunk(id);
            out.push((
                name.clone(),
                SymbolKind::INTERFACE,
                None,
                c.file.clone(),
                c.line,
            ));
        }
        for m in i.members.values() {
            if let (true, Some(id)) = (hit(&m.name), m.chunk) {
                let c = corpus.chunk(id);
                let kind = match m.kind {
                    MemberKind::Method => SymbolKind::METHOD,
                    _ => SymbolKind::PROPERTY,
                };
                out.push((
                    m.name.clone(),
                    kind,
                    Some(name.clone()),
                    c.file.clone(),
                    c.line,
                ));
            }
        }
    }
    for (g, iface) in &corpus.globals {
        if let (true, Some(id)) = (hit(g), corpus.interfaces.get(iface).and_then(|i| i.chunk)) {
            let c = corpus.chunk(id);
            out.push((
                g.clone(),
                SymbolKind::OBJECT,
                Some(iface.clone()),
                c.file.clone(),
                c.line,
            ));
        }
    }
    out.truncate(limit);
    out
}

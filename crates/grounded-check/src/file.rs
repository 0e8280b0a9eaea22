//! `file`: a `path` argument naming a file that does not exist under the project root,
//! or one that escapes the root.
//!
//! What: `loadJS("lib/missing.js")`, `xml.load("../data/x.xml")` — any string literal
//! passed to a parameter the docs type `path`, and the argument of an `#include`
//! directive when the Engine chunk declares it. Paths are relative to the project root
//! (the folder of `grounded.toml`), never to the script.
//!
//! Why: a missing file stops the script halfway through the layout; a literal can be
//! checked before the script ever runs.

use std::path::Path;

use tree_sitter::Node;

use grounded_docs::Param;

use super::project::{normalize, string_literal};
use super::suggest::{near, or_list};
use super::{Code, Ctx, Fix, Span};

/// Judges the string literals among `args` passed to `path` parameters.
pub(crate) fn check_args(
    cx: &mut Ctx,
    overloads: &[&[Param]],
    list: &[Node],
    kinds: Option<&[u16]>,
) {
    for (i, &arg) in list.iter().enumerate() {
        let is_path = overloads
            .iter()
            .any(|ps| ps.get(i).is_some_and(|p| p.ty.is_path()));
        if !is_path {
            continue;
        }
        let kind = kinds
            .and_then(|k| k.get(i).copied())
            .unwrap_or_else(|| arg.kind_id());
        if kind != grounded_js::query::kind_ids().string {
            continue;
        }
        if let Some(lit) = string_literal(cx.a.node_text(arg), arg.kind()) {
            check_path(cx, &lit, Span::new(arg.start_byte(), arg.end_byte()));
        }
    }
}

/// Judges the arguments of `#include "x"` directives (`text` is the file as written).
pub(crate) fn directives(cx: &mut Ctx, text: &str) {
    if !cx.corpus.engine.directives.iter().any(|d| d == "#include") {
        return;
    }
    for d in grounded_js::directives(cx.path, text, &cx.corpus.engine.directives) {
        if d.name != "#include" {
            continue;
        }
        if let (Some(arg), Some((s, e))) = (d.argument, d.argument_span) {
            check_path(cx, &arg, Span::new(s, e));
        }
    }
}

fn check_path(cx: &mut Ctx, lit: &str, span: Span) {
    let root = cx.project.root.clone();
    if root.as_os_str().is_empty() || lit.is_empty() {
        return;
    }
    let p = normalize(lit);
    if Path::new(lit).is_absolute()
        || lit.contains(':')
        || p.starts_with("..")
        || !grounded_project::is_inside(&root, Path::new(&p))
    {
        let msg = format!(
            "`{lit}` leaves the project folder: file names are relative to the project root (the folder of grounded.toml), and this one is outside it"
        );
        cx.push(span.start, span.end, Code::File, msg);
        return;
    }
    if root.join(&p).exists() {
        return;
    }
    let known: Vec<&str> = cx.project.files.keys().map(String::as_str).collect();
    let close = near(&p, known);
    let mut msg = format!(
        "`{lit}` names no file of the project: file names are relative to the project root (the folder of grounded.toml), not to the script"
    );
    if !close.is_empty() {
        msg.push_str(&format!("; did you mean {}?", or_list(&close)));
    }
    let fixes = close
        .iter()
        .map(|c| Fix::Replace {
            title: format!("Replace with \"{c}\""),
            span: Span::new(
                span.start + 1,
                span.end.saturating_sub(1).max(span.start + 1),
            ),
            text: c.to_string(),
            safe: false,
        })
        .collect();
    let f = cx.push(span.start, span.end, Code::File, msg);
    f.fixes = fixes;
}

//! `module`: a module the engine does not have, and names a module does not export.
//!
//! What: `import http from "k6/htp"` or `require("k6/htp")` where no `Module:` line of
//! the docs names `k6/htp` (near names from the documented modules, and a fix); `import
//! { chek } from "k6"` or `const { chek } = require("k6")` where the module's interface
//! has no `chek` (a `member` finding, near names from its exports); a relative specifier
//! (`./lib/util.js`) that names no file of the project, or one outside it (a `file`
//! finding, as for a `path` argument).
//!
//! Never judged: a URL under `Remote modules: yes` (loaded from elsewhere), a name the
//! project lists in `modules = [...]` of `grounded.toml` (its own bundled dependency),
//! `import()` and `require(variable)` (computed: nothing certain to say), and `require`
//! where the engine's `Modules:` line has no `commonjs` (then `require` is an ordinary
//! name, judged as one).
//!
//! Why: a misspelt module stops the script before its first line runs, and an import of
//! a name the module lacks binds `undefined`, which fails later, far from the import.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use grounded_js::ExportForm;

use tree_sitter::Node;

pub use super::project::is_relative;
use super::project::normalize;
use super::suggest::{interface_related, near, or_list};
use super::{Code, Ctx, Fix, Span};

/// Judges every module the script loads: its `import`/`export ... from` statements
/// (engines with ES modules) and its `require("...")` calls (engines with CommonJS).
pub(crate) fn check<'a>(cx: &mut Ctx<'a>) {
    if cx.corpus.engine.has_esm() {
        let reqs: Vec<_> =
            cx.a.module_requests()
                .iter()
                .map(|r| (r.spec, r.source, r.names.clone(), r.default))
                .collect();
        for (spec, source, mut names, default) in reqs {
            if let Some(spec) = spec {
                // A documented module's default export is its `Default export:` line or
                // the module itself, never missing; a project file's may be.
                if let Some(d) = default.filter(|_| is_relative(spec)) {
                    names.push((d, "default"));
                }
                judge(cx, spec, source, &names, ExportForm::Esm);
            }
        }
    }
    if cx.corpus.engine.has_commonjs() {
        for (spec, node) in require_calls(&cx.a) {
            let Some(source) = first_argument(node) else {
                continue;
            };
            let names = destructured_names(cx, node);
            judge(cx, spec, source, &names, ExportForm::CommonJs);
        }
    }
}

/// Every `require("...")` call of the engine's `require` with a plain string, in document
/// order: its specifier and the call.
fn require_calls<'a>(a: &grounded_js::Analysis<'a>) -> Vec<(&'a str, Node<'a>)> {
    let ids = grounded_js::query::kind_ids();
    let mut out = Vec::new();
    for i in 0..a.sites().len() {
        let (kind, node, scope) = a.sites()[i];
        if kind != grounded_js::query::CaptureKind::Call {
            continue;
        }
        let [Some(callee), _] = a.site_part_info(i) else {
            continue;
        };
        if callee.kind != ids.identifier || a.part_text(&callee) != "require" {
            continue;
        }
        if let Some(spec) = a.require_spec(node, scope) {
            out.push((spec, node));
        }
    }
    out
}

/// The first argument of a call (the specifier of `require("m")`).
fn first_argument(call: Node) -> Option<Node> {
    let args = call.child_by_field_name("arguments")?;
    let mut c = args.walk();
    let first = args.named_children(&mut c).find(|n| n.kind() != "comment");
    first
}

/// The names `const { a, b: c } = require("m")` takes from the module: each key as
/// written, and the key.
fn destructured_names<'a>(cx: &Ctx<'a>, call: Node<'a>) -> Vec<(Node<'a>, &'a str)> {
    let mut out = Vec::new();
    let Some(decl) = call.parent().filter(|p| p.kind() == "variable_declarator") else {
        return out;
    };
    let Some(pattern) = decl
        .child_by_field_name("name")
        .filter(|n| n.kind() == "object_pattern")
    else {
        return out;
    };
    let mut c = pattern.walk();
    for kid in pattern.named_children(&mut c) {
        let key = match kid.kind() {
            "shorthand_property_identifier_pattern" => Some(kid),
            "pair_pattern" => kid
                .child_by_field_name("key")
                .filter(|k| k.kind() == "property_identifier"),
            "object_assignment_pattern" => kid
                .child_by_field_name("left")
                .filter(|k| k.kind() == "shorthand_property_identifier_pattern"),
            _ => None,
        };
        if let Some(k) = key {
            out.push((k, cx.a.node_text(k)));
        }
    }
    out
}

/// Whether `spec` is a URL (`https://...`).
pub fn is_url(spec: &str) -> bool {
    let scheme = spec.split_once("://").map(|(s, _)| s);
    scheme
        .is_some_and(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '+'))
}

/// Whether the project bundles `spec` itself (`modules = ["lodash"]` covers `lodash`
/// and `lodash/fp`).
fn bundled(cx: &Ctx, spec: &str) -> bool {
    cx.project.modules.iter().any(|m| {
        let m = m.trim();
        !m.is_empty()
            && (spec == m
                || spec
                    .strip_prefix(m)
                    .is_some_and(|rest| rest.starts_with('/')))
    })
}

fn judge<'a>(
    cx: &mut Ctx<'a>,
    spec: &'a str,
    source: Node<'a>,
    names: &[(Node<'a>, &'a str)],
    form: ExportForm,
) {
    if is_relative(spec) {
        relative(cx, spec, source, names, form);
        return;
    }
    if (is_url(spec) && cx.corpus.engine.remote_modules) || bundled(cx, spec) {
        return;
    }
    let Some(iface) = cx.corpus.module_interface(spec) else {
        unknown(cx, spec, source);
        return;
    };
    let open = cx
        .corpus
        .interfaces
        .get(iface)
        .is_some_and(|i| i.string_index.is_some());
    if open {
        return;
    }
    for &(node, name) in names {
        if cx.a.member(iface, name).is_some() {
            continue;
        }
        let exports: Vec<&str> = cx
            .corpus
            .members_of(iface)
            .into_iter()
            .map(|m| m.name.as_str())
            .collect();
        let close = near(name, exports);
        let mut msg = format!("module `{spec}` has no export `{name}`");
        if !close.is_empty() {
            msg.push_str(&format!("; did you mean {}?", or_list(&close)));
        }
        // A near name is a pick among exports: unsafe, as every near-name fix.
        let fixes = Fix::replace_each(&close, Span::new(node.start_byte(), node.end_byte()));
        let related = interface_related(cx.corpus, iface);
        let f = cx.push_node(node, Code::Member, msg);
        f.fixes = fixes;
        f.related = related;
    }
}

/// A specifier no `Module:` line names.
fn unknown(cx: &mut Ctx, spec: &str, source: Node) {
    let documented: Vec<&str> = cx.corpus.modules.keys().map(String::as_str).collect();
    let close = near(spec, documented.iter().copied());
    let mut msg =
        format!("`{spec}` is not a module of this engine: no `Module:` line of its docs names it");
    if !close.is_empty() {
        msg.push_str(&format!("; did you mean {}?", or_list(&close)));
    } else if documented.is_empty() {
        msg.push_str("; the docs document no module");
    } else if documented.len() <= 8 {
        let all: Vec<String> = documented.iter().map(|d| format!("\"{d}\"")).collect();
        msg.push_str(&format!("; its modules are {}", all.join(", ")));
    }
    if close.is_empty() {
        msg.push_str(
            " (a dependency the project bundles itself goes in `modules = [...]` of grounded.toml)",
        );
    }
    let fixes = close
        .iter()
        .map(|c| Fix::Replace {
            title: format!("Replace with \"{c}\""),
            span: Span::new(
                source.start_byte() + 1,
                source
                    .end_byte()
                    .saturating_sub(1)
                    .max(source.start_byte() + 1),
            ),
            text: c.to_string(),
            // A near module name changes what the script loads: unsafe.
            safe: false,
        })
        .collect();
    let f = cx.push_node(source, Code::Module, msg);
    f.fixes = fixes;
}

/// The project file a relative specifier names, relative to the root (`None`: none
/// exists). Tried as written, then with each script extension, then as a folder's
/// `index` script, as module loaders do.
pub fn resolve_relative(
    root: &Path,
    from_rel: &str,
    spec: &str,
    exts: &[String],
) -> Result<String, String> {
    let joined = if let Some(abs) = spec.strip_prefix('/') {
        normalize(abs)
    } else {
        let dir = Path::new(from_rel)
            .parent()
            .map(|p| p.to_string_lossy().replace('\\', "/"))
            .unwrap_or_default();
        normalize(&format!("{dir}/{spec}"))
    };
    if joined.starts_with("..") {
        return Err(joined);
    }
    let mut tries = vec![joined.clone()];
    tries.extend(exts.iter().map(|e| format!("{joined}{e}")));
    tries.extend(exts.iter().map(|e| format!("{joined}/index{e}")));
    tries
        .into_iter()
        .find(|t| !t.is_empty() && root.join(t).is_file())
        .ok_or(joined)
}

/// The project file a relative `require` names (`Ok(None)`: two different files, see
/// below), relative to the root; `Err` with the path from the script's folder when it
/// names none.
///
/// Why not [`resolve_relative`] alone: ES modules fix an `import`'s base (the importing
/// module's URL), but nothing in a corpus says where `require` starts. Node starts at the
/// requiring file's folder; Photoshop UXP starts at the plugin's folder for a script its
/// panel HTML loads (`ui/js/main.js` requires `"./modules/util.js"`, which is the
/// plugin's `modules/util.js`), and assuming Node's rule made 7 wrong `file` accusations
/// on real plugins (issue 44, the CommonJS measurement). The plugin's folder is the
/// script's or one above it, up to the project's (a project may hold several plugins).
/// So a name counts as a file when it resolves from any of those folders; when only one
/// file answers, it is the one loaded; when different folders give different files,
/// which one runs is not certain, and nothing is judged against either (`Ok(None)`).
pub fn resolve_require(
    root: &Path,
    from_rel: &str,
    spec: &str,
    exts: &[String],
) -> Result<Option<String>, String> {
    let own = resolve_relative(root, from_rel, spec, exts);
    if spec.starts_with('/') {
        return own.map(Some);
    }
    let mut found: Option<String> = own.as_ref().ok().cloned();
    // Each folder above the script's, nearest first, as a file in it would name it.
    let mut dir = Path::new(from_rel).parent();
    while let Some(d) = dir {
        let from = d.join("x").to_string_lossy().replace('\\', "/");
        if let Ok(t) = resolve_relative(root, &from, spec, exts) {
            match &found {
                Some(f) if *f != t => return Ok(None),
                _ => found = Some(t),
            }
        }
        dir = d.parent();
    }
    match (found, own) {
        (Some(t), _) => Ok(Some(t)),
        (None, Err(joined)) => Err(joined),
        (None, Ok(t)) => Ok(Some(t)),
    }
}

/// [`resolve_relative`] for an ES import, [`resolve_require`] for a `require`: the
/// certain target, `Ok(None)` when a `require` may load either of two files.
fn resolve_in(
    root: &Path,
    from_rel: &str,
    spec: &str,
    exts: &[String],
    form: ExportForm,
) -> Result<Option<String>, String> {
    match form {
        ExportForm::Esm => resolve_relative(root, from_rel, spec, exts).map(Some),
        ExportForm::CommonJs => resolve_require(root, from_rel, spec, exts),
    }
}

fn relative<'a>(
    cx: &mut Ctx<'a>,
    spec: &str,
    source: Node<'a>,
    names: &[(Node<'a>, &'a str)],
    form: ExportForm,
) {
    let root = cx.project.root.clone();
    if root.as_os_str().is_empty() {
        return;
    }
    match resolve_in(
        &root,
        cx.rel,
        spec,
        &cx.corpus.engine.script_extensions,
        form,
    ) {
        Ok(None) => {}
        Ok(Some(target)) => {
            if !names.is_empty() {
                let mut seen = BTreeSet::from([target.clone()]);
                if let Some(exports) = file_exports(cx.corpus, cx.project, &target, form, &mut seen)
                {
                    missing_exports(cx, spec, &target, names, &exports);
                }
            }
        }
        Err(joined) if joined.starts_with("..") => {
            let msg = format!(
                "\"{spec}\" leaves the project folder: a relative import names a file of the project (the folder of grounded.toml), and this one is outside it"
            );
            cx.push_node(source, Code::File, msg);
        }
        Err(joined) => {
            let known: Vec<&str> = cx.project.files.keys().map(String::as_str).collect();
            let close = near(&joined, known);
            let mut msg = format!(
                "\"{spec}\" names no file of the project (from this script's folder: `{joined}`, with or without a script extension)"
            );
            if form == ExportForm::CommonJs && !spec.starts_with('/') {
                msg.pop();
                msg.push_str(", nor from a folder above it up to the project's)");
            }
            if !close.is_empty() {
                msg.push_str(&format!("; the project has {}", or_list(&close)));
            }
            cx.push_node(source, Code::File, msg);
        }
    }
}

/// The names project file `rel` certainly exports in `form` (with what each certainly
/// holds), following its `export * from`: a relative one to that file's exports, a
/// documented module to its interface's members. `None` when any of it is not certain
/// (the file's own exports, a star from an unknown or open module, a file in the other
/// module system): then nothing is judged against the file.
fn file_exports(
    corpus: &grounded_docs::Corpus,
    project: &super::ProjectIndex,
    rel: &str,
    form: ExportForm,
    seen: &mut BTreeSet<String>,
) -> Option<BTreeMap<String, Option<String>>> {
    let ex = project.files.get(rel)?.exports.as_ref()?;
    if ex.form != form {
        return None;
    }
    let mut names = ex.names.clone();
    for star in &ex.star_from {
        // `export *` never passes a module's default export on.
        let more: Vec<(String, Option<String>)> = if is_relative(star) {
            let exts = &corpus.engine.script_extensions;
            let target = resolve_relative(&project.root, rel, star, exts).ok()?;
            if !seen.insert(target.clone()) {
                // A circle of `export *`: the files already read give every name.
                continue;
            }
            file_exports(corpus, project, &target, ExportForm::Esm, seen)?
                .into_iter()
                .collect()
        } else {
            let iface = corpus.module_interface(star)?;
            let open = corpus
                .interfaces
                .get(iface)
                .is_none_or(|i| i.string_index.is_some());
            if open {
                return None;
            }
            corpus
                .members_of(iface)
                .into_iter()
                .map(|m| (m.name.clone(), None))
                .collect()
        };
        for (n, ty) in more {
            if n != "default" {
                names.entry(n).or_insert(ty);
            }
        }
    }
    Some(names)
}

/// A `member` finding for each name asked of project file `target` that it does not
/// export, with near names among its exports.
fn missing_exports<'a>(
    cx: &mut Ctx<'a>,
    spec: &str,
    target: &str,
    names: &[(Node<'a>, &'a str)],
    exports: &BTreeMap<String, Option<String>>,
) {
    for &(node, name) in names {
        if exports.contains_key(name) {
            continue;
        }
        let listed: Vec<&str> = exports
            .keys()
            .map(String::as_str)
            .filter(|n| *n != "default")
            .collect();
        let close = if name == "default" {
            Vec::new()
        } else {
            near(name, listed.iter().copied())
        };
        let mut msg = if name == "default" {
            format!("\"{spec}\" (`{target}`) has no default export (no `export default`)")
        } else {
            format!("\"{spec}\" (`{target}`) has no export `{name}`")
        };
        if !close.is_empty() {
            msg.push_str(&format!("; did you mean {}?", or_list(&close)));
        } else if listed.is_empty() {
            msg.push_str("; it exports no name");
        } else if listed.len() <= 8 {
            let all: Vec<String> = listed.iter().map(|n| format!("`{n}`")).collect();
            msg.push_str(&format!("; its exports are {}", all.join(", ")));
        }
        // A near name is a pick among exports: unsafe, as every near-name fix.
        let fixes = Fix::replace_each(&close, Span::new(node.start_byte(), node.end_byte()));
        let f = cx.push_node(node, Code::Member, msg);
        f.fixes = fixes;
    }
}

/// For each relative specifier of the script's `import`s and `require`s (`rel`: the
/// script, relative to the root), the documented interface each export of that project
/// file certainly holds ([`Analysis::set_relative_exports`]): `export const doc =
/// app.activeDocument` types `import { doc } from "./lib.js"` as the docs type
/// `app.activeDocument`, and `module.exports = { doc }` types `const { doc } =
/// require("./lib")` the same. Only from certain exports ([`file_exports`]).
pub(crate) fn relative_types(
    corpus: &grounded_docs::Corpus,
    project: &super::ProjectIndex,
    rel: &str,
    a: &grounded_js::Analysis,
) -> HashMap<String, HashMap<String, String>> {
    let mut out = HashMap::new();
    if project.root.as_os_str().is_empty() {
        return out;
    }
    // ES imports and, where the engine loads CommonJS, destructured `require`s of project
    // files: each read in its own system (a file is never read in the other's).
    let mut wanted: Vec<(&str, ExportForm)> = Vec::new();
    if corpus.engine.has_esm() {
        wanted.extend(
            a.module_requests()
                .iter()
                .filter_map(|r| r.spec)
                .map(|s| (s, ExportForm::Esm)),
        );
    }
    if corpus.engine.has_commonjs() {
        wanted.extend(
            require_calls(a)
                .into_iter()
                .map(|(s, _)| (s, ExportForm::CommonJs)),
        );
    }
    for &(spec, form) in &wanted {
        // A file both imported and required by one script is typed in neither system:
        // the bindings of one would read the other's exports.
        if !is_relative(spec)
            || out.contains_key(spec)
            || wanted.iter().any(|&(s, f)| s == spec && f != form)
        {
            continue;
        }
        let exts = &corpus.engine.script_extensions;
        let Ok(Some(target)) = resolve_in(&project.root, rel, spec, exts, form) else {
            continue;
        };
        let mut seen = BTreeSet::from([target.clone()]);
        let Some(exports) = file_exports(corpus, project, &target, form, &mut seen) else {
            continue;
        };
        let typed: HashMap<String, String> = exports
            .into_iter()
            .filter_map(|(n, t)| Some((n, t?)))
            .collect();
        if !typed.is_empty() {
            out.insert(spec.to_string(), typed);
        }
    }
    out
}

//! Which module a declaration file is, and which file a relative specifier names, as
//! TypeScript resolves them: a package's files are its name plus their path
//! (`k6/http/index.d.ts` of the package `@types/k6` is `k6/http`, as `import http
//! from "k6/http"` finds it), and `../html/index.js` in a declaration file names
//! `../html/index.d.ts`.
//!
//! Imports `dts` (the links).

use std::path::{Path, PathBuf};

use super::dts::Link;

/// How many folders up a file's `package.json` is looked for.
const MAX_UP: usize = 6;

/// The module specifier of the file `path` (canonical): its package's name (from the
/// nearest `package.json` with a `name`, `@types/x` read as `x`), else the name of the
/// folder the user named, else its own stem; then its path inside the package without
/// `.d.ts` and a last `index`.
pub fn spec_of_file(path: &Path, root: Option<&Path>) -> String {
    let mut dir = path.parent();
    let root = root.and_then(|r| std::fs::canonicalize(r).ok());
    for _ in 0..MAX_UP {
        let Some(d) = dir else { break };
        if let Some(name) = package_name(&d.join("package.json")) {
            let rel = path.strip_prefix(d).unwrap_or(path);
            return join(&name, &rel.to_string_lossy().replace('\\', "/"));
        }
        if root.as_deref() == Some(d) {
            break;
        }
        dir = d.parent();
    }
    if let Some(r) = root {
        if let Ok(rel) = path.strip_prefix(&r) {
            let name = r
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            return join(&name, &rel.to_string_lossy().replace('\\', "/"));
        }
    }
    spec_of_name(&path.to_string_lossy().replace('\\', "/"))
}

/// The specifier of a file known only by its name (`k6/http/index.d.ts` → `k6/http`;
/// `sdk.d.ts` → `sdk`).
pub fn spec_of_name(name: &str) -> String {
    let parts: Vec<&str> = name.split('/').filter(|p| !p.is_empty()).collect();
    let Some((last, dirs)) = parts.split_last() else {
        return "module".into();
    };
    let stem = strip_ext(last);
    if stem == "index" {
        if let Some(d) = dirs.last() {
            return (*d).to_string();
        }
    }
    stem.to_string()
}

fn strip_ext(f: &str) -> &str {
    for e in [".d.ts", ".d.mts", ".d.cts", ".ts"] {
        if let Some(s) = f.strip_suffix(e) {
            return s;
        }
    }
    f
}

/// `name` + the file's path in its package, without the extension and a last `index`.
fn join(name: &str, rel: &str) -> String {
    let rel = strip_ext(rel);
    let rel = rel.strip_suffix("/index").unwrap_or(rel);
    let rel = if rel == "index" { "" } else { rel };
    if rel.is_empty() {
        name.to_string()
    } else if name.is_empty() {
        rel.to_string()
    } else {
        format!("{name}/{rel}")
    }
}

/// The `name` of a `package.json`, as scripts import it: `@types/k6` is `k6`,
/// `@types/babel__core` is `@babel/core` (DefinitelyTyped's rule).
fn package_name(p: &Path) -> Option<String> {
    let text = std::fs::read_to_string(p).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let name = v.get("name")?.as_str()?.trim();
    if name.is_empty() {
        return None;
    }
    Some(match name.strip_prefix("@types/") {
        Some(n) => match n.split_once("__") {
            Some((scope, rest)) => format!("@{scope}/{rest}"),
            None => n.to_string(),
        },
        None => name.to_string(),
    })
}

/// Whether a specifier names a file relative to the one that writes it.
pub fn is_relative(s: &str) -> bool {
    s.starts_with("./") || s.starts_with("../") || s == "." || s == ".."
}

/// The declaration file a relative specifier written in `dir` names, canonical, when
/// one exists: `./x.js` → `./x.d.ts`, `./x` → `./x.d.ts` or `./x/index.d.ts`.
pub fn relative_file(dir: &Path, spec: &str) -> Option<PathBuf> {
    if !is_relative(spec) {
        return None;
    }
    let base = dir.join(spec);
    let b = base.to_string_lossy().into_owned();
    let mut stems = vec![b.clone()];
    for e in [".js", ".mjs", ".cjs", ".d.ts", ".ts"] {
        if let Some(s) = b.strip_suffix(e) {
            stems.push(s.to_string());
        }
    }
    for s in stems.iter().rev() {
        for cand in [format!("{s}.d.ts"), format!("{s}/index.d.ts"), s.clone()] {
            let c = PathBuf::from(&cand);
            if c.is_file() && cand.ends_with(".ts") {
                return std::fs::canonicalize(c).ok();
            }
        }
    }
    None
}

/// The specifier a link names, if any.
pub fn link_spec(l: &Link) -> Option<&str> {
    match l {
        Link::ReExport { spec, .. }
        | Link::Star { spec }
        | Link::StarAs { spec, .. }
        | Link::Import { spec, .. }
        | Link::ImportAll { spec, .. } => Some(spec),
        Link::Export { .. } | Link::Equals { .. } | Link::Umd { .. } => None,
    }
}

/// The same, to rewrite.
pub fn link_spec_mut(l: &mut Link) -> Option<&mut String> {
    match l {
        Link::ReExport { spec, .. }
        | Link::Star { spec }
        | Link::StarAs { spec, .. }
        | Link::Import { spec, .. }
        | Link::ImportAll { spec, .. } => Some(spec),
        Link::Export { .. } | Link::Equals { .. } | Link::Umd { .. } => None,
    }
}

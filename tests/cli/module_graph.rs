//! The module graph inside the crates `grounded-agent`, `grounded-dryrun` and
//! `grounded-lsp`, read from the source: no two modules of one crate may import each
//! other, directly or through others. The arrows between layers are the crates'
//! `Cargo.toml`s, which the compiler holds; a circle inside a crate it allows.
//!
//! Why a test and not a habit: three groups of modules grew into circles (`edits` ↔
//! `gates`, `blame` ↔ `report`, `server` ↔ its handlers) one small import at a time,
//! each harmless alone, until none of them could be read or changed alone (issue 21).
//!
//! What counts as an import: every path into a sibling module, in a `use` line or
//! inline (`super::report::byte_at(…)` is as much a dependency as a `use`), written
//! `super::…` from the module's own depth or `crate::…`; a name the crate's `lib.rs`
//! re-exports (`super::Backend`) counts as an import of the module that defines it. The
//! crate's `lib.rs` is the parent, which declares every child: it is no node.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Circles known and not cut yet, by area, each as its modules sorted. The lead empties
/// this table; a circle listed here that no longer occurs fails the test too, so the
/// table never hides a cut one.
///
/// KNOWN EXCEPTIONS: empty since issue 21 cut the last two (the agent's write ledger,
/// the server's state); an entry is a debt with its issue named beside it.
const KNOWN_CIRCLES: &[(&str, &[&str])] = &[];

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The `.rs` files under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The source without its comments (line comments and doc comments), so that a path
/// named in prose is no import.
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| {
            let t = l.trim_start();
            if t.starts_with("//") {
                ""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first identifier of `s`.
fn ident(s: &str) -> &str {
    let s = s.trim_start();
    let end = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The first names of the paths after a prefix: `x::…` gives `x`, `{x::…, y}` gives `x`
/// and `y` (top-level items of the group only).
fn heads(rest: &str) -> Vec<String> {
    let rest = rest.trim_start();
    if let Some(group) = rest.strip_prefix('{') {
        let mut out = Vec::new();
        let (mut depth, mut start) = (0usize, 0usize);
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' if depth == 0 => {
                    out.push(ident(&group[start..i]).to_string());
                    break;
                }
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    out.push(ident(&group[start..i]).to_string());
                    start = i + 1;
                }
                _ => {}
            }
        }
        out.retain(|s| !s.is_empty());
        out
    } else {
        vec![ident(rest).to_string()]
    }
}

/// The names the crate's `lib.rs` imports or re-exports, each with the module it comes
/// from (`pub use server::Backend;` maps `Backend` to `server`); names from outside the
/// area map to modules that are no node, and are dropped by the caller.
fn reexports(mod_rs: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for stmt in code_of(mod_rs).split(';') {
        // Private imports count too: a child may name them as `super::Name`.
        let stmt = stmt.trim_start();
        let Some(rest) = ["pub use ", "pub(crate) use ", "pub(super) use ", "use "]
            .iter()
            .find_map(|p| stmt.strip_prefix(p))
        else {
            continue;
        };
        let module = ident(rest);
        let Some(tail) = rest.trim_start()[module.len()..].strip_prefix("::") else {
            continue;
        };
        let tail = tail.trim();
        let names: Vec<String> = match tail.strip_prefix('{') {
            Some(g) => g
                .trim_end_matches('}')
                .split(',')
                .map(|s| s.split(" as ").last().unwrap_or(s).trim().to_string())
                .collect(),
            None => vec![tail.split(" as ").last().unwrap_or(tail).trim().to_string()],
        };
        for n in names.into_iter().filter(|n| !n.is_empty() && n != "self") {
            out.insert(n, module.to_string());
        }
    }
    out
}

/// Which sibling modules each module of the crate whose source folder is `dir` imports.
fn area_graph(dir: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    let module_of = |p: &Path| -> Option<String> {
        let rel = p.strip_prefix(dir).expect("under the area");
        let first = rel.components().next()?.as_os_str().to_str()?.to_string();
        if first == "lib.rs" {
            None
        } else {
            Some(first.trim_end_matches(".rs").to_string())
        }
    };
    let modules: BTreeSet<String> = files.iter().filter_map(|p| module_of(p)).collect();
    let parent = std::fs::read_to_string(dir.join("lib.rs")).unwrap_or_default();
    let reexported = reexports(&parent);
    let mut graph: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for p in &files {
        let Some(m) = module_of(p) else { continue };
        // How many `super::` reach the area from this file: one from `x.rs` and
        // `x/mod.rs`, one more for every folder below, one more for a file that is not
        // a `mod.rs` inside a folder (its parent is the folder's module).
        let rel = p.strip_prefix(dir).expect("under the area");
        let depth = rel.components().count();
        let up = if rel.ends_with("mod.rs") {
            depth - 1
        } else {
            depth
        };
        let code = code_of(&std::fs::read_to_string(p).expect("readable source"));
        let to_area = "crate::";
        let mut found = Vec::new();
        let mut i = 0;
        while i < code.len() {
            let rest = &code[i..];
            if let Some(after) = rest.strip_prefix(to_area) {
                found.extend(heads(after));
                i += to_area.len();
                continue;
            }
            if rest.starts_with("super::")
                && !code[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
            {
                let mut n = 0;
                let mut after = rest;
                while let Some(a) = after.strip_prefix("super::") {
                    n += 1;
                    after = a;
                }
                if n == up {
                    found.extend(heads(after));
                }
                i += n * "super::".len();
                continue;
            }
            i += rest.chars().next().map_or(1, char::len_utf8);
        }
        for name in found {
            let target = if modules.contains(&name) {
                Some(name)
            } else {
                reexported
                    .get(&name)
                    .filter(|t| modules.contains(*t))
                    .cloned()
            };
            if let Some(t) = target.filter(|t| *t != m) {
                graph.get_mut(&m).expect("known module").insert(t);
            }
        }
    }
    graph
}

/// The groups of modules that reach one another (strongly connected, two or more), each
/// sorted, with one circle through the group spelt out (`a → b → a`).
fn circles(g: &Graph) -> Vec<(Vec<String>, String)> {
    let reach = |from: &str| -> BTreeSet<String> {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(n) = stack.pop() {
            for m in g.get(&n).into_iter().flatten() {
                if seen.insert(m.clone()) {
                    stack.push(m.clone());
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        g.keys().map(|k| (k, reach(k.as_str()))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for (k, r) in &reaches {
        if done.contains(*k) || !r.contains(*k) {
            continue;
        }
        let group: Vec<String> = r
            .iter()
            .filter(|m| reaches[m].contains(*k))
            .cloned()
            .collect();
        done.extend(group.iter().cloned());
        out.push((group, circle_through(g, k)));
    }
    out
}

/// One shortest circle from `start` back to itself, spelt `a → b → a`.
fn circle_through(g: &Graph, start: &str) -> String {
    let mut prev: BTreeMap<String, String> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.to_string()]);
    while let Some(n) = queue.pop_front() {
        for m in g.get(&n).into_iter().flatten() {
            if m == start {
                // Back from `n` to `start` through the nodes that first reached each.
                let mut path = vec![n.clone()];
                let mut at = n.clone();
                while let Some(p) = prev.get(&at) {
                    path.push(p.clone());
                    at = p.clone();
                }
                path.reverse();
                path.push(start.to_string());
                return path.join(" → ");
            }
            if m != start && !prev.contains_key(m) {
                prev.insert(m.clone(), n.clone());
                queue.push_back(m.clone());
            }
        }
    }
    String::new()
}

#[test]
fn the_agent_dryrun_and_lsp_modules_import_one_way() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).join("crates");
    let mut problems = Vec::new();
    let mut seen_known = BTreeSet::new();
    for area in ["agent", "dryrun", "lsp"] {
        for (group, circle) in circles(&area_graph(&crates.join(format!("grounded-{area}/src")))) {
            let known = KNOWN_CIRCLES
                .iter()
                .any(|(a, g)| *a == area && g.iter().copied().eq(group.iter().map(String::as_str)));
            if known {
                seen_known.insert((area, group.join(",")));
            } else {
                problems.push(format!(
                    "grounded-{area}: {circle} (group: {})",
                    group.join(", ")
                ));
            }
        }
    }
    for (area, group) in KNOWN_CIRCLES {
        if !seen_known.contains(&(*area, group.join(","))) {
            problems.push(format!(
                "grounded-{area}: the known circle {} is cut: remove it from KNOWN_CIRCLES",
                group.join(", ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "modules importing each other:\n{}",
        problems.join("\n")
    );
}

/// Writes `files` (path under the crate's source folder, text) into a fresh folder.
fn area(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("folders");
        std::fs::write(p, text).expect("write");
    }
    dir
}

#[test]
fn a_circle_is_found_through_use_groups_inline_paths_and_reexports() {
    // Direct, through a `use` group: a ↔ b.
    let d = area(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "use super::{b::{self, X}, Y};\n"),
        ("b.rs", "fn f() { super::a::g(); }\n"),
    ]);
    let c = circles(&area_graph(d.path()));
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].0, ["a", "b"]);
    assert!(c[0].1 == "a → b → a", "{}", c[0].1);

    // Through a name the parent re-exports, and from a file one folder down.
    let d = area(&[
        ("lib.rs", "mod a;\nmod c;\npub use c::Backend;\n"),
        ("a/mod.rs", "mod inner;\n"),
        ("a/inner.rs", "use super::super::Backend;\n"),
        ("c.rs", "use crate::a::Thing;\n"),
    ]);
    let c = circles(&area_graph(d.path()));
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].0, ["a", "c"]);

    // Through a third module: a → b → c → a.
    let d = area(&[
        ("a.rs", "use super::b::B;\n"),
        ("b.rs", "use super::c::C;\n"),
        ("c.rs", "use super::a::A;\n"),
    ]);
    let c = circles(&area_graph(d.path()));
    assert_eq!(c.len(), 1, "{c:?}");
    assert_eq!(c[0].0, ["a", "b", "c"]);
    assert_eq!(c[0].1, "a → b → c → a");
}

#[test]
fn one_way_imports_comments_and_own_children_are_no_circle() {
    let d = area(&[
        ("lib.rs", "mod a;\nmod b;\npub use b::B;\n"),
        // A comment naming the other way is prose, not an import.
        (
            "a.rs",
            "use super::b::B;\n// see super::a::f and crate::a\n",
        ),
        ("b.rs", "//! Read by `super::a`.\nmod kid;\nfn f() {}\n"),
        // A child's `super::` is its own module, not the area.
        ("b/kid.rs", "use super::f;\nuse super::a::Nothing;\n"),
    ]);
    let g = area_graph(d.path());
    assert_eq!(g["a"], BTreeSet::from(["b".to_string()]));
    assert!(g["b"].is_empty(), "{g:?}");
    assert!(circles(&g).is_empty());
}

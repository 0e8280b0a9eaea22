//! `grounded constructs` and `grounded find`.

use std::path::{Path, PathBuf};

use super::{plain_format, project_and_corpus, Fail, Format};
use crate::footprint::{self, FindOptions};

/// `grounded constructs FILE`
pub fn constructs(docs: Option<&Path>, format: Format, file: &Path) -> Result<i32, Fail> {
    let format = plain_format("constructs", format)?;
    let text = crate::textfile::read(file)
        .map_err(|e| Fail(format!("{}: {e}", file.display())))?
        .text;
    let (_, corpus) = project_and_corpus(file, docs)?;
    // A Markdown file's fenced js blocks, with the prose blanked: line numbers stay the
    // file's own, as `check` reports them.
    let script = crate::js::script_text(&file.to_string_lossy(), &text, &corpus.engine.directives);
    let tree = crate::js::parse(&script);
    let found = footprint::instances(&corpus, &script, &tree);
    if format == Format::Json {
        println!("{}", serde_json::to_string_pretty(&found)?);
        return Ok(0);
    }
    let shown = file.display();
    if found.is_empty() {
        println!("{shown}: no construct instance");
        return Ok(0);
    }
    println!(
        "{shown}: {} construct instance{}",
        found.len(),
        if found.len() == 1 { "" } else { "s" }
    );
    for i in &found {
        let object = i
            .object
            .as_deref()
            .map(|o| format!(" `{o}`"))
            .unwrap_or_default();
        let span = if i.is_closed() {
            format!("lines {}-{}", i.start_line, i.end_line)
        } else {
            format!("line {}, unclosed", i.start_line)
        };
        let lines = i
            .lines
            .iter()
            .map(|&(a, b)| {
                if a == b {
                    a.to_string()
                } else {
                    format!("{a}-{b}")
                }
            })
            .collect::<Vec<_>>()
            .join(", ");
        println!("  {}{object}: {span}; footprint {lines}", i.construct);
    }
    Ok(0)
}

/// How `find` matches (`-F`, `-i`, `-C`).
pub struct Matching {
    /// The pattern is a literal string.
    pub fixed: bool,
    /// Case is ignored.
    pub ignore_case: bool,
    /// Lines of context around each hit.
    pub context: usize,
}

/// `grounded find PATTERN [PATHS...]`
pub fn find(
    docs: Option<&Path>,
    format: Format,
    matching: Matching,
    pattern: &str,
    paths: &[PathBuf],
) -> Result<i32, Fail> {
    let format = plain_format("find", format)?;
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let mut abs = Vec::with_capacity(paths.len());
    for p in paths {
        let full = cwd.join(p);
        if !full.exists() {
            return Err(Fail(format!("{}: no such file or folder", p.display())));
        }
        abs.push(std::fs::canonicalize(&full).unwrap_or(full));
    }
    let start = abs.first().cloned().unwrap_or_else(|| cwd.clone());
    let (project, corpus) = project_and_corpus(&start, docs)?;
    let opts = FindOptions {
        fixed: matching.fixed,
        ignore_case: matching.ignore_case,
        context: matching.context,
        paths: abs,
        exclude: project.docs_path(docs).into_iter().collect(),
        ..FindOptions::default()
    };
    let mut result =
        footprint::find_in_files(&corpus, &project.root, pattern, &opts).map_err(Fail)?;
    // Paths as `check` prints them, from the current folder: `lib/tables.js` (relative to
    // the project) did not open from the repository's root, where `check` had said
    // `examples/demo/lib/tables.js`. The agent's tool keeps the root-relative form.
    for f in &mut result.files {
        let shown = super::from_cwd(&project.root.join(&f.path));
        for h in &mut f.hits {
            h.path = if h.path == f.path {
                shown.clone()
            } else {
                super::from_cwd(&project.root.join(&h.path))
            };
        }
        f.path = shown;
    }
    // Like grep and ripgrep: a script's `if grounded find ...` must be able to tell.
    let status = if result.hits().next().is_some() { 0 } else { 1 };
    if format == Format::Json {
        let hits: Vec<_> = result.hits().collect();
        println!("{}", serde_json::to_string_pretty(&hits)?);
        for n in &result.notes {
            eprintln!("grounded: {n}");
        }
        if let Some(c) = &result.concept {
            eprintln!(
                "grounded: no match for `{}`; searched the engine's symbols instead: {}",
                c.words,
                c.symbols.join(", ")
            );
        }
        return Ok(status);
    }
    print!("{}", result.render_human());
    Ok(status)
}

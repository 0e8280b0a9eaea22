//! `grounded import dts`: arguments and the summary on stderr; the work is
//! `crate::import`'s.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::Fail;

/// `grounded import ...`.
#[derive(Debug, Subcommand)]
pub enum ImportCmd {
    /// A corpus from TypeScript declaration files (.d.ts).
    #[command(
        after_help = "Writes corpus.jsonl (and facts.toml when the options name one) into --out, whole or not at all. The summary goes to stderr. See docs/corpus.md, \"From TypeScript declarations\"."
    )]
    Dts(DtsArgs),
}

/// `grounded import dts` arguments.
#[derive(Debug, Args)]
pub struct DtsArgs {
    /// The corpus folder to write (replaced only if it holds an earlier import alone).
    #[arg(long, default_value = "corpus")]
    out: PathBuf,
    /// The engine's ECMAScript level (3, 5, 2015, ...); default 3 or the options'.
    #[arg(long)]
    es: Option<String>,
    /// Script extensions, comma-separated (`.jsx,.jsxinc`).
    #[arg(long, value_delimiter = ',')]
    extensions: Option<Vec<String>>,
    /// Engine directives, comma-separated (`#target,#include`).
    #[arg(long, value_delimiter = ',')]
    directives: Option<Vec<String>>,
    /// Syntax rules the engine allows beyond its level, comma-separated (`e4x,trailing-commas`).
    #[arg(long, value_delimiter = ',')]
    also_allows: Option<Vec<String>>,
    /// The options file you keep beside the declarations (TOML: what they cannot say).
    #[arg(long)]
    options: Option<PathBuf>,
    /// .d.ts files and folders (read recursively; `/// <reference path>` followed).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// Runs `grounded import`.
pub fn run(cmd: ImportCmd) -> Result<i32, Fail> {
    let ImportCmd::Dts(a) = cmd;
    let req = crate::import::Request {
        paths: a.paths,
        out: a.out.clone(),
        options: a.options,
        es: a.es,
        extensions: a.extensions,
        directives: a.directives,
        also_allows: a.also_allows,
    };
    let r = crate::import::import_dts(&req).map_err(|e| Fail(e.to_string()))?;
    let c = &r.counts;
    eprintln!(
        "grounded import: read {} file{}: {}",
        r.files.len(),
        plural(r.files.len()),
        r.files.join(", ")
    );
    eprintln!(
        "wrote {}: {} chunks: 1 engine, {} interface{}, {} member{}; {} global{}, {} constructor{}",
        super::from_cwd(&a.out),
        r.chunks,
        c.interfaces,
        plural(c.interfaces),
        c.members,
        plural(c.members),
        c.globals,
        plural(c.globals),
        c.constructors,
        plural(c.constructors)
    );
    if r.modules.is_empty() {
        eprintln!("modules: none (every declaration read is global)");
    } else {
        eprintln!(
            "modules: {} (one interface each, its named exports its members): {} export{}; globals: {} (declared global: outside any module, or in `declare global`)",
            r.modules.len(),
            r.exports,
            plural(r.exports),
            c.globals
        );
        eprintln!("  {}", r.modules.join(", "));
    }
    eprintln!(
        "implicit constructors: {} class{} declared without `constructor` got TypeScript's (the base class's parameters); {} class{} left without by the options' no_constructor",
        c.implicit_constructors,
        if c.implicit_constructors == 1 { "" } else { "es" },
        c.withheld_constructors,
        if c.withheld_constructors == 1 { "" } else { "es" },
    );
    if c.array_collections.is_empty() {
        eprintln!("collections extending Array<T>: none");
    } else {
        eprintln!(
            "collections extending Array<T>: {} (indexable as T, with the language's Array members of {}): {}",
            c.array_collections.len(),
            crate::es::edition_name(r.level),
            c.array_collections.join(", ")
        );
    }
    if r.kept_builtins.is_empty() {
        eprintln!("host objects named like a later edition's built-ins: none");
    } else {
        let list: Vec<String> = r
            .kept_builtins
            .iter()
            .map(|(n, y)| format!("{n} ({})", crate::es::edition_name(*y)))
            .collect();
        eprintln!(
            "host objects named like a later edition's built-ins, kept as the host's at {}: {}",
            crate::es::edition_name(r.level),
            list.join(", ")
        );
    }
    if r.renames.is_empty() {
        eprintln!("renamed for collisions: none");
    } else {
        eprintln!("renamed for collisions: {}", r.renames.len());
        for (old, new, at, why) in &r.renames {
            eprintln!("  {at}: `{old}` → `{new}` ({why})");
        }
    }
    let anys: usize = r.anys.values().sum();
    eprintln!("types mapped to any: {anys}");
    for (why, n) in &r.anys {
        eprintln!("  {n} {why}");
    }
    eprintln!("declarations skipped: {}", r.skipped.len());
    for s in &r.skipped {
        eprintln!("  {s}");
    }
    if r.load_diagnostics.is_empty() {
        eprintln!("the corpus loads with no diagnostic");
    } else {
        eprintln!(
            "the corpus loads with {} diagnostic{}:",
            r.load_diagnostics.len(),
            plural(r.load_diagnostics.len())
        );
        for d in r.load_diagnostics.iter().take(20) {
            eprintln!("  {d}");
        }
    }
    Ok(0)
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

//! `cli`: the command line. Each command's work lives in the layer that owns it; these
//! files only parse arguments, load the project, call in and print.
//!
//! Exit status (interfaces.md): 0 done with nothing at error severity, 1 findings at
//! error severity, 2 a usage, configuration or corpus error with a one-line reason.

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};

use crate::docs::Corpus;
use crate::project::Project;

mod add_ignore;
mod agent;
mod baseline;
mod check;
mod docs_cmds;
mod dryrun;
mod excerpt;
mod find;
mod fix;
mod hook;
mod import;
pub mod mcp;
mod report;
mod serve;

/// Where `--help` sends people: the guides in the repository's `docs/` folder. They
/// once cited "interfaces.md", a file outside the repository a user cannot open.
const DOCS_HELP: &str = "Documentation (in the grounded repository): docs/cli.md (commands, JSON and SARIF output, exit codes), docs/corpus.md (writing your engine's corpus), docs/config.md (grounded.toml, editor settings), docs/syntax-rules.md (the syntax rules' names).";

/// Output formats of the reporting commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// For people: excerpts, carets, colour unless NO_COLOR.
    Human,
    /// For scripts: the JSON array of docs/cli.md.
    Json,
    /// SARIF 2.1.0, for CI code scanning (check only).
    Sarif,
}

/// The format of a command that prints human or JSON output. Every such command
/// refuses `sarif` the same way: `lookup` once printed human text for it while
/// `dry-run` refused it, so a CI script could not tell what it got.
pub fn plain_format(command: &str, format: Format) -> Result<Format, Fail> {
    match format {
        Format::Sarif => Err(Fail(format!(
            "`{command}` prints human or json; sarif is for `check` (see docs/cli.md)"
        ))),
        f => Ok(f),
    }
}

#[derive(Debug, Parser)]
#[command(
    name = "grounded",
    version,
    about = "Grounds engine scripts in the engine's own documentation",
    after_help = DOCS_HELP
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// The language server, on stdio.
    Serve {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        // Accepted because language clients add it to a stdio server's command: VS
        // Code's `TransportKind.stdio` does, and while `serve` refused it the server
        // never started in VS Code ("crashed 5 times in the last 3 minutes").
        /// Speak the protocol on stdin/stdout (the default and only transport; clients add it by convention).
        #[arg(long)]
        stdio: bool,
    },
    /// Check scripts, folders and Markdown files against the docs.
    #[command(
        after_help = "Exit status: 0 nothing at error severity, 1 findings at error severity, 2 usage, configuration or corpus error (or no script found). Output formats and their fields: docs/cli.md."
    )]
    Check {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Also run the project against the fake engine.
        #[arg(long, conflicts_with = "diff")]
        dry_run: bool,
        /// Apply each finding's one safe fix (never a near name: docs/cli.md says which
        /// fix is safe), re-check, repeat until none is left; then report what is left.
        #[arg(long, conflicts_with = "diff")]
        fix: bool,
        /// With --fix or --diff, also apply a finding's only fix when it is unsafe (a
        /// near name, a deletion the docs do not explain): review the result.
        #[arg(long)]
        unsafe_fixes: bool,
        /// Print the unified diff `--fix` would make, and write nothing.
        #[arg(long, conflicts_with = "format")]
        diff: bool,
        /// Report only the findings this baseline file does not record.
        #[arg(long, value_name = "FILE")]
        baseline: Option<PathBuf>,
        /// Record today's findings in this baseline file (sorted JSON, one entry a line);
        /// with paths inside the project, only those files' entries are replaced.
        #[arg(long, value_name = "FILE", conflicts_with_all = ["baseline", "diff"])]
        write_baseline: Option<PathBuf>,
        /// Drop the baseline's stale entries (fixed findings, deleted files) and add
        /// nothing; the baseline is --baseline's or grounded.toml's.
        #[arg(long, conflicts_with_all = ["write_baseline", "fix", "diff", "no_baseline", "add_ignore"])]
        prune_baseline: bool,
        /// Do not read the baseline grounded.toml names: report every finding.
        #[arg(long, conflicts_with_all = ["baseline"])]
        no_baseline: bool,
        /// Write an ignore comment above every line with a finding left, with REASON
        /// after its colon (`--add-ignore="legacy, see #12"`), instead of reporting.
        #[arg(long, value_name = "REASON", num_args = 0..=1, require_equals = true,
              default_missing_value = "", conflicts_with_all = ["fix", "diff", "write_baseline"])]
        add_ignore: Option<String>,
        /// Write the report in --format to FILE (whole, or not at all); the terminal
        /// gets the human report of what is not silenced.
        #[arg(long, short = 'o', value_name = "FILE", conflicts_with_all = ["diff", "write_baseline", "prune_baseline", "add_ignore"])]
        output: Option<PathBuf>,
        /// Report only these codes (comma-separated; replaces grounded.toml's `select`).
        #[arg(long, value_delimiter = ',', value_name = "CODES")]
        select: Option<Vec<String>>,
        /// Do not report these codes (comma-separated; replaces grounded.toml's `ignore`).
        #[arg(long, value_delimiter = ',', value_name = "CODES")]
        ignore: Option<Vec<String>>,
        /// Also list what ignore comments and grounded.toml silenced, with what silenced it.
        #[arg(long)]
        show_ignored: bool,
        /// Files and folders (default: the current folder).
        paths: Vec<PathBuf>,
    },
    /// Full-text search of the corpus.
    Lookup {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// How many hits at most.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// The term.
        term: String,
    },
    /// The phrasebook: a goal in your words to the engine's real symbols.
    Topic {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// The goal.
        goal: String,
    },
    /// What the corpus holds: counts, skipped pairs, load diagnostics.
    Corpus {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Run the project against a fake engine generated from the docs.
    DryRun {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Time budget in milliseconds.
        #[arg(long, default_value_t = 2000)]
        budget_ms: u64,
        /// The entry script (default: grounded.toml's entry, else every top-level script).
        entry: Option<PathBuf>,
    },
    /// A documented name's whole chunk: `Layout`, `Layout.tableStart`, `loadJS`.
    #[command(
        after_help = "An interface also lists its members (inherited ones included) with their signatures. Exit 1 when the docs have no such name. See docs/cli.md."
    )]
    Doc {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// `Interface`, `Interface.member`, `Interface-member`, a global (`layout`,
        /// `layout.tableStart`), a global function, or a guide's title.
        name: String,
    },
    /// Every construct instance of a script, with its footprint.
    Constructs {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// The script.
        file: PathBuf,
    },
    /// Project search: contents, file names, footprints, concept words.
    #[command(
        after_help = "Exit status: 0 something matched, 1 nothing matched (as grep), 2 usage error."
    )]
    Find {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Output format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Treat the pattern as a literal string, not a regex.
        #[arg(long, short = 'F')]
        fixed_strings: bool,
        /// Match without regard to case.
        #[arg(long, short = 'i')]
        ignore_case: bool,
        /// Lines of context around each hit.
        #[arg(long, short = 'C', default_value_t = 0)]
        context: usize,
        /// The pattern (a regex unless -F).
        pattern: String,
        /// Files and folders (default: the project root).
        paths: Vec<PathBuf>,
    },
    /// The agent, headless.
    Agent {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// The folder the agent may read and edit.
        #[arg(long)]
        root: Option<PathBuf>,
        /// The model endpoint.
        #[arg(long)]
        base_url: Option<String>,
        /// The model name.
        #[arg(long)]
        model: Option<String>,
        /// Append the turn's events as JSON Lines to this file.
        #[arg(long)]
        transcript: Option<PathBuf>,
        /// Also run grounded.toml's `[agent] validate` command before and after the
        /// turn's writes (a project file alone never runs a command).
        #[arg(long)]
        validate: bool,
        /// The request.
        request: String,
    },
    /// The MCP server on stdio: the docs and the checker as tools for any agent
    /// (Claude Code, Copilot, Cursor, Codex). See docs/agents.md.
    Mcp {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Where to look for the project (default: the current folder).
        #[arg(long)]
        root: Option<PathBuf>,
    },
    /// A coding agent's hook after each edit: `grounded hook claude-code` reads Claude
    /// Code's PostToolUse JSON on stdin, checks the edited file and hands its findings
    /// back (docs/agents.md).
    Hook {
        /// The corpus (overrides grounded.toml).
        #[arg(long)]
        docs: Option<PathBuf>,
        /// The agent whose hook protocol is spoken.
        #[arg(value_enum)]
        agent: HookAgent,
    },
    /// Make a corpus from what the engine already has: `grounded import dts PATHS...`.
    #[command(subcommand)]
    Import(import::ImportCmd),
}

/// The agents `grounded hook` speaks the hook protocol of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HookAgent {
    /// Claude Code's PostToolUse hook (JSON on stdin, a `block` decision on stdout).
    ClaudeCode,
}

/// A command's failure: exit 2 with a one-line reason.
pub struct Fail(pub String);

impl<E: std::fmt::Display> From<E> for Fail {
    fn from(e: E) -> Self {
        Fail(e.to_string())
    }
}

/// Loads the project around `start` and its corpus.
pub fn project_and_corpus(start: &Path, docs: Option<&Path>) -> Result<(Project, Corpus), Fail> {
    // A file given alone, with no grounded.toml above it, is its own project's folder:
    // taking the current folder instead once walked all of `/tmp` (11 s, 1.2 GB) to
    // check one script there.
    let fallback = if start.is_dir() {
        start.to_path_buf()
    } else {
        match start.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
        }
    };
    let project = Project::discover(start, &fallback).map_err(Fail)?;
    for w in &project.warnings {
        eprintln!("grounded: warning: {w}");
    }
    let corpus = project.load_corpus(docs, true).map_err(Fail)?;
    Ok((project, corpus))
}

/// `path` as the user would name it from the current folder: relative when it lies at
/// or under it (`../` steps when it lies beside it), else absolute. Findings printed
/// relative to a project root that is not the current folder did not open.
pub fn from_cwd(path: &Path) -> String {
    let Ok(cwd) = std::env::current_dir().and_then(std::fs::canonicalize) else {
        return path.to_string_lossy().into_owned();
    };
    let abs = std::fs::canonicalize(path).unwrap_or_else(|_| cwd.join(path));
    let common = cwd
        .components()
        .zip(abs.components())
        .take_while(|(a, b)| a == b)
        .count();
    // Only the root in common: an absolute path says it better than `../../..`.
    if common <= 1 {
        return abs.to_string_lossy().into_owned();
    }
    let ups = cwd.components().count() - common;
    let mut out = PathBuf::new();
    for _ in 0..ups {
        out.push("..");
    }
    for c in abs.components().skip(common) {
        out.push(c);
    }
    out.to_string_lossy().replace('\\', "/")
}

/// Runs the command line; returns the exit status. A panic is a clear error, never a
/// backtrace: exit 2 and one line naming the file being read.
pub fn main() -> i32 {
    std::panic::set_hook(Box::new(note_panic));
    match std::panic::catch_unwind(run) {
        Ok(code) => code,
        Err(_) => {
            let what = LAST_PANIC
                .lock()
                .ok()
                .and_then(|mut p| p.take())
                .unwrap_or_else(|| "a panic".into());
            eprintln!("grounded: {what}; this is a bug in grounded: please report it");
            2
        }
    }
}

/// The one-line account of the last panic, written by the hook, printed by [`main`].
static LAST_PANIC: std::sync::Mutex<Option<String>> = std::sync::Mutex::new(None);

/// The panic hook of the command line: instead of Rust's message and backtrace hint
/// (which tell a user nothing they can act on), keeps one line: what panicked, where in
/// grounded, and the file being read (the input a bug report needs).
fn note_panic(info: &std::panic::PanicHookInfo<'_>) {
    let msg = info
        .payload()
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| info.payload().downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".into());
    let msg = msg.lines().next().unwrap_or("").to_string();
    let at = info
        .location()
        .map(|l| format!(" at {}:{}", l.file(), l.line()))
        .unwrap_or_default();
    let file = match crate::textfile::being_read() {
        Some(f) => format!("while reading {f}"),
        None => "before reading any file".into(),
    };
    let line = format!("internal error {file}: {msg}{at}");
    if let Ok(mut p) = LAST_PANIC.lock() {
        // The first panic is the cause; a second one (a thread joined after it) is not.
        p.get_or_insert(line);
    }
}

fn run() -> i32 {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return code;
        }
    };
    let result = match cli.command {
        Command::Lookup {
            docs,
            limit,
            format,
            term,
        } => docs_cmds::lookup(docs.as_deref(), &term, limit, format),
        Command::Topic { docs, format, goal } => docs_cmds::topic(docs.as_deref(), &goal, format),
        Command::Corpus { docs, format } => docs_cmds::corpus(docs.as_deref(), format),
        Command::Doc { docs, format, name } => docs_cmds::doc(docs.as_deref(), &name, format),
        Command::Check {
            docs,
            format,
            dry_run,
            select,
            ignore,
            show_ignored,
            fix,
            diff,
            baseline,
            write_baseline,
            unsafe_fixes,
            prune_baseline,
            no_baseline,
            add_ignore,
            output,
            paths,
        } => check::run(
            docs.as_deref(),
            format,
            &check::Options {
                dry_run,
                select,
                ignore,
                show_ignored,
                fix: match (fix, diff) {
                    (_, true) => check::FixMode::Diff,
                    (true, _) => check::FixMode::Write,
                    _ => check::FixMode::Off,
                },
                baseline,
                write_baseline,
                unsafe_fixes,
                add_ignore,
                prune_baseline,
                no_baseline,
                output,
            },
            &paths,
        ),
        Command::DryRun {
            docs,
            format,
            budget_ms,
            entry,
        } => dryrun::run(docs.as_deref(), format, budget_ms, entry.as_deref()),
        Command::Constructs { docs, format, file } => {
            find::constructs(docs.as_deref(), format, &file)
        }
        Command::Find {
            docs,
            format,
            fixed_strings,
            ignore_case,
            context,
            pattern,
            paths,
        } => find::find(
            docs.as_deref(),
            format,
            find::Matching {
                fixed: fixed_strings,
                ignore_case,
                context,
            },
            &pattern,
            &paths,
        ),
        Command::Serve { docs, stdio: _ } => serve::run(docs.as_deref()),
        Command::Agent {
            docs,
            root,
            base_url,
            model,
            transcript,
            validate,
            request,
        } => agent::run(agent::Args {
            docs: docs.as_deref(),
            root: root.as_deref(),
            base_url,
            model,
            transcript: transcript.as_deref(),
            validate,
            request: &request,
        }),
        Command::Import(cmd) => import::run(cmd),
        Command::Mcp { docs, root } => mcp::run(docs.as_deref(), root.as_deref()),
        Command::Hook { docs, agent } => match agent {
            HookAgent::ClaudeCode => hook::claude_code(docs.as_deref()),
        },
    };
    match result {
        Ok(code) => code,
        Err(Fail(msg)) => {
            eprintln!("grounded: {}", msg.lines().next().unwrap_or(""));
            2
        }
    }
}

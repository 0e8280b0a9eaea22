//! A script project: its root (the folder of the nearest `grounded.toml`), its
//! configuration, and how its corpus is found.
//!
//! `--docs` beats `grounded.toml`'s `docs`, which beats the bundled demo corpus; the
//! fallback is said on stderr because a user checking against the wrong engine's docs
//! would otherwise see a flood of false findings and not know why.
//!
//! ## Layer
//!
//! May depend on: `grounded-docs` (its `Cargo.toml`, which the compiler holds;
//! `tests/cli/layers.rs` keeps this line equal to it).
//!
//! Must never know: what is checked or how: it finds the root, the config and the
//! corpus, and says a fallback on stderr.

#![warn(missing_docs)]

use std::path::{Path, PathBuf};

use serde::Deserialize;

use grounded_docs::{bundled, Corpus};

/// `p` with `.` dropped and `..` applied by the text alone (no file system), `None` when
/// `..` climbs above the start of `p`. The dry run and the MCP server each need it to
/// decide whether a path stays under the project root before the file exists; one copy
/// keeps their answers the same.
pub fn lexical(p: &Path) -> Option<PathBuf> {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// The name of a project's configuration file.
pub const CONFIG_FILE: &str = "grounded.toml";

/// `grounded.toml`. A key added here (or to its tables) goes into [`KNOWN_KEYS`] too,
/// or users are warned that nothing reads it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct Config {
    /// The corpus, relative to the file.
    pub docs: Option<String>,
    /// The dry run's entry script.
    pub entry: Option<String>,
    /// The agent's model.
    pub model: Option<ModelConfig>,
    /// The agent's settings.
    pub agent: Option<AgentSection>,
    /// Globals the project's environment provides and no script declares (an Apps
    /// Script project's libraries and advanced services, a host's injected objects), as
    /// ESLint's `globals`: defined, of no known interface (see
    /// `grounded_check::ProjectIndex::set_globals`).
    pub globals: Vec<String>,
    /// Module specifiers the project bundles as its own dependencies (`modules =
    /// ["lodash"]`): third-party code whose bindings are not judged, and no `module`
    /// finding for importing it.
    pub modules: Vec<String>,
    /// What `grounded check`, the server and the agent report (`[check]`).
    pub check: CheckSection,
    /// How many of the corpus's load diagnostics the project has read (`grounded
    /// corpus` lists them): `check` stops saying them while the corpus has no more than
    /// this. A line on every run and every commit hook, with no way to quiet it once
    /// read, taught a team to skip grounded's stderr; a new diagnostic speaks again.
    pub load_diagnostics_read: Option<usize>,
}

/// A string of `grounded.toml` with where it was written (for "grounded.toml:7: ...").
pub type Spanned = toml::Spanned<String>;

/// `[check]` of `grounded.toml`: which codes are reported, how loudly, and where. Kept
/// raw (names and spans) here; `check::suppress::Rules` validates the codes and globs,
/// so that a typo is an error naming its line. Unknown keys are errors, not warnings:
/// a misspelt `ignor = ["syntax"]` would otherwise leave CI failing on what the team
/// believed it had turned off.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckSection {
    /// The codes reported (default: every code).
    pub select: Option<Vec<Spanned>>,
    /// The codes not reported.
    pub ignore: Vec<Spanned>,
    /// A code's severity: `error`, `warning`, `info`, `hint` or `off`.
    pub severity: std::collections::BTreeMap<Spanned, Spanned>,
    /// Globs of files (relative to the project root) not reported, on top of
    /// `.gitignore`.
    pub exclude: Vec<Spanned>,
    /// The baseline file (relative to the project root): its findings are not reported.
    pub baseline: Option<Spanned>,
    /// Per-file-glob `select`, `ignore` and `severity`.
    pub overrides: Vec<CheckOverride>,
    /// The file it was read from (for the lines of errors), when there was one.
    #[serde(skip)]
    pub file: Option<PathBuf>,
    /// The file's text (spans index it).
    #[serde(skip)]
    pub text: String,
}

/// One `[[check.overrides]]`: rules for the files its globs match.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CheckOverride {
    /// Globs of files, relative to the project root.
    pub files: Vec<Spanned>,
    /// The codes reported in those files.
    pub select: Option<Vec<Spanned>>,
    /// The codes not reported in those files.
    pub ignore: Vec<Spanned>,
    /// Severities in those files.
    pub severity: std::collections::BTreeMap<Spanned, Spanned>,
}

impl CheckSection {
    /// `grounded.toml:LINE` for a span of the file (the file's name alone without one).
    /// Named relative to the project root, whose own file it is: the absolute path
    /// once went into SARIF suppression reasons and warnings, a CI machine's folders in
    /// every pull request's annotations.
    pub fn at(&self, span: std::ops::Range<usize>) -> String {
        let name = CONFIG_FILE;
        let line = self
            .text
            .get(..span.start.min(self.text.len()))
            .map(|t| t.matches('\n').count() + 1)
            .unwrap_or(1);
        format!("{name}:{line}")
    }
}

/// `[agent]` of `grounded.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AgentSection {
    /// The most model steps of one turn.
    pub max_steps: Option<usize>,
    /// The most model steps of one plan item's worker turn.
    pub worker_max_steps: Option<usize>,
    /// A command measured before and after a turn's writes; it runs only when the user
    /// also asks for it (`--validate`), never on the project file's word alone.
    pub validate: Option<String>,
    /// Seconds one model request may take.
    pub timeout_secs: Option<u64>,
    /// The most tokens one model answer may have (sent as `max_tokens`).
    pub max_tokens: Option<u32>,
}

/// `[model]` of `grounded.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ModelConfig {
    /// An OpenAI-compatible endpoint, e.g. `http://127.0.0.1:11434/v1`.
    pub base_url: Option<String>,
    /// The model's name.
    pub name: Option<String>,
    /// The name of the environment variable that holds the key.
    pub api_key_env: Option<String>,
}

/// A project: root folder and configuration.
#[derive(Debug, Clone)]
pub struct Project {
    /// The folder of `grounded.toml`, or the fallback root.
    pub root: PathBuf,
    /// The configuration (default when there is no file).
    pub config: Config,
    /// Whether a `grounded.toml` was found.
    pub has_config: bool,
    /// What in `grounded.toml` was not understood (unknown keys), one line each.
    pub warnings: Vec<String>,
}

/// `modules = [...]` of the `grounded.toml` at `root`, empty when there is none or it
/// does not parse (the commands that read the whole file say why). The project index
/// reads it itself, so every reader of the index (check, server, agent, dry run) sees
/// the same list without each passing it along.
pub fn project_modules(root: &Path) -> Vec<String> {
    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Only {
        modules: Vec<String>,
    }
    std::fs::read_to_string(root.join(CONFIG_FILE))
        .ok()
        .and_then(|t| toml::from_str::<Only>(&t).ok())
        .map(|o| o.modules)
        .unwrap_or_default()
}

/// The keys `grounded.toml` knows, by table (`""` is the top level). `[model]` and
/// `[agent]` belong to the agent; they are listed here so that a typo in them is said
/// as well: `entri = "main.js"` once passed without a word and the dry run silently
/// ran every script instead of the entry.
pub const KNOWN_KEYS: &[(&str, &[&str])] = &[
    (
        "",
        &[
            "docs",
            "entry",
            "globals",
            "modules",
            "model",
            "agent",
            "check",
            "load_diagnostics_read",
        ],
    ),
    ("model", &["base_url", "name", "api_key_env"]),
    (
        "agent",
        &[
            "max_steps",
            "worker_max_steps",
            "validate",
            "timeout_secs",
            "max_tokens",
        ],
    ),
];

/// Warnings for the keys of a `grounded.toml` text that no part of grounded reads,
/// each naming the nearest known key. A text that does not parse gives none (the
/// parse error is said instead).
pub fn unknown_keys(text: &str) -> Vec<String> {
    let Ok(table) = text.parse::<toml::Table>() else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let known_in = |t: &str| {
        KNOWN_KEYS
            .iter()
            .find(|(name, _)| *name == t)
            .map(|(_, keys)| *keys)
    };
    let mut check = |prefix: &str, table: &toml::Table, known: &[&str]| {
        for key in table.keys() {
            if known.contains(&key.as_str()) {
                continue;
            }
            let every: Vec<String> = KNOWN_KEYS
                .iter()
                .flat_map(|(t, keys)| {
                    keys.iter().map(move |k| {
                        if t.is_empty() {
                            k.to_string()
                        } else {
                            format!("{t}.{k}")
                        }
                    })
                })
                .collect();
            let near = known
                .iter()
                .map(|k| (strsim::damerau_levenshtein(key, k), k.to_string()))
                .chain(every.iter().map(|k| {
                    let last = k.rsplit('.').next().unwrap_or(k);
                    (strsim::damerau_levenshtein(key, last), k.clone())
                }))
                .min();
            let name = format!("{prefix}{key}");
            let hint = match near {
                Some((d, k)) if d <= 2.max(key.len() / 3) => format!("; did you mean `{k}`?"),
                _ => format!("; known keys here: {}", known.join(", ")),
            };
            out.push(format!("unknown key `{name}` (nothing reads it){hint}"));
        }
    };
    check("", &table, known_in("").unwrap_or(&[]));
    for (t, known) in KNOWN_KEYS.iter().filter(|(t, _)| !t.is_empty()) {
        if let Some(toml::Value::Table(sub)) = table.get(*t) {
            check(&format!("{t}."), sub, known);
        }
    }
    out
}

/// The first top-level table of a `grounded.toml` text that nothing reads, as an error
/// naming its line (`:3: unknown table ...`, after the file's name): `[checks]` for `[check]` once only warned, and the team's rules
/// were gone from every run while CI stayed green. (An unknown key stays a warning:
/// its loss is one setting, a table's is all of them.)
pub fn unknown_tables(text: &str) -> Option<String> {
    let table = text.parse::<toml::Table>().ok()?;
    let known = KNOWN_KEYS
        .iter()
        .find(|(name, _)| name.is_empty())
        .map(|(_, keys)| *keys)
        .unwrap_or(&[]);
    let tables: Vec<&str> = KNOWN_KEYS
        .iter()
        .map(|(t, _)| *t)
        .filter(|t| !t.is_empty())
        .chain(["check"])
        .collect();
    let (key, _) = table.iter().find(|(k, v)| {
        !known.contains(&k.as_str())
            && matches!(v, toml::Value::Table(_) | toml::Value::Array(_))
            && (v.is_table() || v.as_array().is_some_and(|a| a.iter().all(|x| x.is_table())))
    })?;
    let line = text
        .lines()
        .position(|l| {
            let l = l.trim_start().trim_start_matches('[').trim_start();
            l.strip_prefix(key.as_str())
                .is_some_and(|rest| rest.starts_with([']', '.', ' ', '=']))
        })
        .map(|i| i + 1);
    let near = tables
        .iter()
        .map(|t| (strsim::damerau_levenshtein(key, t), *t))
        .min()
        .filter(|(d, _)| *d <= 2)
        .map(|(_, t)| format!("; did you mean `[{t}]`?"))
        .unwrap_or_else(|| format!("; the tables are {}", tables.join(", ")));
    let at = line.map(|l| format!(":{l}")).unwrap_or_default();
    Some(format!(
        "{at}: unknown table `[{key}]` (nothing reads it, so none of its settings would apply){near}"
    ))
}

/// The folder of the nearest `grounded.toml` at or above `start` (a file or folder).
pub fn find_root(start: &Path) -> Option<PathBuf> {
    let start = if start.is_file() {
        start.parent()?
    } else {
        start
    };
    // `a.js`'s parent is the empty path, which names no folder: it means the current one.
    let start = if start.as_os_str().is_empty() {
        Path::new(".")
    } else {
        start
    };
    let abs = std::fs::canonicalize(start).ok()?;
    abs.ancestors()
        .find(|d| d.join(CONFIG_FILE).is_file())
        .map(Path::to_path_buf)
}

impl Project {
    /// The project that `start` belongs to; without a `grounded.toml`, `fallback` is the
    /// root.
    pub fn discover(start: &Path, fallback: &Path) -> Result<Project, String> {
        match find_root(start) {
            Some(root) => {
                let path = root.join(CONFIG_FILE);
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                // With the line: "extra '=', expected nothing" alone left a newcomer
                // reading every line of the file.
                let mut config: Config = toml::from_str(&text).map_err(|e| {
                    let line = e
                        .span()
                        .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
                    match line {
                        Some(l) => format!("{}:{l}: {}", path.display(), e.message()),
                        None => format!("{}: {}", path.display(), e.message()),
                    }
                })?;
                if let Some(e) = unknown_tables(&text) {
                    return Err(format!("{}{e}", path.display()));
                }
                config.check.file = Some(path.clone());
                config.check.text = text.clone();
                let warnings = unknown_keys(&text)
                    .into_iter()
                    .map(|w| format!("{}: {w}", path.display()))
                    .collect();
                Ok(Project {
                    root,
                    config,
                    has_config: true,
                    warnings,
                })
            }
            None => Ok(Project {
                root: std::fs::canonicalize(fallback).unwrap_or_else(|_| fallback.to_path_buf()),
                config: Config::default(),
                has_config: false,
                warnings: Vec::new(),
            }),
        }
    }

    /// Where the corpus is: `--docs`, else `docs` of `grounded.toml`, else `None` (the
    /// bundled corpus).
    pub fn docs_path(&self, cli_docs: Option<&Path>) -> Option<PathBuf> {
        if let Some(d) = cli_docs {
            return Some(d.to_path_buf());
        }
        self.config.docs.as_ref().map(|d| self.root.join(d))
    }

    /// Loads the project's corpus. The bundled fallback is announced on stderr when
    /// `announce` is set.
    pub fn load_corpus(&self, cli_docs: Option<&Path>, announce: bool) -> Result<Corpus, String> {
        match self.docs_path(cli_docs) {
            Some(p) => Corpus::load_cached(&p).map_err(|e| {
                // A copied demo kept its `docs = "../../corpus/demo"`: "corpus not found"
                // alone sent its user looking at the command line, not at the file.
                match (&e, cli_docs, &self.config.docs) {
                    (grounded_docs::CorpusError::NotFound(_), None, Some(d)) => format!(
                        "{e} (the path is `docs = {d:?}` in {}, relative to its folder: correct it, or pass --docs)",
                        self.root.join(CONFIG_FILE).display()
                    ),
                    _ => e.to_string(),
                }
            }),
            None => {
                if announce {
                    eprintln!("grounded: no --docs and no `docs` in grounded.toml; using the bundled demo engine's corpus");
                }
                bundled::demo().map_err(|e| e.to_string())
            }
        }
    }
}

/// Whether `path` lies inside `root` once `..` and links are resolved. A path that does
/// not exist yet is judged by its lexical form.
pub fn is_inside(root: &Path, path: &Path) -> bool {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let full = if path.is_absolute() {
        path.to_path_buf()
    } else {
        root.join(path)
    };
    match std::fs::canonicalize(&full) {
        Ok(p) => p.starts_with(&root),
        Err(_) => {
            let mut out = PathBuf::new();
            for c in full.components() {
                match c {
                    std::path::Component::ParentDir => {
                        if !out.pop() {
                            return false;
                        }
                    }
                    std::path::Component::CurDir => {}
                    other => out.push(other),
                }
            }
            out.starts_with(&root)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lexical_applies_dots_and_refuses_a_climb_above_the_start() {
        let p = |s: &str| lexical(Path::new(s)).map(|p| p.to_string_lossy().into_owned());
        assert_eq!(p("/w/a/./b/../c.js").as_deref(), Some("/w/a/c.js"));
        assert_eq!(p("a/../b.js").as_deref(), Some("b.js"));
        assert_eq!(p("a/../../b.js"), None);
        assert_eq!(p("/.."), None);
    }
}

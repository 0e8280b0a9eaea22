//! A script project: its root (the folder of the nearest `grounded.toml`), its
//! configuration, and how its corpus is found.
//!
//! `--docs` beats `grounded.toml`'s `docs`, which beats the bundled demo corpus; the
//! fallback is said on stderr because a user checking against the wrong engine's docs
//! would otherwise see a flood of false findings and not know why.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::docs::{bundled, Corpus};

/// The name of a project's configuration file.
pub const CONFIG_FILE: &str = "grounded.toml";

/// `grounded.toml`.
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
}

/// `[agent]` of `grounded.toml`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct AgentSection {
    /// The most model steps of one turn.
    pub max_steps: Option<usize>,
    /// A command measured before and after a turn's writes; it runs only when the user
    /// also asks for it (`--validate`), never on the project file's word alone.
    pub validate: Option<String>,
    /// Seconds one model request may take.
    pub timeout_secs: Option<u64>,
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
                let config: Config = toml::from_str(&text)
                    .map_err(|e| format!("{}: {}", path.display(), e.message()))?;
                Ok(Project {
                    root,
                    config,
                    has_config: true,
                })
            }
            None => Ok(Project {
                root: std::fs::canonicalize(fallback).unwrap_or_else(|_| fallback.to_path_buf()),
                config: Config::default(),
                has_config: false,
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
            Some(p) => Corpus::load(&p).map_err(|e| e.to_string()),
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

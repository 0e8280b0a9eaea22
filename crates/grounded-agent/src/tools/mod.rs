//! The tool registry: base tools (generic file work) and domain tools (from the corpus
//! and the analysis layers). A domain tool shadows a base tool of the same name, so the
//! model sees one `find_in_files`, the one that knows footprints and concept words.
//!
//! May import `edits` (the ledger, confinement, find/replace), `config`, `model`,
//! `transcript`, `audit`, `cache` and `wording`; never `landing`, `measure` or the turn
//! (a write lands through `Edits::land`, a method).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};

use super::config::AgentConfig;
use super::edits::{Edits, Workspace};
use super::model::{ChatModel, Watch};
use super::transcript::Transcript;
use grounded_check::ProjectIndex;
use grounded_docs::Library;

pub mod base;
pub mod domain;

/// Where a turn says in words what it is doing (stderr for the CLI, work-done progress
/// in the editor).
pub trait Progress: Sync {
    /// One short line: "looking up tableStart", "editing main.js".
    fn say(&self, text: &str);
    /// A line about a wait still going on ("waiting for the model (step 2): 14 s"),
    /// about once a second. Where a line a second is noise (a log), the sink may
    /// thin them out; by default each is said.
    fn waiting(&self, text: &str, waited: std::time::Duration) {
        let _ = waited;
        self.say(text);
    }
}

/// Progress that goes nowhere (benches, tests).
pub struct Silent;

impl Progress for Silent {
    fn say(&self, _text: &str) {}
}

/// What a tool may use: the corpus, the project, the turn's edit state.
pub struct ToolCtx<'a> {
    /// The engine's docs.
    pub corpus: &'a Library,
    /// The project root, canonical.
    pub root: &'a Path,
    /// Folders left out of project search and measurement (the corpus inside the
    /// project).
    pub exclude: Vec<PathBuf>,
    /// The dry run's entry (`grounded.toml`'s `entry`).
    pub entry: Option<String>,
    /// Where reads and writes land.
    pub workspace: &'a dyn Workspace,
    /// The turn's edit state.
    pub edits: &'a Edits,
    /// The model, for tools that compose (`rag_lookup`); `None` returns the chunks alone.
    pub model: Option<&'a dyn ChatModel>,
    /// Progress in words.
    pub progress: &'a dyn Progress,
    /// The figures.
    pub config: &'a AgentConfig,
    /// The transcript (edit and measure events).
    pub transcript: &'a Transcript,
    /// The turn's cancel flag. A tool that waits on the model (`rag_lookup` composing,
    /// `plan`'s workers) watches it, so the user's cancel ends that wait too: before,
    /// only the turn's own requests were watched, and a cancel during a worker's
    /// minute-long answer waited the minute out.
    pub cancel: Arc<AtomicBool>,
}

impl ToolCtx<'_> {
    /// Whether the user cancelled the turn.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::SeqCst)
    }

    /// A watch for a tool's own model request: the turn's cancel, and `what` it waits
    /// for in the progress line ("waiting for the model (composing the lookup): 12 s").
    pub fn watch<'w>(&'w self, what: &'w str) -> impl Watch + 'w {
        ToolWatch { ctx: self, what }
    }
}

struct ToolWatch<'w, 'a> {
    ctx: &'w ToolCtx<'a>,
    what: &'w str,
}

impl Watch for ToolWatch<'_, '_> {
    fn cancelled(&self) -> bool {
        self.ctx.cancelled()
    }
    fn waiting(&self, waited: Duration) {
        self.ctx.progress.waiting(
            &format!(
                "waiting for the model ({}): {} s",
                self.what,
                waited.as_secs()
            ),
            waited,
        );
    }
}

/// The project globals of the root's `grounded.toml` (interfaces.md, "Project
/// globals"), read as the command line reads them, so the agent's checks and dry runs
/// judge what `grounded check` judges. A file that does not read gives none.
pub fn project_globals(root: &std::path::Path) -> Vec<String> {
    grounded_project::Project::discover(root, root)
        .map(|p| p.config.globals)
        .unwrap_or_default()
}

/// The `[check]` rules as they were when the turn began (every code when
/// `grounded.toml` has none, or a broken one): a turn that writes `ignore = ["member"]`
/// into `grounded.toml` does not silence its own checker either.
pub fn turn_rules(ctx: &ToolCtx) -> grounded_check::Rules {
    use grounded_project::{Config, CONFIG_FILE};
    let snap = ctx.edits.snapshots().get(CONFIG_FILE).cloned();
    let text = match snap {
        Some(Some(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        Some(None) => return grounded_check::Rules::default(),
        None => match std::fs::read_to_string(ctx.root.join(CONFIG_FILE)) {
            Ok(t) => t,
            Err(_) => return grounded_check::Rules::default(),
        },
    };
    let Ok(mut config) = toml::from_str::<Config>(&text) else {
        return grounded_check::Rules::default();
    };
    config.check.text = text;
    grounded_check::Rules::new(&config.check, ctx.root, None, None).unwrap_or_default()
}

/// The text of `rel` when the turn began: its snapshot if the turn wrote it (`None`:
/// the turn created it), else `now` (the turn has not touched it).
pub fn turn_start(ctx: &ToolCtx, rel: &str, now: Option<&str>) -> Option<String> {
    match ctx.edits.snapshots().get(rel) {
        Some(Some(bytes)) => Some(String::from_utf8_lossy(bytes).into_owned()),
        Some(None) => None,
        None => now.map(str::to_string),
    }
}

/// The checker's findings of `text` as the agent's gates judge them: the `[check]`
/// rules applied, and of the file's ignore comments only those that were already in
/// `start` (the file when the turn began; `None`: the turn created it), over the same
/// line of code. A model that cannot make an invented call pass the checker could
/// otherwise write `// grounded-ignore member` above it; an ignore the user wrote
/// before the turn still counts. What is silenced is left out.
pub fn check_as_turn(
    ctx: &ToolCtx,
    index: &ProjectIndex,
    rules: &grounded_check::Rules,
    rel: &str,
    text: &str,
    start: Option<&str>,
) -> Vec<grounded_check::Finding> {
    use grounded_check::suppress;
    let mut found = grounded_check::check_text(ctx.corpus, index, rel, text);
    if rules.excluded(rel) {
        return Vec::new();
    }
    let directives = &ctx.corpus.engine.directives;
    let kept = if text.contains(suppress::DIRECTIVE) {
        let script = grounded_js::script_text(rel, text, directives);
        let now = suppress::directives(rel, text, &script);
        match start {
            Some(s) if s.contains(suppress::DIRECTIVE) => {
                let before = grounded_js::script_text(rel, s, directives);
                suppress::kept_from(&suppress::directives(rel, s, &before), now)
            }
            _ => Vec::new(),
        }
    } else {
        Vec::new()
    };
    suppress::apply(&mut found, rel, text, &kept, &rules.for_file(rel));
    found.retain(|f| f.ignored.is_none());
    found
}

/// The project's declarations as the workspace shows them.
pub fn project_index(ctx: &ToolCtx) -> ProjectIndex {
    let mut index = ProjectIndex::scan(ctx.corpus, ctx.root);
    index.set_globals(ctx.corpus, &project_globals(ctx.root));
    for (path, text) in ctx.workspace.overlay() {
        if let Ok(rel) = path.strip_prefix(ctx.root) {
            let rel = rel.to_string_lossy().replace('\\', "/");
            index.update_file(ctx.corpus, &rel, &text);
        }
    }
    index
}

/// A tool's answer.
#[derive(Debug, Clone)]
pub struct ToolOutput {
    /// What the model receives.
    pub content: String,
    /// Whether the call was refused (bad arguments, a rule).
    pub refused: bool,
    /// Whether the answer came from the cross-turn lookup cache (`served: disk`).
    pub disk: bool,
}

impl ToolOutput {
    /// A normal answer.
    pub fn ok(content: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: content.into(),
            refused: false,
            disk: false,
        }
    }

    /// A refusal with its reason.
    pub fn refused(content: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: content.into(),
            refused: true,
            disk: false,
        }
    }

    /// An answer kept from an earlier turn (the cross-turn lookup cache).
    pub fn from_disk(content: impl Into<String>) -> ToolOutput {
        ToolOutput {
            content: content.into(),
            refused: false,
            disk: true,
        }
    }
}

/// One tool.
pub trait Tool: Send + Sync {
    /// The name the model calls.
    fn name(&self) -> &'static str;
    /// What the model reads to choose it (from `wording`).
    fn description(&self) -> &'static str;
    /// JSON Schema of the arguments.
    fn parameters(&self) -> Value;
    /// Whether it writes: writes of one response run in order, reads run together.
    fn writes(&self) -> bool {
        false
    }
    /// Whether the tool itself changes files: withheld from a question's offer and
    /// refused there. By default what [`Tool::writes`] says; `plan` runs alone like a
    /// write but changes nothing itself (its workers run under the turn's intent).
    fn changes_files(&self) -> bool {
        self.writes()
    }
    /// Runs the call.
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput;
}

/// The tools offered to the model, by name; a later registration shadows an earlier
/// one of the same name.
#[derive(Default)]
pub struct Registry {
    tools: Vec<Box<dyn Tool>>,
}

impl Registry {
    /// Base tools, then domain tools over them.
    pub fn standard() -> Registry {
        let mut r = Registry::default();
        base::register(&mut r);
        domain::register(&mut r);
        r
    }

    /// Adds `tool`, replacing a tool of the same name in place.
    pub fn register(&mut self, tool: Box<dyn Tool>) {
        match self.tools.iter().position(|t| t.name() == tool.name()) {
            Some(i) => self.tools[i] = tool,
            None => self.tools.push(tool),
        }
    }

    /// The tool called `name`.
    pub fn get(&self, name: &str) -> Option<&dyn Tool> {
        self.tools
            .iter()
            .find(|t| t.name() == name)
            .map(|t| t.as_ref())
    }

    /// The names, in order.
    pub fn names(&self) -> Vec<&'static str> {
        self.tools.iter().map(|t| t.name()).collect()
    }

    /// Whether the tool called `name` changes files ([`Tool::changes_files`]).
    pub fn changes_files(&self, name: &str) -> bool {
        self.get(name).is_some_and(|t| t.changes_files())
    }

    /// The names offered in a turn: all of them, or (`read_only`, a question) those of
    /// the tools that change no file.
    pub fn names_for(&self, read_only: bool) -> Vec<&'static str> {
        self.tools
            .iter()
            .filter(|t| !(read_only && t.changes_files()))
            .map(|t| t.name())
            .collect()
    }

    /// The OpenAI `tools` array.
    pub fn schemas(&self) -> Vec<Value> {
        self.schemas_for(false)
    }

    /// The OpenAI `tools` array of [`Registry::names_for`].
    pub fn schemas_for(&self, read_only: bool) -> Vec<Value> {
        self.tools
            .iter()
            .filter(|t| !(read_only && t.changes_files()))
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name(),
                    "description": t.description(),
                    "parameters": t.parameters(),
                }})
            })
            .collect()
    }
}

/// A string argument.
pub fn arg_str<'v>(args: &'v Value, key: &str) -> Option<&'v str> {
    args.get(key).and_then(Value::as_str)
}

/// A positive integer argument (numbers or numeric strings).
pub fn arg_usize(args: &Value, key: &str) -> Option<usize> {
    match args.get(key)? {
        Value::Number(n) => n.as_u64().map(|v| v as usize),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Cuts a tool result to the configured size, saying so.
pub fn cap(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n… (cut at {max} of {} characters; ask for a narrower range)",
        &text[..end],
        text.len()
    )
}

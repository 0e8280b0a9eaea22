//! `grounded agent "REQUEST"`: the agent, headless.
//!
//! Progress goes to stderr (a spinner only on a terminal: a CI log full of carriage
//! returns is unreadable), the final answer to stdout, then the files changed as the
//! file system shows them. Exit 0 done; 1 a turn that ended without doing what was
//! asked (unchanged, undone, cancelled) and said so; 2 a usage, configuration, corpus
//! or endpoint error with one line on stderr.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::Fail;
use crate::agent::{
    self, AgentConfig, FsWorkspace, HttpModel, Progress, Status, Transcript, Turn, TurnRequest,
    UserModel,
};
use crate::project::Project;

/// The command's arguments.
pub struct Args<'a> {
    /// `--docs`
    pub docs: Option<&'a Path>,
    /// `--root`
    pub root: Option<&'a Path>,
    /// `--base-url`
    pub base_url: Option<String>,
    /// `--model`
    pub model: Option<String>,
    /// `--transcript`
    pub transcript: Option<&'a Path>,
    /// `--validate`
    pub validate: bool,
    /// The request.
    pub request: &'a str,
}

struct Stderr {
    tty: bool,
    frame: Mutex<usize>,
    /// Off a terminal: the second of the current wait at which the next wait line is
    /// printed, and the last second heard (a smaller one starts a new wait).
    wait_lines: Mutex<(u64, u64)>,
}

const FRAMES: &[char] = &['|', '/', '-', '\\'];

impl Progress for Stderr {
    fn say(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        if self.tty {
            let mut f = self.frame.lock().unwrap_or_else(|e| e.into_inner());
            *f += 1;
            let _ = write!(err, "\r{} {text}\x1b[K", FRAMES[*f % FRAMES.len()]);
        } else {
            let _ = writeln!(err, "grounded agent: {text}");
        }
        let _ = err.flush();
    }

    fn waiting(&self, text: &str, waited: Duration) {
        if self.tty {
            self.say(text);
            return;
        }
        // A CI log gets a line at 2 s and then one each 10 s, not sixty a minute.
        let secs = waited.as_secs();
        let due = {
            let mut w = self.wait_lines.lock().unwrap_or_else(|e| e.into_inner());
            if secs < w.1 {
                w.0 = 2;
            }
            w.1 = secs;
            let due = secs >= w.0.max(2);
            if due {
                w.0 = (secs / 10 + 1) * 10;
            }
            due
        };
        if due {
            self.say(text);
        }
    }
}

/// Set by the first Ctrl-C; read by the thread that cancels the turn.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

#[cfg(unix)]
extern "C" fn on_interrupt(_signal: libc::c_int) {
    // A second Ctrl-C is the user insisting: the default action, at once. Only
    // async-signal-safe calls here (an atomic, signal, raise).
    if INTERRUPTED.swap(true, Ordering::SeqCst) {
        // SAFETY: restoring the default action and re-raising are async-signal-safe.
        unsafe {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::raise(libc::SIGINT);
        }
    }
}

/// Ctrl-C cancels the turn instead of killing the process: the request in flight is
/// dropped, what landed stays and is listed, and the transcript gets its `final`
/// line. Killed outright, a turn left a transcript without an end and no list of the
/// files it had already written.
fn cancel_on_interrupt(cancel: Arc<AtomicBool>, tty: bool) {
    #[cfg(unix)]
    // SAFETY: the handler only touches an atomic and async-signal-safe calls.
    unsafe {
        libc::signal(
            libc::SIGINT,
            on_interrupt as extern "C" fn(libc::c_int) as libc::sighandler_t,
        );
    }
    std::thread::spawn(move || loop {
        if INTERRUPTED.load(Ordering::SeqCst) {
            // On a terminal the spinner's line is cleared, not pushed up: it stayed on
            // screen above the cancel, still saying "waiting for the model".
            let clear = if tty { "\r\x1b[K" } else { "\n" };
            eprintln!("{clear}grounded agent: cancelling the turn (Ctrl-C again quits at once)");
            cancel.store(true, Ordering::SeqCst);
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    });
}

/// Runs the command.
pub fn run(a: Args) -> Result<i32, Fail> {
    if a.request.trim().is_empty() {
        return Err(Fail("the request is empty".into()));
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let root = a.root.map(Path::to_path_buf).unwrap_or(cwd);
    if !root.is_dir() {
        return Err(Fail(format!("{}: no such folder", root.display())));
    }
    let root = std::fs::canonicalize(&root)?;
    // `--root` is the folder the agent may touch; the project's settings come from the
    // nearest grounded.toml at or above it.
    let project = Project::discover(&root, &root).map_err(Fail)?;
    let corpus = crate::docs::Library::from(project.load_corpus(a.docs, true).map_err(Fail)?);
    let user = UserModel {
        base_url: a.base_url,
        model: a.model,
        api_key_env: None,
    };
    let endpoint = agent::config::resolve_endpoint(&project, &user).map_err(Fail)?;
    let mut config = AgentConfig::for_project(&project, a.validate);
    config.lookup_cache = agent::cache::user_cache_path();
    config.model_name = endpoint.model.clone();
    if a.validate && config.validate.is_none() {
        eprintln!(
            "grounded agent: --validate given but grounded.toml has no [agent] validate command"
        );
    }
    let model = HttpModel::new(endpoint, &config).map_err(Fail)?;
    let transcript = match a.transcript {
        Some(p) => Transcript::to_file(p).map_err(Fail)?,
        None => Transcript::none(),
    };
    let progress = Stderr {
        tty: std::io::stderr().is_terminal(),
        frame: Mutex::new(0),
        wait_lines: Mutex::new((2, 0)),
    };
    let cancel = Arc::new(AtomicBool::new(false));
    cancel_on_interrupt(cancel.clone(), progress.tty);
    let exclude: Vec<PathBuf> = project.docs_path(a.docs).into_iter().collect();
    let (guards, gates) = agent::guardrails::standard(&config, &corpus);
    let turn = Turn {
        corpus: &corpus,
        root: root.clone(),
        exclude,
        entry: project.config.entry.clone(),
        workspace: &FsWorkspace,
        model: &model,
        config: &config,
        transcript: &transcript,
        progress: &progress,
        cancel,
        registry: agent::plan::registry(),
        guards,
        gates,
    };
    let out = agent::run_turn(
        turn,
        &TurnRequest {
            text: a.request.to_string(),
            context: None,
            about: Vec::new(),
        },
    );
    if progress.tty {
        eprint!("\r\x1b[K");
    }
    if let Some(e) = &out.error {
        if !out.changed.is_empty() {
            print_changed(&out.changed);
        }
        return Err(Fail(e.clone()));
    }
    println!("{}", out.answer.trim_end());
    println!();
    print_changed(&out.changed);
    eprintln!("grounded agent: {}: {}", out.status.as_str(), out.reason);
    Ok(match out.status {
        Status::Done => 0,
        Status::Unchanged | Status::Failed | Status::Cancelled => 1,
    })
}

fn print_changed(changed: &[String]) {
    if changed.is_empty() {
        println!("files changed: none");
    } else {
        println!("files changed:");
        for c in changed {
            println!("  {c}");
        }
    }
}

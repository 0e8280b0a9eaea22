//! One entry script run in QuickJS against the generated fake engine.
//!
//! Each entry gets its own runtime: a fresh global scope (as the engine gives each run),
//! its own time budget, memory limit and stack limit. The only way out of the sandbox is
//! the host functions installed here, and the only thing they reach is the project's
//! own files through [`Sources`].

use std::cell::RefCell;
use std::ffi::CString;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rquickjs::{qjs, Context, Ctx, Function, Object, Persistent, Runtime, Value};

use super::source::{Resolved, Sources};
use super::Options;

/// The file name the prelude runs under; its frames are skipped when locating.
pub const PRELUDE_NAME: &str = "<grounded>";

/// How deep loads may nest before the run calls it a loop (a file loading itself).
const MAX_LOAD_DEPTH: usize = 64;

/// Native stack the scripts may use; deep enough for any honest script, small enough
/// to stay well inside a worker thread's stack.
const MAX_STACK: usize = 512 * 1024;

/// A place in a script, as the engine's stack gives it (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loc {
    /// The file, relative to the project root, with `/`.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
}

/// What happened during a run, before it becomes a finding.
#[derive(Debug, Clone)]
pub enum Event {
    /// An undocumented member of a typed object was touched.
    Invented {
        /// The interface of the object.
        iface: String,
        /// The member touched.
        member: String,
        /// Where.
        at: Option<Loc>,
    },
    /// A `path` argument names no file (`loader`: a loader's, else a data API's).
    Missing {
        /// The argument as written.
        path: String,
        /// Whether it was a load of a script.
        loader: bool,
        /// Where.
        at: Option<Loc>,
    },
    /// A load of a path outside the project root, refused.
    Outside {
        /// The argument as written.
        path: String,
        /// Where.
        at: Option<Loc>,
    },
    /// Loads nested too deep.
    TooDeep {
        /// The file being loaded.
        path: String,
        /// Where.
        at: Option<Loc>,
    },
    /// The time budget ran out.
    Timeout {
        /// Where the script was when it was stopped.
        at: Option<Loc>,
    },
    /// An exception nobody caught (syntax errors, out of memory and stack overflow
    /// included), with the error's name and message.
    Uncaught {
        /// `TypeError`, `SyntaxError`, `InternalError`, ... or empty for a non-Error.
        name: String,
        /// The message, or the thrown value as a string.
        message: String,
        /// Where it was thrown.
        at: Option<Loc>,
    },
    /// The run stopped on an error that the stubs' empty data may have caused (a
    /// property read of `undefined` after the script consumed stubbed values): a limit,
    /// not a finding.
    Unsure {
        /// `TypeError: ...`
        message: String,
        /// Where.
        at: Option<Loc>,
    },
    /// A script ran out of memory while QuickJS compiled it, before any line of it
    /// ran: a large valid script (a bundled library) can need more than the run
    /// allows. A stated limit, not a finding.
    TooLarge {
        /// The file, relative to the root.
        path: String,
    },
    /// QuickJS could not compile a script (a syntax error, before any of its lines
    /// ran); the exception itself follows as `Uncaught`.
    Unparsed {
        /// The file, relative to the root.
        path: String,
    },
    /// A script file ran (the entry, or a file it loaded).
    Ran {
        /// The file, relative to the root.
        path: String,
        /// The load that ran it (`None` for the entry): the other side of a name the
        /// loaded file uses and nobody declares.
        from: Option<Loc>,
    },
    /// The entry script itself does not exist.
    NoEntry {
        /// The entry, relative to the root.
        path: String,
    },
}

/// An invented touch already reported: interface, member, place.
type SeenKey = (String, String, Option<(String, usize, usize)>);

#[derive(Default)]
struct State {
    events: Vec<Event>,
    /// (member, iface, file, line, col) already reported: a loop reports once.
    seen: std::collections::HashSet<SeenKey>,
    depth: usize,
}

impl State {
    fn invented(&mut self, iface: String, member: String, at: Option<Loc>) {
        let key = (
            iface.clone(),
            member.clone(),
            at.as_ref().map(|l| (l.file.clone(), l.line, l.col)),
        );
        if self.seen.insert(key) {
            self.events.push(Event::Invented { iface, member, at });
        }
    }
}

/// The first frame of a QuickJS stack that is in a project file (not the prelude, not
/// native code). Frames read `    at f (file:line:col)` or `    at file:line:col`.
pub fn locate(stack: &str) -> Option<Loc> {
    stack.lines().find_map(frame_loc)
}

fn frame_loc(line: &str) -> Option<Loc> {
    let t = line.trim();
    let t = t.strip_prefix("at ")?;
    let inner = if t.ends_with(')') {
        let open = t
            .rfind(" (")
            .map(|i| i + 2)
            .or_else(|| t.find('(').map(|i| i + 1))?;
        &t[open..t.len() - 1]
    } else {
        t
    };
    let (rest, col) = inner.rsplit_once(':')?;
    let (file, line_no) = rest.rsplit_once(':')?;
    let line_no: usize = line_no.parse().ok()?;
    let col: usize = col.parse().ok()?;
    if file == PRELUDE_NAME || file == "native" || file.starts_with('<') || file.is_empty() {
        return None;
    }
    Some(Loc {
        file: file.to_string(),
        line: line_no,
        col,
    })
}

thread_local! {
    /// The heap the current run allows its scripts (`Options::memory_limit`): a runtime
    /// lives on one thread, so the thread's run is the one compiling.
    static HEAP: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
}

/// Evaluates `src` as global (sloppy-mode, as ES3 engines run scripts) code under the
/// file name `name`, so the engine's stacks name the project's own files.
fn eval_named<'js>(ctx: &Ctx<'js>, src: &str, name: &str) -> rquickjs::Result<Value<'js>> {
    eval_phased(ctx, src, name, &mut false)
}

/// [`eval_named`] in two steps, compile then run; `compile_failed` says whether the
/// exception (if any) came before the first line ran: out of memory there is the
/// script's size, not its behaviour.
fn eval_phased<'js>(
    ctx: &Ctx<'js>,
    src: &str,
    name: &str,
    compile_failed: &mut bool,
) -> rquickjs::Result<Value<'js>> {
    // A NUL byte cannot cross into C; the engine would not have read past it either.
    let src = src.split('\0').next().unwrap_or("");
    let len = src.len();
    if len >= HEAP.with(|h| h.get()) {
        // A text as large as the whole heap the run allows cannot compile in it. It is
        // not handed to QuickJS to find out: its compiler, out of memory at an unlucky
        // point, aborted the process on an assertion (`update_label`) in about one run
        // in twelve of the too-large-script test, depending on where malloc's sizes
        // made the limit fall.
        *compile_failed = true;
        // SAFETY: the context pointer is live for 'js; the call only sets its pending
        // exception (an InternalError "out of memory").
        unsafe {
            qjs::JS_ThrowOutOfMemory(ctx.as_raw().as_ptr());
        }
        return Err(rquickjs::Error::Exception);
    }
    let csrc = CString::new(src)?;
    let cname = CString::new(name.replace('\0', ""))?;
    // SAFETY: the context pointer is live for 'js; JS_Eval copies nothing it keeps
    // beyond the call but the file name atom, which it interns itself. JS_EvalFunction
    // takes ownership of the compiled function.
    unsafe {
        let f = qjs::JS_Eval(
            ctx.as_raw().as_ptr(),
            csrc.as_ptr(),
            len as _,
            cname.as_ptr(),
            (qjs::JS_EVAL_TYPE_GLOBAL | qjs::JS_EVAL_FLAG_COMPILE_ONLY) as i32,
        );
        if qjs::JS_IsException(f) {
            *compile_failed = true;
            return Err(rquickjs::Error::Exception);
        }
        let v = qjs::JS_EvalFunction(ctx.as_raw().as_ptr(), f);
        if qjs::JS_IsException(v) {
            return Err(rquickjs::Error::Exception);
        }
        Ok(Value::from_raw(ctx.clone(), v))
    }
}

/// Whether an exception caught after a failed compile is memory running out (QuickJS
/// throws `null` when it cannot even make the error).
fn out_of_memory(ev: &Event) -> bool {
    matches!(ev, Event::Uncaught { name, message, .. }
        if (name == "InternalError" && message.contains("out of memory"))
            || (name.is_empty() && message == "null"))
}

/// Runs one entry (relative to the root) against the fake engine described by
/// `description` (describe.rs); returns what happened.
pub fn run_entry(
    description: &str,
    sources: &Rc<Sources>,
    entry: &str,
    opts: &Options,
) -> Vec<Event> {
    let state = Rc::new(RefCell::new(State::default()));
    let Some(text) = sources.read(entry) else {
        return vec![Event::NoEntry {
            path: entry.to_string(),
        }];
    };
    let rt = match Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            return vec![Event::Uncaught {
                name: "InternalError".into(),
                message: format!("the script engine could not start: {e}"),
                at: None,
            }]
        }
    };
    // Phase 1 (the prelude) is not bounded; the script's phase sets the heap below.
    HEAP.with(|h| h.set(usize::MAX));
    rt.set_max_stack_size(MAX_STACK);
    let armed = Arc::new(AtomicBool::new(false));
    let timed_out = Arc::new(AtomicBool::new(false));
    let budget = Duration::from_millis(opts.budget_ms);
    let start = Instant::now();
    {
        let armed = armed.clone();
        let timed_out = timed_out.clone();
        rt.set_interrupt_handler(Some(Box::new(move || {
            if armed.load(Ordering::Relaxed) && start.elapsed() > budget {
                timed_out.store(true, Ordering::Relaxed);
                true
            } else {
                false
            }
        })));
    }
    let ctx = match Context::full(&rt) {
        Ok(c) => c,
        Err(e) => {
            return vec![Event::Uncaught {
                name: "InternalError".into(),
                message: format!("the script engine could not start: {e}"),
                at: None,
            }]
        }
    };
    // Phase 1: build the fake engine. Its own memory does not count against the
    // script's limit, so a large corpus cannot starve a small script.
    rt.set_memory_limit(0);
    let host = ctx.with(|ctx| match install(&ctx, description, sources, &state) {
        Ok(h) => {
            // Building the globals made stub values too; only the script's reads count.
            let _ = h.set("stubbed", false);
            Some(Persistent::save(&ctx, h))
        }
        Err(msg) => {
            state.borrow_mut().events.push(Event::Uncaught {
                name: "InternalError".into(),
                message: format!("the fake engine could not be built: {msg}"),
                at: None,
            });
            None
        }
    });
    let Some(host) = host else {
        return take(state);
    };
    let base = rt.memory_usage().malloc_size.max(0) as usize;
    rt.set_memory_limit(base.saturating_add(opts.memory_limit));
    HEAP.with(|h| h.set(opts.memory_limit));
    // Phase 2: the script.
    ctx.with(|ctx| {
        let Ok(host) = host.restore(&ctx) else {
            return;
        };
        state.borrow_mut().events.push(Event::Ran {
            path: entry.to_string(),
            from: None,
        });
        armed.store(true, Ordering::Relaxed);
        let mut prepared = sources.prepare(entry, &text);
        if prepared.starts_with("__grounded_module__(") {
            // After its top level, the engine calls the entry's `Entry exports:`.
            prepared.push_str(&format!(
                "\n__grounded_entry__({});",
                serde_json::Value::from(entry)
            ));
        }
        let mut compile_failed = false;
        let result = eval_phased(&ctx, &prepared, entry, &mut compile_failed);
        armed.store(false, Ordering::Relaxed);
        if result.is_err() {
            let mut ev = caught(&ctx, timed_out.load(Ordering::Relaxed));
            let too_large = state
                .borrow()
                .events
                .iter()
                .any(|e| matches!(e, Event::TooLarge { .. }));
            if compile_failed && out_of_memory(&ev) {
                state.borrow_mut().events.push(Event::TooLarge {
                    path: entry.to_string(),
                });
                return;
            }
            if compile_failed {
                state.borrow_mut().events.push(Event::Unparsed {
                    path: entry.to_string(),
                });
            }
            if too_large {
                // A loaded file too large to compile: what it threw is that.
                return;
            }
            let stubbed = host.get::<_, Option<bool>>("stubbed").ok().flatten() == Some(true);
            if let Event::Uncaught { name, message, at } = &ev {
                let on_nothing =
                    message.ends_with(" of undefined") || message.ends_with(" of null");
                if stubbed && name == "TypeError" && on_nothing {
                    ev = Event::Unsure {
                        message: format!("{name}: {message}"),
                        at: at.clone(),
                    };
                }
            }
            state.borrow_mut().events.push(ev);
        }
    });
    drop(ctx);
    // When memory runs out, even the error object cannot be made: the engine throws
    // `null`. A `null` thrown while the heap is near its limit is that.
    let used = (rt.memory_usage().malloc_size.max(0) as usize).saturating_sub(base);
    let near_limit = used > opts.memory_limit / 4 * 3;
    if near_limit {
        for ev in state.borrow_mut().events.iter_mut() {
            if let Event::Uncaught { name, message, .. } = ev {
                if name.is_empty() && message == "null" {
                    *name = "InternalError".into();
                    *message = "out of memory".into();
                }
            }
        }
    }
    drop(rt);
    take(state)
}

fn take(state: Rc<RefCell<State>>) -> Vec<Event> {
    Rc::try_unwrap(state)
        .map(|s| s.into_inner().events)
        .unwrap_or_else(|s| s.borrow().events.clone())
}

/// The pending exception as an event.
fn caught(ctx: &Ctx<'_>, timed_out: bool) -> Event {
    event_of(&ctx.catch(), timed_out)
}

/// A thrown value as an event.
fn event_of(v: &Value<'_>, timed_out: bool) -> Event {
    let (name, message, stack) = match v.as_object() {
        Some(o) => {
            let get = |k: &str| -> String {
                o.get::<_, Option<rquickjs::Coerced<String>>>(k)
                    .ok()
                    .flatten()
                    .map(|c| c.0)
                    .unwrap_or_default()
            };
            (get("name"), get("message"), get("stack"))
        }
        None => {
            let s = v
                .get::<rquickjs::Coerced<String>>()
                .map(|c| c.0)
                .unwrap_or_else(|_| "an exception".into());
            (String::new(), s, String::new())
        }
    };
    let at = locate(&stack);
    if timed_out {
        return Event::Timeout { at };
    }
    Event::Uncaught { name, message, at }
}

/// Builds the fake engine into the context's global scope and installs the host
/// functions the prelude calls.
fn install<'js>(
    ctx: &Ctx<'js>,
    description: &str,
    sources: &Rc<Sources>,
    state: &Rc<RefCell<State>>,
) -> Result<Object<'js>, String> {
    let err = |e: rquickjs::Error| e.to_string();
    let prelude: Function = eval_named(ctx, include_str!("prelude.js"), PRELUDE_NAME)
        .and_then(|v| {
            v.into_function()
                .ok_or(rquickjs::Error::new_from_js("value", "function"))
        })
        .map_err(err)?;
    let desc = ctx.json_parse(description).map_err(err)?;
    let host = Object::new(ctx.clone()).map_err(err)?;

    let st = state.clone();
    let report = Function::new(
        ctx.clone(),
        move |iface: String, member: String, stack: String| {
            st.borrow_mut().invented(iface, member, locate(&stack));
        },
    )
    .map_err(err)?;
    host.set("report", report).map_err(err)?;

    let st = state.clone();
    let src = sources.clone();
    let path = Function::new(ctx.clone(), move |p: String, stack: String| {
        let missing = match src.resolve(&p) {
            Resolved::Inside(rel) => !src.exists(&rel),
            // A data file outside the project is none of the run's business.
            Resolved::Outside => false,
        };
        if missing {
            st.borrow_mut().events.push(Event::Missing {
                path: p,
                loader: false,
                at: locate(&stack),
            });
        }
    })
    .map_err(err)?;
    host.set("path", path).map_err(err)?;

    let st = state.clone();
    let src = sources.clone();
    let load = Function::new(
        ctx.clone(),
        move |ctx: Ctx<'js>, p: String, stack: String| -> rquickjs::Result<()> {
            let rel = match src.resolve(&p) {
                Resolved::Outside => {
                    st.borrow_mut().events.push(Event::Outside {
                        path: p,
                        at: locate(&stack),
                    });
                    return Ok(());
                }
                Resolved::Inside(rel) => rel,
            };
            if !src.is_script(&rel) {
                // Data, not a script: checked for existence, never run.
                if !src.exists(&rel) {
                    st.borrow_mut().events.push(Event::Missing {
                        path: p,
                        loader: false,
                        at: locate(&stack),
                    });
                }
                return Ok(());
            }
            let Some(text) = src.read(&rel) else {
                st.borrow_mut().events.push(Event::Missing {
                    path: p,
                    loader: true,
                    at: locate(&stack),
                });
                return Ok(());
            };
            if st.borrow().depth >= MAX_LOAD_DEPTH {
                st.borrow_mut().events.push(Event::TooDeep {
                    path: p,
                    at: locate(&stack),
                });
                return Ok(());
            }
            st.borrow_mut().depth += 1;
            st.borrow_mut().events.push(Event::Ran {
                path: rel.clone(),
                from: locate(&stack),
            });
            let prepared = src.prepare(&rel, &text);
            let mut compile_failed = false;
            let r = eval_phased(&ctx, &prepared, &rel, &mut compile_failed);
            if r.is_err() && compile_failed {
                // Look at the exception, then throw it on: it must still propagate
                // with its own place (a syntax error of the loaded file).
                let v = ctx.catch();
                if out_of_memory(&event_of(&v, false)) {
                    st.borrow_mut()
                        .events
                        .push(Event::TooLarge { path: rel.clone() });
                } else {
                    st.borrow_mut()
                        .events
                        .push(Event::Unparsed { path: rel.clone() });
                }
                st.borrow_mut().depth -= 1;
                return Err(ctx.throw(v));
            }
            st.borrow_mut().depth -= 1;
            r.map(|_| ())
        },
    )
    .map_err(err)?;
    host.set("load", load).map_err(err)?;

    // The project file a relative import or `require` names (`""`: none, or not one
    // certain file; the checker says so).
    let src = sources.clone();
    let module = Function::new(
        ctx.clone(),
        move |spec: String, from: String, require: bool| -> String {
            src.module_file(&spec, &from, require).unwrap_or_default()
        },
    )
    .map_err(err)?;
    host.set("module", module).map_err(err)?;

    prelude
        .call::<_, ()>((ctx.globals(), desc, host.clone()))
        .map_err(|e| match e {
            rquickjs::Error::Exception => {
                let v = ctx.catch();
                format!("{v:?}")
            }
            e => e.to_string(),
        })?;
    Ok(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_project_frame_is_the_place() {
        let stack = "    at where (<grounded>:31:16)\n    at get (<grounded>:220:17)\n    at <anonymous> (native)\n    at configure (mistakes/dynamic.js:6:10)\n    at <eval> (mistakes/dynamic.js:9:1)\n";
        assert_eq!(
            locate(stack),
            Some(Loc {
                file: "mistakes/dynamic.js".into(),
                line: 6,
                col: 10
            })
        );
        assert_eq!(
            locate("    at main.js:4:7\n"),
            Some(Loc {
                file: "main.js".into(),
                line: 4,
                col: 7
            })
        );
        assert_eq!(locate("    at f (<input>:1:1)\n"), None);
        assert_eq!(locate(""), None);
    }
}

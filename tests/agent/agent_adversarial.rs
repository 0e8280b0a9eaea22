//! The agent under any model: a seeded adversarial model ([`common::adversarial`])
//! over real HTTP, one `grounded agent` turn at a time on a fresh copy of a small
//! project, and after each turn the invariants checked from the file system, the
//! transcript, the requests the server received and the exit status:
//!
//! - `outside`: nothing outside the root changed, and nothing from outside reached the
//!   model (a token in a file outside, behind `..`, absolute paths and links);
//! - `findings`: the turn left no finding `grounded check` did not report before (errors,
//!   and a construct left open) — its writes kept only when they added none;
//! - `removal`: a removal request never grew a file or created one;
//! - `question`: a question changed no file, whatever the model tried to write;
//! - `offer`: no request of a question (the composer's or a plan worker's) offered a
//!   tool that writes (a separate invariant, so a failing seed shrinks to the writes
//!   that changed a file, not to any request);
//! - `named`: a change that changed none of the files its request named did not end
//!   `done`, unless the project's findings went down (the goal met all the same), and
//!   its reason names the files it did change;
//! - `rollback`: a turn whose writes were undone left the tree byte for byte as it was
//!   (files, folders, links);
//! - `status`: exit status and `final.status` agree; `final.changed` is what the file
//!   system shows; a change asked and none made is `unchanged`; a question with nothing
//!   changed is `done` exactly when the model answered;
//! - `answered`: every tool call has its result, ids unique across the conversation;
//! - `bounded`: steps within the limit (the turn's and each plan worker's), wall time;
//! - `panic`: no panic, exit 0, 1 or 2, one final event.
//!
//! In CI: the fixed seeds of [`CI_SEEDS`] (about a minute). Long runs:
//! `GROUNDED_ADVERSARIAL_SECS=N` (from `GROUNDED_ADVERSARIAL_SEED`, else the clock),
//! printing the figures; `GROUNDED_ADVERSARIAL_REPLAY=SEED` replays one seed verbosely
//! and shrinks it when it fails. A failing seed is shrunk to the shortest reply sequence
//! that still breaks the same invariant, and printed. Every defect a run found stays
//! below as a regression test, written as the reply sequence that showed it.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use common::adversarial::{self, Asked, Step, MAIN, README, REQUESTS, SECRET, TOKEN, UTIL};
use common::agent::{events, run_agent};
use common::demo_corpus;
use common::model_server::ModelServer;
use serde_json::{json, Value};

/// The turn's step limit in the fixture (short, so the limit is met).
const MAX_STEPS: usize = 6;
/// A plan worker's step limit (the agent's default).
const WORKER_MAX_STEPS: usize = 12;
/// The wall time a turn may take: the longest sequence of slow replies and one timeout.
const TURN_SECS: u64 = 90;
/// CI: this many seeds from 1.
const CI_SEEDS: u64 = 150;

/// The tools that write files: a question's requests offer none of them.
const WRITE_TOOLS: &[&str] = &["write_file", "edit_file", "delete_lines"];

/// The files a request names (`main.js`, `lib/util.js`): the fixture's requests name
/// them plainly, so a word with a slash or a script extension is one.
fn named_in(request: &str) -> Vec<String> {
    request
        .split_whitespace()
        .map(|w| w.trim_end_matches(['.', ',', '?']))
        .filter(|w| w.ends_with(".js") || w.ends_with(".md"))
        .map(str::to_string)
        .collect()
}

/// One case: a request and the replies the model sends, in order.
#[derive(Debug, Clone)]
struct Case {
    request: usize,
    steps: Vec<(&'static str, Step)>,
}

/// A tree as it is on disk: files' bytes, folders, links' targets (links not followed).
#[derive(Debug, Clone, PartialEq, Default)]
struct Tree {
    files: BTreeMap<String, Vec<u8>>,
    dirs: BTreeSet<String>,
    links: BTreeMap<String, PathBuf>,
}

fn tree(root: &Path) -> Tree {
    let mut t = Tree::default();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let rel = p
                .strip_prefix(root)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_symlink() {
                t.links
                    .insert(rel, std::fs::read_link(&p).unwrap_or_default());
            } else if ft.is_dir() {
                t.dirs.insert(rel);
                stack.push(p);
            } else {
                t.files.insert(rel, std::fs::read(&p).unwrap_or_default());
            }
        }
    }
    t
}

/// The fixture: `T/root` (the project) and `T/outside` (a folder the agent must not
/// reach), with links from inside to outside and a dangling one.
fn fixture() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let root = t.path().join("root");
    let outside = t.path().join("outside");
    std::fs::create_dir_all(root.join("lib")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.js"), SECRET).unwrap();
    std::fs::write(
        root.join("grounded.toml"),
        format!(
            "docs = {:?}\n[agent]\nmax_steps = {MAX_STEPS}\ntimeout_secs = 2\n",
            demo_corpus()
        ),
    )
    .unwrap();
    std::fs::write(root.join("main.js"), MAIN).unwrap();
    std::fs::write(root.join("lib/util.js"), UTIL).unwrap();
    std::fs::write(root.join("README.md"), README).unwrap();
    std::fs::write(root.join("notes.txt"), "remember the toner\n").unwrap();
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::symlink;
        symlink(&outside, root.join("link")).unwrap();
        symlink("../../outside/secret.js", root.join("lib/secret.js")).unwrap();
        symlink("../nowhere.js", root.join("dangling.js")).unwrap();
    }
    (t, root, outside)
}

/// The findings `grounded check` reports for every script and Markdown file of the
/// tree (named one by one: a `.gitignore` the turn wrote cannot hide one), as
/// `path code message` with line numbers left out, counted.
fn findings(root: &Path, t: &Tree) -> BTreeMap<String, usize> {
    let files: Vec<&String> = t
        .files
        .keys()
        .filter(|f| f.ends_with(".js") || f.ends_with(".md"))
        .collect();
    let mut out = BTreeMap::new();
    if files.is_empty() {
        return out;
    }
    let o = Command::new(env!("CARGO_BIN_EXE_grounded"))
        .current_dir(root)
        .args(["check", "--format", "json"])
        .args(files)
        .env("GROUNDED_CACHE_DIR", "")
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
    for f in v.as_array().into_iter().flatten() {
        let key = format!(
            "{} {} {}",
            f["path"].as_str().unwrap_or(""),
            f["code"].as_str().unwrap_or(""),
            without_line_numbers(f["message"].as_str().unwrap_or(""))
        );
        *out.entry(key).or_default() += 1;
    }
    out
}

/// `message` with every "line N" as "line _": an edit above a finding moves it.
fn without_line_numbers(message: &str) -> String {
    let mut out = String::new();
    let mut rest = message;
    while let Some(i) = rest.find("line ") {
        out.push_str(&rest[..i + 5]);
        rest = &rest[i + 5..];
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        if digits > 0 {
            out.push('_');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// What one turn came to.
struct Report {
    violations: Vec<(&'static str, String)>,
    replies: usize,
    code: i32,
    status: String,
    stdout: String,
    stderr: String,
    transcript: Vec<Value>,
}

fn worker_of(e: &Value) -> u64 {
    e["worker"]["index"].as_u64().unwrap_or(0)
}

/// Runs `case` on a fresh fixture and checks every invariant.
fn run_case(case: &Case) -> Report {
    let (_t, root, outside) = fixture();
    let before = tree(&root);
    let outside_before = tree(&outside);
    let found_before = findings(&root, &before);
    let script = case
        .steps
        .iter()
        .enumerate()
        .map(|(n, (_, s))| s.scripted(n, &outside))
        .collect();
    let server = ModelServer::start(script);
    let (request, asked) = REQUESTS[case.request];
    let started = Instant::now();
    let r = run_agent(&root, &server, request, &[]);
    let wall = started.elapsed();
    let after = tree(&root);
    let mut v: Vec<(&'static str, String)> = Vec::new();
    let t = &r.transcript;
    let finals: Vec<&Value> = events(t, "final")
        .into_iter()
        .filter(|e| worker_of(e) == 0)
        .collect();
    let fin = finals.last().cloned().cloned().unwrap_or(Value::Null);
    let status = fin["status"].as_str().unwrap_or("").to_string();
    let reason = fin["reason"].as_str().unwrap_or("").to_string();

    // panic
    if r.stderr.contains("panicked") || !(0..=2).contains(&r.code) || finals.len() != 1 {
        v.push((
            "panic",
            format!(
                "exit {}, {} final events, stderr: {}",
                r.code,
                finals.len(),
                r.stderr
            ),
        ));
    }

    // outside
    if tree(&outside) != outside_before {
        v.push(("outside", "the folder outside the root changed".into()));
    }
    let bodies = server.bodies();
    if bodies.iter().any(|b| b.to_string().contains(TOKEN)) || r.stdout.contains(TOKEN) {
        v.push((
            "outside",
            "a file outside the root reached the model".into(),
        ));
    }
    if before.links != after.links {
        v.push(("outside", "a link in the root changed".into()));
    }

    // status
    let endpoint_failed = reason.starts_with("the model endpoint failed");
    let want_code = match status.as_str() {
        "done" => 0,
        _ if endpoint_failed => 2,
        _ => 1,
    };
    if r.code != want_code {
        v.push((
            "status",
            format!("exit {} with status `{status}` ({reason})", r.code),
        ));
    }
    let mut diff: BTreeSet<String> = BTreeSet::new();
    for (f, b) in &before.files {
        if after.files.get(f) != Some(b) {
            diff.insert(f.clone());
        }
    }
    for f in after.files.keys() {
        if !before.files.contains_key(f) {
            diff.insert(f.clone());
        }
    }
    let changed: BTreeSet<String> = fin["changed"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|c| c.as_str().map(str::to_string))
        .collect();
    if !finals.is_empty() && changed != diff {
        v.push((
            "status",
            format!("final.changed {changed:?}, the file system {diff:?}"),
        ));
    }
    let stopped = matches!(status.as_str(), "failed" | "cancelled");
    if !stopped && diff.is_empty() {
        match asked {
            Asked::Change | Asked::Removal if status != "unchanged" => v.push((
                "status",
                format!("a change was asked, none made, and the turn ended `{status}`"),
            )),
            Asked::Question => {
                let last = events(t, "response")
                    .into_iter()
                    .rfind(|e| worker_of(e) == 0)
                    .map(|e| e["content"].as_str().unwrap_or("").trim().to_string())
                    .unwrap_or_default();
                let want = if last.is_empty() { "unchanged" } else { "done" };
                if status != want {
                    v.push((
                        "status",
                        format!("a question, nothing changed, answer {last:?}: `{status}`, not `{want}`"),
                    ));
                }
            }
            _ => {}
        }
    }
    if status == "done" && diff.is_empty() && asked != Asked::Question {
        v.push(("status", "`done` with nothing changed".into()));
    }

    // removal
    if asked == Asked::Removal {
        for (f, b) in &after.files {
            match before.files.get(f) {
                None => v.push(("removal", format!("a removal created {f}"))),
                Some(old) if b.len() > old.len() => v.push((
                    "removal",
                    format!("a removal grew {f}: {} → {} bytes", old.len(), b.len()),
                )),
                Some(old) => {
                    // Every line it has, it had: a removal that also added a line and
                    // then removed more is not a removal.
                    let mut had: BTreeMap<&str, usize> = BTreeMap::new();
                    let old = String::from_utf8_lossy(old);
                    for l in old.lines() {
                        *had.entry(l.trim_end()).or_default() += 1;
                    }
                    let new = String::from_utf8_lossy(b);
                    for l in new.lines() {
                        match had.get_mut(l.trim_end()) {
                            Some(n) if *n > 0 => *n -= 1,
                            _ if l.trim().is_empty() => {}
                            _ => {
                                v.push(("removal", format!("a removal added to {f}: {l:?}")));
                                break;
                            }
                        }
                    }
                }
            }
        }
        if let Some(d) = after.dirs.difference(&before.dirs).next() {
            v.push(("removal", format!("a removal created the folder {d}/")));
        }
    }

    // question
    if asked == Asked::Question {
        if !diff.is_empty() {
            v.push(("question", format!("a question changed {diff:?}")));
        }
        for e in events(t, "request") {
            let offered: Vec<&str> = e["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|n| WRITE_TOOLS.contains(n))
                .collect();
            if !offered.is_empty() {
                v.push((
                    "offer",
                    format!(
                        "a question's request (worker {}) offered {offered:?}",
                        worker_of(e)
                    ),
                ));
                break;
            }
        }
    }

    // named
    let named = named_in(request);
    let hit_named = diff.iter().any(|f| named.contains(f));
    if asked != Asked::Question && !named.is_empty() && !diff.is_empty() && !hit_named {
        // The goal met all the same: the project's findings went down.
        let total = |m: &BTreeMap<String, usize>| -> usize { m.values().sum() };
        let (was, is) = (total(&found_before), total(&findings(&root, &after)));
        if status == "done" && is >= was {
            v.push((
                "named",
                format!("asked about {named:?}, changed only {diff:?}, and ended `done`"),
            ));
        }
        if status != "failed" && diff.iter().any(|f| !reason.contains(f.as_str())) {
            v.push((
                "named",
                format!(
                    "changed only {diff:?}, not {named:?}; the reason does not say so: {reason}"
                ),
            ));
        }
    }

    // rollback
    let undone = events(t, "edit")
        .iter()
        .any(|e| worker_of(e) == 0 && e["status"] == "undone");
    if undone && after != before {
        let extra: Vec<&String> = after.dirs.difference(&before.dirs).collect();
        v.push((
            "rollback",
            format!("undone, yet files {diff:?} differ, folders added {extra:?}"),
        ));
    }

    // findings
    let found_after = findings(&root, &after);
    for (k, n) in &found_after {
        let had = found_before.get(k).copied().unwrap_or(0);
        if *n > had {
            v.push(("findings", format!("left a new finding: {k}")));
        }
    }

    // answered
    // A worker's events are contiguous; two plan calls both have a worker 1, each with
    // its own conversation: a group per run of one worker's events.
    let mut groups: BTreeMap<(u64, usize), Vec<&Value>> = BTreeMap::new();
    let mut run = 0usize;
    let mut last = 0u64;
    for e in t {
        let w = worker_of(e);
        if w != 0 && w != last {
            run += 1;
        }
        last = w;
        let key = if w == 0 { (0, 0) } else { (w, run) };
        groups.entry(key).or_default().push(e);
    }
    for (&(w, _), evs) in &groups {
        let mut seen: BTreeSet<String> = BTreeSet::new();
        for (i, e) in evs.iter().enumerate() {
            if e["event"] != "response" {
                continue;
            }
            for c in e["tool_calls"].as_array().into_iter().flatten() {
                let id = c["id"].as_str().unwrap_or("").to_string();
                if !seen.insert(id.clone()) {
                    v.push(("answered", format!("worker {w}: the id {id} repeats")));
                }
                let answered = evs[i + 1..]
                    .iter()
                    .any(|x| x["event"] == "tool_result" && x["id"] == c["id"]);
                if !answered {
                    v.push((
                        "answered",
                        format!("worker {w}: the call {id} ({}) has no result", c["name"]),
                    ));
                }
            }
        }
        let requests = evs.iter().filter(|e| e["event"] == "request").count();
        let limit = if w == 0 { MAX_STEPS } else { WORKER_MAX_STEPS } + 1;
        if requests > limit {
            v.push((
                "bounded",
                format!("worker {w}: {requests} model steps, the limit is {limit}"),
            ));
        }
    }
    for b in &bodies {
        let mut ids = BTreeSet::new();
        for m in b["messages"].as_array().into_iter().flatten() {
            for c in m["tool_calls"].as_array().into_iter().flatten() {
                let id = c["id"].as_str().unwrap_or("").to_string();
                if !ids.insert(id.clone()) {
                    v.push(("answered", format!("a request repeats the call id {id}")));
                }
            }
        }
    }
    if wall > Duration::from_secs(TURN_SECS) {
        v.push(("bounded", format!("the turn took {} s", wall.as_secs())));
    }
    v.dedup();
    Report {
        violations: v,
        replies: bodies.len(),
        code: r.code,
        status,
        stdout: r.stdout,
        stderr: r.stderr,
        transcript: r.transcript,
    }
}

fn case_of(seed: u64) -> Case {
    let (request, steps) = adversarial::case(seed);
    Case { request, steps }
}

/// The shortest reply sequence (one reply dropped at a time, until none can be) that
/// still breaks `invariant`.
fn minimise(case: &Case, invariant: &str) -> Case {
    let mut best = case.clone();
    loop {
        let mut shrunk = false;
        let mut i = best.steps.len();
        while i > 0 {
            i -= 1;
            if best.steps.len() == 1 {
                break;
            }
            let mut c = best.clone();
            c.steps.remove(i);
            if run_case(&c)
                .violations
                .iter()
                .any(|(inv, _)| *inv == invariant)
            {
                best = c;
                shrunk = true;
            }
        }
        if !shrunk {
            return best;
        }
    }
}

fn describe(case: &Case) -> String {
    let mut s = format!("request: {:?}\nreplies:\n", REQUESTS[case.request].0);
    for (i, (b, step)) in case.steps.iter().enumerate() {
        let mut shown = format!("{step:?}");
        if shown.len() > 300 {
            shown.truncate(300);
            shown.push_str("...");
        }
        s.push_str(&format!("  {}. [{b}] {shown}\n", i + 1));
    }
    s
}

/// Runs `seeds`, shrinking and printing each failure; returns the failures.
fn run_seeds(seeds: impl Iterator<Item = u64>, deadline: Option<Instant>) -> Vec<String> {
    let mut failures = Vec::new();
    let mut turns = 0usize;
    let mut replies = 0usize;
    let mut drawn: BTreeMap<&str, usize> = BTreeMap::new();
    let mut per_invariant: BTreeMap<&str, usize> = BTreeMap::new();
    let mut statuses: BTreeMap<String, usize> = BTreeMap::new();
    let started = Instant::now();
    for seed in seeds {
        if deadline.is_some_and(|d| Instant::now() > d) {
            break;
        }
        let case = case_of(seed);
        for (b, _) in &case.steps {
            *drawn.entry(*b).or_default() += 1;
        }
        let r = run_case(&case);
        turns += 1;
        replies += r.replies;
        *statuses
            .entry(format!("{} (exit {})", r.status, r.code))
            .or_default() += 1;
        for (inv, _) in &r.violations {
            *per_invariant.entry(*inv).or_default() += 1;
        }
        if let Some((inv, detail)) = r.violations.first() {
            let small = minimise(&case, inv);
            let msg = format!(
                "seed {seed} breaks `{inv}`: {detail}\n(replay: GROUNDED_ADVERSARIAL_REPLAY={seed})\nshortest:\n{}",
                describe(&small)
            );
            eprintln!("{msg}");
            failures.push(msg);
        }
    }
    eprintln!(
        "adversarial: {turns} turns, {replies} model replies, {} s",
        started.elapsed().as_secs()
    );
    eprintln!("behaviours drawn: {drawn:?}");
    eprintln!("statuses: {statuses:?}");
    let all: Vec<String> = [
        "outside", "findings", "removal", "question", "offer", "named", "rollback", "status",
        "answered", "bounded", "panic",
    ]
    .iter()
    .map(|i| format!("{i}: {}", per_invariant.get(i).copied().unwrap_or(0)))
    .collect();
    eprintln!("violations per invariant: {}", all.join(", "));
    failures
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}

#[test]
fn seeded_adversarial_turns_break_no_invariant() {
    if let Some(seed) = env_u64("GROUNDED_ADVERSARIAL_REPLAY") {
        let case = case_of(seed);
        eprintln!("{}", describe(&case));
        let r = run_case(&case);
        eprintln!(
            "exit {} status {}\nstdout:\n{}\nstderr:\n{}",
            r.code, r.status, r.stdout, r.stderr
        );
        if let Some((inv, d)) = r.violations.first() {
            let small = minimise(&case, inv);
            panic!(
                "seed {seed} breaks `{inv}`: {d}\nshortest:\n{}",
                describe(&small)
            );
        }
        return;
    }
    let failures = match env_u64("GROUNDED_ADVERSARIAL_SECS") {
        Some(secs) => {
            let from = env_u64("GROUNDED_ADVERSARIAL_SEED").unwrap_or_else(|| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .unwrap()
                    .as_secs()
            });
            eprintln!("adversarial: seeds from {from} for {secs} s");
            run_seeds(from.., Some(Instant::now() + Duration::from_secs(secs)))
        }
        None => run_seeds(1..=CI_SEEDS, None),
    };
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// Regressions: each defect a seeded run found, as the shortest reply sequence that
// showed it. Each failed before its fix.

fn request_index(text: &str) -> usize {
    REQUESTS.iter().position(|(r, _)| *r == text).unwrap()
}

fn calls(list: &[(&str, Value)]) -> (&'static str, Step) {
    (
        "scripted",
        Step::Calls {
            calls: list
                .iter()
                .map(|(n, a)| (n.to_string(), a.clone()))
                .collect(),
            ids: true,
        },
    )
}

fn say(t: &str) -> (&'static str, Step) {
    ("scripted", Step::Say(t.into()))
}

fn read_main() -> (&'static str, Step) {
    calls(&[("read_file", json!({"path": "main.js"}))])
}

fn check(request: &str, steps: Vec<(&'static str, Step)>) -> Report {
    let case = Case {
        request: request_index(request),
        steps,
    };
    let r = run_case(&case);
    assert!(
        r.violations.is_empty(),
        "{:?}\n{}\nstdout:\n{}\nstderr:\n{}",
        r.violations,
        describe(&case),
        r.stdout,
        r.stderr
    );
    r
}

#[test]
fn a_plan_worker_under_a_removal_cannot_add() {
    // Worker 1 ("add a note line") took its intent from its own words and grew main.js
    // (293 → 329 bytes, `done`, exit 0); under "Remove the table" every worker only
    // removes: the edit is refused, nothing changed, and the turn says so.
    let r = check(
        "Remove the table from main.js.",
        vec![
            calls(&[(
                "plan",
                json!({"items": ["add a note line to main.js", "remove the table from main.js"]}),
            )]),
            read_main(),
            calls(&[(
                "edit_file",
                json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
                    "replace": "layout.paragraph(\"done\");\nlayout.paragraph(\"note\");"}]}),
            )]),
            say("Added a note line."),
            say("The table is already gone."),
            say("Done: both items."),
        ],
    );
    assert_eq!(
        (r.code, r.status.as_str()),
        (1, "unchanged"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_plan_worker_under_a_removal_removes() {
    // The known-good side: a worker whose item removes does remove.
    let r = check(
        "Remove the table from main.js.",
        vec![
            calls(&[("plan", json!({"items": ["remove the table from main.js"]}))]),
            read_main(),
            calls(&[(
                "delete_lines",
                json!({"path": "main.js", "marks": "2-8: DELETE"}),
            )]),
            say("Removed the table."),
            say("Removed the table from main.js."),
        ],
    );
    assert_eq!((r.code, r.status.as_str()), (0, "done"), "{}", r.stdout);
}

#[test]
fn a_question_with_a_negated_verb_is_answered_done() {
    let r = check(
        "Explain what main.js draws. Do not change any file.",
        vec![
            read_main(),
            say("main.js draws a price table and a banner."),
        ],
    );
    assert_eq!((r.code, r.status.as_str()), (0, "done"), "{}", r.stderr);
}

#[test]
fn a_question_whose_write_was_refused_is_answered_done() {
    // The edit of an unread file is refused; the question was still answered.
    let r = check(
        "What does main.js draw?",
        vec![
            calls(&[(
                "edit_file",
                json!({"path": "lib/util.js", "edits": [{"find": "layout.heading(title, 1);",
                    "replace": "layout.heading(title, 2);"}]}),
            )]),
            read_main(),
            say("main.js draws a price table."),
        ],
    );
    assert_eq!((r.code, r.status.as_str()), (0, "done"), "{}", r.stderr);
}

#[test]
fn a_question_stopped_by_the_step_limit_ends_done_when_answered() {
    // Decided: a question the step limit (or a guard) stopped is answered by its forced
    // last step; `done` when that answer has words, `unchanged` when it has none. The
    // calls differ, so no loop guard steers before the limit.
    let distinct = || -> Vec<(&'static str, Step)> {
        vec![
            read_main(),
            calls(&[("read_file", json!({"path": "lib/util.js"}))]),
            calls(&[("read_file", json!({"path": "README.md"}))]),
            calls(&[("list_files", json!({}))]),
            calls(&[("lookup_docs", json!({"term": "tableStart"}))]),
            calls(&[("find_in_files", json!({"pattern": "banner"}))]),
        ]
    };
    assert_eq!(distinct().len(), MAX_STEPS);
    let mut steps = distinct();
    steps.push(say("It draws a table."));
    let r = check("What does main.js draw?", steps);
    assert_eq!((r.code, r.status.as_str()), (0, "done"), "{}", r.stderr);
    assert!(r.stderr.contains("step limit"), "{}", r.stderr);
    let mut steps = distinct();
    steps.push(read_main());
    let r = check("What does main.js draw?", steps);
    assert_eq!(
        (r.code, r.status.as_str()),
        (1, "unchanged"),
        "{}",
        r.stderr
    );
}

#[test]
fn tidy_up_with_nothing_changed_is_unchanged() {
    let r = check(
        "Tidy up main.js.",
        vec![read_main(), say("main.js is already tidy.")],
    );
    assert_eq!(
        (r.code, r.status.as_str()),
        (1, "unchanged"),
        "{}",
        r.stderr
    );
}

#[test]
fn the_verify_gate_does_not_check_a_gitignore_as_a_script() {
    let case = Case {
        request: request_index("Fix main.js."),
        steps: vec![
            calls(&[("read_file", json!({"path": ".gitignore"}))]),
            calls(&[(
                "write_file",
                json!({"path": ".gitignore", "content": "*.log\n*.tmp\n"}),
            )]),
            say("Updated .gitignore."),
        ],
    };
    let r = run_case(&case);
    assert!(r.violations.is_empty(), "{:?}", r.violations);
    assert!(
        !r.stdout.contains("Still open"),
        "a phantom finding: {}",
        r.stdout
    );
    // Asked to fix main.js, it changed only .gitignore: not `done`, and said so.
    assert_eq!(
        (r.code, r.status.as_str()),
        (1, "unchanged"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr.contains("changed .gitignore, not main.js"),
        "{}",
        r.stderr
    );
}

/// The `edit` events of a turn's transcript with `status`, as `(path, reason)`.
fn edits_with(r: &Report, status: &str) -> Vec<(String, String)> {
    events(&r.transcript, "edit")
        .into_iter()
        .filter(|e| e["status"] == status)
        .map(|e| {
            (
                e["path"].as_str().unwrap_or("").to_string(),
                e["reason"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// `util.js` without `banner`: clean alone (the pre-write refusal passes it), while
/// `main.js`, which calls `banner`, gains a finding the end measure sees.
fn break_util() -> Vec<(&'static str, Step)> {
    vec![
        calls(&[("read_file", json!({"path": "lib/util.js"}))]),
        calls(&[(
            "delete_lines",
            json!({"path": "lib/util.js", "marks": "1-3: DELETE"}),
        )]),
    ]
}

#[test]
fn a_removal_that_would_leave_a_construct_open_is_refused_before_it_lands() {
    // Deleting only `layout.tableEnd();` added no error, only the `construct` warning;
    // the turn ended `done`. The end measure then counted it and undid the turn; now the
    // pre-write refusal judges the write as the measure does and it never lands.
    let r = check(
        "Remove the table from main.js.",
        vec![
            read_main(),
            calls(&[(
                "delete_lines",
                json!({"path": "main.js", "marks": "8: DELETE"}),
            )]),
            say("Removed the table."),
            say("Removed the table."),
            say("Removed the table."),
        ],
    );
    assert_eq!(
        (r.code, r.status.as_str()),
        (1, "unchanged"),
        "{}",
        r.stdout
    );
    let refused = edits_with(&r, "refused");
    assert!(
        refused
            .iter()
            .any(|(p, why)| p == "main.js" && why.contains("construct")),
        "{refused:?}"
    );
    assert!(edits_with(&r, "applied").is_empty());
}

#[test]
fn a_removal_that_breaks_another_file_is_undone() {
    // What the pre-write refusal cannot see (a finding in another file) the end
    // measure still undoes.
    let mut steps = break_util();
    steps.push(say("Removed the heading."));
    let r = check("Get rid of the heading in lib/util.js.", steps);
    assert_eq!((r.code, r.status.as_str()), (1, "failed"), "{}", r.stdout);
    assert!(!edits_with(&r, "undone").is_empty());
}

#[test]
fn a_folder_created_by_undone_writes_is_removed() {
    let mut steps = vec![calls(&[(
        "write_file",
        json!({"path": "out/new/deep.js", "content": "layout.paragraph(\"deep\");\n"}),
    )])];
    steps.extend(break_util());
    steps.extend([
        say("Created out/new/deep.js."),
        say("Created out/new/deep.js."),
        say("Created out/new/deep.js."),
    ]);
    let r = check("Add a closing paragraph to main.js.", steps);
    assert_eq!((r.code, r.status.as_str()), (1, "failed"), "{}", r.stdout);
}

#[test]
fn calls_on_the_last_step_are_answered() {
    let mut steps: Vec<_> = (0..MAX_STEPS).map(|_| read_main()).collect();
    steps.push(calls(&[(
        "delete_lines",
        json!({"path": "main.js", "marks": "2-8: DELETE"}),
    )]));
    check("Remove the table from main.js.", steps);
}

#[test]
fn call_ids_are_unique_across_the_conversation() {
    let no_ids = (
        "no_ids",
        Step::Calls {
            calls: vec![
                ("read_file".into(), json!({"path": "main.js"})),
                ("list_files".into(), json!({})),
            ],
            ids: false,
        },
    );
    check(
        "What does main.js draw?",
        vec![no_ids.clone(), no_ids, say("A table.")],
    );
}

#[test]
fn a_gitignore_the_turn_wrote_cannot_hide_what_it_broke() {
    // `.gitignore` = `main.js` hid main.js from the after-measure's walk, so deleting
    // its End line was kept. (That write is now refused before it lands; a finding the
    // turn gives main.js from another file is the one the measure must still see.)
    let mut steps = vec![
        calls(&[("read_file", json!({"path": ".gitignore"}))]),
        calls(&[(
            "write_file",
            json!({"path": ".gitignore", "content": "*.log\nmain.js\n"}),
        )]),
    ];
    steps.extend(break_util());
    steps.extend([
        say("Fixed main.js."),
        say("Fixed main.js."),
        say("Fixed main.js."),
    ]);
    let r = check("Fix main.js.", steps);
    assert_eq!((r.code, r.status.as_str()), (1, "failed"), "{}", r.stdout);
}

// Issue 47: a question changes no file; a change says which files it changed. Each of
// these failed before its fix (the seeded run's `question` and `named` invariants).

/// The names of the tools each request of the turn offered (composer and workers).
fn offered(r: &Report) -> Vec<Vec<String>> {
    events(&r.transcript, "request")
        .into_iter()
        .map(|e| {
            e["tools"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|t| t.as_str().map(str::to_string))
                .collect()
        })
        .collect()
}

#[test]
fn the_seeded_runs_shortest_reproductions_hold() {
    // Seeds 1 to 110 on the build before the fix, shrunk: each a single write. Seeds 6,
    // 30, 45, 103 and 107 broke `question` (a question wrote lib/extra.js,
    // out/new/deep.js or CHANGES and ended `done`); seeds 3 and 17 broke `named`
    // ("Tidy up main.js." / "Fix main.js." wrote only another file, and ended `done`).
    let write = |path: &str, content: &str| {
        vec![calls(&[(
            "write_file",
            json!({"path": path, "content": content}),
        )])]
    };
    let extra = "layout.paragraph(\"extra\");\n";
    let deep = "layout.paragraph(\"deep\");\n";
    let changes = "v2: the price table\n";
    let note = "# Note\n\n```js\nlayout.paragraph(\"n\");\n```\n";
    for (request, path, content, want) in [
        (
            "Explain what main.js draws. Do not change any file.",
            "lib/extra.js",
            extra,
            "done",
        ),
        ("Which files call banner?", "lib/extra.js", extra, "done"),
        (
            "How is the table in main.js built?",
            "out/new/deep.js",
            deep,
            "done",
        ),
        (
            "Explain what main.js draws. Do not change any file.",
            "CHANGES",
            changes,
            "done",
        ),
        (
            "How is the table in main.js built?",
            "CHANGES",
            changes,
            "done",
        ),
        ("Tidy up main.js.", "docs/NOTE.md", note, "unchanged"),
        ("Fix main.js.", "out/new/deep.js", deep, "unchanged"),
    ] {
        // The script ends there: the model's next answer is the server's "script
        // exhausted", an answer of its own, so a question is answered `done`; a change
        // that missed main.js is not.
        let r = check(request, write(path, content));
        assert_eq!(r.status, want, "{request} / {path}: {}", r.stderr);
    }
}

#[test]
fn a_question_is_offered_no_write_tool_and_its_writes_are_refused() {
    // Seed 103: "Explain what main.js draws. Do not change any file." wrote CHANGES and
    // ended `done`; seed 26 edited main.js. Every way to write, each refused.
    let r = check(
        "Explain what main.js draws. Do not change any file.",
        vec![
            read_main(),
            calls(&[(
                "edit_file",
                json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
                    "replace": "layout.paragraph(\"done\");\nlayout.paragraph(\"Thank you.\");"}]}),
            )]),
            calls(&[(
                "write_file",
                json!({"path": "out/new/deep.js", "content": "layout.paragraph(\"deep\");\n"}),
            )]),
            (
                "text_call",
                Step::TextCall {
                    name: "delete_lines".into(),
                    args: json!({"path": "main.js", "marks": "9: DELETE"}),
                },
            ),
            say("main.js draws a price table, a banner and a paragraph."),
        ],
    );
    assert_eq!((r.code, r.status.as_str()), (0, "done"), "{}", r.stderr);
    let offers = offered(&r);
    assert!(offers[0].contains(&"read_file".to_string()), "{offers:?}");
    let refused = edits_with(&r, "refused");
    let paths: Vec<&str> = refused.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        paths,
        ["main.js", "out/new/deep.js", "main.js"],
        "{refused:?}"
    );
    assert!(
        refused.iter().all(|(_, why)| why.contains("a question")),
        "{refused:?}"
    );
    assert!(edits_with(&r, "applied").is_empty());
}

#[test]
fn a_questions_plan_workers_are_questions_too() {
    // Seeds 6 and 30: a question's plan item "write lib/extra.js with one paragraph" ran
    // as a change, and the worker created the file.
    let r = check(
        "What does main.js draw?",
        vec![
            calls(&[(
                "plan",
                json!({"items": ["explain what main.js draws", "write lib/extra.js with one paragraph"]}),
            )]),
            say("main.js draws a price table."),
            calls(&[(
                "write_file",
                json!({"path": "lib/extra.js", "content": "layout.paragraph(\"extra\");\n"}),
            )]),
            say("lib/extra.js would hold one paragraph."),
            say("main.js draws a price table; lib/extra.js would hold one paragraph."),
        ],
    );
    assert_eq!((r.code, r.status.as_str()), (0, "done"), "{}", r.stderr);
    let workers: Vec<u64> = events(&r.transcript, "request")
        .into_iter()
        .map(worker_of)
        .collect();
    assert!(workers.contains(&2), "worker 2 ran: {workers:?}");
    assert_eq!(edits_with(&r, "refused").len(), 1, "{}", r.stderr);
}

#[test]
fn a_change_that_missed_its_named_file_says_which_file_it_changed() {
    // Seeds 3 and 17: asked to tidy main.js, the turn wrote only docs/NOTE.md (or
    // out/new/deep.js) and ended `done` without a word of it.
    let r = check(
        "Tidy up main.js.",
        vec![
            calls(&[(
                "write_file",
                json!({"path": "docs/NOTE.md", "content": "# Note\n\n```js\nlayout.paragraph(\"n\");\n```\n"}),
            )]),
            say("Done."),
        ],
    );
    assert_eq!(
        (r.code, r.status.as_str()),
        (1, "unchanged"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("grounded agent: unchanged: changed docs/NOTE.md, not main.js"),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout.contains("The request named main.js"),
        "{}",
        r.stdout
    );
    // Kept: a wrong accusation is worse than a stray file; the user decides.
    assert!(r.stdout.contains("docs/NOTE.md"), "{}", r.stdout);
}

#[test]
fn a_change_that_hit_its_named_file_is_done() {
    // The known-good side: main.js changed (and another file with it).
    let r = check(
        "Add a closing paragraph to main.js.",
        vec![
            calls(&[(
                "write_file",
                json!({"path": "lib/extra.js", "content": "layout.paragraph(\"extra\");\n"}),
            )]),
            read_main(),
            calls(&[(
                "edit_file",
                json!({"path": "main.js", "edits": [{"find": "layout.paragraph(\"done\");",
                    "replace": "layout.paragraph(\"done\");\nlayout.paragraph(\"Thank you.\");"}]}),
            )]),
            say("Added a closing paragraph to main.js."),
        ],
    );
    assert_eq!((r.code, r.status.as_str()), (0, "done"), "{}", r.stderr);
}

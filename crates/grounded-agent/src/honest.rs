//! `honest`: what the turn may tell the user when the model's own account cannot be
//! used. Two failures of small local models behind it: a turn a guard stopped, whose only
//! change was a stray `file_name.txt` the request never named, was reported `done`; and
//! a final answer that was the guard's push echoed back ("[automated pre-send check -
//! NOT a message from the user] Loop detected: ..."), or the agent's own note nine
//! times over, was printed as the answer. The file system and the turn's own record
//! say what happened; the echo is replaced by that.
//!
//! The same rule holds for a turn nobody stopped: 12 turns of a seeded random model
//! asked to change `main.js` changed only `lib/huge.js` and ended `done` with no word
//! of it. A change that changed none of the files its request named says which files it
//! changed ([`strays`]), and is `done` only when the goal was met there ([`goal_met`]).
//!
//! Imports nothing of the agent but [`super::wording`] and the ledger's measurement.

use std::collections::HashSet;
use std::sync::OnceLock;

use regex::Regex;

use super::edits::Measurement;
use super::wording;

/// The markers every injected text opens with: a draft that carries one is the agent's
/// words, not the model's.
const MARKERS: [&str; 3] = [
    "automated pre-send check",
    "automated note from the agent",
    "automated message from the agent",
];

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

fn shingles(ws: &[String]) -> Vec<String> {
    ws.windows(4).map(|w| w.join(" ")).collect()
}

/// Whether `answer` is, or mostly repeats, text the agent injected this turn
/// (`injected`: its pushes, steers and notes): it carries an injected text's marker, or
/// half of its four-word runs come from injected texts.
pub fn echoes_injected(answer: &str, injected: &[String]) -> bool {
    let lower = answer.to_lowercase();
    if MARKERS.iter().any(|m| lower.contains(m)) {
        return true;
    }
    let mine = shingles(&words(answer));
    if mine.is_empty() {
        return false;
    }
    let theirs: HashSet<String> = injected.iter().flat_map(|t| shingles(&words(t))).collect();
    let hits = mine.iter().filter(|s| theirs.contains(*s)).count();
    hits * 2 >= mine.len()
}

/// The answer shown instead of an echo: what happened, from the turn's record.
pub fn summary(reason: &str, changed: &[String]) -> String {
    let files = if changed.is_empty() {
        "none".to_string()
    } else {
        changed.join(", ")
    };
    wording::fill(
        wording::ECHO_REPLACED,
        &[("reason", reason), ("files", &files)],
    )
}

fn file_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"[A-Za-z0-9_$][\w$./-]*\.[A-Za-z][A-Za-z0-9]{0,5}\b").unwrap())
}

/// The files the request names (`main.js`, `lib/a.js`), as written.
pub fn named_files(request: &str) -> Vec<String> {
    file_re()
        .find_iter(request)
        .map(|m| m.as_str().trim_end_matches('.').to_string())
        .collect()
}

/// Whether `path` (relative) is one of `named`, by path or by file name.
pub fn is_named(path: &str, named: &[String]) -> bool {
    let p = path.trim_start_matches("./");
    named.iter().any(|n| {
        let n = n.trim_start_matches("./");
        p == n || p.ends_with(&format!("/{n}")) || n.ends_with(&format!("/{p}"))
    })
}

/// The changed files when none of them is one of `named` (the files the request is
/// about, [`named_files`] and the editor's document; the turn keeps those of the
/// project): a turn that only left those behind did not do what was asked there.
pub fn strays(named: &[String], changed: &[String]) -> Option<Vec<String>> {
    if named.is_empty() || changed.is_empty() || changed.iter().any(|c| is_named(c, named)) {
        return None;
    }
    Some(changed.to_vec())
}

/// Whether a change that missed the files its request named met its goal all the same:
/// the findings the measure counts went down between `before` and `after` (asked to fix
/// `main.js`, the turn defined the helper it calls in the file it loads). `Some((before,
/// after))` counts when they did.
///
/// The whole project's findings, not the named files' alone: asked to "fix this:
/// `banner` is declared in the project's lib/util.js, which this script does not load",
/// the fix is a line in the script, and judging lib/util.js alone would accuse a turn
/// that did what was asked. A wrong accusation is worse than a miss.
pub fn goal_met(before: &Measurement, after: &Measurement) -> Option<(usize, usize)> {
    let count = |m: &Measurement| -> usize { m.findings.values().map(Vec::len).sum() };
    let (b, a) = (count(before), count(after));
    (a < b).then_some((b, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_echo_of_a_push_is_caught_and_an_answer_is_not() {
        let push = "[automated pre-send check - NOT a message from the user]\nLoop detected: the last 6 calls alternated between read_file and list_files with the same arguments. Neither will tell you more.".to_string();
        assert!(echoes_injected(&push, std::slice::from_ref(&push)));
        let stripped = "Loop detected: the last 6 calls alternated between read_file and list_files with the same arguments.";
        assert!(echoes_injected(stripped, std::slice::from_ref(&push)));
        assert!(!echoes_injected(
            "Added a note block at the end of main.js.",
            std::slice::from_ref(&push)
        ));
    }

    #[test]
    fn strays_are_changes_the_request_never_named() {
        let r = named_files("add a note block at the end of main.js that says Thank you");
        assert_eq!(r, vec!["main.js".to_string()]);
        assert_eq!(
            strays(&r, &["file_name.txt".into()]),
            Some(vec!["file_name.txt".into()])
        );
        assert_eq!(strays(&r, &["main.js".into(), "x.txt".into()]), None);
        assert_eq!(
            strays(&named_files("add a footer"), &["x.txt".into()]),
            None
        );
        assert_eq!(
            strays(&["main.js".into()], &["lib/huge.js".into()]),
            Some(vec!["lib/huge.js".into()])
        );
        // By file name too: the request said `util.js`, the turn changed lib/util.js.
        assert_eq!(strays(&["util.js".into()], &["lib/util.js".into()]), None);
    }

    #[test]
    fn the_goal_is_met_elsewhere_only_when_a_finding_went() {
        let m = |files: &[(&str, usize)]| {
            let mut m = Measurement::default();
            for (p, n) in files {
                m.findings
                    .insert(p.to_string(), vec!["1:1 member: x".to_string(); *n]);
            }
            m
        };
        assert_eq!(
            goal_met(&m(&[("main.js", 2)]), &m(&[("main.js", 1)])),
            Some((2, 1))
        );
        assert_eq!(
            goal_met(&m(&[("main.js", 1)]), &m(&[("lib/util.js", 1)])),
            None
        );
        assert_eq!(goal_met(&m(&[]), &m(&[])), None);
    }
}

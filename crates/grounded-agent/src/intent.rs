//! `intent`: whether a request asks to remove, and which part of it removes — the one
//! place the agent decides a "removal turn" from the request's words.
//!
//! Why: asked to "remove the price table from main.js", a model answered with a
//! find/replace that put new lines where the table was, and the file grew (293 → 364
//! bytes) while the turn reported a removal; an earlier agent grew a 1,527-byte file to
//! 1,653 the same way. With the model marking lines and code dropping them the file can
//! only shrink. So in a removal turn the write tools refuse any edit that adds a line,
//! and point to `delete_lines` (delete-scan), the one tool that only drops lines.
//!
//! The rule, as a demanding user reads their own request:
//!
//! - **Removal only** — every change verb is a removal word ([`REMOVE_WORDS`]: remove,
//!   delete, drop, strip, erase, eliminate, "get rid of", "take out"). Nothing may be
//!   added: an `edit_file` or `write_file` that adds a line (a line of the new text that
//!   the old text does not have, a changed line included) or grows the file is refused,
//!   and so is creating a file. An edit that only drops whole lines does what
//!   delete-scan does and passes. A removal inside a line ("remove the second argument")
//!   cannot be made in a removal turn: ask for it as a change ("change f(a, b) to f(a)").
//! - **Removes and adds** — a removal word and another change verb ("remove A and add
//!   B"), or "replace X with Y". The request is cut into clauses (at "and", commas,
//!   semicolons, "then", and "with"/"by" after "replace"); each clause takes the kind of
//!   its verb, and a clause without one takes the kind of the clause before ("remove A,
//!   B and C"). The model is told which part removes (do it with `delete_lines`) and
//!   which adds, and the answer says so to the user. Edits that add are allowed: no rule
//!   can tell which lines serve which part.
//! - **Anything else** — no removal word: no constraint from this module.
//!
//! English requests only; the words say nothing about any engine.

/// Words that ask for a removal. "get rid of" and "take out" are matched as phrases.
pub const REMOVE_WORDS: &[&str] = &[
    "remove",
    "removes",
    "removing",
    "delete",
    "deletes",
    "deleting",
    "drop",
    "drops",
    "dropping",
    "strip",
    "erase",
    "eliminate",
];

/// Two-word removal phrases.
const REMOVE_PHRASES: &[&str] = &["get rid of", "take out"];

/// Words that ask to put something in (or to change it, which may put something in).
/// "replace" is both: its object goes, what it is replaced with comes.
const ADD_WORDS: &[&str] = &[
    "add",
    "adds",
    "append",
    "insert",
    "create",
    "write",
    "make",
    "put",
    "implement",
    "include",
    "build",
    "generate",
    "fix",
    "change",
    "modify",
    "update",
    "edit",
    "rename",
    "move",
    "convert",
    "refactor",
    "split",
    "set",
    "use",
    "correct",
    "repair",
];

/// What a request asks, as far as removing goes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Scope {
    /// No removal word: no constraint.
    #[default]
    Other,
    /// Only removals: the turn's files may only shrink.
    Removal,
    /// Removes and adds: which clause is which.
    Mixed {
        /// The clauses that remove, as the user wrote them.
        removes: Vec<String>,
        /// The clauses that add or change, as the user wrote them.
        adds: Vec<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Remove,
    Add,
}

fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect()
}

/// The kind of a clause: from its first change word.
fn kind_of(clause: &str) -> Option<Kind> {
    let ws = words(clause);
    for (i, w) in ws.iter().enumerate() {
        if REMOVE_WORDS.contains(&w.as_str()) {
            return Some(Kind::Remove);
        }
        let two = ws[i..(i + 2).min(ws.len())].join(" ");
        let three = ws[i..(i + 3).min(ws.len())].join(" ");
        if REMOVE_PHRASES.contains(&two.as_str()) || REMOVE_PHRASES.contains(&three.as_str()) {
            return Some(Kind::Remove);
        }
        if ADD_WORDS.contains(&w.as_str()) {
            return Some(Kind::Add);
        }
    }
    None
}

/// The request cut into clauses, each with its kind. "replace X with Y" gives a
/// removal clause "replace X" and an adding clause "with Y".
fn clauses(request: &str) -> Vec<(String, Option<Kind>)> {
    let mut raw: Vec<String> = Vec::new();
    for part in request.split([',', ';', '\n']) {
        let mut cur: Vec<&str> = Vec::new();
        let mut replacing = false;
        for w in part.split_whitespace() {
            let lw = w.to_lowercase();
            let connector = matches!(lw.as_str(), "and" | "then" | "also");
            if connector && cur.is_empty() {
                continue;
            }
            let cut = connector || (replacing && matches!(lw.as_str(), "with" | "by"));
            if cut && !cur.is_empty() {
                raw.push(cur.join(" "));
                cur.clear();
                if replacing && matches!(lw.as_str(), "with" | "by") {
                    replacing = false;
                    cur.push(w);
                }
                continue;
            }
            if lw.trim_matches(|c: char| !c.is_alphanumeric()) == "replace" {
                replacing = true;
            }
            cur.push(w);
        }
        if !cur.is_empty() {
            raw.push(cur.join(" "));
        }
    }
    let mut out: Vec<(String, Option<Kind>)> = Vec::new();
    let mut prev: Option<Kind> = None;
    for c in raw {
        let c = c.trim().trim_end_matches('.').trim().to_string();
        if c.is_empty() {
            continue;
        }
        let lower = c.to_lowercase();
        let k = if lower.starts_with("replace ") || lower == "replace" {
            Some(Kind::Remove)
        } else if lower.starts_with("with ") || lower.starts_with("by ") {
            Some(Kind::Add)
        } else {
            kind_of(&c).or(prev)
        };
        prev = k;
        out.push((c, k));
    }
    out
}

/// The scope of `request`: see the module's documentation for the rule.
pub fn scope(request: &str) -> Scope {
    let cs = clauses(request);
    let removes: Vec<String> = cs
        .iter()
        .filter(|(_, k)| *k == Some(Kind::Remove))
        .map(|(c, _)| c.clone())
        .collect();
    if removes.is_empty() {
        return Scope::Other;
    }
    let adds: Vec<String> = cs
        .iter()
        .filter(|(_, k)| *k == Some(Kind::Add))
        .map(|(c, _)| c.clone())
        .collect();
    if adds.is_empty() {
        Scope::Removal
    } else {
        Scope::Mixed { removes, adds }
    }
}

/// In a removal turn, why `new` may not replace `old` (`None`: the file is created):
/// it grows the file or adds a line the old text does not have. `Ok` for a pure removal.
pub fn must_shrink(old: Option<&str>, new: &str) -> Result<(), String> {
    let Some(old) = old else {
        return Err("it creates a file".into());
    };
    let mut have: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for l in old.lines() {
        *have.entry(l.trim_end()).or_default() += 1;
    }
    let mut added = Vec::new();
    for (i, l) in new.lines().enumerate() {
        let key = l.trim_end();
        match have.get_mut(key) {
            Some(n) if *n > 0 => *n -= 1,
            _ if key.trim().is_empty() => {}
            _ => added.push(format!("{:>4}| {l}", i + 1)),
        }
    }
    if !added.is_empty() {
        let shown: Vec<String> = added.iter().take(5).cloned().collect();
        let more = if added.len() > 5 {
            format!("\n     ... and {} more", added.len() - 5)
        } else {
            String::new()
        };
        return Err(format!(
            "it adds {} line{} the file does not have:\n{}{more}",
            added.len(),
            if added.len() == 1 { "" } else { "s" },
            shown.join("\n")
        ));
    }
    if new.len() > old.len() {
        return Err(format!(
            "it grows the file ({} → {} bytes)",
            old.len(),
            new.len()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn removal_only_requests() {
        for r in [
            "remove the price table from main.js",
            "Delete the footer.",
            "drop the unused helper, and the banner call",
            "get rid of the orders section",
            "take out the second heading",
            "Remove the table, the heading and the note",
        ] {
            assert_eq!(scope(r), Scope::Removal, "{r}");
        }
    }

    #[test]
    fn requests_that_do_not_remove() {
        for r in [
            "add a footer with page numbers",
            "what does main.js lay out?",
            "change the paragraph to newer",
            "fix the invented member",
        ] {
            assert_eq!(scope(r), Scope::Other, "{r}");
        }
    }

    #[test]
    fn requests_that_remove_and_add_say_which_part_is_which() {
        assert_eq!(
            scope("remove the price table and add a summary line"),
            Scope::Mixed {
                removes: vec!["remove the price table".into()],
                adds: vec!["add a summary line".into()]
            }
        );
        assert_eq!(
            scope("Replace the price table with a bullet list."),
            Scope::Mixed {
                removes: vec!["Replace the price table".into()],
                adds: vec!["with a bullet list".into()]
            }
        );
        assert_eq!(
            scope("delete the banner, then update the heading in lib/util.js"),
            Scope::Mixed {
                removes: vec!["delete the banner".into()],
                adds: vec!["update the heading in lib/util.js".into()]
            }
        );
    }

    #[test]
    fn a_removal_may_only_drop_lines() {
        let old = "a();\nb();\nc();\n";
        assert!(must_shrink(Some(old), "a();\nc();\n").is_ok());
        assert!(must_shrink(Some(old), "a();\n\nc();\n").is_ok());
        let e = must_shrink(Some(old), "a();\nx();\nc();\n").unwrap_err();
        assert!(e.contains("adds 1 line") && e.contains("x();"), "{e}");
        // A changed line is a new line.
        assert!(must_shrink(Some(old), "a();\nb(1);\nc();\n").is_err());
        // Reordering keeps every line but is not a removal of anything: it passes the
        // line rule and the size rule; only growth or new lines are refused.
        assert!(must_shrink(Some(old), "c();\na();\n").is_ok());
        assert!(must_shrink(Some(old), "a();\nb();\nc();\n\n\n\n")
            .unwrap_err()
            .contains("grows"));
        assert!(must_shrink(None, "a();\n").is_err());
    }
}

//! `intent`: what a turn was asked — a question, a change, or a removal (and which part
//! of a request removes) — decided once from the request's words ([`decide`]), the one
//! place the agent reads them. The status, the gates, the write tools and a plan's
//! workers all read the [`Intent`] decided here.
//!
//! Why: asked to "remove the price table from main.js", a model answered with a
//! find/replace that put new lines where the table was, and the file grew (293 → 364
//! bytes) while the turn reported a removal; an earlier agent grew a 1,527-byte file to
//! 1,653 the same way. With the model marking lines and code dropping them the file can
//! only shrink. So in a removal turn the write tools refuse any edit that adds a line,
//! and point to `delete_lines` (delete-scan), the one tool that only drops lines. The
//! rule is enforced where every write lands (`landing`), and asked of the file system at
//! the turn's end (a file grown or created undoes the turn), so no path that writes —
//! a plan's workers included, who run under the turn's intent — escapes it.
//!
//! Question or change ([`decide`], [`Ask`]): a request is a question only when it reads
//! as one (a question form, or a sentence opening with "explain", "list", "show"...) and
//! no sentence asks for a change (opens with a change verb, a polite opening and one,
//! or a statement with one no negation governs). "Do not change any file" asks for
//! nothing. Anything else is a change: "Tidy up main.js." that changed nothing is
//! `unchanged`. A question is `done` once the model answered, whatever it tried to write
//! and even when a guard or the step limit stopped it (the reason says so); a question
//! with no answer of the model's own ends `unchanged`.
//!
//! A question is read-only ([`Intent::read_only`]): 47 of 268 question turns of a seeded
//! random model changed a file ("What does lib/title.js do? Do not change any file."
//! edited it and ended `done`). The write tools are withheld from its offer, refused if
//! called anyway, and refused where every write lands; its plan's workers are questions
//! too, whatever their items say.
//!
//! The removal rule, as a demanding user reads their own request:
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
///
/// Why so many: "Tidy up main.js." ended `done` with nothing changed while "Fix
/// main.js." with the same replies ended `unchanged` — a verb missing from a short list
/// turned a request for a change into a question. A request is a question only when it
/// reads as one ([`decide`]); these words find the change inside a question form ("can
/// you tidy main.js?") and the kind of each clause.
const ADD_WORDS: &[&str] = &[
    "add",
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
    "tidy",
    "clean",
    "format",
    "reformat",
    "simplify",
    "rewrite",
    "improve",
    "optimize",
    "optimise",
    "restructure",
    "reorganize",
    "reorganise",
    "polish",
    "shorten",
    "extend",
    "translate",
    "sort",
    "merge",
    "wrap",
    "extract",
    "inline",
    "swap",
    "fill",
    "complete",
    "finish",
    "adjust",
    "tweak",
    "rework",
    "redo",
    "undo",
    "revert",
    "restore",
    "apply",
    "migrate",
    "upgrade",
    "port",
    "bump",
    "enable",
    "disable",
    "declare",
    "define",
    "introduce",
    "indent",
    "center",
    "centre",
    "align",
    "resize",
    "style",
    "restyle",
    "shift",
    "turn",
    "comment",
    "uncomment",
    "annotate",
    "document",
    "prepend",
    "patch",
    "connect",
    "wire",
    "hook",
    "attach",
    "cut",
    "trim",
    "shrink",
    "enlarge",
    "increase",
    "decrease",
    "raise",
    "lower",
    "reduce",
    "paginate",
    "place",
];

/// Words after which a verb-shaped word is a noun: "the comment", "a set", "its use".
const DETERMINERS: &[&str] = &[
    "the", "a", "an", "this", "that", "these", "those", "its", "their", "each", "every", "some",
    "any", "my", "your", "our", "of", "his", "her",
];

/// Words that open a question or a request to be told something: "What does main.js
/// draw?", "Explain what main.js draws.", "List the files that call banner."
const ASK_WORDS: &[&str] = &[
    "what",
    "which",
    "where",
    "why",
    "how",
    "who",
    "whom",
    "whose",
    "when",
    "is",
    "are",
    "does",
    "do",
    "did",
    "was",
    "were",
    "has",
    "have",
    "had",
    "should",
    "explain",
    "describe",
    "show",
    "list",
    "tell",
    "summarize",
    "summarise",
    "find",
    "search",
    "look",
    "check",
    "count",
    "compare",
    "review",
    "read",
    "identify",
    "locate",
    "outline",
    "walk",
    "say",
    "give",
    "report",
    "name",
    "verify",
    "audit",
    "inspect",
    "analyse",
    "analyze",
    "diagnose",
];

/// Polite openings that put a change verb right after them: "can you tidy main.js?" is
/// a change, "can main.js run twice?" is a question.
const REQUEST_OPENINGS: &[&[&str]] = &[
    &["can", "you"],
    &["could", "you"],
    &["would", "you"],
    &["will", "you"],
    &["can", "we"],
    &["could", "we"],
    &["i", "want", "you", "to"],
    &["i", "d", "like", "you", "to"],
    &["i", "would", "like", "you", "to"],
    &["i", "need", "you", "to"],
    &["we", "need", "to"],
    &["you", "should"],
    &["let", "s"],
    &["let", "us"],
    &["go", "ahead", "and"],
    &["please"],
    &["kindly"],
    &["just"],
    &["now"],
    &["also"],
    &["then"],
    &["and"],
    &["first"],
    &["finally"],
    &["ok"],
    &["okay"],
];

/// Words that negate the verb after them: "Do not change any file", "without changing
/// anything", "never edit lib/". The verb they govern asks for nothing.
const NEGATIONS: &[&str] = &["not", "never", "without", "don", "dont", "avoid", "no"];

/// What a request asks as far as removing goes.
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

/// Whether a turn was asked a question or asked for a change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ask {
    /// To be told something: the turn is done when it answered, whatever it wrote.
    Question,
    /// To change files: the turn is done only when a file changed.
    #[default]
    Change,
}

/// What a turn was asked, decided once from the request's words ([`decide`]) and read by
/// everything that judges the turn: the write tools (a removal only shrinks), the finish
/// gates (work remains when a change was asked), the final status, and a plan's workers
/// ([`Intent::for_worker`]).
///
/// Why once: each judge used to decide for itself. The status read "was a change verb
/// anywhere, or was a write attempted", so "Explain what main.js draws. Do not change any
/// file." (a question) ended `unchanged` with exit 1, and so did a question whose model
/// tried a write that was refused; a plan's worker decided again from its item's words,
/// so under "Remove the table" an item "add a note line to main.js" added.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Intent {
    /// A question or a change.
    pub ask: Ask,
    /// As far as removing goes.
    pub scope: Scope,
}

impl Intent {
    /// Whether files are asked to change.
    pub fn asks_change(&self) -> bool {
        self.ask == Ask::Change
    }

    /// Whether no file may change: a question.
    pub fn read_only(&self) -> bool {
        self.ask == Ask::Question
    }

    /// The intent a plan's worker runs under for `item`: a question's workers answer
    /// and a removal's only remove (the item's words cannot lift either); otherwise the
    /// item's own words decide, since they can only be narrower than the request.
    pub fn for_worker(&self, item: &str) -> Intent {
        if self.read_only() {
            return Intent {
                ask: Ask::Question,
                scope: Scope::Other,
            };
        }
        if self.scope == Scope::Removal {
            return Intent {
                ask: Ask::Change,
                scope: Scope::Removal,
            };
        }
        decide(item)
    }
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

/// Whether `w` is `verb` or one of its inflections ("changing", "tidies", "dropped").
fn inflects(w: &str, verb: &str) -> bool {
    if w == verb {
        return true;
    }
    if let Some(st) = verb.strip_suffix('y') {
        if w == format!("{st}ies") || w == format!("{st}ied") {
            return true;
        }
    }
    let Some(rest) = w.strip_prefix(verb.trim_end_matches('e')) else {
        return false;
    };
    let last = verb.chars().last().unwrap_or(' ');
    let doubled = |suffix: &str| {
        rest.len() == suffix.len() + 1 && rest.ends_with(suffix) && rest.starts_with(last)
    };
    matches!(rest, "s" | "es" | "ing" | "ed" | "d") || doubled("ing") || doubled("ed")
}

fn kind_of_word(ws: &[String], i: usize) -> Option<Kind> {
    let w = ws[i].as_str();
    if REMOVE_WORDS.iter().any(|v| inflects(w, v)) {
        return Some(Kind::Remove);
    }
    let two = ws[i..(i + 2).min(ws.len())].join(" ");
    let three = ws[i..(i + 3).min(ws.len())].join(" ");
    if REMOVE_PHRASES.contains(&two.as_str()) || REMOVE_PHRASES.contains(&three.as_str()) {
        return Some(Kind::Remove);
    }
    // "replace" heads a removal clause ("replace X" goes, "with Y" comes).
    if w == "replace" {
        return Some(Kind::Remove);
    }
    if ADD_WORDS.iter().any(|v| inflects(w, v)) {
        return Some(Kind::Add);
    }
    None
}

/// The kind of a clause: from its first change word that no negation governs. `None`
/// when it has none (or only negated ones: "do not change any file").
fn kind_of(clause: &str) -> Option<Kind> {
    let ws = words(clause);
    for i in 0..ws.len() {
        let Some(k) = kind_of_word(&ws, i) else {
            continue;
        };
        if i > 0 && DETERMINERS.contains(&ws[i - 1].as_str()) {
            continue;
        }
        let negated = ws[..i].iter().any(|w| NEGATIONS.contains(&w.as_str()));
        if negated {
            return None;
        }
        return Some(k);
    }
    None
}

/// A clause's words after its polite opening ("please", "can you", "let's"), and
/// whether it had one that asks for an action.
fn opening_stripped(ws: &[String]) -> (&[String], bool) {
    let mut rest = ws;
    let mut asked = false;
    'strip: loop {
        for o in REQUEST_OPENINGS {
            if rest.len() > o.len() && rest.iter().zip(o.iter()).all(|(w, p)| w == p) {
                asked |= o.len() > 1 || o[0] == "please";
                rest = &rest[o.len()..];
                continue 'strip;
            }
        }
        return (rest, asked);
    }
}

/// The sentences of a request: cut after `.`, `?` and `!` followed by a space or the
/// end (`main.js` stays whole), and at line breaks; each with whether it is a question
/// form (it ends with `?`).
fn sentences(request: &str) -> Vec<(String, bool)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = request.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let next = chars.get(i + 1).copied();
        let ends = matches!(c, '.' | '?' | '!') && next.is_none_or(char::is_whitespace);
        if c == '\n' || ends {
            let t = cur.trim().to_string();
            if !t.is_empty() {
                out.push((t, c == '?'));
            }
            cur.clear();
            continue;
        }
        cur.push(c);
    }
    let t = cur.trim().to_string();
    if !t.is_empty() {
        out.push((t, false));
    }
    out
}

/// Decides what `request` asks, once for the turn. The rule, as a demanding user reads
/// their own request:
///
/// - a sentence that opens with a change verb ("Tidy up main.js.", "Please remove the
///   table"), or with a polite opening and one ("can you add a footer?"), asks for a
///   change; so does a statement (not a question form) with a change verb anywhere
///   that no negation governs ("main.js needs the footer removed");
/// - a negated verb asks for nothing ("Do not change any file.", "without changing");
/// - a question form ("What does main.js draw?", "How is the table built?") or a
///   sentence opening with a word that asks to be told ("Explain", "List", "Show")
///   asks a question, whatever verbs it mentions;
/// - the request is a change when any sentence asks for one; a question when at least
///   one asks a question and none asks for a change; and a change otherwise: a request
///   to a coding agent that reads as neither is taken as an instruction, so a turn that
///   changed nothing says so (`unchanged`) rather than report success.
pub fn decide(request: &str) -> Intent {
    let mut question = false;
    let mut changes: Vec<String> = Vec::new();
    for (sentence, q) in sentences(request) {
        let ws = words(&sentence);
        let (rest, asked) = opening_stripped(&ws);
        let Some(first) = rest.first() else {
            continue;
        };
        let negated_head = NEGATIONS.contains(&first.as_str())
            || (first == "do" && rest.get(1).is_some_and(|w| NEGATIONS.contains(&w.as_str())));
        if negated_head {
            continue;
        }
        // A clause that opens with a change verb: "Tidy up main.js", "..., then
        // simplify it".
        let imperative = sentence_clauses(&sentence).iter().any(|c| {
            let ws = words(c);
            let (rest, _) = opening_stripped(&ws);
            !rest.is_empty() && kind_of_word(rest, 0).is_some()
        });
        let changes_here = clauses(&sentence).iter().any(|(_, k)| k.is_some());
        if imperative || (asked && changes_here) {
            changes.push(sentence);
        } else if q || ASK_WORDS.contains(&first.as_str()) {
            question = true;
        } else if changes_here {
            changes.push(sentence);
        }
    }
    // Only the sentences that ask for a change say what it removes: "How do I remove
    // the table?" removes nothing.
    let scope = scope(&changes.join(". "));
    let ask = if !changes.is_empty() || !question {
        Ask::Change
    } else {
        Ask::Question
    };
    Intent { ask, scope }
}

/// A sentence cut into clauses at commas, semicolons and "and", "then", "also", "but"
/// (and "with"/"by" after "replace"), as written.
fn sentence_clauses(sentence: &str) -> Vec<String> {
    let mut raw: Vec<String> = Vec::new();
    for part in sentence.split([',', ';', '\n']) {
        let mut cur: Vec<&str> = Vec::new();
        let mut replacing = false;
        for w in part.split_whitespace() {
            let lw = w.to_lowercase();
            let connector = matches!(lw.as_str(), "and" | "then" | "also" | "but");
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
    raw
}

/// The request cut into clauses, each with its kind. "replace X with Y" gives a
/// removal clause "replace X" and an adding clause "with Y". A clause whose only change
/// words are negated ("do not add anything") has no kind and does not pass one on, and
/// a new sentence does not inherit the last one's verb.
fn clauses(request: &str) -> Vec<(String, Option<Kind>)> {
    let mut out: Vec<(String, Option<Kind>)> = Vec::new();
    for (sentence, _) in sentences(request) {
        let mut prev: Option<Kind> = None;
        for c in sentence_clauses(&sentence) {
            let c = c.trim().trim_end_matches('.').trim().to_string();
            if c.is_empty() {
                continue;
            }
            let lower = c.to_lowercase();
            let negated = words(&c).iter().any(|w| NEGATIONS.contains(&w.as_str()));
            let k = if lower.starts_with("replace ") || lower == "replace" {
                Some(Kind::Remove)
            } else if lower.starts_with("with ") || lower.starts_with("by ") {
                Some(Kind::Add)
            } else if negated {
                kind_of(&c)
            } else {
                kind_of(&c).or(prev)
            };
            prev = k;
            out.push((c, k));
        }
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

    #[test]
    fn questions_are_questions_whatever_verbs_they_mention() {
        for r in [
            "What does main.js draw?",
            "Explain what main.js draws. Do not change any file.",
            "Explain what main.js draws. Don't edit anything.",
            "Which files call banner?",
            "How do I remove the table?",
            "What does the add function do?",
            "List the files that use tableStart.",
            "Describe main.js without changing it.",
            "Is the table in main.js closed?",
        ] {
            assert_eq!(decide(r).ask, Ask::Question, "{r}");
            assert_eq!(decide(r).scope, Scope::Other, "{r}");
        }
    }

    #[test]
    fn changes_are_changes_whatever_verb_asks_for_them() {
        for r in [
            "Tidy up main.js.",
            "Fix main.js.",
            "Rename banner to heading in lib/util.js.",
            "Add a closing paragraph to main.js.",
            "Can you tidy main.js?",
            "Could you please add a footer?",
            "Please clean up lib/util.js",
            "Explain main.js, then simplify it.",
            "main.js needs the footer updated",
            "Beautify main.js.",
        ] {
            assert_eq!(decide(r).ask, Ask::Change, "{r}");
        }
        let r = decide("Remove the table from main.js. Do not add anything.");
        assert_eq!(r.scope, Scope::Removal);
        assert_eq!(r.ask, Ask::Change);
        assert_eq!(scope("Remove the table and the comment"), Scope::Removal);
        assert_eq!(
            scope("Remove the table, but keep the heading"),
            Scope::Removal
        );
    }

    #[test]
    fn a_worker_inherits_a_removal_and_otherwise_reads_its_item() {
        let removal = decide("Remove the table from main.js.");
        let w = removal.for_worker("add a note line to main.js");
        assert_eq!(w.scope, Scope::Removal);
        assert_eq!(w.ask, Ask::Change);
        let question = decide("What does main.js draw?");
        let w = question.for_worker("write lib/extra.js with one paragraph");
        assert!(w.read_only());
        let change = decide("Add a footer and explain the table.");
        assert_eq!(change.for_worker("explain the table").ask, Ask::Question);
        assert_eq!(
            change.for_worker("remove the old footer").scope,
            Scope::Removal
        );
    }

    #[test]
    fn verbs_are_known_in_their_inflections() {
        assert!(inflects("changing", "change"));
        assert!(inflects("tidies", "tidy"));
        assert!(inflects("dropped", "drop"));
        assert!(inflects("setting", "set"));
        assert!(!inflects("us", "use"));
        assert!(!inflects("settle", "set"));
    }
}

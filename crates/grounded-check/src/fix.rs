//! `fix`: each finding's one sure fix, applied to a fixed point (`check --fix`,
//! `--diff`, and the server's `source.fixAll.grounded`).
//!
//! A sure fix is the one an editor marks preferred ([`Finding::sure_fix`]): a safe fix
//! by the rule written above [`Fix`] in finding.rs (never a pick among near names, which
//! stays the user's call). `check --unsafe-fixes` adds a finding's only fix when it is
//! unsafe ([`Finding::fix_to_apply`]); the server's fix-all never does. Fixes are applied to the text,
//! the text is checked again, and the round repeats until no sure fix is left: a
//! fix can uncover another (a `const` turned `var` lets the next statement parse).
//! A result that would not parse, or would carry a finding the text did not have, is
//! refused whole: a fixer that trades one finding for another teaches users to stop
//! running it.

use std::collections::HashMap;

use crate::{Code, Finding, Fix, Span};

/// What one check of a text says: its findings, and whether it parsed cleanly.
#[derive(Debug, Clone, Default)]
pub struct Verdict {
    /// The findings the fixes come from (after the project's own selection).
    pub findings: Vec<Finding>,
    /// Whether the parse of the script had an error node.
    pub parse_error: bool,
}

/// The text after every sure fix, or why the file was left as it was.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Fixed: the new text and how many fixes went in (0: nothing to do).
    Fixed {
        /// The fixed text.
        text: String,
        /// How many fixes were applied, over every round.
        applied: usize,
    },
    /// Left as it was, and why (one line).
    Refused(String),
}

/// Rounds before giving up on reaching a fixed point. Each round only applies fixes
/// the checker offered for the text of that round; ten is far past any chain seen
/// (`const` → `var` uncovering an arrow function uncovering a template is three).
pub const MAX_ROUNDS: usize = 10;

/// The sure fixes of `findings` as non-overlapping `(span, text)` edits, in order.
/// Where two overlap, the first (by position) wins this round; the next round's check
/// offers the other again if it still applies.
pub fn sure_edits(findings: &[Finding], len: usize) -> Vec<(Span, String)> {
    edits(findings, len, false)
}

/// Like [`sure_edits`]; with `unsafe_fixes`, a finding's only fix goes in too when it
/// is unsafe (`check --unsafe-fixes`).
pub fn edits(findings: &[Finding], len: usize, unsafe_fixes: bool) -> Vec<(Span, String)> {
    let mut edits: Vec<(Span, String)> = findings
        .iter()
        .filter_map(|f| f.fix_to_apply(unsafe_fixes))
        .map(|fix| match fix {
            Fix::Replace { span, text, .. } => (*span, text.clone()),
            Fix::Delete { span, .. } => (*span, String::new()),
        })
        .filter(|(s, _)| s.start <= s.end && s.end <= len)
        .collect();
    edits.sort_by_key(|(s, _)| (s.start, s.end));
    edits.dedup();
    let mut out: Vec<(Span, String)> = Vec::with_capacity(edits.len());
    for (span, text) in edits {
        let clear = out.last().is_none_or(|(last, _)| {
            // Two insertions at one point would land in an order nobody chose.
            last.end < span.start || (last.end == span.start && last.start < last.end)
        });
        if clear {
            out.push((span, text));
        }
    }
    out
}

/// `text` with `edits` (sorted, non-overlapping, on char boundaries) applied.
pub fn apply(text: &str, edits: &[(Span, String)]) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (span, new) in edits {
        out.push_str(&text[at..span.start]);
        out.push_str(new);
        at = span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// The findings of `after` that `before` does not have, compared as a multiset by
/// family and message (positions move with every fix above them).
pub fn gained<'a>(before: &[Finding], after: &'a [Finding]) -> Vec<&'a Finding> {
    let key = |f: &Finding| (f.code, f.message.clone());
    let mut have: HashMap<(Code, String), usize> = HashMap::new();
    for f in before {
        *have.entry(key(f)).or_default() += 1;
    }
    after
        .iter()
        .filter(|f| match have.get_mut(&key(f)) {
            Some(n) if *n > 0 => {
                *n -= 1;
                false
            }
            _ => true,
        })
        .collect()
}

/// Applies the sure fixes of `text` round after round, `check` judging each version,
/// until none is left. `first` is the verdict on `text` when the caller has it.
pub fn fix_text(text: &str, first: Option<Verdict>, check: impl FnMut(&str) -> Verdict) -> Outcome {
    fix_text_with(text, first, false, check)
}

/// [`fix_text`], with the unsafe fixes too when `unsafe_fixes` (`check --unsafe-fixes`).
pub fn fix_text_with(
    text: &str,
    first: Option<Verdict>,
    unsafe_fixes: bool,
    mut check: impl FnMut(&str) -> Verdict,
) -> Outcome {
    let mut current = text.to_string();
    let mut verdict = first.unwrap_or_else(|| check(text));
    let mut applied = 0;
    for _ in 0..MAX_ROUNDS {
        let edits = edits(&verdict.findings, current.len(), unsafe_fixes);
        if edits.is_empty()
            || edits.iter().any(|(s, _)| {
                !current.is_char_boundary(s.start) || !current.is_char_boundary(s.end)
            })
        {
            return Outcome::Fixed {
                text: current,
                applied,
            };
        }
        let next = apply(&current, &edits);
        let after = check(&next);
        if after.parse_error && !verdict.parse_error {
            return Outcome::Refused("the fixed text would not parse; left as it was".into());
        }
        if let Some(g) = gained(&verdict.findings, &after.findings).first() {
            return Outcome::Refused(format!(
                "the fixes would bring a new finding ({}: {}); left as it was",
                g.code.as_str(),
                g.message
            ));
        }
        if next == current {
            break;
        }
        applied += edits.len();
        current = next;
        verdict = after;
    }
    if edits(&verdict.findings, current.len(), unsafe_fixes).is_empty() {
        Outcome::Fixed {
            text: current,
            applied,
        }
    } else {
        Outcome::Refused(format!(
            "no fixed point after {MAX_ROUNDS} rounds of fixes; left as it was"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(text: &str, span: Span, fixes: Vec<Fix>) -> Finding {
        let mut f = Finding::new("t.js", text, span, Code::Syntax, "m");
        f.fixes = fixes;
        f
    }

    /// `fixes`, made safe: a rewrite the docs make certain.
    fn safe(mut fixes: Vec<Fix>) -> Vec<Fix> {
        for f in &mut fixes {
            let (Fix::Replace { safe, .. } | Fix::Delete { safe, .. }) = f;
            *safe = true;
        }
        fixes
    }

    /// A near name is unsafe even alone: `--fix` leaves it, `--unsafe-fixes` applies the
    /// only one and never picks among several; a safe fix goes in either way.
    #[test]
    fn near_names_are_unsafe_and_a_choice_is_never_applied() {
        let text = "a.b();\n";
        let one = finding(
            text,
            Span::new(2, 3),
            Fix::replace_each(&["c"], Span::new(2, 3)),
        );
        assert!(sure_edits(std::slice::from_ref(&one), text.len()).is_empty());
        assert_eq!(
            edits(std::slice::from_ref(&one), text.len(), true),
            vec![(Span::new(2, 3), "c".into())]
        );
        let two = finding(
            text,
            Span::new(2, 3),
            Fix::replace_each(&["c", "d"], Span::new(2, 3)),
        );
        assert!(edits(&[two], text.len(), true).is_empty());
        let sure = finding(
            text,
            Span::new(2, 3),
            safe(Fix::replace_each(&["c"], Span::new(2, 3))),
        );
        assert_eq!(sure_edits(&[sure], text.len()).len(), 1);
    }

    /// A choice between near names is never applied; a single safe fix is.
    #[test]
    fn only_sure_fixes_become_edits() {
        let text = "a.b();\n";
        let two = finding(
            text,
            Span::new(2, 3),
            Fix::replace_each(&["c", "d"], Span::new(2, 3)),
        );
        assert!(sure_edits(&[two], text.len()).is_empty());
        let one = finding(
            text,
            Span::new(2, 3),
            safe(Fix::replace_each(&["c"], Span::new(2, 3))),
        );
        assert_eq!(
            sure_edits(&[one], text.len()),
            vec![(Span::new(2, 3), "c".into())]
        );
    }

    /// Overlapping fixes: the first wins the round.
    #[test]
    fn overlapping_edits_keep_the_first() {
        let text = "abcdef";
        let a = finding(
            text,
            Span::new(0, 3),
            safe(Fix::replace_each(&["X"], Span::new(0, 3))),
        );
        let b = finding(
            text,
            Span::new(2, 4),
            safe(Fix::replace_each(&["Y"], Span::new(2, 4))),
        );
        let e = sure_edits(&[b, a], text.len());
        assert_eq!(apply(text, &e), "Xdef");
    }

    /// A fix that would trade its finding for another is refused; a clean one goes in
    /// and a second run changes nothing.
    #[test]
    fn gaining_a_finding_refuses_and_fixing_is_idempotent() {
        let judge = |bad: &'static str| {
            move |t: &str| Verdict {
                findings: match t.find(bad) {
                    Some(i) => vec![finding(
                        t,
                        Span::new(i, i + bad.len()),
                        safe(Fix::replace_each(&["ok"], Span::new(i, i + bad.len()))),
                    )],
                    None if t.contains("okok") => {
                        vec![Finding::new(
                            "t.js",
                            t,
                            Span::new(0, 1),
                            Code::Member,
                            "new",
                        )]
                    }
                    None => Vec::new(),
                },
                parse_error: false,
            }
        };
        let out = fix_text("x bad y bad", None, judge("bad"));
        assert_eq!(
            out,
            Outcome::Fixed {
                text: "x ok y ok".into(),
                applied: 2
            }
        );
        let again = fix_text("x ok y ok", None, judge("bad"));
        assert_eq!(
            again,
            Outcome::Fixed {
                text: "x ok y ok".into(),
                applied: 0
            }
        );
        assert!(matches!(
            fix_text("okbad", None, judge("bad")),
            Outcome::Refused(_)
        ));
    }
}

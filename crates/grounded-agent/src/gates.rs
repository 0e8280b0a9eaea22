//! `gates`: the finish step. A draft answer passes every gate before it is sent; a gate
//! that returns `Some(text)` holds the draft back and `text` goes to the model.
//!
//! Why: told that its APIs did not exist, a model wrote the user an essay and finished
//! with the invented calls on disk; another reported "Updated template.js" when nothing
//! was written. Gates read the file system's account ([`TurnFacts`]), never the model's.
//!
//! Four gates — verify (2 pushes), bail (2), claim (1), checklist (1) — could bounce a
//! turn six times, so they share a budget of 3. Twice the whole budget went on
//! intermediate drafts and a false final claim shipped: hence `reserve_final`, extra
//! pushes only for a draft that materially changed or came with new deeds, and only once
//! the shared budget is spent (a gate past its own limit draws on the shared budget
//! first: spending the reserve there left nothing for the last draft).
//!
//! A verbatim repeat of a pushed draft gets one firmer push, when its gate has an
//! escalated wording it has not used yet and the shared budget has room: a model that
//! repeated its false "Updated template.js" word for word after the first claim push
//! used to end the turn at once with the claim shipped, though the escalated wording
//! (no writes this turn, make the change or say so) was never tried. A second verbatim
//! repeat ends the turn, and the answer carries the gate's finding in the user's words
//! ([`Gate::unresolved`]), so the user is not told what the file system contradicts.
//!
//! May import `config`, `wording` and the ledger in `edits` (`WriteCounts`, `PlanItem`).

use std::collections::HashMap;
use std::sync::OnceLock;

use regex::Regex;

use super::config::AgentConfig;
pub use super::edits::PlanItem;
use super::edits::WriteCounts;
use super::wording::{self, fill};

/// What the file system shows when the model offers a final answer: the facts a
/// finish gate judges the answer against (computed by the turn, never from the model's
/// account).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TurnFacts {
    /// The user's request.
    pub request: String,
    /// Whether the request asks for a change (or the turn attempted writes).
    pub asks_change: bool,
    /// Files whose bytes differ from before the turn (relative paths).
    pub changed: Vec<String>,
    /// Write counts.
    pub writes: WriteCounts,
    /// Checker findings (errors) outstanding on the files the turn wrote,
    /// `path:line:col code: message`.
    pub outstanding: Vec<String>,
    /// The plan's items, if the turn made one.
    pub plan: Vec<PlanItem>,
    /// The model steps so far.
    pub steps: usize,
    /// What names a file in this project, for the claim audit.
    pub names: FileNames,
}

/// What the claim audit takes for a file: a path the project has or had this turn, or
/// a name with one of the project's script or data extensions, unless it is code (a
/// dotted name whose head is a documented global, an interface or a declared variable).
///
/// Why: "Added a second `layout.text` call to main.js" was read as a claim to have
/// changed a file `layout.text`, pushed twice ("make that change now with edit_file")
/// and answered "Not so" under a true answer: the gate inventing work.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FileNames {
    /// Relative paths the project has, and those the turn wrote or removed.
    pub paths: Vec<String>,
    /// Extensions (lowercase, no dot): the engine's script extensions and those of the
    /// project's files.
    pub extensions: Vec<String>,
    /// Documented globals and interfaces, and variables the project declares.
    pub code: Vec<String>,
}

impl FileNames {
    /// Whether `name` names a file. With nothing known (no project read), the shape
    /// alone decides, as before.
    pub fn is_file(&self, name: &str) -> bool {
        let n = name.trim_start_matches("./");
        if self
            .paths
            .iter()
            .any(|p| p == n || p.ends_with(&format!("/{n}")))
        {
            return true;
        }
        let head = n.split('.').next().unwrap_or(n);
        if !n.contains('/') && self.code.iter().any(|c| c == head) {
            return false;
        }
        if self.extensions.is_empty() {
            return true;
        }
        let ext = n.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
        self.extensions.contains(&ext)
    }
}

impl TurnFacts {
    /// Open work: outstanding findings, open plan items, or a change asked and none made.
    pub fn remains(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.outstanding.is_empty() {
            out.push(format!(
                "{} checker finding(s) on files written",
                self.outstanding.len()
            ));
        }
        let open: Vec<&str> = self.open_items();
        if !open.is_empty() {
            out.push(format!("plan items not done: {}", open.join("; ")));
        }
        if self.asks_change && self.changed.is_empty() {
            out.push("the requested change (no file changed this turn)".to_string());
        }
        out
    }

    /// Plan items with nothing landed and no answer.
    pub fn open_items(&self) -> Vec<&str> {
        self.plan
            .iter()
            .filter(|i| i.landed.is_empty() && !i.answered)
            .map(|i| i.title.as_str())
            .collect()
    }
}

/// A finish gate. `Some(text)` holds the draft back; `text` is the body of the
/// correction (the runner wraps it in the envelope and the trailer).
pub trait Gate: Send {
    /// `verify`, `bail`, `claim` or `checklist`: the transcript's `push.gate`.
    fn name(&self) -> &'static str;
    /// The gate's own push limit per turn.
    fn limit(&self, cfg: &AgentConfig) -> usize;
    /// Judges a draft.
    fn gate(&mut self, answer: &str, turn: &TurnFacts) -> Option<String>;
    /// Judges a draft when this gate has pushed before; by default the same text.
    fn escalated(&mut self, answer: &str, turn: &TurnFacts) -> Option<String> {
        self.gate(answer, turn)
    }
    /// Whether [`Gate::escalated`] words differ from the first push: only then can a
    /// verbatim repeat of the draft be worth one more push.
    fn escalates(&self) -> bool {
        false
    }
    /// What still holds against a draft the turn ends with (a verbatim repeat after the
    /// pushes), in one line for the user; `None` when the gate no longer objects.
    fn unresolved(&mut self, answer: &str, turn: &TurnFacts) -> Option<String>;
}

/// Findings outstanding on files written this turn.
#[derive(Debug, Default)]
pub struct Verify;

impl Gate for Verify {
    fn name(&self) -> &'static str {
        "verify"
    }
    fn limit(&self, cfg: &AgentConfig) -> usize {
        cfg.verify_pushes
    }
    fn gate(&mut self, _answer: &str, turn: &TurnFacts) -> Option<String> {
        if turn.outstanding.is_empty() {
            return None;
        }
        let list: Vec<String> = turn.outstanding.iter().map(|o| format!("- {o}")).collect();
        Some(fill(
            wording::VERIFY_FINDINGS,
            &[("findings", &list.join("\n"))],
        ))
    }
    fn unresolved(&mut self, _answer: &str, turn: &TurnFacts) -> Option<String> {
        (!turn.outstanding.is_empty()).then(|| {
            fill(
                wording::UNRESOLVED_VERIFY,
                &[("count", &turn.outstanding.len().to_string())],
            )
        })
    }
}

fn bail_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(
            r"(?i)\b(you (may|might|will|would|'ll) (also )?need to|you (can|could|should) (manually|add|replace|update|change|implement|write|fix|remove)|(do|make) (this|that|it) manually|i (was|am) (unable|not able) to|i (could not|couldn't|cannot|can't|can not)|you('ll| will) have to|left as an exercise|beyond (the )?scope)\b",
        )
        .unwrap()
    })
}

/// The draft gives up ("you may need to...") while work remains.
#[derive(Debug, Default)]
pub struct Bail;

impl Gate for Bail {
    fn name(&self) -> &'static str {
        "bail"
    }
    fn limit(&self, cfg: &AgentConfig) -> usize {
        cfg.bail_pushes
    }
    fn gate(&mut self, answer: &str, turn: &TurnFacts) -> Option<String> {
        if !bail_re().is_match(answer) {
            return None;
        }
        let remains = turn.remains();
        if remains.is_empty() {
            return None;
        }
        Some(fill(
            wording::BAIL_REMAINS,
            &[("remains", &remains.join("; "))],
        ))
    }
    fn unresolved(&mut self, answer: &str, turn: &TurnFacts) -> Option<String> {
        self.gate(answer, turn)?;
        Some(fill(
            wording::UNRESOLVED_BAIL,
            &[("remains", &turn.remains().join("; "))],
        ))
    }
}

fn claim_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    // Past tense only, at the head of a line (after a bullet, "I", "I've", "I have"), or
    // passive ("x.js was updated"). "I will update", "I'll create" are plans; "x.js
    // already imports" is a statement about code: neither matches.
    R.get_or_init(|| {
        Regex::new(
            r"(?ix)^\s*(?:[-*+]|\d+[.)])?\s*(?:\*\*)?\s*(?:i\s+(?:have\s+|'ve\s+|also\s+)?|i've\s+|have\s+|also\s+)?
            (created|updated|modified|changed|edited|removed|deleted|added|wrote|rewrote|renamed|moved|fixed|replaced|inserted|refactored|split|extracted|appended)\b",
        )
        .unwrap()
    })
}

fn passive_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| {
        Regex::new(r"(?i)\b(was|were|has been|have been|is now)\s+(created|updated|modified|changed|edited|removed|deleted|added|written|rewritten|renamed|moved|fixed|replaced|refactored|split)\b").unwrap()
    })
}

fn negation_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"(?i)\b(no|not|nothing|never|none|neither|nor)\b").unwrap())
}

fn file_re() -> &'static Regex {
    static R: OnceLock<Regex> = OnceLock::new();
    R.get_or_init(|| Regex::new(r"[A-Za-z0-9_$][\w$./-]*\.[A-Za-z][A-Za-z0-9]{0,5}\b").unwrap())
}

/// Whether `claimed` names one of `changed` (a path, or a file name that one of the
/// changed paths ends with).
fn names_changed(claimed: &str, changed: &[String]) -> bool {
    let c = claimed.trim_start_matches("./");
    changed.iter().any(|p| {
        let p = p.trim_start_matches("./");
        p == c || p.ends_with(&format!("/{c}")) || c.ends_with(&format!("/{p}"))
    })
}

/// The past-tense claims of a draft, per line: `(line, files it names)`. A "Created" three
/// bullets up never captures file names of later lines.
pub fn claims(answer: &str, names: &FileNames) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for line in answer.lines() {
        let plain = line.replace(['`', '*'], "");
        // "No file was written" denies a change: a passive after a negation claims none.
        let passive = passive_re()
            .find(&plain)
            .is_some_and(|m| !negation_re().is_match(plain.get(..m.start()).unwrap_or_default()));
        if !(claim_re().is_match(&plain) || passive) {
            continue;
        }
        let files: Vec<String> = file_re()
            .find_iter(&plain)
            .map(|m| m.as_str().trim_end_matches('.').to_string())
            // `layout.tableStart` is a member, not a file: files have a short extension
            // and no uppercase in it.
            .filter(|f| {
                f.rsplit('.').next().is_some_and(|e| {
                    e.len() <= 5
                        && e.chars()
                            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
                })
            })
            .filter(|f| names.is_file(f))
            .collect();
        out.push((line.trim().to_string(), files));
    }
    out
}

/// False past-tense claims of file changes, matched against the files the turn changed.
#[derive(Debug, Default)]
pub struct Claim;

impl Claim {
    fn false_files(answer: &str, turn: &TurnFacts) -> Vec<String> {
        let mut out = Vec::new();
        for (_, files) in claims(answer, &turn.names) {
            if files.is_empty() {
                // "Updated the footer." with no file named: false only when nothing
                // changed at all.
                if turn.changed.is_empty() && !out.contains(&"(any file)".to_string()) {
                    out.push("(any file)".to_string());
                }
                continue;
            }
            for f in files {
                if !names_changed(&f, &turn.changed) && !out.contains(&f) {
                    out.push(f);
                }
            }
        }
        out
    }
}

fn quoted(files: &[String]) -> String {
    files
        .iter()
        .map(|f| {
            if f.starts_with('(') {
                f.clone()
            } else {
                format!("`{f}`")
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

impl Gate for Claim {
    fn name(&self) -> &'static str {
        "claim"
    }
    fn limit(&self, cfg: &AgentConfig) -> usize {
        cfg.claim_pushes
    }
    fn gate(&mut self, answer: &str, turn: &TurnFacts) -> Option<String> {
        let bad = Claim::false_files(answer, turn);
        if bad.is_empty() {
            return None;
        }
        // A question may not make the change: the push asks for the truth only.
        if !turn.asks_change {
            return Some(fill(
                wording::CLAIM_FALSE_QUESTION,
                &[("files", &quoted(&bad))],
            ));
        }
        let changed = if turn.changed.is_empty() {
            "none".to_string()
        } else {
            quoted(&turn.changed)
        };
        Some(fill(
            wording::CLAIM_FALSE,
            &[("files", &quoted(&bad)), ("changed", &changed)],
        ))
    }
    fn escalated(&mut self, answer: &str, turn: &TurnFacts) -> Option<String> {
        let bad = Claim::false_files(answer, turn);
        if bad.is_empty() {
            return None;
        }
        if !turn.asks_change {
            let body = fill(wording::CLAIM_FALSE_QUESTION, &[("files", &quoted(&bad))]);
            return Some(format!("Second correction. {body}"));
        }
        let landed = if turn.writes.landed == 0 {
            "zero".to_string()
        } else {
            format!("{} (to {})", turn.writes.landed, quoted(&turn.changed))
        };
        Some(fill(
            wording::CLAIM_ESCALATED,
            &[("files", &quoted(&bad)), ("landed", &landed)],
        ))
    }
    fn escalates(&self) -> bool {
        true
    }
    fn unresolved(&mut self, answer: &str, turn: &TurnFacts) -> Option<String> {
        let bad = Claim::false_files(answer, turn);
        (!bad.is_empty()).then(|| fill(wording::UNRESOLVED_CLAIM, &[("files", &quoted(&bad))]))
    }
}

/// Items of the plan not addressed.
#[derive(Debug, Default)]
pub struct Checklist;

impl Gate for Checklist {
    fn name(&self) -> &'static str {
        "checklist"
    }
    fn limit(&self, cfg: &AgentConfig) -> usize {
        cfg.checklist_pushes
    }
    fn gate(&mut self, answer: &str, turn: &TurnFacts) -> Option<String> {
        // An item the draft explains ("X was not done because ...") is addressed.
        let lower = answer.to_lowercase();
        let open: Vec<&str> = turn
            .open_items()
            .into_iter()
            .filter(|t| !(lower.contains(&t.to_lowercase()) && lower.contains("not")))
            .collect();
        if open.is_empty() {
            return None;
        }
        let items = open
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect::<Vec<_>>()
            .join(", ");
        Some(fill(wording::CHECKLIST_OPEN, &[("items", &items)]))
    }
    fn unresolved(&mut self, answer: &str, turn: &TurnFacts) -> Option<String> {
        self.gate(answer, turn)?;
        let items: Vec<String> = turn
            .open_items()
            .iter()
            .map(|t| format!("\"{t}\""))
            .collect();
        Some(fill(
            wording::UNRESOLVED_CHECKLIST,
            &[("items", &items.join(", "))],
        ))
    }
}

/// The four gates in their order.
pub fn standard() -> Vec<Box<dyn Gate>> {
    vec![
        Box::new(Verify),
        Box::new(Bail),
        Box::new(Claim),
        Box::new(Checklist),
    ]
}

/// What the runner decided about a draft.
#[derive(Debug, Clone, PartialEq)]
pub enum Decision {
    /// Send the draft to the user.
    Send,
    /// Hold it back: push `text` (already wrapped) to the model as a user-role message.
    Push {
        /// The gate (`push.gate` of the transcript).
        gate: &'static str,
        /// The correction as the model receives it.
        text: String,
    },
    /// A verbatim repeat of a pushed draft after its firmer push (or with no budget
    /// left for one): the turn ends with it, and with `unresolved`, what the gates still
    /// hold against it in the user's words (empty when nothing does).
    EndRepeat {
        /// One line per gate that still objects.
        unresolved: Vec<String>,
    },
}

/// A draft as far as its material goes: whitespace collapsed, case and Markdown
/// emphasis dropped, a closing full stop ignored. Re-wrapping a paragraph or bolding a
/// file name is not a material change; it cannot buy a push from the reserve.
fn squash(s: &str) -> String {
    let plain: String = s
        .chars()
        .filter(|c| !matches!(c, '*' | '`' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    let out = plain.split_whitespace().collect::<Vec<_>>().join(" ");
    out.trim_end_matches(['.', '!']).to_string()
}

/// Runs the gates under the shared budget.
pub struct GateRunner {
    cfg: AgentConfig,
    gates: Vec<Box<dyn Gate>>,
    pushed: HashMap<&'static str, usize>,
    used: usize,
    reserve_used: usize,
    /// The last pushed draft, the deeds it came with, the gate that pushed it and
    /// whether that push was escalated.
    last: Option<Pushed>,
}

/// The last draft a gate held back.
#[derive(Debug, Clone)]
struct Pushed {
    answer: String,
    deeds: usize,
    gate: &'static str,
    escalated: bool,
}

impl std::fmt::Debug for GateRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GateRunner")
            .field("pushed", &self.pushed)
            .field("used", &self.used)
            .field("reserve_used", &self.reserve_used)
            .finish()
    }
}

impl GateRunner {
    /// The runner over `gates` (usually [`standard`]).
    pub fn new(cfg: AgentConfig, gates: Vec<Box<dyn Gate>>) -> GateRunner {
        GateRunner {
            cfg,
            gates,
            pushed: HashMap::new(),
            used: 0,
            reserve_used: 0,
            last: None,
        }
    }

    /// Whether there are no gates (the turn then skips computing the facts).
    pub fn is_empty(&self) -> bool {
        self.gates.is_empty()
    }

    /// Pushes made so far (shared and reserve).
    pub fn pushes(&self) -> usize {
        self.used + self.reserve_used
    }

    /// Judges a draft. Deeds are counted by `turn.writes.attempted`: a draft that comes
    /// after new writes is new even if its words are not.
    pub fn judge(&mut self, answer: &str, turn: &TurnFacts) -> Decision {
        let deeds = turn.writes.attempted;
        let (changed, repeat) = match &self.last {
            None => (true, false),
            Some(p) => {
                let same = squash(&p.answer) == squash(answer);
                (!same || deeds > p.deeds, same && deeds == p.deeds)
            }
        };
        if repeat {
            return self.repeated(answer, turn);
        }
        // First each gate within its own limit, from the shared budget.
        if self.used < self.cfg.gate_budget {
            for i in 0..self.gates.len() {
                let g = &self.gates[i];
                let mine = self.pushed.get(g.name()).copied().unwrap_or(0);
                if mine >= g.limit(&self.cfg) {
                    continue;
                }
                if let Some(d) = self.push(i, answer, turn, deeds, false) {
                    return d;
                }
            }
        }
        // Then a draft that changed or follows new deeds, though its gate has spent
        // its own limit: from what is left of the shared budget, and only after it from
        // the reserve. The reserve is for the last draft: spending it on intermediate
        // drafts while the shared budget had room once shipped a false final claim
        // (a file named for the first time) with no push at all.
        let reserve = self.used >= self.cfg.gate_budget;
        if !changed || (reserve && self.reserve_used >= self.cfg.reserve_final) {
            return Decision::Send;
        }
        for i in 0..self.gates.len() {
            if let Some(d) = self.push(i, answer, turn, deeds, reserve) {
                return d;
            }
        }
        Decision::Send
    }

    /// Asks gate `i` of the draft and, when it objects, records the push (on the
    /// reserve when `reserve`, else on the shared budget).
    fn push(
        &mut self,
        i: usize,
        answer: &str,
        turn: &TurnFacts,
        deeds: usize,
        reserve: bool,
    ) -> Option<Decision> {
        let g = &mut self.gates[i];
        let name = g.name();
        let mine = self.pushed.get(name).copied().unwrap_or(0);
        let body = if mine > 0 {
            g.escalated(answer, turn)
        } else {
            g.gate(answer, turn)
        }?;
        let escalated = mine > 0 && g.escalates();
        if reserve {
            self.reserve_used += 1;
        } else {
            self.used += 1;
        }
        *self.pushed.entry(name).or_insert(0) += 1;
        self.last = Some(Pushed {
            answer: answer.to_string(),
            deeds,
            gate: name,
            escalated,
        });
        Some(Decision::Push {
            gate: name,
            text: wording::correction(&body),
        })
    }

    /// A verbatim repeat of the pushed draft: the firmer push once, from the shared
    /// budget, if the gate that pushed has one it has not used; otherwise the end, with
    /// what the gates still hold against the draft.
    fn repeated(&mut self, answer: &str, turn: &TurnFacts) -> Decision {
        let Some(last) = self.last.clone() else {
            return Decision::Send;
        };
        if !last.escalated && self.used < self.cfg.gate_budget {
            if let Some(g) = self
                .gates
                .iter_mut()
                .find(|g| g.name() == last.gate && g.escalates())
            {
                if let Some(body) = g.escalated(answer, turn) {
                    self.used += 1;
                    *self.pushed.entry(last.gate).or_insert(0) += 1;
                    self.last = Some(Pushed {
                        escalated: true,
                        ..last
                    });
                    return Decision::Push {
                        gate: g.name(),
                        text: wording::correction(&body),
                    };
                }
            }
        }
        let unresolved = self
            .gates
            .iter_mut()
            .filter_map(|g| g.unresolved(answer, turn))
            .collect();
        Decision::EndRepeat { unresolved }
    }
}

#[cfg(test)]
mod tests;

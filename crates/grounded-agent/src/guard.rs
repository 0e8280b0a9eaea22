//! `guard`: the dispatcher's policy — five layers against fixation, plus the stuck
//! detector. The dispatcher asks it about a batch before running anything
//! ([`Guard::plan_batch`]) and shows it every result afterwards ([`Guard::after`]).
//!
//! Each layer catches what the one before cannot see:
//! 1. *identical-call breaker*: one turn ran the same lookup twelve times with identical
//!    arguments. The call after [`AgentConfig::breaker_limit`] identical ones is answered
//!    with a stub (every call must be answered) and the turn heads for its answer.
//! 2. *budgets per tool*: rewordings differ as strings, so a counter never fires; a
//!    budget of live runs of the charged tools does. Cheap fact checks are free: a budget
//!    once cut the model off while it was correctly verifying eleven symbols.
//! 3. *fuzzy cache*: a reworded question is served from the turn's answers.
//! 4. *in-flight collapse*: parallel calls are in flight together, so a dedupe on
//!    completion never sees them; the first of a normalised query runs, the rest wait.
//! 5. *provided symbols*: domain writes wait for a knowledge lookup, unless every engine
//!    symbol they use was handed to the model by its prompt.
//!
//! And two loops identical counters cannot see (OpenHands' stuck detector): an A/B
//! alternation, and the same call failing the same way. Recovery is a steer to the final
//! answer, never a fatal stop.

use std::collections::{BTreeSet, HashMap};

use serde_json::Value;

use grounded_docs::Corpus;

use super::audit;
use super::cache::{normalize, TurnCache};
use super::config::AgentConfig;
pub use super::dispatch::Served;
use super::wording::{self, fill};

/// The guard's decision on one call of a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run it.
    Run,
    /// Do not run it; this is its result.
    Answer {
        /// How it was served.
        served: Served,
        /// The result the model receives.
        content: String,
    },
    /// Do not run it; give it the result of the call at this index of the batch
    /// (`served: collapsed`).
    Collapse {
        /// Index in the batch of the call that runs.
        onto: usize,
    },
}

/// The corpus facts the write rule needs.
#[derive(Debug, Clone, Default)]
pub struct Domain {
    /// What the prompt's fragments provide ([`audit::provided`]).
    pub provided: BTreeSet<String>,
    /// The engine's script extensions (`.js`).
    pub script_extensions: Vec<String>,
    /// The corpus's documented constructors.
    pub constructors: BTreeSet<String>,
    /// The API names the de-nouning rewriter never touches ([`audit::api_names`]).
    pub api: BTreeSet<String>,
}

impl Domain {
    /// From the corpus: every fragment's symbols, the script extensions.
    pub fn of(corpus: &Corpus) -> Domain {
        Domain {
            provided: audit::provided(&audit::fragments(corpus)),
            script_extensions: corpus.engine.script_extensions.clone(),
            constructors: corpus.constructors.keys().cloned().collect(),
            api: audit::api_names(corpus),
        }
    }
}

/// A call's identity: its tool and its arguments with keys sorted (two JSON objects
/// with the same members in another order are the same call).
pub fn signature(name: &str, args: &Value) -> String {
    fn canon(v: &Value) -> String {
        match v {
            Value::Object(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort();
                let parts: Vec<String> = keys
                    .iter()
                    .map(|k| format!("{}:{}", Value::String(k.to_string()), canon(&m[*k])))
                    .collect();
                format!("{{{}}}", parts.join(","))
            }
            Value::Array(a) => format!("[{}]", a.iter().map(canon).collect::<Vec<_>>().join(",")),
            other => other.to_string(),
        }
    }
    format!("{name}{}", canon(args))
}

/// The question a lookup asks, whatever its schema calls it.
pub fn query_of(args: &Value) -> Option<&str> {
    ["query", "question", "term", "goal", "q"]
        .iter()
        .find_map(|k| args.get(*k).and_then(Value::as_str))
}

/// The text a write would put in a file: `content`, or the replacement sides of edits.
fn written_text(args: &Value) -> String {
    let mut out = String::new();
    for k in ["content", "replace", "new_text", "text"] {
        if let Some(s) = args.get(k).and_then(Value::as_str) {
            out.push_str(s);
            out.push('\n');
        }
    }
    if let Some(edits) = args.get("edits").and_then(Value::as_array) {
        for e in edits {
            for k in ["replace", "new_text", "text"] {
                if let Some(s) = e.get(k).and_then(Value::as_str) {
                    out.push_str(s);
                    out.push('\n');
                }
            }
        }
    }
    out
}

/// The dispatcher's policy for one turn.
#[derive(Debug)]
pub struct Guard {
    cfg: AgentConfig,
    domain: Domain,
    identical: HashMap<String, usize>,
    live_total: usize,
    live_per_query: HashMap<String, usize>,
    cache: TurnCache,
    history: Vec<String>,
    errors: HashMap<String, (String, usize)>,
    lookup_ran: bool,
    steer: Option<String>,
    steered: bool,
    in_flight: HashMap<String, usize>,
}

impl Guard {
    /// A fresh guard for one turn (a plan's worker gets its own).
    pub fn new(cfg: AgentConfig, domain: Domain) -> Guard {
        Guard {
            cfg,
            domain,
            identical: HashMap::new(),
            live_total: 0,
            live_per_query: HashMap::new(),
            cache: TurnCache::default(),
            history: Vec::new(),
            errors: HashMap::new(),
            lookup_ran: false,
            steer: None,
            steered: false,
            in_flight: HashMap::new(),
        }
    }

    /// The query a lookup's keys are made from: de-nouned first when the rewriter is
    /// on, as the lookup itself will run it. Keyed on the words as sent, "table
    /// creation" and "create table" ran live twice and spent two of the per-query and
    /// turn budgets on one question, while the tool ran the same rewritten query.
    fn lookup_query(&self, q: &str) -> String {
        if self.cfg.denoun {
            audit::denoun_except(q, |w| self.domain.api.contains(w))
        } else {
            q.to_string()
        }
    }

    /// The key on which two in-flight calls are the same: the tool and the normalised
    /// query for lookups, the tool and its arguments for the rest.
    fn collapse_key(&self, name: &str, args: &Value) -> String {
        match query_of(args) {
            Some(q) if self.cfg.knowledge(name) || self.cfg.charged(name) => {
                format!("{name}\u{0}{}", normalize(&self.lookup_query(q)))
            }
            _ => signature(name, args),
        }
    }

    /// Decides every call of one model response before any runs. `calls` are
    /// `(tool name, arguments)` in the order the model sent them; the answer has one
    /// verdict per call, in that order.
    pub fn plan_batch(&mut self, calls: &[(&str, &Value)]) -> Vec<Verdict> {
        self.begin_batch();
        calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| self.plan_call(i, name, args))
            .collect()
    }

    /// Starts a new batch: calls of earlier batches are no longer in flight.
    pub fn begin_batch(&mut self) {
        self.in_flight.clear();
    }

    /// Decides the call at index `i` of the current batch (calls are planned in order).
    pub fn plan_call(&mut self, i: usize, name: &str, args: &Value) -> Verdict {
        let sig = signature(name, args);
        let n = self.identical.entry(sig).or_insert(0);
        *n += 1;
        if *n > self.cfg.breaker_limit {
            let count = (*n - 1).to_string();
            self.steer_once(String::new());
            return Verdict::Answer {
                served: Served::Stub,
                content: fill(wording::BREAKER_STUB, &[("tool", name), ("count", &count)]),
            };
        }
        if !self.cfg.read_only(name) {
            // A read after a write must see the write: it shares nothing with a read
            // dispatched before it.
            self.in_flight.clear();
        }
        if self.cfg.read_only(name) {
            let key = self.collapse_key(name, args);
            if let Some(&onto) = self.in_flight.get(&key) {
                return Verdict::Collapse { onto };
            }
            self.in_flight.insert(key, i);
        }
        if self.cfg.charged(name) {
            let q = self.lookup_query(query_of(args).unwrap_or(""));
            let q = q.as_str();
            if let Some(hit) = self.cache.get(q, self.cfg.fuzzy_threshold) {
                return Verdict::Answer {
                    served: Served::Cache,
                    content: hit.to_string(),
                };
            }
            let key = normalize(q);
            let done = self.live_per_query.get(&key).copied().unwrap_or(0);
            if done >= self.cfg.per_query_live {
                return Verdict::Answer {
                    served: Served::Budget,
                    content: fill(wording::QUERY_EXHAUSTED, &[("count", &done.to_string())]),
                };
            }
            if self.live_total >= self.cfg.live_lookup_budget {
                return Verdict::Answer {
                    served: Served::Budget,
                    content: fill(
                        wording::BUDGET_SPENT,
                        &[("used", &self.live_total.to_string())],
                    ),
                };
            }
            // Charged when planned, not when done: the calls of one batch run together.
            self.live_total += 1;
            *self.live_per_query.entry(key).or_insert(0) += 1;
        }
        if self.cfg.domain_write(name) && !self.lookup_ran {
            if let Some(refusal) = self.write_refusal(args) {
                return Verdict::Answer {
                    served: Served::Refused,
                    content: refusal,
                };
            }
        }
        Verdict::Run
    }

    /// Why a domain write must wait for a lookup, if it must: a script file whose text
    /// constructs (`new X()`) something documented that the prompt's fragments did not
    /// provide. The rule reads constructors only: a write whose `new X()` are all
    /// provided is exempt, so a model handed the names is not sent to re-confirm them.
    fn write_refusal(&self, args: &Value) -> Option<String> {
        let path = args.get("path").and_then(Value::as_str).unwrap_or("");
        let script = self
            .domain
            .script_extensions
            .iter()
            .any(|e| path.ends_with(e.as_str()));
        if !script {
            return None;
        }
        let text = written_text(args);
        let symbols = unprovided(&text, &self.domain);
        if symbols.is_empty() {
            return None;
        }
        let list = symbols
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let first = symbols[0]
            .rsplit('.')
            .next()
            .unwrap_or(&symbols[0])
            .to_string();
        Some(fill(
            wording::WRITE_NEEDS_LOOKUP,
            &[("symbols", &list), ("first", &format!("`{first}`"))],
        ))
    }

    /// Shows the guard a result as the model will receive it. `ok` is false for a tool
    /// error (the text is then the error); `flagged` is true for a lookup answer whose
    /// self-audit found invented names (never cached).
    pub fn after(
        &mut self,
        name: &str,
        args: &Value,
        served: Served,
        content: &str,
        ok: bool,
        flagged: bool,
    ) {
        let ran = matches!(served, Served::Live | Served::Disk);
        if ran && ok && self.cfg.knowledge(name) {
            self.lookup_ran = true;
        }
        if ran && ok && !flagged && self.cfg.charged(name) {
            if let Some(q) = query_of(args) {
                let q = self.lookup_query(q);
                self.cache.insert(&q, content);
            }
        }
        if served == Served::Collapsed {
            return;
        }
        let sig = signature(name, args);
        if ok {
            self.errors.remove(&sig);
        } else {
            let e = self.errors.entry(sig.clone()).or_insert((String::new(), 0));
            if e.0 == content {
                e.1 += 1;
            } else {
                *e = (content.to_string(), 1);
            }
            if e.1 >= self.cfg.stuck_error_repeats {
                let (count, error) = (e.1.to_string(), first_line(content));
                self.steer_once(fill(
                    wording::STUCK_REPEATED_ERROR,
                    &[("tool", name), ("count", &count), ("error", &error)],
                ));
            }
        }
        self.history.push(sig);
        self.check_alternation();
    }

    fn check_alternation(&mut self) {
        let n = self.cfg.stuck_alternation_steps;
        if n < 4 || self.history.len() < n {
            return;
        }
        let tail = &self.history[self.history.len() - n..];
        let (a, b) = (&tail[0], &tail[1]);
        if a != b
            && tail
                .iter()
                .enumerate()
                .all(|(i, s)| s == if i % 2 == 0 { a } else { b })
        {
            let name = |s: &str| s.split('{').next().unwrap_or(s).to_string();
            let msg = fill(
                wording::STUCK_ALTERNATION,
                &[("steps", &n.to_string()), ("a", &name(a)), ("b", &name(b))],
            );
            self.steer_once(msg);
        }
    }

    /// Records a steer; the first one wins (an empty one means the breaker's stub already
    /// told the model, and only the heading for the final answer remains).
    fn steer_once(&mut self, msg: String) {
        if !self.steered {
            self.steered = true;
            self.steer = Some(msg);
        }
    }

    /// Whether the turn should head for its final answer (tools withheld next step).
    pub fn heading_final(&self) -> bool {
        self.steered
    }

    /// The steering message to send once (as a user-role message, in the envelope), if a
    /// loop was detected and not yet told.
    pub fn take_steer(&mut self) -> Option<String> {
        self.steer
            .take()
            .map(|s| {
                if s.is_empty() {
                    wording::BREAKER_FINAL.to_string()
                } else {
                    s
                }
            })
            .map(|s| format!("{}\n{s}", wording::ENVELOPE))
    }

    /// Live runs of charged tools so far.
    pub fn live_lookups(&self) -> usize {
        self.live_total
    }

    /// Whether a knowledge lookup has run this turn.
    pub fn lookup_ran(&self) -> bool {
        self.lookup_ran
    }
}

fn first_line(s: &str) -> String {
    let l = s.lines().next().unwrap_or("").trim();
    if l.chars().count() > 160 {
        format!("{}...", l.chars().take(160).collect::<String>())
    } else {
        l.to_string()
    }
}

/// The constructors of `text` (`new X`) that the corpus documents and the prompt's
/// fragments did not provide. An undocumented one is left to the write path's pre-write
/// check, which refuses it with the real candidates: a better answer than "look it up".
fn unprovided(text: &str, domain: &Domain) -> Vec<String> {
    let news = regex::Regex::new(r"\bnew\s+([A-Za-z_$][\w$]*)").expect("static regex");
    let mut out: Vec<String> = Vec::new();
    for c in news.captures_iter(text) {
        let n = c[1].to_string();
        if domain.constructors.contains(&n) && !domain.provided.contains(&n) && !out.contains(&n) {
            out.push(n);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn guard() -> Guard {
        let mut provided = BTreeSet::new();
        for s in [
            "Table",
            "layout.tableStart",
            "layout.tableEnd",
            "layout.tableCell",
            "Table.columns",
        ] {
            provided.insert(s.to_string());
        }
        Guard::new(
            AgentConfig::default(),
            Domain {
                provided,
                script_extensions: vec![".js".into()],
                constructors: ["Table", "Block", "TableStyle"]
                    .iter()
                    .map(|s| s.to_string())
                    .collect(),
                api: BTreeSet::new(),
            },
        )
    }

    #[test]
    fn the_denouning_rewriter_runs_before_the_cache_key_is_made() {
        // "removal" and "remove" are too far apart for the fuzzy match (0.71 < 0.8):
        // only the rewriter makes them one question.
        let ask = |g: &mut Guard| {
            assert_eq!(
                run(g, "rag_lookup", &json!({"query": "removal"})),
                Verdict::Run
            );
            run(g, "rag_lookup", &json!({"query": "remove"}))
        };
        let mut on = guard();
        on.cfg.denoun = true;
        assert!(matches!(
            ask(&mut on),
            Verdict::Answer {
                served: Served::Cache,
                ..
            }
        ));
        assert_eq!(on.live_lookups(), 1);
        // Off (as it ships): two questions, both live.
        let mut off = guard();
        assert_eq!(ask(&mut off), Verdict::Run);
        assert_eq!(off.live_lookups(), 2);
        // In one batch the rewritten queries collapse onto one live call.
        let mut batch = guard();
        batch.cfg.denoun = true;
        let a = json!({"query": "table creation"});
        let b = json!({"query": "table create"});
        assert_eq!(
            batch.plan_batch(&[("rag_lookup", &a), ("rag_lookup", &b)]),
            vec![Verdict::Run, Verdict::Collapse { onto: 0 }]
        );
        // API names are never rewritten.
        let mut api = guard();
        api.cfg.denoun = true;
        api.domain.api.insert("removal".into());
        assert_eq!(ask(&mut api), Verdict::Run);
    }

    fn run(g: &mut Guard, name: &str, args: &Value) -> Verdict {
        let v = g.plan_batch(&[(name, args)]).remove(0);
        let served = match &v {
            Verdict::Run => Served::Live,
            Verdict::Answer { served, .. } => *served,
            Verdict::Collapse { .. } => Served::Collapsed,
        };
        g.after(
            name,
            args,
            served,
            &format!("result of {name}"),
            true,
            false,
        );
        v
    }

    #[test]
    fn fifth_identical_call_is_a_stub_and_heads_for_final() {
        let mut g = guard();
        let a = json!({"path": "main.js"});
        for _ in 0..4 {
            assert_eq!(run(&mut g, "read_file", &a), Verdict::Run);
        }
        assert!(!g.heading_final());
        match run(&mut g, "read_file", &a) {
            Verdict::Answer {
                served: Served::Stub,
                content,
            } => assert!(content.contains("4 times")),
            v => panic!("{v:?}"),
        }
        assert!(g.heading_final());
        // Same members in another order are the same call.
        assert_eq!(
            signature("t", &json!({"a":1,"b":2})),
            signature("t", &json!({"b":2,"a":1}))
        );
    }

    #[test]
    fn identical_calls_in_one_batch_collapse_and_the_fifth_is_stubbed() {
        let mut g = guard();
        let a = json!({"query": "create table"});
        let calls: Vec<(&str, &Value)> = (0..5).map(|_| ("rag_lookup", &a)).collect();
        let v = g.plan_batch(&calls);
        assert_eq!(v[0], Verdict::Run);
        for x in &v[1..4] {
            assert_eq!(*x, Verdict::Collapse { onto: 0 });
        }
        assert!(matches!(
            v[4],
            Verdict::Answer {
                served: Served::Stub,
                ..
            }
        ));
        assert_eq!(g.live_lookups(), 1);
    }

    #[test]
    fn rewordings_in_one_batch_collapse_on_the_normalised_query() {
        let mut g = guard();
        let a = json!({"query": "how do I create a table"});
        let b = json!({"query": "create tables how"});
        let c = json!({"query": "create box"});
        let v = g.plan_batch(&[("rag_lookup", &a), ("rag_lookup", &b), ("rag_lookup", &c)]);
        assert_eq!(
            v,
            vec![Verdict::Run, Verdict::Collapse { onto: 0 }, Verdict::Run]
        );
    }

    #[test]
    fn rewordings_are_served_from_the_cache() {
        let mut g = guard();
        assert_eq!(
            run(&mut g, "rag_lookup", &json!({"query": "create table"})),
            Verdict::Run
        );
        match run(
            &mut g,
            "rag_lookup",
            &json!({"query": "How do I create a table?"}),
        ) {
            Verdict::Answer {
                served: Served::Cache,
                content,
            } => assert_eq!(content, "result of rag_lookup"),
            v => panic!("{v:?}"),
        }
        assert_eq!(
            run(&mut g, "rag_lookup", &json!({"query": "create box"})),
            Verdict::Run
        );
        assert_eq!(g.live_lookups(), 2);
    }

    #[test]
    fn flagged_answers_are_not_cached_and_a_query_runs_live_twice_at_most() {
        let mut g = guard();
        let a = json!({"query": "table cell end"});
        for _ in 0..2 {
            let v = g.plan_batch(&[("rag_lookup", &a)]).remove(0);
            assert_eq!(v, Verdict::Run);
            g.after("rag_lookup", &a, Served::Live, "POISON", true, true);
        }
        match g.plan_batch(&[("rag_lookup", &a)]).remove(0) {
            Verdict::Answer {
                served: Served::Budget,
                content,
            } => {
                assert!(content.contains("2 times"));
                assert!(!content.contains("POISON"));
            }
            v => panic!("{v:?}"),
        }
    }

    #[test]
    fn thirteenth_live_lookup_gets_the_budget_message_and_lookup_docs_stays_free() {
        let mut g = guard();
        let topics = [
            "tables", "images", "fonts", "colours", "margins", "footers", "headers", "lists",
            "blocks", "styles", "pages", "xml",
        ];
        for (i, t) in topics.iter().enumerate() {
            let a = json!({"query": format!("how to use {t}")});
            assert_eq!(run(&mut g, "rag_lookup", &a), Verdict::Run, "{i}");
        }
        match run(
            &mut g,
            "rag_lookup",
            &json!({"query": "something else entirely"}),
        ) {
            Verdict::Answer {
                served: Served::Budget,
                content,
            } => {
                assert!(content.contains("No further lookup will run"));
                assert!(content.contains("search budget ran out"));
            }
            v => panic!("{v:?}"),
        }
        for i in 0..20 {
            assert_eq!(
                run(&mut g, "lookup_docs", &json!({"term": format!("sym{i}")})),
                Verdict::Run
            );
        }
    }

    #[test]
    fn charged_tools_are_configuration() {
        let cfg = AgentConfig {
            charged_tools: vec!["lookup_docs".into()],
            live_lookup_budget: 1,
            ..AgentConfig::default()
        };
        let mut g = Guard::new(cfg, Domain::default());
        assert_eq!(
            run(&mut g, "lookup_docs", &json!({"term": "a"})),
            Verdict::Run
        );
        assert!(matches!(
            run(&mut g, "lookup_docs", &json!({"term": "b"})),
            Verdict::Answer {
                served: Served::Budget,
                ..
            }
        ));
        assert_eq!(
            run(&mut g, "rag_lookup", &json!({"query": "c"})),
            Verdict::Run
        );
    }

    #[test]
    fn domain_write_waits_for_a_lookup_unless_everything_was_provided() {
        let mut g = guard();
        let provided = json!({"path": "main.js", "content": "var t = new Table();\nt.columns = 2;\nlayout.tableStart(t);\nlayout.tableEnd();\n"});
        assert_eq!(run(&mut g, "write_file", &provided), Verdict::Run);
        let not = json!({"path": "main.js", "edits": [{"find": "x", "replace": "var b = new Block();\nvar s = new TableStyle();\nlayout.blockStart(b);"}]});
        match run(&mut g, "edit_file", &not) {
            Verdict::Answer {
                served: Served::Refused,
                content,
            } => {
                assert!(content.contains("`Block`, `TableStyle`"), "{content}");
                assert!(!content.contains("`Table`"), "{content}");
            }
            v => panic!("{v:?}"),
        }
        // An undocumented constructor is the pre-write check's to refuse, with candidates.
        let invented = json!({"path": "main.js", "content": "var x = new ActiveXObject('a');"});
        assert_eq!(run(&mut g, "write_file", &invented), Verdict::Run);
        // Not a script: not domain code.
        assert_eq!(
            run(
                &mut g,
                "write_file",
                &json!({"path": "notes.md", "content": "new Block()"})
            ),
            Verdict::Run
        );
        // After a lookup the same write runs.
        run(&mut g, "lookup_docs", &json!({"term": "blockStart"}));
        assert_eq!(run(&mut g, "edit_file", &not), Verdict::Run);
    }

    #[test]
    fn ab_alternation_over_six_steps_steers_to_the_final_answer() {
        let mut g = guard();
        let a = json!({"path": "a.js"});
        let b = json!({"term": "tableStart"});
        for i in 0..5 {
            if i % 2 == 0 {
                run(&mut g, "read_file", &a);
            } else {
                run(&mut g, "lookup_docs", &b);
            }
            assert!(!g.heading_final(), "{i}");
        }
        run(&mut g, "lookup_docs", &b);
        assert!(g.heading_final());
        let s = g.take_steer().unwrap();
        assert!(s.starts_with(wording::ENVELOPE));
        assert!(s.contains("read_file") && s.contains("lookup_docs"), "{s}");
        assert!(g.take_steer().is_none());
    }

    #[test]
    fn same_error_three_times_is_a_loop_but_different_errors_are_not() {
        let mut g = guard();
        let a = json!({"path": "x.js", "edits": []});
        for e in ["no match", "2 matches", "no match"] {
            g.plan_batch(&[("edit_file", &a)]);
            g.after("edit_file", &a, Served::Live, e, false, false);
        }
        assert!(!g.heading_final());
        let mut g = guard();
        for _ in 0..3 {
            g.plan_batch(&[("edit_file", &a)]);
            g.after(
                "edit_file",
                &a,
                Served::Live,
                "find text not found",
                false,
                false,
            );
        }
        assert!(g.heading_final());
        assert!(g.take_steer().unwrap().contains("failed 3 times"));
    }
}

//! `guardrails`: the guard and the gates plugged into the dispatcher and the turn.
//!
//! The dispatcher knows nothing of budgets or caches: it asks a [`dispatch::Guard`]
//! before and after each call. [`GuardLayer`] is that guard, over [`guard::Guard`].

use serde_json::Value;

use grounded_docs::Corpus;

use super::config::AgentConfig;
use super::dispatch::{self, Before, Served, ToolResult};
use super::gates;
use super::guard::{self, Domain, Verdict};
use super::model::ToolCall;
use super::wording;

/// The guard layer of one turn (a plan's worker gets its own).
#[derive(Debug)]
pub struct GuardLayer {
    inner: guard::Guard,
}

impl GuardLayer {
    /// The layer for a turn over `corpus` with the figures of `cfg`.
    pub fn new(cfg: &AgentConfig, corpus: &Corpus) -> GuardLayer {
        GuardLayer {
            inner: guard::Guard::new(cfg.clone(), Domain::of(corpus)),
        }
    }
}

fn args_of(call: &ToolCall) -> Value {
    serde_json::from_str(&call.arguments).unwrap_or(Value::Object(Default::default()))
}

impl dispatch::Guard for GuardLayer {
    fn begin_batch(&mut self) {
        self.inner.begin_batch();
    }

    fn before_at(&mut self, index: usize, call: &ToolCall, args: &Value) -> Before {
        match self.inner.plan_call(index, &call.name, args) {
            Verdict::Run => Before::Run,
            Verdict::Answer { served, content } => Before::Answer(content, served),
            Verdict::Collapse { onto } => Before::Share(onto),
        }
    }

    fn before(&mut self, _call: &ToolCall, _args: &Value) -> Option<(String, Served)> {
        None
    }

    fn after(&mut self, call: &ToolCall, result: &mut ToolResult) {
        let ok = result.served != Served::Refused;
        let flagged = result.content.contains(wording::RAG_CORRECTIONS);
        self.inner.after(
            &call.name,
            &args_of(call),
            result.served,
            &result.content,
            ok,
            flagged,
        );
    }

    fn steer(&mut self) -> Option<String> {
        self.inner.take_steer()
    }
}

/// The guards a turn's dispatcher consults.
pub type Guards = Vec<Box<dyn dispatch::Guard>>;

/// The gates a turn's finish step runs.
pub type Gates = Vec<Box<dyn gates::Gate>>;

/// The guards and gates of a standard turn.
pub fn standard(cfg: &AgentConfig, corpus: &Corpus) -> (Guards, Gates) {
    (
        vec![Box::new(GuardLayer::new(cfg, corpus))],
        gates::standard(),
    )
}

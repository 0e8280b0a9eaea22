//! `config`: every figure of the agent and its guardrails, each a default in one struct.
//!
//! A limit written as a literal where it is used cannot be tuned, tested at another value
//! or even found; so each figure of the guardrails is a field here, and the code reads it.

/// The agent's settings. `Default` holds the figures the guardrails were measured with.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// Identical calls (same tool, same arguments) allowed per turn; the next one is
    /// answered with a stub (`served: stub`) and the turn heads for its final answer.
    pub breaker_limit: usize,
    /// Live runs of charged tools per turn, across all wordings.
    pub live_lookup_budget: usize,
    /// Live runs of one normalised query per turn; after that the turn cache answers.
    pub per_query_live: usize,
    /// The tools charged against [`AgentConfig::live_lookup_budget`]. Cheap fact checks
    /// (`lookup_docs`) are not here: a budget once cut the model off while it was
    /// correctly verifying eleven symbols.
    pub charged_tools: Vec<String>,
    /// Tools whose run counts as "a knowledge lookup ran this turn" for the write rule.
    pub knowledge_tools: Vec<String>,
    /// Read-only tools: run concurrently, and collapsed when dispatched together on the
    /// same normalised query.
    pub read_only_tools: Vec<String>,
    /// Tools that write domain code and so need a knowledge lookup first (unless every
    /// engine symbol they use was provided by the prompt).
    pub domain_write_tools: Vec<String>,
    /// Similarity (normalised Levenshtein of normalised queries) at which two lookups are
    /// the same question.
    pub fuzzy_threshold: f64,
    /// Calls over which an A/B alternation is a loop.
    pub stuck_alternation_steps: usize,
    /// Same call, same error, this many times: a loop.
    pub stuck_error_repeats: usize,
    /// Pushes per turn across all finish gates.
    pub gate_budget: usize,
    /// Extra pushes once the shared budget (or a gate's own limit) is spent, only for a
    /// draft that materially changed or came with new deeds.
    pub reserve_final: usize,
    /// The verify gate's own limit.
    pub verify_pushes: usize,
    /// The bail gate's own limit.
    pub bail_pushes: usize,
    /// The claim gate's own limit (a second false claim needs the reserve).
    pub claim_pushes: usize,
    /// The checklist gate's own limit.
    pub checklist_pushes: usize,
    /// Ceiling of `search_queries`.
    pub max_queries: usize,
    /// How many queries `search_queries` asks for; `-1` lets the model decide within
    /// [`AgentConfig::max_queries`].
    pub search_queries: i32,
    /// The de-nouning rewriter of retrieval queries ("creation of a table" → "create
    /// table"); ships disabled.
    pub denoun: bool,
    /// Phrasebook routes in the hint prepended to every lookup result.
    pub hint_routes: usize,
    /// Items a `plan` may have.
    pub plan_max_items: usize,
    /// Steps of one plan item's worker turn.
    pub worker_max_steps: usize,
    /// Steps of a turn before the forced final answer.
    pub max_steps: usize,
}

impl Default for AgentConfig {
    fn default() -> Self {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        AgentConfig {
            breaker_limit: 4,
            live_lookup_budget: 12,
            per_query_live: 2,
            charged_tools: s(&["rag_lookup"]),
            knowledge_tools: s(&["rag_lookup", "lookup_docs", "resolve_topic"]),
            read_only_tools: s(&[
                "rag_lookup",
                "lookup_docs",
                "resolve_topic",
                "read_file",
                "list_files",
                "find_in_files",
                "find_construct",
                "check_symbols",
                "dry_run",
            ]),
            domain_write_tools: s(&["write_file", "edit_file"]),
            fuzzy_threshold: 0.8,
            stuck_alternation_steps: 6,
            stuck_error_repeats: 3,
            gate_budget: 3,
            reserve_final: 2,
            verify_pushes: 2,
            bail_pushes: 2,
            claim_pushes: 1,
            checklist_pushes: 1,
            max_queries: 6,
            search_queries: -1,
            denoun: false,
            hint_routes: 3,
            plan_max_items: 6,
            worker_max_steps: 12,
            max_steps: 24,
        }
    }
}

impl AgentConfig {
    /// Whether `tool` is charged against the live lookup budget.
    pub fn charged(&self, tool: &str) -> bool {
        self.charged_tools.iter().any(|t| t == tool)
    }

    /// Whether `tool` counts as a knowledge lookup.
    pub fn knowledge(&self, tool: &str) -> bool {
        self.knowledge_tools.iter().any(|t| t == tool)
    }

    /// Whether `tool` only reads.
    pub fn read_only(&self, tool: &str) -> bool {
        self.read_only_tools.iter().any(|t| t == tool)
    }

    /// Whether `tool` writes domain code.
    pub fn domain_write(&self, tool: &str) -> bool {
        self.domain_write_tools.iter().any(|t| t == tool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_measured_figures() {
        let c = AgentConfig::default();
        assert_eq!(c.breaker_limit, 4);
        assert_eq!(c.live_lookup_budget, 12);
        assert_eq!(c.per_query_live, 2);
        assert!(c.charged("rag_lookup"));
        assert!(!c.charged("lookup_docs"));
        assert_eq!(c.fuzzy_threshold, 0.8);
        assert_eq!((c.gate_budget, c.reserve_final), (3, 2));
        assert!(!c.denoun);
    }
}

//! Every fixed text the model or the user sees, in one place.
//!
//! Why one module: a hand-copied version of a correction once drifted from the one the
//! code used, and the model followed the stale one. Issue 13 owns the guardrails'
//! wording here; the loop's own texts (tool descriptions, step limit, refusals) live
//! here too so that a prompt never restates a schema that changed elsewhere.
//!
//! Nothing here names a particular engine: engine facts come from the corpus
//! (`prompt.rs`).
//!
//! The guardrails' texts (issue 13) follow the loop's. They name an action or an exact
//! symbol, never a phrase a model could paste into a search box: a nudge that said, in
//! words, to "look up the real members" was run verbatim as a query twelve times.
//! Placeholders are written `{name}` and filled by [`fill`]; nothing here states engine
//! behaviour, only what the docs and the file system show.

/// Shown in the editor when no `[model]` is configured anywhere: editor settings, not
/// command-line flags (an editor user was told `--base-url` and `--model`): editor settings, not command-line flags.
pub const NO_MODEL_EDITOR: &str = "no model configured: set the editor settings grounded.agent.baseUrl (the endpoint, such as http://127.0.0.1:8080/v1) and grounded.agent.model (the model's name there); or base_url and name in [model] of grounded.toml";

/// A model endpoint without a model name (the command line).
pub const NO_MODEL_NAME: &str =
    "no model name: pass --model NAME or set `name` in [model] of grounded.toml";

/// A model endpoint without a model name, as the editor's user reads it.
pub const NO_MODEL_NAME_EDITOR: &str = "no model name: set the editor setting grounded.agent.model (the model's name at the endpoint), or name in [model] of grounded.toml";

/// Said when no model endpoint is configured (the command line).
pub const NO_MODEL: &str = "no model configured: set base_url and name in [model] of grounded.toml (or pass --base-url and --model; the editor setting grounded.agent.baseUrl)";

/// The fixed part of the system prompt, after the engine facts.
pub const SYSTEM_RULES: &str = "\
You edit script projects for this engine. The engine's documentation is the only truth: \
a member, option key or constructor that the documentation does not list does not exist, \
however familiar it looks from other environments.

Rules:
- Read a file with read_file in this turn before you edit it; edits are exact find/replace \
pairs copied from what read_file showed (without the line-number prefixes).
- To remove code, use delete_lines with the line numbers read_file showed; never rewrite a \
region to remove something.
- A symbol you already know by name is a fact check: lookup_docs. A question about how to \
do something is research: resolve_topic first, then rag_lookup.
- Writes that add checker findings are refused with the findings and the real members; use \
what they name, or leave out what has no real member and say so.
- There is no shell. Paths are relative to the project root.
- When you are done, answer in a few lines: what you changed, in which files. Say only what \
the tools showed.";

/// Sent (as a user-role message) when the step limit is reached; tools are withheld.
pub const STEP_LIMIT: &str = "[automated message from the agent, not the user] The step limit of this turn is reached: no tool will run. Answer now: say what you changed (the files the tools wrote) and what is left undone.";

/// Appended to the answer of a turn that was asked to change something and changed
/// nothing: "no usable edits" is a failure the user sees, never a success.
pub const UNCHANGED: &str = "No file was changed: the turn made no edit that landed.";

/// The answer shown instead of a final answer that only repeated the agent's own
/// injected text ([`super::honest`]).
pub const ECHO_REPLACED: &str = "The model's final answer only repeated the agent's own instructions to it, so it is not shown. What happened: {reason}. Files changed: {files}.";

/// Appended when the turn's writes were undone because they made the project worse.
pub const UNDONE: &str = "The turn's writes were undone (files restored byte for byte, created files removed) because they made the project worse:";

/// The refusal of an edit or write in a removal turn ([`super::intent`]). Asked to remove
/// a price table, a model put new lines where it was and the file grew from 293 to 364
/// bytes; delete-scan, the model marking lines and code dropping them, can only shrink.
pub const REMOVAL_ONLY: &str = "this request only removes, and this edit does not: {why}\nIn a removal turn nothing is added. Mark the lines to remove with delete_lines (`12: DELETE` or `14-18: DELETE`, read_file's line numbers): the file can only shrink.";

/// Told the model with the request when it only removes ([`super::intent`]).
pub const SCOPE_REMOVAL: &str = "[automated note from the agent, not the user] This request only removes. Remove whole lines with delete_lines; an edit_file or write_file that adds a line or grows a file is refused.";

/// Told the model with the request when it removes and adds ([`super::intent`]).
pub const SCOPE_MIXED: &str = "[automated note from the agent, not the user] This request both removes and adds. The removal part: {removes}. Do it with delete_lines (whole lines; the file only shrinks). The adding part: {adds}. Do it with edit_file or write_file.";

/// Added to the answer of a turn whose request removes and adds: the user sees which
/// part the agent took for which.
pub const SCOPE_MIXED_ANSWER: &str = "This request both removes and adds: the removal part was {removes} (done with delete_lines only); the adding part was {adds}.";

/// The result of a call the model made on a step with tools withheld (the step limit,
/// or a guard's steer): every call is answered, this one by saying it did not run.
pub const TOOLS_WITHHELD: &str = "not run: tools were withheld on this step (the turn's last); the turn ends with the model's text.";

/// Told the model with the request when it is a question ([`super::intent`]). 47 of 268
/// question turns of a seeded random model changed a file ("What does lib/title.js do?
/// Do not change any file." edited it and ended `done`): a person who asks a question
/// and finds their script changed stops asking. The write tools are withheld; this says
/// why, and what to do instead.
pub const QUESTION_NOTE: &str = "[automated note from the agent, not the user] This request is a question: answer it from what the tools show. No file may change in this turn, and the tools that write are not offered. If the answer needs a change, say what you would change (the file, the lines, the new text) and do not make it.";

/// The refusal of a write tool called in a question, before it runs (the dispatcher)
/// or where it would land (every write's one path).
pub const QUESTION_NO_WRITE: &str = "this request is a question, and a question changes no file: the tools that write are not offered in this turn. Answer the question; if the answer needs a change, say what you would change (the file, the lines, the new text) without making it.";

/// Added to a pre-write refusal that found a construct the write would leave open: the
/// end measure undoes a turn for it, so it is refused before it lands.
pub const CONSTRUCT_OPEN: &str = "A `construct` finding is a construct the write would leave open (a Start without its End, or an End without its Start): write the Start and its End in the same edit, or neither.";

/// The reason (and status line) of a change that changed none of the files its request
/// named: 12 turns asked to change `main.js` changed only `lib/huge.js` and ended `done`
/// with no word of it.
pub const MISSED_NAMED: &str = "changed {files}, not {named}";

/// Added to the answer when a change missed the files its request named.
pub const MISSED_NAMED_ANSWER: &str = "The request named {named}; the turn changed none of them. It changed only {files}, which the request did not name (kept: delete it if you do not want it).";

/// Added to the answer when a change missed its named files but met the goal all the
/// same: a finding the measure counts is gone.
pub const MISSED_NAMED_MET: &str = "The request named {named}; the turn changed {files} instead, and the project's checker findings went from {before} to {after}.";

/// The claim gate's push in a question: the first wording asks the model to make the
/// change, which a question may not.
pub const CLAIM_FALSE_QUESTION: &str = "Your answer says {files} changed, but this request is a question: no file may change in this turn, and none did. Say what you would change (\"I would change ...\"), not that it changed.";

/// Appended to the answer of a question the model did not answer (an empty final
/// answer, or one that only echoed the agent's own words).
pub const UNANSWERED: &str = "The question was not answered: the model gave no answer of its own.";

/// The instruction given to the composing step of `rag_lookup`.
pub const RAG_COMPOSE: &str = "Answer the question from the documentation excerpts below and nothing else. Name only members, constructors and option keys that appear in the excerpts, exactly as written. If the excerpts do not answer, say so in one line.";

/// Description of `list_files`.
pub const D_LIST_FILES: &str =
    "List the project's files (paths relative to the root), optionally under a folder.";
/// Description of `read_file`.
pub const D_READ_FILE: &str = "Read a file with line numbers (`12| text`). Optional start_line/end_line (1-based, inclusive). A file must be read in this turn before it is edited.";
/// Description of the base `find_in_files`.
pub const D_FIND_PLAIN: &str = "Search the project's files for a literal string; lines that contain it, with paths and line numbers.";
/// Description of the domain `find_in_files`.
pub const D_FIND_DOMAIN: &str = "Search the project: a regex over file contents, file names that match, the lines that declare and configure a matched variable (its footprint), and, when nothing matches literally, the engine symbols a concept word stands for. Use it to find everything that belongs to a feature before removing it.";
/// Description of `write_file`.
pub const D_WRITE_FILE: &str = "Create a file, or overwrite one you read in this turn, with the whole content. Prefer edit_file for changes to an existing file. Content that adds checker findings is refused.";
/// Description of `edit_file`.
pub const D_EDIT_FILE: &str = "Change a file you read in this turn with exact find/replace pairs copied from it. Each find text must occur exactly once (indentation and trailing spaces may differ); otherwise nothing is written and the closest region is shown. Content that adds checker findings is refused.";
/// Description of `delete_lines`.
pub const D_DELETE_LINES: &str = "Remove whole lines of a file you read in this turn: marks like `12: DELETE` or `14-18: DELETE`, one a line, with read_file's line numbers. The file can only shrink. Use it for every pure removal.";
/// Description of `lookup_docs`.
pub const D_LOOKUP_DOCS: &str = "Full-text lookup in the engine's documentation: the chunks that literally contain the term, whole. Milliseconds, cannot invent. Use it to check a symbol you already know by name (`tableStart`, `Layout`).";
/// Description of `rag_lookup`.
pub const D_RAG_LOOKUP: &str = "Research a question in the documentation: retrieves the relevant chunks and composes an answer from them. Seconds, and the composed answer can be wrong: check any symbol it names with lookup_docs. Not for a symbol you already know.";
/// Description of `resolve_topic`.
pub const D_RESOLVE_TOPIC: &str = "Map a goal in your words (\"a footer with page numbers\") to the engine's real symbols, from a phrasebook mined from the docs. Use it before researching a feature.";
/// Description of `find_construct`.
pub const D_FIND_CONSTRUCT: &str = "List the construct instances (Start/End pairs) of a script with their footprints (declaration, configuration and Start..End lines), or of every script when no path is given.";
/// Description of `check_symbols`.
pub const D_CHECK_SYMBOLS: &str = "Run the checker on a code snippet (`code`) or a project file (`path`): invented members, option keys, constructors, syntax the engine's level lacks, missing files.";
/// Description of `plan`. Workers once reported what their files "exposed" and the
/// composer wired the next file to a function never written: the report carries what
/// each file defines, read from the file.
pub const D_PLAN: &str = "Split a request with several independent parts into items (at most 6); each item runs as its own worker turn, and its report comes back with the files it changed and what each defines (functions, globals, constructs), read from the files. Use it only for requests with two or more parts.";
/// Description of `dry_run`.
pub const D_DRY_RUN: &str = "Run the project (or one entry script) against a fake engine generated from the docs and report what it touched that the docs lack.";

/// Opens every injected correction. Without it the model took its blocked draft for
/// something the user had read, and apologised to the user for a message they never saw.
pub const ENVELOPE: &str = "[automated pre-send check - NOT a message from the user]";

/// Closes every injected correction. Each clause answers a move models made: apologising,
/// talking about the check or the draft, asking permission to continue, and — once, after
/// a push against giving up — shrinking a working file and apologising in a comment.
pub const SILENCE_TRAILER: &str = "Do not apologise. Do not mention this check or your previous draft: the user never saw it. Do not ask for permission; act. Never satisfy this check by deleting or stripping code that already passed its checks: fix forward.";

/// The claim gate's first push. The model reported "Updated template.js" after writing
/// three other files: it had narrated its plan in the past tense.
pub const CLAIM_FALSE: &str = "Your answer says {files} changed, but the file system shows no change to {files} this turn. Files that did change this turn: {changed}. Either make that change now with edit_file or write_file, or state plainly that it was not made.";

/// The claim gate's second push, escalated. A first correction was answered with the same
/// claim in new words; the second names the facts without room for narration.
pub const CLAIM_ESCALATED: &str = "Second correction. Writes landed this turn: {landed}. The file system shows no change to {files}. Make the change now, or say truthfully that nothing changed in {files}.";

/// Added to an answer the turn ends with while the claim gate still finds it false (a
/// verbatim repeat after the firmer push): the user must not read, unqualified, that a
/// file changed when the file system shows it did not.
pub const UNRESOLVED_CLAIM: &str = "Not so: the answer above says {files} changed, but the file system shows no change to {files} in this turn.";

/// Added to an answer the turn ends with while findings on its files are outstanding.
pub const UNRESOLVED_VERIFY: &str =
    "Still open: the checker reports {count} finding(s) on files this turn wrote.";

/// Added to an answer the turn ends with while it hands open work to the user.
pub const UNRESOLVED_BAIL: &str = "Still open: {remains}.";

/// Added to an answer the turn ends with while plan items are neither done nor answered.
pub const UNRESOLVED_CHECKLIST: &str = "Not done: the plan items {items}.";

/// The verify gate. Told its APIs did not exist, the model wrote the user an essay and
/// finished with the invented calls on disk. The clauses pre-empt its three moves: doubt
/// the docs, re-run the lookup that produced the name, annotate and move on.
pub const VERIFY_FINDINGS: &str = "The checker reports findings on files you wrote this turn:\n{findings}\nThe documentation is complete: a name it does not have does not exist. You wrote it because a similar name exists. Do not re-run the lookup that produced it, and do not leave a comment and move on: replace each name with a real member listed in the finding, or leave out what has no real member and say so in the answer.";

/// The bail gate. Drafts that ended "you may need to add..." while findings, plan items or
/// the requested change were still open left the user with the work the turn was for.
pub const BAIL_REMAINS: &str = "The draft hands the remaining work to the user, but it is still open: {remains}. Do that work now with the tools, then answer.";

/// The checklist gate. A plan of three items shipped with one never started, and the
/// answer summarised only the two that ran.
pub const CHECKLIST_OPEN: &str = "These items of the plan have no landed change and no answer: {items}. Do each now, or say for each one why it was not done.";

/// What every lookup returns once the knowledge budget is spent. The model, cut off, told
/// the user "the documentation does not cover this": the docs did, the budget ran out.
pub const BUDGET_SPENT: &str = "Search budget spent: {used} knowledge lookups ran this turn, the most allowed. No further lookup will run in this turn; searching again in any wording returns this same message. Stop searching and write the answer or the code now from the results above. If something is still missing, say that the search budget ran out — never that the documentation lacks it.";

/// What an identical query gets once it ran live its allowed number of times and nothing
/// is cached for it (flagged answers are never cached). Re-running a lookup fetched the
/// same poison seven rounds in a row.
pub const QUERY_EXHAUSTED: &str = "This exact lookup already ran {count} times this turn; its results are above and will not change. Use them, or call lookup_docs with one exact symbol.";

/// The identical-call breaker's stub. One turn ran the same lookup twelve times with
/// identical arguments while its results said it had already asked; saying "you are
/// looping" did nothing, so the call is not run and the turn is steered to its answer.
pub const BREAKER_STUB: &str = "Not run: {tool} was called with these exact arguments {count} times this turn; the result would be the one above. Write your final answer now from what you have.";

/// Sent after the breaker stubbed a call, with tools withheld for the next step: the
/// turn heads for its final answer instead of asking a fifth time.
pub const BREAKER_FINAL: &str = "A repeated call was stopped: no tool will run in the next step. Write your final answer now from the results above; say what is done and what is not.";

/// The stuck detector's steer for an A/B alternation. Two calls taking turns slip past an
/// identical-call counter; the turn is told which loop it is in and sent to its answer.
pub const STUCK_ALTERNATION: &str = "Loop detected: the last {steps} calls alternated between {a} and {b} with the same arguments. Neither will tell you more. Write your final answer now from what you have; say what is done and what is not.";

/// The stuck detector's steer for a call that keeps failing the same way.
pub const STUCK_REPEATED_ERROR: &str = "Loop detected: {tool} failed {count} times with the same error: {error}. Repeating it will fail again. Write your final answer now; say what is done and what is not.";

/// The refusal of a domain write before any knowledge lookup ran, unless everything the
/// write uses was handed to the model in its prompt. The exemption exists because the
/// mandatory lookup once forced three of five lookups to re-confirm names already listed.
pub const WRITE_NEEDS_LOOKUP: &str = "Refused: this write uses {symbols}, which the prompt did not provide, and no knowledge lookup ran this turn. Call lookup_docs with {first} first, then write.";

/// Heads the corrections a self-auditing `rag_lookup` appends to its composed answer. For
/// seven rounds an agent copied `layout.tableCellEnd` from a retrieval answer it trusted.
pub const RAG_CORRECTIONS: &str = "CORRECTIONS (checked against the documentation; the answer above names things that do not exist — do not use them):";

/// Heads the real members listed after the corrections.
pub const RAG_REAL_MEMBERS: &str = "Real members of {interface}: {members}";

/// Heads the phrasebook hint prepended to every lookup result, found or not: a gap is
/// when the real names matter most.
pub const TERMINOLOGY_HINT: &str = "Terminology hint (the corpus's own words for this goal):";

/// The instruction that comes with the forced `search_queries` call. One phrasing is a
/// single point of failure: worded unlike the corpus, retrieval came back empty and the
/// agent concluded the knowledge base was empty.
pub const SEARCH_QUERIES_ASK: &str = "Before any lookup, call search_queries with {count} different angles on the request: a focused how-to, a broad query of the core nouns, and one that seeks an example. Never repeat the request verbatim. Use one query only for a trivial factual lookup. Give each query a short `about` label the user will see.";

/// The adaptive tail under the planned queries: they are guidance, not a fan-out, so the
/// agent still orders its searches and stops early.
pub const SEARCH_QUERIES_TAIL: &str = "These are planned searches, not results. Run them in order with rag_lookup or lookup_docs and stop as soon as the results answer the request; search again only for a gap you can name.";

/// Fills `{name}` placeholders; unknown ones stay as written so a missing value shows.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_string();
    for (k, v) in values {
        out = out.replace(&format!("{{{k}}}"), v);
    }
    out
}

/// A correction as the model receives it: the envelope, the body, the silence trailer.
pub fn correction(body: &str) -> String {
    format!("{ENVELOPE}\n{body}\n\n{SILENCE_TRAILER}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: &[&str] = &[
        CLAIM_FALSE,
        CLAIM_ESCALATED,
        VERIFY_FINDINGS,
        BAIL_REMAINS,
        CHECKLIST_OPEN,
        BUDGET_SPENT,
        QUERY_EXHAUSTED,
        BREAKER_STUB,
        STUCK_ALTERNATION,
        STUCK_REPEATED_ERROR,
        WRITE_NEEDS_LOOKUP,
        BREAKER_FINAL,
        QUESTION_NOTE,
        QUESTION_NO_WRITE,
        CONSTRUCT_OPEN,
        CLAIM_FALSE_QUESTION,
    ];

    #[test]
    fn corrections_open_with_the_envelope_and_close_with_the_trailer() {
        let c = correction("body");
        assert!(c.starts_with(ENVELOPE));
        assert!(c.ends_with(SILENCE_TRAILER));
        assert!(c.contains("\nbody\n"));
    }

    #[test]
    fn fill_replaces_known_and_keeps_unknown() {
        let s = fill("{a} and {b}", &[("a", "x")]);
        assert_eq!(s, "x and {b}");
    }

    #[test]
    fn nudges_are_not_runnable_phrases() {
        // A nudge that told the model, in words, to look up the real members was run as
        // a search query: no text may carry such a phrase.
        for t in ALL {
            let l = t.to_lowercase();
            assert!(!l.contains("look up the"), "{t}");
            assert!(!l.contains("search for"), "{t}");
        }
    }

    #[test]
    fn budget_message_blames_the_budget_not_the_docs() {
        let l = BUDGET_SPENT.to_lowercase();
        assert!(l.contains("no further lookup will run"));
        assert!(l.contains("any wording"));
        assert!(l.contains("search budget ran out"));
        assert!(l.contains("never that the documentation lacks it"));
    }
}

//! The system prompt, generated from the corpus: the engine's language level, its
//! globals, constructors and constructs, then the fixed rules of `wording`.
//!
//! Nothing about a particular engine is written here by hand: a prompt that named one
//! engine's members would be wrong for every other corpus, and a model trusts its
//! system prompt over any lookup.

use grounded_docs::Corpus;

use super::wording;

/// The most globals, constructors or constructs listed by name (a huge corpus would
/// otherwise spend the context window on a list the tools can answer).
const LIST_MAX: usize = 60;

fn listed(items: Vec<String>) -> String {
    let n = items.len();
    let mut v: Vec<String> = items.into_iter().take(LIST_MAX).collect();
    if n > LIST_MAX {
        v.push(format!("… ({} more; lookup_docs finds them)", n - LIST_MAX));
    }
    v.join(", ")
}

/// The system prompt for `corpus`.
pub fn system_prompt(corpus: &Corpus) -> String {
    let e = &corpus.engine;
    let mut s = String::new();
    s.push_str(&format!(
        "The engine runs ECMAScript {} scripts (files {}){}.\n",
        e.es_label,
        e.script_extensions.join(" "),
        if e.directives.is_empty() {
            String::new()
        } else {
            format!("; directive lines: {}", e.directives.join(" "))
        }
    ));
    if !corpus.globals.is_empty() {
        let g = corpus
            .globals
            .iter()
            .map(|(name, iface)| format!("{name} ({iface})"))
            .collect();
        s.push_str(&format!("Documented globals: {}.\n", listed(g)));
    }
    if !corpus.constructors.is_empty() {
        let c = corpus
            .constructors
            .keys()
            .map(|n| format!("new {n}()"))
            .collect();
        s.push_str(&format!("Documented constructors: {}.\n", listed(c)));
    }
    if !corpus.constructs.is_empty() {
        let c = corpus
            .constructs
            .values()
            .map(|c| {
                format!(
                    "{} ({}.{}({}) … {}.{}())",
                    c.id, c.global, c.start, c.object, c.global, c.end
                )
            })
            .collect();
        s.push_str(&format!(
            "Constructs (every Start needs its End, in reverse order of opening): {}.\n",
            listed(c)
        ));
    }
    let frags = super::audit::fragments(corpus);
    if !frags.is_empty() {
        // One fragment per construct family: what it names is provided, so a write
        // using only these constructors needs no lookup first (guard's write rule).
        s.push_str("Construct families (everything named here is documented):\n");
        for f in &frags {
            s.push_str("- ");
            s.push_str(&f.text);
            s.push('\n');
        }
    }
    s.push('\n');
    s.push_str(wording::SYSTEM_RULES);
    s
}

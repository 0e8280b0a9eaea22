//! Identical lookups of one session, answered from the cache and saying so.
//!
//! Why (agent-design.md): one turn ran the same lookup twelve times with identical
//! arguments while its results said it had already asked. A cache alone saves the time
//! but not the loop; the answer also says it is a repeat and that nothing changed, so
//! the agent can stop asking. Only the docs tools are cached: the corpus does not change
//! within a session, while the files `check_*` read may.
//!
//! Imports nothing of the crate but [`Answer`].

use std::collections::HashMap;
use std::sync::Mutex;

use serde_json::Value;

use super::Answer;

/// The session's answers to the docs tools, by tool and arguments.
#[derive(Default)]
pub struct Cache {
    answers: Mutex<HashMap<String, (Answer, usize)>>,
}

/// The key of a call: the tool and its arguments, strings trimmed and their inner
/// whitespace collapsed (serde_json's map is ordered, so key order does not matter).
pub fn key(tool: &str, args: &Value) -> String {
    fn norm(v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(s.split_whitespace().collect::<Vec<_>>().join(" ")),
            Value::Object(m) => {
                Value::Object(m.iter().map(|(k, v)| (k.clone(), norm(v))).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(norm).collect()),
            v => v.clone(),
        }
    }
    format!("{tool} {}", norm(args))
}

impl Cache {
    /// The answer to `key`: a repeat is the first answer marked as served from the cache
    /// (`"served": "cache"`, `"asked"` times), a new one is computed by `live`. Tool
    /// errors are not kept: a corrected call must not meet its old refusal.
    pub fn answer(&self, key: String, live: impl FnOnce() -> Answer) -> Answer {
        if let Some((first, asked)) = self.lock().get_mut(&key) {
            *asked += 1;
            return served(first, *asked);
        }
        let mut a = live();
        if !a.error {
            if let Value::Object(m) = &mut a.structured {
                m.insert("served".into(), "live".into());
            }
            self.lock().insert(key, (a.clone(), 1));
        }
        a
    }

    /// Forgets every answer (a benchmark measures live lookups with it).
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, (Answer, usize)>> {
        self.answers.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A cached answer as a repeat: said at the top of the text, where an agent reads first.
fn served(first: &Answer, asked: usize) -> Answer {
    let mut a = first.clone();
    if let Value::Object(m) = &mut a.structured {
        m.insert("served".into(), "cache".into());
        m.insert("asked".into(), asked.into());
    }
    a.text = format!(
        "(Served from this session's cache: this identical call was made {asked} times; the docs have not changed, so the answer below is the same. Do not ask it again: use the names it gives, or ask for a different name.)\n{}",
        first.text
    );
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_repeat_is_served_from_the_cache_and_says_so() {
        let c = Cache::default();
        let runs = std::cell::Cell::new(0);
        let ask = |q: &str| {
            c.answer(key("lookup_docs", &json!({ "query": q })), || {
                runs.set(runs.get() + 1);
                Answer::ok("hit", json!({ "hits": [] }))
            })
        };
        let first = ask("tableStart");
        assert_eq!(first.structured["served"], "live");
        let second = ask("  tableStart ");
        assert_eq!(second.structured["served"], "cache");
        assert_eq!(second.structured["asked"], 2);
        assert!(second.text.starts_with("(Served from this session's cache"));
        assert_eq!(runs.get(), 1);
    }

    #[test]
    fn errors_are_not_kept() {
        let c = Cache::default();
        let k = key("get_doc", &json!({ "name": "" }));
        assert!(c.answer(k.clone(), || Answer::error("no")).error);
        assert!(!c.answer(k, || Answer::ok("yes", json!({}))).error);
    }
}

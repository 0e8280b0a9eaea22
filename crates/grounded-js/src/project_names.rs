//! The top-level names of the other project files a script sees, shared between the
//! scripts of one run instead of copied into each.
//!
//! Why: where every script sees every other script's names (engines whose scripts share
//! one global scope), each script's set was the whole project's names less its own: 400
//! scripts of 7,000 names made 2.8 million copied strings, each hashed twice (issue 48).
//! One set of the project's names, shared, with the few names only the script itself
//! declares hidden, answers the same questions. Imports nothing of the crate: the
//! hasher is the caller's (the analysis uses its `NameHash`).

use std::collections::HashSet;
use std::hash::BuildHasher;
use std::sync::Arc;

/// A set of names: a shared set less the names hidden from this script.
#[derive(Debug, Clone, Default)]
pub struct ProjectNames<S> {
    shared: Arc<HashSet<String, S>>,
    hidden: HashSet<String, S>,
}

impl<S: BuildHasher + Default> ProjectNames<S> {
    /// `shared` less `hidden`.
    pub fn new(shared: Arc<HashSet<String, S>>, hidden: HashSet<String, S>) -> Self {
        ProjectNames { shared, hidden }
    }

    /// Whether the script sees `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.shared.contains(name) && !self.hidden.contains(name)
    }

    /// The names the script sees, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = &String> + '_ {
        self.shared
            .iter()
            .filter(|n| self.hidden.is_empty() || !self.hidden.contains(n.as_str()))
    }
}

impl<S: BuildHasher + Default> FromIterator<String> for ProjectNames<S> {
    fn from_iter<I: IntoIterator<Item = String>>(names: I) -> Self {
        ProjectNames {
            shared: Arc::new(names.into_iter().collect()),
            hidden: HashSet::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::RandomState;

    #[test]
    fn hidden_names_are_not_seen() {
        let shared: HashSet<String, RandomState> =
            ["a", "b", "c"].map(String::from).into_iter().collect();
        let hidden: HashSet<String, RandomState> = ["b"].map(String::from).into_iter().collect();
        let p = ProjectNames::new(Arc::new(shared), hidden);
        assert!(p.contains("a") && !p.contains("b") && !p.contains("d"));
        let mut seen: Vec<&String> = p.iter().collect();
        seen.sort();
        assert_eq!(seen, ["a", "c"]);
        let owned: ProjectNames<RandomState> = vec!["x".to_string()].into_iter().collect();
        assert!(owned.contains("x"));
    }
}

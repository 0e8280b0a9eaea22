//! The seed's names indexed by name, so that a statement re-check cuts the seed to the
//! names the statement spells without scanning every name of the file.
//!
//! Owns only that index; must cut exactly as [`grounded_js::Seed::spelt_in`] does (the test
//! below holds the two together). May import `js`.

use std::collections::{HashMap, HashSet};

use grounded_js::NameHash;

/// A map by name on the walk's hasher: looked up once per word of the text re-checked,
/// which is a whole function's when a declaration in it is retyped (SipHash there was a
/// fifth of such a keystroke, callgrind).
type ByName<V> = HashMap<String, V, NameHash>;

/// The seed's globals and project names by name, for [`SeedNames::for_text`].
#[derive(Debug, Default)]
pub(super) struct SeedNames {
    globals: ByName<usize>,
    project: ByName<usize>,
    /// Polyfills by their last name (`trim` for `String.prototype.trim`): every
    /// question asked of them ends in a name the statement spells. A script's every
    /// top-level function counts (it may supply a built-in), so there can be tens of
    /// thousands.
    polyfills: ByName<Vec<usize>>,
}

impl SeedNames {
    pub(super) fn of(seed: &grounded_js::Seed) -> SeedNames {
        let index = |names: &mut dyn Iterator<Item = &String>| {
            let mut m = ByName::default();
            for (i, n) in names.enumerate() {
                m.entry(n.clone()).or_insert(i);
            }
            m
        };
        let mut polyfills: ByName<Vec<usize>> = Default::default();
        for (i, p) in seed.polyfills.iter().enumerate() {
            polyfills
                .entry(grounded_js::Seed::polyfill_name(p).to_string())
                .or_default()
                .push(i);
        }
        SeedNames {
            globals: index(&mut seed.globals.iter().map(|g| &g.0)),
            project: index(&mut seed.project_names.iter()),
            polyfills,
        }
    }

    /// [`grounded_js::Seed::spelt_in`], from this index: one lookup per word of the
    /// statement instead of a pass over the whole seed on every keystroke.
    pub(super) fn for_text(&self, seed: &grounded_js::Seed, text: &str) -> grounded_js::Seed {
        let mut globals = Vec::new();
        let mut project = Vec::new();
        let mut polyfills = Vec::new();
        let mut seen: HashSet<&str, NameHash> = HashSet::default();
        for w in grounded_js::Seed::words(text) {
            if !seen.insert(w) {
                continue;
            }
            if let Some(&i) = self.globals.get(w) {
                globals.push(i);
            }
            if let Some(&i) = self.project.get(w) {
                project.push(i);
            }
            if let Some(is) = self.polyfills.get(w) {
                polyfills.extend_from_slice(is);
            }
        }
        // The seed's order, as a full seed would give them.
        globals.sort_unstable();
        project.sort_unstable();
        polyfills.sort_unstable();
        grounded_js::Seed {
            globals: globals.iter().map(|&i| seed.globals[i].clone()).collect(),
            narrowed: seed.narrowed.clone(),
            typeof_names: seed.typeof_names.clone(),
            polyfills: polyfills
                .iter()
                .map(|&i| seed.polyfills[i].clone())
                .collect(),
            project_names: project
                .iter()
                .map(|&i| seed.project_names[i].clone())
                .collect(),
            construct_helpers: seed.construct_helpers.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::SeedNames;
    use grounded_js::{BindingKind, Seed};

    /// The session's indexed cut of the seed and the request's linear one
    /// ([`Seed::spelt_in`]) keep the same names, in the seed's order: a hover and the
    /// diagnostics must read a statement alike.
    #[test]
    fn the_indexed_cut_of_a_seed_is_the_linear_one() {
        let seed = Seed {
            globals: ["far", "near", "t1", "unused"]
                .iter()
                .map(|n| (n.to_string(), BindingKind::Var, None))
                .collect(),
            narrowed: vec!["n".into()],
            typeof_names: vec!["JSON".into()],
            polyfills: vec![
                "String.prototype.trim".into(),
                "f0".into(),
                "Object.keys".into(),
            ],
            project_names: vec!["helper".into(), "other".into()],
            construct_helpers: vec!["openBox".into()],
        };
        let text = "var x = near + far.t1; s.trim(); helper(\"unused\") // keys";
        let cut = SeedNames::of(&seed).for_text(&seed, text);
        assert_eq!(cut, seed.spelt_in(text));
        let names: Vec<&str> = cut.globals.iter().map(|g| g.0.as_str()).collect();
        assert_eq!(names, ["far", "near", "t1", "unused"]);
        assert_eq!(cut.polyfills, ["String.prototype.trim", "Object.keys"]);
        assert_eq!(cut.project_names, ["helper"]);
        let none = SeedNames::of(&seed).for_text(&seed, "x = 1;");
        assert!(
            none.globals.is_empty() && none.polyfills.is_empty(),
            "{none:?}"
        );
        assert_eq!(none.construct_helpers, ["openBox"], "kept whole");
    }
}

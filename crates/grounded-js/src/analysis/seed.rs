//! The whole file's facts that a statement analysed alone depends on ([`Seed`]), owned,
//! so that the incremental re-check keeps them between edits.
//!
//! Why apart: the parent holds the analysis's own types; a seed is what outlives it.
//!
//! May import the parent `analysis` only.

use std::collections::HashSet;

use super::*;

/// The whole file's facts a statement's analysis depends on (see [`Analysis::seed`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seed {
    /// Program-scope bindings: name, kind, certain type.
    pub globals: Vec<(String, BindingKind, Option<SeedType>)>,
    /// Globals the script narrows.
    pub narrowed: Vec<String>,
    /// Names tested with `typeof`.
    pub typeof_names: Vec<String>,
    /// Built-ins the script (and its reachable files) supply.
    pub polyfills: Vec<String>,
    /// Top-level names of reachable project files.
    pub project_names: Vec<String>,
    /// The script's construct helpers (functions that only open or only close a
    /// construct): their calls pair across the whole file.
    pub construct_helpers: Vec<String>,
}

impl Seed {
    /// The words of `text` (identifier characters, and `\` for escaped identifiers),
    /// with those inside strings and comments: more than a parse would name, never
    /// fewer.
    pub fn words(text: &str) -> impl Iterator<Item = &str> {
        text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '\\')))
            .filter(|w| !w.is_empty())
    }

    /// The name a polyfill is asked about by: `trim` of `String.prototype.trim`.
    pub fn polyfill_name(path: &str) -> &str {
        path.rsplit('.').next().unwrap_or(path)
    }

    /// This seed with only the globals, project names and polyfills that `text` (one
    /// statement) spells as a word ([`Seed::words`]).
    ///
    /// A name the statement never spells cannot change how it is read: every use of a
    /// binding is by name, and every polyfill question ends in a name. Seeding all of
    /// a 7.8 MB script's 68,000 top-level names and 34,000 polyfills cost a keystroke's
    /// re-check and each hover tens of milliseconds.
    pub fn spelt_in(&self, text: &str) -> Seed {
        let words: HashSet<&str> = Seed::words(text).collect();
        Seed {
            globals: self
                .globals
                .iter()
                .filter(|g| words.contains(g.0.as_str()))
                .cloned()
                .collect(),
            narrowed: self.narrowed.clone(),
            typeof_names: self.typeof_names.clone(),
            polyfills: self
                .polyfills
                .iter()
                .filter(|p| words.contains(Seed::polyfill_name(p)))
                .cloned()
                .collect(),
            project_names: self
                .project_names
                .iter()
                .filter(|p| words.contains(p.as_str()))
                .cloned()
                .collect(),
            construct_helpers: self.construct_helpers.clone(),
        }
    }
}

/// [`Certain`], owned.
#[derive(Debug, Clone, PartialEq)]
pub enum SeedType {
    /// A documented interface.
    Interface(String),
    /// A built-in value type.
    Builtin(Proto),
    /// A built-in value type the language gives by itself (a literal; see
    /// [`Analysis::is_language_value`]).
    Literal(Proto),
    /// [`Certain::Union`]: the docs' union and which entries are left.
    /// With whether the whole file assigns it once (a use may be narrowed).
    Union(Vec<Type>, u64, bool),
    /// [`Certain::Array`] (an array's element type), or [`Certain::Promise`] (`true`).
    Of(Type, bool),
    /// A binding that holds a documented constructor (an import of a module's class, a
    /// `const X = app.X` of a member typed `Function`): `new` of it gives this
    /// interface; with the binding's own type, if it has one. Without it a statement
    /// re-checked alone read `new X()` as unknown where the whole file's check typed it.
    Constructor(String, Option<Box<SeedType>>),
}

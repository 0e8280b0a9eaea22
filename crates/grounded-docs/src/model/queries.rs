//! Questions on a loaded corpus: ancestors, members, globals, constructs, chunks.
//!
//! Owns no state and changes none. May import the parent `model` and `docs::signature`.

use super::*;

impl Corpus {
    /// What a reader of findings needs to know about this corpus's load diagnostics:
    /// `None` when the loader read everything as written. A pair skipped as no construct
    /// is the docs as written, not a misreading, and is not counted. docs/corpus.md says
    /// load diagnostics exist so that a typo in the docs does not become a false
    /// finding; a broken line that dropped `Cell-note` then read as "`Cell` has no
    /// member `note`" with no word of the six diagnostics.
    pub fn load_caveat(&self) -> Option<String> {
        let n = self.load_diagnostic_count();
        if n == 0 {
            return None;
        }
        let (s, them, they) = if n == 1 {
            ("", "it", "it touches")
        } else {
            ("s", "them", "they touch")
        };
        Some(format!(
            "the corpus has {n} load diagnostic{s} (`grounded corpus` lists {them}): a finding about a name {they} may come from the docs, not the script"
        ))
    }

    /// The interface that documents module `spec`'s exports (`Module: "k6/http"`).
    pub fn module_interface(&self, spec: &str) -> Option<&str> {
        self.modules.get(spec).map(String::as_str)
    }

    /// The interface a default import of module `spec` gives: its `Default export:`,
    /// or the module object itself without one.
    pub fn module_default(&self, spec: &str) -> Option<&str> {
        let iface = self.module_interface(spec)?;
        Some(
            self.interfaces
                .get(iface)
                .and_then(|i| i.default_export.as_deref())
                .unwrap_or(iface),
        )
    }

    /// How many load diagnostics [`Corpus::load_caveat`] speaks of (a skipped pair's
    /// note is the docs as written, not counted): what `load_diagnostics_read` in
    /// `grounded.toml` is compared with.
    pub fn load_diagnostic_count(&self) -> usize {
        let notes: BTreeSet<String> = self.skipped_pairs.iter().map(SkippedPair::note).collect();
        self.diagnostics
            .iter()
            .filter(|d| !notes.contains(&d.message))
            .count()
    }

    /// The interface's ancestors, nearest first (itself excluded).
    pub fn ancestors(&self, iface: &str) -> &[String] {
        self.ancestors.get(iface).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Whether `iface` is `other` or inherits from it.
    pub fn is_a(&self, iface: &str, other: &str) -> bool {
        iface == other || self.ancestors(iface).iter().any(|a| a == other)
    }

    /// A member of an interface, its own or inherited (nearest first); on an interface
    /// with `Loose member names: yes`, also a case/underscore variant of its name
    /// (`pageOrigin` is `PAGE_ORIGIN`), so every reader (checker, dry run, hover,
    /// completion, definition) leads to the documented spelling.
    pub fn member(&self, iface: &str, name: &str) -> Option<&Member> {
        let own = self.interfaces.get(iface)?;
        if let Some(m) = own.members.get(name) {
            return Some(m);
        }
        self.ancestors(iface)
            .iter()
            .filter_map(|a| self.interfaces.get(a))
            .find_map(|i| i.members.get(name))
            .or_else(|| self.loose_member(iface, name))
    }

    /// Every member of an interface, inherited ones included (an own member hides a
    /// parent's of the same name), sorted by name.
    pub fn members_of(&self, iface: &str) -> Vec<&Member> {
        let mut out: BTreeMap<&str, &Member> = BTreeMap::new();
        let chain = std::iter::once(iface).chain(self.ancestors(iface).iter().map(String::as_str));
        for name in chain {
            if let Some(i) = self.interfaces.get(name) {
                for (k, m) in &i.members {
                    out.entry(k.as_str()).or_insert(m);
                }
            }
        }
        out.into_values().collect()
    }

    /// The `absent` reason for `iface.member`, looking through ancestors.
    pub fn absent_reason(&self, iface: &str, member: &str) -> Option<&str> {
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .find_map(|i| self.absent.get(&(i.to_string(), member.to_string())))
            .map(String::as_str)
    }

    /// Whether `iface` (or an ancestor) takes any string key (`Index: [key: string]`).
    /// Under `Also allows: e4x`, `XML` and `XMLList` do whatever their chunks list:
    /// any name read on them is a child element (ECMA-357, 11.2.1), which is the
    /// language, not the docs. An imported corpus cannot say so with an `Index:` line,
    /// and 12 of 20 findings on real InDesign scripts were `icml.variable`.
    pub fn open_keys(&self, iface: &str) -> bool {
        let e4x = self.engine.allows("e4x");
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .any(|i| {
                (e4x && matches!(i, "XML" | "XMLList"))
                    || self
                        .interfaces
                        .get(i)
                        .is_some_and(|x| x.string_index.is_some())
            })
    }

    /// Whether scripts add their own properties to objects of `iface` (or an ancestor
    /// says so): `Extensible: yes`.
    pub fn is_extensible(&self, iface: &str) -> bool {
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .any(|i| self.interfaces.get(i).is_some_and(|x| x.extensible))
    }

    /// The type of `x[i]` for an object of `iface` (`Index: [index: number]: T`), own or
    /// inherited, nearest first.
    pub fn number_index(&self, iface: &str) -> Option<&Type> {
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .find_map(|i| self.interfaces.get(i)?.number_index.as_ref())
    }

    /// The interface of a documented global variable.
    pub fn global_interface(&self, name: &str) -> Option<&str> {
        self.globals.get(name).map(String::as_str)
    }

    /// A documented global function or variable (member of `Global`).
    /// A member of a `Global members: yes` interface is one too (`docs::globals`).
    pub fn global_member(&self, name: &str) -> Option<&Member> {
        self.interfaces
            .get(GLOBAL_INTERFACE)
            .and_then(|g| g.members.get(name))
            .or_else(|| self.member_as_global(name))
    }

    /// Whether the name is any global the engine has: a documented global object, a
    /// `Global` member, an extra global or function.
    pub fn is_engine_global(&self, name: &str) -> bool {
        self.globals.contains_key(name)
            || self.global_member(name).is_some()
            || self.extra_globals.contains(name)
            || self.extra_functions.contains(name)
    }

    /// The construct whose Start or End member is `name`, with whether it was the Start.
    pub fn construct_of_call(&self, name: &str) -> Option<(&Construct, bool)> {
        self.constructs.values().find_map(|c| {
            if c.start == name {
                Some((c, true))
            } else if c.end == name {
                Some((c, false))
            } else {
                None
            }
        })
    }

    /// The chunk by id.
    pub fn chunk(&self, id: ChunkId) -> &Chunk {
        &self.chunks[id]
    }

    /// The documentation text of a member (its chunk's text), if it has a chunk.
    pub fn member_doc(&self, m: &Member) -> Option<&str> {
        m.chunk.map(|id| self.chunks[id].text.as_str())
    }

    /// Counts of what was derived: `(interfaces, members, globals, constructs)`.
    pub fn counts(&self) -> (usize, usize, usize, usize) {
        let members = self.interfaces.values().map(|i| i.members.len()).sum();
        (
            self.interfaces.len(),
            members,
            self.globals.len(),
            self.constructs.len(),
        )
    }
}

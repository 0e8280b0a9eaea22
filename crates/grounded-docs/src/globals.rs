//! `Global members: yes`: an interface whose members are also global names of the
//! engine (corpus-format.md, "Interface chunk").
//!
//! Why: some engines' scripts use the application object's members with no receiver
//! (`activeDocument`, `documents.add()`, `executeAction(...)`). Read as undeclared
//! names, they were 1,130 of 1,239 findings on 60 real scripts of such an engine, every
//! one a wrong accusation. Which interface this is comes from its chunk, never from a
//! name in the code.
//!
//! A member of such an interface answers [`Corpus::global_member`] as a `Global` member
//! does (the `Global` interface's own member of the same name wins), so the checker,
//! the dry run and the server judge, type, hover, complete and go to it through the
//! one question they already ask.

use std::sync::OnceLock;

use regex::Regex;

use super::model::{Corpus, Member, GLOBAL_INTERFACE};

/// Whether an interface chunk's text says `Global members: yes` (any case, as a list
/// item or in bold or backticks, like `Extensible: yes`).
pub(super) fn says_global_members(text: &str) -> bool {
    static C: OnceLock<Regex> = OnceLock::new();
    C.get_or_init(|| {
        Regex::new(r"(?im)^[\s*_-]*global\s+members[*_]*\s*:\s*[*_`]*\s*yes\b")
            .expect("static regex")
    })
    .is_match(text)
}

impl Corpus {
    /// The interfaces whose members are global names (`Global members: yes`), in the
    /// corpus's order.
    pub fn global_member_interfaces(&self) -> &[String] {
        &self.global_members
    }

    /// The member of a `Global members: yes` interface (its own or inherited) named
    /// `name`; with several such interfaces, the first in the corpus's order.
    pub(super) fn member_as_global(&self, name: &str) -> Option<&Member> {
        self.global_members
            .iter()
            .find_map(|iface| self.member(iface, name))
    }

    /// Every member that is a global name: the `Global` interface's, then those of the
    /// `Global members: yes` interfaces (inherited ones included) that no earlier one
    /// has, each name once. What completion offers and what a misspelt global is near.
    pub fn global_members(&self) -> Vec<&Member> {
        let mut seen = std::collections::HashSet::new();
        let own = self
            .interfaces
            .get(GLOBAL_INTERFACE)
            .into_iter()
            .flat_map(|g| g.members.values());
        let given = self.global_members.iter().flat_map(|i| self.members_of(i));
        own.chain(given)
            .filter(|m| seen.insert(m.name.as_str()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCS: &str = "# Global\n\n## Global-alert\n\nSyntax: alert(s: string): void\n\n\
        # Base\n\n## Base-name\n\nSyntax: name: string\n\n\
        # App\n\nParent interface: Base\n\n**Global members:** yes\n\n\
        ## App-alert\n\nSyntax: alert(n: number): void\n\n\
        ## App-activeDoc\n\nSyntax: activeDoc: Doc\n\n\
        # Doc\n\nGlobal members: no\n\n## Doc-title\n\nSyntax: title: string\n";

    #[test]
    fn members_of_a_marked_interface_are_globals() {
        let c = Corpus::from_texts(&[("api.md", DOCS)]).unwrap();
        assert_eq!(c.global_member_interfaces(), ["App".to_string()]);
        assert_eq!(c.global_member("activeDoc").unwrap().interface, "App");
        // Inherited members too; `Global`'s own member of the same name wins.
        assert_eq!(c.global_member("name").unwrap().interface, "Base");
        assert_eq!(c.global_member("alert").unwrap().interface, "Global");
        // Another interface's members are not globals (`no` is not `yes`).
        assert!(c.global_member("title").is_none());
        assert!(c.is_engine_global("activeDoc"));
        let names: Vec<&str> = c.global_members().iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["alert", "activeDoc", "name"]);
    }

    #[test]
    fn the_line_is_read_as_written() {
        for yes in [
            "Global members: yes",
            "- global members: `yes`",
            "GLOBAL MEMBERS:yes",
        ] {
            assert!(says_global_members(yes), "{yes}");
        }
        for no in [
            "Global members: no",
            "The global members: yes-men",
            "members: yes",
        ] {
            assert!(!says_global_members(no), "{no}");
        }
    }
}

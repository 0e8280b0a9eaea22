//! An interface's family and its spellings: documented sub-interfaces (the inverse of
//! `Parent interface:`) and `Loose member names: yes` (corpus-format.md, "Interface
//! chunk").
//!
//! Why sub-interfaces: real docs type a value by its most general interface (an image
//! editor's `activeLayer: Layer`) while scripts use members that a sub-interface
//! (`ArtLayer`, whose chunk says `Parent interface: Layer`) documents: `kind`,
//! `rasterize()`. Read as `Layer` alone, they were 19 wrong findings in 6 real scripts.
//! The value may be of any interface of the family, so such a member is not reported;
//! it is not *typed* either (another descendant may document the same name otherwise).
//!
//! Why loose names: some engines take an enumeration's values in older spellings
//! (`RulerOrigin.pageOrigin` for the documented `PAGE_ORIGIN`); read strictly they were
//! 95 wrong findings in 24 real scripts. Only interfaces whose chunk says so are loose;
//! the spelling rule is one, equal once lowercased with underscores removed, so a real
//! misspelling is still reported.
//!
//! May import the parent `model` only.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use regex::Regex;

use super::model::{Corpus, Member};

/// Whether an interface chunk's text says `Loose member names: yes` (any case, as a
/// list item or in bold or backticks, like `Extensible: yes`).
pub(super) fn says_loose_names(text: &str) -> bool {
    static C: OnceLock<Regex> = OnceLock::new();
    C.get_or_init(|| {
        Regex::new(r"(?im)^[\s*_-]*loose\s+member\s+names[*_]*\s*:\s*[*_`]*\s*yes\b")
            .expect("static regex")
    })
    .is_match(text)
}

/// Each interface's descendants from every interface's ancestors: the inverse links,
/// each list in name order.
pub(super) fn descendants_of(
    ancestors: &BTreeMap<String, Vec<String>>,
) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    // `ancestors` is in name order, so each list is built in name order.
    for (name, ancs) in ancestors {
        for a in ancs {
            out.entry(a.clone()).or_default().push(name.clone());
        }
    }
    out
}

/// Whether `a` and `b` are one name once lowercased with underscores removed.
pub fn loosely_equal(a: &str, b: &str) -> bool {
    let key = |s: &str| {
        s.bytes()
            .filter(|&c| c != b'_')
            .map(|c| c.to_ascii_lowercase())
            .collect::<Vec<u8>>()
    };
    key(a) == key(b)
}

impl Corpus {
    /// The interfaces documented as extending `iface`, transitively, in name order.
    pub fn descendants(&self, iface: &str) -> &[String] {
        self.descendants
            .get(iface)
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// The member `name` that a descendant of `iface` documents (its own or inherited
    /// from outside `iface`'s chain), the first descendant in name order; `None` when
    /// `iface` itself has it or no descendant does.
    pub fn descendant_member(&self, iface: &str, name: &str) -> Option<&Member> {
        self.descendants(iface)
            .iter()
            .find_map(|d| self.member(d, name))
    }

    /// Whether `iface` or one of its ancestors has loose member names.
    pub fn has_loose_names(&self, iface: &str) -> bool {
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .any(|i| self.interfaces.get(i).is_some_and(|x| x.loose_names))
    }

    /// The interfaces whose chunk says `Loose member names: yes`, in name order.
    pub fn loose_interfaces(&self) -> Vec<&str> {
        self.interfaces
            .values()
            .filter(|i| i.loose_names)
            .map(|i| i.name.as_str())
            .collect()
    }

    /// The member of `iface` that `name` spells loosely: of a loose interface (every
    /// member of its chain), or of a loose ancestor (that ancestor's own members).
    /// Asked only after the exact name failed.
    pub(super) fn loose_member(&self, iface: &str, name: &str) -> Option<&Member> {
        let all = self.interfaces.get(iface)?.loose_names;
        std::iter::once(iface)
            .chain(self.ancestors(iface).iter().map(String::as_str))
            .filter_map(|i| self.interfaces.get(i))
            .filter(|i| all || i.loose_names)
            .find_map(|i| i.members.values().find(|m| loosely_equal(&m.name, name)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOCS: &str = "# Engine\n\nECMAScript: 3\n\n\
        # Layer\n\n## Layer-name\n\nSyntax: name: string\n\n\
        # ArtLayer\n\nParent interface: Layer\n\n## ArtLayer-kind\n\nSyntax: kind: number\n\n\
        # TextLayer\n\nParent interface: ArtLayer\n\n## TextLayer-text\n\nSyntax: text: string\n\n\
        # RulerOrigin\n\n**Loose member names:** yes\n\n## RulerOrigin-PAGE_ORIGIN\n\nSyntax: PAGE_ORIGIN: number\n\n\
        # Strict\n\n## Strict-PAGE_ORIGIN\n\nSyntax: PAGE_ORIGIN: number\n";

    #[test]
    fn descendants_are_the_inverse_of_parents_and_loose_names_are_one_rule() {
        let c = Corpus::from_texts(&[("api.md", DOCS)]).unwrap();
        assert_eq!(c.descendants("Layer"), ["ArtLayer", "TextLayer"]);
        assert_eq!(c.descendants("ArtLayer"), ["TextLayer"]);
        assert!(c.descendants("TextLayer").is_empty());
        assert_eq!(
            c.descendant_member("Layer", "text").unwrap().interface,
            "TextLayer"
        );
        assert_eq!(
            c.descendant_member("Layer", "kind").unwrap().interface,
            "ArtLayer"
        );
        assert!(c.descendant_member("Layer", "bogus").is_none());
        // The member query reads loose spellings, and only on a loose interface.
        for n in ["pageOrigin", "PAGEORIGIN", "page_origin", "PageOrigin"] {
            assert_eq!(
                c.member("RulerOrigin", n).unwrap().name,
                "PAGE_ORIGIN",
                "{n}"
            );
        }
        assert!(c.member("RulerOrigin", "pageOrign").is_none());
        assert!(c.member("Strict", "pageOrigin").is_none());
        assert_eq!(c.loose_interfaces(), ["RulerOrigin"]);
        assert!(says_loose_names("- loose member names: `yes`"));
        assert!(!says_loose_names("Loose member names: no"));
    }
}

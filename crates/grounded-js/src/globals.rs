//! The value of a bare global name that a documented member gives: a `Global`
//! property, or a property of an interface marked `Global members: yes`
//! (`docs::globals`).
//!
//! Why: `activeDocument.activeLayer.name` on such an engine is the member
//! `activeDocument` read with no receiver; unless the bare name is typed as that
//! member, `activeDocumnt` and `activeDocument.activeLayr` alike go unjudged, and hover
//! and completion after the dot know nothing.

use grounded_docs::{Corpus, MemberKind};

use super::analysis::{member_type, type_certain, Certain};

/// The certain type of the undeclared name `name` read as a global property member.
/// A method read without a call is a function value, not its result: `None`.
pub fn global_value<'c>(corpus: &'c Corpus, name: &str) -> Option<Certain<'c>> {
    let m = corpus.global_member(name)?;
    if m.kind != MemberKind::Property {
        return None;
    }
    type_certain(member_type(m)?)
}

/// [`global_value`]'s interface, when it is one.
pub fn global_value_interface<'c>(corpus: &'c Corpus, name: &str) -> Option<&'c str> {
    match global_value(corpus, name)? {
        Certain::Interface(i) => Some(i),
        _ => None,
    }
}

//! A union of documented interfaces as a certain receiver type (interfaces.md, "What
//! modern typings say"): a value the docs type `FrameNode | TextNode | null` is one of
//! those interfaces, whichever; a member none of them documents is a mistake whatever
//! the value is.
//!
//! Why a slice of the docs' own union and a mask, not a list: a [`Certain`] is `Copy`
//! and borrows from the corpus (it is kept in a `Cell` per binding), and narrowing
//! (`node.type === "TEXT"`) keeps a subset of the same union; a mask over the docs'
//! entries is that subset with nothing allocated.
//!
//! May import the parent `analysis` only.

use super::*;

/// A union the docs write, read as "one of these interfaces" (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Union<'a> {
    /// The docs' union, as resolved (`Interface` entries, and `void`/`null` ones,
    /// which have no members at all).
    of: &'a [Type],
    /// Which entries of `of` the value may be (bit `i` for `of[i]`).
    mask: u64,
}

impl<'a> Union<'a> {
    /// The certain reading of the union type `of` (`A | B | null`): one interface, or a
    /// union of two or more; `None` when an entry is not an interface (`any`, `object`,
    /// a primitive, an array, a function: those values have other members, so nothing
    /// is certain about a member) or the union is longer than a mask holds.
    ///
    /// `null`, `undefined` and `void` entries are dropped: they have no member at all,
    /// so a member that no interface of the union documents is missing on them too
    /// (reading it throws). Real typings write most lookups so (`getNodeById(id):
    /// BaseNode | null`).
    pub fn of(of: &'a [Type]) -> Option<Certain<'a>> {
        if of.len() > 64 {
            return None;
        }
        let mut mask = 0u64;
        for (i, t) in of.iter().enumerate() {
            match t {
                Type::Interface(_) => mask |= 1 << i,
                Type::Void => {}
                _ => return None,
            }
        }
        Union { of, mask }.certain()
    }

    /// This union as a certain type: `None` when empty, the interface when one is left.
    fn certain(self) -> Option<Certain<'a>> {
        let mut it = self.interfaces();
        let first = it.next()?;
        if it.all(|i| i == first) {
            return Some(Certain::Interface(first));
        }
        Some(Certain::Union(self))
    }

    /// The interfaces the value may be, in the docs' order (a name written twice is
    /// given twice).
    pub fn interfaces(self) -> impl Iterator<Item = &'a str> {
        self.of
            .iter()
            .enumerate()
            .filter(move |(i, _)| self.mask & (1 << i) != 0)
            .filter_map(|(_, t)| t.interface())
    }

    /// How many interfaces the value may be.
    pub fn len(self) -> usize {
        self.mask.count_ones() as usize
    }

    /// Always false: an empty union is never certain (kept for the `len` convention).
    pub fn is_empty(self) -> bool {
        self.mask == 0
    }

    /// The part of this union whose interfaces `keep` accepts: narrowing. `None` when
    /// none is left (code the docs say never runs, or a test against a value no
    /// interface has: nothing is certain there).
    pub fn keep(self, mut keep: impl FnMut(&'a str) -> bool) -> Option<Certain<'a>> {
        let mut mask = 0;
        for (i, t) in self.of.iter().enumerate() {
            if self.mask & (1 << i) != 0 && t.interface().is_some_and(&mut keep) {
                mask |= 1 << i;
            }
        }
        Union { of: self.of, mask }.certain()
    }

    /// The entries and mask, to rebuild it ([`SeedType::Union`]).
    pub(super) fn parts(self) -> (&'a [Type], u64) {
        (self.of, self.mask)
    }

    /// A union from parts that [`Union::parts`] gave.
    pub(super) fn from_parts(of: &'a [Type], mask: u64) -> Option<Certain<'a>> {
        Union { of, mask }.certain()
    }

    /// The union's text as the docs would write it, of the interfaces left: `A | B`.
    pub fn text(self) -> String {
        self.interfaces().collect::<Vec<_>>().join(" | ")
    }
}

impl<'a> Certain<'a> {
    /// The type of a variable that holds either `self` or `other`: the same type, or
    /// a union the docs write that has the interfaces of both.
    ///
    /// A real plugin wrote `var target; if (id) target = await
    /// figma.getNodeByIdAsync(id); else target = figma.currentPage.selection[0];`: each
    /// value is certain (`BaseNode | null`, `SceneNode`), and every `SceneNode` is one of
    /// `BaseNode`'s interfaces, so the variable is a `BaseNode` whichever branch ran.
    /// Two types that no written union holds together stay uncertain: a union is a
    /// slice of the docs (see the module docs), never made up here.
    pub fn join(self, other: Certain<'a>) -> Option<Certain<'a>> {
        if self == other {
            return Some(self);
        }
        let covering = |wide: Certain<'a>, narrow: Certain<'a>| -> Option<Certain<'a>> {
            let Certain::Union(u) = wide else {
                return None;
            };
            let narrow = match narrow {
                Certain::Interface(_) | Certain::Union(_) => narrow.interfaces(),
                _ => return None,
            };
            let mut mask = u.mask;
            for i in narrow {
                let at = u.of.iter().position(|t| t.interface() == Some(i))?;
                mask |= 1 << at;
            }
            Union { of: u.of, mask }.certain()
        };
        covering(self, other).or_else(|| covering(other, self))
    }

    /// The interfaces a value of this type may be: one, several (a union) or none (a
    /// built-in, an array, a promise).
    pub fn interfaces(self) -> Vec<&'a str> {
        match self {
            Certain::Interface(i) => vec![i],
            Certain::Union(u) => u.interfaces().collect(),
            _ => Vec::new(),
        }
    }

    /// The built-in prototype a value of this type has, when it is one: a built-in, or
    /// an array the docs type (`T[]`).
    pub fn proto(self) -> Option<Proto> {
        match self {
            Certain::Builtin(p) => Some(p),
            Certain::Array(_) => Some(Proto::Array),
            _ => None,
        }
    }
}

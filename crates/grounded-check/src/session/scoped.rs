//! Declaration re-checks: a nested statement whose edit changes only what it assigns a
//! name of its function (`var b = new Block()` → `new BlockQ()`) re-checks what reads
//! that name, not the function.
//!
//! Why: such an edit changes the statement's summary, so the nested path (`inner`)
//! refused it and the top-level statement was re-checked whole: its summary, its
//! constructs paired alone, every site of it judged, and its bindings analysed again at
//! the next keystroke. In a 2,000-line function that was 18–30 ms a keystroke where
//! every other kind of edit took 1–3 ms (issue 48).
//!
//! How: the function is parsed alone and analysed once, with the same cut seed a
//! statement re-check uses; its new bindings, compared with those kept (`inner`), say
//! which names changed type, the edited one and every one typed from it. Only the
//! sites that spell one of them are judged again, by that analysis, and every other
//! finding is kept: a site's findings depend on the types of the names it spells, as
//! the nested path already relies on. The new bindings are kept for the next keystroke.
//!
//! Refused (the caller goes the parent's way) when the function's own contribution to
//! the file could change: a changed name assigned to something not declared in the
//! function (`glob = b`, `this.x = b`), or bindings that are not the same names in the
//! same scopes.
//!
//! Owns no state. May import the parent `session`, the dispatch and the families
//! through `check`; nothing above `check`.

use std::collections::{BTreeMap, HashSet};

use tree_sitter::Node;

use super::recheck::closed_line;
use super::*;
use crate::dispatch::within;
use grounded_js::ScopeFacts;

/// The nested statement edited: its bytes before (`s..e`) and after (`s..new_e`) the
/// edit, the edit's length change, and its summaries before and after.
pub(super) struct Edited<'s> {
    pub(super) s: usize,
    pub(super) e: usize,
    pub(super) new_e: usize,
    pub(super) delta: isize,
    pub(super) old_summary: &'s [String],
    pub(super) new_summary: &'s [String],
}

/// The names of the `decl` lines that differ between two summaries of a nested
/// statement, when nothing else differs: the same names declared with the same kind,
/// only what is assigned to them changed; `None` otherwise.
fn retyped(old: &[String], new: &[String]) -> Option<Vec<String>> {
    let (od, or) = split_decls(old);
    let (nd, nr) = split_decls(new);
    if or != nr || od.len() != nd.len() || od.keys().ne(nd.keys()) {
        return None;
    }
    let changed: Vec<String> = od
        .iter()
        .filter(|(k, v)| nd.get(*k) != Some(*v))
        .filter_map(|(k, _)| k.split(' ').nth(1).map(str::to_string))
        .collect();
    (!changed.is_empty()).then_some(changed)
}

/// A summary's `decl` lines by what they declare, and its other lines.
///
/// `decl NAME KIND NARROWED FOREIGN assigns...`: the first five words say what is
/// declared, the rest what it is assigned.
fn split_decls(lines: &[String]) -> (BTreeMap<String, &str>, Vec<&str>) {
    let mut decls = BTreeMap::new();
    let mut rest = Vec::new();
    for l in lines {
        if l.starts_with("decl ") {
            let head: Vec<&str> = l.split(' ').take(5).collect();
            decls.insert(head.join(" "), l.as_str());
        } else {
            rest.push(l.as_str());
        }
    }
    (decls, rest)
}

/// Where each of `names` is spelt as a word in `text`, as byte ranges from `base`.
///
/// Compared one by one: the names are a few, the words a whole function's, and hashing
/// each word was an eighth of the re-check (callgrind).
fn spelt(text: &str, base: usize, names: &[&str]) -> Vec<(usize, usize)> {
    grounded_js::Seed::words(text)
        .filter(|w| names.contains(w))
        .map(|w| {
            let at = base + (w.as_ptr() as usize - text.as_ptr() as usize);
            (at, at + w.len())
        })
        .collect()
}

/// Whether `name` is declared in a scope of `facts` holding byte `at`.
fn local_at(facts: &[ScopeFacts], at: usize, name: &str) -> bool {
    facts
        .iter()
        .any(|sc| sc.start <= at && at < sc.end && sc.names.iter().any(|n| n.0 == name))
}

/// Whether the spelling `at` of a changed name may flow into something the function
/// does not declare: an assignment (`glob = b`, `this.x = b`, `o.p = b`) whose target's
/// root is not a name declared where it is assigned. Such a name's type belongs to the
/// whole file's facts (the seed), which only a whole check makes again.
fn leaks(text: &str, top: Node, at: (usize, usize), facts: &[ScopeFacts]) -> bool {
    let Some(mut n) = top.descendant_for_byte_range(at.0, at.1) else {
        return true;
    };
    while n.id() != top.id() {
        if matches!(
            n.kind(),
            "assignment_expression" | "augmented_assignment_expression"
        ) {
            let mut target = match n.child_by_field_name("left") {
                Some(t) => t,
                None => return true,
            };
            loop {
                match target.kind() {
                    "member_expression" | "subscript_expression" => {
                        match target.child_by_field_name("object") {
                            Some(o) => target = o,
                            None => return true,
                        }
                    }
                    "parenthesized_expression" => match target.named_child(0) {
                        Some(o) => target = o,
                        None => return true,
                    },
                    _ => break,
                }
            }
            let name = text.get(target.byte_range()).unwrap_or_default();
            if target.kind() != "identifier" || !local_at(facts, target.start_byte(), name) {
                return true;
            }
        }
        match n.parent() {
            Some(p) => n = p,
            None => return true,
        }
    }
    false
}

/// Sorted, disjoint ranges covering `ranges`.
fn merged(mut ranges: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    ranges.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.0 <= last.1 => last.1 = last.1.max(r.1),
            _ => out.push(r),
        }
    }
    out
}

impl Session {
    /// The findings after `ed`, a nested statement of top-level statement `top` (its
    /// kind and bytes now) whose edit changed only what it assigns names of the
    /// function; `None` when the edit is not one this answers (see the module).
    pub(super) fn recheck_scoped(
        &mut self,
        ed: &Edited,
        top: (u16, tree_sitter::Range),
    ) -> Option<Vec<Finding>> {
        let changed = retyped(ed.old_summary, ed.new_summary)?;
        let (ts, te) = (top.1.start_byte, top.1.end_byte);
        let old_facts: Vec<ScopeFacts> = {
            let kept = self.facts.borrow();
            kept.iter().find(|f| (f.s, f.e) == (ts, te))?.scopes.clone()
        };
        // Names of the function only: a global's type is the whole file's.
        if changed.iter().any(|n| !local_at(&old_facts, ed.s, n)) {
            return None;
        }
        let piece = self.parse_piece(top.1, &[(top.0, ts, te)])?;
        let node = piece.root_node().child(0)?;
        let own_text = &self.text[ts..te];
        let cut = self.seed_names.for_text(&self.seed, own_text);
        let a = Analysis::for_node(&self.corpus, &self.text, &piece, node, &cut);
        let new_facts = a.scope_facts();
        // The same scopes holding the same names: then only types changed.
        let same_shape = old_facts.len() == new_facts.len()
            && old_facts.iter().zip(&new_facts).all(|(o, n)| {
                (o.start, o.end, o.parent) == (n.start, n.end, n.parent)
                    && o.names.len() == n.names.len()
                    && o.names
                        .iter()
                        .zip(&n.names)
                        .all(|(x, y)| (&x.0, x.1) == (&y.0, y.1))
            });
        if !same_shape {
            return None;
        }
        let mut names: HashSet<&str> = changed.iter().map(String::as_str).collect();
        for (o, n) in old_facts.iter().zip(&new_facts) {
            for (x, y) in o.names.iter().zip(&n.names) {
                if x != y {
                    names.insert(y.0.as_str());
                }
            }
        }
        // What to judge again: the edited statement, and every site spelling a
        // changed name (with the sites inside it).
        let mut ranges = vec![(ed.s, ed.new_e)];
        let names: Vec<&str> = names.into_iter().collect();
        for at in spelt(own_text, ts, &names) {
            if leaks(&self.text, node, at, &new_facts) {
                return None;
            }
            ranges.extend(
                a.sites()
                    .iter()
                    .filter(|(_, n, _)| n.start_byte() <= at.0 && at.1 <= n.end_byte())
                    .map(|(_, n, _)| (n.start_byte(), n.end_byte())),
            );
        }
        let ranges = merged(ranges);
        let shift_back = |x: usize| {
            if x >= ed.new_e {
                (x as isize - ed.delta) as usize
            } else {
                x
            }
        };
        let old_ranges: Vec<(usize, usize)> = ranges
            .iter()
            .map(|&(s, e)| (shift_back(s), shift_back(e)))
            .collect();
        // As in `recheck_in`: a kept construct finding naming a line at or after the
        // statement would keep an old line number.
        let first = self.starts.partition_point(|&x| x <= ed.s);
        let mut out = Vec::new();
        let mut after = Vec::new();
        for f in &self.findings {
            let (s, e) = (f.span.start, f.span.end);
            if f.code != Code::Construct && within(&old_ranges, s, e) {
                continue;
            }
            if f.code == Code::Construct && closed_line(&f.message).is_some_and(|l| l >= first) {
                return None;
            }
            if e <= ed.s && s < ed.s {
                out.push(kept_before(f, ed.s, ed.e, ed.delta));
            } else if s >= ed.e {
                after.push(f);
            } else {
                return None;
            }
        }
        let idx = LineIndex::from_starts(&self.text, self.starts.clone());
        out.extend(
            after
                .into_iter()
                .map(|f| rebuilt(f, &self.path, &idx, ed.delta)),
        );
        let mut own = self.judge(a, &idx, &cut.polyfills, &ranges, node);
        // As in `recheck_in`: near names of the whole file for these two families.
        if own
            .iter()
            .any(|f| matches!(f.code, Code::Object | Code::Function))
        {
            let a = Analysis::for_node(&self.corpus, &self.text, &piece, node, &self.seed);
            own = self.judge(a, &idx, &self.seed.polyfills, &ranges, node);
        }
        out.extend(own);
        if self.declares_in(&self.text[ed.s..ed.new_e]) {
            self.declares_global.set(true);
        }
        if let Some(f) = self
            .facts
            .get_mut()
            .iter_mut()
            .find(|f| (f.s, f.e) == (ts, te))
        {
            f.scopes = new_facts;
        }
        self.scoped += 1;
        sort_findings(&mut out);
        Some(out)
    }

    /// The findings of the sites inside `ranges` of top-level statement `node`, judged
    /// by `a` (its analysis), guards applied, and only those inside `ranges`.
    fn judge<'a>(
        &'a self,
        a: Analysis<'a>,
        idx: &LineIndex<'a>,
        polyfills: &[String],
        ranges: &[(usize, usize)],
        node: Node<'a>,
    ) -> Vec<Finding> {
        self.judge_statement(a, idx.clone(), polyfills, Some(ranges), node, None)
            .into_iter()
            .filter(|f| within(ranges, f.span.start, f.span.end))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &[&str]) -> Vec<String> {
        s.iter().map(|l| l.to_string()).collect()
    }

    #[test]
    fn only_a_changed_assignment_is_a_retyping() {
        let old = lines(&["decl b Var false false new Block", "dynamic false"]);
        let new = lines(&["decl b Var false false new BlockQ", "dynamic false"]);
        assert_eq!(retyped(&old, &new), Some(vec!["b".to_string()]));
        // Known-bad: a renamed declaration, another kind, a load, a narrowing.
        for other in [
            lines(&["decl bQ Var false false new Block", "dynamic false"]),
            lines(&["decl b Let false false new Block", "dynamic false"]),
            lines(&["decl b Var false false new Block", "dynamic true"]),
            lines(&[
                "decl b Var false false new Block",
                "dynamic false",
                "narrow x",
            ]),
        ] {
            assert_eq!(retyped(&old, &other), None, "{other:?}");
        }
        assert_eq!(retyped(&old, &old), None, "nothing changed");
    }

    #[test]
    fn ranges_merge_into_sorted_disjoint_ones() {
        assert_eq!(
            merged(vec![(10, 20), (0, 5), (12, 15), (18, 30), (40, 41)]),
            vec![(0, 5), (10, 30), (40, 41)]
        );
        let r = merged(vec![(0, 5), (10, 30)]);
        assert!(within(&r, 10, 30) && within(&r, 2, 3) && !within(&r, 4, 11));
    }
}

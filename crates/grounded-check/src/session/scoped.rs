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
//! The function's parse starts from its last parse here (`LastPiece`) when the text
//! differs from that one's in a small stretch only.
//!
//! Owns no state (the parent keeps the last parses). May import the parent `session`,
//! the dispatch and the families through `check`; nothing above `check`.

use std::collections::{BTreeMap, HashSet};

use tree_sitter::Node;

use super::recheck::closed_line;
use super::*;
use crate::dispatch::within;
use grounded_js::ScopeFacts;
use grounded_textfile::diff::{common_prefix, common_suffix};

/// A top-level statement (a function) as last parsed alone here: where it started, its
/// text, and the tree of that text.
///
/// Why: the parse of the function started from the file's tree, edited but not
/// reparsed, which by then held every keystroke since its last parse. One of them in a
/// long list of expression statements (a call typed in the middle of a 2,000-line
/// loop body) made tree-sitter rebuild the whole list: it never reuses an expression
/// statement the edit's parse has to step into (the grammar's statements are parsed
/// ambiguously, "fragile"), so each declaration edit paid a near-fresh parse of the
/// function (~6 ms; `decl-2000` 11-15 ms p50 beside `call-2000` against 4-5 ms alone).
/// The last parse of the function, told only the stretch its text differs in now,
/// steps into nothing else: a call typed and undone since leaves no trace.
///
/// Several are kept, one per function: with one, a declaration typed in a short
/// function in between (the `decl-typo` edits of the eleven-kind round) replaced the
/// long function's, whose next declaration edit parsed from the file's tree again.
pub(super) struct LastPiece {
    start: usize,
    start_point: tree_sitter::Point,
    text: String,
    tree: tree_sitter::Tree,
}

/// The position after bytes `b` when they start at `p`.
fn advance_bytes(p: tree_sitter::Point, b: &[u8]) -> tree_sitter::Point {
    match b.iter().rposition(|&c| c == b'\n') {
        Some(last) => tree_sitter::Point::new(
            p.row + b.iter().filter(|&&c| c == b'\n').count(),
            b.len() - last - 1,
        ),
        None => tree_sitter::Point::new(p.row, p.column + b.len()),
    }
}

/// How many functions keep their last parse: those whose declarations are being typed
/// in (a long function's tree is a few megabytes).
const KEPT_PIECES: usize = 8;

impl LastPiece {
    /// The kept tree edited to describe `now`, the text of `range` (a top-level
    /// statement) in the current file: a copy of the tree, moved to where `range`
    /// starts, with the one stretch where `now` differs from the kept text edited.
    /// `None` when that stretch is more than an eighth of the statement: then the
    /// parse would read it all again anyway, and the file's tree serves as well.
    ///
    /// Safe whatever the kept statement was: the edits describe exactly how the kept
    /// text becomes `now`, which is all tree-sitter's reuse relies on.
    fn old_tree(&self, range: tree_sitter::Range, now: &str) -> Option<tree_sitter::Tree> {
        let (old, new) = (self.text.as_bytes(), now.as_bytes());
        let p = common_prefix(old, new);
        let sfx = common_suffix(&old[p..], &new[p..]);
        let (old_mid, new_mid) = (&old[p..old.len() - sfx], &new[p..new.len() - sfx]);
        if old_mid.len().max(new_mid.len()) * 8 > new.len() {
            return None;
        }
        let mut tree = self.tree.clone();
        if (self.start, self.start_point) != (range.start_byte, range.start_point) {
            // Outside the parsed range: only its length and lines count.
            tree.edit(&tree_sitter::InputEdit {
                start_byte: 0,
                old_end_byte: self.start,
                new_end_byte: range.start_byte,
                start_position: tree_sitter::Point::default(),
                old_end_position: self.start_point,
                new_end_position: range.start_point,
            });
        }
        if !old_mid.is_empty() || !new_mid.is_empty() {
            let start = range.start_byte + p;
            let start_position = advance_bytes(range.start_point, &new[..p]);
            tree.edit(&tree_sitter::InputEdit {
                start_byte: start,
                old_end_byte: start + old_mid.len(),
                new_end_byte: start + new_mid.len(),
                start_position,
                old_end_position: advance_bytes(start_position, old_mid),
                new_end_position: advance_bytes(start_position, new_mid),
            });
        }
        Some(tree)
    }
}

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
        let own_text = &self.text[ts..te];
        // Another function's parse differs all through: refused after comparing its
        // first and last bytes only.
        let kept = (self.last_pieces.iter().enumerate().rev())
            .find_map(|(i, l)| Some((i, l.old_tree(top.1, own_text)?)));
        let kept = kept.map(|(i, tree)| {
            self.last_pieces.remove(i);
            tree
        });
        let piece = super::recheck::parse_piece(
            &mut self.piece_parser,
            &self.text,
            top.1,
            &[(top.0, ts, te)],
            Some(kept.as_ref().unwrap_or(&self.tree)),
        )?;
        let from_last = kept.is_some();
        // One parse per function: an older one of this function (its edits since too
        // far apart to be told) starts where this one does.
        self.last_pieces.retain(|l| l.start != ts);
        if self.last_pieces.len() >= KEPT_PIECES {
            self.last_pieces.remove(0);
        }
        self.last_pieces.push(LastPiece {
            start: ts,
            start_point: top.1.start_point,
            text: self.text[ts..te].to_string(),
            tree: piece.clone(),
        });
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
        self.from_last_piece += usize::from(from_last);
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

    /// Every node of `tree` below its root: kind, bytes and positions.
    fn nodes(tree: &tree_sitter::Tree) -> Vec<String> {
        let mut out = Vec::new();
        let mut walk = grounded_js::Preorder::new(tree.root_node());
        while let Some((n, _)) = walk.next() {
            out.push(format!(
                "{} {:?} {:?} {:?}",
                n.kind(),
                n.byte_range(),
                n.start_position(),
                n.end_position()
            ));
        }
        out
    }

    /// The function of `text` parsed alone, from `old` or afresh.
    fn piece_of(
        text: &str,
        old: Option<&tree_sitter::Tree>,
    ) -> (tree_sitter::Tree, tree_sitter::Range) {
        let file = grounded_js::parse(text);
        let mut c = file.walk();
        let top = file
            .root_node()
            .children(&mut c)
            .find(|n| n.kind() == "function_declaration")
            .map(|n| n.range())
            .unwrap();
        let mut p = grounded_js::parser();
        p.set_included_ranges(&[top]).unwrap();
        (p.parse(text, old).unwrap(), top)
    }

    #[test]
    fn a_kept_piece_edited_to_the_text_now_parses_as_a_fresh_parse() {
        let body: String = (0..300)
            .map(|k| format!("        layout.text(lines[i] + \"{k}\", {{ fontSize: 9 }});\n"))
            .collect();
        let f = format!("function f(lines) {{\n    var b = new Block();\n    for (var i = 0; i < 2; i++) {{\n{body}    }}\n}}\n");
        let (tree, range) = piece_of(&f, None);
        let kept = LastPiece {
            start: range.start_byte,
            start_point: range.start_point,
            text: f[range.start_byte..range.end_byte].to_string(),
            tree,
        };
        let retyped = f.replace("new Block()", "new BlockQ()");
        let called = f.replacen(
            "layout.text(lines[i] + \"150\"",
            "layout.textQ(lines[i] + \"150\"",
            1,
        );
        let both = retyped.replacen("var b", "var bb", 1);
        // The same function moved down by lines and bytes, edited or not; a statement
        // added at the end; two edits far apart (one stretch across them).
        for now in [
            f.clone(),
            retyped.clone(),
            called.clone(),
            both,
            format!("var x = 1;\n\n// moved\n{retyped}"),
            format!("x();\n{called}"),
            f.replace("    }\n}\n", "    }\n    layout.blockEnd();\n}\n"),
        ] {
            let (fresh, range) = piece_of(&now, None);
            let own = &now[range.start_byte..range.end_byte];
            let old = kept.old_tree(range, own).expect("a small stretch");
            let (reused, _) = piece_of(&now, Some(&old));
            assert_eq!(nodes(&reused), nodes(&fresh), "{}", &own[..60]);
            assert!(!reused.root_node().has_error());
        }
        // Known-bad: another function entirely is not a small stretch.
        let other = body.replace("layout.text", "layout.paragraph");
        let other = format!("function g() {{\n{other}}}\n");
        let (_, range) = piece_of(&other, None);
        assert!(kept
            .old_tree(range, &other[range.start_byte..range.end_byte])
            .is_none());
    }

    #[test]
    fn shared_ends_are_counted_across_blocks() {
        let a = "x".repeat(200) + "abc" + &"y".repeat(130);
        let b = "x".repeat(200) + "aQbc" + &"y".repeat(130);
        assert_eq!(common_prefix(a.as_bytes(), b.as_bytes()), 201);
        assert_eq!(common_suffix(a.as_bytes(), b.as_bytes()), 132);
        assert_eq!(common_prefix(a.as_bytes(), a.as_bytes()), a.len());
        assert_eq!(common_suffix(b"", b"abc"), 0);
        let p = advance_bytes(tree_sitter::Point::new(2, 5), b"ab\ncd\nxyz");
        assert_eq!(p, tree_sitter::Point::new(4, 3));
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

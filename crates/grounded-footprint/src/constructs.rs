//! Matching Starts with Ends, and the footprint of each construct instance.
//!
//! Matching is per function scope, in document order: an End closes the innermost
//! still-open Start of the same construct (a table inside a block inside a table
//! closes right). A Start of another construct left open in between is not closed by
//! it: misnesting is the engine's runtime error to report, and a guess here would
//! accuse correct code.

use super::analysis::{Analysis, ChainNode, ConstructCall, UseKind};
use super::{merge_ranges, ConstructInstance};
use grounded_js as js;

/// The outcome of matching one script's construct calls.
#[derive(Debug, Default)]
pub struct Matched {
    /// Paired or unclosed Starts: `(start call, end call)`, in order of the Start. The
    /// End is the last one that closes the Start on some path.
    pub pairs: Vec<(usize, Option<usize>)>,
    /// Ends that close nothing.
    pub stray: Vec<usize>,
    /// Starts that an End closes only on the path that then leaves its branch
    /// (`if (flag) { blockEnd(); return; }`), while the path going on reaches the end
    /// of its function with the construct open: `(start call, that End)`.
    pub open_after: Vec<(usize, usize)>,
}

/// Whether two calls sit in different branches of one `if`/`else` or `switch`: at
/// most one of them runs.
fn exclusive(a: &[ChainNode], b: &[ChainNode]) -> bool {
    let k = a.iter().zip(b).take_while(|(x, y)| x.id == y.id).count();
    k >= 1 && k < a.len() && k < b.len() && a[k - 1].branches
}

/// The statement list that holds a call's statement (its node id).
fn block_of(chain: &[ChainNode]) -> Option<usize> {
    let k = chain.iter().rposition(|n| n.list_child)?;
    k.checked_sub(1).map(|j| chain[j].id)
}

/// Pairs Starts with Ends, per function scope, per path.
///
/// Branches count as alternatives: a Start in the `if` and another in the `else`
/// are both closed by the End after them, and an End in each branch closes the one
/// Start before them. Scripts choose a style per branch; calling that unclosed
/// would accuse correct code.
///
/// An End in a branch that then leaves it (`return`, `throw`, `break`, `continue`)
/// closes the Start for that path only: the Start stays open for the path that goes
/// on, and a later End closes it there. Pairing as if code ran straight through
/// called that later End a stray, and *Remove this block* then deleted half the
/// function.
pub fn match_calls(calls: &[ConstructCall]) -> Matched {
    match_refs(&calls.iter().collect::<Vec<_>>())
}

/// [`match_calls`] over calls held elsewhere (the session keeps them per statement, and
/// copying every call of a 100,000-line file for each keystroke cost more than pairing
/// them).
pub fn match_refs(calls: &[&ConstructCall]) -> Matched {
    // (start, the End that closed it on a path that left, if any), by scope (a node id:
    // hashed with one multiply)
    let mut open: std::collections::HashMap<usize, Vec<(usize, Option<usize>)>, js::IdHash> =
        Default::default();
    let mut pairs: Vec<(usize, Option<usize>)> = Vec::new();
    // By call: its pair when it is a Start (a file's calls, indexed rather than hashed).
    let mut pair_of_start: Vec<usize> = vec![usize::MAX; calls.len()];
    let mut closed: Vec<(usize, usize)> = Vec::new();
    let mut stray = Vec::new();
    for (i, c) in calls.iter().enumerate() {
        if c.is_start {
            open.entry(c.scope).or_default().push((i, None));
            pair_of_start[i] = pairs.len();
            pairs.push((i, None));
            continue;
        }
        let stack = open.entry(c.scope).or_default();
        match stack
            .iter()
            .rposition(|&(s, _)| calls[s].construct == c.construct)
        {
            Some(pos) => {
                let (s, _) = stack.remove(pos);
                pairs[pair_of_start[s]].1 = Some(i);
                closed.push((s, i));
                // The End's path leaves a branch the Start is not in: the path that
                // does not take the branch still has the Start open.
                let leaves = c.exits
                    && block_of(&c.chain)
                        .is_some_and(|b| !calls[s].chain.iter().any(|n| n.id == b));
                if leaves {
                    stack.insert(pos, (s, Some(i)));
                }
                // The same construct opened in another branch closes here too.
                let mut j = stack.len();
                while j > 0 {
                    j -= 1;
                    let (o, _) = stack[j];
                    if o != s
                        && calls[o].construct == c.construct
                        && exclusive(&calls[o].chain, &calls[s].chain)
                    {
                        stack.remove(j);
                        pairs[pair_of_start[o]].1 = Some(i);
                        closed.push((o, i));
                    }
                }
            }
            None => {
                let twin = closed.iter().any(|&(s, e)| {
                    calls[s].scope == c.scope
                        && calls[s].construct == c.construct
                        && exclusive(&calls[e].chain, &c.chain)
                });
                if !twin {
                    stray.push(i);
                }
            }
        }
    }
    let mut open_after: Vec<(usize, usize)> = open
        .into_values()
        .flatten()
        .filter_map(|(s, e)| e.map(|e| (s, e)))
        .collect();
    open_after.sort_unstable();
    Matched {
        pairs,
        stray,
        open_after,
    }
}

/// The innermost ancestor that stands in a statement list (the call's statement).
fn statement_of(chain: &[ChainNode]) -> (usize, usize) {
    chain
        .iter()
        .rev()
        .find(|n| n.list_child)
        .or(chain.last())
        .map(|n| (n.start_row, n.end_row))
        .unwrap_or((0, 0))
}

/// The rows from Start's statement through End's, as whole statements of the list
/// that holds both: a Start inside an `if` and its End after it take the whole `if`,
/// so deleting the rows leaves a script that still parses.
fn span_rows(a: &[ChainNode], b: &[ChainNode]) -> (usize, usize) {
    let k = a.iter().zip(b).take_while(|(x, y)| x.id == y.id).count();
    if k < a.len() && k < b.len() && a[k].list_child && b[k].list_child {
        return (a[k].start_row, b[k].end_row.max(a[k].end_row));
    }
    let common = &a[..k.min(a.len())];
    match common.iter().rev().find(|n| n.list_child) {
        Some(n) => (n.start_row, n.end_row),
        None => {
            let (s, _) = statement_of(a);
            let (_, e) = statement_of(b);
            (s.min(e), e.max(s))
        }
    }
}

/// Every construct instance of an analysed script, in order of its Start.
pub fn instances_of(an: &Analysis) -> Vec<ConstructInstance> {
    resolved_instances(an).into_iter().map(|(i, _)| i).collect()
}

/// Like [`instances_of`], each with whether its object is settled: no object, or an
/// object the analysed code declares. An unsettled object (declared outside the
/// analysed subtree, or a global) has no declaration lines in the footprint.
pub fn resolved_instances(an: &Analysis) -> Vec<(ConstructInstance, bool)> {
    let m = match_calls(&an.calls);
    // Rows of each instance's own span, 0-based inclusive.
    let spans: Vec<(usize, usize)> = m
        .pairs
        .iter()
        .map(|&(s, e)| match e {
            Some(e) => span_rows(&an.calls[s].chain, &an.calls[e].chain),
            None => statement_of(&an.calls[s].chain),
        })
        .collect();
    // Spans by first row, with the running maximum of last rows, to find the spans
    // that hold a row without trying them all.
    let mut order: Vec<usize> = (0..spans.len()).collect();
    order.sort_by_key(|&j| spans[j].0);
    let mut reach = Vec::with_capacity(order.len());
    let mut best = 0;
    for &j in &order {
        best = best.max(spans[j].1);
        reach.push(best);
    }
    // How many instances each variable is the object of: a variable shared by two
    // instances keeps its declaration and configuration when one of them goes.
    let mut objects: std::collections::HashMap<usize, usize> = Default::default();
    for &(s, _) in &m.pairs {
        if let Some((_, Some(b))) = &an.calls[s].object {
            *objects.entry(*b).or_default() += 1;
        }
    }
    // Where each sole object is named at all: a name outside the footprint (a
    // `return t;`, an `if (t.columns)`) means the variable lives on after the
    // construct, and deleting its declaration would break that line.
    let mut named_rows: std::collections::HashMap<usize, Vec<(usize, usize)>> = objects
        .iter()
        .filter(|&(_, &n)| n == 1)
        .map(|(&b, _)| (b, Vec::new()))
        .collect();
    if !named_rows.is_empty() {
        for r in an.refs() {
            if let Some(v) = an.variable(r).and_then(|b| named_rows.get_mut(&b)) {
                v.push((r.row, r.row));
            }
        }
    }
    let mut out = Vec::with_capacity(m.pairs.len());
    for (i, &(s, e)) in m.pairs.iter().enumerate() {
        let start = &an.calls[s];
        let (r0, r1) = spans[i];
        let mut rows = vec![(r0, r1)];
        if let Some((_, Some(b))) = &start.object {
            if objects[b] == 1 {
                for u in an.uses_of(*b) {
                    if !u.deletable || (u.kind == UseKind::Declare && !u.whole) {
                        continue;
                    }
                    if r0 <= u.start_row && u.end_row <= r1 {
                        continue;
                    }
                    // A line inside a construct this one neither holds nor is held by
                    // belongs to that construct.
                    let k = order.partition_point(|&j| spans[j].0 <= u.start_row);
                    let foreign = (0..k)
                        .rev()
                        .take_while(|&x| reach[x] >= u.end_row)
                        .map(|x| order[x])
                        .any(|j| {
                            let (a0, a1) = spans[j];
                            j != i
                                && u.end_row <= a1
                                && !(a0 <= r0 && r1 <= a1)
                                && !(r0 <= a0 && a1 <= r1)
                        });
                    if !foreign {
                        rows.push((u.start_row, u.end_row));
                    }
                }
            }
        }
        // The object named outside the footprint (`log(t.itemCount)`, `return t;`): the
        // footprint keeps the declaration and configuration (leaving them behind was
        // exactly the dead code a removal must not leave), and those lines are listed
        // as the object's other uses.
        let mut uses: Vec<(usize, usize)> = Vec::new();
        if let Some((_, Some(b))) = &start.object {
            let covered = |row: usize| rows.iter().any(|&(a, z)| a <= row && row <= z);
            if let Some(v) = named_rows.get(b) {
                uses = v
                    .iter()
                    .filter(|&&(row, _)| !covered(row))
                    .map(|&(r, _)| (r + 1, r + 1))
                    .collect();
                uses.sort_unstable();
                uses.dedup();
            }
        }
        let settled = match &start.object {
            None => true,
            Some((_, b)) => b.is_some(),
        };
        let lines = merge_ranges(rows.into_iter().map(|(a, b)| (a + 1, b + 1)).collect());
        let end = e.map(|e| &an.calls[e]);
        out.push((
            ConstructInstance {
                construct: start.construct.clone(),
                object: start.object.as_ref().map(|(n, _)| n.clone()),
                start_line: start.chain.last().map_or(0, |n| n.start_row) + 1,
                end_line: match end {
                    Some(c) => c.chain.last().map_or(0, |n| n.start_row) + 1,
                    None => start.chain.last().map_or(0, |n| n.start_row) + 1,
                },
                lines,
                uses: merge_ranges(uses),
                start_span: start.member_span.0..start.member_span.1,
                end_span: end.map(|c| c.member_span.0..c.member_span.1),
            },
            settled,
        ));
    }
    out
}

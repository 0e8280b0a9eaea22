//! `construct`: a construct's Start that some path leaves open, or an End that some
//! path reaches with nothing open.
//!
//! What: `layout.tableStart(t)` with no `layout.tableEnd()` before the end of its
//! function (or script), and a `tableEnd()` that closes nothing. Both are warnings.
//!
//! Why: an unclosed table swallows whatever the script adds after it (the paragraph
//! meant to follow the table lands in its last row), and the engine only complains, if
//! at all, at the end of the run, far from the cause.
//!
//! Example:
//!
//! ```js
//! var stock = new Table();
//! layout.tableStart(stock);   // `layout.tableStart` has no matching `layout.tableEnd()`
//! layout.tableCell("Toner");
//! ```
//!
//! The constructs are the corpus's (`corpus.constructs`); matching is the footprint
//! layer's, per function scope, nesting counted, per path: an End in a branch that
//! then returns, throws or breaks closes for that path only. A function whose body only
//! opens (or only closes) one construct is a helper (`function openBox() {
//! layout.blockStart(b); }`): its calls stand for that Start (End) where they are
//! made, and the helper itself is never accused; the two warnings saying "delete it"
//! on such a pair were wrong. A member the overlay marks absent (`tableCellEnd`) is not
//! the End of anything and is left to the `member` family.

use std::collections::BTreeMap;

use tree_sitter::Node;

use crate::{Code, Finding, Span};
use grounded_docs::Corpus;
use grounded_footprint::{
    analysis::{construct_calls_on_paths, helper_call, ConstructCall},
    constructs::{match_refs, Matched},
};

/// The construct findings of a script (warnings).
pub fn check(corpus: &Corpus, path: &str, text: &str, tree: &tree_sitter::Tree) -> Vec<Finding> {
    check_helpers(corpus, path, text, tree).0
}

/// [`check`], and the names of the helper functions it found (see
/// [`check_with_helpers`]).
pub fn check_helpers(
    corpus: &Corpus,
    path: &str,
    text: &str,
    tree: &tree_sitter::Tree,
) -> (Vec<Finding>, Vec<String>) {
    if !grounded_footprint::mentions_constructs(corpus, text) {
        return (Vec::new(), Vec::new());
    }
    let a = grounded_js::Analysis::new(corpus, text, tree);
    check_with_helpers(corpus, path, text, &a)
}

/// Like [`check`], for a caller that has already analysed the script (the checker):
/// its walk located the construct calls and knows the scopes, so nothing is walked
/// again. `a` must be the full analysis of `text` (not of one statement).
pub fn check_with(
    corpus: &Corpus,
    path: &str,
    text: &str,
    a: &grounded_js::Analysis,
) -> Vec<Finding> {
    check_with_helpers(corpus, path, text, a).0
}

/// [`check_with`], and the names of the script's helper functions (a function whose
/// body only opens or only closes a construct): an edit that names one changes the
/// pairing of the whole file.
pub fn check_with_helpers(
    corpus: &Corpus,
    path: &str,
    text: &str,
    a: &grounded_js::Analysis,
) -> (Vec<Finding>, Vec<String>) {
    let (found, names, _) = check_with_calls(corpus, path, text, a, false);
    (found, names)
}

/// The helpers by name: the ids of their functions, and what they do.
type Helpers = BTreeMap<String, (Vec<usize>, Helper)>;

/// Given which names to keep, the kept calls of those bare names (see [`pair_kept`]).
pub(crate) type BareCalls<'c> = dyn FnMut(&dyn Fn(&str) -> bool) -> Vec<&'c ConstructCall> + 'c;

/// What a helper function does to a construct: opens (`true`) or closes it, how many
/// times.
struct Helper {
    construct: String,
    opens: bool,
    times: usize,
    /// The member it calls (`blockStart`), for messages.
    member: String,
    receiver: String,
}

/// The helpers among the functions that hold construct calls: every call in the
/// function is a Start left open there (or every one an End closing nothing there),
/// all of one construct.
fn helpers(calls: &[&ConstructCall], m: &Matched) -> BTreeMap<String, (Vec<usize>, Helper)> {
    // By call, indexed: a file's calls, hashed into sets, cost a pairing from the kept
    // parts a fifth of its time on 100,000 lines.
    let mut unclosed = vec![false; calls.len()];
    for p in m.pairs.iter().filter(|p| p.1.is_none()) {
        unclosed[p.0] = true;
    }
    let mut stray = vec![false; calls.len()];
    for &i in &m.stray {
        stray[i] = true;
    }
    // Functions in document order (of their first call), not by node id: ids are
    // addresses, and two functions of one name made the later one in *address* order
    // the helper, so the same file gave a different warning in another process.
    // (function id, first call, calls, all of one construct, all open, all stray)
    let mut by_func: Vec<(usize, usize, usize, bool, bool, bool)> = Vec::new();
    let mut slot: std::collections::HashMap<usize, usize, grounded_js::IdHash> = Default::default();
    for (i, c) in calls.iter().enumerate() {
        if c.func.0 == 0 || c.func.1.is_none() {
            continue;
        }
        let k = *slot.entry(c.func.0).or_insert_with(|| {
            by_func.push((c.func.0, i, 0, true, true, true));
            by_func.len() - 1
        });
        let f = &mut by_func[k];
        f.2 += 1;
        f.3 &= c.construct == calls[f.1].construct;
        f.4 &= c.is_start && unclosed[i];
        f.5 &= !c.is_start && stray[i];
    }
    by_func.sort_by_key(|f| calls[f.1].member_span.0);
    let mut out: BTreeMap<String, (Vec<usize>, Helper)> = BTreeMap::new();
    for (id, first, times, same, opens, closes) in by_func {
        let first = calls[first];
        if !same || !(opens || closes) {
            continue;
        }
        let name = first.func.1.clone().unwrap_or_default();
        // A name declared twice: the last declaration is the one called (hoisting),
        // and every body of that shape is a helper's, never accused.
        let mut ids = out.remove(&name).map(|h| h.0).unwrap_or_default();
        ids.push(id);
        out.insert(
            name,
            (
                ids,
                Helper {
                    construct: first.construct.clone(),
                    opens,
                    times,
                    member: first.member.clone(),
                    receiver: first.receiver.clone(),
                },
            ),
        );
    }
    out
}

/// The calls of helper functions in the tree under `root`, as the Starts and Ends
/// they stand for.
fn helper_calls(
    text: &str,
    root: Node,
    helpers: &BTreeMap<String, (Vec<usize>, Helper)>,
) -> Vec<ConstructCall> {
    let bare = bare_calls(text, root, root, &|n| helpers.contains_key(n));
    as_helper_calls(bare.iter(), helpers)
}

/// The calls of bare names under `top` (a top-level statement of the tree whose
/// program is `root`, or `root` itself) that `keep` accepts, each as a helper's call
/// would stand (see [`helper_call`]) for a construct yet to be known: what an edit
/// elsewhere that makes or unmakes a helper needs of this statement, without walking
/// it again (the session keeps them per statement).
pub(crate) fn bare_calls(
    text: &str,
    root: Node,
    top: Node,
    keep: &dyn Fn(&str) -> bool,
) -> Vec<ConstructCall> {
    let ids = grounded_js::query::kind_ids();
    let (call, identifier) = (ids.call_expression, ids.identifier);
    let mut out = Vec::new();
    let mut path: Vec<Node> = Vec::with_capacity(32);
    let base = usize::from(top != root);
    if top != root {
        path.push(root);
    }
    // Named nodes only: every ancestor of a call is named, and the tokens were half
    // of a cursor walk's steps.
    let mut walk = grounded_js::Preorder::named(top, &grounded_js::query::anonymous_roots().keep);
    while let Some((node, depth)) = walk.next() {
        path.truncate(base + depth);
        path.push(node);
        if node.kind_id() != call {
            continue;
        }
        let Some(f) = node.child_by_field_name("function") else {
            continue;
        };
        let Some(name) = (f.kind_id() == identifier)
            .then(|| text.get(f.byte_range()))
            .flatten()
        else {
            continue;
        };
        if !keep(name) {
            continue;
        }
        let func = path[..path.len() - 1]
            .iter()
            .rev()
            .find(|n| ids.is_function(n.kind_id()))
            .map_or(0, |n| n.id());
        out.push(helper_call(
            "",
            false,
            name,
            (f.start_byte(), f.end_byte()),
            &path,
            (func, None),
        ));
    }
    out
}

/// The calls among `bare` (from [`bare_calls`]) of the helpers, as the Starts and
/// Ends they stand for, each as many times as its helper opens or closes.
fn as_helper_calls<'c>(
    bare: impl Iterator<Item = &'c ConstructCall>,
    helpers: &BTreeMap<String, (Vec<usize>, Helper)>,
) -> Vec<ConstructCall> {
    let mut out = Vec::new();
    for b in bare {
        let Some((_, h)) = helpers.get(b.member.as_str()) else {
            continue;
        };
        for _ in 0..h.times {
            let mut c = b.clone();
            c.construct = h.construct.clone();
            c.is_start = h.opens;
            // Read as an End's: whether the path leaves after it only matters to one.
            c.exits = !h.opens && b.exits;
            out.push(c);
        }
    }
    out
}

/// *Insert `layout.tableEnd()`* as the last statement of the block that holds the
/// Start, indented as the Start's statement: the pairing is per function in document
/// order, so an End there closes it. Offered only where the block's closing `}` opens
/// its line (or the block is the script): elsewhere the place to write is not clear.
fn insert_end(
    text: &str,
    idx: &grounded_js::LineIndex,
    c: &ConstructCall,
    receiver: &str,
    end: &str,
    markdown: bool,
) -> Option<crate::Fix> {
    let stmt = c.chain.iter().rposition(|n| n.list_child)?;
    if stmt == 1 && markdown {
        // The script's end is the Markdown file's end, outside the fenced block.
        return None;
    }
    let block = &c.chain[stmt.checked_sub(1)?];
    let line_start = idx.line_start(c.chain[stmt].start_row);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|ch| *ch == ' ' || *ch == '\t')
        .collect();
    let call = format!("{receiver}.{end}()");
    let (at, new) = if stmt == 1 {
        // The script itself: after its last line.
        let nl = if text.is_empty() || text.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        (text.len(), format!("{nl}{indent}{call};\n"))
    } else {
        let at = idx.line_start(block.end_row);
        if !text.get(at..)?.trim_start().starts_with('}')
            || block.end_row <= c.chain[stmt].start_row
        {
            return None;
        }
        (at, format!("{indent}{call};\n"))
    };
    Some(crate::Fix::Replace {
        title: format!("Insert `{call}`"),
        span: Span::new(at, at),
        text: new,
        safe: false,
    })
}

/// The findings of `calls` (from either walk of `text`, whose tree is under `root`),
/// helpers paired where they are called, and the helpers' names.
fn findings(
    corpus: &Corpus,
    path: &str,
    text: &str,
    calls: &[ConstructCall],
    root: Node,
) -> (Vec<Finding>, Vec<String>) {
    let calls = calls.iter().collect();
    pair(
        corpus,
        path,
        text,
        calls,
        &mut |h| helper_calls(text, root, h),
        None,
    )
}

/// The findings of `calls` (every construct call of `text`, in document order),
/// helpers paired at the calls `called` finds of them; `idx` indexes `text` when the
/// caller keeps one.
fn pair(
    corpus: &Corpus,
    path: &str,
    text: &str,
    mut calls: Vec<&ConstructCall>,
    called: &mut dyn FnMut(&Helpers) -> Vec<ConstructCall>,
    idx: Option<grounded_js::LineIndex>,
) -> (Vec<Finding>, Vec<String>) {
    if calls.is_empty() {
        return (Vec::new(), Vec::new());
    }
    // Scopes are numbered by function: the calls found by either walk and the
    // helpers' are matched per function.
    debug_assert!(calls.iter().all(|c| c.scope == c.func.0));
    let mut m = match_refs(&calls);
    let helpers = helpers(&calls, &m);
    let names: Vec<String> = helpers.keys().cloned().collect();
    let extra = if helpers.is_empty() {
        Vec::new()
    } else {
        called(&helpers)
    };
    if !helpers.is_empty() {
        // A helper's body is paired where it is called: its own calls are its summary.
        let bodies: std::collections::HashSet<usize> =
            helpers.values().flat_map(|h| h.0.iter().copied()).collect();
        calls.retain(|c| !bodies.contains(&c.func.0));
    }
    let mut calls: Vec<&ConstructCall> = calls.into_iter().chain(extra.iter()).collect();
    if !helpers.is_empty() {
        calls.sort_by_key(|c| c.member_span.0);
        m = match_refs(&calls);
    }
    let by_helper: BTreeMap<&str, &Helper> =
        helpers.iter().map(|(k, v)| (k.as_str(), &v.1)).collect();
    (
        report(corpus, path, text, &calls, &m, &by_helper, idx),
        names,
    )
}

/// [`check_with_helpers`], and the construct calls it paired, as located (before any
/// helper is paired where it is called) when `keep`: the session keeps them per
/// statement.
pub(crate) fn check_with_calls(
    corpus: &Corpus,
    path: &str,
    text: &str,
    a: &grounded_js::Analysis,
    keep: bool,
) -> (Vec<Finding>, Vec<String>, Vec<ConstructCall>) {
    let calls = construct_calls_on_paths(text, corpus, a.construct_paths(), &|n, o| {
        a.is_declared(n, o)
    });
    let (found, names) = findings(corpus, path, text, &calls, a.tree().root_node());
    (found, names, if keep { calls } else { Vec::new() })
}

/// The findings of a script from its parts kept per statement: `calls`, every construct
/// call in document order (as [`construct_calls_on_paths`] locates them over the whole
/// script), and `bare(named)`, the calls of bare names that `named` accepts in document
/// order (as [`bare_calls`] finds them). The same pairing as [`check`], without reading
/// the tree.
pub(crate) fn pair_kept<'c>(
    corpus: &Corpus,
    path: &str,
    text: &str,
    calls: Vec<&'c ConstructCall>,
    bare: &mut BareCalls<'c>,
    idx: grounded_js::LineIndex,
) -> (Vec<Finding>, Vec<String>) {
    pair(
        corpus,
        path,
        text,
        calls,
        &mut |h| as_helper_calls(bare(&|n| h.contains_key(n)).into_iter(), h),
        Some(idx),
    )
}

fn report(
    corpus: &Corpus,
    path: &str,
    text: &str,
    calls: &[&ConstructCall],
    m: &Matched,
    helpers: &BTreeMap<&str, &Helper>,
    idx: Option<grounded_js::LineIndex>,
) -> Vec<Finding> {
    if calls.is_empty() {
        return Vec::new();
    }
    if m.stray.is_empty() && m.open_after.is_empty() && m.pairs.iter().all(|&(_, e)| e.is_some()) {
        // Nothing to report: skip indexing the lines of the whole text.
        return Vec::new();
    }
    let idx = idx.unwrap_or_else(|| grounded_js::LineIndex::new(text));
    let finding = |c: &ConstructCall, message: String| {
        let span = Span::new(c.member_span.0, c.member_span.1);
        Finding::with_index(path, &idx, span, Code::Construct, message)
    };
    let place = |c: &ConstructCall| if c.scope == 0 { "script" } else { "function" };
    // How a call is named in a message: `layout.blockStart`, or `openBox()` (which calls
    // `layout.blockStart`).
    let named = |c: &ConstructCall| match helpers.get(c.member.as_str()).filter(|_| c.helper) {
        Some(h) => format!(
            "`{}()` (which calls `{}.{}`)",
            c.member, h.receiver, h.member
        ),
        None => format!("`{}.{}`", c.receiver, c.member),
    };
    let receiver = |c: &ConstructCall| match helpers.get(c.member.as_str()).filter(|_| c.helper) {
        Some(h) => h.receiver.clone(),
        None => c.receiver.clone(),
    };
    let mut out = Vec::new();
    for &(s, e) in &m.pairs {
        if e.is_some() {
            continue;
        }
        let c = &calls[s];
        let end = corpus
            .constructs
            .get(&c.construct)
            .map_or("End", |k| k.end.as_str());
        let mut f = finding(
            c,
            format!(
                "{} has no matching `{}.{end}()` before the end of its {}: everything added after it lands inside the {}",
                named(c), receiver(c), place(c), c.construct
            ),
        );
        // A helper's call (`openBox()`) is closed where it is called, with the End
        // of the receiver the helper opens on.
        let on = receiver(c);
        f.fixes.extend(insert_end(
            text,
            &idx,
            c,
            &on,
            end,
            grounded_js::is_markdown(path),
        ));
        out.push(f);
    }
    for &(s, e) in &m.open_after {
        let c = &calls[s];
        let end_row = calls[e].chain.last().map_or(0, |n| n.start_row) + 1;
        let end = corpus
            .constructs
            .get(&c.construct)
            .map_or("End", |k| k.end.as_str());
        out.push(finding(
            c,
            format!(
                "{} is closed on line {end_row} only on the path that then leaves its branch; the path that goes on reaches the end of its {} with no `{}.{end}()`",
                named(c), place(c), receiver(c)
            ),
        ));
    }
    for &i in &m.stray {
        let c = &calls[i];
        let start = corpus
            .constructs
            .get(&c.construct)
            .map_or("Start", |k| k.start.as_str());
        let call = match helpers.get(c.member.as_str()).filter(|_| c.helper) {
            Some(_) => named(c),
            None => format!("`{}.{}()`", c.receiver, c.member),
        };
        out.push(finding(
            c,
            format!(
                "{call} closes no open `{}.{start}` in this {}: delete it, or open the {} before it",
                receiver(c), place(c), c.construct
            ),
        ));
    }
    out.sort_by_key(|f| f.span.start);
    out
}

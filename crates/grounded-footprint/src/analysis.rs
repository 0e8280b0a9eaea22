//! The statements and calls that footprints are made of, over `js`'s scopes: the
//! statements that declare or configure each variable, and the calls of constructs'
//! Start and End members.
//!
//! What a name refers to is [`grounded_js::Analysis`]'s answer (the checker's), read in
//! its one walk ([`grounded_js::Analysis::with_refs`]): a second scope analysis here once
//! answered "what does `box` refer to" on its own, and two answers disagree one day
//! (a catch parameter was a variable of its whole function here, and the agent's
//! footprints would then contradict the checker's findings in one reply). What stays
//! here is about constructs and deletion: which statements declare, assign, configure
//! or pass a variable, whether deleting their lines deletes exactly them, and where
//! each construct call stands.
//!
//! Names that no scope declares are globals and never expand, an implicit global
//! (`x = 1` with no `var`) included: expanding `layout` would bring every line of the
//! script.

use std::num::NonZeroU16;
use std::sync::OnceLock;

use tree_sitter::{Node, Tree};

use grounded_docs::Corpus;
use grounded_js::{self as js, BindingId, BindingKind, Ref, WalkPath};

/// Node kind and field ids of the JavaScript grammar, resolved once.
struct Ids {
    identifier: u16,
    program: u16,
    statement_block: u16,
    switch_case: u16,
    switch_default: u16,
    switch_body: u16,
    if_statement: u16,
    variable_declarator: u16,
    variable_declaration: u16,
    lexical_declaration: u16,
    expression_statement: u16,
    assignment_expression: u16,
    augmented_assignment_expression: u16,
    member_expression: u16,
    call_expression: u16,
    arguments: u16,
    property_identifier: u16,
    comment: u16,
    f_name: NonZeroU16,
    f_left: NonZeroU16,
    f_object: NonZeroU16,
    f_function: NonZeroU16,
    f_arguments: NonZeroU16,
}

fn ids() -> &'static Ids {
    static IDS: OnceLock<Ids> = OnceLock::new();
    IDS.get_or_init(|| {
        let lang: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
        let k = |s: &str| lang.id_for_node_kind(s, true);
        let f = |s: &str| {
            lang.field_id_for_name(s)
                .expect("the JavaScript grammar has this field")
        };
        Ids {
            identifier: k("identifier"),
            program: k("program"),
            statement_block: k("statement_block"),
            switch_case: k("switch_case"),
            switch_default: k("switch_default"),
            switch_body: k("switch_body"),
            if_statement: k("if_statement"),
            variable_declarator: k("variable_declarator"),
            variable_declaration: k("variable_declaration"),
            lexical_declaration: k("lexical_declaration"),
            expression_statement: k("expression_statement"),
            assignment_expression: k("assignment_expression"),
            augmented_assignment_expression: k("augmented_assignment_expression"),
            member_expression: k("member_expression"),
            call_expression: k("call_expression"),
            arguments: k("arguments"),
            property_identifier: k("property_identifier"),
            comment: k("comment"),
            f_name: f("name"),
            f_left: f("left"),
            f_object: f("object"),
            f_function: f("function"),
            f_arguments: f("arguments"),
        }
    })
}

impl Ids {
    fn is_list(&self, k: u16) -> bool {
        k == self.program
            || k == self.statement_block
            || k == self.switch_case
            || k == self.switch_default
    }
}

/// How a statement involves a variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseKind {
    /// `var box = ...`
    Declare,
    /// `box = ...`
    Assign,
    /// `box.prop = ...` or `box.method(...)`
    Configure,
    /// `f(box)`, `layout.blockStart(box)`
    Pass,
}

/// One statement that declares or configures a declared variable.
#[derive(Debug, Clone, Copy)]
pub struct Use {
    /// The variable: a binding of [`Analysis::js`].
    pub binding: BindingId,
    /// How.
    pub kind: UseKind,
    /// 0-based first row of the statement.
    pub start_row: usize,
    /// 0-based last row of the statement.
    pub end_row: usize,
    /// The statement is only about this variable (a declaration with one declarator).
    pub whole: bool,
    /// The statement stands in a statement list (not the lone body of an `if`), and
    /// owns its lines (nothing else of the code shares them): deleting its lines
    /// deletes exactly it.
    pub deletable: bool,
}

/// An ancestor of a call, for finding the statements that hold a construct.
#[derive(Debug, Clone, Copy)]
pub struct ChainNode {
    /// tree-sitter's node id.
    pub id: usize,
    /// 0-based first row.
    pub start_row: usize,
    /// 0-based last row.
    pub end_row: usize,
    /// Whether the node stands in a statement list.
    pub list_child: bool,
    /// Whether the node's children are alternatives of which one runs: an `if`
    /// (consequence or `else`) or a `switch` body (one case).
    pub branches: bool,
}

/// A call of a construct's Start or End member on the global that has it.
#[derive(Debug, Clone)]
pub struct ConstructCall {
    /// The construct's id.
    pub construct: String,
    /// Start (true) or End.
    pub is_start: bool,
    /// The global receiver, as written.
    pub receiver: String,
    /// The member's name, as written.
    pub member: String,
    /// Byte span of the member's name.
    pub member_span: (usize, usize),
    /// The function the call is in (its node id, 0 for the top level): matching
    /// happens per function.
    pub scope: usize,
    /// The call's ancestors, root first, the call itself last.
    pub chain: Vec<ChainNode>,
    /// The first argument, when it is a plain identifier: its name and variable.
    pub object: Option<(String, Option<usize>)>,
    /// For an End: a statement after the call's, in the same statement list, leaves
    /// that list (`return`, `throw`, `break`, `continue`): the End closes the construct
    /// for that path only (`if (flag) { blockEnd(); return; }`).
    pub exits: bool,
    /// The innermost function holding the call (tree-sitter's node id, 0 for the top
    /// level) and its name when it is a function declaration.
    pub func: (usize, Option<String>),
    /// Whether this is the call of a helper function standing for its Start or End
    /// (see `check::construct`), not a call of the construct's member.
    pub helper: bool,
    receiver_start: usize,
    object_start: Option<usize>,
}

impl ConstructCall {
    /// Moves the call by `bytes` and `rows`, as the text before it grew: the same call of
    /// a statement that an edit elsewhere moved (the session keeps calls per statement).
    /// The chain's root, the program, does not move.
    pub fn shift(&mut self, bytes: isize, rows: isize) {
        let b = |x: usize| x.saturating_add_signed(bytes);
        let r = |x: usize| x.saturating_add_signed(rows);
        self.member_span = (b(self.member_span.0), b(self.member_span.1));
        self.receiver_start = b(self.receiver_start);
        self.object_start = self.object_start.map(b);
        // Most edits move no line (a typo): the chain, a separate allocation, is then
        // not touched.
        if rows != 0 {
            for n in self.chain.iter_mut().skip(1) {
                n.start_row = r(n.start_row);
                n.end_row = r(n.end_row);
            }
        }
    }
}

/// The facts of one script that footprints are made of.
#[derive(Debug)]
pub struct Analysis<'a> {
    /// Scopes, bindings and every identifier with the binding it names: the checker's
    /// analysis, made [`js::Analysis::with_refs`].
    pub js: js::Analysis<'a>,
    /// Every declaring or configuring statement of a declared variable, in document
    /// order.
    pub uses: Vec<Use>,
    /// Construct Start/End calls on globals, in document order (empty without a corpus).
    pub calls: Vec<ConstructCall>,
    uses_by_binding: Vec<Vec<usize>>,
}

/// The corpus of an analysis asked without one (variable footprints, `find`): it
/// names no construct, so no call is one.
fn no_corpus() -> &'static Corpus {
    static EMPTY: OnceLock<Corpus> = OnceLock::new();
    EMPTY.get_or_init(Corpus::empty)
}

/// (identifier's first byte, kind, statement's first row, last row, whole, deletable)
type PendingUse = (usize, UseKind, usize, usize, bool, bool);

impl<'a> Analysis<'a> {
    /// Analyses a script. With a corpus, also finds the calls of constructs.
    pub fn new(text: &'a str, tree: &'a Tree, corpus: Option<&'a Corpus>) -> Analysis<'a> {
        Analysis::of_node(text, tree, tree.root_node(), corpus)
    }

    /// Analyses one subtree only (a function and what it holds): names it does not
    /// declare count as outer. A footprint query on a huge script reads the function
    /// it is in, not the whole file.
    pub fn of_node(
        text: &'a str,
        tree: &'a Tree,
        top: Node<'a>,
        corpus: Option<&'a Corpus>,
    ) -> Analysis<'a> {
        let ids = ids();
        let mut pending: Vec<PendingUse> = Vec::new();
        let js = js::Analysis::with_refs(
            match corpus {
                Some(c) => c,
                None => no_corpus(),
            },
            text,
            tree,
            top,
            |path| {
                if path.last().is_some_and(|n| n.1 == ids.identifier) {
                    pending.extend(classify(ids, text, path));
                }
            },
        );
        let mut uses = Vec::with_capacity(pending.len());
        let mut uses_by_binding = vec![Vec::new(); js.bindings.len()];
        for (at, kind, start_row, end_row, whole, deletable) in pending {
            let Some(b) = js.ref_starting_at(at).and_then(|r| variable(&js, r)) else {
                continue;
            };
            uses_by_binding[b].push(uses.len());
            uses.push(Use {
                binding: b,
                kind,
                start_row,
                end_row,
                whole,
                deletable,
            });
        }
        let calls = match corpus {
            Some(corpus) => {
                // The same calls the checker's `construct` family pairs, with the same
                // answer to whether the receiver is the engine's global.
                let mut calls =
                    construct_calls_on_paths(text, corpus, js.construct_paths(), &|n, o| {
                        js.is_declared(n, o)
                    });
                for c in &mut calls {
                    if let (Some(o), Some((_, b))) = (c.object_start, c.object.as_mut()) {
                        *b = js.ref_starting_at(o).and_then(|r| variable(&js, r));
                    }
                }
                calls
            }
            None => Vec::new(),
        };
        Analysis {
            js,
            uses,
            calls,
            uses_by_binding,
        }
    }

    /// Every identifier of the analysed code, in document order.
    pub fn refs(&self) -> &[Ref] {
        self.js.refs()
    }

    /// The declared variable a ref names: `None` for a global, implicit ones included
    /// (globals never expand).
    pub fn variable(&self, r: &Ref) -> Option<BindingId> {
        variable(&self.js, r)
    }

    /// A variable's name.
    pub fn name(&self, binding: BindingId) -> &'a str {
        self.js.bindings.get(binding).map_or("", |b| b.name)
    }

    /// 0-based row of a variable's first declaration.
    pub fn decl_row(&self, binding: BindingId) -> usize {
        let start = self.js.bindings.get(binding).map_or(0, |b| b.start);
        let text = self.js.text();
        text.get(..start)
            .map_or(0, |h| h.bytes().filter(|&b| b == b'\n').count())
    }

    /// The statements of a variable, in document order.
    pub fn uses_of(&self, binding: BindingId) -> impl Iterator<Item = &Use> + '_ {
        let uses = &self.uses;
        self.uses_by_binding
            .get(binding)
            .into_iter()
            .flatten()
            .map(move |&i| &uses[i])
    }
}

fn variable(js: &js::Analysis, r: &Ref) -> Option<BindingId> {
    r.binding.filter(|&b| {
        js.bindings
            .get(b)
            .is_some_and(|b| b.kind != BindingKind::Implicit)
    })
}

fn owns_lines(text: &str, start: usize, end: usize) -> bool {
    let (Some(head), Some(tail)) = (text.get(..start), text.get(end..)) else {
        return false;
    };
    let ls = head.rfind('\n').map_or(0, |i| i + 1);
    if !head[ls..].trim().is_empty() {
        return false;
    }
    let after = tail.split('\n').next().unwrap_or("").trim();
    after.is_empty() || after.starts_with("//")
}

/// Whether `child` is `parent`'s field `f`.
fn is_field(parent: Node, f: NonZeroU16, child: Node) -> bool {
    parent.child_by_field_id(f.get()) == Some(child)
}

/// Whether the identifier that ends `path` (its ancestors before it) sits where a
/// statement declares or configures it: that statement, keyed by the identifier's
/// first byte.
fn classify(ids: &Ids, text: &str, path: WalkPath) -> Option<PendingUse> {
    let (&(node, _), anc) = path.split_last()?;
    let n = anc.len();
    let &(parent, pk) = anc.last()?;
    let is_assign =
        |k: u16| k == ids.assignment_expression || k == ids.augmented_assignment_expression;
    // (how, index of the statement in `anc`, whether it is about this variable alone)
    let (kind, st, whole) = if pk == ids.variable_declarator && is_field(parent, ids.f_name, node) {
        let st = n.checked_sub(2)?;
        let decl = anc[st].0;
        if anc[st].1 != ids.variable_declaration && anc[st].1 != ids.lexical_declaration {
            return None;
        }
        let mut c = decl.walk();
        let declarators = decl
            .named_children(&mut c)
            .filter(|ch| ch.kind_id() == ids.variable_declarator)
            .count();
        (UseKind::Declare, st, declarators == 1)
    } else if is_assign(pk) && is_field(parent, ids.f_left, node) {
        (UseKind::Assign, n.checked_sub(2)?, true)
    } else if pk == ids.arguments {
        let call = n.checked_sub(2)?;
        if anc[call].1 != ids.call_expression {
            return None;
        }
        (UseKind::Pass, n.checked_sub(3)?, true)
    } else if pk == ids.member_expression && is_field(parent, ids.f_object, node) {
        // Up the chain `box.a.b` while each is the object of the next.
        let mut i = n - 1;
        while i >= 1
            && anc[i - 1].1 == ids.member_expression
            && is_field(anc[i - 1].0, ids.f_object, anc[i].0)
        {
            i -= 1;
        }
        let (top, p) = (anc[i].0, anc.get(i.checked_sub(1)?)?);
        let ok = (is_assign(p.1) && is_field(p.0, ids.f_left, top))
            || (p.1 == ids.call_expression && is_field(p.0, ids.f_function, top));
        if !ok {
            return None;
        }
        (UseKind::Configure, i.checked_sub(2)?, true)
    } else {
        return None;
    };
    let (stmt, sk) = anc[st];
    if kind != UseKind::Declare && sk != ids.expression_statement {
        return None;
    }
    // Deleting the statement's lines deletes exactly it only when it stands in a
    // statement list (not the lone body of an `if`) and nothing else shares its lines.
    let in_list = st.checked_sub(1).is_some_and(|p| ids.is_list(anc[p].1));
    Some((
        node.start_byte(),
        kind,
        stmt.start_position().row,
        stmt.end_position().row,
        whole,
        in_list && owns_lines(text, stmt.start_byte(), stmt.end_byte()),
    ))
}

/// The chain of a call from its ancestors and the call itself, outermost first, each
/// with its kind and last row.
///
/// Also the call's statement (the innermost node standing in a list) when that list is
/// a nested block, which a `return` or `break` in it can leave.
fn chain_and_statement<'t>(
    ids: &Ids,
    nodes: impl Iterator<Item = (Node<'t>, u16, usize)>,
) -> (Vec<ChainNode>, Option<Node<'t>>) {
    let mut chain = Vec::new();
    let mut prev_list = false;
    let mut statement = None;
    // (kind of the node before, kind of the node before that)
    let mut before = (0u16, 0u16);
    for (node, kind, end_row) in nodes {
        if prev_list {
            // Only a list nested in a branch or loop can be left while the function
            // goes on: the program and a function's body hold every Start of their
            // scope, and scanning their statements after each End would cost the
            // square of a long flat script.
            let (list, holder) = before;
            let nested = list != ids.program && !js::is_function_kind(holder);
            statement = nested.then_some(node);
        }
        chain.push(ChainNode {
            id: node.id(),
            start_row: node.start_position().row,
            end_row,
            list_child: prev_list,
            branches: kind == ids.if_statement || kind == ids.switch_body,
        });
        prev_list = ids.is_list(kind);
        before = (kind, before.0);
    }
    (chain, statement)
}

/// What [`construct_call_parts`] asks of a call's place once the call is known to be a
/// construct's: its chain, whether its path leaves its list after it (Ends only), its
/// function.
type CallPlace = (Vec<ChainNode>, bool, (usize, Option<String>));

/// The innermost function among `ancestors` (outermost first): its node id (0 when
/// none) and its name when it is a function declaration.
fn function_of<'t>(
    ids: &Ids,
    text: &str,
    ancestors: impl DoubleEndedIterator<Item = Node<'t>>,
) -> (usize, Option<String>) {
    let mut it = ancestors.rev();
    match it.find(|n| js::is_function_kind(n.kind_id())) {
        Some(f) => {
            let name = (f.kind_id() == js::query::kind_ids().function_declaration)
                .then(|| f.child_by_field_id(ids.f_name.get()))
                .flatten()
                .and_then(|n| text.get(n.byte_range()))
                .map(str::to_string);
            (f.id(), name)
        }
        None => (0, None),
    }
}

/// A call of a helper function (`openBox()`) that stands for a construct's Start or
/// End where it is called; `chain` holds the call's ancestors and the call, outermost
/// first, `func` its innermost function.
pub fn helper_call(
    construct: &str,
    is_start: bool,
    name: &str,
    span: (usize, usize),
    chain: &[Node],
    func: (usize, Option<String>),
) -> ConstructCall {
    let ids = ids();
    let (chain, statement) = chain_and_statement(
        ids,
        chain
            .iter()
            .map(|n| (*n, n.kind_id(), n.end_position().row)),
    );
    ConstructCall {
        construct: construct.to_string(),
        is_start,
        receiver: String::new(),
        member: name.to_string(),
        member_span: span,
        scope: func.0,
        chain,
        object: None,
        exits: !is_start && exits_after(statement),
        func,
        helper: true,
        receiver_start: span.0,
        object_start: None,
    }
}

/// Whether a statement after `statement` in its list leaves the list: the path
/// through `statement` goes no further there.
fn exits_after(statement: Option<Node>) -> bool {
    let mut n = statement.and_then(|s| s.next_named_sibling());
    while let Some(x) = n {
        if matches!(
            x.kind(),
            "return_statement" | "throw_statement" | "break_statement" | "continue_statement"
        ) {
            return true;
        }
        n = x.next_named_sibling();
    }
    false
}

/// What [`construct_call_parts`] needs of a call `receiver.member(...)`.
struct CallParts<'t> {
    call: Node<'t>,
    /// The receiver's byte range (a bare name).
    receiver: (usize, usize),
    /// The member's byte range.
    member: (usize, usize),
}

/// [`construct_call`] once the receiver (a bare name) and the member are known;
/// `chain` gives the call's ancestors and the call, outermost first. Costly work
/// (the chain) waits until the call is known to be a construct's.
fn construct_call_parts(
    ids: &Ids,
    text: &str,
    corpus: &Corpus,
    parts: CallParts,
    chain: &dyn Fn(bool) -> CallPlace,
    scope: usize,
) -> Option<ConstructCall> {
    let member = text.get(parts.member.0..parts.member.1)?;
    let (c, is_start) = corpus.construct_of_call(member)?;
    let receiver = text.get(parts.receiver.0..parts.receiver.1)?;
    let iface = corpus.global_interface(receiver)?;
    // The receiver's interface must have the whole pair: a `blockStart` of some other
    // interface that has no `blockEnd` is not this construct.
    corpus.member(iface, &c.start)?;
    corpus.member(iface, &c.end)?;
    let object = if is_start {
        parts
            .call
            .child_by_field_id(ids.f_arguments.get())
            .and_then(|a| {
                let mut c = a.walk();
                let first = a
                    .named_children(&mut c)
                    .find(|ch| ch.kind_id() != ids.comment);
                first
            })
            .filter(|a| a.kind_id() == ids.identifier)
    } else {
        None
    };
    let (chain, exits, func) = chain(is_start);
    Some(ConstructCall {
        construct: c.id.clone(),
        is_start,
        receiver: receiver.to_string(),
        member: member.to_string(),
        member_span: parts.member,
        scope,
        chain,
        exits,
        func,
        helper: false,
        object: object.and_then(|o| Some((text.get(o.byte_range())?.to_string(), None))),
        receiver_start: parts.receiver.0,
        object_start: object.map(|o| o.start_byte()),
    })
}

/// The construct calls of a script whose construct names another walk has already
/// located: `paths` holds, for each property name that is a construct's Start or End,
/// the nodes from the program down to it ([`grounded_js::Analysis::construct_paths`]).
/// `declared(name, offset)` says whether the script declares the receiver where it is
/// used (a local `var layout` hides the global).
///
/// The checker's `construct` family uses it because its own walk already passed every
/// node: a second whole-tree walk for a handful of calls doubled the cost of checking a
/// 10,000-line script, and looking each name up again from the root cost a tenth of it.
/// Variables passed to Start are left unresolved (`object`'s binding is `None`):
/// findings do not need them, footprints use [`Analysis`].
pub fn construct_calls_on_paths(
    text: &str,
    corpus: &Corpus,
    names: &[grounded_js::ConstructName],
    declared: &dyn Fn(&str, usize) -> bool,
) -> Vec<ConstructCall> {
    let ids = ids();
    let mut calls = Vec::new();
    for name in names {
        let path = &name.path;
        // [.., call_expression, member_expression, property_identifier]
        let n = path.len();
        if n < 3
            || path[n - 1].kind != ids.property_identifier
            || path[n - 2].kind != ids.member_expression
            || path[n - 3].kind != ids.call_expression
        {
            continue;
        }
        let Some(obj) = name.object.filter(|o| o.kind == ids.identifier) else {
            continue;
        };
        let (call, prop) = (path[n - 3], path[n - 1]);
        let ancestors = &path[..n - 3];
        let scope = ancestors
            .iter()
            .rev()
            .find(|p| js::is_function_kind(p.kind))
            .map_or(0, |p| p.node.id());
        // Everything was read by the walk: the chain costs no look at the tree.
        let chain = |is_start: bool| {
            let (chain, statement) = chain_and_statement(
                ids,
                path[..n - 2].iter().map(|p| (p.node, p.kind, p.end_row)),
            );
            let func = function_of(ids, text, ancestors.iter().map(|p| p.node));
            (chain, !is_start && exits_after(statement), func)
        };
        let parts = CallParts {
            call: call.node,
            receiver: (obj.node.start_byte(), obj.end),
            member: (prop.node.start_byte(), prop.end),
        };
        let Some(c) = construct_call_parts(ids, text, corpus, parts, &chain, scope) else {
            continue;
        };
        if declared(&c.receiver, c.receiver_start) {
            continue;
        }
        calls.push(c);
    }
    calls.sort_by_key(|c| c.member_span.0);
    calls
}

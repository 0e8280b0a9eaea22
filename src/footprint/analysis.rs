//! One pass over a script's tree: function scopes, declared variables, the statements
//! that declare or configure each variable, and the calls of constructs' Start and End
//! members.
//!
//! Scoping is deliberately simple and correct for ES3: a `var`, a function declaration
//! and a parameter belong to their enclosing function (or the program). Names that no
//! scope declares are globals and never expand: expanding `layout` would bring every
//! line of the script.
//!
//! The walk is iterative (a tree cursor and an explicit ancestor stack), so a deeply
//! nested script cannot overflow the stack.

use std::collections::HashMap;
use std::num::NonZeroU16;
use std::sync::OnceLock;

use tree_sitter::{Node, Tree};

use crate::docs::Corpus;

/// Node kind and field ids of the JavaScript grammar, resolved once.
struct Ids {
    identifier: u16,
    program: u16,
    statement_block: u16,
    switch_case: u16,
    switch_default: u16,
    switch_body: u16,
    if_statement: u16,
    function_declaration: u16,
    generator_function_declaration: u16,
    function_expression: u16,
    generator_function: u16,
    arrow_function: u16,
    method_definition: u16,
    formal_parameters: u16,
    assignment_pattern: u16,
    variable_declarator: u16,
    variable_declaration: u16,
    lexical_declaration: u16,
    expression_statement: u16,
    assignment_expression: u16,
    augmented_assignment_expression: u16,
    member_expression: u16,
    call_expression: u16,
    arguments: u16,
    catch_clause: u16,
    for_in_statement: u16,
    property_identifier: u16,
    comment: u16,
    f_name: NonZeroU16,
    f_left: NonZeroU16,
    f_object: NonZeroU16,
    f_function: NonZeroU16,
    f_property: NonZeroU16,
    f_arguments: NonZeroU16,
    f_parameter: NonZeroU16,
    f_kind: NonZeroU16,
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
            function_declaration: k("function_declaration"),
            generator_function_declaration: k("generator_function_declaration"),
            function_expression: k("function_expression"),
            generator_function: k("generator_function"),
            arrow_function: k("arrow_function"),
            method_definition: k("method_definition"),
            formal_parameters: k("formal_parameters"),
            assignment_pattern: k("assignment_pattern"),
            variable_declarator: k("variable_declarator"),
            variable_declaration: k("variable_declaration"),
            lexical_declaration: k("lexical_declaration"),
            expression_statement: k("expression_statement"),
            assignment_expression: k("assignment_expression"),
            augmented_assignment_expression: k("augmented_assignment_expression"),
            member_expression: k("member_expression"),
            call_expression: k("call_expression"),
            arguments: k("arguments"),
            catch_clause: k("catch_clause"),
            for_in_statement: k("for_in_statement"),
            property_identifier: k("property_identifier"),
            comment: k("comment"),
            f_name: f("name"),
            f_left: f("left"),
            f_object: f("object"),
            f_function: f("function"),
            f_property: f("property"),
            f_arguments: f("arguments"),
            f_parameter: f("parameter"),
            f_kind: f("kind"),
        }
    })
}

impl Ids {
    fn is_function(&self, k: u16) -> bool {
        k == self.function_declaration
            || k == self.generator_function_declaration
            || k == self.function_expression
            || k == self.generator_function
            || k == self.arrow_function
            || k == self.method_definition
    }

    fn is_list(&self, k: u16) -> bool {
        k == self.program
            || k == self.statement_block
            || k == self.switch_case
            || k == self.switch_default
    }
}

/// Whether a node is a function (its own scope of `var`s and parameters).
pub fn is_function_node(n: &Node) -> bool {
    ids().is_function(n.kind_id())
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
    /// The variable.
    pub binding: usize,
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

/// A declared variable: a name in one function scope.
#[derive(Debug, Clone)]
pub struct Binding {
    /// Its name.
    pub name: String,
    /// 0-based row of its first declaration.
    pub decl_row: usize,
}

/// An identifier in the code, resolved.
#[derive(Debug, Clone, Copy)]
pub struct Ref {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// 0-based row.
    pub row: usize,
    /// The declared variable it names, `None` for a global.
    pub binding: Option<usize>,
    scope: usize,
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
    /// The function scope the call is in (matching happens per scope).
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

#[derive(Debug)]
struct Scope {
    parent: Option<usize>,
    names: HashMap<String, usize>,
}

/// The facts of one script that footprints are made of.
#[derive(Debug)]
pub struct Analysis {
    /// Declared variables.
    pub bindings: Vec<Binding>,
    /// Every identifier, in document order.
    pub refs: Vec<Ref>,
    /// Every declaring or configuring statement, in document order.
    pub uses: Vec<Use>,
    /// Construct Start/End calls on globals, in document order (empty without a corpus).
    pub calls: Vec<ConstructCall>,
    uses_by_binding: Vec<Vec<usize>>,
}

#[derive(Clone, Copy)]
struct Step<'t> {
    node: Node<'t>,
    field: Option<NonZeroU16>,
}

impl Analysis {
    /// Analyses a script. With a corpus, also finds the calls of constructs.
    pub fn new(text: &str, tree: &Tree, corpus: Option<&Corpus>) -> Analysis {
        Analysis::of_node(text, tree.root_node(), corpus)
    }

    /// Analyses one subtree only (a function and what it holds): names it does not
    /// declare count as outer. A footprint query on a huge script reads the function
    /// it is in, not the whole file.
    pub fn of_node(text: &str, top: Node, corpus: Option<&Corpus>) -> Analysis {
        let ids = ids();
        let mut scopes = vec![Scope {
            parent: None,
            names: HashMap::new(),
        }];
        let mut bindings: Vec<Binding> = Vec::new();
        let mut refs: Vec<Ref> = Vec::new();
        // (ref index, kind, stmt start row, end row, whole, deletable)
        let mut pending_uses: Vec<(usize, UseKind, usize, usize, bool, bool)> = Vec::new();
        let mut calls: Vec<ConstructCall> = Vec::new();
        let mut scope_stack: Vec<usize> = vec![0];
        let mut path: Vec<Step> = Vec::new();
        let mut cursor = top.walk();

        let mut declare = |scopes: &mut Vec<Scope>, scope: usize, name: &str, row: usize| {
            if let Some(&b) = scopes[scope].names.get(name) {
                return b;
            }
            let b = bindings.len();
            bindings.push(Binding {
                name: name.to_string(),
                decl_row: row,
            });
            scopes[scope].names.insert(name.to_string(), b);
            b
        };

        loop {
            let node = cursor.node();
            let field = cursor.field_id();
            let kind = node.kind_id();
            let cur_scope = *scope_stack.last().expect("the program scope stays");

            if ids.is_function(kind) {
                // A function declaration's name belongs to the enclosing scope.
                if kind == ids.function_declaration || kind == ids.generator_function_declaration {
                    if let Some(n) = node.child_by_field_id(ids.f_name.get()) {
                        let name = text.get(n.byte_range()).unwrap_or("");
                        declare(&mut scopes, cur_scope, name, n.start_position().row);
                    }
                }
                scopes.push(Scope {
                    parent: Some(cur_scope),
                    names: HashMap::new(),
                });
                let s = scopes.len() - 1;
                if kind == ids.function_expression || kind == ids.generator_function {
                    if let Some(n) = node.child_by_field_id(ids.f_name.get()) {
                        declare(
                            &mut scopes,
                            s,
                            text.get(n.byte_range()).unwrap_or(""),
                            n.start_position().row,
                        );
                    }
                }
                scope_stack.push(s);
            } else if kind == ids.identifier {
                let scope = cur_scope;
                let name = text.get(node.byte_range()).unwrap_or("");
                let row = node.start_position().row;
                let parent = path.last().copied();
                if let Some(p) = parent {
                    let pk = p.node.kind_id();
                    let is_decl = (pk == ids.variable_declarator && field == Some(ids.f_name))
                        || pk == ids.formal_parameters
                        || (pk == ids.assignment_pattern
                            && field == Some(ids.f_left)
                            && path.len() >= 2
                            && path[path.len() - 2].node.kind_id() == ids.formal_parameters)
                        || (pk == ids.arrow_function && field == Some(ids.f_parameter))
                        || (pk == ids.catch_clause && field == Some(ids.f_parameter))
                        || (pk == ids.for_in_statement
                            && field == Some(ids.f_left)
                            && p.node.child_by_field_id(ids.f_kind.get()).is_some());
                    if is_decl {
                        declare(&mut scopes, scope, name, row);
                    }
                }
                let ri = refs.len();
                refs.push(Ref {
                    start: node.start_byte(),
                    end: node.end_byte(),
                    row,
                    binding: None,
                    scope,
                });
                if let Some(u) = classify(ids, text, &path, node, field) {
                    pending_uses.push((ri, u.0, u.1, u.2, u.3, u.4));
                }
            } else if kind == ids.call_expression {
                if let Some(c) = corpus {
                    if let Some(call) = construct_call(ids, text, c, node, &path, cur_scope) {
                        calls.push(call);
                    }
                }
            }

            path.push(Step { node, field });
            if cursor.goto_first_child() {
                continue;
            }
            loop {
                let done = path.pop().expect("every entered node is on the path");
                if ids.is_function(done.node.kind_id()) {
                    scope_stack.pop();
                }
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return finish(text, scopes, bindings, refs, pending_uses, calls);
                }
            }
        }
    }

    /// The statements of a variable, in document order.
    pub fn uses_of(&self, binding: usize) -> impl Iterator<Item = &Use> {
        self.uses_by_binding
            .get(binding)
            .into_iter()
            .flatten()
            .map(|&i| &self.uses[i])
    }

    /// The refs whose identifier lies on 0-based `row`.
    pub fn refs_on_row(&self, row: usize) -> &[Ref] {
        let a = self.refs.partition_point(|r| r.row < row);
        let b = self.refs.partition_point(|r| r.row <= row);
        &self.refs[a..b]
    }

    /// The ref whose identifier covers byte `offset` (its end included, as a cursor
    /// right after a name is on it).
    pub fn ref_at(&self, offset: usize) -> Option<&Ref> {
        let i = self.refs.partition_point(|r| r.end < offset);
        self.refs
            .get(i)
            .filter(|r| r.start <= offset && offset <= r.end)
    }
}

type PendingUse = (usize, UseKind, usize, usize, bool, bool);

fn finish(
    text: &str,
    scopes: Vec<Scope>,
    bindings: Vec<Binding>,
    mut refs: Vec<Ref>,
    pending_uses: Vec<PendingUse>,
    mut calls: Vec<ConstructCall>,
) -> Analysis {
    for r in refs.iter_mut() {
        let name = text.get(r.start..r.end).unwrap_or("");
        let mut s = Some(r.scope);
        while let Some(i) = s {
            if let Some(&b) = scopes[i].names.get(name) {
                r.binding = Some(b);
                break;
            }
            s = scopes[i].parent;
        }
    }
    let mut uses = Vec::with_capacity(pending_uses.len());
    let mut uses_by_binding = vec![Vec::new(); bindings.len()];
    for (ri, kind, start_row, end_row, whole, deletable) in pending_uses {
        let Some(b) = refs[ri].binding else {
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
    let ref_at_start = |start: usize| -> Option<&Ref> {
        let i = refs.partition_point(|r| r.start < start);
        refs.get(i).filter(|r| r.start == start)
    };
    calls.retain_mut(|c| {
        // A receiver that the script declares is not the engine's global.
        if ref_at_start(c.receiver_start).is_some_and(|r| r.binding.is_some()) {
            return false;
        }
        if let (Some(o), Some((_, b))) = (c.object_start, c.object.as_mut()) {
            *b = ref_at_start(o).and_then(|r| r.binding);
        }
        true
    });
    Analysis {
        bindings,
        refs,
        uses,
        calls,
        uses_by_binding,
    }
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

fn stmt_use(
    ids: &Ids,
    text: &str,
    kind: UseKind,
    stmt: Node,
    parent: Option<&Step>,
    whole: bool,
) -> (UseKind, usize, usize, bool, bool) {
    let in_list = parent.is_some_and(|p| ids.is_list(p.node.kind_id()));
    (
        kind,
        stmt.start_position().row,
        stmt.end_position().row,
        whole,
        in_list && owns_lines(text, stmt.start_byte(), stmt.end_byte()),
    )
}

/// Whether an identifier (whose ancestors are `path`, parent last) sits where a
/// statement declares or configures it, and that statement.
fn classify(
    ids: &Ids,
    text: &str,
    path: &[Step],
    _node: Node,
    field: Option<NonZeroU16>,
) -> Option<(UseKind, usize, usize, bool, bool)> {
    let n = path.len();
    let parent = path.last()?;
    let pk = parent.node.kind_id();
    let at = |i: Option<usize>| i.and_then(|i| path.get(i));
    let is_assign =
        |k: u16| k == ids.assignment_expression || k == ids.augmented_assignment_expression;
    if pk == ids.variable_declarator && field == Some(ids.f_name) {
        let decl = at(n.checked_sub(2))?;
        let dk = decl.node.kind_id();
        if dk != ids.variable_declaration && dk != ids.lexical_declaration {
            return None;
        }
        let mut declarators = 0;
        let mut c = decl.node.walk();
        for ch in decl.node.named_children(&mut c) {
            if ch.kind_id() == ids.variable_declarator {
                declarators += 1;
            }
        }
        return Some(stmt_use(
            ids,
            text,
            UseKind::Declare,
            decl.node,
            at(n.checked_sub(3)),
            declarators == 1,
        ));
    }
    if is_assign(pk) && field == Some(ids.f_left) {
        let st = at(n.checked_sub(2))?;
        if st.node.kind_id() != ids.expression_statement {
            return None;
        }
        return Some(stmt_use(
            ids,
            text,
            UseKind::Assign,
            st.node,
            at(n.checked_sub(3)),
            true,
        ));
    }
    if pk == ids.arguments {
        let call = at(n.checked_sub(2))?;
        if call.node.kind_id() != ids.call_expression {
            return None;
        }
        let st = at(n.checked_sub(3))?;
        if st.node.kind_id() != ids.expression_statement {
            return None;
        }
        return Some(stmt_use(
            ids,
            text,
            UseKind::Pass,
            st.node,
            at(n.checked_sub(4)),
            true,
        ));
    }
    if pk == ids.member_expression && field == Some(ids.f_object) {
        let mut i = n - 1;
        while i >= 1
            && path[i - 1].node.kind_id() == ids.member_expression
            && path[i].field == Some(ids.f_object)
        {
            i -= 1;
        }
        let top = path[i];
        let p = at(i.checked_sub(1))?;
        let pk = p.node.kind_id();
        let ok = (is_assign(pk) && top.field == Some(ids.f_left))
            || (pk == ids.call_expression && top.field == Some(ids.f_function));
        if !ok {
            return None;
        }
        let st = at(i.checked_sub(2))?;
        if st.node.kind_id() != ids.expression_statement {
            return None;
        }
        return Some(stmt_use(
            ids,
            text,
            UseKind::Configure,
            st.node,
            at(i.checked_sub(3)),
            true,
        ));
    }
    None
}

fn construct_call(
    ids: &Ids,
    text: &str,
    corpus: &Corpus,
    node: Node,
    path: &[Step],
    scope: usize,
) -> Option<ConstructCall> {
    let func = node.child_by_field_id(ids.f_function.get())?;
    if func.kind_id() != ids.member_expression {
        return None;
    }
    let prop = func.child_by_field_id(ids.f_property.get())?;
    let obj = func.child(0)?;
    if obj.kind_id() != ids.identifier || prop.kind_id() != ids.property_identifier {
        return None;
    }
    let chain = |is_start: bool| {
        let nodes = path.iter().map(|s| s.node).chain(std::iter::once(node));
        let (chain, statement) =
            chain_and_statement(ids, nodes.map(|n| (n, n.kind_id(), n.end_position().row)));
        let func = function_of(ids, text, path.iter().map(|s| s.node));
        (chain, !is_start && exits_after(statement), func)
    };
    let parts = CallParts {
        call: node,
        receiver: (obj.start_byte(), obj.end_byte()),
        member: (prop.start_byte(), prop.end_byte()),
    };
    construct_call_parts(ids, text, corpus, parts, &chain, scope)
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
            let nested = list != ids.program && !ids.is_function(holder);
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
    match it.find(|n| ids.is_function(n.kind_id())) {
        Some(f) => {
            let name = (f.kind_id() == ids.function_declaration)
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

/// Whether the node kind is a function (its own scope).
pub fn is_function_kind(k: u16) -> bool {
    ids().is_function(k)
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
/// the nodes from the program down to it ([`crate::js::Analysis::construct_paths`]).
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
    names: &[crate::js::ConstructName],
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
            .find(|p| ids.is_function(p.kind))
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

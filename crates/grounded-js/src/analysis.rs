//! Scopes and receiver typing of one script: what a name refers to at an offset, and the
//! interface of an expression when — and only when — it is certain.
//!
//! Why "certain or nothing": a checker that guesses accuses correct code, and one wrong
//! accusation teaches users to ignore every finding. So an expression has an interface
//! only when interfaces.md ("What is judged") says it does:
//!
//! - a documented global (`layout`) not shadowed by a declaration in scope (nor by a
//!   top-level declaration of a project file the script reaches, see
//!   [`Analysis::set_project_names`]);
//! - a variable whose every assignment in scope is a certain value of one and the same
//!   type (`new X()`, a documented global, a member's value, an element, another
//!   certain variable, a literal), written by the function that declares it, and that
//!   the script never narrows (`x instanceof Y`, `x.constructor`); a cycle of variables
//!   (`var a = b; var b = a;`) is not certain;
//! - a documented property or method whose type is exactly one interface, reached from
//!   a certain receiver (`layout.currentPage().frame`);
//! - a documented global function returning an interface (`loadDoc()`), a `new X()`
//!   expression of a documented constructor;
//! - an element `x[i]` of a certain receiver whose interface has
//!   `Index: [index: number]: T` (`doc.pages[0]` is a `Page`);
//! - a function the script declares and never reassigns: a `Function`, whose
//!   prototype methods the engine check judges (`f.bind` under ES3).
//!
//! - what modern typings say (turn 6): a union of interfaces ([`Union`]), narrowed by
//!   the tests that guard a use, a callback's parameters, destructured names, `for...of`
//!   elements and awaited values, as `flow` says.
//!
//! Parameters the docs do not type, the project's own functions' results, elements of
//! untyped arrays, unions with `any`, `object` or a primitive are never certain; nor
//! are properties of `this` (the walk does not follow them).
//!
//! The language server uses this for hover, completion and signature help:
//!
//! ```
//! let corpus = grounded_docs::Corpus::from_texts(&[(
//!     "a.md",
//!     "# Layout\n\nThis object is accessed using the global property \"layout\".\n\n\
//!      ## Layout-heading\n\nSyntax: heading(text: string): Paragraph\n\n\
//!      # Paragraph\n\n## Paragraph-keepWithNext\n\nSyntax: keepWithNext: boolean\n",
//! )])
//! .unwrap();
//! let text = "var p = layout.heading('x');\nfunction f(layout) { layout.x(); }\n";
//! let tree = grounded_js::parse(text);
//! let a = grounded_js::Analysis::new(&corpus, text, &tree);
//! // `layout.heading('x')` is a Paragraph; `layout` inside `f` is the parameter.
//! let call = a.node_at(text.find(".heading").unwrap() - 1, "call_expression").unwrap();
//! assert_eq!(a.interface_of(call).as_deref(), Some("Paragraph"));
//! let inner = a.node_at(text.rfind("layout").unwrap(), "identifier").unwrap();
//! assert_eq!(a.interface_of(inner), None);
//! assert!(a.is_declared("layout", text.rfind("layout").unwrap()));
//! ```

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use crate::query::{self, role, CaptureKind};
use grounded_docs::{Corpus, Member, Type};
use grounded_es::Proto;

/// Index of a scope in [`Analysis::scopes`]. The program scope is 0.
pub type ScopeId = usize;
/// Index of a binding in [`Analysis::bindings`].
pub type BindingId = usize;

/// What opened a scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScopeKind {
    /// The whole script.
    Program,
    /// A function, function expression, arrow function or method (parameters included).
    Function,
    /// A `catch (e)` clause: only `e` lives here; `var` inside hoists out.
    Catch,
}

/// A scope: a byte range, its parent, and the names declared in it.
#[derive(Debug, Clone)]
pub struct Scope<'a> {
    /// What opened it.
    pub kind: ScopeKind,
    /// First byte of the node that opened it.
    pub start: usize,
    /// One past its last byte.
    pub end: usize,
    /// The enclosing scope (`None` for the program).
    pub parent: Option<ScopeId>,
    names: HashMap<&'a str, BindingId, NameHash>,
}

/// How a name was declared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BindingKind {
    /// `var x`
    Var,
    /// `let x`, `const x` (treated as function-scoped: a wider shadow only hides more).
    Lexical,
    /// `function x() {}`, or the own name of a named function expression.
    Function,
    /// `class X {}`
    Class,
    /// A function's parameter.
    Param,
    /// `catch (e)`
    Catch,
    /// Assigned without any declaration (`x = 1` makes a global at run time).
    Implicit,
    /// `import x from "m"`, `import { x } from "m"`, `import * as x from "m"`.
    Import,
}

/// A declared name.
#[derive(Debug, Clone)]
pub struct Binding<'a> {
    /// The name.
    pub name: &'a str,
    /// How it was declared.
    pub kind: BindingKind,
    /// Where it lives.
    pub scope: ScopeId,
    /// Byte range of the declaring identifier (first declaration; the first assignment
    /// for [`BindingKind::Implicit`]).
    pub start: usize,
    /// End of that range.
    pub end: usize,
    /// Whether the script tests it with `instanceof` or by its constructor.
    pub narrowed: bool,
    /// Tested by its constructor (`x.constructor`), which no union narrows by.
    ctor_tested: bool,
    /// From a [`Seed`]: the whole file assigns it once (it may be narrowed; `flow`).
    seeded_once: bool,
    assigns: Vec<Assign<'a>>,
    /// Assigned by a function other than the one that declares it (a closure writing
    /// an outer variable): which value it holds at a use depends on when that ran.
    foreign: bool,
    /// The certain type, settled on first use ([`Analysis::binding_type`]): a variable
    /// assigned from another (`var b = a`) is typed after that one, in any order.
    certain: std::cell::Cell<Option<Certain<'a>>>,
    /// 0 not settled, 1 being settled (a cycle `var a = b; var b = a;` meets it), 2
    /// settled.
    settled: std::cell::Cell<u8>,
    /// Settled with `certain`: the value is the language's own by its every assignment
    /// (a literal, `new Array()`, another such variable), not a value the docs type.
    literal: std::cell::Cell<bool>,
    /// Taken from a [`Seed`]: its facts are the whole file's, fixed.
    seeded: bool,
}

impl Binding<'_> {
    /// Whether the binding came from a [`Seed`] (the rest of the file, for a statement
    /// analysed alone): its kind and type are the whole file's, its position unknown
    /// ([`Binding::start`] is 0); [`crate::Whole::top_level_declaration`] finds it.
    pub fn is_seeded(&self) -> bool {
        self.seeded
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Assign<'a> {
    New(&'a str, ScopeId),
    Array,
    String,
    Number,
    Regex,
    /// A name, member, call or element (`layout.currentPage()`, `doc.pages[0]`, `b`):
    /// certain when receiver typing says so, in the scope it is written in.
    Expr(Node<'a>, ScopeId),
    /// An object literal: an options object passed by name (`r.format(cfg)`).
    Object(Node<'a>),
    /// An import binding: what it takes from module `spec` (see `modules`).
    Module(&'a str, ImportPart<'a>),
    /// Property `key` of a chain's value: destructured (`const { a } = figma`).
    Prop(Node<'a>, ScopeId, &'a str),
    /// An element of a chain's value: the variable of `for (const n of xs)`.
    Elem(Node<'a>, ScopeId),
    Other,
}

/// The certain type of an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certain<'a> {
    /// An object of a documented interface.
    Interface(&'a str),
    /// A value of a built-in type of the language (array or string literal, a member
    /// documented as `string`, `number`, `Date`...): judged against the
    /// prototype table of [`grounded_es`], never against the docs.
    Builtin(Proto),
    /// One of several documented interfaces, whichever (a union the docs write; turn 6):
    /// judged like a family, a member none of them documents is a finding.
    Union(Union<'a>),
    /// An array the docs type with its elements (`SceneNode[]`): an array
    /// ([`Certain::proto`]) whose elements (`xs[0]`, `for...of`, `forEach`'s
    /// callback) are of this type, when that is certain.
    Array(&'a Type),
    /// A `Promise<T>` the docs give: itself not judged (its members are the
    /// language's), `await` of it and its `.then` callback's parameter are a `T`.
    Promise(&'a Type),
}

/// One script's scopes, bindings and the facts receiver typing needs.
pub struct Analysis<'a> {
    corpus: &'a Corpus,
    text: &'a str,
    tree: &'a Tree,
    /// Every scope, in document order of their start (the program first).
    pub scopes: Vec<Scope<'a>>,
    /// Every binding, in order of declaration.
    pub bindings: Vec<Binding<'a>>,
    typeof_names: HashSet<&'a str, NameHash>,
    narrowed_globals: HashSet<&'a str, NameHash>,
    polyfills: HashSet<String>,
    project_names: crate::project_names::ProjectNames<NameHash>,
    /// Implicit globals of this script that another project file also declares or
    /// assigns ([`Analysis::set_written_elsewhere`]): never typed by this file's write.
    written_elsewhere: HashSet<String, NameHash>,
    sites: Vec<(CaptureKind, Node<'a>, ScopeId)>,
    lexical_until: usize,
    /// The two fields of every site node, read off the cursor during the walk
    /// (`child_by_field_id` scans children; the families ask for them many times).
    parts: Vec<[Option<Part<'a>>; 2]>,
    /// `corpus.member` answers (BTree lookups through ancestors cost; scripts ask the
    /// same few pairs thousands of times).
    member_memo: std::cell::RefCell<HashMap<(&'a str, &'a str), Option<&'a Member>, NameHash>>,
    /// The named children of every object literal, argument list and parameter list,
    /// read during the walk: `list_items[start..start + len]` by node id.
    lists: Vec<(usize, usize, u32, u32)>,
    list_items: Vec<Node<'a>>,
    /// The kind of each of `list_items`.
    list_kinds: Vec<u16>,
    /// Byte ranges of `with` statements: a bare name inside may be a property.
    with_ranges: Vec<(usize, usize)>,
    /// `corpus.global_interface` answers.
    global_memo: std::cell::RefCell<HashMap<&'a str, Option<&'a str>, NameHash>>,
    /// Every property name that is a construct's Start or End (`layout.tableStart`),
    /// with its ancestors from the walk's root: the construct family pairs those calls
    /// without a second walk.
    construct_paths: Vec<ConstructName<'a>>,
    /// Every identifier and the binding it names, when asked for
    /// ([`Analysis::with_refs`]): the checker asks a name's scope only where it judges
    /// one, and recording every identifier would cost its walk for nothing.
    refs: Vec<Ref>,
    /// How many bindings are being settled inside one another ([`Analysis::binding_type`]).
    settle_depth: std::cell::Cell<u32>,
    /// Each function's writes, read once when a use asks (`reach`), by scope.
    reach_memo:
        std::cell::RefCell<HashMap<BindingId, std::sync::Arc<reach::WriteIndex<'a>>, NameHash>>,
    /// Every `import` / `export ... from` statement's module ([`Analysis::module_requests`]).
    module_requests: Vec<ModuleRequest<'a>>,
    /// Per relative specifier, the documented interface each export of that project
    /// file certainly holds ([`Analysis::set_relative_exports`]).
    relative_exports: HashMap<String, HashMap<String, String>>,
    /// Seeded bindings that hold a documented constructor, and its interface
    /// ([`SeedType::Constructor`]).
    seeded_ctors: HashMap<&'a str, &'a str, NameHash>,
}

/// An identifier of the code and what it names there, recorded by
/// [`Analysis::with_refs`]: the one answer to "what does `box` refer to here" that the
/// footprints share with the checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ref {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// 0-based row.
    pub row: usize,
    /// The scope it is written in.
    pub scope: ScopeId,
    /// The binding it names, [`BindingKind::Implicit`] ones included; `None` for a name
    /// that no scope declares and the script never assigns (a global such as `layout`).
    pub binding: Option<BindingId>,
}

/// The ancestors of a node the analysis walk visits, from the walk's root down to the
/// node itself (last), each with its kind id: what [`Analysis::with_refs`] shows its
/// caller.
pub type WalkPath<'p, 'a> = &'p [(Node<'a>, u16)];

/// Whether a node kind is a function of any form (declaration, expression, generator,
/// arrow, method): the scope that parameters, `var`s and function declarations belong
/// to (ES3), and the unit constructs pair in.
pub fn is_function_kind(kind: u16) -> bool {
    query::kind_ids().is_function(kind)
}

/// A part of a site (its head or its tail) with what the families ask of it first,
/// read while the walk was on it.
///
/// Why: the families run after the walk, when the tree has left the processor's
/// caches; asking a node for its kind or its end then costs a memory load each, and on
/// a 10,000-line script those loads were a sixth of the whole check.
#[derive(Debug, Clone, Copy)]
pub struct Part<'a> {
    /// The node.
    pub node: Node<'a>,
    /// Its kind id.
    pub kind: u16,
    /// Its end byte (its start is free: a node carries it).
    pub end: usize,
}

/// A node on the way from the walk's root down to a construct name, as the walk saw it.
#[derive(Debug, Clone, Copy)]
pub struct PathNode<'a> {
    /// The node.
    pub node: Node<'a>,
    /// Its kind id.
    pub kind: u16,
    /// Its end byte.
    pub end: usize,
    /// Its last row (0-based).
    pub end_row: usize,
}

/// A property name that is a construct's Start or End (`tableStart` of
/// `layout.tableStart(t)`), with what pairing the call needs, read while the walk was
/// there (see [`Part`] for why).
#[derive(Debug, Clone)]
pub struct ConstructName<'a> {
    /// The nodes from the walk's root down to the name, the name last.
    pub path: Vec<PathNode<'a>>,
    /// The object of the member expression the name ends (`layout`).
    pub object: Option<Part<'a>>,
}

/// The Start and End member names of the corpus's constructs. The walk asks at every
/// property name, so a mask of the names' lengths answers most of them without a
/// comparison.
struct ConstructNames<'c> {
    lengths: u64,
    names: Vec<&'c str>,
}

impl<'c> ConstructNames<'c> {
    fn of(corpus: &'c Corpus) -> ConstructNames<'c> {
        let names: Vec<&str> = corpus
            .constructs
            .values()
            .flat_map(|c| [c.start.as_str(), c.end.as_str()])
            .collect();
        let lengths = names.iter().fold(0, |m, n| m | 1 << n.len().min(63));
        ConstructNames { lengths, names }
    }

    fn has(&self, name: &str) -> bool {
        self.lengths & 1 << name.len().min(63) != 0 && self.names.contains(&name)
    }
}

/// Node ids are addresses: spread them with one multiply instead of hashing bytes.
#[derive(Default, Clone, Copy)]
pub struct IdHasher(u64);

impl std::hash::Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 << 8 | u64::from(*b)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_right(17);
    }
}

/// The hasher of node-id-keyed maps.
pub type IdHash = std::hash::BuildHasherDefault<IdHasher>;

/// FNV-1a for identifiers: short keys, no untrusted-input flooding concern worth
/// SipHash's cost on every name lookup of the walk.
#[derive(Clone, Copy)]
pub struct NameHasher(u64);

impl Default for NameHasher {
    fn default() -> Self {
        NameHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0 ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The hasher of name-keyed maps.
pub type NameHash = std::hash::BuildHasherDefault<NameHasher>;

impl std::fmt::Debug for Analysis<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Analysis")
            .field("scopes", &self.scopes.len())
            .field("bindings", &self.bindings.len())
            .finish()
    }
}

struct Pending<'a> {
    assigns: Vec<(&'a str, ScopeId, usize, Assign<'a>)>,
    /// (name, scope, by `x.constructor` rather than `instanceof`)
    narrows: Vec<(&'a str, ScopeId, bool)>,
}

impl<'a> Analysis<'a> {
    /// Analyses `text`, parsed as `tree` (parse the text [`crate::script_text`]
    /// gives, so that directive lines and Markdown prose are blank).
    pub fn new(corpus: &'a Corpus, text: &'a str, tree: &'a Tree) -> Analysis<'a> {
        Analysis::build(corpus, text, tree, false)
    }

    /// An analysis that has seen nothing yet: the program scope alone.
    fn empty(corpus: &'a Corpus, text: &'a str, tree: &'a Tree) -> Analysis<'a> {
        Analysis {
            corpus,
            text,
            tree,
            scopes: vec![Scope {
                kind: ScopeKind::Program,
                start: 0,
                end: text.len().max(tree.root_node().end_byte()),
                parent: None,
                names: HashMap::default(),
            }],
            bindings: Vec::new(),
            typeof_names: HashSet::default(),
            narrowed_globals: HashSet::default(),
            polyfills: HashSet::new(),
            project_names: Default::default(),
            written_elsewhere: HashSet::default(),
            sites: Vec::new(),
            lexical_until: 0,
            parts: Vec::new(),
            member_memo: Default::default(),
            global_memo: Default::default(),
            lists: Vec::new(),
            list_items: Vec::new(),
            list_kinds: Vec::new(),
            with_ranges: Vec::new(),
            construct_paths: Vec::new(),
            refs: Vec::new(),
            settle_depth: std::cell::Cell::new(0),
            reach_memo: Default::default(),
            module_requests: Vec::new(),
            relative_exports: HashMap::default(),
            seeded_ctors: HashMap::default(),
        }
    }

    /// [`Analysis::new`]; `every_token` walks every token, as when the text holds a
    /// keyword no node kind lists (the tests compare both walks).
    fn build(corpus: &'a Corpus, text: &'a str, tree: &'a Tree, every_token: bool) -> Analysis<'a> {
        let mut a = Analysis::empty(corpus, text, tree);
        let mut pending = Pending {
            assigns: Vec::new(),
            narrows: Vec::new(),
        };
        a.walk(
            tree.root_node(),
            &mut pending,
            every_token,
            false,
            &mut |_| {},
        );
        a.settle(pending);
        a
    }

    /// Analyses `root` (the tree's root, or one subtree such as a function: names it
    /// does not declare are then outer ones), also recording every identifier and the
    /// binding it names ([`Analysis::refs`]), and shows `visit` every node the walk
    /// visits with its ancestors ([`WalkPath`]), so that a layer above (the footprints'
    /// statements) reads what it needs in the same walk instead of a second one with a
    /// scope logic of its own.
    pub fn with_refs(
        corpus: &'a Corpus,
        text: &'a str,
        tree: &'a Tree,
        root: Node<'a>,
        mut visit: impl FnMut(WalkPath<'_, 'a>),
    ) -> Analysis<'a> {
        let mut a = Analysis::empty(corpus, text, tree);
        let mut pending = Pending {
            assigns: Vec::new(),
            narrows: Vec::new(),
        };
        a.walk(root, &mut pending, false, true, &mut visit);
        a.settle(pending);
        // Resolved after the walk: `var` and function declarations hoist, so a name
        // used before its declaration still names it.
        for i in 0..a.refs.len() {
            let r = a.refs[i];
            let name = text.get(r.start..r.end).unwrap_or("");
            a.refs[i].binding = a.resolve(name, r.scope);
        }
        a
    }

    /// Analyses only `node` (a top-level statement of `tree`), with the rest of the file
    /// standing in as `seed` (from [`Analysis::seed`] of a full analysis): the program
    /// scope holds the whole file's globals with their certainty. The incremental
    /// re-check of `grounded_check::Session` uses it; with `Seed::default()` it gives the
    /// statement's own [`Analysis::summary`].
    pub fn for_node(
        corpus: &'a Corpus,
        text: &'a str,
        tree: &'a Tree,
        node: Node<'a>,
        seed: &'a Seed,
    ) -> Analysis<'a> {
        let mut a = Analysis::empty(corpus, text, tree);
        a.typeof_names = seed.typeof_names.iter().map(String::as_str).collect();
        a.narrowed_globals = seed.narrowed.iter().map(String::as_str).collect();
        a.polyfills = seed.polyfills.iter().cloned().collect();
        a.project_names = seed.project_names.iter().cloned().collect();
        for (name, kind, certain) in &seed.globals {
            let certain = match certain {
                Some(SeedType::Constructor(iface, own)) => {
                    if let Some((k, _)) = corpus.interfaces.get_key_value(iface) {
                        a.seeded_ctors.insert(name.as_str(), k.as_str());
                    }
                    own.as_deref()
                }
                c => c.as_ref(),
            };
            let certain_seed = certain;
            let certain = match certain {
                Some(SeedType::Interface(i)) => corpus
                    .interfaces
                    .get_key_value(i)
                    .map(|(k, _)| Certain::Interface(k.as_str())),
                Some(SeedType::Builtin(p) | SeedType::Literal(p)) => Some(Certain::Builtin(*p)),
                Some(SeedType::Union(of, mask, _)) => Union::from_parts(of, *mask),
                Some(SeedType::Of(t, false)) => Some(Certain::Array(t)),
                Some(SeedType::Of(t, true)) => Some(Certain::Promise(t)),
                // Unwrapped above; a constructor's own type is never one again.
                Some(SeedType::Constructor(..)) | None => None,
            };
            let literal = matches!(certain_seed, Some(SeedType::Literal(_)));
            a.bindings.push(Binding {
                name: name.as_str(),
                kind: *kind,
                scope: 0,
                start: 0,
                end: 0,
                narrowed: false,
                ctor_tested: false,
                seeded_once: matches!(certain_seed, Some(SeedType::Union(_, _, true))),
                assigns: Vec::new(),
                foreign: false,
                certain: std::cell::Cell::new(certain),
                settled: std::cell::Cell::new(2),
                literal: std::cell::Cell::new(literal),
                seeded: true,
            });
            let id = a.bindings.len() - 1;
            a.scopes[0].names.insert(name.as_str(), id);
        }
        let mut pending = Pending {
            assigns: Vec::new(),
            narrows: Vec::new(),
        };
        a.walk(node, &mut pending, false, false, &mut |_| {});
        a.settle(pending);
        a
    }

    /// The whole file's facts that every statement depends on, owned: the program
    /// scope's bindings and their certainty, narrowed and `typeof`-tested globals,
    /// polyfills, project names.
    pub fn seed(&self) -> Seed {
        let mut globals: Vec<(String, BindingKind, Option<SeedType>)> = self.scopes[0]
            .names
            .values()
            .map(|&b| {
                let bind = &self.bindings[b];
                (bind.name.to_string(), bind.kind, self.seed_type(b))
            })
            .collect();
        globals.sort_by(|x, y| x.0.cmp(&y.0));
        Seed {
            globals,
            narrowed: self
                .narrowed_globals
                .iter()
                .map(|s| s.to_string())
                .collect(),
            typeof_names: self.typeof_names.iter().map(|s| s.to_string()).collect(),
            polyfills: self.polyfills.iter().cloned().collect(),
            project_names: self.project_names.iter().cloned().collect(),
            construct_helpers: Vec::new(),
        }
    }

    /// What a piece analysed with an empty seed contributes to the whole file: its
    /// program-scope declarations, what it assigns them, what it narrows or tests with
    /// `typeof`, what it polyfills. Two versions of a statement with equal summaries
    /// leave every other statement's findings unchanged.
    pub fn summary(&self) -> Vec<String> {
        let mut out = Vec::new();
        for &b in self.scopes[0].names.values() {
            let bind = &self.bindings[b];
            let mut line = format!(
                "decl {} {:?} {} {}",
                bind.name, bind.kind, bind.narrowed, bind.foreign
            );
            for a in &bind.assigns {
                let shown = match *a {
                    Assign::New(ctor, scope) => {
                        if self
                            .resolve(ctor, scope)
                            .is_some_and(|c| self.bindings[c].scope != 0)
                        {
                            "other".to_string()
                        } else {
                            format!("new {ctor}")
                        }
                    }
                    Assign::Array => "array".into(),
                    Assign::String => "string".into(),
                    Assign::Number => "number".into(),
                    Assign::Regex => "regex".into(),
                    // The chain, not its type: the type depends on other statements,
                    // and an edit of the chain must change what the statement gives
                    // the rest of the file (`var pg = layout.currentPage()`); its
                    // arguments do not (a callback's body is edited alone).
                    Assign::Expr(n, _) => {
                        let mut shape = String::from("expr ");
                        self.chain_shape(n, Some(&mut shape));
                        shape
                    }
                    // Its keys: what the option check reads when it is passed by name
                    // (`var App = { init: function () {...} }` is edited alone).
                    Assign::Object(n) => format!("object {}", self.object_keys(n)),
                    Assign::Module(spec, part) => format!("module {spec} {part:?}"),
                    Assign::Prop(n, _, _) | Assign::Elem(n, _) => {
                        let key = match *a {
                            Assign::Prop(_, _, key) => key,
                            _ => "[i]",
                        };
                        let mut shape = format!("{key} of ");
                        self.chain_shape(n, Some(&mut shape));
                        shape
                    }
                    Assign::Other => "other".into(),
                };
                line.push(' ');
                line.push_str(&shown);
            }
            out.push(line);
        }
        out.extend(self.narrowed_globals.iter().map(|n| format!("narrow {n}")));
        out.extend(self.typeof_names.iter().map(|n| format!("typeof {n}")));
        out.extend(self.polyfills.iter().map(|n| format!("polyfill {n}")));
        out.sort();
        out
    }

    /// Names that reachable project files declare at their top level. A documented
    /// global that the project redeclares is no longer certain, and such names count as
    /// declared for [`Analysis::is_declared_anywhere`].
    pub fn set_project_names(&mut self, names: impl IntoIterator<Item = String>) {
        self.set_project_names_shared(names.into_iter().collect());
    }

    /// [`Analysis::set_project_names`] from a set shared with other scripts.
    pub fn set_project_names_shared(
        &mut self,
        names: crate::project_names::ProjectNames<NameHash>,
    ) {
        self.project_names = names;
        // A type settled before may have read one of these names as a documented global.
        for b in &self.bindings {
            if !b.seeded {
                b.settled.set(0);
            }
        }
    }

    /// The names this script assigns without declaring them (implicit globals).
    pub fn implicit_names(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.bindings
            .iter()
            .filter(|b| b.kind == BindingKind::Implicit && b.scope == 0)
            .map(|b| b.name)
    }

    /// Implicit globals of this script that another file of the project (reachable or
    /// not: scripts of one engine share its global scope) declares or assigns too. An
    /// implicit global is typed by its one write only when no other file writes it.
    pub fn set_written_elsewhere(&mut self, names: impl IntoIterator<Item = String>) {
        self.written_elsewhere = names.into_iter().collect();
        for b in &self.bindings {
            if !b.seeded {
                b.settled.set(0);
            }
        }
    }

    /// The top-level names of the reachable project files
    /// ([`Analysis::set_project_names`]): near-name candidates for a misspelt call.
    pub fn project_names(&self) -> impl Iterator<Item = &str> {
        self.project_names.iter().map(String::as_str)
    }

    /// The corpus this analysis types against.
    pub fn corpus(&self) -> &'a Corpus {
        self.corpus
    }

    /// The analysed text.
    pub fn text(&self) -> &'a str {
        self.text
    }

    /// The tree the analysis was built from.
    pub fn tree(&self) -> &'a Tree {
        self.tree
    }

    /// The source text of a node.
    pub fn node_text(&self, node: Node) -> &'a str {
        self.text.get(node.byte_range()).unwrap_or("")
    }
}

// The rooms of this module: the parent holds the types and the entry points; the walk
// that fills them, the queries on what it recorded and the receiver typing are children,
// which read the private fields here and may not reach into one another's private items.
mod aliases;
mod exports;
mod flow;
mod lookup;
mod modules;
mod patterns;
mod reach;
mod scoping;
mod seed;
#[cfg(test)]
mod tests;
mod typing;
mod union;

pub use exports::{ExportForm, Exports};
pub use lookup::ScopeFacts;
pub use modules::{literal_text, ImportPart, ModuleRequest};
pub use seed::{Seed, SeedType};
pub use typing::{builtin_proto, member_type, type_certain};
pub use union::Union;

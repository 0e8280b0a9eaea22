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
//! - a variable whose every assignment is `new X()` of a documented constructor, and
//!   that the script never narrows (`x instanceof Y`, `x.constructor`);
//! - a documented property or method whose type is exactly one interface, reached from
//!   a certain receiver (`layout.currentPage().frame`);
//! - a documented global function returning an interface (`loadDoc()`), a `new X()`
//!   expression of a documented constructor;
//! - an element `x[i]` of a certain receiver whose interface has
//!   `Index: [index: number]: T` (`doc.pages[0]` is a `Page`);
//! - a function the script declares and never reassigns: a `Function`, whose
//!   prototype methods the engine check judges (`f.bind` under ES3).
//!
//! Parameters, the project's own functions' results, array elements, unions, `any` and
//! `object` are never certain.
//!
//! The language server uses this for hover, completion and signature help:
//!
//! ```
//! let corpus = grounded::docs::Corpus::from_texts(&[(
//!     "a.md",
//!     "# Layout\n\nThis object is accessed using the global property \"layout\".\n\n\
//!      ## Layout-heading\n\nSyntax: heading(text: string): Paragraph\n\n\
//!      # Paragraph\n\n## Paragraph-keepWithNext\n\nSyntax: keepWithNext: boolean\n",
//! )])
//! .unwrap();
//! let text = "var p = layout.heading('x');\nfunction f(layout) { layout.x(); }\n";
//! let tree = grounded::js::parse(text);
//! let a = grounded::js::Analysis::new(&corpus, text, &tree);
//! // `layout.heading('x')` is a Paragraph; `layout` inside `f` is the parameter.
//! let call = a.node_at(text.find(".heading").unwrap() - 1, "call_expression").unwrap();
//! assert_eq!(a.interface_of(call).as_deref(), Some("Paragraph"));
//! let inner = a.node_at(text.rfind("layout").unwrap(), "identifier").unwrap();
//! assert_eq!(a.interface_of(inner), None);
//! assert!(a.is_declared("layout", text.rfind("layout").unwrap()));
//! ```

use std::collections::{HashMap, HashSet};

use tree_sitter::{Node, Tree};

use crate::docs::{Corpus, Member, Type};
use crate::es::Proto;
use crate::js::query::{self, role, CaptureKind};

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
    assigns: Vec<Assign<'a>>,
    certain: Option<Certain<'a>>,
    /// Taken from a [`Seed`]: its facts are the whole file's, fixed.
    seeded: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Assign<'a> {
    New(&'a str, ScopeId),
    Array,
    String,
    Other,
}

/// The whole file's facts a statement's analysis depends on (see [`Analysis::seed`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Seed {
    /// Program-scope bindings: name, kind, certain type.
    pub globals: Vec<(String, BindingKind, Option<SeedType>)>,
    /// Globals the script narrows.
    pub narrowed: Vec<String>,
    /// Names tested with `typeof`.
    pub typeof_names: Vec<String>,
    /// Built-ins the script (and its reachable files) supply.
    pub polyfills: Vec<String>,
    /// Top-level names of reachable project files.
    pub project_names: Vec<String>,
    /// The script's construct helpers (functions that only open or only close a
    /// construct): their calls pair across the whole file.
    pub construct_helpers: Vec<String>,
}

impl Seed {
    /// The words of `text` (identifier characters, and `\` for escaped identifiers),
    /// with those inside strings and comments: more than a parse would name, never
    /// fewer.
    pub fn words(text: &str) -> impl Iterator<Item = &str> {
        text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '$' | '\\')))
            .filter(|w| !w.is_empty())
    }

    /// The name a polyfill is asked about by: `trim` of `String.prototype.trim`.
    pub fn polyfill_name(path: &str) -> &str {
        path.rsplit('.').next().unwrap_or(path)
    }

    /// This seed with only the globals, project names and polyfills that `text` (one
    /// statement) spells as a word ([`Seed::words`]).
    ///
    /// A name the statement never spells cannot change how it is read: every use of a
    /// binding is by name, and every polyfill question ends in a name. Seeding all of
    /// a 7.8 MB script's 68,000 top-level names and 34,000 polyfills cost a keystroke's
    /// re-check and each hover tens of milliseconds.
    pub fn spelt_in(&self, text: &str) -> Seed {
        let words: HashSet<&str> = Seed::words(text).collect();
        Seed {
            globals: self
                .globals
                .iter()
                .filter(|g| words.contains(g.0.as_str()))
                .cloned()
                .collect(),
            narrowed: self.narrowed.clone(),
            typeof_names: self.typeof_names.clone(),
            polyfills: self
                .polyfills
                .iter()
                .filter(|p| words.contains(Seed::polyfill_name(p)))
                .cloned()
                .collect(),
            project_names: self
                .project_names
                .iter()
                .filter(|p| words.contains(p.as_str()))
                .cloned()
                .collect(),
            construct_helpers: self.construct_helpers.clone(),
        }
    }
}

/// [`Certain`], owned.
#[derive(Debug, Clone, PartialEq)]
pub enum SeedType {
    /// A documented interface.
    Interface(String),
    /// A built-in value type.
    Builtin(Proto),
}

/// The certain type of an expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Certain<'a> {
    /// An object of a documented interface.
    Interface(&'a str),
    /// A value of a built-in type of the language (array or string literal, a member
    /// documented as `string`, `number`, `T[]`, `Date`...): judged against the
    /// prototype table of [`crate::es`], never against the docs.
    Builtin(Proto),
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
    project_names: HashSet<String, NameHash>,
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
    narrows: Vec<(&'a str, ScopeId)>,
}

impl<'a> Analysis<'a> {
    /// Analyses `text`, parsed as `tree` (parse the text [`crate::js::script_text`]
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
            project_names: HashSet::default(),
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
    /// re-check of [`crate::check::Session`] uses it; with `Seed::default()` it gives the
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
                Some(SeedType::Interface(i)) => corpus
                    .interfaces
                    .get_key_value(i)
                    .map(|(k, _)| Certain::Interface(k.as_str())),
                Some(SeedType::Builtin(p)) => Some(Certain::Builtin(*p)),
                None => None,
            };
            a.bindings.push(Binding {
                name: name.as_str(),
                kind: *kind,
                scope: 0,
                start: 0,
                end: 0,
                narrowed: false,
                assigns: Vec::new(),
                certain,
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
                let t = bind.certain.map(|c| match c {
                    Certain::Interface(i) => SeedType::Interface(i.to_string()),
                    Certain::Builtin(p) => SeedType::Builtin(p),
                });
                (bind.name.to_string(), bind.kind, t)
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
            let mut line = format!("decl {} {:?} {}", bind.name, bind.kind, bind.narrowed);
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
        self.project_names = names.into_iter().collect();
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

    // ---- the walk -------------------------------------------------------------------

    /// One cursor walk over `root`. A node whose kind roots a pattern of `scopes.scm`
    /// builds scopes and bindings; of `sites.scm`, is kept for the families; of
    /// `syntax.scm`, has the query run at that one node (see [`query::Roles`]).
    ///
    /// With `refs`, every identifier is recorded in [`Analysis::refs`] and `visit` sees
    /// every node with its ancestors.
    fn walk<V: FnMut(WalkPath<'_, 'a>)>(
        &mut self,
        root: Node<'a>,
        p: &mut Pending<'a>,
        every_token: bool,
        refs: bool,
        visit: &mut V,
    ) {
        let roles = query::roles();
        let ids = query::kind_ids();
        // Tokens matter only where a pattern is rooted at one (`typeof`, `let`...);
        // the others are stepped over (see `js::walk`).
        let anonymous = query::anonymous_roots();
        let span = self.text.get(root.byte_range()).unwrap_or(self.text);
        let mut walk = if every_token || anonymous.unlisted_in(span) {
            super::Preorder::new(root)
        } else {
            super::Preorder::named(root, &anonymous.keep)
        };
        // (scope, depth of the node that opened it)
        let mut open: Vec<(ScopeId, usize)> = vec![(0, 0)];
        // (depth, id) of site nodes whose fields are being read off the cursor
        let mut open_sites: Vec<(usize, usize)> = Vec::new();
        // Dense engine code has a site every 9 bytes or so. Reserving that much costs
        // address space only (untouched pages are never mapped), while growing by
        // doubling copied megabytes and left the freed blocks to fragment the heap the
        // next parse allocates from.
        let estimate = root.end_byte().saturating_sub(root.start_byte()) / 8;
        self.sites.reserve(estimate);
        self.parts.reserve(estimate);
        // (depth, id, mark in `pending_items`) of lists whose children are being read
        let mut open_lists: Vec<(usize, usize, usize)> = Vec::new();
        let mut pending_items: Vec<(Node<'a>, u16)> = Vec::new();
        // The node being visited and its ancestors, from `root`.
        let mut path: Vec<(Node<'a>, u16)> = Vec::with_capacity(64);
        let construct_names = ConstructNames::of(self.corpus);
        while let Some((node, depth)) = walk.next() {
            // Everything opened by a node at this depth or deeper is closed: the walk has
            // left it.
            let closing = (open.len() > 1 && open.last().is_some_and(|s| s.1 >= depth))
                || open_sites.last().is_some_and(|s| s.0 >= depth)
                || open_lists.last().is_some_and(|s| s.0 >= depth);
            if closing {
                self.close(
                    depth,
                    &mut open,
                    &mut open_sites,
                    &mut open_lists,
                    &mut pending_items,
                );
            }
            path.truncate(depth);
            let k = node.kind_id();
            if let Some(&(d, _, _)) = open_lists.last() {
                if d + 1 == depth && node.is_named() && !node.is_extra() {
                    pending_items.push((node, k));
                }
            }
            // The first named child of a site is its object / function / constructor,
            // the last one its property / arguments (read here: `child_by_field_id`
            // scans children, and the families ask many times).
            if let Some(&(d, idx)) = open_sites.last() {
                if d + 1 == depth && node.is_named() {
                    if let Some(entry) = self.parts.get_mut(idx) {
                        let part = Some(Part {
                            node,
                            kind: k,
                            end: node.end_byte(),
                        });
                        if entry[0].is_none() {
                            entry[0] = part;
                        } else {
                            entry[1] = part;
                        }
                    }
                }
            }
            path.push((node, k));
            if refs {
                if k == ids.identifier {
                    self.refs.push(Ref {
                        start: node.start_byte(),
                        end: node.end_byte(),
                        row: node.start_position().row,
                        scope: open.last().map_or(0, |s| s.0),
                        binding: None,
                    });
                }
                visit(&path[..]);
            }
            if k == ids.property_identifier {
                let name = self.node_text(node);
                if crate::es::es3_reserved(name) {
                    let scope = open.last().map(|s| s.0).unwrap_or(0);
                    self.sites
                        .push((CaptureKind::ReservedProperty, node, scope));
                    self.parts.push([None, None]);
                }
                if construct_names.has(name) {
                    // The member expression is the innermost open site; its object is read.
                    let object = open_sites
                        .last()
                        .filter(|s| s.0 + 1 == depth)
                        .and_then(|s| self.parts.get(s.1))
                        .and_then(|p| p[0]);
                    let path = path
                        .iter()
                        .map(|&(node, kind)| PathNode {
                            node,
                            kind,
                            end: node.end_byte(),
                            end_row: node.end_position().row,
                        })
                        .collect();
                    self.construct_paths.push(ConstructName { path, object });
                }
            }
            let r = roles.of(k);
            if r == 0 {
                continue;
            }
            let scope = open.last().map(|s| s.0).unwrap_or(0);
            if r & role::SCOPE != 0 {
                if let Some(new_scope) = self.enter(node, scope, p) {
                    open.push((new_scope, depth));
                }
            }
            if r & role::SITE != 0 {
                let kind = if k == ids.member_expression {
                    // Only `x.constructor` narrows; skip the field lookups else.
                    if self.text[..node.end_byte()].ends_with("constructor") {
                        self.enter(node, scope, p);
                    }
                    CaptureKind::Member
                } else if k == ids.call_expression {
                    CaptureKind::Call
                } else {
                    CaptureKind::New
                };
                let scope = open.last().map(|s| s.0).unwrap_or(0);
                open_sites.push((depth, self.sites.len()));
                self.sites.push((kind, node, scope));
                self.parts.push([None, None]);
            }
            if r & role::SYNTAX != 0 {
                let scope = open.last().map(|s| s.0).unwrap_or(0);
                let mut found = Vec::new();
                query::captures_at(node, self.text, &mut found);
                for (k, n) in found {
                    self.sites.push((k, n, scope));
                    self.parts.push([None, None]);
                }
            }
            let scope = open.last().map(|s| s.0).unwrap_or(0);
            if r & role::REGEX != 0 {
                self.sites.push((CaptureKind::RegexFlags, node, scope));
                self.parts.push([None, None]);
            }
            if r & role::NUMBER != 0 {
                self.sites.push((CaptureKind::Number, node, scope));
                self.parts.push([None, None]);
            }
            if r & role::LIST != 0 {
                // The entry is reserved now, so `lists` stays in document order.
                open_lists.push((depth, self.lists.len(), pending_items.len()));
                self.lists.push((node.start_byte(), node.end_byte(), 0, 0));
                if trailing_comma(self.text, node) {
                    let kind = match node.kind() {
                        "object" => CaptureKind::TrailingObject,
                        "arguments" => CaptureKind::TrailingArguments,
                        _ => CaptureKind::TrailingParameters,
                    };
                    self.sites.push((kind, node, scope));
                    self.parts.push([None, None]);
                }
            }
            if r & role::OPAQUE != 0 {
                walk.skip_children();
            }
        }
        self.close(
            0,
            &mut open,
            &mut open_sites,
            &mut open_lists,
            &mut pending_items,
        );
        debug_assert_eq!(
            self.parts.len(),
            self.sites.len(),
            "one parts entry per site"
        );
    }

    /// Closes what nodes at `depth` or deeper opened: their scopes, sites, and lists
    /// (whose items are filed).
    fn close(
        &mut self,
        depth: usize,
        open: &mut Vec<(ScopeId, usize)>,
        open_sites: &mut Vec<(usize, usize)>,
        open_lists: &mut Vec<(usize, usize, usize)>,
        pending_items: &mut Vec<(Node<'a>, u16)>,
    ) {
        while open.len() > 1 && open.last().is_some_and(|s| s.1 >= depth) {
            open.pop();
        }
        while open_sites.last().is_some_and(|s| s.0 >= depth) {
            open_sites.pop();
        }
        while open_lists.last().is_some_and(|s| s.0 >= depth) {
            if let Some((_, entry, mark)) = open_lists.pop() {
                let start = self.list_items.len() as u32;
                for (n, k) in pending_items.drain(mark..) {
                    self.list_items.push(n);
                    self.list_kinds.push(k);
                }
                let len = self.list_items.len() as u32 - start;
                if let Some(e) = self.lists.get_mut(entry) {
                    e.2 = start;
                    e.3 = len;
                }
            }
        }
    }

    /// Every property name that is a construct's Start or End, in document order, each
    /// with the path of nodes from the analysed root down to it
    /// (`[program, …, call_expression, member_expression, property_identifier]`).
    pub fn construct_paths(&self) -> &[ConstructName<'a>] {
        &self.construct_paths
    }

    /// The named children of an object literal, argument list or parameter list
    /// (comments left out), as read during the walk; `None` for other nodes.
    pub fn list(&self, node: Node<'a>) -> Option<&[Node<'a>]> {
        self.list_items
            .get(self.list_range(node.start_byte(), node.end_byte())?)
    }

    /// Where the items of the list spanning `start..end` are in `list_items`.
    fn list_range(&self, start: usize, end: usize) -> Option<std::ops::Range<usize>> {
        // Lists start at their bracket: no two start at the same byte.
        let i = self.lists.binary_search_by_key(&start, |e| e.0).ok()?;
        let (_, list_end, first, len) = self.lists[i];
        (list_end == end).then_some(first as usize..(first + len) as usize)
    }

    /// [`Analysis::list`] of a site's part, with the items' kinds (in the same order),
    /// without asking the tree (see [`Part`]).
    pub fn list_part(&self, part: &Part<'a>) -> Option<(&[Node<'a>], &[u16])> {
        let range = self.list_range(part.node.start_byte(), part.end)?;
        Some((
            self.list_items.get(range.clone())?,
            self.list_kinds.get(range)?,
        ))
    }

    /// The documented member `name` of `iface` (inherited ones included), memoised.
    pub fn member(&self, iface: &'a str, name: &'a str) -> Option<&'a Member> {
        if let Ok(memo) = self.member_memo.try_borrow() {
            if let Some(&m) = memo.get(&(iface, name)) {
                return m;
            }
        }
        let m = self.corpus.member(iface, name);
        if let Ok(mut memo) = self.member_memo.try_borrow_mut() {
            memo.insert((iface, name), m);
        }
        m
    }

    /// The interface of a documented global variable, memoised.
    pub fn global_interface(&self, name: &'a str) -> Option<&'a str> {
        if let Ok(memo) = self.global_memo.try_borrow() {
            if let Some(&g) = memo.get(name) {
                return g;
            }
        }
        let g = self.corpus.global_interface(name);
        if let Ok(mut memo) = self.global_memo.try_borrow_mut() {
            memo.insert(name, g);
        }
        g
    }

    /// The object of a member expression, the function of a call, the constructor of a
    /// `new` (read during the walk; any other node asks the tree).
    pub fn head(&self, node: Node<'a>) -> Option<Node<'a>> {
        let f = query::fields();
        match node.kind() {
            "member_expression" => node.child_by_field_id(f.object),
            "call_expression" => node.child_by_field_id(f.function),
            "new_expression" => node.child_by_field_id(f.constructor),
            _ => None,
        }
    }

    /// The property of a member expression, the arguments of a call or a `new`.
    pub fn tail(&self, node: Node<'a>) -> Option<Node<'a>> {
        let f = query::fields();
        match node.kind() {
            "member_expression" => node.child_by_field_id(f.property),
            "call_expression" | "new_expression" => node.child_by_field_id(f.arguments),
            _ => None,
        }
    }

    /// The node of site `i` of [`Analysis::sites`].
    pub fn site_node(&self, i: usize) -> Option<Node<'a>> {
        self.sites.get(i).map(|s| s.1)
    }

    /// [`Analysis::head`] and [`Analysis::tail`] of site `i` of [`Analysis::sites`],
    /// read off the cursor during the walk (`child_by_field_id` scans children).
    pub fn site_parts(&self, i: usize) -> (Option<Node<'a>>, Option<Node<'a>>) {
        match self.parts.get(i) {
            Some(p) => (p[0].map(|p| p.node), p[1].map(|p| p.node)),
            None => (None, None),
        }
    }

    /// [`Analysis::site_parts`] with their kinds and ends, which cost nothing to read
    /// here (see [`Part`]).
    pub fn site_part_info(&self, i: usize) -> [Option<Part<'a>>; 2] {
        self.parts.get(i).copied().unwrap_or([None, None])
    }

    /// The source text of a part.
    pub fn part_text(&self, part: &Part) -> &'a str {
        self.text
            .get(part.node.start_byte()..part.end)
            .unwrap_or("")
    }

    /// The captures of `sites.scm` and `syntax.scm`, in document order: what the
    /// checker's families judge.
    /// Each comes with the scope it is in.
    pub fn sites(&self) -> &[(CaptureKind, Node<'a>, ScopeId)] {
        &self.sites
    }

    fn new_scope(&mut self, kind: ScopeKind, node: Node, parent: ScopeId) -> ScopeId {
        self.scopes.push(Scope {
            kind,
            start: node.start_byte(),
            end: node.end_byte(),
            parent: Some(parent),
            names: HashMap::default(),
        });
        self.scopes.len() - 1
    }

    /// The nearest scope that `var` and function declarations hoist to.
    fn function_scope(&self, mut s: ScopeId) -> ScopeId {
        while self.scopes[s].kind == ScopeKind::Catch {
            match self.scopes[s].parent {
                Some(p) => s = p,
                None => break,
            }
        }
        s
    }

    fn declare(&mut self, scope: ScopeId, name_node: Node, kind: BindingKind) -> BindingId {
        let name = self.node_text(name_node);
        if let Some(&b) = self.scopes[scope].names.get(name) {
            return b;
        }
        self.bindings.push(Binding {
            name,
            kind,
            scope,
            start: name_node.start_byte(),
            end: name_node.end_byte(),
            narrowed: false,
            assigns: Vec::new(),
            certain: None,
            seeded: false,
        });
        let id = self.bindings.len() - 1;
        self.scopes[scope].names.insert(name, id);
        id
    }

    /// Declares every identifier a pattern binds (`a`, `{a, b: c}`, `[a, ...b]`, `a = 1`).
    fn declare_pattern(&mut self, scope: ScopeId, pattern: Node, kind: BindingKind) {
        let mut stack = vec![pattern];
        while let Some(n) = stack.pop() {
            match n.kind() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    self.declare(scope, n, kind);
                }
                "assignment_pattern" | "object_assignment_pattern" => {
                    if let Some(l) = n.child_by_field_id(crate::js::query::fields().left) {
                        stack.push(l);
                    }
                }
                "pair_pattern" => {
                    if let Some(v) = n.child_by_field_id(crate::js::query::fields().value) {
                        stack.push(v);
                    }
                }
                "object_pattern" | "array_pattern" | "rest_pattern" | "formal_parameters" => {
                    let mut c = n.walk();
                    for child in n.named_children(&mut c) {
                        stack.push(child);
                    }
                }
                _ => {}
            }
        }
    }

    fn classify(&self, value: Node<'a>, scope: ScopeId) -> Assign<'a> {
        let mut v = value;
        while v.kind() == "parenthesized_expression" {
            match v.named_child(0) {
                Some(inner) => v = inner,
                None => return Assign::Other,
            }
        }
        match v.kind() {
            "new_expression" => match v.child_by_field_id(crate::js::query::fields().constructor) {
                Some(c) if c.kind() == "identifier" => Assign::New(self.node_text(c), scope),
                _ => Assign::Other,
            },
            "array" => Assign::Array,
            "string" | "template_string" => Assign::String,
            _ => Assign::Other,
        }
    }

    fn enter(&mut self, node: Node<'a>, scope: ScopeId, p: &mut Pending<'a>) -> Option<ScopeId> {
        match node.kind() {
            "function_declaration" | "generator_function_declaration" => {
                if let Some(name) = node.child_by_field_id(crate::js::query::fields().name) {
                    let fs = self.function_scope(scope);
                    self.declare(fs, name, BindingKind::Function);
                }
                Some(self.new_scope(ScopeKind::Function, node, scope))
            }
            "function_expression" | "generator_function" | "function" => {
                let s = self.new_scope(ScopeKind::Function, node, scope);
                if let Some(name) = node.child_by_field_id(crate::js::query::fields().name) {
                    self.declare(s, name, BindingKind::Function);
                }
                Some(s)
            }
            "arrow_function" => {
                let s = self.new_scope(ScopeKind::Function, node, scope);
                if let Some(param) = node.child_by_field_id(crate::js::query::fields().parameter) {
                    self.declare(s, param, BindingKind::Param);
                }
                Some(s)
            }
            "method_definition" => Some(self.new_scope(ScopeKind::Function, node, scope)),
            "formal_parameters" => {
                self.declare_pattern(scope, node, BindingKind::Param);
                None
            }
            "lexical_declaration" => {
                self.lexical_until = node.end_byte();
                None
            }
            "with_statement" => {
                self.with_ranges.push((node.start_byte(), node.end_byte()));
                None
            }
            "class_declaration" => {
                if let Some(name) = node.child_by_field_id(crate::js::query::fields().name) {
                    let fs = self.function_scope(scope);
                    self.declare(fs, name, BindingKind::Class);
                }
                None
            }
            "catch_clause" => {
                let s = self.new_scope(ScopeKind::Catch, node, scope);
                if let Some(param) = node.child_by_field_id(crate::js::query::fields().parameter) {
                    self.declare_pattern(s, param, BindingKind::Catch);
                }
                Some(s)
            }
            "variable_declarator" => {
                // `parent()` walks down from the root: remember the enclosing
                // `let`/`const` instead.
                let kind = if node.start_byte() < self.lexical_until {
                    BindingKind::Lexical
                } else {
                    BindingKind::Var
                };
                if let Some(name) = node.child_by_field_id(crate::js::query::fields().name) {
                    let fs = self.function_scope(scope);
                    self.declare_pattern(fs, name, kind);
                    if name.kind() == "identifier" {
                        if let Some(value) =
                            node.child_by_field_id(crate::js::query::fields().value)
                        {
                            let a = self.classify(value, scope);
                            p.assigns
                                .push((self.node_text(name), scope, name.start_byte(), a));
                        }
                    }
                }
                None
            }
            "assignment_expression" => {
                if let Some(left) = node.child_by_field_id(crate::js::query::fields().left) {
                    match left.kind() {
                        "identifier" => {
                            let a = node
                                .child_by_field_id(crate::js::query::fields().right)
                                .map(|r| self.classify(r, scope))
                                .unwrap_or(Assign::Other);
                            p.assigns
                                .push((self.node_text(left), scope, left.start_byte(), a));
                        }
                        "member_expression" => self.note_polyfill(left),
                        _ => {}
                    }
                }
                None
            }
            "augmented_assignment_expression" => {
                if let Some(left) = node.child_by_field_id(crate::js::query::fields().left) {
                    self.note_other_assign(p, left, scope);
                }
                None
            }
            "update_expression" => {
                if let Some(arg) = node.child_by_field_id(crate::js::query::fields().argument) {
                    self.note_other_assign(p, arg, scope);
                }
                None
            }
            "for_in_statement" => {
                if let Some(left) = node.child_by_field_id(crate::js::query::fields().left) {
                    if node
                        .child_by_field_id(crate::js::query::fields().kind)
                        .is_some()
                    {
                        let fs = self.function_scope(scope);
                        let kind = match node
                            .child_by_field_id(crate::js::query::fields().kind)
                            .map(|k| k.kind())
                        {
                            Some("var") => BindingKind::Var,
                            _ => BindingKind::Lexical,
                        };
                        self.declare_pattern(fs, left, kind);
                    }
                    self.note_other_assign(p, left, scope);
                }
                None
            }
            "instanceof" => {
                // The token's parent is the binary expression (rare: `parent()` walks).
                if let Some(bin) = node.parent() {
                    if let Some(left) = bin.child_by_field_id(crate::js::query::fields().left) {
                        if left.kind() == "identifier" {
                            p.narrows.push((self.node_text(left), scope));
                        }
                    }
                }
                None
            }
            "member_expression" => {
                let prop = node.child_by_field_id(crate::js::query::fields().property);
                if prop.is_some_and(|pr| self.node_text(pr) == "constructor") {
                    if let Some(obj) = node.child_by_field_id(crate::js::query::fields().object) {
                        if obj.kind() == "identifier" {
                            p.narrows.push((self.node_text(obj), scope));
                        }
                    }
                }
                None
            }
            "typeof" => {
                if let Some(arg) = node
                    .parent()
                    .and_then(|u| u.child_by_field_id(crate::js::query::fields().argument))
                {
                    if arg.kind() == "identifier" {
                        self.typeof_names.insert(self.node_text(arg));
                    }
                }
                None
            }
            _ => None,
        }
    }

    /// `Object.keys = ...`, `String.prototype.trim = ...`: the script supplies the
    /// built-in itself, so the engine family must not report it.
    /// Records an assignment to `target` that is not `new X()` (`x += 1`, `x++`, the
    /// variable of a `for (x in o)`): it makes the variable's type uncertain.
    fn note_other_assign(&self, p: &mut Pending<'a>, target: Node<'a>, scope: ScopeId) {
        if target.kind() == "identifier" {
            p.assigns.push((
                self.node_text(target),
                scope,
                target.start_byte(),
                Assign::Other,
            ));
        }
    }

    fn note_polyfill(&mut self, left: Node) {
        let t = self.node_text(left);
        let plain = t.split('.').all(|p| {
            !p.is_empty()
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        });
        if plain {
            self.polyfills.insert(t.to_string());
        }
    }

    fn settle(&mut self, p: Pending<'a>) {
        for (name, scope, at, a) in p.assigns {
            let b = match self.resolve(name, scope) {
                Some(b) => b,
                None => {
                    self.bindings.push(Binding {
                        name,
                        kind: BindingKind::Implicit,
                        scope: 0,
                        start: at,
                        end: at + name.len(),
                        narrowed: false,
                        assigns: Vec::new(),
                        certain: None,
                        seeded: false,
                    });
                    let id = self.bindings.len() - 1;
                    self.scopes[0].names.insert(name, id);
                    id
                }
            };
            if !self.bindings[b].seeded {
                self.bindings[b].assigns.push(a);
            }
        }
        for (name, scope) in p.narrows {
            match self.resolve(name, scope) {
                Some(b) if self.bindings[b].seeded => {}
                Some(b) => self.bindings[b].narrowed = true,
                None => {
                    self.narrowed_globals.insert(name);
                }
            }
        }
        for i in 0..self.bindings.len() {
            if !self.bindings[i].seeded {
                let c = self.binding_certain(i);
                self.bindings[i].certain = c;
            }
        }
    }

    fn binding_certain(&self, b: BindingId) -> Option<Certain<'a>> {
        let bind = &self.bindings[b];
        if bind.kind == BindingKind::Function && !bind.narrowed && bind.assigns.is_empty() {
            // A declared function never reassigned is a `Function`: `f.bind(o)` is
            // judged by the engine check like `[].map` (ES5 on an ES3 engine).
            return Some(Certain::Builtin(Proto::Function));
        }
        if bind.narrowed
            || !matches!(bind.kind, BindingKind::Var | BindingKind::Lexical)
            || bind.assigns.is_empty()
        {
            return None;
        }
        let first = bind.assigns[0];
        let mut result = match first {
            Assign::New(ctor, scope) => self.new_type(ctor, scope)?,
            Assign::Array => Certain::Builtin(Proto::Array),
            Assign::String => Certain::Builtin(Proto::String),
            Assign::Other => return None,
        };
        for a in &bind.assigns[1..] {
            let t = match *a {
                Assign::New(ctor, scope) => self.new_type(ctor, scope)?,
                Assign::Array => Certain::Builtin(Proto::Array),
                Assign::String => Certain::Builtin(Proto::String),
                Assign::Other => return None,
            };
            if t != result {
                return None;
            }
            result = t;
        }
        Some(result)
    }

    /// The type `new ctor()` gives at `scope`: a documented constructor's interface, or a
    /// built-in array/string/date/regexp; `None` when the name is declared by the script.
    fn new_type(&self, ctor: &str, scope: ScopeId) -> Option<Certain<'a>> {
        if self.resolve(ctor, scope).is_some() || self.project_names.contains(ctor) {
            return None;
        }
        if let Some(c) = self.corpus.constructors.get(ctor) {
            return Some(Certain::Interface(c.interface.as_str()));
        }
        builtin_proto(ctor).map(Certain::Builtin)
    }

    // ---- scope queries --------------------------------------------------------------

    /// The binding `name` refers to when written in `scope`.
    pub fn resolve(&self, name: &str, scope: ScopeId) -> Option<BindingId> {
        let mut s = Some(scope);
        while let Some(id) = s {
            let sc = self.scopes.get(id)?;
            if let Some(&b) = sc.names.get(name) {
                return Some(b);
            }
            s = sc.parent;
        }
        None
    }

    /// The innermost scope containing byte `offset`.
    pub fn scope_at(&self, offset: usize) -> ScopeId {
        // Scopes are in document order of their start; the last one starting at or
        // before the offset, walked out until it contains the offset, is the innermost.
        let i = self.scopes.partition_point(|s| s.start <= offset);
        let mut s = i.saturating_sub(1);
        loop {
            let sc = &self.scopes[s];
            if sc.start <= offset && offset < sc.end.max(sc.start + 1) || sc.parent.is_none() {
                return s;
            }
            s = sc.parent.unwrap_or(0);
        }
    }

    /// The binding `name` refers to at byte `offset`, if the script declares it there.
    pub fn binding_at(&self, name: &str, offset: usize) -> Option<&Binding<'a>> {
        self.resolve(name, self.scope_at(offset))
            .map(|b| &self.bindings[b])
    }

    /// Whether the script declares `name` in scope at `offset` (a local `var layout`
    /// hides the global `layout`).
    pub fn is_declared(&self, name: &str, offset: usize) -> bool {
        self.binding_at(name, offset).is_some()
    }

    /// Every identifier of the analysed code in document order, with the binding it
    /// names; empty unless the analysis was made [`Analysis::with_refs`].
    pub fn refs(&self) -> &[Ref] {
        &self.refs
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

    /// The ref whose identifier starts at byte `start`.
    pub fn ref_starting_at(&self, start: usize) -> Option<&Ref> {
        let i = self.refs.partition_point(|r| r.start < start);
        self.refs.get(i).filter(|r| r.start == start)
    }

    /// Whether `name` is declared in `scope` (or an enclosing one) by the script, or at
    /// the top level of a reachable project file.
    pub fn is_declared_in(&self, name: &str, scope: ScopeId) -> bool {
        self.resolve(name, scope).is_some() || self.project_names.contains(name)
    }

    /// Whether `name` is declared at `offset` by the script, or at the top level of a
    /// reachable project file ([`Analysis::set_project_names`]).
    pub fn is_declared_anywhere(&self, name: &str, offset: usize) -> bool {
        self.is_declared(name, offset) || self.project_names.contains(name)
    }

    /// Every binding visible at `offset`, innermost first (a shadowed name appears
    /// once, as its innermost binding). For completion.
    pub fn visible_bindings(&self, offset: usize) -> Vec<&Binding<'a>> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let mut s = Some(self.scope_at(offset));
        while let Some(id) = s {
            let sc = &self.scopes[id];
            let mut local: Vec<&Binding<'a>> =
                sc.names.values().map(|&b| &self.bindings[b]).collect();
            local.sort_by_key(|b| b.start);
            for b in local {
                if seen.insert(b.name) {
                    out.push(b);
                }
            }
            s = sc.parent;
        }
        out
    }

    /// The top-level declarations of the script (functions and variables, implicit
    /// globals included): what other project files may use.
    pub fn top_level_names(&self) -> Vec<&'a str> {
        let mut v: Vec<&'a str> = self.scopes[0].names.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Whether `offset` lies inside a `with` statement, where a bare name may be a
    /// property of the `with` object: such names are not accused of being undeclared.
    pub fn in_with(&self, offset: usize) -> bool {
        self.with_ranges
            .iter()
            .any(|&(s, e)| s <= offset && offset < e)
    }

    /// Whether the script tests `name` with `typeof` somewhere (feature detection such
    /// as `if (typeof console != "undefined")`): such a name is not accused of being
    /// undeclared.
    pub fn is_typeof_tested(&self, name: &str) -> bool {
        self.typeof_names.contains(name)
    }

    /// Whether the script assigns the built-in itself (`Object.keys = ...`,
    /// `String.prototype.trim = ...`). `path` is written as in that assignment.
    pub fn is_polyfilled(&self, path: &str) -> bool {
        self.polyfills.contains(path)
    }

    /// Every member path the script assigns (`Object.keys`, `String.prototype.trim`).
    pub fn polyfills(&self) -> impl Iterator<Item = &str> {
        self.polyfills.iter().map(String::as_str)
    }

    /// The smallest node of kind `kind` that contains byte `offset` (for tests and the
    /// language server's cursor position).
    pub fn node_at(&self, offset: usize, kind: &str) -> Option<Node<'a>> {
        let mut n = self
            .tree
            .root_node()
            .descendant_for_byte_range(offset, offset)?;
        loop {
            if n.kind() == kind {
                return Some(n);
            }
            n = n.parent()?;
        }
    }

    // ---- receiver typing ------------------------------------------------------------

    /// The certain interface of an expression node, or `None` (see the module docs for
    /// what counts as certain).
    pub fn interface_of(&self, node: Node<'a>) -> Option<String> {
        match self.certain(node)? {
            Certain::Interface(i) => Some(i.to_string()),
            Certain::Builtin(_) => None,
        }
    }

    /// The certain type of an expression node: a documented interface or a built-in
    /// value type.
    pub fn certain(&self, node: Node<'a>) -> Option<Certain<'a>> {
        self.certain_in(node, self.scope_at(node.start_byte()))
    }

    /// Like [`Analysis::certain`] when the caller knows the node's scope.
    pub fn certain_in(&self, node: Node<'a>, scope: ScopeId) -> Option<Certain<'a>> {
        // Walk down to the head of the chain, then type it back up step by step, so a
        // long chain costs no stack.
        // (property, is a call); no property: a numeric index `x[i]`.
        let mut steps: Vec<(Option<Node<'a>>, bool)> = Vec::new();
        let mut n = node;
        let mut bare_call = false;
        let ids = query::kind_ids();
        loop {
            let k = n.kind_id();
            if k == ids.parenthesized_expression {
                n = n.named_child(0)?;
            } else if k == ids.member_expression {
                steps.push((Some(self.tail(n)?), false));
                n = self.head(n)?;
            } else if k == ids.subscript_expression {
                // `pages[0]`, `pages[i]`: a string key names a member, not an element.
                let index = n.child_by_field_name("index")?;
                if index.kind_id() == ids.string || index.kind_id() == ids.template_string {
                    return None;
                }
                steps.push((None, false));
                n = n.child_by_field_id(query::fields().object)?;
            } else if k == ids.call_expression {
                let f = self.head(n)?;
                let fk = f.kind_id();
                if fk == ids.member_expression {
                    steps.push((Some(self.tail(f)?), true));
                    n = self.head(f)?;
                } else if fk == ids.identifier {
                    n = f;
                    bare_call = true;
                    break;
                } else {
                    return None;
                }
            } else {
                break;
            }
        }
        let mut t = if bare_call {
            // A bare call of a documented global function: its return type.
            let name = self.node_text(n);
            if self.resolve(name, scope).is_some() || self.project_names.contains(name) {
                return None;
            }
            let m = self.corpus.global_member(name)?;
            type_certain(member_type(m)?)?
        } else {
            self.head_certain(n, scope)?
        };
        while let Some((prop, is_call)) = steps.pop() {
            let Certain::Interface(iface) = t else {
                return None;
            };
            let Some(prop) = prop else {
                // `Index: [index: number]: T` keeps a collection's element certain.
                t = type_certain(self.corpus.number_index(iface)?)?;
                continue;
            };
            let m = self.member(iface, self.node_text(prop))?;
            let is_method = m.overloads.first().is_some_and(|s| s.is_method());
            if is_call != is_method {
                // `layout.heading` without a call is a function value, not a Paragraph.
                return None;
            }
            t = type_certain(member_type(m)?)?;
        }
        Some(t)
    }

    /// [`Analysis::certain_in`] of a site's part (see [`Part`]): a bare name is typed
    /// without asking the tree.
    pub fn certain_part(&self, part: &Part<'a>, scope: ScopeId) -> Option<Certain<'a>> {
        if part.kind == query::kind_ids().identifier {
            self.certain_name(self.part_text(part), scope)
        } else {
            self.certain_in(part.node, scope)
        }
    }

    /// The certain type of the bare name `name` used in `scope`.
    fn certain_name(&self, name: &'a str, scope: ScopeId) -> Option<Certain<'a>> {
        match self.resolve(name, scope) {
            Some(b) => self.bindings[b].certain,
            None => {
                if self.project_names.contains(name) || self.narrowed_globals.contains(name) {
                    return None;
                }
                self.global_interface(name)
                    .map(Certain::Interface)
                    .or_else(|| super::global_value(self.corpus, name))
            }
        }
    }

    fn head_certain(&self, n: Node, scope: ScopeId) -> Option<Certain<'a>> {
        let ids = query::kind_ids();
        let k = n.kind_id();
        if k == ids.identifier {
            return self.certain_name(self.node_text(n), scope);
        }
        if k == ids.new_expression {
            let c = n.child_by_field_id(query::fields().constructor)?;
            if c.kind_id() != ids.identifier {
                return None;
            }
            return self.new_type(self.node_text(c), scope);
        }
        if k == ids.array {
            Some(Certain::Builtin(Proto::Array))
        } else if k == ids.string || k == ids.template_string {
            Some(Certain::Builtin(Proto::String))
        } else if k == ids.regex {
            Some(Certain::Builtin(Proto::RegExp))
        } else {
            None
        }
    }
}

/// Whether a list node (`{...}`, `(...)`) ends with a comma before its closing token,
/// judged by the text: skipping white space back from the closing token.
fn trailing_comma(text: &str, list: Node) -> bool {
    let end = list.end_byte();
    // A list cut short by a syntax error can be its opening token alone (`f(` at the
    // end of the text, the `)` missing): nothing between the brackets then.
    if end < list.start_byte() + 2 || end > text.len() {
        return false;
    }
    let inner = &text.as_bytes()[list.start_byte() + 1..end - 1];
    inner
        .iter()
        .rev()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b',')
}

/// The type of the value a member gives (a method's return, a property's type), when
/// every overload agrees; borrowed from the corpus (what [`crate::docs::Member::value_type`]
/// computes, without the copy).
pub fn member_type(m: &crate::docs::Member) -> Option<&Type> {
    let mut it = m.overloads.iter().map(|s| &s.ty);
    let first = it.next()?;
    it.all(|t| t == first).then_some(first)
}

/// The certain type of a documented type: exactly one interface, or a built-in value.
pub fn type_certain(t: &Type) -> Option<Certain<'_>> {
    match t {
        Type::Interface(i) => Some(Certain::Interface(i.as_str())),
        Type::String | Type::Path => Some(Certain::Builtin(Proto::String)),
        Type::Number => Some(Certain::Builtin(Proto::Number)),
        Type::Array(_) => Some(Certain::Builtin(Proto::Array)),
        Type::Builtin(b) => builtin_proto(b).map(Certain::Builtin),
        _ => None,
    }
}

/// The prototype of `new Name()` for the built-ins whose methods the table lists.
pub fn builtin_proto(name: &str) -> Option<Proto> {
    Some(match name {
        "Array" => Proto::Array,
        "String" => Proto::String,
        "Date" => Proto::Date,
        "RegExp" => Proto::RegExp,
        "Number" => Proto::Number,
        "Function" => Proto::Function,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Everything a walk leaves in an analysis, in a comparable form.
    fn fingerprint(a: &Analysis) -> String {
        let r = |n: Node| (n.start_byte(), n.end_byte(), n.kind_id());
        let mut out = String::new();
        for (i, &(kind, node, scope)) in a.sites.iter().enumerate() {
            let parts: Vec<_> = a.parts[i]
                .iter()
                .map(|p| p.map(|p| (r(p.node), p.kind, p.end)))
                .collect();
            out.push_str(&format!("site {kind:?} {:?} {scope} {parts:?}\n", r(node)));
        }
        for sc in &a.scopes {
            let mut names: Vec<_> = sc.names.iter().map(|(k, v)| (*k, *v)).collect();
            names.sort();
            out.push_str(&format!(
                "scope {:?} {} {} {:?} {names:?}\n",
                sc.kind, sc.start, sc.end, sc.parent
            ));
        }
        for b in &a.bindings {
            out.push_str(&format!("binding {b:?}\n"));
        }
        let items: Vec<_> = a.list_items.iter().map(|&n| r(n)).collect();
        out.push_str(&format!(
            "lists {:?} {items:?} {:?}\n",
            a.lists, a.list_kinds
        ));
        for c in &a.construct_paths {
            let path: Vec<_> = c
                .path
                .iter()
                .map(|p| (r(p.node), p.kind, p.end, p.end_row))
                .collect();
            out.push_str(&format!(
                "construct {path:?} {:?}\n",
                c.object.map(|o| (r(o.node), o.end))
            ));
        }
        let mut t: Vec<_> = a.typeof_names.iter().collect();
        t.sort();
        let mut n: Vec<_> = a.narrowed_globals.iter().collect();
        n.sort();
        let mut p: Vec<_> = a.polyfills.iter().collect();
        p.sort();
        out.push_str(&format!(
            "typeof {t:?} narrowed {n:?} polyfills {p:?} with {:?} lexical {}\n",
            a.with_ranges, a.lexical_until
        ));
        out
    }

    fn scripts_under(dir: &std::path::Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                scripts_under(&p, out);
            } else if p.extension().is_some_and(|x| x == "js") {
                out.push(std::fs::read_to_string(&p).unwrap_or_default());
            }
        }
    }

    #[test]
    fn stepping_over_tokens_misses_nothing_the_analysis_reads() {
        let corpus = crate::docs::bundled::demo().unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut scripts = Vec::new();
        scripts_under(&root.join("tests/fixtures"), &mut scripts);
        scripts_under(&root.join("examples/demo"), &mut scripts);
        scripts.extend(
            [
                "if (typeof JSON === 'undefined') { JSON = {}; }\nif (x instanceof Table) { x.columns = 2; }",
                "for (var k in o) { o[k] **= 2; } var a = b ?? c; d ||= e;",
                "let t = new Table(); const u = t; for (const v of w) { layout.tableStart(v); }",
                "var o = { a: 1, b: [1, 2,], 'c': function (p, q,) { return p; }, };\nf(1, 2,);",
                "function f(a, b) { with (a) { b(); } try { g(); } catch (e) { e.x(); } }",
                "layout.tableStart(t /* c */); layout.tableEnd(); x = /a/y; y = 0b1 + 1_000 + 10n;",
                "var x = ; f(1,, 2 } layout.blockStart(",
            ]
            .map(String::from),
        );
        assert!(scripts.len() > 20, "{}", scripts.len());
        let mut stepped = 0;
        for text in &scripts {
            let tree = crate::js::parse(text);
            let skipping = Analysis::build(&corpus, text, &tree, false);
            let full = Analysis::build(&corpus, text, &tree, true);
            assert_eq!(fingerprint(&skipping), fingerprint(&full), "{text}");
            if !query::anonymous_roots().unlisted_in(text) {
                stepped += 1;
            }
        }
        assert!(stepped > 20, "most scripts step over tokens ({stepped})");
    }

    #[test]
    fn recording_refs_changes_nothing_the_checker_reads() {
        // The footprints' analysis is the checker's with refs recorded: the scopes,
        // bindings and sites must be the same, or the two would answer differently.
        let corpus = crate::docs::bundled::demo().unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut scripts = Vec::new();
        scripts_under(&root.join("tests/fixtures/footprint"), &mut scripts);
        scripts_under(&root.join("examples/demo"), &mut scripts);
        scripts.push("try { f(); } catch (e) { var v = e; } e.x = 1; z = 2;".into());
        assert!(scripts.len() > 5, "{}", scripts.len());
        for text in &scripts {
            let tree = crate::js::parse(text);
            let plain = Analysis::new(&corpus, text, &tree);
            let mut visited = 0;
            let with = Analysis::with_refs(&corpus, text, &tree, tree.root_node(), |_| {
                visited += 1;
            });
            assert_eq!(fingerprint(&plain), fingerprint(&with), "{text}");
            assert!(plain.refs().is_empty());
            let idents = text.matches(|c: char| c.is_ascii_alphabetic()).count();
            assert!(with.refs().len() <= idents && visited >= with.refs().len());
        }
    }

    /// The binding kind that the identifier starting the `nth` occurrence of `needle`
    /// names.
    fn kind_of_ref(a: &Analysis, text: &str, needle: &str, nth: usize) -> Option<BindingKind> {
        let at = text.match_indices(needle).nth(nth).unwrap().0;
        let r = a.ref_starting_at(at).expect("an identifier starts there");
        assert!(needle.starts_with(&text[r.start..r.end]), "{needle}");
        r.binding.map(|b| a.bindings[b].kind)
    }

    #[test]
    fn refs_name_what_es3_scopes_say() {
        let c = corpus();
        let text = "function f(a) {
  try { g(); } catch (e) { e.x = 1; var v = e; }
  e.y = 2;
  return a + v + h + layout;
  function h() {}
}
var a = 1;
z = 2;
z;
";
        let tree = crate::js::parse(text);
        let a = Analysis::with_refs(&c, text, &tree, tree.root_node(), |_| {});
        // `catch` binds its parameter for the clause only.
        assert_eq!(kind_of_ref(&a, text, "e", 1), Some(BindingKind::Catch));
        assert_eq!(kind_of_ref(&a, text, "e", 2), Some(BindingKind::Catch));
        assert_eq!(kind_of_ref(&a, text, "e.y", 0), None);
        // `var` inside the catch hoists to the function; declarations hoist.
        let v = text.find("v + h").unwrap();
        let r = a.ref_at(v).unwrap();
        assert_eq!(a.bindings[r.binding.unwrap()].kind, BindingKind::Var);
        assert_ne!(a.bindings[r.binding.unwrap()].scope, 0);
        assert_eq!(kind_of_ref(&a, text, "h +", 0), Some(BindingKind::Function));
        // The parameter shadows the top-level `var a`.
        assert_eq!(kind_of_ref(&a, text, "a + v", 0), Some(BindingKind::Param));
        assert_eq!(kind_of_ref(&a, text, "a = 1", 0), Some(BindingKind::Var));
        // Undeclared: a global, implicit when assigned.
        assert_eq!(kind_of_ref(&a, text, "layout", 0), None);
        assert_eq!(kind_of_ref(&a, text, "z", 0), Some(BindingKind::Implicit));
        assert_eq!(kind_of_ref(&a, text, "z", 1), Some(BindingKind::Implicit));
        assert_eq!(a.refs_on_row(3).len(), 4);
    }

    #[test]
    fn a_subtree_s_refs_leave_outer_names_unresolved() {
        let c = corpus();
        let text = "var t = 1;
function f(p) { var q = p + t; }
";
        let tree = crate::js::parse(text);
        let f = tree.root_node().named_child(1).unwrap();
        assert!(is_function_kind(f.kind_id()));
        let a = Analysis::with_refs(&c, text, &tree, f, |_| {});
        assert_eq!(kind_of_ref(&a, text, "t;", 0), None);
        assert_eq!(kind_of_ref(&a, text, "p +", 0), Some(BindingKind::Param));
        assert_eq!(kind_of_ref(&a, text, "f(", 0), Some(BindingKind::Function));
        assert!(a.ref_starting_at(0).is_none(), "outside the subtree");
    }

    fn corpus() -> Corpus {
        Corpus::from_texts(&[(
            "a.md",
            "# Layout\n\nThis object is accessed using the global property \"layout\".\n\n\
             ## Layout-currentPage\n\nSyntax: currentPage(): Page\n\n\
             # Page\n\n## Page-frame\n\nSyntax: frame: Frame\n\n\
             # Frame\n\n## Frame-x\n\nSyntax: x: number\n\n\
             # Table\n\nConstructor: new Table()\n\n## Table-columns\n\nSyntax: columns: number\n",
        )])
        .unwrap()
    }

    fn iface_at(text: &str, needle: &str, kind: &str) -> Option<String> {
        let c = corpus();
        let tree = crate::js::parse(text);
        let a = Analysis::new(&c, text, &tree);
        let n = a.node_at(text.find(needle).unwrap(), kind).unwrap();
        a.interface_of(n)
    }

    #[test]
    fn chains_and_globals() {
        let t = "layout.currentPage().frame.x = 1;";
        assert_eq!(
            iface_at(t, "frame", "member_expression").as_deref(),
            Some("Frame")
        );
        assert_eq!(
            iface_at(t, "layout", "identifier").as_deref(),
            Some("Layout")
        );
    }

    #[test]
    fn shadowing_params_and_catch() {
        let t = "function f(layout) { layout.q(); }";
        assert_eq!(iface_at(t, "layout.q", "identifier"), None);
        let t = "function f() { layout.q(); var layout = {}; }";
        assert_eq!(iface_at(t, "layout.q", "identifier"), None);
        let t = "try {} catch (layout) { layout.q(); }\nlayout.r();";
        assert_eq!(iface_at(t, "layout.q", "identifier"), None);
        assert_eq!(
            iface_at(t, "layout.r", "identifier").as_deref(),
            Some("Layout")
        );
    }

    #[test]
    fn variables_by_every_assignment() {
        let t = "var t = new Table();\nt.columns = 2;";
        assert_eq!(
            iface_at(t, "t.columns", "identifier").as_deref(),
            Some("Table")
        );
        let t = "var t = new Table();\nt = other();\nt.columns = 2;";
        assert_eq!(iface_at(t, "t.columns", "identifier"), None);
        let t = "var t = new Table();\nif (t instanceof Foo) {}\nt.columns = 2;";
        assert_eq!(iface_at(t, "t.columns", "identifier"), None);
        let t = "function Table() {}\nvar t = new Table();\nt.columns = 2;";
        assert_eq!(iface_at(t, "t.columns", "identifier"), None);
    }
}

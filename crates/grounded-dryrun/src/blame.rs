//! Which file a run-time failure belongs to.
//!
//! The engine throws where a name is *used*: `helper()` in `lib/b.jsx` throws "not a
//! function" because `main.jsx` declared `var helper = 5`. A finding at the call sent
//! the user (and the agent, which fixes where it is pointed) to edit the file that only
//! used the name, while the mistake was in the file that declared it. So when the
//! failing name is the project's own (declared somewhere in the project, or assigned as
//! a member of a project object), the finding goes to where the project declares or
//! wrongly assigns it, with the use as related information; when no file declares it,
//! it stays at the use, with related information pointing at the other side (the load
//! that brought the file in, the files it loaded, a declaration of a near name).
//!
//! Decided from the project's own text and the run's events only: the project's scripts
//! are parsed here, on the first failure that needs them, never on a clean run.
//! Invented engine members (not in the docs) are not judged here: touching one is the
//! wrong use itself, and it stays where it is.
//!
//! May import `source` and `engine` (positions, texts, events); never `report`, which
//! imports this.

use std::collections::HashMap;

use grounded_docs::Corpus;
use grounded_js::LineIndex;

use super::source::Sources;

/// What a declaration or assignment gives its name, as far as the text alone says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Value {
    /// A function (declaration, expression, arrow).
    Function,
    /// Declared without a value (`var helper;`).
    Absent,
    /// `undefined`, `null`, `void x`.
    Nothing(&'static str),
    /// A value of another kind: "a number", "an object", ...
    Other(&'static str),
    /// Anything the text alone cannot tell (a call's result, another variable).
    Unknown,
}

impl Value {
    /// Never a function, whatever ran.
    fn not_function(self) -> bool {
        !matches!(self, Value::Function | Value::Unknown)
    }

    /// Never an object or function: reading a property of it throws.
    fn nothing(self) -> bool {
        matches!(self, Value::Absent | Value::Nothing(_))
    }

    /// In words, after "declared here" (`decl`) or "set here".
    fn words(self, decl: bool) -> String {
        let how = if decl { "as" } else { "to" };
        match self {
            Value::Function => format!("{how} a function"),
            Value::Absent => "without a value".into(),
            Value::Nothing(v) => format!("{how} `{v}`"),
            Value::Other(k) => format!("{how} {k}"),
            Value::Unknown => format!("{how} a computed value"),
        }
    }
}

/// What the use that failed did with the value.
#[derive(Debug, Clone, Copy)]
enum Use {
    /// Called it (`not a function`).
    Call,
    /// Read a property of it (`cannot read property 'p' of undefined`).
    Read,
}

impl Use {
    /// Whether `v` can never serve this use.
    fn wrong(self, v: Value) -> bool {
        match self {
            Use::Call => v.not_function(),
            Use::Read => v.nothing(),
        }
    }

    fn needs(self) -> &'static str {
        match self {
            Use::Call => "a function",
            Use::Read => "an object",
        }
    }

    fn does(self) -> &'static str {
        match self {
            Use::Call => "calls it",
            Use::Read => "reads a property of it",
        }
    }
}

/// One place where the project declares or assigns a name.
#[derive(Debug, Clone)]
pub(super) struct Site {
    /// Index into [`Project::files`].
    file: usize,
    /// Byte range of the name.
    start: usize,
    end: usize,
    /// What it gives the name.
    value: Value,
    /// A declaration (`var`, `let`, `const`, `function`), else an assignment.
    decl: bool,
    /// The enclosing function's name (`None`: the top level; `Some("")`: anonymous).
    func: Option<String>,
}

/// The project's declarations and member assignments, by name.
#[derive(Debug, Default)]
pub(super) struct Project {
    /// (path relative to the root, text as written).
    files: Vec<(String, String)>,
    /// Declarations and assignments of plain names.
    names: HashMap<String, Vec<Site>>,
    /// `obj.m = v` and `var obj = { m: v }`, by (obj, m).
    members: HashMap<(String, String), Vec<Site>>,
    /// The files this run ran (indices into `files`): their declarations come first.
    ran: Vec<usize>,
}

/// A place in the project, with what it says about the finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Note {
    /// Path relative to the root.
    pub file: String,
    /// Byte range in that file.
    pub start: usize,
    /// End of the range.
    pub end: usize,
    /// What the place is.
    pub message: String,
}

/// Where a failure goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Verdict {
    /// To the declaration or assignment that made it: `at` with `message`; the use
    /// becomes related information.
    Moved {
        /// Where the finding goes.
        at: Note,
    },
    /// It stays at the use; these are the other side.
    Stays(Vec<Note>),
}

/// The failure at the use, as the run gave it.
pub(super) struct Failure<'a> {
    /// The file of the use, relative to the root.
    pub file: &'a str,
    /// Its text as written.
    pub text: &'a str,
    /// Byte offset the engine pointed at.
    pub pos: usize,
    /// `TypeError`, `ReferenceError`.
    pub name: &'a str,
    /// The engine's message.
    pub message: &'a str,
    /// The whole message of the finding at the use, quoted in a moved finding.
    pub shown: &'a str,
}

/// The loads of this run: (loaded file, the file and byte offset of the load).
pub(super) type Loads<'a> = &'a [(String, Option<(String, usize)>)];

impl Project {
    /// Reads and parses the project's scripts (and `also`, the files the run ran,
    /// which may include a Markdown entry).
    pub(super) fn scan(corpus: &Corpus, sources: &Sources, also: &[&str]) -> Project {
        let walk = grounded_check::project::script_files(corpus, sources.root(), false);
        let mut rels: Vec<String> = walk
            .files
            .iter()
            .map(|f| grounded_check::project::relative(sources.root(), f))
            .collect();
        for a in also {
            if !rels.iter().any(|r| r == a) {
                rels.push(a.to_string());
            }
        }
        let mut p = Project::default();
        for rel in rels {
            let Some(text) = sources.read(&rel) else {
                continue;
            };
            let i = p.files.len();
            p.add(corpus, i, &rel, &text);
            if also.contains(&rel.as_str()) {
                p.ran.push(i);
            }
            p.files.push((rel, text));
        }
        p
    }

    /// The site to blame: one in a file the run ran before one it did not, a
    /// declaration before an assignment, the top level before a function, else the
    /// first.
    fn pick<'s>(&self, sites: &'s [Site]) -> &'s Site {
        sites
            .iter()
            .enumerate()
            .min_by_key(|(i, s)| (!self.ran.contains(&s.file), !s.decl, s.func.is_some(), *i))
            .map(|(_, s)| s)
            .unwrap_or(&sites[0])
    }

    fn add(&mut self, corpus: &Corpus, file: usize, rel: &str, text: &str) {
        let script = grounded_js::script_text(rel, text, &corpus.engine.directives);
        let tree = grounded_js::parse(&script);
        let src = script.as_ref();
        let node_text = |n: tree_sitter::Node| src.get(n.byte_range()).unwrap_or("");
        // Enclosing functions: (end byte, name), innermost last.
        let mut funcs: Vec<(usize, String)> = Vec::new();
        let mut walk = grounded_js::Preorder::new(tree.root_node());
        while let Some((node, _)) = walk.next() {
            while funcs
                .last()
                .is_some_and(|(end, _)| node.start_byte() >= *end)
            {
                funcs.pop();
            }
            let func = funcs.last().map(|(_, n)| n.clone());
            let site =
                |n: tree_sitter::Node, value: Value, decl: bool, func: Option<String>| Site {
                    file,
                    start: n.start_byte(),
                    end: n.end_byte(),
                    value,
                    decl,
                    func,
                };
            match node.kind() {
                "function_declaration" | "generator_function_declaration" => {
                    if let Some(n) = node.child_by_field_name("name") {
                        self.names
                            .entry(node_text(n).to_string())
                            .or_default()
                            .push(site(n, Value::Function, true, func.clone()));
                    }
                }
                "variable_declarator" => {
                    let Some(n) = node.child_by_field_name("name") else {
                        continue;
                    };
                    if n.kind() != "identifier" {
                        continue;
                    }
                    let value = node.child_by_field_name("value");
                    let v = value.map_or(Value::Absent, |v| classify(v, src));
                    let name = node_text(n).to_string();
                    if let Some(obj) = value.filter(|v| v.kind() == "object") {
                        self.keys(&name, obj, src, file, &func);
                    }
                    self.names
                        .entry(name)
                        .or_default()
                        .push(site(n, v, true, func.clone()));
                }
                "assignment_expression" => {
                    let (Some(left), Some(right)) = (
                        node.child_by_field_name("left"),
                        node.child_by_field_name("right"),
                    ) else {
                        continue;
                    };
                    let v = classify(right, src);
                    match left.kind() {
                        "identifier" => {
                            let name = node_text(left).to_string();
                            if right.kind() == "object" {
                                self.keys(&name, right, src, file, &func);
                            }
                            self.names.entry(name).or_default().push(site(
                                left,
                                v,
                                false,
                                func.clone(),
                            ));
                        }
                        "member_expression" => {
                            let (Some(obj), Some(prop)) = (
                                left.child_by_field_name("object"),
                                left.child_by_field_name("property"),
                            ) else {
                                continue;
                            };
                            if obj.kind() == "identifier" {
                                self.members
                                    .entry((
                                        node_text(obj).to_string(),
                                        node_text(prop).to_string(),
                                    ))
                                    .or_default()
                                    .push(site(prop, v, false, func.clone()));
                            }
                        }
                        _ => {}
                    }
                }
                _ => {}
            }
            if is_function(node.kind()) {
                let name = node
                    .child_by_field_name("name")
                    .map(|n| node_text(n).to_string())
                    .unwrap_or_default();
                funcs.push((node.end_byte(), name));
            }
        }
    }

    /// The keys of an object literal assigned to `obj`, as members of it.
    fn keys(
        &mut self,
        obj: &str,
        lit: tree_sitter::Node,
        src: &str,
        file: usize,
        func: &Option<String>,
    ) {
        let mut c = lit.walk();
        for pair in lit.named_children(&mut c) {
            let (key, value) = match pair.kind() {
                "pair" => match (
                    pair.child_by_field_name("key"),
                    pair.child_by_field_name("value"),
                ) {
                    (Some(k), Some(v)) => (k, classify(v, src)),
                    _ => continue,
                },
                "method_definition" => match pair.child_by_field_name("name") {
                    Some(k) => (k, Value::Function),
                    None => continue,
                },
                _ => continue,
            };
            let name = src.get(key.byte_range()).unwrap_or("");
            let name = match key.kind() {
                "property_identifier" => name.to_string(),
                "string" => name.trim_matches(['"', '\'']).to_string(),
                _ => continue,
            };
            self.members
                .entry((obj.to_string(), name))
                .or_default()
                .push(Site {
                    file,
                    start: key.start_byte(),
                    end: key.end_byte(),
                    value,
                    decl: false,
                    func: func.clone(),
                });
        }
    }

    fn note(&self, s: &Site, message: String) -> Note {
        Note {
            file: self.files[s.file].0.clone(),
            start: s.start,
            end: s.end,
            message,
        }
    }

    fn text_of(&self, file: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|(f, _)| f == file)
            .map(|(_, t)| t.as_str())
    }

    /// A load's place as a byte offset in its file.
    pub(super) fn byte_of(&self, l: &super::engine::Loc) -> Option<(String, usize)> {
        let text = self.text_of(&l.file)?;
        let at = super::source::byte_at(text, &LineIndex::new(text), l.line, l.col);
        Some((l.file.clone(), at))
    }

    /// A note as related information.
    pub(super) fn place(&self, n: &Note) -> Option<grounded_check::Place> {
        let text = self.text_of(&n.file)?;
        let (line, column) = LineIndex::new(text).line_col(n.start);
        Some(grounded_check::Place {
            path: n.file.clone(),
            line,
            column,
            message: n.message.clone(),
        })
    }

    /// A note as the finding itself.
    pub(super) fn finding(
        &self,
        n: &Note,
        code: grounded_check::Code,
    ) -> Option<grounded_check::Finding> {
        let text = self.text_of(&n.file)?;
        let idx = LineIndex::new(text);
        Some(grounded_check::Finding::with_index(
            &n.file,
            &idx,
            grounded_check::Span::new(n.start, n.end),
            code,
            n.message.clone(),
        ))
    }

    /// Where a failure goes, or `None` when the project has nothing to say about it
    /// (the failing name is no name of the project's).
    pub(super) fn judge(&self, f: &Failure, loads: Loads) -> Option<Verdict> {
        let use_place = {
            let line = LineIndex::new(f.text).line_col(f.pos).0;
            format!("{}:{line}", f.file)
        };
        if f.name == "ReferenceError" {
            let n = f.message.strip_suffix(" is not defined")?;
            return Some(self.undefined(n, f, &use_place, loads));
        }
        if f.name != "TypeError" {
            return None;
        }
        let tree = grounded_js::parse(&grounded_js::script_text(f.file, f.text, &[]));
        let src = f.text;
        if f.message == "not a function" {
            let call = innermost(tree.root_node(), f.pos, &["call_expression"])?;
            let callee = call.child_by_field_name("function")?;
            return self.wrong_value(callee, src, f, &use_place, Use::Call);
        }
        // `cannot read property 'p' of undefined`: the thing read was nothing.
        let prop = property_of(f.message)?;
        let member = member_at(tree.root_node(), f.pos, prop, src)?;
        let object = member.child_by_field_name("object")?;
        self.wrong_value(object, src, f, &use_place, Use::Read)
    }

    /// `X is not defined`.
    fn undefined(&self, n: &str, f: &Failure, use_place: &str, loads: Loads) -> Verdict {
        let sites = self.names.get(n).map(Vec::as_slice).unwrap_or_default();
        let decls: Vec<&Site> = sites.iter().filter(|s| s.decl).collect();
        // Declared once, inside a function, and never assigned anywhere else: the
        // declaration is in the wrong place, not the use.
        if let ([d], 1) = (decls.as_slice(), sites.len()) {
            if let Some(func) = &d.func {
                let inside = match func.as_str() {
                    "" => "inside an anonymous function".to_string(),
                    name => format!("inside `{name}()`"),
                };
                return Verdict::Moved {
                    at: self.note(
                        d,
                        format!(
                            "`{n}` is declared here {inside}, so only that function sees it, but `{use_place}` uses it as a name of the whole script: the dry run stopped there ({})",
                            f.shown
                        ),
                    ),
                };
            }
        }
        let mut notes: Vec<Note> = decls
            .iter()
            .take(3)
            .map(|d| {
                self.note(
                    d,
                    format!("`{n}` is declared here, where `{use_place}` cannot see it"),
                )
            })
            .collect();
        if sites.is_empty() {
            // No file declares it: the other side is whoever was to supply it.
            if let Some((_, Some((from, at)))) = loads.iter().find(|(l, _)| l == f.file) {
                notes.push(Note {
                    file: from.clone(),
                    start: *at,
                    end: *at,
                    message: format!(
                        "`{}` is loaded here; no script the run had loaded by then declares `{n}`",
                        f.file
                    ),
                });
            }
            for (loaded, at) in loads.iter().take(8) {
                if let Some((from, at)) = at.as_ref().filter(|(from, _)| from == f.file) {
                    notes.push(Note {
                        file: from.clone(),
                        start: *at,
                        end: *at,
                        message: format!("`{loaded}`, loaded here, declares no `{n}`"),
                    });
                }
            }
            let near = grounded_check::suggest::near(n, self.names.keys().map(String::as_str));
            for cand in near.iter().take(2) {
                if let Some(d) = self.names[*cand].iter().find(|s| s.decl) {
                    notes.push(self.note(d, format!("a similar name, `{cand}`, is declared here")));
                }
            }
        }
        Verdict::Stays(notes)
    }

    /// `value` (a call's callee, the object a property was read from) was not what
    /// the use needed: blame the declaration or assignments that never give it that.
    fn wrong_value(
        &self,
        value: tree_sitter::Node,
        src: &str,
        f: &Failure,
        use_place: &str,
        how: Use,
    ) -> Option<Verdict> {
        match value.kind() {
            "identifier" => {
                let n = src.get(value.byte_range())?;
                let sites = self.names.get(n)?;
                if !sites.iter().all(|s| how.wrong(s.value)) {
                    return None;
                }
                let d = self.pick(sites);
                let verb = if d.decl { "declared" } else { "set" };
                Some(Verdict::Moved {
                    at: self.note(
                        d,
                        format!(
                            "`{n}` is {verb} here {} and never given {}, but `{use_place}` {}: the dry run stopped there ({})",
                            d.value.words(d.decl),
                            how.needs(),
                            how.does(),
                            f.shown
                        ),
                    ),
                })
            }
            "member_expression" => {
                let (obj, m) = object_member(value, src)?;
                self.member_verdict(&obj, &m, f, use_place, how)
            }
            _ => None,
        }
    }

    /// `obj.m` failed at the use: blame its one kind of wrong assignment, or point from
    /// the use at `obj`'s declaration when nothing assigns `m`.
    fn member_verdict(
        &self,
        obj: &str,
        m: &str,
        f: &Failure,
        use_place: &str,
        how: Use,
    ) -> Option<Verdict> {
        let sites = self.members.get(&(obj.to_string(), m.to_string()));
        // Only an object the project builds from a literal: an engine object's members
        // are the docs' business, and its documented ones are nobody's to assign.
        let objs = self.names.get(obj)?;
        if !objs.iter().any(|s| s.value == Value::Other("an object")) {
            return None;
        }
        let decl = self.pick(objs);
        match sites {
            Some(sites) if !sites.is_empty() => {
                if !sites.iter().all(|s| how.wrong(s.value)) {
                    return None;
                }
                let s = self.pick(sites);
                Some(Verdict::Moved {
                    at: self.note(
                        s,
                        format!(
                            "`{obj}.{m}` is set here {}, but `{use_place}` {}: the dry run stopped there ({})",
                            s.value.words(false),
                            how.does(),
                            f.shown
                        ),
                    ),
                })
            }
            _ => {
                let mut notes = vec![self.note(
                    decl,
                    format!("`{obj}` is declared here; no script of the project gives it a member `{m}`"),
                )];
                let set: Vec<&str> = self
                    .members
                    .keys()
                    .filter(|(o, _)| o == obj)
                    .map(|(_, k)| k.as_str())
                    .collect();
                for cand in grounded_check::suggest::near(m, set).iter().take(2) {
                    if let Some(s) = self.members[&(obj.to_string(), cand.to_string())].first() {
                        notes.push(self.note(
                            s,
                            format!("a member of a similar name, `{obj}.{cand}`, is set here"),
                        ));
                    }
                }
                Some(Verdict::Stays(notes))
            }
        }
    }
}

/// The name a failed call called (`helper` in `helper()`, `render` in
/// `cfg.render()`): the engine points at the call's dot or start, and the finding's
/// range covers the name that is wrong.
///
/// A Markdown file's `text` is its code already (the report blanks its prose once):
/// blanking it again would blank the code too.
pub(super) fn callee_name(file: &str, text: &str, pos: usize) -> Option<(usize, usize)> {
    let tree = if grounded_js::is_markdown(file) {
        grounded_js::parse(text)
    } else {
        grounded_js::parse(&grounded_js::script_text(file, text, &[]))
    };
    let call = innermost(tree.root_node(), pos, &["call_expression"])?;
    let callee = call.child_by_field_name("function")?;
    let name = match callee.kind() {
        "identifier" => callee,
        "member_expression" => callee.child_by_field_name("property")?,
        _ => return None,
    };
    Some((name.start_byte(), name.end_byte()))
}

fn is_function(kind: &str) -> bool {
    matches!(
        kind,
        "function_declaration"
            | "generator_function_declaration"
            | "function_expression"
            | "function"
            | "generator_function"
            | "arrow_function"
            | "method_definition"
    )
}

/// What an expression gives, from its text alone.
fn classify(n: tree_sitter::Node, src: &str) -> Value {
    match n.kind() {
        k if is_function(k) => Value::Function,
        "string" | "template_string" => Value::Other("a string"),
        "number" => Value::Other("a number"),
        "true" | "false" => Value::Other("a boolean"),
        "null" => Value::Nothing("null"),
        "undefined" => Value::Nothing("undefined"),
        "identifier" if src.get(n.byte_range()) == Some("undefined") => Value::Nothing("undefined"),
        "object" => Value::Other("an object"),
        "array" => Value::Other("an array"),
        "regex" => Value::Other("a regular expression"),
        "unary_expression" => match n.child_by_field_name("operator").map(|o| o.kind()) {
            Some("void") => Value::Nothing("undefined"),
            Some("!") => Value::Other("a boolean"),
            Some("typeof") => Value::Other("a string"),
            _ => Value::Unknown,
        },
        "parenthesized_expression" => n
            .named_child(0)
            .map_or(Value::Unknown, |c| classify(c, src)),
        _ => Value::Unknown,
    }
}

/// `obj.m` with `obj` a plain name.
fn object_member(n: tree_sitter::Node, src: &str) -> Option<(String, String)> {
    let obj = n.child_by_field_name("object")?;
    let prop = n.child_by_field_name("property")?;
    (obj.kind() == "identifier" && prop.kind() == "property_identifier").then(|| {
        (
            src.get(obj.byte_range()).unwrap_or("").to_string(),
            src.get(prop.byte_range()).unwrap_or("").to_string(),
        )
    })
}

/// The innermost node of one of `kinds` that contains `pos`.
fn innermost<'t>(
    root: tree_sitter::Node<'t>,
    pos: usize,
    kinds: &[&str],
) -> Option<tree_sitter::Node<'t>> {
    let mut best = None;
    let mut node = root;
    'down: loop {
        if kinds.contains(&node.kind()) {
            best = Some(node);
        }
        let mut c = node.walk();
        for child in node.children(&mut c) {
            if child.start_byte() <= pos && pos < child.end_byte() {
                node = child;
                continue 'down;
            }
        }
        return best;
    }
}

/// The member expression reading `prop` that the engine's position points into or
/// just before (the engine places a read at its dot or at the statement's start).
fn member_at<'t>(
    root: tree_sitter::Node<'t>,
    pos: usize,
    prop: &str,
    src: &str,
) -> Option<tree_sitter::Node<'t>> {
    let mut walk = grounded_js::Preorder::new(root);
    let mut found = None;
    while let Some((n, _)) = walk.next() {
        if n.end_byte() <= pos || n.kind() != "member_expression" {
            continue;
        }
        let Some(p) = n.child_by_field_name("property") else {
            continue;
        };
        if p.start_byte() >= pos && src.get(p.byte_range()) == Some(prop) {
            // The nearest one after the position.
            if found.is_none_or(|f: tree_sitter::Node| {
                f.child_by_field_name("property")
                    .is_some_and(|fp| p.start_byte() < fp.start_byte())
            }) {
                found = Some(n);
            }
        }
    }
    found
}

/// The property of `cannot read property 'x' of undefined` (or `set`).
fn property_of(message: &str) -> Option<&str> {
    let rest = message
        .strip_prefix("cannot read property '")
        .or_else(|| message.strip_prefix("cannot set property '"))?;
    let (p, tail) = rest.split_once('\'')?;
    (tail == " of undefined" || tail == " of null").then_some(p)
}

#[cfg(test)]
mod tests;

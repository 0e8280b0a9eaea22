//! The loader's assembly: chunks read by their titles into interfaces, members, globals,
//! constructors and the engine, and named types resolved against what was read.
//!
//! Owns the rules of `corpus-format.md` for reading a chunk; derives nothing that needs
//! the whole corpus read first (that is `derive`). May import the parent `model` and
//! the `docs` modules below it (`chunk`, `signature`, `facts`, `diag`).

use super::*;

fn re(cell: &'static OnceLock<Regex>, pat: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pat).expect("static regex"))
}

const Q_OPEN: &str = r#"[`"'\u{201C}\u{2018}]"#;

fn parent_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(
        &C,
        r#"(?i)parent\s+interface\s*:\s*[`"'\u{201C}\u{2018}]?([A-Za-z_$][A-Za-z0-9_$]*)"#,
    )
}

fn global_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    let _ = Q_OPEN;
    re(
        &C,
        r#"(?i)accessed\s+using\s+the\s+global\s+property\s*[`"'\u{201C}\u{2018}]([A-Za-z_$][A-Za-z0-9_$]*)[`"'\u{201D}\u{2019}]"#,
    )
}

fn index_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(
        &C,
        r"(?im)\bindex\s*:\s*`?\s*\[\s*[A-Za-z_$][A-Za-z0-9_$]*\s*:\s*(string|number)\s*\]\s*:\s*([^`\n]+)",
    )
}

fn extensible_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(&C, r"(?im)^[\s*_-]*extensible[*_]*\s*:\s*[*_`]*\s*yes\b")
}

fn ctor_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(
        &C,
        r#"(?i)constructor\s*:\s*`?\s*new\s+([A-Za-z_$][A-Za-z0-9_$]*)\s*(\([^)]*\))?"#,
    )
}

fn module_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(
        &C,
        r#"(?im)^[\s*_-]*module[*_]*\s*:\s*[*_]*\s*[`"'\u{201C}\u{2018}]([^`"'\u{201C}\u{201D}\u{2018}\u{2019}\n]+)[`"'\u{201D}\u{2019}]"#,
    )
}

fn default_export_re() -> &'static Regex {
    static C: OnceLock<Regex> = OnceLock::new();
    re(
        &C,
        r#"(?im)^[\s*_-]*default\s+export[*_]*\s*:\s*[*_]*\s*[`"'\u{201C}\u{2018}]?([A-Za-z_$][A-Za-z0-9_$]*)"#,
    )
}

impl Corpus {
    pub(super) fn read_chunks(&mut self) {
        let mut seen: HashMap<String, ChunkId> = HashMap::new();
        let mut parents: BTreeMap<String, Vec<(String, ChunkId)>> = BTreeMap::new();
        for id in 0..self.chunks.len() {
            grounded_textfile::reading(&self.chunks[id].file);
            let title = self.chunks[id].title.clone();
            if let Some(&first) = seen.get(&title) {
                let (f, l) = (self.chunks[first].file.clone(), self.chunks[first].line);
                let ch = &self.chunks[id];
                let msg = format!(
                    "duplicate chunk title `{title}` (first at {f}:{l}); both are searchable, the first one's facts win"
                );
                self.diagnostics
                    .push(LoadDiagnostic::new(&ch.file, ch.line, msg));
                if self.kinds[id] != ChunkKind::Prose {
                    continue;
                }
            } else {
                seen.insert(title.clone(), id);
            }
            match self.kinds[id] {
                ChunkKind::Engine => self.read_engine(id),
                ChunkKind::Interface => {
                    let name = title.clone();
                    let text = self.chunks[id].text.clone();
                    let iface = self.interface_mut(&name);
                    iface.chunk = Some(id);
                    for cap in parent_re().captures_iter(&text) {
                        parents
                            .entry(name.clone())
                            .or_default()
                            .push((cap[1].to_string(), id));
                    }
                    for cap in global_re().captures_iter(&text) {
                        self.globals.insert(cap[1].to_string(), name.clone());
                    }
                    for cap in ctor_re().captures_iter(&text) {
                        self.read_constructor(id, &name, &cap);
                    }
                    if extensible_re().is_match(&text) {
                        self.interface_mut(&name).extensible = true;
                    }
                    if crate::family::says_loose_names(&text) {
                        self.interface_mut(&name).loose_names = true;
                    }
                    if crate::globals::says_global_members(&text) {
                        self.global_members.push(name.clone());
                    }
                    if let Some(cap) = module_re().captures(&text) {
                        self.interface_mut(&name).module = Some(cap[1].trim().to_string());
                    }
                    if let Some(cap) = default_export_re().captures(&text) {
                        self.interface_mut(&name).default_export = Some(cap[1].to_string());
                    }
                    for cap in index_re().captures_iter(&text) {
                        let ty_text = cap[2].trim().trim_end_matches(['.', ';']).trim();
                        match signature::parse_type(ty_text) {
                            Ok(ty) => {
                                let iface = self.interface_mut(&name);
                                if cap[1].eq_ignore_ascii_case("string") {
                                    iface.string_index = Some(ty);
                                } else {
                                    iface.number_index = Some(ty);
                                }
                            }
                            Err(e) => {
                                let ch = &self.chunks[id];
                                let msg = format!(
                                    "`{name}`: index type `{ty_text}` cannot be read: {e}; ignored"
                                );
                                self.diagnostics
                                    .push(LoadDiagnostic::new(&ch.file, ch.line, msg));
                            }
                        }
                    }
                }
                ChunkKind::Member => self.read_member(id),
                ChunkKind::Prose => {}
            }
            if self.kinds[id] != ChunkKind::Interface {
                self.note_stray_module_line(id);
            }
        }
        for (name, ps) in parents {
            for (p, chunk) in ps {
                if !self.interfaces.contains_key(&p) {
                    let ch = &self.chunks[chunk];
                    let msg = format!(
                        "`{name}` names parent interface `{p}`, which is not documented; ignored"
                    );
                    self.diagnostics
                        .push(LoadDiagnostic::new(&ch.file, ch.line, msg));
                    continue;
                }
                let iface = self.interfaces.get_mut(&name).expect("declared above");
                if !iface.parents.contains(&p) {
                    iface.parents.push(p);
                }
            }
        }
    }

    pub(super) fn interface_mut(&mut self, name: &str) -> &mut Interface {
        self.interfaces
            .entry(name.to_string())
            .or_insert_with(|| Interface {
                name: name.to_string(),
                parents: Vec::new(),
                members: BTreeMap::new(),
                chunk: None,
                string_index: None,
                number_index: None,
                extensible: false,
                loose_names: false,
                module: None,
                default_export: None,
            })
    }

    /// A `Module:` line outside an interface chunk names no exports: said, not
    /// guessed at (the author may have put it under the wrong heading).
    fn note_stray_module_line(&mut self, id: ChunkId) {
        let ch = &self.chunks[id];
        if let Some(cap) = module_re().captures(&ch.text) {
            let before = &ch.text[..cap.get(0).map_or(0, |m| m.start())];
            let line = ch.line_of_text_line(before.matches('\n').count());
            let msg = format!(
                "`Module: \"{}\"` in `{}`, which is no interface chunk: a module's exports are an interface's members; ignored",
                cap[1].trim(),
                ch.title
            );
            self.diagnostics
                .push(LoadDiagnostic::new(&ch.file, line, msg));
        }
    }

    /// Fills [`Corpus::modules`] from the interfaces' `Module:` lines and checks their
    /// `Default export:` lines: a module named twice keeps its first interface (in
    /// name order) and a default export naming nothing is dropped, each said.
    pub(super) fn link_modules(&mut self) {
        let mut notes: Vec<(Option<ChunkId>, String)> = Vec::new();
        for iface in self.interfaces.values() {
            if let Some(m) = &iface.module {
                match self.modules.get(m) {
                    Some(first) => notes.push((
                        iface.chunk,
                        format!(
                            "module \"{m}\" is named by `{first}` and `{}`: one interface per module; `{first}` kept",
                            iface.name
                        ),
                    )),
                    None => {
                        self.modules.insert(m.clone(), iface.name.clone());
                    }
                }
            }
        }
        let mut dropped = Vec::new();
        for iface in self.interfaces.values() {
            let Some(d) = &iface.default_export else {
                continue;
            };
            if iface.module.is_none() {
                notes.push((
                    iface.chunk,
                    format!(
                        "`{}` has `Default export: {d}` but no `Module:` line: only a module has a default export; ignored",
                        iface.name
                    ),
                ));
                dropped.push(iface.name.clone());
            } else if !self.interfaces.contains_key(d) {
                notes.push((
                    iface.chunk,
                    format!(
                        "`{}`'s `Default export: {d}` names no documented interface; a default import gives the module object",
                        iface.name
                    ),
                ));
                dropped.push(iface.name.clone());
            }
        }
        for name in dropped {
            self.interface_mut(&name).default_export = None;
        }
        for (chunk, msg) in notes {
            let (file, line) = chunk
                .map(|id| (self.chunks[id].file.clone(), self.chunks[id].line))
                .unwrap_or_default();
            self.diagnostics.push(LoadDiagnostic::new(&file, line, msg));
        }
    }

    fn read_engine(&mut self, id: ChunkId) {
        let text = self.chunks[id].text.clone();
        for (n, line) in text.lines().enumerate() {
            let l = line.trim().trim_start_matches(['-', '*', ' ']).trim();
            let Some((key, value)) = l.split_once(':') else {
                continue;
            };
            let key = key.trim().trim_matches(['*', '`']).to_ascii_lowercase();
            let value = value.trim().trim_matches('`').trim();
            match key.as_str() {
                "ecmascript" => {
                    let digits: String = value
                        .trim_start_matches(|c: char| !c.is_ascii_digit())
                        .chars()
                        .take_while(|c| c.is_ascii_digit())
                        .collect();
                    match digits.parse::<u32>() {
                        Ok(v) => {
                            self.engine.es_year = es_year(v);
                            self.engine.es_label = digits;
                        }
                        Err(_) => {
                            let ch = &self.chunks[id];
                            let msg = format!(
                                "`ECMAScript: {value}` is not an edition number; level 3 assumed"
                            );
                            self.diagnostics.push(LoadDiagnostic::new(
                                &ch.file,
                                ch.line_of_text_line(n),
                                msg,
                            ));
                        }
                    }
                }
                "script extensions" => {
                    let exts: Vec<String> = value
                        .split([' ', ','])
                        .map(|e| e.trim().trim_matches('`'))
                        .filter(|e| !e.is_empty())
                        .map(|e| {
                            if e.starts_with('.') {
                                e.to_string()
                            } else {
                                format!(".{e}")
                            }
                        })
                        .collect();
                    if !exts.is_empty() {
                        self.engine.script_extensions = exts;
                    }
                }
                "also allows" => {
                    self.engine.also_allows = words(value);
                }
                "also has" => {
                    self.engine.also_has = words(value);
                }
                "modules" => {
                    self.engine.modules = Some(
                        words(value)
                            .into_iter()
                            .map(|w| w.to_ascii_lowercase())
                            .collect(),
                    );
                    for w in self.engine.modules.clone().unwrap_or_default() {
                        if w != "esm" && w != "commonjs" {
                            let ch = &self.chunks[id];
                            let msg = format!(
                                "`Modules: {value}`: `{w}` is no module form (`esm`, `commonjs`); ignored"
                            );
                            self.diagnostics.push(LoadDiagnostic::new(
                                &ch.file,
                                ch.line_of_text_line(n),
                                msg,
                            ));
                        }
                    }
                }
                "remote modules" => {
                    self.engine.remote_modules = value.to_ascii_lowercase().starts_with("yes");
                }
                "entry exports" => {
                    self.engine.entry_exports = words(value);
                }
                "scripts run alone" => {
                    self.engine.scripts_alone = value.to_ascii_lowercase().starts_with("yes");
                }
                "directives" => {
                    self.engine.directives = value
                        .split([' ', ','])
                        .map(|e| e.trim().trim_matches('`'))
                        .filter(|e| e.starts_with('#') && e.len() > 1)
                        .map(str::to_string)
                        .collect();
                }
                _ => {}
            }
        }
    }

    fn read_constructor(&mut self, id: ChunkId, iface: &str, cap: &regex::Captures<'_>) {
        let name = cap[1].to_string();
        let mut params = Vec::new();
        if let Some(p) = cap.get(2) {
            let sig_text = format!("{name}{}", p.as_str());
            match signature::parse(&sig_text, &name) {
                Ok(s) => params = s.params.unwrap_or_default(),
                Err(e) => {
                    let ch = &self.chunks[id];
                    let msg = format!("constructor `{}`: {e}; parameters ignored", cap[0].trim());
                    self.diagnostics
                        .push(LoadDiagnostic::new(&ch.file, ch.line, msg));
                }
            }
        }
        match self.constructors.entry(name.clone()) {
            std::collections::btree_map::Entry::Occupied(mut e) => {
                if e.get().interface != iface {
                    e.get_mut().shared = true;
                }
            }
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(Constructor {
                    name,
                    interface: iface.to_string(),
                    params,
                    text: cap[0].trim().to_string(),
                    shared: false,
                });
            }
        }
    }

    fn read_member(&mut self, id: ChunkId) {
        let (iface, name) = split_member_title(&self.chunks[id].title).expect("kind checked");
        let (iface, name) = (iface.to_string(), name.to_string());
        let mut overloads = Vec::new();
        let mut fence = false;
        let text = self.chunks[id].text.clone();
        for (n, line) in text.lines().enumerate() {
            let t = line.trim();
            if t.starts_with("```") || t.starts_with("~~~") {
                fence = !fence;
                continue;
            }
            let _ = fence; // inside or outside a fence, the same rule applies
            let s = signature::strip_label(t);
            if !signature::is_signature_of(s, &name) {
                continue;
            }
            match signature::parse(s, &name) {
                Ok(sig) => overloads.push(sig),
                Err(e) => {
                    let ch = &self.chunks[id];
                    let msg =
                        format!("unparseable signature of `{iface}-{name}` (`{s}`): {e}; skipped");
                    self.diagnostics.push(LoadDiagnostic::new(
                        &ch.file,
                        ch.line_of_text_line(n),
                        msg,
                    ));
                }
            }
        }
        let kind = match overloads.first() {
            Some(s) if s.is_method() => MemberKind::Method,
            Some(_) => MemberKind::Property,
            None => MemberKind::Unknown,
        };
        let member = Member {
            name: name.clone(),
            interface: iface.clone(),
            kind,
            overloads,
            chunk: Some(id),
        };
        self.interface_mut(&iface)
            .members
            .entry(name)
            .or_insert(member);
    }

    /// Resolves `Named` types to interfaces or built-ins; unknown names become `any`
    /// and are reported.
    pub(super) fn resolve_types(&mut self) {
        let known: BTreeSet<String> = self.interfaces.keys().cloned().collect();
        let mut reports = Vec::new();
        for iface in self.interfaces.values_mut() {
            for m in iface.members.values_mut() {
                for sig in &mut m.overloads {
                    let mut unknown = Vec::new();
                    resolve(&mut sig.ty, &known, &mut unknown);
                    if let Some(ps) = &mut sig.params {
                        for p in ps {
                            resolve(&mut p.ty, &known, &mut unknown);
                        }
                    }
                    for u in unknown {
                        reports.push((
                            m.chunk,
                            format!(
                                "`{}-{}` uses type `{u}`, which is not documented; read as `any`",
                                m.interface, m.name
                            ),
                        ));
                    }
                }
            }
        }
        for iface in self.interfaces.values_mut() {
            for t in [&mut iface.string_index, &mut iface.number_index]
                .into_iter()
                .flatten()
            {
                let mut unknown = Vec::new();
                resolve(t, &known, &mut unknown);
                for u in unknown {
                    reports.push((
                        iface.chunk,
                        format!(
                            "`{}`'s index type uses `{u}`, which is not documented; read as `any`",
                            iface.name
                        ),
                    ));
                }
            }
        }
        for c in self.constructors.values_mut() {
            for p in &mut c.params {
                let mut unknown = Vec::new();
                resolve(&mut p.ty, &known, &mut unknown);
            }
        }
        for (chunk, msg) in reports {
            let (file, line) = chunk
                .map(|id| (self.chunks[id].file.clone(), self.chunks[id].line))
                .unwrap_or_default();
            self.diagnostics.push(LoadDiagnostic::new(&file, line, msg));
        }
    }

    /// Computes every interface's ancestors; a cycle is reported once and broken.
    pub(super) fn link_ancestors(&mut self) {
        let names: Vec<String> = self.interfaces.keys().cloned().collect();
        let mut reported: BTreeSet<(String, String)> = BTreeSet::new();
        for name in &names {
            let mut out = Vec::new();
            let mut seen = BTreeSet::new();
            seen.insert(name.clone());
            let mut stack: Vec<String> = self.interfaces[name]
                .parents
                .iter()
                .rev()
                .cloned()
                .collect();
            while let Some(p) = stack.pop() {
                if p == *name {
                    let key = (name.clone(), p.clone());
                    if reported.insert(key) {
                        let (file, line) = self.interfaces[name]
                            .chunk
                            .map(|id| (self.chunks[id].file.clone(), self.chunks[id].line))
                            .unwrap_or_default();
                        self.diagnostics.push(LoadDiagnostic::new(
                            &file,
                            line,
                            format!("inheritance cycle through `{name}`: `Parent interface:` loops back; the loop is broken"),
                        ));
                    }
                    continue;
                }
                if !seen.insert(p.clone()) {
                    continue;
                }
                if let Some(pi) = self.interfaces.get(&p) {
                    stack.extend(pi.parents.iter().rev().cloned());
                }
                out.push(p);
            }
            self.ancestors.insert(name.clone(), out);
        }
        self.descendants = crate::family::descendants_of(&self.ancestors);
    }
}

fn resolve(t: &mut Type, known: &BTreeSet<String>, unknown: &mut Vec<String>) {
    match t {
        Type::Named(n) => {
            *t = if known.contains(n.as_str()) {
                Type::Interface(n.clone())
            } else if grounded_es::is_builtin_object(n) {
                Type::Builtin(n.clone())
            } else {
                unknown.push(n.clone());
                Type::Any
            };
        }
        Type::Array(inner) | Type::Promise(inner) => resolve(inner, known, unknown),
        Type::Func(params, ret) => {
            for p in params {
                resolve(&mut p.ty, known, unknown);
            }
            resolve(ret, known, unknown);
        }
        Type::Union(v) => {
            v.iter_mut().for_each(|x| resolve(x, known, unknown));
            // `(A | B) | C` is one union of three: a receiver typed by it is judged
            // against each interface (interfaces.md, "Unions").
            if v.iter().any(|x| matches!(x, Type::Union(_))) {
                let mut flat = Vec::new();
                for x in v.drain(..) {
                    match x {
                        Type::Union(inner) => flat.extend(inner),
                        x => flat.push(x),
                    }
                }
                *v = flat;
            }
        }
        _ => {}
    }
}

/// The names of an Engine line's value: `trailing-commas e4x`, commas or spaces.
fn words(value: &str) -> Vec<String> {
    value
        .split([' ', ','])
        .map(|e| e.trim().trim_matches('`'))
        .filter(|e| !e.is_empty())
        .map(str::to_string)
        .collect()
}

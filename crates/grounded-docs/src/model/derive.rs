//! What follows from the whole corpus read: constructs (a Start and its End) derived
//! from the globals, and the overlay's facts applied.
//!
//! Owns derivation after loading; reads no chunk title itself (that is `load`). May
//! import the parent `model` and `docs::facts`, `docs::chunk`, `docs::signature`.

use super::*;

impl Corpus {
    pub(super) fn derive_constructs(&mut self) {
        let globals: Vec<(String, String)> = self
            .globals
            .iter()
            .map(|(g, i)| (g.clone(), i.clone()))
            .collect();
        let mut skipped_seen = BTreeSet::new();
        for (global, iface) in globals {
            let members: Vec<Member> = self.members_of(&iface).into_iter().cloned().collect();
            for m in &members {
                let Some(prefix) = m.name.strip_suffix("Start") else {
                    continue;
                };
                if prefix.is_empty() {
                    continue;
                }
                let end = format!("{prefix}End");
                if !members.iter().any(|e| e.name == end) {
                    continue;
                }
                let first = m
                    .signature()
                    .and_then(|s| s.params.as_ref())
                    .and_then(|p| p.first())
                    .map(|p| p.ty.clone());
                match first {
                    Some(Type::Interface(obj)) => {
                        self.constructs
                            .entry(prefix.to_string())
                            .or_insert(Construct {
                                id: prefix.to_string(),
                                interface: m.interface.clone(),
                                global: global.clone(),
                                start: m.name.clone(),
                                end: end.clone(),
                                object: obj,
                                aliases: Vec::new(),
                                no_close: None,
                                absent: Vec::new(),
                            });
                    }
                    other => {
                        if !skipped_seen.insert((m.interface.clone(), m.name.clone())) {
                            continue;
                        }
                        let reason = match other {
                            Some(t) => {
                                format!("its first parameter is `{t}`, not a documented interface")
                            }
                            None => "it takes no parameter (or has no signature)".to_string(),
                        };
                        let pair = SkippedPair {
                            interface: m.interface.clone(),
                            start: m.name.clone(),
                            end: end.clone(),
                            reason,
                        };
                        let (file, line) = m
                            .chunk
                            .map(|id| (self.chunks[id].file.clone(), self.chunks[id].line))
                            .unwrap_or_default();
                        self.diagnostics
                            .push(LoadDiagnostic::new(&file, line, pair.note()));
                        self.skipped_pairs.push(pair);
                    }
                }
            }
        }
        self.constructs.retain(|id, c| {
            let _ = id;
            !c.start.is_empty()
        });
    }

    pub(super) fn apply_facts(&mut self, f: &SourceFile) {
        grounded_textfile::reading(&f.path);
        let facts = match Facts::parse(&f.text) {
            Ok(x) => x,
            Err(e) => {
                let line = e
                    .split("line ")
                    .nth(1)
                    .and_then(|s| s.split(|c: char| !c.is_ascii_digit()).next())
                    .and_then(|s| s.parse().ok())
                    .unwrap_or(1);
                self.diagnostics.push(LoadDiagnostic::new(
                    &f.path,
                    line,
                    format!(
                        "facts.toml is not valid and was ignored: {}",
                        e.lines().last().unwrap_or(&e)
                    ),
                ));
                return;
            }
        };
        for (key, hint) in crate::facts::unknown_keys(&f.text) {
            let last = key.rsplit('.').next().unwrap_or(&key);
            self.diagnostics.push(LoadDiagnostic::new(
                &f.path,
                f.text
                    .lines()
                    .position(|l| {
                        l.trim_start()
                            .strip_prefix(last)
                            .is_some_and(|r| r.trim_start().starts_with('='))
                    })
                    .map_or(1, |i| i + 1),
                format!("unknown key `{key}` (nothing reads it; ignored): {hint}"),
            ));
        }
        for cf in &facts.construct {
            let line = line_of(&f.text, &format!("\"{}\"", cf.id));
            let mut absent = Vec::new();
            for a in &cf.absent {
                let aline = line_of(&f.text, a);
                let Some((iface, member)) = a.split_once('.') else {
                    self.diagnostics.push(LoadDiagnostic::new(
                        &f.path,
                        aline,
                        format!("absent `{a}` is not `Interface.member`; ignored"),
                    ));
                    continue;
                };
                if !self.interfaces.contains_key(iface) {
                    self.diagnostics.push(LoadDiagnostic::new(
                        &f.path,
                        aline,
                        format!(
                        "absent `{a}` names interface `{iface}`, which is not documented; ignored"
                    ),
                    ));
                    continue;
                }
                if self.member(iface, member).is_some() {
                    self.diagnostics.push(LoadDiagnostic::new(&f.path, aline, format!(
                        "absent `{a}` is documented: the docs and the overlay disagree; the docs win"
                    )));
                    continue;
                }
                let reason = cf.no_close.clone().unwrap_or_else(|| {
                    format!("`{member}` does not exist on `{iface}` (overlay fact)")
                });
                self.absent
                    .insert((iface.to_string(), member.to_string()), reason);
                absent.push((iface.to_string(), member.to_string()));
            }
            match self.constructs.get_mut(&cf.id) {
                Some(c) => {
                    c.aliases = cf.aliases.clone();
                    c.no_close = cf.no_close.clone();
                    c.absent = absent;
                }
                None => {
                    self.diagnostics.push(LoadDiagnostic::new(&f.path, line, format!(
                        "construct `{}` in facts.toml matches no construct derived from the docs (no `{}Start`/`{}End` pair on a global); its aliases are ignored",
                        cf.id, cf.id, cf.id
                    )));
                }
            }
        }
        for m in &facts.extra.members {
            let line = line_of(&f.text, m);
            let Some((iface, member)) = m.split_once('.') else {
                self.diagnostics.push(LoadDiagnostic::new(
                    &f.path,
                    line,
                    format!("extra member `{m}` is not `Interface.member`; ignored"),
                ));
                continue;
            };
            if !is_identifier(iface) || !is_identifier(member) {
                self.diagnostics.push(LoadDiagnostic::new(
                    &f.path,
                    line,
                    format!("extra member `{m}` is not `Interface.member`; ignored"),
                ));
                continue;
            }
            if !self.interfaces.contains_key(iface) {
                self.diagnostics.push(LoadDiagnostic::new(&f.path, line, format!(
                    "extra member `{m}`: interface `{iface}` is not documented; it is added with this member only"
                )));
                self.ancestors.insert(iface.to_string(), Vec::new());
            }
            let i = self.interface_mut(iface);
            i.members.entry(member.to_string()).or_insert(Member {
                name: member.to_string(),
                interface: iface.to_string(),
                kind: MemberKind::Unknown,
                overloads: Vec::new(),
                chunk: None,
            });
        }
        for g in &facts.extra.globals {
            self.extra_globals.insert(g.clone());
        }
        for g in &facts.extra.functions {
            self.extra_functions.insert(g.clone());
        }
    }
}

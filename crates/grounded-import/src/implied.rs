//! What TypeScript implies that the declarations do not write: the implicit
//! constructor of a class declared without one (with its base class's parameters), and
//! the options' word on the families an engine never builds with `new`.
//!
//! Why: a corpus imported from types-for-adobe wrote `Constructor:` lines only for
//! declared constructors, so `new ActionDescriptor()`, which tsc accepts against the
//! same declarations, drew 282 "not constructible" findings on 60 real Photoshop
//! scripts. A miss costs less than a wrong accusation: TypeScript's rule is the
//! default, and the user's options say where the engine builds none.
//!
//! Imports the parent `import` (its options), `map` (the model) and `dts`.

use super::dts::{Doc, MemberDecl, MemberKind, ParamDecl, Ty};
use super::map::{Entity, Model};
use super::Settings;

/// Whether an option entry names a declaration file rather than a corpus name.
pub fn names_file(entry: &str) -> bool {
    entry.ends_with(".ts")
}

/// Whether the option entry `entry` (a path) names `shown`, a file as the summary
/// names it: the whole path, or its last components.
pub fn file_matches(entry: &str, shown: &str) -> bool {
    let entry = entry.replace('\\', "/");
    let entry = entry.trim_start_matches("./");
    shown == entry || shown.ends_with(&format!("/{entry}"))
}

/// Every entry of the options' `no_constructor` names something read: a corpus name
/// that a declaration becomes, or one of the files (a silent no-op would hide a typo).
pub fn check_no_constructor(
    entities: &[Entity],
    files: &[String],
    settings: &Settings,
) -> Result<(), String> {
    for n in &settings.no_constructor {
        if names_file(n) {
            if !files.iter().any(|f| file_matches(n, f)) {
                return Err(format!(
                    "the options' no_constructor names `{n}`, which is none of the files read ({})",
                    files.join(", ")
                ));
            }
        } else if !entities.iter().any(|e| !e.dropped && &e.name == n) {
            return Err(format!(
                "the options' no_constructor names `{n}`, which no declaration read becomes"
            ));
        }
    }
    Ok(())
}

/// Whether the options say the engine never builds entity `i`'s objects with `new`:
/// by its corpus name, or by the file it is declared in.
pub fn withheld(model: &Model, i: usize, files: &[String], settings: &Settings) -> bool {
    let e = &model.entities[i];
    settings.no_constructor.iter().any(|n| {
        if names_file(n) {
            e.places
                .first()
                .and_then(|p| files.get(p.0))
                .is_some_and(|f| file_matches(n, f))
        } else {
            *n == e.name
        }
    })
}

/// One implied constructor: its parameters, as written in file `file` inside namespace
/// `ns` of the class `this`.
pub struct Implied {
    /// The parameters.
    pub params: Vec<ParamDecl>,
    /// The file they are written in.
    pub file: usize,
    /// The namespace they are written in.
    pub ns: Vec<String>,
    /// The class that declares them (for `this` types).
    pub this: String,
}

/// TypeScript's implicit constructors of class entity `i` (declared without one): its
/// nearest base class's declared ones, else none of parameters. `None` when there is
/// none to call (the base's constructor is private). A base the files do not declare
/// (`extends Array<T>`, a class of another package) gives one taking any arguments:
/// what it takes is not known, and a wrong count would be a wrong accusation.
pub fn implicit_constructors(model: &mut Model, i: usize) -> Option<Vec<Implied>> {
    let mut cur = i;
    let mut seen = vec![i];
    for _ in 0..32 {
        let ns = model.entities[cur].ns.clone();
        let parents = model.entities[cur].parents.clone();
        let file = model.entities[cur].places.first().map(|p| p.0).unwrap_or(0);
        let mut base = None;
        let mut unknown = false;
        for (p, f) in &parents {
            match model.entity_of(p, *f, &ns) {
                // `implements` names interfaces; a class is the one `extends` names.
                Some(t) if model.entities[t].is_class && !model.entities[t].dropped => {
                    base = Some(t);
                    break;
                }
                Some(_) => {}
                None => unknown = true,
            }
        }
        let Some(b) = base else {
            let params = if unknown {
                vec![ParamDecl {
                    name: "args".into(),
                    ty: Some(Ty::Array(Box::new(Ty::Prim("any".into())))),
                    optional: true,
                    rest: true,
                }]
            } else {
                Vec::new()
            };
            let e = &model.entities[cur];
            return Some(vec![Implied {
                params,
                file,
                ns: e.ns.clone(),
                this: e.name.clone(),
            }]);
        };
        if seen.contains(&b) {
            return None;
        }
        seen.push(b);
        let e = &model.entities[b];
        let ctors: Vec<_> = e
            .statics
            .iter()
            .filter(|(m, _)| m.kind == MemberKind::Construct)
            .collect();
        if !ctors.is_empty() {
            if ctors.iter().all(|(m, _)| m.hidden) {
                return None;
            }
            return Some(
                ctors
                    .iter()
                    .filter(|(m, _)| !m.hidden)
                    .map(|(m, f)| Implied {
                        params: m.params.clone(),
                        file: *f,
                        ns: e.ns.clone(),
                        this: e.name.clone(),
                    })
                    .collect(),
            );
        }
        cur = b;
    }
    None
}

/// The element type of a parent that is the language's `Array<T>` (or
/// `ReadonlyArray<T>`): `Some(None)` for a bare `Array`.
pub fn array_parent(p: &Ty) -> Option<Option<&Ty>> {
    match p {
        Ty::Ref(path, args)
            if path.len() == 1 && matches!(path[0].as_str(), "Array" | "ReadonlyArray") =>
        {
            Some(args.first())
        }
        _ => None,
    }
}

/// The members a class declared `extends Array<T>` inherits at the level `level` (the
/// edition's `Array.prototype`, `Object.prototype`'s left to the checker), as members
/// of its own: `length` and the methods, which take and give what the language says,
/// so any arguments here.
///
/// Why: the importer dropped the built-in parent without a word, so a host collection
/// (`coll[0].name`, `coll.length`) was neither indexable nor measured, and its
/// `push` was reported as an invented member.
pub fn array_members(level: u16, line: usize) -> Vec<MemberDecl> {
    let object: Vec<&str> =
        grounded_es::proto_members(grounded_es::Proto::Object, u16::MAX).collect();
    let doc = Doc {
        text: "Inherited from the language's `Array` (the declaration extends `Array<T>`): what it takes and gives is the language's.".into(),
        ..Doc::default()
    };
    grounded_es::proto_members(grounded_es::Proto::Array, level)
        .filter(|n| !object.contains(n))
        .map(|n| {
            let prop = n == "length";
            MemberDecl {
                name: Some(n.to_string()),
                raw: n.to_string(),
                kind: if prop {
                    MemberKind::Prop
                } else {
                    MemberKind::Method
                },
                is_static: false,
                readonly: false,
                hidden: false,
                params: if prop {
                    Vec::new()
                } else {
                    vec![ParamDecl {
                        name: "args".into(),
                        ty: Some(Ty::Array(Box::new(Ty::Prim("any".into())))),
                        optional: true,
                        rest: true,
                    }]
                },
                ty: Some(if prop {
                    Ty::Prim("number".into())
                } else {
                    Ty::Prim("any".into())
                }),
                doc: doc.clone(),
                line,
                ctx: None,
            }
        })
        .collect()
}

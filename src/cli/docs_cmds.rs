//! `grounded lookup`, `grounded topic`, `grounded corpus`.

use std::path::Path;

use crate::docs::Library;

use super::{plain_format, project_and_corpus, Fail, Format};

/// `grounded lookup TERM`
pub fn lookup(docs: Option<&Path>, term: &str, limit: usize, format: Format) -> Result<i32, Fail> {
    let format = plain_format("lookup", format)?;
    let (_, corpus) = project_and_corpus(Path::new("."), docs)?;
    let hits = Library::from(corpus).lookup(term, limit);
    if format == Format::Json {
        println!("{}", serde_json::to_string_pretty(&hits)?);
        return Ok(0);
    }
    if hits.is_empty() {
        println!("no chunk contains `{term}`");
    }
    for h in hits {
        println!("{}  ({})\n    {}", h.title, h.location, h.snippet);
    }
    Ok(0)
}

/// `grounded topic "GOAL"`
pub fn topic(docs: Option<&Path>, goal: &str, format: Format) -> Result<i32, Fail> {
    let format = plain_format("topic", format)?;
    let (_, corpus) = project_and_corpus(Path::new("."), docs)?;
    let answer = Library::from(corpus).resolve_topic(goal, 5);
    if format == Format::Json {
        println!("{}", serde_json::to_string_pretty(&answer)?);
    } else {
        print!("{answer}");
    }
    Ok(0)
}

/// `grounded corpus`
pub fn corpus(docs: Option<&Path>, format: Format) -> Result<i32, Fail> {
    let format = plain_format("corpus", format)?;
    let (_, corpus) = project_and_corpus(Path::new("."), docs)?;
    let (interfaces, members, globals, constructs) = corpus.counts();
    if format == Format::Json {
        let v = serde_json::json!({
            "origin": corpus.origin,
            "chunks": corpus.chunks.len(),
            "interfaces": interfaces,
            "members": members,
            "globals": corpus.globals,
            "global_members": corpus.global_member_interfaces(),
            "global_functions": corpus
                .interfaces
                .get(crate::docs::model::GLOBAL_INTERFACE)
                .map(|i| {
                    i.members
                        .values()
                        .filter(|m| m.kind == crate::docs::MemberKind::Method)
                        .map(|m| m.name.as_str())
                        .collect::<Vec<_>>()
                })
                .unwrap_or_default(),
            "extra_functions": corpus.extra_functions,
            "loose_member_names": corpus.loose_interfaces(),
            "constructors": corpus.constructors.keys().collect::<Vec<_>>(),
            "constructs": corpus.constructs.values().collect::<Vec<_>>(),
            "skipped_pairs": corpus.skipped_pairs,
            "ecmascript": corpus.engine.es_label,
            "script_extensions": corpus.engine.script_extensions,
            "directives": corpus.engine.directives,
            "modules": corpus.modules,
            "module_forms": module_forms(&corpus),
            "remote_modules": corpus.engine.remote_modules,
            "entry_exports": corpus.engine.entry_exports,
            "scripts_run_alone": corpus.engine.scripts_alone,
            "diagnostics": corpus.diagnostics,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    println!("corpus: {}", corpus.origin);
    // "1 globals, 1 constructors" read as a typo to the newcomer who wrote a one-global
    // engine from the guide: each count takes its noun in the number it has.
    let counts = [
        (corpus.chunks.len(), "chunk"),
        (interfaces, "interface"),
        (members, "member"),
        (globals, "global"),
        (corpus.constructors.len(), "constructor"),
        (constructs, "construct"),
    ];
    let counts: Vec<String> = counts
        .iter()
        .map(|&(n, noun)| format!("{n} {noun}{}", if n == 1 { "" } else { "s" }))
        .collect();
    println!("{}", counts.join(", "));
    println!(
        "engine: ECMAScript {}, scripts {}, directives {}",
        corpus.engine.es_label,
        corpus.engine.script_extensions.join(" "),
        if corpus.engine.directives.is_empty() {
            "none".to_string()
        } else {
            corpus.engine.directives.join(" ")
        }
    );
    if corpus.engine.has_modules() || !corpus.modules.is_empty() {
        let mut line = format!("modules: {}", module_forms(&corpus).join(" "));
        if corpus.engine.remote_modules {
            line.push_str(", remote modules");
        }
        if !corpus.engine.entry_exports.is_empty() {
            line.push_str(&format!(
                ", entry exports {}",
                corpus.engine.entry_exports.join(" ")
            ));
        }
        println!("{line}");
    }
    if corpus.engine.scripts_alone {
        println!("scripts run alone: each sees its own names and what it loads");
    }
    for (m, i) in &corpus.modules {
        let n = corpus.members_of(i).len();
        let default = corpus
            .interfaces
            .get(i)
            .and_then(|x| x.default_export.as_deref())
            .map(|d| format!(", default export {d}"))
            .unwrap_or_default();
        let s = if n == 1 { "" } else { "s" };
        println!("module \"{m}\": {i} ({n} export{s}{default})");
    }
    for (g, i) in &corpus.globals {
        println!("global {g}: {i}");
    }
    // `Global`'s functions and variables are globals too: a newcomer who wrote
    // `Global-include` looked for it here and found only the global objects.
    let own: Vec<&crate::docs::Member> = corpus
        .interfaces
        .get(crate::docs::model::GLOBAL_INTERFACE)
        .map(|i| i.members.values().collect())
        .unwrap_or_default();
    let functions: Vec<String> = own
        .iter()
        .filter(|m| m.kind == crate::docs::MemberKind::Method)
        .map(|m| m.name.clone())
        .chain(
            corpus
                .extra_functions
                .iter()
                .map(|f| format!("{f} ([extra])")),
        )
        .collect();
    if !functions.is_empty() {
        println!("global functions: {}", functions.join(", "));
    }
    let variables: Vec<String> = own
        .iter()
        .filter(|m| m.kind != crate::docs::MemberKind::Method)
        .map(|m| m.name.clone())
        .chain(
            corpus
                .extra_globals
                .iter()
                .map(|g| format!("{g} ([extra])")),
        )
        .collect();
    if !variables.is_empty() {
        println!("global variables: {}", variables.join(", "));
    }
    for i in corpus.global_member_interfaces() {
        let n = corpus.members_of(i).len();
        println!("global members of {i}: its {n} members are global names");
    }
    for i in corpus.loose_interfaces() {
        println!("loose member names of {i}: any case, with or without underscores");
    }
    for c in corpus.constructs.values() {
        println!(
            "construct {}: {}.{}({}) … {}.{}()",
            c.id, c.global, c.start, c.object, c.global, c.end
        );
    }
    for s in &corpus.skipped_pairs {
        println!(
            "skipped pair {}.{}/{}: {}",
            s.interface, s.start, s.end, s.reason
        );
    }
    if corpus.diagnostics.is_empty() {
        println!("no load diagnostics");
    }
    for d in &corpus.diagnostics {
        println!("diagnostic {d}");
    }
    Ok(0)
}

/// The forms scripts load modules with (`esm`, `commonjs`), as the engine says or its
/// level implies.
fn module_forms(corpus: &crate::docs::Corpus) -> Vec<&'static str> {
    let mut out = Vec::new();
    if corpus.engine.has_esm() {
        out.push("esm");
    }
    if corpus.engine.has_commonjs() {
        out.push("commonjs");
    }
    out
}

/// `grounded doc NAME`: the docs on the command line. `lookup` showed one line of a
/// chunk; reading a whole member's text meant opening the corpus file by hand.
pub fn doc(docs: Option<&Path>, name: &str, format: Format) -> Result<i32, Fail> {
    let format = plain_format("doc", format)?;
    let (_, corpus) = project_and_corpus(Path::new("."), docs)?;
    let Some(hit) = crate::docs::names::resolve(&corpus, name) else {
        let near = crate::docs::names::near_names(&corpus, name, 5);
        let hint = if near.is_empty() {
            String::new()
        } else {
            let names: Vec<String> = near.iter().map(|t| format!("`{t}`")).collect();
            format!("; near: {}", names.join(", "))
        };
        eprintln!("grounded: the docs document no `{name}`{hint}");
        return Ok(1);
    };
    let members: Vec<&crate::docs::Member> = hit
        .interface
        .map(|i| corpus.members_of(i))
        .unwrap_or_default();
    if format == Format::Json {
        let sigs = |m: &crate::docs::Member| -> Vec<String> {
            m.overloads.iter().map(|s| s.text.clone()).collect()
        };
        let v = serde_json::json!({
            "title": hit.chunk.map(|c| c.title.clone()),
            "file": hit.chunk.map(|c| c.file.clone()),
            "line": hit.chunk.map(|c| c.line),
            "text": hit.chunk.map(|c| c.text.clone()),
            "interface": hit.interface.or(hit.member.map(|(i, _)| i)),
            "member": hit.member.map(|(_, m)| serde_json::json!({
                "name": m.name,
                "interface": m.interface,
                "signatures": sigs(m),
            })),
            "members": members.iter().map(|m| serde_json::json!({
                "name": m.name,
                "interface": m.interface,
                "signatures": sigs(m),
            })).collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    match hit.chunk {
        Some(c) => {
            println!("{}  ({}:{})", c.title, c.file, c.line);
            if let Some((asked, m)) = hit.member {
                if asked != m.interface {
                    println!("(inherited by {asked} from {})", m.interface);
                }
            }
            println!();
            // The chunk's text begins with the line break after its heading: printed
            // as is, the title stood over two blank lines.
            println!("{}", c.text.trim_start_matches(['\n', '\r']).trim_end());
        }
        None => {
            // An `[extra]` member or an interface known only from its member chunks.
            if let Some((_, m)) = hit.member {
                println!(
                    "{}.{}: declared in facts.toml, no chunk documents it",
                    m.interface, m.name
                );
            } else if let Some(i) = hit.interface {
                println!("{i}: no chunk of its own; its members are documented");
            }
        }
    }
    if let Some(iface) = hit.interface {
        println!();
        match corpus
            .interfaces
            .get(iface)
            .and_then(|i| i.module.as_deref())
        {
            Some(m) => {
                let default = corpus
                    .interfaces
                    .get(iface)
                    .and_then(|i| i.default_export.as_deref())
                    .map(|d| format!("; default export: {d}"))
                    .unwrap_or_default();
                println!("Exports of module \"{m}\" ({}){default}:", members.len());
            }
            None => println!("Members of {iface} ({}):", members.len()),
        }
        for m in &members {
            let from = if m.interface == iface {
                String::new()
            } else {
                format!("  (from {})", m.interface)
            };
            match m.overloads.first() {
                Some(_) => {
                    for s in &m.overloads {
                        println!("  {}{from}", s.text);
                    }
                }
                None => println!("  {}{from}", m.name),
            }
        }
    }
    Ok(0)
}

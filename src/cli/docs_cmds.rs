//! `grounded lookup`, `grounded topic`, `grounded corpus`.

use std::path::Path;

use crate::docs::Library;

use super::{project_and_corpus, Fail, Format};

/// `grounded lookup TERM`
pub fn lookup(docs: Option<&Path>, term: &str, limit: usize, format: Format) -> Result<i32, Fail> {
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
    let (_, corpus) = project_and_corpus(Path::new("."), docs)?;
    let (interfaces, members, globals, constructs) = corpus.counts();
    if format == Format::Json {
        let v = serde_json::json!({
            "origin": corpus.origin,
            "chunks": corpus.chunks.len(),
            "interfaces": interfaces,
            "members": members,
            "globals": corpus.globals,
            "constructors": corpus.constructors.keys().collect::<Vec<_>>(),
            "constructs": corpus.constructs.values().collect::<Vec<_>>(),
            "skipped_pairs": corpus.skipped_pairs,
            "ecmascript": corpus.engine.es_label,
            "script_extensions": corpus.engine.script_extensions,
            "directives": corpus.engine.directives,
            "diagnostics": corpus.diagnostics,
        });
        println!("{}", serde_json::to_string_pretty(&v)?);
        return Ok(0);
    }
    println!("corpus: {}", corpus.origin);
    println!(
        "{} chunks, {interfaces} interfaces, {members} members, {globals} globals, {} constructors, {constructs} constructs",
        corpus.chunks.len(),
        corpus.constructors.len()
    );
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
    for (g, i) in &corpus.globals {
        println!("global {g}: {i}");
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

//! Writing the corpus: into a fresh folder beside `--out`, loaded back by the corpus
//! loader there, then renamed into place, so `--out` holds the whole corpus or what it
//! held before, never half of one.
//!
//! Imports `render` (the chunks) and `grounded_docs` (the loader).

use std::path::{Path, PathBuf};

use super::render::Chunk;

/// The files the importer writes; a folder holding only these may be replaced.
const OURS: &[&str] = &["corpus.jsonl", "facts.toml"];

/// Writes `chunks` (and `facts`) as the corpus `out`; returns what the loader says of
/// it. Nothing is left half-written: on any failure `out` is as it was.
pub fn write_corpus(
    out: &Path,
    chunks: &[Chunk],
    facts: Option<&str>,
) -> Result<Vec<String>, String> {
    let parent = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = out
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| "--out must name a folder".to_string())?;
    if out.exists() && !replaceable(out) {
        return Err("exists and holds files grounded import did not write: not replaced (remove it or name another folder)".into());
    }
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("cannot create its parent folder: {e}"))?;
    let tmp = parent.join(format!(".{name}.import-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let result = fill(&tmp, chunks, facts).and_then(|diags| {
        if out.exists() {
            let old = parent.join(format!(".{name}.old-{}", std::process::id()));
            std::fs::rename(out, &old)
                .map_err(|e| format!("cannot move the old corpus aside: {e}"))?;
            if let Err(e) = std::fs::rename(&tmp, out) {
                let _ = std::fs::rename(&old, out);
                return Err(format!("cannot put the corpus in place: {e}"));
            }
            let _ = std::fs::remove_dir_all(&old);
        } else {
            std::fs::rename(&tmp, out)
                .map_err(|e| format!("cannot put the corpus in place: {e}"))?;
        }
        Ok(diags)
    });
    if result.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    result
}

fn replaceable(out: &Path) -> bool {
    let Ok(rd) = std::fs::read_dir(out) else {
        return false;
    };
    rd.flatten()
        .all(|e| OURS.contains(&e.file_name().to_string_lossy().as_ref()))
}

fn fill(dir: &Path, chunks: &[Chunk], facts: Option<&str>) -> Result<Vec<String>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut text = String::new();
    for c in chunks {
        let line = serde_json::to_string(c).map_err(|e| e.to_string())?;
        text.push_str(&line);
        text.push('\n');
    }
    std::fs::write(dir.join("corpus.jsonl"), text).map_err(|e| format!("cannot write: {e}"))?;
    if let Some(f) = facts {
        std::fs::write(dir.join("facts.toml"), f)
            .map_err(|e| format!("cannot write facts.toml: {e}"))?;
    }
    let corpus = grounded_docs::Corpus::load(dir)
        .map_err(|e| format!("the corpus written does not load: {e}"))?;
    Ok(corpus.diagnostics.iter().map(|d| d.to_string()).collect())
}

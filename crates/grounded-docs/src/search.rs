//! `lookup_docs`: full-text search over chunk titles and texts, with tantivy.
//!
//! It returns only chunks that literally contain the term, so it cannot invent an API:
//! the failure it exists to stop is a retrieval step that paraphrases the docs into
//! members they never had. Identifiers are indexed whole and by their camelCase parts,
//! so `tableStart` finds the member chunk and `start` finds it too.
//!
//! The index lives in memory, built on first use: on 20,000 chunks the build is well
//! under a second (see `benches/corpus.rs`), so a cache folder keyed by the corpus hash
//! would buy little and add a stale-cache failure mode.

use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, Schema, TextFieldIndexing, TextOptions, FAST, INDEXED,
};
use tantivy::{doc, Index, IndexReader, Term};

use super::chunk::Chunk;
use super::model::{split_member_title, ChunkId};

/// One search hit.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Hit {
    /// The chunk.
    pub chunk: ChunkId,
    /// Its title.
    pub title: String,
    /// The chunk's file and line, `file:line`.
    pub location: String,
    /// A short excerpt around the first occurrence of the term.
    pub snippet: String,
    /// The relevance score (higher is better).
    pub score: f32,
}

/// The in-memory full-text index of a corpus.
pub struct SearchIndex {
    reader: Option<IndexReader>,
    title: Field,
    body: Field,
    /// Lower-cased titles and member names, for the exact-title promotion.
    titles: Vec<(String, Option<String>)>,
    snippets_src: Vec<(String, String, String)>,
}

/// Splits an identifier into its camelCase parts: `XMLDocument` → `XML`, `Document`.
pub fn camel_parts(word: &str) -> Vec<&str> {
    let b = word.as_bytes();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..b.len() {
        let (p, c) = (b[i - 1], b[i]);
        let next_lower = b.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
        let boundary = (p.is_ascii_lowercase() || p.is_ascii_digit()) && c.is_ascii_uppercase()
            || p.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower
            || matches!(c, b'_' | b'$' | b'-');
        if boundary {
            if i > start {
                parts.push(&word[start..i]);
            }
            start = if matches!(c, b'_' | b'$' | b'-') {
                i + 1
            } else {
                i
            };
        }
    }
    if start < word.len() {
        parts.push(&word[start..]);
    }
    parts.retain(|p| !p.is_empty());
    parts
}

/// Lower-cased search tokens of a text: each word whole, and its camelCase parts.
pub fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
        if word.is_empty() {
            continue;
        }
        let whole = word.trim_matches(['_', '$']).to_lowercase();
        if whole.is_empty() {
            continue;
        }
        let parts = camel_parts(word);
        out.push(whole.replace(['_', '$'], ""));
        if parts.len() > 1 {
            out.extend(parts.iter().map(|p| p.to_lowercase()));
        }
    }
    out
}

impl SearchIndex {
    /// Builds the index over every chunk.
    pub fn build(chunks: &[Chunk]) -> SearchIndex {
        let mut sb = Schema::builder();
        let opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer("raw_tokens")
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        let title = sb.add_text_field("title", opts.clone());
        let body = sb.add_text_field("body", opts);
        let id = sb.add_u64_field("id", INDEXED | FAST);
        let schema = sb.build();
        let index = Index::create_in_ram(schema);
        // Tokens are produced by `tokens()` and joined by spaces; the index only has to
        // split on whitespace, so the query side and the index side agree exactly.
        index.tokenizers().register(
            "raw_tokens",
            tantivy::tokenizer::TextAnalyzer::builder(
                tantivy::tokenizer::WhitespaceTokenizer::default(),
            )
            .filter(tantivy::tokenizer::RemoveLongFilter::limit(64))
            .build(),
        );
        let titles = chunks
            .iter()
            .map(|c| {
                let member = split_member_title(&c.title).map(|(_, m)| m.to_lowercase());
                (c.title.to_lowercase(), member)
            })
            .collect();
        let snippets_src = chunks
            .iter()
            .map(|c| {
                (
                    c.title.clone(),
                    c.text.clone(),
                    format!("{}:{}", c.file, c.line),
                )
            })
            .collect();
        let reader = (|| -> tantivy::Result<IndexReader> {
            let mut writer =
                index.writer_with_num_threads::<tantivy::TantivyDocument>(1, 50_000_000)?;
            for (i, c) in chunks.iter().enumerate() {
                writer.add_document(doc!(
                    title => tokens(&c.title).join(" "),
                    body => tokens(&c.text).join(" "),
                    id => i as u64,
                ))?;
            }
            writer.commit()?;
            index
                .reader_builder()
                .reload_policy(tantivy::ReloadPolicy::Manual)
                .try_into()
        })()
        .ok();
        SearchIndex {
            reader,
            title,
            body,
            titles,
            snippets_src,
        }
    }

    /// The chunks that contain every token of `term`, best first, at most `limit`.
    /// A chunk whose title (or member name) is the term itself comes first.
    pub fn lookup(&self, term: &str, limit: usize) -> Vec<Hit> {
        let Some(reader) = &self.reader else {
            return Vec::new();
        };
        let mut toks: Vec<String> = Vec::new();
        // Query words count whole: `tableStart` must find `tableStart`, not every chunk
        // that says `table` or `start`.
        for word in term.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$')) {
            let w = word
                .trim_matches(['_', '$'])
                .to_lowercase()
                .replace(['_', '$'], "");
            if !w.is_empty() && !toks.contains(&w) {
                toks.push(w);
            }
        }
        if toks.is_empty() || limit == 0 {
            return Vec::new();
        }
        let musts: Vec<(Occur, Box<dyn Query>)> = toks
            .iter()
            .map(|t| {
                let in_title: Box<dyn Query> = Box::new(BoostQuery::new(
                    Box::new(TermQuery::new(
                        Term::from_field_text(self.title, t),
                        IndexRecordOption::WithFreqs,
                    )),
                    3.0,
                ));
                let in_body: Box<dyn Query> = Box::new(TermQuery::new(
                    Term::from_field_text(self.body, t),
                    IndexRecordOption::WithFreqs,
                ));
                let either: Box<dyn Query> = Box::new(BooleanQuery::new(vec![
                    (Occur::Should, in_title),
                    (Occur::Should, in_body),
                ]));
                (Occur::Must, either)
            })
            .collect();
        let query = BooleanQuery::new(musts);
        let searcher = reader.searcher();
        let Ok(top) = searcher.search(&query, &TopDocs::with_limit(limit + 16)) else {
            return Vec::new();
        };
        let whole = term.trim().to_lowercase();
        let mut hits: Vec<(bool, f32, ChunkId)> = Vec::new();
        for (score, addr) in top {
            let seg = searcher.segment_reader(addr.segment_ord);
            let Ok(col) = seg.fast_fields().u64("id") else {
                continue;
            };
            let Some(id) = col.first(addr.doc_id) else {
                continue;
            };
            let id = id as usize;
            let (t, m) = &self.titles[id];
            let exact = *t == whole || m.as_deref() == Some(whole.as_str());
            hits.push((exact, score, id));
        }
        hits.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
        hits.truncate(limit);
        hits.into_iter()
            .map(|(_, score, id)| {
                let (title, text, loc) = &self.snippets_src[id];
                Hit {
                    chunk: id,
                    title: title.clone(),
                    location: loc.clone(),
                    snippet: snippet(text, &toks),
                    score,
                }
            })
            .collect()
    }
}

/// An excerpt of at most ~200 characters around the first line that mentions a token.
pub fn snippet(text: &str, toks: &[String]) -> String {
    let lower = text.to_lowercase();
    let pos = toks.iter().filter_map(|t| lower.find(t.as_str())).min();
    let line = match pos {
        Some(p) if p < text.len() && text.is_char_boundary(p) => {
            let start = text[..p].rfind('\n').map(|i| i + 1).unwrap_or(0);
            let end = text[p..].find('\n').map(|i| p + i).unwrap_or(text.len());
            &text[start..end]
        }
        _ => text.lines().find(|l| !l.trim().is_empty()).unwrap_or(""),
    };
    let line = line.trim();
    if line.chars().count() > 200 {
        let cut: String = line.chars().take(197).collect();
        format!("{cut}...")
    } else {
        line.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camel() {
        assert_eq!(camel_parts("tableStart"), vec!["table", "Start"]);
        assert_eq!(camel_parts("XMLDocument"), vec!["XML", "Document"]);
        assert_eq!(
            camel_parts("Table-borderWidth"),
            vec!["Table", "border", "Width"]
        );
        let t = tokens("Table-borderWidth");
        assert!(t.contains(&"borderwidth".to_string()) && t.contains(&"width".to_string()));
    }
}

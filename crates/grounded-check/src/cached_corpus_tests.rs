//! A check against a corpus read from the load cache: the cache ([`grounded_docs::cache`])
//! decodes chunk texts lazily, and a finding's docs link must not need them. It lives
//! here, not beside the cache, because it runs the checker, which `grounded-docs` must
//! never know.

use std::path::Path;

#[test]
fn a_check_against_a_cached_corpus_decodes_no_chunk_and_links_the_same_place() {
    let demo = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("corpus/demo");
    let cache = tempfile::tempdir().unwrap();
    let fresh = grounded_docs::Corpus::load(&demo).unwrap();
    grounded_docs::Corpus::load_cached_in(&demo, Some(cache.path())).unwrap();
    let cached = grounded_docs::Corpus::load_cached_in(&demo, Some(cache.path())).unwrap();
    assert!(!cached.chunks.is_decoded());
    assert_eq!(cached.chunks.count(), fresh.chunks.len());
    for (id, ch) in fresh.chunks.iter().enumerate() {
        assert_eq!(
            cached.chunks.place(id),
            Some((ch.file.as_str(), ch.line)),
            "chunk {id}"
        );
    }
    assert_eq!(cached.chunks.place(fresh.chunks.len()), None);
    // A finding whose link names the interface's chunk.
    let text = "app.noSuchThing();\n";
    let index = crate::ProjectIndex::default();
    let of = |c: &grounded_docs::Corpus| crate::check_text(c, &index, "main.js", text);
    let (want, got) = (of(&fresh), of(&cached));
    assert_eq!(want.len(), 1, "{want:?}");
    let related = |f: &[crate::Finding]| {
        let r = f[0].related.as_ref().expect("a docs link");
        (r.file.clone(), r.line, r.message.clone())
    };
    assert_eq!(related(&got), related(&want));
    assert!(!cached.chunks.is_decoded(), "the check read a chunk's text");
    // The first read of a text decodes them, as they were.
    assert_eq!(cached.chunks[3].text, fresh.chunks[3].text);
    assert!(cached.chunks.is_decoded());
}

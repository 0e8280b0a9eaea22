//! A content-keyed cache of the loaded corpus, so that a command does not derive the
//! whole member index again on every run.
//!
//! Why: checking one small project against a real API's 21,700 chunks took 0.15 s, of
//! which 0.13 s was loading the corpus; in CI every commit pays it, and so does every
//! editor start.
//!
//! Rules, each from a way a cache goes wrong:
//! - The key is the corpus's bytes, never a path or a modification time: a file edited
//!   within the same second, or a corpus copied elsewhere, must not be answered for by
//!   the old derivation. Every run reads every corpus file (the reading is cheap; the
//!   deriving is not).
//! - The cache file holds the bytes it was derived from, and a hit compares them all
//!   with the bytes just read: the hash only names the file, so even a hash collision
//!   cannot make the cache answer for other bytes.
//! - The cache lives under the user's cache folder (`GROUNDED_CACHE_DIR`, else
//!   `$XDG_CACHE_HOME/grounded`, else `~/.cache/grounded`), never beside the corpus: a
//!   corpus folder is often a read-only checkout or shared between users.
//! - A cache that is missing, unreadable, of another version or corrupt is rebuilt
//!   silently: the cache can make a run faster, never make it fail. Writes go to a
//!   temporary file renamed into place, so a reader never sees half a file.
//! - `GROUNDED_CACHE_DIR` set to the empty string turns the cache off.
//! - Each edit of a corpus makes new bytes and so a new cache file: the folder keeps
//!   the [`KEEP`] most recently written and deletes older ones, or a user writing a
//!   corpus would fill their disk one save at a time.

use std::hash::Hasher;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::chunk::{chunks_of, read_corpus_path, SourceFile};
use super::model::{kind_of, Corpus, CorpusError};

/// Bumped whenever the cached form changes meaning; with the crate version it is part
/// of every key, so a new build never reads an old build's derivation.
const FORMAT: &str = "grounded-corpus-cache 2";

/// How many cache files the folder keeps (one per distinct corpus content).
pub const KEEP: usize = 8;

/// The environment variable naming the cache folder (empty: no cache).
pub const CACHE_DIR_ENV: &str = "GROUNDED_CACHE_DIR";

/// The cache folder, or `None` when the cache is off or no folder is known.
pub fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_DIR_ENV) {
        Some(d) if d.is_empty() => None,
        Some(d) => Some(PathBuf::from(d)),
        None => match std::env::var_os("XDG_CACHE_HOME").filter(|d| !d.is_empty()) {
            Some(x) => Some(PathBuf::from(x).join("grounded")),
            None => std::env::var_os("HOME")
                .filter(|h| !h.is_empty())
                .map(|h| PathBuf::from(h).join(".cache").join("grounded")),
        },
    }
}

/// The bytes a derivation depends on, in one buffer: the format, the crate version,
/// and every file the loader read (path and text, length-prefixed so that no two
/// different corpora give the same buffer).
fn key_bytes(
    files: &[SourceFile],
    facts: Option<&SourceFile>,
    diags: &[super::LoadDiagnostic],
) -> Vec<u8> {
    let total: usize = files.iter().map(|f| f.path.len() + f.text.len() + 16).sum();
    let mut out = Vec::with_capacity(total + 256);
    let mut put = |b: &[u8]| {
        out.extend_from_slice(&(b.len() as u64).to_le_bytes());
        out.extend_from_slice(b);
    };
    put(FORMAT.as_bytes());
    put(env!("CARGO_PKG_VERSION").as_bytes());
    match facts {
        Some(f) => {
            put(b"facts");
            put(f.text.as_bytes());
        }
        None => put(b"no facts"),
    }
    for f in files {
        put(f.path.as_bytes());
        put(f.text.as_bytes());
    }
    // What reading said (a file not UTF-8, decoded lossily): two files can decode to
    // the same text and still differ in what the load reports.
    for d in diags {
        put(d.to_string().as_bytes());
    }
    out
}

/// FNV-1a over the key, 64 bits: it only names the cache file (see the module's rules).
fn name_of(key: &[u8]) -> String {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    h.write(key);
    format!("corpus-{:016x}.cache", h.finish())
}

struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// Reads a cache file: the corpus, if the file holds exactly `key` and a whole
/// derivation.
fn read(path: &Path, key: &[u8]) -> Option<Corpus> {
    let bytes = std::fs::read(path).ok()?;
    let len = u64::from_le_bytes(bytes.get(..8)?.try_into().ok()?) as usize;
    let stored = bytes.get(8..8usize.checked_add(len)?)?;
    if stored != key {
        return None;
    }
    serde_json::from_slice(bytes.get(8 + len..)?).ok()
}

/// Writes a cache file through a temporary file and a rename. Failures are ignored:
/// a read-only home or a full disk costs the next run its speed, nothing else.
fn write(dir: &Path, name: &str, key: &[u8], corpus: &Corpus) {
    let Ok(json) = serde_json::to_vec(corpus) else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!("{name}.{}.tmp", std::process::id()));
    let ok = (|| -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(&(key.len() as u64).to_le_bytes())?;
        f.write_all(key)?;
        f.write_all(&json)?;
        f.sync_all().ok();
        Ok(())
    })();
    if ok.is_err() || std::fs::rename(&tmp, dir.join(name)).is_err() {
        let _ = std::fs::remove_file(&tmp);
        return;
    }
    prune(dir);
}

/// Deletes all but the [`KEEP`] newest cache files of the folder (and nothing else).
fn prune(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut files: Vec<(std::time::SystemTime, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let n = e.file_name();
            let n = n.to_string_lossy();
            n.starts_with("corpus-") && n.ends_with(".cache")
        })
        .filter_map(|e| Some((e.metadata().ok()?.modified().ok()?, e.path())))
        .collect();
    if files.len() <= KEEP {
        return;
    }
    files.sort();
    for (_, p) in &files[..files.len() - KEEP] {
        let _ = std::fs::remove_file(p);
    }
}

impl Corpus {
    /// Loads a corpus like [`Corpus::load`], answering from the cache when it holds a
    /// derivation of exactly these bytes (see the module's rules), and filling it
    /// otherwise. The result is the same corpus either way.
    pub fn load_cached(path: &Path) -> Result<Corpus, CorpusError> {
        Corpus::load_cached_in(path, cache_dir().as_deref())
    }

    /// [`Corpus::load_cached`] with the cache in `dir` (`None`: no cache).
    pub fn load_cached_in(path: &Path, dir: Option<&Path>) -> Result<Corpus, CorpusError> {
        let Some(dir) = dir else {
            return Corpus::load(path);
        };
        if !path.exists() {
            return Err(CorpusError::NotFound(format!(
                "{} does not exist",
                path.display()
            )));
        }
        let mut diags = Vec::new();
        let (files, facts) = read_corpus_path(path, &mut diags)
            .map_err(|e| CorpusError::NotFound(format!("{}: {e}", path.display())))?;
        let origin = path.display().to_string();
        let key = key_bytes(&files, facts.as_ref(), &diags);
        let name = name_of(&key);
        if let Some(mut c) = read(&dir.join(&name), &key) {
            // The chunks are not stored: the same bytes chunk the same way, and their
            // diagnostics are already among the stored ones.
            c.chunks = chunks_of(&files, &mut Vec::new());
            c.kinds = c.chunks.iter().map(|ch| kind_of(&ch.title)).collect();
            // The same bytes at another path share the derivation; only the origin
            // differs.
            c.origin = origin;
            return Ok(c);
        }
        let corpus = Corpus::from_sources(files, facts, diags, &origin)?;
        write(dir, &name, &key, &corpus);
        Ok(corpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus_dir() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("a.md"),
            "# Desk\nThis object is accessed using the global property \"desk\".\n\n## Desk-fade\nSyntax: fade(level: number): void\n",
        )
        .unwrap();
        d
    }

    fn cache_file(dir: &Path) -> PathBuf {
        let files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        assert_eq!(files.len(), 1, "one cache file: {files:?}");
        files[0].clone()
    }

    #[test]
    fn a_second_load_is_answered_by_the_cache_and_a_changed_byte_is_not() {
        let corpus = corpus_dir();
        let cache = tempfile::tempdir().unwrap();
        let first = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        assert!(first.member("Desk", "fade").is_some());
        let file = cache_file(cache.path());
        assert!(!file.starts_with(corpus.path()), "never beside the corpus");
        // Doctor the stored derivation (the key stays): a load that answers from the
        // cache shows the doctored member, which proves the hit path is taken.
        let mut bytes = std::fs::read(&file).unwrap();
        let needle = b"\"fade\"";
        let mut at = 0;
        while let Some(i) = bytes[at..].windows(needle.len()).position(|w| w == needle) {
            bytes[at + i + 4] = b'x';
            at += i + needle.len();
        }
        std::fs::write(&file, &bytes).unwrap();
        let second = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        assert!(
            second.member("Desk", "fadx").is_some(),
            "served from the cache"
        );
        // One byte of the corpus changed: the doctored cache never answers for it.
        let a = corpus.path().join("a.md");
        let t = std::fs::read_to_string(&a)
            .unwrap()
            .replace("level", "lever");
        std::fs::write(&a, t).unwrap();
        let third = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        assert!(third.member("Desk", "fade").is_some());
        assert!(third.member("Desk", "fadx").is_none());
        let sig = &third.member("Desk", "fade").unwrap().overloads[0].text;
        assert!(sig.contains("lever"), "{sig}");
    }

    #[test]
    fn a_broken_cache_is_rebuilt_silently() {
        let corpus = corpus_dir();
        let cache = tempfile::tempdir().unwrap();
        Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        let file = cache_file(cache.path());
        for broken in [
            &b""[..],
            &b"\xff\xff\xff\xff\xff\xff\xff\xff"[..],
            &b"garbage"[..],
        ] {
            std::fs::write(&file, broken).unwrap();
            let c = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
            assert!(c.member("Desk", "fade").is_some());
        }
        // Truncated after the key: the derivation is incomplete.
        Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        let bytes = std::fs::read(&file).unwrap();
        std::fs::write(&file, &bytes[..bytes.len() - 10]).unwrap();
        let c = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        assert!(c.member("Desk", "fade").is_some());
        // A cache folder that cannot be created costs nothing but speed.
        let blocked = cache.path().join("file-not-folder");
        std::fs::write(&blocked, "x").unwrap();
        let c = Corpus::load_cached_in(corpus.path(), Some(&blocked.join("sub"))).unwrap();
        assert!(c.member("Desk", "fade").is_some());
    }

    #[test]
    fn the_folder_keeps_only_the_newest_cache_files() {
        let corpus = corpus_dir();
        let cache = tempfile::tempdir().unwrap();
        std::fs::write(cache.path().join("mine.txt"), "not a cache file").unwrap();
        let a = corpus.path().join("a.md");
        for i in 0..KEEP + 3 {
            std::fs::write(&a, format!("# Desk\nVersion {i}.\n")).unwrap();
            Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        }
        let names: Vec<String> = std::fs::read_dir(cache.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.iter().filter(|n| n.ends_with(".cache")).count(), KEEP);
        assert!(names.contains(&"mine.txt".to_string()), "{names:?}");
        // The last version still loads as written.
        let c = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        assert!(c.chunks[0].text.contains(&format!("Version {}", KEEP + 2)));
    }

    #[test]
    fn the_cached_corpus_is_the_loaded_corpus() {
        let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/demo");
        let cache = tempfile::tempdir().unwrap();
        let fresh = Corpus::load(&demo).unwrap();
        Corpus::load_cached_in(&demo, Some(cache.path())).unwrap();
        let cached = Corpus::load_cached_in(&demo, Some(cache.path())).unwrap();
        assert_eq!(
            serde_json::to_value(&fresh).unwrap(),
            serde_json::to_value(&cached).unwrap()
        );
        assert_eq!(
            fresh.members_of("Layout").len(),
            cached.members_of("Layout").len()
        );
        assert_eq!(fresh.chunks.len(), cached.chunks.len());
        for (a, b) in fresh.chunks.iter().zip(&cached.chunks) {
            assert_eq!(
                (&a.title, &a.text, &a.file, a.line, a.text_line, &a.meta),
                (&b.title, &b.text, &b.file, b.line, b.text_line, &b.meta)
            );
        }
        assert_eq!(fresh.kinds, cached.kinds);
        assert!(
            !crate::docs::Library::from(cached)
                .lookup("tableStart", 3)
                .is_empty(),
            "the full-text index builds on a cached corpus"
        );
    }
}

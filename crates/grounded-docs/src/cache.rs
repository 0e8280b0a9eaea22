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
//! - The stored derivation carries a hash of its own bytes, checked before it is
//!   decoded: a compact binary form, unlike JSON, decodes a flipped byte inside a
//!   string as a different but well-formed corpus, which would then be served.
//! - `GROUNDED_CACHE_DIR` set to the empty string turns the cache off.
//! - Each edit of a corpus makes new bytes and so a new cache file: the folder keeps
//!   the [`KEEP`] most recently written and deletes older ones, or a user writing a
//!   corpus would fill their disk one save at a time.
//!
//! Speed (issue 16: `grounded check` with a 20,000-chunk corpus in 50 ms, second run):
//! the derivation was stored as JSON, and decoding it was 60% of a warm run's
//! instructions; it is `postcard` now, chunks and their kinds included (re-chunking
//! the text was the next 17%, and a JSON Lines corpus would parse every record again).
//! The chunks are decoded only when a chunk's text is first asked for (the checker
//! asks for none), and the rest in two parts that two threads decode at once.
//! The key is hashed eight bytes a step in four lanes (FNV-1a, a byte a step, was 3%)
//! and compared with the stored key piece by piece as the file is read, never copied
//! into one buffer: a 5 MB corpus would otherwise cost two more 5 MB buffers, and on
//! this path fresh memory is system time.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::File;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::chunk::{read_corpus_path, Chunks, SourceFile};
use super::diag::LoadDiagnostic;
use super::model::{
    ChunkKind, Construct, Constructor, Corpus, CorpusError, Engine, Interface, SkippedPair,
};

/// Bumped whenever the cached form changes meaning; with the crate version it is part
/// of every key, so a new build never reads an old build's derivation.
const FORMAT: &str =
    "grounded-corpus-cache 8 (postcard, parts, unions, modules, shared constructors)";

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

/// The bytes a derivation depends on: the format, the crate version, and every file
/// the loader read (path and text), each piece length-prefixed so that no two
/// different corpora give the same sequence. Held as borrowed pieces, never joined.
struct Key<'a> {
    pieces: Vec<&'a [u8]>,
    /// The length prefix of each piece (little-endian `u64`).
    lens: Vec<[u8; 8]>,
}

impl<'a> Key<'a> {
    fn new(files: &'a [SourceFile], facts: Option<&'a SourceFile>, said: &'a [String]) -> Self {
        let mut pieces: Vec<&'a [u8]> =
            vec![FORMAT.as_bytes(), env!("CARGO_PKG_VERSION").as_bytes()];
        match facts {
            Some(f) => pieces.extend([&b"facts"[..], f.text.as_bytes()]),
            None => pieces.push(b"no facts"),
        }
        for f in files {
            pieces.extend([f.path.as_bytes(), f.text.as_bytes()]);
        }
        // What reading said (a file not UTF-8, decoded lossily): two files can decode
        // to the same text and still differ in what the load reports.
        pieces.extend(said.iter().map(|s| s.as_bytes()));
        let lens = pieces
            .iter()
            .map(|p| (p.len() as u64).to_le_bytes())
            .collect();
        Key { pieces, lens }
    }

    /// The key's bytes in order, as slices: each piece after its length.
    fn parts(&self) -> impl Iterator<Item = &[u8]> {
        self.lens
            .iter()
            .zip(&self.pieces)
            .flat_map(|(l, p)| [&l[..], p])
    }

    fn len(&self) -> u64 {
        self.pieces.iter().map(|p| 8 + p.len() as u64).sum()
    }

    /// The cache file's name: a hash of the key (see the module's rules: it only
    /// names the file).
    fn file_name(&self) -> String {
        let mut h = Hash::new();
        for p in self.parts() {
            h.write(p);
        }
        format!("corpus-{:016x}.cache", h.finish())
    }
}

/// A 64-bit hash, 32 bytes a step in four independent lanes of multiply-rotate: it
/// names files and guards the stored body against corruption, never against an
/// adversary, so speed is what matters (FNV-1a's byte-at-a-time multiply chain was
/// 3% of a warm run).
struct Hash {
    lanes: [u64; 4],
    len: u64,
}

const K: [u64; 4] = [
    0x9E37_79B9_7F4A_7C15,
    0xC2B2_AE3D_27D4_EB4F,
    0x1656_67B1_9E37_79F9,
    0x85EB_CA77_C2B2_AE63,
];

impl Hash {
    fn new() -> Self {
        Hash {
            lanes: [K[1], K[2], K[3], K[0]],
            len: 0,
        }
    }

    fn mix(lane: u64, word: u64, k: u64) -> u64 {
        (lane ^ word).wrapping_mul(k).rotate_left(31)
    }

    fn write(&mut self, bytes: &[u8]) {
        self.len = self.len.wrapping_add(bytes.len() as u64);
        let mut blocks = bytes.chunks_exact(32);
        for b in &mut blocks {
            for (i, lane) in self.lanes.iter_mut().enumerate() {
                let w = u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
                *lane = Hash::mix(*lane, w, K[i]);
            }
        }
        let tail = blocks.remainder();
        for (i, w) in tail.chunks(8).enumerate() {
            let mut word = [0u8; 8];
            word[..w.len()].copy_from_slice(w);
            // The tail's length goes in with it, so "ab" and "ab\0" differ.
            let word = u64::from_le_bytes(word) ^ ((w.len() as u64) << 59);
            self.lanes[i] = Hash::mix(self.lanes[i], word, K[i]);
        }
        // A piece boundary moves the state even when a piece is empty.
        self.lanes[0] = Hash::mix(self.lanes[0], bytes.len() as u64, K[3]);
    }

    fn finish(&self) -> u64 {
        let mut h = self.len.wrapping_mul(K[0]);
        for (i, lane) in self.lanes.iter().enumerate() {
            h = (h ^ lane).wrapping_mul(K[i]).rotate_left(27);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(K[1]);
        h ^ (h >> 29)
    }
}

fn hash_of(bytes: &[u8]) -> u64 {
    let mut h = Hash::new();
    h.write(bytes);
    h.finish()
}

/// The derivation's fields other than the interfaces, as written. Every field of
/// [`Corpus`] is named here or in [`seal`]'s destructuring (no `..`), so a new field
/// cannot be left out of the cache without a compile error.
#[derive(Serialize)]
struct RestRef<'a> {
    places: &'a [(u32, u32)],
    files: &'a [String],
    kinds: &'a [ChunkKind],
    globals: &'a BTreeMap<String, String>,
    global_members: &'a [String],
    constructors: &'a BTreeMap<String, Constructor>,
    constructs: &'a BTreeMap<String, Construct>,
    skipped_pairs: &'a [SkippedPair],
    engine: &'a Engine,
    modules: &'a BTreeMap<String, String>,
    extra_globals: &'a BTreeSet<String>,
    extra_functions: &'a BTreeSet<String>,
    absent: Vec<(&'a (String, String), &'a String)>,
    diagnostics: &'a [LoadDiagnostic],
    ancestors: &'a BTreeMap<String, Vec<String>>,
    descendants: &'a BTreeMap<String, Vec<String>>,
}

/// [`RestRef`], as read.
#[derive(Deserialize)]
struct Rest {
    places: Vec<(u32, u32)>,
    files: Vec<String>,
    kinds: Vec<ChunkKind>,
    globals: BTreeMap<String, String>,
    global_members: Vec<String>,
    constructors: BTreeMap<String, Constructor>,
    constructs: BTreeMap<String, Construct>,
    skipped_pairs: Vec<SkippedPair>,
    engine: Engine,
    modules: BTreeMap<String, String>,
    extra_globals: BTreeSet<String>,
    extra_functions: BTreeSet<String>,
    absent: Vec<((String, String), String)>,
    diagnostics: Vec<LoadDiagnostic>,
    ancestors: BTreeMap<String, Vec<String>>,
    descendants: BTreeMap<String, Vec<String>>,
}

/// Interfaces as written: a run of the sorted map.
type InterfacesRef<'a> = Vec<(&'a String, &'a Interface)>;

/// The encoded derivation: `[u64 hash of the rest][u64 length of A][A][u64 length of
/// C][C][B]`, each part postcard: A the first interfaces, C the chunks, B the other
/// interfaces and everything else. A and B are decoded at once on two threads
/// (decoding is nearly all of a warm run), so A is cut where the interfaces' members
/// halve; C is decoded only if a chunk's text is asked for (see [`Chunks`]).
fn seal(corpus: &Corpus) -> Option<Vec<u8>> {
    let Corpus {
        chunks,
        kinds,
        interfaces,
        globals,
        global_members,
        constructors,
        constructs,
        skipped_pairs,
        engine,
        modules,
        extra_globals,
        extra_functions,
        absent,
        diagnostics,
        origin: _,
        ancestors,
        descendants,
    } = corpus;
    let weight = |i: &Interface| i.members.len() + 1;
    let total: usize = interfaces.values().map(weight).sum();
    let mut first: InterfacesRef = Vec::new();
    let mut second: InterfacesRef = Vec::new();
    let mut acc = 0;
    for (name, i) in interfaces {
        acc += weight(i);
        if acc <= total / 2 {
            first.push((name, i));
        } else {
            second.push((name, i));
        }
    }
    let (places, files) = chunks.places();
    let rest = RestRef {
        places,
        files,
        kinds,
        globals,
        global_members,
        constructors,
        constructs,
        skipped_pairs,
        engine,
        modules,
        extra_globals,
        extra_functions,
        absent: absent.iter().collect(),
        diagnostics,
        ancestors,
        descendants,
    };
    let a = postcard::to_allocvec(&first).ok()?;
    let c = postcard::to_allocvec(&chunks[..]).ok()?;
    let b = postcard::to_allocvec(&(second, rest)).ok()?;
    let mut out = Vec::with_capacity(24 + a.len() + b.len() + c.len());
    out.extend_from_slice(&[0; 8]);
    for part in [&a, &c] {
        out.extend_from_slice(&(part.len() as u64).to_le_bytes());
        out.extend_from_slice(part);
    }
    out.extend_from_slice(&b);
    let hash = hash_of(&out[8..]);
    out[..8].copy_from_slice(&hash.to_le_bytes());
    Some(out)
}

/// Splits a length-prefixed part off the front of `bytes`: (its range, the rest).
fn part(bytes: &[u8], at: usize) -> Option<(std::ops::Range<usize>, usize)> {
    let (len, _) = bytes.get(at..)?.split_first_chunk::<8>()?;
    let len = usize::try_from(u64::from_le_bytes(*len)).ok()?;
    let start = at + 8;
    let end = start.checked_add(len)?;
    (end <= bytes.len()).then_some((start..end, end))
}

/// Decodes one part in full: trailing bytes mean it is not what was written.
fn decode<'de, T: Deserialize<'de>>(bytes: &'de [u8]) -> Option<T> {
    let (v, rest) = postcard::take_from_bytes(bytes).ok()?;
    rest.is_empty().then_some(v)
}

/// The derivation of [`seal`]ed bytes, if they are whole and unchanged; `origin` is
/// where this load found the corpus. The buffer is kept for the chunks' first use.
fn unseal(sealed: Vec<u8>, origin: String) -> Option<Corpus> {
    let (hash, body) = sealed.split_first_chunk::<8>()?;
    if u64::from_le_bytes(*hash) != hash_of(body) {
        return None;
    }
    let (a, next) = part(&sealed, 8)?;
    let (c, next) = part(&sealed, next)?;
    let (a, b) = (&sealed[a], &sealed[next..]);
    let (first, (second, rest)) = std::thread::scope(|s| {
        let first = s.spawn(|| decode::<Vec<(String, Interface)>>(a));
        let second = decode::<(Vec<(String, Interface)>, Rest)>(b);
        // A panic while decoding is a bug; it stays a panic, with its own message.
        let first = first
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        Some((first?, second?))
    })?;
    let Rest {
        places,
        files,
        kinds,
        globals,
        global_members,
        constructors,
        constructs,
        skipped_pairs,
        engine,
        modules,
        extra_globals,
        extra_functions,
        absent,
        diagnostics,
        ancestors,
        descendants,
    } = rest;
    let chunks = Chunks::encoded(sealed, c, places, files);
    if !chunks.places_fit(kinds.len()) {
        return None;
    }
    Some(Corpus {
        chunks,
        kinds,
        // Written in the map's order, so collecting is a bulk build, not a search per
        // name.
        interfaces: first.into_iter().chain(second).collect(),
        globals,
        global_members,
        constructors,
        constructs,
        skipped_pairs,
        engine,
        modules,
        extra_globals,
        extra_functions,
        absent: absent.into_iter().collect(),
        diagnostics,
        origin,
        ancestors,
        descendants,
    })
}

/// Reads a cache file: the corpus, if the file holds exactly `key` and a whole
/// derivation. The key is compared as it is read, a block at a time.
fn read(path: &Path, key: &Key, origin: String) -> Option<Corpus> {
    let mut f = File::open(path).ok()?;
    let size = f.metadata().ok()?.len();
    let mut len = [0u8; 8];
    f.read_exact(&mut len).ok()?;
    let key_len = key.len();
    if u64::from_le_bytes(len) != key_len || size < 8 + key_len {
        return None;
    }
    let mut buf = vec![0u8; 64 * 1024];
    for part in key.parts() {
        for want in part.chunks(buf.len()) {
            let got = &mut buf[..want.len()];
            f.read_exact(got).ok()?;
            if got != want {
                return None;
            }
        }
    }
    let mut sealed = Vec::with_capacity(usize::try_from(size - 8 - key_len).ok()?);
    f.read_to_end(&mut sealed).ok()?;
    unseal(sealed, origin)
}

/// Writes a cache file through a temporary file and a rename. Failures are ignored:
/// a read-only home or a full disk costs the next run its speed, nothing else. No
/// `fsync`: a file torn by a crash fails its body hash and is rebuilt, and waiting for
/// the disk was most of a first run's wall time on a busy machine.
fn write(dir: &Path, name: &str, key: &Key, corpus: &Corpus) {
    let Some(sealed) = seal(corpus) else {
        return;
    };
    if std::fs::create_dir_all(dir).is_err() {
        return;
    }
    let tmp = dir.join(format!("{name}.{}.tmp", std::process::id()));
    let ok = (|| -> std::io::Result<()> {
        let mut f = std::io::BufWriter::with_capacity(256 * 1024, File::create(&tmp)?);
        f.write_all(&key.len().to_le_bytes())?;
        for part in key.parts() {
            f.write_all(part)?;
        }
        f.write_all(&sealed)?;
        f.flush()
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
        let said: Vec<String> = diags.iter().map(ToString::to_string).collect();
        let key = Key::new(&files, facts.as_ref(), &said);
        let name = key.file_name();
        // The same bytes at another path share the derivation; only the origin
        // differs.
        if let Some(c) = read(&dir.join(&name), &key, origin.clone()) {
            return Ok(c);
        }
        let corpus = Corpus::derive(&files, facts.as_ref(), diags, &origin)?;
        write(dir, &name, &key, &corpus);
        Ok(corpus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DESK: &str = "# Desk\nThis object is accessed using the global property \"desk\".\n\n## Desk-fade\nSyntax: fade(level: number): void\n";

    fn corpus_dir() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("a.md"), DESK).unwrap();
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

    /// Writes the cache file for `corpus`'s bytes with a derivation changed by `edit`,
    /// its key and body hash valid: a load that then shows the change was answered by
    /// the cache.
    fn doctor(corpus: &Path, cache: &Path, edit: impl FnOnce(&mut Corpus)) {
        let mut diags = Vec::new();
        let (files, facts) = read_corpus_path(corpus, &mut diags).unwrap();
        let said: Vec<String> = diags.iter().map(ToString::to_string).collect();
        let key = Key::new(&files, facts.as_ref(), &said);
        let mut c = Corpus::derive(&files, facts.as_ref(), diags, "doctored").unwrap();
        edit(&mut c);
        write(cache, &key.file_name(), &key, &c);
    }

    /// Renames `Desk.fade` to `fadx` in a derivation.
    fn fade_to_fadx(c: &mut Corpus) {
        let desk = c.interfaces.get_mut("Desk").unwrap();
        let mut m = desk.members.remove("fade").unwrap();
        m.name = "fadx".into();
        desk.members.insert("fadx".into(), m);
    }

    #[test]
    fn a_second_load_is_answered_by_the_cache_and_a_changed_byte_is_not() {
        let corpus = corpus_dir();
        let cache = tempfile::tempdir().unwrap();
        let first = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        assert!(first.member("Desk", "fade").is_some());
        let file = cache_file(cache.path());
        assert!(!file.starts_with(corpus.path()), "never beside the corpus");
        doctor(corpus.path(), cache.path(), fade_to_fadx);
        assert_eq!(
            cache_file(cache.path()),
            file,
            "the same bytes, the same file"
        );
        let second = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        assert!(
            second.member("Desk", "fadx").is_some(),
            "served from the cache"
        );
        assert_eq!(second.origin, corpus.path().display().to_string());
        // One byte of the corpus changed: the doctored cache never answers for it.
        let a = corpus.path().join("a.md");
        std::fs::write(&a, DESK.replace("level", "lever")).unwrap();
        let third = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        assert!(third.member("Desk", "fade").is_some());
        assert!(third.member("Desk", "fadx").is_none());
        let sig = &third.member("Desk", "fade").unwrap().overloads[0].text;
        assert!(sig.contains("lever"), "{sig}");
    }

    #[test]
    fn a_cache_file_for_other_bytes_never_answers_even_under_their_name() {
        // Two corpora, the same file name, one byte apart. The cache file of the first
        // put under the second's name stands for a hash collision: the stored bytes
        // differ from the read ones, so it must not answer.
        let a = corpus_dir();
        let b = tempfile::tempdir().unwrap();
        std::fs::write(b.path().join("a.md"), DESK.replace("level", "lever")).unwrap();
        let cache_a = tempfile::tempdir().unwrap();
        let cache_b = tempfile::tempdir().unwrap();
        doctor(a.path(), cache_a.path(), fade_to_fadx);
        Corpus::load_cached_in(b.path(), Some(cache_b.path())).unwrap();
        let file_b = cache_file(cache_b.path());
        std::fs::copy(cache_file(cache_a.path()), &file_b).unwrap();
        let c = Corpus::load_cached_in(b.path(), Some(cache_b.path())).unwrap();
        assert!(
            c.member("Desk", "fadx").is_none(),
            "a's derivation answered b"
        );
        let sig = &c.member("Desk", "fade").unwrap().overloads[0].text;
        assert!(sig.contains("lever"), "{sig}");
        // And the file was rebuilt for b's bytes: the next load is a hit that matches.
        let again = Corpus::load_cached_in(b.path(), Some(cache_b.path())).unwrap();
        assert!(again.member("Desk", "fade").is_some());
    }

    #[test]
    fn a_broken_cache_is_rebuilt_silently() {
        let corpus = corpus_dir();
        let cache = tempfile::tempdir().unwrap();
        let fresh = Corpus::load(corpus.path()).unwrap();
        let same = |c: &Corpus| {
            assert_eq!(
                postcard::to_allocvec(c).unwrap(),
                postcard::to_allocvec(&fresh).unwrap()
            );
        };
        Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
        let file = cache_file(cache.path());
        let good = std::fs::read(&file).unwrap();
        let body_at = good.len() - seal(&fresh).unwrap().len();
        let mut broken: Vec<Vec<u8>> = vec![
            b"".to_vec(),
            b"\xff\xff\xff\xff\xff\xff\xff\xff".to_vec(),
            b"garbage".to_vec(),
            [&good[..], b"x"].concat(),
        ];
        // Truncated anywhere: inside the key, right after it, inside the body's hash,
        // inside the body, one byte short.
        for cut in [4, 12, body_at, body_at + 3, body_at + 9, good.len() - 1] {
            broken.push(good[..cut].to_vec());
        }
        // One flipped bit anywhere in the body hash or body: the derivation still
        // decodes (a name one letter off), the body hash says it is not the one stored.
        for at in [
            body_at,
            body_at + 8,
            (body_at + good.len()) / 2,
            good.len() - 1,
        ] {
            let mut b = good.clone();
            b[at] ^= 0x01;
            broken.push(b);
        }
        for b in &broken {
            std::fs::write(&file, b).unwrap();
            let c = Corpus::load_cached_in(corpus.path(), Some(cache.path())).unwrap();
            same(&c);
            assert_eq!(
                std::fs::read(&file).unwrap(),
                good,
                "rebuilt as it was written first"
            );
        }
        // A cache folder that cannot be created costs nothing but speed.
        let blocked = cache.path().join("file-not-folder");
        std::fs::write(&blocked, "x").unwrap();
        let c = Corpus::load_cached_in(corpus.path(), Some(&blocked.join("sub"))).unwrap();
        same(&c);
    }

    #[test]
    fn the_hash_sees_every_byte_and_every_boundary() {
        let base = b"The quick brown fox jumps over the lazy dog, 0123456789 times.".to_vec();
        let h = hash_of(&base);
        for i in 0..base.len() {
            let mut b = base.clone();
            b[i] ^= 0x20;
            assert_ne!(hash_of(&b), h, "byte {i}");
        }
        assert_ne!(hash_of(&base[..base.len() - 1]), h);
        assert_ne!(hash_of(b"ab"), hash_of(b"ab\0"));
        let pieces = |ps: &[&[u8]]| {
            let mut h = Hash::new();
            for p in ps {
                h.write(p);
            }
            h.finish()
        };
        assert_ne!(pieces(&[b"ab", b"c"]), pieces(&[b"a", b"bc"]));
        assert_ne!(pieces(&[b"ab", b""]), pieces(&[b"ab"]));
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
        let demo = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("corpus/demo");
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
            !crate::Library::from(cached)
                .lookup("tableStart", 3)
                .is_empty(),
            "the full-text index builds on a cached corpus"
        );
    }
}

//! Seeded fuzz loops over every reader of outside input: the chunk reader (Markdown and
//! JSONL), the signature parser, `facts.toml`, the whole corpus load, `check` on
//! arbitrary text under a fixed corpus, `script_text` (Markdown blocks and directives),
//! `grounded import dts` on declaration text (what it writes must load, one chunk a line),
//! the language server's transport and the MCP server's (arbitrary bytes on the real
//! binary's stdin).
//!
//! Short and deterministic under `cargo test` (a fixed seed, a fixed number of cases).
//! For a long run while changing a parser:
//!
//! ```text
//! GROUNDED_FUZZ_SECS=600 cargo test --release --test cli fuzz -- --nocapture
//! ```
//!
//! runs each target for that long from a seed taken from the clock (or
//! `GROUNDED_FUZZ_SEED`). A crash prints the seed, the case number and the input's path
//! (written under the system temp folder); every crash found becomes a case in
//! `REGRESSIONS` below.

use crate::common;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::{Duration, Instant};

use grounded::check::{check_text, ProjectIndex};
use grounded::docs::chunk::{chunks_of, SourceFile};
use grounded::docs::facts::Facts;
use grounded::docs::{signature, Corpus};

/// A small, fast, seeded generator (xorshift64*): no dependency, same cases everywhere.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
    fn pick<'a, T>(&mut self, v: &'a [T]) -> &'a T {
        &v[self.below(v.len())]
    }
}

/// Pieces a mutation inserts: the tokens the readers split on, line ends of every kind,
/// and characters of every UTF-8 width.
const TOKENS: &[&str] = &[
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "<",
    ">",
    "=>",
    "|",
    ":",
    ",",
    "?",
    "...",
    "=",
    "`",
    "```",
    "~~~",
    "```js\n",
    "# ",
    "## ",
    "#",
    "\n",
    "\r",
    "\r\n",
    "\"",
    "'",
    "\u{201c}",
    "\u{201d}",
    "\u{a0}",
    "é",
    "表",
    "😀",
    "\u{fffd}",
    "\0",
    "\t",
    " ",
    "Syntax: ",
    "Signature: ",
    "readonly ",
    "Parent interface: ",
    "Constructor: new ",
    "accessed using the global property ",
    "Index: [key: string]: ",
    "Extensible: yes",
    "ECMAScript: ",
    "Directives: #include",
    "Script extensions: .jsx",
    "#include \"",
    "Table",
    "Table-",
    "-",
    "\\u",
    "\\ud800",
    "[[",
    "]]",
    "Start(",
    "End()",
    "new ",
    "function ",
    "var ",
    "layout.",
    "((((((((",
    "))))))))",
];

/// One mutation of `input`: insert a token or random bytes, delete or duplicate a range,
/// or splice in part of another seed. Char boundaries are ignored on purpose: the
/// result is bytes, decoded as the readers decode files (lossily).
fn mutate(rng: &mut Rng, input: &[u8], seeds: &[Vec<u8>]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(8) {
        let at = rng.below(v.len() + 1);
        match rng.below(7) {
            0 | 1 => {
                let t = rng.pick(TOKENS).as_bytes();
                v.splice(at..at, t.iter().copied());
            }
            2 => {
                let n = 1 + rng.below(4);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                v.splice(at..at, bytes);
            }
            3 => {
                let end = (at + rng.below(16)).min(v.len());
                v.drain(at..end);
            }
            4 => {
                let end = (at + rng.below(64)).min(v.len());
                let piece = v[at..end].to_vec();
                let to = rng.below(v.len() + 1);
                v.splice(to..to, piece);
            }
            5 => {
                let other = rng.pick(seeds);
                let a = rng.below(other.len() + 1);
                let b = (a + rng.below(200)).min(other.len());
                v.splice(at..at, other[a..b].iter().copied());
            }
            _ => {
                if !v.is_empty() {
                    let i = rng.below(v.len());
                    v[i] ^= 1 << rng.below(8);
                }
            }
        }
    }
    v.truncate(64 << 10);
    v
}

/// How a run is bounded: a number of cases (tests) or a duration (long runs).
struct Budget {
    cases: usize,
    until: Option<Instant>,
    seed: u64,
}

fn budget(default_cases: usize) -> Budget {
    let secs = std::env::var("GROUNDED_FUZZ_SECS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok());
    let seed = std::env::var("GROUNDED_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            if secs.is_some() {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(1, |d| d.as_nanos() as u64)
            } else {
                0x5eed
            }
        });
    Budget {
        cases: if secs.is_some() {
            usize::MAX
        } else {
            default_cases
        },
        until: secs.map(|s| Instant::now() + Duration::from_secs(s)),
        seed,
    }
}

/// Runs `target` on mutated seeds until the budget is spent; a panic fails the test
/// with the seed, the case and the input written to a file.
fn fuzz(name: &str, seeds: &[Vec<u8>], default_cases: usize, target: impl Fn(&[u8])) {
    assert!(!seeds.is_empty());
    let b = budget(default_cases);
    let mut rng = Rng::new(b.seed);
    let mut corpus: Vec<Vec<u8>> = seeds.to_vec();
    let mut case = 0usize;
    // Quiet: a fuzz panic is reported below, once, with what reproduces it.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    while case < b.cases && b.until.is_none_or(|t| Instant::now() < t) {
        let base = if case < seeds.len() {
            seeds[case].clone()
        } else {
            let base = rng.pick(&corpus).clone();
            mutate(&mut rng, &base, seeds)
        };
        let r = catch_unwind(AssertUnwindSafe(|| target(&base)));
        if let Err(e) = r {
            std::panic::set_hook(hook);
            let msg = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            let path = std::env::temp_dir().join(format!("grounded-fuzz-{name}-{}-{case}", b.seed));
            let _ = std::fs::write(&path, &base);
            panic!(
                "fuzz target `{name}` panicked (seed {}, case {case}): {msg}\ninput ({} bytes) written to {}: {:?}",
                b.seed,
                base.len(),
                path.display(),
                String::from_utf8_lossy(&base)
            );
        }
        // Keep some mutants as new bases, so mutations compound.
        if case >= seeds.len() && corpus.len() < 512 && rng.below(4) == 0 {
            corpus.push(base);
        }
        case += 1;
    }
    std::panic::set_hook(hook);
    if b.until.is_some() {
        eprintln!("fuzz {name}: {case} cases, seed {}, no crash", b.seed);
    }
}

fn text(b: &[u8]) -> String {
    grounded::textfile::decode(b.to_vec()).text
}

fn demo_files() -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(common::demo_corpus())];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                out.push((name, std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

fn seeds_of(ext: &str) -> Vec<Vec<u8>> {
    demo_files()
        .into_iter()
        .filter(|(n, _)| n.ends_with(ext))
        .map(|(_, b)| b)
        .collect()
}

fn demo_scripts() -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut stack = vec![std::path::PathBuf::from(format!(
        "{}/examples",
        env!("CARGO_MANIFEST_DIR")
    ))];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == "js" || e == "md") {
                out.push(std::fs::read(&p).unwrap());
            }
        }
    }
    out.sort();
    out
}

/// Every input a fuzzer (or a user) once crashed a reader with; each must stay harmless.
const REGRESSIONS: &[(&str, &str)] = &[
    // issue 10: a non-breaking space where the `Syntax:` label would end.
    ("signature", "Syntax\u{a0}: x(a: string): void"),
    ("signature", "Synta\u{a0}x(a: string): void"),
    // A lone `(` as a type underflowed `len() - 2` (fuzz_signatures, seed
    // 1796142292889931878, case 156551).
    ("signature", "Syntax: readonlyStart|( "),
    ("type", "("),
    // Deep nesting recursed until the stack overflowed.
    // Unterminated strings ending in a multi-byte character (`string_literal` cut the
    // last byte blindly; today's grammar makes these ERROR nodes, so they guard the
    // day it does not).
    ("check", "loadJS(\"lib/é"),
    ("check", "loadJS('表"),
    ("check", "layout.tableStart({a: \"😀"),
    ("type", "((((((((((((((((((((((((((((((((((((((((((((((((((A))))))))))))))))))))))))))))))))))))))))))))))))))"),
];

#[test]
fn regressions_stay_harmless() {
    for (target, input) in REGRESSIONS {
        match *target {
            "signature" => {
                let s = signature::strip_label(input);
                let _ = signature::parse(s, "x");
                let _ = signature::parse_type(s);
                for (i, _) in s.char_indices() {
                    let _ = signature::parse_type(&s[i..]);
                }
            }
            "type" if *input == "(" => assert!(signature::parse_type(input).is_err()),
            "type" => {
                let deep = "(".repeat(100_000) + "A" + &")".repeat(100_000);
                assert!(signature::parse_type(&deep).is_err());
                assert!(signature::parse_type("A[]").is_ok());
                assert!(
                    signature::parse_type(input).is_err(),
                    "nested past the limit"
                );
            }
            "check" => {
                let corpus = grounded::docs::bundled::demo().unwrap();
                for path in ["x.js", "x.md"] {
                    let _ = check_text(&corpus, &ProjectIndex::default(), path, input);
                }
            }
            _ => unreachable!(),
        }
    }
}

#[test]
fn fuzz_markdown_chunks() {
    fuzz("markdown", &seeds_of(".md"), 1500, |b| {
        let f = SourceFile {
            path: "f.md".into(),
            text: text(b),
        };
        let chunks = chunks_of(std::slice::from_ref(&f), &mut Vec::new());
        for c in &chunks {
            assert!(c.line >= 1 && c.text_line >= c.line);
        }
    });
}

#[test]
fn fuzz_jsonl_chunks() {
    fuzz("jsonl", &seeds_of(".jsonl"), 1500, |b| {
        let f = SourceFile {
            path: "f.jsonl".into(),
            text: text(b),
        };
        let _ = chunks_of(&[f], &mut Vec::new());
    });
}

#[test]
fn fuzz_signatures() {
    // Every signature line of the demo corpus is a seed.
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for (_, b) in demo_files() {
        for l in String::from_utf8_lossy(&b).lines() {
            if l.contains('(') || l.contains(": ") {
                seeds.push(l.as_bytes().to_vec());
            }
        }
    }
    fuzz("signature", &seeds, 20_000, |b| {
        let line = text(b);
        let s = signature::strip_label(&line);
        let name: String = s
            .trim_start_matches("readonly ")
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '$')
            .collect();
        if signature::is_signature_of(s, &name) {
            if let Ok(sig) = signature::parse(s, &name) {
                // What parsed prints: the display of a type never panics either.
                let _ = sig.ty.to_string();
            }
        }
        let _ = signature::parse_type(s);
    });
}

#[test]
fn fuzz_facts_toml() {
    let tables = b"# Table\n## Layout-tableStart\nSyntax: tableStart(t: Table): void\n## Layout-tableEnd\nSyntax: tableEnd(): void\n# Layout\naccessed using the global property \"layout\"\n".to_vec();
    fuzz("facts", &seeds_of("facts.toml"), 800, |b| {
        let t = text(b);
        let _ = Facts::parse(&t);
        let _ = Corpus::from_texts(&[
            ("a.md", &String::from_utf8_lossy(&tables)),
            ("facts.toml", &t),
        ]);
    });
}

#[test]
fn fuzz_corpus_load() {
    let files = demo_files();
    let seeds: Vec<Vec<u8>> = files.iter().map(|(_, b)| b.clone()).collect();
    let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    let n = std::sync::atomic::AtomicUsize::new(0);
    fuzz("corpus", &seeds, 150, |b| {
        let i = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        // One mutated file among the real others, under a real file name.
        let name = &names[i % names.len()];
        let mutated = text(b);
        let mut texts: Vec<(String, String)> = files
            .iter()
            .filter(|(n, _)| n != name)
            .map(|(n, b)| (n.clone(), text(b)))
            .collect();
        texts.push((name.clone(), mutated));
        let refs: Vec<(&str, &str)> = texts
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        if let Ok(c) = Corpus::from_texts(&refs) {
            let c = grounded::docs::Library::from(c);
            if i.is_multiple_of(10) {
                let _ = c.lookup("table", 3);
                let _ = c.resolve_topic("a table of rows", 3);
            }
            let _ = check_text(
                &c,
                &ProjectIndex::default(),
                "x.js",
                "layout.tableStart(new Table());\n",
            );
        }
    });
}

/// The corpus cache is a file in the user's cache folder: anything may be there (a
/// torn write, another build's format, a disk error). Whatever its bytes, a load
/// answers exactly as a fresh load of the corpus, or the cache could serve other
/// bytes' derivation.
#[test]
fn fuzz_corpus_cache() {
    let corpus_dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/demo");
    let cache = tempfile::tempdir().unwrap();
    let fresh = Corpus::load(&corpus_dir).unwrap();
    let shape = |c: &Corpus| {
        (
            c.chunks.len(),
            c.interfaces.len(),
            c.globals.len(),
            (0..c.chunks.len().min(5))
                .map(|i| c.chunk(i).text.clone())
                .collect::<Vec<_>>(),
        )
    };
    let want = shape(&fresh);
    Corpus::load_cached_in(&corpus_dir, Some(cache.path())).unwrap();
    let file = std::fs::read_dir(cache.path())
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .find(|p| p.is_file())
        .expect("the first load writes the cache file");
    let valid = std::fs::read(&file).unwrap();
    fuzz("cache", &[valid], 60, |b| {
        std::fs::write(&file, b).unwrap();
        let c = Corpus::load_cached_in(&corpus_dir, Some(cache.path()))
            .expect("a broken cache is rebuilt, never an error");
        assert_eq!(
            shape(&c),
            want,
            "a cache file of {} bytes changed the corpus",
            b.len()
        );
    });
}

#[test]
fn fuzz_check() {
    let corpus = Corpus::load(std::path::Path::new(&common::demo_corpus())).unwrap();
    let project = ProjectIndex::default();
    let n = std::sync::atomic::AtomicUsize::new(0);
    fuzz("check", &demo_scripts(), 400, |b| {
        let i = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let t = text(b);
        let path = if i.is_multiple_of(3) { "x.md" } else { "x.js" };
        for f in check_text(&corpus, &project, path, &t) {
            assert!(f.span.start <= f.span.end && f.span.end <= t.len(), "{f:?}");
        }
    });
}

#[test]
fn fuzz_script_text() {
    let dirs = vec!["#include".to_string(), "#target".to_string()];
    let mut seeds = demo_scripts();
    seeds.push(b"# Guide\n```js\n#include \"lib/x.jsx\"\nvar a = 1;\n```\ntext\n~~~javascript\nb();\n~~~\n".to_vec());
    let n = std::sync::atomic::AtomicUsize::new(0);
    fuzz("script_text", &seeds, 4000, |b| {
        let i = n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let t = text(b);
        let path = if i.is_multiple_of(2) { "x.md" } else { "x.jsx" };
        let s = grounded::js::script_text(path, &t, &dirs);
        // The promise that keeps every offset: same length, line ends where they were.
        assert_eq!(s.len(), t.len());
        for (a, b) in s.bytes().zip(t.bytes()) {
            assert_eq!(a == b'\n', b == b'\n');
        }
        for d in grounded::js::directives(path, &t, &dirs) {
            if let Some((a, b)) = d.argument_span {
                assert!(a <= b && b <= t.len() && t.is_char_boundary(a) && t.is_char_boundary(b));
            }
        }
    });
}

/// Arbitrary bytes on the real server's stdin, then valid requests: one of them is
/// answered, or the server exits with status 1. Never alive and deaf. (The garbage may
/// declare a length that swallows the start of the first request: that costs the
/// request, so two follow.)
#[test]
fn fuzz_lsp_transport() {
    use common::Lsp;
    use serde_json::json;
    let seeds: Vec<Vec<u8>> = vec![
        b"Content-Length: 52\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"shutdown\"}"
            .to_vec(),
        b"Content-Lenght: 10\r\n\r\n{\"a\":1}".to_vec(),
        b"Content-Length: 99999999999\r\n\r\n".to_vec(),
        b"Content-Length: 400000000\r\n\r\n{".to_vec(),
        b"Content-Type: x\r\nContent-Length: 3\r\n\r\n{}}".to_vec(),
        b"\r\n\r\n{\"jsonrpc\":\"2.0\"}\n".to_vec(),
    ];
    // Each case starts a server: a dozen under `cargo test`.
    let b = budget(12);
    let mut rng = Rng::new(b.seed);
    let mut case = 0;
    while case < b.cases && b.until.is_none_or(|t| Instant::now() < t) {
        let base = rng.pick(&seeds).clone();
        let garbage = if case < seeds.len() {
            base
        } else {
            mutate(&mut rng, &base, &seeds)
        };
        let mut lsp = Lsp::start(&["--docs", &common::demo_corpus()], &[]);
        lsp.send_unframed(&garbage);
        let ids = [
            lsp.send_request("grounded/noSuchMethod", json!({})),
            lsp.send_request("grounded/noSuchMethod", json!({})),
        ];
        match lsp.try_wait_for(|m| ids.iter().any(|id| m["id"] == json!(id))) {
            Some(_) => assert!(lsp.alive()),
            None => assert_eq!(
                lsp.wait_exit(),
                Some(1),
                "alive and deaf after {:?} (seed {}, case {case})",
                String::from_utf8_lossy(&garbage),
                b.seed
            ),
        }
        case += 1;
    }
    if b.until.is_some() {
        eprintln!("fuzz lsp_transport: {case} cases, seed {}, no hang", b.seed);
    }
}

/// Arbitrary bytes on the real MCP server's stdin (`grounded mcp`) after `initialize`,
/// then a valid request: it is answered, every line of stdout stays JSON (the client
/// fails on any other), and the server is alive. Mutations of JSON-RPC lines, tool calls
/// with strange arguments, and raw bytes.
#[test]
fn fuzz_mcp_transport() {
    use common::mcp::Mcp;
    use serde_json::json;
    let seeds: Vec<Vec<u8>> = vec![
        br#"{"jsonrpc":"2.0","id":70,"method":"tools/call","params":{"name":"check_code","arguments":{"code":"layout.tableCellEnd();","path":"main.js"}}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":71,"method":"tools/call","params":{"name":"lookup_docs","arguments":{"query":"tableStart","limit":3}}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":72,"method":"tools/call","params":{"name":"get_doc","arguments":{"name":"Layout"}}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":73,"method":"tools/call","params":{"name":"check_code","arguments":{"code":"x","path":"../../etc/passwd"}}}"#.to_vec(),
        br#"{"jsonrpc":"2.0","id":74,"method":"tools/list"}"#.to_vec(),
        br#"{"jsonrpc":"2.0","method":"notifications/roots/list_changed"}"#.to_vec(),
        b"\xff\xfe{[\n\n".to_vec(),
    ];
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("grounded.toml"),
        format!("docs = {:?}\n", common::demo_corpus()),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("main.js"),
        "layout.tableStart(new Table());\nlayout.tableEnd();\n",
    )
    .unwrap();
    // Each case starts a server: a dozen under `cargo test`.
    let b = budget(12);
    let mut rng = Rng::new(b.seed);
    let mut case = 0;
    while case < b.cases && b.until.is_none_or(|t| Instant::now() < t) {
        let mut m = Mcp::start(dir.path(), &[]);
        m.initialize();
        let mut garbage = Vec::new();
        for _ in 0..1 + rng.below(4) {
            let base = rng.pick(&seeds).clone();
            let line = if case < seeds.len() && garbage.is_empty() {
                seeds[case].clone()
            } else {
                mutate(&mut rng, &base, &seeds)
            };
            garbage.extend(line.iter().filter(|&&b| b != b'\n'));
            garbage.push(b'\n');
        }
        m.send_bytes(&garbage);
        let id = m.request("tools/list", json!({}));
        let answered = m.response(id, common::WAIT);
        assert!(
            answered.is_some_and(|r| r["result"]["tools"].is_array()) && m.alive(),
            "no answer after {:?} (seed {}, case {case})",
            String::from_utf8_lossy(&garbage),
            b.seed
        );
        // The check of another text as main.js wrote nothing.
        assert_eq!(
            std::fs::read_to_string(dir.path().join("main.js")).unwrap(),
            "layout.tableStart(new Table());\nlayout.tableEnd();\n"
        );
        case += 1;
    }
    if b.until.is_some() {
        eprintln!("fuzz mcp_transport: {case} cases, seed {}, no hang", b.seed);
    }
}

/// The same property in process, many more cases: the guard reads any bytes to their end
/// (no loop without progress), and after garbage a valid request still gets through.
#[test]
fn fuzz_transport_in_process() {
    use grounded::lsp::transport::{guard_input, Ending};
    use tokio::io::AsyncReadExt;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let request = |id: u32| {
        let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"x"}}"#);
        format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
    };
    let seeds: Vec<Vec<u8>> = vec![
        request(1),
        b"Content-Lenght: 10\r\n\r\n{\"a\":1}".to_vec(),
        b"Content-Length: 99999999999\r\n\r\n".to_vec(),
        b"Content-Length: 400000000\r\n\r\n{".to_vec(),
        b"Content-Type: x\r\nContent-Length: 3\r\n\r\n{}}".to_vec(),
        b"content-length:5\n\n{\"\\ud800\":1}".to_vec(),
    ];
    fuzz("transport", &seeds, 3000, |garbage| {
        let mut input = garbage.to_vec();
        input.extend_from_slice(&request(77));
        input.extend_from_slice(&request(78));
        let passed = rt.block_on(async {
            let (w, mut r) = tokio::io::duplex(1 << 20);
            let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
            let ending = std::sync::Arc::new(Ending::default());
            let guard = guard_input(&input[..], w, tx, ending);
            tokio::time::timeout(Duration::from_secs(20), guard)
                .await
                .expect("the guard returns at the end of its input");
            let mut out = Vec::new();
            r.read_to_end(&mut out).await.unwrap();
            out
        });
        let passed = String::from_utf8_lossy(&passed);
        assert!(
            passed.contains(r#""id":77"#) || passed.contains(r#""id":78"#),
            "no request got through: {passed:?}"
        );
    });
}

/// Declaration files of every shape the importer reads: the seeds of its fuzz loop.
const DTS_SEEDS: &[&str] = &[
    "/// <reference path=\"b.d.ts\" />\n/** Doc.\n * @param x the x\n * @returns y\n * @deprecated\n */\ndeclare class A extends B implements C {\n  constructor(x?: number, ...rest: string[]);\n  static s(): void;\n  readonly p: string | null;\n  get g(): number;\n  set g(v: number);\n  m(x: \"a\" | 1, y: Array<A>, z: [number, string], f: (a: number) => void): this;\n  [key: string]: any;\n  private q;\n}\n",
    "interface I<T> extends J<T>, K {\n  new (a: string): I<T>;\n  (b: number): void;\n  readonly q?: T;\n  r(this: X, a: typeof Foo, {b}: Z): x is Foo;\n  [i: number]: I<T>;\n}\ndeclare var x: I<string>, y: number;\ndeclare const z: typeof A;\n",
    "declare enum En { A = 1, B = \"b\", C }\ndeclare function f(a: number): void;\ndeclare function f(a: string): void;\ndeclare namespace NS.Inner { interface R { a: number } type Al = string | number; function g(): Al; const v: R; enum E { X } }\ntype T2 = { a: number; b(): void };\ntype Loop = Loop2; type Loop2 = Loop;\ninterface U { l: Loop; e: NS.Inner.E }\ndeclare global { interface W { w: W } }\ndeclare module \"m\" { }\nexport {};\n",
    "import { R } from \"./b\";\nimport * as ns from \"m/x\";\nimport d, { e as f } from \"m\";\nexport function g(a: R): Promise<\"A\" | 1>;\nexport const K = \"k\", N = -1;\nexport const C: { new (s: string): R[]; };\nexport class D { constructor(); }\nexport namespace Q { const q: number; }\nexport * from \"./b\";\nexport * as default from \"m\";\nexport { g as h, ns };\nexport { z as y } from \"m\";\nexport default g;\nexport = D;\nexport as namespace UMD;\ndeclare module \"m\" { function m(cb: (x: R) => void): { a: string }; }\ndeclare module \"*.css\";\n",
    "declare class Window { static alert(s: string): void; constructor(t: string); }\ninterface Engine { x: number }\ninterface Global { y: number }\ninterface Array<T> { push(x: T): number }\ndeclare const Object: ObjectConstructor;\ninterface ObjectConstructor { keys(o: any): string[] }\n",
];

#[test]
fn fuzz_import_dts() {
    let seeds: Vec<Vec<u8>> = DTS_SEEDS.iter().map(|s| s.as_bytes().to_vec()).collect();
    let settings = grounded::import::Settings::default();
    fuzz("import_dts", &seeds, 300, |b| {
        let t = text(b);
        // Two files, the mutated one and a fixed one: collisions across files too.
        let files = [("a.d.ts", t.as_str()), ("shared/b.d.ts", DTS_SEEDS[3])];
        match grounded::import::jsonl_of_texts(&files, &settings) {
            Ok(jsonl) => {
                // What the importer writes, the loader reads: every line one chunk.
                let c = Corpus::from_texts(&[("corpus.jsonl", &jsonl)]).expect("a corpus");
                assert_eq!(c.chunks.len(), jsonl.lines().count());
            }
            Err(e) => assert!(!e.to_string().is_empty()),
        }
    });
}

//! The agent's own cost, with a zero-latency scripted model (in process): per step
//! (dispatch, pre-write check, transcript) on a copy of the demo project, and a
//! 20-step turn end to end, the dry run left out of the measurements. Target: at most
//! 5 ms per step, so that all the time a user waits is the model's.
//!
//! Run: `cargo bench --bench agent`

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};
use grounded::agent::edits::Edits;
use grounded::agent::tools::Silent;
use grounded::agent::{
    run_turn, AgentConfig, ChatModel, Dispatcher, FsWorkspace, Registry, Reply, Status, ToolCall,
    ToolCtx, Transcript, Turn, TurnRequest,
};
use grounded::docs::{Corpus, Library};
use serde_json::{json, Value};

/// Answers from a list, instantly.
struct Scripted {
    replies: Vec<Reply>,
    next: AtomicUsize,
}

impl ChatModel for Scripted {
    fn chat(&self, _m: &[Value], _t: &[Value]) -> Result<Reply, String> {
        let i = self.next.fetch_add(1, Ordering::SeqCst);
        Ok(self.replies.get(i).cloned().unwrap_or(Reply {
            content: "done".into(),
            ..Reply::default()
        }))
    }
}

fn call(id: usize, name: &str, args: Value) -> Reply {
    Reply {
        content: String::new(),
        tool_calls: vec![ToolCall {
            id: format!("c{id}"),
            name: name.into(),
            arguments: args.to_string(),
        }],
        from_text: false,
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).unwrap();
        }
    }
}

/// `steps` model steps: a read of main.js, then edits that swap one string back and
/// forth (each through the pre-write check), with a docs lookup every fifth step.
/// `steps` of 3 and 20 make an even number of edits: the turn ends on the bytes it began with.
fn script(steps: usize) -> Vec<Reply> {
    let mut v = vec![call(0, "read_file", json!({"path": "main.js"}))];
    let a = "Monthly order report";
    let b = "Monthly orders report";
    for i in 1..steps {
        v.push(if i % 5 == 0 {
            call(i, "lookup_docs", json!({"term": "tableStart"}))
        } else {
            let (f, r) = if v
                .iter()
                .filter(|x| x.tool_calls[0].name == "edit_file")
                .count()
                % 2
                == 0
            {
                (a, b)
            } else {
                (b, a)
            };
            call(
                i,
                "edit_file",
                json!({"path": "main.js", "edits": [{"find": f, "replace": r}]}),
            )
        });
    }
    v.push(Reply {
        content: "Renamed the report title.".into(),
        ..Reply::default()
    });
    v
}

fn turn(corpus: &Library, root: &Path, steps: usize, transcript: &Path) -> Status {
    let model = Scripted {
        replies: script(steps),
        next: AtomicUsize::new(0),
    };
    let config = AgentConfig {
        dry_run: false,
        max_steps: steps + 2,
        ..AgentConfig::default()
    };
    let t = Transcript::to_file(transcript).unwrap();
    let out = run_turn(
        Turn {
            corpus,
            root: root.to_path_buf(),
            exclude: Vec::new(),
            entry: None,
            workspace: &FsWorkspace,
            model: &model,
            config: &config,
            transcript: &t,
            progress: &Silent,
            cancel: Arc::new(AtomicBool::new(false)),
            registry: Registry::standard(),
            guards: Vec::new(),
            gates: Vec::new(),
        },
        &TurnRequest {
            text: "rename the report title".into(),
            context: None,
            about: Vec::new(),
        },
    );
    out.status
}

fn bench(c: &mut Criterion) {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let corpus = Library::from(Corpus::load(&manifest.join("corpus/demo")).unwrap());
    let _ = corpus.lookup("warm", 1);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_dir(&manifest.join("examples/demo"), &root);
    std::fs::write(root.join("grounded.toml"), "entry = \"main.js\"\n").unwrap();
    let transcript = dir.path().join("t.jsonl");
    let original = std::fs::read(root.join("main.js")).unwrap();

    let mut g = c.benchmark_group("agent");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(5));
    // Even step counts end on the original bytes (the last edit swaps back), so every
    // iteration starts from the same project.
    g.bench_function("turn_3_steps", |bch| {
        bch.iter(|| {
            let s = turn(&corpus, &root, 3, &transcript);
            assert!(matches!(s, Status::Done | Status::Unchanged));
        })
    });
    g.bench_function("turn_20_steps", |bch| {
        bch.iter(|| {
            let s = turn(&corpus, &root, 20, &transcript);
            assert!(matches!(s, Status::Done | Status::Unchanged));
        })
    });
    // One step's own cost without the model: the dispatch of one edit (read-before-edit
    // check, find/replace, pre-write check, write, transcript line), swapping back and
    // forth; and one docs lookup.
    let canon = std::fs::canonicalize(&root).unwrap();
    let edits = Edits::default();
    let config = AgentConfig {
        dry_run: false,
        ..AgentConfig::default()
    };
    let t = Transcript::to_file(&transcript).unwrap();
    let ctx = ToolCtx {
        corpus: &corpus,
        root: &canon,
        exclude: Vec::new(),
        entry: None,
        workspace: &FsWorkspace,
        edits: &edits,
        model: None,
        progress: &Silent,
        config: &config,
        transcript: &t,
        cancel: Default::default(),
    };
    let reg = Registry::standard();
    let mut d = Dispatcher::new(&reg);
    let one = |name: &str, args: Value| {
        [ToolCall {
            id: "x".into(),
            name: name.into(),
            arguments: args.to_string(),
        }]
    };
    let read = one("read_file", json!({"path": "main.js"}));
    let there = one(
        "edit_file",
        json!({"path": "main.js", "edits": [{"find": "Monthly order report", "replace": "Monthly orders report"}]}),
    );
    let back = one(
        "edit_file",
        json!({"path": "main.js", "edits": [{"find": "Monthly orders report", "replace": "Monthly order report"}]}),
    );
    d.run_batch(&read, &ctx);
    // The turn's first write measures the project once; leave it out of the step.
    d.run_batch(&there, &ctx);
    d.run_batch(&back, &ctx);
    g.bench_function("step_edit_x2", |bch| {
        bch.iter(|| {
            let a = d.run_batch(&there, &ctx);
            let b = d.run_batch(&back, &ctx);
            assert!(a[0].content.contains("written") && b[0].content.contains("written"));
        })
    });
    let look = one("lookup_docs", json!({"term": "tableStart"}));
    g.bench_function("step_lookup", |bch| {
        bch.iter(|| {
            let r = d.run_batch(&look, &ctx);
            assert!(r[0].content.contains("tableStart"));
        })
    });
    g.finish();
    std::fs::write(root.join("main.js"), original).unwrap();
}

criterion_group!(benches, bench);
criterion_main!(benches);

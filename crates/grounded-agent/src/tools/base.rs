//! The base tools: generic file work, every path confined to the project root.

use serde_json::{json, Value};

use super::{arg_str, arg_usize, cap, Registry, Tool, ToolCtx, ToolOutput};
use crate::edits::{confine, numbered, replace_once};
use crate::wording as w;
use grounded_footprint::{delete_lines_in_text, parse_delete_marks, FileStamp};

/// Registers the base tools.
pub fn register(r: &mut Registry) {
    r.register(Box::new(ListFiles));
    r.register(Box::new(ReadFile));
    r.register(Box::new(FindPlain));
    r.register(Box::new(WriteFile));
    r.register(Box::new(EditFile));
    r.register(Box::new(DeleteLines));
}

fn path_arg(args: &Value, ctx: &ToolCtx) -> Result<(std::path::PathBuf, String), ToolOutput> {
    let p = arg_str(args, "path").ok_or_else(|| ToolOutput::refused("missing `path`"))?;
    confine(ctx.root, p).map_err(|e| ToolOutput::refused(format!("refused: {e}")))
}

/// Walks the project (gitignore respected, hidden skipped), relative paths sorted.
pub fn project_files(ctx: &ToolCtx, under: &std::path::Path) -> Vec<String> {
    let mut out: Vec<String> = ignore::WalkBuilder::new(under)
        .require_git(false)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .filter(|e| !ctx.exclude.iter().any(|x| e.path().starts_with(x)))
        .filter_map(|e| {
            e.path()
                .strip_prefix(ctx.root)
                .ok()
                .map(|r| r.to_string_lossy().replace('\\', "/"))
        })
        .collect();
    out.sort();
    out
}

struct ListFiles;

impl Tool for ListFiles {
    fn name(&self) -> &'static str {
        "list_files"
    }
    fn description(&self) -> &'static str {
        w::D_LIST_FILES
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "path": {"type": "string", "description": "a folder (default: the root)"}}})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let under = match arg_str(args, "path").filter(|p| !p.trim().is_empty() && p.trim() != ".")
        {
            Some(p) => match confine(ctx.root, p) {
                Ok((abs, _)) => abs,
                Err(e) => return ToolOutput::refused(format!("refused: {e}")),
            },
            None => ctx.root.to_path_buf(),
        };
        let files = project_files(ctx, &under);
        if files.is_empty() {
            return ToolOutput::ok("no files");
        }
        ToolOutput::ok(cap(files.join("\n"), ctx.config.max_result_chars))
    }
}

struct ReadFile;

impl Tool for ReadFile {
    fn name(&self) -> &'static str {
        "read_file"
    }
    fn description(&self) -> &'static str {
        w::D_READ_FILE
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "path": {"type": "string"},
            "start_line": {"type": "integer"},
            "end_line": {"type": "integer"}}, "required": ["path"]})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let (abs, rel) = match path_arg(args, ctx) {
            Ok(p) => p,
            Err(o) => return o,
        };
        ctx.progress.say(&format!("reading {rel}"));
        let bytes = match ctx.workspace.read(&abs) {
            Ok(b) => b,
            Err(e) => return ToolOutput::refused(format!("{rel}: {e}")),
        };
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return ToolOutput::refused(format!("{rel} is not UTF-8 text"));
        };
        ctx.edits.mark_read(&rel, &bytes);
        let total = text.lines().count();
        let start = arg_usize(args, "start_line").unwrap_or(1).max(1);
        let end = arg_usize(args, "end_line").unwrap_or(total).min(total);
        let body = numbered(text, start, end);
        ToolOutput::ok(cap(
            format!("{rel} ({total} lines, {} bytes)\n{body}", bytes.len()),
            ctx.config.max_result_chars,
        ))
    }
}

struct FindPlain;

impl Tool for FindPlain {
    fn name(&self) -> &'static str {
        "find_in_files"
    }
    fn description(&self) -> &'static str {
        w::D_FIND_PLAIN
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"pattern": {"type": "string"}}, "required": ["pattern"]})
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let Some(pat) = arg_str(args, "pattern").filter(|p| !p.is_empty()) else {
            return ToolOutput::refused("missing `pattern`");
        };
        let mut out = String::new();
        for rel in project_files(ctx, ctx.root) {
            let Ok(bytes) = ctx.workspace.read(&ctx.root.join(&rel)) else {
                continue;
            };
            let Ok(text) = std::str::from_utf8(&bytes) else {
                continue;
            };
            for (i, line) in text.lines().enumerate() {
                if line.contains(pat) {
                    out.push_str(&format!("{rel}:{}: {line}\n", i + 1));
                }
            }
        }
        if out.is_empty() {
            out = format!("no line contains `{pat}`");
        }
        ToolOutput::ok(cap(out, ctx.config.max_result_chars))
    }
}

/// The current bytes of a file the model must have read, unchanged since: `Ok(None)`
/// for a file that does not exist.
fn read_checked(
    ctx: &ToolCtx,
    abs: &std::path::Path,
    rel: &str,
) -> Result<Option<Vec<u8>>, String> {
    let bytes = match ctx.workspace.read(abs) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("{rel}: {e}")),
    };
    match ctx.edits.read_stamp(rel) {
        None => Err(format!(
            "{rel} was not read in this turn; read it with read_file first and copy the text to change from it"
        )),
        Some(s) if s != FileStamp::of_bytes(&bytes) => Err(format!(
            "{rel} changed since it was read in this turn; read it again"
        )),
        Some(_) => Ok(Some(bytes)),
    }
}

struct WriteFile;

impl Tool for WriteFile {
    fn name(&self) -> &'static str {
        "write_file"
    }
    fn description(&self) -> &'static str {
        w::D_WRITE_FILE
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"]})
    }
    fn writes(&self) -> bool {
        true
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let (abs, rel) = match path_arg(args, ctx) {
            Ok(p) => p,
            Err(o) => return o,
        };
        let Some(content) = arg_str(args, "content") else {
            return ToolOutput::refused(ctx.edits.refuse(ctx, &rel, 0, "missing `content`"));
        };
        let old = match read_checked(ctx, &abs, &rel) {
            Ok(o) => o,
            Err(e) => return ToolOutput::refused(ctx.edits.refuse(ctx, &rel, 0, &e)),
        };
        let old_text = old.as_deref().map(String::from_utf8_lossy);
        if let Err(e) = ctx.edits.removal_check(old_text.as_deref(), content) {
            let n = old.as_ref().map_or(0, Vec::len);
            return ToolOutput::refused(ctx.edits.refuse(ctx, &rel, n, &e));
        }
        if let Err(e) = ctx.edits.pre_write(ctx, &rel, old_text.as_deref(), content) {
            let n = old.as_ref().map_or(0, Vec::len);
            return ToolOutput::refused(ctx.edits.refuse(ctx, &rel, n, &e));
        }
        let label = if old.is_some() {
            format!("grounded agent: rewrite {rel}")
        } else {
            format!("grounded agent: create {rel}")
        };
        match ctx
            .edits
            .land(ctx, &rel, &abs, old.as_deref(), content.as_bytes(), &label)
        {
            Ok(s) => ToolOutput::ok(s),
            Err(e) => ToolOutput::refused(e),
        }
    }
}

struct EditFile;

/// The find/replace pairs of an `edit_file` call: `edits: [{find, replace}]`, or one
/// pair given at the top level.
fn pairs(args: &Value) -> Result<Vec<(String, String)>, String> {
    let one = |v: &Value| -> Result<(String, String), String> {
        let f = arg_str(v, "find").ok_or("each edit needs `find`")?;
        let r = arg_str(v, "replace").ok_or("each edit needs `replace`")?;
        Ok((f.to_string(), r.to_string()))
    };
    match args.get("edits") {
        Some(Value::Array(a)) if !a.is_empty() => a.iter().map(one).collect(),
        Some(Value::String(s)) => {
            let v: Value = serde_json::from_str(s).map_err(|_| "`edits` is not a list")?;
            pairs(&json!({ "edits": v }))
        }
        _ => one(args).map(|p| vec![p]),
    }
}

impl Tool for EditFile {
    fn name(&self) -> &'static str {
        "edit_file"
    }
    fn description(&self) -> &'static str {
        w::D_EDIT_FILE
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "path": {"type": "string"},
            "edits": {"type": "array", "items": {"type": "object", "properties": {
                "find": {"type": "string", "description": "exact text copied from the file"},
                "replace": {"type": "string"}}, "required": ["find", "replace"]}}},
            "required": ["path", "edits"]})
    }
    fn writes(&self) -> bool {
        true
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let (abs, rel) = match path_arg(args, ctx) {
            Ok(p) => p,
            Err(o) => return o,
        };
        let refuse = |n: usize, why: &str| ToolOutput::refused(ctx.edits.refuse(ctx, &rel, n, why));
        let pairs = match pairs(args) {
            Ok(p) => p,
            Err(e) => return refuse(0, &e),
        };
        let old = match read_checked(ctx, &abs, &rel) {
            Ok(Some(o)) => o,
            Ok(None) => {
                return refuse(
                    0,
                    &format!("{rel} does not exist; create it with write_file"),
                )
            }
            Err(e) => return refuse(0, &e),
        };
        let Ok(old_text) = String::from_utf8(old.clone()) else {
            return refuse(old.len(), &format!("{rel} is not UTF-8 text"));
        };
        let mut text = old_text.clone();
        for (i, (find, replace)) in pairs.iter().enumerate() {
            match replace_once(&text, find, replace) {
                Ok(t) => text = t,
                Err(e) => {
                    let which = if pairs.len() > 1 {
                        format!("edit {} of {}: ", i + 1, pairs.len())
                    } else {
                        String::new()
                    };
                    return refuse(old.len(), &format!("{which}{e}"));
                }
            }
        }
        if text == old_text {
            return refuse(old.len(), "the edits change nothing");
        }
        if let Err(e) = ctx.edits.removal_check(Some(&old_text), &text) {
            return refuse(old.len(), &e);
        }
        if let Err(e) = ctx.edits.pre_write(ctx, &rel, Some(&old_text), &text) {
            return refuse(old.len(), &e);
        }
        let label = format!("grounded agent: edit {rel}");
        match ctx
            .edits
            .land(ctx, &rel, &abs, Some(&old), text.as_bytes(), &label)
        {
            Ok(s) => ToolOutput::ok(s),
            Err(e) => ToolOutput::refused(e),
        }
    }
}

struct DeleteLines;

impl Tool for DeleteLines {
    fn name(&self) -> &'static str {
        "delete_lines"
    }
    fn description(&self) -> &'static str {
        w::D_DELETE_LINES
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {
            "path": {"type": "string"},
            "marks": {"type": "string", "description": "`12: DELETE` or `14-18: DELETE`, one a line"},
            "lines": {"type": "array", "items": {"type": "integer"}}},
            "required": ["path"]})
    }
    fn writes(&self) -> bool {
        true
    }
    fn run(&self, args: &Value, ctx: &ToolCtx) -> ToolOutput {
        let (abs, rel) = match path_arg(args, ctx) {
            Ok(p) => p,
            Err(o) => return o,
        };
        let refuse = |n: usize, why: &str| ToolOutput::refused(ctx.edits.refuse(ctx, &rel, n, why));
        let old = match read_checked(ctx, &abs, &rel) {
            Ok(Some(o)) => o,
            Ok(None) => return refuse(0, &format!("{rel} does not exist")),
            Err(e) => return refuse(0, &e),
        };
        let mut marks: Vec<usize> = match args.get("lines") {
            Some(Value::Array(a)) => a
                .iter()
                .filter_map(|v| v.as_u64().map(|n| n as usize))
                .collect(),
            _ => Vec::new(),
        };
        if let Some(m) = arg_str(args, "marks") {
            match parse_delete_marks(m) {
                Ok(v) => marks.extend(v),
                Err(e) => return refuse(old.len(), &e),
            }
        }
        let Ok(text) = std::str::from_utf8(&old) else {
            return refuse(old.len(), &format!("{rel} is not UTF-8 text"));
        };
        let stamp = FileStamp::of_bytes(&old);
        let outcome = match delete_lines_in_text(text, &marks, &stamp) {
            Ok(o) => o,
            Err(e) => return refuse(old.len(), &e.to_string()),
        };
        if let Err(e) = ctx.edits.pre_write(ctx, &rel, Some(text), &outcome.text) {
            return refuse(old.len(), &e);
        }
        let label = format!(
            "grounded agent: delete {} line{} of {rel}",
            outcome.removed.len(),
            if outcome.removed.len() == 1 { "" } else { "s" }
        );
        match ctx
            .edits
            .land(ctx, &rel, &abs, Some(&old), outcome.text.as_bytes(), &label)
        {
            Ok(s) => {
                let removed: Vec<String> = outcome
                    .removed
                    .iter()
                    .map(|(n, l)| format!("{n:>4}| {l}"))
                    .collect();
                ToolOutput::ok(format!("{s}\nremoved:\n{}", removed.join("\n")))
            }
            Err(e) => ToolOutput::refused(e),
        }
    }
}

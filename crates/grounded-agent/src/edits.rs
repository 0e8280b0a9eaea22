//! Edits grounded in the file: where writes land ([`Workspace`]), path confinement,
//! read-before-edit, exact find/replace pairs, delete-scan, the pre-write refusal, and
//! the snapshots that let a regression be undone byte for byte.
//!
//! Each rule answers a failure: a builder that proposed whole-file rewrites from file
//! *names* never landed a usable edit (so: read before edit, exact pairs copied from
//! the file); a "removal" that rewrote a region grew the file from 1,527 to 1,653 bytes
//! (so: pure removals drop marked lines and the file can only shrink); invented calls
//! written to disk were explained instead of removed once there (so: content that adds
//! checker findings is refused before it becomes a file).
//!
//! The bottom of the agent: the write ledger ([`Edits`], [`WriteCounts`], [`PlanItem`])
//! and the measurement it keeps ([`Measurement`]) live here, below the tools, the gates
//! and `measure`, which all read them; this module imports no other module of the agent
//! (it once took them back from each, and none of them could be read alone). What needs
//! a tool's context (the pre-write refusal, landing, undo) is `landing`, above the tools.

use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;

use grounded_check::{Finding, ProjectIndex, Severity};
use grounded_footprint::FileStamp;

/// Where the agent's reads and writes land: the file system for the CLI, the editor's
/// buffers and `workspace/applyEdit` for the language server.
pub trait Workspace: Sync {
    /// The bytes of `path` (an open buffer wins over the disk).
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>>;
    /// Replaces (or creates) `path` with `bytes`. `label` says what the write is for
    /// (the editor shows it in its undo history). An error means nothing was written.
    fn write(&self, path: &Path, bytes: &[u8], label: &str) -> Result<(), String>;
    /// Removes a file the turn created (undo). An error means it is still there.
    fn remove(&self, path: &Path, label: &str) -> Result<(), String>;
    /// Open buffers that differ from the disk (absolute path → text), for measurements.
    fn overlay(&self) -> HashMap<PathBuf, String> {
        HashMap::new()
    }
}

/// The file system: writes go through a temporary file and a rename, so a failed
/// write leaves the old bytes.
pub struct FsWorkspace;

impl Workspace for FsWorkspace {
    fn read(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn write(&self, path: &Path, bytes: &[u8], _label: &str) -> Result<(), String> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let tmp = path.with_file_name(format!(".{name}.grounded-agent-{}.tmp", std::process::id()));
        let r = std::fs::write(&tmp, bytes).and_then(|_| {
            if let Ok(meta) = std::fs::metadata(path) {
                let _ = std::fs::set_permissions(&tmp, meta.permissions());
            }
            std::fs::rename(&tmp, path)
        });
        if let Err(e) = r {
            let _ = std::fs::remove_file(&tmp);
            return Err(format!("{}: {e}", path.display()));
        }
        Ok(())
    }

    fn remove(&self, path: &Path, _label: &str) -> Result<(), String> {
        std::fs::remove_file(path).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// `path` (as the model wrote it) inside `root` (canonical): the absolute path and the
/// `/`-separated path relative to the root. Refused: `..` anywhere, an absolute path
/// elsewhere, and any path whose existing part resolves (through a link) outside.
pub fn confine(root: &Path, path: &str) -> Result<(PathBuf, String), String> {
    let decoded;
    let path = if path.contains('&') && !root.join(path.trim()).exists() {
        // A server's chat template that HTML-escapes the model's text sent
        // `&#34;main.js&#34;` for `"main.js"`: decoded, and the quotes around dropped.
        decoded = decode_entities(path);
        if decoded.contains('&') && decoded.contains(';') {
            return Err(format!(
                "`{path}` holds an HTML entity this tool cannot decode; send the path as plain text"
            ));
        }
        decoded.trim().trim_matches(['"', '\'', '`'])
    } else {
        path
    };
    let p = Path::new(path.trim());
    if path.trim().is_empty() {
        return Err("an empty path".into());
    }
    if p.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(format!(
            "`{path}`: `..` is not allowed; paths are relative to the project root"
        ));
    }
    let rel_path = if p.is_absolute() {
        match p.strip_prefix(root) {
            Ok(r) => r.to_path_buf(),
            Err(_) => {
                return Err(format!(
                    "`{path}` is outside the project root {}",
                    root.display()
                ))
            }
        }
    } else {
        p.components()
            .filter(|c| matches!(c, Component::Normal(_)))
            .collect()
    };
    let full = root.join(&rel_path);
    // The deepest part of the path that exists decides where it really is: a link
    // inside the root that points out must not carry a write out with it.
    let mut probe = full.clone();
    loop {
        if std::fs::symlink_metadata(&probe).is_ok() {
            match std::fs::canonicalize(&probe) {
                Ok(c) if c.starts_with(root) => break,
                _ => {
                    return Err(format!(
                        "`{path}` leads outside the project root (through a link)"
                    ))
                }
            }
        }
        if !probe.pop() {
            break;
        }
    }
    let rel = rel_path
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/");
    if rel.is_empty() {
        return Err(format!("`{path}` is the project root, not a file"));
    }
    Ok((full, rel))
}

/// `s` with the HTML entities a chat template may put in the model's text decoded
/// (`&#34;`, `&#x27;`, `&quot;`, `&amp;`, `&lt;`, `&gt;`, `&apos;`); anything else is
/// left as it is.
pub fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        let tail = &rest[i..];
        let entity = tail
            .find(';')
            .filter(|&j| j <= 10)
            .map(|j| (&tail[1..j], j + 1));
        let ch = entity.and_then(|(name, _)| match name {
            "quot" => Some('"'),
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "apos" => Some('\''),
            _ => {
                let n = if let Some(h) = name.strip_prefix("#x").or(name.strip_prefix("#X")) {
                    u32::from_str_radix(h, 16).ok()
                } else {
                    name.strip_prefix('#').and_then(|d| d.parse().ok())
                };
                n.and_then(char::from_u32)
            }
        });
        match (ch, entity) {
            (Some(c), Some((_, len))) => {
                out.push(c);
                rest = &tail[len..];
            }
            _ => {
                out.push('&');
                rest = &tail[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Text with 1-based line numbers, `start..=end` (clamped).
pub fn numbered(text: &str, start: usize, end: usize) -> String {
    let mut out = String::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if n < start {
            continue;
        }
        if n > end {
            break;
        }
        out.push_str(&format!("{n:>4}| {line}\n"));
    }
    out
}

/// Applies one exact find/replace pair. The find text must occur exactly once; one
/// lenient fallback takes a unique match of whole lines that differs only in
/// indentation and trailing whitespace. Errors give the reason and the closest region.
pub fn replace_once(text: &str, find: &str, replace: &str) -> Result<String, String> {
    if find.is_empty() {
        return Err("the find text is empty".into());
    }
    let n = text.matches(find).count();
    if n == 1 {
        return Ok(text.replacen(find, replace, 1));
    }
    if n > 1 {
        let lines: Vec<usize> = text
            .match_indices(find)
            .map(|(i, _)| text[..i].matches('\n').count() + 1)
            .collect();
        return Err(format!(
            "the find text occurs {n} times (lines {}); add neighbouring lines so it occurs once",
            lines
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Some(out) = lenient(text, find, replace) {
        return Ok(out);
    }
    Err(format!(
        "the find text does not occur in the file (no match); the closest region is:\n{}",
        closest_region(text, find)
    ))
}

fn trimmed_lines(s: &str) -> Vec<&str> {
    let v: Vec<&str> = s.lines().map(str::trim).collect();
    let start = v.iter().position(|l| !l.is_empty()).unwrap_or(v.len());
    let end = v
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(start, |e| e + 1);
    v[start..end].to_vec()
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    v
}

fn lenient(text: &str, find: &str, replace: &str) -> Option<String> {
    let want = trimmed_lines(find);
    if want.is_empty() {
        return None;
    }
    let lines: Vec<&str> = text.lines().collect();
    let hits: Vec<usize> = (0..lines.len().saturating_sub(want.len() - 1))
        .filter(|&i| {
            want.iter()
                .enumerate()
                .all(|(k, w)| lines[i + k].trim() == *w)
        })
        .collect();
    if hits.len() != 1 {
        return None;
    }
    let first = hits[0];
    let last = first + want.len() - 1;
    let starts = line_starts(text);
    let from = starts[first];
    let to = starts[last] + lines[last].len();
    // The replacement keeps the file's indentation where the model's differs.
    let file_indent: String = lines[first]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    let find_first = find.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let find_indent: String = find_first
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect();
    let trailing_newline = replace.ends_with('\n');
    let mut out_lines = Vec::new();
    for l in replace.lines() {
        if let Some(rest) = l.strip_prefix(find_indent.as_str()) {
            if !l.trim().is_empty() {
                out_lines.push(format!("{file_indent}{rest}"));
                continue;
            }
        }
        out_lines.push(l.to_string());
    }
    let mut rep = out_lines.join("\n");
    if trailing_newline && !replace.trim().is_empty() {
        rep.push('\n');
    }
    let mut out = String::with_capacity(text.len() + rep.len());
    out.push_str(&text[..from]);
    out.push_str(&rep);
    out.push_str(&text[to..]);
    Some(out)
}

/// The lines of `text` most like `find` (same number of lines), numbered.
pub fn closest_region(text: &str, find: &str) -> String {
    let want = trimmed_lines(find).join("\n");
    let n = trimmed_lines(find).len().max(1);
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return "(the file is empty)".into();
    }
    let mut best = (f64::MIN, 0usize);
    for i in 0..lines.len().saturating_sub(n - 1).max(1) {
        let end = (i + n).min(lines.len());
        let window = lines[i..end]
            .iter()
            .map(|l| l.trim())
            .collect::<Vec<_>>()
            .join("\n");
        let s = strsim::normalized_levenshtein(&window, &want);
        if s > best.0 {
            best = (s, i);
        }
    }
    numbered(text, best.1 + 1, (best.1 + n).min(lines.len()))
}

/// The turn's edit state, shared by the tools of one turn.
#[derive(Default)]
pub struct Edits {
    state: Mutex<EditState>,
}

#[derive(Default)]
pub(super) struct EditState {
    /// Relative path → stamp of the version the model last saw (read or wrote).
    pub(super) read: HashMap<String, FileStamp>,
    /// Relative path → bytes before the turn's first write to it (`None`: created).
    pub(super) snapshots: BTreeMap<String, Option<Vec<u8>>>,
    /// The measurement before the turn's first write.
    pub(super) before: Option<Measurement>,
    /// Measurements by the stamp of the project's contents.
    pub(super) measured: HashMap<u64, Measurement>,
    /// The project's declarations, for the pre-write check.
    pub(super) index: Option<ProjectIndex>,
    /// `[check]` as the turn found it, for the pre-write check.
    pub(super) rules: Option<grounded_check::Rules>,
    /// Checker findings by file and content stamp: the old side of a pre-write check is
    /// usually the new side of the previous one.
    pub(super) checked: HashMap<(String, FileStamp), Vec<Finding>>,
    pub(super) attempted: usize,
    pub(super) landed: usize,
    pub(super) refused: usize,
    /// The plan's items and what their workers landed (the checklist gate reads them).
    pub(super) plan: Vec<PlanItem>,
    /// What the request asks, decided once ([`super::intent`]).
    pub(super) intent: super::intent::Intent,
    /// Folders the turn's writes created (relative, outermost first): an undo removes
    /// them once empty. A rollback that removed a created `out/new/deep.js` left
    /// `out/new/` behind, and the tree was not as before.
    pub(super) created_dirs: Vec<String>,
    /// The measured files of the measurement before the first write: the one after
    /// measures them too, whatever a `.gitignore` the turn wrote now hides.
    pub(super) measured_files: Vec<String>,
}

/// One item of a plan and what its worker landed.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanItem {
    /// The item as planned.
    pub title: String,
    /// Files its worker changed (from the file system).
    pub landed: Vec<String>,
    /// Whether the item was answered without a change being asked (a question item), or
    /// its worker said truthfully why it was not done.
    pub answered: bool,
}

/// One measurement of the project.
#[derive(Debug, Clone, Default)]
pub struct Measurement {
    /// Checker findings at error severity per file (relative path → lines
    /// `line:col code: message`).
    pub findings: BTreeMap<String, Vec<String>>,
    /// The same, as comparison keys (family and message), per file.
    pub(super) keys: BTreeMap<String, Vec<String>>,
    /// Dry-run findings, `path:line:col message`.
    pub dry_run: Vec<String>,
    pub(super) dry_keys: Vec<String>,
    /// Whether the validate command passed (`None`: not run).
    pub validate: Option<bool>,
}

/// Counts of the turn's writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteCounts {
    /// Write tools called.
    pub attempted: usize,
    /// Writes that landed.
    pub landed: usize,
    /// Writes refused (by a rule, or by the editor).
    pub refused: usize,
}

impl Edits {
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, EditState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Records that the model saw `text` of `rel`.
    pub fn mark_read(&self, rel: &str, bytes: &[u8]) {
        self.lock()
            .read
            .insert(rel.to_string(), FileStamp::of_bytes(bytes));
    }

    /// The stamp of the version of `rel` the model saw, if it read it this turn.
    pub fn read_stamp(&self, rel: &str) -> Option<FileStamp> {
        self.lock().read.get(rel).copied()
    }

    /// The bytes of each written file before the turn's first write to it (`None`:
    /// the turn created it).
    pub fn snapshots(&self) -> BTreeMap<String, Option<Vec<u8>>> {
        self.lock().snapshots.clone()
    }

    /// Takes over a plan worker's snapshots, so the composing turn's account of what
    /// changed (and its undo) covers the files its workers wrote. A file this turn
    /// already holds keeps its own, older snapshot.
    pub fn adopt(&self, snaps: BTreeMap<String, Option<Vec<u8>>>) {
        let mut s = self.lock();
        for (rel, before) in snaps {
            s.snapshots.entry(rel).or_insert(before);
        }
    }

    /// Sets what the request asks (once, when the turn begins).
    pub fn set_intent(&self, intent: super::intent::Intent) {
        self.lock().intent = intent;
    }

    /// What the request asks.
    pub fn intent(&self) -> super::intent::Intent {
        self.lock().intent.clone()
    }

    /// What the request asks as far as removing goes.
    pub fn scope(&self) -> super::intent::Scope {
        self.lock().intent.scope.clone()
    }

    /// Folders the turn's writes created (relative, outermost first).
    pub fn created_dirs(&self) -> Vec<String> {
        self.lock().created_dirs.clone()
    }

    /// Takes over a plan worker's created folders, as [`Edits::adopt`] its snapshots.
    pub fn adopt_dirs(&self, dirs: Vec<String>) {
        let mut s = self.lock();
        for d in dirs {
            if !s.created_dirs.contains(&d) {
                s.created_dirs.push(d);
            }
        }
    }

    /// In a question, the refusal of any write: a question changes no file, whatever
    /// path writes (a tool the dispatcher let through, a plan's worker).
    pub fn question_check(&self) -> Result<(), String> {
        if self.lock().intent.asks_change() {
            return Ok(());
        }
        Err(super::wording::QUESTION_NO_WRITE.to_string())
    }

    /// In a removal turn, why `new` may not replace `old` (`None`: a new file), as the
    /// refusal the model reads, pointing to `delete_lines`; `Ok` in any other turn, and
    /// for an edit that only drops lines.
    pub fn removal_check(&self, old: Option<&str>, new: &str) -> Result<(), String> {
        if self.lock().intent.scope != super::intent::Scope::Removal {
            return Ok(());
        }
        super::intent::must_shrink(old, new)
            .map_err(|why| super::wording::fill(super::wording::REMOVAL_ONLY, &[("why", &why)]))
    }

    /// The plan's items so far, with what each worker landed.
    pub fn plan(&self) -> Vec<PlanItem> {
        self.lock().plan.clone()
    }

    /// Records one plan item's outcome.
    pub fn add_plan_item(&self, item: PlanItem) {
        self.lock().plan.push(item);
    }

    /// The turn's write counts.
    pub fn counts(&self) -> WriteCounts {
        let s = self.lock();
        WriteCounts {
            attempted: s.attempted,
            landed: s.landed,
            refused: s.refused,
        }
    }

    /// Files the turn wrote (relative paths), whether or not they differ now.
    pub fn written(&self) -> Vec<String> {
        self.lock().snapshots.keys().cloned().collect()
    }

    /// The measurement before the first write, if there was a write.
    pub fn before(&self) -> Option<Measurement> {
        self.lock().before.clone()
    }

    /// A cached measurement for a project stamp, or one made now.
    pub fn measurement(&self, stamp: u64, make: impl FnOnce() -> Measurement) -> Measurement {
        if let Some(m) = self.lock().measured.get(&stamp) {
            return m.clone();
        }
        let m = make();
        self.lock().measured.insert(stamp, m.clone());
        m
    }
}

/// The key a finding is compared by across versions of a file: its family and message,
/// not its position (an edit above it moves it).
pub fn finding_key(f: &Finding) -> String {
    // A `construct` message names the line its End is on ("closed on line 12 only on
    // the path..."): an edit above moves it, so the key drops the number.
    static LINE: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let line = LINE.get_or_init(|| regex::Regex::new(r"\bline \d+").expect("valid"));
    format!(
        "{} {}",
        f.code.as_str(),
        line.replace_all(&f.message, "line _")
    )
}

/// Whether a finding counts when a turn is measured: every error, and a `construct`
/// warning — a construct the turn left open. A removal that deleted only
/// `layout.tableEnd();` of a table added no error, only that warning, and was kept.
pub fn counts_in_measure(f: &Finding) -> bool {
    f.severity == Severity::Error || f.code == grounded_check::Code::Construct
}

/// The findings of `after` that `before` does not have (as a multiset), of those the
/// end measure counts ([`counts_in_measure`]): every error and every `construct`.
///
/// Why the measure's own rule: the pre-write refusal counted errors only, so a write
/// that left a construct open (a Start without its End) landed, and only the verify
/// gate and the end measure caught it, a step late, undoing the whole turn's writes
/// with it.
pub fn added(before: &[Finding], after: &[Finding]) -> Vec<Finding> {
    let mut have: HashMap<String, usize> = HashMap::new();
    for f in before.iter().filter(|f| counts_in_measure(f)) {
        *have.entry(finding_key(f)).or_default() += 1;
    }
    let mut out = Vec::new();
    for f in after.iter().filter(|f| counts_in_measure(f)) {
        match have.get_mut(&finding_key(f)) {
            Some(n) if *n > 0 => *n -= 1,
            _ => out.push(f.clone()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entities_in_a_model_path_are_decoded() {
        assert_eq!(decode_entities("&#34;main.js&#34;"), "\"main.js\"");
        assert_eq!(
            decode_entities("a&amp;b &#x27;c&#39; &unknown; & x"),
            "a&b 'c' &unknown; & x"
        );
        let root = std::env::temp_dir();
        let root = std::fs::canonicalize(root).unwrap();
        assert_eq!(confine(&root, "&#34;main.js&#34;").unwrap().1, "main.js");
        assert!(confine(&root, "&bogus;x.js")
            .unwrap_err()
            .contains("HTML entity"));
    }

    #[test]
    fn exact_once_or_refused() {
        let t = "a();\nb();\na();\n";
        assert!(replace_once(t, "a();", "c();")
            .unwrap_err()
            .contains("2 times"));
        assert_eq!(
            replace_once(t, "b();", "c();").unwrap(),
            "a();\nc();\na();\n"
        );
        let e = replace_once(t, "zzz();", "c();").unwrap_err();
        assert!(e.contains("no match"), "{e}");
    }

    #[test]
    fn lenient_indentation_and_trailing_space() {
        let t = "function f() {\n    x(1);   \n    y(2);\n}\n";
        let out = replace_once(t, "x(1);\ny(2);", "x(1);\nz(3);").unwrap();
        assert_eq!(out, "function f() {\n    x(1);\n    z(3);\n}\n");
    }

    #[test]
    fn confinement() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        assert!(confine(&root, "../x.js").is_err());
        assert!(confine(&root, "a/../../x.js").is_err());
        assert!(confine(&root, "/etc/passwd").is_err());
        let (abs, rel) = confine(&root, "lib/a.js").unwrap();
        assert_eq!(rel, "lib/a.js");
        assert_eq!(abs, root.join("lib/a.js"));
        let inside = root.join("inside.js");
        assert_eq!(
            confine(&root, &inside.to_string_lossy()).unwrap().1,
            "inside.js"
        );
    }
}

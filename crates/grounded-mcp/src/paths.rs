//! What a path argument may name: a place inside the project root and inside one of the
//! client's roots (when it gave any), decided before anything is opened.
//!
//! Why decided on the path and not by trying: an agent's path comes from a model, and
//! a model told "`../../.ssh/id_rsa` not found" has learned what exists. A path is
//! made absolute against the root, `..` is resolved by the text, and the longest
//! existing ancestor is canonicalized (a symbolic link inside the root that points out
//! of it is outside); only then is it compared, and a refusal says nothing of what lies
//! there.
//!
//! Imports nothing of the crate.

use std::path::{Path, PathBuf};

/// A path accepted: absolute (canonical as far as it exists) and relative to the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inside {
    /// Absolute.
    pub abs: PathBuf,
    /// Relative to the project root, `/`-separated (`.` for the root itself).
    pub rel: String,
}

/// `given` (relative to `root`, or absolute) when it lies inside `root` and inside one
/// of `roots` (none given: the root alone decides); else the sentence that refuses it.
pub fn inside(root: &Path, roots: &[PathBuf], given: &str) -> Result<Inside, String> {
    if given.contains('\0') {
        return Err("a path cannot hold a NUL character".into());
    }
    let p = Path::new(given);
    let joined = if p.is_absolute() {
        p.to_path_buf()
    } else {
        root.join(p)
    };
    let Some(lexical) = grounded_project::lexical(&joined) else {
        return Err(outside(given, root));
    };
    let abs = real(&lexical);
    if !abs.starts_with(root) {
        return Err(outside(given, root));
    }
    if !roots.is_empty() && !roots.iter().any(|r| abs.starts_with(r)) {
        let names: Vec<String> = roots.iter().map(|r| r.display().to_string()).collect();
        return Err(format!(
            "`{given}` is outside the client's roots ({}): grounded reads nothing outside them; name a file under one of them",
            names.join(", ")
        ));
    }
    let rel = match abs.strip_prefix(root) {
        Ok(r) if r.as_os_str().is_empty() => ".".to_string(),
        Ok(r) => r.to_string_lossy().replace('\\', "/"),
        Err(_) => return Err(outside(given, root)),
    };
    Ok(Inside { abs, rel })
}

/// The refusal of a path outside the root.
fn outside(given: &str, root: &Path) -> String {
    format!(
        "`{given}` is outside the project root {}: grounded reads only the project's files; name a path under the root (relative to it, like `main.js`)",
        root.display()
    )
}

/// `p` with its longest existing ancestor canonicalized (symbolic links followed), the
/// rest appended as written.
fn real(p: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut cur = p.to_path_buf();
    loop {
        if let Ok(c) = std::fs::canonicalize(&cur) {
            let mut out = c;
            for r in rest.iter().rev() {
                out.push(r);
            }
            return out;
        }
        match (cur.file_name().map(|n| n.to_os_string()), cur.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name);
                cur = parent.to_path_buf();
            }
            _ => return p.to_path_buf(),
        }
    }
}

/// A client root (`file://` URI) as a canonical folder; other schemes name nothing
/// on this machine and are skipped.
pub fn root_of_uri(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///home/x` (empty authority) or `file://localhost/home/x`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let decoded = percent_decode(path)?;
    // `file:///C:/x` on Windows.
    let decoded = match decoded.as_bytes() {
        [b'/', d, b':', ..] if d.is_ascii_alphabetic() && cfg!(windows) => decoded[1..].to_string(),
        _ => decoded,
    };
    let p = PathBuf::from(decoded);
    Some(std::fs::canonicalize(&p).unwrap_or(p))
}

/// `%XX` escapes decoded (UTF-8); `None` for a broken escape.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = s.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_the_root_is_accepted_and_outside_refused() {
        let dir = tempfile_dir();
        let root = std::fs::canonicalize(&dir).unwrap();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        let ok = inside(&root, &[], "lib/../main.js").unwrap();
        assert_eq!(ok.rel, "main.js");
        assert_eq!(inside(&root, &[], ".").unwrap().rel, ".");
        assert!(inside(&root, &[], "../x.js")
            .unwrap_err()
            .contains("outside the project root"));
        assert!(inside(&root, &[], "/etc/passwd")
            .unwrap_err()
            .contains("outside the project root"));
        assert!(inside(&root, &[], "lib/new/deep.js").is_ok());
        let roots = vec![root.join("lib")];
        assert!(inside(&root, &roots, "main.js")
            .unwrap_err()
            .contains("client's roots"));
        assert!(inside(&root, &roots, "lib/a.js").is_ok());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink("/etc", root.join("etc")).unwrap();
            assert!(inside(&root, &[], "etc/passwd").is_err());
        }
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn roots_are_file_uris() {
        assert_eq!(
            root_of_uri("file:///no/such%20dir"),
            Some(PathBuf::from("/no/such dir"))
        );
        assert_eq!(root_of_uri("https://example.com/x"), None);
        assert_eq!(root_of_uri("file:///bad%zz"), None);
    }

    fn tempfile_dir() -> PathBuf {
        let d = std::env::temp_dir().join(format!("grounded-mcp-paths-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }
}

//! A guard in front of the protocol library's stdio: malformed input is answered here and
//! never reaches it.
//!
//! Why: tower-lsp-server 0.23 reads stdin through tokio-util's `FramedRead`, which ends
//! the stream after the first decode error; the library's read loop then stops, and one
//! malformed message (bad JSON, a body that is not a JSON-RPC message, invalid UTF-8, a
//! missing `Content-Length`) silently ends the session. So every frame is read and
//! validated here first. A valid message is passed on unchanged; anything else gets the
//! JSON-RPC error answer (-32700 parse error, -32600 invalid request) written here, and
//! the session goes on.
//!
//! Output goes through the same writer as the library's, one whole frame at a time, so
//! an answer written here never lands inside one of the library's messages.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

/// Messages above this size are refused (and skipped) rather than buffered.
pub const MAX_MESSAGE_BYTES: usize = 512 << 20;

/// One framed message: `Content-Length` header and body.
pub fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_frame(id: Value, code: i64, message: &str) -> Vec<u8> {
    let v = json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}});
    frame(v.to_string().as_bytes())
}

/// What a body is: passed on (repaired, perhaps), or answered here.
enum Verdict {
    Pass { body: Vec<u8>, shutdown: bool },
    Answer(Vec<u8>),
    Drop,
}

fn judge(body: Vec<u8>) -> Verdict {
    let (v, body): (Value, Vec<u8>) = match serde_json::from_slice(&body) {
        Ok(v) => (v, body),
        Err(e) => match repair_surrogates(&body)
            .and_then(|b| serde_json::from_slice(&b).ok().map(|v| (v, b)))
        {
            Some(repaired) => {
                tracing::warn!("a message with lone UTF-16 surrogate escapes, read as U+FFFD");
                repaired
            }
            None => {
                tracing::warn!("malformed JSON-RPC message: {e}");
                return Verdict::Answer(error_frame(Value::Null, -32700, "Parse error"));
            }
        },
    };
    let Some(obj) = v.as_object() else {
        tracing::warn!("a JSON-RPC message that is not an object");
        return Verdict::Answer(error_frame(Value::Null, -32600, "Invalid request"));
    };
    let id = obj.get("id");
    let id_ok = match id {
        None => true,
        Some(i) => i.is_string() || i.is_i64() || i.is_u64() || i.is_null(),
    };
    let version_ok = obj.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let method = obj.get("method").and_then(Value::as_str);
    let is_request = method.is_some();
    let is_response = id.is_some() && (obj.contains_key("result") || obj.contains_key("error"));
    if version_ok && id_ok && (is_request || is_response) {
        // The protocol: a `$/` request the server does not know gets MethodNotFound (the
        // library ignored them, and the client waited for an answer that never came).
        if let (Some(m), Some(id)) = (method, id) {
            if m.starts_with("$/") {
                return Verdict::Answer(error_frame(id.clone(), -32601, "Method not found"));
            }
        }
        return Verdict::Pass {
            shutdown: method == Some("shutdown"),
            body,
        };
    }
    tracing::warn!(
        "invalid JSON-RPC message: {}",
        String::from_utf8_lossy(&body[..body.len().min(200)])
    );
    if is_response && !is_request {
        // A bad answer to one of our requests: nobody to tell.
        return Verdict::Drop;
    }
    let id = match id {
        Some(i) if id_ok => i.clone(),
        _ => Value::Null,
    };
    Verdict::Answer(error_frame(id, -32600, "Invalid request"))
}

/// The body with every lone UTF-16 surrogate escape (`\ud800` without its pair) made
/// `\ufffd`, or `None` when there is none. Editors send them (a buffer cut inside an
/// emoji); serde_json refuses them, and the whole didOpen was lost with its document.
fn repair_surrogates(body: &[u8]) -> Option<Vec<u8>> {
    let hex = |b: &[u8]| -> Option<u16> {
        let s = std::str::from_utf8(b.get(..4)?).ok()?;
        u16::from_str_radix(s, 16).ok()
    };
    let is_u_escape = |i: usize| body.get(i) == Some(&b'\\') && body.get(i + 1) == Some(&b'u');
    let mut out = body.to_vec();
    let mut changed = false;
    let mut i = 0;
    while i < body.len() {
        if body[i] != b'\\' {
            i += 1;
            continue;
        }
        if !is_u_escape(i) {
            i += 2; // `\\`, `\"`: the escaped byte is not the start of an escape
            continue;
        }
        let Some(u) = hex(&body[i + 2..]) else {
            i += 2;
            continue;
        };
        let high = (0xD800..0xDC00).contains(&u);
        let low = (0xDC00..0xE000).contains(&u);
        if high {
            let pair = is_u_escape(i + 6)
                && hex(&body[(i + 8).min(body.len())..])
                    .is_some_and(|l| (0xDC00..0xE000).contains(&l));
            if pair {
                i += 12;
                continue;
            }
        }
        if high || low {
            out[i + 2..i + 6].copy_from_slice(b"fffd");
            changed = true;
        }
        i += 6;
    }
    changed.then_some(out)
}

/// What the guard saw of the session's end, for the exit status: the protocol says a
/// server exits 0 after `shutdown` then `exit`, and 1 when `exit` (or the end of input)
/// comes without `shutdown`, so that a client can tell a crash from a goodbye.
#[derive(Debug, Default)]
pub struct Ending {
    shutdown: std::sync::atomic::AtomicBool,
}

impl Ending {
    /// The exit status the session earned: 0 when the client asked for `shutdown`.
    pub fn status(&self) -> i32 {
        if self.shutdown.load(std::sync::atomic::Ordering::SeqCst) {
            0
        } else {
            1
        }
    }
}

/// A header block this long without its blank line is not a header.
const MAX_HEADER_BYTES: usize = 8 << 10;

/// A `Content-Length` header line, complete with its line end. Raw CR and LF bytes cannot
/// stand inside a JSON string, and `Content-Length` is no JSON token, so these bytes
/// inside a body mean the body's stated length was wrong and the next message has begun.
fn header_re() -> &'static regex::bytes::Regex {
    static C: std::sync::OnceLock<regex::bytes::Regex> = std::sync::OnceLock::new();
    C.get_or_init(|| {
        regex::bytes::Regex::new(r"(?i)content-length[ \t]*:[ \t]*[0-9]+[ \t]*\r?\n")
            .expect("static regex")
    })
}

/// Where the next header begins in `hay`, if a complete `Content-Length` line is there.
fn next_header(hay: &[u8]) -> Option<usize> {
    header_re().find(hay).map(|m| m.start())
}

/// Whether `buf` starts like a header line (`Name:`), or could once more input comes.
/// Any name: an unknown header is a bad header block, answered on its own, where bytes
/// that are no header at all are junk skipped up to the next `Content-Length`.
fn looks_like_header(buf: &[u8]) -> bool {
    let name = buf
        .iter()
        .take(65)
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'-' || **b == b'_')
        .count();
    match buf.get(name) {
        Some(b':') | Some(b' ') | Some(b'\t') => name > 0,
        None => name > 0 && name < 65,
        Some(_) => false,
    }
}

/// The end of a header block (just past its blank line) at the start of `buf`.
fn header_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(n) = buf[i..].iter().position(|&b| b == b'\n') {
        let line = &buf[i..i + n];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(|b| *b == b' ' || *b == b'\t') && i > 0 {
            return Some(i + n + 1);
        }
        i += n + 1;
    }
    None
}

/// The body length a header block declares, when the block is well-formed: only
/// `Content-Length` (a number no larger than [`MAX_MESSAGE_BYTES`]) and `Content-Type`.
fn parse_header(block: &[u8]) -> Result<usize, &'static str> {
    let text = String::from_utf8_lossy(block);
    let mut len = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        match line.split_once(':') {
            Some((k, v)) if k.trim().eq_ignore_ascii_case("content-length") => {
                match v.trim().parse::<usize>() {
                    Ok(n) if n <= MAX_MESSAGE_BYTES => len = Some(n),
                    Ok(_) => return Err("Message too large"),
                    Err(_) => return Err("Parse error: bad Content-Length"),
                }
            }
            Some((k, _)) if k.trim().eq_ignore_ascii_case("content-type") => {}
            _ => return Err("Parse error: bad header"),
        }
    }
    len.ok_or("Parse error: no Content-Length")
}

/// Input read ahead, so that bytes of the next message found inside a bad one can be
/// read again as that message.
struct Ahead<R> {
    r: R,
    buf: Vec<u8>,
}

impl<R: AsyncRead + Unpin> Ahead<R> {
    /// Reads more input; false at its end.
    async fn fill(&mut self) -> bool {
        let mut chunk = [0u8; 64 << 10];
        match self.r.read(&mut chunk).await {
            Ok(0) | Err(_) => false,
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                true
            }
        }
    }
}

/// Reads frames from `input`, passes valid ones to `server_in`, answers the rest through
/// `out`. Returns at end of input.
///
/// Never alive and deaf: after a bad header (`Content-Lenght`, a length that is not a
/// number or is too large) or a body with no line end before the next header, the guard
/// answers one error and resynchronises on the next `Content-Length:` line, wherever it
/// stands; a body whose stated length runs into the next message is cut where that
/// message's header begins, so a wrong length costs one message, not the session.
pub async fn guard_input<R, W>(
    input: R,
    mut server_in: W,
    out: mpsc::UnboundedSender<Vec<u8>>,
    ending: std::sync::Arc<Ending>,
) where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut inp = Ahead {
        r: input,
        buf: Vec::new(),
    };
    let bad = |why: &str| {
        tracing::warn!("dropped malformed input: {why}");
        let _ = out.send(error_frame(Value::Null, -32700, why));
    };
    'messages: loop {
        // Before a header: blank lines are allowed; anything else is junk, said once and
        // skipped up to the next `Content-Length` line.
        let mut junk = false;
        let len = loop {
            let lead = inp
                .buf
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
            inp.buf.drain(..lead);
            if inp.buf.is_empty() {
                if !inp.fill().await {
                    return;
                }
                continue;
            }
            if looks_like_header(&inp.buf) {
                match header_end(&inp.buf) {
                    Some(end) => match parse_header(&inp.buf[..end]) {
                        Ok(n) => {
                            inp.buf.drain(..end);
                            break n;
                        }
                        Err(why) => {
                            bad(why);
                            junk = true;
                            // Drop the bad line only: the next header may be right after.
                            let first = inp.buf.iter().position(|&b| b == b'\n').unwrap_or(0);
                            inp.buf.drain(..=first);
                        }
                    },
                    None if inp.buf.len() > MAX_HEADER_BYTES => {
                        bad("Parse error: header too long");
                        junk = true;
                        inp.buf.drain(..1);
                    }
                    None => {
                        if !inp.fill().await {
                            return;
                        }
                    }
                }
                continue;
            }
            if !junk {
                bad("Parse error: input that is not a message");
                junk = true;
            }
            match next_header(&inp.buf) {
                // Never zero (input that starts with a header is read above), but a loop
                // that drains nothing would spin without reading: always make progress.
                Some(p) => {
                    inp.buf.drain(..p.max(1));
                }
                None => {
                    // Keep a tail that may be the start of a header cut by the read.
                    let keep = inp.buf.len().saturating_sub(64);
                    inp.buf.drain(..keep);
                    if !inp.fill().await {
                        return;
                    }
                }
            }
        };
        // The body: `len` bytes, unless the next header shows up inside them.
        let mut scanned = 0usize;
        loop {
            let have = inp.buf.len().min(len);
            let from = scanned.saturating_sub(64);
            let window = &inp.buf[from..inp.buf.len().min(len + 64)];
            if let Some(p) = next_header(window).filter(|p| from + p < have) {
                bad("Parse error: a message shorter than its Content-Length");
                inp.buf.drain(..from + p);
                continue 'messages;
            }
            scanned = have;
            if have == len {
                break;
            }
            if !inp.fill().await {
                return;
            }
        }
        let body: Vec<u8> = inp.buf.drain(..len).collect();
        match judge(body) {
            Verdict::Pass { body, shutdown } => {
                if shutdown {
                    ending
                        .shutdown
                        .store(true, std::sync::atomic::Ordering::SeqCst);
                }
                if server_in.write_all(&frame(&body)).await.is_err() {
                    return;
                }
                let _ = server_in.flush().await;
            }
            Verdict::Answer(f) => {
                let _ = out.send(f);
            }
            Verdict::Drop => {}
        }
    }
}

/// Cuts the library's output into whole frames and queues them on `out`.
pub async fn frames_of<R: AsyncRead + Unpin>(server_out: R, out: mpsc::UnboundedSender<Vec<u8>>) {
    let mut r = BufReader::new(server_out);
    loop {
        let mut head = Vec::new();
        let mut len = None;
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            head.extend_from_slice(&line);
            let text = String::from_utf8_lossy(&line);
            let t = text.trim();
            if t.is_empty() {
                break;
            }
            if let Some((k, v)) = t.split_once(':') {
                if k.trim().eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse::<usize>().ok();
                }
            }
        }
        let mut body = vec![0; len.unwrap_or(0)];
        if r.read_exact(&mut body).await.is_err() {
            return;
        }
        head.extend_from_slice(&body);
        if out.send(head).is_err() {
            return;
        }
    }
}

/// Writes queued frames to `output` until every sender is gone.
pub async fn write_frames<W: AsyncWrite + Unpin>(
    mut output: W,
    mut rx: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(f) = rx.recv().await {
        if output.write_all(&f).await.is_err() {
            return;
        }
        let _ = output.flush().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts() {
        let j = |b: &[u8]| judge(b.to_vec());
        assert!(matches!(
            j(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#),
            Verdict::Pass { .. }
        ));
        assert!(matches!(
            j(br#"{"jsonrpc":"2.0","method":"x"}"#),
            Verdict::Pass { .. }
        ));
        assert!(matches!(
            j(br#"{"jsonrpc":"2.0","id":1,"result":null}"#),
            Verdict::Pass { .. }
        ));
        assert!(matches!(j(b"{nope"), Verdict::Answer(_)));
        assert!(matches!(j(b"[1,2]"), Verdict::Answer(_)));
        assert!(matches!(j(br#"{"id":1,"method":"x"}"#), Verdict::Answer(_)));
        assert!(matches!(j(b"\xff\xfe"), Verdict::Answer(_)));
        assert!(matches!(
            j(br#"{"jsonrpc":"2.0","id":1,"method":"$/x"}"#),
            Verdict::Answer(_)
        ));
    }

    #[test]
    fn surrogates() {
        let r = repair_surrogates(br#"{"t":"a\ud800b\udc00\\ud800\ud83d\ude00"}"#).unwrap();
        assert_eq!(
            String::from_utf8(r).unwrap(),
            r#"{"t":"a\ufffdb\ufffd\\ud800\ud83d\ude00"}"#
        );
        assert!(repair_surrogates(br#"{"t":"\ud83d\ude00 \\u"}"#).is_none());
    }

    #[test]
    fn headers() {
        assert_eq!(parse_header(b"Content-Length: 12\r\n\r\n"), Ok(12));
        assert!(parse_header(b"Content-Lenght: 12\r\n\r\n").is_err());
        assert!(parse_header(b"Content-Length: x\r\n\r\n").is_err());
        assert!(parse_header(b"Content-Length: 99999999999999\r\n\r\n").is_err());
        assert_eq!(header_end(b"Content-Length: 1\r\n\r\nx"), Some(21));
        assert_eq!(next_header(b"}{Content-Length: 5\r\n"), Some(2));
        assert_eq!(next_header(b"}{Content-Length: 5"), None);
    }
}

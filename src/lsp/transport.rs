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

/// What a body is: passed on, or answered here.
enum Verdict {
    Pass,
    Answer(Vec<u8>),
    Drop,
}

fn judge(body: &[u8]) -> Verdict {
    let v: Value = match serde_json::from_slice(body) {
        Ok(v) => v,
        Err(e) => {
            tracing::warn!("malformed JSON-RPC message: {e}");
            return Verdict::Answer(error_frame(Value::Null, -32700, "Parse error"));
        }
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
    let is_request = obj.get("method").is_some_and(Value::is_string);
    let is_response = id.is_some() && (obj.contains_key("result") || obj.contains_key("error"));
    if version_ok && id_ok && (is_request || is_response) {
        return Verdict::Pass;
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

/// Reads frames from `input`, passes valid ones to `server_in`, answers the rest through
/// `out`. Returns at end of input.
pub async fn guard_input<R, W>(input: R, mut server_in: W, out: mpsc::UnboundedSender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut r = BufReader::new(input);
    loop {
        let mut len: Option<usize> = None;
        let mut saw_header = false;
        let mut bad_header = false;
        loop {
            let mut line = Vec::new();
            match r.read_until(b'\n', &mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let text = String::from_utf8_lossy(&line);
            let t = text.trim();
            if t.is_empty() {
                if saw_header {
                    break;
                }
                continue; // stray blank lines between messages
            }
            saw_header = true;
            match t.split_once(':') {
                Some((k, v)) if k.trim().eq_ignore_ascii_case("content-length") => {
                    match v.trim().parse::<usize>() {
                        Ok(n) => len = Some(n),
                        Err(_) => bad_header = true,
                    }
                }
                Some((k, _)) if k.trim().eq_ignore_ascii_case("content-type") => {}
                _ => bad_header = true,
            }
        }
        let Some(len) = len.filter(|_| !bad_header) else {
            tracing::warn!("a message without a valid Content-Length header");
            let _ = out.send(error_frame(Value::Null, -32700, "Parse error: bad header"));
            continue;
        };
        if len > MAX_MESSAGE_BYTES {
            tracing::warn!("a {len}-byte message: skipped");
            let mut rest = (&mut r).take(len as u64);
            if tokio::io::copy(&mut rest, &mut tokio::io::sink())
                .await
                .is_err()
            {
                return;
            }
            let _ = out.send(error_frame(Value::Null, -32600, "Message too large"));
            continue;
        }
        let mut body = vec![0; len];
        if r.read_exact(&mut body).await.is_err() {
            return;
        }
        match judge(&body) {
            Verdict::Pass => {
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
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"x"}"#),
            Verdict::Pass
        ));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","method":"x"}"#),
            Verdict::Pass
        ));
        assert!(matches!(
            judge(br#"{"jsonrpc":"2.0","id":1,"result":null}"#),
            Verdict::Pass
        ));
        assert!(matches!(judge(b"{nope"), Verdict::Answer(_)));
        assert!(matches!(judge(b"[1,2]"), Verdict::Answer(_)));
        assert!(matches!(
            judge(br#"{"id":1,"method":"x"}"#),
            Verdict::Answer(_)
        ));
        assert!(matches!(judge(b"\xff\xfe"), Verdict::Answer(_)));
    }
}

//! A guard in front of rmcp's stdio: every line is read here first, bounded, and a line
//! that is not JSON is answered here with JSON-RPC's parse error (-32700); what is JSON
//! passes on unchanged, and rmcp answers the rest (`Invalid Request` for a wrong shape,
//! `Method not found`).
//!
//! Why: rmcp drops an unparsable line without a word (the official SDKs do, to avoid
//! error storms between two servers echoing each other), and a client that sent a
//! request it broke then waits for an answer that never comes. grounded's peer is an
//! agent's client, not another server; the protocol's answer to bytes that do not parse
//! is -32700, and the session goes on. A line longer than [`MAX_LINE`] is answered the
//! same way with the bound in the message, and read to its end unbuffered.
//!
//! Output: rmcp's lines and the guard's go through one writer, a whole line at a time,
//! so an answer written here never lands inside one of rmcp's. Nothing else writes to
//! stdout.
//!
//! Imports nothing of the crate but the bound.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use super::MAX_LINE;

/// What one input line is.
#[derive(Debug, PartialEq)]
pub enum Verdict {
    /// JSON: passed to rmcp as it is.
    Pass,
    /// Blank: skipped.
    Skip,
    /// Answered here with this line (a JSON-RPC error).
    Answer(Vec<u8>),
}

fn error_line(code: i64, message: &str) -> Vec<u8> {
    let mut v =
        json!({"jsonrpc": "2.0", "id": Value::Null, "error": {"code": code, "message": message}})
            .to_string()
            .into_bytes();
    v.push(b'\n');
    v
}

/// The verdict on one line (without its line break).
pub fn judge(line: &[u8]) -> Verdict {
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Skip;
    }
    match serde_json::from_slice::<Value>(line) {
        Ok(_) => Verdict::Pass,
        Err(e) => {
            eprintln!("grounded: mcp: a line that is not JSON, answered with a parse error: {e}");
            Verdict::Answer(error_line(
                -32700,
                &format!(
                    "Parse error: the line is not JSON ({e}); send one JSON-RPC message a line"
                ),
            ))
        }
    }
}

/// Reads `input` line by line until its end: lines that are JSON to `to_rmcp`, the
/// answers to the others to `out`. Dropping `to_rmcp` at the end tells rmcp the client
/// is gone.
pub async fn pump_in<R, W>(input: R, mut to_rmcp: W, out: mpsc::UnboundedSender<Vec<u8>>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::new(input);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let limit = (MAX_LINE + 1) as u64;
        let n = match (&mut reader).take(limit).read_until(b'\n', &mut buf).await {
            Ok(n) => n,
            Err(e) => {
                eprintln!("grounded: mcp: reading stdin failed: {e}");
                break;
            }
        };
        if n == 0 {
            break;
        }
        if !buf.ends_with(b"\n") && buf.len() > MAX_LINE {
            // Over the bound: answered, and the rest of the line read unbuffered.
            let _ = out.send(error_line(
                -32600,
                &format!("Invalid request: a message longer than {MAX_LINE} bytes is not read"),
            ));
            eprintln!("grounded: mcp: a line longer than {MAX_LINE} bytes, skipped");
            loop {
                let chunk = match reader.fill_buf().await {
                    Ok([]) => return,
                    Ok(c) => c,
                    Err(_) => return,
                };
                match chunk.iter().position(|&b| b == b'\n') {
                    Some(i) => {
                        reader.consume(i + 1);
                        break;
                    }
                    None => {
                        let len = chunk.len();
                        reader.consume(len);
                    }
                }
            }
            continue;
        }
        let line = buf.strip_suffix(b"\n").unwrap_or(&buf);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        match judge(line) {
            Verdict::Skip => {}
            Verdict::Answer(a) => {
                let _ = out.send(a);
            }
            Verdict::Pass => {
                if to_rmcp.write_all(line).await.is_err() || to_rmcp.write_all(b"\n").await.is_err()
                {
                    break;
                }
                let _ = to_rmcp.flush().await;
            }
        }
    }
    let _ = to_rmcp.shutdown().await;
}

/// Copies rmcp's output to `out` a whole line at a time.
pub async fn pump_out<R: AsyncRead + Unpin>(from_rmcp: R, out: mpsc::UnboundedSender<Vec<u8>>) {
    let mut reader = BufReader::new(from_rmcp);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line).await {
            Ok(0) | Err(_) => break,
            Ok(_) => {
                if out.send(line).is_err() {
                    break;
                }
            }
        }
    }
}

/// Writes each line of `lines` to `w` and flushes, until every sender is gone.
pub async fn write_lines<W: AsyncWrite + Unpin>(
    mut w: W,
    mut lines: mpsc::UnboundedReceiver<Vec<u8>>,
) {
    while let Some(l) = lines.recv().await {
        if w.write_all(&l).await.is_err() || w.flush().await.is_err() {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_passes_and_the_rest_is_a_parse_error() {
        assert_eq!(
            judge(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            Verdict::Pass
        );
        assert_eq!(judge(b"[1]"), Verdict::Pass);
        assert_eq!(judge(b"  "), Verdict::Skip);
        let Verdict::Answer(a) = judge(b"{not json") else {
            panic!("not answered")
        };
        let v: Value = serde_json::from_slice(&a).unwrap();
        assert_eq!(v["error"]["code"], json!(-32700));
        assert_eq!(v["id"], Value::Null);
    }

    #[test]
    fn an_overlong_line_is_answered_and_the_next_passes() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let mut input = vec![b'x'; MAX_LINE + 10];
            input.extend_from_slice(b"\n{\"a\":1}\n{oops\n");
            let (to_rmcp, mut from_guard) = tokio::io::duplex(1 << 16);
            let (tx, mut rx) = mpsc::unbounded_channel();
            let pump = tokio::spawn(pump_in(std::io::Cursor::new(input), to_rmcp, tx));
            let mut passed = Vec::new();
            from_guard.read_to_end(&mut passed).await.unwrap();
            pump.await.unwrap();
            assert_eq!(passed, b"{\"a\":1}\n");
            let first: Value = serde_json::from_slice(&rx.recv().await.unwrap()).unwrap();
            assert!(first["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&MAX_LINE.to_string()));
            let second: Value = serde_json::from_slice(&rx.recv().await.unwrap()).unwrap();
            assert_eq!(second["error"]["code"], json!(-32700));
        });
    }
}

#![no_main]
//! The server's stdin guard on any bytes, then two valid requests: it reads to the end
//! of its input, and a request after the garbage gets through.
use grounded::lsp::transport::{guard_input, Ending};
use libfuzzer_sys::fuzz_target;
use tokio::io::AsyncReadExt;

fn request(id: u32) -> Vec<u8> {
    let body = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"x"}}"#);
    format!("Content-Length: {}\r\n\r\n{body}", body.len()).into_bytes()
}

fuzz_target!(|data: &[u8]| {
    let mut input = data.to_vec();
    input.extend_from_slice(&request(77));
    input.extend_from_slice(&request(78));
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let out = rt.block_on(async {
        let (w, mut r) = tokio::io::duplex(1 << 22);
        let (tx, _rx) = tokio::sync::mpsc::unbounded_channel();
        guard_input(&input[..], w, tx, std::sync::Arc::new(Ending::default())).await;
        let mut out = Vec::new();
        r.read_to_end(&mut out).await.unwrap();
        out
    });
    let out = String::from_utf8_lossy(&out);
    assert!(out.contains(r#""id":77"#) || out.contains(r#""id":78"#));
});

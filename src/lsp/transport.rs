//! Standard input and output for the server, made to survive malformed messages.
//!
//! tower-lsp-server reads frames through tokio-util's `FramedRead`, which ends the stream
//! after the first decoding error: one malformed message would end the session. So frames
//! are read here first. A frame whose body is a JSON-RPC message goes on to the server
//! unchanged (through an in-memory pipe, headers normalized); a body that is not JSON is
//! answered with a parse error (-32700, id `null`), one that is JSON but no JSON-RPC
//! message with an invalid-request error (-32600, its `id` when it has one), and a header
//! block without a usable `Content-Length` with a parse error, after which reading resumes at
//! the next `Content-Length`. Both the server's output and these answers go through one
//! writer task, whole frames at a time, so they never interleave. Each body is checked with
//! the same message types the server decodes, which costs one more JSON parse per message.

use serde::Deserialize;
use serde_json::{Value, json};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{
    AsyncBufReadExt, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tower_lsp_server::jsonrpc::{Request, Response};

/// The largest message accepted, in bytes; a longer one is answered with an error and
/// skipped, so that a bad `Content-Length` cannot make the server allocate without bound.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// Buffer of the pipe between the reader and the server.
const PIPE_BYTES: usize = 1 << 16;

/// What the server decodes: the same shapes as tower-lsp-server's own message type.
#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)] // Deserialized to check the shape, then dropped.
enum Incoming {
    Response(Response),
    Request(Request),
}

/// The server's output: each write is one or more whole frames (tower-lsp-server's encoder
/// writes what it buffered in one call), sent to the writer task as they are.
pub struct Output {
    frames: UnboundedSender<Vec<u8>>,
}

impl AsyncWrite for Output {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.frames.send(buf.to_vec()) {
            Ok(()) => Poll::Ready(Ok(buf.len())),
            Err(_) => Poll::Ready(Err(io::Error::from(io::ErrorKind::BrokenPipe))),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn error_frame(id: Value, code: i64, message: String) -> Vec<u8> {
    let body = json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
    frame(body.to_string().as_bytes())
}

/// The answer to a body the server could not decode, or `None` for a good one.
fn check(body: &[u8]) -> Option<Vec<u8>> {
    if serde_json::from_slice::<Incoming>(body).is_ok() {
        return None;
    }
    Some(match serde_json::from_slice::<Value>(body) {
        Ok(value) => {
            let id = match value.get("id") {
                Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
                _ => Value::Null,
            };
            error_frame(
                id,
                -32600,
                "Invalid request: not a JSON-RPC 2.0 message".into(),
            )
        }
        Err(error) => error_frame(Value::Null, -32700, format!("Parse error: {error}")),
    })
}

/// Standard input and output wrapped as the module doc says: the server reads the first
/// and writes the second. Spawns the reader and writer tasks on the current runtime.
pub fn stdio() -> (DuplexStream, Output) {
    let (frames, mut outgoing) = unbounded_channel::<Vec<u8>>();
    tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(bytes) = outgoing.recv().await {
            if stdout.write_all(&bytes).await.is_err() || stdout.flush().await.is_err() {
                return;
            }
        }
    });
    let (server_input, mut pipe) = tokio::io::duplex(PIPE_BYTES);
    let answers = frames.clone();
    tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        loop {
            match read_frame(&mut stdin).await {
                Ok(Frame::Body(body)) => match check(&body) {
                    None => {
                        if pipe.write_all(&frame(&body)).await.is_err() {
                            return;
                        }
                    }
                    Some(answer) => {
                        let _ = answers.send(answer);
                    }
                },
                Ok(Frame::BadHeader(message)) => {
                    let _ = answers.send(error_frame(Value::Null, -32700, message));
                }
                // End of input: dropping the pipe ends the server's input too.
                Ok(Frame::End) | Err(_) => return,
            }
        }
    });
    (server_input, Output { frames })
}

/// One frame read from the client.
enum Frame {
    Body(Vec<u8>),
    /// A header block without a usable `Content-Length`, or an oversized one (skipped).
    BadHeader(String),
    End,
}

async fn read_frame(input: &mut BufReader<tokio::io::Stdin>) -> io::Result<Frame> {
    let mut length: Option<Result<usize, String>> = None;
    let mut any_header = false;
    loop {
        let mut line = Vec::new();
        if input.read_until(b'\n', &mut line).await? == 0 {
            return Ok(Frame::End);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if any_header {
                break;
            }
            continue;
        }
        any_header = true;
        if let Some((name, value)) = text.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = Some(
                value
                    .trim()
                    .parse::<usize>()
                    .map_err(|_| format!("Parse error: bad Content-Length `{}`", value.trim())),
            );
        }
    }
    match length {
        None => Ok(Frame::BadHeader(
            "Parse error: a message without a Content-Length header".to_string(),
        )),
        Some(Err(message)) => Ok(Frame::BadHeader(message)),
        Some(Ok(n)) if n > MAX_MESSAGE_BYTES => {
            // Skip it without keeping it.
            let skipped =
                tokio::io::copy(&mut input.take(n as u64), &mut tokio::io::sink()).await?;
            if skipped < n as u64 {
                return Ok(Frame::End);
            }
            Ok(Frame::BadHeader(format!(
                "Parse error: a message of {n} bytes, more than the {MAX_MESSAGE_BYTES} accepted"
            )))
        }
        Some(Ok(n)) => {
            let mut body = vec![0; n];
            input.read_exact(&mut body).await?;
            Ok(Frame::Body(body))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bodies_are_checked_as_the_server_decodes_them() {
        assert!(check(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#).is_none());
        assert!(check(br#"{"jsonrpc":"2.0","method":"exit"}"#).is_none());
        assert!(check(br#"{"jsonrpc":"2.0","id":3,"result":null}"#).is_none());
        let parse = String::from_utf8(check(br#"{"jsonrpc": "2.0", "id": 9, "method": "#).unwrap())
            .unwrap();
        assert!(
            parse.contains(r#""code":-32700"#) && parse.contains(r#""id":null"#),
            "{parse}"
        );
        let shape = String::from_utf8(check(br#"{"id": 7, "hello": "world"}"#).unwrap()).unwrap();
        assert!(
            shape.contains(r#""code":-32600"#) && shape.contains(r#""id":7"#),
            "{shape}"
        );
    }
}

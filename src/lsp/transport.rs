//! Standard input and output for the server, made to survive malformed input.
//!
//! tower-lsp-server reads frames through tokio-util's `FramedRead`, which ends the stream
//! after the first decoding error: one malformed message would end the session. So frames
//! are read here first, by a [`Deframer`] that finds its footing again after any framing
//! error: a header block without a usable `Content-Length` (missing, not a number, two that
//! disagree), bytes that are no header, or a `Content-Length` shorter or longer than its
//! message. After an error it skips to the next `Content-Length:` header and reads on, so a
//! client's later messages (`shutdown` and `exit` included) are served whatever framing
//! came before; a message whose declared length runs past the start of the next message's
//! header is cut there. Each error is answered once with a parse error (-32700, id `null`);
//! a body that is JSON but no JSON-RPC message gets an invalid-request error (-32600, its
//! `id` when it has one).
//!
//! Every well-formed message goes to a router first (`mod.rs`), which may consume it (the
//! document notifications, applied right here in arrival order), answer it (`$/` requests),
//! or pass it on to the server through an in-memory pipe. The server's output and these
//! answers go through one writer task, whole frames at a time, so they never interleave.

use serde::Deserialize;
use serde_json::{Value, json};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use tokio::io::{AsyncReadExt, AsyncWrite, AsyncWriteExt, DuplexStream};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};
use tower_lsp_server::jsonrpc::{Request, Response};

/// The largest message accepted, in bytes; a longer one is answered with an error and its
/// body skipped, without being kept, up to the next `Content-Length:` header, so that a bad
/// `Content-Length` can neither make the server allocate without bound nor swallow the
/// messages after it.
pub const MAX_MESSAGE_BYTES: usize = 1 << 30;

/// The longest header block accepted, in bytes; past it, the bytes are no header.
const MAX_HEADER_BYTES: usize = 4096;

/// Buffer of the pipe between the reader and the server, and of each read from stdin.
const PIPE_BYTES: usize = 1 << 16;

/// What the server decodes: the same shapes as tower-lsp-server's own message type.
#[derive(Deserialize)]
#[serde(untagged)]
#[allow(dead_code)] // Deserialized to check the shape, then dropped.
enum Incoming {
    Response(Response),
    Request(Request),
}

/// What the router does with a well-formed message.
pub enum Route {
    /// Pass it on to the server.
    Forward,
    /// Taken care of.
    Consumed,
    /// Answer it with this message instead of passing it on.
    Answer(Value),
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

fn error_message(id: Value, code: i64, message: String) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

/// A body the server can decode, parsed for the router; or the answer to one it cannot.
fn check(body: &[u8]) -> Result<Value, Value> {
    match serde_json::from_slice::<Value>(body) {
        Ok(value) if serde_json::from_value::<Incoming>(value.clone()).is_ok() => Ok(value),
        Ok(value) => {
            let id = match value.get("id") {
                Some(id @ (Value::Number(_) | Value::String(_))) => id.clone(),
                _ => Value::Null,
            };
            Err(error_message(
                id,
                -32600,
                "Invalid request: not a JSON-RPC 2.0 message".into(),
            ))
        }
        Err(error) => Err(error_message(
            Value::Null,
            -32700,
            format!("Parse error: {error}"),
        )),
    }
}

/// Standard input and output wrapped as the module doc says: the server reads the first
/// and writes the second. Spawns the reader and writer tasks on the current runtime; the
/// reader calls `route` on each message, in order.
pub fn stdio(mut route: impl FnMut(&Value) -> Route + Send + 'static) -> (DuplexStream, Output) {
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
        let mut stdin = tokio::io::stdin();
        let mut deframer = Deframer::default();
        let mut chunk = vec![0u8; PIPE_BYTES];
        loop {
            let n = match stdin.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => n,
            };
            deframer.push(&chunk[..n]);
            while let Some(event) = deframer.next_event() {
                let message = match event {
                    Event::Message(body) => check(&body),
                    Event::Malformed(message) => Err(error_message(Value::Null, -32700, message)),
                };
                let forward = match message {
                    Ok(value) => match route(&value) {
                        Route::Forward => Some(frame(value.to_string().as_bytes())),
                        Route::Consumed => None,
                        Route::Answer(answer) => {
                            let _ = answers.send(frame(answer.to_string().as_bytes()));
                            None
                        }
                    },
                    Err(answer) => {
                        let _ = answers.send(frame(answer.to_string().as_bytes()));
                        None
                    }
                };
                if let Some(bytes) = forward
                    && pipe.write_all(&bytes).await.is_err()
                {
                    return;
                }
            }
        }
    });
    (server_input, Output { frames })
}

/// What the [`Deframer`] read.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    /// A message's body.
    Message(Vec<u8>),
    /// A framing error, with what to tell the client.
    Malformed(String),
}

/// Where the [`Deframer`] is in the byte stream.
#[derive(Debug, Default)]
enum Reading {
    /// Looking for a header block.
    #[default]
    Header,
    /// Inside a body of `length` bytes, whose first `scanned` bytes hold no message header.
    Body { length: usize, scanned: usize },
}

/// Cuts a byte stream into LSP messages (header lines such as `Content-Length: N`, a blank
/// line, N bytes of body), finding the next `Content-Length:` header after any error.
/// Bytes go in with [`Deframer::push`] as they arrive; [`Deframer::next_event`] gives what
/// they complete.
#[derive(Debug, Default)]
pub struct Deframer {
    buffer: Vec<u8>,
    reading: Reading,
    /// Whether the bytes being skipped belong to an error already reported.
    reported: bool,
}

const CONTENT_LENGTH: &[u8] = b"content-length:";

/// Where `needle` (lowercase ASCII) starts in `haystack`, ignoring ASCII case.
fn find_ignoring_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
}

/// How a buffer that starts a header block goes on.
enum Header {
    /// A whole header block of this many bytes (its blank line included).
    Complete(usize),
    /// Header lines so far, the last one perhaps unfinished: wait for more.
    Partial,
    /// Not a header block.
    Not,
}

/// Whether `bytes` is a header line's start: a name of letters, digits and `-`, then `:`
/// and printable text, or an unfinished name. A name with stray bytes glued before
/// `Content-Length` is none: those bytes are junk before a header.
fn is_header_line(bytes: &[u8], finished: bool) -> bool {
    let name_end = bytes
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || *b == b'-'))
        .unwrap_or(bytes.len());
    let name = &bytes[..name_end];
    let length_name = &CONTENT_LENGTH[..CONTENT_LENGTH.len() - 1];
    // Judged once the name is whole (its `:` has come), so that where a read ends
    // inside it changes nothing.
    let glued = name.len() > length_name.len()
        && name[name.len() - length_name.len()..].eq_ignore_ascii_case(length_name);
    match bytes.get(name_end) {
        None => !finished,
        Some(b':') => {
            !glued
                && name_end > 0
                && bytes[name_end + 1..]
                    .iter()
                    .all(|b| *b == b'\t' || *b >= b' ' && *b != 0x7f)
        }
        Some(_) => false,
    }
}

fn header(bytes: &[u8]) -> Header {
    let mut at = 0;
    loop {
        let rest = &bytes[at..];
        if rest.starts_with(b"\r\n") || rest.starts_with(b"\n") {
            return if at == 0 {
                Header::Not
            } else {
                Header::Complete(at + if rest[0] == b'\r' { 2 } else { 1 })
            };
        }
        let Some(end) = rest.iter().position(|b| *b == b'\n') else {
            let partial = rest.strip_suffix(b"\r").unwrap_or(rest);
            return if is_header_line(partial, false) && bytes.len() <= MAX_HEADER_BYTES {
                Header::Partial
            } else {
                Header::Not
            };
        };
        let line = &rest[..end];
        if !is_header_line(line.strip_suffix(b"\r").unwrap_or(line), true) {
            return Header::Not;
        }
        at += end + 1;
        // The same limit whether the block came in one read or many.
        if at > MAX_HEADER_BYTES {
            return Header::Not;
        }
    }
}

/// Whether `bytes` starts as a `Content-Length:` header does (ASCII case ignored), or is a
/// start of one.
fn starts_like_content_length(bytes: &[u8]) -> bool {
    let n = bytes.len().min(CONTENT_LENGTH.len());
    bytes[..n].eq_ignore_ascii_case(&CONTENT_LENGTH[..n])
}

/// The body length a complete header block declares, or why it declares none.
fn declared_length(header: &[u8]) -> Result<usize, String> {
    let text = String::from_utf8_lossy(header);
    let mut lengths = Vec::new();
    for line in text.lines() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if name.trim().eq_ignore_ascii_case("content-length") {
            let value = value.trim();
            let length = value
                .parse::<usize>()
                .map_err(|_| format!("Parse error: bad Content-Length `{value}`"))?;
            lengths.push(length);
        }
    }
    match lengths.as_slice() {
        [] => Err("Parse error: a message without a Content-Length header".to_string()),
        [first, rest @ ..] if rest.iter().any(|l| l != first) => Err(format!(
            "Parse error: Content-Length headers that disagree ({lengths:?})"
        )),
        [first, ..] => Ok(*first),
    }
}

impl Deframer {
    pub fn push(&mut self, bytes: &[u8]) {
        self.buffer.extend_from_slice(bytes);
    }

    /// Drops the bytes before the next `Content-Length:` header (or, when none has come yet,
    /// all but the last few, which may begin one); reports them unless they are whitespace
    /// or belong to an error already reported.
    fn skip_junk(&mut self) -> Option<Event> {
        let found = find_ignoring_case(&self.buffer[1..], CONTENT_LENGTH).map(|at| at + 1);
        let end =
            found.unwrap_or_else(|| self.buffer.len().saturating_sub(CONTENT_LENGTH.len() - 1));
        let junk: Vec<u8> = self.buffer.drain(..end).collect();
        let report = !self.reported && !junk.iter().all(u8::is_ascii_whitespace);
        self.reported = found.is_none() && (self.reported || report);
        report.then(|| {
            Event::Malformed(
                "Parse error: bytes that are not a message; reading on at the next Content-Length header"
                    .to_string(),
            )
        })
    }

    /// The next message or framing error the bytes so far complete.
    pub fn next_event(&mut self) -> Option<Event> {
        loop {
            match self.reading {
                Reading::Header => {
                    let blank = self
                        .buffer
                        .iter()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                    self.buffer.drain(..blank);
                    if self.buffer.is_empty() {
                        return None;
                    }
                    // After an error, only a `Content-Length:` header starts the next
                    // message: what the kept tail of the junk holds is not a header block,
                    // however the reads cut it.
                    if self.reported && !starts_like_content_length(&self.buffer) {
                        self.skip_junk();
                        if starts_like_content_length(&self.buffer)
                            && self.buffer.len() >= CONTENT_LENGTH.len()
                        {
                            continue;
                        }
                        return None;
                    }
                    if self.reported && self.buffer.len() < CONTENT_LENGTH.len() {
                        return None;
                    }
                    match header(&self.buffer) {
                        Header::Partial => return None,
                        Header::Not => {
                            let event = self.skip_junk();
                            if event.is_some() {
                                return event;
                            }
                            if self.reported || self.buffer.len() < CONTENT_LENGTH.len() {
                                return None;
                            }
                        }
                        Header::Complete(end) => {
                            let declared = declared_length(&self.buffer[..end]);
                            self.buffer.drain(..end);
                            self.reported = false;
                            match declared {
                                Ok(n) if n > MAX_MESSAGE_BYTES => {
                                    // Its body is junk up to the next header, not n bytes
                                    // skipped blindly: a short body would take the
                                    // messages after it (`shutdown`, `exit`) with it.
                                    self.reported = true;
                                    return Some(Event::Malformed(format!(
                                        "Parse error: a message of {n} bytes, more than the {MAX_MESSAGE_BYTES} accepted"
                                    )));
                                }
                                Ok(length) => self.reading = Reading::Body { length, scanned: 0 },
                                Err(message) => {
                                    // Its body, if any, is junk up to the next header.
                                    self.reported = true;
                                    return Some(Event::Malformed(message));
                                }
                            }
                        }
                    }
                }
                Reading::Body { length, scanned } => {
                    if let Some(cut) = self.overlong_body(length, scanned) {
                        self.buffer.drain(..cut);
                        self.reading = Reading::Header;
                        return Some(Event::Malformed(format!(
                            "Parse error: Content-Length {length} is longer than its message ({cut} bytes)"
                        )));
                    }
                    if self.buffer.len() < length {
                        let available = self.buffer.len();
                        self.reading = Reading::Body {
                            length,
                            scanned: available.saturating_sub(CONTENT_LENGTH.len() - 1),
                        };
                        return None;
                    }
                    let body: Vec<u8> = self.buffer.drain(..length).collect();
                    self.reading = Reading::Header;
                    return Some(Event::Message(body));
                }
            }
        }
    }

    /// When the buffered part of a body of declared length `length`, past the first
    /// `scanned` bytes already looked at, shows the body to be shorter: a whole JSON value,
    /// then only whitespace up to a `Content-Length:` header. Returns where that header
    /// starts.
    fn overlong_body(&self, length: usize, scanned: usize) -> Option<usize> {
        let available = &self.buffer[..self.buffer.len().min(length)];
        let mut from = scanned;
        while let Some(at) = find_ignoring_case(available.get(from..)?, CONTENT_LENGTH) {
            let header = from + at;
            let mut values =
                serde_json::Deserializer::from_slice(&available[..header]).into_iter::<Value>();
            if let Some(Ok(_)) = values.next()
                && available[values.byte_offset()..header]
                    .iter()
                    .all(u8::is_ascii_whitespace)
            {
                return Some(header);
            }
            from = header + 1;
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const SHUTDOWN: &str = r#"{"jsonrpc":"2.0","id":9,"method":"shutdown"}"#;
    const EXIT: &str = r#"{"jsonrpc":"2.0","method":"exit"}"#;

    /// Everything `input` gives, fed in chunks of `chunk` bytes.
    fn events(input: &str, chunk: usize) -> Vec<Event> {
        let mut deframer = Deframer::default();
        let mut out = Vec::new();
        for piece in input.as_bytes().chunks(chunk) {
            deframer.push(piece);
            while let Some(event) = deframer.next_event() {
                out.push(event);
            }
        }
        out
    }

    /// The bodies among `events`, and how many errors.
    fn summary(events: &[Event]) -> (Vec<String>, usize) {
        let mut bodies = Vec::new();
        let mut errors = 0;
        for event in events {
            match event {
                Event::Message(body) => bodies.push(String::from_utf8_lossy(body).into_owned()),
                Event::Malformed(_) => errors += 1,
            }
        }
        (bodies, errors)
    }

    /// The events of `input` cut at `cuts` (byte offsets).
    fn events_cut(input: &[u8], cuts: &[usize]) -> Vec<Event> {
        let mut deframer = Deframer::default();
        let mut out = Vec::new();
        let mut from = 0;
        for &cut in cuts.iter().chain([&input.len()]) {
            deframer.push(&input[from..cut]);
            from = cut;
            while let Some(event) = deframer.next_event() {
                out.push(event);
            }
        }
        out
    }

    /// Inputs the `transport` fuzz target found (minimised) or that follow from them: the
    /// events must not depend on where the reads cut the stream.
    #[test]
    fn junk_then_header_like_text_gives_the_same_events_however_the_reads_cut_it() {
        let cases: [(&[u8], &[usize]); 5] = [
            (b"h:Content-Length: 2\r\n\r\n{}", &[16]),
            (b"h:Content-Length:3\n\n\r\r}", &[8, 16]),
            (b"a meage\"jso: 4\xbb\xbb\n\r\n{\xbb\xbb", &[16]),
            (
                b"junk!\nX-Pad: a\r\nContent-Length: 2\r\n\r\n{}",
                &[3, 9, 20],
            ),
            (b"oContent-Length-tne: eline::0it\"}", &[4, 8, 14, 30, 31]),
        ];
        for (input, cuts) in cases {
            let whole = events_cut(input, &[]);
            assert_eq!(events_cut(input, cuts), whole, "{input:?} cut at {cuts:?}");
            for cut in 1..input.len() {
                assert_eq!(events_cut(input, &[cut]), whole, "{input:?} cut at {cut}");
            }
        }
    }

    #[test]
    fn the_header_limit_does_not_depend_on_the_reads() {
        let mut input = b"X-Pad: ".to_vec();
        input.extend(std::iter::repeat_n(b'a', 4500));
        input.extend_from_slice(b"\r\nContent-Length: 2\r\n\r\n{}");
        let whole = events_cut(&input, &[]);
        assert_eq!(events_cut(&input, &[4200]), whole);
        // The oversized block is junk; the header inside it still starts a message.
        assert_eq!(summary(&whole), (vec!["{}".to_string()], 1));
    }

    #[test]
    fn back_to_back_messages_after_any_framing_error_are_read() {
        let body = r#"{"jsonrpc":"2.0","id":1,"method":"hover","params":{}}"#;
        let faults = [
            format!("Content-Length: abc\r\n\r\n{body}"),
            format!("Content-Length: 10\r\n\r\n{body}"),
            format!("Content-Length: {}\r\n\r\n{body}", body.len() + 40),
            format!(
                "Content-Length: {}\r\nContent-Length: 3\r\n\r\n{body}",
                body.len()
            ),
            format!("garbage{}", message(body)),
            format!("Content-Type: x\r\n\r\n{body}"),
        ];
        for (i, fault) in faults.iter().enumerate() {
            let input = format!("{fault}{}{}", message(SHUTDOWN), message(EXIT));
            for chunk in [1, 7, input.len()] {
                let (bodies, errors) = summary(&events(&input, chunk));
                assert!(
                    bodies.ends_with(&[SHUTDOWN.to_string(), EXIT.to_string()]),
                    "fault {i}, chunks of {chunk}: {bodies:?}"
                );
                assert!(errors >= 1, "fault {i}, chunks of {chunk}: no error");
                assert!(errors <= 2, "fault {i}, chunks of {chunk}: {errors} errors");
            }
        }
        // Stray bytes alone are one error, then the messages.
        let (bodies, errors) = summary(&events(&format!("xyz{}", message(EXIT)), 3));
        assert_eq!((bodies, errors), (vec![EXIT.to_string()], 1));
    }

    #[test]
    fn well_formed_input_reads_exactly() {
        let input = format!("{}\r\n{}", message(SHUTDOWN), message(EXIT));
        for chunk in [1, 5, input.len()] {
            assert_eq!(
                summary(&events(&input, chunk)),
                (vec![SHUTDOWN.to_string(), EXIT.to_string()], 0)
            );
        }
        // A body that mentions Content-Length: is still one body.
        let tricky = r#"{"jsonrpc":"2.0","method":"x","params":{"t":"Content-Length: 5"}}"#;
        assert_eq!(
            summary(&events(&message(tricky), 4)),
            (vec![tricky.to_string()], 0)
        );
    }

    #[test]
    fn an_oversized_message_is_skipped_without_being_kept() {
        let mut deframer = Deframer::default();
        deframer.push(format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1).as_bytes());
        assert!(matches!(deframer.next_event(), Some(Event::Malformed(_))));
        deframer.push(&vec![b' '; 1 << 20]);
        assert_eq!(deframer.next_event(), None);
        assert!(deframer.buffer.is_empty());
    }

    #[test]
    fn the_messages_after_an_oversized_one_with_a_short_body_are_served() {
        for declared in [(MAX_MESSAGE_BYTES + 1).to_string(), u64::MAX.to_string()] {
            let mut deframer = Deframer::default();
            deframer.push(format!("Content-Length: {declared}\r\n\r\n{{}}").as_bytes());
            deframer.push(message(SHUTDOWN).as_bytes());
            deframer.push(message(EXIT).as_bytes());
            let mut bodies = Vec::new();
            let mut errors = 0;
            while let Some(event) = deframer.next_event() {
                match event {
                    Event::Message(body) => bodies.push(String::from_utf8(body).unwrap()),
                    Event::Malformed(_) => errors += 1,
                }
            }
            assert_eq!(
                (bodies, errors),
                (vec![SHUTDOWN.to_string(), EXIT.to_string()], 1)
            );
        }
    }

    #[test]
    fn bodies_are_checked_as_the_server_decodes_them() {
        assert!(check(br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#).is_ok());
        assert!(check(EXIT.as_bytes()).is_ok());
        assert!(check(br#"{"jsonrpc":"2.0","id":3,"result":null}"#).is_ok());
        let parse = check(br#"{"jsonrpc": "2.0", "id": 9, "method": "#).unwrap_err();
        assert_eq!(
            (parse["error"]["code"].clone(), parse["id"].clone()),
            (json!(-32700), Value::Null)
        );
        let shape = check(br#"{"id": 7, "hello": "world"}"#).unwrap_err();
        assert_eq!(
            (shape["error"]["code"].clone(), shape["id"].clone()),
            (json!(-32600), json!(7))
        );
    }
}

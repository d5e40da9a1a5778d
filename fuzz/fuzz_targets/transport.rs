//! Fuzz target `transport`: an arbitrary byte stream through the language server's stdin
//! framing (`lsp::transport`'s `Deframer`), once in one piece and once cut into pieces at
//! fuzzer-chosen points.
//!
//! Input: byte 0 is a count `k` (its low 4 bits), the next `2k` bytes are `k` little-endian
//! `u16` cut offsets (taken modulo the stream's length plus one), and the rest is the
//! stream; the seeds start with `\0` (no cuts).
//!
//! Nothing may panic. `next_event` terminates, and every event consumes input, so there are
//! never more events than bytes pushed. Once `next_event` has returned `None` the deframer
//! keeps no more than the transport's documented limits: at most `MAX_HEADER_BYTES` (4096)
//! while it looks for a header, less than the declared length (itself at most
//! `MAX_MESSAGE_BYTES`) inside a body, nothing while it skips an oversized one. And the
//! events do not depend on how the stream was cut: the same bodies, and the same errors.
//! (The campaign of 2026-11-24 ran with a switch that skipped this comparison after a
//! resynchronisation, until findings T1 to T3 of `fuzz/README.md` were fixed; it is gone.)

#![no_main]

use libfuzzer_sys::fuzz_target;
use rulelens::lsp::{Deframer, Event, MAX_MESSAGE_BYTES};

/// `MAX_HEADER_BYTES` in `src/lsp/transport.rs` (private there).
const MAX_HEADER_BYTES: usize = 4096;

fuzz_target!(|data: &[u8]| {
    let Some((&count, rest)) = data.split_first() else {
        return;
    };
    let count = usize::from(count & 0x0f).min(rest.len() / 2);
    let (offsets, stream) = rest.split_at(2 * count);
    let mut cuts: Vec<usize> = offsets
        .chunks_exact(2)
        .map(|pair| usize::from(u16::from_le_bytes([pair[0], pair[1]])) % (stream.len() + 1))
        .collect();
    cuts.sort_unstable();
    cuts.dedup();

    let whole = events(stream, &[]);
    let pieces = events(stream, &cuts);
    assert_eq!(whole, pieces, "cut at {cuts:?}: the events differ");
});

/// Everything the deframer gives for `stream` pushed in pieces cut at `cuts`.
fn events(stream: &[u8], cuts: &[usize]) -> Vec<Event> {
    let mut deframer = Deframer::default();
    let mut out = Vec::new();
    let mut pushed = 0;
    let mut from = 0;
    for &to in cuts.iter().chain([&stream.len()]) {
        deframer.push(&stream[from..to]);
        pushed += to - from;
        from = to;
        while let Some(event) = deframer.next_event() {
            out.push(event);
            assert!(
                out.len() <= pushed,
                "{} events from {pushed} bytes: the deframer does not end",
                out.len()
            );
        }
        check_memory(&deframer);
    }
    out
}

/// Checks how much the deframer buffers, read from its derived `Debug` output
/// (`Deframer { buffer: [..], reading: Header | Body { length: N, scanned: N } |
/// Skipping(N), reported: bool }`), so that no accessor is needed in the server.
fn check_memory(deframer: &Deframer) {
    let debug = format!("{deframer:?}");
    let field = |name: &str| {
        let at = debug
            .find(name)
            .unwrap_or_else(|| panic!("`{name}` not in the Deframer's Debug output: {debug}"));
        &debug[at + name.len()..]
    };
    let buffer = field("buffer: [");
    let buffer = &buffer[..buffer.find(']').expect("the buffer's `]`")];
    let buffered = if buffer.is_empty() {
        0
    } else {
        buffer.matches(',').count() + 1
    };
    let reading = field("reading: ");
    let number = |prefix: &str| -> usize {
        let digits = &reading[prefix.len()..];
        let end = digits
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(digits.len());
        digits[..end].parse().expect("a number in the Debug output")
    };
    if reading.starts_with("Header") {
        assert!(
            buffered <= MAX_HEADER_BYTES,
            "{buffered} bytes buffered while looking for a header"
        );
    } else if reading.starts_with("Body { length: ") {
        let length = number("Body { length: ");
        assert!(
            length <= MAX_MESSAGE_BYTES,
            "a body of {length} bytes accepted"
        );
        assert!(
            buffered < length,
            "{buffered} bytes buffered inside a body of {length}, and no event"
        );
    } else if reading.starts_with("Skipping(") {
        assert_eq!(buffered, 0, "bytes kept while skipping an oversized body");
    } else {
        panic!("unknown state in the Deframer's Debug output: {debug}");
    }
}

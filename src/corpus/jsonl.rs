//! JSONL corpus lines: one object per line with a string `text` and an optional string
//! `label` (`null` or absent means unlabeled); other keys are ignored.
//!
//! Fields are first read as raw JSON (`serde_json::value::RawValue`), which keeps their
//! position in the line: errors point at the offending value, and a text without escapes
//! gets its exact range in the file for highlighting.

use super::Example;
use crate::diagnostic::{Code, Diagnostic};
use serde_json::value::RawValue;
use std::collections::HashMap;
use text_size::{TextRange, TextSize};

pub(super) fn parse_line(
    line: &str,
    line_range: TextRange,
    line_number: u32,
) -> Result<Example, Diagnostic> {
    let malformed = |range: TextRange, message: String| {
        Diagnostic::new(Code::MalformedLine, range, message)
            .with_help("each line is a JSON object such as {\"text\": \"…\", \"label\": \"spam\"}")
    };
    let fields: HashMap<&str, &RawValue> = serde_json::from_str(line).map_err(|error| {
        let column = error.column().saturating_sub(1).min(line.len());
        let mut offset = column;
        while !line.is_char_boundary(offset) {
            offset -= 1;
        }
        let at = line_range.start() + TextSize::from(offset as u32);
        let message = if error.is_data() {
            "expected a JSON object".to_string()
        } else {
            format!("invalid JSON: {}", strip_position(&error.to_string()))
        };
        let width = line[offset..].chars().next().map_or(0, char::len_utf8);
        malformed(TextRange::at(at, TextSize::from(width as u32)), message)
    })?;
    // Where a raw value sits in the line (it borrows from `line`).
    let range_of = |raw: &RawValue| {
        let offset = raw.get().as_ptr() as usize - line.as_ptr() as usize;
        TextRange::at(
            line_range.start() + TextSize::from(offset as u32),
            TextSize::of(raw.get()),
        )
    };
    let text_raw = fields
        .get("text")
        .ok_or_else(|| malformed(line_range, "missing `text`".to_string()))?;
    let text: String = serde_json::from_str(text_raw.get())
        .map_err(|_| malformed(range_of(text_raw), "`text` must be a string".to_string()))?;
    let (label, label_range) = match fields.get("label") {
        None => (None, None),
        Some(raw) => {
            let label: Option<String> = serde_json::from_str(raw.get()).map_err(|_| {
                malformed(
                    range_of(raw),
                    "`label` must be a string or null".to_string(),
                )
            })?;
            let range = range_of(raw);
            let inner = TextRange::new(
                range.start() + TextSize::from(1),
                range.end() - TextSize::from(1),
            );
            (
                label,
                Some(if raw.get().starts_with('"') {
                    inner
                } else {
                    range
                }),
            )
        }
    };
    let raw_text = text_raw.get();
    let verbatim = !raw_text.contains('\\');
    let text_range = verbatim.then(|| {
        let range = range_of(text_raw);
        TextRange::new(
            range.start() + TextSize::from(1),
            range.end() - TextSize::from(1),
        )
    });
    Ok(Example {
        text,
        label,
        line: line_number,
        text_range,
        label_range,
    })
}

/// serde_json appends " at line L column C"; the diagnostic has its own position.
fn strip_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |i| &message[..i])
}

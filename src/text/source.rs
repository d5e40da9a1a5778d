//! Decoding bytes that are supposed to be UTF-8 without losing the rest of the file.
//!
//! Each maximal invalid byte sequence becomes one U+FFFD, as `String::from_utf8_lossy`
//! does, and its range in the decoded text is remembered so that the reader of a rules or
//! corpus file can report it at the right line and column and skip what it spoils.

use text_size::{TextRange, TextSize};

/// Text decoded from bytes, with the places where the bytes were not UTF-8.
#[derive(Debug, Clone, Default)]
pub struct SourceText {
    pub text: String,
    /// The U+FFFD characters that replaced invalid bytes, in increasing order.
    pub invalid_utf8: Vec<TextRange>,
}

impl SourceText {
    /// Decodes `bytes`.
    ///
    /// ```
    /// use rulelens::text::SourceText;
    /// let source = SourceText::from_bytes(b"ok\n\xffno");
    /// assert_eq!(source.text, "ok\n\u{fffd}no");
    /// assert_eq!(source.invalid_utf8.len(), 1);
    /// ```
    pub fn from_bytes(bytes: &[u8]) -> SourceText {
        let mut text = String::with_capacity(bytes.len());
        let mut invalid_utf8 = Vec::new();
        for chunk in bytes.utf8_chunks() {
            text.push_str(chunk.valid());
            if !chunk.invalid().is_empty() {
                let start = TextSize::of(text.as_str());
                text.push(char::REPLACEMENT_CHARACTER);
                invalid_utf8.push(TextRange::at(
                    start,
                    TextSize::of(char::REPLACEMENT_CHARACTER),
                ));
            }
        }
        SourceText { text, invalid_utf8 }
    }
}

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

/// Reads a file of at most `limit` bytes, refusing a larger one (`ErrorKind::FileTooLarge`)
/// without reading past the limit, so that neither a huge file nor an endless one such as
/// `/dev/zero` can exhaust memory.
///
/// ```
/// let dir = std::env::temp_dir().join(format!("rulelens-doc-read-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// let path = dir.join("five");
/// std::fs::write(&path, b"12345").unwrap();
/// assert_eq!(rulelens::text::read_capped(&path, 5).unwrap(), b"12345");
/// let error = rulelens::text::read_capped(&path, 4).unwrap_err();
/// assert_eq!(error.kind(), std::io::ErrorKind::FileTooLarge);
/// ```
pub fn read_capped(path: &std::path::Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than the limit of {limit} bytes"),
        )
    };
    let file = std::fs::File::open(path)?;
    let metadata = file.metadata()?;
    if metadata.is_file() && metadata.len() > limit {
        return Err(too_large());
    }
    let capacity = if metadata.is_file() {
        metadata.len()
    } else {
        0
    };
    let mut bytes = Vec::with_capacity(capacity as usize);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

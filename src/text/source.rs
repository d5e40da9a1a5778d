//! Decoding bytes that are supposed to be UTF-8 without losing the rest of the file.
//!
//! Each maximal invalid byte sequence becomes one U+FFFD, as `String::from_utf8_lossy`
//! does, and its range in the decoded text is remembered so that the reader of a rules or
//! corpus file can report it at the right line and column and skip what it spoils.

use std::path::Path;
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

/// Opens `path` for reading when it is a regular file (symbolic links followed). A FIFO, a
/// device, a socket or a folder is refused (`ErrorKind::InvalidInput`, naming what it is)
/// without waiting: the file is opened without blocking (a FIFO with no writer would block
/// `open` forever) and its type read from the open file, so that it cannot change between
/// the check and the read.
///
/// ```
/// let error = rulelens::text::open_regular(std::path::Path::new("/dev/null")).unwrap_err();
/// assert_eq!(error.kind(), std::io::ErrorKind::InvalidInput);
/// assert_eq!(error.to_string(), "not a regular file: a character device");
/// ```
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = options.open(path)?;
    let file_type = file.metadata()?.file_type();
    if file_type.is_file() {
        return Ok(file);
    }
    Err(std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        format!("not a regular file: {}", kind_of(file_type)),
    ))
}

/// What a file that is not a regular one is, in words.
fn kind_of(file_type: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if file_type.is_fifo() {
            return "a FIFO";
        }
        if file_type.is_char_device() {
            return "a character device";
        }
        if file_type.is_block_device() {
            return "a block device";
        }
        if file_type.is_socket() {
            return "a socket";
        }
    }
    if file_type.is_dir() {
        "a folder"
    } else {
        "a special file"
    }
}

/// Reads a regular file ([`open_regular`]) of at most `limit` bytes, refusing a larger one
/// (`ErrorKind::FileTooLarge`) before reading it, so that a huge file cannot exhaust memory.
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
pub fn read_capped(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let too_large = || {
        std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("larger than the limit of {limit} bytes"),
        )
    };
    let file = open_regular(path)?;
    let length = file.metadata()?.len();
    if length > limit {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(length as usize);
    // A file that grows while it is read stops at the limit.
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(too_large());
    }
    Ok(bytes)
}

//! Open documents: text, version and line index, with LSP's incremental changes applied in
//! the order they arrive.
//!
//! Changes are applied synchronously in the notification handler, before anything awaits,
//! so they keep their arrival order even though the framework runs handlers concurrently
//! (tower-lsp issue #284). A change whose range lies past the end or inside a character is
//! clamped as `convert` clamps positions, never rejected: text is never lost. The text is
//! shared (`Arc`) so that a snapshot for a hover or a background job costs a reference
//! count, and copied only when a change arrives while a snapshot holds it.

use super::convert::{Encoding, Text};
use crate::corpus::Format;
use crate::text::LineIndex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::ls_types::TextDocumentContentChangeEvent;

/// What a document is to the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Rules,
    Corpus(Format),
}

impl Kind {
    /// By extension (`.rules`, `.tsv`, `.jsonl`), else by language id (`rules`); `None` for
    /// documents the server does not handle.
    pub fn of(path: Option<&Path>, language_id: &str) -> Option<Kind> {
        let extension = path.and_then(|p| p.extension()).and_then(|e| e.to_str());
        match extension {
            Some("rules") => Some(Kind::Rules),
            Some("tsv") => Some(Kind::Corpus(Format::Tsv)),
            Some("jsonl") => Some(Kind::Corpus(Format::Jsonl)),
            _ if language_id == "rules" => Some(Kind::Rules),
            _ => None,
        }
    }
}

/// An open document.
#[derive(Debug, Clone)]
pub struct Document {
    pub kind: Kind,
    pub path: Option<PathBuf>,
    pub version: i32,
    pub text: Arc<String>,
    pub index: Arc<LineIndex>,
}

impl Document {
    pub fn new(kind: Kind, path: Option<PathBuf>, version: i32, text: String) -> Document {
        Document {
            kind,
            path,
            version,
            index: Arc::new(LineIndex::new(&text)),
            text: Arc::new(text),
        }
    }

    /// Applies `changes` in order and takes `version`.
    pub fn apply(
        &mut self,
        version: i32,
        changes: Vec<TextDocumentContentChangeEvent>,
        encoding: Encoding,
    ) {
        for change in changes {
            match change.range {
                None => {
                    self.text = Arc::new(change.text);
                }
                Some(range) => {
                    let range = Text {
                        text: &self.text,
                        index: &self.index,
                        encoding,
                    }
                    .range(range);
                    let text = Arc::make_mut(&mut self.text);
                    text.replace_range(
                        usize::from(range.start())..usize::from(range.end()),
                        &change.text,
                    );
                }
            }
            self.index = Arc::new(LineIndex::new(&self.text));
        }
        self.version = version;
    }

    /// The document's text with its index, for conversions.
    pub fn text(&self, encoding: Encoding) -> Text<'_> {
        Text {
            text: &self.text,
            index: &self.index,
            encoding,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tower_lsp_server::ls_types::{Position, Range};

    fn change(
        range: Option<((u32, u32), (u32, u32))>,
        text: &str,
    ) -> TextDocumentContentChangeEvent {
        TextDocumentContentChangeEvent {
            range: range.map(|(a, b)| Range::new(Position::new(a.0, a.1), Position::new(b.0, b.1))),
            range_length: None,
            text: text.to_string(),
        }
    }

    #[test]
    fn incremental_changes_apply_in_order_and_clamp() {
        let mut document = Document::new(Kind::Rules, None, 1, "ab😀\ncd\n".to_string());
        document.apply(
            2,
            vec![
                change(Some(((0, 1), (0, 2))), "X"),
                // Inside the emoji's surrogate pair (UTF-16 column 3): clamps to its start.
                change(Some(((0, 3), (0, 3))), "|"),
                // Past the line's end and past the last line.
                change(Some(((1, 99), (7, 0))), "!"),
            ],
            Encoding::Utf16,
        );
        assert_eq!(*document.text, "aX|😀\ncd!");
        assert_eq!(document.version, 2);
        assert_eq!(document.index.n_lines(), 2);
        document.apply(3, vec![change(None, "new")], Encoding::Utf16);
        assert_eq!(*document.text, "new");
    }
}

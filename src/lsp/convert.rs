//! Conversions between the library's byte offsets and LSP positions, and between the
//! library's values and protocol types: the only place that knows both.
//!
//! Positions count UTF-16 code units by default and UTF-8 bytes when the client offers
//! `utf-8` in `general.positionEncodings` (UTF-32, code points, is accepted too). A column
//! past a line's end clamps to the end, one inside a character (a surrogate pair, a multi-
//! byte UTF-8 sequence) to that character's start, and a line past the last to the end of
//! the text: editors send such positions and they must never panic.

use crate::diagnostic::{Diagnostic as LibDiagnostic, Severity};
use crate::text::{LineCol, LineIndex};
use std::path::PathBuf;
use text_size::{TextRange, TextSize};
use tower_lsp_server::ls_types::{
    Diagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    Position, PositionEncodingKind, Range, Uri,
};

/// How positions count columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// The best encoding the client offers: UTF-8 when it can, else UTF-16 (which every
    /// client supports).
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        let offered = offered.unwrap_or(&[]);
        if offered.contains(&PositionEncodingKind::UTF8) {
            Encoding::Utf8
        } else if offered.contains(&PositionEncodingKind::UTF16) || offered.is_empty() {
            Encoding::Utf16
        } else if offered.contains(&PositionEncodingKind::UTF32) {
            Encoding::Utf32
        } else {
            Encoding::Utf16
        }
    }

    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }
}

/// A text with its line index, as the conversions need it.
#[derive(Clone, Copy)]
pub struct Text<'a> {
    pub text: &'a str,
    pub index: &'a LineIndex,
    pub encoding: Encoding,
}

impl Text<'_> {
    /// The byte offset of an LSP position (clamped, see the module doc).
    pub fn offset(&self, position: Position) -> TextSize {
        let pos = LineCol {
            line: position.line,
            col: position.character,
        };
        match self.encoding {
            Encoding::Utf8 => self.index.offset(self.text, pos),
            Encoding::Utf16 => self.index.from_utf16(self.text, pos),
            Encoding::Utf32 => {
                let Some(range) = self.index.line_range(pos.line) else {
                    return TextSize::of(self.text);
                };
                let line = &self.text[range];
                let within = line
                    .char_indices()
                    .nth(pos.col as usize)
                    .map_or(line.len(), |(i, _)| i);
                range.start() + TextSize::from(within as u32)
            }
        }
    }

    /// The byte range of an LSP range, start and end clamped, end not before start.
    pub fn range(&self, range: Range) -> TextRange {
        let start = self.offset(range.start);
        let end = self.offset(range.end).max(start);
        TextRange::new(start, end)
    }

    /// The LSP position of a byte offset.
    pub fn position(&self, offset: TextSize) -> Position {
        let at = match self.encoding {
            Encoding::Utf8 => self.index.line_col(offset),
            Encoding::Utf16 => self.index.to_utf16(self.text, offset),
            Encoding::Utf32 => self.index.to_chars(self.text, offset),
        };
        Position::new(at.line, at.col)
    }

    /// The LSP range of a byte range.
    pub fn lsp_range(&self, range: TextRange) -> Range {
        Range::new(self.position(range.start()), self.position(range.end()))
    }

    /// A library diagnostic of this text as an LSP diagnostic.
    pub fn diagnostic(&self, uri: &Uri, diagnostic: &LibDiagnostic) -> Diagnostic {
        let mut message = diagnostic.message.clone();
        if let Some(help) = &diagnostic.help {
            message.push_str("\nhelp: ");
            message.push_str(help);
        }
        let related: Vec<DiagnosticRelatedInformation> = diagnostic
            .related
            .iter()
            .map(|related| DiagnosticRelatedInformation {
                location: Location::new(uri.clone(), self.lsp_range(related.range)),
                message: related.message.clone(),
            })
            .collect();
        Diagnostic {
            range: self.lsp_range(diagnostic.range),
            severity: Some(match diagnostic.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Info => DiagnosticSeverity::INFORMATION,
                Severity::Hint => DiagnosticSeverity::HINT,
            }),
            code: Some(NumberOrString::String(diagnostic.code.as_str().to_string())),
            source: Some("rulelens".to_string()),
            message,
            related_information: (!related.is_empty()).then_some(related),
            ..Diagnostic::default()
        }
    }
}

/// The file a URI names, for `file:` URIs.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let path = uri.to_file_path()?;
    Some(path.into_owned())
}

/// The `file:` URI of a path.
pub fn uri_of(path: &std::path::Path) -> Option<Uri> {
    Uri::from_file_path(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_round_trip_and_clamp_in_every_encoding() {
        let text = "a😀é\nxy";
        let index = LineIndex::new(text);
        for encoding in [Encoding::Utf8, Encoding::Utf16, Encoding::Utf32] {
            let t = Text {
                text,
                index: &index,
                encoding,
            };
            for offset in [0u32, 1, 5, 7, 8, 10] {
                let offset = TextSize::from(offset);
                assert_eq!(t.offset(t.position(offset)), offset, "{encoding:?}");
            }
            // Past the end of a line, and past the last line.
            assert_eq!(t.offset(Position::new(0, 99)), TextSize::from(7));
            assert_eq!(t.offset(Position::new(9, 0)), TextSize::of(text));
        }
        let utf16 = Text {
            text,
            index: &index,
            encoding: Encoding::Utf16,
        };
        // Inside the surrogate pair of 😀: its start.
        assert_eq!(utf16.offset(Position::new(0, 2)), TextSize::from(1));
        assert_eq!(utf16.position(TextSize::from(7)), Position::new(0, 4));
        let utf8 = Text {
            encoding: Encoding::Utf8,
            ..utf16
        };
        // Inside the 4 bytes of 😀: its start.
        assert_eq!(utf8.offset(Position::new(0, 3)), TextSize::from(1));
    }
}

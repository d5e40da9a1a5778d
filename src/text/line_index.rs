//! Byte offset ↔ (line, column) conversion.
//!
//! Lines end with `\n`, `\r\n` or a lone `\r`, as LSP 3.17 counts them; a line's range
//! leaves its terminator out.
//! Columns are counted in bytes, in UTF-16 code units (LSP's default) or in chars (the CLI's
//! rustc-style display). Building the index is O(n); each lookup is O(log lines) plus the
//! length of the line for UTF-16 and char columns. Offsets past the end, or inside a
//! character, are clamped rather than rejected: editors send such positions.

use text_size::{TextRange, TextSize};

/// A zero-based line and a zero-based column whose unit depends on the method that made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// The start offset of every line of one text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    // Invariant: starts with 0, strictly increasing, each entry just after a line terminator.
    line_starts: Vec<TextSize>,
    // Invariant: one per line, where its text ends (before its terminator).
    line_ends: Vec<TextSize>,
    len: TextSize,
}

impl LineIndex {
    /// Indexes `text`.
    ///
    /// ```
    /// use rulelens::text::{LineCol, LineIndex};
    /// let index = LineIndex::new("ab\ncd");
    /// assert_eq!(index.line_col(3.into()), LineCol { line: 1, col: 0 });
    /// ```
    pub fn new(text: &str) -> LineIndex {
        let bytes = text.as_bytes();
        let mut line_starts = vec![TextSize::from(0)];
        let mut line_ends = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            let terminator = match bytes[i] {
                b'\n' => 1,
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => 2,
                b'\r' => 1,
                _ => 0,
            };
            if terminator > 0 {
                line_ends.push(TextSize::from(i as u32));
                line_starts.push(TextSize::from((i + terminator) as u32));
                i += terminator;
            } else {
                i += 1;
            }
        }
        line_ends.push(TextSize::of(text));
        LineIndex {
            line_starts,
            line_ends,
            len: TextSize::of(text),
        }
    }

    /// Number of lines (a text ending in `\n` has an empty last line).
    pub fn n_lines(&self) -> usize {
        self.line_starts.len()
    }

    /// The line and byte column of `offset`; offsets past the end clamp to the end.
    pub fn line_col(&self, offset: TextSize) -> LineCol {
        let offset = offset.min(self.len);
        let line = self.line_starts.partition_point(|&start| start <= offset) - 1;
        LineCol {
            line: line as u32,
            col: u32::from(offset - self.line_starts[line]),
        }
    }

    /// The range of `line` without its terminator, or `None` past the last line.
    pub fn line_range(&self, line: u32) -> Option<TextRange> {
        let start = *self.line_starts.get(line as usize)?;
        let end = *self.line_ends.get(line as usize)?;
        Some(TextRange::new(start, end))
    }

    /// The offset of a line and byte column, clamped to the line's end (and to a char boundary
    /// of `text`, which must be the indexed text).
    pub fn offset(&self, text: &str, pos: LineCol) -> TextSize {
        let Some(range) = self.line_range(pos.line) else {
            return self.len;
        };
        let mut offset = (u32::from(range.start()) + pos.col).min(u32::from(range.end())) as usize;
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        TextSize::from(offset as u32)
    }

    /// The line and UTF-16 column of `offset` (LSP's default position encoding).
    pub fn to_utf16(&self, text: &str, offset: TextSize) -> LineCol {
        self.to_unit(text, offset, char::len_utf16)
    }

    /// The line and char column of `offset`, as rustc displays columns.
    pub fn to_chars(&self, text: &str, offset: TextSize) -> LineCol {
        self.to_unit(text, offset, |_| 1)
    }

    fn to_unit(&self, text: &str, offset: TextSize, width: impl Fn(char) -> usize) -> LineCol {
        let LineCol { line, col } = self.line_col(offset);
        let start = usize::from(self.line_starts[line as usize]);
        let end = start + col as usize;
        let col = text
            .get(start..)
            .unwrap_or("")
            .char_indices()
            .take_while(|&(i, _)| start + i < end)
            .map(|(_, c)| width(c))
            .sum::<usize>();
        LineCol {
            line,
            col: col as u32,
        }
    }

    /// The offset of a line and UTF-16 column. A column past the line's end clamps to the end;
    /// one inside a surrogate pair clamps to the start of that character.
    pub fn from_utf16(&self, text: &str, pos: LineCol) -> TextSize {
        let Some(range) = self.line_range(pos.line) else {
            return self.len;
        };
        let line = &text[range];
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            units += c.len_utf16();
            if units > pos.col as usize {
                return range.start() + TextSize::from(i as u32);
            }
        }
        range.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_round_trip_with_astral_chars() {
        let text = "a😀b\nxé\n";
        let index = LineIndex::new(text);
        assert_eq!(index.n_lines(), 3);
        let b = TextSize::from(5);
        assert_eq!(index.to_utf16(text, b), LineCol { line: 0, col: 3 });
        assert_eq!(index.from_utf16(text, LineCol { line: 0, col: 3 }), b);
        // Inside the surrogate pair: clamps to the emoji's start.
        assert_eq!(
            index.from_utf16(text, LineCol { line: 0, col: 2 }),
            TextSize::from(1)
        );
        // Past the end of a line: clamps to its end.
        assert_eq!(
            index.from_utf16(text, LineCol { line: 1, col: 99 }),
            TextSize::from(10)
        );
        assert_eq!(index.to_chars(text, b), LineCol { line: 0, col: 2 });
    }

    #[test]
    fn lines_end_with_lf_crlf_or_a_lone_cr() {
        let text = "a\nb\r\nc\rd";
        let index = LineIndex::new(text);
        assert_eq!(index.n_lines(), 4);
        let lines: Vec<&str> = (0..4)
            .map(|line| &text[index.line_range(line).unwrap()])
            .collect();
        assert_eq!(lines, ["a", "b", "c", "d"]);
        assert_eq!(
            index.line_col(TextSize::from(7)),
            LineCol { line: 3, col: 0 }
        );
        // A column past a CRLF line's end clamps before its `\r`.
        assert_eq!(
            index.offset(text, LineCol { line: 1, col: 5 }),
            TextSize::from(3)
        );
    }
}

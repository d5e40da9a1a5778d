//! Byte offset ↔ (line, column) conversion.
//!
//! Lines are separated by `\n`; a `\r` before it belongs to the line's text, as in LSP.
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
    // Invariant: starts with 0, strictly increasing, each entry just after a `\n`.
    line_starts: Vec<TextSize>,
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
        let mut line_starts = vec![TextSize::from(0)];
        line_starts.extend(
            text.bytes()
                .enumerate()
                .filter(|&(_, b)| b == b'\n')
                .map(|(i, _)| TextSize::from(i as u32 + 1)),
        );
        LineIndex {
            line_starts,
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

    /// The range of `line` without its `\n`, or `None` past the last line.
    pub fn line_range(&self, line: u32) -> Option<TextRange> {
        let start = *self.line_starts.get(line as usize)?;
        let end = match self.line_starts.get(line as usize + 1) {
            Some(&next) => next - TextSize::from(1),
            None => self.len,
        };
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
}

//! Text edits as data: what a rename (and later a code action) changes, file by file.
//!
//! An edit replaces a byte range of one text with new text, as ruff's `Edit` and
//! rust-analyzer's `TextEdit` do; [`apply`] applies a list of them in one pass, O(length of
//! the text plus the new text). The language server turns these into protocol edits.
//! Deliberately not here: reading or writing files, and positions in lines and columns.

use std::path::PathBuf;
use text_size::TextRange;

/// Replace `range` with `new_text` (an empty range inserts, empty text deletes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

/// The edits to one file: the rules file itself (`path: None`) or a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdits {
    /// `None` for the rules file the request was about; a corpus file's path as the caller
    /// gave it otherwise.
    pub path: Option<PathBuf>,
    /// Sorted by position, non-overlapping, with ranges into that file's text.
    pub edits: Vec<TextEdit>,
}

/// `text` with `edits` applied. Edits are applied in order of their start (stably, so two
/// insertions at one offset keep their order); an edit that overlaps an earlier one, ends
/// past the text or splits a character is skipped, so that no input can panic.
///
/// ```
/// use rulelens::ide::{apply, TextEdit};
/// use text_size::{TextRange, TextSize};
/// let edits = [
///     TextEdit { range: TextRange::new(0.into(), 4.into()), new_text: "junk".into() },
///     TextEdit { range: TextRange::empty(TextSize::from(9)), new_text: "!".into() },
/// ];
/// assert_eq!(apply("spam: $* free $*", &edits), "junk: $* !free $*");
/// ```
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|edit| edit.range.start());
    let mut res = String::with_capacity(text.len());
    let mut copied = 0usize;
    for edit in sorted {
        let (start, end) = (
            usize::from(edit.range.start()),
            usize::from(edit.range.end()),
        );
        let fits = copied <= start && text.get(start..end).is_some();
        if !fits {
            continue;
        }
        // In bounds and on char boundaries: `start` was checked just above, and `copied` is
        // 0 or the end of an edit checked before.
        res.push_str(&text[copied..start]);
        res.push_str(&edit.new_text);
        copied = end;
    }
    res.push_str(&text[copied..]);
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use text_size::TextSize;

    fn edit(start: u32, end: u32, new_text: &str) -> TextEdit {
        TextEdit {
            range: TextRange::new(TextSize::from(start), TextSize::from(end)),
            new_text: new_text.to_string(),
        }
    }

    fn check_apply(text: &str, edits: &[TextEdit], expected: &str) {
        assert_eq!(apply(text, edits), expected);
    }

    #[test]
    fn applies_unsorted_edits_in_order() {
        check_apply(
            "spam <- a & b",
            &[edit(12, 13, "c"), edit(0, 4, "junk")],
            "junk <- a & c",
        );
    }

    #[test]
    fn keeps_insertions_at_one_offset_in_order() {
        check_apply(
            "ab",
            &[edit(1, 1, "x"), edit(1, 1, "y"), edit(1, 2, "Z")],
            "axyZ",
        );
    }

    #[test]
    fn skips_edits_that_overlap_or_do_not_fit() {
        // Overlapping the first, past the end, and inside `é`.
        check_apply(
            "héllo",
            &[
                edit(0, 3, "H"),
                edit(1, 4, "?"),
                edit(4, 99, "?"),
                edit(2, 2, "?"),
            ],
            "Hllo",
        );
    }
}

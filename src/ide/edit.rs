//! Text edits in byte offsets.

use text_size::TextRange;

/// Replace `range` of a text with `new_text`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    pub range: TextRange,
    pub new_text: String,
}

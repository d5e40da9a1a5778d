//! Fixtures for the `ide` tests, in rust-analyzer's style: `$0` marks the cursor in a rules
//! text, and results render as the lines they point into with `^` under each range.

use crate::rules_file::RulesFile;
use crate::text::SourceText;
use text_size::{TextRange, TextSize};

/// The front end on `text`, as the language server will run it.
pub(super) fn analyze(text: &str) -> RulesFile {
    RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    )
}

/// The analyzed fixture without its `$0`, and the offset `$0` marked.
pub(super) fn fixture(with_cursor: &str) -> (RulesFile, TextSize) {
    let offset = with_cursor
        .find("$0")
        .unwrap_or_else(|| panic!("no `$0` cursor in {with_cursor:?}"));
    let text = with_cursor.replacen("$0", "", 1);
    (analyze(&text), TextSize::from(offset as u32))
}

/// Each line of `text` that one of `ranges` starts on, followed by a line with `^` under
/// every range on it (at least one `^`, columns in chars); `<none>` if there are no ranges.
pub(super) fn annotate(text: &str, ranges: &[TextRange]) -> String {
    if ranges.is_empty() {
        return "<none>".to_string();
    }
    let mut res = Vec::new();
    let mut line_start = 0usize;
    for line in text.split('\n') {
        let line_end = line_start + line.len();
        let mut carets = String::new();
        for range in ranges {
            let start = usize::from(range.start());
            if start < line_start || start > line_end {
                continue;
            }
            let column = text[line_start..start].chars().count();
            let width = text[start..usize::from(range.end()).min(line_end)]
                .chars()
                .count()
                .max(1);
            while carets.chars().count() < column {
                carets.push(' ');
            }
            carets.push_str(&"^".repeat(width));
        }
        if !carets.is_empty() {
            res.push(line.to_string());
            res.push(carets);
        }
        line_start = line_end + 1;
    }
    res.join("\n")
}

/// `range` as `line:column-line:column`, 1-based lines and 0-based char columns.
pub(super) fn position(text: &str, range: TextRange) -> String {
    let at = |offset: TextSize| {
        let before = &text[..usize::from(offset)];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count();
        format!("{line}:{column}")
    };
    format!("{}-{}", at(range.start()), at(range.end()))
}

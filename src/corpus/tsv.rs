//! TSV corpus lines: `label<TAB>text`; a line without a tab is unlabeled text.
//!
//! Only the first tab separates; later tabs belong to the text. An empty label (a line
//! starting with a tab) means unlabeled. Labels are trimmed of spaces.

use super::Example;
use text_size::{TextRange, TextSize};

pub(super) fn parse_line(line: &str, line_range: TextRange, line_number: u32) -> Example {
    let start = line_range.start();
    match line.split_once('\t') {
        Some((label, text)) => {
            let label_trimmed = label.trim();
            let label_start =
                start + TextSize::of(&label[..label.len() - label.trim_start().len()]);
            let text_start = start + TextSize::of(label) + TextSize::from(1);
            Example {
                text: text.to_string(),
                label: (!label_trimmed.is_empty()).then(|| label_trimmed.to_string()),
                line: line_number,
                text_range: Some(TextRange::at(text_start, TextSize::of(text))),
                label_range: Some(TextRange::at(label_start, TextSize::of(label_trimmed))),
            }
        }
        None => Example {
            text: line.to_string(),
            label: None,
            line: line_number,
            text_range: Some(line_range),
            label_range: None,
        },
    }
}

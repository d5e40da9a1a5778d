//! TSV corpus lines: `label<TAB>text`; a line without a tab is unlabeled text.
//!
//! Only the first tab separates; later tabs belong to the text. An empty label (a line
//! starting with a tab) means unlabeled. Labels are trimmed of spaces.

use super::Example;
use crate::diagnostic::{Code, Diagnostic};
use std::collections::HashSet;
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

/// The most lines a [`unlabeled_by_mistake`] warning lists by number.
const LISTED_LINES: usize = 5;

/// A warning for the lines of a TSV corpus that look labeled but are read as unlabeled text:
/// those without a tab whose first word is a label of the file's labeled lines followed by a
/// space (a label separated by spaces), and those starting with a tab (an empty label); one
/// warning each, at the first such line, counting them and listing the first line numbers.
pub(super) fn unlabeled_by_mistake(examples: &[Example], lines: &[&str]) -> Vec<Diagnostic> {
    let labels: HashSet<&str> = examples.iter().filter_map(|e| e.label.as_deref()).collect();
    if labels.is_empty() {
        return Vec::new();
    }
    let (mut spaced, mut empty) = (Vec::new(), Vec::new());
    for (example, line) in examples.iter().zip(lines) {
        if example.label.is_some() {
            continue;
        }
        if line.contains('\t') {
            empty.push(example);
        } else if line
            .split_once(' ')
            .is_some_and(|(first, _)| labels.contains(first.trim()))
        {
            spaced.push(example);
        }
    }
    let warn = |found: &[&Example], what: &str, help: &str| {
        let first = found.first()?;
        let numbers: Vec<String> = found
            .iter()
            .take(LISTED_LINES)
            .map(|e| (e.line + 1).to_string())
            .collect();
        let more = found.len().saturating_sub(LISTED_LINES);
        let listed = if more > 0 {
            format!("{} and {more} more", numbers.join(", "))
        } else {
            numbers.join(", ")
        };
        Some(
            Diagnostic::new(
                Code::LabelWithoutTab,
                // The empty label's place, or the whole line.
                first.label_range.or(first.text_range).unwrap_or_default(),
                format!(
                    "{} line{} {what} (line{} {listed}); read as unlabeled text",
                    found.len(),
                    if found.len() == 1 { "" } else { "s" },
                    if found.len() == 1 { "" } else { "s" },
                ),
            )
            .with_help(help),
        )
    };
    [
        warn(
            &spaced,
            "start with a label of this corpus and a space, not a tab",
            "separate the label from the text with a tab: `label<TAB>text`",
        ),
        warn(
            &empty,
            "start with a tab: the label before it is empty",
            "write the label before the tab, or remove the tab for unlabeled text",
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

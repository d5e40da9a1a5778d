//! Edits of a rules text that keep its meaning elsewhere: a rule goes after its label's
//! last rule, so that no label's priority (the place of its first rule) moves.

use crate::rules_file::RulesFile;

/// The rules text with `rule` on a new line after `label`'s last rule (or at the end).
pub fn insert_rule(file: &RulesFile, label: &str, rule: &str) -> String {
    let text = &file.source.text;
    let after = file
        .rules
        .label_by_name(label)
        .and_then(|id| file.rules.labels[id.index()].rules.last())
        .map(|last| usize::from(last.range.end()));
    match after {
        Some(end) => {
            let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
            let mut out = text.clone();
            out.insert_str(line_end, &format!("\n{rule}"));
            out
        }
        None => {
            let mut out = text.clone();
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(rule);
            out.push('\n');
            out
        }
    }
}

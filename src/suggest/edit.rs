//! How an [`Edit`] applies to a rules text ([`Edit::apply`]), keeping its meaning
//! elsewhere: a rule goes after its label's last rule, so that no label's priority (the
//! place of its first rule) moves; a rule removed or rewritten must still be on its line,
//! as it was read.

use super::candidate::Edit;
use super::file_rules::regex_range;
use super::priority;
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

impl Edit {
    /// The rules text after the edit; `None` when the rule to remove or rewrite is not
    /// there (on its line, with its label and regex; a regex or statement replaced must be
    /// a whole one of a rule `LABEL: REGEX`).
    pub fn apply(&self, file: &RulesFile) -> Option<String> {
        match self {
            Edit::AddRule { label, regex } => {
                Some(insert_rule(file, label, &format!("{label}: {regex}")))
            }
            Edit::RemoveRule { label, regex, line } => {
                let text = &file.source.text;
                let def = rule_on_line(file, label, regex, *line)?;
                let start = usize::from(def.range.start());
                let end = usize::from(def.range.end());
                let start = text[..start].rfind('\n').map_or(0, |i| i + 1);
                let end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
                Some(format!("{}{}", &text[..start], &text[end..]))
            }
            Edit::RaiseLabel {
                label,
                above,
                line,
                statement,
                before_line,
            } => priority::raise(file, label, above, *line, statement, *before_line),
            Edit::SetDefault {
                label,
                new_label,
                range,
                ..
            } => {
                let text = &file.source.text;
                let default = file.rules.default?;
                let range = std::ops::Range::<usize>::from(*range);
                (file.rules.labels[default.index()].name == *label
                    && text.get(range.clone()) == Some(label.as_str()))
                .then(|| format!("{}{new_label}{}", &text[..range.start], &text[range.end..]))
            }
            Edit::Relabel {
                label,
                new_label,
                line,
                regex,
                range,
            } => {
                let text = &file.source.text;
                let def = rule_on_line(file, label, regex, *line)?;
                file.rules.label_by_name(new_label)?;
                if def.name_range != *range {
                    return None;
                }
                let range = std::ops::Range::<usize>::from(*range);
                (text.get(range.clone()) == Some(label.as_str()))
                    .then(|| format!("{}{new_label}{}", &text[..range.start], &text[range.end..]))
            }
            Edit::ReplaceRegex {
                old, new, range, ..
            } => {
                let text = &file.source.text;
                let whole = file.rules.patterns.iter().any(|def| {
                    def.anonymous && regex_range(text, def.name_range, def.range) == Some(*range)
                });
                let range = std::ops::Range::<usize>::from(*range);
                if !whole || text.get(range.clone()) != Some(old.as_str()) {
                    return None;
                }
                Some(format!(
                    "{}{new}{}",
                    &text[..range.start],
                    &text[range.end..]
                ))
            }
            Edit::AddException {
                label,
                regex,
                exception,
                pattern,
                exception_name,
                statement,
                range,
                ..
            } => {
                let text = &file.source.text;
                let range_of_statement = range;
                let range = std::ops::Range::<usize>::from(*range);
                let taken = |name: &str| {
                    file.rules.patterns.iter().any(|def| def.name == name)
                        || file.rules.label_by_name(name).is_some()
                };
                let whole = file
                    .rules
                    .patterns
                    .iter()
                    .any(|def| def.anonymous && def.range == *range_of_statement);
                if text.get(range.clone()) != Some(statement.as_str())
                    || !whole
                    || taken(pattern)
                    || taken(exception_name)
                {
                    return None;
                }
                let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
                let indent = &text[line_start..range.start];
                let indent = if indent.trim().is_empty() { indent } else { "" };
                let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
                Some(format!(
                    "{}pattern {pattern} = {regex}{newline}{indent}pattern {exception_name} = \
                     {exception}{newline}{indent}{label} <- {pattern} & !{exception_name}{}",
                    &text[..range.start],
                    &text[range.end..]
                ))
            }
        }
    }
}

/// The anonymous rule `LABEL: REGEX` on 1-based line `line` of `file`, if it is there.
fn rule_on_line<'f>(
    file: &'f RulesFile,
    label: &str,
    regex: &str,
    line: u32,
) -> Option<&'f crate::syntax::PatternDef> {
    let text = &file.source.text;
    let label = file.rules.label_by_name(label)?;
    file.rules.patterns.iter().find(|def| {
        def.anonymous
            && def.line == line
            && def.labels == [label]
            && text.get(def.regex.range.start().into()..def.regex.range.end().into()) == Some(regex)
    })
}

//! The rules `LABEL: REGEX` of a file that widening and narrowing rewrite ([`rules_of`]),
//! each with its elements, and where a statement's regex is in the text
//! ([`regex_range`]). Below the producers that share them.

use crate::automata::PatternElements;
use crate::rules_file::RulesFile;
use text_size::{TextRange, TextSize};

/// The most elements (`$*` included) of a rule that widening or narrowing rewrites.
pub const MAX_ELEMENTS: usize = 12;

/// A rule `LABEL: REGEX` of the file that widening (or narrowing) may rewrite.
pub(super) struct Rule {
    /// Its pattern's index in the rule set.
    pub(super) pattern: usize,
    pub(super) label: String,
    pub(super) line: u32,
    /// Its regex's bytes in the rules text.
    pub(super) regex: TextRange,
    pub(super) elements: PatternElements,
}

/// The rules `LABEL: REGEX` of the file that widening may rewrite, for `label` (or every
/// label), with their elements.
pub(super) fn rules_of(file: &RulesFile, label: Option<&str>) -> Vec<Rule> {
    let text = &file.source.text;
    let rules = &file.rules;
    rules
        .patterns
        .iter()
        .enumerate()
        .filter_map(|(p, def)| {
            let [id] = def.labels.as_slice() else {
                return None;
            };
            let name = &rules.labels.get(id.index())?.name;
            if !def.anonymous || label.is_some_and(|label| label != name) {
                return None;
            }
            file.system.patterns().get(p)?.dfa.as_ref()?;
            Some(Rule {
                pattern: p,
                label: name.clone(),
                line: def.line,
                regex: regex_range(text, def.name_range, def.range)?,
                elements: PatternElements::new(&def.regex, file.system.alphabet())?,
            })
        })
        .collect()
}

/// The regex of the statement `LABEL: REGEX` at `statement`, as written (a group's
/// parentheses at either end included).
pub(super) fn regex_range(text: &str, label: TextRange, statement: TextRange) -> Option<TextRange> {
    let (from, to) = (usize::from(label.end()), usize::from(statement.end()));
    let body = text.get(from..to)?;
    let after = &body[body.find(':')? + 1..];
    let start = to - after.len() + (after.len() - after.trim_start().len());
    let end = to - (after.len() - after.trim_end().len());
    Some(TextRange::new(
        TextSize::from(start as u32),
        TextSize::from(end.max(start) as u32),
    ))
}

//! The suggestion engine's edits (`crate::suggest`, computed on save) as code actions, each
//! where it belongs and titled with its evidence:
//!
//! - a rule removed, widened, narrowed or relabeled: on that rule's statement; a label
//!   raised: on its first rule's statement;
//! - a rule added: on the statements of its label (on the label's `default` statement when it
//!   has no rules yet; on the `default` statement for a label the rules do not name), and on
//!   every train or dev line it makes right.
//!
//! A suggestion was measured against the saved rules; its edit is applied to the current
//! text again ([`Edit::apply`]), and left out when it no longer applies (the rule it removes
//! is gone) or changes nothing (the rule it adds is there already, perhaps spelled
//! otherwise). A corpus line is matched with the saved corpus by line number and text, so an
//! edited line gets no stale offer.

use super::analysis::{CorpusRun, PatternKey};
use super::code_actions::{Action, ActionKind, minimal_edit};
use super::edit::TextEdit;
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::suggest::{Edit, Source, Suggestion};
use crate::syntax::LabelId;
use crate::text::SourceText;
use text_size::TextRange;

/// The most suggestions offered at one place: the best by dev gain (the order they come
/// in); the `rulelens/suggest` request lists them all.
pub const MAX_ACTIONS_PER_PLACE: usize = 3;

/// `Add rule \`num: how $* much $*\` (fixes 212 train lines, breaks 3; dev 57.0 → 63.4 %)`;
/// a SoPa's learned pattern: `Add learned pattern \`spam: …\` (precision 97.5 % of 120 train
/// matches; fixes …)`.
pub fn suggestion_title(suggestion: &Suggestion) -> String {
    let evidence = &suggestion.evidence;
    let mut precision = String::new();
    let what = match &suggestion.edit {
        Edit::AddRule { label, regex } if suggestion.source == Source::Learned => {
            precision = format!(
                "precision {:.1} % of {} train matches; ",
                100.0 * evidence.train_precision,
                evidence.train_matches
            );
            format!("Add learned pattern `{label}: {regex}`")
        }
        Edit::AddRule { label, regex } => format!("Add rule `{label}: {regex}`"),
        Edit::RemoveRule { label, regex, line } => {
            format!("Remove rule `{label}: {regex}` (line {line})")
        }
        Edit::ReplaceRegex {
            label, old, new, ..
        } => {
            let verb = match suggestion.source {
                Source::Widening => "Widen",
                Source::Narrowing => "Narrow",
                _ => "Rewrite",
            };
            format!("{verb} `{label}: {old}` to `{label}: {new}`")
        }
        Edit::AddException {
            label,
            regex,
            exception,
            ..
        } => format!("Narrow `{label}: {regex}` to exclude `{exception}`"),
        Edit::Relabel {
            label,
            new_label,
            regex,
            ..
        } => format!("Relabel `{label}: {regex}` as `{new_label}`"),
        Edit::RaiseLabel {
            label,
            above,
            statement,
            before_line,
            ..
        } => format!(
            "Give `{label}` priority over `{above}`: move `{statement}` above line {before_line}"
        ),
        Edit::SetDefault {
            label, new_label, ..
        } => format!("Make `{new_label}` the default (was `{label}`)"),
    };
    let lines = |n: usize| if n == 1 { "line" } else { "lines" };
    format!(
        "{what} ({precision}fixes {} train {}, breaks {}; dev {:.1} → {:.1} %)",
        evidence.fixed,
        lines(evidence.fixed),
        evidence.broken,
        100.0 * evidence.dev_before,
        100.0 * evidence.dev_after
    )
}

/// One line on the suggestion's source and precision, for a picker's detail.
pub fn suggestion_detail(suggestion: &Suggestion) -> String {
    let source = match (suggestion.source, &suggestion.edit) {
        (Source::Induction, _) => "induced from the misclassified train lines",
        (Source::Narrowing, Edit::RemoveRule { .. }) => "an imprecise rule removed",
        (Source::Narrowing, _) => "an imprecise rule narrowed where it wins train lines wrongly",
        (Source::Widening, _) => {
            "a rule widened where it fails at one element on lines of its label"
        }
        (Source::Reconstruction, _) => "the rule as the trained network reads it back",
        (Source::Learned, _) => "a pattern a SoPa learned from the corpus, read back as a rule",
        (Source::Priority, _) => {
            "a label given priority over another where both fire; the lines it comes to win"
        }
        (Source::Relabeling, _) => {
            "an imprecise rule given the label its train matches mostly have"
        }
        (Source::Default, _) => {
            "the default changed, so that the old default's rules can win lines; the lines no rule fires on"
        }
    };
    let evidence = &suggestion.evidence;
    format!(
        "{source}; the rule matches {} train lines, {:.1} % of them its label; fixes {} dev lines, breaks {}",
        evidence.train_matches,
        100.0 * evidence.train_precision,
        suggestion.dev_lines.fixed.len(),
        suggestion.dev_lines.broken.len()
    )
}

/// The suggestion's edit of the current rules `file`; `None` when it no longer applies or
/// would change nothing.
pub fn suggestion_edit(file: &RulesFile, suggestion: &Suggestion) -> Option<TextEdit> {
    if let Edit::AddRule { label, regex } = &suggestion.edit {
        let alone = RulesFile::analyze(
            SourceText::from_bytes(format!("{label}: {regex}\n").as_bytes()),
            None,
            &Default::default(),
        );
        let key = PatternKey::all(&alone.rules).into_iter().next()?;
        let same_label = file.rules.label_by_name(label);
        let present = file.rules.patterns.iter().enumerate().any(|(p, def)| {
            def.labels.iter().any(|&id| Some(id) == same_label)
                && PatternKey::of(&file.rules, crate::syntax::PatternId(p as u32)) == key
        });
        if present {
            return None;
        }
    }
    let new_text = suggestion.edit.apply(file)?;
    (new_text != file.source.text).then(|| minimal_edit(&file.source.text, &new_text))
}

/// Where the suggestion is offered in the rules file.
fn places(file: &RulesFile, edit: &Edit) -> Vec<TextRange> {
    let rules = &file.rules;
    match edit {
        Edit::RemoveRule { line, .. }
        | Edit::ReplaceRegex { line, .. }
        | Edit::AddException { line, .. }
        | Edit::Relabel { line, .. } => rules
            .patterns
            .iter()
            .filter(|def| def.anonymous && def.line == *line)
            .map(|def| def.range)
            .collect(),
        Edit::SetDefault { range, .. } => vec![*range],
        Edit::RaiseLabel { label, line, .. } => rules
            .label_by_name(label)
            .map(|id| &rules.labels[id.index()].rules)
            .into_iter()
            .flatten()
            .filter(|rule| rule.line == *line)
            .map(|rule| rule.range)
            .collect(),
        Edit::AddRule { label, .. } => {
            let of_label = |id: LabelId| {
                let def = &rules.labels[id.index()];
                if def.rules.is_empty() {
                    vec![def.range]
                } else {
                    def.rules.iter().map(|rule| rule.range).collect()
                }
            };
            match rules.label_by_name(label).or(rules.default) {
                Some(id) => of_label(id),
                None => Vec::new(),
            }
        }
    }
}

fn action(file: &RulesFile, suggestion: &Suggestion, kind: ActionKind) -> Option<Action> {
    Some(Action {
        title: suggestion_title(suggestion),
        kind,
        edit: suggestion_edit(file, suggestion)?,
    })
}

/// The suggestions offered where `range` touches the current rules `file`, best first, at
/// most [`MAX_ACTIONS_PER_PLACE`].
pub fn rules_suggestion_actions(
    file: &RulesFile,
    range: TextRange,
    suggestions: &[Suggestion],
) -> Vec<Action> {
    suggestions
        .iter()
        .filter(|s| {
            places(file, &s.edit)
                .iter()
                .any(|place| place.intersect(range).is_some())
        })
        .filter_map(|s| action(file, s, ActionKind::RefactorRewrite))
        .take(MAX_ACTIONS_PER_PLACE)
        .collect()
}

/// The suggestions that make `example` right, when it is the line of the saved corpus `run`
/// it was (same line, same text): quick fixes on the current rules `file`, best first, at
/// most [`MAX_ACTIONS_PER_PLACE`].
pub fn line_suggestion_actions(
    example: &Example,
    run: &CorpusRun,
    file: &RulesFile,
    suggestions: &[Suggestion],
) -> Vec<Action> {
    let examples = &run.file.examples;
    let saved = examples
        .binary_search_by_key(&example.line, |e| e.line)
        .ok()
        .map(|i| &examples[i]);
    if saved.is_none_or(|saved| saved.text != example.text || saved.label != example.label) {
        return Vec::new();
    }
    let number = example.line + 1;
    suggestions
        .iter()
        .filter(|s| {
            let lines = match run.name.as_str() {
                "train" => &s.train_lines,
                "dev" => &s.dev_lines,
                _ => return false,
            };
            lines.fixed.binary_search(&number).is_ok()
        })
        .filter_map(|s| action(file, s, ActionKind::QuickFix))
        .take(MAX_ACTIONS_PER_PLACE)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::{CorpusFile, Format};
    use crate::ide::analyze;
    use crate::suggest::fixture::{
        TRAIN, WHAT_RULES, rules, suggest_on_fixture, suggest_on_questions,
    };
    use std::sync::Arc;

    /// The fixture's train corpus as the server reads a TSV file.
    fn train_run(file: &RulesFile) -> CorpusRun {
        let tsv: String = TRAIN
            .iter()
            .map(|(label, text)| format!("{label}\t{text}\n"))
            .collect();
        let corpus = CorpusFile::parse(
            "train.tsv".into(),
            Format::Tsv,
            SourceText::from_bytes(tsv.as_bytes()),
        );
        let analysis = analyze(
            Arc::new(file.clone()),
            vec![("train".to_string(), corpus)],
            &|| false,
        )
        .unwrap();
        analysis.corpora.into_iter().next().unwrap()
    }

    fn range_of(file: &RulesFile, needle: &str) -> TextRange {
        let start = file.source.text.find(needle).unwrap();
        TextRange::at((start as u32).into(), (needle.len() as u32).into())
    }

    #[test]
    fn a_new_rule_is_offered_on_its_labels_rules_and_on_the_lines_it_fixes_with_its_evidence() {
        let file = rules("default ham\nspam: $* free $*\n");
        let suggestions = suggest_on_fixture(&file);
        let title =
            "Add rule `spam: $* call % $*` (fixes 4 train lines, breaks 0; dev 50.0 → 100.0 %)";
        assert_eq!(suggestion_title(&suggestions[0]), title);
        // On the label's rule, not on the default's line.
        let on_rule = rules_suggestion_actions(&file, range_of(&file, "free"), &suggestions);
        assert_eq!(on_rule[0].title, title);
        assert_eq!(on_rule[0].kind, ActionKind::RefactorRewrite);
        let edited = crate::ide::apply(&file.source.text, std::slice::from_ref(&on_rule[0].edit));
        assert_eq!(
            edited,
            "default ham\nspam: $* free $*\nspam: $* call % $*\n"
        );
        let on_default = rules_suggestion_actions(&file, range_of(&file, "ham"), &suggestions);
        assert!(on_default.iter().all(|a| a.title != title));
        // On a train line it fixes, and not on one it does not.
        let run = train_run(&file);
        let fixed = &run.file.examples[0];
        let actions = line_suggestion_actions(fixed, &run, &file, &suggestions);
        assert_eq!(actions[0].title, title);
        assert_eq!(actions[0].kind, ActionKind::QuickFix);
        let ham = &run.file.examples[TRAIN.len() - 1];
        assert!(line_suggestion_actions(ham, &run, &file, &suggestions).is_empty());
        // A line edited since the save gets no offer.
        let mut edited_line = fixed.clone();
        edited_line.text.push_str(" again");
        assert!(line_suggestion_actions(&edited_line, &run, &file, &suggestions).is_empty());
    }

    #[test]
    fn a_suggestion_that_no_longer_applies_or_changes_nothing_is_not_offered() {
        let saved = rules("default ham\nspam: $* you $*\n");
        let suggestions = suggest_on_fixture(&saved);
        let removal = suggestions
            .iter()
            .find(|s| matches!(s.edit, Edit::RemoveRule { .. }))
            .expect("a removal");
        assert!(suggestion_edit(&saved, removal).is_some());
        // The rule was edited since the save: its removal is not offered.
        let now = rules("default ham\nspam: $* you there $*\n");
        assert!(suggestion_edit(&now, removal).is_none());
        assert!(
            rules_suggestion_actions(&now, range_of(&now, "there"), &suggestions)
                .iter()
                .all(|a| !a.title.starts_with("Remove"))
        );
        // The rule to add is there already, spelled otherwise: nothing to offer.
        let addition = suggestions
            .iter()
            .find(|s| matches!(s.edit, Edit::AddRule { .. }))
            .expect("an addition");
        let with_it = rules("default ham\nspam: $* you $*\nspam: $* ( call ) % $*\n");
        assert!(suggestion_edit(&with_it, addition).is_none());
    }

    #[test]
    fn a_narrowing_is_offered_on_the_rule_it_narrows_and_titled_narrow() {
        let file = rules(WHAT_RULES);
        let suggestions = suggest_on_questions(&file);
        let on_rule = rules_suggestion_actions(&file, range_of(&file, "what"), &suggestions);
        let titles: Vec<&str> = on_rule.iter().map(|a| a.title.as_str()).collect();
        assert_eq!(
            titles[..2],
            [
                "Narrow `desc: $* what $*` to exclude `$* ( president | color ) $*` \
                 (fixes 6 train lines, breaks 0; dev 50.0 → 100.0 %)",
                "Narrow `desc: $* what $*` to `desc: $* what does $*` \
                 (fixes 6 train lines, breaks 1; dev 50.0 → 100.0 %)",
            ]
        );
        assert_eq!(on_rule[0].kind, ActionKind::RefactorRewrite);
        let edited = crate::ide::apply(&file.source.text, std::slice::from_ref(&on_rule[0].edit));
        assert_eq!(edited, suggestions[0].new_text);
        assert!(edited.contains("desc <- desc_2 & !desc_2_except    # too wide\n"));
        // Not on another rule's statement.
        let on_other = rules_suggestion_actions(&file, range_of(&file, "hum"), &suggestions);
        assert!(on_other.iter().all(|a| !a.title.starts_with("Narrow")));
        let detail = suggestion_detail(&suggestions[0]);
        assert!(detail.starts_with("an imprecise rule narrowed"), "{detail}");
    }

    #[test]
    fn a_relabeling_is_offered_on_the_rule_it_relabels() {
        let file =
            rules("default enty\nenty: $* color $*\nhum: $* who $*\nenty: $* what president $*\n");
        let suggestions = suggest_on_questions(&file);
        let actions = rules_suggestion_actions(&file, range_of(&file, "what"), &suggestions);
        let relabel = actions
            .iter()
            .find(|a| a.title.starts_with("Relabel"))
            .expect("a relabeling");
        assert_eq!(
            relabel.title,
            "Relabel `enty: $* what president $*` as `hum` \
             (fixes 3 train lines, breaks 0; dev 50.0 → 75.0 %)"
        );
        let edited = crate::ide::apply(&file.source.text, std::slice::from_ref(&relabel.edit));
        assert!(
            edited.ends_with("hum: $* who $*\nhum: $* what president $*\n"),
            "{edited}"
        );
        let on_other = rules_suggestion_actions(&file, range_of(&file, "color"), &suggestions);
        assert!(on_other.iter().all(|a| !a.title.starts_with("Relabel")));
    }

    #[test]
    fn a_raising_is_offered_on_the_first_rule_of_the_label_it_raises() {
        let file = rules(WHAT_RULES);
        let raised = crate::suggest::Suggestion {
            source: Source::Priority,
            edit: Edit::RaiseLabel {
                label: "hum".to_string(),
                above: "desc".to_string(),
                line: 3,
                statement: "hum: $* president $*".to_string(),
                before_line: 2,
            },
            ..suggest_on_questions(&file)[0].clone()
        };
        let suggestions = [raised];
        let on_rule = rules_suggestion_actions(&file, range_of(&file, "president"), &suggestions);
        assert_eq!(on_rule.len(), 1);
        assert!(
            on_rule[0].title.starts_with(
                "Give `hum` priority over `desc`: move `hum: $* president $*` above line 2 (fixes"
            ),
            "{}",
            on_rule[0].title
        );
        let edited = crate::ide::apply(&file.source.text, std::slice::from_ref(&on_rule[0].edit));
        assert_eq!(
            edited,
            "default enty\nhum: $* president $*\ndesc: $* what $*    # too wide\n"
        );
        assert!(rules_suggestion_actions(&file, range_of(&file, "what"), &suggestions).is_empty());
    }
}

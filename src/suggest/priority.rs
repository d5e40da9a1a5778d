//! Priority: a label raised above a label of higher priority, by moving its first rule's
//! line to just before that label's first rule ([`Edit::RaiseLabel`]). On a line where both
//! fire, and no label above them, the raised label then wins: `num: $* how ( long | far )
//! $*` stops losing to `desc: $* how &* $? ( does | do ) $*`. The estimate is exact: it comes
//! from the labels that fire on each line ([`Standing::fired`]), which the move does not
//! change; only the order in which they are tried does.

use super::candidate::{Candidate, Edit, Estimate, Source};
use super::config::SuggestConfig;
use super::lines::{Lines, Standing};
use crate::rules_file::RulesFile;
use crate::syntax::LabelRule;

/// What raising the label of rank `raised` to rank `above` (the labels from `above` on
/// moving down one) does to the train lines; the lines whose winner changes are its
/// matches, the raised label's gold lines among them its correct matches.
pub(super) fn estimate(
    lines: &Lines,
    standing: &Standing,
    raised: usize,
    above: usize,
) -> Estimate {
    let gold = lines.label(&standing.ranks[raised]);
    let mut estimate = Estimate::default();
    for (line, &fired) in standing.fired.iter().enumerate() {
        let wins_now = standing.winner[line].is_some_and(|w| (above..raised).contains(&w));
        if !wins_now || fired & (1 << raised) == 0 {
            continue;
        }
        let right = Some(lines.gold[line]) == gold;
        estimate.matches += 1;
        estimate.correct_matches += usize::from(right);
        estimate.count_change(standing.correct[line], right);
    }
    estimate
}

/// The first rule of the label `name`, with its statement as written.
fn first_rule<'f>(file: &'f RulesFile, name: &str) -> Option<(&'f LabelRule, &'f str)> {
    let id = file.rules.label_by_name(name)?;
    let rule = file.rules.labels[id.index()].rules.first()?;
    let statement = file
        .source
        .text
        .get(std::ops::Range::<usize>::from(rule.range))?;
    Some((rule, statement))
}

/// Every label raised above each label of higher priority, where that fixes at least
/// `min_fixed` train lines and, of the lines whose prediction it makes right or wrong, makes
/// at least `min_precision` right (the floor of a learned rule or a reconstruction: a line
/// wrong before and after says nothing of the move).
pub(super) fn raisings(
    file: &RulesFile,
    lines: &Lines,
    standing: &Standing,
    config: &SuggestConfig,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    if standing.fired.len() != lines.len() {
        return out;
    }
    for (raised, label) in standing.ranks.iter().enumerate() {
        let Some((rule, statement)) = first_rule(file, label) else {
            continue;
        };
        for (above, other) in standing.ranks.iter().enumerate().take(raised) {
            let Some((other_rule, _)) = first_rule(file, other) else {
                continue;
            };
            let estimate = estimate(lines, standing, raised, above);
            if estimate.fixed >= config.min_fixed
                && estimate.gain() > 0
                && estimate.fixed as f64
                    >= config.min_precision * (estimate.fixed + estimate.broken) as f64
            {
                out.push(Candidate {
                    source: Source::Priority,
                    edit: Edit::RaiseLabel {
                        label: label.clone(),
                        above: other.clone(),
                        line: rule.line,
                        statement: statement.to_string(),
                        before_line: other_rule.line,
                    },
                    estimate: Some(estimate),
                });
            }
        }
    }
    out
}

/// The rules text with the label `label`'s first rule (on 1-based line `line`, reading
/// `statement`) moved, with its whole line, to just before the line of `above`'s first rule
/// (1-based `before_line`); `None` when either first rule is elsewhere now.
pub(super) fn raise(
    file: &RulesFile,
    label: &str,
    above: &str,
    line: u32,
    statement: &str,
    before_line: u32,
) -> Option<String> {
    let (rule, written) = first_rule(file, label)?;
    let (other, _) = first_rule(file, above)?;
    if rule.line != line || written != statement || other.line != before_line || before_line >= line
    {
        return None;
    }
    let text = &file.source.text;
    let line_start = |at: usize| text[..at].rfind('\n').map_or(0, |i| i + 1);
    let start = line_start(usize::from(rule.range.start()));
    let end = usize::from(rule.range.end());
    let end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    let to = line_start(usize::from(other.range.start()));
    let mut moved = text[start..end].to_string();
    if !moved.ends_with('\n') {
        moved.push_str(if text.contains("\r\n") { "\r\n" } else { "\n" });
    }
    let rest = format!("{}{}", &text[..start], &text[end..]);
    Some(format!("{}{moved}{}", &rest[..to], &rest[to..]))
}

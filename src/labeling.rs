//! A rules file's rules as labeling functions, in Snorkel's convention: each rule
//! (`LABEL: REGEX` or `LABEL <- FORMULA`) votes for its label on the lines it fires on and
//! abstains (−1) elsewhere. [`label_lines`] gives, line by line, the rules that fired, the
//! line's prediction and the rule that decided it; [`label_matrix`] keeps them all, and
//! [`summarize`] the per-rule
//! figures: Snorkel's `LFAnalysis.lf_summary` columns, with its definitions, beside
//! rulelens's own (precision, recall, how often the rule decided the prediction).
//!
//! Label indices are those of the rule system, in priority order (`RuleSystem::labels`);
//! rules are numbered in file order (`RuleSystem::rules`). Labeling a line costs what
//! `RuleSystem::classify` costs: the rule system already knows which rules fired.

use crate::automata::{Classification, RuleSystem, Scratch};
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::syntax::LabelId;
use text_size::TextRange;

/// Snorkel's "abstain".
pub const ABSTAIN: i32 = -1;

/// One rule of a rules file as a labeling function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LabelingRule {
    /// `LABEL@LINE`, as `rulelens check` names anonymous rules.
    pub name: String,
    /// The label it votes for (an index into `RuleSystem::labels`, and into the rule set's
    /// `labels`).
    pub label: usize,
    /// 1-based line of the statement.
    pub line: u32,
    /// What follows the label: the regex of `LABEL: REGEX`, the formula of
    /// `LABEL <- FORMULA`.
    pub body: String,
    /// Whether the statement is a formula over named patterns (`LABEL <- …`).
    pub formula: bool,
}

/// The rules of `file` in file order (`RuleSystem::rules`).
pub fn labeling_rules(file: &RulesFile) -> Vec<LabelingRule> {
    let text = &file.source.text;
    file.system
        .rules()
        .iter()
        .map(|system_rule| {
            let label = system_rule.label.index();
            let def = &file.rules.labels[label];
            let rule = &def.rules[system_rule.index_in_label];
            let rest = &text[rule.label_range.end().into()..rule.range.end().into()];
            let trimmed = rest.trim_start();
            let (formula, body) = match trimmed.strip_prefix("<-") {
                Some(body) => (true, body),
                None => (false, trimmed.strip_prefix(':').unwrap_or(trimmed)),
            };
            LabelingRule {
                name: format!("{}@{}", def.name, rule.line),
                label,
                line: rule.line,
                body: body.trim().to_string(),
                formula,
            }
        })
        .collect()
}

/// What the rules say about one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineLabels<'a> {
    /// The rule system's prediction (a label index; the default when no rule fires), or
    /// `None` without a default.
    pub prediction: Option<usize>,
    /// The rule that decided the prediction (the first, in file order, of the predicted
    /// label's rules that fired), or `None` when the default decided.
    pub decider: Option<usize>,
    /// The rules that fired, ascending.
    pub fired: &'a [usize],
}

impl LineLabels<'_> {
    /// The line's row of the label matrix: each rule's vote (its label's index) or
    /// [`ABSTAIN`], into `row` (one entry per rule).
    pub fn write_votes(&self, rules: &[LabelingRule], row: &mut [i32]) {
        row.fill(ABSTAIN);
        for &rule in self.fired {
            row[rule] = rules[rule].label as i32;
        }
    }
}

/// Classifies each of `texts` with `file`'s rule system and calls `each` with the line's
/// index and what the rules say about it. The cost per line is the rule system's
/// (`RuleSystem::classify`), which grows with the rules a line's literals trigger, not with
/// the number of rules.
pub fn label_lines<'t>(
    file: &RulesFile,
    texts: impl IntoIterator<Item = &'t str>,
    mut each: impl FnMut(usize, LineLabels<'_>),
) {
    let system = &file.system;
    let mut scratch = Scratch::default();
    let mut classification = Classification::default();
    for (i, text) in texts.into_iter().enumerate() {
        system.classify_with(text, &mut scratch, &mut classification);
        each(
            i,
            LineLabels {
                prediction: classification.prediction.map(LabelId::index),
                decider: decider(system, &classification),
                fired: &classification.rules_fired,
            },
        );
    }
}

/// The first rule, in file order, of the predicted label's rules that fired.
fn decider(system: &RuleSystem, classification: &Classification) -> Option<usize> {
    let prediction = classification.prediction?;
    classification
        .rules_fired
        .iter()
        .copied()
        .find(|&rule| system.rules()[rule].label == prediction)
}

/// A rule that fired on a text, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FiredRule {
    /// Its index in the rules (file order).
    pub rule: usize,
    /// Where each of its patterns that matched, as it is written in the rule (not negated),
    /// matched: the tokens between what a leading and a trailing `$*` absorbed
    /// (`RuleSystem::match_span`), in bytes of the text; none for a pattern that matched no
    /// token, and for a rule that fires because a pattern did not match (`!a`).
    pub spans: Vec<TextRange>,
}

/// What the rules say about one text, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    /// See [`LineLabels::prediction`].
    pub prediction: Option<usize>,
    /// See [`LineLabels::decider`].
    pub decider: Option<usize>,
    /// The rules that fired, in file order.
    pub fired: Vec<FiredRule>,
}

/// What `file`'s rules say about `text`, with the spans each fired rule matched.
pub fn verdict(file: &RulesFile, text: &str) -> Verdict {
    let system = &file.system;
    let mut scratch = Scratch::default();
    let mut classification = Classification::default();
    system.classify_with(text, &mut scratch, &mut classification);
    let mut out = Verdict {
        prediction: classification.prediction.map(LabelId::index),
        decider: decider(system, &classification),
        fired: Vec::new(),
    };
    let tokens = &scratch.tokens;
    for &rule in &classification.rules_fired {
        let mut patterns = Vec::new();
        system.rules()[rule]
            .formula
            .visit(true, &mut |pattern, positive| {
                if positive
                    && classification.matched[pattern.index()]
                    && !patterns.contains(&pattern)
                {
                    patterns.push(pattern);
                }
            });
        let spans = patterns
            .into_iter()
            .filter_map(|pattern| system.match_span(pattern, &scratch.symbols))
            .filter(|span| !span.is_empty())
            .filter_map(|span| {
                let first = tokens.get(span.start)?.range;
                let last = tokens.get(span.end - 1)?.range;
                Some(first.cover(last))
            })
            .collect();
        out.fired.push(FiredRule { rule, spans });
    }
    out
}

/// Every rule's vote on every line, with each line's prediction and the rule that decided
/// it; stored sparse (the rules that fired on each line), since most rules abstain on most
/// lines.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LabelMatrix {
    pub n_rules: usize,
    /// The rules that fired, line after line: line `i`'s are
    /// `fired[fired_starts[i]..fired_starts[i + 1]]`, ascending.
    fired: Vec<usize>,
    fired_starts: Vec<usize>,
    /// Per line: see [`LineLabels::prediction`].
    pub predictions: Vec<Option<usize>>,
    /// Per line: see [`LineLabels::decider`].
    pub deciders: Vec<Option<usize>>,
}

impl LabelMatrix {
    /// The number of lines.
    pub fn n_lines(&self) -> usize {
        self.predictions.len()
    }

    /// The rules that fired on line `i`, ascending.
    pub fn fired(&self, i: usize) -> &[usize] {
        &self.fired[self.fired_starts[i]..self.fired_starts[i + 1]]
    }

    /// The votes of every rule on every line, row-major `[lines, rules]`: the label index
    /// each rule votes for, or [`ABSTAIN`].
    pub fn votes(&self, rules: &[LabelingRule]) -> Vec<i32> {
        let mut votes = vec![ABSTAIN; self.n_lines() * self.n_rules];
        for i in 0..self.n_lines() {
            for &rule in self.fired(i) {
                votes[i * self.n_rules + rule] = rules[rule].label as i32;
            }
        }
        votes
    }
}

/// [`label_lines`] of every text, kept (`rules` being [`labeling_rules`] of the same file).
pub fn label_matrix<'t>(
    file: &RulesFile,
    rules: &[LabelingRule],
    texts: impl IntoIterator<Item = &'t str>,
) -> LabelMatrix {
    let mut out = LabelMatrix {
        n_rules: rules.len(),
        fired_starts: vec![0],
        ..LabelMatrix::default()
    };
    label_lines(file, texts, |_, line| {
        out.fired.extend_from_slice(line.fired);
        out.fired_starts.push(out.fired.len());
        out.predictions.push(line.prediction);
        out.deciders.push(line.decider);
    });
    out
}

/// One rule's figures on labeled lines.
#[derive(Debug, Clone, PartialEq)]
pub struct RuleSummary {
    /// Snorkel's Polarity: the labels it voted for, sorted (one label, or none when it
    /// never fired).
    pub polarity: Vec<usize>,
    /// Snorkel's Coverage: the share of lines it voted on.
    pub coverage: f64,
    /// Snorkel's Overlaps: the share of lines it voted on with at least one other rule.
    pub overlaps: f64,
    /// Snorkel's Conflicts: the share of lines it voted on where another rule voted for
    /// another label.
    pub conflicts: f64,
    /// Snorkel's Correct: lines it voted on whose gold label is its vote.
    pub correct: usize,
    /// Snorkel's Incorrect: lines it voted on with another gold label.
    pub incorrect: usize,
    /// correct / (correct + incorrect): the rule's precision on the lines it fired on, which
    /// Snorkel calls "Emp. Acc." (and makes 0 when it never fired); `None` when it never
    /// fired.
    pub precision: Option<f64>,
    /// The share of the lines whose gold label is the rule's label that it fired on; `None`
    /// without such lines.
    pub recall: Option<f64>,
    /// On how many lines the rule decided the prediction.
    pub decided: usize,
    /// On how many of those the prediction was the gold label.
    pub decided_correct: usize,
}

/// Per rule of `matrix`, its figures against `gold` (one label index per line, or `None`
/// for a label the rule system does not know).
pub fn summarize(
    matrix: &LabelMatrix,
    rules: &[LabelingRule],
    gold: &[Option<usize>],
) -> Vec<RuleSummary> {
    let (n, m) = (matrix.n_lines(), matrix.n_rules);
    let lines = n.max(1) as f64;
    let mut summaries: Vec<RuleSummary> = rules
        .iter()
        .map(|_| RuleSummary {
            polarity: Vec::new(),
            coverage: 0.0,
            overlaps: 0.0,
            conflicts: 0.0,
            correct: 0,
            incorrect: 0,
            precision: None,
            recall: None,
            decided: 0,
            decided_correct: 0,
        })
        .collect();
    let mut covered = vec![0usize; m];
    let mut overlapped = vec![0usize; m];
    let mut conflicted = vec![0usize; m];
    // Per label: how many lines have it as their gold label.
    let mut gold_count = vec![0usize; rules.iter().map(|r| r.label + 1).max().unwrap_or(0)];
    for i in 0..n {
        let fired = matrix.fired(i);
        let gold = gold.get(i).copied().flatten();
        if let Some(count) = gold.and_then(|g| gold_count.get_mut(g)) {
            *count += 1;
        }
        let first_vote = fired.first().map(|&rule| rules[rule].label);
        let conflicting = fired
            .iter()
            .any(|&rule| Some(rules[rule].label) != first_vote);
        for &rule in fired {
            let vote = rules[rule].label;
            covered[rule] += 1;
            if fired.len() > 1 {
                overlapped[rule] += 1;
            }
            // Another rule voted for another label exactly when the line's votes differ.
            if conflicting {
                conflicted[rule] += 1;
            }
            let summary = &mut summaries[rule];
            if !summary.polarity.contains(&vote) {
                summary.polarity.push(vote);
            }
            if gold == Some(vote) {
                summary.correct += 1;
            } else {
                summary.incorrect += 1;
            }
        }
        if let Some(rule) = matrix.deciders[i] {
            summaries[rule].decided += 1;
            if gold.is_some() && gold == matrix.predictions[i] {
                summaries[rule].decided_correct += 1;
            }
        }
    }
    for (rule, summary) in summaries.iter_mut().enumerate() {
        summary.polarity.sort_unstable();
        summary.coverage = covered[rule] as f64 / lines;
        summary.overlaps = overlapped[rule] as f64 / lines;
        summary.conflicts = conflicted[rule] as f64 / lines;
        let voted = summary.correct + summary.incorrect;
        summary.precision = (voted > 0).then(|| summary.correct as f64 / voted as f64);
        let of_label = gold_count[rules[rule].label];
        summary.recall = (of_label > 0).then(|| summary.correct as f64 / of_label as f64);
    }
    summaries
}

/// [`summarize`] of the lines of `examples` against their gold labels (`None` for a label
/// the rule system does not know): the per-rule figures of `rulelens check` and `rulelens
/// report`.
pub fn summarize_examples(
    file: &RulesFile,
    rules: &[LabelingRule],
    examples: &[Example],
) -> Vec<RuleSummary> {
    let matrix = label_matrix(file, rules, examples.iter().map(|e| e.text.as_str()));
    let gold: Vec<Option<usize>> = examples
        .iter()
        .map(|e| {
            e.label
                .as_deref()
                .and_then(|l| file.system.label_by_name(l))
                .map(|l| l.index())
        })
        .collect();
    summarize(&matrix, rules, &gold)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::testing::rules_of as file;

    const RULES: &str = "default ham\n\
                         spam: $* free $*\n\
                         pattern prize = $* ( won | win ) $*\n\
                         spam <- prize\n\
                         ham: $* call $*\n";

    #[test]
    fn each_rule_votes_for_its_label_and_the_first_firing_rule_of_the_prediction_decides() {
        let file = file(RULES);
        let rules = labeling_rules(&file);
        let names: Vec<&str> = rules.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["spam@2", "spam@4", "ham@5"]);
        assert_eq!(rules[0].body, "$* free $*");
        assert!(rules[1].formula && rules[1].body == "prize");
        let labels = file.system.labels();
        let (spam, ham) = (
            labels.iter().position(|l| l == "spam").unwrap() as i32,
            labels.iter().position(|l| l == "ham").unwrap() as i32,
        );
        let matrix = label_matrix(
            &file,
            &rules,
            ["you won a free call", "call me", "see you", "win win"],
        );
        assert_eq!(
            matrix.votes(&rules),
            [
                spam, spam, ham, //
                -1, -1, ham, //
                -1, -1, -1, //
                -1, spam, -1,
            ]
        );
        let prediction = |l: i32| Some(l as usize);
        assert_eq!(
            matrix.predictions,
            [
                prediction(spam),
                prediction(ham),
                prediction(ham),
                prediction(spam)
            ]
        );
        assert_eq!(matrix.deciders, [Some(0), Some(2), None, Some(1)]);
        assert_eq!(matrix.fired(0), [0, 1, 2]);
    }

    #[test]
    fn the_summary_follows_snorkels_definitions() {
        let file = file(RULES);
        let rules = labeling_rules(&file);
        let labels = file.system.labels();
        let id = |name: &str| labels.iter().position(|l| l == name);
        let texts = ["you won a free call", "call me", "see you", "win win"];
        let gold = [id("spam"), id("spam"), id("ham"), None];
        let matrix = label_matrix(&file, &rules, texts);
        let summary = summarize(&matrix, &rules, &gold);
        // spam@2 fires on line 0 only, beside the two others (one votes ham): an overlap and
        // a conflict; correct there.
        assert_eq!(summary[0].polarity, [id("spam").unwrap()]);
        assert_eq!(summary[0].coverage, 0.25);
        assert_eq!((summary[0].overlaps, summary[0].conflicts), (0.25, 0.25));
        assert_eq!((summary[0].correct, summary[0].incorrect), (1, 0));
        assert_eq!(summary[0].precision, Some(1.0));
        assert_eq!(summary[0].recall, Some(0.5));
        assert_eq!((summary[0].decided, summary[0].decided_correct), (1, 1));
        // spam@4 fires on lines 0 and 3 (gold unknown there: incorrect, as Snorkel counts a
        // vote that is not the gold label).
        assert_eq!(summary[1].coverage, 0.5);
        assert_eq!((summary[1].overlaps, summary[1].conflicts), (0.25, 0.25));
        assert_eq!((summary[1].correct, summary[1].incorrect), (1, 1));
        assert_eq!(summary[1].decided, 1);
        // ham@5 fires on lines 0 and 1, both gold spam.
        assert_eq!((summary[2].correct, summary[2].incorrect), (0, 2));
        assert_eq!(summary[2].precision, Some(0.0));
        assert_eq!(summary[2].recall, Some(0.0));
        assert_eq!((summary[2].decided, summary[2].decided_correct), (1, 0));
    }
}

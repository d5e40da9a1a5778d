//! A rules file's rules as labeling functions, in Snorkel's convention: each rule
//! (`LABEL: REGEX` or `LABEL <- FORMULA`) votes for its label on the lines it fires on and
//! abstains (−1) elsewhere. [`label_lines`] gives, line by line, the rules that fired, the
//! line's prediction and the rule that decided it; [`label_matrix`] keeps them all, and
//! [`summarize`] the per-rule
//! figures: Snorkel's `LFAnalysis.lf_summary` columns, with its definitions, beside
//! rulelens's own (precision, recall, how often the rule decided the prediction);
//! [`LabelModel`] (`label_model.rs`) estimates from the votes what gold labels would say:
//! each rule's precision, the class balance and each line's probability of every label.
//!
//! Label indices are those of the rule system, in priority order (`RuleSystem::labels`);
//! rules are numbered in file order (`RuleSystem::rules`). Labeling a line costs what
//! `RuleSystem::classify` costs: the rule system already knows which rules fired.

use crate::automata::{Classification, Evaluation, Evaluator, RuleSystem, Scratch};
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::syntax::LabelId;
use text_size::TextRange;

mod label_model;

pub use label_model::{DEFAULT_VOTE, LabelModel, LabelModelError, MAX_LABEL_MODEL_CELLS};

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
        each(i, LineLabels::of(system, &classification));
    }
}

impl<'a> LineLabels<'a> {
    /// What `classification`, by `system`, says of a line.
    pub fn of(system: &RuleSystem, classification: &'a Classification) -> LineLabels<'a> {
        LineLabels {
            prediction: classification.prediction.map(LabelId::index),
            decider: decider(system, classification),
            fired: &classification.rules_fired,
        }
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
    /// A matrix of `n_rules` rules and no line yet.
    pub fn new(n_rules: usize) -> LabelMatrix {
        LabelMatrix {
            n_rules,
            fired_starts: vec![0],
            ..LabelMatrix::default()
        }
    }

    /// Adds a line.
    pub fn push(&mut self, line: LineLabels<'_>) {
        self.fired.extend_from_slice(line.fired);
        self.fired_starts.push(self.fired.len());
        self.predictions.push(line.prediction);
        self.deciders.push(line.decider);
    }

    /// The number of lines.
    pub fn n_lines(&self) -> usize {
        self.predictions.len()
    }

    /// The rules that fired on line `i`, ascending.
    pub fn fired(&self, i: usize) -> &[usize] {
        &self.fired[self.fired_starts[i]..self.fired_starts[i + 1]]
    }

    /// A matrix of lines whose fired rules are `rows` (ascending), each predicted by
    /// `predict` and decided by no rule: for tests of what reads a matrix.
    #[cfg(test)]
    pub(crate) fn from_fired(
        n_rules: usize,
        rows: &[Vec<usize>],
        predict: impl Fn(&[usize]) -> Option<usize>,
    ) -> LabelMatrix {
        let mut out = LabelMatrix::new(n_rules);
        for row in rows {
            out.push(LineLabels {
                prediction: predict(row),
                decider: None,
                fired: row,
            });
        }
        out
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
    let mut out = LabelMatrix::new(rules.len());
    label_lines(file, texts, |_, line| out.push(line));
    out
}

/// A line's gold label, as the per-rule figures count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gold {
    /// A label of the rule system (its index).
    Label(usize),
    /// A label the rule system does not know: wrong for every rule that fires.
    Unknown,
    /// No label: the line counts in coverage, overlaps and conflicts, not in what needs a
    /// gold label.
    Unlabeled,
}

impl Gold {
    /// The gold label of a line labeled `label` (`None`: unlabeled) under `system`'s labels.
    pub fn of(system: &RuleSystem, label: Option<&str>) -> Gold {
        match label {
            None => Gold::Unlabeled,
            Some(label) => system
                .label_by_name(label)
                .map_or(Gold::Unknown, |l| Gold::Label(l.index())),
        }
    }

    /// The label's index where it is one of the rule system's.
    pub fn label(self) -> Option<usize> {
        match self {
            Gold::Label(label) => Some(label),
            Gold::Unknown | Gold::Unlabeled => None,
        }
    }
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
    /// Snorkel's Incorrect: lines it voted on with another gold label (one the rules do not
    /// know too).
    pub incorrect: usize,
    /// Lines it voted on that have no gold label.
    pub unlabeled: usize,
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

impl RuleSummary {
    /// On how many lines it fired, labeled or not.
    pub fn fired(&self) -> usize {
        self.correct + self.incorrect + self.unlabeled
    }
}

/// Per rule of `matrix`, its figures against `gold` (one per line; a line past its end is
/// unlabeled).
pub fn summarize(matrix: &LabelMatrix, rules: &[LabelingRule], gold: &[Gold]) -> Vec<RuleSummary> {
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
            unlabeled: 0,
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
        let gold = gold.get(i).copied().unwrap_or(Gold::Unlabeled);
        if let Some(count) = gold.label().and_then(|g| gold_count.get_mut(g)) {
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
            match gold {
                Gold::Label(g) if g == vote => summary.correct += 1,
                Gold::Label(_) | Gold::Unknown => summary.incorrect += 1,
                Gold::Unlabeled => summary.unlabeled += 1,
            }
        }
        if let Some(rule) = matrix.deciders[i] {
            summaries[rule].decided += 1;
            if gold.label().is_some() && gold.label() == matrix.predictions[i] {
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

/// The gold labels of `examples` under `system`'s labels.
pub fn gold_labels(system: &RuleSystem, examples: &[Example]) -> Vec<Gold> {
    examples
        .iter()
        .map(|e| Gold::of(system, e.label.as_deref()))
        .collect()
}

/// [`summarize`] of the lines of `examples` against their gold labels, in a pass of its own
/// (`rulelens check` and `rulelens report` take them from [`corpus_figures`], with the
/// evaluation, in one).
pub fn summarize_examples(
    file: &RulesFile,
    rules: &[LabelingRule],
    examples: &[Example],
) -> Vec<RuleSummary> {
    let matrix = label_matrix(file, rules, examples.iter().map(|e| e.text.as_str()));
    summarize(&matrix, rules, &gold_labels(&file.system, examples))
}

/// A corpus's figures under a rules file, from one classification of each line: the rule
/// system's [`Evaluation`] (accuracy, per label, per pattern), each rule's figures
/// ([`summarize`]) and, where some line has no gold label, what the label model estimates
/// ([`Estimates`], `Err` past its limit): what `rulelens check` and `rulelens report` show.
#[derive(Debug)]
pub struct CorpusFigures {
    pub evaluation: Evaluation,
    pub rules: Vec<RuleSummary>,
    pub estimates: Option<Result<Estimates, LabelModelError>>,
}

/// [`CorpusFigures`] of `examples` under `file`'s rules (`rules` being [`labeling_rules`] of
/// it). Each line is classified once, its outcome read by the evaluator and kept in the
/// label matrix that the per-rule figures and the label model read.
pub fn corpus_figures(
    file: &RulesFile,
    rules: &[LabelingRule],
    examples: &[Example],
) -> CorpusFigures {
    let system = &file.system;
    let mut evaluator = Evaluator::new(system);
    let mut matrix = LabelMatrix::new(rules.len());
    let mut scratch = Scratch::default();
    let mut classification = Classification::default();
    for example in examples {
        system.classify_with(&example.text, &mut scratch, &mut classification);
        evaluator.add(&classification, example.label.as_deref());
        matrix.push(LineLabels::of(system, &classification));
    }
    let gold = gold_labels(system, examples);
    let estimates = gold
        .contains(&Gold::Unlabeled)
        .then(|| Estimates::of(system, rules, &matrix, &gold));
    CorpusFigures {
        evaluation: evaluator.finish(),
        rules: summarize(&matrix, rules, &gold),
        estimates,
    }
}

/// What the label model estimates of a rules file's rules on some lines, where gold labels
/// are missing: the figures `rulelens check`, the rule hovers, `rulelens report` and the
/// Python package show beside the gold ones.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimates {
    /// The lines, and how many of them have no gold label.
    pub n_lines: usize,
    pub n_unlabeled: usize,
    /// Per rule (file order): its estimated precision, `None` where it fired on no line.
    pub precision: Vec<Option<f64>>,
    /// The rule system's estimated accuracy (see [`LabelModel::estimated_accuracy`]).
    pub accuracy: Option<f64>,
    /// The estimated share of each label of the rule system.
    pub class_balance: Vec<f64>,
}

/// What the label model of `file`'s rules (`rules` being [`labeling_rules`] of it), fitted
/// on `examples` (the gold lines as they are), estimates, in a pass of its own
/// ([`corpus_figures`] gives it with the other figures); `Err` past the model's limit.
pub fn estimate(
    file: &RulesFile,
    rules: &[LabelingRule],
    examples: &[Example],
) -> Result<Estimates, LabelModelError> {
    let matrix = label_matrix(file, rules, examples.iter().map(|e| e.text.as_str()));
    Estimates::of(
        &file.system,
        rules,
        &matrix,
        &gold_labels(&file.system, examples),
    )
}

impl Estimates {
    /// [`estimate`] of lines whose label matrix under `system`'s `rules` is `matrix`, and
    /// whose gold labels are `gold`.
    pub fn of(
        system: &RuleSystem,
        rules: &[LabelingRule],
        matrix: &LabelMatrix,
        gold: &[Gold],
    ) -> Result<Estimates, LabelModelError> {
        let model = LabelModel::fit(
            matrix,
            rules,
            system.labels().len(),
            system.default_label().map(|l| l.index()),
            gold,
        )?;
        Ok(Estimates {
            n_lines: matrix.n_lines(),
            n_unlabeled: gold.iter().filter(|g| **g == Gold::Unlabeled).count(),
            precision: (0..rules.len())
                .map(|rule| model.estimated_precision(rule))
                .collect(),
            accuracy: model.estimated_accuracy(matrix, gold),
            class_balance: model.class_balance().to_vec(),
        })
    }
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
        let gold =
            [id("spam"), id("spam"), id("ham"), None].map(|g| g.map_or(Gold::Unknown, Gold::Label));
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

    /// A line without a gold label counts where Snorkel's columns need none (coverage,
    /// overlaps, conflicts), not in what needs one; a label the rules do not know is wrong.
    #[test]
    fn unlabeled_lines_count_in_coverage_only() {
        let file = file(RULES);
        let rules = labeling_rules(&file);
        let labels = file.system.labels();
        let spam = labels.iter().position(|l| l == "spam").unwrap();
        let texts = ["you won a free call", "free stuff", "free stuff"];
        let gold = [Gold::Label(spam), Gold::Unlabeled, Gold::Unknown];
        let summary = summarize(&label_matrix(&file, &rules, texts), &rules, &gold);
        // spam@2 fires on all three: right on the first, unknown on the second, wrong on
        // the third.
        assert_eq!(summary[0].coverage, 1.0);
        assert_eq!(
            (
                summary[0].correct,
                summary[0].incorrect,
                summary[0].unlabeled
            ),
            (1, 1, 1)
        );
        assert_eq!(summary[0].precision, Some(0.5));
        assert_eq!(Gold::of(&file.system, Some("spam")), Gold::Label(spam));
        assert_eq!(Gold::of(&file.system, Some("eggs")), Gold::Unknown);
        assert_eq!(Gold::of(&file.system, None), Gold::Unlabeled);
    }

    /// The estimates of a rules file on unlabeled lines: a rule that fires alone is
    /// estimated better than its label's share and short of certain, and the rule system's
    /// accuracy between them; gold lines count as they are.
    #[test]
    fn estimates_of_unlabeled_lines() {
        let file = file(RULES);
        let rules = labeling_rules(&file);
        let example = |text: &str, label: Option<&str>| Example {
            text: text.to_string(),
            label: label.map(str::to_string),
            line: 0,
            text_range: None,
            label_range: None,
        };
        let mut examples: Vec<Example> = (0..40)
            .map(|i| example(if i % 4 == 0 { "free prize" } else { "see you" }, None))
            .collect();
        examples.push(example("call me", Some("ham")));
        let estimates = estimate(&file, &rules, &examples).unwrap();
        assert_eq!((estimates.n_lines, estimates.n_unlabeled), (41, 40));
        let spam = file
            .system
            .labels()
            .iter()
            .position(|l| l == "spam")
            .unwrap();
        let precision = estimates.precision[0].unwrap();
        assert!(
            precision > estimates.class_balance[spam] && precision < 1.0,
            "{estimates:?}"
        );
        // ham@5 fired on the one gold line, which is ham.
        assert_eq!(estimates.precision[2], Some(1.0));
        assert_eq!(estimates.precision[1], None);
        let accuracy = estimates.accuracy.unwrap();
        assert!(accuracy > 0.5 && accuracy <= 1.0, "{accuracy}");
        assert!((estimates.class_balance.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}

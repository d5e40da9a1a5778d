//! Exact metrics of a rule system on a labeled corpus, in the spirit of Snorkel's
//! `LFAnalysis`, computed by running the rule system on every example.
//!
//! Per pattern: matches, coverage, precision and recall for its labels (its polarity),
//! correct and incorrect matches, overlaps (another pattern also matches) and conflicts
//! (a pattern voting for a label outside this one's polarity also matches). Per label:
//! precision, recall and F1 of the predictions. Overall: accuracy on labeled examples,
//! coverage (share of examples on which some label fires), the default-only baseline and
//! the confusion matrix. Gold labels the rules do not know get rows of their own. One pass
//! ([`Evaluator`] takes classifications a caller already has),
//! O(examples × (tokens × patterns + matched²)); memory grows with the patterns, the labels
//! and the distinct (gold, predicted) pairs, never with their product.

use super::rule_system::{Classification, RuleSystem, Scratch};
use crate::syntax::LabelId;
use std::collections::HashMap;

/// Counts for one label.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelMetrics {
    /// Labeled examples with this gold label.
    pub support: usize,
    /// Labeled examples predicted as this label.
    pub predicted: usize,
    /// Labeled examples with this gold label predicted as such.
    pub true_positives: usize,
}

impl LabelMetrics {
    pub fn precision(&self) -> Option<f64> {
        ratio(self.true_positives, self.predicted)
    }

    pub fn recall(&self) -> Option<f64> {
        ratio(self.true_positives, self.support)
    }

    pub fn f1(&self) -> Option<f64> {
        let (p, r) = (self.precision()?, self.recall()?);
        Some(if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        })
    }
}

/// Counts for one pattern.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PatternMetrics {
    /// Examples (labeled or not) it matches.
    pub matches: usize,
    /// Labeled examples it matches whose gold label is in its polarity.
    pub correct: usize,
    /// Labeled examples it matches whose gold label is not in its polarity.
    pub incorrect: usize,
    /// Labeled examples whose gold label is in its polarity (the denominator of recall).
    pub relevant: usize,
    /// Examples it matches on which another pattern also matches.
    pub overlaps: usize,
    /// Examples it matches on which a pattern voting for another label also matches.
    pub conflicts: usize,
}

impl PatternMetrics {
    pub fn precision(&self) -> Option<f64> {
        ratio(self.correct, self.correct + self.incorrect)
    }

    pub fn recall(&self) -> Option<f64> {
        ratio(self.correct, self.relevant)
    }
}

/// The rule system's figures on one corpus.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evaluation {
    /// The rule system's labels in priority order, then gold labels only the corpus has.
    pub label_names: Vec<String>,
    /// How many of `label_names` are the rule system's.
    pub n_rule_labels: usize,
    pub n_examples: usize,
    pub n_labeled: usize,
    pub n_correct: usize,
    /// Examples on which at least one label fires.
    pub n_covered: usize,
    /// Labeled examples whose gold label is the default (what a default-only system gets).
    pub n_gold_default: usize,
    /// The nonzero cells of the confusion matrix over `label_names`, sorted:
    /// `((gold, predicted), count)`, where a `predicted` of `None` counts examples that got
    /// no prediction (only possible without a `default`). Sparse, so that a corpus with
    /// many gold labels costs what its examples cost ([`Evaluation::confusion`] reads one
    /// cell).
    pub confusion_cells: Vec<((usize, Option<usize>), usize)>,
    /// Per entry of `label_names`.
    pub labels: Vec<LabelMetrics>,
    /// Per pattern of the rule system.
    pub patterns: Vec<PatternMetrics>,
}

impl Evaluation {
    /// The number of labeled examples of gold label `gold` predicted as `predicted`
    /// (`None`: no prediction).
    pub fn confusion(&self, gold: usize, predicted: Option<usize>) -> usize {
        self.confusion_cells
            .binary_search_by_key(&(gold, predicted), |&(cell, _)| cell)
            .map_or(0, |i| self.confusion_cells[i].1)
    }

    /// Share of labeled examples predicted correctly.
    pub fn accuracy(&self) -> Option<f64> {
        ratio(self.n_correct, self.n_labeled)
    }

    /// Share of examples on which some label fires.
    pub fn coverage(&self) -> Option<f64> {
        ratio(self.n_covered, self.n_examples)
    }

    /// Share of examples on which pattern `index` matches.
    pub fn pattern_coverage(&self, index: usize) -> Option<f64> {
        ratio(self.patterns[index].matches, self.n_examples)
    }

    /// Accuracy of always predicting the default label.
    pub fn default_accuracy(&self) -> Option<f64> {
        ratio(self.n_gold_default, self.n_labeled)
    }
}

fn ratio(numerator: usize, denominator: usize) -> Option<f64> {
    (denominator > 0).then(|| numerator as f64 / denominator as f64)
}

/// Evaluates `system` on `(text, gold label)` pairs.
///
/// ```
/// let text = "default ham\nspam: $* free $*\n";
/// let parse = rulelens::syntax::parse(text);
/// let (rules, _) = rulelens::syntax::lower(&parse, text);
/// let (system, _) = rulelens::automata::compile(&rules, &Default::default());
/// let corpus = [("FREE entry", Some("spam")), ("hi mum", Some("ham")), ("free time", Some("ham"))];
/// let evaluation = rulelens::automata::evaluate(&system, corpus);
/// assert_eq!(evaluation.n_correct, 2);
/// assert_eq!(evaluation.patterns[0].matches, 2);
/// ```
pub fn evaluate<'a>(
    system: &RuleSystem,
    examples: impl IntoIterator<Item = (&'a str, Option<&'a str>)>,
) -> Evaluation {
    let mut evaluator = Evaluator::new(system);
    let mut scratch = Scratch::default();
    let mut outcome = Classification::default();
    for (text, gold) in examples {
        system.classify_with(text, &mut scratch, &mut outcome);
        evaluator.add(&outcome, gold);
    }
    evaluator.finish()
}

/// [`evaluate`] one example at a time, from classifications the caller already has (so that
/// a caller who keeps each line's outcome classifies it once).
#[derive(Debug)]
pub struct Evaluator<'s> {
    system: &'s RuleSystem,
    evaluation: Evaluation,
    label_names: Vec<String>,
    label_index: HashMap<String, usize>,
    /// (gold, predicted) pairs, turned into sorted cells at the end.
    pairs: HashMap<(usize, Option<usize>), usize>,
    matched: Vec<usize>,
    /// Per rule label, the patterns that vote for it.
    patterns_of_label: Vec<Vec<usize>>,
}

impl<'s> Evaluator<'s> {
    pub fn new(system: &'s RuleSystem) -> Evaluator<'s> {
        let label_names: Vec<String> = system.labels.clone();
        let label_index = label_names
            .iter()
            .enumerate()
            .map(|(i, name)| (name.clone(), i))
            .collect();
        let mut patterns_of_label = vec![Vec::new(); label_names.len()];
        for (p, pattern) in system.patterns.iter().enumerate() {
            for label in &pattern.labels {
                patterns_of_label[label.index()].push(p);
            }
        }
        Evaluator {
            system,
            evaluation: Evaluation {
                n_rule_labels: label_names.len(),
                patterns: vec![PatternMetrics::default(); system.patterns.len()],
                ..Evaluation::default()
            },
            label_names,
            label_index,
            pairs: HashMap::new(),
            matched: Vec::new(),
            patterns_of_label,
        }
    }

    /// Counts one example: what `system` did on its text, and its gold label.
    pub fn add(&mut self, outcome: &Classification, gold: Option<&str>) {
        let system = self.system;
        let evaluation = &mut self.evaluation;
        let matched = &mut self.matched;
        let n_patterns = system.patterns.len();
        evaluation.n_examples += 1;
        evaluation.n_covered += usize::from(outcome.covered());
        matched.clear();
        matched.extend((0..n_patterns).filter(|&p| outcome.matched[p]));
        let gold = gold.map(|name| {
            let n = self.label_index.len();
            *self.label_index.entry(name.to_string()).or_insert_with(|| {
                self.label_names.push(name.to_string());
                n
            })
        });
        for &p in matched.iter() {
            let metrics = &mut evaluation.patterns[p];
            metrics.matches += 1;
            let labels = &system.patterns[p].labels;
            if matched.len() > 1 {
                metrics.overlaps += 1;
            }
            let conflict = matched.iter().any(|&q| {
                system.patterns[q]
                    .labels
                    .iter()
                    .any(|label| !labels.contains(label))
            });
            metrics.conflicts += usize::from(conflict && !labels.is_empty());
            if let (Some(gold), false) = (gold, labels.is_empty()) {
                if labels.contains(&LabelId(gold as u32)) {
                    metrics.correct += 1;
                } else {
                    metrics.incorrect += 1;
                }
            }
        }
        let Some(gold) = gold else { return };
        evaluation.n_labeled += 1;
        for &p in self
            .patterns_of_label
            .get(gold)
            .map_or(&[][..], Vec::as_slice)
        {
            evaluation.patterns[p].relevant += 1;
        }
        let predicted = outcome.prediction.map(LabelId::index);
        evaluation.n_correct += usize::from(predicted == Some(gold));
        evaluation.n_gold_default += usize::from(system.default.map(LabelId::index) == Some(gold));
        *self.pairs.entry((gold, predicted)).or_default() += 1;
    }

    /// The evaluation of the examples added.
    pub fn finish(self) -> Evaluation {
        let Evaluator {
            mut evaluation,
            label_names,
            pairs,
            ..
        } = self;
        evaluation.labels = vec![LabelMetrics::default(); label_names.len()];
        for (&(gold, predicted), &count) in &pairs {
            evaluation.labels[gold].support += count;
            if let Some(predicted) = predicted {
                evaluation.labels[predicted].predicted += count;
                if predicted == gold {
                    evaluation.labels[gold].true_positives += count;
                }
            }
        }
        evaluation.confusion_cells = pairs.into_iter().collect();
        evaluation.confusion_cells.sort_unstable();
        evaluation.label_names = label_names;
        evaluation
    }
}

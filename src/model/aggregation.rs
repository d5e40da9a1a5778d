//! The aggregation layer: pattern scores → label logits, built from the label formulas by
//! soft logic, so that on 0/1 pattern scores the network predicts what the rule system
//! predicts (Jiang et al. 2020, §3.3; `docs/rules-language.md`, "Classification").
//!
//! Łukasiewicz logic on scores clamped to [0, 1]: `!a = 1 − a`, `a & b = max(0, a + b − 1)`,
//! `a | b = min(1, a + b)`; each is exact on 0/1 inputs and piecewise linear elsewhere. The
//! clamps' gradients leak (slope [`super::LEAK`] outside their range), so that no score is ever
//! cut off from the gradient, while their values stay exact clamps, so that a label with
//! several matching rules is no truer than one with a single rule and priority still
//! decides. A label's truth f_c is the OR of its rules.
//! The spec's priority and default become the logits: label c (in priority order, C labels)
//! gets `f_c · (1 + (C − c)·PRIORITY_STEP)`, so of several true labels the first wins, and
//! the default label's logit is at least `DEFAULT_LOGIT`, which beats every false label and
//! loses to every true one. The reference code's aggregation is a frozen linear layer
//! (papers-brief §1.9); a linear layer cannot express `&`, `!` or priority exactly.

use crate::automata::RuleSystem;
use crate::model::nn::leaky_clamp::leaky_clamp;
use crate::syntax::{Formula, LabelId};
use candle_core::{Result, Tensor};

/// How much more weight each label has than the next one in priority order.
pub const PRIORITY_STEP: f64 = 0.01;
/// The smallest logit of the default label: above every false label, below every true one.
pub const DEFAULT_LOGIT: f64 = 0.5;

/// Label formulas and priorities, turned into tensor operations.
#[derive(Debug, Clone)]
pub struct Aggregation {
    formulas: Vec<Formula>,
    default: Option<LabelId>,
}

impl Aggregation {
    /// `formulas[c]` is label c's formula (the OR of its rules), labels in priority order.
    pub fn new(formulas: Vec<Formula>, default: Option<LabelId>) -> Aggregation {
        Aggregation { formulas, default }
    }

    /// The aggregation of a rule system's labels.
    pub fn from_system(system: &RuleSystem) -> Aggregation {
        let formulas = (0..system.labels().len())
            .map(|c| system.label_formula(LabelId(c as u32)).clone())
            .collect();
        Aggregation::new(formulas, system.default_label())
    }

    pub fn n_labels(&self) -> usize {
        self.formulas.len()
    }

    /// Label c's logit weight: labels earlier in priority order weigh more, so that of two
    /// true labels the earlier one wins.
    fn priority_weight(&self, c: usize) -> f64 {
        1.0 + (self.formulas.len() - c) as f64 * PRIORITY_STEP
    }

    /// `scores`: [batch, n_patterns] → logits [batch, n_labels].
    pub fn forward(&self, scores: &Tensor) -> Result<Tensor> {
        let scores = leaky_clamp(scores, 0.0, 1.0)?;
        let (batch, _) = scores.dims2()?;
        let n_labels = self.formulas.len();
        let mut logits = Vec::with_capacity(n_labels);
        for (c, formula) in self.formulas.iter().enumerate() {
            let truth = truth(formula, &scores, batch)?;
            let mut logit = truth.affine(self.priority_weight(c), 0.0)?;
            if self.default.map(LabelId::index) == Some(c) {
                logit = leaky_clamp(&logit, DEFAULT_LOGIT, f64::INFINITY)?;
            }
            logits.push(logit);
        }
        if logits.is_empty() {
            return Tensor::zeros((batch, 0), scores.dtype(), scores.device());
        }
        Tensor::stack(&logits, 1)
    }

    /// [`Aggregation::forward`] on one sentence's pattern scores, in plain arithmetic (the
    /// same values; no gradient): `scores` [n_patterns] → logits [n_labels].
    pub fn logits(&self, scores: &[f32]) -> Vec<f32> {
        let clamped: Vec<f32> = scores.iter().map(|s| s.clamp(0.0, 1.0)).collect();
        self.formulas
            .iter()
            .enumerate()
            .map(|(c, formula)| {
                let logit = plain_truth(formula, &clamped) * self.priority_weight(c) as f32;
                if self.default.map(LabelId::index) == Some(c) {
                    logit.max(DEFAULT_LOGIT as f32)
                } else {
                    logit
                }
            })
            .collect()
    }
}

/// [`truth`] of one sentence, from clamped pattern scores.
fn plain_truth(formula: &Formula, scores: &[f32]) -> f32 {
    match formula {
        Formula::Pattern(p) => scores[p.index()],
        Formula::Not(inner) => 1.0 - plain_truth(inner, scores),
        Formula::And(items) => {
            let sum: f32 = items.iter().map(|item| plain_truth(item, scores)).sum();
            (sum - (items.len() as f32 - 1.0)).max(0.0)
        }
        Formula::Or(items) => {
            let sum: f32 = items.iter().map(|item| plain_truth(item, scores)).sum();
            sum.min(1.0)
        }
        Formula::False => 0.0,
    }
}

/// A formula's soft truth, [batch], from clamped pattern scores [batch, n_patterns].
fn truth(formula: &Formula, scores: &Tensor, batch: usize) -> Result<Tensor> {
    let constant = |value: f32| Tensor::full(value, batch, scores.device());
    match formula {
        Formula::Pattern(p) => scores.narrow(1, p.index(), 1)?.squeeze(1),
        Formula::Not(inner) => truth(inner, scores, batch)?.affine(-1.0, 1.0),
        Formula::And(items) => {
            let mut sum = constant(0.0)?;
            for item in items {
                sum = (sum + truth(item, scores, batch)?)?;
            }
            leaky_clamp(
                &sum.affine(1.0, -(items.len() as f64 - 1.0))?,
                0.0,
                f64::INFINITY,
            )
        }
        Formula::Or(items) => {
            let mut sum = constant(0.0)?;
            for item in items {
                sum = (sum + truth(item, scores, batch)?)?;
            }
            leaky_clamp(&sum, f64::NEG_INFINITY, 1.0)
        }
        Formula::False => constant(0.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::PatternId;
    use candle_core::Device;

    fn pattern(i: u32) -> Formula {
        Formula::Pattern(PatternId(i))
    }

    #[test]
    fn a_label_with_many_matching_rules_does_not_outrank_a_higher_priority_label() {
        // Label 0: pattern 0. Label 1: pattern 1 | 2 | 3 | 4 (all matching). Label 2: default.
        let aggregation = Aggregation::new(
            vec![
                pattern(0),
                Formula::Or((1..5).map(pattern).collect()),
                Formula::False,
            ],
            Some(LabelId(2)),
        );
        let scores = Tensor::new(&[[1f32, 1., 1., 1., 1.]], &Device::Cpu).unwrap();
        let logits: Vec<f32> = aggregation
            .forward(&scores)
            .unwrap()
            .squeeze(0)
            .unwrap()
            .to_vec1()
            .unwrap();
        assert!(logits[0] > logits[1], "{logits:?}");
        assert!(logits[1] > logits[2], "{logits:?}");
        assert_eq!(logits[2], DEFAULT_LOGIT as f32);
    }
}

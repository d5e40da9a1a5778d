//! The label model: what the rules' votes say about lines nobody labeled. From the label
//! matrix alone (and the gold labels of the lines that have one), it estimates the class
//! balance, each rule's precision and each line's probability of every label, as Snorkel's
//! `LabelModel` does, by another method chosen by measurement (`docs/results.md`, "The
//! label model").
//!
//! The model is naive Bayes over the rules' firing: a line's label y is drawn from the class
//! balance π, then each rule j fires with probability θ[j][y], independently of the others.
//! A line's probabilities are π[y]·Πⱼ θ[j][y]^fired·(1−θ[j][y])^(1−fired), normalized, so
//! that a rule that did not fire speaks too. It is fitted by EM from a starting labeling:
//!
//! 1. **The vote.** Each line's labels score the rules that fired on it, each rule weighing
//!    its surprisal −ln(coverage): a rule that fires on most lines says little (TREC's
//!    `desc: $* what $*` fires on 62 % of train, with precision 0.23), one that fires
//!    rarely says much. A line no rule fires on votes [`DEFAULT_VOTE`] for the default. The
//!    scores' softmax is the line's starting probabilities; a gold line's is its label.
//! 2. **One M-step.** π and θ are the starting probabilities' counts, smoothed (θ by
//!    Jeffreys' ½, π by 1).
//! 3. **The fit check.** Where the rules fire independently given the label, as the model
//!    assumes, it predicts how often each two rules fire together. When its predictions
//!    are off by less than [`INDEPENDENCE_TOLERANCE`] (the summed absolute error over the
//!    observed co-firings), EM runs on until the parameters settle; otherwise the model
//!    stays at one step. Hand-written rules are rarely independent (TREC's rules overlap on
//!    almost every line, some are copies): there the check fails (SMS train 0.91, TREC
//!    1.04; a synthetic matrix with every rule copied twice 0.30, with a rule nested in
//!    each 0.26), and further EM steps let each rule confirm the labels it gave (on TREC
//!    train the posterior's accuracy falls from 59.6 % after one step to 33.2 % after a
//!    hundred). Where they are independent (a synthetic matrix drawn from the model: 0.13),
//!    EM recovers the precisions that one step only approaches.
//!
//! A rule's estimated precision is the mean probability of its label over the lines it
//! fired on (the gold label where a line has one), and the rule system's estimated
//! accuracy the mean probability of its predictions.
//!
//! Cost: a pass over the label matrix for the vote and one per EM step, O(fired × labels +
//! lines × labels) each, at most [`MAX_EM_STEPS`] steps and [`EM_BUDGET`] multiply-adds in
//! all; the fit check O(Σ fired² + rules² × labels), skipped (one step) past
//! [`EM_BUDGET`]; memory: θ, rules × labels floats, at most [`MAX_LABEL_MODEL_CELLS`], and
//! the co-firings, rules² floats, only where that is within the same limit.

use crate::labeling::{Gold, LabelMatrix, LabelingRule};

/// The vote a line no rule fires on gives the default label, as a rule's vote weighs its
/// surprisal (3 is a rule firing on 5 % of the lines): on SMS train, where no rule fires on
/// 59 % of the lines, 1 estimated 25 % spam and the rules' accuracy at 79 % (truly 13 % and
/// 92 %), 3 estimates 12 % and 92 %; TREC's estimates move by less than a point
/// (`docs/results.md`).
pub const DEFAULT_VOTE: f64 = 3.0;

/// The most summed absolute error, relative to the observed co-firings, of the one-step
/// model's predicted co-firings for EM to go on (the module's doc).
pub const INDEPENDENCE_TOLERANCE: f64 = 0.2;

/// The most EM steps after the first.
pub const MAX_EM_STEPS: usize = 200;

/// The most multiply-adds EM and the fit check may spend: beyond it, the model stays at one
/// step (a corpus of a million lines and a hundred labels gets about ten steps).
pub const EM_BUDGET: u64 = 2_000_000_000;

/// EM stops when no θ moves by more than this in a step.
const EM_TOLERANCE: f64 = 1e-6;

/// The most rules × labels a label model has parameters for (θ, 8 bytes each): beyond it
/// [`LabelModel::fit`] says so instead of fitting (a rule has one label, so a file of
/// 2,000 rules of 2,000 labels is at the limit).
pub const MAX_LABEL_MODEL_CELLS: usize = 4 << 20;

/// Why a label model could not be fitted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelModelError {
    /// More rules × labels than [`MAX_LABEL_MODEL_CELLS`].
    TooLarge { rules: usize, labels: usize },
}

impl std::fmt::Display for LabelModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LabelModelError::TooLarge { rules, labels } => write!(
                f,
                "{rules} rules × {labels} labels is more than the {MAX_LABEL_MODEL_CELLS} parameters a label model may have"
            ),
        }
    }
}

impl std::error::Error for LabelModelError {}

/// The label model fitted on a label matrix (see the module's doc).
#[derive(Debug, Clone, PartialEq)]
pub struct LabelModel {
    n_labels: usize,
    /// The label each rule votes for.
    rule_labels: Vec<usize>,
    /// Per rule, per label (`[rules × labels]`, row-major): ln θ − ln(1 − θ), what the
    /// rule's firing adds to a label's log-probability.
    fired_log_odds: Vec<f64>,
    /// Per label: ln π + Σⱼ ln(1 − θ[j][y]), a line's log-probability before the rules
    /// that fired on it.
    base: Vec<f64>,
    /// π, the estimated share of each label.
    class_balance: Vec<f64>,
    /// Per rule: the mean probability of its label over the lines it fired on (`None` for a
    /// rule that fired on none).
    estimated_precision: Vec<Option<f64>>,
    /// How many of the lines it was fitted on had no gold label.
    n_unlabeled: usize,
}

impl LabelModel {
    /// Fits the model on `matrix`, whose rules are `rules` (votes for labels below
    /// `n_labels`); `gold[i]` is line i's gold label (a line past its end is unlabeled; one
    /// of a label the model does not know is taken as unlabeled); `default` is the default
    /// label, which lines no rule fires on vote for.
    pub fn fit(
        matrix: &LabelMatrix,
        rules: &[LabelingRule],
        n_labels: usize,
        default: Option<usize>,
        gold: &[Gold],
    ) -> Result<LabelModel, LabelModelError> {
        let (n, m, k) = (matrix.n_lines(), rules.len(), n_labels.max(1));
        if m.saturating_mul(k) > MAX_LABEL_MODEL_CELLS {
            return Err(LabelModelError::TooLarge {
                rules: m,
                labels: k,
            });
        }
        let (mut model, mut theta, fires) = LabelModel::first_step(matrix, rules, k, default, gold);
        let gold_of = |i: usize| gold.get(i).and_then(|g| g.label()).filter(|&g| g < k);
        let nnz: u64 = fires.iter().map(|&f| f as u64).sum();
        let mut q = vec![0.0; k];
        // A step costs a posterior and a count per fired rule and label, and per line.
        let step_cost = (nnz + n as u64 + m as u64).saturating_mul(2 * k as u64);
        let mut budget = EM_BUDGET;
        let independent = model
            .co_firing_error(matrix, &theta, &mut budget)
            .is_some_and(|error| error <= INDEPENDENCE_TOLERANCE);
        if independent {
            for _ in 0..MAX_EM_STEPS {
                if budget < step_cost {
                    break;
                }
                budget -= step_cost;
                let mut counts = Counts::new(m, k);
                for i in 0..n {
                    let fired = matrix.fired(i);
                    match gold_of(i) {
                        Some(g) => {
                            q.fill(0.0);
                            q[g] = 1.0;
                        }
                        None => model.probabilities_into(fired, &mut q),
                    }
                    counts.add(fired, &q);
                }
                let next = model.m_step(&counts);
                let moved = next
                    .iter()
                    .zip(&theta)
                    .map(|(a, b)| (a - b).abs())
                    .fold(0.0, f64::max);
                theta = next;
                if moved < EM_TOLERANCE {
                    break;
                }
            }
        }
        // Each rule's precision: its label's probability where it fired.
        let mut sums = vec![0.0; m];
        for i in 0..n {
            let fired = matrix.fired(i);
            if fired.is_empty() {
                continue;
            }
            match gold_of(i) {
                Some(g) => {
                    for &rule in fired {
                        sums[rule] += f64::from(u8::from(model.rule_labels[rule] == g));
                    }
                }
                None => {
                    model.probabilities_into(fired, &mut q);
                    for &rule in fired {
                        sums[rule] += q[model.rule_labels[rule]];
                    }
                }
            }
        }
        model.estimated_precision = sums
            .iter()
            .zip(&fires)
            .map(|(&sum, &f)| (f > 0).then(|| sum / f as f64))
            .collect();
        Ok(model)
    }

    /// The vote and the first M-step (the module's doc): the model, its θ, and on how many
    /// lines each rule fired.
    fn first_step(
        matrix: &LabelMatrix,
        rules: &[LabelingRule],
        k: usize,
        default: Option<usize>,
        gold: &[Gold],
    ) -> (LabelModel, Vec<f64>, Vec<usize>) {
        let n = matrix.n_lines();
        let m = rules.len();
        let rule_labels: Vec<usize> = rules.iter().map(|r| r.label.min(k - 1)).collect();
        let gold_of = |i: usize| gold.get(i).and_then(|g| g.label()).filter(|&g| g < k);
        let mut fires = vec![0usize; m];
        for i in 0..n {
            for &rule in matrix.fired(i) {
                fires[rule] += 1;
            }
        }
        // The vote: each rule weighs its surprisal.
        let lines = n.max(1) as f64;
        let weight: Vec<f64> = fires
            .iter()
            .map(|&f| -(f.max(1) as f64 / lines).min(1.0).ln())
            .collect();
        let default = default.filter(|&d| d < k);
        let mut counts = Counts::new(m, k);
        let mut q = vec![0.0; k];
        for i in 0..n {
            let fired = matrix.fired(i);
            q.fill(0.0);
            match gold_of(i) {
                Some(g) => q[g] = 1.0,
                None => {
                    for &rule in fired {
                        q[rule_labels[rule]] += weight[rule];
                    }
                    if let (true, Some(d)) = (fired.is_empty(), default) {
                        q[d] += DEFAULT_VOTE;
                    }
                    softmax(&mut q);
                }
            }
            counts.add(fired, &q);
        }
        let mut model = LabelModel {
            n_labels: k,
            rule_labels,
            fired_log_odds: Vec::new(),
            base: Vec::new(),
            class_balance: Vec::new(),
            estimated_precision: vec![None; m],
            n_unlabeled: (0..n).filter(|&i| gold_of(i).is_none()).count(),
        };
        let theta = model.m_step(&counts);
        (model, theta, fires)
    }

    /// Sets π and the posterior's terms from `counts`, smoothed (θ by ½ of a line, π by a
    /// line), and returns θ, `[rules × labels]`.
    fn m_step(&mut self, counts: &Counts) -> Vec<f64> {
        let k = self.n_labels;
        let n: f64 = counts.label_mass.iter().sum();
        self.class_balance = counts
            .label_mass
            .iter()
            .map(|mass| (mass + 1.0) / (n + k as f64))
            .collect();
        self.base = self.class_balance.iter().map(|p| p.ln()).collect();
        let theta: Vec<f64> = counts
            .fired_mass
            .chunks(k)
            .flat_map(|row| {
                row.iter()
                    .zip(&counts.label_mass)
                    .map(|(fired, mass)| (fired + 0.5) / (mass + 1.0))
            })
            .collect();
        self.fired_log_odds = theta.iter().map(|t| t.ln() - (1.0 - t).ln()).collect();
        for row in theta.chunks(k) {
            for (base, t) in self.base.iter_mut().zip(row) {
                *base += (1.0 - t).ln();
            }
        }
        theta
    }

    /// How far the model's predicted co-firings, Σ_y π[y]·θ[j][y]·θ[k][y] for each two rules
    /// j and k, are from the observed ones: the summed absolute error over the summed
    /// observed co-firings; `None` when the check would cost more than is left of `budget`
    /// (which it spends), or no two rules fire together.
    fn co_firing_error(
        &self,
        matrix: &LabelMatrix,
        theta: &[f64],
        budget: &mut u64,
    ) -> Option<f64> {
        let (m, k) = (self.rule_labels.len(), self.n_labels);
        let pair_work: u64 = (0..matrix.n_lines())
            .map(|i| (matrix.fired(i).len() as u64).pow(2))
            .sum();
        let cost = pair_work.saturating_add((m as u64).pow(2).saturating_mul(k as u64));
        if m.saturating_mul(m) > MAX_LABEL_MODEL_CELLS || cost > *budget {
            return None;
        }
        *budget -= cost;
        let mut observed = vec![0.0; m * m];
        for i in 0..matrix.n_lines() {
            let fired = matrix.fired(i);
            for (a, &j) in fired.iter().enumerate() {
                for &l in &fired[a + 1..] {
                    observed[j.min(l) * m + j.max(l)] += 1.0;
                }
            }
        }
        let n = matrix.n_lines().max(1) as f64;
        let (mut error, mut total) = (0.0, 0.0);
        for j in 0..m {
            for l in j + 1..m {
                let predicted: f64 = (0..k)
                    .map(|y| self.class_balance[y] * theta[j * k + y] * theta[l * k + y])
                    .sum();
                let seen = observed[j * m + l] / n;
                error += (seen - predicted).abs();
                total += seen;
            }
        }
        (total > 0.0).then(|| error / total)
    }

    /// The number of labels.
    pub fn n_labels(&self) -> usize {
        self.n_labels
    }

    /// The estimated share of each label.
    pub fn class_balance(&self) -> &[f64] {
        &self.class_balance
    }

    /// Rule `rule`'s estimated precision on the lines the model was fitted on: its label's
    /// mean probability over the lines it fired on, the gold label's where a line has one;
    /// `None` when it fired on none.
    pub fn estimated_precision(&self, rule: usize) -> Option<f64> {
        self.estimated_precision.get(rule).copied().flatten()
    }

    /// How many of the lines it was fitted on had no gold label the rules know.
    pub fn n_unlabeled(&self) -> usize {
        self.n_unlabeled
    }

    /// The probability of each label for a line the rules `fired` on (rule indices), into
    /// `out` (one entry per label). A rule index past the model's rules is ignored.
    pub fn probabilities_into(&self, fired: &[usize], out: &mut Vec<f64>) {
        let k = self.n_labels;
        out.clear();
        out.extend_from_slice(&self.base);
        for &rule in fired.iter().filter(|&&rule| rule < self.rule_labels.len()) {
            for (logit, odds) in out
                .iter_mut()
                .zip(&self.fired_log_odds[rule * k..(rule + 1) * k])
            {
                *logit += odds;
            }
        }
        softmax(out);
    }

    /// The probability of each label for every line of `matrix` (whose rules are the
    /// model's), row-major `[lines × labels]`.
    pub fn probabilities(&self, matrix: &LabelMatrix) -> Vec<f64> {
        let mut out = Vec::with_capacity(matrix.n_lines() * self.n_labels);
        let mut row = Vec::with_capacity(self.n_labels);
        for i in 0..matrix.n_lines() {
            self.probabilities_into(matrix.fired(i), &mut row);
            out.extend_from_slice(&row);
        }
        out
    }

    /// The estimated accuracy of the rule system on the lines of `matrix`: the mean
    /// probability of each line's prediction, or 1 and 0 where the line has a gold label (a
    /// label the rules do not know, or no prediction, being wrong); `None` without lines.
    pub fn estimated_accuracy(&self, matrix: &LabelMatrix, gold: &[Gold]) -> Option<f64> {
        let n = matrix.n_lines();
        if n == 0 {
            return None;
        }
        let mut row = Vec::with_capacity(self.n_labels);
        let mut sum = 0.0;
        for i in 0..n {
            let prediction = matrix.predictions[i];
            sum += match gold.get(i).copied().unwrap_or(Gold::Unlabeled) {
                Gold::Label(g) => f64::from(u8::from(prediction == Some(g))),
                Gold::Unknown => 0.0,
                Gold::Unlabeled => match prediction.filter(|&p| p < self.n_labels) {
                    Some(p) => {
                        self.probabilities_into(matrix.fired(i), &mut row);
                        row[p]
                    }
                    None => 0.0,
                },
            };
        }
        Some(sum / n as f64)
    }
}

/// What an M-step counts: each label's probability mass, and each rule's on the lines it
/// fired on (`[rules × labels]`).
struct Counts {
    n_labels: usize,
    label_mass: Vec<f64>,
    fired_mass: Vec<f64>,
}

impl Counts {
    fn new(n_rules: usize, n_labels: usize) -> Counts {
        Counts {
            n_labels,
            label_mass: vec![0.0; n_labels],
            fired_mass: vec![0.0; n_rules * n_labels],
        }
    }

    /// A line the rules `fired` on, of label probabilities `q`.
    fn add(&mut self, fired: &[usize], q: &[f64]) {
        let k = self.n_labels;
        for (mass, p) in self.label_mass.iter_mut().zip(q) {
            *mass += p;
        }
        for &rule in fired {
            for (mass, p) in self.fired_mass[rule * k..(rule + 1) * k].iter_mut().zip(q) {
                *mass += p;
            }
        }
    }
}

/// Replaces log-probabilities by their softmax, in place.
fn softmax(values: &mut [f64]) {
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut sum = 0.0;
    for value in values.iter_mut() {
        *value = (*value - max).exp();
        sum += *value;
    }
    for value in values.iter_mut() {
        *value /= sum;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::labeling::LabelMatrix;
    use crate::model::nn::rng::SplitMix64;

    fn rule(label: usize) -> LabelingRule {
        LabelingRule {
            name: format!("r{label}"),
            label,
            line: 1,
            body: String::new(),
            formula: false,
        }
    }

    /// A synthetic label matrix: lines of labels drawn from `balance`, each rule firing with
    /// probability `rates[j][y]` given the line's label y, independently.
    fn synthetic(
        balance: &[f64],
        rates: &[Vec<f64>],
        rule_labels: &[usize],
        n: usize,
        seed: u64,
    ) -> (LabelMatrix, Vec<usize>) {
        let mut rng = SplitMix64::new(seed);
        let mut labels = Vec::new();
        let mut rows: Vec<Vec<usize>> = Vec::new();
        for _ in 0..n {
            let mut u = rng.next_f64();
            let mut y = 0;
            while y + 1 < balance.len() && u >= balance[y] {
                u -= balance[y];
                y += 1;
            }
            labels.push(y);
            rows.push(
                (0..rates.len())
                    .filter(|&j| rng.next_f64() < rates[j][y])
                    .collect(),
            );
        }
        let matrix = LabelMatrix::from_fired(rule_labels.len(), &rows, |row| {
            row.first().map(|&j| rule_labels[j])
        });
        (matrix, labels)
    }

    /// Two labels with rules and the default without, twelve rules of every kind: precise
    /// and rare, loose and common; drawn from the model itself.
    fn twelve_rules(seed: u64) -> (LabelMatrix, Vec<usize>, Vec<usize>) {
        let rule_labels = vec![0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1];
        let rates = [
            [0.5, 0.02, 0.02],
            [0.3, 0.01, 0.05],
            [0.2, 0.05, 0.02],
            [0.15, 0.01, 0.01],
            [0.25, 0.1, 0.05],
            [0.02, 0.6, 0.02],
            [0.1, 0.4, 0.1],
            [0.01, 0.3, 0.02],
            [0.05, 0.2, 0.01],
            [0.02, 0.25, 0.05],
            [0.6, 0.3, 0.3],
            [0.2, 0.5, 0.15],
        ]
        .map(|row| row.to_vec());
        let (matrix, labels) = synthetic(&[0.3, 0.2, 0.5], &rates, &rule_labels, 20_000, seed);
        (matrix, labels, rule_labels)
    }

    fn true_precision(matrix: &LabelMatrix, labels: &[usize], rule: usize, label: usize) -> f64 {
        let fired: Vec<usize> = (0..matrix.n_lines())
            .filter(|&i| matrix.fired(i).contains(&rule))
            .collect();
        fired.iter().filter(|&&i| labels[i] == label).count() as f64 / fired.len() as f64
    }

    #[test]
    fn the_model_recovers_known_precisions_and_the_class_balance_from_votes_alone() {
        for seed in [1, 2] {
            let (matrix, labels, rule_labels) = twelve_rules(seed);
            let rules: Vec<LabelingRule> = rule_labels.iter().map(|&l| rule(l)).collect();
            let model = LabelModel::fit(&matrix, &rules, 3, Some(2), &[]).unwrap();
            for (j, &label) in rule_labels.iter().enumerate() {
                let truth = true_precision(&matrix, &labels, j, label);
                let estimate = model.estimated_precision(j).unwrap();
                assert!(
                    (estimate - truth).abs() < 0.05,
                    "seed {seed}, rule {j}: estimated {estimate:.3}, true {truth:.3}"
                );
            }
            for (estimate, truth) in model.class_balance().iter().zip([0.3, 0.2, 0.5]) {
                assert!(
                    (estimate - truth).abs() < 0.03,
                    "{estimate} against {truth}"
                );
            }
            // Its most probable labels beat the first firing rule's by far.
            let probabilities = model.probabilities(&matrix);
            let correct = |predicted: &dyn Fn(usize) -> usize| {
                (0..matrix.n_lines())
                    .filter(|&i| predicted(i) == labels[i])
                    .count() as f64
                    / matrix.n_lines() as f64
            };
            let by_model = correct(&|i| argmax(&probabilities[i * 3..(i + 1) * 3]));
            let by_first = correct(&|i| matrix.predictions[i].unwrap_or(2));
            assert!(by_model > by_first + 0.1, "{by_model} against {by_first}");
            for row in probabilities.chunks(3) {
                assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9);
            }
        }
    }

    /// The one-step model of `matrix` (rules of `rule_labels`, default 2) and its θ.
    fn one_step(matrix: &LabelMatrix, rule_labels: &[usize]) -> (LabelModel, Vec<f64>) {
        let rules: Vec<LabelingRule> = rule_labels.iter().map(|&l| rule(l)).collect();
        let (model, theta, _) = LabelModel::first_step(matrix, &rules, 3, Some(2), &[]);
        (model, theta)
    }

    /// Rules drawn independently given the label pass the fit check; the same rules with
    /// each one copied twice (as TREC's rules have copies) do not, and the model stays at
    /// one step instead of letting the copies confirm each other.
    #[test]
    fn copied_rules_fail_the_independence_check() {
        let (matrix, _, rule_labels) = twelve_rules(1);
        let (model, theta) = one_step(&matrix, &rule_labels);
        let error = model
            .co_firing_error(&matrix, &theta, &mut EM_BUDGET.clone())
            .unwrap();
        assert!(error < 0.2, "{error}");
        let rows: Vec<Vec<usize>> = (0..matrix.n_lines())
            .map(|i| {
                let fired = matrix.fired(i);
                let mut row: Vec<usize> = fired
                    .iter()
                    .flat_map(|&j| [3 * j, 3 * j + 1, 3 * j + 2])
                    .collect();
                row.sort_unstable();
                row
            })
            .collect();
        let copied = LabelMatrix::from_fired(36, &rows, |_| None);
        let labels: Vec<usize> = rule_labels.iter().flat_map(|&l| [l, l, l]).collect();
        let (model, theta) = one_step(&copied, &labels);
        let error = model
            .co_firing_error(&copied, &theta, &mut EM_BUDGET.clone())
            .unwrap();
        assert!(error > INDEPENDENCE_TOLERANCE, "{error}");
        // Within a budget too small for the check, there is no check (and one step).
        assert_eq!(model.co_firing_error(&copied, &theta, &mut 1000), None);
    }

    fn argmax(row: &[f64]) -> usize {
        (0..row.len())
            .max_by(|&a, &b| row[a].total_cmp(&row[b]))
            .unwrap()
    }

    #[test]
    fn gold_lines_are_taken_as_they_are() {
        let rule_labels = [0, 1];
        let fired = vec![vec![0], vec![0], vec![1], vec![0, 1], vec![]];
        let matrix = LabelMatrix::from_fired(2, &fired, |row| row.first().copied());
        let rules: Vec<LabelingRule> = rule_labels.iter().map(|&l| rule(l)).collect();
        let gold = [1, 1, 1, 0, 0].map(Gold::Label);
        let model = LabelModel::fit(&matrix, &rules, 2, Some(0), &gold).unwrap();
        assert_eq!(model.n_unlabeled(), 0);
        // Rule 0 fired on lines 0, 1 and 3, right once; rule 1 on 2 and 3, right once.
        assert_eq!(model.estimated_precision(0), Some(1.0 / 3.0));
        assert_eq!(model.estimated_precision(1), Some(0.5));
        // Predictions 0, 0, 1, 0 and none against gold 1, 1, 1, 0, 0.
        assert_eq!(model.estimated_accuracy(&matrix, &gold), Some(0.4));
    }

    #[test]
    fn a_model_past_its_limit_is_refused_and_an_empty_matrix_is_fitted() {
        let rules: Vec<LabelingRule> = (0..3000).map(rule).collect();
        let matrix = LabelMatrix::from_fired(3000, &[], |_| None);
        assert_eq!(
            LabelModel::fit(&matrix, &rules, 3000, None, &[]),
            Err(LabelModelError::TooLarge {
                rules: 3000,
                labels: 3000
            })
        );
        let model = LabelModel::fit(&matrix, &rules[..2], 3, None, &[]).unwrap();
        assert_eq!(model.estimated_precision(0), None);
        assert_eq!(model.estimated_accuracy(&matrix, &[]), None);
        let balance = model.class_balance();
        assert!(balance.iter().all(|&p| (p - 1.0 / 3.0).abs() < 1e-12));
    }
}

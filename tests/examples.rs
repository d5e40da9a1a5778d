//! The bundled rule systems' figures, recomputed without the automata: every pattern of
//! `examples/{sms,trec}/*.rules` is matched against every train and dev sentence by the
//! independent backtracking matcher of `tests/common/backtrack.rs`, labels are decided by a
//! separate evaluation of the formulas, and the result must equal the DFA-based rule
//! system sentence by sentence, pattern by pattern, and reproduce the accuracies and
//! coverages documented in `examples/README.md`.

mod common;

use common::{backtrack, sentence};
use rulelens::automata::evaluate;
use rulelens::limits::ReadLimits;
use rulelens::rules_file::RulesFile;
use rulelens::syntax::{Formula, RuleSet};
use std::path::Path;

fn holds(formula: &Formula, matched: &[bool]) -> bool {
    match formula {
        Formula::Pattern(p) => matched[p.index()],
        Formula::Not(inner) => !holds(inner, matched),
        Formula::And(items) => items.iter().all(|item| holds(item, matched)),
        Formula::Or(items) => items.iter().any(|item| holds(item, matched)),
        Formula::False => false,
    }
}

/// The spec's classification: the first label (in order of first rule) with a true rule,
/// else the default.
fn predict(rules: &RuleSet, matched: &[bool]) -> Option<String> {
    rules
        .labels
        .iter()
        .find(|label| label.rules.iter().any(|rule| holds(&rule.formula, matched)))
        .or_else(|| rules.default.map(|d| &rules.labels[d.index()]))
        .map(|label| label.name.clone())
}

/// (accuracy, coverage) in percent, rounded to two decimals, as the reference computes them.
fn cross_check(name: &str, split: &str) -> (f64, f64) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = RulesFile::read(
        &root.join(format!("examples/{name}/{name}.rules")),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let corpus = rulelens::corpus::read_file(
        &root.join(format!("examples/{name}/{split}.tsv")),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let (mut correct, mut covered) = (0, 0);
    for example in &corpus.examples {
        let tokens = sentence(&example.text);
        let matched: Vec<bool> = file
            .rules
            .patterns
            .iter()
            .map(|pattern| backtrack::is_match(&pattern.regex, &tokens))
            .collect();
        let outcome = file.system.classify(&example.text);
        assert_eq!(
            outcome.matched, matched,
            "pattern matches differ on {:?}",
            example.text
        );
        let prediction = predict(&file.rules, &matched);
        let dfa_prediction = outcome
            .prediction
            .map(|l| file.system.labels()[l.index()].clone());
        assert_eq!(
            dfa_prediction, prediction,
            "predictions differ on {:?}",
            example.text
        );
        correct += usize::from(prediction == example.label);
        covered += usize::from(file.rules.labels.iter().any(|label| {
            label
                .rules
                .iter()
                .any(|rule| holds(&rule.formula, &matched))
        }));
    }
    let n = corpus.examples.len() as f64;
    let evaluation = evaluate(
        &file.system,
        corpus
            .examples
            .iter()
            .map(|e| (e.text.as_str(), e.label.as_deref())),
    );
    assert_eq!(evaluation.n_correct, correct);
    assert_eq!(evaluation.n_covered, covered);
    let percent = |count: usize| (count as f64 / n * 10000.0).round() / 100.0;
    (percent(correct), percent(covered))
}

#[test]
fn sms_figures_agree_with_an_independent_matcher() {
    assert_eq!(cross_check("sms", "dev"), (91.80, 41.40));
    assert_eq!(cross_check("sms", "train"), (91.87, 41.18));
}

#[test]
fn trec_figures_agree_with_an_independent_matcher() {
    assert_eq!(cross_check("trec", "dev"), (47.80, 93.20));
    assert_eq!(cross_check("trec", "train"), (49.39, 95.15));
}

//! The untrained network compiled from a rules file predicts what the rule system
//! predicts (docs/architecture.md, invariant): exactly with the exact decomposition, with
//! the default settings and the bundled word vectors as without word vectors, for every
//! network compiled from rules; and the weighted automaton it is built from scores every
//! pattern exactly.

use candle_core::Device;
use rulelens::automata::{RuleSystem, compile_reversed};
use rulelens::limits::ReadLimits;
use rulelens::model::{
    Batch, BiFaRnn, FaRnn, ModelKind, Network, Scoring, Sentence, TrainingSettings,
    WeightedAutomaton, decompose, fit, predict,
};
use rulelens::rules_file::RulesFile;
use rulelens::text::tokenize;
use std::path::Path;

fn load(name: &str) -> (RulesFile, Vec<String>) {
    let (file, examples) = load_examples(name);
    (file, examples.into_iter().map(|e| e.text).collect())
}

/// The rules of `examples/NAME` and its dev examples.
fn load_examples(name: &str) -> (RulesFile, Vec<rulelens::corpus::Example>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = RulesFile::read(
        &root.join(format!("examples/{name}/{name}.rules")),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let corpus = rulelens::corpus::read_file(
        &root.join(format!("examples/{name}/dev.tsv")),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    (file, corpus.examples)
}

/// How many of `texts` the network labels as the rule system does.
fn agreement(file: &RulesFile, net: &dyn Network, texts: &[String]) -> usize {
    let device = Device::Cpu;
    let mut agree = 0;
    for chunk in texts.chunks(100) {
        let texts: Vec<&str> = chunk.iter().map(String::as_str).collect();
        let batch = Batch::from_texts(
            &file.system,
            None,
            &texts,
            rulelens::model::TrainingSettings::DEFAULT.max_sentence_tokens,
            &device,
        )
        .unwrap();
        let logits = net.logits(&batch).unwrap();
        let predicted: Vec<u32> = logits.argmax(1).unwrap().to_vec1().unwrap();
        for (text, label) in texts.iter().zip(predicted) {
            let expected = file.system.classify(text).prediction.map(|l| l.0);
            agree += usize::from(expected == Some(label));
        }
    }
    agree
}

#[test]
fn weighted_automaton_scores_every_pattern_exactly() {
    for name in ["sms", "trec"] {
        let (file, texts) = load(name);
        let automaton = WeightedAutomaton::new(&file.system);
        for text in texts.iter().take(200) {
            let mut symbols = Vec::new();
            file.system
                .alphabet()
                .symbolize(&tokenize(text), &mut symbols);
            let scores = automaton.pattern_scores(&symbols);
            let matched = file.system.classify(text).matched;
            let expected: Vec<f32> = matched.iter().map(|&m| f32::from(u8::from(m))).collect();
            assert_eq!(scores, expected, "{name}: {text:?}");
        }
    }
}

#[test]
fn exact_zero_shot_network_agrees_with_the_rules_on_every_dev_sentence() {
    for name in ["sms", "trec"] {
        let (file, texts) = load(name);
        let automaton = WeightedAutomaton::new(&file.system);
        let exact = decompose::exact(&automaton);
        assert!(exact.relative_error < 1e-6, "{}", exact.relative_error);
        let net = FaRnn::new(
            &file.system,
            &automaton,
            &exact,
            None,
            Scoring::Forward,
            &Device::Cpu,
        )
        .unwrap();
        assert_eq!(agreement(&file, &net, &texts), texts.len(), "{name}");
        // Max-product on a sample: on a deterministic automaton the best path is the path.
        let viterbi = FaRnn::new(
            &file.system,
            &automaton,
            &exact,
            None,
            Scoring::Viterbi,
            &Device::Cpu,
        )
        .unwrap();
        let sample = &texts[..20];
        assert_eq!(
            agreement(&file, &viterbi, sample),
            sample.len(),
            "{name} viterbi"
        );
    }
}

/// The exact zero-shot FA-RNN of `system`.
fn exact_network(system: &RuleSystem) -> FaRnn {
    let automaton = WeightedAutomaton::new(system);
    let exact = decompose::exact(&automaton);
    FaRnn::new(
        system,
        &automaton,
        &exact,
        None,
        Scoring::Forward,
        &Device::Cpu,
    )
    .unwrap()
}

#[test]
fn reversed_patterns_match_reversed_sentences() {
    for name in ["sms", "trec"] {
        let (file, texts) = load(name);
        let (reversed, too_large) =
            compile_reversed(&file.rules, &file.system, &Default::default());
        assert!(too_large.is_empty(), "{too_large:?}");
        for text in &texts {
            let mut symbols = Vec::new();
            file.system
                .alphabet()
                .symbolize(&tokenize(text), &mut symbols);
            symbols.reverse();
            let matched = file.system.classify(text).matched;
            for (p, pattern) in reversed.patterns().iter().enumerate() {
                let dfa = pattern.dfa.as_ref().unwrap();
                assert_eq!(
                    dfa.is_match(&symbols, file.system.alphabet()),
                    matched[p],
                    "{name}: {} on {text:?}",
                    pattern.name
                );
            }
        }
    }
}

#[test]
fn exact_zero_shot_bidirectional_network_agrees_with_the_rules_on_every_dev_sentence() {
    for name in ["sms", "trec"] {
        let (file, texts) = load(name);
        let (reversed, _) = compile_reversed(&file.rules, &file.system, &Default::default());
        let net = BiFaRnn {
            forward: exact_network(&file.system),
            backward: exact_network(&reversed),
        };
        assert_eq!(agreement(&file, &net, &texts), texts.len(), "{name}");
    }
}

#[test]
fn default_untrained_networks_agree_with_the_rules_on_every_sms_dev_line() {
    default_untrained_networks_agree_with_the_rules("sms");
}

#[test]
fn default_untrained_networks_agree_with_the_rules_on_every_trec_dev_line() {
    default_untrained_networks_agree_with_the_rules("trec");
}

/// What `rulelens train RULES --epochs 0` builds with every other setting at its default
/// (the bundled word vectors included) predicts what the rules predict on every dev line of
/// the example `name`, for every network compiled from rules: the word-vector path starts
/// closed (`fa_rnn.rs`), SoPa's free patterns and head start silent. And the untrained dev
/// accuracy that `train` reports is the rule system's, as `check` reports it. Trained
/// without `keep_every_rule`, the same holds of the rules training kept.
fn default_untrained_networks_agree_with_the_rules(name: &str) {
    let (file, examples) = load_examples(name);
    for model in [
        ModelKind::FaRnn,
        ModelKind::FaGru,
        ModelKind::BiFaRnn,
        ModelKind::BiFaGru,
        ModelKind::Sopa,
    ] {
        // Every rule, as `--zero-shot` loads a checkpoint; then the rules training kept
        // where the gold lines contradict some (`model::left_out`).
        for keep_every_rule in [true, false] {
            let settings = TrainingSettings {
                model,
                epochs: 0,
                keep_every_rule,
                ..TrainingSettings::default()
            };
            let fitted = fit(
                &file,
                &examples,
                &examples,
                &settings,
                &ReadLimits::DEFAULT,
                &mut |_| {},
                &|| false,
            )
            .unwrap();
            let left_out = &fitted.manifest.rules_left_out;
            // Each dev contradicts some of its rules (SMS's `ham: $* link $*`).
            assert_eq!(left_out.is_empty(), keep_every_rule, "{left_out:?}");
            let system = file
                .system
                .without_rules(&left_out.iter().map(|rule| rule.rule).collect::<Vec<_>>());
            agrees_with(name, &fitted, &system, &examples, &settings);
        }
    }
}

/// `fitted`, untrained, predicts what `system` predicts on every one of `examples`, and its
/// manifest's untrained figure is `system`'s accuracy.
fn agrees_with(
    name: &str,
    fitted: &rulelens::model::Fitted,
    system: &RuleSystem,
    examples: &[rulelens::corpus::Example],
    settings: &TrainingSettings,
) {
    let model = settings.model;
    let rule_predictions: Vec<Option<u32>> = examples
        .iter()
        .map(|e| system.classify(&e.text).prediction.map(|l| l.0))
        .collect();
    let rules_correct = examples
        .iter()
        .zip(&rule_predictions)
        .filter(|(e, p)| {
            e.label
                .as_deref()
                .and_then(|l| system.label_by_name(l))
                .map(|l| l.0)
                == **p
        })
        .count();
    assert_eq!(
        fitted.manifest.metrics.zero_shot_dev_accuracy,
        rules_correct as f64 / examples.len() as f64,
        "{name} {model:?}: train's untrained figure is not the rules'"
    );
    let sentences: Vec<Sentence> = examples
        .iter()
        .map(|e| {
            Sentence::new(
                system,
                fitted.vocabulary.as_ref(),
                &tokenize(&e.text),
                settings.max_sentence_tokens,
            )
        })
        .collect();
    let refs: Vec<&Sentence> = sentences.iter().collect();
    let predicted = predict(fitted.net.as_ref(), &refs, 64, &Device::Cpu).unwrap();
    let disagreements: Vec<&str> = examples
        .iter()
        .zip(predicted.iter().zip(&rule_predictions))
        .filter(|(_, (network, rules))| Some(**network) != **rules)
        .map(|(e, _)| e.text.as_str())
        .collect();
    assert!(
        disagreements.is_empty(),
        "{name} {model:?}: {} of {} dev lines, first {:?}",
        disagreements.len(),
        examples.len(),
        &disagreements[..disagreements.len().min(3)]
    );
}

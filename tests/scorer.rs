//! The plain-loop scorer (`model::FaRnnScorer`) computes what the tensor networks compute, for
//! every architecture and scoring: FA-RNN and FA-GRU, forward and Viterbi, one and two
//! directions, on the bundled SMS rules with word embeddings and without (where most token
//! vectors are sparse), with a label no rule names (learned from word vectors), and with
//! every trained parameter moved off its initial value, as training leaves them, and with an
//! n-gram regression beside the network (`model::WithNgrams`); and its
//! occlusions (`FaRnnScorer::occlusions`) are what the tensor
//! network computes for the sentence with a span's tokens taken out.

use candle_core::{Device, Tensor};
use rulelens::automata::{RuleSystem, compile_reversed};
use rulelens::limits::ReadLimits;
use rulelens::model::{
    Batch, BiFaRnn, FaRnn, FaRnnScorer, Network, NgramLine, NgramRegression, NgramTrainLine,
    Regularization, Scoring, Sentence, SplitMix64, Target, Vocabulary, WeightedAutomaton,
    WithNgrams, WordInput, WordVectors, decompose, vocabulary,
};
use rulelens::rules_file::RulesFile;
use rulelens::text::tokenize;
use std::path::Path;

/// The most tokens of a sentence a network reads, by default.
const MAX_TOKENS: usize = rulelens::model::TrainingSettings::DEFAULT.max_sentence_tokens;

struct Fixture {
    file: RulesFile,
    /// The rules' system with a label no rule names, as networks with word vectors learn it.
    system: RuleSystem,
    words: WordInput,
    texts: Vec<String>,
}

fn fixture() -> Fixture {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms");
    let file = RulesFile::read(
        &root.join("sms.rules"),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let dev = rulelens::corpus::read_file(&root.join("dev.tsv"), &ReadLimits::DEFAULT).unwrap();
    let vocab: Vocabulary = vocabulary(&file.system, [dev.examples.as_slice()]);
    let mut rng = SplitMix64::new(3);
    let dim = 8;
    let data = (0..vocab.len() * dim)
        .map(|_| rng.next_f64() as f32 - 0.5)
        .collect();
    let mut texts: Vec<String> = dev.examples.into_iter().map(|e| e.text).take(120).collect();
    // Unknown words, numbers, punctuation only, and nothing at all.
    texts.extend(["zzqx 12,5 !!".to_string(), "?".to_string(), String::new()]);
    Fixture {
        system: file.system.with_labels(["promo"]),
        file,
        words: WordInput {
            vocabulary: vocab.clone(),
            vectors: WordVectors {
                dim,
                data,
                n_found: vocab.len() - 1,
                n_backed_off: 0,
                known: (0..vocab.len()).map(|id| id > 0).collect(),
                sha256: String::new(),
            },
            beta: 0.7,
        },
        texts,
    }
}

impl Fixture {
    /// The labels a network learns: with word vectors, those no rule names too.
    fn system_for(&self, vocab: Option<&Vocabulary>) -> &RuleSystem {
        match vocab {
            Some(_) => &self.system,
            None => &self.file.system,
        }
    }
}

fn direction(fixture: &Fixture, reversed: bool, scoring: Scoring, gated: bool) -> FaRnn {
    direction_with(fixture, reversed, scoring, gated, Some(&fixture.words))
}

fn direction_with(
    fixture: &Fixture,
    reversed: bool,
    scoring: Scoring,
    gated: bool,
    words: Option<&WordInput>,
) -> FaRnn {
    let system = fixture.system_for(words.map(|input| &input.vocabulary));
    let system = if reversed {
        compile_reversed(&fixture.file.rules, system, &Default::default()).0
    } else {
        system.clone()
    };
    let automaton = WeightedAutomaton::new(&system);
    let exact = decompose::exact(&automaton);
    let net = FaRnn::new(&system, &automaton, &exact, words, scoring, &Device::Cpu).unwrap();
    let net = if gated {
        net.with_gates(1).unwrap()
    } else {
        net
    };
    perturb(&net, if reversed { 5 } else { 4 });
    net
}

/// Moves every trained parameter off its initial value: factors, G and the path of the
/// labels no rule names by noise of a size that changes predictions, gate biases down to
/// where the gates are half open.
fn perturb(net: &FaRnn, seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for (name, var) in net.trainable_names().into_iter().zip(net.trainable()) {
        let values: Vec<f32> = var.flatten_all().unwrap().to_vec1().unwrap();
        let moved: Vec<f32> = values
            .iter()
            .map(|&x| {
                let noise = rng.next_f64() as f32 - 0.5;
                match name.as_str() {
                    "update_bias" | "reset_bias" => 0.1 * noise,
                    "update_state" | "reset_state" | "update_token" | "reset_token" => {
                        x + 0.3 * noise
                    }
                    "g" => x + 0.5 * noise,
                    "corpus_labels.weight" => x + 4.0 * noise,
                    _ => x + 0.05 * noise,
                }
            })
            .collect();
        var.set(&Tensor::from_vec(moved, var.shape(), &Device::Cpu).unwrap())
            .unwrap();
    }
}

/// FaRnnScorer and tensor network agree on every logit, and on every prediction whose margin is
/// not within rounding.
/// Viterbi scoring through tensors costs K²·r per token, so its tests score fewer sentences.
fn assert_same(fixture: &Fixture, net: &dyn Network, what: &str) {
    assert_same_with(fixture, net, Some(&fixture.words.vocabulary), what);
}

fn assert_same_with(fixture: &Fixture, net: &dyn Network, vocab: Option<&Vocabulary>, what: &str) {
    let system = fixture.system_for(vocab);
    let scorer = FaRnnScorer::new(net, system, vocab, MAX_TOKENS).unwrap();
    let viterbi = net.directions()[0].0.scoring() == Scoring::Viterbi;
    let n = fixture.texts.len();
    let texts: Vec<&str> = fixture
        .texts
        .iter()
        .enumerate()
        .filter(|&(i, _)| !viterbi || i < 20 || i + 3 >= n)
        .map(|(_, text)| text.as_str())
        .collect();
    let batch = Batch::from_texts(system, vocab, &texts, MAX_TOKENS, &Device::Cpu).unwrap();
    let expected: Vec<Vec<f32>> = net.logits(&batch).unwrap().to_vec2().unwrap();
    let mut predictions_differ = 0;
    for (text, expected) in texts.iter().zip(&expected) {
        let scores = scorer.score_text(text);
        let sentence = Sentence::new(system, vocab, &tokenize(text), MAX_TOKENS);
        assert_eq!(scorer.score(&sentence).unwrap(), scores, "{what}: {text:?}");
        assert_eq!(scores.pattern_scores.len(), net.directions().len());
        for (a, b) in scores.logits.iter().zip(expected) {
            assert!(
                (a - b).abs() <= 1e-4,
                "{what}: {text:?}: {scores:?} vs {expected:?}"
            );
        }
        let mut sorted = expected.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let best = expected
            .iter()
            .position(|&x| x == sorted[0])
            .expect("a logit");
        if sorted.len() < 2 || sorted[0] - sorted[1] > 1e-4 {
            assert_eq!(scores.prediction(), best, "{what}: {text:?}");
        } else {
            predictions_differ += usize::from(scores.prediction() != best);
        }
        let probabilities = scores.probabilities(10.0);
        assert!((probabilities.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
    // The perturbation is large enough that the networks are not the rules any more.
    let rules_differ = texts
        .iter()
        .zip(&expected)
        .filter(|(text, logits)| {
            let rules = system.classify(text).prediction.map(|l| l.index());
            let best = logits
                .iter()
                .enumerate()
                .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
                .map(|(i, _)| i);
            rules != best
        })
        .count();
    assert!(rules_differ > 0, "{what}: still the rules");
    if !system.corpus_labels().is_empty() {
        let named = system.labels().len() - system.corpus_labels().len();
        let unnamed = expected
            .iter()
            .filter(|logits| {
                let best = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                logits[named..].contains(&best)
            })
            .count();
        assert!(unnamed > 0, "{what}: no label without rules predicted");
    }
    assert!(predictions_differ <= 1, "{what}: {predictions_differ} ties");
}

/// For every span of up to 3 tokens of the fixture's texts `texts`: the scores
/// [`FaRnnScorer::occlusions`]
/// gives for the text without the span are the tensor network's logits for the text's
/// sentence with the span's symbols and words taken out, and its scores of the whole text
/// are [`FaRnnScorer::score_text`]'s.
fn assert_occlusions_same(
    fixture: &Fixture,
    net: &dyn Network,
    vocab: Option<&Vocabulary>,
    texts: std::ops::Range<usize>,
    what: &str,
) {
    let system = fixture.system_for(vocab);
    let scorer = FaRnnScorer::new(net, system, vocab, MAX_TOKENS).unwrap();
    let mut sentences = Vec::new();
    let mut occluded = Vec::new();
    for text in &fixture.texts[texts.clone()] {
        let occlusions = scorer.occlusions(text, 3);
        assert_eq!(
            occlusions.scores,
            scorer.score_text(text),
            "{what}: {text:?}"
        );
        let whole = Sentence::new(system, vocab, &tokenize(text), MAX_TOKENS);
        let n_spans: usize = (1..=3)
            .map(|len| (whole.words.len() + 1).saturating_sub(len))
            .sum();
        assert_eq!(occlusions.spans().count(), n_spans);
        for (span, scores) in occlusions.spans() {
            sentences.push(Sentence {
                symbols: [&whole.symbols[..span.start], &whole.symbols[span.end..]].concat(),
                words: [&whole.words[..span.start], &whole.words[span.end..]].concat(),
            });
            occluded.push((text, span, scores.logits.clone()));
        }
    }
    let batch = Batch::from_sentences(&sentences.iter().collect::<Vec<_>>(), &Device::Cpu).unwrap();
    let expected: Vec<Vec<f32>> = net.logits(&batch).unwrap().to_vec2().unwrap();
    assert!(expected.len() > texts.len(), "{what}");
    for ((text, span, logits), expected) in occluded.iter().zip(&expected) {
        for (a, b) in logits.iter().zip(expected) {
            assert!(
                (a - b).abs() <= 1e-4,
                "{what}: {text:?} without {span:?}: {logits:?} vs {expected:?}"
            );
        }
    }
}

#[test]
fn scorer_computes_what_fa_rnn_computes() {
    let fixture = fixture();
    for scoring in [Scoring::Forward, Scoring::Viterbi] {
        let net = direction(&fixture, false, scoring, false);
        let what = format!("fa-rnn {scoring:?}");
        assert_same(&fixture, &net, &what);
        // Viterbi through tensors costs K²·r per token: two short texts (8 and 11 tokens).
        let texts = if scoring == Scoring::Viterbi {
            1..3
        } else {
            0..12
        };
        assert_occlusions_same(
            &fixture,
            &net,
            Some(&fixture.words.vocabulary),
            texts,
            &what,
        );
    }
}

#[test]
fn scorer_computes_what_fa_rnn_without_word_embeddings_computes() {
    let fixture = fixture();
    let net = direction_with(&fixture, false, Scoring::Forward, false, None);
    assert_same_with(&fixture, &net, None, "fa-rnn without words");
    assert_occlusions_same(&fixture, &net, None, 0..12, "fa-rnn without words");
}

#[test]
fn scorer_computes_what_fa_gru_computes() {
    let fixture = fixture();
    let net = direction(&fixture, false, Scoring::Forward, true);
    assert_same(&fixture, &net, "fa-gru");
    assert_occlusions_same(
        &fixture,
        &net,
        Some(&fixture.words.vocabulary),
        0..6,
        "fa-gru",
    );
}

#[test]
fn scorer_computes_what_bidirectional_networks_compute() {
    let fixture = fixture();
    let net = BiFaRnn {
        forward: direction(&fixture, false, Scoring::Forward, false),
        backward: direction(&fixture, true, Scoring::Forward, false),
    };
    assert_same(&fixture, &net, "bifa-rnn");
    let vocab = Some(&fixture.words.vocabulary);
    assert_occlusions_same(&fixture, &net, vocab, 0..6, "bifa-rnn");
    let net = BiFaRnn {
        forward: direction(&fixture, false, Scoring::Viterbi, true),
        backward: direction(&fixture, true, Scoring::Viterbi, true),
    };
    assert_same(&fixture, &net, "bifa-gru viterbi");
}

#[test]
fn scorer_computes_what_a_network_with_an_ngram_regression_computes() {
    let fixture = fixture();
    let vocab = &fixture.words.vocabulary;
    // The regression of the fixture's own lines, each labeled in turn with every label:
    // weights far from 0 that no rule explains.
    let n_labels = fixture.system.labels().len();
    let lines: Vec<(Vec<u32>, Option<usize>)> = fixture
        .texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let sentence = Sentence::new(&fixture.system, Some(vocab), &tokenize(text), MAX_TOKENS);
            (sentence.words, Some(i % n_labels))
        })
        .collect();
    let dev: Vec<NgramLine> = lines.iter().map(|(w, l)| (w.as_slice(), *l)).collect();
    let train: Vec<NgramTrainLine> = lines
        .iter()
        .map(|(w, l)| (w.as_slice(), Target::Label(l.unwrap())))
        .collect();
    let words = (vocab, Some(&fixture.words.vectors));
    let ngrams = NgramRegression::fit(words, &train, Regularization::ChosenOn(&dev), n_labels, 0.2)
        .unwrap()
        .regression;
    assert!(ngrams.n_features() > 100);
    // With its mean word vector's part: every word of the vocabulary has a vector here.
    assert_eq!(ngrams.n_vector_words(), vocab.len() - 1);
    let alone = direction(&fixture, false, Scoring::Forward, false);
    let net = WithNgrams::new(Box::new(alone), ngrams.clone()).unwrap();
    assert_same(&fixture, &net, "fa-rnn with n-grams");
    assert_occlusions_same(&fixture, &net, Some(vocab), 0..12, "fa-rnn with n-grams");
    // The regression adds to the network's logits: without it the scores differ.
    let without = FaRnnScorer::new(
        net.network.as_ref(),
        &fixture.system,
        Some(vocab),
        MAX_TOKENS,
    )
    .unwrap();
    let with = FaRnnScorer::new(&net, &fixture.system, Some(vocab), MAX_TOKENS).unwrap();
    let text = &fixture.texts[0];
    let words = Sentence::new(&fixture.system, Some(vocab), &tokenize(text), MAX_TOKENS).words;
    let added = ngrams.logits(&words, 0..0);
    for ((a, b), x) in with
        .score_text(text)
        .logits
        .iter()
        .zip(without.score_text(text).logits)
        .zip(added)
    {
        assert!((a - (b + x)).abs() <= 1e-5, "{a} {b} {x}");
    }
    assert!(with.has_ngram_regression() && !without.has_ngram_regression());
}

#[test]
fn a_sentence_of_another_vocabulary_is_refused() {
    let fixture = fixture();
    let net = direction(&fixture, false, Scoring::Forward, false);
    let scorer = FaRnnScorer::new(
        &net,
        &fixture.system,
        Some(&fixture.words.vocabulary),
        MAX_TOKENS,
    )
    .unwrap();
    let sentence = Sentence {
        symbols: vec![rulelens::automata::SymbolId(0); 3],
        words: vec![0, 1, fixture.words.vocabulary.len() as u32],
    };
    assert_eq!(scorer.score(&sentence).unwrap_err().position, 2);
    // Built for no vocabulary, the scorer refuses a network that reads word embeddings.
    assert!(FaRnnScorer::new(&net, &fixture.system, None, MAX_TOKENS).is_err());
}

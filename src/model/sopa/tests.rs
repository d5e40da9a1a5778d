//! SoPa's own tests: the rules' chains, the untrained network against the rule system on the
//! bundled SMS and TREC corpora, and padding that never leaks into scores (SoPa's own
//! `test_batching`).

use super::*;
use crate::automata::CompileConfig;
use crate::corpus::{Example, read_file};
use crate::limits::ReadLimits;
use crate::model::Vocabulary;
use crate::model::nn::batch::Sentence;
use crate::model::train::build::vocabulary;
use crate::model::{SopaSettings, TrainingSettings};
use crate::rules_file::RulesFile;
use crate::text::{SourceText, Tokens};
use std::path::Path;

fn rules_file(text: &str) -> RulesFile {
    RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &CompileConfig::default(),
    )
}

/// The chain of the file's first pattern, printed: `^` START, `$` END, `[..]` a loop,
/// `?` an optional element.
fn shape(regex: &str) -> Option<String> {
    let file = rules_file(&format!("default b\na: {regex}\n"));
    let alphabet = file.system.alphabet();
    let chain = compile::chain(&file.rules.patterns[0].regex, alphabet)?;
    let atoms = |atoms: &[crate::automata::Atom]| -> String {
        atoms
            .iter()
            .map(|atom| match atom {
                crate::automata::Atom::Symbol(id) => alphabet.literal(*id).unwrap().to_string(),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join("|")
    };
    let mut out = String::new();
    for (i, element) in chain.elements.iter().enumerate() {
        if !chain.loops[i].is_empty() {
            out.push_str(&format!("[{}] ", atoms(&chain.loops[i])));
        }
        out.push_str(&match element {
            Accepts::Start => "^".to_string(),
            Accepts::End => "$".to_string(),
            Accepts::Tokens(set) => atoms(set),
        });
        if chain.optional[i] {
            out.push('?');
        }
        out.push(' ');
    }
    Some(out.trim_end().to_string())
}

#[test]
fn chains_are_what_rules_say_with_anchors_loops_and_optional_elements() {
    assert_eq!(shape("$* won $* cash $*").unwrap(), "won [Any] cash");
    assert_eq!(shape("what is $*").unwrap(), "^ what is");
    assert_eq!(
        shape("$* ( prize | cash ) %").unwrap(),
        "prize|cash Number $"
    );
    assert_eq!(
        shape("$* how &* $? ( much | many ) $*").unwrap(),
        "how [Punct] Any? much|many"
    );
    assert_eq!(shape("$+ call $*").unwrap(), "^ Any [Any] call");
    assert_eq!(shape("$* a{2} $*").unwrap(), "a a");
    // Not chains: a repeated sequence, two optional elements in a row, an optional end,
    // a bounded repetition, nothing but gaps.
    for regex in [
        "( a b )* c",
        "$* a? b? c $*",
        "$* a b? $*",
        "$* a{1,3} $*",
        "$*",
    ] {
        assert_eq!(shape(regex), None, "{regex}");
    }
}

/// A bundled example's rules and corpora.
fn example(name: &str) -> (RulesFile, Vec<Example>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let text = std::fs::read_to_string(dir.join(format!("{name}.rules"))).unwrap();
    let file = rules_file(&text);
    let mut examples = Vec::new();
    for split in ["train.tsv", "dev.tsv"] {
        examples.extend(
            read_file(&dir.join(split), &ReadLimits::default())
                .unwrap()
                .examples,
        );
    }
    (file, examples)
}

/// The examples as the network reads them, whole.
fn sentences_of(
    system: &RuleSystem,
    vocabulary: &Vocabulary,
    examples: &[Example],
) -> Vec<Sentence> {
    let mut tokens = Tokens::default();
    examples
        .iter()
        .map(|example| {
            tokens.tokenize(&example.text);
            Sentence::new(system, Some(vocabulary), &tokens, usize::MAX)
        })
        .collect()
}

/// Small random word vectors for a vocabulary (they weigh nothing in the untrained rules).
fn vectors(n_words: usize, dim: usize) -> Vec<f32> {
    let mut rng = SplitMix64::new(7);
    (0..n_words * dim)
        .map(|_| rng.next_f64() as f32 - 0.5)
        .collect()
}

fn sopa(file: &RulesFile, settings: &TrainingSettings, n_words: usize, dim: usize) -> Sopa {
    Sopa::declare(
        Parameters::fresh(3, &Device::Cpu),
        &file.system,
        &file.rules,
        (&settings.sopa, settings.dropout(), 0.0),
        (n_words, dim),
        Some(&vectors(n_words, dim)),
        &[],
    )
    .unwrap()
}

#[test]
fn the_untrained_sopa_matches_where_the_rules_match_and_predicts_what_they_predict() {
    for (name, n_chained) in [("sms", 73), ("trec", 65)] {
        // Every tenth line of train and dev, in each semiring (all of them took a minute of
        // CI; tests/zero_shot.rs checks the default semiring on every dev line).
        let (file, examples) = example(name);
        let examples: Vec<Example> = examples.into_iter().step_by(10).collect();
        let system = &file.system;
        let vocabulary = vocabulary(system, [examples.as_slice()]);
        let sentences = sentences_of(system, &vocabulary, &examples);
        for semiring in [Semiring::MaxProduct, Semiring::MaxSum, Semiring::SumProduct] {
            let settings = TrainingSettings {
                sopa: SopaSettings {
                    semiring,
                    ..SopaSettings::DEFAULT
                },
                ..TrainingSettings::DEFAULT
            };
            let net = sopa(&file, &settings, vocabulary.len(), 4);
            let n_patterns = system.patterns().len();
            let (mut pattern_agree, mut label_agree) = (0usize, 0usize);
            let mut classification = crate::automata::Classification::default();
            for chunk in sentences.chunks(64) {
                let refs: Vec<&Sentence> = chunk.iter().collect();
                let batch = Batch::from_sentences(&refs, &Device::Cpu).unwrap();
                let (truths, _) = net.pattern_truths(&batch).unwrap();
                let truths: Vec<Vec<f32>> = truths.to_vec2().unwrap();
                let predicted: Vec<u32> = net
                    .logits(&batch)
                    .unwrap()
                    .argmax(1)
                    .unwrap()
                    .to_vec1()
                    .unwrap();
                for ((sentence, truths), predicted) in chunk.iter().zip(truths).zip(predicted) {
                    system.classify_symbols(
                        &sentence.symbols,
                        &mut Default::default(),
                        &mut classification,
                    );
                    pattern_agree += classification
                        .matched
                        .iter()
                        .zip(&truths)
                        .filter(|(m, t)| **m == (**t > 0.5))
                        .count();
                    label_agree +=
                        usize::from(classification.prediction.map(|l| l.0) == Some(predicted));
                }
            }
            let n = sentences.len();
            let patterns = pattern_agree as f64 / (n * n_patterns) as f64;
            let labels = label_agree as f64 / n as f64;
            assert!(
                patterns >= 0.999 && labels >= 0.995,
                "{name} {semiring:?}: patterns {patterns}, labels {labels}"
            );
            // All of SMS's 73 rule patterns are chains, and 65 of TREC's 68.
            assert_eq!(net.chained_patterns().len(), n_chained, "{name}");
        }
    }
}

/// Every trainable tensor drawn at random, so that every part of the network matters.
fn scramble(net: &Sopa, seed: u64) {
    let mut rng = SplitMix64::new(seed);
    for var in net.parameters.trainable() {
        let values: Vec<f32> = (0..var.elem_count())
            .map(|_| (rng.next_f64() as f32 - 0.5) * 2.0)
            .collect();
        let tensor = Tensor::from_vec(values, var.shape(), &Device::Cpu).unwrap();
        var.set(&tensor).unwrap();
    }
}

#[test]
fn padding_never_leaks_whatever_the_batch_size() {
    let (file, examples) = example("sms");
    let examples = &examples[..20];
    let system = &file.system;
    let vocabulary = vocabulary(system, [examples]);
    let sentences = sentences_of(system, &vocabulary, examples);
    for semiring in [Semiring::MaxProduct, Semiring::MaxSum, Semiring::SumProduct] {
        let settings = TrainingSettings {
            sopa: SopaSettings {
                semiring,
                patterns: "5:3,3:2".parse().unwrap(),
                mlp_hidden: 6,
                ..SopaSettings::DEFAULT
            },
            ..TrainingSettings::DEFAULT
        };
        let net = sopa(&file, &settings, vocabulary.len(), 4);
        scramble(&net, 11);
        let logits = |size: usize| -> Vec<Vec<f32>> {
            sentences
                .chunks(size)
                .flat_map(|chunk| {
                    let refs: Vec<&Sentence> = chunk.iter().collect();
                    let batch = Batch::from_sentences(&refs, &Device::Cpu).unwrap();
                    net.logits(&batch).unwrap().to_vec2::<f32>().unwrap()
                })
                .collect()
        };
        let one = logits(1);
        for size in [2, 4, 5, 10, 20] {
            for (a, b) in one.iter().zip(logits(size)) {
                for (x, y) in a.iter().zip(&b) {
                    assert!(
                        (x - y).abs() < 1e-4,
                        "{semiring:?} batch {size}: {a:?} {b:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn explanations_remove_what_the_network_uses_and_spans_are_the_rules_matches() {
    let (file, examples) = example("sms");
    let system = &file.system;
    let vocabulary = vocabulary(system, [examples.as_slice()]);
    let net = sopa(&file, &TrainingSettings::DEFAULT, vocabulary.len(), 4);
    let alphabet = system.alphabet();
    let (mut n_spans, mut n_decisive) = (0, 0);
    let mut classification = crate::automata::Classification::default();
    let mut tokens = Tokens::default();
    for example in examples.iter().step_by(10) {
        tokens.tokenize(&example.text);
        let sentence = Sentence::new(system, Some(&vocabulary), &tokens, usize::MAX);
        let batch = Batch::from_sentences(&[&sentence], &Device::Cpu).unwrap();
        let explanation = net.explain(&batch, 10.0).unwrap();
        system.classify_symbols(
            &sentence.symbols,
            &mut Default::default(),
            &mut classification,
        );
        assert_eq!(
            Some(explanation.predicted as u32),
            classification.prediction.map(|l| l.0)
        );
        let n_matched = classification.matched.iter().filter(|&&m| m).count();
        for contribution in &explanation.contributions {
            let PatternRef::Rule(p) = contribution.pattern else {
                // Free patterns weigh nothing before training.
                assert_eq!(contribution.delta, 0.0);
                continue;
            };
            if !classification.matched[p] {
                // Removing a pattern that did not match changes nothing.
                assert!(contribution.delta.abs() < 1e-3, "{contribution:?}");
                continue;
            }
            if n_matched == 1 && classification.prediction != system.default_label() {
                // The only match decides the label: without it, the default wins.
                assert!(contribution.delta > 0.5, "{contribution:?}");
                n_decisive += 1;
            }
            // A soft pattern's best span is a match of the rule's core.
            if net.chained.contains(&p) {
                let span = contribution.span.clone().expect("a matched pattern's span");
                let compiled = &system.patterns()[p];
                let matched = match &compiled.core {
                    Some(core) => core.dfa.is_match(&sentence.symbols[span.clone()], alphabet),
                    None => span == (0..sentence.symbols.len()),
                };
                assert!(matched, "{}: {span:?} of {:?}", compiled.name, example.text);
                n_spans += 1;
            }
        }
    }
    assert!(n_spans > 20 && n_decisive > 10, "{n_spans} {n_decisive}");
}

#[test]
fn the_fused_recurrence_computes_what_the_tensor_chain_computes_with_gradients() {
    let (file, examples) = example("sms");
    let examples = &examples[..24];
    let system = &file.system;
    let vocabulary = vocabulary(system, [examples]);
    let sentences = sentences_of(system, &vocabulary, examples);
    let refs: Vec<&Sentence> = sentences.iter().collect();
    let batch = Batch::from_sentences(&refs, &Device::Cpu).unwrap();
    for semiring in [Semiring::MaxProduct, Semiring::MaxSum] {
        let settings = TrainingSettings {
            sopa: SopaSettings {
                semiring,
                patterns: "5:4,3:4".parse().unwrap(),
                ..SopaSettings::DEFAULT
            },
            ..TrainingSettings::DEFAULT
        };
        let net = sopa(&file, &settings, vocabulary.len(), 4);
        // Random values everywhere, so that no two paths tie.
        scramble(&net, 5);
        let padded = net.pad(&batch, None).unwrap();
        let (b, t) = padded.symbols.dims2().unwrap();
        let (vectors, symbols) = net.inputs(&padded).unwrap();
        for group in [net.rules.as_ref().unwrap(), net.free.as_ref().unwrap()] {
            let p = group.ends.len();
            let weights = net
                .weights(group, &vectors, &symbols, None)
                .unwrap()
                .reshape((b, t, p, 2, group.n_states))
                .unwrap();
            let fused = net.recurrence(group, &weights, &padded).unwrap();
            let chained = net
                .recurrence_unfused(group, &weights, &padded.mask)
                .unwrap();
            let a: Vec<Vec<f32>> = fused.to_vec2().unwrap();
            let c: Vec<Vec<f32>> = chained.to_vec2().unwrap();
            for (x, y) in a.iter().flatten().zip(c.iter().flatten()) {
                assert!((x - y).abs() < 1e-4, "{semiring:?}: {x} {y}");
            }
            let mix = Tensor::arange(0f32, (b * p) as f32, &Device::Cpu)
                .unwrap()
                .reshape((b, p))
                .unwrap()
                .affine(0.01, -0.2)
                .unwrap();
            let grads = |scores: &Tensor| {
                (scores * &mix)
                    .unwrap()
                    .sum_all()
                    .unwrap()
                    .backward()
                    .unwrap()
            };
            let (fused_grads, chained_grads) = (grads(&fused), grads(&chained));
            for tensor in [&group.words, &group.symbols, &group.bias, &group.epsilon] {
                let x: Vec<f32> = fused_grads
                    .get(tensor)
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1()
                    .unwrap();
                let y: Vec<f32> = chained_grads
                    .get(tensor)
                    .unwrap()
                    .flatten_all()
                    .unwrap()
                    .to_vec1()
                    .unwrap();
                let largest = y.iter().fold(0f32, |m, v| m.max(v.abs()));
                assert!(largest > 0.0);
                for (x, y) in x.iter().zip(&y) {
                    assert!(
                        (x - y).abs() <= 1e-3 * largest.max(1.0),
                        "{semiring:?}: {x} {y}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_best_path_scores_what_the_recurrence_scores_and_its_steps_add_up_to_it() {
    let (file, examples) = example("trec");
    let examples = &examples[..16];
    let system = &file.system;
    let vocabulary = vocabulary(system, [examples]);
    let sentences = sentences_of(system, &vocabulary, examples);
    let refs: Vec<&Sentence> = sentences.iter().collect();
    let batch = Batch::from_sentences(&refs, &Device::Cpu).unwrap();
    for semiring in [Semiring::MaxProduct, Semiring::MaxSum] {
        let settings = TrainingSettings {
            sopa: SopaSettings {
                semiring,
                patterns: "5:3,3:3".parse().unwrap(),
                ..SopaSettings::DEFAULT
            },
            ..TrainingSettings::DEFAULT
        };
        let net = sopa(&file, &settings, vocabulary.len(), 4);
        scramble(&net, 9);
        let paths = net.best_paths(&batch).unwrap();
        let padded = net.pad(&batch, None).unwrap();
        let (b, t) = padded.symbols.dims2().unwrap();
        let (vectors, symbols) = net.inputs(&padded).unwrap();
        let mut offset = 0;
        let mut n_skips = 0;
        for group in [net.rules.as_ref().unwrap(), net.free.as_ref().unwrap()] {
            let p = group.ends.len();
            let l = group.n_states;
            let weights = net.weights(group, &vectors, &symbols, None).unwrap();
            let scores: Vec<Vec<f32>> = net
                .recurrence(group, &weights.reshape((b, t, p, 2, l)).unwrap(), &padded)
                .unwrap()
                .to_vec2()
                .unwrap();
            let rows: Vec<Vec<f32>> = weights.to_vec2().unwrap();
            let epsilon: Vec<Vec<f32>> =
                semiring.encode(&group.epsilon).unwrap().to_vec2().unwrap();
            for (s, sentence_paths) in paths.iter().enumerate() {
                for q in 0..p {
                    let path = sentence_paths[offset + q].as_ref().unwrap();
                    assert!(
                        (path.score - scores[s][q]).abs() < 1e-3,
                        "{} {}",
                        path.score,
                        scores[s][q]
                    );
                    let sum: f32 = path
                        .steps
                        .iter()
                        .map(|step| match (step.step, step.position) {
                            (Step::Skip, _) => epsilon[q][step.state],
                            (Step::Loop, Some(at)) => rows[s * t + at][(q * 2) * l + step.state],
                            (Step::Main, Some(at)) => {
                                rows[s * t + at][(q * 2 + 1) * l + step.state]
                            }
                            _ => unreachable!(),
                        })
                        .sum();
                    assert!((sum - path.score).abs() < 1e-3, "{sum} {}", path.score);
                    n_skips += path.steps.iter().filter(|s| s.step == Step::Skip).count();
                }
            }
            offset += p;
        }
        assert!(n_skips > 0, "{semiring:?}: no path took an ε-transition");
    }
}

#[test]
fn the_plain_scorer_computes_what_the_tensors_compute_explanations_included() {
    let (file, examples) = example("sms");
    let examples = &examples[..60];
    let system = &file.system;
    let vocabulary = vocabulary(system, [examples]);
    let mut tokens = Tokens::default();
    for semiring in [Semiring::MaxProduct, Semiring::MaxSum, Semiring::SumProduct] {
        for mlp_hidden in [0, 5] {
            let settings = TrainingSettings {
                sopa: SopaSettings {
                    semiring,
                    mlp_hidden,
                    patterns: "4:3,2:2".parse().unwrap(),
                    ..SopaSettings::DEFAULT
                },
                ..TrainingSettings::DEFAULT
            };
            let net = sopa(&file, &settings, vocabulary.len(), 4);
            scramble(&net, 5);
            let scorer = net.scorer(&vocabulary, usize::MAX).unwrap();
            for example in examples {
                tokens.tokenize(&example.text);
                let sentence = Sentence::new(system, Some(&vocabulary), &tokens, usize::MAX);
                let batch = Batch::from_sentences(&[&sentence], &Device::Cpu).unwrap();
                let tensors = net.explain(&batch, 10.0).unwrap();
                let plain = scorer.explain_text(&example.text, 10.0);
                let context = format!("{semiring:?} {mlp_hidden}: {:?}", example.text);
                assert_eq!(tensors.predicted, plain.predicted, "{context}");
                // Scrambled weights make logits in the tens, read at scale 10: f32 rounding
                // in a different order of summation moves probabilities by up to 1e-3.
                for (a, b) in tensors.probabilities.iter().zip(&plain.probabilities) {
                    assert!((a - b).abs() < 1e-3, "{context}");
                }
                assert_eq!(tensors.contributions.len(), plain.contributions.len());
                for (a, b) in tensors.contributions.iter().zip(&plain.contributions) {
                    assert_eq!(a.pattern, b.pattern, "{context}");
                    assert_eq!(a.span, b.span, "{context}: {a:?} {b:?}");
                    let tolerance = 1e-4 * a.score.abs().max(1.0);
                    assert!(
                        (a.score - b.score).abs() < tolerance,
                        "{context}: {a:?} {b:?}"
                    );
                    assert!((a.delta - b.delta).abs() < 1e-3, "{context}: {a:?} {b:?}");
                }
            }
        }
    }
}

#[test]
fn the_fused_transition_weights_compute_what_the_tensor_chain_computes_with_gradients() {
    let (file, examples) = example("sms");
    let examples = &examples[..24];
    let system = &file.system;
    let vocabulary = vocabulary(system, [examples]);
    let sentences = sentences_of(system, &vocabulary, examples);
    let refs: Vec<&Sentence> = sentences.iter().collect();
    let batch = Batch::from_sentences(&refs, &Device::Cpu).unwrap();
    for semiring in [Semiring::MaxProduct, Semiring::MaxSum, Semiring::SumProduct] {
        let settings = TrainingSettings {
            sopa: SopaSettings {
                semiring,
                patterns: "4:3".parse().unwrap(),
                ..SopaSettings::DEFAULT
            },
            ..TrainingSettings::DEFAULT
        };
        let net = sopa(&file, &settings, vocabulary.len(), 4);
        scramble(&net, 9);
        let padded = net.pad(&batch, None).unwrap();
        let (vectors, symbols) = net.inputs(&padded).unwrap();
        for group in [net.rules.as_ref().unwrap(), net.free.as_ref().unwrap()] {
            let fused = net.weights(group, &vectors, &symbols, None).unwrap();
            let products = vectors.matmul(&group.words.t().unwrap()).unwrap();
            let chained = net.weights_unfused(group, &products, &symbols).unwrap();
            let a: Vec<f32> = fused.flatten_all().unwrap().to_vec1().unwrap();
            let c: Vec<f32> = chained.flatten_all().unwrap().to_vec1().unwrap();
            for (x, y) in a.iter().zip(&c) {
                assert!(
                    (x - y).abs() <= 1e-5 * y.abs().max(1.0),
                    "{semiring:?}: {x} {y}"
                );
            }
            let mix = Tensor::arange(0f32, fused.elem_count() as f32, &Device::Cpu)
                .unwrap()
                .reshape(fused.shape())
                .unwrap()
                .affine(1e-4, -0.3)
                .unwrap();
            let grads = |weights: &Tensor| {
                (weights * &mix)
                    .unwrap()
                    .sum_all()
                    .unwrap()
                    .backward()
                    .unwrap()
            };
            let (fused_grads, chained_grads) = (grads(&fused), grads(&chained));
            for tensor in [&group.words, &group.symbols, &group.bias] {
                let values = |grads: &candle_core::backprop::GradStore| -> Vec<f32> {
                    grads
                        .get(tensor)
                        .unwrap()
                        .flatten_all()
                        .unwrap()
                        .to_vec1()
                        .unwrap()
                };
                let (x, y) = (values(&fused_grads), values(&chained_grads));
                let largest = y.iter().fold(0f32, |m, v| m.max(v.abs()));
                assert!(largest > 0.0, "{semiring:?}");
                for (x, y) in x.iter().zip(&y) {
                    assert!(
                        (x - y).abs() <= 1e-4 * largest.max(1.0),
                        "{semiring:?}: {x} {y}"
                    );
                }
            }
        }
    }
}

#[test]
fn words_are_dropped_by_default_from_many_long_sentences_only() {
    let default = SopaSettings::DEFAULT;
    assert_eq!(default.word_dropout_for(69.7, 1_440), 0.2);
    assert_eq!(default.word_dropout_for(40.0, 400), 0.2);
    assert_eq!(default.word_dropout_for(71.1, 100), 0.0);
    assert_eq!(default.word_dropout_for(19.8, 4_502), 0.0);
    let asked = SopaSettings {
        word_dropout: Some(0.0),
        ..SopaSettings::DEFAULT
    };
    assert_eq!(asked.word_dropout_for(69.7, 1_440), 0.0);
    let wrong = SopaSettings {
        word_dropout: Some(1.0),
        ..SopaSettings::DEFAULT
    };
    assert_eq!(
        wrong.check().unwrap_err(),
        "word dropout must be in [0, 1), not 1"
    );
}

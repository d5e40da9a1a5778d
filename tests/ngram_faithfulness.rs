//! The n-grams a corpus-line hover lists are what the trained network does (issue 13, item
//! 11), on every dev line of the bundled SMS and TREC examples, for an FA-RNN trained as the
//! language server trains it (forward scoring, word vectors, one network a save) on part of
//! SMS's train corpus, and for an ensemble of three (`--members`, whose logits are its
//! members' mean) on part of TREC's, with early stopping on dev:
//!
//! - the hover's prediction and probabilities are the tensor network's;
//! - each listed n-gram's contribution is the predicted label's probability minus its
//!   probability for the line with the n-gram's tokens taken out, both computed by the
//!   tensor network (not by the scorer that made the hover), so its sign says which way the
//!   n-gram pushes the prediction, and `without` is that second probability;
//! - no n-gram left out is stronger than the ones listed, unless a listed one inside it is
//!   at least as strong, with every span's deletion (up to the length the hover says it
//!   measured) re-scored from the line's text with that span cut out (a fresh tokenization
//!   and a full run of the network, not the prefix states the hover reuses);
//! - each top pattern's span is one whose deletion lowers the pattern's score the most;
//! - the n-gram regression beside the network (the defaults have one, and here it reads
//!   character n-grams) adds to the prediction's score what the hover says, and the parts
//!   it lists add up to that;
//! - and the same for the lines whose n-grams the hover's budget cuts, once measured ahead
//!   of their hover as the language server does in the background
//!   (`TrainedFaRnn::measure_ahead`): then every n-gram length is measured on each line of up
//!   to 128 tokens (issue 32, item 3). The listed n-grams of all of those lines are checked,
//!   and every span of every third of them is re-scored (a line of a hundred tokens has
//!   some thousands of spans, each a full run of the network).
//!
//! A SoPa trained with the defaults has the regression beside it too: saved and loaded back
//! it computes the same logits, and its hover is the network with the regression.
//!
//! And MVMA-G's n-gram parts (each suffix n-gram's representation read out by each label)
//! sum to its logits on every dev line, for a network trained on the same corpora.

mod common;

use candle_core::Device;
use rulelens::automata::RuleSystem;
use rulelens::corpus::Example;
use rulelens::corpus::read_file;
use rulelens::explain::{NEGLIGIBLE, ReconstructConfig};
use rulelens::ide::{
    HoverConfig, LineView, NetworkView, RegressionParts, RulesAnalysis, TrainedNetwork, Unprepared,
    analyze, hover_line,
};
use rulelens::limits::ReadLimits;
use rulelens::model::checkpoint::Manifest;
use rulelens::model::{
    Batch, LoadedModel, ModelKind, Mvma, Network, Sentence, TrainingSettings, Vocabulary, fit,
    load_model,
};
use rulelens::rules_file::RulesFile;
use rulelens::text::tokenize;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;
use text_size::TextRange;

/// Tolerance on a probability: the scorer and the tensor network agree on logits within
/// 1e-4 (`tests/scorer.rs`), which the logit scale of 10 turns into at most 5e-4 here.
const TOLERANCE: f64 = 1e-3;

/// `softmax(scale · logits)`.
fn probabilities(logits: &[f32], scale: f64) -> Vec<f64> {
    let max = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let exp: Vec<f64> = logits
        .iter()
        .map(|&l| (scale * f64::from(l - max)).exp())
        .collect();
    let sum: f64 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

/// The tokens of `text` that `range` covers.
fn token_span(text: &str, range: TextRange) -> Range<usize> {
    let tokens = tokenize(text);
    let first = tokens.iter().position(|t| t.range.start() == range.start());
    let last = tokens.iter().position(|t| t.range.end() == range.end());
    match (first, last) {
        (Some(first), Some(last)) => first..last + 1,
        _ => panic!("{range:?} is not a span of tokens of {text:?}"),
    }
}

/// `text` without the bytes of `range`, a space in their place.
fn cut(text: &str, range: TextRange) -> String {
    format!(
        "{} {}",
        &text[..usize::from(range.start())],
        &text[usize::from(range.end())..]
    )
}

/// What the checks saw, for the failure messages and the summary.
#[derive(Debug, Default)]
struct Tally {
    lines: usize,
    listed: usize,
    negative: usize,
    lines_without_ngrams: usize,
    /// Lines too long for every n-gram length within the hover's budget.
    capped: usize,
    /// Lines measured ahead of their hover (`TrainedFaRnn::measure_ahead`).
    measured_ahead: usize,
    network_not_rules: usize,
    max_error: f64,
    /// The n-gram regression's parts listed.
    regression_parts: usize,
}

/// The bundled example `name`'s rules, analysed with its train and dev corpora.
fn example_analysis(name: &str) -> (Arc<RulesFile>, RulesAnalysis) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let rules = Arc::new(
        RulesFile::read(
            &root.join(format!("{name}.rules")),
            &Default::default(),
            &ReadLimits::DEFAULT,
        )
        .unwrap(),
    );
    let train = read_file(&root.join("train.tsv"), &ReadLimits::DEFAULT).unwrap();
    let dev = read_file(&root.join("dev.tsv"), &ReadLimits::DEFAULT).unwrap();
    let analysis = analyze(
        rules.clone(),
        vec![("train".into(), train), ("dev".into(), dev)],
        &|| false,
    )
    .expect("not cancelled");
    (rules, analysis)
}

fn check_example(name: &str, members: usize) -> Tally {
    let (rules, analysis) = example_analysis(name);
    let (train, dev) = (
        &analysis.corpus("train").unwrap().file.examples,
        &analysis.corpus("dev").unwrap().file.examples,
    );
    // Short enough for CI: two epochs over a quarter of the train corpus (about 10 s each
    // on the development machine), which moves the network away from the rules on SMS and
    // TREC alike (the tallies check it).
    let config = TrainingSettings {
        fraction: 0.25,
        epochs: 2,
        members: Some(members),
        ..TrainingSettings::default()
    };
    let fitted = fit(
        &rules,
        train,
        dev,
        &config,
        &ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .expect("fitted");
    let metrics = &fitted.manifest.metrics;
    assert!(
        metrics.best_epoch > 0,
        "{name}: the untrained network won: {metrics:?}"
    );
    let net: Arc<dyn Network> = fitted.net.into();
    let network = TrainedNetwork::prepare(Unprepared {
        manifest: fitted.manifest.clone(),
        net: net.clone(),
        vocabulary: fitted.vocabulary.as_ref(),
        analysis: &analysis,
        reconstruct: Some(&ReconstructConfig::default()),
        cancelled: &|| false,
    })
    .expect("prepared");
    let model = network.rule_network().expect("a rule network");
    let tensors = Tensors {
        net: net.as_ref(),
        scale: fitted.manifest.probability_scale(),
        vocabulary: fitted.vocabulary.as_ref(),
    };
    let dev: Vec<&Example> = dev.iter().collect();
    let mut tally = check_hovers(name, &rules, &tensors, &network, &dev, 1);

    // The dev lines whose n-grams the hover's budget cuts, measured ahead of their hover as
    // the language server does in the background: the hover then lists n-grams of every
    // length on each line of up to 128 tokens, and they too are what the network does.
    let hover_config = HoverConfig::default();
    let long: Vec<&Example> = dev
        .iter()
        .copied()
        .filter(|example| model.is_worth_measuring_ahead(&example.text, &hover_config))
        .collect();
    for example in &long {
        assert!(model.measure_ahead(&example.text, &hover_config));
        assert!(!model.is_worth_measuring_ahead(&example.text, &hover_config));
    }
    let ahead = check_hovers(name, &rules, &tensors, &network, &long, 3);
    let at_most_128 = long
        .iter()
        .filter(|example| tokenize(&example.text).len() <= 128)
        .count();
    eprintln!(
        "{name}: measured ahead: {} lines ({at_most_128} of up to 128 tokens), {ahead:?}",
        long.len()
    );
    assert!(
        ahead.capped <= long.len() - at_most_128,
        "{name}: lines of up to 128 tokens still capped: {ahead:?}"
    );
    tally.measured_ahead = long.len();
    check_opened(
        name,
        (&rules, &analysis),
        (&fitted.manifest, &net),
        &fitted.vocabulary,
        &dev,
    );
    tally
}

/// Words of the bundled vectors that neither example's train or dev lines hold (checked).
const PAST_THE_VOCABULARY: [&str; 8] = [
    "lighthouse",
    "sweepstakes",
    "bonanza",
    "umbrella",
    "grandmother",
    "picnic",
    "Lighthouse",
    "lighthousez",
];

/// The model opened to dev lines with words past its vocabulary spliced in
/// (`LoadedModel::opened_to`): the lines whose words it held read as before, the new words
/// move the prediction, and the hovers over the lines that hold them are what the opened
/// network does (as [`check_hovers`] checks them).
fn check_opened(
    name: &str,
    (rules, analysis): (&RulesFile, &RulesAnalysis),
    (manifest, net): (&Manifest, &Arc<dyn Network>),
    vocabulary: &Option<Vocabulary>,
    dev: &[&Example],
) {
    // As loading makes it: the rules training left out, left out.
    let model = LoadedModel {
        manifest: manifest.clone(),
        rules: manifest.network_rules(rules).unwrap(),
        net: net.clone(),
        vocabulary: vocabulary.clone(),
    };
    let known = vocabulary.as_ref().expect("word vectors");
    let new: Vec<&str> = PAST_THE_VOCABULARY
        .into_iter()
        .filter(|word| known.id(word) == 0)
        .collect();
    assert_eq!(new.len(), PAST_THE_VOCABULARY.len(), "{name}: {new:?}");
    let lines: Vec<Example> = dev
        .iter()
        .take(40)
        .enumerate()
        .map(|(i, example)| Example {
            text: format!(
                "{} {} {}",
                new[i % new.len()],
                example.text,
                new[(i + 3) % new.len()]
            ),
            text_range: None,
            ..(*example).clone()
        })
        .collect();
    let texts: Vec<&str> = lines.iter().map(|e| e.text.as_str()).collect();
    let opened = model
        .opened_to(&texts)
        .unwrap()
        .expect("opened to the new words");
    // Every token of the lines that the vocabulary lacks, once, after its words.
    let mut past: Vec<String> = Vec::new();
    for text in &texts {
        for token in tokenize(text).iter() {
            if known.id(token.text) == 0 && !past.iter().any(|w| w == token.text) {
                past.push(token.text.to_string());
            }
        }
    }
    let opened_words = opened.vocabulary.as_ref().unwrap();
    assert_eq!(
        &opened_words.words()[..known.len()],
        known.words(),
        "{name}"
    );
    assert_eq!(&opened_words.words()[known.len()..], &past[..], "{name}");
    // Lines of words it held read as before; the new words move the log-probabilities.
    let old: Vec<&str> = dev.iter().take(40).map(|e| e.text.as_str()).collect();
    let before = model.probabilities(&old, 64, &Device::Cpu).unwrap();
    let after = opened.probabilities(&old, 64, &Device::Cpu).unwrap();
    for (a, b) in before.iter().flatten().zip(after.iter().flatten()) {
        assert!((a - b).abs() < 1e-9, "{name}: {a} against {b}");
    }
    let unknown = model.probabilities(&texts, 64, &Device::Cpu).unwrap();
    let read = opened.probabilities(&texts, 64, &Device::Cpu).unwrap();
    let moved = unknown
        .iter()
        .zip(&read)
        .filter(|(a, b)| {
            a.iter()
                .zip(*b)
                .any(|(x, y)| (x.ln() - y.ln()).abs() > 1e-3)
        })
        .count();
    assert!(moved > lines.len() / 2, "{name}: {moved} lines moved");
    // The regression reads the new words' vectors (`lighthousez` has none of its own).
    let (vector_words, before) = (
        opened.net.ngram_regression().unwrap().n_vector_words(),
        net.ngram_regression().unwrap().n_vector_words(),
    );
    assert!(
        vector_words > before && vector_words < before + past.len(),
        "{name}: {before} → {vector_words} of {past:?}"
    );
    let network = TrainedNetwork::prepare(Unprepared {
        manifest: opened.manifest.clone(),
        net: opened.net.clone(),
        vocabulary: opened.vocabulary.as_ref(),
        analysis,
        reconstruct: None,
        cancelled: &|| false,
    })
    .expect("prepared");
    let tensors = Tensors {
        net: opened.net.as_ref(),
        scale: manifest.probability_scale(),
        vocabulary: opened.vocabulary.as_ref(),
    };
    let lines: Vec<&Example> = lines.iter().collect();
    let tally = check_hovers(name, rules, &tensors, &network, &lines, 1);
    assert_eq!(tally.lines, lines.len(), "{name}: {tally:?}");
}

/// The tensor network a hover is checked against, with what reads a line into it.
struct Tensors<'a> {
    net: &'a dyn Network,
    scale: f64,
    vocabulary: Option<&'a Vocabulary>,
}

/// Checks the hovers of `dev` against the tensor network (see the module doc), re-scoring
/// every span of every `every_span_of`-th line.
fn check_hovers(
    name: &str,
    rules: &RulesFile,
    tensors: &Tensors<'_>,
    network: &TrainedNetwork,
    dev: &[&Example],
    every_span_of: usize,
) -> Tally {
    let (net, scale) = (tensors.net, tensors.scale);
    let model = network.rule_network().expect("a rule network");
    let hover_config = HoverConfig::default();
    let system = &rules.system;

    // The hovers, and what the tensor network computes for each line and for each line
    // without each listed n-gram.
    let mut views: Vec<NetworkView> = Vec::with_capacity(dev.len());
    let mut sentences: Vec<Sentence> = Vec::new();
    for &example in dev {
        let hover = hover_line(example, rules, &[network], None, &hover_config);
        let Some(LineView::RuleNetwork(view)) = hover.views.into_iter().next() else {
            panic!("{name}: a rule network's view");
        };
        let whole = Sentence::new(
            system,
            tensors.vocabulary,
            &tokenize(&example.text),
            rulelens::model::TrainingSettings::DEFAULT.max_sentence_tokens,
        );
        for ngram in &view.ngrams {
            let span = token_span(&example.text, ngram.range);
            sentences.push(Sentence {
                symbols: [&whole.symbols[..span.start], &whole.symbols[span.end..]].concat(),
                words: [&whole.words[..span.start], &whole.words[span.end..]].concat(),
            });
        }
        sentences.push(whole);
        views.push(view);
    }
    let mut logits: Vec<Vec<f32>> = Vec::with_capacity(sentences.len());
    for chunk in sentences.chunks(512) {
        let batch = Batch::from_sentences(&chunk.iter().collect::<Vec<_>>(), &Device::Cpu)
            .expect("a batch");
        logits.extend(net.logits(&batch).unwrap().to_vec2::<f32>().unwrap());
    }

    let mut tally = Tally::default();
    let mut logits = logits.into_iter();
    for (i, (&example, view)) in dev.iter().zip(&views).enumerate() {
        let text = example.text.as_str();
        let what = format!("{name} dev line {}: {text:?}", example.line + 1);
        let without: Vec<Vec<f32>> = (0..view.ngrams.len())
            .map(|_| logits.next().unwrap())
            .collect();
        let whole = logits.next().unwrap();
        let labels = system.labels();
        let p_whole = probabilities(&whole, scale);
        // The prediction and probabilities shown are the network's.
        let prediction = labels
            .iter()
            .position(|l| *l == view.prediction)
            .expect("a label");
        for (c, (label, p)) in view.probabilities.iter().enumerate() {
            assert_eq!(label, &labels[c]);
            assert!((p - p_whole[c]).abs() < TOLERANCE, "{what}: P({label})");
        }
        let mut sorted = p_whole.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        if sorted.len() < 2 || sorted[0] - sorted[1] > TOLERANCE {
            assert!(p_whole[prediction] == sorted[0], "{what}: prediction");
        }
        // The n-gram regression's part of the prediction's score is what it adds to the
        // network's logits (times the scale), and the listed parts, the rest and the bias add
        // up to it.
        let regression = net
            .ngram_regression()
            .expect("the defaults' n-gram regression");
        // Dev keeps its character n-grams on both examples: their parts are checked too.
        assert!(
            regression.n_character_features() > 0,
            "{what}: the regression reads no character n-grams"
        );
        let parts = view
            .ngram_regression
            .as_ref()
            .expect("the hover's n-gram regression");
        let words = Sentence::new(
            system,
            tensors.vocabulary,
            &tokenize(text),
            rulelens::model::TrainingSettings::DEFAULT.max_sentence_tokens,
        )
        .words;
        let added = scale as f32 * regression.logits(&words, 0..0)[prediction];
        check_regression_parts(&what, parts, added, &view.prediction);
        for pair in parts.strongest.windows(2) {
            assert!(pair[0].1.abs() >= pair[1].1.abs(), "{what}: {parts:?}");
        }
        for &(range, _) in &parts.strongest {
            let span = token_span(text, range);
            assert!(span.len() <= 2, "{what}: {parts:?}");
        }
        tally.regression_parts += parts.strongest.len();
        tally.lines += 1;
        tally.network_not_rules +=
            usize::from(system.classify(text).prediction.map(|l| l.index()) != Some(prediction));
        tally.lines_without_ngrams += usize::from(view.ngrams.is_empty());
        tally.capped += usize::from(view.ngram_len_capped);
        assert_eq!(
            view.ngram_len_capped,
            view.max_ngram_len < hover_config.max_ngram_len.min(tokenize(text).len()),
            "{what}"
        );

        // Each listed contribution is what the tensor network does without the n-gram.
        for (ngram, without) in view.ngrams.iter().zip(&without) {
            let p_without = probabilities(without, scale)[prediction];
            let measured = p_whole[prediction] - p_without;
            let phrase = &text[usize::from(ngram.range.start())..usize::from(ngram.range.end())];
            let error = (ngram.contribution - measured)
                .abs()
                .max((ngram.without - p_without).abs());
            tally.max_error = tally.max_error.max(error);
            assert!(
                error < TOLERANCE,
                "{what}: {phrase:?} listed {:+.4} (without: {:.4}), the network does {measured:+.4} \
                 (without: {p_without:.4})",
                ngram.contribution,
                ngram.without
            );
            assert!(ngram.contribution.abs() >= NEGLIGIBLE, "{what}: {phrase:?}");
            // The sign is the network's: positive when the line without it is less the
            // prediction.
            assert_eq!(
                ngram.contribution > 0.0,
                measured > 0.0,
                "{what}: {phrase:?} {:+.4} vs {measured:+.4}",
                ngram.contribution
            );
            tally.listed += 1;
            tally.negative += usize::from(ngram.contribution < 0.0);
        }

        // Every span re-scored from the line's text with the span cut out.
        if i % every_span_of != 0 {
            continue;
        }
        let tokens = tokenize(text);
        let listed: Vec<(Range<usize>, f64)> = view
            .ngrams
            .iter()
            .map(|n| (token_span(text, n.range), n.contribution))
            .collect();
        let weakest = if listed.len() < hover_config.max_listed {
            NEGLIGIBLE
        } else {
            listed
                .iter()
                .map(|(_, c)| c.abs())
                .fold(f64::INFINITY, f64::min)
        };
        let scores = model.scorer.score_text(text);
        let top: Vec<usize> = {
            let mut by_score: Vec<(usize, f32)> = (0..system.patterns().len())
                .map(|p| (p, scores.pattern_score(p)))
                .filter(|&(_, s)| s > 0.0)
                .collect();
            by_score.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            by_score
                .into_iter()
                .take(hover_config.max_listed)
                .map(|(p, _)| p)
                .collect()
        };
        assert_eq!(top.len(), view.top_patterns.len(), "{what}: top patterns");
        // Per top pattern: the largest drop of its score, and the drop the shown span gives.
        let mut largest_drop = vec![0f32; top.len()];
        let mut shown_drop: Vec<Option<f32>> = vec![None; top.len()];
        for start in 0..tokens.len() {
            for len in 1..=view.max_ngram_len.min(tokens.len() - start) {
                let span = start..start + len;
                let range = TextRange::new(
                    tokens.get(start).unwrap().range.start(),
                    tokens.get(start + len - 1).unwrap().range.end(),
                );
                let without_text = cut(text, range);
                let kept: Vec<&str> = tokens
                    .iter()
                    .enumerate()
                    .filter(|(t, _)| !span.contains(t))
                    .map(|(_, t)| t.text)
                    .collect();
                let retokenized = tokenize(&without_text);
                let retokenized: Vec<&str> = retokenized.iter().map(|t| t.text).collect();
                assert_eq!(retokenized, kept, "{what}: without {span:?}");
                let rescored = model.scorer.score_text(&without_text);
                let measured =
                    p_whole[prediction] - probabilities(&rescored.logits, scale)[prediction];
                if let Some((_, contribution)) = listed.iter().find(|(s, _)| *s == span) {
                    assert!(
                        (contribution - measured).abs() < TOLERANCE,
                        "{what}: {without_text:?}"
                    );
                } else if measured.abs() > weakest + TOLERANCE {
                    assert!(
                        listed.iter().any(|(s, c)| s.start >= span.start
                            && s.end <= span.end
                            && c.abs() >= measured.abs() - TOLERANCE),
                        "{what}: deleting {span:?} ({without_text:?}) does {measured:+.4}, more \
                         than the n-grams listed: {listed:?}"
                    );
                }
                for (i, &p) in top.iter().enumerate() {
                    let drop = scores.pattern_score(p) - rescored.pattern_score(p);
                    largest_drop[i] = largest_drop[i].max(drop);
                    let shown = view.top_patterns[i].span;
                    if shown == Some(range) {
                        shown_drop[i] = Some(drop);
                    }
                }
            }
        }
        for (i, pattern) in view.top_patterns.iter().enumerate() {
            assert!(
                (pattern.score - scores.pattern_score(top[i])).abs() < 1e-6,
                "{what}: {}",
                pattern.pattern
            );
            // A span is shown from the occlusions whenever some deletion lowers the score.
            if largest_drop[i] > 1e-4 {
                let drop = shown_drop[i]
                    .unwrap_or_else(|| panic!("{what}: {}'s span is no deletion", pattern.pattern));
                assert!(
                    drop >= largest_drop[i] - 1e-3 * largest_drop[i].max(1.0),
                    "{what}: {}'s span lowers it by {drop}, another by {}",
                    pattern.pattern,
                    largest_drop[i]
                );
            }
        }
    }
    assert!(logits.next().is_none());
    eprintln!("{name}: {tally:?}");
    tally
}

#[test]
fn sms_hover_ngrams_are_what_the_trained_network_does_on_every_dev_line() {
    let tally = check_example("sms", 1);
    assert_eq!(tally.lines, 500);
    // With word vectors, a third of SMS dev lines are too long for every n-gram length
    // within a hover's time.
    assert!(tally.measured_ahead > 100, "{tally:?}");
    // A trained network, not the rules; dozens of n-grams checked (most SMS lines are short
    // ham that no deletion moves by 0.005, and list none: with the n-gram regression beside
    // it the network is surer of them still, and the n-grams pushing away from a prediction
    // are checked on TREC); and the regression's parts on every line.
    assert!(tally.network_not_rules > 0, "{tally:?}");
    assert!(tally.listed > tally.lines / 10, "{tally:?}");
    assert!(tally.regression_parts > tally.lines, "{tally:?}");
}

#[test]
fn trec_hover_ngrams_are_what_an_ensemble_does_on_every_dev_line() {
    let tally = check_example("trec", 3);
    assert_eq!(tally.lines, 500);
    assert!(tally.network_not_rules > 0, "{tally:?}");
    assert!(
        tally.listed > tally.lines && tally.negative > 0,
        "{tally:?}"
    );
    assert!(tally.regression_parts > tally.lines, "{tally:?}");
}

/// The n-gram regression's parts a hover lists, with the rest and the bias, add up to what
/// the hover says it adds to the prediction's scaled logit, and that is `added`, what the
/// regression computes; and they are the prediction's (`prediction`).
fn check_regression_parts(what: &str, parts: &RegressionParts, added: f32, prediction: &str) {
    let sum = parts.bias + parts.strongest.iter().map(|(_, x)| x).sum::<f32>() + parts.rest.1;
    for value in [added, sum] {
        assert!(
            (parts.logit - value).abs() < 1e-4 * value.abs().max(1.0),
            "{what}: the regression adds {added}, its parts sum to {sum}, the hover says {}",
            parts.logit
        );
    }
    assert_eq!(parts.label, prediction, "{what}");
}

/// `text` as `net` reads it (its first `max_tokens` tokens), and its logits, computed by the
/// tensors.
fn tensor_logits(
    net: &dyn Network,
    system: &RuleSystem,
    vocabulary: Option<&Vocabulary>,
    text: &str,
    max_tokens: usize,
) -> (Sentence, Vec<f32>) {
    let sentence = Sentence::new(system, vocabulary, &tokenize(text), max_tokens);
    let batch = Batch::from_sentences(&[&sentence], &Device::Cpu).unwrap();
    let logits = net.logits(&batch).unwrap().squeeze(0).unwrap();
    (sentence, logits.to_vec1().unwrap())
}

/// Trains an MVMA-G on the example `name` (two epochs over a quarter of train) and checks,
/// on every dev line, that its n-grams' parts sum to the logits of the batched network, and
/// so give its prediction.
fn check_mvma_parts(name: &str) {
    let (rules, train, dev) = common::example(name);
    let settings = TrainingSettings {
        model: ModelKind::MvmaG,
        fraction: 0.25,
        epochs: 2,
        ..TrainingSettings::default()
    };
    let fitted = fit(
        &rules,
        &train,
        &dev,
        &settings,
        &ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .unwrap();
    let net = fitted.net.as_family::<Mvma>().expect("an MVMA-G");
    let mut worst = 0f32;
    for example in &dev {
        let (sentence, logits) = tensor_logits(
            net,
            &rules.system,
            fitted.vocabulary.as_ref(),
            &example.text,
            settings.max_sentence_tokens,
        );
        let parts = net.ngram_scores(&sentence.words).unwrap();
        let sums: Vec<f32> = (0..logits.len())
            .map(|c| parts.iter().map(|part| part[c]).sum())
            .collect();
        for (sum, logit) in sums.iter().zip(&logits) {
            let error = (sum - logit).abs() / logit.abs().max(1.0);
            worst = worst.max(error);
            assert!(
                error < 1e-4,
                "{}: parts {sums:?}, logits {logits:?}",
                example.text
            );
        }
        let argmax =
            |v: &[f32]| (0..v.len()).fold(0, |best, c| if v[c] > v[best] { c } else { best });
        if (sums[argmax(&sums)] - sums[argmax(&logits)]).abs() > 1e-4 {
            assert_eq!(argmax(&sums), argmax(&logits), "{}", example.text);
        }
    }
    eprintln!("{name}: MVMA-G's n-gram parts match the logits within {worst:e} (relative)");
}

#[test]
fn sms_mvma_ngram_parts_sum_to_the_trained_networks_logits_on_every_dev_line() {
    check_mvma_parts("sms");
}

#[test]
fn trec_mvma_ngram_parts_sum_to_the_trained_networks_logits_on_every_dev_line() {
    check_mvma_parts("trec");
}

/// A SoPa trained as the defaults train it (two epochs on a quarter of SMS's train corpus,
/// early stopping on dev) has the n-gram regression beside it, and on every dev line the
/// hover's prediction and probabilities are the tensor network's with it, and the
/// regression's listed parts, the rest and the bias add up to what it adds to the
/// prediction's logit (`tests/ide_corpus.rs` checks the leave-one-out contributions
/// against the scorer's logits, which `src/model/sopa/tests.rs` checks against the tensors).
#[test]
fn a_sopas_hover_is_the_network_with_its_ngram_regression_on_every_dev_line() {
    let (rules, analysis) = example_analysis("sms");
    let (train, dev) = (
        &analysis.corpus("train").unwrap().file.examples,
        &analysis.corpus("dev").unwrap().file.examples,
    );
    let settings = TrainingSettings {
        model: ModelKind::Sopa,
        fraction: 0.25,
        epochs: 2,
        ..TrainingSettings::default()
    };
    let mut fitted = fit(
        &rules,
        train,
        dev,
        &settings,
        &ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .expect("fitted");
    // Saved and loaded back, it is the same SoPa with the same regression and temperature;
    // loaded zero-shot, it has neither.
    let dir = std::env::temp_dir().join(format!("rulelens-sopa-ngrams-{}", std::process::id()));
    fitted.save(&dir).unwrap();
    let loaded = load_model(&dir, false, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    let zero_shot = load_model(&dir, true, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(zero_shot.net.sopa().is_some() && zero_shot.net.ngram_regression().is_none());
    assert_eq!(zero_shot.manifest.probability_scale(), settings.logit_scale);
    assert_eq!(
        loaded.manifest.probability_scale(),
        fitted.manifest.probability_scale()
    );
    let net: Arc<dyn Network> = fitted.net.into();
    assert!(net.sopa().is_some(), "a SoPa");
    assert_eq!(loaded.net.ngram_regression(), net.ngram_regression());
    let regression = net
        .ngram_regression()
        .expect("the defaults' n-gram regression");
    let scale = fitted.manifest.probability_scale();
    let network = TrainedNetwork::prepare(Unprepared {
        manifest: fitted.manifest.clone(),
        net: net.clone(),
        vocabulary: fitted.vocabulary.as_ref(),
        analysis: &analysis,
        reconstruct: None,
        cancelled: &|| false,
    })
    .expect("prepared");
    let labels = rules.system.labels();
    let hover_config = HoverConfig::default();
    let mut regression_decides = 0;
    for example in dev {
        let what = format!("sms dev line {}: {:?}", example.line + 1, example.text);
        let hover = hover_line(example, &rules, &[&network], None, &hover_config);
        let Some(LineView::Patterns(view)) = hover.views.into_iter().next() else {
            panic!("{what}: a SoPa's view");
        };
        let (sentence, logits) = tensor_logits(
            net.as_ref(),
            &rules.system,
            fitted.vocabulary.as_ref(),
            &example.text,
            settings.max_sentence_tokens,
        );
        let (_, reloaded) = tensor_logits(
            loaded.net.as_ref(),
            &rules.system,
            loaded.vocabulary.as_ref(),
            &example.text,
            settings.max_sentence_tokens,
        );
        assert_eq!(reloaded, logits, "{what}: the loaded checkpoint's logits");
        let p = probabilities(&logits, scale);
        for (c, (label, shown)) in view.probabilities.iter().enumerate() {
            assert_eq!(label, &labels[c]);
            assert!(
                (shown - p[c]).abs() < TOLERANCE,
                "{what}: P({label}) {shown} against {}",
                p[c]
            );
        }
        let prediction = labels
            .iter()
            .position(|l| *l == view.prediction)
            .expect("a label");
        let parts = view
            .ngram_regression
            .as_ref()
            .expect("the hover's n-gram regression");
        let added = scale as f32 * regression.logits(&sentence.words, 0..0)[prediction];
        check_regression_parts(&what, parts, added, &view.prediction);
        // Where the network alone would predict otherwise, the regression decided the line.
        let alone: Vec<f32> = logits
            .iter()
            .zip(regression.logits(&sentence.words, 0..0))
            .map(|(l, r)| l - r)
            .collect();
        let argmax =
            |v: &[f32]| (0..v.len()).fold(0, |best, c| if v[c] > v[best] { c } else { best });
        regression_decides += usize::from(argmax(&alone) != prediction);
    }
    eprintln!(
        "sms: the n-gram regression decides {regression_decides} of {} dev lines",
        dev.len()
    );
}

//! Ensembles of the FA-RNN family (`--members`): the members are trained from consecutive
//! seeds, the network's logits are their mean (plus the n-gram regression's, which the
//! defaults add) in every path that reads it (the tensors, the editor's plain-loop scorer, a
//! saved and loaded checkpoint), the manifest's dev accuracy is the ensemble's, and the
//! untrained network is still the rules', without the regression.

use candle_core::Device;
use rulelens::corpus::Example;
use rulelens::limits::ReadLimits;
use rulelens::model::{
    Batch, FaRnnScorer, ModelKind, NGRAM_WEIGHTS, Sentence, TrainingSettings, calibrate, fit,
    load_model, softmax,
};
use rulelens::rules_file::RulesFile;
use rulelens::text::tokenize;
use std::path::Path;

fn sms() -> (RulesFile, Vec<Example>, Vec<Example>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms");
    let rules = RulesFile::read(
        &dir.join("sms.rules"),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let read = |name: &str| {
        rulelens::corpus::read_file(&dir.join(name), &ReadLimits::DEFAULT)
            .unwrap()
            .examples
    };
    (rules, read("train.tsv"), read("dev.tsv"))
}

fn rows(tensor: &candle_core::Tensor) -> Vec<Vec<f32>> {
    tensor.to_vec2::<f32>().unwrap()
}

/// The share of `examples` whose label has the largest probability (the first of equals).
fn accuracy(probabilities: &[Vec<f64>], examples: &[Example], labels: &[String]) -> f64 {
    let correct = probabilities
        .iter()
        .zip(examples)
        .filter(|(p, example)| {
            let best = (0..p.len()).fold(0, |b, c| if p[c] > p[b] { c } else { b });
            example.label.as_deref() == Some(labels[best].as_str())
        })
        .count();
    correct as f64 / examples.len() as f64
}

fn assert_close(a: &[f32], b: &[f32], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= 1e-4, "{what}: {a:?} against {b:?}");
    }
}

#[test]
fn an_ensemble_is_its_members_logits_averaged_in_every_path_and_round_trips() {
    let (rules, train, dev) = sms();
    let settings = TrainingSettings {
        members: Some(3),
        fraction: 0.05,
        epochs: 2,
        patience: 2,
        // Dev held out of the regression's last fit, so that the manifest's dev figures are
        // what the network does on dev.
        hold_out_dev: true,
        ..TrainingSettings::DEFAULT
    };
    let mut events = Vec::new();
    let mut fitted = fit(
        &rules,
        &train,
        &dev,
        &settings,
        &ReadLimits::DEFAULT,
        &mut |event| events.push(format!("{event:?}")),
        &|| false,
    )
    .unwrap();
    let started: Vec<&String> = events.iter().filter(|e| e.starts_with("Member")).collect();
    assert_eq!(started.len(), 3, "{events:?}");
    assert!(
        events.iter().any(|e| e.starts_with("Ensemble")),
        "{events:?}"
    );

    let metrics = &fitted.manifest.metrics;
    let seeds: Vec<u64> = metrics.members.iter().map(|m| m.seed).collect();
    assert_eq!(seeds, [0, 1, 2]);
    assert_eq!(fitted.manifest.settings.members, Some(3));

    let members = fitted.net.members();
    assert_eq!(members.len(), 3);
    // The defaults add an n-gram regression, always kept.
    let ngrams = fitted
        .net
        .ngram_regression()
        .expect("an n-gram regression")
        .clone();
    let regression = metrics.ngram_regression.as_ref().unwrap();
    assert!(events.iter().any(|e| e.starts_with("NgramRegression")));
    // No weight asked for: it is chosen on dev.
    let weight = regression.weight.unwrap();
    assert!(NGRAM_WEIGHTS.contains(&weight), "{weight}");
    assert_eq!(regression.refit, None);
    assert_eq!(fitted.manifest.settings.ngram_weight, None);
    let vocabulary = fitted.vocabulary.clone();
    let batch_of = |texts: &[&str]| {
        Batch::from_texts(
            &rules.system,
            vocabulary.as_ref(),
            texts,
            settings.max_sentence_tokens,
            &Device::Cpu,
        )
        .unwrap()
    };
    let texts: Vec<&str> = dev.iter().take(60).map(|e| e.text.as_str()).collect();
    let batch = batch_of(&texts);
    let ensemble = rows(&fitted.net.logits(&batch).unwrap());
    let each: Vec<Vec<Vec<f32>>> = members
        .iter()
        .map(|member| rows(&member.logits(&batch).unwrap()))
        .collect();
    // Members trained from other seeds are other networks.
    assert_ne!(each[0], each[1]);
    let scorer = FaRnnScorer::new(
        fitted.net.as_ref(),
        &rules.system,
        fitted.vocabulary.as_ref(),
        settings.max_sentence_tokens,
    )
    .unwrap();
    for (i, text) in texts.iter().enumerate() {
        let words = Sentence::new(
            &rules.system,
            fitted.vocabulary.as_ref(),
            &tokenize(text),
            settings.max_sentence_tokens,
        )
        .words;
        let added = ngrams.logits(&words, 0..0);
        let mean: Vec<f32> = (0..ensemble[i].len())
            .map(|c| each.iter().map(|logits| logits[i][c]).sum::<f32>() / 3.0 + added[c])
            .collect();
        assert_close(&ensemble[i], &mean, text);
        assert_close(&scorer.score_text(text).logits, &ensemble[i], text);
    }

    let dir = std::env::temp_dir().join(format!("rulelens-ensemble-{}", std::process::id()));
    fitted.save(&dir).unwrap();
    let loaded = load_model(&dir, false, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    assert_eq!(loaded.net.members().len(), 3);
    assert_eq!(loaded.net.ngram_regression(), Some(&ngrams));
    let loaded_logits = rows(&loaded.net.logits(&batch).unwrap());
    for (i, text) in texts.iter().enumerate() {
        assert_close(&loaded_logits[i], &ensemble[i], text);
    }
    // The manifest's dev accuracy is the ensemble's, as `eval` measures it.
    let all: Vec<&str> = dev.iter().map(|e| e.text.as_str()).collect();
    let probabilities = loaded.probabilities(&all, 64, &Device::Cpu).unwrap();
    let labels = &loaded.manifest.labels;
    let trained = accuracy(&probabilities, &dev, labels);
    assert!(
        (trained - loaded.manifest.metrics.dev_accuracy).abs() <= 1.0 / dev.len() as f64,
        "{trained} against {}",
        loaded.manifest.metrics.dev_accuracy
    );
    // Its probabilities are taken at the temperature fitted on the gold dev: they fit dev
    // at least as well as at the logit scale alone, and predict the same.
    let temperature = loaded
        .manifest
        .metrics
        .ngram_regression
        .as_ref()
        .unwrap()
        .temperature;
    let temperature = temperature.expect("a temperature fitted on dev");
    let scale = loaded.manifest.probability_scale();
    assert!(
        (scale - settings.logit_scale / temperature).abs() < 1e-9,
        "{scale}"
    );
    assert_eq!(loaded.vocabulary, vocabulary);
    let dev_logits = rows(&loaded.net.logits(&batch_of(&all)).unwrap());
    let log_loss = |scale: f64| -> f64 {
        dev.iter()
            .zip(&dev_logits)
            .map(|(example, logits)| {
                let gold = labels
                    .iter()
                    .position(|l| Some(l) == example.label.as_ref())
                    .unwrap();
                -softmax(logits, scale)[gold].ln()
            })
            .sum::<f64>()
    };
    assert!(
        log_loss(scale) <= log_loss(settings.logit_scale) + 1e-9,
        "{} against {}",
        log_loss(scale),
        log_loss(settings.logit_scale)
    );
    // The weight is the one whose probabilities have the smallest dev log loss, each weight's
    // at the temperature fitted there, and the manifest records that temperature and loss.
    let gold: Vec<Option<usize>> = dev
        .iter()
        .map(|example| {
            labels
                .iter()
                .position(|l| Some(l) == example.label.as_ref())
        })
        .collect();
    let added: Vec<Vec<f32>> = dev
        .iter()
        .map(|example| {
            let words = Sentence::new(
                &rules.system,
                vocabulary.as_ref(),
                &tokenize(&example.text),
                settings.max_sentence_tokens,
            )
            .words;
            ngrams.logits(&words, 0..0)
        })
        .collect();
    let calibrated_at = |w: f64| {
        let lines: Vec<(Vec<f32>, Option<usize>)> = dev_logits
            .iter()
            .zip(&added)
            .zip(&gold)
            .map(|((logits, added), &gold)| {
                let row = logits
                    .iter()
                    .zip(added)
                    .map(|(l, a)| l - a + a * (w / weight) as f32)
                    .collect();
                (row, gold)
            })
            .collect();
        calibrate(&lines, settings.logit_scale).unwrap()
    };
    let chosen = calibrated_at(weight);
    for w in NGRAM_WEIGHTS {
        let other = calibrated_at(w);
        assert!(
            other.log_loss >= chosen.log_loss - 1e-6,
            "weight {w}: {other:?} against weight {weight}: {chosen:?}"
        );
    }
    let recorded = loaded.manifest.metrics.ngram_regression.as_ref().unwrap();
    assert!((chosen.temperature - temperature).abs() <= 1e-2 * temperature);
    let recorded_loss = recorded.dev_log_loss.expect("the dev log loss");
    assert!(
        (chosen.log_loss - recorded_loss).abs() < 1e-3,
        "{chosen:?} against {recorded_loss}"
    );
    for (i, row) in dev_logits.iter().enumerate() {
        for (p, q) in probabilities[i].iter().zip(softmax(row, scale)) {
            assert!((p - q).abs() < 1e-4, "line {i}: {p} against {q}");
        }
    }
    // Untrained, the ensemble is the rules' network: its first member's untrained tensors.
    let zero_shot = load_model(&dir, true, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    assert_eq!(zero_shot.net.members().len(), 1);
    assert!(zero_shot.net.ngram_regression().is_none());
    assert_eq!(zero_shot.manifest.probability_scale(), settings.logit_scale);
    let untrained = zero_shot.probabilities(&all, 64, &Device::Cpu).unwrap();
    assert_eq!(
        accuracy(&untrained, &dev, labels),
        fitted.manifest.metrics.zero_shot_dev_accuracy
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn ensembles_are_of_the_fa_rnn_family_and_within_their_limit() {
    let one = TrainingSettings {
        model: ModelKind::Sopa,
        ..TrainingSettings::DEFAULT
    };
    assert_eq!(one.members(), 1);
    assert_eq!(one.check(), Ok(()));
    assert_eq!(TrainingSettings::DEFAULT.members(), 5);
    let sopa_ensemble = TrainingSettings {
        members: Some(2),
        ..one
    };
    assert!(
        sopa_ensemble
            .check()
            .unwrap_err()
            .contains("ensembles are built of the FA-RNN family's networks"),
    );
    let too_many = TrainingSettings {
        members: Some(65),
        ..TrainingSettings::DEFAULT
    };
    assert_eq!(
        too_many.check().unwrap_err(),
        "members must be between 1 and 64, not 65"
    );
}

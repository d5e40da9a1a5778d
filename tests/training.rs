//! Training, checkpoints and word embeddings on a tiny fixture (tests/data/train): a rules
//! file that knows two spam words, a 90/30 sentence corpus, and synthetic 6-dimensional
//! vectors in which the other spam words lie near the known ones.

use candle_core::{Device, Tensor};
use rulelens::limits::ReadLimits;
use rulelens::model::checkpoint::{self, CheckpointError};
use rulelens::model::{
    DevScoring, EmbeddingsError, FaRnn, LabeledSentence, Schedule, Scoring, TrainReport,
    TrainingSettings, Vocabulary, WeightedAutomaton, WordInput, decomposition, labeled, predict,
    read_glove, train, vocabulary,
};
use rulelens::rules_file::RulesFile;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The most tokens of a sentence a network reads, by default.
const MAX_TOKENS: usize = rulelens::model::TrainingSettings::DEFAULT.max_sentence_tokens;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/train")
        .join(name)
}

struct Setup {
    rules: RulesFile,
    input: WordInput,
    train: Vec<LabeledSentence>,
    dev: Vec<LabeledSentence>,
}

fn setup(beta: f64) -> Setup {
    let rules = RulesFile::read(
        &fixture("tiny.rules"),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let train_file =
        rulelens::corpus::read_file(&fixture("train.tsv"), &ReadLimits::DEFAULT).unwrap();
    let dev_file = rulelens::corpus::read_file(&fixture("dev.tsv"), &ReadLimits::DEFAULT).unwrap();
    let vocab = vocabulary(
        &rules.system,
        [train_file.examples.as_slice(), dev_file.examples.as_slice()],
    );
    let vectors = read_glove(&fixture("vectors.txt"), &vocab, &ReadLimits::DEFAULT).unwrap();
    let (train, _) = labeled(
        &rules.system,
        Some(&vocab),
        &train_file.examples,
        MAX_TOKENS,
    );
    let (dev, _) = labeled(&rules.system, Some(&vocab), &dev_file.examples, MAX_TOKENS);
    Setup {
        rules,
        input: WordInput {
            vocabulary: vocab,
            vectors,
            beta,
        },
        train,
        dev,
    }
}

fn network(setup: &Setup) -> FaRnn {
    let automaton = WeightedAutomaton::new(&setup.rules.system);
    let decomposed = decomposition(&automaton, None, 0);
    FaRnn::new(
        &setup.rules.system,
        &automaton,
        &decomposed,
        Some(&setup.input),
        Scoring::Forward,
        &Device::Cpu,
    )
    .unwrap()
}

fn run(setup: &Setup, seed: u64) -> (FaRnn, TrainReport) {
    let net = network(setup);
    let config = TrainingSettings {
        epochs: 12,
        learning_rate: Some(0.05),
        patience: 12,
        seed,
        ..TrainingSettings::default()
    };
    let report = train_on(&net, setup, &config);
    (net, report)
}

fn train_on(net: &FaRnn, setup: &Setup, config: &TrainingSettings) -> TrainReport {
    train(
        net,
        &setup.train,
        &setup.dev,
        config,
        Schedule::SETTINGS,
        DevScoring::Tensors,
        &Device::Cpu,
        &mut |_| {},
        &|| false,
    )
    .unwrap()
}

fn tensor_values(net: &FaRnn, name: &str) -> Vec<f32> {
    let (_, tensor) = net.tensors().into_iter().find(|(n, _)| *n == name).unwrap();
    tensor.flatten_all().unwrap().to_vec1().unwrap()
}

#[test]
fn training_generalises_through_word_embeddings() {
    let setup = setup(0.5);
    let (_, report) = run(&setup, 0);
    let zero_shot = report.history[0].dev_accuracy;
    let first_loss = report.history[1].loss.unwrap();
    let last_loss = report.history.last().unwrap().loss.unwrap();
    assert!(
        last_loss < 0.5 * first_loss,
        "loss {first_loss} -> {last_loss}"
    );
    assert!(
        report.best_dev_accuracy >= zero_shot + 0.1,
        "dev accuracy {zero_shot} -> {}",
        report.best_dev_accuracy
    );
}

#[test]
fn training_is_reproducible_from_its_seed() {
    let setup = setup(0.5);
    let (a, _) = run(&setup, 3);
    let (b, _) = run(&setup, 3);
    let (c, _) = run(&setup, 4);
    assert_eq!(tensor_values(&a, "d1"), tensor_values(&b, "d1"));
    assert_eq!(tensor_values(&a, "g"), tensor_values(&b, "g"));
    assert_ne!(tensor_values(&a, "g"), tensor_values(&c, "g"));
}

#[test]
fn a_batch_with_a_non_finite_loss_updates_nothing() {
    let setup = setup(0.5);
    let net = network(&setup);
    let g = net.trainable()[2].clone();
    assert_eq!(g.dims2().unwrap().0, 6, "the third parameter is G");
    // G maps word vectors into the rules' space: a NaN in it poisons every sentence's loss.
    let mut values: Vec<f32> = g.flatten_all().unwrap().to_vec1().unwrap();
    values[0] = f32::NAN;
    g.set(&Tensor::from_vec(values, g.shape(), &Device::Cpu).unwrap())
        .unwrap();
    let d1_before = tensor_values(&net, "d1");
    let config = TrainingSettings {
        epochs: 2,
        ..TrainingSettings::default()
    };
    let report = train_on(&net, &setup, &config);
    let batches = setup.train.len().div_ceil(config.batch_size);
    for epoch in &report.history[1..] {
        assert_eq!(epoch.skipped_batches, batches, "{epoch:?}");
    }
    assert_eq!(tensor_values(&net, "d1"), d1_before);
}

fn manifest(setup: &Setup) -> checkpoint::Manifest {
    let rules_bytes = std::fs::read(fixture("tiny.rules")).unwrap();
    checkpoint::Manifest {
        format_version: checkpoint::FORMAT_VERSION,
        tokenizer_version: rulelens::text::TOKENIZER_VERSION,
        rules: checkpoint::RulesIdentity {
            path: fixture("tiny.rules"),
            sha256: rulelens::digest::sha256_hex(&rules_bytes),
            text: None,
            word_files: Default::default(),
        },
        labels: setup.rules.system.labels().to_vec(),
        settings: TrainingSettings {
            epochs: 12,
            learning_rate: Some(0.05),
            patience: 12,
            ..TrainingSettings::default()
        },
        decomposition: Some(checkpoint::DecompositionRecord {
            method: "exact".into(),
            rank: 1,
            relative_error: 0.0,
        }),
        backward_decomposition: None,
        embeddings: None,
        vocabulary: setup.input.vocabulary.words().to_vec(),
        metrics: checkpoint::Metrics {
            train_examples: setup.train.len(),
            dev_examples: setup.dev.len(),
            zero_shot_dev_accuracy: 0.0,
            dev_accuracy: 0.0,
            best_epoch: 0,
            epochs_run: 0,
            training_seconds: 0.0,
            dev_accuracy_by_epoch: Vec::new(),
            members: Vec::new(),
            ngram_regression: None,
            label_model: None,
            trained_again_with_dev: None,
        },
        weights_sha256: String::new(),
        tensors: Default::default(),
        training_data_sha256: None,
        warm_start: None,
        rules_left_out: Vec::new(),
    }
}

#[test]
fn checkpoints_round_trip_and_refuse_corrupt_stale_and_foreign_files() {
    let setup = setup(0.5);
    let (net, _) = run(&setup, 0);
    let dir = std::env::temp_dir().join(format!("rulelens-checkpoint-{}", std::process::id()));
    let tensors: HashMap<String, Tensor> = net
        .tensors()
        .into_iter()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    let mut written = manifest(&setup);
    checkpoint::save(&dir, &mut written, &tensors).unwrap();

    let (read, loaded) = checkpoint::load(&dir, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    assert_eq!(read, written);
    let rules_bytes = std::fs::read(fixture("tiny.rules")).unwrap();
    checkpoint::check_rules(&read, &rules_bytes, Some(&fixture("tiny.rules"))).unwrap();
    let restored =
        FaRnn::from_tensors(&setup.rules.system, loaded, Scoring::Forward, Some(0.5)).unwrap();
    let sentences: Vec<_> = setup.dev.iter().map(|d| &d.sentence).collect();
    assert_eq!(
        predict(&restored, &sentences, 8, &Device::Cpu).unwrap(),
        predict(&net, &sentences, 8, &Device::Cpu).unwrap()
    );

    let mut edited = rules_bytes.clone();
    edited.extend_from_slice(b"spam: $* cash $*\n");
    let given = fixture("tiny.rules");
    // A manifest without the rules text (before rulelens 0.1) knows only their hash.
    assert!(matches!(
        checkpoint::check_rules(&read, &edited, Some(&given)),
        Err(CheckpointError::Stale { .. })
    ));
    // With it, comments and layout do not count, and a changed rule is named.
    let mut with_text = read.clone();
    with_text.rules.text = Some(String::from_utf8(rules_bytes.clone()).unwrap());
    let relaid = format!(
        "# a comment\n\n{}",
        String::from_utf8(rules_bytes.clone())
            .unwrap()
            .replace(": ", ":   ")
    );
    checkpoint::check_rules(&with_text, relaid.as_bytes(), Some(&given)).unwrap();
    match checkpoint::check_rules(&with_text, &edited, Some(&given)) {
        Err(CheckpointError::RulesChanged { removed, added, .. }) => {
            assert!(removed.is_empty(), "{removed:?}");
            assert_eq!(added, ["spam: $* cash $*"]);
        }
        other => panic!("{other:?}"),
    }

    let weights = dir.join(checkpoint::WEIGHTS_FILE);
    let mut bytes = std::fs::read(&weights).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&weights, &bytes).unwrap();
    let error = checkpoint::load(&dir, &Device::Cpu, &ReadLimits::DEFAULT).unwrap_err();
    assert!(matches!(error, CheckpointError::Corrupt { .. }), "{error}");

    let manifest_path = dir.join(checkpoint::MANIFEST_FILE);
    let text = std::fs::read_to_string(&manifest_path).unwrap();
    std::fs::write(
        &manifest_path,
        text.replace(
            &format!("\"format_version\": {}", checkpoint::FORMAT_VERSION),
            "\"format_version\": 99",
        ),
    )
    .unwrap();
    let error = checkpoint::load(&dir, &Device::Cpu, &ReadLimits::DEFAULT).unwrap_err();
    assert!(
        matches!(error, CheckpointError::UnsupportedVersion { found: 99, .. }),
        "{error}"
    );
    std::fs::write(&manifest_path, "{ not json").unwrap();
    assert!(matches!(
        checkpoint::load(&dir, &Device::Cpu, &ReadLimits::DEFAULT),
        Err(CheckpointError::Manifest { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A checkpoint records the tokenizer version it was trained with (issue 51, item 4):
/// one of version 1 (before text without spaces was cut into words), which a manifest
/// without the field is, is refused where its rules or vocabulary hold such text and
/// loads elsewhere; one from a later tokenizer is refused.
#[test]
fn a_checkpoint_of_another_tokenizer_is_refused_where_it_would_be_misread() {
    let setup = setup(0.5);
    let current = manifest(&setup);
    let rules = std::fs::read(fixture("tiny.rules")).unwrap();
    let dir = fixture("");
    checkpoint::check_tokenizer(&current, &rules, &dir).unwrap();
    // A manifest of an earlier rulelens has no version: it is 1.
    let mut json: serde_json::Value = serde_json::to_value(&current).unwrap();
    json.as_object_mut().unwrap().remove("tokenizer_version");
    let old: checkpoint::Manifest = serde_json::from_value(json).unwrap();
    assert_eq!(old.tokenizer_version, 1);
    checkpoint::check_tokenizer(&old, &rules, &dir).unwrap();
    let refused = |manifest: &checkpoint::Manifest, rules: &[u8]| match checkpoint::check_tokenizer(
        manifest, rules, &dir,
    ) {
        Err(error @ CheckpointError::TokenizerChanged { .. }) => error.to_string(),
        other => panic!("{other:?}"),
    };
    let mut cjk_rules = rules.clone();
    cjk_rules.extend_from_slice("spam: $* 免费 $*\n".as_bytes());
    let message = refused(&old, &cjk_rules);
    assert!(message.contains("tokenizer version 1"), "{message}");
    assert!(message.contains("train the network again"), "{message}");
    assert!(
        !message.contains("免费"),
        "no file content is echoed: {message}"
    );
    let mut cjk_vocabulary = old.clone();
    cjk_vocabulary.vocabulary.push("领取奖品".to_string());
    refused(&cjk_vocabulary, &rules);
    let later = checkpoint::Manifest {
        tokenizer_version: rulelens::text::TOKENIZER_VERSION + 1,
        ..current
    };
    assert!(refused(&later, &rules).contains("later rulelens"));
}

#[test]
fn a_checkpoint_of_other_rules_is_refused() {
    let setup = setup(1.0);
    let net = network(&setup);
    let tensors: HashMap<String, Tensor> = net
        .tensors()
        .into_iter()
        .map(|(n, t)| (n.to_string(), t))
        .collect();
    let sms = RulesFile::read(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms/sms.rules"),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let error = FaRnn::from_tensors(&sms.system, tensors, Scoring::Forward, Some(1.0)).unwrap_err();
    assert!(error.to_string().contains("symbols"), "{error}");
}

#[test]
fn glove_reader_backs_off_and_reports_malformed_lines() {
    let dir = std::env::temp_dir().join(format!("rulelens-glove-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("vectors.txt");
    std::fs::write(&path, "can 1 0\n' 0 1\nt 1 1\nhello 2 2\n").unwrap();
    let vocab = Vocabulary::new(["hello", "can't", "zzz"]);
    let vectors = read_glove(&path, &vocab, &ReadLimits::DEFAULT).unwrap();
    assert_eq!(vectors.dim, 2);
    assert_eq!((vectors.n_found, vectors.n_backed_off), (1, 1));
    // Unknown word and `zzz`: the mean of the file's vectors; `can't`: mean of `can` and `t`.
    let mean = [(1.0 + 0.0 + 1.0 + 2.0) / 4.0, (0.0 + 1.0 + 1.0 + 2.0) / 4.0];
    assert_eq!(
        vectors.data,
        [mean[0], mean[1], 2.0, 2.0, 1.0, 0.5, mean[0], mean[1]]
    );

    std::fs::write(&path, "hello 1 2\nworld 1 x2\n").unwrap();
    let error = read_glove(&path, &Vocabulary::new(["hello"]), &ReadLimits::DEFAULT).unwrap_err();
    assert!(
        matches!(
            error,
            EmbeddingsError::Malformed {
                line: 2,
                column: 9,
                ..
            }
        ),
        "{error}"
    );
    std::fs::write(&path, "hello 1 2\nworld 1\n").unwrap();
    let error = read_glove(&path, &Vocabulary::new(["hello"]), &ReadLimits::DEFAULT).unwrap_err();
    assert!(
        error
            .to_string()
            .contains(":2:1: 1 values where the first line has 2"),
        "{error}"
    );
    std::fs::write(&path, "other 1 2\n").unwrap();
    assert!(matches!(
        read_glove(&path, &Vocabulary::new(["hello"]), &ReadLimits::DEFAULT),
        Err(EmbeddingsError::Empty { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The network's own tensors (the n-gram regression's left out), as flat values by name.
fn network_tensors(net: &dyn rulelens::model::Network) -> HashMap<String, Vec<f32>> {
    net.named_tensors()
        .into_iter()
        .filter(|(name, _)| !name.starts_with("ngrams."))
        .map(|(name, tensor)| (name, tensor.flatten_all().unwrap().to_vec1().unwrap()))
        .collect()
}

/// With a gold dev, once dev has chosen each member's epochs, the FA-RNN is trained again
/// from its start on train's and dev's gold lines together for those epochs, keeping its
/// last parameters (`fit::train_again_with_dev`): the manifest records it, and the network
/// is neither the one stopped early on dev (which `--hold-out-dev` keeps) nor its start.
/// SoPa is not trained again.
#[test]
fn with_a_gold_dev_the_network_is_trained_again_with_devs_lines() {
    let rules = RulesFile::read(
        &fixture("tiny.rules"),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .unwrap();
    let read = |name: &str| {
        rulelens::corpus::read_file(&fixture(name), &ReadLimits::DEFAULT)
            .unwrap()
            .examples
    };
    let (train_examples, dev_examples) = (read("train.tsv"), read("dev.tsv"));
    let settings = TrainingSettings {
        embeddings: Some(fixture("vectors.txt")),
        beta: 0.5,
        epochs: 6,
        learning_rate: Some(0.05),
        members: Some(2),
        ..TrainingSettings::default()
    };
    let fit = |settings: &TrainingSettings| {
        rulelens::model::fit(
            &rules,
            &train_examples,
            &dev_examples,
            settings,
            &ReadLimits::DEFAULT,
            &mut |_| {},
            &|| false,
        )
        .unwrap()
    };
    let again = fit(&settings);
    let metrics = &again.manifest.metrics;
    let record = metrics
        .trained_again_with_dev
        .as_ref()
        .expect("trained again");
    assert_eq!((record.lines, record.dev_lines), (120, 30));
    let kept: Vec<usize> = metrics.members.iter().map(|m| m.best_epoch).collect();
    assert_eq!(record.epochs, kept);
    assert!(kept.iter().any(|&epochs| epochs > 0), "{kept:?}");

    let held_out = fit(&TrainingSettings {
        hold_out_dev: true,
        ..settings.clone()
    });
    assert_eq!(held_out.manifest.metrics.trained_again_with_dev, None);
    let start = fit(&TrainingSettings {
        epochs: 0,
        ..settings.clone()
    });
    let trained_again = network_tensors(again.net.as_ref());
    assert_eq!(
        trained_again.len(),
        network_tensors(start.net.as_ref()).len()
    );
    assert_ne!(trained_again, network_tensors(held_out.net.as_ref()));
    assert_ne!(trained_again, network_tensors(start.net.as_ref()));

    let sopa = fit(&TrainingSettings {
        model: rulelens::model::ModelKind::Sopa,
        members: None,
        ..settings
    });
    assert!(sopa.manifest.metrics.ngram_regression.is_some());
    assert_eq!(sopa.manifest.metrics.trained_again_with_dev, None);
}

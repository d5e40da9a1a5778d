//! The black boxes' costs, S-LSTM and MVMA-G: one training step (forward, backward and
//! Adam) on a batch of 32 train sentences of SMS and of TREC, and scoring one 20-token
//! sentence from its text to label logits, with the default settings (the S-LSTM's 9 steps
//! and window 1, dropout 0.5) and 50-dimensional word vectors (so 50 hidden units, as with
//! the bundled GloVe table). The vectors are seeded pseudo-random ones for the examples'
//! vocabulary, so that the benchmark needs nothing outside the repository. Targets and
//! results: docs/performance.md.

use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rulelens::limits::ReadLimits;
use rulelens::model::{
    Batch, ModelKind, Mvma, Network, Parameters, Sentence, Slstm, SplitMix64, TrainingSettings,
    Vocabulary, vocabulary,
};
use rulelens::rules_file::RulesFile;
use rulelens::text::Tokens;
use std::hint::black_box;
use std::path::Path;

/// A 20-token message.
const SENTENCE: &str =
    "urgent ! you have won a 1 week free membership in our prize jackpot , call 09061701461 now";
const MAX_TOKENS: usize = TrainingSettings::DEFAULT.max_sentence_tokens;

/// The black boxes benchmarked.
const MODELS: [ModelKind; 2] = [ModelKind::Slstm, ModelKind::MvmaG];

/// An example's rules, train corpus and an untrained black box `model` with seeded word
/// vectors.
fn network(
    name: &str,
    model: ModelKind,
) -> (
    RulesFile,
    Vec<rulelens::corpus::Example>,
    Vocabulary,
    Box<dyn Network>,
) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}"));
    let file = RulesFile::read(
        &root.join(format!("{name}.rules")),
        &Default::default(),
        &ReadLimits::DEFAULT,
    )
    .expect("rules");
    let train = rulelens::corpus::read_file(&root.join("train.tsv"), &ReadLimits::DEFAULT)
        .expect("bundled corpus")
        .examples;
    let vocabulary = vocabulary(&file.system, [train.as_slice()]);
    let mut rng = SplitMix64::new(7);
    let dim = 50;
    let vectors: Vec<f32> = (0..vocabulary.len() * dim)
        .map(|_| rng.next_f64() as f32 - 0.5)
        .collect();
    let settings = TrainingSettings {
        model,
        ..TrainingSettings::DEFAULT
    };
    let (parameters, labels) = (
        Parameters::fresh(1, &Device::Cpu),
        file.system.labels().len(),
    );
    let shape = (vocabulary.len(), dim);
    let net: Box<dyn Network> = match model {
        ModelKind::MvmaG => Box::new(
            Mvma::declare(
                parameters,
                labels,
                shape,
                Some(&vectors),
                settings.dropout(),
            )
            .expect("network"),
        ),
        _ => Box::new(
            Slstm::declare(
                parameters,
                labels,
                shape,
                Some(&vectors),
                (&settings.slstm, settings.dropout()),
            )
            .expect("network"),
        ),
    };
    (file, train, vocabulary, net)
}

fn train_step(c: &mut Criterion) {
    for model in MODELS {
        let mut group = c.benchmark_group(format!("{}-train-step", model_id(model)));
        group.sample_size(20);
        for name in ["sms", "trec"] {
            train_one(&mut group, name, model);
        }
        group.finish();
    }
}

/// The name of `model` in benchmark ids: `slstm`, `mvma-g`.
fn model_id(model: ModelKind) -> &'static str {
    match model {
        ModelKind::MvmaG => "mvma-g",
        _ => "slstm",
    }
}

/// A training step of `model` on 32 sentences of the example `name`.
fn train_one(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    model: ModelKind,
) {
    let (file, train, vocabulary, net) = network(name, model);
    let mut tokens = Tokens::default();
    // 32 sentences from the middle of train, as a length-bucketed batch has them.
    let sentences: Vec<Sentence> = train[2000..2032]
        .iter()
        .map(|example| {
            tokens.tokenize(&example.text);
            Sentence::new(&file.system, Some(&vocabulary), &tokens, MAX_TOKENS)
        })
        .collect();
    let labels: Vec<u32> = train[2000..2032]
        .iter()
        .map(|e| {
            e.label
                .as_deref()
                .and_then(|l| file.system.label_by_name(l))
                .map_or(0, |l| l.0)
        })
        .collect();
    let refs: Vec<&Sentence> = sentences.iter().collect();
    let batch = Batch::from_sentences(&refs, &Device::Cpu).expect("batch");
    let targets = Tensor::new(labels.as_slice(), &Device::Cpu).expect("targets");
    let mut optimizer = AdamW::new(
        net.parameters(),
        ParamsAdamW {
            lr: 1e-3,
            weight_decay: 0.0,
            ..ParamsAdamW::default()
        },
    )
    .expect("optimizer");
    let mut rng = SplitMix64::new(3);
    group.throughput(Throughput::Elements(32));
    group.bench_function(BenchmarkId::from_parameter(name), |b| {
        b.iter(|| {
            let logits = net.training_logits(&batch, &mut rng).expect("logits");
            let loss = candle_nn::loss::cross_entropy(&logits, &targets).expect("loss");
            optimizer.backward_step(&loss).expect("step");
        })
    });
}

fn score_one_sentence(c: &mut Criterion) {
    for model in MODELS {
        let mut group = c.benchmark_group(format!("{}-score-20-tokens", model_id(model)));
        for name in ["sms", "trec"] {
            score_one(&mut group, name, model);
        }
        group.finish();
    }
}

/// Scoring one sentence with `model` built for the example `name`.
fn score_one(
    group: &mut criterion::BenchmarkGroup<criterion::measurement::WallTime>,
    name: &str,
    model: ModelKind,
) {
    let (file, _, vocabulary, net) = network(name, model);
    group.bench_function(BenchmarkId::from_parameter(name), |b| {
        b.iter(|| {
            let batch = Batch::from_texts(
                &file.system,
                Some(&vocabulary),
                &[black_box(SENTENCE)],
                MAX_TOKENS,
                &Device::Cpu,
            )
            .expect("batch");
            net.logits(&batch).expect("logits")
        })
    });
}

criterion_group!(benches, train_step, score_one_sentence);
criterion_main!(benches);

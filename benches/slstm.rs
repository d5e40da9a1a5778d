//! The S-LSTM's costs: one training step (forward, backward and Adam) on a batch of 32
//! train sentences of SMS and of TREC, and scoring one 20-token sentence from its text to
//! label logits, with the default settings (9 steps, window 1, dropout 0.5) and 50-dimensional
//! word vectors (so 50 hidden units, as with the bundled GloVe table). The vectors are seeded
//! pseudo-random ones for the examples' vocabulary, so that the benchmark needs nothing
//! outside the repository. Targets and results: docs/performance.md.

use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rulelens::limits::ReadLimits;
use rulelens::model::{
    Batch, ModelKind, Network, Parameters, Sentence, Slstm, SplitMix64, TrainingSettings,
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

/// An example's rules, train corpus and an untrained S-LSTM with seeded word vectors.
fn slstm(name: &str) -> (RulesFile, Vec<rulelens::corpus::Example>, Vocabulary, Slstm) {
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
        model: ModelKind::Slstm,
        ..TrainingSettings::DEFAULT
    };
    let net = Slstm::declare(
        Parameters::fresh(1, &Device::Cpu),
        file.system.labels().len(),
        (vocabulary.len(), dim),
        Some(&vectors),
        &settings,
    )
    .expect("network");
    (file, train, vocabulary, net)
}

fn train_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("slstm-train-step");
    group.sample_size(20);
    for name in ["sms", "trec"] {
        let (file, train, vocabulary, net) = slstm(name);
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
    group.finish();
}

fn score_one_sentence(c: &mut Criterion) {
    let mut group = c.benchmark_group("slstm-score-20-tokens");
    for name in ["sms", "trec"] {
        let (file, _, vocabulary, net) = slstm(name);
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
    group.finish();
}

criterion_group!(benches, train_step, score_one_sentence);
criterion_main!(benches);

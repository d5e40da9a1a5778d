//! SoPa's costs: one training step (forward, backward and Adam) on a batch of 32 SMS train
//! messages, scoring one 20-token sentence from its text to label logits (through tensors,
//! and through the editor's plain-loop `SopaScorer`), and the editor's explanation of it
//! (leave-one-out contributions and best spans), for the
//! bundled SMS and TREC rules with the default free patterns (`5:10,4:10,3:10,2:10`) and
//! max-product (the fused recurrence). Word vectors are seeded pseudo-random 50-dimensional
//! ones for the examples' vocabulary, so that the benchmark needs nothing outside the
//! repository. Targets and results: docs/performance.md.

use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rulelens::limits::ReadLimits;
use rulelens::model::{
    Batch, Network, Parameters, Sentence, Sopa, SopaSettings, SplitMix64, TrainingSettings,
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

/// An example's rules, train corpus and an untrained SoPa with seeded word vectors.
fn sopa(name: &str) -> (RulesFile, Vec<rulelens::corpus::Example>, Vocabulary, Sopa) {
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
    let net = Sopa::declare(
        Parameters::fresh(1, &Device::Cpu),
        &file.system,
        &file.rules,
        (
            &SopaSettings::DEFAULT,
            TrainingSettings::DEFAULT.dropout(),
            0.0,
        ),
        (vocabulary.len(), dim),
        Some(&vectors),
        &[],
    )
    .expect("network");
    (file, train, vocabulary, net)
}

fn train_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("sopa-train-step");
    for name in ["sms", "trec"] {
        let (file, train, vocabulary, net) = sopa(name);
        let mut tokens = Tokens::default();
        // 32 messages from the middle of train, as a length-bucketed batch has them.
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
                lr: 0.01,
                weight_decay: 0.0,
                ..ParamsAdamW::default()
            },
        )
        .expect("optimizer");
        let mut rng = SplitMix64::new(3);
        group.throughput(Throughput::Elements(32));
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let logits = net
                    .training_logits(&batch, &mut rng)
                    .and_then(|l| l.affine(10.0, 0.0))
                    .expect("logits");
                let loss = candle_nn::loss::cross_entropy(&logits, &targets).expect("loss");
                optimizer.backward_step(&loss).expect("step");
            })
        });
    }
    group.finish();
}

fn score_one_sentence(c: &mut Criterion) {
    let mut group = c.benchmark_group("sopa-score-20-tokens");
    for name in ["sms", "trec"] {
        let (file, _, vocabulary, net) = sopa(name);
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

fn plain_loops(c: &mut Criterion) {
    let mut group = c.benchmark_group("sopa-plain-20-tokens");
    for name in ["sms", "trec"] {
        let (_, _, vocabulary, net) = sopa(name);
        let scorer = net.scorer(&vocabulary, MAX_TOKENS).expect("scorer");
        group.bench_function(BenchmarkId::new("score", name), |b| {
            b.iter(|| scorer.read_text(black_box(SENTENCE)))
        });
        group.bench_function(BenchmarkId::new("explain", name), |b| {
            b.iter(|| scorer.explain_text(black_box(SENTENCE), 10.0))
        });
    }
    group.finish();
}

criterion_group!(benches, train_step, score_one_sentence, plain_loops);
criterion_main!(benches);

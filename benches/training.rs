//! One training epoch of the FA-RNN (forward pass, backward pass and Adam step per batch)
//! over a tenth of SMS train, with forward and with Viterbi scoring, with word vectors and
//! without, so that the ratio of the two scorings (issue 32's target for Viterbi: within 3×)
//! is read off one run. Targets and results: docs/performance.md.

#[path = "support/densify.rs"]
mod densify;
#[path = "support/sms_example.rs"]
mod sms_example;

use candle_core::Device;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use densify::densify;
use rulelens::limits::ReadLimits;
use rulelens::model::{
    DevScoring, FaRnn, LabeledSentence, Schedule, Scoring, TrainingSettings, VectorSource,
    WeightedAutomaton, WordInput, decompose, evenly_spaced, labeled, read_vectors, train,
    vocabulary,
};
use sms_example::sms_example;
use std::hint::black_box;

/// One epoch as `rulelens train examples/sms/sms.rules` runs it (FA-RNN, exact
/// decomposition, the bundled word vectors at β = 0.7, batches of 32 bucketed by length,
/// Adam), over every tenth sentence of SMS train (451 sentences, 15 batches), with forward
/// and with Viterbi scoring, and the same without word vectors (`--beta 1`); D1 and D2
/// start dense ([`densify`]). There is no dev data, so that only the updates are timed;
/// [`train`] then restores the untrained parameters (the best dev accuracy is the first),
/// and every iteration starts from the same network.
fn train_epoch(c: &mut Criterion) {
    let (file, train_examples, dev_examples) = sms_example();
    let config = TrainingSettings {
        epochs: 1,
        ..TrainingSettings::default()
    };
    let vocabulary = vocabulary(&file.system, [&train_examples[..], &dev_examples[..]]);
    let vectors = read_vectors(VectorSource::Bundled, &vocabulary, &ReadLimits::DEFAULT)
        .expect("bundled vectors");
    let words = WordInput {
        vocabulary,
        vectors,
        beta: config.beta,
    };
    let automaton = WeightedAutomaton::new(&file.system);
    let exact = decompose::exact(&automaton);
    let mut group = c.benchmark_group("train-epoch-sms-tenth");
    group.sample_size(10);
    for (beta, words) in [("beta-0.7", Some(&words)), ("beta-1", None)] {
        let vocabulary = words.map(|words| &words.vocabulary);
        let (all, _) = labeled(
            &file.system,
            vocabulary,
            &train_examples,
            config.max_sentence_tokens,
        );
        let tenth: Vec<LabeledSentence> = evenly_spaced(all.len(), 0.1)
            .into_iter()
            .map(|i| all[i].clone())
            .collect();
        for (name, scoring) in [("forward", Scoring::Forward), ("viterbi", Scoring::Viterbi)] {
            let net = FaRnn::new(
                &file.system,
                &automaton,
                &exact,
                words,
                scoring,
                &Device::Cpu,
            )
            .expect("network");
            densify(&net);
            group.bench_function(BenchmarkId::new(name, beta), |b| {
                b.iter(|| {
                    train(
                        &net,
                        black_box(&tenth),
                        &[],
                        &config,
                        Schedule::SETTINGS,
                        DevScoring::Tensors,
                        &Device::Cpu,
                        &mut |_| {},
                        &|| false,
                    )
                    .expect("trained")
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, train_epoch);
criterion_main!(benches);

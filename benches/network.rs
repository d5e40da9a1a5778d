//! The FA-RNN's costs outside training: compiling a rules file to its untrained network
//! (front end, weighted automaton, exact decomposition, tensors), and scoring one
//! 20-token sentence (batch of one, forward scoring, fused recurrence). Targets
//! (docs/performance.md): one-sentence scoring ≤ 30 µs at the reference's model sizes.

use candle_core::Device;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rulelens::model::{Batch, FaRnn, Scoring, WeightedAutomaton, decompose};
use rulelens::rules_file::RulesFile;
use rulelens::text::SourceText;
use std::hint::black_box;
use std::path::Path;

fn rules_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}/{name}.rules"));
    std::fs::read_to_string(path).expect("bundled example")
}

fn network(text: &str) -> (RulesFile, FaRnn) {
    let file = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    );
    let automaton = WeightedAutomaton::new(&file.system);
    let exact = decompose::exact(&automaton);
    let net = FaRnn::new(
        &file.system,
        &automaton,
        &exact,
        None,
        Scoring::Forward,
        &Device::Cpu,
    )
    .expect("network");
    (file, net)
}

fn compile_to_network(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile-to-network");
    for name in ["sms", "trec"] {
        let text = rules_text(name);
        group.bench_with_input(BenchmarkId::from_parameter(name), &text, |b, text| {
            b.iter(|| network(black_box(text)))
        });
    }
    group.finish();
}

fn score_one_sentence(c: &mut Criterion) {
    let mut group = c.benchmark_group("score-20-tokens");
    let sentence = "you have won a guaranteed cash prize call now to claim it before the offer ends tonight ok ? !";
    for name in ["sms", "trec"] {
        let (file, net) = network(&rules_text(name));
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let batch =
                    Batch::from_texts(&file.system, None, &[black_box(sentence)], &Device::Cpu)
                        .expect("batch");
                net.forward(&batch).expect("forward")
            })
        });
    }
    group.finish();
}

criterion_group!(benches, compile_to_network, score_one_sentence);
criterion_main!(benches);

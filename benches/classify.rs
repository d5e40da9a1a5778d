//! Classification throughput of the exact rule systems over their train corpora,
//! tokenization included (`Throughput::Elements` = sentences). Target (docs/performance.md):
//! ≥ 200,000 sentences per second for TREC on one core.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use rulelens::automata::{Classification, Scratch};
use rulelens::limits::ReadLimits;
use rulelens::rules_file::RulesFile;
use std::hint::black_box;
use std::path::Path;

fn classify(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut group = c.benchmark_group("classify");
    for name in ["trec", "sms"] {
        let file = RulesFile::read(
            &root.join(format!("examples/{name}/{name}.rules")),
            &Default::default(),
            &ReadLimits::DEFAULT,
        )
        .expect("bundled rules");
        let corpus = rulelens::corpus::read_file(
            &root.join(format!("examples/{name}/train.tsv")),
            &ReadLimits::DEFAULT,
        )
        .expect("bundled corpus");
        let texts: Vec<&str> = corpus.examples.iter().map(|e| e.text.as_str()).collect();
        group.throughput(Throughput::Elements(texts.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &texts, |b, texts| {
            let mut scratch = Scratch::default();
            let mut outcome = Classification::default();
            b.iter(|| {
                let mut n_covered = 0usize;
                for text in texts {
                    file.system
                        .classify_with(black_box(text), &mut scratch, &mut outcome);
                    n_covered += usize::from(outcome.covered());
                }
                n_covered
            })
        });
    }
    group.finish();
}

criterion_group!(benches, classify);
criterion_main!(benches);

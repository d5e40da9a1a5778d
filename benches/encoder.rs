//! The bundled sentence encoder, as training's teacher reads it (`model::encoder`): TREC's
//! 500 dev questions (`examples/trec/dev.tsv`, 16 word pieces each on average with the
//! start and end pieces), encoded in batches of 32 sorted by length, the batches on two
//! threads and candle's products on one, as the command line sets it (`RAYON_NUM_THREADS=1`,
//! `main.rs`). Targets and results: docs/performance.md.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rulelens::limits::ReadLimits;
use rulelens::model::SentenceEncoder;
use std::hint::black_box;
use std::path::Path;

fn encode_trec_dev(c: &mut Criterion) {
    // SAFETY: before any thread of the benchmark's exists that could read the environment.
    unsafe { std::env::set_var("RAYON_NUM_THREADS", "1") };
    let dev = rulelens::corpus::read_file(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/trec/dev.tsv"),
        &ReadLimits::DEFAULT,
    )
    .expect("bundled corpus")
    .examples;
    let texts: Vec<&str> = dev.iter().map(|e| e.text.as_str()).collect();
    let encoder = SentenceEncoder::bundled().expect("the bundled encoder");
    let mut group = c.benchmark_group("encoder");
    group.sample_size(10);
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.bench_function("trec-dev-500", |b| {
        b.iter(|| {
            encoder
                .encode(black_box(&texts), &|| false)
                .expect("encoded")
                .expect("not cancelled")
        })
    });
    group.finish();
}

criterion_group!(benches, encode_trec_dev);
criterion_main!(benches);

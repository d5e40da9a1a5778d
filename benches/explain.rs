//! A corpus-line hover's n-gram explanation by occlusion (`explain::ngrams` over
//! `FaRnnScorer::occlusions_within`), with a network trained on the SMS example: the cost that
//! `OCCLUSION_BUDGET` bounds. Targets and results: docs/performance.md.

#[path = "support/sms_example.rs"]
mod sms_example;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rulelens::explain::{OCCLUSION_BUDGET, ngrams, strongest_ngrams};
use rulelens::ide::DEFAULT_MAX_NGRAM_LEN;
use rulelens::limits::ReadLimits;
use rulelens::model::{FaRnnScorer, TrainingSettings, fit};
use sms_example::sms_example;
use std::hint::black_box;

/// The most tokens of a sentence a network reads, by default.
const MAX_TOKENS: usize = TrainingSettings::DEFAULT.max_sentence_tokens;

/// The n-gram explanation of a corpus-line hover, with an FA-RNN trained on the SMS example
/// as the language server trains one (the default settings: forward scoring, the bundled
/// word vectors at β 0.7) but briefly (two epochs over a quarter of train, early stopping
/// on dev): the line scored with each of its
/// spans of up to 6 tokens deleted, as far as [`OCCLUSION_BUDGET`] allows
/// ([`FaRnnScorer::occlusions_within`]), every span's contribution toward the prediction
/// ([`ngrams`]) and the three strongest ([`strongest_ngrams`]), on the longest SMS dev line
/// (122 tokens), the one at the 99th percentile of length and one of median length (each
/// printing the longest n-grams the budget allows); and, for the cost without the budget,
/// every single token and every span of up to 6 tokens of the longest line
/// ([`FaRnnScorer::occlusions`]).
fn explain_ngrams(c: &mut Criterion) {
    let (file, train, dev) = sms_example();
    let config = TrainingSettings {
        fraction: 0.25,
        epochs: 2,
        ..TrainingSettings::default()
    };
    let fitted = fit(
        &file,
        &train,
        &dev,
        &config,
        &ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .expect("fitted");
    let scorer = FaRnnScorer::new(
        fitted.net.as_ref(),
        &file.system,
        fitted.vocabulary.as_ref(),
        MAX_TOKENS,
    )
    .expect("scorer");
    let scale = fitted.manifest.settings.logit_scale;
    let mut lines: Vec<&str> = dev.iter().map(|e| e.text.as_str()).collect();
    lines.sort_by_key(|text| rulelens::text::tokenize(text).len());
    let mut group = c.benchmark_group("corpus-line-ngrams");
    // Spans of up to this many tokens, every one of them; `None`: as the budget allows.
    let explain = |line: &str, every: Option<usize>| {
        let occlusions = match every {
            Some(max_len) => scorer.occlusions(line, max_len),
            None => scorer.occlusions_within(line, DEFAULT_MAX_NGRAM_LEN, OCCLUSION_BUDGET),
        };
        let prediction = occlusions.scores.prediction();
        strongest_ngrams(ngrams(line, &occlusions, prediction, scale), 3)
    };
    let n = lines.len();
    for (name, line, every) in [
        ("sms-longest", lines[n - 1], None),
        ("sms-p99", lines[n * 99 / 100], None),
        ("sms-median", lines[n / 2], None),
        ("sms-longest-every-token", lines[n - 1], Some(1)),
        (
            "sms-longest-every-span",
            lines[n - 1],
            Some(DEFAULT_MAX_NGRAM_LEN),
        ),
    ] {
        let name = format!("{name}-{}-tokens", rulelens::text::tokenize(line).len());
        if every.is_none() {
            let occlusions =
                scorer.occlusions_within(line, DEFAULT_MAX_NGRAM_LEN, OCCLUSION_BUDGET);
            eprintln!(
                "{name}: within the budget, n-grams of up to {} tokens",
                occlusions.max_len
            );
        }
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| explain(black_box(line), every))
        });
    }
    group.finish();
}

criterion_group!(benches, explain_ngrams);
criterion_main!(benches);

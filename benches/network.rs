//! The FA-RNN's costs outside training: compiling a rules file to its untrained network
//! (front end, weighted automaton, exact decomposition, tensors), and scoring one
//! 20-token sentence from its text to label logits (tokenization and lookup included) with
//! word embeddings mixed in (β = 0.7, D = 50, a vocabulary of every train and dev word,
//! as `rulelens train --embeddings` builds it; the vectors are seeded pseudo-random ones
//! in GloVe format, so that the benchmark needs nothing outside the repository) and with
//! dense factors, as after training ([`densify`]): by the plain-loop [`FaRnnScorer`] on the
//! bundled rules' networks and on one of the PyTorch reference's default sizes
//! ([`sized_network`]), and, for comparison, by the tensor network as a batch of one.
//! (A corpus-line hover's n-gram explanation: `benches/explain.rs`.) Targets and results:
//! docs/performance.md.

#[path = "support/densify.rs"]
mod densify;

use candle_core::Device;
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use densify::densify;
use rulelens::limits::ReadLimits;
use rulelens::model::{
    Batch, FaRnn, FaRnnScorer, Scoring, SplitMix64, Vocabulary, WeightedAutomaton, WordInput,
    decompose, read_glove, vocabulary,
};
use rulelens::rules_file::RulesFile;
use rulelens::text::SourceText;
use std::hint::black_box;
use std::path::Path;

/// The most tokens of a sentence a network reads, by default.
const MAX_TOKENS: usize = rulelens::model::TrainingSettings::DEFAULT.max_sentence_tokens;

fn rules_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}/{name}.rules"));
    std::fs::read_to_string(path).expect("bundled example")
}

fn network(text: &str, words: Option<&WordInput>) -> (RulesFile, FaRnn) {
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
        words,
        Scoring::Forward,
        &Device::Cpu,
    )
    .expect("network");
    (file, net)
}

/// The word input `rulelens train --embeddings F --beta 0.7` would build for a bundled
/// example, with seeded 50-dimensional vectors for its words.
fn word_input(name: &str, text: &str) -> WordInput {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}"));
    let file = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    );
    let corpora: Vec<_> = ["train.tsv", "dev.tsv"]
        .iter()
        .map(|f| {
            rulelens::corpus::read_file(&root.join(f), &ReadLimits::DEFAULT)
                .expect("bundled corpus")
                .examples
        })
        .collect();
    let vocabulary: Vocabulary = vocabulary(&file.system, corpora.iter().map(Vec::as_slice));
    let mut rng = SplitMix64::new(7);
    let mut glove = String::new();
    for word in vocabulary.words().iter().skip(1) {
        glove.push_str(word);
        for _ in 0..50 {
            glove.push_str(&format!(" {:.4}", rng.next_f64() - 0.5));
        }
        glove.push('\n');
    }
    let path =
        std::env::temp_dir().join(format!("rulelens-bench-{name}-{}.txt", std::process::id()));
    std::fs::write(&path, glove).expect("temporary vectors");
    let vectors = read_glove(&path, &vocabulary, &ReadLimits::DEFAULT).expect("vectors");
    std::fs::remove_file(&path).ok();
    WordInput {
        vocabulary,
        vectors,
        beta: 0.7,
    }
}

fn compile_to_network(c: &mut Criterion) {
    let mut group = c.benchmark_group("compile-to-network");
    for name in ["sms", "trec"] {
        let text = rules_text(name);
        group.bench_with_input(BenchmarkId::from_parameter(name), &text, |b, text| {
            b.iter(|| network(black_box(text), None))
        });
    }
    group.finish();
}

/// Rules whose automata have `k` states in all (`k` even): `k / 2` rules `spam: $* WORD $*`
/// (two states each) over the first words of `vocabulary`, beside `default ham`, so that a
/// network of the PyTorch reference's sizes has the SMS labels and vocabulary.
fn sized_rules(vocabulary: &Vocabulary, k: usize) -> RulesFile {
    let mut text = String::from("default ham\n");
    let words = vocabulary.words().iter().skip(1);
    for word in words
        .filter(|word| word.chars().all(|c| c.is_ascii_lowercase()))
        .take(k / 2)
    {
        text.push_str(&format!("spam: $* {word} $*\n"));
    }
    let file = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    );
    let states = rulelens::model::pattern_blocks(&file.system)
        .last()
        .map_or(0, |block| block.end);
    assert_eq!(states, k, "the sized rules' automata");
    file
}

/// A network over `file`'s rules (alphabet, patterns, aggregation) with `k` states (the
/// rules' automata's, [`sized_rules`]) and rank `r`: seeded random factors at the PyTorch
/// reference's `random_params` scale, and each pattern's block of states as `$* WORD $*`
/// compiles (a start state and an accepting one, each with a wildcard self-loop; no edge
/// between patterns, which `FaRnn::from_tensors` refuses), so that scoring can be timed at
/// the reference's own sizes.
fn sized_network(file: &RulesFile, words: &WordInput, k: usize, r: usize) -> FaRnn {
    let mut rng = SplitMix64::new(13);
    let mut normal = |scale: f64| -> f32 {
        let (u1, u2) = (rng.next_f64().max(1e-12), rng.next_f64());
        (scale * (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()) as f32
    };
    let (s, p, d) = (
        file.system.alphabet().len(),
        file.system.patterns().len(),
        words.vectors.dim,
    );
    let sigma = (0.25 / (k * r) as f64).powf(0.25);
    let tensor = |data: Vec<f32>, shape: (usize, usize)| {
        candle_core::Tensor::from_vec(data, shape, &Device::Cpu).expect("tensor")
    };
    let mut wildcard = vec![0f32; k * k];
    let mut finals = vec![0f32; k * p];
    let mut start = vec![0f32; k];
    for (pattern, block) in rulelens::model::pattern_blocks(&file.system)
        .into_iter()
        .enumerate()
    {
        start[block.start] = 1.0;
        for state in block.clone() {
            wildcard[state * k + state] = 1.0;
        }
        finals[(block.end - 1) * p + pattern] = 1.0;
    }
    let mut tensors = std::collections::HashMap::new();
    tensors.insert(
        "symbol_embedding".to_string(),
        tensor((0..s * r).map(|_| normal(1.0)).collect(), (s, r)),
    );
    for name in ["d1", "d2"] {
        tensors.insert(
            name.to_string(),
            tensor((0..k * r).map(|_| normal(sigma)).collect(), (k, r)),
        );
    }
    tensors.insert("wildcard".to_string(), tensor(wildcard, (k, k)));
    tensors.insert("start".to_string(), tensor(start, (1, k)));
    tensors.insert("finals".to_string(), tensor(finals, (k, p)));
    tensors.insert(
        "word_embedding".to_string(),
        tensor(words.vectors.data.clone(), (words.vocabulary.len(), d)),
    );
    tensors.insert(
        "g".to_string(),
        tensor((0..d * r).map(|_| normal(0.1)).collect(), (d, r)),
    );
    FaRnn::from_tensors(&file.system, tensors, Scoring::Forward, Some(words.beta))
        .expect("sized network")
}

const SENTENCE: &str = "you have won a guaranteed cash prize call now to claim it before the offer ends tonight ok ? !";

fn score_one_sentence(c: &mut Criterion) {
    let mut group = c.benchmark_group("score-20-tokens");
    for name in ["sms", "trec"] {
        let text = rules_text(name);
        let words = word_input(name, &text);
        let (file, net) = network(&text, Some(&words));
        densify(&net);
        let scorer = FaRnnScorer::new(&net, &file.system, Some(&words.vocabulary), MAX_TOKENS)
            .expect("scorer");
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| scorer.score_text(black_box(SENTENCE)))
        });
        if name == "sms" {
            // The PyTorch reference's default sizes (K 52, r 150), on SMS's vocabulary.
            let sized_file = sized_rules(&words.vocabulary, 52);
            let sized = sized_network(&sized_file, &words, 52, 150);
            let scorer = FaRnnScorer::new(
                &sized,
                &sized_file.system,
                Some(&words.vocabulary),
                MAX_TOKENS,
            )
            .expect("scorer");
            group.bench_function(BenchmarkId::from_parameter("sms-k52-r150"), |b| {
                b.iter(|| scorer.score_text(black_box(SENTENCE)))
            });
        }
    }
    group.finish();
}

/// The same through the tensor network as a batch of one (the path that training and
/// `rulelens eval` take), for comparison.
fn score_one_sentence_as_a_batch(c: &mut Criterion) {
    let mut group = c.benchmark_group("score-20-tokens-tensors");
    for name in ["sms", "trec"] {
        let text = rules_text(name);
        let words = word_input(name, &text);
        let (file, net) = network(&text, Some(&words));
        densify(&net);
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter(|| {
                let batch = Batch::from_texts(
                    &file.system,
                    Some(&words.vocabulary),
                    &[black_box(SENTENCE)],
                    MAX_TOKENS,
                    &Device::Cpu,
                )
                .expect("batch");
                net.forward(&batch).expect("forward")
            })
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    compile_to_network,
    score_one_sentence,
    score_one_sentence_as_a_batch
);
criterion_main!(benches);

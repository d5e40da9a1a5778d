//! Compile time of rules files: the whole front end (`RulesFile::analyze`: parse, names,
//! automata, language checks) on the SMS and TREC rules, on a generated file of 500
//! patterns, and on a word list of 100,000 entries (the most a list may hold) used by three
//! rules. Target (docs/performance.md): TREC ≤ 20 ms on one core.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rulelens::rules_file::RulesFile;
use rulelens::text::SourceText;
use std::hint::black_box;
use std::path::Path;

/// A deterministic rules file of `n` patterns in the styles the bundled rules use, over
/// the words of the TREC rules and a few extra literals.
fn generated_rules(n: usize) -> String {
    let words: Vec<&str> = "what which who where when how why name kind many much year \
        country city capital first largest called mean stand abbreviation located person \
        man woman team group number percentage amount date time day month speed distance \
        free call txt won cash prize claim reply urgent win winner mobile service offer \
        latest chat date sex tone voucher credits password link direct girl friend"
        .split_whitespace()
        .collect();
    let labels = ["abbr", "desc", "enty", "hum", "loc", "num"];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = |bound: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((state >> 33) as usize) % bound
    };
    let mut out = String::from("default enty\n");
    for i in 0..n {
        let label = labels[next(labels.len())];
        let (a, b, c) = (
            words[next(words.len())],
            words[next(words.len())],
            words[next(words.len())],
        );
        let body = match i % 5 {
            0 => format!("$* {a} $* {b} $*"),
            1 => format!("$* {a} &* $? ( {b} | {c} ) $*"),
            2 => format!("$* ( {a} | {b} ) $* {c} $*"),
            3 => format!("$* {a} % $* \"?\" $*"),
            _ => format!("$* {a} $?{{0,2}} {b} $*"),
        };
        out.push_str(&format!("{label}: {body}\n"));
    }
    out
}

/// Three rules over one inline word list of `n` entries, a tenth of them two tokens long.
fn word_list_rules(n: usize) -> String {
    let entries: Vec<String> = (0..n)
        .map(|i| {
            if i % 10 == 0 {
                format!("new place{i}")
            } else {
                format!("place{i}")
            }
        })
        .collect();
    format!(
        "default other\nwords places = ( {} )\nloc: $* ( in | to ) @places $*\nloc: @places $*\ntrip: $* from @places $* to @places $*\n",
        entries.join(" | ")
    )
}

fn read_example(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/{name}/{name}.rules"));
    std::fs::read_to_string(path).expect("bundled example")
}

fn compile(c: &mut Criterion) {
    let cases = [
        ("sms", read_example("sms")),
        ("trec", read_example("trec")),
        ("generated-500", generated_rules(500)),
        ("word-list-100k", word_list_rules(100_000)),
    ];
    let mut group = c.benchmark_group("compile");
    for (name, text) in &cases {
        let file = RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &Default::default(),
        );
        assert!(!file.has_errors(), "{name} compiles without errors");
        group.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| {
                RulesFile::analyze(
                    SourceText::from_bytes(black_box(text.as_bytes())),
                    None,
                    &Default::default(),
                )
            })
        });
    }
    group.finish();
}

criterion_group!(benches, compile);
criterion_main!(benches);

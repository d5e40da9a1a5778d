//! An author's editing session replayed through the language server (issue 17): ten
//! realistic edits of examples/sms and of examples/trec, each saved in turn, through
//! `rulelens serve` over stdio (the client of tests/common/lsp_client.rs, as benches/lsp.rs
//! uses), with the default training settings and the bundled word vectors.
//!
//! For each save it records the time from `didSave` to the end of the rule network's
//! training (`$/progress` end, which the server sends once the network is in place), the
//! progress title (warm start or full training) and the network's dev accuracy; then a
//! second server, with training switched off, trains the same text from scratch
//! (`rulelens/train` with `full`), timed from the request to its progress end. The two
//! servers run one after the other, never at once. It prints a Markdown table per corpus
//! with the medians, the ratio of the medians and the mean dev accuracies, beside the
//! targets of issue 17 (a median of at most 2 s on SMS and 5 s on TREC, a ratio of at most
//! 0.15, dev accuracy within 0.3 points of a cold training on average).
//!
//! Run: `cargo bench --bench edit_replay` (about 15 minutes on 2 cores: the cold trainings
//! take most of it). `RULELENS_REPLAY=sms` or `trec` replays one corpus,
//! `RULELENS_REPLAY_LOG=1` prints the server's log of each save, and
//! `RULELENS_REPLAY_WARM_ONLY=1` leaves the cold trainings out, and
//! `RULELENS_REPLAY_SEEDS=0,1,2` replays with each training seed in turn (default: 0; both
//! servers train with the seed) and averages the dev accuracies over the seeds and the
//! corpora. Results: docs/performance.md.

#[path = "../tests/common/lsp_client.rs"]
mod lsp_client;

use lsp_client::{Server, temp_dir, uri};
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// One edit: what it does, and the text it replaces with another (exactly one occurrence
/// in the rules as the edits before it left them).
struct Edit {
    what: &'static str,
    from: &'static str,
    to: &'static str,
}

const fn edit(what: &'static str, from: &'static str, to: &'static str) -> Edit {
    Edit { what, from, to }
}

const SMS: [Edit; 10] = [
    edit(
        "add a word to an alternation",
        "( call | ringtone ) $* free",
        "( call | ringtone | txt ) $* free",
    ),
    edit(
        "add a rule",
        "spam: $* expires $* now $*",
        "spam: $* expires $* now $*\nspam: $* ( claim | collect ) $* prize $*",
    ),
    edit(
        "delete a rule",
        "ham: $* mine $*    # 4 oclock at mine. Just to bash out a flat plan.\n",
        "",
    ),
    edit(
        "change a label",
        "spam: $* chat &* $? to $*",
        "ham: $* chat &* $? to $*",
    ),
    edit(
        "add a $* gap",
        "ham: $* thats &* $? nice $*",
        "ham: $* thats $* nice $*",
    ),
    edit(
        "add a word to an alternation",
        "( alert | urgent )",
        "( alert | urgent | important )",
    ),
    edit(
        "add a rule",
        "spam: $* unlimited $* calls $*",
        "spam: $* unlimited $* calls $*\nspam: $* txt $* stop $*",
    ),
    edit(
        "merge two words into an alternation",
        "spam: $* won $* cash $* prize $*",
        "spam: $* won $* ( cash | prize ) $*",
    ),
    edit(
        "delete a rule",
        "ham: $* we &* $? will $*",
        "# ham: $* we &* $? will $*",
    ),
    edit(
        "add a rule first (its label's priority rises)",
        "corpus dev \"dev.tsv\"\n",
        "corpus dev \"dev.tsv\"\nham: $* sorry $* ( later | call ) $*\n",
    ),
];

const TREC: [Edit; 10] = [
    edit(
        "add a word to an alternation",
        "enty: $* what &* $? kind $*",
        "enty: $* what &* $? ( kind | sort | type ) $*",
    ),
    edit(
        "add a rule",
        "desc: $* unusual $*",
        "desc: $* unusual $*\nnum: $* how &* $? ( far | long | old | tall ) $*",
    ),
    edit(
        "delete a rule",
        "loc: $* where $* stand $*",
        "# loc: $* where $* stand $*",
    ),
    edit(
        "change a label",
        "enty: $* what $* called $*",
        "hum: $* what $* called $*",
    ),
    edit(
        "add a $* gap",
        "loc: $* capital &* $? of $*",
        "loc: $* capital $* of $*",
    ),
    edit(
        "add a word to an alternation",
        "( situated | located )",
        "( situated | located | found )",
    ),
    edit(
        "add a rule",
        "desc: $* what $* ( mean | meant ) $*",
        "desc: $* what $* ( mean | meant ) $*\nnum: $* what &* $? year $*",
    ),
    edit(
        "widen an element",
        "hum: $* who $* ( man | woman | human | person ) $*",
        "hum: $* who $* ( man | woman | human | person | people ) $*",
    ),
    edit(
        "delete a rule",
        "desc: $* what &* $? is $* hypertension $*",
        "# desc: $* what &* $? is $* hypertension $*",
    ),
    edit(
        "add a rule first (its label's priority rises)",
        "corpus dev \"dev.tsv\"\n",
        "corpus dev \"dev.tsv\"\nloc: $* what $* ( country | city | state ) $*\n",
    ),
];

/// The end of the rule network's progress.
fn is_training_end(message: &Value) -> bool {
    message["method"] == "$/progress"
        && message["params"]["value"]["kind"] == "end"
        && message["params"]["token"]
            .as_str()
            .is_some_and(|token| token.starts_with("rulelens/train/"))
}

/// The dev accuracy in a progress end's message (`…: dev accuracy 98.40%`).
fn dev_accuracy(end: &Value) -> f64 {
    let message = end["params"]["value"]["message"]
        .as_str()
        .unwrap_or_default();
    message
        .rsplit("dev accuracy ")
        .next()
        .and_then(|rest| rest.trim_end_matches('%').parse().ok())
        .unwrap_or_else(|| panic!("no dev accuracy in {message:?}"))
}

/// One save's figures.
struct Row {
    what: &'static str,
    title: String,
    seconds: f64,
    accuracy: f64,
    cold_seconds: f64,
    cold_accuracy: f64,
}

/// A server on a copy of `examples/NAME` with the rules open; returns it with the rules'
/// URI, text and folder.
fn start(name: &str, training: bool, seed: u64) -> (Server, String, String) {
    let dir = temp_dir(&format!("replay-{name}-{training}-{seed}"));
    let example = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(name);
    let rules_file = format!("{name}.rules");
    for file in [rules_file.as_str(), "train.tsv", "dev.tsv"] {
        std::fs::copy(example.join(file), dir.join(file)).expect("copy the example");
    }
    let text = std::fs::read_to_string(dir.join(&rules_file)).unwrap();
    let mut server = Server::start();
    server.initialize(
        json!({ "window": { "workDoneProgress": true },
                "textDocument": { "synchronization": { "didSave": true } } }),
        json!({ "training": { "enabled": training, "delay": 0, "seed": seed,
                              "modelCache": dir.join("cache") },
                "suggest": { "enabled": false } }),
    );
    let rules = uri(&dir.join(&rules_file));
    server.open(&rules, "rules", &text);
    (server, rules, text)
}

/// Replaces the document's text with `text` as version `version` and saves it (the file
/// too, as an editor does).
fn save(server: &mut Server, rules: &str, text: &str, version: i64) {
    let path = rules.trim_start_matches("file://");
    std::fs::write(path, text).expect("write the rules");
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": rules, "version": version },
                "contentChanges": [{ "text": text }] }),
    );
    server.diagnostics(rules, version);
    server.clear_seen();
    server.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": rules } }),
    );
}

fn replay(name: &str, edits: &[Edit], seed: u64) -> Vec<Row> {
    // The author's server: the network of the file as it is, then one save per edit.
    let (mut server, rules, mut text) = start(name, true, seed);
    eprintln!("{name}: training the network of the rules as they are…");
    server.wait_for(is_training_end);
    let mut texts = Vec::new();
    let mut rows = Vec::new();
    for (i, edit) in edits.iter().enumerate() {
        assert_eq!(text.matches(edit.from).count(), 1, "{name}: {}", edit.from);
        text = text.replacen(edit.from, edit.to, 1);
        let started = Instant::now();
        save(&mut server, &rules, &text, i as i64 + 2);
        let title = server.progress_title("rulelens/train/");
        let end = server.wait_for(is_training_end);
        let seconds = started.elapsed().as_secs_f64();
        let accuracy = dev_accuracy(&end);
        if std::env::var_os("RULELENS_REPLAY_LOG").is_some() {
            for message in server.seen_after(Duration::ZERO) {
                if message["method"] == "window/logMessage" {
                    eprintln!("  log: {}", message["params"]["message"]);
                }
            }
        }
        eprintln!(
            "{name} {}: {} — {title}: {seconds:.2} s, dev {accuracy:.2}%",
            i + 1,
            edit.what
        );
        texts.push(text.clone());
        rows.push(Row {
            what: edit.what,
            title,
            seconds,
            accuracy,
            cold_seconds: 0.0,
            cold_accuracy: 0.0,
        });
    }
    server.exit();
    if std::env::var_os("RULELENS_REPLAY_WARM_ONLY").is_some() {
        return rows;
    }
    // The same texts trained from scratch, on a server that only trains when asked.
    let (mut cold, rules, _) = start(name, false, seed);
    for (i, (text, row)) in texts.iter().zip(&mut rows).enumerate() {
        save(&mut cold, &rules, text, i as i64 + 2);
        std::thread::sleep(Duration::from_millis(500));
        let started = Instant::now();
        let response = cold.request(
            "rulelens/train",
            json!({ "textDocument": { "uri": rules }, "full": true }),
        );
        assert_eq!(response["result"]["started"], true, "{response}");
        let end = cold.wait_for(is_training_end);
        row.cold_seconds = started.elapsed().as_secs_f64();
        row.cold_accuracy = dev_accuracy(&end);
        eprintln!(
            "{name} {} cold: {:.2} s, dev {:.2}%",
            i + 1,
            row.cold_seconds,
            row.cold_accuracy
        );
    }
    cold.exit();
    rows
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let values: Vec<f64> = values.collect();
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

fn main() {
    let only = std::env::var("RULELENS_REPLAY").ok();
    let seeds: Vec<u64> = std::env::var("RULELENS_REPLAY_SEEDS")
        .map(|seeds| {
            seeds
                .split(',')
                .map(|seed| seed.trim().parse().expect("RULELENS_REPLAY_SEEDS: 0,1,2"))
                .collect()
        })
        .unwrap_or_else(|_| vec![0]);
    // Warm minus cold mean dev accuracy, per corpus and seed.
    let mut differences: Vec<(&str, u64, f64)> = Vec::new();
    for (name, edits, target) in [("sms", &SMS, 2.0), ("trec", &TREC, 5.0)] {
        if only.as_deref().is_some_and(|only| only != name) {
            continue;
        }
        for &seed in &seeds {
            let rows = replay(name, edits, seed);
            let difference = report(name, seed, &rows, target);
            differences.push((name, seed, difference));
        }
    }
    if differences.len() > 1 {
        let corpora: Vec<&str> = differences.iter().map(|d| d.0).collect();
        let mut per_corpus = Vec::new();
        for name in ["sms", "trec"].into_iter().filter(|n| corpora.contains(n)) {
            let of_corpus = mean(differences.iter().filter(|d| d.0 == name).map(|d| d.2));
            println!(
                "{name}: warm − cold dev accuracy over seeds {seeds:?}: {of_corpus:+.2} points"
            );
            per_corpus.push(of_corpus);
        }
        let overall = mean(per_corpus.into_iter());
        println!(
            "averaged over the corpora: {overall:+.2} points (target ≥ −0.3: {})",
            if overall >= -0.3 { "met" } else { "not met" }
        );
    }
}

/// Prints a replay's table and summary; returns warm minus cold mean dev accuracy.
fn report(name: &str, seed: u64, rows: &[Row], target: f64) -> f64 {
    println!("\n### {name}, seed {seed}\n");
    println!("| # | edit | training | save → trained (s) | dev % | cold (s) | cold dev % |");
    println!("| ---: | --- | --- | ---: | ---: | ---: | ---: |");
    for (i, row) in rows.iter().enumerate() {
        println!(
            "| {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            i + 1,
            row.what,
            row.title,
            row.seconds,
            row.accuracy,
            row.cold_seconds,
            row.cold_accuracy
        );
    }
    let warm = median(rows.iter().map(|r| r.seconds).collect());
    let cold = median(rows.iter().map(|r| r.cold_seconds).collect());
    let (accuracy, cold_accuracy) = (
        mean(rows.iter().map(|r| r.accuracy)),
        mean(rows.iter().map(|r| r.cold_accuracy)),
    );
    println!(
        "\nmedian save → trained {warm:.2} s (target ≤ {target} s: {}); cold {cold:.2} s; ratio {:.3} (target ≤ 0.15: {}); mean dev {accuracy:.2} % against cold {cold_accuracy:.2} % ({:+.2} points; target ≥ −0.3: {})",
        if warm <= target { "met" } else { "not met" },
        warm / cold,
        if warm / cold <= 0.15 {
            "met"
        } else {
            "not met"
        },
        accuracy - cold_accuracy,
        if accuracy - cold_accuracy >= -0.3 {
            "met"
        } else {
            "not met"
        },
    );
    accuracy - cold_accuracy
}

//! The language server's latencies as an editor sees them: `rulelens serve` (the binary
//! this crate builds, in the bench profile) driven over stdio by the minimal client of
//! tests/common/lsp_client.rs, on a copy of examples/sms with `train.tsv` and `dev.tsv`
//! open, as a user has them:
//!
//! - change to diagnostics: an edit of a pattern in `sms.rules` until the diagnostics of
//!   that document version arrive (re-parse and semantic checks of the whole file);
//! - save to corpus diagnostics: `didSave` until both open corpus files have their
//!   diagnostics again (compiling the rules, the rule system on all 5,000 lines, findings,
//!   and one diagnostic per misclassified line), with training off so that only that is
//!   timed: after an edit of a pattern, and with nothing changed since the last save (when
//!   the network in memory is kept);
//! - the save cost of training: from opening the files to the trained FA-RNN, then to the
//!   trained SoPa of `training.learnPatterns` (its learned patterns read back), 3 epochs each;
//!   then from `didSave` of a one-rule edit to the warm-started FA-RNN in use, under the
//!   default `training.delay` (issue 36: a median of 2 s at most); and as a client makes
//!   them (issue 51, item 6): the default training settings, a save every 4 s while the
//!   last save's SoPa still trains;
//! - hover on a corpus line, with both networks trained (rule-system, FA-RNN and SoPa
//!   predictions, top patterns with their best spans, n-grams by occlusion, the SoPa's
//!   leave-one-out contributions), on lines drawn at random;
//! - the long lines of the open corpora measured ahead of their hover in the background
//!   after the first training, and hover on lines of 48 to 128 tokens once they are;
//! - hover on a pattern (figures on both corpora and examples);
//! - the same corpus-line hover while a network trains on the other core.
//!
//! - at scale: hover on a pattern and an edit's diagnostics in a file of 10,000 rules, and
//!   a save and a corpus-line hover with a train corpus of 1,000,000 lines, with the
//!   server's peak memory (issue 14).
//!
//! Each is timed from the client's write to the client's receipt of the parsed answer, and
//! reported as p50, p99 and max over many samples, beside the targets of issue #4.
//! Run: `cargo bench --bench lsp` (RULELENS_BENCH_SAMPLES scales the sample counts;
//! `cargo bench --bench lsp -- long-lines` stops after the hovers on long lines,
//! `cargo bench --bench lsp -- save-to-network` after the save to trained network).
//! Results: docs/performance.md.

#[path = "../tests/common/lsp_client.rs"]
mod lsp_client;

use lsp_client::{Server, temp_dir, uri};
use rulelens::model::TrainingSettings;
use rulelens::text::tokenize;
use serde_json::{Value, json};
use std::path::Path;
use std::time::{Duration, Instant};

/// 0-based line of `spam: $* won $* cash $* prize $*` in examples/sms/sms.rules.
const PATTERN_LINE: u64 = 17;

struct Timings {
    name: &'static str,
    target_ms: Option<f64>,
    samples: Vec<Duration>,
}

impl Timings {
    fn new(name: &'static str, target_ms: Option<f64>) -> Timings {
        Timings {
            name,
            target_ms,
            samples: Vec::new(),
        }
    }

    fn percentile(sorted: &[Duration], p: f64) -> f64 {
        let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
        sorted[rank.clamp(1, sorted.len()) - 1].as_secs_f64() * 1e3
    }

    fn row(&self) -> String {
        let mut sorted = self.samples.clone();
        sorted.sort();
        let (p50, p99) = (
            Self::percentile(&sorted, 50.0),
            Self::percentile(&sorted, 99.0),
        );
        let max = sorted.last().map_or(0.0, |d| d.as_secs_f64() * 1e3);
        let target = match self.target_ms {
            Some(target) => format!(
                "≤ {target} ms: {}",
                if p99 <= target { "met" } else { "not met" }
            ),
            None => "-".to_string(),
        };
        format!(
            "| {} | {} | {p50:.2} | {p99:.2} | {max:.2} | {target} |",
            self.name,
            sorted.len()
        )
    }
}

/// A tiny deterministic generator for the hovered lines.
struct SplitMix(u64);

impl SplitMix {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n as u64) as usize
    }
}

fn samples(default: usize) -> usize {
    let scale: f64 = std::env::var("RULELENS_BENCH_SAMPLES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1.0);
    ((default as f64 * scale).round() as usize).max(1)
}

fn hover(server: &mut Server, uri: &str, line: u64, character: u64) -> (Duration, String) {
    let started = Instant::now();
    let response = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri },
                "position": { "line": line, "character": character } }),
    );
    let elapsed = started.elapsed();
    let text = response["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("no hover: {response}"))
        .to_string();
    (elapsed, text)
}

/// The edit that makes document version `version` of sms.rules: odd versions have `big `
/// inserted into the pattern of [`PATTERN_LINE`], even ones do not (version 1 is the file).
fn toggle_word(version: i64) -> (Value, &'static str) {
    let at = json!({ "line": PATTERN_LINE, "character": 9 });
    if version % 2 == 0 {
        (json!({ "start": at, "end": at }), "big ")
    } else {
        let end = json!({ "line": PATTERN_LINE, "character": 13 });
        (json!({ "start": at, "end": end }), "")
    }
}

/// The log line that ends a save job: its SoPa's learned patterns measured as suggestions.
/// The background's log line once it has measured the long corpus lines ahead of their
/// hover (`lsp/measure.rs`).
fn is_long_lines_measured(message: &Value) -> bool {
    message["method"] == "window/logMessage"
        && message["params"]["message"]
            .as_str()
            .is_some_and(|text| text.contains("long corpus line"))
}

fn is_learned_measured(message: &Value) -> bool {
    message["method"] == "window/logMessage"
        && message["params"]["message"]
            .as_str()
            .is_some_and(|text| text.contains("learned patterns, measured in"))
}

fn is_progress_end(message: &Value) -> bool {
    message["method"] == "$/progress" && message["params"]["value"]["kind"] == "end"
}

/// The end of the progress whose token starts with `prefix` (`rulelens/train/` for the rule
/// network, `rulelens/patterns/` for the SoPa).
fn is_progress_end_of(prefix: &str) -> impl Fn(&Value) -> bool + '_ {
    move |message: &Value| {
        is_progress_end(message)
            && message["params"]["token"]
                .as_str()
                .is_some_and(|token| token.starts_with(prefix))
    }
}

/// A one-rule edit (`word` inserted into the rule on [`PATTERN_LINE`]) as document
/// `version` of `rules`, its diagnostics awaited, then `before_save`, then `didSave`: the
/// time from `didSave` to the end of the rule network's `$/progress`.
fn edit_and_save(
    server: &mut Server,
    rules: &str,
    version: i64,
    word: &str,
    before_save: impl FnOnce(),
) -> Duration {
    let at = json!({ "line": PATTERN_LINE, "character": 9 });
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": rules, "version": version },
                "contentChanges": [{ "range": { "start": at, "end": at },
                                     "text": format!("{word} ") }] }),
    );
    server.diagnostics(rules, version);
    before_save();
    // What came meanwhile is read, then forgotten: the progress awaited is this save's.
    server.has_seen(|_| false);
    server.clear_seen();
    let started = Instant::now();
    server.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": rules } }),
    );
    let end = server.wait_for(is_progress_end_of("rulelens/train/"));
    let took = started.elapsed();
    eprintln!(
        "save to network: {:.2} s ({})",
        took.as_secs_f64(),
        end["params"]["value"]["message"]
    );
    took
}

fn main() {
    let dir = temp_dir("bench");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms");
    for name in ["sms.rules", "train.tsv", "dev.tsv"] {
        std::fs::copy(example.join(name), dir.join(name)).expect("copy examples/sms");
    }
    let rules_text = std::fs::read_to_string(dir.join("sms.rules")).unwrap();
    let train_text = std::fs::read_to_string(dir.join("train.tsv")).unwrap();
    let dev_text = std::fs::read_to_string(dir.join("dev.tsv")).unwrap();
    let (rules, train, dev) = (
        uri(&dir.join("sms.rules")),
        uri(&dir.join("train.tsv")),
        uri(&dir.join("dev.tsv")),
    );
    let cache = dir.join("cache");

    let mut server = Server::start();
    server.initialize(
        json!({ "window": { "workDoneProgress": true },
                "textDocument": { "synchronization": { "didSave": true } } }),
        json!({ "training": { "enabled": true, "epochs": 3, "patience": 1, "delay": 0,
                              "modelCache": cache } }),
    );
    let opened = Instant::now();
    server.open(&rules, "rules", &rules_text);
    server.open(&train, "tsv", &train_text);
    server.open(&dev, "tsv", &dev_text);
    eprintln!("training the networks the hovers read (3 epochs each)…");
    server.wait_for(is_progress_end_of("rulelens/train/"));
    let rule_network_done = Instant::now();
    let mut rule_network = Timings::new("open to trained FA-RNN (3 epochs)", None);
    rule_network.samples.push(rule_network_done - opened);
    server.wait_for(is_progress_end_of("rulelens/patterns/"));
    let mut learned = Timings::new(
        "then to trained SoPa (3 epochs, learned patterns read back)",
        None,
    );
    learned.samples.push(rule_network_done.elapsed());
    let spam_lines: Vec<u64> = train_text
        .lines()
        .enumerate()
        .filter(|(_, line)| line.starts_with("spam\t"))
        .map(|(i, _)| i as u64)
        .collect();
    let line_count = train_text.lines().count();
    // The progress ends once the network is stored: the first hover shows it.
    let (_, text) = hover(&mut server, &train, spam_lines[0], 8);
    assert!(text.contains("**FA-RNN**"), "no trained network: {text}");
    assert!(text.contains("**SoPa**"), "no trained SoPa: {text}");

    // The long lines of the open corpora, measured in the background after the training
    // (beside the SoPa's), then hovers on lines of 48 to 128 tokens, which a hover's own
    // budget cuts (issue 32, item 3).
    let measured = server.wait_for(is_long_lines_measured);
    let message = measured["params"]["message"].as_str().unwrap_or_default();
    eprintln!("{message}");
    let mut background = Timings::new("long lines measured in the background (one core)", None);
    let seconds = message
        .rsplit(" in ")
        .next()
        .and_then(|s| s.trim_end_matches(" s").parse::<f64>().ok())
        .expect("the time the measuring took");
    background.samples.push(Duration::from_secs_f64(seconds));
    let long_lines: Vec<u64> = train_text
        .lines()
        .enumerate()
        .filter(|(_, line)| {
            let text = line.split_once('\t').map_or("", |(_, text)| text);
            (48..=128).contains(&tokenize(text).len())
        })
        .map(|(i, _)| i as u64)
        .collect();
    let mut long_hover = Timings::new(
        "hover, corpus line of 48 to 128 tokens (measured ahead)",
        Some(10.0),
    );
    let mut random = SplitMix(0);
    for _ in 0..samples(500) {
        let line = long_lines[random.below(long_lines.len())];
        let (took, text) = hover(&mut server, &train, line, 8);
        assert!(
            !text.contains("On a line this long") && !text.contains("too long to measure"),
            "line {line} not measured ahead: {text}"
        );
        long_hover.samples.push(took);
    }
    if std::env::args().any(|arg| arg == "long-lines") {
        // `cargo bench --bench lsp -- long-lines`: up to here alone.
        println!("{} long lines in train.tsv", long_lines.len());
        println!("| what | samples | p50 ms | p99 ms | max ms | target (p99) |");
        println!("|---|---:|---:|---:|---:|---|");
        for timings in [&rule_network, &learned, &background, &long_hover] {
            println!("{}", timings.row());
        }
        assert_eq!(server.stop(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }

    // Save to trained network, as the editor feels it: a one-rule edit saved on its own,
    // under the default `training.delay`, from `didSave` to the end of the rule network's
    // progress (a warm start from the network before, prepared for the editor and in use).
    let mut version = 1;
    let delay = 3.0;
    server.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "training": { "enabled": true, "epochs": 3, "patience": 1,
                                            "delay": delay, "modelCache": cache } } }),
    );
    // The job of the settings' change (the networks in memory) ends before the first edit,
    // or it would train the edited text itself.
    server.wait_for(is_learned_measured);
    let mut save_to_network = Timings::new("save to trained FA-RNN (one-rule edit)", None);
    for sample in 0..samples(5) {
        // A word the rule never had (a text trained before would load from the cache).
        version += 1;
        let took = edit_and_save(
            &mut server,
            &rules,
            version,
            &format!("edit{sample}"),
            || {
                // A save on its own: the last job (the settings', or the last save's) is older
                // than the delay, and its SoPa has finished.
                std::thread::sleep(Duration::from_secs_f64(delay + 0.5))
            },
        );
        save_to_network.samples.push(took);
        // The rest of the save (the SoPa, its learned patterns measured) before the next.
        server.wait_for(is_learned_measured);
    }
    // The same as a client makes them (issue 51, item 6): the default training settings, so
    // that each save's SoPa trains for minutes and is still running at the next save, and a
    // one-rule edit saved every 4 seconds, whatever the previous save is still doing (its
    // SoPa, its suggestions, its long lines measured), the first as the SoPa of the network
    // the settings train starts (a client's first save after opening).
    // (The initialization options' epochs and patience stay unless they are set again.)
    let defaults = TrainingSettings::DEFAULT;
    server.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "training": { "enabled": true, "modelCache": cache,
                                            "epochs": defaults.epochs,
                                            "patience": defaults.patience } } }),
    );
    eprintln!("training the network of the default settings (a minute or two)…");
    server.wait_for_within(
        Duration::from_secs(900),
        is_progress_end_of("rulelens/train/"),
    );
    let mut client_paced = Timings::new(
        "save to trained FA-RNN, default settings, a save every 4 s (the last save's SoPa running)",
        None,
    );
    let mut last_save = Instant::now();
    for sample in 0..samples(5) {
        version += 1;
        let took = edit_and_save(
            &mut server,
            &rules,
            version,
            &format!("paced{sample}"),
            || {
                std::thread::sleep(Duration::from_secs(4).saturating_sub(last_save.elapsed()));
                last_save = Instant::now();
            },
        );
        client_paced.samples.push(took);
    }
    // Back to the file as it was, for what follows, at an odd version (`toggle_word`).
    version += 1 + version % 2;
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": rules, "version": version },
                "contentChanges": [{ "text": rules_text }] }),
    );
    server.diagnostics(&rules, version);
    if std::env::args().any(|arg| arg == "save-to-network") {
        // `cargo bench --bench lsp -- save-to-network`: this measurement alone.
        println!("| what | samples | p50 ms | p99 ms | max ms | target (p99) |");
        println!("|---|---:|---:|---:|---:|---|");
        for timings in [&rule_network, &learned, &save_to_network, &client_paced] {
            println!("{}", timings.row());
        }
        assert_eq!(server.stop(), 0);
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }

    // Hover on corpus lines, then on a pattern, with the network trained and nothing else
    // running.
    let mut line_hover = Timings::new("hover, corpus line (trained FA-RNN and SoPa)", Some(10.0));
    for _ in 0..samples(2000) {
        let line = random.below(line_count) as u64;
        line_hover
            .samples
            .push(hover(&mut server, &train, line, 8).0);
    }
    let mut pattern_hover = Timings::new("hover, pattern", Some(10.0));
    for _ in 0..samples(500) {
        pattern_hover
            .samples
            .push(hover(&mut server, &rules, PATTERN_LINE, 12).0);
    }

    // Change to diagnostics: insert a word into the pattern, then take it out again.
    let mut change = Timings::new("change to diagnostics (sms.rules)", Some(50.0));
    for _ in 0..samples(400) {
        version += 1;
        let (range, text) = toggle_word(version);
        let started = Instant::now();
        server.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": rules, "version": version },
                    "contentChanges": [{ "range": range, "text": text }] }),
        );
        server.diagnostics(&rules, version);
        change.samples.push(started.elapsed());
    }

    // Save to corpus diagnostics, with training off.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "training": { "enabled": false } } }),
    );
    let mut save_edited = Timings::new("save to corpus diagnostics, after an edit", Some(250.0));
    let mut save_unchanged =
        Timings::new("save to corpus diagnostics, nothing changed", Some(250.0));
    for i in 0..samples(60) {
        // Every other save follows an edit of a pattern (so the rules differ from the last
        // save's and the network's); the others save the same text again.
        let edited = i % 2 == 0;
        if edited {
            version += 1;
            let (range, text) = toggle_word(version);
            server.notify(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": rules, "version": version },
                        "contentChanges": [{ "range": range, "text": text }] }),
            );
            server.diagnostics(&rules, version);
        }
        // Let the last round finish (a save publishes twice: after the analysis, and after
        // the network's findings), and forget what it sent.
        std::thread::sleep(Duration::from_millis(300));
        server.has_seen(|_| false);
        server.clear_seen();
        let started = Instant::now();
        server.notify(
            "textDocument/didSave",
            json!({ "textDocument": { "uri": rules } }),
        );
        for corpus in [&train, &dev] {
            server.wait_for(|m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == *corpus
            });
        }
        let timings = if edited {
            &mut save_edited
        } else {
            &mut save_unchanged
        };
        timings.samples.push(started.elapsed());
    }

    // Hover while a network trains: a new comment changes the rules' hash, so the save
    // trains from scratch in the background.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "training": { "enabled": true, "epochs": 3, "patience": 3,
                                            "modelCache": cache } } }),
    );
    version += 1;
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": rules, "version": version },
                "contentChanges": [{ "range": { "start": { "line": 0, "character": 0 },
                                                "end": { "line": 0, "character": 0 } },
                                     "text": "# retrain\n" }] }),
    );
    server.diagnostics(&rules, version);
    server.clear_seen();
    server.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": rules } }),
    );
    let mut training_hover = Timings::new("hover, corpus line, while training", Some(10.0));
    while !server.has_seen(is_progress_end) && training_hover.samples.len() < samples(5000) {
        let line = random.below(line_count) as u64;
        training_hover
            .samples
            .push(hover(&mut server, &train, line, 8).0);
    }

    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
    let (many_patterns, many_patterns_peak) = many_patterns();
    let (million_lines, million_lines_peak) = million_lines(&train_text, &dev_text);
    println!("| what | samples | p50 ms | p99 ms | max ms | target (p99) |");
    println!("|---|---:|---:|---:|---:|---|");
    for timings in [
        &rule_network,
        &learned,
        &save_to_network,
        &client_paced,
        &background,
        &long_hover,
        &line_hover,
        &pattern_hover,
        &training_hover,
        &change,
        &save_edited,
        &save_unchanged,
    ]
    .into_iter()
    .chain(&many_patterns)
    .chain(&million_lines)
    {
        println!("{}", timings.row());
    }
    println!();
    println!(
        "server peak RSS: 10,000 patterns {many_patterns_peak:.0} MiB; 1,000,000 corpus lines {million_lines_peak:.0} MiB"
    );
}

/// Number of rules of the many-patterns file.
const MANY_PATTERNS: usize = 10_000;

/// A rules file of [`MANY_PATTERNS`] rules `spam: $* wordI $*` (no corpora): hover on a
/// pattern, and an edit of one rule until its diagnostics. Also the server's peak memory.
fn many_patterns() -> (Vec<Timings>, f64) {
    let dir = temp_dir("bench-patterns");
    let path = dir.join("many.rules");
    let mut text = String::from("default ham\n");
    for i in 0..MANY_PATTERNS {
        text.push_str(&format!("spam: $* word{i} $*\n"));
    }
    std::fs::write(&path, &text).unwrap();
    let rules = uri(&path);
    let mut server = Server::start();
    server.initialize(
        json!({ "textDocument": { "synchronization": { "didSave": true } } }),
        json!({ "training": { "enabled": false } }),
    );
    server.open(&rules, "rules", &text);
    server.diagnostics(&rules, 1);
    let mut random = SplitMix(1);
    let mut hovers = Timings::new("hover, pattern (10,000 patterns)", Some(50.0));
    for _ in 0..samples(300) {
        let line = 1 + random.below(MANY_PATTERNS) as u64;
        hovers.samples.push(hover(&mut server, &rules, line, 12).0);
    }
    let mut change = Timings::new("change to diagnostics (10,000 patterns)", None);
    for version in 2..2 + samples(60) as i64 {
        // Rule 5,000's word gets one more letter, then loses it.
        let at = json!({ "line": 5000, "character": 12 });
        let (range, insert) = if version % 2 == 0 {
            (json!({ "start": at, "end": at }), "x")
        } else {
            (
                json!({ "start": at, "end": { "line": 5000, "character": 13 } }),
                "",
            )
        };
        let started = Instant::now();
        server.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": rules, "version": version },
                    "contentChanges": [{ "range": range, "text": insert }] }),
        );
        server.diagnostics(&rules, version);
        change.samples.push(started.elapsed());
    }
    let peak = server.peak_rss_mib().unwrap_or(f64::NAN);
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
    (vec![hovers, change], peak)
}

/// examples/sms with a train corpus of 1,000,000 lines (its lines over and over): the
/// save until both corpora have their diagnostics, and hover on a corpus line.
fn million_lines(train_text: &str, dev_text: &str) -> (Vec<Timings>, f64) {
    let dir = temp_dir("bench-lines");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms");
    std::fs::copy(example.join("sms.rules"), dir.join("sms.rules")).unwrap();
    let mut big = String::new();
    for line in train_text.lines().cycle().take(1_000_000) {
        big.push_str(line);
        big.push('\n');
    }
    std::fs::write(dir.join("train.tsv"), &big).unwrap();
    std::fs::write(dir.join("dev.tsv"), dev_text).unwrap();
    let rules_text = std::fs::read_to_string(dir.join("sms.rules")).unwrap();
    let (rules, train, dev) = (
        uri(&dir.join("sms.rules")),
        uri(&dir.join("train.tsv")),
        uri(&dir.join("dev.tsv")),
    );
    let mut server = Server::start();
    server.initialize(
        json!({ "textDocument": { "synchronization": { "didSave": true } } }),
        json!({ "training": { "enabled": false } }),
    );
    server.open(&rules, "rules", &rules_text);
    server.open(&train, "tsv", &big);
    server.open(&dev, "tsv", dev_text);
    let mut save = Timings::new("save to corpus diagnostics (1,000,000 lines)", None);
    for _ in 0..samples(5) {
        std::thread::sleep(Duration::from_millis(500));
        server.has_seen(|_| false);
        server.clear_seen();
        let started = Instant::now();
        server.notify(
            "textDocument/didSave",
            json!({ "textDocument": { "uri": rules } }),
        );
        for corpus in [&train, &dev] {
            server.wait_for(|m| {
                m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == *corpus
            });
        }
        save.samples.push(started.elapsed());
    }
    let mut random = SplitMix(2);
    let mut hovers = Timings::new("hover, corpus line (1,000,000 lines)", Some(50.0));
    for _ in 0..samples(300) {
        let line = random.below(1_000_000) as u64;
        hovers.samples.push(hover(&mut server, &train, line, 8).0);
    }
    let peak = server.peak_rss_mib().unwrap_or(f64::NAN);
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
    (vec![save, hovers], peak)
}

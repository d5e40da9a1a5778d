//! The server's save jobs, through `rulelens serve` over pipes: what it logs, a model cache
//! that cannot be written, many rules files saved at once, and the SoPa that learns patterns
//! after the rule network. The networks are the tiny spam filter of tests/data/train,
//! trained for a few epochs with the bundled vectors.

#[path = "common/lsp_client.rs"]
mod lsp_client;

use lsp_client::{DEADLINE, Server, temp_dir, uri};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The text of each `window/logMessage` seen so far, after waiting until `done` holds of
/// them (or failing after the client's deadline).
fn logs_until(server: &mut Server, done: impl Fn(&[String]) -> bool) -> Vec<String> {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let logs: Vec<String> = server
            .seen_after(Duration::from_millis(200))
            .iter()
            .filter(|m| m["method"] == "window/logMessage")
            .map(|m| {
                m["params"]["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string()
            })
            .collect();
        if done(&logs) {
            return logs;
        }
        assert!(
            Instant::now() < deadline,
            "gave up waiting; the log: {logs:#?}"
        );
    }
}

fn count(logs: &[String], needle: &str) -> usize {
    logs.iter().filter(|l| l.contains(needle)).count()
}

/// The tiny spam filter and its corpora in `dir`, the rules as `names`.
fn project(dir: &Path, names: &[String]) -> (String, Vec<PathBuf>) {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/train");
    let rules = std::fs::read_to_string(data.join("tiny.rules")).unwrap();
    for corpus in ["train.tsv", "dev.tsv"] {
        std::fs::copy(data.join(corpus), dir.join(corpus)).unwrap();
    }
    let paths = names
        .iter()
        .map(|name| {
            let path = dir.join(name);
            std::fs::write(&path, &rules).unwrap();
            path
        })
        .collect();
    (rules, paths)
}

fn save(server: &mut Server, uri: &str) {
    server.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": uri } }),
    );
}

fn training(cache: &Path, delay: f64) -> Value {
    json!({ "training": { "epochs": 3, "delay": delay, "modelCache": cache } })
}

#[test]
fn a_model_cache_that_cannot_be_written_keeps_the_network_and_later_saves_do_not_retrain() {
    let dir = temp_dir("unwritable-cache");
    // A file where the cache folder should be.
    let cache = dir.join("cache");
    std::fs::write(&cache, "not a folder").unwrap();
    let (rules, paths) = project(&dir, &["tiny.rules".to_string()]);
    let rules_uri = uri(&paths[0]);
    let train_uri = uri(&dir.join("train.tsv"));
    let train = std::fs::read_to_string(dir.join("train.tsv")).unwrap();
    let mut server = Server::start();
    server.initialize(
        json!({ "window": { "workDoneProgress": true } }),
        training(&cache, 0.0),
    );
    server.open(&rules_uri, "rules", &rules);
    server.open(&train_uri, "tsv", &train);
    save(&mut server, &rules_uri);

    // The training's progress ends once the network is in use: a hover right after shows it.
    server.wait_for(|m| m["method"] == "$/progress" && m["params"]["value"]["kind"] == "end");
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": train_uri }, "position": { "line": 0, "character": 6 } }),
    );
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("FA-RNN"), "{hover}");

    // The log says what the save read, what it trained, how long it took, and why the
    // checkpoint is not cached.
    // Both networks, the rule network and the SoPa that learns patterns, are kept.
    let logs = logs_until(&mut server, |logs| {
        count(logs, "trained in") == 2 && count(logs, "could not be cached") == 2
    });
    // Opening the bound corpus analyzed once more, before the save.
    let analyses = count(&logs, "analyzed in");
    assert!(analyses >= 1, "{logs:#?}");
    let analyzed = logs.iter().rfind(|l| l.contains("analyzed in")).unwrap();
    assert!(
        analyzed.contains("train ") && analyzed.contains("(90 lines, open buffer)"),
        "{analyzed}"
    );
    assert!(
        analyzed.contains("dev ") && analyzed.contains("(30 lines, disk)"),
        "{analyzed}"
    );
    assert_eq!(count(&logs, "training FA-RNN (β 0.7"), 1, "{logs:#?}");
    assert_eq!(count(&logs, "corrupt checkpoint"), 0, "{logs:#?}");

    // Saving the same text again analyzes again and reuses the network in memory.
    save(&mut server, &rules_uri);
    logs_until(&mut server, |logs| {
        count(logs, "analyzed in") == analyses + 1
    });
    std::thread::sleep(Duration::from_secs(2));
    let logs = logs_until(&mut server, |_| true);
    assert_eq!(count(&logs, "training FA-RNN"), 1, "{logs:#?}");
    assert_eq!(count(&logs, "training SoPa"), 1, "{logs:#?}");
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn twenty_identical_rules_files_saved_at_once_are_analyzed_at_once_and_train_one_network() {
    let dir = temp_dir("twenty");
    let cache = dir.join("cache");
    let names: Vec<String> = (0..20).map(|i| format!("copy{i:02}.rules")).collect();
    let (rules, paths) = project(&dir, &names);
    let uris: Vec<String> = paths.iter().map(|p| uri(p)).collect();
    let mut server = Server::start();
    // One second's delay before training: every save's analysis (milliseconds each) has
    // long finished by then, unless analyses queue behind training.
    server.initialize(json!({}), training(&cache, 1.0));
    for uri in &uris {
        server.open(uri, "rules", &rules);
    }
    for uri in &uris {
        save(&mut server, uri);
    }
    let logs = logs_until(&mut server, |logs| count(logs, "trained in") == 2);
    // Every file's analysis came before the one training ended (a file opened early may
    // be analyzed for its opening too, when that job ends before the save cancels it).
    for name in &names {
        assert!(
            count(&logs, &format!("{name}: 1 patterns, 0 errors")) >= 1,
            "{logs:#?}"
        );
    }
    // The other nineteen take the one network from the registry: nothing else trains, and
    // nothing is loaded back from the cache.
    std::thread::sleep(Duration::from_secs(2));
    let logs = logs_until(&mut server, |_| true);
    assert_eq!(count(&logs, "training FA-RNN"), 1, "{logs:#?}");
    assert_eq!(count(&logs, "training SoPa"), 1, "{logs:#?}");
    assert_eq!(count(&logs, "loaded the trained"), 0, "{logs:#?}");
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `$/progress` end of a training whose token starts with `prefix`.
fn progress_end(prefix: &str) -> impl Fn(&Value) -> bool + '_ {
    move |m: &Value| {
        m["method"] == "$/progress"
            && m["params"]["value"]["kind"] == "end"
            && m["params"]["token"]
                .as_str()
                .is_some_and(|token| token.starts_with(prefix))
    }
}

#[test]
fn a_save_trains_a_sopa_after_the_rule_network_and_its_view_joins_the_line_hover() {
    let dir = temp_dir("learned-patterns");
    let cache = dir.join("cache");
    let (rules, paths) = project(&dir, &["tiny.rules".to_string()]);
    let rules_uri = uri(&paths[0]);
    let train_uri = uri(&dir.join("train.tsv"));
    let train = std::fs::read_to_string(dir.join("train.tsv")).unwrap();
    let mut server = Server::start();
    server.initialize(
        json!({ "window": { "workDoneProgress": true } }),
        training(&cache, 0.0),
    );
    server.open(&rules_uri, "rules", &rules);
    server.open(&train_uri, "tsv", &train);
    save(&mut server, &rules_uri);
    server.wait_for(progress_end("rulelens/train/"));
    server.wait_for(progress_end("rulelens/patterns/"));
    // The first line, `claim at free prize cash`: the rule `$* ( win | free ) $*` fires on
    // it, so the SoPa's view lists the rule with its best span, after the n-gram regression
    // beside the SoPa (the defaults have one), which on this tiny corpus carries the line:
    // leaving the rule out changes the probability by less than the hover lists.
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": train_uri }, "position": { "line": 0, "character": 6 } }),
    );
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("**FA-RNN** **spam**"), "{value}");
    let sopa = value
        .split_once("**SoPa** **spam** ✓")
        .map(|(_, view)| view)
        .unwrap_or_else(|| panic!("{value}"));
    assert!(sopa.contains("an n-gram regression adds"), "{value}");
    assert!(
        sopa.contains("Patterns (leave-one-out: what the network's P(spam) loses without each):")
            || sopa.contains("_Leaving out any one pattern changes P(spam) by less than 0.005._"),
        "{value}"
    );
    assert!(sopa.contains("- the `spam` rule of line 6 "), "{value}");
    assert!(
        value.contains("(score 1.00): claim at **free** prize cash"),
        "{value}"
    );
    // Its learned patterns are measured as suggestions, and both networks are cached.
    let logs = logs_until(&mut server, |logs| {
        count(logs, "from 40 learned patterns") == 1
    });
    assert_eq!(count(&logs, "checkpoint written"), 2, "{logs:#?}");
    assert_eq!(server.stop(), 0);

    // Another server, learnPatterns off: the rule network comes from the cache and no SoPa
    // is trained.
    let mut server = Server::start();
    let mut options = training(&cache, 0.0);
    options["training"]["learnPatterns"] = json!(false);
    server.initialize(json!({}), options);
    server.open(&rules_uri, "rules", &rules);
    save(&mut server, &rules_uri);
    let logs = logs_until(&mut server, |logs| {
        count(logs, "loaded the trained rule network") == 1
    });
    std::thread::sleep(Duration::from_secs(1));
    let logs = [logs, logs_until(&mut server, |_| true)].concat();
    assert_eq!(count(&logs, "SoPa"), 0, "{logs:#?}");
    assert_eq!(count(&logs, "learned patterns"), 0, "{logs:#?}");
    assert_eq!(server.stop(), 0);

    // A third, with `training.model` "sopa": the SoPa (the same settings, so the same
    // checkpoint) is the only network, and the line's hover shows its view alone.
    let mut server = Server::start();
    let mut options = training(&cache, 0.0);
    options["training"]["model"] = json!("sopa");
    server.initialize(json!({}), options);
    server.open(&rules_uri, "rules", &rules);
    server.open(&train_uri, "tsv", &train);
    save(&mut server, &rules_uri);
    // Measuring its learned patterns comes after it is stored.
    let logs = logs_until(&mut server, |logs| {
        count(logs, "loaded the trained learned patterns") == 1
            && count(logs, "from 40 learned patterns") == 1
    });
    assert_eq!(count(&logs, "rule network"), 0, "{logs:#?}");
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": train_uri }, "position": { "line": 0, "character": 6 } }),
    );
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("**SoPa** **spam** ✓"), "{value}");
    assert!(
        !value.contains("FA-RNN") && !value.contains("No trained"),
        "{value}"
    );
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn with_the_model_mvma_g_a_save_trains_it_and_the_line_hover_shows_its_exact_ngram_parts() {
    let dir = temp_dir("mvma");
    let cache = dir.join("cache");
    let (rules, paths) = project(&dir, &["tiny.rules".to_string()]);
    let rules_uri = uri(&paths[0]);
    let train_uri = uri(&dir.join("train.tsv"));
    let train = std::fs::read_to_string(dir.join("train.tsv")).unwrap();
    let options = || {
        let mut options = training(&cache, 0.0);
        options["training"]["model"] = json!("mvma-g");
        options["training"]["learnPatterns"] = json!(false);
        options
    };
    let mut server = Server::start();
    server.initialize(json!({ "window": { "workDoneProgress": true } }), options());
    server.open(&rules_uri, "rules", &rules);
    server.open(&train_uri, "tsv", &train);
    save(&mut server, &rules_uri);
    assert_eq!(
        server.progress_title("rulelens/train/"),
        "Full training of MVMA-G (black box)"
    );
    server.wait_for(progress_end("rulelens/train/"));
    // The first line, `claim at free prize cash`: the MVMA-G's verdict, and the logit of its
    // prediction (and of the gold label, spam, when it predicts ham) as the sum of the five
    // suffix n-grams' parts, the strongest listed.
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": train_uri }, "position": { "line": 0, "character": 6 } }),
    );
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("**MVMA-G** **"), "{value}");
    let logits = value.matches("The logit of ").count();
    let gold_shown = usize::from(value.contains("The logit of spam (gold)"));
    assert_eq!(logits, 1 + gold_shown, "{value}");
    assert_eq!(
        value
            .matches(
                " is the sum of 5 parts, one per suffix n-gram (`wᵀ v_{i:N}`: from word i to \
                 the end), exactly; the strongest:"
            )
            .count(),
        logits,
        "{value}"
    );
    assert_eq!(
        value.matches("\n- from word ").count(),
        3 * logits,
        "{value}"
    );
    assert_eq!(
        value.matches("\n- 2 other parts ").count(),
        logits,
        "{value}"
    );
    // Each sum of parts is its logit, as the network computes it.
    let sums: Vec<(f64, f64)> = value
        .split("The parts sum to ")
        .skip(1)
        .map(|rest| {
            let (sum, rest) = rest.split_once("; the logit is ").expect("a logit");
            let logit = rest.split_once(".\n").map_or(rest, |(logit, _)| logit);
            (sum.parse().unwrap(), logit.parse().unwrap())
        })
        .collect();
    assert_eq!(sums.len(), logits, "{value}");
    for (sum, logit) in sums {
        assert!((sum - logit).abs() <= 1e-4, "{value}");
    }
    assert!(
        !value.contains("FA-RNN") && !value.contains("No trained"),
        "{value}"
    );
    let logs = logs_until(&mut server, |logs| count(logs, "checkpoint written") == 1);
    assert_eq!(count(&logs, "training MVMA-G (dropout 0.5"), 1, "{logs:#?}");
    assert_eq!(count(&logs, "rule network"), 0, "{logs:#?}");
    assert_eq!(count(&logs, "SoPa"), 0, "{logs:#?}");
    assert_eq!(server.stop(), 0);

    // Another server: the MVMA-G comes from the cache, and nothing trains.
    let mut server = Server::start();
    server.initialize(json!({}), options());
    server.open(&rules_uri, "rules", &rules);
    save(&mut server, &rules_uri);
    let logs = logs_until(&mut server, |logs| {
        count(logs, "loaded the trained black box") == 1
    });
    std::thread::sleep(Duration::from_secs(1));
    let logs = [logs, logs_until(&mut server, |_| true)].concat();
    assert_eq!(count(&logs, "training "), 0, "{logs:#?}");
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Replaces the rules document's text with `text` as `version`, and saves it.
fn edit_and_save(server: &mut Server, uri: &str, text: &str, version: i64) {
    server.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "text": text }] }),
    );
    save(server, uri);
}

#[test]
fn an_edit_warm_starts_from_the_previous_network_unless_the_settings_changed_and_a_newer_save_cancels_it()
 {
    // SMS, so that a warm start lasts long enough to be overtaken; one epoch keeps the
    // first, full training short.
    let dir = temp_dir("warm-start");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms");
    for file in ["sms.rules", "train.tsv", "dev.tsv"] {
        std::fs::copy(example.join(file), dir.join(file)).unwrap();
    }
    let rules = std::fs::read_to_string(dir.join("sms.rules")).unwrap();
    let rules_uri = uri(&dir.join("sms.rules"));
    let cache = dir.join("cache");
    let mut server = Server::start();
    server.initialize(
        json!({ "window": { "workDoneProgress": true } }),
        json!({ "training": { "epochs": 1, "delay": 0, "learnPatterns": false,
                              "modelCache": cache },
                "suggest": { "enabled": false } }),
    );
    server.open(&rules_uri, "rules", &rules);
    assert_eq!(
        server.progress_title("rulelens/train/"),
        "Full training of FA-RNN (rule network)"
    );
    server.wait_for(progress_end("rulelens/train/"));

    // One word added to one rule: the other 72 patterns keep their parameters.
    let edited = rules.replace(
        "( call | ringtone ) $* free",
        "( call | ringtone | txt ) $* free",
    );
    edit_and_save(&mut server, &rules_uri, &edited, 2);
    assert_eq!(
        server.progress_title("rulelens/train/"),
        "Warm start of FA-RNN (rule network)"
    );
    // A newer save while it trains cancels it; the newer one starts from the same network,
    // the one the project holds, so it has both edits to make.
    let newer = edited.replace("( alert | urgent )", "( alert | urgent | important )");
    edit_and_save(&mut server, &rules_uri, &newer, 3);
    let cancelled = server.wait_for(progress_end("rulelens/train/"));
    assert!(
        cancelled["params"]["value"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("cancelled by a newer save")),
        "{cancelled}"
    );
    assert_eq!(
        server.progress_title("rulelens/train/"),
        "Warm start of FA-RNN (rule network)"
    );
    let done = server.wait_for(progress_end("rulelens/train/"));
    assert!(
        done["params"]["value"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("dev accuracy")),
        "{done}"
    );
    let logs = logs_until(&mut server, |logs| {
        count(
            logs,
            "warm start: 72 of 73 patterns keep their trained parameters (1 new or changed, 1 gone)",
        ) == 1
            && count(
                logs,
                "warm start: 71 of 73 patterns keep their trained parameters (2 new or changed, 2 gone)",
            ) == 1
            // Log lines are sent each from its own task: wait for this one too.
            && count(logs, "(warm start ") >= 1
    });
    assert_eq!(count(&logs, "(warm start "), 1, "{logs:#?}");
    // The cached checkpoint says what it started from.
    let manifests: Vec<Value> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|entry| {
            let text = std::fs::read_to_string(entry.unwrap().path().join("manifest.json"));
            serde_json::from_str(&text.unwrap()).unwrap()
        })
        .collect();
    let warm: Vec<&Value> = manifests
        .iter()
        .filter(|m| !m["warm_start"].is_null())
        .collect();
    assert_eq!((manifests.len(), warm.len()), (2, 1), "{manifests:#?}");
    assert_eq!(warm[0]["warm_start"]["kept_patterns"], 71);
    assert_eq!(warm[0]["warm_start"]["changed_patterns"], 2);
    let full = manifests
        .iter()
        .find(|m| m["warm_start"].is_null())
        .unwrap();
    assert_eq!(
        warm[0]["warm_start"]["from_weights_sha256"],
        full["weights_sha256"]
    );

    // Other settings: the next save trains from scratch, and says why.
    server.notify(
        "workspace/didChangeConfiguration",
        json!({ "settings": { "training": { "beta": 0.6 } } }),
    );
    let last = newer.replace("ham: $* mine $*", "ham: $* ( mine | yours ) $*");
    edit_and_save(&mut server, &rules_uri, &last, 4);
    assert_eq!(
        server.progress_title("rulelens/train/"),
        "Full training of FA-RNN (rule network)"
    );
    server.wait_for(progress_end("rulelens/train/"));
    logs_until(&mut server, |logs| {
        count(
            logs,
            "training from scratch, not from the previous network: the training settings changed",
        ) == 1
    });
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The title of the lens on the rules' `default` line, once the save's analysis is in.
fn yardstick_title(server: &mut Server, rules_uri: &str) -> String {
    let deadline = Instant::now() + DEADLINE;
    loop {
        let lenses = server.request(
            "textDocument/codeLens",
            json!({ "textDocument": { "uri": rules_uri } }),
        );
        let title = lenses["result"].as_array().and_then(|lenses| {
            lenses
                .iter()
                .filter_map(|lens| lens["command"]["title"].as_str())
                .find(|title| title.starts_with("dev: rules "))
        });
        if let Some(title) = title {
            return title.to_string();
        }
        assert!(Instant::now() < deadline, "no yardstick lens in {lenses}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_default_line_shows_the_rules_against_their_networks_and_a_yardstick_trained_or_read_from_the_bench_cache()
 {
    let dir = temp_dir("yardstick");
    let cache = dir.join("cache");
    let bench_cache = dir.join("bench");
    let (rules, paths) = project(&dir, &["tiny.rules".to_string()]);
    let rules_uri = uri(&paths[0]);
    let options = |train: bool, bench: &Path| {
        let mut options = training(&cache, 0.0);
        options["yardstick"] = json!({ "train": train, "model": "mvma-g", "cache": bench });
        options
    };
    // Training on: the black box trains beside the networks, and its figure joins the lens.
    let mut server = Server::start();
    server.initialize(
        json!({ "window": { "workDoneProgress": true } }),
        options(true, &bench_cache),
    );
    server.open(&rules_uri, "rules", &rules);
    save(&mut server, &rules_uri);
    server.wait_for(progress_end("rulelens/train/"));
    server.wait_for(progress_end("rulelens/patterns/"));
    server.wait_for(progress_end("rulelens/yardstick/"));
    let title = yardstick_title(&mut server, &rules_uri);
    // The rules' figure is `check`'s: 23 of the 30 dev lines.
    assert!(title.starts_with("dev: rules 76.7% · FA-RNN "), "{title}");
    assert!(title.contains(" · SoPa "), "{title}");
    let files: Vec<PathBuf> = std::fs::read_dir(&bench_cache)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let result: Value = serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    assert_eq!(result["model"], "mvma-g");
    let figure = format!(
        "black box (MVMA-G) {:.1}%",
        100.0 * result["dev_accuracy"].as_f64().unwrap()
    );
    assert!(title.ends_with(&figure), "{title} against {result}");
    let logs = logs_until(&mut server, |logs| {
        count(logs, "yardstick MVMA-G trained") == 1
    });
    assert_eq!(count(&logs, "training the yardstick"), 1, "{logs:#?}");
    // An edit of a rule keeps the labels: the yardstick stays, and trains no more.
    let edited = rules.replace("( win | free )", "( win | free | prize )");
    edit_and_save(&mut server, &rules_uri, &edited, 2);
    server.wait_for(progress_end("rulelens/train/"));
    std::thread::sleep(Duration::from_secs(1));
    assert!(yardstick_title(&mut server, &rules_uri).ends_with(&figure));
    let logs = logs_until(&mut server, |_| true);
    assert_eq!(count(&logs, "training the yardstick"), 1, "{logs:#?}");
    assert_eq!(server.stop(), 0);

    // `rulelens bench` with the same settings reads the server's result from the cache.
    let bench = std::process::Command::new(env!("CARGO_BIN_EXE_rulelens"))
        .args([
            "bench",
            paths[0].to_str().unwrap(),
            "--models",
            "mvma-g",
            "--fractions",
            "1",
        ])
        .args([
            "--seeds", "1", "--epochs", "3", "--format", "json", "--cache",
        ])
        .arg(&bench_cache)
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&bench.stderr).contains("(cached)"),
        "{bench:?}"
    );
    let report: Value = serde_json::from_slice(&bench.stdout).unwrap();
    assert_eq!(report["runs"][0]["dev_accuracy"], result["dev_accuracy"]);

    // Training off: the figure comes from the bench cache; with an empty cache, none.
    for (bench, shown) in [
        (&bench_cache, figure.as_str()),
        (&dir.join("empty"), "black box (MVMA-G) not measured"),
    ] {
        let mut server = Server::start();
        server.initialize(json!({}), options(false, bench));
        server.open(&rules_uri, "rules", &rules);
        save(&mut server, &rules_uri);
        let deadline = Instant::now() + DEADLINE;
        loop {
            let title = yardstick_title(&mut server, &rules_uri);
            if title.ends_with(shown) {
                break;
            }
            assert!(Instant::now() < deadline, "{title}");
            std::thread::sleep(Duration::from_millis(200));
        }
        let logs = logs_until(&mut server, |_| true);
        assert_eq!(count(&logs, "training the yardstick"), 0, "{logs:#?}");
        assert_eq!(server.stop(), 0);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Corpora without a single gold label: a save trains the rule network from the rules'
/// label model, and the rule's hover shows the label model's estimate of its precision.
#[test]
fn a_save_trains_from_unlabeled_corpora_and_the_rule_hover_shows_estimates() {
    let dir = temp_dir("unlabeled");
    let (rules, paths) = project(&dir, &["tiny.rules".to_string()]);
    for corpus in ["train.tsv", "dev.tsv"] {
        let text = std::fs::read_to_string(dir.join(corpus)).unwrap();
        let cut: String = text
            .lines()
            .map(|line| format!("{}\n", line.split_once('\t').map_or(line, |(_, t)| t)))
            .collect();
        std::fs::write(dir.join(corpus), cut).unwrap();
    }
    let rules_uri = uri(&paths[0]);
    let mut server = Server::start();
    let mut options = training(&dir.join("cache"), 0.0);
    options["training"]["learnPatterns"] = json!(false);
    // A yardstick is measured on dev's gold lines: without one it is not trained.
    options["yardstick"] = json!({ "train": true, "model": "mvma-g", "cache": dir.join("bench") });
    server.initialize(json!({ "window": { "workDoneProgress": true } }), options);
    server.open(&rules_uri, "rules", &rules);
    save(&mut server, &rules_uri);
    let logs = logs_until(&mut server, |logs| count(logs, "trained in") == 1);
    std::thread::sleep(Duration::from_secs(1));
    let later = logs_until(&mut server, |_| true);
    assert_eq!(count(&logs, "training the yardstick"), 0, "{logs:#?}");
    assert_eq!(count(&later, "training the yardstick"), 0, "{later:#?}");
    assert_eq!(count(&logs, "training failed"), 0, "{logs:#?}");
    // With no gold label in dev, what training measured there is agreement with the label
    // model, and the log says so rather than calling it accuracy.
    let trained = logs.iter().find(|l| l.contains("trained in")).unwrap();
    assert!(
        trained.contains("dev agreement with the label model"),
        "{trained}"
    );
    assert_eq!(count(&logs, "dev accuracy"), 0, "{logs:#?}");
    let line = rules.lines().position(|l| l.starts_with("spam:")).unwrap();
    let hover = server.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": rules_uri }, "position": { "line": line, "character": 12 } }),
    );
    let value = hover["result"]["contents"]["value"]
        .as_str()
        .unwrap_or_default();
    assert!(value.contains("est. precision"), "{hover}");
    assert!(
        value.contains("on train's 90 lines without a gold label"),
        "{hover}"
    );
    assert_eq!(server.stop(), 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

//! End-to-end tests of the `rulelens` binary on `examples/`: exit codes, JSON keys and the
//! figures that `examples/README.md` documents for the bundled rule systems.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn rulelens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rulelens"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("the binary runs")
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

/// `rulelens predict ARGS` with `lines` on standard input: one JSON object per line.
fn predict_stdin(args: &[&str], lines: &[&str]) -> Vec<Value> {
    stdin_json_lines("predict", args, lines)
}

/// `rulelens COMMAND ARGS` with `lines` on standard input: one JSON object per line.
fn stdin_json_lines(command: &str, args: &[&str], lines: &[&str]) -> Vec<Value> {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rulelens"))
        .arg(command)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(lines.join("\n").as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

fn percent(value: &Value) -> f64 {
    (value.as_f64().expect("a number") * 10000.0).round() / 100.0
}

#[test]
fn check_sms_json_reproduces_the_documented_figures() {
    let output = rulelens(&["check", "examples/sms/sms.rules", "--format", "json"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = json(&output);
    for key in [
        "accuracy",
        "coverage",
        "labels",
        "confusion",
        "patterns",
        "diagnostics",
        "corpora",
    ] {
        assert!(report.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(report["corpus"], "train");
    assert_eq!(percent(&report["accuracy"]), 91.87);
    assert_eq!(percent(&report["coverage"]), 41.18);
    let dev = &report["corpora"][1];
    assert_eq!(dev["corpus"], "dev");
    assert_eq!(percent(&dev["accuracy"]), 91.80);
    assert_eq!(percent(&dev["coverage"]), 41.40);
    assert_eq!(percent(&dev["default_accuracy"]), 87.20);
    let pattern = &report["patterns"][0];
    for key in [
        "name",
        "label",
        "line",
        "matches",
        "coverage",
        "precision",
        "recall",
        "overlaps",
        "conflicts",
    ] {
        assert!(pattern.get(key).is_some(), "pattern lacks {key}");
    }
    assert_eq!(pattern["name"], "ham@15");
    assert_eq!(pattern["line"], 15);
    assert_eq!(report["patterns"].as_array().unwrap().len(), 73);
    let confusion = &report["confusion"];
    let total: u64 = ["ham", "spam"]
        .iter()
        .flat_map(|gold| ["ham", "spam"].map(|p| confusion[gold][p].as_u64().unwrap_or(0)))
        .sum();
    assert_eq!(total, 4502);
}

/// `check` on the SMS corpora with their labels cut off: the label model's estimates stand
/// where the gold figures cannot, in JSON and in the text report; a corpus with every line
/// labeled has none.
#[test]
fn check_on_unlabeled_lines_shows_the_label_models_estimates() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-unlabeled-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for split in ["train", "dev"] {
        let text = std::fs::read_to_string(format!("examples/sms/{split}.tsv")).unwrap();
        let cut: String = text
            .lines()
            .map(|line| format!("{}\n", line.split_once('\t').map_or(line, |(_, text)| text)))
            .collect();
        std::fs::write(dir.join(format!("{split}.tsv")), cut).unwrap();
    }
    let rules = dir.join("sms.rules");
    std::fs::copy("examples/sms/sms.rules", &rules).unwrap();
    let rules = rules.to_str().unwrap();
    let output = rulelens(&["check", rules, "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    let train = &report["corpora"][0];
    assert_eq!(
        (train["labeled"].as_u64(), train["unlabeled"].as_u64()),
        (Some(0), Some(4502))
    );
    assert!(train["accuracy"].is_null());
    // The rule system's true accuracy on train is 91.87 %.
    let estimated = train["estimated_accuracy"].as_f64().unwrap();
    assert!((estimated - 0.9187).abs() < 0.02, "{estimated}");
    let balance = &train["estimated_class_balance"];
    let spam = balance["spam"].as_f64().unwrap();
    assert!((spam + balance["ham"].as_f64().unwrap() - 1.0).abs() < 1e-9);
    let rule = &train["rule_figures"][0];
    assert_eq!(rule["name"], "ham@15");
    assert_eq!(rule["fired"], rule["fired_unlabeled"]);
    assert!(rule["precision"].is_null());
    let estimated = rule["estimated_precision"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&estimated));
    for key in ["coverage", "overlaps", "conflicts"] {
        assert!(rule[key].is_f64(), "{key}");
    }
    let text = rulelens(&["check", rules]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("estimated accuracy"), "{text}");
    assert!(text.contains("est. precision"), "{text}");
    // Labeled corpora: no estimates.
    let labeled = json(&rulelens(&[
        "check",
        "examples/sms/sms.rules",
        "--format",
        "json",
    ]));
    assert!(labeled["corpora"][0]["estimated_accuracy"].is_null());
    assert!(labeled["corpora"][0]["rule_figures"][0]["estimated_precision"].is_null());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_trec_json_reproduces_the_documented_figures() {
    let output = rulelens(&["check", "examples/trec/trec.rules", "--format", "json"]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    assert_eq!(percent(&report["accuracy"]), 49.39);
    assert_eq!(percent(&report["coverage"]), 95.15);
    assert_eq!(percent(&report["corpora"][1]["accuracy"]), 47.80);
    assert_eq!(percent(&report["corpora"][1]["coverage"]), 93.20);
    let codes: Vec<&str> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(codes.iter().filter(|&&code| code == "W0304").count(), 3);
    assert_eq!(codes.iter().filter(|&&code| code == "W0306").count(), 5);
    assert_eq!(codes.iter().filter(|&&code| code == "W0307").count(), 16);
    assert_eq!(codes.iter().filter(|&&code| code == "I0309").count(), 11);
}

#[test]
fn check_text_prints_tables() {
    let output = rulelens(&[
        "check",
        "examples/sms/sms.rules",
        "--corpus",
        "examples/sms/dev.tsv",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("corpus dev (examples/sms/dev.tsv): 500 examples, 500 labeled"));
    assert!(stdout.contains("accuracy 91.80%"));
    assert!(stdout.contains("gold \\ predicted"));
    // One table of rules and named patterns, a column group per corpus.
    assert!(
        stdout.contains("rule or pattern  label  line  dev matches  precision  recall  decided\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\n  spam@16  "), "{stdout}");

    // Formula rules get their own rows, named patterns theirs; both corpora side by side.
    let dir = std::env::temp_dir().join(format!("rulelens-cli-formula-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("formula.rules");
    std::fs::write(
        &rules,
        "default ham\npattern prize = $* ( claim | prize ) $*\npattern stop = $* stop $*\nspam <- prize & !stop\nspam: $* win $*\n",
    )
    .unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/train");
    let output = rulelens(&[
        "check",
        rules.to_str().unwrap(),
        "--corpus",
        root.join("train.tsv").to_str().unwrap(),
        "--corpus",
        root.join("dev.tsv").to_str().unwrap(),
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let table: Vec<&str> = stdout
        .lines()
        .skip_while(|line| !line.contains("rule or pattern"))
        .collect();
    assert!(
        table[0].contains("train matches") && table[0].contains("dev matches"),
        "{stdout}"
    );
    let row = |start: &str| -> Vec<&str> {
        let line = table
            .iter()
            .find(|l| l.trim_start().starts_with(start))
            .unwrap();
        line.split("  ")
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect()
    };
    assert_eq!(
        row("pattern prize"),
        [
            "pattern prize",
            "spam",
            "2",
            "17",
            "100.00%",
            "56.67%",
            "-",
            "6",
            "100.00%",
            "60.00%",
            "-"
        ]
    );
    assert_eq!(
        row("spam@4 <- prize & !stop"),
        [
            "spam@4 <- prize & !stop",
            "spam",
            "4",
            "17",
            "100.00%",
            "56.67%",
            "17",
            "6",
            "100.00%",
            "60.00%",
            "6"
        ]
    );
    assert_eq!(
        row("spam@5")[6],
        "5",
        "the rule decides where the formula rule did not"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn errors_exit_with_one_and_print_rustc_style() {
    let output = rulelens(&["check", "tests/data/syntax/err/unknown_names.rules"]);
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("error[E0201]: unknown pattern `fre_call`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("--> tests/data/syntax/err/unknown_names.rules:5:9"),
        "{stderr}"
    );
    assert!(stderr.contains("= help: a pattern with a similar name exists: `free_call`"));

    let output = rulelens(&[
        "check",
        "tests/data/syntax/err/unknown_names.rules",
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    let first_error = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "E0201")
        .unwrap()
        .clone();
    assert_eq!(first_error["line"], 5);
    assert_eq!(first_error["column"], 9);
    assert_eq!(first_error["severity"], "error");
}

#[test]
fn warnings_alone_exit_with_zero() {
    let output = rulelens(&["check", "tests/data/syntax/err/missing_default.rules"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stderr).contains("warning[W0303]"));
}

#[test]
fn unreadable_inputs_exit_with_one_and_usage_errors_with_two() {
    let output = rulelens(&["check", "no/such.rules"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("cannot read no/such.rules"));

    let output = rulelens(&["check", "examples/sms/sms.rules", "--corpus", "no/such.tsv"]);
    assert_eq!(output.status.code(), Some(1));

    assert_eq!(rulelens(&["check"]).status.code(), Some(2));
    assert_eq!(
        rulelens(&["check", "x.rules", "--format", "yaml"])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(rulelens(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn malformed_corpus_lines_are_errors_but_the_rest_is_evaluated() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let corpus = dir.join("broken.jsonl");
    std::fs::write(
        &corpus,
        b"{\"text\": \"WIN cash prize\", \"label\": \"spam\"}\n{\"text\": oops}\n{\"text\": \"see you\", \"label\": \"ham\"}\n",
    )
    .unwrap();
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/sms/sms.rules");
    let output = rulelens(&[
        "check",
        rules.to_str().unwrap(),
        "--corpus",
        corpus.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let report = json(&output);
    assert_eq!(report["examples"], 2);
    // The rules' own warnings (W0307) come with the corpus' one error.
    let errors: Vec<&serde_json::Value> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["code"], "E0404");
    assert_eq!(errors[0]["line"], 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The arguments of a shell command line as `docs/cli.md` writes them: words, and
/// double-quoted strings without escapes.
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut rest = line.trim();
    while !rest.is_empty() {
        let (word, after) = match rest.strip_prefix('"') {
            Some(quoted) => {
                let end = quoted.find('"').expect("a closing quote");
                (&quoted[..end], &quoted[end + 1..])
            }
            None => rest.split_at(rest.find(' ').unwrap_or(rest.len())),
        };
        words.push(word.to_string());
        rest = after.trim_start();
    }
    words
}

/// The flags `rulelens SUBCOMMAND --help` defines (`rulelens --help` for none), but
/// `--help`: the first long flag of each option line (`  -o, --out <DIR>`), not flags its
/// descriptions mention; with each one's short flag, for [`long_flags`].
fn help_flags(subcommand: Option<&str>) -> Vec<(String, Option<String>)> {
    let args: Vec<&str> = subcommand.into_iter().chain(["--help"]).collect();
    let output = rulelens(&args);
    assert_eq!(output.status.code(), Some(0), "{args:?}");
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with('-'))
        .filter_map(|line| {
            let long = flags_in(line).into_iter().next()?;
            let short = line.split_once(", --").map(|(short, _)| short.to_string());
            Some((long, short))
        })
        .filter(|(flag, _)| flag != "--help" && flag != "--version")
        .collect()
}

/// The long flags a command line or usage writes, its short flags (`-o`) read as theirs.
fn long_flags(text: &str, flags: &[(String, Option<String>)]) -> Vec<String> {
    let mut written = flags_in(text);
    for (long, short) in flags {
        let Some(short) = short else { continue };
        let used = text
            .split(|c: char| c.is_whitespace() || c == '[' || c == ']')
            .any(|word| word == short);
        if used && !written.contains(long) {
            written.push(long.clone());
        }
    }
    written
}

/// The subcommands `rulelens --help` lists, `help` left out.
fn help_subcommands() -> Vec<String> {
    let help = String::from_utf8(rulelens(&["--help"]).stdout).unwrap();
    help.split("Commands:")
        .nth(1)
        .unwrap()
        .split("Options:")
        .next()
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every `--flag` written in `text`, in order, without repeats.
fn flags_in(text: &str) -> Vec<String> {
    let mut flags: Vec<String> = Vec::new();
    for (i, _) in text.match_indices("--") {
        let before = text[..i].chars().last();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '-') {
            continue;
        }
        let name: String = text[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        let flag = format!("--{name}");
        if !name.is_empty() && !flags.contains(&flag) {
            flags.push(flag);
        }
    }
    flags
}

/// Whether `actual` is `expected` where a line `…` of `expected` stands for any lines.
fn matches_with_elisions(expected: &[&str], actual: &[&str]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((&"…", rest)) => {
            (0..=actual.len()).any(|skip| matches_with_elisions(rest, &actual[skip..]))
        }
        Some((line, rest)) => actual
            .split_first()
            .is_some_and(|(first, others)| first == line && matches_with_elisions(rest, others)),
    }
}

/// Every example of docs/cli.md is true to the tool:
/// - the synopsis names every subcommand's flags, and only flags its `--help` lists (the
///   global limits of `rulelens --help` are documented in "Limits");
/// - every `rulelens` command in a `sh` or `console` block names a subcommand and only
///   flags it has;
/// - a `console` example of a subcommand that reads rules and corpora alone (`check`,
///   `classify`, `explain`, `dot`), whose files the repository holds, runs and prints what
///   the block shows, where a line `…` stands for any lines. Examples that need a trained
///   checkpoint (`models/…`) or minutes of training (`bench`) are checked for flags only.
#[test]
fn every_example_of_the_cli_docs_is_true() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let docs = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let global: Vec<String> = help_flags(None).into_iter().map(|(long, _)| long).collect();
    let mut blocks: Vec<(&str, &str)> = Vec::new();
    let mut rest = docs.as_str();
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let (info, body_start) = after.split_once('\n').unwrap();
        let close = body_start.find("\n```").expect("a closed block");
        blocks.push((info.trim(), &body_start[..close]));
        rest = &body_start[close + 4..];
    }

    // The synopsis: the first block, one usage per subcommand (continued on indented lines).
    let (_, synopsis) = blocks[0];
    let mut usages: Vec<(String, String)> = Vec::new();
    for line in synopsis.lines() {
        match line.strip_prefix("rulelens ") {
            Some(usage) => {
                let subcommand = usage.split_whitespace().next().unwrap().to_string();
                usages.push((subcommand, usage.to_string()));
            }
            None => usages
                .last_mut()
                .expect("a usage line first")
                .1
                .push_str(line),
        }
    }
    let mut flags_of = std::collections::HashMap::new();
    for (subcommand, usage) in &usages {
        let defined = help_flags(Some(subcommand));
        let known: Vec<String> = defined.iter().map(|(long, _)| long.clone()).collect();
        let written = long_flags(usage, &defined);
        for flag in &written {
            assert!(
                known.contains(flag),
                "docs/cli.md: `rulelens {subcommand} {flag}` is not a flag of the tool"
            );
        }
        for flag in &known {
            assert!(
                written.contains(flag) || global.contains(flag),
                "docs/cli.md: the synopsis of `rulelens {subcommand}` lacks {flag}"
            );
        }
        flags_of.insert(subcommand.clone(), (known, defined));
    }
    for subcommand in help_subcommands().iter().filter(|s| *s != "serve") {
        assert!(
            flags_of.contains_key(subcommand),
            "the synopsis lacks `rulelens {subcommand}`"
        );
    }

    let mut ran = 0;
    let mut checked = 0;
    for (info, body) in &blocks[1..] {
        if !matches!(*info, "sh" | "console") {
            continue;
        }
        let mut examples: Vec<(&str, Vec<&str>)> = Vec::new();
        for line in body.lines() {
            let command = if *info == "console" {
                line.strip_prefix("$ ")
            } else {
                Some(line)
            };
            match command {
                Some(command) => examples.push((command, Vec::new())),
                None => examples.last_mut().expect("a command first").1.push(line),
            }
        }
        for (command, expected) in examples {
            // A pipeline's first command is rulelens's.
            let command = command.split(" | ").next().unwrap();
            let words = shell_words(command);
            assert_eq!(words[0], "rulelens", "{command}");
            let subcommand = words[1].as_str();
            let (known, defined) = flags_of.get(subcommand).unwrap_or_else(|| {
                panic!("docs/cli.md: `{command}`: no subcommand `{subcommand}`")
            });
            for flag in long_flags(command, defined) {
                assert!(
                    known.contains(&flag) || global.contains(&flag),
                    "docs/cli.md: `{command}`: `{flag}` is not a flag of `rulelens {subcommand}`"
                );
            }
            checked += 1;
            let files_here = words[2..]
                .iter()
                .filter(|w| w.contains('/') && !w.starts_with("--"))
                .all(|w| root.join(w).exists());
            let runs_alone = ["check", "classify", "explain", "dot"].contains(&subcommand);
            if *info != "console" || !runs_alone || !files_here {
                continue;
            }
            let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
            let output = rulelens(&args);
            let stdout = String::from_utf8(output.stdout).unwrap();
            let actual: Vec<&str> = stdout.trim_end().lines().collect();
            assert!(
                matches_with_elisions(&expected, &actual),
                "docs/cli.md: `{command}` prints\n{stdout}\nwhere the docs show\n{}",
                expected.join("\n")
            );
            ran += 1;
        }
    }
    // The classify examples run; the others are flag-checked.
    assert!(ran >= 2 && checked >= 12, "{ran} run, {checked} checked");
}

/// Text without spaces is cut into words (issue 51, item 4): a rule's literal written
/// without spaces means the tokens it holds, and matches a sentence that holds them, with
/// its span on what was written; `check` accepts the file as it is.
#[test]
fn text_without_spaces_is_ruled_by_its_words() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-unspaced-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("u.rules");
    std::fs::write(
        &rules,
        "default ham\n\
         spam: $* 免费 $*\n\
         spam: $* プレゼント $*\n\
         words prizes = ( 奖品 | ฟรี )\n\
         promo: $* @prizes $*\n",
    )
    .unwrap();
    let rules = rules.to_str().unwrap();
    let lines = stdin_json_lines(
        "classify",
        &[rules, "--format", "json"],
        &[
            "现在免费领取奖品",
            "無料プレゼントをiPhoneで",
            "ของฟรี",
            "领取奖品",
            "免 免费费",
            "hello",
        ],
    );
    let labels: Vec<&str> = lines.iter().map(|l| l["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["spam", "spam", "promo", "promo", "spam", "ham"]);
    let span = &lines[0]["fired"][0]["spans"][0];
    assert_eq!(span["text"], "免费", "{span}");
    assert_eq!(
        (span["start"].as_u64(), span["end"].as_u64()),
        (Some(2), Some(4))
    );
    let check = rulelens(&["check", rules]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    // A network trained on such text has its tokens in its vocabulary, records the
    // tokenizer's version, and reads a new line by them.
    let corpus = "spam\t现在免费领取\nham\t我们明天见\nspam\t免费送你\nham\t明天开会\n";
    std::fs::write(dir.join("train.tsv"), corpus).unwrap();
    std::fs::write(dir.join("dev.tsv"), corpus).unwrap();
    let trained = dir.join("trained.rules");
    std::fs::write(
        &trained,
        "default ham\nspam: $* 免费 $*\ncorpus train \"train.tsv\"\ncorpus dev \"dev.tsv\"\n",
    )
    .unwrap();
    let vectors = dir.join("vectors.txt");
    std::fs::write(
        &vectors,
        "免 0.9 0.1\n费 0.8 0.2\n明 -0.7 0.3\n天 -0.6 0.1\n",
    )
    .unwrap();
    let model = dir.join("model");
    train_one_member_one_epoch(
        &trained,
        &model,
        &["--embeddings", vectors.to_str().unwrap()],
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(model.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["tokenizer_version"], 2);
    let vocabulary: Vec<&str> = manifest["vocabulary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|word| word.as_str().unwrap())
        .collect();
    for word in ["免", "费", "明", "天"] {
        assert!(vocabulary.contains(&word), "{vocabulary:?}");
    }
    let predicted = predict_stdin(
        &[model.to_str().unwrap(), "--format", "json"],
        &["快来免费拿"],
    );
    assert_eq!(predicted[0]["label"], "spam", "{predicted:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn classify_reads_standard_input_shows_formula_rules_and_refuses_bad_input() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-classify-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rules = dir.join("r.rules");
    std::fs::write(
        &rules,
        "default ham\n\
         pattern prize = $* ( won | win ) $* cash $*\n\
         pattern stop = $* stop $*\n\
         spam <- prize & !stop\n\
         ham <- !prize\n\
         ham: $* see you $*\n",
    )
    .unwrap();
    let rules = rules.to_str().unwrap();
    // One output line per input line, empty lines included; spans in characters.
    let lines = stdin_json_lines(
        "classify",
        &[rules, "--format", "json", "--expect", "spam"],
        &["Ünï: you WON the cash!", "", "see you soon"],
    );
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["label"], "spam");
    assert_eq!(lines[0]["rule"]["name"], "spam@4");
    let span = &lines[0]["fired"][0]["spans"][0];
    assert_eq!(
        (span["start"].as_u64(), span["end"].as_u64()),
        (Some(9), Some(21))
    );
    assert_eq!(span["text"], "WON the cash");
    assert!(
        lines[0]
            .get("expected")
            .is_some_and(|e| e["missed"] == json!([]))
    );
    // `ham <- !prize` fires on a line without a prize, with no span.
    assert_eq!(lines[1]["label"], "ham");
    assert_eq!(lines[1]["rule"]["name"], "ham@5");
    assert_eq!(lines[1]["fired"][0]["spans"], json!([]));
    let spans: Vec<&str> = lines[2]["fired"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["spans"].as_array().unwrap())
        .map(|s| s["text"].as_str().unwrap())
        .collect();
    assert_eq!(spans, ["see you"]);
    let missed = &lines[2]["expected"]["missed"][0];
    assert_eq!(missed["pattern"], "`prize`");
    assert_eq!(missed["failure"], "ended");
    assert_eq!(missed["expected"], json!(["won", "win"]));

    let output = rulelens(&["classify", rules, "x", "--expect", "nosuch"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("their labels: spam, ham"));
    let output = rulelens(&["classify", "tests/data/syntax/err/unknown_names.rules", "x"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("error[E0201]"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_output_can_be_trimmed_and_lists_misclassified_lines() {
    let stdout = |args: &[&str]| {
        let output = rulelens(args);
        assert_eq!(output.status.code(), Some(0), "{args:?}");
        String::from_utf8(output.stdout).unwrap()
    };
    let full = stdout(&["check", "examples/sms/sms.rules"]);
    assert!(full.contains("  rule or pattern  label  line"));
    let summary = stdout(&["check", "examples/sms/sms.rules", "--summary"]);
    assert!(summary.contains("accuracy 91.80%") && summary.contains("gold \\ predicted"));
    assert!(!summary.contains("rule or pattern"), "{summary}");
    assert!(summary.lines().count() < 30, "{summary}");
    assert_eq!(stdout(&["check", "examples/sms/sms.rules", "--quiet"]), "");
    let errors = stdout(&[
        "check",
        "examples/sms/sms.rules",
        "--summary",
        "--show-errors",
        "2",
    ]);
    assert!(
        errors.contains("misclassified lines (2 of 366):"),
        "{errors}"
    );
    assert!(
        errors.contains("misclassified lines (2 of 41):"),
        "{errors}"
    );
    assert!(
        errors.contains("  line 3: gold spam, predicted ham by the default: "),
        "{errors}"
    );
    assert!(errors.contains("      nearest miss: the `spam` rule of line 16: `$* ( call | ringtone ) $*` matched, then expected `free`"), "{errors}");
    assert!(errors.contains("predicted ham by ham@26"), "{errors}");
    // A file with errors gets its diagnostics, and no figures of what the parser recovered.
    let output = rulelens(&["check", "tests/data/syntax/err/unknown_names.rules"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&output.stdout), "");
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("no figures while the rules have errors")
    );
    assert_eq!(
        rulelens(&["check", "x.rules", "--summary", "--quiet"])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn suggest_diffs_and_writes_its_edits_with_their_provenance() {
    let dir =
        std::env::temp_dir().join(format!("rulelens-cli-suggest-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // No corpus bindings: the corpora come from --train and --dev.
    let original = "default ham\nspam: $* ( win | free ) $*\n";
    let rules = dir.join("tiny.rules");
    std::fs::write(&rules, original).unwrap();
    let corpora = [
        "--train",
        "tests/data/train/train.tsv",
        "--dev",
        "tests/data/train/dev.tsv",
    ];
    let mut args = vec!["suggest", rules.to_str().unwrap(), "--diff"];
    args.extend(corpora);
    let output = rulelens(&args);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let diff = String::from_utf8(output.stdout).unwrap();
    let name = rules.display().to_string();
    assert!(
        diff.starts_with(&format!("--- a/{name}\n+++ b/{name}\n@@ ")),
        "{diff}"
    );
    assert!(
        diff.contains("\n+# suggested by rulelens: add `spam: "),
        "{diff}"
    );
    assert!(
        diff.contains("(fixes 11 train lines, breaks 0; dev accuracy 76.67% → 90.00%)"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(&rules).unwrap(),
        original,
        "--diff writes nothing"
    );

    args[2] = "--write";
    let output = rulelens(&args);
    assert_eq!(output.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&output.stderr).contains("tiny.rules: rewritten"));
    let written = std::fs::read_to_string(&rules).unwrap();
    assert!(written.starts_with(original), "{written}");
    assert!(
        written.contains("# suggested by rulelens: add `spam: "),
        "{written}"
    );
    let mut check = vec![
        "check",
        rules.to_str().unwrap(),
        "--corpus",
        "tests/data/train/dev.tsv",
        "--summary",
    ];
    check.extend(["--deny", "W0111"]);
    let output = rulelens(&check);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("accuracy 90.00%"));
    // Nothing more to gain: the file stays as it is.
    let output = rulelens(&args);
    assert!(String::from_utf8_lossy(&output.stderr).contains("no edit raises dev accuracy"));
    assert_eq!(std::fs::read_to_string(&rules).unwrap(), written);
    assert_eq!(
        rulelens(&["suggest", "x.rules", "--diff", "--write"])
            .status
            .code(),
        Some(2)
    );
    // An empty corpus is named as the cause (it used to blame the word vectors).
    let empty = dir.join("empty.tsv");
    std::fs::write(&empty, "").unwrap();
    let output = rulelens(&[
        "suggest",
        rules.to_str().unwrap(),
        "--train",
        empty.to_str().unwrap(),
        "--dev",
        "tests/data/train/dev.tsv",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(said.contains("empty.tsv: no labeled line"), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn init_starts_a_rules_file_from_a_corpus_that_check_and_suggest_take() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-init-{}", std::process::id()));
    let rules = dir.join("rules").join("tiny.rules");
    std::fs::create_dir_all(rules.parent().unwrap()).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (train, dev) = (
        root.join("tests/data/train/train.tsv"),
        root.join("tests/data/train/dev.tsv"),
    );
    let output = rulelens(&[
        "init",
        train.to_str().unwrap(),
        "--dev",
        dev.to_str().unwrap(),
        "--out",
        rules.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = std::fs::read_to_string(&rules).unwrap();
    assert!(text.contains("\ndefault ham\ncorpus train \""), "{text}");
    // The bindings are relative to the rules file's folder, so check finds the corpora.
    let output = rulelens(&["check", rules.to_str().unwrap(), "--summary"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = String::from_utf8_lossy(&output.stdout);
    assert!(
        report.contains("corpus train") && report.contains("corpus dev"),
        "{report}"
    );
    // Never over an existing file.
    let again = rulelens(&[
        "init",
        train.to_str().unwrap(),
        "--out",
        rules.to_str().unwrap(),
    ]);
    assert_eq!(again.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&rules).unwrap(), text);
    // Seeded by the suggestion engine, to standard output.
    let seeded = rulelens(&[
        "init",
        train.to_str().unwrap(),
        "--dev",
        dev.to_str().unwrap(),
        "--suggest",
    ]);
    assert_eq!(seeded.status.code(), Some(0));
    let seeded = String::from_utf8(seeded.stdout).unwrap();
    assert!(
        seeded.contains("# suggested by rulelens: add `spam: "),
        "{seeded}"
    );
    assert_eq!(
        rulelens(&["init", train.to_str().unwrap(), "--suggest"])
            .status
            .code(),
        Some(2)
    );
    std::fs::remove_dir_all(&dir).unwrap();

    let completions = rulelens(&["completions", "bash"]);
    assert!(String::from_utf8_lossy(&completions.stdout).contains("classify"));
    let man = rulelens(&["man"]);
    let page = String::from_utf8_lossy(&man.stdout);
    assert!(
        page.contains(".TH rulelens 1") && page.contains("init"),
        "{page}"
    );
}

#[test]
fn lint_flags_gate_on_warnings_and_explain_prints_a_codes_documentation() {
    let stderr = |output: &Output| String::from_utf8_lossy(&output.stderr).into_owned();
    // SMS has warnings and no errors: they pass, unless denied.
    let output = rulelens(&["check", "examples/sms/sms.rules"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(stderr(&output).contains("warning[W0307]"));
    let output = rulelens(&["check", "examples/sms/sms.rules", "--deny", "warnings"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("error[W0307]"),
        "{}",
        stderr(&output)
    );
    // A code's own level wins over `warnings` (TREC has W0304, W0306, W0307 and I0309).
    let output = rulelens(&[
        "check",
        "examples/trec/trec.rules",
        "--deny",
        "warnings",
        "--warn",
        "redundant-rule",
        "--format",
        "json",
    ]);
    let report = json(&output);
    let severities: Vec<(&str, &str)> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap(), d["severity"].as_str().unwrap()))
        .collect();
    assert!(severities.contains(&("W0307", "warning")), "{severities:?}");
    assert!(
        severities
            .iter()
            .any(|&(code, severity)| code != "W0307" && severity == "error")
    );
    let output = rulelens(&["check", "examples/sms/sms.rules", "--allow", "warnings"]);
    assert_eq!(output.status.code(), Some(0));
    assert!(!stderr(&output).contains("warning["), "{}", stderr(&output));
    // Errors are not lints; unknown codes are usage errors.
    for bad in ["E0201", "W9999"] {
        let output = rulelens(&["check", "examples/sms/sms.rules", "--allow", bad]);
        assert_eq!(output.status.code(), Some(2), "{bad}");
    }

    let output = rulelens(&["explain", "W0306"]);
    assert_eq!(output.status.code(), Some(0));
    let page = String::from_utf8(output.stdout).unwrap();
    assert!(page.starts_with("W0306 shadowed-rule\n"), "{page}");
    assert!(page.contains("**Use instead**") && !page.contains("## W0307"));
    let by_name = rulelens(&["explain", "shadowed-rule"]);
    assert_eq!(String::from_utf8(by_name.stdout).unwrap(), page);
    let output = rulelens(&["explain", "W9999"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("E0101, E0102"));
}

#[test]
fn dot_prints_graphviz() {
    let output = rulelens(&["dot", "examples/sms/sms.rules", "--pattern", "spam@18"]);
    assert_eq!(output.status.code(), Some(0));
    let dot = String::from_utf8(output.stdout).unwrap();
    assert!(dot.starts_with("digraph {"));
    assert!(dot.contains("label=\"won\""), "{dot}");
    assert!(dot.contains("shape=doublecircle"));

    let output = rulelens(&["dot", "examples/trec/trec.rules"]);
    assert_eq!(output.status.code(), Some(0));
    let dot = String::from_utf8(output.stdout).unwrap();
    assert_eq!(dot.matches("subgraph cluster_").count(), 68);

    let output = rulelens(&["dot", "examples/sms/sms.rules", "--pattern", "nope"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no pattern `nope`"));
}

/// Asserts that a command exited with 0, showing what it said otherwise.
fn assert_succeeded(output: &Output) {
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A fresh folder `NAME-PID` in the temporary folder with two folders in it, `work`, holding
/// copies of `files` of `tests/data/train`, and `elsewhere`, empty, for a checkpoint moved
/// away from its rules: (the folder, `work`, `elsewhere`).
fn work_and_elsewhere(name: &str, files: &[&str]) -> (PathBuf, PathBuf, PathBuf) {
    let base = std::env::temp_dir().join(format!("{name}-{}", std::process::id()));
    let (work, moved) = (base.join("work"), base.join("elsewhere"));
    std::fs::create_dir_all(&work).unwrap();
    std::fs::create_dir_all(&moved).unwrap();
    for file in files {
        std::fs::copy(Path::new("tests/data/train").join(file), work.join(file)).unwrap();
    }
    (base, work, moved)
}

/// `rulelens train RULES` for one epoch with the tests' word vectors, into `model`.
fn train_one_epoch(rules: &Path, model: &Path) {
    assert_succeeded(&rulelens(&[
        "train",
        rules.to_str().unwrap(),
        "--embeddings",
        "tests/data/train/vectors.txt",
        "--epochs",
        "1",
        "--out",
        model.to_str().unwrap(),
    ]));
}

/// `rulelens train RULES --epochs 1 --members 1 --out MODEL` with `extra` flags.
fn train_one_member_one_epoch(rules: &Path, model: &Path, extra: &[&str]) {
    let (rules, model) = (rules.to_str().unwrap(), model.to_str().unwrap());
    let mut args = vec![
        "train",
        rules,
        "--epochs",
        "1",
        "--members",
        "1",
        "--out",
        model,
    ];
    args.extend_from_slice(extra);
    assert_succeeded(&rulelens(&args));
}

/// `rulelens predict MODEL --format json "win a prize"`.
fn predict_win_a_prize(model: &Path) -> Output {
    rulelens(&[
        "predict",
        model.to_str().unwrap(),
        "--format",
        "json",
        "win a prize",
    ])
}

#[test]
fn a_checkpoint_survives_comments_and_moves_and_names_both_files_when_the_rules_change() {
    let (base, work, moved) = work_and_elsewhere(
        "rulelens-cli-portable",
        &["tiny.rules", "train.tsv", "dev.tsv"],
    );
    let rules = work.join("tiny.rules");
    let model = work.join("model");
    train_one_epoch(&rules, &model);
    let first = predict_win_a_prize(&model);
    assert_eq!(first.status.code(), Some(0));

    // A comment and blank lines do not make it another rule system.
    let text = std::fs::read_to_string(&rules).unwrap();
    std::fs::write(&rules, format!("{text}\n# tried `cash` too\n")).unwrap();
    let commented = predict_win_a_prize(&model);
    assert_succeeded(&commented);
    assert_eq!(commented.stdout, first.stdout);

    // Moved, with its rules file gone: the checkpoint carries its rules.
    let elsewhere = moved.join("model");
    std::fs::rename(&model, &elsewhere).unwrap();
    std::fs::remove_file(&rules).unwrap();
    let carried = predict_win_a_prize(&elsewhere);
    assert_succeeded(&carried);
    assert_eq!(carried.stdout, first.stdout);

    // Other rules where it was trained: refused, naming the file and counting what it adds
    // without quoting it (the manifest's path could name any file).
    std::fs::write(&rules, format!("{text}spam: $* cash $*\n")).unwrap();
    let refused = predict_win_a_prize(&elsewhere);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("has other rules; it adds a rule or declaration."),
        "{stderr}"
    );
    assert!(!stderr.contains("cash"), "{stderr}");
    assert!(stderr.contains(rules.to_str().unwrap()), "{stderr}");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_checkpoint_carries_its_word_list_files() {
    let (base, work, moved) = work_and_elsewhere("rulelens-words-cli", &["train.tsv", "dev.tsv"]);
    let rules = work.join("lists.rules");
    let text = "default ham\ncorpus train \"train.tsv\"\ncorpus dev \"dev.tsv\"\nwords lures from \"lures.txt\"\nspam: $* @lures $*\n";
    std::fs::write(&rules, text).unwrap();
    std::fs::write(work.join("lures.txt"), "win\nfree\n").unwrap();
    let model = work.join("model");
    train_one_epoch(&rules, &model);
    let manifest = std::fs::read_to_string(model.join("manifest.json")).unwrap();
    assert!(
        manifest.contains("\"lures.txt\": \"win\\nfree\\n\""),
        "{manifest}"
    );
    let first = predict_win_a_prize(&model);
    assert_eq!(first.status.code(), Some(0));
    // `reconstruct --format json`'s figures, without the paths.
    let read_back = |model: &Path, corpus: Option<&Path>| {
        let mut args = vec!["reconstruct", model.to_str().unwrap(), "--format", "json"];
        if let Some(corpus) = corpus {
            args.extend(["--corpus", corpus.to_str().unwrap()]);
        }
        let output = rulelens(&args);
        assert_succeeded(&output);
        let mut json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let figures = json.as_object_mut().unwrap();
        figures.remove("model");
        figures.remove("corpus");
        json
    };
    let in_place_figures = read_back(&model, None);

    // Moved, with the rules and the list gone: the checkpoint carries both.
    let elsewhere = moved.join("model");
    std::fs::rename(&model, &elsewhere).unwrap();
    std::fs::remove_file(&rules).unwrap();
    std::fs::remove_file(work.join("lures.txt")).unwrap();
    let carried = predict_win_a_prize(&elsewhere);
    assert_succeeded(&carried);
    assert_eq!(carried.stdout, first.stdout);

    // `reconstruct` reads the carried list as well (read from beside the gone file, it was
    // missing: the reconstructed file had an error and the figures lost the list), and
    // where the moved rules' `corpus dev` is not there it asks for the corpus.
    let moved_figures = read_back(&elsewhere, None);
    assert_eq!(moved_figures, in_place_figures);
    assert_eq!(moved_figures["reconstructed_errors"], 0, "{moved_figures}");
    std::fs::remove_file(work.join("dev.tsv")).unwrap();
    let unbound = rulelens(&["reconstruct", elsewhere.to_str().unwrap()]);
    assert_eq!(unbound.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&unbound.stderr);
    assert!(
        stderr.contains("which is not there") && stderr.contains("pass --corpus FILE"),
        "{stderr}"
    );
    let dev = Path::new("tests/data/train/dev.tsv");
    assert_eq!(read_back(&elsewhere, Some(dev)), in_place_figures);

    // The same rules text with another list is other rules: refused, saying so.
    std::fs::write(&rules, text).unwrap();
    std::fs::write(work.join("lures.txt"), "win\nfree\ncash\n").unwrap();
    let refused = predict_win_a_prize(&elsewhere);
    assert_eq!(refused.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("words lures (2 entries"), "{stderr}");
    assert!(stderr.contains("it adds a rule or declaration"), "{stderr}");
    std::fs::remove_dir_all(&base).unwrap();
}

#[test]
fn a_moved_sopa_checkpoint_reads_its_patterns_back_on_the_corpora_named() {
    let (base, work, moved) = work_and_elsewhere(
        "rulelens-sopa-moved",
        &["tiny.rules", "train.tsv", "dev.tsv"],
    );
    let model = work.join("model");
    assert_succeeded(&rulelens(&[
        "train",
        work.join("tiny.rules").to_str().unwrap(),
        "--model",
        "sopa",
        "--embeddings",
        "tests/data/train/vectors.txt",
        "--epochs",
        "1",
        "--out",
        model.to_str().unwrap(),
    ]));
    let read_back = |model: &Path, extra: &[&str]| {
        let mut args = vec!["reconstruct", model.to_str().unwrap(), "--format", "rules"];
        args.extend(extra);
        rulelens(&args)
    };
    let in_place = read_back(&model, &[]);
    assert_succeeded(&in_place);

    // Moved, its rules and corpora gone: the bindings named the corpora beside the rules it
    // was trained from, not beside the working directory, and the flags name others.
    let elsewhere = moved.join("model");
    std::fs::rename(&model, &elsewhere).unwrap();
    std::fs::remove_dir_all(&work).unwrap();
    let unbound = read_back(&elsewhere, &[]);
    assert_eq!(unbound.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&unbound.stderr);
    assert!(
        stderr.contains("`corpus train`") && stderr.contains("pass --train FILE"),
        "{stderr}"
    );
    let named = read_back(
        &elsewhere,
        &[
            "--train",
            "tests/data/train/train.tsv",
            "--corpus",
            "tests/data/train/dev.tsv",
        ],
    );
    assert_succeeded(&named);
    // The same rules, but for the folder the provenance comment names.
    let text = |output: &Output| String::from_utf8_lossy(&output.stdout).into_owned();
    assert_eq!(
        text(&named).replace(elsewhere.to_str().unwrap(), model.to_str().unwrap()),
        text(&in_place)
    );
    std::fs::remove_dir_all(&base).unwrap();
}

/// `rulelens train` of the tiny spam filter with the test vectors at β 0.5 for two epochs,
/// into `out`, with the flags `extra`.
fn train_tiny(out: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "train",
        "tests/data/train/tiny.rules",
        "--embeddings",
        "tests/data/train/vectors.txt",
        "--beta",
        "0.5",
        "--epochs",
        "2",
        "--out",
        out,
    ];
    args.extend_from_slice(extra);
    rulelens(&args)
}

#[test]
fn train_writes_a_checkpoint_that_eval_reads() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-train-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    // Dev stays held out, so that `eval` on it gives `train`'s dev figure.
    let output = train_tiny(out, &["--learning-rate", "0.05", "--hold-out-dev"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(String::from_utf8_lossy(&output.stdout).contains("checkpoint written to"));
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["settings"]["model"], "fa-rnn");
    assert_eq!(manifest["settings"]["beta"], 0.5);
    assert_eq!(manifest["labels"], serde_json::json!(["spam", "ham"]));
    assert_eq!(manifest["metrics"]["train_examples"], 90);

    let output = rulelens(&[
        "eval",
        out,
        "--corpus",
        "tests/data/train/dev.tsv",
        "--format",
        "json",
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = json(&output);
    for key in [
        "accuracy",
        "rules_accuracy",
        "agreement_with_rules",
        "labels",
        "confusion",
    ] {
        assert!(report.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(report["accuracy"], manifest["metrics"]["dev_accuracy"]);
    assert_eq!(report["regression_fitted_on_corpus"], false);
    assert!(manifest["metrics"]["ngram_regression"]["refit"].is_null());

    // The untrained network is the rule system, except where β mixes in word vectors.
    let output = rulelens(&[
        "eval",
        out,
        "--corpus",
        "tests/data/train/dev.tsv",
        "--zero-shot",
        "--format",
        "json",
    ]);
    assert_eq!(
        json(&output)["accuracy"],
        manifest["metrics"]["zero_shot_dev_accuracy"]
    );

    // Labeling sentences one at a time: the scorer agrees with `eval`'s batched network.
    let output = rulelens(&["predict", out, "--format", "json", "to claim win now"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let line = json(&output);
    assert_eq!(line["text"], "to claim win now");
    assert_eq!(line["rules_label"], "spam");
    let spam = line["probabilities"]["spam"].as_f64().unwrap();
    let ham = line["probabilities"]["ham"].as_f64().unwrap();
    assert!((spam + ham - 1.0).abs() < 1e-5, "{line}");
    assert_eq!(line["label"], if spam > ham { "spam" } else { "ham" });
    assert_eq!(line["patterns"][0]["line"], 6);
    let dev = std::fs::read_to_string("tests/data/train/dev.tsv").unwrap();
    let texts: Vec<&str> = dev.lines().map(|l| l.split_once('\t').unwrap().1).collect();
    let predicted = predict_stdin(&[out, "--format", "json"], &texts);
    let gold: Vec<&str> = dev.lines().map(|l| l.split_once('\t').unwrap().0).collect();
    let correct = predicted
        .iter()
        .zip(&gold)
        .filter(|(p, g)| p["label"] == **g)
        .count();
    // serde_json reads a float to within a unit in the last place.
    let recorded = manifest["metrics"]["dev_accuracy"].as_f64().unwrap();
    assert!((correct as f64 / gold.len() as f64 - recorded).abs() < 1e-12);

    // Reading the network back as rules: a file `check` accepts, and figures in JSON.
    let output = rulelens(&["reconstruct", out, "--format", "json"]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let report = json(&output);
    assert_eq!(report["reconstructed_errors"], 0);
    assert_eq!(report["patterns"][0]["original"], "$* ( win | free ) $*");
    assert!(
        report["patterns"][0]["reconstructed"]
            .as_str()
            .unwrap()
            .contains("$*")
    );
    let output = rulelens(&["reconstruct", out, "--format", "rules"]);
    let rewritten = dir.join("tiny.rules");
    std::fs::write(&rewritten, &output.stdout).unwrap();
    std::fs::copy("tests/data/train/train.tsv", dir.join("train.tsv")).unwrap();
    std::fs::copy("tests/data/train/dev.tsv", dir.join("dev.tsv")).unwrap();
    let output = rulelens(&["check", rewritten.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// By default the n-gram regression is fitted again with dev's gold lines once its C and
/// weight are chosen, and the network trained again with them: `train` says so, the
/// manifest records it, and `eval` on that dev says its figure is not held out (on another
/// corpus it says nothing).
#[test]
fn the_regression_fitted_again_with_dev_says_dev_is_not_held_out() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-refit-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    let output = train_tiny(out, &[]);
    assert_succeeded(&output);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains("fitted again at C") && said.contains("dev's 30 gold lines"),
        "{said}"
    );
    // The network too: from its start, on train's 90 lines and dev's 30.
    assert!(
        said.contains(
            "the network trained again from its start on 120 lines, dev's 30 gold lines among them"
        ),
        "{said}"
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    let refit = &manifest["metrics"]["ngram_regression"]["refit"];
    assert_eq!(refit["dev_lines"], 30, "{manifest}");
    assert_eq!(refit["dev_sha256"].as_str().unwrap().len(), 64);
    let again = &manifest["metrics"]["trained_again_with_dev"];
    assert_eq!(
        (&again["lines"], &again["dev_lines"]),
        (&120.into(), &30.into())
    );
    assert_eq!(again["epochs"].as_array().unwrap().len(), 5, "{manifest}");
    let eval = |corpus: &str, format: &str| {
        let output = rulelens(&["eval", out, "--corpus", corpus, "--format", format]);
        assert_succeeded(&output);
        output
    };
    let dev = eval("tests/data/train/dev.tsv", "json");
    assert_eq!(json(&dev)["regression_fitted_on_corpus"], true);
    let text = eval("tests/data/train/dev.tsv", "text");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("not held out") && text.contains("the network was trained again"),
        "{text}"
    );
    let train = eval("tests/data/train/train.tsv", "json");
    assert_eq!(json(&train)["regression_fitted_on_corpus"], false);
    let text = eval("tests/data/train/train.tsv", "text");
    assert!(!String::from_utf8_lossy(&text.stdout).contains("not held out"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn eval_reads_words_past_the_vocabulary_through_the_bundled_vectors_and_says_how_many() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-opened-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let model = dir.join("model");
    // The bundled vectors, so that the model opens to words its corpora lack.
    train_one_member_one_epoch(Path::new("tests/data/train/tiny.rules"), &model, &[]);
    let eval = |corpus: &Path, format: &str| {
        let output = rulelens(&[
            "eval",
            model.to_str().unwrap(),
            "--corpus",
            corpus.to_str().unwrap(),
            "--format",
            format,
        ]);
        assert_succeeded(&output);
        String::from_utf8_lossy(&output.stdout).into_owned()
    };
    let train = Path::new("tests/data/train/train.tsv");
    let report: Value = serde_json::from_str(&eval(train, "json")).unwrap();
    assert_eq!(report["words_past_vocabulary"], 0, "{report}");
    assert!(!eval(train, "text").contains("past the network's vocabulary"));
    // Two words no train or dev line holds, one of them twice; `win` is the rules'.
    let new = dir.join("new.tsv");
    std::fs::write(&new, "spam\twin a quokka now\nham\tthe Zeppelin quokka\n").unwrap();
    let report: Value = serde_json::from_str(&eval(&new, "json")).unwrap();
    assert_eq!(report["words_past_vocabulary"], 2, "{report}");
    let text = eval(&new, "text");
    assert!(
        text.contains("2 words past the network's vocabulary read through their vectors"),
        "{text}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zero_shot_network_without_embeddings_is_the_rule_system() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-zero-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    let output = rulelens(&[
        "train",
        "tests/data/train/tiny.rules",
        "--beta",
        "1",
        "--epochs",
        "1",
        "--out",
        out,
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = rulelens(&[
        "eval",
        out,
        "--corpus",
        "tests/data/train/train.tsv",
        "--zero-shot",
        "--format",
        "json",
    ]);
    let report = json(&output);
    assert_eq!(report["agreement_with_rules"], 1.0);
    assert_eq!(report["accuracy"], report["rules_accuracy"]);

    // So is the one-sentence scorer, line by line, empty lines included.
    let train = std::fs::read_to_string("tests/data/train/train.tsv").unwrap();
    let mut texts: Vec<&str> = train
        .lines()
        .map(|l| l.split_once('\t').unwrap().1)
        .collect();
    texts.insert(3, "");
    let predicted = predict_stdin(&[out, "--format", "json", "--zero-shot"], &texts);
    assert_eq!(predicted.len(), texts.len());
    for (line, text) in predicted.iter().zip(&texts) {
        assert_eq!(line["text"], *text);
        assert_eq!(line["label"], line["rules_label"], "{line}");
    }
    let output = rulelens(&["predict", out, "free call now"]);
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(printed.starts_with("spam "), "{printed}");
    assert!(
        printed.contains("(rules: spam)  free call now"),
        "{printed}"
    );
    assert!(printed.contains("patterns: spam@6 1.00"), "{printed}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn training_refuses_bad_arguments_with_clear_errors() {
    for (flag, value, message) in [
        ("--beta", "1.5", "beta must be in [0, 1], not 1.5"),
        (
            "--batch-size",
            "0",
            "batch size must be between 1 and 65536, not 0",
        ),
        (
            "--logit-scale",
            "nan",
            "logit scale must be in (0, 1000000], not NaN",
        ),
        (
            "--rank",
            "100000",
            "rank must be between 1 and 4096, not 100000",
        ),
    ] {
        let output = rulelens(&["train", "tests/data/train/tiny.rules", flag, value]);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(message), "{flag} {value}: {stderr}");
    }
    // Bad values are usage errors (2), found before any work, as the exit-code table says.
    for args in [
        &["train", "tests/data/train/tiny.rules", "--fraction", "0"][..],
        &["bench", "tests/data/train/tiny.rules", "--fractions", "0"],
        &["bench", "tests/data/train/tiny.rules", "--seeds", "0"],
        &[
            "check",
            "tests/data/train/tiny.rules",
            "--max-dfa-states",
            "99999999999",
        ],
        &["train", "tests/data/train/tiny.rules", "--out", "README.md"],
    ] {
        let output = rulelens(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("epoch"), "{args:?} worked first: {stderr}");
    }
    // Errors that name the real cause.
    let output = rulelens(&["predict", "tests/data/train/tiny.rules", "win"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr).contains(
            "tiny.rules is a file, not a checkpoint folder (`rulelens train --out DIR` writes one); for what the rules alone say, run `rulelens classify`"
        ),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let output = rulelens(&["check", "tests/data/train/tiny.rules", "--corpus", "tests"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&output.stderr)
            .contains("cannot read tests: a folder, not a corpus file")
    );
    let upper = std::env::temp_dir().join(format!("rulelens-cli-{}-dev.TSV", std::process::id()));
    std::fs::copy("tests/data/train/dev.tsv", &upper).unwrap();
    let output = rulelens(&[
        "check",
        "tests/data/train/tiny.rules",
        "--corpus",
        upper.to_str().unwrap(),
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    std::fs::remove_file(&upper).unwrap();
    let output = rulelens(&["train", "tests/data/syntax/err/unknown_names.rules"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("fix them before training"));
    let output = rulelens(&[
        "eval",
        "no/such/model",
        "--corpus",
        "tests/data/train/dev.tsv",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("manifest.json"));
}

#[test]
fn fa_gru_trains_and_starts_as_the_rule_system() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-gru-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    let output = rulelens(&[
        "train",
        "tests/data/train/tiny.rules",
        "--model",
        "fa-gru",
        "--beta",
        "1",
        "--epochs",
        "2",
        "--out",
        out,
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["settings"]["model"], "fa-gru");
    assert!(manifest["tensors"]["update_state"].is_array());
    let output = rulelens(&[
        "eval",
        out,
        "--corpus",
        "tests/data/train/dev.tsv",
        "--zero-shot",
        "--format",
        "json",
    ]);
    assert_eq!(json(&output)["agreement_with_rules"], 1.0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bidirectional_fa_gru_starts_as_the_rule_system_and_reads_back_both_ways() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-bigru-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    let output = rulelens(&[
        "train",
        "tests/data/train/ordered.rules",
        "--model",
        "bifa-gru",
        "--beta",
        "1",
        "--epochs",
        "2",
        "--out",
        out,
    ]);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["settings"]["model"], "bifa-gru");
    assert!(manifest["tensors"]["backward.update_state"].is_array());
    assert!(manifest["tensors"]["initial.backward.d1"].is_array());
    assert_eq!(manifest["backward_decomposition"]["method"], "exact");
    for corpus in ["tests/data/train/train.tsv", "tests/data/train/dev.tsv"] {
        let output = rulelens(&[
            "eval",
            out,
            "--corpus",
            corpus,
            "--zero-shot",
            "--format",
            "json",
        ]);
        assert_eq!(json(&output)["agreement_with_rules"], 1.0, "{corpus}");
    }
    // Both directions of the untrained network read back as the rules' languages.
    for direction in [&[][..], &["--backward"][..]] {
        let mut args = vec!["reconstruct", out, "--zero-shot", "--format", "json"];
        args.extend_from_slice(direction);
        let report = json(&rulelens(&args));
        assert_eq!(
            report["reconstructed_accuracy"], report["original_accuracy"],
            "{direction:?}: {report}"
        );
        assert_eq!(report["reconstructed_errors"], 0);
    }
    let output = rulelens(&["reconstruct", out, "--backward", "--format", "rules"]);
    assert_eq!(output.status.code(), Some(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn reading_back_the_backward_direction_needs_a_bidirectional_model() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-uni-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    let output = rulelens(&[
        "train",
        "tests/data/train/ordered.rules",
        "--epochs",
        "1",
        "--out",
        out,
    ]);
    assert_eq!(output.status.code(), Some(0));
    let output = rulelens(&["reconstruct", out, "--backward"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&output.stderr).contains("needs a bidirectional model"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn suggest_lists_measured_edits_and_its_rules_pass_check_beside_the_original() {
    let listed = rulelens(&["suggest", "tests/data/train/tiny.rules", "--format", "json"]);
    assert_eq!(listed.status.code(), Some(0));
    let listed = json(&listed);
    let first = &listed["suggestions"][0];
    assert_eq!(first["source"], "induction");
    assert_eq!(first["edit"]["kind"], "add-rule");
    // The fixture's four spam words, each precise on its own, as one word set.
    assert_eq!(
        first["edit"]["regex"],
        "$* ( claim | prize | cash | reward ) $*"
    );
    assert!(percent(&first["evidence"]["dev_after"]) > percent(&first["evidence"]["dev_before"]));
    // The rules with the suggestions applied, written beside the original: `check` reads
    // them, their corpus bindings included, and finds the dev accuracy `suggest` reported.
    let refined = rulelens(&[
        "suggest",
        "tests/data/train/tiny.rules",
        "--format",
        "rules",
    ]);
    assert_eq!(refined.status.code(), Some(0));
    let said = String::from_utf8_lossy(&refined.stderr).to_string();
    assert!(
        said.contains("1 edit applied; dev accuracy 76.67% → 90.00%"),
        "{said}"
    );
    let dir = std::env::temp_dir().join(format!("rulelens-suggest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/train");
    for name in ["train.tsv", "dev.tsv"] {
        std::fs::copy(root.join(name), dir.join(name)).unwrap();
    }
    let path = dir.join("tiny.suggested.rules");
    std::fs::write(&path, &refined.stdout).unwrap();
    let checked = rulelens(&["check", path.to_str().unwrap(), "--format", "json"]);
    assert_eq!(
        checked.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&checked.stdout)
    );
    let checked = json(&checked);
    let dev = checked["corpora"]
        .as_array()
        .unwrap()
        .iter()
        .find(|corpus| corpus["corpus"] == "dev")
        .expect("the dev binding is read");
    assert_eq!(percent(&dev["accuracy"]), 90.0);
    std::fs::remove_dir_all(&dir).unwrap();
    // The JSON names the lines each suggestion fixes (1-based), as many as it counts.
    let fixed = first["train_lines"]["fixed"].as_array().unwrap();
    assert_eq!(
        fixed.len() as u64,
        first["evidence"]["fixed"].as_u64().unwrap()
    );
    assert!(fixed.iter().all(|line| line.as_u64().unwrap() >= 1));
}

/// With few gold labels (here none in train), `suggest --model` judges its candidates on
/// the train lines as the network labels them: the same suggestions as on a train file whose
/// lines carry the labels `predict` gives them. Without a network, a train file without any
/// gold label is an error that says how to label it.
#[test]
fn suggest_judges_lines_without_a_gold_label_by_a_networks_labels() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-few-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let train = std::fs::read_to_string("tests/data/train/train.tsv").unwrap();
    let texts: Vec<&str> = train
        .lines()
        .map(|line| line.split_once('\t').unwrap().1)
        .collect();
    let unlabeled = dir.join("unlabeled.tsv");
    std::fs::write(&unlabeled, texts.join("\n") + "\n").unwrap();
    let unlabeled = unlabeled.to_str().unwrap();
    let model = "tests/data/checkpoints/fa-rnn";
    let suggest = |train: &str, extra: &[&str]| {
        let mut args = vec![
            "suggest",
            "tests/data/train/tiny.rules",
            "--train",
            train,
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        rulelens(&args)
    };

    let without = suggest(unlabeled, &[]);
    assert!(!without.status.success());
    let said = String::from_utf8_lossy(&without.stderr);
    assert!(
        said.contains("unlabeled.tsv: no labeled line to suggest rules from")
            && said.contains("--model DIR, a network trained from these rules"),
        "{said}"
    );

    let with = suggest(unlabeled, &["--model", model]);
    let said = String::from_utf8_lossy(&with.stderr);
    assert!(with.status.success(), "{said}");
    assert!(
        said.contains("90 of 90 lines without a gold label take the labels of the network"),
        "{said}"
    );

    let mut predict = vec!["predict", model, "--format", "json"];
    predict.extend(texts.iter().copied());
    let predicted = rulelens(&predict);
    assert!(predicted.status.success());
    let labeled: String = String::from_utf8_lossy(&predicted.stdout)
        .lines()
        .zip(&texts)
        .map(|(line, text)| {
            let row: Value = serde_json::from_str(line).unwrap();
            format!("{}\t{text}\n", row["label"].as_str().unwrap())
        })
        .collect();
    let labeled_path = dir.join("labeled.tsv");
    std::fs::write(&labeled_path, labeled).unwrap();
    let by_predict = suggest(labeled_path.to_str().unwrap(), &["--model", model]);
    assert!(by_predict.status.success());
    let suggestions = json(&with)["suggestions"].clone();
    assert!(!suggestions.as_array().unwrap().is_empty());
    assert_eq!(suggestions, json(&by_predict)["suggestions"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn suggest_refuses_floors_it_cannot_use_as_a_usage_error() {
    for (flag, value, said) in [
        (
            "--min-precision",
            "0",
            "--min-precision must be in (0, 1], not 0",
        ),
        (
            "--max-measured",
            "0",
            "--max-measured must be between 1 and 1000, not 0",
        ),
        ("--min-fixed", "0", "--min-fixed must be at least 1"),
        (
            "--min-similarity",
            "1.5",
            "--min-similarity must be in [0, 1], not 1.5",
        ),
        (
            "--fallback-precision",
            "0.95",
            "--fallback-precision must be in (0, --min-precision = 0.9], not 0.95",
        ),
    ] {
        let output = rulelens(&["suggest", "tests/data/train/tiny.rules", flag, value]);
        assert_eq!(output.status.code(), Some(2), "{flag} {value}");
        assert!(String::from_utf8_lossy(&output.stderr).contains(said));
    }
}

#[test]
fn suggest_reads_the_word_vectors_it_is_given_and_names_the_line_of_a_bad_one() {
    let listed = rulelens(&[
        "suggest",
        "tests/data/train/tiny.rules",
        "--embeddings",
        "tests/data/train/vectors.txt",
        "--format",
        "json",
    ]);
    assert_eq!(
        listed.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&listed.stderr)
    );
    assert_eq!(
        json(&listed)["suggestions"][0]["edit"]["regex"],
        "$* ( claim | prize | cash | reward ) $*"
    );
    let dir = std::env::temp_dir().join(format!("rulelens-suggest-vectors-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "claim 0.1 0.2\nprize 0.3 oops\n").unwrap();
    let output = rulelens(&[
        "suggest",
        "tests/data/train/tiny.rules",
        "--embeddings",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(1));
    let said = String::from_utf8_lossy(&output.stderr).to_string();
    assert!(said.contains(&format!("{}:2:", bad.display())), "{said}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sopa_trains_from_the_rules_starts_as_the_rule_system_and_learns_what_they_miss() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-sopa-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    let output = rulelens(&[
        "train",
        "tests/data/train/tiny.rules",
        "--model",
        "sopa",
        "--embeddings",
        "tests/data/train/vectors.txt",
        "--patterns",
        "3:4,2:4",
        "--epochs",
        "20",
        "--learning-rate",
        "0.05",
        "--out",
        out,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "1 of 1 rule patterns are soft patterns (the others keep their DFA), 8 free patterns; 0 % of words dropped"
        ),
        "{stderr}"
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["settings"]["model"], "sopa");
    assert_eq!(manifest["settings"]["patterns"], "3:4,2:4");
    assert!(manifest.get("decomposition").is_none());
    // `$* ( win | free ) $*` is one transition between two states: 2 × 2 rows (main path
    // and self-loops) of 6 dimensions; 8 free patterns of at most 3 states, 8 × 2 × 3.
    assert_eq!(
        manifest["tensors"]["rules.words"],
        serde_json::json!([4, 6])
    );
    assert_eq!(
        manifest["tensors"]["free.words"],
        serde_json::json!([48, 6])
    );
    let eval = |zero_shot: bool| {
        let mut args = vec!["eval", out, "--corpus", "tests/data/train/dev.tsv"];
        if zero_shot {
            args.push("--zero-shot");
        }
        args.extend(["--format", "json"]);
        json(&rulelens(&args))
    };
    // Untrained, the SoPa is the rule system; trained, it knows what the rules miss.
    let untrained = eval(true);
    assert_eq!(untrained["agreement_with_rules"], 1.0);
    let trained = eval(false);
    assert!(
        percent(&trained["accuracy"]) > percent(&trained["rules_accuracy"]) + 10.0,
        "{trained}"
    );
    // `predict` names the patterns behind each decision, with their best spans.
    let lines = predict_stdin(&[out, "--format", "json"], &["you win a free prize"]);
    assert_eq!(lines[0]["label"], "spam", "{}", lines[0]);
    let rule = lines[0]["patterns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "spam@6")
        .unwrap_or_else(|| panic!("{}", lines[0]));
    assert!(rule["contribution"].as_f64().unwrap() > 0.0, "{rule}");
    assert!(
        ["win", "free"].contains(&rule["span"].as_str().unwrap()),
        "{rule}"
    );

    // Every learned pattern reads back as a regex that fires where its score does.
    let report = json(&rulelens(&["reconstruct", out, "--format", "json"]));
    let patterns = report["patterns"].as_array().unwrap();
    assert_eq!(patterns.len(), 8, "{report}");
    for pattern in patterns {
        assert!(
            pattern["fidelity"]["train"].as_f64().unwrap() >= 0.9,
            "{pattern}"
        );
        assert!(
            !pattern["top_phrases"].as_array().unwrap().is_empty(),
            "{pattern}"
        );
    }
    assert!(
        report["proxy_accuracy"]["dev"].as_f64().unwrap() > 0.5,
        "{report}"
    );
    // As rules, beside the original, the file passes `check` and keeps its bindings.
    let output = rulelens(&["reconstruct", out, "--format", "rules"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    let original = std::fs::read_to_string("tests/data/train/tiny.rules").unwrap();
    assert!(text.starts_with(&original));
    let learned = format!("tests/data/train/learned-{}.rules", std::process::id());
    std::fs::write(&learned, &text).unwrap();
    let check = rulelens(&["check", &learned, "--format", "json"]);
    std::fs::remove_file(&learned).unwrap();
    assert_eq!(check.status.code(), Some(0), "{text}");
    assert_eq!(
        json(&check)["corpora"].as_array().unwrap().len(),
        2,
        "{text}"
    );
    let added = text[original.len()..]
        .lines()
        .filter(|l| l.starts_with("spam: ") || l.starts_with("ham: "));
    assert_eq!(added.count(), 8, "{text}");
    // `suggest --model` proposes the learned patterns as new rules, measured like the rest.
    let report = json(&rulelens(&[
        "suggest",
        "tests/data/train/tiny.rules",
        "--model",
        out,
        "--format",
        "json",
    ]));
    let learned = report["suggestions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["source"] == "learned")
        .unwrap_or_else(|| panic!("{report}"));
    assert_eq!(learned["edit"]["kind"], "add-rule", "{learned}");
    let evidence = &learned["evidence"];
    assert!(
        evidence["dev_after"].as_f64() > evidence["dev_before"].as_f64(),
        "{learned}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// SoPa drops a fifth of the words of 400 or more long sentences in training unless told
/// otherwise (`--word-dropout`), and none of fewer or of short ones (the test above: "0 %
/// of words dropped").
#[test]
fn sopa_drops_words_from_many_long_sentences_by_default() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let review = |label: &str, word: &str| {
        format!(
            "{label}\t{}\n",
            vec![format!("the {word} one was"); 12].join(" ")
        )
    };
    let corpus = |n: usize| -> String {
        [("pos", "good"), ("neg", "bad")]
            .iter()
            .flat_map(|&(label, word)| std::iter::repeat_n(review(label, word), n))
            .collect()
    };
    std::fs::write(dir.join("train.tsv"), corpus(200)).unwrap();
    std::fs::write(dir.join("dev.tsv"), corpus(4)).unwrap();
    let rules = dir.join("long.rules");
    std::fs::write(
        &rules,
        "default pos\ncorpus train \"train.tsv\"\ncorpus dev \"dev.tsv\"\n",
    )
    .unwrap();
    let train = |extra: &[&str]| {
        let out = dir.join("model");
        let mut args = vec![
            "train",
            rules.to_str().unwrap(),
            "--model",
            "sopa",
            "--embeddings",
            "tests/data/train/vectors.txt",
            "--patterns",
            "2:2",
            "--epochs",
            "1",
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let output = rulelens(&args);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        stderr
    };
    let by_default = train(&[]);
    assert!(
        by_default.contains(
            "20 % of words dropped in training (48.0 tokens per train sentence on average)"
        ),
        "{by_default}"
    );
    let asked = train(&["--word-dropout", "0"]);
    assert!(
        asked.contains("; 0 % of words dropped in training"),
        "{asked}"
    );
    // A hundred such sentences are too few to learn from with words dropped.
    std::fs::write(dir.join("train.tsv"), corpus(50)).unwrap();
    let few = train(&[]);
    assert!(few.contains("; 0 % of words dropped in training"), "{few}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn sopa_learns_from_a_corpus_with_no_rules_at_all() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-bare-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    // The default settings: its free patterns start as the corpus's informative phrases.
    let output = rulelens(&[
        "train",
        "tests/data/train/bare.rules",
        "--model",
        "sopa",
        "--embeddings",
        "tests/data/train/vectors.txt",
        "--out",
        out,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("the train corpus has 1 label the rules do not name"),
        "{stderr}"
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["labels"], serde_json::json!(["ham", "spam"]));
    let report = json(&rulelens(&[
        "eval",
        out,
        "--corpus",
        "tests/data/train/dev.tsv",
        "--format",
        "json",
    ]));
    // The rules say `ham` for every line (2 in 3 of dev); the network finds the spam (at
    // random, the free patterns stopped at 90 % with these settings).
    assert!(percent(&report["rules_accuracy"]) < 70.0, "{report}");
    assert!(percent(&report["accuracy"]) >= 93.0, "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn fa_rnn_learns_labels_no_rule_names_and_train_and_eval_count_every_dev_line() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-unnamed-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    let train = |extra: &[&str]| {
        let mut args = vec![
            "train",
            "tests/data/train/bare.rules",
            "--embeddings",
            "tests/data/train/vectors.txt",
            "--learning-rate",
            "0.01",
            "--epochs",
            "30",
            // Dev held out of the regression's last fit: `eval` on it is then `train`'s figure.
            "--hold-out-dev",
            "--out",
            out,
        ];
        args.extend(extra);
        rulelens(&args)
    };
    let eval = || {
        json(&rulelens(&[
            "eval",
            out,
            "--corpus",
            "tests/data/train/dev.tsv",
            "--format",
            "json",
        ]))
    };
    let manifest = || -> Value {
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap()
    };

    // `spam` has no rule: the FA-RNN learns it from word vectors and says so.
    let output = train(&[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("the train corpus has 1 label the rules do not name (spam); the FA-RNN"),
        "{stderr}"
    );
    assert!(
        stderr.contains("90 training and 30 dev sentences"),
        "{stderr}"
    );
    assert_eq!(manifest()["labels"], serde_json::json!(["ham", "spam"]));
    let report = eval();
    assert!(percent(&report["rules_accuracy"]) < 70.0, "{report}");
    assert!(percent(&report["accuracy"]) >= 85.0, "{report}");
    assert_eq!(
        report["accuracy"],
        manifest()["metrics"]["dev_accuracy"],
        "{report}"
    );

    // Without word vectors it cannot: the error names the label and the flag.
    let output = train(&["--beta", "1"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("(spam)") && stderr.contains("--drop-unnamed-labels"),
        "{stderr}"
    );

    // With the flag, the spam lines are left out of train; in dev they are errors, for
    // `train` as for `eval`, whose tables count them.
    let output = train(&["--beta", "1", "--drop-unnamed-labels"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("60 training and 30 dev sentences"),
        "{stderr}"
    );
    assert!(
        stderr.contains("30 train lines of labels the rules do not name left out"),
        "{stderr}"
    );
    assert_eq!(manifest()["labels"], serde_json::json!(["ham"]));
    let report = eval();
    assert_eq!(
        report["accuracy"],
        manifest()["metrics"]["dev_accuracy"],
        "{report}"
    );
    assert!(
        (percent(&report["accuracy"]) - 66.67).abs() < 0.01,
        "{report}"
    );
    let supports: Vec<(String, u64)> = report["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|label| {
            (
                label["name"].as_str().unwrap().to_string(),
                label["support"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        supports,
        [("ham".to_string(), 20), ("spam".to_string(), 10)]
    );
    assert_eq!(report["confusion"]["spam"]["ham"], 10, "{report}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn black_boxes_learn_the_corpus_without_rules_and_eval_predict_read_them_back() {
    for (model, name) in [("slstm", "S-LSTM"), ("mvma-g", "MVMA-G")] {
        black_box_learns_the_corpus(model, name);
    }
}

fn black_box_learns_the_corpus(model: &str, name: &str) {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-{model}-{}", std::process::id()));
    let out = dir.to_str().unwrap();
    let output = rulelens(&[
        "train",
        "tests/data/train/bare.rules",
        "--model",
        model,
        "--embeddings",
        "tests/data/train/vectors.txt",
        "--epochs",
        "20",
        "--patience",
        "20",
        "--learning-rate",
        "0.01",
        "--batch-size",
        "8",
        "--out",
        out,
    ]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains(&format!("{name}: ")), "{stderr}");
    assert!(
        stderr.contains("the train corpus has 1 label the rules do not name"),
        "{stderr}"
    );
    let manifest: Value =
        serde_json::from_slice(&std::fs::read(dir.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["labels"], serde_json::json!(["ham", "spam"]));
    assert_eq!(manifest["settings"]["model"], model);
    // The defaults it trained with are written in.
    assert_eq!(manifest["settings"]["dropout"], 0.5);
    assert_eq!(manifest["settings"]["slstmSteps"], 9);
    assert_eq!(manifest["settings"]["slstmWindow"], 1);
    let report = json(&rulelens(&[
        "eval",
        out,
        "--corpus",
        "tests/data/train/dev.tsv",
        "--format",
        "json",
    ]));
    // The rules say `ham` for every line (2 in 3 of dev); the network finds the spam.
    assert!(percent(&report["rules_accuracy"]) < 70.0, "{report}");
    assert!(percent(&report["accuracy"]) >= 85.0, "{report}");
    let lines = predict_stdin(
        &[out, "--format", "json"],
        &["claim your free prize cash now", "love mum"],
    );
    assert_eq!(lines[0]["label"], "spam", "{lines:?}");
    assert_eq!(lines[1]["label"], "ham", "{lines:?}");
    for line in &lines {
        let total: f64 = ["ham", "spam"]
            .iter()
            .map(|label| line["probabilities"][label].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-5, "{line}");
        assert_eq!(line["patterns"], serde_json::json!([]));
    }
    // Phrase polarities are an MVMA-G's alone.
    let polarity = rulelens(&["polarity", out, "free prize", "mum", "--format", "json"]);
    if model == "mvma-g" {
        let report = json(&polarity);
        let phrases = report["phrases"].as_array().unwrap();
        assert_eq!(phrases.len(), 2, "{report}");
        assert_eq!(phrases[0]["leans"], "spam", "{report}");
        assert_eq!(phrases[1]["leans"], "ham", "{report}");
        assert_eq!(phrases[0]["scores"].as_object().unwrap().len(), 2);
        // The fixture's vocabulary has no "not".
        let negation = rulelens(&["polarity", out, "--negation", "3"]);
        assert_eq!(negation.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&negation.stderr).contains("has no \"not\""),
            "{negation:?}"
        );
    } else {
        assert_eq!(polarity.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&polarity.stderr).contains("polarity reads an MVMA-G"),
            "{polarity:?}"
        );
    }
    let refused = rulelens(&["reconstruct", out]);
    assert_eq!(refused.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&refused.stderr).contains(&format!("{name} reads words alone")),
        "{refused:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn train_from_a_checkpoint_warm_starts_keeps_the_zero_shot_network_and_says_when_it_cannot() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-warm-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for corpus in ["train.tsv", "dev.tsv", "vectors.txt"] {
        std::fs::copy(Path::new("tests/data/train").join(corpus), dir.join(corpus)).unwrap();
    }
    let rules = std::fs::read_to_string("tests/data/train/tiny.rules").unwrap()
        + "spam: $* prize $*\nham: $* meeting $*\n";
    let rules_path = dir.join("tiny.rules");
    std::fs::write(&rules_path, &rules).unwrap();
    let path = |name: &str| dir.join(name).to_str().unwrap().to_string();
    let train = |out: &str, extra: &[&str]| {
        let mut args = vec![
            "train".to_string(),
            path("tiny.rules"),
            "--embeddings".to_string(),
            path("vectors.txt"),
            "--epochs".to_string(),
            "2".to_string(),
            "--learning-rate".to_string(),
            "0.05".to_string(),
            "--out".to_string(),
            path(out),
        ];
        args.extend(extra.iter().map(|s| s.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = rulelens(&args);
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert_eq!(output.status.code(), Some(0), "{stderr}");
        stderr
    };
    let before = train("before", &[]);
    assert!(
        before.contains("with the n-gram regression beside it ("),
        "{before}"
    );
    assert!(!before.contains("the previous network's"), "{before}");
    // One word added to one of three rules; the checkpoint keeps the text it was trained on.
    std::fs::write(
        &rules_path,
        rules.replace("( win | free )", "( win | free | cash )"),
    )
    .unwrap();
    let stderr = train("warm", &["--from", &path("before")]);
    assert!(
        stderr.contains(
            "warm start: 2 of 3 patterns keep their trained parameters (1 new or changed, 1 gone)"
        ),
        "{stderr}"
    );
    let manifest = |name: &str| -> Value {
        serde_json::from_slice(&std::fs::read(dir.join(name).join("manifest.json")).unwrap())
            .unwrap()
    };
    // The same lines under the same settings: the previous n-gram regression, not a new fit.
    assert!(
        stderr.contains(", the previous network's): dev accuracy"),
        "{stderr}"
    );
    let warm = manifest("warm");
    assert_eq!(warm["warm_start"]["kept_patterns"], 2);
    // It was fitted again with dev's gold lines, and the reused one says so too.
    let refit = |manifest: &Value| manifest["metrics"]["ngram_regression"]["refit"].clone();
    assert_eq!(refit(&warm)["dev_lines"], 30, "{warm}");
    assert_eq!(refit(&warm), refit(&manifest("before")));
    // So was the network it descends from, and the warm start's record says so.
    let again = |manifest: &Value| manifest["metrics"]["trained_again_with_dev"].clone();
    assert_eq!(again(&warm)["dev_lines"], 30, "{warm}");
    assert_eq!(again(&warm), again(&manifest("before")));
    assert!(!stderr.contains("the network trained again"), "{stderr}");
    assert_eq!(
        warm["warm_start"]["from_weights_sha256"],
        manifest("before")["weights_sha256"]
    );
    // Its untrained network is the rules' own: the same as a training from scratch.
    train("cold", &[]);
    let zero_shot = |name: &str| {
        let output = rulelens(&[
            "eval",
            &path(name),
            "--corpus",
            &path("dev.tsv"),
            "--zero-shot",
            "--format",
            "json",
        ]);
        json(&output)["accuracy"].clone()
    };
    assert_eq!(zero_shot("warm"), zero_shot("cold"));
    assert!(manifest("cold")["warm_start"].is_null());
    // Other settings train from scratch, and say why.
    let stderr = train("other", &["--from", &path("before"), "--beta", "0.6"]);
    assert!(
        stderr.contains(
            "training from scratch, not from the previous network: the training settings changed"
        ),
        "{stderr}"
    );
    assert!(manifest("other")["warm_start"].is_null());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bench_lays_every_model_side_by_side_measures_what_train_and_eval_measure_and_reads_its_cache() {
    let dir = std::env::temp_dir().join(format!("rulelens-cli-bench-{}", std::process::id()));
    let cache = dir.join("cache");
    let cache = cache.to_str().unwrap();
    let common = [
        "tests/data/train/tiny.rules",
        "--embeddings",
        "tests/data/train/vectors.txt",
        "--epochs",
        "3",
        "--patience",
        "3",
        "--batch-size",
        "8",
    ];
    let bench = |extra: &[&str]| {
        let mut args = vec!["bench"];
        args.extend_from_slice(&common);
        args.extend_from_slice(&["--fractions", "1,0.5", "--cache", cache]);
        args.extend_from_slice(extra);
        rulelens(&args)
    };
    let output = bench(&["--seeds", "2", "--format", "json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    let report = json(&output);
    let models = [
        "rules",
        "logreg-vectors",
        "logreg-tfidf",
        "fa-rnn",
        "fa-gru",
        "bifa-rnn",
        "bifa-gru",
        "sopa",
        "slstm",
        "mvma-g",
    ];
    assert_eq!(report["models"], serde_json::json!(models));
    // The rule system once; each baseline (deterministic) once per share; every network
    // at both shares with both seeds.
    let runs = report["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 1 + 2 * 2 + 7 * 2 * 2, "{report}");
    assert_eq!(report["cells"].as_array().unwrap().len(), 10 * 2);
    let labeled = std::fs::read_to_string("tests/data/train/dev.tsv")
        .unwrap()
        .lines()
        .filter(|line| !line.trim().is_empty())
        .count() as u64;
    for run in runs {
        assert_eq!(run["dev_labeled"], labeled, "{run}");
        let accuracy = run["dev_accuracy"].as_f64().unwrap();
        assert!((0.0..=1.0).contains(&accuracy), "{run}");
    }
    // The rule system's figure is `check`'s.
    let check = json(&rulelens(&[
        "check",
        "tests/data/train/tiny.rules",
        "--format",
        "json",
    ]));
    let dev_check = check["corpora"]
        .as_array()
        .unwrap()
        .iter()
        .find(|corpus| corpus["corpus"] == "dev")
        .unwrap()["accuracy"]
        .clone();
    assert_eq!(runs[0]["model"], "rules");
    assert_eq!(runs[0]["dev_accuracy"], dev_check);
    // A run is what `train` and `eval` give with the same settings.
    let out = dir.join("fa-gru-half-seed-1");
    let out = out.to_str().unwrap();
    let mut train = vec!["train"];
    train.extend_from_slice(&common);
    train.extend_from_slice(&[
        "--model",
        "fa-gru",
        "--fraction",
        "0.5",
        "--seed",
        "1",
        // As every bench run: measured on dev, so dev stays out of the regression.
        "--hold-out-dev",
        "--out",
        out,
    ]);
    let trained = rulelens(&train);
    assert_eq!(trained.status.code(), Some(0), "{trained:?}");
    let eval = json(&rulelens(&[
        "eval",
        out,
        "--corpus",
        "tests/data/train/dev.tsv",
        "--format",
        "json",
    ]));
    let same = runs
        .iter()
        .find(|run| run["model"] == "fa-gru" && run["fraction"] == 0.5 && run["seed"] == 1)
        .unwrap();
    assert_eq!(
        same["dev_accuracy"], eval["accuracy"],
        "{same} against {eval}"
    );
    // Each cell is the mean and sample deviation of its seeds.
    for cell in report["cells"].as_array().unwrap() {
        let values: Vec<f64> = cell["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        assert!(
            (cell["mean"].as_f64().unwrap() - mean).abs() < 1e-9,
            "{cell}"
        );
        if cell["model"].as_str().unwrap().starts_with("logreg") {
            assert_eq!(values.len(), 1, "{cell}");
            // The tiny fixture's spam words are easy for tf-idf.
            if cell["model"] == "logreg-tfidf" && cell["fraction"] == 1.0 {
                assert!(values[0] >= 80.0, "{cell}");
            }
        } else if cell["model"] != "rules" {
            assert_eq!(values.len(), 2, "{cell}");
            let sd = ((values[0] - mean).powi(2) + (values[1] - mean).powi(2)).sqrt();
            assert!((cell["sd"].as_f64().unwrap() - sd).abs() < 1e-9, "{cell}");
        }
    }
    // Asked again, every run comes from the cache, and the table shows the same figures.
    let again = bench(&["--seeds", "2"]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.matches("(cached)").count(), runs.len(), "{stderr}");
    let table = String::from_utf8_lossy(&again.stdout);
    assert!(table.contains("| model | 100 % | 50 % |"), "{table}");
    for (model, name) in models.iter().zip([
        "rule system",
        "logistic regression, mean word vector",
        "logistic regression, tf-idf 1–2-grams",
        "FA-RNN",
        "FA-GRU",
        "BiFA-RNN",
        "BiFA-GRU",
        "SoPa",
        "S-LSTM",
        "MVMA-G",
    ]) {
        let cell = report["cells"]
            .as_array()
            .unwrap()
            .iter()
            .find(|cell| cell["model"] == *model && cell["fraction"] == 1.0)
            .unwrap();
        let row = table
            .lines()
            .find(|line| line.starts_with(&format!("| {name} |")))
            .unwrap_or_else(|| panic!("no {name} row in {table}"));
        assert!(
            row.contains(&format!("{:.2}", cell["mean"].as_f64().unwrap())),
            "{row} against {cell}"
        );
    }
    // A third seed asked for with --cached-only trains nothing: the table of what is cached.
    let cached = json(&bench(&[
        "--seeds",
        "3",
        "--cached-only",
        "--format",
        "json",
    ]));
    assert_eq!(
        cached["runs"].as_array().unwrap().len(),
        runs.len(),
        "{cached}"
    );
    assert!(
        cached["runs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|run| run["seed"] != 2),
        "{cached}"
    );
    // An unknown model is a usage error naming the known ones.
    let unknown = bench(&["--models", "rules,lstm"]);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&unknown.stderr).contains("mvma-g"),
        "{unknown:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The README is the front door: its command list names every subcommand `rulelens --help`
/// lists, each with only flags the subcommand has, and its documentation list names every
/// file of `docs/` that is a page (`.md`).
#[test]
fn the_readme_lists_every_command_with_true_flags_and_every_doc() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let global: Vec<String> = help_flags(None).into_iter().map(|(long, _)| long).collect();
    // Each command of the list: "- `rulelens SUBCOMMAND …`".
    let listed: Vec<(&str, &str)> = readme
        .lines()
        .filter_map(|line| line.strip_prefix("- `rulelens "))
        .filter_map(|rest| rest.split_once('`'))
        .map(|(usage, _)| (usage.split_whitespace().next().unwrap(), usage))
        .collect();
    let subcommands = help_subcommands();
    for subcommand in &subcommands {
        // `completions` and `man` share `init`'s line.
        let named = listed.iter().any(|(s, _)| s == subcommand)
            || readme.contains(&format!("`rulelens {subcommand}"));
        assert!(named, "README.md does not list `rulelens {subcommand}`");
    }
    for (subcommand, usage) in &listed {
        assert!(
            subcommands.iter().any(|s| s == subcommand),
            "README.md lists `rulelens {subcommand}`, which is no subcommand"
        );
        let defined = help_flags(Some(subcommand));
        let known: Vec<&String> = defined.iter().map(|(long, _)| long).collect();
        for flag in long_flags(usage, &defined) {
            assert!(
                known.contains(&&flag) || global.contains(&flag),
                "README.md: `rulelens {usage}`: `{flag}` is not a flag of `rulelens {subcommand}`"
            );
        }
    }
    for entry in std::fs::read_dir(root.join("docs")).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            assert!(
                readme.contains(&format!("`docs/{name}`")),
                "README.md's documentation list lacks docs/{name}"
            );
        }
    }
}

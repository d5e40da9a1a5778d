//! `rulelens report`: the figures it gathers on the bundled SMS and TREC rules (the same as
//! `rulelens check`'s), the page it renders (every chart, a table row per rule, corpus text
//! escaped), what it says when the caches hold nothing, and the command line's refusals.

use rulelens::automata::CompileConfig;
use rulelens::corpus;
use rulelens::labeling::{labeling_rules, summarize_examples};
use rulelens::limits::ReadLimits;
use rulelens::model::checkpoint::{self, Manifest};
use rulelens::model::{ModelKind, TrainingSettings, training_data_sha256};
use rulelens::project::bench::{BenchPlan, Contender, RunResult, RunSpec, run_key};
use rulelens::report::{NamedCorpus, Report, ReportInputs, gather, render};
use rulelens::rules_file::RulesFile;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rulelens-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn load(rules: &Path) -> (RulesFile, Vec<NamedCorpus>) {
    let limits = ReadLimits::default();
    let file = RulesFile::read(rules, &CompileConfig::default(), &limits).unwrap();
    assert!(!file.has_errors());
    let corpora = file
        .rules
        .corpora
        .iter()
        .map(|binding| NamedCorpus {
            name: binding.name.clone(),
            file: corpus::read_file(&corpus::resolve_binding(rules, &binding.path), &limits)
                .unwrap(),
        })
        .collect();
    (file, corpora)
}

fn report_of(
    file: &RulesFile,
    corpora: &[NamedCorpus],
    model_cache: &Path,
    bench_cache: &Path,
) -> Report {
    gather(ReportInputs {
        rules: file,
        corpora,
        model_cache,
        bench_cache,
        suggestions: None,
        max_misclassified: 5,
        limits: &ReadLimits::default(),
    })
}

/// A manifest of a network trained from `file` whose dev accuracy went `curve`.
fn manifest(file: &RulesFile, curve: &[f64]) -> Manifest {
    let path = std::path::absolute(file.path.as_deref().unwrap()).unwrap();
    Manifest {
        format_version: checkpoint::FORMAT_VERSION,
        tokenizer_version: rulelens::text::TOKENIZER_VERSION,
        rules: checkpoint::RulesIdentity {
            path,
            sha256: rulelens::digest::sha256_hex(file.source.text.as_bytes()),
            text: Some(file.source.text.clone()),
            word_files: file.word_files(),
        },
        settings: TrainingSettings::default(),
        labels: file.system.labels().to_vec(),
        training_data_sha256: None,
        warm_start: None,
        rules_left_out: Vec::new(),
        decomposition: None,
        backward_decomposition: None,
        embeddings: None,
        vocabulary: Vec::new(),
        metrics: checkpoint::Metrics {
            train_examples: 0,
            dev_examples: 0,
            zero_shot_dev_accuracy: curve[0],
            dev_accuracy: curve.iter().copied().fold(0.0, f64::max),
            best_epoch: 2,
            epochs_run: curve.len() - 1,
            training_seconds: 1.0,
            dev_accuracy_by_epoch: curve.to_vec(),
            members: Vec::new(),
            ngram_regression: None,
            label_model: None,
            trained_again_with_dev: None,
        },
        weights_sha256: String::new(),
        tensors: Default::default(),
    }
}

fn count(haystack: &str, needle: &str) -> usize {
    haystack.matches(needle).count()
}

#[test]
fn the_sms_report_has_every_chart_a_row_per_rule_and_checks_figures() {
    let rules_path = root().join("examples/sms/sms.rules");
    let (file, corpora) = load(&rules_path);
    let dir = scratch("sms");
    let (model_cache, bench_cache) = (dir.join("models"), dir.join("bench"));

    // A checkpoint of these rules with its curve, one of another rules file beside it (not
    // drawn), and a bench result of the standard plan.
    let folder = model_cache.join("sms-0123456789abcdef");
    std::fs::create_dir_all(&folder).unwrap();
    let curve = [0.918, 0.95, 0.962, 0.958];
    std::fs::write(
        folder.join(checkpoint::MANIFEST_FILE),
        serde_json::to_vec(&manifest(&file, &curve)).unwrap(),
    )
    .unwrap();
    let mut foreign = manifest(&file, &curve);
    foreign.rules.path = PathBuf::from("/elsewhere/sms.rules");
    let foreign_folder = model_cache.join("sms-fedcba9876543210");
    std::fs::create_dir_all(&foreign_folder).unwrap();
    std::fs::write(
        foreign_folder.join(checkpoint::MANIFEST_FILE),
        serde_json::to_vec(&foreign).unwrap(),
    )
    .unwrap();
    let plan = BenchPlan::standard();
    let (train, dev) = (&corpora[0].file.examples, &corpora[1].file.examples);
    assert_eq!(
        (corpora[0].name.as_str(), corpora[1].name.as_str()),
        ("train", "dev")
    );
    let run = RunSpec {
        contender: Contender::Network(ModelKind::FaRnn),
        fraction: 0.1,
        seed: 0,
    };
    let key = run_key(
        &file,
        &plan.settings_of(run),
        &training_data_sha256(train, dev),
        run,
    );
    std::fs::create_dir_all(&bench_cache).unwrap();
    let result = RunResult {
        model: run.contender,
        fraction: run.fraction,
        seed: run.seed,
        dev_accuracy: 0.931,
        dev_labeled: dev.len(),
        train_examples: train.len() / 10,
        epochs_run: 5,
        best_epoch: 3,
        seconds: 2.0,
        cached: false,
    };
    std::fs::write(
        bench_cache.join(format!("{key}.json")),
        serde_json::to_vec(&result).unwrap(),
    )
    .unwrap();

    let report = report_of(&file, &corpora, &model_cache, &bench_cache);

    // The rules' figures are `rulelens check`'s.
    let rules = labeling_rules(&file);
    assert_eq!(report.rules, rules);
    for (corpus, named) in report.corpora.iter().zip(&corpora) {
        assert_eq!(
            corpus.rules,
            summarize_examples(&file, &rules, &named.file.examples)
        );
        let e = &corpus.evaluation;
        // Every gold label of SMS is a rules label, so every wrong line is listed or counted.
        assert_eq!(corpus.misclassified.total, e.n_labeled - e.n_correct);
        assert_eq!(
            corpus.misclassified.lines.len(),
            5.min(corpus.misclassified.total)
        );
        for line in &corpus.misclassified.lines {
            assert_ne!(Some(line.gold), line.predicted);
            let example = &named.file.examples[line.line as usize - 1];
            assert_eq!(example.text, line.text);
        }
    }
    assert_eq!(report.curves.len(), 1, "only the checkpoint of these rules");
    assert_eq!(report.curves[0].dev_accuracy, curve);
    assert!(report.curves[0].current);
    assert_eq!(report.bench.len(), 1);
    assert!((report.bench[0].mean - 93.1).abs() < 1e-9);

    let page = render(&report).unwrap();
    for chart in [
        "confusion-0",
        "confusion-1",
        "precision-coverage-0",
        "precision-coverage-1",
        "training-curves",
        "bench",
    ] {
        assert_eq!(
            count(&page, &format!("<svg class=\"chart\" id=\"{chart}\"")),
            1,
            "{chart}"
        );
    }
    let table = &page[page.find("id=\"rules-table\"").unwrap()..];
    let body = &table[table.find("<tbody>").unwrap()..table.find("</tbody>").unwrap()];
    assert_eq!(count(body, "<tr>"), rules.len());
    // Hover titles: one per rule that fired on train, one per epoch, one per bench cell.
    let fired = report.corpora[0]
        .rules
        .iter()
        .filter(|s| s.precision.is_some())
        .count();
    let curves_svg = &page[page.find("id=\"training-curves\"").unwrap()..];
    let curves_svg = &curves_svg[..curves_svg.find("</figure>").unwrap()];
    assert_eq!(count(curves_svg, "<title>"), curve.len());
    let coverage_svg = &page[page.find("id=\"precision-coverage-0\"").unwrap()..];
    let coverage_svg = &coverage_svg[..coverage_svg.find("</figure>").unwrap()];
    assert_eq!(count(coverage_svg, "<title>"), fired);
    assert!(!page.contains("No trained network in the cache yet"));
    assert!(!page.contains("No bench results cached"));
    // Nothing loaded from elsewhere.
    assert!(!page.contains("src=\"http") && !page.contains("href=\"http"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn absent_sections_say_so_in_one_line_on_trec() {
    let (file, corpora) = load(&root().join("examples/trec/trec.rules"));
    let dir = scratch("trec");
    let report = report_of(&file, &corpora, &dir.join("models"), &dir.join("bench"));
    assert!(report.curves.is_empty() && report.bench.is_empty());
    let page = render(&report).unwrap();
    assert!(page.contains("No trained network in the cache yet: run <code>rulelens train</code>"));
    assert!(page.contains("No bench results cached for these rules and corpora"));
    assert!(page.contains("Suggestions left out"));
    assert!(
        !page.contains("<svg class=\"chart\" id=\"training-curves\"")
            && !page.contains("<svg class=\"chart\" id=\"bench\"")
    );
    assert_eq!(count(&page, "<svg class=\"chart\""), 4);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn corpus_text_and_rules_text_are_escaped() {
    let dir = scratch("escape");
    std::fs::write(
        dir.join("x.rules"),
        "default ham\ncorpus dev \"dev.tsv\"\nspam: $* free $*\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("dev.tsv"),
        "spam\t<script>alert(1)</script> win & \"prize\"\nham\tfree lunch\n",
    )
    .unwrap();
    let (file, corpora) = load(&dir.join("x.rules"));
    let report = report_of(&file, &corpora, &dir.join("models"), &dir.join("bench"));
    assert_eq!(report.corpora[0].misclassified.total, 2);
    let page = render(&report).unwrap();
    assert!(!page.contains("<script>alert(1)"));
    assert!(
        page.contains("&lt;script&gt;alert(1)&lt;&#x2f;script&gt; win &amp; &quot;prize&quot;")
    );
    // The page's own script is its only one.
    assert_eq!(count(&page, "<script"), 1);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn rulelens(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_rulelens"))
        .args(args)
        .current_dir(root())
        .output()
        .unwrap()
}

#[test]
fn the_command_writes_the_page_and_refuses_bad_input() {
    let dir = scratch("cli");
    let out = dir.join("sms.html");
    let output = rulelens(&[
        "report",
        "examples/sms/sms.rules",
        "--no-suggest",
        "--model-cache",
        dir.to_str().unwrap(),
        "--bench-cache",
        dir.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let page = std::fs::read_to_string(&out).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("Suggestions left out"));

    // `-o` a folder, or in a folder that does not exist: a usage error before any work.
    let folder = rulelens(&[
        "report",
        "examples/sms/sms.rules",
        "-o",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(folder.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&folder.stderr).contains("is a folder"));
    let missing = dir.join("no/such/report.html");
    let missing = rulelens(&[
        "report",
        "examples/sms/sms.rules",
        "-o",
        missing.to_str().unwrap(),
    ]);
    assert_eq!(missing.status.code(), Some(2));

    // Rules with errors: their diagnostics, with line and column, and exit 1.
    std::fs::write(dir.join("bad.rules"), "default ham\nspam: $* ( free $*\n").unwrap();
    let bad = rulelens(&[
        "report",
        dir.join("bad.rules").to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(bad.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert!(stderr.contains("bad.rules:2:"), "{stderr}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// On corpora without gold labels the report shows the label model's estimates: each rule's
/// estimated precision in the rules table, the same as `rulelens check` computes; and the
/// training curve of a network whose dev had no gold label is named for what it measured,
/// agreement with the label model, not accuracy.
#[test]
fn unlabeled_corpora_get_the_label_models_estimates() {
    let rules_path = root().join("examples/sms/sms.rules");
    let (file, mut corpora) = load(&rules_path);
    for corpus in &mut corpora {
        for example in &mut corpus.file.examples {
            example.label = None;
        }
    }
    let dir = scratch("unlabeled");
    let folder = dir.join("models").join("sms-0123456789abcdef");
    std::fs::create_dir_all(&folder).unwrap();
    let curve = [0.52, 0.9, 0.94];
    let mut taught = manifest(&file, &curve);
    taught.metrics.label_model = Some(checkpoint::LabelModelMetrics {
        gold_lines: 0,
        unlabeled_lines: 1838,
        estimated_accuracy: 0.92,
        dev_from_label_model: true,
        network_from_gold: false,
        silence_teaches_default: false,
        encoder_teaches: false,
        silence_rules_reach: None,
    });
    std::fs::write(
        folder.join(checkpoint::MANIFEST_FILE),
        serde_json::to_vec(&taught).unwrap(),
    )
    .unwrap();
    let report = report_of(&file, &corpora, &dir.join("models"), &dir.join("bench"));
    assert_eq!(report.curves.len(), 1);
    let page = render(&report).unwrap();
    let curves_svg = &page[page.find("data-chart=\"training-curves\"").unwrap()..];
    let curves_svg = &curves_svg[..curves_svg.find("</figure>").unwrap()];
    assert!(curves_svg.contains("Dev agreement with the label model per epoch"));
    assert_eq!(
        count(curves_svg, "dev agreement with the label model"),
        // the axis, and a hover title per epoch
        1 + curve.len(),
        "{curves_svg}"
    );
    assert!(!curves_svg.contains("ev accuracy"), "{curves_svg}");
    let rules = labeling_rules(&file);
    let train = &report.corpora[0];
    let estimates = train.estimates.as_ref().expect("estimates");
    let expected = rulelens::labeling::estimate(&file, &rules, &corpora[0].file.examples).unwrap();
    assert_eq!(estimates, &expected);
    assert_eq!(estimates.n_unlabeled, 4502);
    // Every line a rule fired on is counted as unlabeled, none as wrong.
    assert!(
        train
            .rules
            .iter()
            .all(|s| s.incorrect == 0 && s.correct == 0)
    );
    assert!(train.rules.iter().any(|s| s.unlabeled > 0));
    let first = estimates.precision[0].unwrap();
    assert!(page.contains("est. precision"));
    assert!(page.contains(&format!("{:.1} %", 100.0 * first)), "{first}");
    std::fs::remove_dir_all(&dir).unwrap();
}

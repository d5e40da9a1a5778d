//! `rulelens eval MODEL_DIR --corpus F [--format json] [--zero-shot]`: a checkpoint's
//! network on a labeled corpus, beside the exact rule system it was compiled from.

use super::output::Format;
use super::table::{Table, percent};
use crate::cli::{out, outln, outln_data};
use rulelens::automata::LabelMetrics;
use rulelens::corpus;
use rulelens::limits::ReadLimits;
use rulelens::model::{
    DeviceKind, LoadedModel, Sentence, load_model, predict, training_data_sha256,
};
use rulelens::text::tokenize;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// `rulelens eval`'s arguments.
#[derive(clap::Args)]
pub struct EvalArgs {
    /// A checkpoint folder written by `rulelens train`.
    model_dir: PathBuf,
    #[arg(long, value_name = "FILE")]
    corpus: PathBuf,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Evaluate the untrained network compiled from the rules.
    #[arg(long)]
    zero_shot: bool,
    #[arg(long, value_enum, default_value_t = DeviceKind::Cpu)]
    device: DeviceKind,
}

pub fn run(args: EvalArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let device = &super::device::open(args.device)?;
    let (model_dir, corpus_path) = (args.model_dir.as_path(), args.corpus.as_path());
    let (json_output, zero_shot) = (args.format == Format::Json, args.zero_shot);
    let model = load_model(model_dir, zero_shot, device, read_limits)?;
    let file = corpus::read_file(corpus_path, read_limits)?;
    let (
        LoadedModel {
            manifest,
            rules,
            net,
            vocabulary,
        },
        opened_words,
    ) = opened_to_corpus(model, &file)?;
    let system = &rules.system;
    let max_tokens = manifest.settings.max_sentence_tokens;
    let sentences: Vec<Sentence> = file
        .examples
        .iter()
        .map(|e| Sentence::new(system, vocabulary.as_ref(), &tokenize(&e.text), max_tokens))
        .collect();
    let refs: Vec<&Sentence> = sentences.iter().collect();
    let predictions = predict(net.as_ref(), &refs, 256, device)?;

    // The network's labels, then the gold labels it does not know, in order of first
    // appearance: their lines count in every table, as lines it cannot get right.
    let mut names: Vec<String> = system.labels().to_vec();
    for gold in file.examples.iter().filter_map(|e| e.label.as_deref()) {
        if !names.iter().any(|name| name == gold) {
            names.push(gold.to_string());
        }
    }
    let mut labels = vec![LabelMetrics::default(); names.len()];
    let mut confusion = vec![vec![0usize; names.len()]; names.len()];
    let (mut n_labeled, mut correct, mut rules_correct, mut agree) =
        (0usize, 0usize, 0usize, 0usize);
    for (example, &predicted) in file.examples.iter().zip(&predictions) {
        let rule_prediction = system.classify(&example.text).prediction.map(|l| l.0);
        agree += usize::from(rule_prediction == Some(predicted));
        let Some(gold_name) = example.label.as_deref() else {
            continue;
        };
        n_labeled += 1;
        let gold = names.iter().position(|name| name == gold_name).unwrap_or(0);
        let predicted = predicted as usize;
        correct += usize::from(gold == predicted);
        rules_correct += usize::from(rule_prediction.map(|l| l as usize) == Some(gold));
        labels[predicted].predicted += 1;
        labels[gold].support += 1;
        confusion[gold][predicted] += 1;
        if gold == predicted {
            labels[gold].true_positives += 1;
        }
    }
    let ratio = |a: usize, b: usize| (b > 0).then(|| a as f64 / b as f64);
    let accuracy = ratio(correct, n_labeled);
    let rules_accuracy = ratio(rules_correct, n_labeled);
    let agreement = ratio(agree, file.examples.len());
    // The dev corpus the n-gram regression was fitted again with: its figure flatters.
    let refit_on_corpus = manifest
        .metrics
        .ngram_regression
        .as_ref()
        .and_then(|regression| regression.refit.as_ref())
        .filter(|refit| {
            !zero_shot && training_data_sha256(&[], &file.examples) == refit.dev_sha256
        });

    if json_output {
        let report = json!({
            "model": model_dir.display().to_string(),
            "corpus": corpus_path.display().to_string(),
            "zero_shot": zero_shot,
            "examples": file.examples.len(),
            "labeled": n_labeled,
            "accuracy": accuracy,
            "rules_accuracy": rules_accuracy,
            "agreement_with_rules": agreement,
            "regression_fitted_on_corpus": refit_on_corpus.is_some(),
            "words_past_vocabulary": opened_words,
            "labels": names.iter().zip(&labels).map(|(name, m)| json!({
                "name": name,
                "support": m.support,
                "predicted": m.predicted,
                "precision": m.precision(),
                "recall": m.recall(),
                "f1": m.f1(),
            })).collect::<Vec<_>>(),
            "confusion": names.iter().zip(&confusion).map(|(gold, row)| {
                (gold.clone(), json!(names.iter().zip(row).map(|(p, n)| (p.clone(), json!(n))).collect::<serde_json::Map<_, _>>()))
            }).collect::<serde_json::Map<_, _>>(),
        });
        outln_data!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        outln!(
            "{} on {}{}: {} examples, {} labeled",
            model_dir.display(),
            corpus_path.display(),
            if zero_shot {
                " (untrained network)"
            } else {
                ""
            },
            file.examples.len(),
            n_labeled
        )?;
        outln!(
            "  accuracy {}   rule system {}   agreement with the rules {}\n",
            percent(accuracy),
            percent(rules_accuracy),
            percent(agreement)
        )?;
        if opened_words > 0 {
            outln!(
                "  {opened_words} words past the network's vocabulary read through their vectors \
                 and spellings\n"
            )?;
        }
        if let Some(refit) = refit_on_corpus {
            let learned = if manifest.metrics.trained_again_with_dev.is_some() {
                "the network was trained again and the n-gram regression fitted again"
            } else {
                "the n-gram regression was fitted again"
            };
            outln!(
                "  not held out: this is the dev corpus whose {} gold lines {learned} with; dev \
                 accuracy before that, as training measured it: {}\n",
                refit.dev_lines,
                percent(Some(manifest.metrics.dev_accuracy))
            )?;
        }
        let mut table = Table::new(&["label", "support", "predicted", "precision", "recall", "f1"]);
        for (name, m) in names.iter().zip(&labels) {
            table.row(vec![
                name.clone(),
                m.support.to_string(),
                m.predicted.to_string(),
                percent(m.precision()),
                percent(m.recall()),
                percent(m.f1()),
            ]);
        }
        out!("{}", table.render("  "))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `model` opened to the words of `file` past its vocabulary, which then read through their
/// vectors and spellings (`LoadedModel::opened_to`), and how many it was opened to.
fn opened_to_corpus(
    model: LoadedModel,
    file: &corpus::CorpusFile,
) -> candle_core::Result<(LoadedModel, usize)> {
    let texts: Vec<&str> = file.examples.iter().map(|e| e.text.as_str()).collect();
    let words = |model: &LoadedModel| model.vocabulary.as_ref().map_or(0, |v| v.len());
    Ok(match model.opened_to(&texts)? {
        Some(opened) => {
            let new = words(&opened) - words(&model);
            (opened, new)
        }
        None => (model, 0),
    })
}

//! `rulelens reconstruct MODEL_DIR` on a SoPa checkpoint: every learned (free) pattern read
//! back as a rule (`explain::read_back`) on the rules file's `corpus train` (or `--train`:
//! where regexes and thresholds are chosen) and `corpus dev` (or `--corpus`), with each regex's fidelity
//! to its pattern, its precision on train, its top phrases and the regex proxy's accuracy;
//! `--format rules` prints the rules file with the learned patterns added as rules.

use super::files::{checkpoint_corpus_path, read_corpus};
use super::output::RulesFormat;
use super::table::percent;
use crate::cli::{out_data, outln, outln_data};
use rulelens::automata::CompileConfig;
use rulelens::explain::{ReadBack, read_back};
use rulelens::limits::ReadLimits;
use rulelens::model::LoadedModel;
use rulelens::rules_file::RulesFile;
use rulelens::text::SourceText;
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Reads the learned patterns of `model`'s SoPa back and prints them as `output` asks.
pub fn run(
    model_dir: &Path,
    model: &LoadedModel,
    train: Option<&Path>,
    dev: Option<&Path>,
    output: RulesFormat,
    read_limits: &ReadLimits,
) -> anyhow::Result<ExitCode> {
    let LoadedModel {
        manifest,
        rules,
        net,
        vocabulary,
    } = model;
    let Some(vocabulary) = vocabulary else {
        anyhow::bail!(
            "{}: a SoPa checkpoint without a vocabulary",
            model_dir.display()
        );
    };
    let train_path = checkpoint_corpus_path(model, train, "train", "train")?;
    let dev_path = checkpoint_corpus_path(model, dev, "dev", "corpus")?;
    let train = read_corpus(&train_path, read_limits)?.examples;
    let dev = read_corpus(&dev_path, read_limits)?.examples;
    let Some(scorer) = net.sopa_scorer(vocabulary, manifest.settings.max_sentence_tokens) else {
        anyhow::bail!("{}: not a SoPa checkpoint", model_dir.display());
    };
    let scorer = scorer?;
    let read = read_back(&scorer, &train, &dev);
    let labels = rules.system.labels();
    match output {
        RulesFormat::Rules => {
            let (text, refused) = with_learned_rules(&rules.source.text, model_dir, labels, &read);
            for line in refused {
                eprintln!("warning: left out `{line}`: the rules file would not accept it");
            }
            out_data!("{text}")?;
        }
        RulesFormat::Json => {
            let report = json!({
                "model": model_dir.display().to_string(),
                "train": train_path.display().to_string(),
                "dev": dev_path.display().to_string(),
                "network_accuracy": { "train": read.network_train, "dev": read.network_dev },
                "proxy_accuracy": { "train": read.proxy_train, "dev": read.proxy_dev },
                "patterns": read.patterns.iter().map(|p| json!({
                    "name": format!("free.{}", p.index),
                    "label": labels[p.label],
                    "regex": p.regex,
                    "threshold": p.threshold,
                    "fidelity": { "train": p.fidelity_train, "dev": p.fidelity_dev },
                    "train_matches": p.train_matches,
                    "train_precision": p.train_precision,
                    "top_phrases": p.top_phrases,
                })).collect::<Vec<_>>(),
            });
            outln_data!("{report:#}")?;
        }
        RulesFormat::Text => {
            outln!(
                "{}: {} learned patterns read back on {} ({} sentences) and {} ({})",
                model_dir.display(),
                read.patterns.len(),
                train_path.display(),
                train.len(),
                dev_path.display(),
                dev.len()
            )?;
            outln!(
                "network accuracy: train {}, dev {}; with every learned pattern replaced by its regex: train {}, dev {}",
                percent(Some(read.network_train)),
                percent(read.network_dev),
                percent(Some(read.proxy_train)),
                percent(read.proxy_dev)
            )?;
            for p in &read.patterns {
                outln!()?;
                outln!("free.{} → {}: {}", p.index, labels[p.label], p.regex)?;
                outln!(
                    "    fires from score {:.3}; fidelity train {}, dev {}; {} train matches, precision {}",
                    p.threshold,
                    percent(Some(p.fidelity_train)),
                    percent(p.fidelity_dev),
                    p.train_matches,
                    percent(p.train_precision)
                )?;
                if !p.top_phrases.is_empty() {
                    outln!("    top phrases: {}", p.top_phrases.join(" | "))?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The rules file with each learned pattern added as a rule for its label, after a comment
/// naming the model; a rule the file would not accept (a label that is not a name, say) is
/// left out and returned.
fn with_learned_rules(
    original: &str,
    model_dir: &Path,
    labels: &[String],
    read: &ReadBack,
) -> (String, Vec<String>) {
    let mut text = original.to_string();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let _ = writeln!(
        text,
        "\n# Learned by the SoPa in {}, read back by `rulelens reconstruct`",
        model_dir.display()
    );
    let n_errors = |text: &str| {
        let file = RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &CompileConfig::default(),
        );
        file.diagnostics.iter().filter(|d| d.is_error()).count()
    };
    let errors_before = n_errors(&text);
    let mut refused = Vec::new();
    for p in &read.patterns {
        let line = format!("{}: {}", labels[p.label], p.regex);
        let candidate = format!("{text}{line}\n");
        if n_errors(&candidate) > errors_before {
            refused.push(line);
        } else {
            text = candidate;
        }
    }
    (text, refused)
}

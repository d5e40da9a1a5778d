//! `rulelens train RULES …`: compile the rules to an FA-RNN, FA-GRU, a bidirectional one
//! or a SoPa, train it on the labeled corpus and write a checkpoint (see `models/README.md`).

use super::files::{Shown, corpus_path, load_rules, print_diagnostics, read_corpus};
use crate::cli::outln;
use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use rulelens::automata::CompileConfig;
use rulelens::limits::{Limit, ReadLimits};
use rulelens::model::{
    EpochReport, FitError, FitEvent, Method, Reading, TrainingSettings, WARM_SCHEDULE, checkpoint,
    fit_from, load_previous,
};
use std::fs::{File, TryLockError};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `rulelens train` was asked for.
pub struct TrainArgs<'a> {
    pub rules: PathBuf,
    pub train: Option<PathBuf>,
    pub dev: Option<PathBuf>,
    pub settings: TrainingSettings,
    pub out: Option<PathBuf>,
    /// A checkpoint to warm-start from.
    pub from: Option<PathBuf>,
    pub read_limits: &'a ReadLimits,
}

pub fn run(args: TrainArgs) -> anyhow::Result<ExitCode> {
    // The flags first, before any work: a bad value is a usage error.
    if let Err(message) = args.settings.check() {
        eprintln!("error: {message}");
        return Ok(ExitCode::from(2));
    }
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args
            .rules
            .file_stem()
            .map_or_else(|| "model".into(), |s| s.to_string_lossy().into_owned());
        PathBuf::from("models").join(stem)
    });
    if out.exists() && !out.is_dir() {
        eprintln!(
            "error: --out {}: a file is there; the checkpoint is a folder",
            out.display()
        );
        return Ok(ExitCode::from(2));
    }
    let loaded = load_rules(&args.rules, &CompileConfig::default(), args.read_limits)?;
    if loaded.has_errors() {
        print_diagnostics(&Shown::of_rules(&loaded), &loaded.diagnostics);
        eprintln!(
            "error: {} has errors; fix them before training",
            args.rules.display()
        );
        return Ok(ExitCode::from(1));
    }
    let train_path = corpus_path(&loaded, args.train.as_deref(), "train")?;
    let dev_path = corpus_path(&loaded, args.dev.as_deref(), "dev")?;
    let train_file = read_corpus(&train_path, args.read_limits)?;
    let dev_file = read_corpus(&dev_path, args.read_limits)?;
    // Held until the checkpoint is written: a second `train --out` of the same folder
    // refuses at once instead of both writing and one being lost.
    let _lock = match lock_out(&out, args.read_limits)? {
        Ok(lock) => lock,
        Err(why) => {
            eprintln!("error: --out {}: {why}", out.display());
            return Ok(ExitCode::from(1));
        }
    };
    let previous = match &args.from {
        Some(dir) => {
            let device = args.settings.device.open().map_err(anyhow::Error::msg)?;
            Some(load_previous(dir, &device, args.read_limits)?)
        }
        None => None,
    };
    let progress = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(args.settings.epochs as u64);
        bar.set_style(
            ProgressStyle::with_template("epoch {pos}/{len} {bar:30} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        Some(bar)
    } else {
        None
    };
    let rules_name = args.rules.display().to_string();
    let mut warm = false;
    let mut on_event = |event: FitEvent| match event {
        FitEvent::Built {
            reading,
            n_states,
            free_states,
            rank,
            method,
            relative_error,
        } => eprintln!(
            "{rules_name}{}: {n_states} states{}, rank {rank} ({}, relative error {relative_error:.2e})",
            if reading == Reading::RightToLeft {
                " reversed"
            } else {
                ""
            },
            if free_states > 0 {
                format!(" and {free_states} free states")
            } else {
                String::new()
            },
            if method == Method::Exact {
                "exact"
            } else {
                "ALS"
            },
        ),
        FitEvent::BuiltSopa {
            chained,
            exact,
            free,
            word_dropout,
            mean_tokens,
        } => eprintln!(
            "{rules_name}: {chained} of {} rule patterns are soft patterns (the others keep their DFA), {free} free patterns; {:.0} % of words dropped in training ({mean_tokens:.1} tokens per train sentence on average)",
            chained + exact,
            word_dropout * 100.0
        ),
        FitEvent::BuiltBlackBox { model, parameters } => eprintln!(
            "{}: {parameters} trained numbers, reading the words alone (the rules name the corpora and labels)",
            model.display_name()
        ),
        FitEvent::CorpusLabels { labels } => eprintln!(
            "the train corpus has {} label{} the rules do not name ({}); the {} learns {} {}",
            labels.len(),
            if labels.len() == 1 { "" } else { "s" },
            labels.join(", "),
            args.settings.model.display_name(),
            if labels.len() == 1 { "it" } else { "them" },
            args.settings.model.how_it_learns_unnamed_labels()
        ),
        FitEvent::ReversedTooLarge { pattern } => eprintln!(
            "warning: the reversed automaton of pattern `{pattern}` passes the state cap; the backward direction ignores the pattern"
        ),
        FitEvent::Data {
            n_train,
            n_dev,
            n_truncated,
            n_dropped,
        } => {
            eprintln!("{n_train} training and {n_dev} dev sentences");
            if n_dropped > 0 {
                eprintln!(
                    "{n_dropped} train line{} of labels the rules do not name left out (--drop-unnamed-labels); dev lines of such labels count as errors",
                    if n_dropped == 1 { "" } else { "s" }
                );
            }
            // A warm start's progress counts dev measurements.
            if let (true, Some(bar)) = (warm, &progress) {
                bar.set_length(
                    WARM_SCHEDULE.measurements(n_train, args.settings.batch_size) as u64,
                );
                bar.set_style(
                    ProgressStyle::with_template("dev measurement {pos}/{len} {bar:30} {msg}")
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
            }
            if n_truncated > 0 {
                let max = args.settings.max_sentence_tokens;
                eprintln!(
                    "warning: {n_truncated} sentence{} longer than {max} tokens; the network reads the first {max} (--max-sentence-tokens)",
                    if n_truncated == 1 { " is" } else { "s are" }
                );
            }
        }
        FitEvent::LabelModel(used) => {
            eprintln!(
                "{} gold train line{} and {} without a gold label, taught by the rules' label model (its estimated accuracy on them {:.2}%)",
                used.gold_lines,
                if used.gold_lines == 1 { "" } else { "s" },
                used.unlabeled_lines,
                100.0 * used.estimated_accuracy
            );
            if used.dev_from_label_model {
                eprintln!(
                    "dev has no gold label: training stops on agreement with the label model's most probable label of each dev line"
                );
            }
        }
        FitEvent::WarmStart(record) => {
            warm = true;
            eprintln!(
                "warm start: {} of {} patterns keep their trained parameters ({} new or changed, {} gone); rank {} kept + {} new",
                record.kept_patterns,
                record.kept_patterns + record.changed_patterns,
                record.changed_patterns,
                record.removed_patterns,
                record.kept_rank,
                record.new_rank
            )
        }
        FitEvent::FullTraining { why } => {
            eprintln!("training from scratch, not from the previous network: {why}")
        }
        FitEvent::Member {
            index,
            members,
            seed,
        } => {
            if let Some(bar) = &progress {
                bar.set_position(0);
            }
            eprintln!("ensemble member {} of {members} (seed {seed})", index + 1)
        }
        FitEvent::Ensemble {
            members,
            dev_accuracy,
        } => eprintln!(
            "the {members} members' logits averaged: dev accuracy {:.2}%",
            100.0 * dev_accuracy
        ),
        FitEvent::NgramRegression {
            n_features,
            c,
            weight,
            reused,
            dev_accuracy,
            kept,
        } => eprintln!(
            "with the n-gram regression beside it ({n_features} n-grams, C {c}, weight {weight}{}): dev accuracy {:.2}%{}",
            if reused {
                ", the previous network's"
            } else {
                ""
            },
            100.0 * dev_accuracy,
            if kept {
                ""
            } else {
                "; left out, as it lowers the network's"
            }
        ),
        FitEvent::Epoch(report) => {
            let line = epoch_line(report);
            match &progress {
                Some(bar) => {
                    bar.set_position(report.epoch as u64);
                    bar.set_message(line);
                }
                None if warm => eprintln!("dev measurement {}: {line}", report.epoch),
                None => eprintln!("epoch {}: {line}", report.epoch),
            }
        }
    };
    let fitted = fit_from(
        previous.as_ref(),
        &loaded,
        &train_file.examples,
        &dev_file.examples,
        &args.settings,
        args.read_limits,
        &mut on_event,
        &|| false,
    );
    let mut fitted = fitted.map_err(|error| match error {
        FitError::NoData { .. } => anyhow::anyhow!(
            "{error}: see {} and {}",
            train_path.display(),
            dev_path.display()
        ),
        error => anyhow::Error::new(error),
    })?;
    if let Some(bar) = &progress {
        bar.finish();
    }
    fitted.save(&out)?;
    let metrics = &fitted.manifest.metrics;
    let step = if fitted.manifest.warm_start.is_some() {
        "dev measurement"
    } else {
        "epoch"
    };
    let kept = if metrics.members.is_empty() {
        format!(
            "best {step} {} of {}",
            metrics.best_epoch, metrics.epochs_run
        )
    } else {
        let members: Vec<String> = metrics
            .members
            .iter()
            .map(|member| {
                format!(
                    "{:.2}% at {step} {} of {}",
                    100.0 * member.dev_accuracy,
                    member.best_epoch,
                    member.epochs_run
                )
            })
            .collect();
        format!(
            "{} members averaged, each alone {}",
            metrics.members.len(),
            members.join(", ")
        )
    };
    let kept = match &metrics.ngram_regression {
        Some(ngrams) => format!(
            "{kept}; with the n-gram regression, the network alone {:.2}%",
            100.0 * ngrams.network_dev_accuracy
        ),
        None => kept,
    };
    outln!(
        "dev accuracy {:.2}% ({} {:.2}%, {kept}); checkpoint written to {}",
        100.0 * metrics.dev_accuracy,
        fitted.manifest.started_from(),
        100.0 * metrics.zero_shot_dev_accuracy,
        out.display()
    )?;
    Ok(ExitCode::SUCCESS)
}

/// One epoch's line of progress.
fn epoch_line(report: &EpochReport) -> String {
    format!(
        "loss {}  dev accuracy {:.2}%{}{}",
        report
            .loss
            .map_or_else(|| "-".to_string(), |l| format!("{l:.4}")),
        100.0 * report.dev_accuracy,
        if report.best { " (best)" } else { "" },
        match report.skipped_batches {
            0 => String::new(),
            n => format!("  ({n} batches skipped: loss not finite)"),
        }
    )
}

/// The file whose lock a training holds in its `--out` folder.
const LOCK_FILE: &str = ".rulelens-train.lock";

/// Creates `out` and takes the lock of its [`LOCK_FILE`], or says why not: another training
/// holds it, or the folder has a `manifest.json` that is no rulelens checkpoint's (a
/// checkpoint's, of any format version, is written over: that is training again).
fn lock_out(out: &Path, limits: &ReadLimits) -> anyhow::Result<Result<File, String>> {
    let manifest = out.join(checkpoint::MANIFEST_FILE);
    if std::fs::symlink_metadata(&manifest).is_ok() {
        let bytes = limits.read(Limit::Manifest, &manifest).ok();
        let value =
            bytes.and_then(|bytes| serde_json::from_slice::<serde_json::Value>(&bytes).ok());
        if value.is_none_or(|value| value.get("format_version").is_none()) {
            return Ok(Err(format!(
                "{} is not a rulelens checkpoint's, and would be written over; choose another folder",
                manifest.display()
            )));
        }
    }
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let path = out.join(LOCK_FILE);
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    match lock.try_lock() {
        Ok(()) => Ok(Ok(lock)),
        Err(TryLockError::WouldBlock) => Ok(Err(
            "another `rulelens train` is writing a checkpoint there; wait for it, or choose another folder".to_string(),
        )),
        Err(TryLockError::Error(error)) => {
            Err(error).with_context(|| format!("cannot lock {}", path.display()))
        }
    }
}

//! `rulelens train RULES …`: compile the rules to an FA-RNN, FA-GRU, a bidirectional one
//! or a SoPa, train it on the labeled corpus and write a checkpoint (see `models/README.md`).

use super::files::{Shown, corpus_path, load_rules, print_diagnostics, read_corpus};
use crate::cli::outln;
use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressStyle};
use rulelens::automata::CompileConfig;
use rulelens::limits::{Limit, ReadLimits};
use rulelens::model::{
    FitError, FitEvent, Fitted, TrainingSettings, WARM_SCHEDULE, checkpoint, fit_from,
    load_previous,
};
use std::fs::{File, TryLockError};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `rulelens train`'s arguments.
#[derive(clap::Args)]
pub struct TrainArgs {
    /// The `.rules` file.
    rules: PathBuf,
    /// Training corpus; default: the rules file's `corpus train` binding.
    #[arg(long, value_name = "FILE")]
    train: Option<PathBuf>,
    /// Dev corpus for early stopping; default: the `corpus dev` binding.
    #[arg(long, value_name = "FILE")]
    dev: Option<PathBuf>,
    #[command(flatten)]
    settings: TrainingSettings,
    /// Checkpoint folder; default: models/<rules-stem>/.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// Start from this checkpoint of an earlier text of the rules (a warm start): the
    /// patterns that did not change keep their trained parameters and the network is
    /// fine-tuned briefly. Trains from scratch, saying why, when the settings or the
    /// data differ or most patterns changed.
    #[arg(long, value_name = "CHECKPOINT")]
    from: Option<PathBuf>,
}

pub fn run(args: TrainArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let device = super::device::open(args.settings.device)?;
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
    let loaded = load_rules(&args.rules, &CompileConfig::default(), read_limits)?;
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
    let train_file = read_corpus(&train_path, read_limits)?;
    let dev_file = read_corpus(&dev_path, read_limits)?;
    // Held until the checkpoint is written: a second `train --out` of the same folder
    // refuses at once instead of both writing and one being lost.
    let _lock = match lock_out(&out, read_limits)? {
        Ok(lock) => lock,
        Err(why) => {
            eprintln!("error: --out {}: {why}", out.display());
            return Ok(ExitCode::from(1));
        }
    };
    let previous = match &args.from {
        Some(dir) => Some(load_previous(dir, &device, read_limits)?),
        None => None,
    };
    let mut progress = TrainingProgress::new(&args);
    let mut on_event = |event: FitEvent| progress.say(event);
    let fitted = fit_from(
        previous.as_ref(),
        &loaded,
        &train_file.examples,
        &dev_file.examples,
        &args.settings,
        read_limits,
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
    progress.finish();
    fitted.save(&out)?;
    outln!("{}", summary(&fitted, &out))?;
    Ok(ExitCode::SUCCESS)
}

/// What `train` says as it goes, on standard error: a progress bar on a terminal (of
/// epochs, or of a warm start's dev measurements), else a line per epoch; and every other
/// event's lines ([`FitEvent::lines`]), a network's shape said of the rules file.
struct TrainingProgress {
    bar: Option<ProgressBar>,
    /// A warm start: its progress counts dev measurements, not epochs.
    warm: bool,
    rules_name: String,
    batch_size: usize,
}

impl TrainingProgress {
    fn new(args: &TrainArgs) -> TrainingProgress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(args.settings.epochs as u64);
            bar.set_style(
                ProgressStyle::with_template("epoch {pos}/{len} {bar:30} {msg}")
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        TrainingProgress {
            bar,
            warm: false,
            rules_name: args.rules.display().to_string(),
            batch_size: args.settings.batch_size,
        }
    }

    fn say(&mut self, event: FitEvent) {
        match &event {
            FitEvent::WarmStart(_) => self.warm = true,
            // A warm start's progress counts dev measurements.
            FitEvent::Data { n_train, .. } => {
                if let (true, Some(bar)) = (self.warm, &self.bar) {
                    bar.set_length(WARM_SCHEDULE.measurements(*n_train, self.batch_size) as u64);
                    bar.set_style(
                        ProgressStyle::with_template("dev measurement {pos}/{len} {bar:30} {msg}")
                            .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                }
            }
            FitEvent::Member { .. } => {
                if let Some(bar) = &self.bar {
                    bar.set_position(0);
                }
            }
            FitEvent::Epoch(report, figure) => {
                let line = report.summary(*figure);
                match &self.bar {
                    Some(bar) => {
                        bar.set_position(report.epoch as u64);
                        bar.set_message(line);
                    }
                    None if self.warm => eprintln!("dev measurement {}: {line}", report.epoch),
                    None => eprintln!("epoch {}: {line}", report.epoch),
                }
            }
            _ => {}
        }
        let of_rules = matches!(event, FitEvent::Built { .. } | FitEvent::BuiltSopa { .. });
        for line in event.lines() {
            let line = if of_rules {
                format!("{}: {line}", self.rules_name)
            } else {
                line
            };
            match &self.bar {
                Some(bar) => bar.println(line),
                None => eprintln!("{line}"),
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}

/// The last line: the network's dev accuracy beside the untrained one's, the epoch (or an
/// ensemble's members' epochs) kept, the n-gram regression's share, and where the
/// checkpoint went.
fn summary(fitted: &Fitted, out: &Path) -> String {
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
    format!(
        "{} {:.2}% ({} {:.2}%, {kept}); checkpoint written to {}",
        metrics.dev_figure().name(),
        100.0 * metrics.dev_accuracy,
        fitted.manifest.started_from(),
        100.0 * metrics.zero_shot_dev_accuracy,
        out.display()
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

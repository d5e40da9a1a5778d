//! `rulelens bench RULES [--models LIST] [--fractions LIST] [--seeds N]`: every model family
//! trained on the rules file's corpora and measured on all of dev, printed as a Markdown
//! table (mean ± standard deviation over seeds, by fraction of train) or as JSON.

use super::files::{Shown, corpus_path, load_rules, print_diagnostics, read_corpus};
use crate::cli::{out, outln, outln_data};
use clap::ValueEnum;
use indicatif::{ProgressBar, ProgressStyle};
use rulelens::automata::CompileConfig;
use rulelens::limits::ReadLimits;
use rulelens::model::{DeviceKind, FitEvent, TrainingSettings};
use rulelens::project::bench::{
    BenchData, BenchEvent, BenchPlan, Cell, Contender, RunResult, cached_results, run_bench,
    summarize,
};
use serde_json::json;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

/// How `rulelens bench` prints its table.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum BenchFormat {
    Markdown,
    Json,
}

/// `rulelens bench`'s arguments.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// The `.rules` file.
    rules: PathBuf,
    /// Training corpus; default: the rules file's `corpus train` binding.
    #[arg(long, value_name = "FILE")]
    train: Option<PathBuf>,
    /// Dev corpus (early stopping and the figures); default: the `corpus dev` binding.
    #[arg(long, value_name = "FILE")]
    dev: Option<PathBuf>,
    /// The models, comma-separated.
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = Contender::parse,
          default_values_t = Contender::ALL)]
    models: Vec<Contender>,
    /// Shares of train, comma-separated (evenly spaced lines; at 1 % or less early
    /// stopping reads as few dev lines, the figure is all of dev's).
    #[arg(
        long,
        value_name = "LIST",
        value_delimiter = ',',
        default_values_t = rulelens::project::bench::DEFAULT_FRACTIONS
    )]
    fractions: Vec<f64>,
    /// Seeds 0 to N − 1 for each model and share.
    #[arg(long, value_name = "N", default_value_t = rulelens::project::bench::DEFAULT_SEEDS)]
    seeds: u64,
    /// Word vectors in the GloVe text format; default: the bundled ones.
    #[arg(long, value_name = "FILE")]
    embeddings: Option<PathBuf>,
    /// The most passes over train of each run.
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.epochs)]
    epochs: usize,
    /// Epochs without a better dev accuracy before a run stops (never fewer than make
    /// 100 updates).
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.patience)]
    patience: usize,
    /// Sentences per update.
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.batch_size)]
    batch_size: usize,
    #[arg(long, value_enum, default_value_t = DeviceKind::Cpu)]
    device: DeviceKind,
    #[arg(long, value_enum, default_value_t = BenchFormat::Markdown)]
    format: BenchFormat,
    /// Where each run's result is kept, so that a bench run again trains only what it
    /// has not measured; default: $XDG_CACHE_HOME/rulelens/bench (~/.cache/rulelens/bench).
    #[arg(long, value_name = "DIR")]
    cache: Option<PathBuf>,
    /// Train every run, reading and keeping no result.
    #[arg(long, conflicts_with = "cached_only")]
    no_cache: bool,
    /// Train nothing: the table of the runs the cache holds (another bench may still be
    /// measuring the rest).
    #[arg(long)]
    cached_only: bool,
}

impl BenchArgs {
    /// The runs asked for.
    fn plan(&self) -> BenchPlan {
        BenchPlan {
            contenders: self.models.clone(),
            fractions: self.fractions.clone(),
            seeds: (0..self.seeds).collect(),
            settings: TrainingSettings {
                embeddings: self.embeddings.clone(),
                epochs: self.epochs,
                patience: self.patience,
                batch_size: self.batch_size,
                device: self.device,
                ..TrainingSettings::DEFAULT
            },
        }
    }
}

pub fn run(args: BenchArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let plan = args.plan();
    // Where run results are kept; `None`: train every run.
    let cache = (!args.no_cache).then(|| {
        args.cache
            .clone()
            .unwrap_or_else(rulelens::project::default_bench_root)
    });
    let json_output = args.format == BenchFormat::Json;
    // The flags first, before any work: a bad value is a usage error.
    if let Err(message) = plan.check() {
        eprintln!("error: {message}");
        return Ok(ExitCode::from(2));
    }
    let loaded = load_rules(&args.rules, &CompileConfig::default(), read_limits)?;
    if loaded.has_errors() {
        print_diagnostics(&Shown::of_rules(&loaded), &loaded.diagnostics);
        eprintln!(
            "error: {} has errors; fix them before a bench",
            args.rules.display()
        );
        return Ok(ExitCode::from(1));
    }
    let train_path = corpus_path(&loaded, args.train.as_deref(), "train")?;
    let dev_path = corpus_path(&loaded, args.dev.as_deref(), "dev")?;
    let train_file = read_corpus(&train_path, read_limits)?;
    let dev_file = read_corpus(&dev_path, read_limits)?;
    let data = BenchData {
        rules: &loaded,
        train: &train_file.examples,
        dev: &dev_file.examples,
    };
    let total = plan.runs().len();
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = ProgressBar::new(total as u64);
        bar.set_style(
            ProgressStyle::with_template("run {pos}/{len} {bar:30} {elapsed_precise} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let say = |line: String| match &bar {
        Some(bar) => bar.println(line),
        None => eprintln!("{line}"),
    };
    let mut current = String::new();
    let mut failures: Vec<(String, String)> = Vec::new();
    let mut on_event = |event: BenchEvent| match event {
        BenchEvent::Starting {
            index, run, cached, ..
        } => {
            current = run_name(run.contender, run.fraction, run.seed);
            if let Some(bar) = &bar {
                bar.set_position(index as u64);
                bar.set_message(format!(
                    "{current}{}",
                    if cached { " (cached)" } else { "" }
                ));
            }
        }
        BenchEvent::Training(FitEvent::Epoch(report, figure)) => {
            if let Some(bar) = &bar {
                bar.set_message(format!(
                    "{current}: epoch {}, {} {:.2} %",
                    report.epoch,
                    figure.name(),
                    100.0 * report.dev_accuracy
                ));
            }
        }
        BenchEvent::Training(_) => {}
        BenchEvent::Finished(result) => {
            say(format!(
                "{current}: dev {:.2} %{}",
                100.0 * result.dev_accuracy,
                if result.cached {
                    " (cached)".to_string()
                } else if result.epochs_run > 0 {
                    format!(
                        ", epoch {} of {}, {:.1} s",
                        result.best_epoch, result.epochs_run, result.seconds
                    )
                } else {
                    String::new()
                }
            ));
            if let Some(bar) = &bar {
                bar.inc(1);
            }
        }
        BenchEvent::Failed { run, message } => {
            let name = run_name(run.contender, run.fraction, run.seed);
            say(format!("{name}: failed: {message}"));
            failures.push((name, message));
        }
    };
    let results = match (&cache, args.cached_only) {
        (Some(cache), true) => cached_results(&data, &plan, cache, read_limits),
        _ => run_bench(
            &data,
            &plan,
            cache.as_deref(),
            read_limits,
            &mut on_event,
            &|| false,
        ),
    };
    if let Some(bar) = &bar {
        bar.finish_and_clear();
    }
    let cells = summarize(&plan, &results);
    let n_labeled = dev_file
        .examples
        .iter()
        .filter(|e| e.label.is_some())
        .count();
    if json_output {
        let report = json!({
            "rules": args.rules.display().to_string(),
            "train": train_path.display().to_string(),
            "dev": dev_path.display().to_string(),
            "dev_labeled": n_labeled,
            "models": plan.contenders,
            "fractions": plan.fractions,
            "seeds": plan.seeds,
            "settings": plan.settings.resolved(),
            "cells": cells,
            "runs": results,
            "failures": failures.iter().map(|(run, message)| json!({"run": run, "message": message})).collect::<Vec<_>>(),
        });
        outln_data!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        outln!(
            "Dev accuracy (%) on {} ({n_labeled} labeled lines), by share of {} trained on; mean ± sd over seeds {} (each seed's in brackets).\n",
            dev_path.display(),
            train_path.display(),
            plan.seeds
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )?;
        out!("{}", markdown(&plan, &cells, &results))?;
    }
    Ok(if failures.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `FA-RNN 10 % seed 1`.
fn run_name(contender: Contender, fraction: f64, seed: u64) -> String {
    match contender {
        Contender::Rules => contender.display_name().to_string(),
        Contender::Baseline(_) => {
            format!("{} {}", contender.display_name(), fraction_name(fraction))
        }
        Contender::Network(_) => format!(
            "{} {} seed {seed}",
            contender.display_name(),
            fraction_name(fraction)
        ),
    }
}

/// `100 %`, `10 %`, `1 %`.
fn fraction_name(fraction: f64) -> String {
    format!("{} %", 100.0 * fraction)
}

/// The table: a row per contender, a column per fraction, then the mean seconds of a run on
/// the first fraction.
fn markdown(plan: &BenchPlan, cells: &[Cell], results: &[RunResult]) -> String {
    let mut out = String::from("| model |");
    for &fraction in &plan.fractions {
        out += &format!(" {} |", fraction_name(fraction));
    }
    let first = plan.fractions[0];
    out += &format!(" seconds per run ({}) |\n| --- |", fraction_name(first));
    out += &" ---: |".repeat(plan.fractions.len() + 1);
    out.push('\n');
    for &contender in &plan.contenders {
        out += &format!("| {} |", contender.display_name());
        for &fraction in &plan.fractions {
            let cell = cells
                .iter()
                .find(|c| c.model == contender && c.fraction == fraction);
            let values = |cell: &Cell| -> String {
                let values: Vec<String> = cell.values.iter().map(|v| format!("{v:.1}")).collect();
                // Seeds not all measured (a bench stopped early, --cached-only): say which.
                if cell.seeds.len() == plan.seeds.len() {
                    values.join(", ")
                } else {
                    let seeds: Vec<String> = cell.seeds.iter().map(u64::to_string).collect();
                    format!("{}; seed {}", values.join(", "), seeds.join(", "))
                }
            };
            out += &match cell {
                None => " – |".to_string(),
                Some(cell) if contender.is_deterministic() => format!(" {:.2} |", cell.mean),
                Some(cell) if cell.values.len() == 1 && plan.seeds.len() == 1 => {
                    format!(" {:.2} |", cell.mean)
                }
                Some(cell) if cell.values.len() == 1 => {
                    format!(" {:.2} ({}) |", cell.mean, values(cell))
                }
                Some(cell) => format!(" {:.2} ± {:.2} ({}) |", cell.mean, cell.sd, values(cell)),
            };
        }
        let seconds: Vec<f64> = results
            .iter()
            .filter(|r| {
                r.model == contender && (contender == Contender::Rules || r.fraction == first)
            })
            .map(|r| r.seconds)
            .collect();
        out += &if seconds.is_empty() {
            " – |\n".to_string()
        } else {
            format!(
                " {:.1} |\n",
                seconds.iter().sum::<f64>() / seconds.len() as f64
            )
        };
    }
    out
}

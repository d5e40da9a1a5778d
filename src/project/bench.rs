//! Every model family on a rules file's corpora, side by side (`rulelens bench`, and the
//! editor's yardstick lens): the rule system, the plain baselines any ML engineer tries
//! first (logistic regression on mean word vectors and on tf-idf, deterministic: one run per
//! fraction), the networks compiled from the rules (FA-RNN, FA-GRU and their bidirectional
//! versions), SoPa and the black boxes that read words alone (`ModelKind::is_black_box`),
//! each trained on fractions of train with several seeds, as the FA-RNN paper's tables are,
//! and measured on the **whole** dev set.
//!
//! Each run's result is kept in a cache folder under a key over everything it depends on
//! ([`run_key`]), so that a bench run again, or with more seeds, trains only what it has
//! not measured, and the editor can show a yardstick measured earlier without training.

use super::cache::cache_key;
use crate::automata::evaluate;
use crate::corpus::Example;
use crate::limits::{Limit, ReadLimits};
use crate::model::{
    Baseline, BaselineLine, FitEvent, ModelKind, Sentence, TrainingSettings, VectorSource,
    evenly_spaced, fit, fit_baseline, predict, read_vectors, training_data_sha256, vocabulary,
};
use crate::rules_file::RulesFile;
use crate::text::tokenize;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What a bench compares: the rule system itself, or a network trained from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Contender {
    /// The exact rule system (trains nothing: the same figure at every fraction and seed).
    Rules,
    /// A network of this kind, trained on the corpora.
    #[serde(untagged)]
    Network(ModelKind),
    /// A plain baseline (deterministic: the same figure for every seed).
    #[serde(untagged)]
    Baseline(Baseline),
}

impl Contender {
    /// Every contender, in the order a table lists them: the rules, the plain baselines, then
    /// every model kind in `ModelKind::TABLE`'s order (the networks compiled from the rules,
    /// SoPa, the black boxes).
    pub const ALL: [Contender; 1 + Baseline::ALL.len() + ModelKind::ALL.len()] = {
        let mut all = [Contender::Rules; 1 + Baseline::ALL.len() + ModelKind::ALL.len()];
        let mut i = 0;
        while i < Baseline::ALL.len() {
            all[1 + i] = Contender::Baseline(Baseline::ALL[i]);
            i += 1;
        }
        let mut k = 0;
        while k < ModelKind::ALL.len() {
            all[1 + Baseline::ALL.len() + k] = Contender::Network(ModelKind::ALL[k]);
            k += 1;
        }
        all
    };

    /// The name `--models` takes and JSON writes: `rules`, or the model's `--model` name.
    pub fn name(self) -> &'static str {
        match self {
            Contender::Rules => "rules",
            Contender::Network(model) => model.name(),
            Contender::Baseline(baseline) => baseline.name(),
        }
    }

    /// Whether every seed gives the same figure (the rule system and the baselines), so
    /// that a bench makes one run per fraction, with the first seed.
    pub fn is_deterministic(self) -> bool {
        !matches!(self, Contender::Network(_))
    }

    /// The name a table shows: `rule system`, `FA-RNN`, `S-LSTM`, ….
    pub fn display_name(self) -> &'static str {
        match self {
            Contender::Rules => "rule system",
            Contender::Network(model) => model.display_name(),
            Contender::Baseline(baseline) => baseline.display_name(),
        }
    }

    /// The contender `name` names ([`Contender::name`]).
    pub fn parse(name: &str) -> Result<Contender, String> {
        Contender::ALL
            .into_iter()
            .find(|contender| contender.name() == name.trim())
            .ok_or_else(|| {
                let names: Vec<&str> = Contender::ALL.iter().map(|c| c.name()).collect();
                format!(
                    "unknown model `{}`; expected one of {}",
                    name.trim(),
                    names.join(", ")
                )
            })
    }
}

impl std::fmt::Display for Contender {
    /// [`Contender::name`], the name `--models` takes.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// What a bench runs: each contender at each fraction of train with each seed, every other
/// training setting from `settings` (each model's own step size and dropout unless
/// `settings` names one).
#[derive(Debug, Clone)]
pub struct BenchPlan {
    pub contenders: Vec<Contender>,
    pub fractions: Vec<f64>,
    pub seeds: Vec<u64>,
    pub settings: TrainingSettings,
}

/// The most runs one bench may ask for (contenders × fractions × seeds): beyond it a typo.
pub const MAX_BENCH_RUNS: usize = 10_000;

/// The shares of train `rulelens bench` measures when `--fractions` names none.
pub const DEFAULT_FRACTIONS: [f64; 3] = [1.0, 0.1, 0.01];

/// How many seeds (0 to N − 1) `rulelens bench` runs when `--seeds` names none.
pub const DEFAULT_SEEDS: u64 = 3;

impl BenchPlan {
    /// The plan of `rulelens bench` run without flags: every contender, at
    /// [`DEFAULT_FRACTIONS`], with [`DEFAULT_SEEDS`] seeds and the default training settings
    /// (what `rulelens report` looks up in the bench's cache).
    pub fn standard() -> BenchPlan {
        BenchPlan {
            contenders: Contender::ALL.to_vec(),
            fractions: DEFAULT_FRACTIONS.to_vec(),
            seeds: (0..DEFAULT_SEEDS).collect(),
            settings: TrainingSettings::DEFAULT,
        }
    }

    /// The runs in the order they are made: for each seed, each fraction, each contender
    /// (so that the first seed's whole table comes first, and a bench stopped early has
    /// every cell); the rule system once, trained on nothing, and a baseline once per
    /// fraction, with the first seed.
    pub fn runs(&self) -> Vec<RunSpec> {
        let mut runs = Vec::new();
        if self.contenders.contains(&Contender::Rules) {
            runs.push(RunSpec {
                contender: Contender::Rules,
                fraction: 1.0,
                seed: 0,
            });
        }
        for &seed in &self.seeds {
            for &fraction in &self.fractions {
                for &contender in &self.contenders {
                    let once = contender.is_deterministic() && seed != self.seeds[0];
                    if contender != Contender::Rules && !once {
                        runs.push(RunSpec {
                            contender,
                            fraction,
                            seed,
                        });
                    }
                }
            }
        }
        runs
    }

    /// Why the plan cannot run, or `Ok`.
    pub fn check(&self) -> Result<(), String> {
        if self.contenders.is_empty() || self.fractions.is_empty() || self.seeds.is_empty() {
            return Err("a bench needs at least one model, one fraction and one seed".into());
        }
        let n_runs = self.contenders.len() * self.fractions.len() * self.seeds.len();
        if n_runs > MAX_BENCH_RUNS {
            return Err(format!(
                "{n_runs} runs asked for, more than the {MAX_BENCH_RUNS} a bench may make"
            ));
        }
        for &fraction in &self.fractions {
            self.settings_of(RunSpec {
                contender: Contender::Network(ModelKind::FaRnn),
                fraction,
                seed: 0,
            })
            .check()?;
        }
        Ok(())
    }

    /// The training settings of one run.
    pub fn settings_of(&self, run: RunSpec) -> TrainingSettings {
        TrainingSettings {
            model: match run.contender {
                Contender::Network(model) => model,
                Contender::Rules | Contender::Baseline(_) => self.settings.model,
            },
            fraction: run.fraction,
            seed: run.seed,
            // Every run is measured on the whole dev set, so no run learns from it.
            hold_out_dev: true,
            ..self.settings.clone()
        }
    }
}

/// One run of a plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunSpec {
    pub contender: Contender,
    pub fraction: f64,
    pub seed: u64,
}

/// What one run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunResult {
    pub model: Contender,
    pub fraction: f64,
    pub seed: u64,
    /// Accuracy on every labeled line of dev, in [0, 1] (at 1 % training also stops early on
    /// a dev share as small as train, but the figure is the whole dev set's).
    pub dev_accuracy: f64,
    /// Labeled dev lines.
    pub dev_labeled: usize,
    /// Train lines the run trained on.
    pub train_examples: usize,
    /// Epochs run, and the one kept (0 for the rule system).
    pub epochs_run: usize,
    pub best_epoch: usize,
    /// Wall-clock seconds of the training and the measurement.
    pub seconds: f64,
    /// Whether the result came from the cache rather than from this bench.
    #[serde(default, skip_serializing)]
    pub cached: bool,
}

/// What [`run_bench`] reports as it goes.
#[derive(Debug)]
pub enum BenchEvent<'a> {
    /// A run starts (`index` of `total`); `cached` when its result is read, not trained.
    Starting {
        index: usize,
        total: usize,
        run: RunSpec,
        cached: bool,
    },
    /// The run's training reports (epochs, data, …).
    Training(FitEvent<'a>),
    /// The run ended with this result.
    Finished(&'a RunResult),
    /// The run failed; the others go on.
    Failed { run: RunSpec, message: String },
}

/// A bench's inputs: the rules and the examples of its train and dev corpora.
pub struct BenchData<'a> {
    pub rules: &'a RulesFile,
    pub train: &'a [Example],
    pub dev: &'a [Example],
}

/// Runs every run of `plan` on `data`, reading results from and writing them to `cache`
/// when given; a run that fails is reported and left out. Stops early, with what it has,
/// when `cancelled` says so.
pub fn run_bench(
    data: &BenchData,
    plan: &BenchPlan,
    cache: Option<&Path>,
    limits: &ReadLimits,
    on_event: &mut dyn FnMut(BenchEvent),
    cancelled: &dyn Fn() -> bool,
) -> Vec<RunResult> {
    let runs = plan.runs();
    let data_sha256 = training_data_sha256(data.train, data.dev);
    let mut results = Vec::new();
    for (index, &run) in runs.iter().enumerate() {
        if cancelled() {
            break;
        }
        let settings = plan.settings_of(run);
        let file =
            cache.map(|dir| result_file(dir, &run_key(data.rules, &settings, &data_sha256, run)));
        let stored = file.as_deref().and_then(|path| read_result(path, limits));
        on_event(BenchEvent::Starting {
            index,
            total: runs.len(),
            run,
            cached: stored.is_some(),
        });
        let outcome = match stored {
            Some(result) => Ok(result),
            None => measure(data, run, &settings, limits, on_event, cancelled),
        };
        match outcome {
            Ok(result) => {
                if let (Some(path), false) = (&file, result.cached) {
                    // A cache that cannot be written costs only a later retraining.
                    let _ = write_result(path, &result);
                }
                on_event(BenchEvent::Finished(&result));
                results.push(result);
            }
            Err(message) => on_event(BenchEvent::Failed { run, message }),
        }
    }
    results
}

/// The results of `plan` that `cache` holds already, without training anything: the
/// editor's yardstick between benches.
pub fn cached_results(
    data: &BenchData,
    plan: &BenchPlan,
    cache: &Path,
    limits: &ReadLimits,
) -> Vec<RunResult> {
    let data_sha256 = training_data_sha256(data.train, data.dev);
    plan.runs()
        .into_iter()
        .filter_map(|run| {
            let settings = plan.settings_of(run);
            cached_result(
                cache,
                &run_key(data.rules, &settings, &data_sha256, run),
                limits,
            )
        })
        .collect()
}

/// The result `cache` holds under the key `key` ([`run_key`]), if it has a readable one.
pub fn cached_result(cache: &Path, key: &str, limits: &ReadLimits) -> Option<RunResult> {
    read_result(&result_file(cache, key), limits)
}

/// Trains and measures one run.
fn measure(
    data: &BenchData,
    run: RunSpec,
    settings: &TrainingSettings,
    limits: &ReadLimits,
    on_event: &mut dyn FnMut(BenchEvent),
    cancelled: &dyn Fn() -> bool,
) -> Result<RunResult, String> {
    let started = Instant::now();
    if let Contender::Baseline(baseline) = run.contender {
        return measure_baseline(data, run, baseline, settings, limits, started);
    }
    let Contender::Network(_) = run.contender else {
        let system = &data.rules.system;
        let evaluation = evaluate(
            system,
            data.dev
                .iter()
                .map(|e| (e.text.as_str(), e.label.as_deref())),
        );
        return Ok(RunResult {
            model: run.contender,
            fraction: run.fraction,
            seed: run.seed,
            dev_accuracy: evaluation.accuracy().unwrap_or(0.0),
            dev_labeled: evaluation.n_labeled,
            train_examples: 0,
            epochs_run: 0,
            best_epoch: 0,
            seconds: started.elapsed().as_secs_f64(),
            cached: false,
        });
    };
    let fitted = fit(
        data.rules,
        data.train,
        data.dev,
        settings,
        limits,
        &mut |event| on_event(BenchEvent::Training(event)),
        cancelled,
    )
    .map_err(|error| error.to_string())?;
    // The whole dev set, whatever training stopped early on.
    let labels = &fitted.manifest.labels;
    let system = data.rules.system.with_labels(
        labels
            .iter()
            .skip(data.rules.system.labels().len())
            .map(String::as_str),
    );
    let labeled: Vec<&Example> = data.dev.iter().filter(|e| e.label.is_some()).collect();
    let sentences: Vec<Sentence> = labeled
        .iter()
        .map(|e| {
            Sentence::new(
                &system,
                fitted.vocabulary.as_ref(),
                &tokenize(&e.text),
                settings.max_sentence_tokens,
            )
        })
        .collect();
    let refs: Vec<&Sentence> = sentences.iter().collect();
    let device = settings.device.open()?;
    let predictions =
        predict(fitted.net.as_ref(), &refs, 256, &device).map_err(|error| error.to_string())?;
    let correct = labeled
        .iter()
        .zip(&predictions)
        .filter(|&(example, &predicted)| {
            labels.get(predicted as usize).map(String::as_str) == example.label.as_deref()
        })
        .count();
    let metrics = &fitted.manifest.metrics;
    Ok(RunResult {
        model: run.contender,
        fraction: run.fraction,
        seed: run.seed,
        dev_accuracy: if labeled.is_empty() {
            0.0
        } else {
            correct as f64 / labeled.len() as f64
        },
        dev_labeled: labeled.len(),
        train_examples: metrics.train_examples,
        epochs_run: metrics.epochs_run,
        best_epoch: metrics.best_epoch,
        seconds: started.elapsed().as_secs_f64(),
        cached: false,
    })
}

/// Fits and measures a baseline: on the run's share of train (as a network's `fit` takes
/// it), C chosen on dev (at 1 % or less on as many dev lines as train lines, as a network
/// stops early), measured on every labeled dev line; the labels are the rules' then the
/// train corpus's others, as a network's.
fn measure_baseline<'a>(
    data: &BenchData<'a>,
    run: RunSpec,
    baseline: Baseline,
    settings: &TrainingSettings,
    limits: &ReadLimits,
    started: Instant,
) -> Result<RunResult, String> {
    let mut labels: Vec<&str> = data
        .rules
        .system
        .labels()
        .iter()
        .map(String::as_str)
        .collect();
    for label in data.train.iter().filter_map(|e| e.label.as_deref()) {
        if !labels.contains(&label) {
            labels.push(label);
        }
    }
    let lines = |examples: &'a [Example]| -> Vec<BaselineLine<'a>> {
        examples
            .iter()
            .filter_map(|e| {
                let gold = e.label.as_deref()?;
                Some((e.text.as_str(), labels.iter().position(|l| *l == gold)))
            })
            .collect()
    };
    let all_train = lines(data.train);
    let train: Vec<BaselineLine> = evenly_spaced(all_train.len(), run.fraction)
        .into_iter()
        .map(|i| all_train[i])
        .collect();
    let dev = lines(data.dev);
    let selection: Vec<BaselineLine> = if run.fraction <= 0.01 {
        let share = train.len() as f64 / dev.len().max(1) as f64;
        evenly_spaced(dev.len(), share)
            .into_iter()
            .map(|i| dev[i])
            .collect()
    } else {
        dev.clone()
    };
    let words = match baseline {
        Baseline::MeanVectors => {
            let vocabulary = vocabulary(&data.rules.system, [data.train, data.dev]);
            let source = VectorSource::of(settings.embeddings.as_deref());
            let vectors =
                read_vectors(source, &vocabulary, limits).map_err(|error| error.to_string())?;
            Some((vocabulary, vectors))
        }
        Baseline::Tfidf => None,
    };
    let fitted = fit_baseline(
        baseline,
        labels.len(),
        &train,
        &selection,
        &dev,
        words.as_ref().map(|(v, w)| (v, w)),
    )
    .ok_or_else(|| "no labeled train line".to_string())?;
    Ok(RunResult {
        model: run.contender,
        fraction: run.fraction,
        seed: run.seed,
        dev_accuracy: fitted.accuracy,
        dev_labeled: dev.len(),
        train_examples: train.len(),
        epochs_run: 0,
        best_epoch: 0,
        seconds: started.elapsed().as_secs_f64(),
        cached: false,
    })
}

/// The key of one run's result: the checkpoint cache's key ([`cache_key`]) over what the
/// run reads of the rules (a black box and a baseline read only their labels, in order, so
/// that editing a rule keeps its yardstick), its settings and the corpora's examples, with
/// the run's contender in front (the rule system's figure depends on nothing else).
pub fn run_key(
    rules: &RulesFile,
    settings: &TrainingSettings,
    data_sha256: &str,
    run: RunSpec,
) -> String {
    let rules_part = match run.contender {
        Contender::Network(model) if model.is_black_box() => {
            format!("labels:{}", rules.system.labels().join("\n"))
        }
        Contender::Baseline(_) => format!("labels:{}", rules.system.labels().join("\n")),
        // The word-list files count as the rules text does.
        _ => format!("{}{}", rules.source.text, rules.word_files_identity()),
    };
    let key = cache_key(&rules_part, settings, data_sha256, run.contender.name());
    format!("{}-{}", run.contender.name(), &key[..32])
}

/// The file of a result of key `key` in `cache`.
fn result_file(cache: &Path, key: &str) -> PathBuf {
    cache.join(format!("{key}.json"))
}

/// The cached result at `path`, if there is a readable one (a damaged file is a run to
/// make again).
fn read_result(path: &Path, limits: &ReadLimits) -> Option<RunResult> {
    let bytes = limits.read(Limit::Manifest, path).ok()?;
    let mut result: RunResult = serde_json::from_slice(&bytes).ok()?;
    result.cached = true;
    Some(result)
}

/// Writes a result, through a temporary file so that a reader never sees half of one.
fn write_result(path: &Path, result: &RunResult) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let temporary = path.with_extension(format!("json.{}.tmp", std::process::id()));
    std::fs::write(&temporary, serde_json::to_vec_pretty(result)?)?;
    std::fs::rename(&temporary, path)
}

/// A table cell: one contender's results at one fraction over seeds.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cell {
    pub model: Contender,
    pub fraction: f64,
    /// Dev accuracy in percent, by seed, and the seeds.
    pub values: Vec<f64>,
    pub seeds: Vec<u64>,
    pub mean: f64,
    /// The sample standard deviation (0 for one value).
    pub sd: f64,
}

/// Every contender × fraction cell of `results`, in the plan's order (the rule system's
/// one figure repeated at every fraction); a cell with no result is left out.
pub fn summarize(plan: &BenchPlan, results: &[RunResult]) -> Vec<Cell> {
    let mut cells = Vec::new();
    for &contender in &plan.contenders {
        for &fraction in &plan.fractions {
            let runs: Vec<&RunResult> = results
                .iter()
                .filter(|r| {
                    r.model == contender
                        && (contender == Contender::Rules || r.fraction == fraction)
                })
                .collect();
            let values: Vec<f64> = runs.iter().map(|r| 100.0 * r.dev_accuracy).collect();
            if values.is_empty() {
                continue;
            }
            let n = values.len() as f64;
            let mean = values.iter().sum::<f64>() / n;
            let sd = if values.len() < 2 {
                0.0
            } else {
                (values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
            };
            cells.push(Cell {
                model: contender,
                fraction,
                values,
                seeds: runs.iter().map(|r| r.seed).collect(),
                mean,
                sd,
            });
        }
    }
    cells
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_back_and_serialize_as_written() {
        for contender in Contender::ALL {
            assert_eq!(Contender::parse(contender.name()), Ok(contender));
            assert_eq!(
                serde_json::to_value(contender).unwrap(),
                serde_json::json!(contender.name())
            );
            let back: Contender =
                serde_json::from_value(serde_json::json!(contender.name())).unwrap();
            assert_eq!(back, contender);
        }
        assert!(Contender::parse("lstm").unwrap_err().contains("fa-rnn"));
    }

    #[test]
    fn the_plan_runs_the_rules_once_and_each_network_per_fraction_and_seed() {
        let plan = BenchPlan {
            contenders: vec![
                Contender::Rules,
                Contender::Network(ModelKind::FaRnn),
                Contender::Network(ModelKind::Slstm),
            ],
            fractions: vec![1.0, 0.1],
            seeds: vec![0, 1, 2],
            settings: TrainingSettings::DEFAULT,
        };
        let runs = plan.runs();
        assert_eq!(runs.len(), 1 + 2 * 2 * 3);
        assert_eq!(runs[0].contender, Contender::Rules);
        // The first seed's runs come first, at every fraction.
        assert!(runs[1..5].iter().all(|run| run.seed == 0));
        assert_eq!(
            runs[1..5]
                .iter()
                .map(|run| run.fraction)
                .collect::<Vec<_>>(),
            [1.0, 1.0, 0.1, 0.1]
        );
        let settings = plan.settings_of(runs[5]);
        assert_eq!(
            (settings.model, settings.fraction, settings.seed),
            (ModelKind::FaRnn, 1.0, 1)
        );
        assert!(plan.check().is_ok());
        let bad = BenchPlan {
            fractions: vec![0.0],
            ..plan.clone()
        };
        assert!(bad.check().unwrap_err().contains("fraction"));
        let empty = BenchPlan {
            seeds: vec![],
            ..plan
        };
        assert!(empty.check().is_err());
    }

    #[test]
    fn a_baseline_runs_once_per_fraction_with_the_first_seed() {
        let baseline = Contender::Baseline(Baseline::Tfidf);
        let plan = BenchPlan {
            contenders: vec![baseline, Contender::Network(ModelKind::FaRnn)],
            fractions: vec![1.0, 0.1],
            seeds: vec![3, 4],
            settings: TrainingSettings::DEFAULT,
        };
        let runs: Vec<(f64, u64)> = plan
            .runs()
            .iter()
            .filter(|run| run.contender == baseline)
            .map(|run| (run.fraction, run.seed))
            .collect();
        assert_eq!(runs, [(1.0, 3), (0.1, 3)]);
        assert!(baseline.is_deterministic() && Contender::Rules.is_deterministic());
        assert!(!Contender::Network(ModelKind::FaRnn).is_deterministic());
    }

    #[test]
    fn cells_take_mean_and_sample_deviation_over_seeds() {
        let plan = BenchPlan {
            contenders: vec![Contender::Rules, Contender::Network(ModelKind::FaRnn)],
            fractions: vec![1.0, 0.1],
            seeds: vec![0, 1],
            settings: TrainingSettings::DEFAULT,
        };
        let result = |model, fraction, seed, dev_accuracy| RunResult {
            model,
            fraction,
            seed,
            dev_accuracy,
            dev_labeled: 10,
            train_examples: 10,
            epochs_run: 1,
            best_epoch: 1,
            seconds: 0.0,
            cached: false,
        };
        let fa_rnn = Contender::Network(ModelKind::FaRnn);
        let results = [
            result(Contender::Rules, 1.0, 0, 0.5),
            result(fa_rnn, 1.0, 0, 0.9),
            result(fa_rnn, 1.0, 1, 0.8),
            result(fa_rnn, 0.1, 0, 0.7),
        ];
        let cells = summarize(&plan, &results);
        assert_eq!(cells.len(), 4);
        // The rules' one figure at every fraction.
        assert_eq!((cells[0].mean, cells[1].mean), (50.0, 50.0));
        assert!((cells[2].mean - 85.0).abs() < 1e-9);
        assert!((cells[2].sd - 50f64.sqrt()).abs() < 1e-9);
        assert_eq!((cells[3].mean, cells[3].sd), (70.0, 0.0));
        assert_eq!(
            (cells[2].seeds.as_slice(), cells[3].seeds.as_slice()),
            (&[0, 1][..], &[0][..])
        );
    }
}

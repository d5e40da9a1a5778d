//! What a report shows, gathered from the library's own figures: the rule system's
//! evaluation of each corpus and each rule's figures as `rulelens check` computes them, in
//! one pass (`labeling::corpus_figures`), the first misclassified lines of each
//! corpus with the rule that decided them and the gold label's nearest miss
//! (`ide::missed_patterns`, `ide::why_missed`), the dev accuracy per epoch that the model
//! cache's checkpoints of these rules recorded, and the bench results its cache holds for
//! `rulelens bench`'s standard plan.
//!
//! Nothing here trains, and nothing is measured twice: the cost is one classification of
//! each corpus line (twice for the label matrix), the manifests of the model cache's folders
//! named after the rules file, and one cached file per bench run of the standard plan.

use crate::automata::Evaluation;
use crate::corpus::{CorpusFile, Example};
use crate::digest::sha256_hex;
use crate::ide::{missed_patterns, why_missed};
use crate::labeling::{
    Estimates, LabelingRule, RuleSummary, corpus_figures, labeling_rules, verdict,
};
use crate::limits::ReadLimits;
use crate::model::ModelKind;
use crate::model::checkpoint::{DevFigure, read_manifest};
use crate::project::bench::{BenchData, BenchPlan, Cell, cached_results, summarize};
use crate::rules_file::RulesFile;
use crate::suggest::Suggestion;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// How many misclassified lines of each corpus a report lists when not told otherwise.
pub const DEFAULT_MAX_MISCLASSIFIED: usize = 200;

/// The most training curves a report draws: the newest checkpoints of the rules file.
pub const MAX_CURVES: usize = 8;

/// A corpus read for the report, under the name it is bound as (`train`, `dev`) or its
/// file's stem.
pub struct NamedCorpus {
    pub name: String,
    pub file: CorpusFile,
}

/// Where a report looks, and how much it lists.
pub struct ReportInputs<'a> {
    /// The rules, analyzed without errors.
    pub rules: &'a RulesFile,
    pub corpora: &'a [NamedCorpus],
    /// The checkpoint cache (`project::default_cache_root`, the server's
    /// `training.modelCache`).
    pub model_cache: &'a Path,
    /// The bench's result cache (`project::default_bench_root`, `rulelens bench --cache`).
    pub bench_cache: &'a Path,
    /// The suggestion engine's edits, measured by the caller; `None` when left out.
    pub suggestions: Option<Vec<Suggestion>>,
    /// How many misclassified lines of each corpus are listed.
    pub max_misclassified: usize,
    pub limits: &'a ReadLimits,
}

/// Everything a report shows.
pub struct Report {
    /// The rules file's path as given.
    pub rules_path: PathBuf,
    /// Labels in priority order, then the default's name.
    pub labels: Vec<String>,
    pub default_label: Option<String>,
    /// The rules in file order.
    pub rules: Vec<LabelingRule>,
    pub corpora: Vec<CorpusReport>,
    /// The checkpoints of these rules in the model cache that recorded their dev accuracy
    /// per epoch, newest first, at most [`MAX_CURVES`].
    pub curves: Vec<TrainingCurve>,
    /// Checkpoints of these rules that recorded it, past the [`MAX_CURVES`] drawn.
    pub omitted_curves: usize,
    /// Checkpoints of these rules in the model cache that did not record it.
    pub unrecorded_checkpoints: usize,
    /// The bench's cells of the standard plan that the cache holds; empty without `train`
    /// and `dev` corpora.
    pub bench: Vec<Cell>,
    pub suggestions: Option<Vec<Suggestion>>,
}

/// One corpus's figures.
pub struct CorpusReport {
    pub name: String,
    pub path: PathBuf,
    pub evaluation: Evaluation,
    /// Per rule, in the order of [`Report::rules`].
    pub rules: Vec<RuleSummary>,
    /// Where some line has no gold label: what the rules' label model estimates (none past
    /// its limit).
    pub estimates: Option<Estimates>,
    pub misclassified: Misclassified,
}

/// The first misclassified lines of a corpus, and how many there are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Misclassified {
    pub lines: Vec<MisclassifiedLine>,
    /// Every labeled line whose gold label (one the rules know) is not the prediction.
    pub total: usize,
}

/// A line whose gold label the rules do not predict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MisclassifiedLine {
    /// 1-based line of the corpus file.
    pub line: u32,
    pub text: String,
    /// Label indices (`RuleSystem::labels`).
    pub gold: usize,
    pub predicted: Option<usize>,
    /// The rule that decided (an index into the rules), `None` for the default.
    pub decider: Option<usize>,
    /// The gold label's pattern closest to matching, and why it did not.
    pub nearest_miss: Option<NearestMiss>,
}

/// Why the gold label's closest pattern missed a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NearestMiss {
    /// The pattern, described.
    pub pattern: String,
    /// What it matched and where it failed (`ide::why_missed`).
    pub why: String,
}

/// A checkpoint's dev accuracy per epoch (or, where its dev had no gold label, its agreement
/// with the label model: `figure`).
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingCurve {
    /// The checkpoint folder's name.
    pub folder: String,
    pub model: ModelKind,
    /// Whether it was trained from the rules text as it is now.
    pub current: bool,
    /// Dev accuracy at each measurement, the starting network first.
    pub dev_accuracy: Vec<f64>,
    pub best_epoch: usize,
    pub figure: DevFigure,
}

impl TrainingCurve {
    /// What the curves' values measure, for a person: the figure they share, or both where
    /// some were measured on a gold dev and some were not.
    pub fn measured(curves: &[TrainingCurve]) -> &'static str {
        let figures = || curves.iter().map(|curve| curve.figure);
        match figures().next() {
            Some(first) if figures().all(|figure| figure == first) => first.name(),
            Some(_) => {
                "dev accuracy, or agreement with the label model where dev has no gold label"
            }
            None => DevFigure::Accuracy.name(),
        }
    }
}

/// The first `limit` lines of `examples` whose gold label `file`'s rules do not predict,
/// each with the rule that decided and the gold label's nearest miss, and how many such
/// lines there are (`rulelens check --show-errors` and `rulelens report`).
pub fn misclassified(file: &RulesFile, examples: &[Example], limit: usize) -> Misclassified {
    let system = &file.system;
    let mut out = Misclassified {
        lines: Vec::new(),
        total: 0,
    };
    for example in examples {
        let Some(gold) = example
            .label
            .as_deref()
            .and_then(|label| system.label_by_name(label))
        else {
            continue;
        };
        let said = verdict(file, &example.text);
        if said.prediction == Some(gold.index()) {
            continue;
        }
        out.total += 1;
        if out.lines.len() == limit {
            continue;
        }
        let matched = system.classify(&example.text).matched;
        let nearest_miss = missed_patterns(file, gold, &example.text, &matched)
            .first()
            .map(|miss| NearestMiss {
                pattern: miss.pattern.clone(),
                why: why_missed(miss, &example.text),
            });
        out.lines.push(MisclassifiedLine {
            line: example.line + 1,
            text: example.text.clone(),
            gold: gold.index(),
            predicted: said.prediction,
            decider: said.decider,
            nearest_miss,
        });
    }
    out
}

/// Gathers a report's figures (see the module's doc for what each costs).
pub fn gather(inputs: ReportInputs<'_>) -> Report {
    let ReportInputs {
        rules: file,
        corpora,
        model_cache,
        bench_cache,
        suggestions,
        max_misclassified,
        limits,
    } = inputs;
    let system = &file.system;
    let rules = labeling_rules(file);
    let corpus_reports = corpora
        .iter()
        .map(|corpus| {
            let examples = &corpus.file.examples;
            let figures = corpus_figures(file, &rules, examples);
            CorpusReport {
                name: corpus.name.clone(),
                path: corpus.file.path.clone(),
                evaluation: figures.evaluation,
                rules: figures.rules,
                estimates: figures.estimates.and_then(Result::ok),
                misclassified: misclassified(file, examples, max_misclassified),
            }
        })
        .collect();
    let (curves, omitted_curves, unrecorded_checkpoints) =
        training_curves(file, model_cache, limits);
    let bound = |name: &str| corpora.iter().find(|c| c.name == name);
    let bench = match (bound("train"), bound("dev")) {
        (Some(train), Some(dev)) => {
            let plan = BenchPlan::standard();
            let data = BenchData {
                rules: file,
                train: &train.file.examples,
                dev: &dev.file.examples,
            };
            summarize(&plan, &cached_results(&data, &plan, bench_cache, limits))
        }
        _ => Vec::new(),
    };
    Report {
        rules_path: file.path.clone().unwrap_or_default(),
        labels: system.labels().to_vec(),
        default_label: system
            .default_label()
            .map(|label| system.labels()[label.index()].clone()),
        rules,
        corpora: corpus_reports,
        curves,
        omitted_curves,
        unrecorded_checkpoints,
        bench,
        suggestions,
    }
}

/// The checkpoints in `cache` trained from the rules file of `file` (the same absolute
/// path; folders are named after its stem, `project::checkpoint_dir`) that recorded their
/// dev accuracy per epoch, those of the current text first, then the newest, at most
/// [`MAX_CURVES`]; how many more there are; and how many such checkpoints recorded none. A folder whose manifest cannot be read is not one.
fn training_curves(
    file: &RulesFile,
    cache: &Path,
    limits: &ReadLimits,
) -> (Vec<TrainingCurve>, usize, usize) {
    let Some(rules_path) = file.path.as_deref() else {
        return (Vec::new(), 0, 0);
    };
    let absolute = std::path::absolute(rules_path).unwrap_or_else(|_| rules_path.to_path_buf());
    let Some(stem) = rules_path.file_stem().map(|s| s.to_string_lossy()) else {
        return (Vec::new(), 0, 0);
    };
    let prefix = format!("{stem}-");
    let Ok(entries) = std::fs::read_dir(cache) else {
        return (Vec::new(), 0, 0);
    };
    let current_sha256 = sha256_hex(file.source.text.as_bytes());
    let mut found: Vec<(bool, SystemTime, TrainingCurve)> = Vec::new();
    let mut unrecorded = 0;
    for entry in entries.flatten() {
        let folder = entry.file_name().to_string_lossy().into_owned();
        if !folder.starts_with(&prefix) {
            continue;
        }
        let Ok(manifest) = read_manifest(&entry.path(), limits) else {
            continue;
        };
        if manifest.rules.path != absolute {
            continue;
        }
        if manifest.metrics.dev_accuracy_by_epoch.is_empty() {
            unrecorded += 1;
            continue;
        }
        let modified = entry
            .metadata()
            .and_then(|meta| meta.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let current = manifest.rules.sha256 == current_sha256;
        let figure = manifest.metrics.dev_figure();
        found.push((
            current,
            modified,
            TrainingCurve {
                folder,
                model: manifest.settings.model,
                current,
                dev_accuracy: manifest.metrics.dev_accuracy_by_epoch,
                best_epoch: manifest.metrics.best_epoch,
                figure,
            },
        ));
    }
    found.sort_by(|a, b| {
        (b.0, b.1)
            .cmp(&(a.0, a.1))
            .then(a.2.folder.cmp(&b.2.folder))
    });
    let omitted = found.len().saturating_sub(MAX_CURVES);
    let curves = found
        .into_iter()
        .take(MAX_CURVES)
        .map(|(_, _, curve)| curve)
        .collect();
    (curves, omitted, unrecorded)
}

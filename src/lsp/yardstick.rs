//! The black-box yardstick of a save: the figure of the lens on the `default` line that the
//! rules and their networks are measured against.
//!
//! A save looks its yardstick up in the bench cache (`project::bench`, the files
//! `rulelens bench` writes), under a key over the corpora, the rules' labels and the
//! settings, so that editing a rule keeps it. When the cache has none and
//! `yardstick.train` is on, the black box trains on the blocking pool beside the save's
//! networks (it takes minutes, and would otherwise hold up every warm start), once per key
//! however many saves or projects ask for it, until no project wants that key any more;
//! then its result goes into the cache and every project with that key shows it.

use super::client_notices::{Progress, name, refresh_views};
use super::state::{JobRequest, Session, Yardstick};
use crate::ide::Measure;
use crate::ide::RulesAnalysis;
use crate::limits::ReadLimits;
use crate::model::{FitEvent, ModelKind, training_data_sha256};
use crate::project::bench::{
    BenchData, BenchEvent, BenchPlan, Contender, RunSpec, cached_result, run_bench, run_key,
};
use crate::project::{self, SavedAnalysis};
use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use tower_lsp_server::ls_types::MessageType;

/// The keys of the yardsticks training now.
#[derive(Default)]
pub struct InFlight(Mutex<HashSet<String>>);

impl InFlight {
    /// Marks `key` as training; false when it already was.
    fn start(&self, key: &str) -> bool {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .insert(key.to_string())
    }

    fn finish(&self, key: &str) {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .remove(key);
    }
}

/// What the yardstick of a save reads and writes.
struct Plan {
    plan: BenchPlan,
    model: ModelKind,
    key: String,
    cache: PathBuf,
}

/// Looks up, and when the settings say so trains, the yardstick of the save `saved`, in a
/// task of its own; stores it in the job's project while the job is its newest.
pub fn spawn(
    session: &Arc<Session>,
    in_flight: &Arc<InFlight>,
    job: &JobRequest,
    saved: &SavedAnalysis,
) {
    let settings = session.snapshot().settings.clone();
    let analysis = saved.analysis.clone();
    // It is measured on dev's gold lines, as the rules beside it are: without one there is
    // no figure to set beside theirs.
    let gold_dev = analysis
        .corpus("dev")
        .is_some_and(|dev| dev.evaluation.n_labeled > 0);
    if analysis.corpus("train").is_none() || !gold_dev {
        set(session, job, None);
        return;
    }
    if analysis.rules.has_errors() {
        // Keep what was shown: the labels may not be what they were.
        return;
    }
    let model = settings.yardstick.model;
    let run = RunSpec {
        contender: Contender::Network(model),
        fraction: settings.training.settings.fraction,
        seed: settings.training.settings.seed,
    };
    let plan = BenchPlan {
        contenders: vec![run.contender],
        fractions: vec![run.fraction],
        seeds: vec![run.seed],
        settings: settings.training.settings.clone(),
    };
    let cache = settings
        .yardstick
        .cache
        .clone()
        .unwrap_or_else(project::default_bench_root);
    let (session, in_flight, job) = (session.clone(), in_flight.clone(), job.clone());
    let train_it = settings.yardstick.train;
    let limits = settings.limits;
    tokio::spawn(async move {
        // The key hashes the corpora: on the blocking pool, with the cache's one read.
        let (lookup, run_settings, folder) =
            (analysis.clone(), plan.settings_of(run), cache.clone());
        let Ok(Some((key, cached))) = tokio::task::spawn_blocking(move || {
            let (train, dev) = (lookup.corpus("train")?, lookup.corpus("dev")?);
            let data_sha256 = training_data_sha256(&train.file.examples, &dev.file.examples);
            let key = run_key(&lookup.rules, &run_settings, &data_sha256, run);
            let cached = cached_result(&folder, &key, &limits);
            Some((key, cached))
        })
        .await
        else {
            return;
        };
        let yardstick = Plan {
            plan,
            model,
            key,
            cache,
        };
        let measure = match (cached, train_it) {
            (Some(result), _) => Measure::Accuracy {
                value: result.dev_accuracy,
                earlier: false,
            },
            (None, true) => Measure::Training,
            (None, false) => Measure::NotMeasured,
        };
        let standing = Yardstick {
            key: yardstick.key.clone(),
            model: yardstick.model,
            measure: measure.clone(),
        };
        if !set(&session, &job, Some(standing)) {
            return;
        }
        if measure == Measure::Training && in_flight.start(&yardstick.key) {
            train_yardstick(&session, &job, analysis, &yardstick, &limits).await;
            in_flight.finish(&yardstick.key);
        }
    });
}

/// Stores `yardstick` in the job's project while the job is its newest, refreshing its
/// lenses when it changed; whether it was stored.
fn set(session: &Arc<Session>, job: &JobRequest, yardstick: Option<Yardstick>) -> bool {
    let changed = session.update(|state| {
        let project = state.project_of_job(&job.key, &job.ticket)?;
        let changed = project.yardstick != yardstick;
        project.yardstick = yardstick;
        Some(changed)
    });
    if changed == Some(true) {
        refresh_views(session);
    }
    changed.is_some()
}

/// Trains the yardstick of `yardstick.key` with its progress, writes its result to the
/// cache and shows it in every project that has that key; gives up when none does.
async fn train_yardstick(
    session: &Arc<Session>,
    job: &JobRequest,
    analysis: Arc<RulesAnalysis>,
    yardstick: &Plan,
    limits: &ReadLimits,
) {
    let key = yardstick.key.clone();
    let wanted = {
        let (session, key) = (session.clone(), key.clone());
        move || {
            session.read(|state| {
                state.projects.values().any(|project| {
                    project
                        .yardstick
                        .as_ref()
                        .is_some_and(|yardstick| yardstick.key == key)
                })
            })
        }
    };
    let model = yardstick.model;
    let file = name(&job.key);
    let snapshot = session.snapshot();
    let progress = Progress::begin(
        session,
        &snapshot.client,
        &format!("rulelens/yardstick/{}", job.ticket.generation),
        &format!("Yardstick: training {}", model.display_name()),
        &file,
    )
    .await;
    session.log(
        MessageType::INFO,
        format!(
            "{file}: training the yardstick {} in the background (yardstick.train)",
            model.display_name()
        ),
    );
    let (sender, mut epochs) = tokio::sync::mpsc::unbounded_channel();
    let (plan, cache, limits) = (yardstick.plan.clone(), yardstick.cache.clone(), *limits);
    let started = Instant::now();
    let epochs_asked = plan.settings.epochs.max(1);
    let blocking = tokio::task::spawn_blocking(move || {
        let (train, dev) = (analysis.corpus("train")?, analysis.corpus("dev")?);
        let data = BenchData {
            rules: &analysis.rules,
            train: &train.file.examples,
            dev: &dev.file.examples,
        };
        let mut failure = None;
        let results = run_bench(
            &data,
            &plan,
            Some(&cache),
            &limits,
            &mut |event| match event {
                BenchEvent::Training(FitEvent::Epoch(report, _)) => {
                    let _ = sender.send((report.epoch, report.dev_accuracy));
                }
                BenchEvent::Failed { message, .. } => failure = Some(message),
                _ => {}
            },
            &|| !wanted(),
        );
        Some(results.into_iter().next().ok_or(failure))
    });
    tokio::pin!(blocking);
    let outcome = loop {
        tokio::select! {
            finished = &mut blocking => break finished.ok().flatten(),
            Some((epoch, dev)) = epochs.recv() => {
                let percentage = (100 * epoch / epochs_asked).min(100) as u32;
                progress.report(format!("{file}: epoch {epoch}, dev {:.1}%", 100.0 * dev), percentage).await;
            }
        }
    };
    let measure = match outcome {
        Some(Ok(result)) => {
            session.log(
                MessageType::INFO,
                format!(
                    "{file}: yardstick {} trained in {:.0} s, dev {:.2}%",
                    model.display_name(),
                    started.elapsed().as_secs_f64(),
                    100.0 * result.dev_accuracy
                ),
            );
            progress
                .end(format!("{file}: dev {:.1}%", 100.0 * result.dev_accuracy))
                .await;
            Measure::Accuracy {
                value: result.dev_accuracy,
                earlier: false,
            }
        }
        Some(Err(Some(message))) => {
            session.log_error(format!("{file}: the yardstick did not train: {message}"));
            progress.end(format!("{file}: failed")).await;
            Measure::NotMeasured
        }
        // Given up (no project wants it), or the task failed.
        _ => {
            progress.end(format!("{file}: stopped")).await;
            Measure::NotMeasured
        }
    };
    let changed = session.update(|state| {
        let mut changed = false;
        for project in state.projects_mut().values_mut() {
            if let Some(yardstick) = &mut project.yardstick
                && yardstick.key == key
                && yardstick.measure != measure
            {
                yardstick.measure = measure.clone();
                changed = true;
            }
        }
        changed
    });
    if changed {
        refresh_views(session);
    }
}

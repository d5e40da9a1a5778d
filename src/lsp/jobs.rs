//! The background compile actor: one task that takes save jobs in order and, for each,
//! analyzes the saved rules on their corpora, publishes the corpus-aware diagnostics, then
//! loads the trained network from the checkpoint cache or trains one (reporting epochs and
//! dev accuracy through `$/progress` when the client supports it), and publishes what the
//! network adds.
//!
//! A newer save of the same rules file sets the running job's cancellation flag, which the
//! analysis polls every 1,024 lines and training between batches (a few milliseconds), so
//! stale work stops well within 100 ms; queued jobs that a newer one superseded are skipped.
//! Results are stored only while their job is still the newest of its project. Checkpoints
//! are cached under a key that hashes the rules text, the training settings and both
//! corpora, so reopening a workspace loads instead of retraining. All heavy work runs on
//! tokio's blocking pool; this task only awaits it and forwards progress.

use super::config::Settings;
use super::server::Shared;
use super::state::{Saved, State};
use crate::corpus::{self, CorpusFile};
use crate::ide::{
    RulesAnalysis, TrainedModel, WordFrequencies, analyze, corpus_findings, model_findings,
};
use crate::model::checkpoint::sha256_hex;
use crate::model::{DeviceKind, FitEvent, fit, load_model_for};
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tower_lsp_server::ls_types::{MessageType, NumberOrString};

/// How long the server waits for the client to accept a progress token.
const PROGRESS_CREATE_TIMEOUT: Duration = Duration::from_secs(2);

/// Whether a save job trains when no cached network fits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Training {
    /// When the settings enable training (a save).
    IfEnabled,
    /// Whatever the settings say (the `rulelens/train` request).
    Always,
}

/// A saved (or opened) rules file to analyze, and maybe train.
#[derive(Debug)]
pub struct Job {
    /// The project's key: the rules path.
    pub key: PathBuf,
    pub text: Arc<String>,
    pub generation: u64,
    pub cancel: Arc<AtomicBool>,
    pub training: Training,
}

/// Runs until the server stops, one job at a time.
pub async fn run(shared: Arc<Shared>, mut jobs: UnboundedReceiver<Job>) {
    while let Some(job) = jobs.recv().await {
        if is_current(&shared, &job) {
            run_job(&shared, job).await;
        }
    }
}

/// Whether `job` is still its project's newest and not cancelled.
fn is_current(shared: &Shared, job: &Job) -> bool {
    !job.cancel.load(Ordering::Relaxed)
        && shared
            .lock()
            .projects
            .get(&job.key)
            .and_then(|p| p.job.as_ref())
            .is_some_and(|(generation, _)| *generation == job.generation)
}

/// The corpora a rules file binds, by name: its own bindings (when it is a file), then the
/// settings' for it.
pub fn bindings(
    rules: &RulesFile,
    key: &Path,
    on_disk: bool,
    settings: &Settings,
) -> Vec<(String, PathBuf)> {
    let mut bindings: Vec<(String, PathBuf)> = if on_disk {
        rules
            .rules
            .corpora
            .iter()
            .map(|b| (b.name.clone(), corpus::resolve_binding(key, &b.path)))
            .collect()
    } else {
        Vec::new()
    };
    if let Some(extra) = settings.corpora.get(key) {
        for (name, path) in extra {
            if !bindings.iter().any(|(n, _)| n == name) {
                bindings.push((name.clone(), path.clone()));
            }
        }
    }
    bindings
}

async fn run_job(shared: &Arc<Shared>, job: Job) {
    let (settings, on_disk, open_texts) = {
        let state = shared.lock();
        let on_disk = state.projects.get(&job.key).is_some_and(|p| p.on_disk);
        let open: Vec<(PathBuf, crate::corpus::Format, Arc<String>)> = state
            .documents
            .values()
            .filter_map(|d| match d.kind {
                super::documents::Kind::Corpus(format) => {
                    Some((d.path.clone()?, format, d.text.clone()))
                }
                super::documents::Kind::Rules => None,
            })
            .collect();
        (state.settings.clone(), on_disk, open)
    };
    let cancel = job.cancel.clone();
    let key = job.key.clone();
    let text = job.text.clone();
    let settings_for_analysis = settings.clone();
    let analyzed = tokio::task::spawn_blocking(move || {
        let rules = RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            on_disk.then_some(key.as_path()),
            &Default::default(),
        );
        let mut problems = Vec::new();
        let mut corpora = Vec::new();
        for (name, path) in bindings(&rules, &key, on_disk, &settings_for_analysis) {
            let open = open_texts
                .iter()
                .find(|(p, _, _)| super::state::same_file(p, &path));
            let file = match open {
                Some((_, format, text)) => Ok(CorpusFile::parse(
                    path.clone(),
                    *format,
                    SourceText {
                        text: text.to_string(),
                        invalid_utf8: Vec::new(),
                    },
                )),
                None => corpus::read_file(&path),
            };
            match file {
                Ok(file) => corpora.push((name, file)),
                Err(error) => problems.push(error.to_string()),
            }
        }
        let analysis = analyze(Arc::new(rules), corpora, &|| cancel.load(Ordering::Relaxed));
        let words = analysis
            .as_ref()
            .ok()
            .and_then(|a| a.corpus("train"))
            .map_or_else(
                || WordFrequencies::from_texts([]),
                |train| {
                    WordFrequencies::from_texts(train.file.examples.iter().map(|e| e.text.as_str()))
                        .with_corpus_name("train")
                },
            );
        (analysis.map(|analysis| (analysis, words)), problems)
    })
    .await;
    let (analysis, words, problems) = match analyzed {
        Ok((Ok((analysis, words)), problems)) => (analysis, words, problems),
        Ok((Err(_), _)) => return,
        Err(error) => {
            shared.log(MessageType::ERROR, format!("analysis failed: {error}"));
            return;
        }
    };
    for problem in problems {
        shared.log(MessageType::WARNING, problem);
    }
    let corpus_findings = corpus_findings(&analysis, &settings.findings);
    let analysis = Arc::new(analysis);
    let stored = {
        let mut state = shared.lock();
        let generation = job.generation;
        let Some(project) = state.projects.get_mut(&job.key) else {
            return;
        };
        if project.job.as_ref().map(|(g, _)| *g) != Some(generation) {
            return;
        }
        project.saved = Some(Arc::new(Saved {
            analysis: analysis.clone(),
            corpus_findings,
            model_findings: Vec::new(),
            words: Arc::new(words),
            generation,
        }));
        true
    };
    if stored {
        refresh_project(shared, &job.key);
    }
    if analysis.rules.has_errors() {
        return;
    }
    let (Some(train), Some(dev)) = (analysis.corpus("train"), analysis.corpus("dev")) else {
        shared.log(
            MessageType::INFO,
            format!(
                "{}: no `corpus train` and `corpus dev` bindings, so no network is trained",
                job.key.display()
            ),
        );
        return;
    };
    let fit_config = settings.fit_config();
    let cache_key = sha256_hex(
        [
            job.text.as_bytes(),
            format!("{fit_config:?} {}", env!("CARGO_PKG_VERSION")).as_bytes(),
            train.file.source.text.as_bytes(),
            dev.file.source.text.as_bytes(),
        ]
        .join(&0u8)
        .as_slice(),
    );
    let cache_dir = checkpoint_dir(&job.key, &settings, &cache_key);
    // A save that changed nothing the network and its reconstructions depend on keeps the
    // network it has, instead of loading it again.
    let model_key = format!("{cache_key} {:?}", settings.reconstruct);
    let in_memory = shared
        .lock()
        .projects
        .get(&job.key)
        .filter(|project| project.model_key.as_deref() == Some(model_key.as_str()))
        .and_then(|project| project.model.clone());
    let model = match in_memory {
        Some(model) => Some(model),
        None if cache_dir
            .join(crate::model::checkpoint::MANIFEST_FILE)
            .is_file() =>
        {
            load(shared, &job, &analysis, &settings, &cache_dir)
                .await
                .map(Arc::new)
        }
        None => None,
    };
    let model = match model {
        Some(model) => Some(model),
        None if settings.training.enabled || job.training == Training::Always => {
            train_network(shared, &job, &analysis, &settings, &cache_dir)
                .await
                .map(Arc::new)
        }
        None => None,
    };
    let Some(model) = model else {
        return;
    };
    let findings = model_findings(&analysis, &model);
    {
        let mut state = shared.lock();
        let Some(project) = state.projects.get_mut(&job.key) else {
            return;
        };
        if project.job.as_ref().map(|(g, _)| *g) != Some(job.generation) {
            return;
        }
        project.model = Some(model);
        project.model_key = Some(model_key);
        if let Some(saved) = &project.saved
            && saved.generation == job.generation
        {
            project.saved = Some(Arc::new(Saved {
                analysis: saved.analysis.clone(),
                corpus_findings: saved.corpus_findings.clone(),
                model_findings: findings,
                words: saved.words.clone(),
                generation: job.generation,
            }));
        }
    }
    refresh_project(shared, &job.key);
    shared.refresh_views().await;
}

/// Where the checkpoint of a rules file with this cache key lives.
fn checkpoint_dir(key: &Path, settings: &Settings, cache_key: &str) -> PathBuf {
    let root = settings.training.model_cache.clone().unwrap_or_else(|| {
        key.parent()
            .unwrap_or_else(|| Path::new("."))
            .join(".rulelens")
            .join("models")
    });
    let stem = key
        .file_stem()
        .map_or_else(|| "rules".into(), |s| s.to_string_lossy().into_owned());
    root.join(format!("{stem}-{}", &cache_key[..16]))
}

/// Asks for a refresh of the project's rules document and its open corpora.
pub fn refresh_project(shared: &Shared, key: &Path) {
    let uris: Vec<String> = {
        let state = shared.lock();
        let mut uris = state.open_corpora_of(key);
        uris.extend(state.rules_uri(key));
        uris
    };
    for uri in uris {
        shared.refresh(uri);
    }
}

/// Loads a cached checkpoint; `None` (and a log line) when it does not load.
async fn load(
    shared: &Arc<Shared>,
    job: &Job,
    analysis: &Arc<RulesAnalysis>,
    settings: &Arc<Settings>,
    dir: &Path,
) -> Option<TrainedModel> {
    let text = job.text.clone();
    let analysis = analysis.clone();
    let settings = settings.clone();
    let dir = dir.to_path_buf();
    let cancel = job.cancel.clone();
    let loaded = tokio::task::spawn_blocking(move || -> Result<TrainedModel, String> {
        let device = DeviceKind::Cpu.open()?;
        let loaded = load_model_for(&dir, text.as_bytes(), false, &device)
            .map_err(|error| error.to_string())?;
        TrainedModel::new(
            loaded.manifest,
            loaded.net.as_ref(),
            loaded.vocabulary.as_ref(),
            &analysis,
            &settings.reconstruct,
            &|| cancel.load(Ordering::Relaxed),
        )
        .map_err(|error| error.to_string())
    })
    .await;
    match loaded {
        Ok(Ok(model)) => {
            shared.log(
                MessageType::INFO,
                format!(
                    "{}: loaded the trained network from the cache",
                    job.key.display()
                ),
            );
            Some(model)
        }
        Ok(Err(message)) => {
            shared.log(
                MessageType::WARNING,
                format!("cached network not used: {message}"),
            );
            None
        }
        Err(error) => {
            shared.log(MessageType::ERROR, format!("loading failed: {error}"));
            None
        }
    }
}

/// What the blocking training reports to the actor.
enum Report {
    Epoch {
        epoch: usize,
        dev_accuracy: f64,
        best: f64,
    },
    Data {
        n_train: usize,
    },
}

/// Trains a network, saves it into the cache and prepares it, with progress.
async fn train_network(
    shared: &Arc<Shared>,
    job: &Job,
    analysis: &Arc<RulesAnalysis>,
    settings: &Arc<Settings>,
    dir: &Path,
) -> Option<TrainedModel> {
    let epochs = settings.training.train.epochs.max(1);
    let name = job
        .key
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let progress = if shared.lock().client.work_done_progress {
        let token = NumberOrString::String(format!("rulelens/train/{}", job.generation));
        let created = tokio::time::timeout(
            PROGRESS_CREATE_TIMEOUT,
            shared.client.create_work_done_progress(token.clone()),
        )
        .await;
        match created {
            Ok(Ok(())) => Some(
                shared
                    .client
                    .progress(
                        token,
                        format!("Training {}", settings.training.model.display_name()),
                    )
                    .with_percentage(0)
                    .with_message(format!("{name}: preparing"))
                    .begin()
                    .await,
            ),
            _ => None,
        }
    } else {
        None
    };
    let (sender, mut reports) = unbounded_channel();
    let blocking = {
        let analysis = analysis.clone();
        let settings = settings.clone();
        let dir = dir.to_path_buf();
        let cancel = job.cancel.clone();
        tokio::task::spawn_blocking(move || -> Result<(TrainedModel, f64), String> {
            let cancelled = || cancel.load(Ordering::Relaxed);
            let (Some(train), Some(dev)) = (analysis.corpus("train"), analysis.corpus("dev"))
            else {
                return Err("no train or dev corpus".to_string());
            };
            let mut best = 0.0f64;
            let mut fitted = fit(
                &analysis.rules,
                &train.file.examples,
                &dev.file.examples,
                &settings.fit_config(),
                &mut |event| match event {
                    FitEvent::Epoch(report) => {
                        best = best.max(report.dev_accuracy);
                        let _ = sender.send(Report::Epoch {
                            epoch: report.epoch,
                            dev_accuracy: report.dev_accuracy,
                            best,
                        });
                    }
                    FitEvent::Data { n_train, .. } => {
                        let _ = sender.send(Report::Data { n_train });
                    }
                    _ => {}
                },
                &cancelled,
            )
            .map_err(|error| error.to_string())?;
            fitted.save(&dir).map_err(|error| error.to_string())?;
            let dev_accuracy = fitted.manifest.metrics.dev_accuracy;
            let model = TrainedModel::new(
                fitted.manifest,
                fitted.net.as_ref(),
                fitted.vocabulary.as_ref(),
                &analysis,
                &settings.reconstruct,
                &cancelled,
            )
            .map_err(|error| error.to_string())?;
            Ok((model, dev_accuracy))
        })
    };
    tokio::pin!(blocking);
    let result = loop {
        tokio::select! {
            Some(report) = reports.recv() => {
                let message = match report {
                    Report::Data { n_train } => format!("{name}: {n_train} training sentences"),
                    Report::Epoch { epoch, dev_accuracy, best } => format!(
                        "{name}: epoch {epoch}/{epochs}, dev accuracy {:.1}% (best {:.1}%)",
                        100.0 * dev_accuracy,
                        100.0 * best
                    ),
                };
                let percentage = match report {
                    Report::Epoch { epoch, .. } => (100 * epoch / epochs).min(100) as u32,
                    Report::Data { .. } => 0,
                };
                if let Some(project) = shared.lock().projects.get_mut(&job.key) {
                    project.training = Some(message.clone());
                }
                if let Some(progress) = &progress {
                    progress.report_with_message(message, percentage).await;
                }
            }
            result = &mut blocking => break result,
        }
    };
    if let Some(project) = shared.lock().projects.get_mut(&job.key) {
        project.training = None;
    }
    let (outcome, model) = match result {
        Ok(Ok((model, dev_accuracy))) => (
            format!("{name}: dev accuracy {:.1}%", 100.0 * dev_accuracy),
            Some(model),
        ),
        Ok(Err(message)) if job.cancel.load(Ordering::Relaxed) => (
            format!("{name}: cancelled by a newer save ({message})"),
            None,
        ),
        Ok(Err(message)) => {
            shared.log(
                MessageType::WARNING,
                format!("{}: training failed: {message}", job.key.display()),
            );
            (format!("{name}: training failed: {message}"), None)
        }
        Err(error) => {
            shared.log(MessageType::ERROR, format!("training failed: {error}"));
            (format!("{name}: training failed"), None)
        }
    };
    if let Some(progress) = progress {
        progress.finish_with_message(outcome).await;
    }
    model
}

/// Starts a save job for the project at `key`: cancels the running one and queues this.
pub fn start(
    shared: &Shared,
    state: &mut State,
    key: &Path,
    text: Arc<String>,
    training: Training,
) {
    state.generation += 1;
    let generation = state.generation;
    let Some(project) = state.projects.get_mut(key) else {
        return;
    };
    if let Some((_, cancel)) = &project.job {
        cancel.store(true, Ordering::Relaxed);
    }
    let cancel = Arc::new(AtomicBool::new(false));
    project.job = Some((generation, cancel.clone()));
    shared.send_job(Job {
        key: key.to_path_buf(),
        text,
        generation,
        cancel,
        training,
    });
}

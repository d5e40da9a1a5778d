//! The compile actor: schedules the save jobs that `project` defines.
//!
//! Each rules file has its own queue and worker task, so one file's corpus analysis never
//! waits behind another file's training; a worker skips queued jobs that a newer save
//! superseded. A job analyzes the saved rules on their corpora (`project::analyze_save`)
//! and publishes the corpus-aware diagnostics; then the job gets the networks the save
//! calls for (`project::network_plan`), one per role (`ide::Role`): the network that
//! classifies (the rule network, or the black box the settings train in its place), then
//! the SoPa that learns patterns; each the one in memory, the
//! checkpoint in the cache, or a new training, reported through `$/progress` when the
//! client supports it; and publishes what each adds. Beside the rest of the job, a task
//! measures the suggestion engine's edits (`project::suggest_save`) for code actions and
//! `rulelens/suggest`, one such task of a project at a time: once the network is in when
//! the project holds one (a warm start, which they would slow down on a small machine),
//! else at once (a first training takes minutes). Once a rule network is stored, its open
//! corpora's long lines are measured ahead of their hover (`measure.rs`).
//!
//! Networks are shared: a [`Networks`] registry hands every project whose rules, settings
//! and corpora are identical the same network, trained or loaded once, and one training
//! runs at a time (a second would only halve the speed of the first on a small machine).
//! A save that follows the previous job within `training.delay` seconds waits that long
//! before training, so that a burst of saves (an editor that saves as you type) trains
//! once; a save on its own trains at once. A newer save of the same rules file sets
//! the running job's cancellation flag, which the analysis polls every 1,024 lines and
//! training between batches; a shared training stops when no project wants it any more.
//! Results are stored only while their job is still the newest of its project. All heavy
//! work runs on tokio's blocking pool; these tasks only await it and forward progress (a
//! training's, `training.rs`).

use super::client_notices::{name, refresh_diagnostics, refresh_views};
use super::measure;
use super::registry::{Claim, Networks};
use super::state::{JobRequest, Project, Saved, SavedSuggestions, Session, TrainingDemand};
use super::training::{Fetch, Unfinished, train};
use super::yardstick;
use crate::ide::{Role, TrainedNetwork, TrainedPatterns};
use crate::model::{TrainingSettings, VectorSource};
use crate::project::{
    self, CorpusOrigin, CorpusSources, NetworkPlan, NoNetwork, SavedAnalysis, analyze_save,
    load_network, network_plan, save_vectors, suggest_learned_save, suggest_save,
};
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};
use tower_lsp_server::ls_types::MessageType;

/// Runs until the server stops: hands each job to its project's worker.
pub async fn run(session: Arc<Session>, mut requests: UnboundedReceiver<JobRequest>) {
    let networks = Arc::new(Networks::default());
    let mut workers: HashMap<PathBuf, UnboundedSender<JobRequest>> = HashMap::new();
    while let Some(job) = requests.recv().await {
        let worker = workers.entry(job.key.clone()).or_insert_with(|| {
            let (sender, receiver) = unbounded_channel();
            tokio::spawn(work(session.clone(), networks.clone(), receiver));
            sender
        });
        let _ = worker.send(job);
    }
}

/// One project's worker: its jobs, one at a time, newest first.
async fn work(
    session: Arc<Session>,
    networks: Arc<Networks>,
    mut jobs: UnboundedReceiver<JobRequest>,
) {
    while let Some(mut job) = jobs.recv().await {
        while let Ok(newer) = jobs.try_recv() {
            job = newer;
        }
        if session.read(|state| state.is_newest(&job.key, &job.ticket)) {
            run_job(&session, &networks, job).await;
        }
    }
}

async fn run_job(session: &Arc<Session>, networks: &Arc<Networks>, job: JobRequest) {
    let Some(saved) = analyze(session, &job).await else {
        return;
    };
    // With a network held, this save's is a warm start or already made, a second or two:
    // the save's suggestions and the yardstick follow it rather than halve its speed on a
    // small machine. A first training takes minutes: they go beside it.
    let network_held = session.read(|state| {
        state
            .projects
            .get(&job.key)
            .is_some_and(|project| project.network(Role::Classifier).is_some())
    });
    let spawn_the_rest = || {
        spawn_suggestions(session, &job, &saved);
        yardstick::spawn(session, &networks.yardsticks, &job, &saved);
    };
    if !network_held {
        spawn_the_rest();
    }
    let settings = session.snapshot().settings.clone();
    let classifier = match settings.training.network(Role::Classifier) {
        Some(training) => {
            let stored = step(session, networks, &job, &saved, Role::Classifier, &training).await;
            if stored
                .as_ref()
                .is_some_and(|network| network.rule_network().is_some())
            {
                measure::start(session, &job.key);
            }
            Some(stored.is_some())
        }
        None => None,
    };
    if network_held && session.read(|state| state.is_newest(&job.key, &job.ticket)) {
        spawn_the_rest();
    }
    if classifier == Some(false) {
        return;
    }
    if let Some(training) = settings.training.network(Role::LearnedPatterns)
        && let Some(network) = step(
            session,
            networks,
            &job,
            &saved,
            Role::LearnedPatterns,
            &training,
        )
        .await
        && let Some(patterns) = network.patterns()
        && session.snapshot().settings.suggest.enabled
    {
        measure_learned(session, &job, &saved, patterns).await;
    }
}

/// The network `training` calls for on this save, or `None` (logged when corpora are
/// missing).
fn plan(
    session: &Arc<Session>,
    job: &JobRequest,
    saved: &SavedAnalysis,
    training: &TrainingSettings,
) -> Option<NetworkPlan> {
    let settings = session.snapshot().settings.clone();
    let cache_root = settings
        .training
        .model_cache
        .clone()
        .unwrap_or_else(project::default_cache_root);
    match network_plan(
        &saved.analysis,
        &job.text,
        training,
        &settings.reconstruct(),
        &cache_root,
        &job.key,
    ) {
        Ok(plan) => Some(plan),
        Err(NoNetwork::RulesHaveErrors) => None,
        Err(NoNetwork::MissingCorpora(missing)) => {
            session.log(
                MessageType::INFO,
                format!(
                    "{}: no network: training needs a `corpus {}` binding",
                    name(&job.key),
                    missing.join("` and a `corpus ")
                ),
            );
            None
        }
    }
}

/// Step 2 or 3: the network in `role` that `training` calls for on this save, stored with
/// the findings it adds; `None` when the job goes no further (no corpora, no network to be
/// had, or a newer job).
async fn step(
    session: &Arc<Session>,
    networks: &Arc<Networks>,
    job: &JobRequest,
    saved: &SavedAnalysis,
    role: Role,
    training: &TrainingSettings,
) -> Option<Arc<TrainedNetwork>> {
    let plan = plan(session, job, saved, training)?;
    let fetch = Fetch {
        session,
        networks,
        job,
        saved,
        plan: &plan,
        role,
        training,
    };
    let (network, unfinished) = obtain(fetch).await?;
    let findings = network.findings(&saved.analysis);
    let adds_findings = findings.is_some();
    let stored = session.update(|state| {
        let project = state.project_of_job(&job.key, &job.ticket)?;
        let held = project.held_mut(role);
        held.network = Some(network.clone());
        held.key = Some(plan.memory_key.clone());
        // The next save may start from it, once its checkpoint is on disk.
        held.dir = plan.is_cached().then(|| plan.dir.clone());
        if let Some(findings) = findings
            && let Some(current) = &project.saved
            && current.generation == job.ticket.generation
        {
            project.saved = Some(Arc::new(Saved {
                analysis: current.analysis.clone(),
                corpus_findings: current.corpus_findings.clone(),
                model_findings: findings,
                previous_model_findings: Vec::new(),
                words: current.words.clone(),
                generation: job.ticket.generation,
            }));
        }
        Some(())
    });
    if stored.is_some() {
        refresh_diagnostics(session, &job.key);
        if adds_findings {
            refresh_views(session);
        }
    }
    // Only now: a client that waits for the end finds the network in place.
    if let Some(unfinished) = unfinished {
        unfinished.end().await;
    }
    stored.map(|()| network)
}

/// The SoPa's learned patterns measured as the suggestion engine's edits of the save, and
/// added to its suggestions.
async fn measure_learned(
    session: &Arc<Session>,
    job: &JobRequest,
    saved: &SavedAnalysis,
    patterns: &TrainedPatterns,
) {
    let learned = patterns.learned_rules();
    if learned.is_empty() {
        return;
    }
    let config = session.snapshot().settings.suggest.config;
    let (analysis, cancel) = (saved.analysis.clone(), job.ticket.clone());
    let started = Instant::now();
    let computed = tokio::task::spawn_blocking(move || {
        suggest_learned_save(&analysis, &learned, &config, &|| cancel.is_cancelled())
    })
    .await;
    let list = match computed {
        Ok(Some(list)) => list,
        Ok(None) => return,
        Err(error) => {
            session.log_error(format!(
                "{}: learned suggestions failed: {error}",
                name(&job.key)
            ));
            return;
        }
    };
    let (count, n_learned) = (list.len(), patterns.learned().len());
    let stored = session.update(|state| {
        let project = state.project_of_job(&job.key, &job.ticket)?;
        project.suggestions = Some(Arc::new(SavedSuggestions::merged(
            project.suggestions.as_deref(),
            list,
            job.ticket.generation,
        )));
        Some(())
    });
    if stored.is_some() {
        session.log(
            MessageType::INFO,
            format!(
                "{}: {count} suggestion{} from {n_learned} learned patterns, measured in {} ms",
                name(&job.key),
                if count == 1 { "" } else { "s" },
                started.elapsed().as_millis()
            ),
        );
    }
}

/// Step 1: the rules on their corpora, stored and published; `None` when the job was
/// superseded or cancelled.
async fn analyze(session: &Arc<Session>, job: &JobRequest) -> Option<SavedAnalysis> {
    let snapshot = session.snapshot();
    let project = snapshot.projects.get(&job.key)?.clone();
    let on_disk = project.on_disk;
    let version = job.version;
    let open = snapshot.open_corpora();
    let extra = snapshot.settings.corpora.get(&job.key).cloned();
    let (findings, limits) = (snapshot.settings.findings, snapshot.settings.limits);
    let (key, text, cancel) = (job.key.clone(), job.text.clone(), job.ticket.clone());
    let started = Instant::now();
    let analyzed = tokio::task::spawn_blocking(move || {
        let path = on_disk.then_some(key.as_path());
        // The open document's analysis of this text where there is one, made once.
        let rules = match version {
            Some(version) => project.analysis_of(version, &text, path),
            None => Arc::new(RulesFile::analyze(
                SourceText::from_bytes(text.as_bytes()),
                path,
                &Default::default(),
            )),
        };
        analyze_save(
            &key,
            on_disk,
            rules,
            CorpusSources {
                extra: extra.as_ref(),
                open: &open,
                limits: &limits,
            },
            &findings,
            &|| cancel.is_cancelled(),
        )
    })
    .await;
    let saved = match analyzed {
        Ok(Ok(saved)) => saved,
        Ok(Err(_cancelled)) => return None,
        Err(error) => {
            session.log_error(format!("{}: analysis failed: {error}", name(&job.key)));
            return None;
        }
    };
    log_analysis(session, &job.key, &saved, started.elapsed());
    let stored = session.update(|state| {
        let project = state.project_of_job(&job.key, &job.ticket)?;
        // Until this save's network is in, the last network's I0504 stay, marked.
        let previous_model_findings = project
            .saved
            .as_ref()
            .map(|previous| {
                if previous.model_findings.is_empty() {
                    previous.previous_model_findings.clone()
                } else {
                    previous.model_findings.clone()
                }
            })
            .unwrap_or_default();
        project.saved = Some(Arc::new(Saved {
            analysis: saved.analysis.clone(),
            corpus_findings: saved.corpus_findings.clone(),
            model_findings: Vec::new(),
            previous_model_findings,
            words: saved.words.clone(),
            generation: job.ticket.generation,
        }));
        Some(())
    });
    stored?;
    refresh_diagnostics(session, &job.key);
    Some(saved)
}

/// Step 1b, beside the network: the suggestion engine's edits of the saved rules, stored
/// while the job is the newest of its project (when `suggest.enabled`).
fn spawn_suggestions(session: &Arc<Session>, job: &JobRequest, saved: &SavedAnalysis) {
    let snapshot = session.snapshot();
    let settings = snapshot.settings.suggest;
    if !settings.enabled {
        return;
    }
    let embeddings = snapshot.settings.training.settings.embeddings.clone();
    let limits = snapshot.settings.limits;
    let (session, key, ticket) = (session.clone(), job.key.clone(), job.ticket.clone());
    // Not kept alive while the task waits: the project keeps its newest save's.
    let (analysis, words) = (
        Arc::downgrade(&saved.analysis),
        Arc::downgrade(&saved.words),
    );
    let Some(turn) = snapshot
        .projects
        .get(&job.key)
        .map(|p| p.suggesting.clone())
    else {
        return;
    };
    tokio::spawn(async move {
        // After the task of an earlier save has ended (it is cancelled, and stops within
        // a line or a candidate).
        let _turn = turn.lock().await;
        let (Some(analysis), Some(words)) = (analysis.upgrade(), words.upgrade()) else {
            return;
        };
        if ticket.is_cancelled() {
            return;
        }
        let cancel = ticket.clone();
        let started = Instant::now();
        let computed = tokio::task::spawn_blocking(move || {
            let vectors = save_vectors(&words, VectorSource::of(embeddings.as_deref()), &limits);
            let list = suggest_save(&analysis, vectors.as_ref().ok(), &settings.config, &|| {
                cancel.is_cancelled()
            });
            (list, vectors.err())
        })
        .await;
        let (list, vectors_error) = match computed {
            Ok(computed) => computed,
            Err(error) => {
                session.log_error(format!("{}: suggestions failed: {error}", name(&key)));
                return;
            }
        };
        if let Some(error) = vectors_error {
            session.log_error(format!(
                "{}: suggestions without word vectors: {error}",
                name(&key)
            ));
        }
        let Some(list) = list else {
            return;
        };
        let count = list.len();
        let stored = session.update(|state| {
            let project = state.project_of_job(&key, &ticket)?;
            project.suggestions = Some(Arc::new(SavedSuggestions::merged(
                project.suggestions.as_deref(),
                list,
                ticket.generation,
            )));
            Some(())
        });
        if stored.is_some() {
            session.log(
                MessageType::INFO,
                format!(
                    "{}: {count} suggestion{} measured in {} ms",
                    name(&key),
                    if count == 1 { "" } else { "s" },
                    started.elapsed().as_millis()
                ),
            );
        }
    });
}

/// What a save read and found, for the client's log.
fn log_analysis(session: &Session, key: &Path, saved: &SavedAnalysis, took: Duration) {
    let mut read = Vec::new();
    for report in &saved.corpora {
        match &report.read {
            Ok((origin, n)) => read.push(format!(
                "{} {} ({n} lines, {})",
                report.name,
                report.path.display(),
                match origin {
                    CorpusOrigin::Buffer => "open buffer",
                    CorpusOrigin::Disk => "disk",
                }
            )),
            Err(error) => session.log(
                MessageType::WARNING,
                format!("{}: corpus {}: {error}", name(key), report.name),
            ),
        }
    }
    let rules = &saved.analysis.rules;
    session.log(
        MessageType::INFO,
        format!(
            "{}: {} patterns, {} errors; corpora: {}; analyzed in {} ms",
            name(key),
            rules.rules.patterns.len(),
            rules.diagnostics.iter().filter(|d| d.is_error()).count(),
            if read.is_empty() {
                "none bound".to_string()
            } else {
                read.join(", ")
            },
            took.as_millis()
        ),
    );
}

/// The network of `plan` for the job's project: the one it holds when that was prepared
/// under the same key, else [`network`]'s; marks it as the one the project wants. `None`
/// when there is none to be had, or the job was superseded.
async fn obtain(fetch: Fetch<'_>) -> Option<(Arc<TrainedNetwork>, Option<Unfinished>)> {
    let Fetch {
        session,
        job,
        plan,
        role,
        ..
    } = fetch;
    let in_memory = session.update(|state| {
        let held = state.project_of_job(&job.key, &job.ticket)?.held_mut(role);
        held.wanted = Some(plan.memory_key.clone());
        let same = held.key.as_deref() == Some(plan.memory_key.as_str())
            && job.training != TrainingDemand::Full;
        Some(held.network.clone().filter(|_| same))
    })?;
    match in_memory {
        Some(network) => Some((network, None)),
        None => network(fetch).await,
    }
}

/// The network of `plan` from the registry (shared with identical projects), the
/// cache, or a new training (with its progress, still to be ended); `None` when there is
/// none to be had (training off, failed, cancelled, or the job superseded).
async fn network(fetch: Fetch<'_>) -> Option<(Arc<TrainedNetwork>, Option<Unfinished>)> {
    let Fetch {
        session,
        networks,
        job,
        plan,
        ..
    } = fetch;
    if job.training == TrainingDemand::Full {
        // Asked for a full training: nothing held, shared or cached will do.
        let (made, unfinished) = make(fetch).await.unzip();
        return made.map(|model| (model, unfinished.flatten()));
    }
    loop {
        match networks.registry.claim(&plan.memory_key) {
            Claim::Ready(model) => return Some((model, None)),
            Claim::Pending(mut result) => {
                // Another project makes the same network: wait for it.
                let _ = result.wait_for(Option::is_some).await;
                let finished = result.borrow().clone().flatten();
                if let Some(model) = finished {
                    return Some((model, None));
                }
                if !session.read(|state| state.is_newest(&job.key, &job.ticket)) {
                    return None;
                }
                // It failed or was given up: make it here.
            }
            Claim::Mine(slot) => {
                let (made, unfinished) = make(fetch).await.unzip();
                return slot.finish(made).map(|model| (model, unfinished.flatten()));
            }
        }
    }
}

/// Loads the network of `plan` from the cache, or trains it when the job may (with its
/// training's progress, still to be ended).
async fn make(fetch: Fetch<'_>) -> Option<(Arc<TrainedNetwork>, Option<Unfinished>)> {
    let Fetch {
        session,
        networks,
        job,
        saved,
        plan,
        ..
    } = fetch;
    let settings = session.snapshot().settings.clone();
    let wanted = wanted_by_someone(session, &plan.memory_key);
    if job.training != TrainingDemand::Full && plan.is_cached() {
        let (dir, text, analysis) = (plan.dir.clone(), job.text.clone(), saved.analysis.clone());
        let cancelled = wanted.clone();
        let (reconstruct, limits) = (settings.reconstruct(), settings.limits);
        let loaded = tokio::task::spawn_blocking(move || {
            load_network(&dir, &text, &analysis, &reconstruct, &limits, &|| {
                !cancelled()
            })
        })
        .await;
        match loaded {
            Ok(Ok(model)) => {
                session.log(
                    MessageType::INFO,
                    format!(
                        "{}: loaded the trained {} from the cache, {}",
                        name(&job.key),
                        fetch.role.name(fetch.training.model),
                        plan.dir.display()
                    ),
                );
                return Some((Arc::new(model), None));
            }
            Ok(Err(message)) => session.log(
                MessageType::WARNING,
                format!(
                    "{}: the cached {} in {} is not used: {message}",
                    name(&job.key),
                    fetch.role.name(fetch.training.model),
                    plan.dir.display()
                ),
            ),
            Err(error) => session.log_error(format!("loading failed: {error}")),
        }
    }
    if !(settings.training.enabled || job.training != TrainingDemand::IfEnabled) {
        return None;
    }
    // A burst of saves trains once: wait for the last. A save on its own trains at once.
    if job.training == TrainingDemand::IfEnabled && job.in_a_burst {
        tokio::time::sleep(Duration::from_secs_f64(settings.training.delay)).await;
    }
    let _permit = networks.training.acquire().await.ok()?;
    if !wanted() || !session.read(|state| state.is_newest(&job.key, &job.ticket)) {
        return None;
    }
    train(fetch, wanted)
        .await
        .map(|(model, unfinished)| (Arc::new(model), Some(unfinished)))
}

/// Whether some project's newest job still wants the network with this memory key (a rule
/// network's or a SoPa's: their settings, and so their keys, differ).
fn wanted_by_someone(
    session: &Arc<Session>,
    memory_key: &str,
) -> Arc<dyn Fn() -> bool + Send + Sync> {
    let session = session.clone();
    let memory_key = memory_key.to_string();
    Arc::new(move || {
        session.read(|state| {
            state.projects.values().any(|project: &Project| {
                let key = Some(memory_key.as_str());
                project
                    .networks
                    .values()
                    .any(|held| held.wanted.as_deref() == key)
                    && project.job.as_ref().is_some_and(|job| !job.is_cancelled())
            })
        })
    })
}

//! A save's network trained in the background (`jobs.rs` decides when): the training
//! starts on the blocking pool ([`start_training`]); the actor follows its news into
//! `$/progress`, the hovers' status and the log ([`follow_training`]), in the words
//! [`FitEvent::lines`] uses for the CLI; and its outcome is logged, its progress ended once
//! the network is stored ([`finish_training`], [`Unfinished`]).

use super::capabilities::ClientFlags;
use super::client_notices::{Progress, name};
use super::config::Settings;
use super::registry::Networks;
use super::state::{JobRequest, Session, TrainingDemand};
use crate::ide::{Role, TrainedNetwork};
use crate::model::checkpoint::DevFigure;
use crate::model::{FitEvent, ModelKind, TrainingSettings, WARM_SCHEDULE};
use crate::project::{FreshlyTrained, NetworkPlan, SavedAnalysis, train_network};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tower_lsp_server::ls_types::MessageType;

/// What a step asks for its network with: the job, the analysis of its save, the plan (the
/// key and checkpoint folder its settings call for) and those settings, and the session and
/// registry it is found in.
#[derive(Clone, Copy)]
pub(super) struct Fetch<'a> {
    pub(super) session: &'a Arc<Session>,
    pub(super) networks: &'a Arc<Networks>,
    pub(super) job: &'a JobRequest,
    pub(super) saved: &'a SavedAnalysis,
    pub(super) plan: &'a NetworkPlan,
    /// The role the network is for, and the settings it trains under.
    pub(super) role: Role,
    pub(super) training: &'a TrainingSettings,
}

/// What the blocking training tells the actor, with the lines [`FitEvent::lines`] says
/// the events in.
enum TrainingNews {
    /// Whether it starts from the previous network, and why or how (only when it may).
    Start { warm: bool, lines: Vec<String> },
    /// An epoch's dev figure, the best of its member so far, and what they measure.
    Epoch {
        epoch: usize,
        dev_accuracy: f64,
        best: f64,
        figure: DevFigure,
    },
    /// The data training uses: the number of training sentences.
    Data { n_train: usize, lines: Vec<String> },
    /// Member `index` (from 0) of an ensemble of `members` starts training.
    Member {
        index: usize,
        members: usize,
        lines: Vec<String>,
    },
    /// What goes to the log alone: the rules training left out.
    Logged(Vec<String>),
}

/// Trains the network of `plan`, caches its checkpoint and prepares it, with progress and
/// log lines: the training starts on the blocking pool ([`start_training`]), the actor
/// follows its news into `$/progress` and the hovers' status ([`follow_training`]), and its
/// outcome is logged ([`finish_training`]).
pub(super) async fn train(
    fetch: Fetch<'_>,
    wanted: Arc<dyn Fn() -> bool + Send + Sync>,
) -> Option<(TrainedNetwork, Unfinished)> {
    let run = TrainingRun::new(&fetch);
    let from = if fetch.job.training == TrainingDemand::Full {
        None
    } else {
        fetch.session.read(|state| {
            // Only a rule network starts from the one the project holds.
            let held = state.projects.get(&fetch.job.key)?.held(fetch.role)?;
            held.dir
                .clone()
                .filter(|_| fetch.training.model.is_rule_network())
        })
    };
    // The title says whether the network starts from the previous one, which the blocking
    // task knows once it has read it; without one to start from, it is a full training.
    let mut progress = match from {
        None => Some(run.begin(false).await),
        Some(_) => None,
    };
    let (blocking, news) = start_training(&run, &fetch, from, wanted);
    let result = follow_training(&run, blocking, news, &mut progress).await;
    let progress = match progress {
        Some(progress) => progress,
        None => run.begin(false).await,
    };
    finish_training(&run, fetch.plan, result, progress).await
}

/// What a training of one kind of network for one job says, and to whom.
struct TrainingRun<'a> {
    session: &'a Arc<Session>,
    job: &'a JobRequest,
    /// The client's flags and the settings, of one snapshot taken as the training starts.
    client: ClientFlags,
    settings: Arc<Settings>,
    /// The project's name in messages.
    file: String,
    /// "FA-RNN (rule network)": the model and its role.
    what: String,
    /// The `$/progress` token's prefix for this kind.
    token: &'static str,
    /// Dev measurements of a full training: one per epoch.
    epochs: usize,
    batch_size: usize,
    started: Instant,
}

impl<'a> TrainingRun<'a> {
    fn new(fetch: &Fetch<'a>) -> TrainingRun<'a> {
        let snapshot = fetch.session.snapshot();
        TrainingRun {
            session: fetch.session,
            job: fetch.job,
            client: snapshot.client,
            settings: snapshot.settings,
            file: name(&fetch.job.key),
            what: format!(
                "{} ({})",
                fetch.training.model.display_name(),
                fetch.role.name(fetch.training.model)
            ),
            token: fetch.role.progress_token(),
            epochs: fetch.training.epochs.max(1),
            batch_size: fetch.training.batch_size,
            started: Instant::now(),
        }
    }

    /// The progress's title: `Warm start of FA-RNN (rule network)`.
    fn title(&self, warm: bool) -> String {
        let how = if warm {
            "Warm start of"
        } else {
            "Full training of"
        };
        format!("{how} {}", self.what)
    }

    /// Begins the training's `$/progress`.
    async fn begin(&self, warm: bool) -> Progress {
        let token = format!("{}/{}", self.token, self.job.ticket.generation);
        Progress::begin(
            self.session,
            &self.client,
            &token,
            &self.title(warm),
            &self.file,
        )
        .await
    }

    /// Sets what hovers show of the training (`None` once it ended).
    fn show(&self, shown: Option<Arc<str>>) {
        self.session.update(|state| {
            if let Some(project) = state.projects_mut().get_mut(&self.job.key) {
                project.training = shown;
            }
        });
    }
}

/// The settings that shape a network, for the log: β for the FA-RNN family, the free
/// patterns and the semiring for SoPa, the dropout for a black box.
fn shape_of(training: &TrainingSettings) -> String {
    if training.model.is_black_box() {
        format!("dropout {}", training.dropout())
    } else if training.model == ModelKind::Sopa {
        format!(
            "patterns {}, semiring {}",
            training.sopa.patterns,
            serde_json::to_value(training.sopa.semiring)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        )
    } else {
        format!("β {}", training.beta)
    }
}

/// The blocking training's outcome.
type TrainingResult = Result<Result<FreshlyTrained, String>, tokio::task::JoinError>;

/// Logs the training's settings and starts it on the blocking pool, from the checkpoint
/// `from` where it warm-starts: its handle, and the channel of its news.
fn start_training(
    run: &TrainingRun,
    fetch: &Fetch<'_>,
    from: Option<PathBuf>,
    wanted: Arc<dyn Fn() -> bool + Send + Sync>,
) -> (
    tokio::task::JoinHandle<Result<FreshlyTrained, String>>,
    UnboundedReceiver<TrainingNews>,
) {
    let training = fetch.training.clone();
    run.session.log(
        MessageType::INFO,
        format!(
            "{}: training {} ({}, learning rate {}, batch {}, at most {} epochs, patience {}, word vectors {})",
            run.file,
            training.model.display_name(),
            shape_of(&training),
            training.learning_rate(),
            training.batch_size,
            training.epochs,
            training.patience,
            training
                .embeddings
                .as_ref()
                .map_or_else(|| "bundled".to_string(), |p| p.display().to_string())
        ),
    );
    let settings = run.settings.clone();
    let (sender, news) = unbounded_channel();
    let (analysis, dir) = (fetch.saved.analysis.clone(), fetch.plan.dir.clone());
    let blocking = tokio::task::spawn_blocking(move || {
        let mut best = 0.0f64;
        train_network(
            &dir,
            &analysis,
            &training,
            &settings.limits,
            &settings.reconstruct(),
            from.as_deref(),
            &mut |event| {
                let news = match &event {
                    FitEvent::WarmStart(_) => TrainingNews::Start {
                        warm: true,
                        lines: event.lines(),
                    },
                    FitEvent::FullTraining { .. } => TrainingNews::Start {
                        warm: false,
                        lines: event.lines(),
                    },
                    FitEvent::Epoch(report, figure) => {
                        best = best.max(report.dev_accuracy);
                        TrainingNews::Epoch {
                            epoch: report.epoch,
                            dev_accuracy: report.dev_accuracy,
                            best,
                            figure: *figure,
                        }
                    }
                    FitEvent::Data { n_train, .. } => TrainingNews::Data {
                        n_train: *n_train,
                        lines: event.lines(),
                    },
                    FitEvent::Member { index, members, .. } => {
                        best = 0.0;
                        TrainingNews::Member {
                            index: *index,
                            members: *members,
                            lines: event.lines(),
                        }
                    }
                    FitEvent::RulesLeftOut(_) => TrainingNews::Logged(event.lines()),
                    _ => return,
                };
                let _ = sender.send(news);
            },
            &|| !wanted(),
        )
    });
    (blocking, news)
}

/// Where a followed training stands: whether it is a warm start (its dev measurements
/// counted by [`WARM_SCHEDULE`] once the number of training sentences is known, else one
/// per epoch), and the ensemble member training now (one network: 0 of 1).
struct Followed {
    warm_start: bool,
    measurements: usize,
    member: usize,
    members: usize,
}

impl Followed {
    /// What `news` says, given what came before.
    fn read(&mut self, run: &TrainingRun, news: TrainingNews) -> Told {
        let file = &run.file;
        let logged = |lines: &[String]| -> Vec<(MessageType, String)> {
            lines
                .iter()
                .map(|line| {
                    let level = if line.starts_with("warning: ") {
                        MessageType::WARNING
                    } else {
                        MessageType::INFO
                    };
                    (level, format!("{file}: {line}"))
                })
                .collect()
        };
        match news {
            TrainingNews::Start { warm, lines } => {
                self.warm_start = warm;
                Told {
                    logged: logged(&lines),
                    shown: None,
                }
            }
            TrainingNews::Logged(lines) => Told {
                logged: logged(&lines),
                shown: None,
            },
            TrainingNews::Data { n_train, lines } => {
                if self.warm_start {
                    self.measurements = WARM_SCHEDULE.measurements(n_train, run.batch_size);
                }
                // The first line is the progress's message; the others go to the log.
                let message = format!("{file}: {}", lines.first().map_or("", String::as_str));
                Told {
                    logged: logged(lines.get(1..).unwrap_or_default()),
                    shown: Some((message, 0)),
                }
            }
            TrainingNews::Member {
                index,
                members,
                lines,
            } => {
                (self.member, self.members) = (index, members);
                let message = format!("{file}: {}", lines.join("; "));
                Told {
                    logged: Vec::new(),
                    shown: Some((message, (100 * index / members.max(1)) as u32)),
                }
            }
            TrainingNews::Epoch {
                epoch,
                dev_accuracy,
                best,
                figure,
            } => {
                let (member, members, measurements) =
                    (self.member, self.members, self.measurements);
                let message = format!(
                    "{file}: {}{} {epoch}/{measurements}, {} {:.1}% (best {:.1}%)",
                    if members > 1 {
                        format!("member {}/{members}, ", member + 1)
                    } else {
                        String::new()
                    },
                    if self.warm_start {
                        "dev measurement"
                    } else {
                        "epoch"
                    },
                    figure.name(),
                    100.0 * dev_accuracy,
                    100.0 * best
                );
                let percentage = ((100 * (member * measurements + epoch.min(measurements)))
                    / (members * measurements).max(1))
                .min(100) as u32;
                Told {
                    logged: Vec::new(),
                    shown: Some((message, percentage)),
                }
            }
        }
    }
}

/// What a piece of a training's news tells the user: log lines with their level, and the
/// progress message with its percentage (none for a start).
struct Told {
    logged: Vec<(MessageType, String)>,
    shown: Option<(String, u32)>,
}

/// Follows the blocking training's news until it ends: each logged, and shown in the
/// `$/progress` (begun at the start's news, when it was not yet) and the hovers' status.
async fn follow_training(
    run: &TrainingRun<'_>,
    blocking: tokio::task::JoinHandle<Result<FreshlyTrained, String>>,
    mut news: UnboundedReceiver<TrainingNews>,
    progress: &mut Option<Progress>,
) -> TrainingResult {
    tokio::pin!(blocking);
    let mut followed = Followed {
        warm_start: false,
        measurements: run.epochs,
        member: 0,
        members: 1,
    };
    loop {
        tokio::select! {
            Some(news) = news.recv() => {
                // What goes to the log alone comes before training says how it starts.
                let says_how = !matches!(news, TrainingNews::Logged(_));
                let Told { logged, shown } = followed.read(run, news);
                for (level, line) in logged {
                    run.session.log(level, line);
                }
                if progress.is_none() && says_how {
                    *progress = Some(run.begin(followed.warm_start).await);
                }
                let Some((message, percentage)) = shown else {
                    continue;
                };
                // What hovers show, as the client's status shows it: the title, then the
                // message.
                run.show(Some(format!("{}: {message}", run.title(followed.warm_start)).into()));
                if let Some(progress) = progress {
                    progress.report(message, percentage).await;
                }
            }
            result = &mut blocking => return result,
        }
    }
}

/// Logs the training's outcome and clears the hovers' status: the trained network with
/// its progress still open (ended once it is stored), or `None` with the progress ended.
async fn finish_training(
    run: &TrainingRun<'_>,
    plan: &NetworkPlan,
    result: TrainingResult,
    progress: Progress,
) -> Option<(TrainedNetwork, Unfinished)> {
    run.show(None);
    let (session, file) = (run.session, &run.file);
    let seconds = run.started.elapsed().as_secs_f64();
    let (outcome, model) = match result {
        Ok(Ok(trained)) => {
            let metrics = &trained.network.manifest().metrics;
            session.log(
                MessageType::INFO,
                format!(
                    "{file}: trained in {seconds:.1} s: {} {:.2}% ({} {:.2}%), best epoch {} of {}",
                    metrics.dev_figure().name(),
                    100.0 * metrics.dev_accuracy,
                    trained.network.manifest().started_from(),
                    100.0 * metrics.zero_shot_dev_accuracy,
                    metrics.best_epoch,
                    metrics.epochs_run
                ),
            );
            match &trained.cached {
                Ok(()) => session.log(
                    MessageType::INFO,
                    format!("{file}: checkpoint written to {}", plan.dir.display()),
                ),
                Err(message) => session.log(
                    MessageType::WARNING,
                    format!(
                        "{file}: the network is kept in memory but could not be cached ({message}); set rulelens.training.modelCache to a writable folder"
                    ),
                ),
            }
            (
                format!(
                    "{file}: {} {:.2}%",
                    metrics.dev_figure().name(),
                    100.0 * metrics.dev_accuracy
                ),
                Some(trained.network),
            )
        }
        Ok(Err(message))
            if !session.read(|state| state.is_newest(&run.job.key, &run.job.ticket)) =>
        {
            (
                format!("{file}: cancelled by a newer save ({message})"),
                None,
            )
        }
        Ok(Err(message)) => {
            session.log(
                MessageType::WARNING,
                format!("{file}: training failed: {message}"),
            );
            (format!("{file}: training failed: {message}"), None)
        }
        Err(error) => {
            session.log_error(format!("{file}: training failed: {error}"));
            (format!("{file}: training failed"), None)
        }
    };
    match model {
        Some(model) => Some((
            model,
            Unfinished {
                progress,
                message: outcome,
            },
        )),
        None => {
            progress.end(outcome).await;
            None
        }
    }
}

/// A finished training's progress, ended once its network is stored, so that a client that
/// waits for the end (a test, a user's hover) finds the network in place.
pub(super) struct Unfinished {
    progress: Progress,
    message: String,
}

impl Unfinished {
    pub(super) async fn end(self) {
        self.progress.end(self.message).await;
    }
}

//! The server's state in one place, and its snapshots.
//!
//! [`State`] holds the open documents, one [`Project`] per rules file (its latest analysis,
//! its last saved analysis with findings, a [`Held`] network of each kind), the settings and
//! what the client can do. It lives in the [`Session`] behind one mutex, which is held only
//! for short synchronous sections and never across an `.await`; [`Session::update`] is the
//! one way to change it.
//!
//! A request handler gets one immutable [`Snapshot`], taken once for the whole request: the
//! maps are shared (`Arc`) with the state and copied only when a change arrives while a
//! snapshot holds them, so taking one costs a few reference counts, and an answer can never
//! mix two states.

use super::capabilities::ClientFlags;
use super::config::{Options, Settings};
use super::convert::{Encoding, Text};
use super::documents::{Document, Kind};
use crate::corpus::Format;
use crate::ide::{
    Finding, Measure, Role, RulesAnalysis, TrainedFaRnn, TrainedNetwork, WordFrequencies,
};
use crate::model::ModelKind;
use crate::project::{self, Binding, OpenCorpus};
use crate::rules_file::RulesFile;
use crate::suggest::{Suggestion, rank};
use crate::text::SourceText;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use tokio::sync::mpsc::UnboundedSender;
use tokio::sync::watch;
use tower_lsp_server::Client;
use tower_lsp_server::ls_types::MessageType;

/// The analysis of one save, with its findings.
#[derive(Debug)]
pub struct Saved {
    pub analysis: Arc<RulesAnalysis>,
    /// W0501–W0503.
    pub corpus_findings: Vec<Finding>,
    /// I0504, once a network for these rules is ready.
    pub model_findings: Vec<Finding>,
    /// Until then, the I0504 of the network of an earlier save, published marked as such
    /// (`ide::of_previous_save`) on the patterns the rules still have.
    pub previous_model_findings: Vec<Finding>,
    /// The train corpus' words, for completion inside regexes.
    pub words: Arc<WordFrequencies>,
    /// Which save this was.
    pub generation: u64,
}

/// The suggestion engine's edits of one save, best first.
#[derive(Debug)]
pub struct SavedSuggestions {
    pub list: Vec<Suggestion>,
    /// Which save they are of.
    pub generation: u64,
}

impl SavedSuggestions {
    /// `list`, measured for save `generation`, added to `old` when `old` is of the same
    /// save (the engine's list and the learned patterns' come in either order), ranked,
    /// an edit listed once.
    pub fn merged(
        old: Option<&SavedSuggestions>,
        mut list: Vec<Suggestion>,
        generation: u64,
    ) -> SavedSuggestions {
        if let Some(old) = old.filter(|old| old.generation == generation) {
            for suggestion in &old.list {
                if !list.iter().any(|s| s.edit == suggestion.edit) {
                    list.push(suggestion.clone());
                }
            }
        }
        rank(&mut list);
        SavedSuggestions { list, generation }
    }
}

/// The newest save job of a project: its generation (a counter over the whole server) and
/// the flag that cancels it.
#[derive(Debug, Clone)]
pub struct Ticket {
    pub generation: u64,
    pub cancel: Arc<AtomicBool>,
}

impl Ticket {
    pub fn is_cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }
}

/// A rules file and everything derived from it. Every field is cheap to clone.
#[derive(Debug, Clone)]
pub struct Project {
    /// Whether the key is a real file path (corpus bindings resolve against it).
    pub on_disk: bool,
    /// The latest analysis of the rules text, and the document version it is of (`None`
    /// when it came from the file on disk).
    pub current: Arc<RulesFile>,
    pub current_version: Option<i32>,
    /// The analysis of a newer version than `current`'s, made once and shared.
    pub fresh: Arc<Fresh>,
    pub saved: Option<Arc<Saved>>,
    /// The network it holds in each role: the one that classifies (a rule network, or a
    /// black box the settings train in its place), and the SoPa that learns patterns.
    pub networks: BTreeMap<Role, Held>,
    /// The newest save job.
    pub job: Option<Ticket>,
    /// When the newest save job started: a job that follows it within `training.delay` is
    /// part of a burst of saves.
    pub job_started: Option<Instant>,
    /// The latest progress report of a training run in progress, its title first (`Full
    /// training of FA-RNN (rule network): sms.rules: epoch 1/2, …`), for hovers.
    pub training: Option<Arc<str>>,
    /// The suggestions of a save, once computed.
    pub suggestions: Option<Arc<SavedSuggestions>>,
    /// Held by the save's task that measures the suggestions: one at a time, so that the
    /// tasks of a burst of saves do not pile up, each holding its save's corpora (about
    /// 700 MB on a million lines); a cancelled task stops within a line or a candidate.
    pub suggesting: Arc<tokio::sync::Mutex<()>>,
    /// The black-box yardstick of the saved corpora, for the lens on the `default` line.
    pub yardstick: Option<Yardstick>,
}

/// A project's network in one role: the one it holds, what it was prepared under and where
/// its checkpoint is, and the one its newest save job wants.
#[derive(Debug, Clone, Default)]
pub struct Held {
    pub network: Option<Arc<TrainedNetwork>>,
    /// What `network` was prepared under (`project::NetworkPlan::memory_key`).
    pub key: Option<String>,
    /// The checkpoint folder of `network`, once it is on disk: where the next training of a
    /// kind that warm starts (the rule network) starts from.
    pub dir: Option<PathBuf>,
    /// The memory key of the network the newest save job wants, once it knows.
    pub wanted: Option<String>,
}

/// A project's black-box yardstick: its bench run's key (`project::bench::run_key`: the
/// corpora, the rules' labels and the settings), the model, and its dev figure or why
/// there is none yet.
#[derive(Debug, Clone, PartialEq)]
pub struct Yardstick {
    pub key: String,
    pub model: ModelKind,
    pub measure: Measure,
}

impl Project {
    pub fn new(current: Arc<RulesFile>, version: Option<i32>, on_disk: bool) -> Project {
        Project {
            on_disk,
            current,
            current_version: version,
            fresh: Arc::default(),
            saved: None,
            networks: BTreeMap::new(),
            job: None,
            job_started: None,
            training: None,
            suggestions: None,
            suggesting: Arc::default(),
            yardstick: None,
        }
    }

    /// The network it holds in `role`, if any.
    pub fn network(&self, role: Role) -> Option<&Arc<TrainedNetwork>> {
        self.networks.get(&role)?.network.as_ref()
    }

    /// What it holds in `role` (nothing yet when it has not met that role).
    pub fn held(&self, role: Role) -> Option<&Held> {
        self.networks.get(&role)
    }

    pub fn held_mut(&mut self, role: Role) -> &mut Held {
        self.networks.entry(role).or_default()
    }

    /// The rule network it holds, if the network that classifies is one: what code actions,
    /// inlay hints and measuring ahead read.
    pub fn rule_network(&self) -> Option<&TrainedFaRnn> {
        self.network(Role::Classifier)?.rule_network()
    }

    /// The analysis of version `version` of its rules document, whose text is `text` (the
    /// rules at `path`): the current one where it is of that version, else the one
    /// [`Fresh`] shares.
    pub fn analysis_of(&self, version: i32, text: &str, path: Option<&Path>) -> Arc<RulesFile> {
        if self.current_version == Some(version) {
            return self.current.clone();
        }
        self.fresh.analysis(version, text, path, false)
    }

    /// The suggestions of the save whose analysis `saved` holds; none while they are being
    /// computed (a corpus line's number may mean another line in an earlier save).
    pub fn saved_suggestions(&self) -> &[Suggestion] {
        match (&self.saved, &self.suggestions) {
            (Some(saved), Some(suggestions)) if saved.generation == suggestions.generation => {
                &suggestions.list
            }
            _ => &[],
        }
    }

    /// Whether a save's analysis is under way: the newest job's figures are not in yet.
    pub fn is_analyzing(&self) -> bool {
        match (&self.job, &self.saved) {
            (Some(job), Some(saved)) => saved.generation != job.generation,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

/// One analysis of a rules document's newest version at a time: the requests that come
/// before the background analysis of a change lands (`sync.rs`), and that analysis itself,
/// share it instead of each analysing the text again. So a project holds at most two
/// analyses (its current one and the newest version's) however many requests a client
/// sends, where `check` holds one: a 20 MB document's analysis takes gigabytes.
#[derive(Debug, Default)]
pub struct Fresh(Mutex<Option<(i32, Arc<RulesFile>)>>);

impl Fresh {
    /// The analysis of version `version` of `text` (the rules at `path`): the one made
    /// already, unless `again` (a file the rules read changed); else made now, while other
    /// callers wait for it.
    pub fn analysis(
        &self,
        version: i32,
        text: &str,
        path: Option<&Path>,
        again: bool,
    ) -> Arc<RulesFile> {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((made, file)) = &*slot
            && *made == version
            && !again
        {
            return file.clone();
        }
        let file = Arc::new(RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            path,
            &Default::default(),
        ));
        *slot = Some((version, file.clone()));
        file
    }

    /// Lets go of the analysis of `version` or an older one: it is the current one now.
    pub fn release(&self, version: i32) {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if slot.as_ref().is_some_and(|(made, _)| *made <= version) {
            *slot = None;
        }
    }
}

/// Whether a save job trains when no network is found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrainingDemand {
    /// When the settings enable training (a save).
    IfEnabled,
    /// Whatever the settings say (the `rulelens/train` request).
    Always,
    /// The same, from scratch: no warm start, and no network held, shared or cached under
    /// the same key (`rulelens/train` with `full`).
    Full,
}

/// A save job for the compile actor (`jobs.rs`).
#[derive(Debug, Clone)]
pub struct JobRequest {
    /// The project's key: the rules path (or, for a rules document without a file, its URI).
    pub key: PathBuf,
    pub text: Arc<String>,
    /// The version of the open rules document whose text `text` is, if any: the save
    /// shares that version's analysis ([`Project::analysis_of`]).
    pub version: Option<i32>,
    pub ticket: Ticket,
    pub training: TrainingDemand,
    /// Whether it came within `training.delay` seconds of the project's previous job (a
    /// burst of saves, such as an editor that saves as you type): its training waits that
    /// long for a newer one. A save on its own trains at once.
    pub in_a_burst: bool,
}

/// Everything the server knows.
#[derive(Debug, Clone)]
pub struct State {
    /// By URI.
    pub documents: Arc<HashMap<String, Document>>,
    /// By rules path (or, for a rules document without a file, its URI).
    pub projects: Arc<HashMap<PathBuf, Project>>,
    /// The options received so far, merged.
    pub options: Options,
    pub settings: Arc<Settings>,
    pub root: Option<PathBuf>,
    /// The workspace folders the client named at `initialize` (or its root): W0408 warns
    /// of the files a rules file reads outside them.
    pub workspace_folders: Arc<[PathBuf]>,
    pub encoding: Encoding,
    pub client: ClientFlags,
    /// The last save generation handed out.
    pub generation: u64,
    /// `initialize` has been answered: document notifications count from now on.
    pub initialized: bool,
    /// `shutdown` has been received: only `exit` counts from now on.
    pub shut_down: bool,
    /// The projects whose long corpus lines a task is measuring (`measure.rs`), each with
    /// whether it should look for new lines before it stops.
    pub measuring: HashMap<PathBuf, bool>,
}

impl Default for State {
    fn default() -> State {
        State {
            documents: Arc::default(),
            projects: Arc::default(),
            options: Options::default(),
            settings: Arc::new(Settings::default()),
            root: None,
            workspace_folders: Arc::new([]),
            encoding: Encoding::Utf16,
            client: ClientFlags::default(),
            generation: 0,
            initialized: false,
            shut_down: false,
            measuring: HashMap::new(),
        }
    }
}

impl State {
    pub fn documents_mut(&mut self) -> &mut HashMap<String, Document> {
        Arc::make_mut(&mut self.documents)
    }

    pub fn projects_mut(&mut self) -> &mut HashMap<PathBuf, Project> {
        Arc::make_mut(&mut self.projects)
    }

    /// A cheap, immutable copy for one request.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot {
            documents: self.documents.clone(),
            projects: self.projects.clone(),
            settings: self.settings.clone(),
            workspace_folders: self.workspace_folders.clone(),
            encoding: self.encoding,
            client: self.client,
        }
    }

    /// Starts a save job for the project at `key`: cancels the running one and hands out a
    /// new ticket; `None` when there is no such project.
    pub fn start_job(
        &mut self,
        key: &Path,
        text: Arc<String>,
        training: TrainingDemand,
    ) -> Option<JobRequest> {
        self.generation += 1;
        let ticket = Ticket {
            generation: self.generation,
            cancel: Arc::new(AtomicBool::new(false)),
        };
        let delay = self.settings.training.delay;
        let project = self.projects_mut().get_mut(key)?;
        if let Some(old) = &project.job {
            old.cancel.store(true, Ordering::Relaxed);
        }
        project.job = Some(ticket.clone());
        let now = Instant::now();
        let in_a_burst = project
            .job_started
            .is_some_and(|started| now.duration_since(started).as_secs_f64() < delay);
        project.job_started = Some(now);
        for held in project.networks.values_mut() {
            held.wanted = None;
        }
        let version = self
            .documents
            .values()
            .find(|document| document.kind == Kind::Rules && Arc::ptr_eq(&document.text, &text))
            .map(|document| document.version);
        Some(JobRequest {
            key: key.to_path_buf(),
            text,
            version,
            ticket,
            training,
            in_a_burst,
        })
    }

    /// Whether a task should start measuring the project at `key`'s long corpus lines: no
    /// task is; else the running task is told to look for new lines before it stops.
    pub fn start_measuring(&mut self, key: &Path) -> bool {
        match self.measuring.get_mut(key) {
            Some(again) => {
                *again = true;
                false
            }
            None => {
                self.measuring.insert(key.to_path_buf(), false);
                true
            }
        }
    }

    /// Whether the task measuring the project at `key` stops now: unless it was told to
    /// look for new lines, which it is then to do.
    pub fn stop_measuring(&mut self, key: &Path) -> bool {
        match self.measuring.get_mut(key) {
            Some(again) if *again => {
                *again = false;
                false
            }
            _ => {
                self.measuring.remove(key);
                true
            }
        }
    }

    /// Whether `ticket` is still the newest job of the project at `key`, and not cancelled.
    pub fn is_newest(&self, key: &Path, ticket: &Ticket) -> bool {
        !ticket.is_cancelled()
            && self
                .projects
                .get(key)
                .and_then(|p| p.job.as_ref())
                .is_some_and(|job| job.generation == ticket.generation)
    }

    /// The project of `key` if `ticket` is still its newest job.
    pub fn project_of_job(&mut self, key: &Path, ticket: &Ticket) -> Option<&mut Project> {
        if !self.is_newest(key, ticket) {
            return None;
        }
        self.projects_mut().get_mut(key)
    }
}

/// A rules document with its analysis of exactly this version.
pub struct RulesView<'a> {
    pub uri: &'a str,
    pub key: PathBuf,
    pub document: &'a Document,
    pub project: &'a Project,
    /// The analysis of this version (made here when the background one is not in yet).
    pub file: Arc<RulesFile>,
    pub encoding: Encoding,
}

impl RulesView<'_> {
    pub fn text(&self) -> Text<'_> {
        self.document.text(self.encoding)
    }
}

/// A corpus document with the project that binds it, if any.
pub struct CorpusView<'a> {
    pub document: &'a Document,
    pub format: Format,
    pub project: Option<(&'a PathBuf, &'a Project)>,
    pub encoding: Encoding,
}

impl CorpusView<'_> {
    pub fn text(&self) -> Text<'_> {
        self.document.text(self.encoding)
    }
}

/// One immutable view of the state, for one request.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub documents: Arc<HashMap<String, Document>>,
    pub projects: Arc<HashMap<PathBuf, Project>>,
    pub settings: Arc<Settings>,
    pub workspace_folders: Arc<[PathBuf]>,
    pub encoding: Encoding,
    pub client: ClientFlags,
}

impl Snapshot {
    /// The project key of a rules document.
    pub fn rules_key(uri: &str, document: &Document) -> PathBuf {
        document.path.clone().unwrap_or_else(|| PathBuf::from(uri))
    }

    /// The rules document `uri` with its analysis of this version.
    pub fn rules<'a>(&'a self, uri: &'a str) -> Option<RulesView<'a>> {
        let document = self.documents.get(uri)?;
        if document.kind != Kind::Rules {
            return None;
        }
        let key = Snapshot::rules_key(uri, document);
        let project = self.projects.get(&key)?;
        let file = project.analysis_of(document.version, &document.text, document.path.as_deref());
        Some(RulesView {
            uri,
            key,
            document,
            project,
            file,
            encoding: self.encoding,
        })
    }

    /// The corpus document `uri` with its project.
    pub fn corpus<'a>(&'a self, uri: &str) -> Option<CorpusView<'a>> {
        let document = self.documents.get(uri)?;
        let Kind::Corpus(format) = document.kind else {
            return None;
        };
        Some(CorpusView {
            document,
            format,
            project: document
                .path
                .as_deref()
                .and_then(|path| self.project_of_corpus(path)),
            encoding: self.encoding,
        })
    }

    /// The corpora the project at `key` binds now.
    pub fn bindings(&self, key: &Path) -> Vec<Binding> {
        let Some(project) = self.projects.get(key) else {
            return Vec::new();
        };
        project::bindings(
            &project.current,
            key,
            project.on_disk,
            self.settings.corpora.get(key),
        )
    }

    /// The project that binds the corpus at `path`: the first by path when several do.
    pub fn project_of_corpus(&self, path: &Path) -> Option<(&PathBuf, &Project)> {
        let mut candidates: Vec<(&PathBuf, &Project)> = self
            .projects
            .iter()
            .filter(|(key, _)| {
                self.bindings(key)
                    .iter()
                    .any(|b| project::same_file(&b.path, path))
            })
            .collect();
        candidates.sort_by(|a, b| a.0.cmp(b.0));
        candidates.into_iter().next()
    }

    /// The open document at `path`, with its URI.
    pub fn document_at(&self, path: &Path) -> Option<(&String, &Document)> {
        self.documents
            .iter()
            .find(|(_, d)| d.path.as_deref() == Some(path))
    }

    /// The URI of the open rules document of `key`, if open.
    pub fn rules_uri(&self, key: &Path) -> Option<&str> {
        self.documents
            .iter()
            .find(|(uri, d)| d.kind == Kind::Rules && Snapshot::rules_key(uri, d) == key)
            .map(|(uri, _)| uri.as_str())
    }

    /// The rules text of a project: its open document's, else its current analysis's.
    pub fn rules_text(&self, key: &Path) -> Arc<String> {
        if let Some(document) = self.rules_uri(key).and_then(|uri| self.documents.get(uri)) {
            return document.text.clone();
        }
        self.projects.get(key).map_or_else(
            || Arc::new(String::new()),
            |project| Arc::new(project.current.source.text.clone()),
        )
    }

    /// Every open corpus document, for reading corpora "open buffer, else disk".
    pub fn open_corpora(&self) -> Vec<OpenCorpus> {
        self.documents
            .values()
            .filter_map(|d| match d.kind {
                Kind::Corpus(format) => Some(OpenCorpus {
                    path: d.path.clone()?,
                    format,
                    text: d.text.clone(),
                }),
                Kind::Rules => None,
            })
            .collect()
    }

    /// The URIs of the open documents a change to the project at `key` shows in: its rules
    /// document and the corpora it binds.
    pub fn uris_of_project(&self, key: &Path) -> Vec<String> {
        let bound = self.bindings(key);
        let mut uris: Vec<String> = self
            .documents
            .iter()
            .filter(|(_, d)| matches!(d.kind, Kind::Corpus(_)))
            .filter(|(_, d)| {
                d.path
                    .as_deref()
                    .is_some_and(|p| bound.iter().any(|b| project::same_file(&b.path, p)))
            })
            .map(|(uri, _)| uri.clone())
            .collect();
        uris.extend(self.rules_uri(key).map(str::to_string));
        uris
    }

    /// Whether every open rules document's analysis is of its current version.
    pub fn is_settled(&self) -> bool {
        self.documents.iter().all(|(uri, d)| {
            d.kind != Kind::Rules
                || self
                    .projects
                    .get(&Snapshot::rules_key(uri, d))
                    .is_none_or(|p| p.current_version == Some(d.version))
        })
    }
}

/// How long a request waits for the background analysis of the documents it reads, before
/// it analyzes them itself.
const SETTLE_TIMEOUT: Duration = Duration::from_secs(2);

/// The state with what reaches the client and the background tasks: what every handler,
/// the document task, the publisher and the compile actor share.
pub struct Session {
    pub client: Client,
    state: Mutex<State>,
    refresh: UnboundedSender<String>,
    jobs: UnboundedSender<JobRequest>,
    /// Bumped whenever a rules analysis lands, for requests waiting on one.
    analyzed: watch::Sender<u64>,
}

impl Session {
    pub fn new(
        client: Client,
        refresh: UnboundedSender<String>,
        jobs: UnboundedSender<JobRequest>,
    ) -> Session {
        Session {
            client,
            state: Mutex::new(State::default()),
            refresh,
            jobs,
            analyzed: watch::channel(0).0,
        }
    }

    /// The state. A panic while it was held does not poison it for good: no update leaves
    /// it half-changed (each one replaces whole values).
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Changes the state: the one way to.
    pub fn update<R>(&self, change: impl FnOnce(&mut State) -> R) -> R {
        change(&mut self.lock())
    }

    /// Reads the state.
    pub fn read<R>(&self, read: impl FnOnce(&State) -> R) -> R {
        read(&self.lock())
    }

    pub fn snapshot(&self) -> Snapshot {
        self.lock().snapshot()
    }

    /// A snapshot once every open rules document's background analysis has caught up with
    /// its text (or after [`SETTLE_TIMEOUT`], when handlers analyze what is stale
    /// themselves).
    pub async fn settled_snapshot(&self) -> Snapshot {
        let mut analyzed = self.analyzed.subscribe();
        let deadline = tokio::time::Instant::now() + SETTLE_TIMEOUT;
        loop {
            let snapshot = self.snapshot();
            if snapshot.is_settled() {
                return snapshot;
            }
            match tokio::time::timeout_at(deadline, analyzed.changed()).await {
                Ok(Ok(())) => {}
                _ => return self.snapshot(),
            }
        }
    }

    /// Tells waiting requests that an analysis landed.
    pub fn analysis_landed(&self) {
        self.analyzed.send_modify(|n| *n += 1);
    }

    /// Asks the publisher to recompute and publish `uri`'s diagnostics.
    pub fn refresh(&self, uri: String) {
        let _ = self.refresh.send(uri);
    }

    /// Asks for a refresh of every open document of the project at `key`.
    pub fn refresh_project(&self, key: &Path) {
        for uri in self.snapshot().uris_of_project(key) {
            self.refresh(uri);
        }
    }

    /// Queues a save job.
    pub fn send_job(&self, job: Option<JobRequest>) {
        if let Some(job) = job {
            let _ = self.jobs.send(job);
        }
    }

    /// Sends a `window/logMessage` from synchronous code.
    pub fn log(&self, typ: MessageType, message: String) {
        let client = self.client.clone();
        tokio::spawn(async move { client.log_message(typ, message).await });
    }

    pub fn log_error(&self, message: String) {
        self.log(MessageType::ERROR, message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Requests that come before a change's analysis lands share one analysis of the new
    /// version (issue 51, item 3.2): four threads asking at once get the same one, a newer
    /// version or a file read again makes another, and once current it is let go.
    #[test]
    fn one_analysis_of_a_version_is_shared() {
        let fresh = Fresh::default();
        let text = "default ham\nspam: $* free $*\n";
        let made: Vec<Arc<RulesFile>> = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| fresh.analysis(2, text, None, false)))
                .collect();
            threads.into_iter().map(|t| t.join().unwrap()).collect()
        });
        assert!(made.iter().all(|file| Arc::ptr_eq(file, &made[0])));
        assert!(!Arc::ptr_eq(&fresh.analysis(2, text, None, true), &made[0]));
        assert!(!Arc::ptr_eq(
            &fresh.analysis(3, text, None, false),
            &made[0]
        ));
        fresh.release(3);
        assert!(fresh.0.lock().unwrap().is_none());
    }

    /// A save within `training.delay` of the job before it is part of a burst; the first
    /// job, and any job with no delay, is not.
    #[test]
    fn a_job_soon_after_another_is_in_a_burst() {
        let mut state = State::default();
        let key = PathBuf::from("/r/x.rules");
        let file = RulesFile::analyze(
            SourceText::from_bytes(b"default ham\n"),
            None,
            &Default::default(),
        );
        state
            .projects_mut()
            .insert(key.clone(), Project::new(Arc::new(file), None, true));
        let text = Arc::new(String::new());
        let start = |state: &mut State| {
            state
                .start_job(&key, text.clone(), TrainingDemand::IfEnabled)
                .expect("the project")
                .in_a_burst
        };
        assert_eq!(state.settings.training.delay, 3.0);
        assert!(!start(&mut state));
        assert!(start(&mut state));
        let mut settings = (*state.settings).clone();
        settings.training.delay = 0.0;
        state.settings = Arc::new(settings);
        assert!(!start(&mut state));
    }
}

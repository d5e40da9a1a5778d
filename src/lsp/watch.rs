//! Corpus files that change on disk, not through the editor (a labeling tool writing them):
//! the rules files that bind one run their save job again, as a save does. Word-list files
//! (`words NAME from "PATH"`) likewise, and the rules document that reads one is analyzed
//! again, as an edit is: its lists, and their diagnostics, change with the file.
//!
//! A client that can watch files for the server (`workspace.didChangeWatchedFiles.
//! dynamicRegistration`) is asked to, for every `.tsv` and `.jsonl` file of the workspace
//! (`client/registerCapability`), and reports changes with
//! `workspace/didChangeWatchedFiles`. For any other client, or one that refuses, the server
//! looks itself: every [`POLL_INTERVAL`] it reads the modification time and length of each
//! bound corpus file (at most [`MAX_POLLED_FILES`], on the blocking pool), a few system
//! calls, and a change since the round before (for a file seen for the first time, a
//! modification since the server was initialized) starts the save jobs. A poll rather than the
//! operating system's notifications (the `notify` crate): bound corpora are a few files,
//! known by path, possibly outside the workspace, and a poll needs no thread, handle or
//! platform code of its own. A corpus open in the editor is left out: its buffer is what the
//! server reads. Word-list files, which may have any name, are always polled this way, and
//! a missing one too, so that creating it is noticed.

use super::client_notices::{CLIENT_TIMEOUT, name};
use super::state::{Session, Snapshot, TrainingDemand};
use super::sync;
use crate::project::same_file;
use crate::syntax::ast::{StatementKind, WordsBody};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};
use tower_lsp_server::ls_types::{
    DidChangeWatchedFilesRegistrationOptions, FileSystemWatcher, GlobPattern, MessageType,
    Registration,
};

/// How often the server-side watcher looks at the bound corpus files.
const POLL_INTERVAL: Duration = Duration::from_secs(2);
/// The most files the server-side watcher looks at in one round.
const MAX_POLLED_FILES: usize = 1000;
/// What a client that watches files for the server is asked to watch.
const CORPUS_GLOBS: [&str; 2] = ["**/*.tsv", "**/*.jsonl"];

/// Starts watching the corpus files, through the client where it can, else here.
pub fn start(session: Arc<Session>) {
    // Taken before the client is asked (it may take up to [`CLIENT_TIMEOUT`] to answer), so
    // that a file written while it answers counts as changed when the poll first sees it.
    let started = SystemTime::now();
    tokio::spawn(async move {
        let registered =
            session.snapshot().client.watched_files_registration && register(&session).await;
        poll(session, !registered, started).await;
    });
}

/// Asks the client to watch the corpus files; whether it agreed.
async fn register(session: &Session) -> bool {
    let options = DidChangeWatchedFilesRegistrationOptions {
        watchers: CORPUS_GLOBS
            .iter()
            .map(|glob| FileSystemWatcher {
                glob_pattern: GlobPattern::String(glob.to_string()),
                kind: None,
            })
            .collect(),
    };
    let registration = Registration {
        id: "rulelens/corpora".to_string(),
        method: "workspace/didChangeWatchedFiles".to_string(),
        register_options: serde_json::to_value(options).ok(),
    };
    let answer = tokio::time::timeout(
        CLIENT_TIMEOUT,
        session.client.register_capability(vec![registration]),
    )
    .await;
    matches!(answer, Ok(Ok(())))
}

/// The rules files that bind one of `paths` (a corpus not open in the editor) or read it
/// (a word-list file) run their save job again; an open rules document that reads one is
/// analyzed again.
pub fn changed_on_disk(session: &Arc<Session>, paths: &[PathBuf]) {
    let snapshot = session.snapshot();
    let readers: BTreeSet<PathBuf> = paths
        .iter()
        .flat_map(|path| readers(&snapshot, path))
        .collect();
    for key in &readers {
        session.log(
            MessageType::INFO,
            format!("{}: a word-list file changed on disk", name(key)),
        );
        sync::analyze_again(session, key);
    }
    let jobs = session.update(|state| {
        let snapshot = state.snapshot();
        let keys: BTreeSet<PathBuf> = paths
            .iter()
            .filter(|path| snapshot.document_at(path).is_none())
            .flat_map(|path| binding(&snapshot, path))
            .chain(readers.iter().cloned())
            .collect();
        keys.into_iter()
            .filter_map(|key| {
                let text = snapshot.rules_text(&key);
                Some((
                    key.clone(),
                    state.start_job(&key, text, TrainingDemand::IfEnabled)?,
                ))
            })
            .collect::<Vec<_>>()
    });
    for (key, job) in jobs {
        if !readers.contains(&key) {
            session.log(
                MessageType::INFO,
                format!("{}: a bound corpus changed on disk", name(&key)),
            );
        }
        session.send_job(Some(job));
    }
}

/// The projects that bind the file at `path`.
fn binding(snapshot: &Snapshot, path: &Path) -> Vec<PathBuf> {
    snapshot
        .projects
        .keys()
        .filter(|key| {
            snapshot
                .bindings(key)
                .iter()
                .any(|b| same_file(&b.path, path))
        })
        .cloned()
        .collect()
}

/// The projects whose rules read the word-list file at `path`.
fn readers(snapshot: &Snapshot, path: &Path) -> Vec<PathBuf> {
    snapshot
        .projects
        .keys()
        .filter(|key| {
            word_list_files(snapshot, key)
                .iter()
                .any(|file| file == path)
        })
        .cloned()
        .collect()
}

/// The files the rules of the project at `key` read with `words NAME from "PATH"`, resolved
/// against the rules file's folder, those that cannot be read too.
fn word_list_files(snapshot: &Snapshot, key: &Path) -> Vec<PathBuf> {
    let Some(project) = snapshot.projects.get(key).filter(|p| p.on_disk) else {
        return Vec::new();
    };
    let folder = key.parent().unwrap_or(Path::new(""));
    project
        .current
        .parse
        .file
        .statements
        .iter()
        .filter_map(|statement| match &statement.kind {
            StatementKind::Words {
                body: Some(WordsBody::File(path)),
                ..
            } => Some(folder.join(&path.value)),
            _ => None,
        })
        .collect()
}

/// What a poll notes of a file: its modification time and length, or nothing when it cannot
/// be read.
type Stamp = Option<(Option<SystemTime>, u64)>;

/// Looks at the word-list files, and the bound corpus files when `corpora` (no client
/// watches them), every [`POLL_INTERVAL`] until `shutdown`; `started` is when the server
/// was initialized, before any document was opened.
async fn poll(session: Arc<Session>, corpora: bool, started: SystemTime) {
    let mut seen: HashMap<PathBuf, Stamp> = HashMap::new();
    let mut interval = tokio::time::interval(POLL_INTERVAL);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if session.read(|state| state.shut_down) {
            return;
        }
        let snapshot = session.snapshot();
        let corpus_files = snapshot
            .projects
            .keys()
            .filter(|_| corpora)
            .flat_map(|key| snapshot.bindings(key))
            .map(|binding| binding.path)
            .filter(|path| snapshot.document_at(path).is_none());
        let paths: BTreeSet<PathBuf> = snapshot
            .projects
            .keys()
            .flat_map(|key| word_list_files(&snapshot, key))
            .chain(corpus_files)
            .take(MAX_POLLED_FILES)
            .collect();
        let stamped = tokio::task::spawn_blocking(move || {
            paths
                .into_iter()
                .map(|path| {
                    let stamp = std::fs::metadata(&path)
                        .ok()
                        .map(|m| (m.modified().ok(), m.len()));
                    (path, stamp)
                })
                .collect::<HashMap<PathBuf, Stamp>>()
        })
        .await;
        let Ok(stamped) = stamped else { continue };
        // A file seen for the first time may have changed after the save job that read it
        // (the job starts when the rules are opened, the round may come seconds later): it
        // counts as changed when it was modified since the server was initialized. At worst
        // that analyzes again a file the first analysis already read.
        let changed: Vec<PathBuf> = stamped
            .iter()
            .filter(|(path, stamp)| match seen.get(*path) {
                Some(before) => before != *stamp,
                None => stamp.is_some_and(|(modified, _)| modified.is_some_and(|m| m >= started)),
            })
            .map(|(path, _)| path.clone())
            .collect();
        seen = stamped;
        if !changed.is_empty() {
            changed_on_disk(&session, &changed);
        }
    }
}

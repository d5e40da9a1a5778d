//! Corpus files that change on disk, not through the editor (a labeling tool writing them):
//! the rules files that bind one run their save job again, as a save does.
//!
//! A client that can watch files for the server (`workspace.didChangeWatchedFiles.
//! dynamicRegistration`) is asked to, for every `.tsv` and `.jsonl` file of the workspace
//! (`client/registerCapability`), and reports changes with
//! `workspace/didChangeWatchedFiles`. For any other client, or one that refuses, the server
//! looks itself: every [`POLL_INTERVAL`] it reads the modification time and length of each
//! bound corpus file (at most [`MAX_POLLED_FILES`], on the blocking pool), a few system
//! calls, and a change since the round before (for a file seen for the first time, a
//! modification since the watcher started) starts the save jobs. A poll rather than the
//! operating system's notifications (the `notify` crate): bound corpora are a few files,
//! known by path, possibly outside the workspace, and a poll needs no thread, handle or
//! platform code of its own. A corpus open in the editor is left out: its buffer is what the
//! server reads.

use super::report::{CLIENT_TIMEOUT, name};
use super::state::{Session, Snapshot, Training};
use crate::project::same_file;
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
    tokio::spawn(async move {
        if session.snapshot().client.watched_files_registration && register(&session).await {
            return;
        }
        poll(session).await;
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

/// The rules files that bind one of `paths`, a file not open in the editor, run their save
/// job again.
pub fn changed_on_disk(session: &Session, paths: &[PathBuf]) {
    let jobs = session.update(|state| {
        let snapshot = state.snapshot();
        let keys: BTreeSet<PathBuf> = paths
            .iter()
            .filter(|path| snapshot.document_at(path).is_none())
            .flat_map(|path| binding(&snapshot, path))
            .collect();
        keys.into_iter()
            .filter_map(|key| {
                let text = snapshot.rules_text(&key);
                Some((
                    key.clone(),
                    state.start_job(&key, text, Training::IfEnabled)?,
                ))
            })
            .collect::<Vec<_>>()
    });
    for (key, job) in jobs {
        session.log(
            MessageType::INFO,
            format!("{}: a bound corpus changed on disk", name(&key)),
        );
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

/// What a poll notes of a file: its modification time and length, or nothing when it cannot
/// be read.
type Stamp = Option<(Option<SystemTime>, u64)>;

/// Looks at the bound corpus files every [`POLL_INTERVAL`] until `shutdown`.
async fn poll(session: Arc<Session>) {
    let started = SystemTime::now();
    let mut seen: HashMap<PathBuf, Stamp> = HashMap::new();
    let mut interval = tokio::time::interval(POLL_INTERVAL);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        if session.read(|state| state.shut_down) {
            return;
        }
        let snapshot = session.snapshot();
        let paths: BTreeSet<PathBuf> = snapshot
            .projects
            .keys()
            .flat_map(|key| snapshot.bindings(key))
            .map(|binding| binding.path)
            .filter(|path| snapshot.document_at(path).is_none())
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
        // counts as changed when it was modified since the watcher started.
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

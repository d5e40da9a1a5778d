//! What the client changes: documents (`didOpen`, `didChange`, `didSave`, `didClose`), the
//! settings, and the explicit `rulelens/train`.
//!
//! Document notifications never reach tower-lsp-server, whose handlers run concurrently:
//! the transport's reader hands each one to [`apply`] as it reads it, on its own task,
//! before it reads the next message (`mod.rs`, `route`). So edits apply in arrival order by
//! construction, and every request read after a change sees it (ruff applies edits
//! synchronously for the same reason). Each one changes the state synchronously and hands
//! slower work on: a rules document is re-analyzed (parse, names, automata, lints) on the
//! blocking pool after every change, and only the newest version's analysis is kept (older
//! ones are skipped if they have not started, and dropped if they finish late); a save, or
//! the first opening, of a rules file queues its save job (`jobs.rs`). A corpus document
//! opened before any rules file that binds it makes the server look for one in the
//! corpus's folder and its parent, on disk; one that a project holding a rule network
//! binds has its long lines measured ahead of their hover when it is opened or changed
//! (`measure.rs`).

use super::client_notices::refresh_diagnostics;
use super::config::Options;
use super::convert::path_of;
use super::documents::{Document, Kind};
use super::ext::{TrainParams, TrainResult};
use super::measure;
use super::state::{Project, Session, Snapshot, TrainingDemand};
use crate::project::find_rules_binding;
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams, MessageType,
};

/// Whether [`apply`] takes notifications of this method.
pub fn handles(method: &str) -> bool {
    matches!(
        method,
        "textDocument/didOpen"
            | "textDocument/didChange"
            | "textDocument/didSave"
            | "textDocument/didClose"
    )
}

fn parse<T: DeserializeOwned>(method: &str, params: Value) -> std::result::Result<T, String> {
    serde_json::from_value(params).map_err(|error| format!("{method}: invalid params: {error}"))
}

/// Applies one document notification (a method [`handles`]); before `initialize` has been
/// answered and after `shutdown` it is dropped, as LSP says.
pub fn apply(
    session: &Arc<Session>,
    method: &str,
    params: Value,
) -> std::result::Result<(), String> {
    if !session.read(|state| state.initialized && !state.shut_down) {
        return Ok(());
    }
    match method {
        "textDocument/didOpen" => did_open(session, parse(method, params)?),
        "textDocument/didChange" => did_change(session, parse(method, params)?),
        "textDocument/didSave" => did_save(session, parse(method, params)?),
        "textDocument/didClose" => did_close(session, parse(method, params)?),
        _ => return Err(format!("{method} is not a document notification")),
    }
    Ok(())
}

fn did_open(session: &Arc<Session>, params: DidOpenTextDocumentParams) {
    let document = params.text_document;
    let uri = document.uri.as_str().to_string();
    let path = path_of(&document.uri);
    let Some(kind) = Kind::of(path.as_deref(), &document.language_id) else {
        return;
    };
    let opened = Document::new(kind, path.clone(), document.version, document.text);
    match kind {
        Kind::Rules => {
            let key = Snapshot::rules_key(&uri, &opened);
            let text = opened.text.clone();
            let version = opened.version;
            let job = session.update(|state| {
                state.documents_mut().insert(uri.clone(), opened);
                state
                    .projects_mut()
                    .entry(key.clone())
                    .or_insert_with(|| Project::new(Arc::new(empty_rules()), None, path.is_some()));
                state.start_job(&key, text.clone(), TrainingDemand::IfEnabled)
            });
            analyze_document(session, uri, version, text, path, key, false);
            session.send_job(job);
        }
        Kind::Corpus(_) => {
            let bound = session.update(|state| {
                state.documents_mut().insert(uri.clone(), opened);
                path.as_deref()
                    .is_some_and(|p| state.snapshot().project_of_corpus(p).is_some())
            });
            session.refresh(uri);
            if bound {
                measure_corpus(session, path.as_deref());
            } else if let Some(path) = path {
                discover_rules(session.clone(), path);
            }
        }
    }
}

fn empty_rules() -> RulesFile {
    RulesFile::analyze(SourceText::default(), None, &Default::default())
}

fn did_change(session: &Arc<Session>, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri.as_str().to_string();
    let changed = session.update(|state| {
        let encoding = state.encoding;
        let document = state.documents_mut().get_mut(&uri)?;
        document.apply(
            params.text_document.version,
            params.content_changes,
            encoding,
        );
        Some(document.clone())
    });
    let Some(document) = changed else {
        return;
    };
    match document.kind {
        Kind::Rules => {
            let key = Snapshot::rules_key(&uri, &document);
            analyze_document(
                session,
                uri,
                document.version,
                document.text,
                document.path,
                key,
                false,
            );
        }
        Kind::Corpus(_) => {
            session.refresh(uri);
            measure_corpus(session, document.path.as_deref());
        }
    }
}

/// Has the long lines of the corpus at `path` measured ahead of their hover, when a project
/// that holds a rule network binds it (`measure.rs`).
fn measure_corpus(session: &Arc<Session>, path: Option<&Path>) {
    let key = session.read(|state| {
        let snapshot = state.snapshot();
        let (key, project) = snapshot.project_of_corpus(path?)?;
        project.rule_network().map(|_| key.clone())
    });
    if let Some(key) = key {
        measure::start(session, &key);
    }
}

/// Analyzes the open rules document of the project at `key` again, as it is (a file it
/// reads changed on disk); nothing when it is not open.
pub fn analyze_again(session: &Arc<Session>, key: &Path) {
    let open = session.read(|state| {
        let uri = state.snapshot().rules_uri(key)?.to_string();
        let document = state.documents.get(&uri)?;
        Some((
            uri,
            document.version,
            document.text.clone(),
            document.path.clone(),
        ))
    });
    if let Some((uri, version, text, path)) = open {
        analyze_document(session, uri, version, text, path, key.to_path_buf(), true);
    }
}

/// Analyzes version `version` of the rules document `uri` on the blocking pool (through
/// its project's [`Fresh`](super::state::Fresh) analysis, which requests that come first
/// share; `again` when a file the rules read changed), and stores the result as its
/// project's current analysis if nothing newer got there first.
fn analyze_document(
    session: &Arc<Session>,
    uri: String,
    version: i32,
    text: Arc<String>,
    path: Option<PathBuf>,
    key: PathBuf,
    again: bool,
) {
    let session = session.clone();
    tokio::task::spawn_blocking(move || {
        let is_newest = |documents: &std::collections::HashMap<String, Document>| {
            documents.get(&uri).is_some_and(|d| d.version == version)
        };
        let Some(fresh) = session.read(|state| {
            is_newest(&state.documents)
                .then(|| {
                    state
                        .projects
                        .get(&key)
                        .map(|project| project.fresh.clone())
                })
                .flatten()
        }) else {
            return;
        };
        let analysis = fresh.analysis(version, &text, path.as_deref(), again);
        let stored = session.update(|state| {
            if !is_newest(&state.documents) {
                return false;
            }
            let Some(project) = state.projects_mut().get_mut(&key) else {
                return false;
            };
            project.current = analysis;
            project.current_version = Some(version);
            project.fresh.release(version);
            true
        });
        if stored {
            session.analysis_landed();
            session.refresh(uri);
        }
    });
}

fn did_save(session: &Arc<Session>, params: DidSaveTextDocumentParams) {
    let uri = params.text_document.uri.as_str().to_string();
    let job = session.update(|state| {
        let snapshot = state.snapshot();
        let document = snapshot.documents.get(&uri)?;
        let key = match document.kind {
            Kind::Rules => Snapshot::rules_key(&uri, document),
            // A saved corpus changes the rules' figures and training data.
            Kind::Corpus(_) => snapshot
                .project_of_corpus(document.path.as_deref()?)?
                .0
                .clone(),
        };
        state.start_job(&key, snapshot.rules_text(&key), TrainingDemand::IfEnabled)
    });
    session.send_job(job);
}

fn did_close(session: &Arc<Session>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri.as_str().to_string();
    session.update(|state| {
        let document = state.documents_mut().remove(&uri)?;
        if document.kind == Kind::Rules {
            // The project stays (open corpora still use it), now following the file on disk.
            let key = Snapshot::rules_key(&uri, &document);
            if let Some(project) = state.projects_mut().get_mut(&key) {
                project.current_version = None;
            }
        }
        Some(())
    });
    session.refresh(uri);
}

/// Looks for a rules file binding the corpus at `corpus` in its folder and the folder
/// above, and opens it as a project (from disk) when one is found.
fn discover_rules(session: Arc<Session>, corpus: PathBuf) {
    tokio::spawn(async move {
        let limits = session.snapshot().settings.limits;
        let found = tokio::task::spawn_blocking(move || find_rules_binding(&corpus, &limits)).await;
        let Ok(Some((key, rules))) = found else {
            return;
        };
        let job = session.update(|state| {
            if state.projects.contains_key(&key) {
                return None;
            }
            let text = Arc::new(rules.source.text.clone());
            state
                .projects_mut()
                .insert(key.clone(), Project::new(Arc::new(rules), None, true));
            state.start_job(&key, text, TrainingDemand::IfEnabled)
        });
        if job.is_some() {
            session.log(
                MessageType::INFO,
                format!("{}: found as the rules of an open corpus", key.display()),
            );
            session.send_job(job);
            refresh_diagnostics(&session, &key);
        }
    });
}

/// Lays a new layer of options over the settings, and re-runs every project's save job
/// when the settings changed (a changed training setting retrains; the rest reads the
/// cache). Options that cannot be used are logged and change nothing.
pub fn apply_options(session: &Session, options: Options) {
    let jobs = session.update(|state| {
        let merged = state.options.clone().merged(options);
        let settings = match merged.resolve(state.root.as_deref()) {
            Ok(settings) => settings,
            Err(message) => return Err(message),
        };
        state.options = merged;
        if *state.settings == settings {
            return Ok(Vec::new());
        }
        state.settings = Arc::new(settings);
        let snapshot = state.snapshot();
        let keys: Vec<PathBuf> = snapshot.projects.keys().cloned().collect();
        Ok(keys
            .iter()
            .filter_map(|key| {
                state.start_job(key, snapshot.rules_text(key), TrainingDemand::IfEnabled)
            })
            .collect())
    });
    match jobs {
        Ok(jobs) => {
            if !jobs.is_empty() {
                session.log(
                    MessageType::INFO,
                    "settings changed: the rules files are analyzed again".to_string(),
                );
            }
            for job in jobs {
                session.send_job(Some(job));
            }
        }
        Err(message) => session.log(
            MessageType::ERROR,
            format!("rulelens settings ignored: {message}"),
        ),
    }
}

/// `rulelens/train`: queues a save job that trains whatever the settings say.
pub fn train(session: &Session, params: TrainParams) -> Result<TrainResult> {
    let uri = params.text_document.uri;
    let snapshot = session.snapshot();
    let document = snapshot
        .documents
        .get(uri.as_str())
        .ok_or_else(|| Error::invalid_params(format!("{} is not open", uri.as_str())))?;
    let key = match document.kind {
        Kind::Rules => Snapshot::rules_key(uri.as_str(), document),
        Kind::Corpus(_) => {
            let path = path_of(&uri).ok_or_else(|| Error::invalid_params("not a file URI"))?;
            match snapshot.project_of_corpus(&path) {
                Some((key, _)) => key.clone(),
                None => return Ok(refused("no rules file binds this corpus".to_string())),
            }
        }
    };
    if let Some(why) = why_no_training(&snapshot, &key) {
        return Ok(refused(why));
    }
    let training = if params.full == Some(true) {
        TrainingDemand::Full
    } else {
        TrainingDemand::Always
    };
    let job = session.update(|state| state.start_job(&key, snapshot.rules_text(&key), training));
    session.send_job(job);
    Ok(TrainResult {
        started: true,
        message: format!("training {} in the background", key.display()),
    })
}

fn refused(message: String) -> TrainResult {
    TrainResult {
        started: false,
        message,
    }
}

/// Why the project at `key` cannot train as its rules are now, if it cannot.
fn why_no_training(snapshot: &Snapshot, key: &Path) -> Option<String> {
    let project = snapshot.projects.get(key)?;
    if project.current.has_errors() {
        return Some(format!(
            "{} has errors: fix them to train (see the diagnostics)",
            key.display()
        ));
    }
    let bound = snapshot.bindings(key);
    let missing: Vec<&str> = ["train", "dev"]
        .into_iter()
        .filter(|name| !bound.iter().any(|b| b.name == *name))
        .collect();
    (!missing.is_empty()).then(|| {
        format!(
            "{} binds no {} corpus: training needs `corpus train` and `corpus dev`",
            key.display(),
            missing.join(" or ")
        )
    })
}

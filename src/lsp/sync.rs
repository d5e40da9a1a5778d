//! Document lifecycle: `didOpen`, `didChange`, `didSave`, `didClose`.
//!
//! Each handler mutates the state synchronously, in arrival order, then hands slower work
//! to the blocking pool: a rules document is re-analyzed (parse, names, automata, lints) on
//! every change, and only the newest version's analysis is kept (older ones are skipped if
//! they have not started, and dropped if they finish late); a save, or the first opening,
//! of a rules file starts its save job (`jobs.rs`). A corpus document opened before any
//! rules file that binds it makes the server look for one in the corpus's folder and its
//! parent, on disk.

use super::convert::path_of;
use super::documents::{Document, Kind};
use super::jobs::{self, Training};
use super::server::Shared;
use super::state::{Project, State, same_file};
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tower_lsp_server::ls_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams,
    DidSaveTextDocumentParams,
};

/// The rules text of a project: its open document's, else its current analysis's.
pub fn rules_text(state: &State, key: &Path) -> Arc<String> {
    if let Some(uri) = state.rules_uri(key)
        && let Some(document) = state.documents.get(&uri)
    {
        return document.text.clone();
    }
    state.projects.get(key).map_or_else(
        || Arc::new(String::new()),
        |project| Arc::new(project.current.source.text.clone()),
    )
}

pub fn did_open(shared: &Arc<Shared>, params: DidOpenTextDocumentParams) {
    let document = params.text_document;
    let uri = document.uri.as_str().to_string();
    let path = path_of(&document.uri);
    let Some(kind) = Kind::of(path.as_deref(), &document.language_id) else {
        return;
    };
    let opened = Document::new(kind, path.clone(), document.version, document.text);
    let mut state = shared.lock();
    let text = opened.text.clone();
    state.documents.insert(uri.clone(), opened);
    match kind {
        Kind::Rules => {
            let key = State::rules_key(&uri, &state.documents[&uri]);
            let on_disk = path.is_some();
            state
                .projects
                .entry(key.clone())
                .or_insert_with(|| Project::new(Arc::new(empty_rules()), None, on_disk));
            analyze_document(shared, &state, &uri, &key);
            jobs::start(shared, &mut state, &key, text, Training::IfEnabled);
        }
        Kind::Corpus(_) => {
            let bound = path
                .as_deref()
                .is_some_and(|p| state.project_of_corpus(p).is_some());
            drop(state);
            shared.refresh(uri);
            if !bound && let Some(path) = path {
                discover_rules(shared.clone(), path);
            }
        }
    }
}

fn empty_rules() -> RulesFile {
    RulesFile::analyze(SourceText::default(), None, &Default::default())
}

pub fn did_change(shared: &Arc<Shared>, params: DidChangeTextDocumentParams) {
    let uri = params.text_document.uri.as_str().to_string();
    let mut state = shared.lock();
    let encoding = state.encoding;
    let Some(document) = state.documents.get_mut(&uri) else {
        return;
    };
    document.apply(
        params.text_document.version,
        params.content_changes,
        encoding,
    );
    match document.kind {
        Kind::Rules => {
            let key = State::rules_key(&uri, document);
            analyze_document(shared, &state, &uri, &key);
        }
        Kind::Corpus(_) => {
            drop(state);
            shared.refresh(uri);
        }
    }
}

/// Analyzes the open rules document `uri` as it is now, on the blocking pool, and stores
/// the result as its project's current analysis if nothing newer got there first.
fn analyze_document(shared: &Arc<Shared>, state: &State, uri: &str, key: &Path) {
    let Some(document) = state.documents.get(uri) else {
        return;
    };
    let version = document.version;
    let text = document.text.clone();
    let path = document.path.clone();
    let (shared, uri, key) = (shared.clone(), uri.to_string(), key.to_path_buf());
    tokio::task::spawn_blocking(move || {
        let is_newest = |state: &State| {
            state
                .documents
                .get(&uri)
                .is_some_and(|d| d.version == version)
        };
        if !is_newest(&shared.lock()) {
            return;
        }
        let analysis = RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            path.as_deref(),
            &Default::default(),
        );
        let mut state = shared.lock();
        if !is_newest(&state) {
            return;
        }
        if let Some(project) = state.projects.get_mut(&key) {
            project.current = Arc::new(analysis);
            project.current_version = Some(version);
        }
        drop(state);
        shared.refresh(uri);
    });
}

pub fn did_save(shared: &Arc<Shared>, params: DidSaveTextDocumentParams) {
    let uri = params.text_document.uri.as_str().to_string();
    let mut state = shared.lock();
    let Some(document) = state.documents.get(&uri) else {
        return;
    };
    let key = match document.kind {
        Kind::Rules => State::rules_key(&uri, document),
        // A saved corpus changes the rules' figures and training data.
        Kind::Corpus(_) => {
            let Some(key) = document
                .path
                .as_deref()
                .and_then(|p| state.project_of_corpus(p))
                .map(|(key, _)| key.clone())
            else {
                return;
            };
            key
        }
    };
    let text = rules_text(&state, &key);
    jobs::start(shared, &mut state, &key, text, Training::IfEnabled);
}

pub fn did_close(shared: &Arc<Shared>, params: DidCloseTextDocumentParams) {
    let uri = params.text_document.uri.as_str().to_string();
    let mut state = shared.lock();
    let Some(document) = state.documents.remove(&uri) else {
        return;
    };
    if document.kind == Kind::Rules {
        // The project stays (open corpora still use it), now following the file on disk.
        let key = State::rules_key(&uri, &document);
        if let Some(project) = state.projects.get_mut(&key) {
            project.current_version = None;
        }
    }
    drop(state);
    shared.refresh(uri);
}

/// Looks for a rules file binding the corpus at `corpus` in its folder and the folder
/// above, and opens it as a project (from disk) when one is found.
fn discover_rules(shared: Arc<Shared>, corpus: PathBuf) {
    tokio::spawn(async move {
        let found = tokio::task::spawn_blocking(move || find_rules_binding(&corpus)).await;
        let Ok(Some((key, rules))) = found else {
            return;
        };
        let mut state = shared.lock();
        if state.projects.contains_key(&key) {
            return;
        }
        let text = Arc::new(rules.source.text.clone());
        state
            .projects
            .insert(key.clone(), Project::new(Arc::new(rules), None, true));
        jobs::start(&shared, &mut state, &key, text, Training::IfEnabled);
        drop(state);
        jobs::refresh_project(&shared, &key);
    });
}

/// The first rules file (by name) in `corpus`'s folder or its parent whose `corpus`
/// bindings name `corpus`, analyzed.
fn find_rules_binding(corpus: &Path) -> Option<(PathBuf, RulesFile)> {
    let folder = corpus.parent()?;
    for dir in [Some(folder), folder.parent()].into_iter().flatten() {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut candidates: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "rules"))
            .collect();
        candidates.sort();
        for path in candidates {
            let Ok(rules) = RulesFile::read(&path, &Default::default()) else {
                continue;
            };
            let binds = rules.rules.corpora.iter().any(|binding| {
                same_file(
                    &crate::corpus::resolve_binding(&path, &binding.path),
                    corpus,
                )
            });
            if binds {
                return Some((path, rules));
            }
        }
    }
    None
}

//! The server's state: open documents, one [`Project`] per rules file (its latest analysis,
//! its last saved analysis with findings, its trained network), the settings and what the
//! client can do.
//!
//! It lives behind one `std::sync::Mutex`, held only for short synchronous sections and
//! never across an `.await`; handlers copy out `Arc` snapshots and compute without it.

use super::config::{ServerOptions, Settings};
use super::convert::Encoding;
use super::documents::{Document, Kind};
use crate::corpus::Format;
use crate::ide::{Finding, RulesAnalysis, TrainedModel, WordFrequencies};
use crate::rules_file::RulesFile;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// What the client said it can do, in `initialize`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientFlags {
    pub work_done_progress: bool,
    pub configuration_pull: bool,
    pub code_action_resolve: bool,
    pub document_changes: bool,
    pub markdown_hover: bool,
    pub hierarchical_symbols: bool,
    pub inlay_hint_refresh: bool,
    pub code_lens_refresh: bool,
}

/// The analysis of one save, with its findings.
#[derive(Debug)]
pub struct Saved {
    pub analysis: Arc<RulesAnalysis>,
    /// W0501–W0503.
    pub corpus_findings: Vec<Finding>,
    /// I0504, once a network for these rules is ready.
    pub model_findings: Vec<Finding>,
    /// The train corpus' words, for completion inside regexes.
    pub words: Arc<WordFrequencies>,
    /// Which save this was (a counter over the whole server).
    pub generation: u64,
}

/// A rules file and everything derived from it.
#[derive(Debug)]
pub struct Project {
    /// Whether the key is a real file path (corpus bindings resolve against it).
    pub on_disk: bool,
    /// The latest analysis of the rules text, and the document version it is of (`None`
    /// when it came from the file on disk).
    pub current: Arc<RulesFile>,
    pub current_version: Option<i32>,
    pub saved: Option<Arc<Saved>>,
    pub model: Option<Arc<TrainedModel>>,
    /// The checkpoint cache key `model` was trained or loaded under, with the reconstruction
    /// settings it was prepared with (`jobs.rs`).
    pub model_key: Option<String>,
    /// The generation of the newest save job, and its cancellation flag.
    pub job: Option<(u64, Arc<AtomicBool>)>,
    /// The epoch and dev accuracy of a training run in progress, for hovers.
    pub training: Option<String>,
}

impl Project {
    pub fn new(current: Arc<RulesFile>, version: Option<i32>, on_disk: bool) -> Project {
        Project {
            on_disk,
            current,
            current_version: version,
            saved: None,
            model: None,
            model_key: None,
            job: None,
            training: None,
        }
    }

    /// The corpora the current rules bind, by name (see [`super::jobs::bindings`]).
    pub fn bindings(&self, key: &Path, settings: &Settings) -> Vec<(String, PathBuf)> {
        super::jobs::bindings(&self.current, key, self.on_disk, settings)
    }
}

/// Everything the server knows.
#[derive(Debug)]
pub struct State {
    /// By URI.
    pub documents: HashMap<String, Document>,
    /// By rules path (or, for a rules document without a file, its URI).
    pub projects: HashMap<PathBuf, Project>,
    /// The options received so far, merged.
    pub options: ServerOptions,
    pub settings: Arc<Settings>,
    pub root: Option<PathBuf>,
    pub encoding: Encoding,
    pub client: ClientFlags,
    /// The last save generation handed out.
    pub generation: u64,
}

impl State {
    pub fn new() -> State {
        State {
            documents: HashMap::new(),
            projects: HashMap::new(),
            options: ServerOptions::default(),
            settings: Arc::new(Settings::resolve(&ServerOptions::default(), None)),
            root: None,
            encoding: Encoding::Utf16,
            client: ClientFlags::default(),
            generation: 0,
        }
    }

    /// The project key of a rules document.
    pub fn rules_key(uri: &str, document: &Document) -> PathBuf {
        document.path.clone().unwrap_or_else(|| PathBuf::from(uri))
    }

    /// The open document at `path`, with its URI.
    pub fn document_at(&self, path: &Path) -> Option<(&String, &Document)> {
        self.documents
            .iter()
            .find(|(_, d)| d.path.as_deref() == Some(path))
    }

    /// The project that binds the corpus at `path`.
    pub fn project_of_corpus(&self, path: &Path) -> Option<(&PathBuf, &Project)> {
        let settings = &self.settings;
        let mut candidates: Vec<(&PathBuf, &Project)> = self
            .projects
            .iter()
            .filter(|(key, project)| {
                project
                    .bindings(key, settings)
                    .iter()
                    .any(|(_, bound)| same_file(bound, path))
            })
            .collect();
        // Deterministic when several rules files bind the same corpus: the first by path.
        candidates.sort_by(|a, b| a.0.cmp(b.0));
        candidates.into_iter().next()
    }

    /// The URIs of the open corpus documents that `key`'s project binds.
    pub fn open_corpora_of(&self, key: &Path) -> Vec<String> {
        let Some(project) = self.projects.get(key) else {
            return Vec::new();
        };
        let bound = project.bindings(key, &self.settings);
        self.documents
            .iter()
            .filter(|(_, d)| matches!(d.kind, Kind::Corpus(_)))
            .filter(|(_, d)| {
                d.path
                    .as_deref()
                    .is_some_and(|p| bound.iter().any(|(_, b)| same_file(b, p)))
            })
            .map(|(uri, _)| uri.clone())
            .collect()
    }

    /// The URI of the open rules document of `key`, if open.
    pub fn rules_uri(&self, key: &Path) -> Option<String> {
        self.documents
            .iter()
            .find(|(uri, d)| d.kind == Kind::Rules && State::rules_key(uri, d) == key)
            .map(|(uri, _)| uri.clone())
    }

    /// The text of a corpus: the open document's, else `None` (read it from disk).
    pub fn open_text(&self, path: &Path) -> Option<(Format, Arc<String>)> {
        let (_, document) = self.document_at(path)?;
        match document.kind {
            Kind::Corpus(format) => Some((format, document.text.clone())),
            Kind::Rules => None,
        }
    }
}

impl Default for State {
    fn default() -> State {
        State::new()
    }
}

/// Whether two paths name the same file (as written, or once canonicalized).
pub fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
}

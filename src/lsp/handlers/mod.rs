//! Request handlers, one file per feature, and what they share: the server's capabilities
//! and snapshots of a document with what the server knows about it, copied out of the state
//! (reference counts, no text copies) so that handlers compute without holding the lock.

pub mod code_action;
pub mod completion;
pub mod hover;
pub mod lens;
pub mod navigation;
pub mod semantic_tokens;
pub mod symbols;

use super::convert::{Encoding, Text};
use super::documents::Kind;
use super::server::Shared;
use super::state::{Saved, State};
use crate::corpus::Format;
use crate::ide::TrainedModel;
use crate::rules_file::RulesFile;
use crate::text::{LineIndex, SourceText};
use std::path::PathBuf;
use std::sync::Arc;
use tower_lsp_server::ls_types::*;

/// What the server offers, given the negotiated position encoding.
pub fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions {
                    include_text: Some(false),
                })),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![
                CodeActionKind::QUICKFIX,
                CodeActionKind::REFACTOR_REWRITE,
            ]),
            resolve_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        code_lens_provider: Some(CodeLensOptions {
            resolve_provider: Some(false),
        }),
        inlay_hint_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
        document_symbol_provider: Some(OneOf::Left(true)),
        semantic_tokens_provider: Some(SemanticTokensServerCapabilities::SemanticTokensOptions(
            SemanticTokensOptions {
                legend: semantic_tokens::legend(),
                full: Some(SemanticTokensFullOptions::Bool(true)),
                range: None,
                work_done_progress_options: WorkDoneProgressOptions::default(),
            },
        )),
        completion_provider: Some(CompletionOptions::default()),
        ..ServerCapabilities::default()
    }
}

/// A rules document with its analysis of exactly this version.
pub struct RulesSnapshot {
    pub version: i32,
    pub text: Arc<String>,
    pub index: Arc<LineIndex>,
    pub encoding: Encoding,
    pub file: Arc<RulesFile>,
    pub saved: Option<Arc<Saved>>,
    pub model: Option<Arc<TrainedModel>>,
    pub training: Option<String>,
}

impl RulesSnapshot {
    pub fn text(&self) -> Text<'_> {
        Text {
            text: &self.text,
            index: &self.index,
            encoding: self.encoding,
        }
    }
}

/// The snapshot of the rules document `uri`; analyzes it here when the background analysis
/// of its newest version is not in yet.
pub fn rules_snapshot(shared: &Shared, uri: &Uri) -> Option<RulesSnapshot> {
    let state = shared.lock();
    let document = state.documents.get(uri.as_str())?;
    if document.kind != Kind::Rules {
        return None;
    }
    let key = State::rules_key(uri.as_str(), document);
    let project = state.projects.get(&key)?;
    let fresh = project.current_version == Some(document.version);
    let mut snapshot = RulesSnapshot {
        version: document.version,
        text: document.text.clone(),
        index: document.index.clone(),
        encoding: state.encoding,
        file: project.current.clone(),
        saved: project.saved.clone(),
        model: project.model.clone(),
        training: project.training.clone(),
    };
    let path = document.path.clone();
    drop(state);
    if !fresh {
        snapshot.file = Arc::new(RulesFile::analyze(
            SourceText::from_bytes(snapshot.text.as_bytes()),
            path.as_deref(),
            &Default::default(),
        ));
    }
    Some(snapshot)
}

/// The project a corpus document belongs to.
pub struct CorpusProject {
    pub key: PathBuf,
    /// The rules as being edited (the open document's latest analysis, or the file's).
    pub rules: Arc<RulesFile>,
    pub saved: Option<Arc<Saved>>,
    pub model: Option<Arc<TrainedModel>>,
}

/// A corpus document with its project.
pub struct CorpusSnapshot {
    pub text: Arc<String>,
    pub index: Arc<LineIndex>,
    pub encoding: Encoding,
    pub format: Format,
    pub project: Option<CorpusProject>,
}

impl CorpusSnapshot {
    pub fn text(&self) -> Text<'_> {
        Text {
            text: &self.text,
            index: &self.index,
            encoding: self.encoding,
        }
    }
}

pub fn corpus_snapshot(shared: &Shared, uri: &Uri) -> Option<CorpusSnapshot> {
    let state = shared.lock();
    let document = state.documents.get(uri.as_str())?;
    let Kind::Corpus(format) = document.kind else {
        return None;
    };
    let project = document
        .path
        .as_deref()
        .and_then(|path| state.project_of_corpus(path))
        .map(|(key, project)| CorpusProject {
            key: key.clone(),
            rules: project.current.clone(),
            saved: project.saved.clone(),
            model: project.model.clone(),
        });
    Some(CorpusSnapshot {
        text: document.text.clone(),
        index: document.index.clone(),
        encoding: state.encoding,
        format,
        project,
    })
}

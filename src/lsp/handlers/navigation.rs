//! `textDocument/definition`, `textDocument/references`, `textDocument/prepareRename` and
//! `textDocument/rename` for pattern names and labels (`ide::navigation`). Renaming a label
//! also renames it in the corpora the rules bind, as they are now (an open corpus document's
//! text, else the file on disk), with each open document's version.

use super::rules_snapshot;
use crate::corpus::{self, Example};
use crate::ide::{self, FileEdits, definition, prepare_rename, references, rename};
use crate::lsp::convert::{Encoding, Text, uri_of};
use crate::lsp::server::Shared;
use crate::lsp::state::State;
use crate::text::{LineIndex, SourceText};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

pub fn goto_definition(
    shared: &Shared,
    params: GotoDefinitionParams,
) -> Option<GotoDefinitionResponse> {
    let uri = params.text_document_position_params.text_document.uri;
    let snapshot = rules_snapshot(shared, &uri)?;
    let text = snapshot.text();
    let offset = text.offset(params.text_document_position_params.position);
    let target = definition(&snapshot.file, offset)?;
    Some(GotoDefinitionResponse::Scalar(Location::new(
        uri,
        text.lsp_range(target),
    )))
}

pub fn find_references(shared: &Shared, params: ReferenceParams) -> Option<Vec<Location>> {
    let uri = params.text_document_position.text_document.uri;
    let snapshot = rules_snapshot(shared, &uri)?;
    let text = snapshot.text();
    let offset = text.offset(params.text_document_position.position);
    Some(
        references(&snapshot.file, offset, params.context.include_declaration)
            .into_iter()
            .map(|range| Location::new(uri.clone(), text.lsp_range(range)))
            .collect(),
    )
}

pub fn prepare(
    shared: &Shared,
    params: TextDocumentPositionParams,
) -> Option<PrepareRenameResponse> {
    let snapshot = rules_snapshot(shared, &params.text_document.uri)?;
    let text = snapshot.text();
    let range = prepare_rename(&snapshot.file, text.offset(params.position))?;
    Some(PrepareRenameResponse::Range(text.lsp_range(range)))
}

/// A bound corpus as it is now: its examples, its text for conversions, its open version.
struct CorpusNow {
    path: PathBuf,
    uri: Option<Uri>,
    version: Option<i32>,
    text: Arc<String>,
    index: Arc<LineIndex>,
    examples: Vec<Example>,
}

/// An open corpus document, as the state has it.
struct Open {
    uri: Option<Uri>,
    version: i32,
    text: Arc<String>,
    index: Arc<LineIndex>,
}

fn corpora_now(shared: &Shared, uri: &Uri) -> Vec<CorpusNow> {
    let bound: Vec<(PathBuf, Option<Open>)> = {
        let state = shared.lock();
        let Some(document) = state.documents.get(uri.as_str()) else {
            return Vec::new();
        };
        let key = State::rules_key(uri.as_str(), document);
        let Some(project) = state.projects.get(&key) else {
            return Vec::new();
        };
        project
            .bindings(&key, &state.settings)
            .into_iter()
            .map(|(_, path)| {
                let open = state.document_at(&path).map(|(uri, document)| Open {
                    uri: uri.parse().ok(),
                    version: document.version,
                    text: document.text.clone(),
                    index: document.index.clone(),
                });
                (path, open)
            })
            .collect()
    };
    let mut corpora = Vec::new();
    for (path, open) in bound {
        let Some(format) = corpus::Format::from_path(&path) else {
            continue;
        };
        match open {
            Some(open) => {
                let (examples, _) = corpus::parse(&open.text, format, &[]);
                corpora.push(CorpusNow {
                    path,
                    uri: open.uri,
                    version: Some(open.version),
                    text: open.text,
                    index: open.index,
                    examples,
                });
            }
            None => {
                let Ok(file) = corpus::read_file(&path) else {
                    continue;
                };
                let SourceText { text, .. } = file.source;
                corpora.push(CorpusNow {
                    uri: uri_of(&path),
                    version: None,
                    index: Arc::new(LineIndex::new(&text)),
                    text: Arc::new(text),
                    path,
                    examples: file.examples,
                });
            }
        }
    }
    corpora
}

pub fn rename_symbol(shared: &Shared, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let uri = params.text_document_position.text_document.uri;
    let Some(snapshot) = rules_snapshot(shared, &uri) else {
        return Ok(None);
    };
    let corpora = corpora_now(shared, &uri);
    let bound: Vec<(PathBuf, &[Example])> = corpora
        .iter()
        .map(|c| (c.path.clone(), c.examples.as_slice()))
        .collect();
    let text = snapshot.text();
    let offset = text.offset(params.text_document_position.position);
    let edits = rename(&snapshot.file, offset, &params.new_name, &bound)
        .map_err(|error| Error::invalid_params(error.to_string()))?;
    let (encoding, document_changes) = {
        let state = shared.lock();
        (state.encoding, state.client.document_changes)
    };
    let mut per_document: Vec<(Uri, Option<i32>, Vec<TextEdit>)> = Vec::new();
    for FileEdits { path, edits } in edits {
        let (target_uri, version, target) = match &path {
            None => (uri.clone(), Some(snapshot.version), snapshot.text()),
            Some(path) => {
                let Some(corpus) = corpora.iter().find(|c| &c.path == path) else {
                    continue;
                };
                let Some(corpus_uri) = corpus.uri.clone() else {
                    continue;
                };
                (corpus_uri, corpus.version, corpus_text(corpus, encoding))
            }
        };
        let converted = edits
            .iter()
            .map(|edit: &ide::TextEdit| {
                TextEdit::new(target.lsp_range(edit.range), edit.new_text.clone())
            })
            .collect();
        per_document.push((target_uri, version, converted));
    }
    Ok(Some(if document_changes {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(
                per_document
                    .into_iter()
                    .map(|(uri, version, edits)| TextDocumentEdit {
                        text_document: OptionalVersionedTextDocumentIdentifier { uri, version },
                        edits: edits.into_iter().map(OneOf::Left).collect(),
                    })
                    .collect(),
            )),
            ..WorkspaceEdit::default()
        }
    } else {
        WorkspaceEdit {
            changes: Some(
                per_document
                    .into_iter()
                    .map(|(uri, _, edits)| (uri, edits))
                    .collect::<HashMap<_, _>>(),
            ),
            ..WorkspaceEdit::default()
        }
    }))
}

fn corpus_text(corpus: &CorpusNow, encoding: Encoding) -> Text<'_> {
    Text {
        text: &corpus.text,
        index: &corpus.index,
        encoding,
    }
}

//! `textDocument/definition`, `textDocument/references`, `textDocument/prepareRename` and
//! `textDocument/rename` for pattern names and labels (`ide::navigation`). Renaming a label
//! also renames it in the corpora the rules bind, read as the save job reads them (an open
//! corpus document's text, else the file on disk: `project::read_corpus`), with each open
//! document's version.

use crate::corpus::Example;
use crate::ide::{self, FileEdits, definition, prepare_rename, references, rename};
use crate::lsp::convert::{Text, uri_of};
use crate::lsp::state::Snapshot;
use crate::project::{CorpusOrigin, read_corpus};
use crate::text::LineIndex;
use std::collections::HashMap;
use std::path::PathBuf;
use tower_lsp_server::jsonrpc::{Error, Result};
use tower_lsp_server::ls_types::*;

pub fn goto_definition(
    snapshot: &Snapshot,
    params: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>> {
    let uri = params.text_document_position_params.text_document.uri;
    let Some(view) = snapshot.rules(uri.as_str()) else {
        return Ok(None);
    };
    let text = view.text();
    let offset = text.offset(params.text_document_position_params.position);
    Ok(definition(&view.file, offset).map(|target| {
        GotoDefinitionResponse::Scalar(Location::new(uri.clone(), text.lsp_range(target)))
    }))
}

pub fn find_references(
    snapshot: &Snapshot,
    params: ReferenceParams,
) -> Result<Option<Vec<Location>>> {
    let uri = params.text_document_position.text_document.uri;
    let Some(view) = snapshot.rules(uri.as_str()) else {
        return Ok(None);
    };
    let text = view.text();
    let offset = text.offset(params.text_document_position.position);
    Ok(Some(
        references(&view.file, offset, params.context.include_declaration)
            .into_iter()
            .map(|range| Location::new(uri.clone(), text.lsp_range(range)))
            .collect(),
    ))
}

pub fn prepare(
    snapshot: &Snapshot,
    params: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>> {
    let Some(view) = snapshot.rules(params.text_document.uri.as_str()) else {
        return Ok(None);
    };
    let text = view.text();
    Ok(prepare_rename(&view.file, text.offset(params.position))
        .map(|range| PrepareRenameResponse::Range(text.lsp_range(range))))
}

/// A bound corpus as it is now: its examples, its text and index for conversions, and the
/// URI and version edits to it carry.
struct BoundCorpus {
    path: PathBuf,
    uri: Option<Uri>,
    version: Option<i32>,
    text: String,
    index: LineIndex,
    examples: Vec<Example>,
}

/// The corpora the rules document `uri` binds, read as the save job reads them.
fn bound_corpora(snapshot: &Snapshot, key: &std::path::Path) -> Vec<BoundCorpus> {
    let open = snapshot.open_corpora();
    snapshot
        .bindings(key)
        .into_iter()
        .filter_map(|binding| {
            let (file, origin) =
                read_corpus(&binding.path, &open, &snapshot.settings.limits).ok()?;
            let (uri, version) = match (origin, snapshot.document_at(&binding.path)) {
                (CorpusOrigin::Buffer, Some((uri, document))) => {
                    (uri.parse().ok(), Some(document.version))
                }
                _ => (uri_of(&binding.path), None),
            };
            let text = file.source.text;
            Some(BoundCorpus {
                index: LineIndex::new(&text),
                path: binding.path,
                uri,
                version,
                text,
                examples: file.examples,
            })
        })
        .collect()
}

pub fn rename_symbol(snapshot: &Snapshot, params: RenameParams) -> Result<Option<WorkspaceEdit>> {
    let uri = params.text_document_position.text_document.uri;
    let Some(view) = snapshot.rules(uri.as_str()) else {
        return Ok(None);
    };
    let corpora = bound_corpora(snapshot, &view.key);
    let bound: Vec<(PathBuf, &[Example])> = corpora
        .iter()
        .map(|c| (c.path.clone(), c.examples.as_slice()))
        .collect();
    let text = view.text();
    let offset = text.offset(params.text_document_position.position);
    let edits = rename(&view.file, offset, &params.new_name, &bound)
        .map_err(|error| Error::invalid_params(error.to_string()))?;
    let mut per_document: Vec<(Uri, Option<i32>, Vec<TextEdit>)> = Vec::new();
    for FileEdits { path, edits } in edits {
        let (target_uri, version, target) = match &path {
            None => (uri.clone(), Some(view.document.version), view.text()),
            Some(path) => {
                let Some(corpus) = corpora.iter().find(|c| &c.path == path) else {
                    continue;
                };
                let Some(corpus_uri) = corpus.uri.clone() else {
                    continue;
                };
                let text = Text {
                    text: &corpus.text,
                    index: &corpus.index,
                    encoding: snapshot.encoding,
                };
                (corpus_uri, corpus.version, text)
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
    Ok(Some(if snapshot.client.document_changes {
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

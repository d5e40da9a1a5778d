//! `textDocument/codeAction` and `codeAction/resolve`: the actions of `ide::code_actions`
//! as versioned workspace edits that never land on newer text.
//!
//! Every action carries in its `data` the rules document it edits and the version (or, for
//! a rules file that is not open, the SHA-256 of its text) the edit was computed against.
//! Clients that resolve actions get the edit from `codeAction/resolve`, which refuses with
//! `ContentModified` when the document has changed since; clients that do not get the edit
//! at once, as `documentChanges` with the version where they support it, so that the client
//! itself refuses a stale one.

use super::{corpus_snapshot, rules_snapshot};
use crate::ide::{Action, ActionKind, examples_in, line_actions, rules_actions};
use crate::lsp::convert::{Text, uri_of};
use crate::lsp::server::Shared;
use crate::model::checkpoint::sha256_hex;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Result};
use tower_lsp_server::ls_types::*;

/// What an action's `data` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Payload {
    uri: Uri,
    /// The open document's version the edit is for.
    version: Option<i32>,
    /// For a file that is not open: the SHA-256 of the text the edit is for.
    sha256: Option<String>,
    range: Range,
    new_text: String,
}

pub fn code_actions(shared: &Shared, params: CodeActionParams) -> Option<CodeActionResponse> {
    let uri = params.text_document.uri;
    let resolve = shared.lock().client.code_action_resolve;
    let mut payloads: Vec<(Action, Payload)> = Vec::new();
    if let Some(snapshot) = rules_snapshot(shared, &uri) {
        let text = snapshot.text();
        let range = text.range(params.range);
        for action in rules_actions(&snapshot.file, range, snapshot.model.as_deref()) {
            let payload = Payload {
                uri: uri.clone(),
                version: Some(snapshot.version),
                sha256: None,
                range: text.lsp_range(action.edit.range),
                new_text: action.edit.new_text.clone(),
            };
            payloads.push((action, payload));
        }
    } else {
        let snapshot = corpus_snapshot(shared, &uri)?;
        let project = snapshot.project.as_ref()?;
        let range = snapshot.text().range(params.range);
        // The rules document the edit goes to: open (with its version) or on disk.
        let open_uri = shared
            .lock()
            .rules_uri(&project.key)
            .and_then(|uri| uri.parse::<Uri>().ok());
        let target_uri = match &open_uri {
            Some(uri) => uri.clone(),
            None => uri_of(&project.key)?,
        };
        let open = open_uri.and_then(|uri| rules_snapshot(shared, &uri));
        let (target_text, target_index, version) = match open {
            Some(rules) => (rules.text.clone(), rules.index.clone(), Some(rules.version)),
            None => (
                std::sync::Arc::new(project.rules.source.text.clone()),
                std::sync::Arc::new(project.rules.line_index.clone()),
                None,
            ),
        };
        let target = Text {
            text: &target_text,
            index: &target_index,
            encoding: snapshot.encoding,
        };
        let examples = examples_in(&snapshot.text, &snapshot.index, snapshot.format, range);
        for example in examples.iter().take(3) {
            let analysis = project.saved.as_ref().map(|s| s.analysis.as_ref());
            for action in line_actions(example, &project.rules, analysis, project.model.as_deref())
            {
                let payload = Payload {
                    uri: target_uri.clone(),
                    version,
                    sha256: version
                        .is_none()
                        .then(|| sha256_hex(target_text.as_bytes())),
                    range: target.lsp_range(action.edit.range),
                    new_text: action.edit.new_text.clone(),
                };
                payloads.push((action, payload));
            }
        }
    }
    let document_changes = shared.lock().client.document_changes;
    let actions = payloads
        .into_iter()
        .map(|(action, payload)| {
            let edit = (!resolve).then(|| workspace_edit(&payload, document_changes));
            CodeActionOrCommand::CodeAction(CodeAction {
                title: action.title,
                kind: Some(match action.kind {
                    ActionKind::QuickFix => CodeActionKind::QUICKFIX,
                    ActionKind::RefactorRewrite => CodeActionKind::REFACTOR_REWRITE,
                }),
                edit,
                data: serde_json::to_value(&payload).ok(),
                ..CodeAction::default()
            })
        })
        .collect();
    Some(actions)
}

fn workspace_edit(payload: &Payload, document_changes: bool) -> WorkspaceEdit {
    let edit = TextEdit::new(payload.range, payload.new_text.clone());
    if document_changes {
        WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(vec![TextDocumentEdit {
                text_document: OptionalVersionedTextDocumentIdentifier {
                    uri: payload.uri.clone(),
                    version: payload.version,
                },
                edits: vec![OneOf::Left(edit)],
            }])),
            ..WorkspaceEdit::default()
        }
    } else {
        WorkspaceEdit {
            changes: Some(HashMap::from([(payload.uri.clone(), vec![edit])])),
            ..WorkspaceEdit::default()
        }
    }
}

fn refused(message: String) -> Error {
    Error {
        code: ErrorCode::ServerError(-32801),
        message: message.into(),
        data: None,
    }
}

/// Fills in the edit of an action, if the document it edits is still as it was.
pub fn resolve(shared: &Shared, mut action: CodeAction) -> Result<CodeAction> {
    let payload: Payload = action
        .data
        .clone()
        .and_then(|data| serde_json::from_value(data).ok())
        .ok_or_else(|| Error::invalid_params("not a rulelens code action (no `data`)"))?;
    let (open_version, document_changes) = {
        let state = shared.lock();
        (
            state.documents.get(payload.uri.as_str()).map(|d| d.version),
            state.client.document_changes,
        )
    };
    match (payload.version, open_version) {
        (Some(offered), Some(now)) if offered == now => {}
        (Some(offered), Some(now)) => {
            return Err(refused(format!(
                "{} changed since this action was offered (version {offered}, now {now}); ask for code actions again",
                payload.uri.as_str()
            )));
        }
        (Some(_), None) => {
            return Err(refused(format!(
                "{} was closed since this action was offered",
                payload.uri.as_str()
            )));
        }
        (None, Some(_)) => {
            return Err(refused(format!(
                "{} was opened since this action was offered; ask for code actions again",
                payload.uri.as_str()
            )));
        }
        (None, None) => {
            let path = crate::lsp::convert::path_of(&payload.uri)
                .ok_or_else(|| Error::invalid_params("not a file URI"))?;
            let now = std::fs::read(&path).map(|bytes| sha256_hex(&bytes)).ok();
            if now != payload.sha256 {
                return Err(refused(format!(
                    "{} changed on disk since this action was offered",
                    path.display()
                )));
            }
        }
    }
    action.edit = Some(workspace_edit(&payload, document_changes));
    Ok(action)
}

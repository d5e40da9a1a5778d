//! `textDocument/codeAction` and `codeAction/resolve`: the actions of `ide::code_actions`
//! as versioned workspace edits that never land on newer text, only of the kinds the client
//! asks for (`context.only`).
//!
//! Every action carries in its `data` the rules document it edits and the version (or, for
//! a rules file that is not open, the SHA-256 of its text) the edit was computed against.
//! Clients that resolve actions get the edit from `codeAction/resolve`, which refuses with
//! `ContentModified` when the document has changed since; clients that do not get the edit
//! at once, as `documentChanges` with the version where they support it, so that the client
//! itself refuses a stale one.

use crate::ide::{Action, ActionKind, examples_in, line_actions, rules_actions};
use crate::lsp::convert::{Text, path_of, uri_of};
use crate::lsp::state::Snapshot;
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

/// The LSP kind of an action.
fn kind_of(kind: ActionKind) -> CodeActionKind {
    match kind {
        ActionKind::QuickFix => CodeActionKind::QUICKFIX,
        ActionKind::RefactorRewrite => CodeActionKind::REFACTOR_REWRITE,
    }
}

/// Whether `kind` is one of `only` or below one (`refactor` takes `refactor.rewrite`).
fn is_asked_for(kind: &CodeActionKind, only: Option<&[CodeActionKind]>) -> bool {
    only.is_none_or(|only| {
        only.iter().any(|asked| {
            kind == asked
                || kind
                    .as_str()
                    .strip_prefix(asked.as_str())
                    .is_some_and(|rest| rest.starts_with('.'))
        })
    })
}

pub fn code_actions(
    snapshot: &Snapshot,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let uri = params.text_document.uri;
    let only = params.context.only.as_deref();
    let asked_for = |action: &Action| is_asked_for(&kind_of(action.kind), only);
    let mut payloads: Vec<(Action, Payload)> = Vec::new();
    if let Some(view) = snapshot.rules(uri.as_str()) {
        let text = view.text();
        let range = text.range(params.range);
        for action in rules_actions(&view.file, range, view.project.model.as_deref()) {
            if !asked_for(&action) {
                continue;
            }
            let payload = Payload {
                uri: uri.clone(),
                version: Some(view.document.version),
                sha256: None,
                range: text.lsp_range(action.edit.range),
                new_text: action.edit.new_text.clone(),
            };
            payloads.push((action, payload));
        }
    } else if let Some(view) = snapshot.corpus(uri.as_str()) {
        let Some((key, project)) = view.project else {
            return Ok(None);
        };
        let range = view.text().range(params.range);
        // The rules document the edit goes to: open (with its version) or on disk.
        let open = snapshot
            .rules_uri(key)
            .and_then(|rules_uri| snapshot.rules(rules_uri));
        let (target_uri, target_text, target_index, version) = match &open {
            Some(rules) => (
                rules.uri.parse::<Uri>().ok(),
                rules.document.text.clone(),
                rules.document.index.clone(),
                Some(rules.document.version),
            ),
            None => (
                uri_of(key),
                std::sync::Arc::new(project.current.source.text.clone()),
                std::sync::Arc::new(project.current.line_index.clone()),
                None,
            ),
        };
        let Some(target_uri) = target_uri else {
            return Ok(None);
        };
        let target = Text {
            text: &target_text,
            index: &target_index,
            encoding: snapshot.encoding,
        };
        let document = view.document;
        let examples = examples_in(&document.text, &document.index, view.format, range);
        let analysis = project.saved.as_ref().map(|s| s.analysis.as_ref());
        for example in examples.iter().take(3) {
            for action in line_actions(
                example,
                &project.current,
                analysis,
                project.model.as_deref(),
            ) {
                if !asked_for(&action) {
                    continue;
                }
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
    } else {
        return Ok(None);
    }
    let resolve = snapshot.client.code_action_resolve;
    let document_changes = snapshot.client.document_changes;
    let actions = payloads
        .into_iter()
        .map(|(action, payload)| {
            let edit = (!resolve).then(|| workspace_edit(&payload, document_changes));
            CodeActionOrCommand::CodeAction(CodeAction {
                title: action.title,
                kind: Some(kind_of(action.kind)),
                edit,
                data: serde_json::to_value(&payload).ok(),
                ..CodeAction::default()
            })
        })
        .collect();
    Ok(Some(actions))
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
pub fn resolve(snapshot: &Snapshot, mut action: CodeAction) -> Result<CodeAction> {
    let payload: Payload = action
        .data
        .clone()
        .and_then(|data| serde_json::from_value(data).ok())
        .ok_or_else(|| Error::invalid_params("not a rulelens code action (no `data`)"))?;
    let open_version = snapshot
        .documents
        .get(payload.uri.as_str())
        .map(|d| d.version);
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
            let path =
                path_of(&payload.uri).ok_or_else(|| Error::invalid_params("not a file URI"))?;
            let now = std::fs::read(&path).map(|bytes| sha256_hex(&bytes)).ok();
            if now != payload.sha256 {
                return Err(refused(format!(
                    "{} changed on disk since this action was offered",
                    path.display()
                )));
            }
        }
    }
    action.edit = Some(workspace_edit(&payload, snapshot.client.document_changes));
    Ok(action)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_kinds_asked_for_are_offered() {
        let rewrite = CodeActionKind::REFACTOR_REWRITE;
        assert!(is_asked_for(&rewrite, None));
        assert!(is_asked_for(&rewrite, Some(&[CodeActionKind::REFACTOR])));
        assert!(is_asked_for(&rewrite, Some(std::slice::from_ref(&rewrite))));
        assert!(!is_asked_for(&rewrite, Some(&[CodeActionKind::QUICKFIX])));
        assert!(!is_asked_for(&rewrite, Some(&[])));
        // A prefix counts only up to a dot: `refactor.re` is no parent of `refactor.rewrite`.
        let partial = CodeActionKind::from("refactor.re");
        assert!(!is_asked_for(&rewrite, Some(&[partial])));
    }
}

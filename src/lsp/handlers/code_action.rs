//! `textDocument/codeAction`, `codeAction/resolve` and `rulelens/suggest`: the actions of
//! `ide::code_actions` and the suggestion engine's (`ide::suggestions`) as versioned
//! workspace edits that never land on newer text, only of the kinds the client asks for
//! (`context.only`); `rulelens/suggest` lists every suggestion of a save as such actions,
//! for a picker.
//!
//! Every action carries in its `data` the rules document it edits and the version (or, for
//! a rules file that is not open, the SHA-256 of its text) the edit was computed against.
//! Clients that resolve actions get the edit from `codeAction/resolve`, which refuses with
//! `ContentModified` when the document has changed since; clients that do not get the edit
//! at once, as `documentChanges` with the version where they support it, so that the client
//! itself refuses a stale one.

use crate::digest::sha256_hex;
use crate::ide::{
    Action, ActionKind, examples_in, line_actions, line_suggestion_actions, rules_actions,
    rules_suggestion_actions, suggestion_detail, suggestion_edit, suggestion_title,
};
use crate::limits::Limit;
use crate::lsp::convert::{Encoding, Text, path_of, uri_of};
use crate::lsp::ext::{SuggestParams, SuggestResult, SuggestStatus, SuggestionItem};
use crate::lsp::state::{Project, Snapshot};
use crate::text::LineIndex;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
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

/// The rules document an action edits, with the text its ranges are in.
struct Target {
    uri: Uri,
    text: Arc<String>,
    index: Arc<LineIndex>,
    /// The open document's version; `None` for a file that is not open.
    version: Option<i32>,
}

impl Target {
    /// The rules of the project at `key`: its open document, else its file on disk as the
    /// project last read it.
    fn of_project(snapshot: &Snapshot, key: &Path, project: &Project) -> Option<Target> {
        let open = snapshot
            .rules_uri(key)
            .and_then(|rules_uri| snapshot.rules(rules_uri));
        Some(match &open {
            Some(rules) => Target {
                uri: rules.uri.parse::<Uri>().ok()?,
                text: rules.document.text.clone(),
                index: rules.document.index.clone(),
                version: Some(rules.document.version),
            },
            None => Target {
                uri: uri_of(key)?,
                text: Arc::new(project.current.source.text.clone()),
                index: Arc::new(project.current.line_index.clone()),
                version: None,
            },
        })
    }

    /// The action's edit, for the code action's `data`.
    fn payload(&self, action: &Action, encoding: Encoding) -> Payload {
        let text = Text {
            text: &self.text,
            index: &self.index,
            encoding,
        };
        Payload {
            uri: self.uri.clone(),
            version: self.version,
            sha256: self
                .version
                .is_none()
                .then(|| sha256_hex(self.text.as_bytes())),
            range: text.lsp_range(action.edit.range),
            new_text: action.edit.new_text.clone(),
        }
    }
}

pub fn code_actions(
    snapshot: &Snapshot,
    params: CodeActionParams,
) -> Result<Option<CodeActionResponse>> {
    let uri = params.text_document.uri;
    let only = params.context.only.as_deref();
    let mut actions: Vec<Action> = Vec::new();
    let target = if let Some(view) = snapshot.rules(uri.as_str()) {
        let range = view.text().range(params.range);
        actions.extend(rules_actions(
            &view.file,
            range,
            view.project.rule_network(),
        ));
        actions.extend(rules_suggestion_actions(
            &view.file,
            range,
            view.project.saved_suggestions(),
        ));
        Target {
            uri: uri.clone(),
            text: view.document.text.clone(),
            index: view.document.index.clone(),
            version: Some(view.document.version),
        }
    } else if let Some(view) = snapshot.corpus(uri.as_str()) {
        let Some((key, project)) = view.project else {
            return Ok(None);
        };
        let Some(target) = Target::of_project(snapshot, key, project) else {
            return Ok(None);
        };
        let range = view.text().range(params.range);
        let document = view.document;
        let examples = examples_in(&document.text, &document.index, view.format, range);
        let analysis = project.saved.as_ref().map(|s| s.analysis.as_ref());
        let run = analysis
            .zip(document.path.as_deref())
            .and_then(|(a, p)| a.corpus_at(p));
        for example in examples.iter().take(3) {
            let suggested = run.map_or_else(Vec::new, |run| {
                line_suggestion_actions(example, run, &project.current, project.saved_suggestions())
            });
            // The line's own actions, then the save's suggestions that fix it (an edit
            // offered twice, once).
            let own = line_actions(example, &project.current, analysis, project.rule_network());
            let fresh: Vec<Action> = suggested
                .into_iter()
                .filter(|s| !own.iter().any(|a| a.edit == s.edit))
                .collect();
            actions.extend(own);
            actions.extend(fresh);
        }
        target
    } else {
        return Ok(None);
    };
    let resolve = snapshot.client.code_action_resolve;
    let document_changes = snapshot.client.document_changes;
    let actions = actions
        .into_iter()
        .filter(|action| is_asked_for(&kind_of(action.kind), only))
        .map(|action| {
            let payload = target.payload(&action, snapshot.encoding);
            CodeActionOrCommand::CodeAction(code_action(action, payload, resolve, document_changes))
        })
        .collect();
    Ok(Some(actions))
}

/// The LSP code action: the edit in `data`, and in `edit` too unless the client resolves it.
fn code_action(
    action: Action,
    payload: Payload,
    resolve: bool,
    document_changes: bool,
) -> CodeAction {
    CodeAction {
        title: action.title,
        kind: Some(kind_of(action.kind)),
        edit: (!resolve).then(|| workspace_edit(&payload, document_changes)),
        data: serde_json::to_value(&payload).ok(),
        ..CodeAction::default()
    }
}

/// `rulelens/suggest`: every suggestion of the saved rules of a rules document (or of the
/// rules a corpus document is bound by), as code actions on the current rules text.
pub fn suggest(snapshot: &Snapshot, params: SuggestParams) -> Result<SuggestResult> {
    let uri = params.text_document.uri;
    let project = match (snapshot.rules(uri.as_str()), snapshot.corpus(uri.as_str())) {
        (Some(view), _) => Some((view.key.clone(), view.project)),
        (None, Some(view)) => view.project.map(|(key, project)| (key.clone(), project)),
        (None, None) => None,
    };
    let Some((key, project)) = project else {
        return Err(Error::invalid_params(format!(
            "{} is neither an open rules document nor a corpus a rules file binds",
            uri.as_str()
        )));
    };
    let result = |status: SuggestStatus, message: &str| SuggestResult {
        status,
        message: message.to_string(),
        suggestions: Vec::new(),
    };
    if !snapshot.settings.suggest.enabled {
        return Ok(result(
            SuggestStatus::Unavailable,
            "suggestions are switched off (rulelens.suggest.enabled)",
        ));
    }
    let Some(saved) = &project.saved else {
        return Ok(if project.is_analyzing() {
            result(
                SuggestStatus::Pending,
                "the rules are being analyzed on their corpora",
            )
        } else {
            result(
                SuggestStatus::Unavailable,
                "the rules have not been analyzed on their corpora yet: save them",
            )
        });
    };
    if saved.analysis.rules.has_errors() {
        return Ok(result(
            SuggestStatus::Unavailable,
            "the saved rules have errors; fix them and save",
        ));
    }
    if saved.analysis.corpus("train").is_none() || saved.analysis.corpus("dev").is_none() {
        return Ok(result(
            SuggestStatus::Unavailable,
            "suggestions need a `corpus train` and a `corpus dev` binding",
        ));
    }
    if project.is_analyzing()
        || project
            .suggestions
            .as_ref()
            .is_none_or(|s| s.generation != saved.generation)
    {
        return Ok(result(
            SuggestStatus::Pending,
            "the suggestions of the last save are being measured",
        ));
    }
    let Some(target) = Target::of_project(snapshot, &key, project) else {
        return Err(Error::invalid_params("the rules file has no file URI"));
    };
    let (resolve, document_changes) = (
        snapshot.client.code_action_resolve,
        snapshot.client.document_changes,
    );
    let suggestions: Vec<SuggestionItem> = project
        .saved_suggestions()
        .iter()
        .filter_map(|suggestion| {
            let edit = suggestion_edit(&project.current, suggestion)?;
            let action = Action {
                title: suggestion_title(suggestion),
                kind: ActionKind::RefactorRewrite,
                edit,
            };
            let payload = target.payload(&action, snapshot.encoding);
            Some(SuggestionItem {
                source: suggestion.source,
                detail: suggestion_detail(suggestion),
                action: code_action(action, payload, resolve, document_changes),
            })
        })
        .collect();
    let message = format!(
        "{} suggestion{} for {}",
        suggestions.len(),
        if suggestions.len() == 1 { "" } else { "s" },
        key.display()
    );
    Ok(SuggestResult {
        status: SuggestStatus::Ready,
        message,
        suggestions,
    })
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
            let now = (snapshot.settings.limits)
                .read(Limit::Rules, &path)
                .map(|bytes| sha256_hex(&bytes))
                .ok();
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

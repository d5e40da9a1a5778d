//! Publishing diagnostics, for clients that do not pull them: one task that, asked to
//! refresh a document, composes its diagnostics (`diagnostics.rs`) from the state as it is
//! at that moment and sends them with the version they were computed for. For a client that
//! pulls diagnostics it publishes nothing.
//!
//! Being the only sender makes the order safe: a refresh reads the newest state, and a
//! result for an older version than one already published is dropped. A rules document's
//! diagnostics are its current analysis (syntax and names, every change) plus the findings
//! of the last save placed on the current text; they wait until the analysis of the
//! document's current version is in (its arrival triggers another refresh). A corpus
//! document's are computed here from its text and the saved rules (one classification per
//! line, on the blocking pool). Refresh requests that pile up while a publish runs are
//! merged.

use super::diagnostics::{CorpusWork, of_rules};
use super::documents::Kind;
use super::state::{Session, Snapshot};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use tokio::sync::mpsc::UnboundedReceiver;
use tower_lsp_server::ls_types::{Diagnostic, Uri};

/// What a refresh of one document does.
enum Plan {
    /// The document is not open: clear what was published for it.
    Closed,
    /// Its current version's analysis is not in yet; its arrival will ask again.
    Wait,
    Publish(i32, Work),
}

/// What to compute for one refresh, copied out of the state.
enum Work {
    /// Already composed.
    Ready(Vec<Diagnostic>),
    Corpus(CorpusWork),
}

/// Runs until the server stops, publishing for each URI it is sent.
pub async fn run(session: Arc<Session>, mut requests: UnboundedReceiver<String>) {
    let mut published: HashMap<String, i32> = HashMap::new();
    while let Some(first) = requests.recv().await {
        let mut uris = BTreeSet::from([first]);
        while let Ok(uri) = requests.try_recv() {
            uris.insert(uri);
        }
        // A client that pulls diagnostics asks for them (`handlers/diagnostic.rs`): it gets
        // none pushed, never both.
        if session.snapshot().client.pull_diagnostics {
            continue;
        }
        for uri_text in uris {
            let Ok(uri) = uri_text.parse::<Uri>() else {
                continue;
            };
            let (version, work) = match plan(&session.snapshot(), &uri_text) {
                Plan::Closed => {
                    if published.remove(&uri_text).is_some() {
                        session
                            .client
                            .publish_diagnostics(uri, Vec::new(), None)
                            .await;
                    }
                    continue;
                }
                Plan::Wait => continue,
                Plan::Publish(version, work) => (version, work),
            };
            if published.get(&uri_text).is_some_and(|&last| version < last) {
                continue;
            }
            let diagnostics = match work {
                Work::Ready(diagnostics) => diagnostics,
                Work::Corpus(work) => {
                    let uri = uri.clone();
                    let computed = tokio::task::spawn_blocking(move || work.compute(&uri)).await;
                    match computed {
                        Ok(diagnostics) => diagnostics,
                        Err(error) => {
                            session.log_error(format!("corpus diagnostics failed: {error}"));
                            continue;
                        }
                    }
                }
            };
            published.insert(uri_text, version);
            session
                .client
                .publish_diagnostics(uri, diagnostics, Some(version))
                .await;
        }
    }
}

/// What a refresh of `uri` does, decided on one snapshot.
fn plan(snapshot: &Snapshot, uri: &str) -> Plan {
    let Some(document) = snapshot.documents.get(uri) else {
        return Plan::Closed;
    };
    let Ok(lsp_uri) = uri.parse::<Uri>() else {
        return Plan::Closed;
    };
    match document.kind {
        Kind::Rules => {
            let key = Snapshot::rules_key(uri, document);
            let Some(project) = snapshot.projects.get(&key) else {
                return Plan::Wait;
            };
            if project.current_version != Some(document.version) {
                return Plan::Wait;
            }
            let text = document.text(snapshot.encoding);
            let diagnostics = of_rules(snapshot, project, &project.current, &text, &lsp_uri);
            Plan::Publish(document.version, Work::Ready(diagnostics))
        }
        Kind::Corpus(format) => Plan::Publish(
            document.version,
            Work::Corpus(CorpusWork::of(snapshot, document, format)),
        ),
    }
}

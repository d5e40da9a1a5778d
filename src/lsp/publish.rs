//! Publishing diagnostics: one task that, asked to refresh a document, composes its
//! diagnostics from the state as it is at that moment and sends them with the version they
//! were computed for.
//!
//! Being the only sender makes the order safe: a refresh reads the newest state, and a
//! result for an older version than one already published is dropped. A rules document's
//! diagnostics are its current analysis (syntax and names, every change) plus the findings
//! of the last save placed on the current text; they wait until the analysis of the
//! document's current version is in (its arrival triggers another refresh). A corpus
//! document's are computed here from its text and the saved rules (one classification per
//! line, on the blocking pool). Refresh requests that pile up while a publish runs are
//! merged.

use super::convert::{Encoding, Text};
use super::documents::Kind;
use super::state::{Session, Snapshot};
use crate::corpus::{self, Format};
use crate::diagnostic::LintLevels;
use crate::ide::{lines_diagnostics, of_previous_save, place};
use crate::rules_file::RulesFile;
use crate::text::LineIndex;
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
    Corpus {
        text: Arc<String>,
        index: Arc<LineIndex>,
        format: Format,
        /// `None` for a corpus no rules file binds: only malformed lines are reported.
        rules: Option<Arc<RulesFile>>,
        max_misclassified: usize,
        /// The `lints` setting.
        lints: LintLevels,
        encoding: Encoding,
    },
}

/// Runs until the server stops, publishing for each URI it is sent.
pub async fn run(session: Arc<Session>, mut requests: UnboundedReceiver<String>) {
    let mut published: HashMap<String, i32> = HashMap::new();
    while let Some(first) = requests.recv().await {
        let mut uris = BTreeSet::from([first]);
        while let Ok(uri) = requests.try_recv() {
            uris.insert(uri);
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
                Work::Corpus {
                    text,
                    index,
                    format,
                    rules,
                    max_misclassified,
                    lints,
                    encoding,
                } => {
                    let uri = uri.clone();
                    let computed = tokio::task::spawn_blocking(move || {
                        let (examples, read) = corpus::parse(&text, format, &[]);
                        let mut diagnostics = match &rules {
                            Some(rules) => {
                                lines_diagnostics(&examples, &read, rules, max_misclassified)
                            }
                            None => read,
                        };
                        lints.apply(&mut diagnostics);
                        let text = Text {
                            text: &text,
                            index: &index,
                            encoding,
                        };
                        diagnostics
                            .iter()
                            .map(|d| text.diagnostic(&uri, d))
                            .collect::<Vec<_>>()
                    })
                    .await;
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
    let encoding = snapshot.encoding;
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
            let current = &project.current;
            let text = Text {
                text: &document.text,
                index: &document.index,
                encoding,
            };
            let mut found = current.diagnostics.clone();
            if let Some(saved) = &project.saved {
                let previous = of_previous_save(&saved.previous_model_findings);
                found.extend(place(&saved.corpus_findings, current));
                found.extend(place(&saved.model_findings, current));
                found.extend(place(&previous, current));
            }
            snapshot.settings.lints.levels().apply(&mut found);
            let diagnostics = found.iter().map(|d| text.diagnostic(&lsp_uri, d)).collect();
            Plan::Publish(document.version, Work::Ready(diagnostics))
        }
        Kind::Corpus(format) => {
            let rules = document
                .path
                .as_deref()
                .and_then(|path| snapshot.project_of_corpus(path))
                .map(|(_, project)| {
                    project
                        .saved
                        .as_ref()
                        .map_or_else(|| project.current.clone(), |s| s.analysis.rules.clone())
                });
            Plan::Publish(
                document.version,
                Work::Corpus {
                    text: document.text.clone(),
                    index: document.index.clone(),
                    format,
                    rules,
                    max_misclassified: snapshot.settings.max_line_diagnostics,
                    lints: snapshot.settings.lints.levels(),
                    encoding,
                },
            )
        }
    }
}

//! What a document's diagnostics are, composed from one snapshot: the same for the
//! publisher (`publish.rs`, pushed to clients without pull diagnostics) and for
//! `textDocument/diagnostic` (`handlers/diagnostic.rs`, pulled by clients that declare it).
//!
//! A rules document's are its analysis (syntax and names, every change) plus the findings of
//! the last save placed on its text; a corpus document's are computed from its text and the
//! rules of the last save of the rules file that binds it (one classification per line:
//! blocking work, which the publisher runs on the blocking pool), or only its malformed
//! lines when no rules file binds it. Both with the `lints` setting applied.

use super::convert::{Encoding, Text};
use super::documents::Document;
use super::state::{Project, Snapshot};
use crate::corpus::{self, Format};
use crate::diagnostic::LintLevels;
use crate::ide::{lines_diagnostics, of_previous_save, outside_workspace, place};
use crate::rules_file::RulesFile;
use crate::text::LineIndex;
use std::sync::Arc;
use tower_lsp_server::ls_types::{Diagnostic, Uri};

/// The diagnostics of a rules document whose text `text` is analyzed as `file`, with the
/// findings of `project`'s last save.
pub fn of_rules(
    snapshot: &Snapshot,
    project: &Project,
    file: &RulesFile,
    text: &Text,
    uri: &Uri,
) -> Vec<Diagnostic> {
    let mut found = file.diagnostics.clone();
    found.extend(outside_workspace(file, &snapshot.workspace_folders));
    if let Some(saved) = &project.saved {
        let previous = of_previous_save(&saved.previous_model_findings);
        found.extend(place(&saved.corpus_findings, file));
        found.extend(place(&saved.model_findings, file));
        found.extend(place(&previous, file));
    }
    snapshot.settings.lints.levels().apply(&mut found);
    found.iter().map(|d| text.diagnostic(uri, d)).collect()
}

/// What the diagnostics of a corpus document are computed from, copied out of a snapshot so
/// that the computation can run elsewhere.
pub struct CorpusWork {
    text: Arc<String>,
    index: Arc<LineIndex>,
    format: Format,
    /// `None` for a corpus no rules file binds: only malformed lines are reported.
    rules: Option<Arc<RulesFile>>,
    max_misclassified: usize,
    /// The `lints` setting.
    lints: LintLevels,
    encoding: Encoding,
}

impl CorpusWork {
    /// The work for `document`, a corpus in `format`.
    pub fn of(snapshot: &Snapshot, document: &Document, format: Format) -> CorpusWork {
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
        CorpusWork {
            text: document.text.clone(),
            index: document.index.clone(),
            format,
            rules,
            max_misclassified: snapshot.settings.max_line_diagnostics,
            lints: snapshot.settings.lints.levels(),
            encoding: snapshot.encoding,
        }
    }

    /// The diagnostics, for `uri` (blocking: one classification per line).
    pub fn compute(&self, uri: &Uri) -> Vec<Diagnostic> {
        let (examples, read) = corpus::parse(&self.text, self.format, &[]);
        let mut diagnostics = match &self.rules {
            Some(rules) => lines_diagnostics(&examples, &read, rules, self.max_misclassified),
            None => read,
        };
        self.lints.apply(&mut diagnostics);
        let text = Text {
            text: &self.text,
            index: &self.index,
            encoding: self.encoding,
        };
        diagnostics
            .iter()
            .map(|d| text.diagnostic(uri, d))
            .collect()
    }
}

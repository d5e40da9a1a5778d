//! `textDocument/diagnostic`: a document's diagnostics pulled by the client, for clients
//! that declare `textDocument.diagnostic` (the server then pushes none,
//! `publish.rs`). The same diagnostics as a push would carry (`diagnostics.rs`), always as a
//! full report (no result ids); a rules document not analyzed in its current version yet is
//! analyzed here (`Snapshot::rules`), so that an answer is never of an older text.

use crate::lsp::diagnostics::{CorpusWork, of_rules};
use crate::lsp::documents::Kind;
use crate::lsp::state::Snapshot;
use tower_lsp_server::jsonrpc::Result;
use tower_lsp_server::ls_types::{
    DocumentDiagnosticParams, DocumentDiagnosticReport, DocumentDiagnosticReportResult,
    FullDocumentDiagnosticReport, RelatedFullDocumentDiagnosticReport,
};

pub fn diagnostic(
    snapshot: &Snapshot,
    params: DocumentDiagnosticParams,
) -> Result<DocumentDiagnosticReportResult> {
    let uri = params.text_document.uri;
    let items = if let Some(view) = snapshot.rules(uri.as_str()) {
        of_rules(snapshot, view.project, &view.file, &view.text(), &uri)
    } else {
        match snapshot.documents.get(uri.as_str()) {
            Some(document) => match document.kind {
                Kind::Corpus(format) => CorpusWork::of(snapshot, document, format).compute(&uri),
                Kind::Rules => Vec::new(),
            },
            None => Vec::new(),
        }
    };
    Ok(DocumentDiagnosticReportResult::Report(
        DocumentDiagnosticReport::Full(RelatedFullDocumentDiagnosticReport {
            related_documents: None,
            full_document_diagnostic_report: FullDocumentDiagnosticReport {
                result_id: None,
                items,
            },
        }),
    ))
}

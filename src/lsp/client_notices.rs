//! What the background jobs tell the client besides published diagnostics: `$/progress` of
//! a training, requests to refresh inlay hints, code lenses and pulled diagnostics, and a
//! project's name in messages.

use super::capabilities::ClientFlags;
use super::state::Session;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tower_lsp_server::ls_types::NumberOrString;
use tower_lsp_server::{Bounded, NotCancellable, OngoingProgress};

/// How long the server waits for the client to accept a progress token, or to refresh.
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(2);

/// The display name of a project in messages: its file name.
pub fn name(key: &Path) -> String {
    key.file_name().map_or_else(
        || key.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `$/progress` of one training, when the client supports it.
pub struct Progress(Option<OngoingProgress<Bounded, NotCancellable>>);

impl Progress {
    pub async fn begin(
        session: &Session,
        client: &ClientFlags,
        token: &str,
        title: &str,
        file: &str,
    ) -> Progress {
        if !client.work_done_progress {
            return Progress(None);
        }
        let token = NumberOrString::String(token.to_string());
        let created = tokio::time::timeout(
            CLIENT_TIMEOUT,
            session.client.create_work_done_progress(token.clone()),
        )
        .await;
        if !matches!(created, Ok(Ok(()))) {
            return Progress(None);
        }
        let ongoing = session
            .client
            .progress(token, title.to_string())
            .with_percentage(0)
            .with_message(format!("{file}: preparing"))
            .begin()
            .await;
        Progress(Some(ongoing))
    }

    pub async fn report(&self, message: String, percentage: u32) {
        if let Some(progress) = &self.0 {
            progress.report_with_message(message, percentage).await;
        }
    }

    pub async fn end(self, message: String) {
        if let Some(progress) = self.0 {
            progress.finish_with_message(message).await;
        }
    }
}

/// Asks the client to refresh inlay hints and code lenses, where it supports that.
pub fn refresh_views(session: &Arc<Session>) {
    let flags = session.snapshot().client;
    let client = session.client.clone();
    tokio::spawn(async move {
        if flags.inlay_hint_refresh {
            let _ = tokio::time::timeout(CLIENT_TIMEOUT, client.inlay_hint_refresh()).await;
        }
        if flags.code_lens_refresh {
            let _ = tokio::time::timeout(CLIENT_TIMEOUT, client.code_lens_refresh()).await;
        }
    });
}

/// After a change of a project's diagnostics that no edit of the client caused (a save's
/// analysis, a network, a rules file found for an open corpus): publishes its open
/// documents' diagnostics again, or asks a client that pulls them to pull again
/// (`workspace/diagnostic/refresh`).
pub fn refresh_diagnostics(session: &Arc<Session>, key: &Path) {
    if !session.snapshot().client.pull_diagnostics {
        session.refresh_project(key);
        return;
    }
    let client = session.client.clone();
    tokio::spawn(async move {
        let _ = tokio::time::timeout(CLIENT_TIMEOUT, client.workspace_diagnostic_refresh()).await;
    });
}

//! The language server, `rulelens serve`: LSP 3.17 over stdio on tower-lsp-server and tokio.
//!
//! This layer only translates. Documents arrive as text with versions (`documents.rs`,
//! `sync.rs`); every analysis is a call into `ide`, `explain` and `model` on plain values in
//! byte offsets, and `convert.rs` is the one place where offsets become LSP positions.
//! Background work has one actor (`jobs.rs`: analyze the saved rules on their corpora,
//! load or train the network) and diagnostics one publisher (`publish.rs`), so results are
//! published in version order. Only this module knows tower-lsp-server, LSP types and tokio.

mod config;
mod convert;
mod documents;
pub mod ext;
mod handlers;
mod jobs;
mod publish;
mod server;
mod state;
mod sync;
mod transport;

pub use config::{ServerOptions, Settings};

use server::{RulesServer, Shared};
use std::sync::Arc;
use tokio::sync::mpsc::unbounded_channel;
use tower_lsp_server::{LspService, Server};

/// Serves LSP on standard input and output until the client sends `exit` (or closes the
/// input). Starts its own tokio runtime.
pub fn serve_stdio() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let (refresh_sender, refresh_receiver) = unbounded_channel();
        let (job_sender, job_receiver) = unbounded_channel();
        let (service, socket) = LspService::build(|client| {
            let shared = Arc::new(Shared::new(client, refresh_sender, job_sender));
            tokio::spawn(publish::run(shared.clone(), refresh_receiver));
            tokio::spawn(jobs::run(shared.clone(), job_receiver));
            RulesServer { shared }
        })
        .custom_method(ext::SHOW_AUTOMATON, RulesServer::show_automaton)
        .custom_method(ext::TRAIN, RulesServer::train)
        .finish();
        let (input, output) = transport::stdio();
        Server::new(input, output, socket).serve(service).await;
    });
    // tokio's stdin reads on a blocking thread that only returns when the client closes the
    // pipe, and training may be between two cancellation checks: do not wait for either.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(())
}

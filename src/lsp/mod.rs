//! The language server, `rulelens serve`: LSP 3.17 over stdio on tower-lsp-server and tokio.
//!
//! This layer only translates and schedules, on the model of rust-analyzer's and ruff's
//! servers. The state lives in one place (`state.rs`: the [`Session`](state::Session) and
//! the one immutable snapshot each request reads); documents change on one task, in arrival
//! order (`sync.rs`, fed by the transport's reader); every request is routed by its method
//! to a handler (`server.rs`, `handlers/`) that calls `ide` on plain values in byte offsets,
//! and `convert.rs` is the one place where offsets become LSP positions. What a save does is
//! `project`'s, scheduled by the compile actor (`jobs.rs`), and diagnostics, composed in one
//! place (`diagnostics.rs`), are pulled by clients that can (`handlers/diagnostic.rs`) and
//! pushed to the others by one publisher (`publish.rs`), so they go out in version order. Only this module knows
//! tower-lsp-server, LSP types and tokio.
//!
//! The modules import one another without a circle (`tests/tidy.rs`); `docs/lsp.md`, "How
//! the server is organised", says what each does.

mod capabilities;
mod client_notices;
mod config;
mod convert;
mod diagnostics;
mod documents;
pub mod ext;
mod handlers;
mod jobs;
mod measure;
mod publish;
mod registry;
mod server;
mod state;
mod sync;
mod training;
mod transport;
mod watch;
mod yardstick;

pub use config::{Options, Settings, TrainingSection};
// For the `transport` fuzz target (fuzz/fuzz_targets/transport.rs) only.
#[doc(hidden)]
pub use transport::{Deframer, Event, MAX_MESSAGE_BYTES};

use serde_json::{Value, json};
use server::{Server, panic_message};
use state::Session;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use tokio::sync::mpsc::unbounded_channel;
use tower_lsp_server::ls_types::request::Request;
use tower_lsp_server::{LspService, Server as LspServer};
use transport::Route;

/// How a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// `shutdown`, then `exit`: exit code 0.
    Clean,
    /// `exit` without `shutdown`, or the input closed first: exit code 1, as LSP says.
    Abrupt,
}

/// Serves LSP on standard input and output until the client sends `exit` (or closes the
/// input). Starts its own tokio runtime.
pub fn serve_stdio() -> std::io::Result<Ending> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let shut_down = Arc::new(AtomicBool::new(false));
    runtime.block_on(async {
        let (refresh_sender, refresh_receiver) = unbounded_channel();
        let (job_sender, job_receiver) = unbounded_channel();
        let mut session = None;
        let (service, socket) = LspService::build(|client| {
            let shared = Arc::new(Session::new(client, refresh_sender, job_sender));
            tokio::spawn(publish::run(shared.clone(), refresh_receiver));
            tokio::spawn(jobs::run(shared.clone(), job_receiver));
            session = Some(shared.clone());
            Server { session: shared }
        })
        .custom_method(ext::ShowAutomaton::METHOD, Server::show_automaton)
        .custom_method(ext::Train::METHOD, Server::train)
        .custom_method(ext::Suggest::METHOD, Server::suggest)
        .finish();
        let Some(session) = session else {
            return;
        };
        let seen_shutdown = shut_down.clone();
        let (input, output) =
            transport::stdio(move |message| route(&session, &seen_shutdown, message));
        LspServer::new(input, output, socket).serve(service).await;
    });
    // tokio's stdin reads on a blocking thread that only returns when the client closes the
    // pipe, and training may be between two cancellation checks: do not wait for either.
    runtime.shutdown_timeout(std::time::Duration::from_millis(200));
    Ok(if shut_down.load(Ordering::Relaxed) {
        Ending::Clean
    } else {
        Ending::Abrupt
    })
}

/// What happens to one incoming message before the server sees it: document notifications
/// are applied here, in arrival order (`sync.rs`); a `$/` request, which the server does not
/// know, is answered with MethodNotFound (tower-lsp-server would leave it unanswered); and
/// `shutdown` is noted for the exit code. Everything else goes on to the server.
fn route(session: &Arc<Session>, shut_down: &AtomicBool, message: &Value) -> Route {
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id");
    match (method, id) {
        (Some(method), Some(id)) if method.starts_with("$/") => Route::Answer(json!({
            "jsonrpc": "2.0",
            "id": id,
            "error": { "code": -32601, "message": format!("Method not found: {method}") },
        })),
        (Some("shutdown"), Some(_)) => {
            shut_down.store(true, Ordering::Relaxed);
            Route::Forward
        }
        (Some(method), None) if sync::handles(method) => {
            let params = message.get("params").cloned().unwrap_or(Value::Null);
            let applied = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                sync::apply(session, method, params)
            }));
            match applied {
                Ok(Ok(())) => {}
                Ok(Err(problem)) => session.log_error(problem),
                Err(panic) => session.log_error(format!(
                    "rulelens panicked in {method}: {}",
                    panic_message(&*panic)
                )),
            }
            Route::Consumed
        }
        _ => Route::Forward,
    }
}

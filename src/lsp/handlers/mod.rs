//! Request handlers, one file per feature: each takes the request's one [`Snapshot`]
//! (`super::state`) and its parameters, calls `ide`, and translates the answer to LSP.
//! `server.rs` routes every request to its handler.

pub mod automaton;
pub mod code_action;
pub mod completion;
pub mod diagnostic;
pub mod hover;
pub mod lens;
pub mod navigation;
pub mod semantic_tokens;
pub mod symbols;

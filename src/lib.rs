//! rulelens: hand-written text-classification rules as automata, trainable networks and
//! editor feedback.
//!
//! Modules follow the data's path (see `docs/architecture.md`): [`text`] → [`syntax`] →
//! [`corpus`] → [`automata`] → [`rules_file`] (the front end in one call) → [`model`] →
//! [`explain`] → [`ide`] (editor features on plain types, in byte offsets) → [`project`] (a
//! rules file with its corpora and network as the server keeps them: blocking calls, file
//! I/O, no protocol) → [`report`] (the HTML report of a rules file) → [`lsp`] (the language server, which only translates and schedules);
//! [`diagnostic`] is shared by all of them.

pub mod automata;
pub mod corpus;
pub mod diagnostic;
pub mod digest;
pub mod explain;
pub mod ide;
pub mod labeling;
pub mod limits;
pub mod lsp;
pub mod model;
pub mod project;
pub mod report;
pub mod rules_file;
pub mod suggest;
pub mod syntax;
pub mod text;

//! The subcommands of the `rulelens` binary; each module is one command.

pub mod bench;
pub mod check;
pub mod classify;
pub mod dot;
pub mod eval;
pub mod explain;
mod files;
pub mod init;
mod learned;
pub mod output;
pub mod polarity;
pub mod predict;
pub mod reconstruct;
pub mod report;
pub mod suggest;
mod table;
pub mod train;

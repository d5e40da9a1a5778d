//! The subcommands of the `rulelens` binary; each module is one command.

pub mod check;
pub mod dot;
mod files;
mod table;

//! How the commands print: [`Format`], text or JSON, and [`RulesFormat`], one declaration
//! for the commands that can also print a rules file, `reconstruct` (and a SoPa's learned
//! patterns) and `suggest`.

use clap::ValueEnum;

/// Text for a reader, or JSON.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// The output of the commands that can print a rules file.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
    Rules,
}

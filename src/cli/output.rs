//! How the commands that can print a rules file print: [`RulesFormat`], one declaration
//! for `reconstruct` (and a SoPa's learned patterns) and `suggest`.

use clap::ValueEnum;

/// The output of the commands that can print a rules file.
#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RulesFormat {
    Text,
    Json,
    Rules,
}

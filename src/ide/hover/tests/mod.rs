//! `ide::hover`'s tests: the hovers over patterns, labels and corpus lines, and their
//! Markdown, on the hand-computed fixtures of `ide::testing` (rendered hovers as inline
//! snapshots where the text is the point: `cargo insta review` updates them); `rules.rs`
//! over the rules file, `line.rs` over a corpus line.

use super::*;
use crate::corpus::{Example, Format, parse};
use crate::explain::ReconstructConfig;
use crate::ide::analysis::RulesAnalysis;
use crate::ide::testing::fixture;
use crate::ide::testing::*;
use crate::ide::trained_fa_rnn::TrainedFaRnn;
use crate::ide::trained_mvma::TrainedMvma;
use crate::rules_file::RulesFile;
use crate::text::tokenize;
use text_size::TextSize;

mod line;
mod rules;

//! `ide::hover`'s tests: the hovers over patterns, labels and corpus lines, and their
//! Markdown, on the hand-computed fixtures of `ide::testing` (rendered hovers as inline
//! snapshots where the text is the point: `cargo insta review` updates them); `rules.rs`
//! over the rules file, `line.rs` over a corpus line, `formats.rs` the Markdown and the
//! plain text of hovers on the SMS example.

use super::*;
use crate::corpus::{Example, Format, parse};
use crate::explain::ReconstructConfig;
use crate::ide::analysis::RulesAnalysis;
use crate::ide::testing::fixture;
use crate::ide::testing::*;
use crate::ide::trained::{
    Line, LineView, LogitParts, MvmaView, NetworkView, RegressionParts, SuffixPart, TrainedNetwork,
    Unprepared,
};
use crate::model::Mvma;
use crate::rules_file::RulesFile;
use crate::text::tokenize;
use std::sync::Arc;
use text_size::{TextRange, TextSize};

mod formats;
mod line;
mod rules;

/// A corpus line's hover as Markdown, as most editors get it.
fn render_line_hover(hover: &LineHover, text: &str) -> String {
    super::render_line_hover(hover, text).to_markdown()
}

/// The rule network's view in a line's hover: its first.
fn rule_view(hover: &LineHover) -> &NetworkView {
    match hover.views.first() {
        Some(LineView::RuleNetwork(view)) => view,
        other => panic!("a rule network's view, not {other:?}"),
    }
}

/// A rules-file hover as Markdown, as most editors get it.
fn render_rules_hover(hover: &RulesHover) -> String {
    super::render_rules_hover(hover).to_markdown()
}

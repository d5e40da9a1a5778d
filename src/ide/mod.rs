//! Editor features on plain types: what the language server shows, computed from rules
//! text, corpora and a trained network, in byte offsets (`text_size`), with no protocol
//! types and no async. The server only translates these values to LSP and back.
//!
//! - [`analysis`]: the rule system run on every line of the bound corpora (on save).
//! - [`trained`]: a trained network prepared for the editor (scorer, readout,
//!   reconstructions, train predictions).
//! - [`findings`] and [`corpus_lines`]: corpus-aware diagnostics of rules and corpus files.
//! - [`hover`] and [`markdown`]: hover data and its rendering.
//! - [`code_actions`]: reconstructed regexes, disabling a pattern, a rule for a line.
//! - [`lens`]: code lenses and inlay hints.

mod analysis;
mod code_actions;
mod corpus_lines;
mod edit;
mod findings;
mod hover;
mod lens;
mod markdown;
mod trained;

pub use analysis::{Cancelled, CorpusRun, Outcome, PatternKey, RulesAnalysis, analyze};
pub use code_actions::{
    Action, ActionKind, MAX_RULE_NGRAM, line_actions, minimal_edit, rules_actions,
};
pub use corpus_lines::{DEFAULT_MAX_MISCLASSIFIED, corpus_diagnostics, examples_in};
pub use edit::TextEdit;
pub use findings::{
    DEFAULT_CONFLICT_SHARE, DEFAULT_MIN_PRECISION, Finding, FindingsConfig, MIN_EVIDENCE,
    corpus_findings, model_findings, place,
};
pub use hover::{
    DEFAULT_MAX_EXAMPLES, DEFAULT_MAX_LISTED, DEFAULT_MAX_NGRAM_LEN, HoverConfig, LabelFigures,
    LabelHover, LineHover, MatchExample, NetworkView, NgramPolarity, PatternFigures, PatternHover,
    PatternScore, RulesHover, hover_line, hover_rules,
};
pub use lens::{InlayHint, Lens, line_hints, pattern_lenses};
pub use markdown::{render_line_hover, render_rules_hover};
pub use trained::{ReconstructedPattern, TrainedModel, TrainedModelError};

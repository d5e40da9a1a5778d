//! Editor features on plain types: what the language server shows, computed from rules
//! text, corpora and a trained network, in byte offsets (`text_size`), with no protocol
//! types, no JSON and no async. This is rust-analyzer's `ide` layer: the server only
//! translates these values to LSP and back, and the tests check them without one.
//!
//! Syntax-level features take an analyzed [`RulesFile`](crate::rules_file::RulesFile) and a
//! byte offset: [`document_symbols`], [`definition`], [`references`], [`rename`],
//! [`semantic_tokens`], [`completions`]. They read what the parser recognised, errors
//! included, so they work on the half-typed buffers an editor sends; they take any offset
//! (past the end, inside a multi-byte character) and never panic. Where the syntax tree
//! does not record a position (operators, keywords, the start of a regex), it is found by
//! lexing the statement again with the parser's own lexer, in the modes the parser used, so
//! the two cannot disagree. Each call is linear in the size of the rules file; completion
//! adds a binary search in the corpus' word table.
//!
//! Corpus- and model-level features read what the server computed in the background:
//! [`analyze`] (the rule system on every line of the bound corpora, on save),
//! [`TrainedNetwork`] (a trained network of any family prepared for the editor, with its
//! view of a line and its [`Role`]; [`MeasuredLines`], the long corpus lines a rule network
//! measured ahead of their hover), the findings and corpus-line
//! diagnostics, hovers ([`hover_rules`], [`hover_line`] and their Markdown), code actions
//! ([`rules_actions`], [`line_actions`], and the suggestion engine's edits:
//! [`rules_suggestion_actions`], [`line_suggestion_actions`]), code lenses and inlay hints.
//!
//! Where names and tokens stand in the syntax, which the syntax-level features share, is
//! `positions.rs`, below them; this file only declares and re-exports.
//!
//! Deliberately not here: LSP types, line/column positions (see `text::LineIndex` and the
//! LSP layer), file I/O (corpora come in parsed), and analyses of languages (`automata`'s).

mod analysis;
mod code_actions;
mod completion;
mod corpus_lines;
mod edit;
mod findings;
mod hover;
mod lens;
mod measured_lines;
mod navigation;
mod outside_workspace;
mod positions;
mod semantic_tokens;
mod suggestions;
mod symbols;
mod trained;

pub use analysis::{Cancelled, CorpusRun, Outcome, PatternKey, RulesAnalysis, analyze};
pub use code_actions::{
    Action, ActionKind, MAX_RULE_NGRAM, line_actions, minimal_edit, rules_actions,
};
pub use completion::{Completion, CompletionKind, MAX_COMPLETIONS, WordFrequencies, completions};
pub use corpus_lines::{
    DEFAULT_MAX_MISCLASSIFIED, corpus_diagnostics, examples_in, lines_diagnostics,
};
pub use edit::{FileEdits, TextEdit, apply};
pub use findings::{
    DEFAULT_CONFLICT_SHARE, DEFAULT_MIN_PRECISION, Finding, FindingsConfig, MIN_EVIDENCE,
    corpus_findings, of_previous_save, place,
};
pub use hover::{
    AbsentNetwork, Block, DEFAULT_MAX_EXAMPLES, DEFAULT_MAX_LISTED, DEFAULT_MAX_NGRAM_LEN,
    Document, Figures, HoverConfig, LabelFigures, LabelHover, LineHover, MAX_EXPLAINED_PATTERNS,
    MatchExample, Miss, MissedPattern, PatternFigures, PatternHover, RulesHover, WordListHover,
    hover_line, hover_rules, missed_patterns, render_line_hover, render_rules_hover,
    render_unbound_corpus, training_note, why_missed,
};
pub use lens::{InlayHint, Lens, Measure, Standing, line_hints, pattern_lenses, yardstick_lens};
pub use measured_lines::{MAX_MEASURED_LINES, MEASURED_LINE_BUDGET, MeasuredLine, MeasuredLines};
pub use navigation::{
    NameAt, RenameError, definition, name_at, prepare_rename, references, rename,
};
pub use outside_workspace::outside_workspace;
pub use positions::NameKind;
pub use semantic_tokens::{SemanticToken, TokenClass, semantic_tokens};
pub use suggestions::{
    MAX_ACTIONS_PER_PLACE, line_suggestion_actions, rules_suggestion_actions, suggestion_detail,
    suggestion_edit, suggestion_title,
};
pub use symbols::{Symbol, SymbolKind, document_symbols};
// Every family's prepared network and view, behind the one `TrainedNetwork`.
pub use trained::*;

#[doc(hidden)]
pub mod testing;

#[cfg(test)]
mod tests;

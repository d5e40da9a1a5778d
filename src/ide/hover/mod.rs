//! Hover data: what the editor shows over a pattern, a label or a corpus line, as plain
//! values (`render.rs` renders them as a [`Document`], which the server writes as Markdown
//! or plain text).
//!
//! - Over a pattern (its name, a use in a formula, or an anonymous rule's regex): its regex,
//!   DFA size, figures on each bound corpus from the last saved analysis, and a few correct
//!   and wrong matches with the matched span.
//! - Over a label: precision, recall and F1 per corpus, and what it is confused with.
//! - Over a corpus line: gold label, the rules' prediction and the patterns that fired; on a
//!   misclassified line, why the gold label's patterns did not match it, the closest first
//!   (`automata::PatternElements`: the elements matched, then what the failing element
//!   expected and the tokens found where it could start, or that the line ended); and, with
//!   a trained network, its prediction and probabilities, its top patterns with the span
//!   whose deletion lowers each one's score the most, and the n-grams whose deletion
//!   changes the probability of the prediction the most, by how much (occlusion, measured
//!   with the network: `explain::ngrams`, `explain::strongest_ngrams`); with each other
//!   trained network the project holds, its own view (`ide::trained`: a SoPa's pattern
//!   contributions, an exact decomposition of a black box's logits).
//!
//! Figures come from the analysis of the saved rules, looked up by [`PatternKey`] and label
//! name; a pattern edited since the save shows its regex and DFA size only. Cost: a rules
//! hover classifies at most a few corpus lines; a line hover runs at most
//! [`MAX_EXPLAINED_PATTERNS`] of the gold label's patterns on the line, and scores one
//! sentence with each of its spans of up to [`HoverConfig::max_ngram_len`] tokens deleted
//! (`docs/performance.md`).
//!
//! `config.rs` says how much a hover shows; `rules.rs` builds the hovers over the rules
//! file, `line.rs` those over a corpus line (each trained network's view of it comes from
//! `ide::trained`), and `render.rs` turns either into a [`Document`] (`document.rs`:
//! paragraphs, lists, code, tables; `pieces.rs`: snippets, notes, verdicts, which the
//! families' views share), which `markdown.rs` writes as Markdown and `plain_text.rs` as
//! plain text.

pub(crate) mod config;
pub(crate) mod document;
mod line;
mod markdown;
pub(crate) mod pieces;
mod plain_text;
mod render;
mod rules;
#[cfg(test)]
mod tests;

pub use document::{Block, Document};

impl Document {
    /// The document as Markdown (CommonMark with GitHub's tables).
    pub fn to_markdown(&self) -> String {
        markdown::write(self)
    }

    /// The document as plain text, for clients that do not render Markdown.
    pub fn to_plain_text(&self) -> String {
        plain_text::write(self)
    }
}
pub use config::{
    DEFAULT_MAX_EXAMPLES, DEFAULT_MAX_LISTED, DEFAULT_MAX_NGRAM_LEN, HoverConfig,
    MAX_EXPLAINED_PATTERNS,
};
pub use line::{
    AbsentNetwork, LineHover, Miss, MissedPattern, hover_line, missed_patterns, why_missed,
};
pub use render::{render_line_hover, render_rules_hover, render_unbound_corpus, training_note};
pub use rules::{
    Figures, LabelFigures, LabelHover, MatchExample, PatternFigures, PatternHover, RulesHover,
    WordListHover, hover_rules,
};

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
//!   with the network: `explain::ngrams`, `explain::strongest_ngrams`); with a trained SoPa,
//!   its view ([`patterns_view`]); with a trained MVMA-G, its prediction and the exact
//!   decomposition of its logits into the parts of the line's suffix n-grams
//!   ([`mvma_view`]).
//!
//! Figures come from the analysis of the saved rules, looked up by [`PatternKey`] and label
//! name; a pattern edited since the save shows its regex and DFA size only. Cost: a rules
//! hover classifies at most a few corpus lines; a line hover runs at most
//! [`MAX_EXPLAINED_PATTERNS`] of the gold label's patterns on the line, and scores one
//! sentence with each of its spans of up to [`HoverConfig::max_ngram_len`] tokens deleted
//! (`docs/performance.md`).
//!
//! `rules.rs` builds the hovers over the rules file, `line.rs` those over a corpus line,
//! with each trained family's view of it, and `render.rs` turns either into a [`Document`]
//! (`document.rs`: paragraphs, lists, code, tables), which `markdown.rs` writes as Markdown
//! and `plain_text.rs` as plain text.

use crate::automata::{RuleSystem, Scratch};
use crate::explain::OCCLUSION_BUDGET;
use crate::syntax::PatternId;
use text_size::TextRange;

/// Default for [`HoverConfig::max_examples`].
pub const DEFAULT_MAX_EXAMPLES: usize = 3;
/// Default for [`HoverConfig::max_ngram_len`].
pub const DEFAULT_MAX_NGRAM_LEN: usize = 6;
/// Default for [`HoverConfig::max_listed`].
pub const DEFAULT_MAX_LISTED: usize = 3;
/// The most patterns of the gold label a line hover runs on the line, in file order.
pub const MAX_EXPLAINED_PATTERNS: usize = 256;
/// The most tokens a why-not shows where the failing element could start (the last ones).
const MAX_FOUND: usize = 3;

/// How much a hover shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoverConfig {
    /// Correct and, separately, wrong matches shown for a pattern. Default
    /// [`DEFAULT_MAX_EXAMPLES`].
    pub max_examples: usize,
    /// The longest n-gram, in tokens, a line hover scores. Default [`DEFAULT_MAX_NGRAM_LEN`].
    pub max_ngram_len: usize,
    /// Patterns, missed patterns and n-grams listed for a line. Default
    /// [`DEFAULT_MAX_LISTED`].
    pub max_listed: usize,
    /// The most multiply-adds a line hover spends deleting the line's spans, unless the line
    /// was measured ahead (`ide::MeasuredLines`). Default `explain::OCCLUSION_BUDGET`, about
    /// 3 ms; `ide::MEASURED_LINE_BUDGET` where a call may take 0.3 s (the Python package).
    pub occlusion_budget: u64,
}

impl Default for HoverConfig {
    fn default() -> HoverConfig {
        HoverConfig {
            max_examples: DEFAULT_MAX_EXAMPLES,
            max_ngram_len: DEFAULT_MAX_NGRAM_LEN,
            max_listed: DEFAULT_MAX_LISTED,
            occlusion_budget: OCCLUSION_BUDGET,
        }
    }
}

/// The bytes of `text` that `pattern` matched, leaving out what its ends' `$*` absorbed.
fn match_span(
    system: &RuleSystem,
    pattern: PatternId,
    text: &str,
    scratch: &mut Scratch,
) -> Option<TextRange> {
    scratch.tokens.tokenize(text);
    system
        .alphabet()
        .symbolize(&scratch.tokens, &mut scratch.symbols);
    let tokens = system.match_span(pattern, &scratch.symbols)?;
    token_range(&scratch.tokens, tokens)
}

fn token_range(tokens: &crate::text::Tokens, span: std::ops::Range<usize>) -> Option<TextRange> {
    if span.is_empty() {
        let at = tokens
            .get(span.start)
            .map(|t| t.range.start())
            .or_else(|| {
                tokens
                    .get(span.start.checked_sub(1)?)
                    .map(|t| t.range.end())
            })?;
        return Some(TextRange::empty(at));
    }
    let first = tokens.get(span.start)?;
    let last = tokens.get(span.end - 1)?;
    Some(TextRange::new(first.range.start(), last.range.end()))
}

mod document;
mod line;
mod markdown;
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
pub use line::{
    AbsentNetwork, LineHover, LineNetwork, LogitParts, Miss, MissedPattern, MvmaView, NetworkView,
    NgramContribution, PatternContribution, PatternScore, PatternsView, RegressionParts,
    SuffixPart, hover_line, missed_patterns, mvma_view, patterns_view, why_missed,
};
pub use render::{render_line_hover, render_rules_hover, render_unbound_corpus, training_note};
pub use rules::{
    Figures, LabelFigures, LabelHover, MatchExample, PatternFigures, PatternHover, RulesHover,
    WordListHover, hover_rules,
};

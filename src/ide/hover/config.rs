//! How much a hover shows ([`HoverConfig`]), and where a pattern's match or a token span lies
//! in a line's text: what the rules hovers, the line hover and each trained family's view
//! of a line (`ide::trained`) share, below all of them.

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
pub(super) const MAX_FOUND: usize = 3;

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
pub(crate) fn match_span(
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

pub(crate) fn token_range(
    tokens: &crate::text::Tokens,
    span: std::ops::Range<usize>,
) -> Option<TextRange> {
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

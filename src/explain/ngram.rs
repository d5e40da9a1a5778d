//! N-gram polarity: which spans of a sentence push a trained FA-RNN toward which label
//! (Sun & Lu 2022, §3; papers-brief §3.2 and §5).
//!
//! An FA-RNN with forward scoring and without its state clamp is a linear recurrence, so the
//! score a pattern gives a span read on its own, `B_p(x_{i:t}) = h₀ T(x_i)···T(x_t) α_p`, is
//! Sun & Lu's n-gram representation `v_{i:t}` read out by the pattern's final weights
//! ([`crate::model::SpanScores`] computes it for every span up to a length). The label
//! readout here is the linear part of the aggregation: label c's polarity of a span is
//! `Σ_p M[c, p]·B_p`, with `M[c, p]` counting the occurrences of pattern p in label c's
//! formula, +1 for each plain occurrence and −1 for each under a `!`. It is exact for a
//! label whose formula is an OR of patterns (every `LABEL: REGEX` rule) while no score
//! leaves [0, 1]; the soft logic's `&` and its clamps are not linear, so for them it is the
//! readout's slope, not the logit (the logit is not additive over spans, papers-brief §5,
//! "Nonlinear heads"). The default label has no formula and so no polarity.
//!
//! The cost is that of the span scores, `n_tokens · max_len` network steps, plus
//! `O(n_tokens · max_len · (patterns + labels))` here.

use crate::automata::RuleSystem;
use crate::model::SpanScores;
use crate::syntax::LabelId;
use crate::text::tokenize;
use std::ops::Range;
use text_size::TextRange;

/// The linear readout from pattern scores to label polarities.
#[derive(Debug, Clone, PartialEq)]
pub struct Readout {
    n_patterns: usize,
    /// `[label][pattern]`.
    weights: Vec<Vec<f32>>,
}

impl Readout {
    /// The readout of a rule system's label formulas.
    ///
    /// ```
    /// let text = "default ham\npattern a = $* free $*\npattern b = $* hi $*\nspam <- a & !b\n";
    /// let parse = rulelens::syntax::parse(text);
    /// let (rules, _) = rulelens::syntax::lower(&parse, text);
    /// let (system, _) = rulelens::automata::compile(&rules, &Default::default());
    /// let readout = rulelens::explain::Readout::from_system(&system);
    /// // spam: +a −b; ham (the default) has no formula.
    /// assert_eq!(readout.polarity(&[1.0, 0.5]), [0.5, 0.0]);
    /// ```
    pub fn from_system(system: &RuleSystem) -> Readout {
        let n_patterns = system.patterns().len();
        let weights = (0..system.labels().len())
            .map(|c| {
                let mut row = vec![0f32; n_patterns];
                system
                    .label_formula(LabelId(c as u32))
                    .visit(true, &mut |pattern, positive| {
                        if let Some(weight) = row.get_mut(pattern.index()) {
                            *weight += if positive { 1.0 } else { -1.0 };
                        }
                    });
                row
            })
            .collect();
        Readout {
            n_patterns,
            weights,
        }
    }

    pub fn n_labels(&self) -> usize {
        self.weights.len()
    }

    /// Each label's polarity of some pattern scores.
    pub fn polarity(&self, pattern_scores: &[f32]) -> Vec<f32> {
        self.weights
            .iter()
            .map(|row| {
                row.iter()
                    .zip(pattern_scores.iter().take(self.n_patterns))
                    .map(|(w, s)| w * s)
                    .sum()
            })
            .collect()
    }
}

/// One span of a sentence with its polarity.
#[derive(Debug, Clone, PartialEq)]
pub struct Ngram {
    /// Token indices.
    pub tokens: Range<usize>,
    /// Where the span is in the sentence, in bytes.
    pub range: TextRange,
    /// Per label, in priority order.
    pub polarity: Vec<f32>,
}

impl Ngram {
    /// The label the span pushes toward most strongly (by absolute polarity), with its
    /// polarity; `None` when every polarity is 0.
    pub fn strongest(&self) -> Option<(LabelId, f32)> {
        let (c, &value) = self
            .polarity
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.abs().total_cmp(&b.1.abs()).then(b.0.cmp(&a.0)))?;
        (value != 0.0).then_some((LabelId(c as u32), value))
    }

    fn strength(&self) -> f32 {
        self.strongest().map_or(0.0, |(_, value)| value.abs())
    }
}

/// Every span of `text` that `spans` scored, with its polarity, in order of start then
/// length. `spans` must be the span scores of `text`.
pub fn ngrams(text: &str, spans: &SpanScores, readout: &Readout) -> Vec<Ngram> {
    let tokens = tokenize(text);
    let mut out = Vec::new();
    for start in 0..tokens.len() {
        for len in 1..=spans.max_len {
            let (Some(scores), Some(first), Some(last)) = (
                spans.get(start, len),
                tokens.get(start),
                tokens.get(start + len - 1),
            ) else {
                break;
            };
            out.push(Ngram {
                tokens: start..start + len,
                range: TextRange::new(first.range.start(), last.range.end()),
                polarity: readout.polarity(scores),
            });
        }
    }
    out
}

/// Tolerance, relative to a score's size, within which two span scores count as equal
/// (float rounding in the factors gives a pattern's matching spans scores like 0.9999999
/// and 1.0000001).
const TIE: f32 = 1e-4;

/// At most `limit` of the strongest n-grams: by absolute polarity toward some label, then
/// shorter first, then earlier. A span is left out when a span already listed lies inside it
/// and is at least as strong (the extra tokens add nothing), and spans of polarity 0 are
/// never listed.
pub fn strongest_ngrams(mut ngrams: Vec<Ngram>, limit: usize) -> Vec<Ngram> {
    ngrams.retain(|n| n.strength() > 0.0);
    ngrams.sort_by(|a, b| {
        b.strength()
            .total_cmp(&a.strength())
            .then(a.tokens.len().cmp(&b.tokens.len()))
            .then(a.tokens.start.cmp(&b.tokens.start))
    });
    let mut listed: Vec<Ngram> = Vec::new();
    for ngram in ngrams {
        if listed.len() >= limit {
            break;
        }
        let redundant = listed.iter().any(|kept| {
            kept.tokens.start >= ngram.tokens.start
                && kept.tokens.end <= ngram.tokens.end
                && kept.strength() >= ngram.strength() * (1.0 - TIE)
        });
        if !redundant {
            listed.push(ngram);
        }
    }
    listed
}

/// The span on which `pattern` scores highest, with that score: of spans within rounding of
/// the best, the shortest, then the earliest. `None` when no span scores above 0.
pub fn best_span(spans: &SpanScores, pattern: usize) -> Option<(Range<usize>, f32)> {
    let mut best = f32::NEG_INFINITY;
    let mut candidates = Vec::new();
    for start in 0..spans.n_tokens {
        for len in 1..=spans.max_len {
            let Some(score) = spans.get(start, len).and_then(|s| s.get(pattern)) else {
                break;
            };
            best = best.max(*score);
            candidates.push((start..start + len, *score));
        }
    }
    if best <= 0.0 {
        return None;
    }
    let floor = best - TIE * best.abs().max(1.0);
    candidates
        .into_iter()
        .filter(|(_, score)| *score >= floor)
        .min_by_key(|(tokens, _)| (tokens.len(), tokens.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ngram(tokens: Range<usize>, polarity: &[f32]) -> Ngram {
        Ngram {
            range: TextRange::default(),
            tokens,
            polarity: polarity.to_vec(),
        }
    }

    #[test]
    fn strongest_ngrams_drop_spans_that_only_extend_a_listed_one() {
        let listed = strongest_ngrams(
            vec![
                ngram(0..1, &[0.2, 0.0]),
                ngram(0..2, &[1.0, 0.0]),
                ngram(0..3, &[1.0, 0.0]),
                ngram(1..2, &[0.0, -0.6]),
                ngram(2..3, &[0.0, 0.0]),
            ],
            10,
        );
        let tokens: Vec<Range<usize>> = listed.iter().map(|n| n.tokens.clone()).collect();
        assert_eq!(tokens, [0..2, 1..2, 0..1]);
        assert_eq!(listed[1].strongest(), Some((LabelId(1), -0.6)));
    }
}

//! N-gram contributions by occlusion: what each short span of a sentence does to a trained
//! network's output, measured by running the network on the sentence without the span.
//!
//! A span's contribution toward label c is `P(c | sentence) − P(c | sentence without the
//! span)`, probabilities being the network's own, `softmax(scale · logits)` at the logit
//! scale it was trained with; deleting a span leaves its tokens out and reads the others in
//! order ([`crate::model::FaRnnScorer::occlusions`], which re-runs only the tokens after the
//! span). So a contribution is in probability points, positive when the span pushes toward
//! c (the sentence without it is less c), and it is what the network does, whatever its
//! kind: FA-RNN or FA-GRU, forward or Viterbi scoring, one or two directions, clamped states
//! and the soft logic's clamps included. A pattern's best span is measured the same way:
//! the span whose deletion lowers the pattern's score the most.
//!
//! Why not Sun & Lu's span decomposition (papers-brief §5): the score a pattern gives a span
//! read on its own is exact for a linear, forward, unclamped FA-RNN, but it is not a part
//! of this sentence's output. Every span that contains a match scores it again, so span
//! scores do not add up to the logit; the soft logic clamps pattern scores to [0, 1]; and a
//! trained network's states leave the range where it clamps them. On a trained network
//! those scores contradicted the predictions they were shown beside (issue 13, item 11).
//!
//! The cost is that of the occlusions: up to `n_tokens · (max_len + 1) · n_tokens / 2`
//! network steps, and a softmax per span here. What the editor asks for stays within
//! [`OCCLUSION_BUDGET`] (`FaRnnScorer::occlusions_within`): on a long line, shorter n-grams or
//! none.

use crate::model::Occlusions;
use crate::text::tokenize;
use std::ops::Range;
use text_size::TextRange;

/// The most multiply-adds an editor feature spends on deleting a line's spans, a step's
/// fixed work counted as multiply-adds too (`FaRnnScorer::occlusions_within`): about 3 ms of
/// one of the development machine's cores, so that a hover stays within its 10 ms at the
/// 99th percentile (`docs/performance.md`; at 90 million the hover's p99 was 9.4 ms). Over
/// the SMS lines (train and dev), a line's deletions within it took at the 99th percentile
/// 3.0 ms with a network trained with the default settings (all 6 n-gram lengths on 65 %
/// of the lines, none on 127 lines of 48 tokens or more), 1.9 ms without word vectors
/// (85 %; 30 lines of 53 or more), 3.1 ms with Viterbi scoring and 3.8 ms for an FA-GRU.
pub const OCCLUSION_BUDGET: u64 = 60_000_000;

/// One span of a sentence and what deleting it does to one label's probability.
#[derive(Debug, Clone, PartialEq)]
pub struct Ngram {
    /// Token indices.
    pub tokens: Range<usize>,
    /// Where the span is in the sentence, in bytes.
    pub range: TextRange,
    /// The label's probability for the sentence without the span.
    pub without: f64,
    /// The label's probability for the sentence minus [`Ngram::without`]: positive when the
    /// span pushes toward the label.
    pub contribution: f64,
}

/// Every span `occlusions` deleted from `text`, with its contribution toward `label` (an
/// index into the network's labels) at logit scale `scale`, in order of start, then length.
/// `occlusions` must be `text`'s.
pub fn ngrams(text: &str, occlusions: &Occlusions, label: usize, scale: f64) -> Vec<Ngram> {
    let tokens = tokenize(text);
    let probability = |scores: &crate::model::Scores| {
        scores
            .probabilities(scale)
            .get(label)
            .copied()
            .unwrap_or(0.0)
    };
    let with = probability(&occlusions.scores);
    occlusions
        .spans()
        .filter_map(|(span, scores)| {
            let first = tokens.get(span.start)?;
            let last = tokens.get(span.end - 1)?;
            let without = probability(scores);
            Some(Ngram {
                range: TextRange::new(first.range.start(), last.range.end()),
                tokens: span,
                without,
                contribution: with - without,
            })
        })
        .collect()
}

/// The smallest contribution, in probability points, that [`strongest_ngrams`] lists: half
/// the resolution of two decimals.
pub const NEGLIGIBLE: f64 = 0.005;

/// Tolerance, relative to a contribution's size, within which two contributions count as
/// equal (a span and a longer one around it often change the output by the same amount, up
/// to float rounding).
const TIE: f64 = 1e-6;

/// At most `limit` of the strongest n-grams: by the size of their contribution, then shorter
/// first, then earlier. A span is left out when a span already listed lies inside it and is
/// at least as strong (the extra tokens add nothing), and a contribution below
/// [`NEGLIGIBLE`] is never listed.
pub fn strongest_ngrams(mut ngrams: Vec<Ngram>, limit: usize) -> Vec<Ngram> {
    let strength = |n: &Ngram| n.contribution.abs();
    ngrams.retain(|n| strength(n) >= NEGLIGIBLE);
    ngrams.sort_by(|a, b| {
        strength(b)
            .total_cmp(&strength(a))
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
                && strength(kept) >= strength(&ngram) * (1.0 - TIE)
        });
        if !redundant {
            listed.push(ngram);
        }
    }
    listed
}

/// The span whose deletion lowers `pattern`'s score (averaged over the network's directions)
/// the most, with how much: of spans within rounding of the largest drop, the shortest, then
/// the earliest. `None` when no deletion lowers it.
pub fn best_span(occlusions: &Occlusions, pattern: usize) -> Option<(Range<usize>, f32)> {
    let score = occlusions.scores.pattern_score(pattern);
    let drops: Vec<(Range<usize>, f32)> = occlusions
        .spans()
        .map(|(span, scores)| (span, score - scores.pattern_score(pattern)))
        .collect();
    let best = drops.iter().map(|(_, drop)| *drop).fold(0f32, f32::max);
    if best <= 0.0 {
        return None;
    }
    let floor = best - 1e-4 * best.max(1.0);
    drops
        .into_iter()
        .filter(|(_, drop)| *drop >= floor)
        .min_by_key(|(tokens, _)| (tokens.len(), tokens.start))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ngram(tokens: Range<usize>, contribution: f64) -> Ngram {
        Ngram {
            range: TextRange::default(),
            tokens,
            without: 0.5 - contribution,
            contribution,
        }
    }

    #[test]
    fn strongest_ngrams_drop_spans_that_only_extend_a_listed_one_and_negligible_ones() {
        let listed = strongest_ngrams(
            vec![
                ngram(0..1, 0.2),
                ngram(0..2, 0.4),
                ngram(0..3, 0.4),
                ngram(1..2, -0.3),
                ngram(1..3, -0.1),
                ngram(2..3, 0.004),
            ],
            10,
        );
        let tokens: Vec<(Range<usize>, f64)> = listed
            .iter()
            .map(|n| (n.tokens.clone(), n.contribution))
            .collect();
        // 0..3 only extends 0..2; 1..3 contains 1..2, which is stronger; 2..3 is negligible.
        assert_eq!(tokens, [(0..2, 0.4), (1..2, -0.3), (0..1, 0.2)]);
        assert_eq!(strongest_ngrams(listed, 1).len(), 1);
    }
}

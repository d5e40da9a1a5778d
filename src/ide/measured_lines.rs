//! A corpus line as the hover reads a trained FA-RNN on it ([`MeasuredLine`]: the network's
//! scores, each pattern's best span and the strongest n-grams, by occlusion), and the long
//! lines measured ahead of their hover ([`MeasuredLines`]).
//!
//! A hover deletes a line's spans within `explain::OCCLUSION_BUDGET`, about 3 ms, so on a
//! long line it deletes short spans only, or none. Deleting every span of up to 6 tokens of
//! a 128-token line exactly costs about 2.4 billion multiply-adds with SMS's network, and
//! every single token alone 0.9 billion: past a hover's 10 ms on one core of the
//! development machine at its peak (docs/performance.md). So such lines are measured ahead
//! of the hover: the language server measures the lines of a project's open corpora whose
//! n-grams the hover's budget cuts, one at a time in the background once a network is
//! trained (`TrainedFaRnn::measure_ahead`), and a hover on a measured line looks it up.
//! The measurement is the same exact occlusion within a larger budget, so what the hover
//! shows is still what the network did.
//!
//! Limits: a line's measurement costs at most [`MEASURED_LINE_BUDGET`] multiply-adds (about
//! 0.3 s of one core), which deletes every span of up to 6 tokens of a 128-token line with
//! SMS's network (shorter spans on longer lines); a network keeps at most
//! [`MAX_MEASURED_LINES`] measured lines (under 2 KB each).

use crate::explain::{Ngram, OCCLUSION_BUDGET, best_span, ngrams, strongest_ngrams};
use crate::ide::HoverConfig;
use crate::model::{Occlusions, Scores};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use text_size::TextSize;

/// The most multiply-adds measuring one line ahead of its hover spends on deleting its
/// spans (counted as `FaRnnScorer::occlusions_within` counts them): a hundred hovers'
/// worth, about 0.3 s of one core of the development machine. Every span of up to 6 tokens
/// of a 128-token line costs about 2.4 billion with SMS's network (4.8 billion read in both
/// directions).
pub const MEASURED_LINE_BUDGET: u64 = 100 * OCCLUSION_BUDGET;

/// The most lines a network keeps measured ahead of their hover.
pub const MAX_MEASURED_LINES: usize = 20_000;

/// What a corpus line's hover shows of a trained FA-RNN, measured by occlusion.
#[derive(Debug, Clone, PartialEq)]
pub struct MeasuredLine {
    /// The whole line's scores.
    pub scores: Scores,
    pub n_tokens: usize,
    /// The longest span deleted, in tokens (0 when none was).
    pub max_len: usize,
    /// For each pattern with a positive score that some deletion lowers, in pattern order:
    /// the pattern and the span (token indices) whose deletion lowers it the most
    /// (`explain::best_span`).
    pub best_spans: Vec<(usize, Range<usize>)>,
    /// The strongest n-grams toward or away from the prediction (`explain::strongest_ngrams`).
    pub ngrams: Vec<Ngram>,
}

impl MeasuredLine {
    /// `text`'s line as `occlusions` (of `text`) measured it, probabilities at logit scale
    /// `scale`, at most `max_listed` n-grams kept.
    pub(super) fn new(
        text: &str,
        occlusions: &Occlusions,
        scale: f64,
        max_listed: usize,
    ) -> MeasuredLine {
        let scores = &occlusions.scores;
        let n_patterns = scores.pattern_scores.first().map_or(0, Vec::len);
        let best_spans = (0..n_patterns)
            .filter(|&p| scores.pattern_score(p) > 0.0)
            .filter_map(|p| Some((p, best_span(occlusions, p)?.0)))
            .collect();
        let prediction = scores.prediction();
        MeasuredLine {
            scores: scores.clone(),
            n_tokens: occlusions.n_tokens,
            max_len: occlusions.max_len.min(occlusions.n_tokens),
            best_spans,
            ngrams: strongest_ngrams(ngrams(text, occlusions, prediction, scale), max_listed),
        }
    }

    /// The span whose deletion lowers `pattern`'s score the most, if any does.
    pub fn best_span(&self, pattern: usize) -> Option<Range<usize>> {
        let at = self.best_spans.binary_search_by_key(&pattern, |(p, _)| *p);
        at.ok().map(|i| self.best_spans[i].1.clone())
    }
}

/// The lines a network measured ahead of their hover, by text and hover settings, and where
/// the editor last asked for one that was not measured yet (so that the measuring goes there
/// first). Shared by the clones of a `TrainedFaRnn`.
#[derive(Debug, Default)]
pub struct MeasuredLines {
    lines: Mutex<HashMap<LineKey, Arc<MeasuredLine>>>,
    /// A document's name and a byte offset in it.
    focus: Mutex<Option<(String, TextSize)>>,
    /// Whether the editor asked for a line since [`MeasuredLines::take_request`] last said.
    requested: AtomicBool,
}

/// A line measured at a hover's settings: the longest n-gram, the n-grams listed, the text.
type LineKey = (usize, usize, Box<str>);

fn key(text: &str, config: &HoverConfig) -> LineKey {
    (config.max_ngram_len, config.max_listed, text.into())
}

/// A lock that a panic while it was held does not poison for good (every change replaces
/// whole values).
fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl MeasuredLines {
    /// The line `text`, if it was measured at `config`'s settings.
    pub(super) fn get(&self, text: &str, config: &HoverConfig) -> Option<Arc<MeasuredLine>> {
        locked(&self.lines).get(&key(text, config)).cloned()
    }

    /// Keeps `line`, measured from `text` at `config`'s settings; `false` when no more lines
    /// fit ([`MAX_MEASURED_LINES`]).
    pub(super) fn insert(&self, text: &str, config: &HoverConfig, line: MeasuredLine) -> bool {
        let mut lines = locked(&self.lines);
        if lines.len() >= MAX_MEASURED_LINES {
            return false;
        }
        lines.insert(key(text, config), Arc::new(line));
        true
    }

    /// How many lines are measured.
    pub fn len(&self) -> usize {
        locked(&self.lines).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether no more lines fit ([`MAX_MEASURED_LINES`]).
    pub fn is_full(&self) -> bool {
        self.len() >= MAX_MEASURED_LINES
    }

    /// Notes that the editor asked for a line of `document` at byte `offset` that is not
    /// measured yet.
    pub fn look_at(&self, document: &str, offset: TextSize) {
        *locked(&self.focus) = Some((document.to_string(), offset));
        self.requested.store(true, Ordering::Relaxed);
    }

    /// Whether the editor asked for a line that was not measured ([`MeasuredLines::look_at`])
    /// since this last said so.
    pub fn take_request(&self) -> bool {
        self.requested.swap(false, Ordering::Relaxed)
    }

    /// Where the editor last asked for a line that was not measured yet.
    pub fn focus(&self) -> Option<(String, TextSize)> {
        locked(&self.focus).clone()
    }
}

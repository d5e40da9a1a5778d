//! A trained MVMA-G (`training.model` = `mvma-g`) as the editor features read it: its label
//! names and the plain [`MvmaScorer`], built once after training; its view of a line, the
//! network's prediction and the exact parts of its logits, read without waiting and without
//! tensors; and that view as a document.

use super::{Line, TrainedModelError, Unprepared, tensors};
use crate::ide::hover::config::HoverConfig;
use crate::ide::hover::document::{Block, Document, Inline};
use crate::ide::hover::pieces::{note, plural, render_verdict, snippet, the_others};
use crate::model::checkpoint::Manifest;
use crate::model::{Mvma, MvmaScorer, softmax};
use crate::text::tokenize;
use text_size::TextRange;

/// A trained MVMA-G, ready for the editor.
#[derive(Debug, Clone)]
pub struct TrainedMvma {
    pub manifest: Manifest,
    pub scorer: MvmaScorer,
}

/// A trained MVMA-G's view of a corpus line: its prediction, and the logits of the
/// prediction (and of the gold label, when it is another) as the exact sum of the parts of
/// the line's suffix n-grams, `v_{i:N}·W` (Sun and Lu's context polarity of the last
/// position, split by the n-gram's start i). Only those n-grams, the ones that end at the
/// last token the network reads, are parts of the logits.
#[derive(Debug, Clone, PartialEq)]
pub struct MvmaView {
    /// Whether the network was trained from other rules than the ones being edited.
    pub stale: bool,
    pub prediction: String,
    /// (label, probability), labels in the network's order.
    pub probabilities: Vec<(String, f64)>,
    /// The prediction's logit, then the gold label's when the network predicts another.
    pub logits: Vec<LogitParts>,
    /// The tokens the network reads: the line's first `max_sentence_tokens`.
    pub n_tokens: usize,
    /// Whether the line has more tokens than that.
    pub truncated: bool,
}

/// One label's logit and the parts it is the sum of.
#[derive(Debug, Clone, PartialEq)]
pub struct LogitParts {
    pub label: String,
    /// `h_N·W` for the label, as the network's recurrence computes it.
    pub logit: f32,
    /// The sum of all the parts (one per token), computed apart from the logit: equal to it
    /// up to rounding.
    pub sum: f32,
    /// At most [`HoverConfig::max_listed`] parts, the largest in absolute value first.
    pub strongest: Vec<SuffixPart>,
    /// The number of parts not listed, and their sum.
    pub rest: (usize, f32),
}

/// The part of a label's logit that one suffix n-gram contributes: `v_{i:N}·W`.
#[derive(Debug, Clone, PartialEq)]
pub struct SuffixPart {
    /// Its first token i (0-based).
    pub start: usize,
    /// From token i to the last token read, in bytes of the line's text.
    pub range: TextRange,
    pub score: f32,
}

impl TrainedMvma {
    /// Prepares the MVMA-G of `from`, with its checkpoint manifest and vocabulary.
    pub(super) fn new(from: Unprepared<'_>) -> Result<TrainedMvma, TrainedModelError> {
        let (Some(mvma), Some(vocabulary)) = (from.net.as_family::<Mvma>(), from.vocabulary) else {
            return Err(TrainedModelError::Tensors(
                "an MVMA-G with its vocabulary was expected".to_string(),
            ));
        };
        let scorer = mvma
            .scorer(vocabulary, from.manifest.settings.max_sentence_tokens)
            .map_err(tensors)?;
        Ok(TrainedMvma {
            manifest: from.manifest,
            scorer,
        })
    }

    /// The labels, in the order of the network's outputs.
    pub fn labels(&self) -> &[String] {
        &self.manifest.labels
    }
}

impl TrainedMvma {
    /// Its view of `line` (`stale` when it was trained from other rules than the ones being edited). Cost: one pass of the
    /// network over the line each way (`model::MvmaScorer`).
    pub(super) fn view(&self, line: &Line<'_>, stale: bool, config: &HoverConfig) -> MvmaView {
        let (text, gold) = (line.text, line.gold);
        let reading = self.scorer.read_text(text);
        let labels = self.labels();
        let probabilities = softmax(&reading.logits, self.manifest.probability_scale());
        let prediction = (0..reading.logits.len()).fold(0, |best, c| {
            if reading.logits[c] > reading.logits[best] {
                c
            } else {
                best
            }
        });
        let tokens = tokenize(text);
        let last = reading
            .n_tokens
            .checked_sub(1)
            .and_then(|last| tokens.get(last));
        let logit_parts = |c: usize| {
            let mut parts: Vec<SuffixPart> = reading
                .parts
                .iter()
                .enumerate()
                .map(|(start, part)| SuffixPart {
                    start,
                    range: match (tokens.get(start), last) {
                        (Some(first), Some(last)) => first.range.cover(last.range),
                        _ => TextRange::empty(0.into()),
                    },
                    score: part[c],
                })
                .collect();
            let sum = parts.iter().map(|p| p.score).sum();
            parts.sort_by(|a, b| {
                b.score
                    .abs()
                    .total_cmp(&a.score.abs())
                    .then(a.start.cmp(&b.start))
            });
            let rest = parts.split_off(config.max_listed.min(parts.len()));
            LogitParts {
                label: labels.get(c).cloned().unwrap_or_default(),
                logit: reading.logits[c],
                sum,
                strongest: parts,
                rest: (rest.len(), rest.iter().map(|p| p.score).sum()),
            }
        };
        let mut logits = Vec::new();
        if !reading.logits.is_empty() {
            logits.push(logit_parts(prediction));
            if let Some(gold) = gold.and_then(|gold| labels.iter().position(|l| l == gold))
                && gold != prediction
                && gold < reading.logits.len()
            {
                logits.push(logit_parts(gold));
            }
        }
        MvmaView {
            stale,
            prediction: labels.get(prediction).cloned().unwrap_or_default(),
            probabilities: labels.iter().cloned().zip(probabilities).collect(),
            logits,
            n_tokens: reading.n_tokens,
            truncated: tokens.len() > reading.n_tokens,
        }
    }
}

/// The MVMA-G's view of a line: its prediction, and each logit shown as the exact sum of
/// its suffix n-grams' parts, the strongest listed.
pub(super) fn render(doc: &mut Document, view: &MvmaView, gold: Option<&str>, text: &str) {
    render_verdict(
        doc,
        ("MVMA-G", "The MVMA-G"),
        &view.prediction,
        &view.probabilities,
        gold,
        false,
    );
    if view.stale {
        doc.push(note(
            "The MVMA-G is of an earlier save of the rules; saving trains it again.",
        ));
    }
    if view.truncated {
        doc.push(note(&format!(
            "The network reads the first {} tokens of this line.",
            view.n_tokens
        )));
    }
    for logit in &view.logits {
        let gold = logit.label != view.prediction;
        render_logit_parts(doc, logit, gold, text);
    }
}

/// A label's logit (the gold label's, marked, when `gold`) as the sum of its suffix
/// n-grams' parts.
fn render_logit_parts(doc: &mut Document, logit: &LogitParts, gold: bool, text: &str) {
    let n_parts = logit.strongest.len() + logit.rest.0;
    let heading = vec![
        Inline::Text(format!(
            "The logit of {}{} is the sum of {n_parts} part{}, one per suffix n-gram (",
            logit.label,
            if gold { " (gold)" } else { "" },
            plural(n_parts)
        )),
        Inline::code("wᵀ v_{i:N}"),
        Inline::text(": from word i to the end), exactly; the strongest:"),
    ];
    let mut items: Vec<Vec<Inline>> = logit
        .strongest
        .iter()
        .map(|part| {
            let mut item = vec![Inline::Text(format!(
                "from word {} on {:+.3}: ",
                part.start + 1,
                part.score
            ))];
            item.extend(snippet(text, part.range));
            item
        })
        .collect();
    items.extend(the_others(logit.rest, "part", 3));
    doc.push(Block::List { heading, items });
    doc.paragraph(vec![Inline::Text(format!(
        "The parts sum to {:.4}; the logit is {:.4}.",
        logit.sum, logit.logit
    ))]);
}

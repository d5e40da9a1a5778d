//! The n-gram regression beside a trained network (the FA-RNN family's or SoPa's) as the
//! editor reads it: its part of a label's logit of a line, split exactly into its bias and
//! one part per n-gram (a word's with its character n-grams' and word vector's parts), and
//! that split as a hover's list.

use crate::ide::hover::config::{HoverConfig, token_range};
use crate::ide::hover::document::{Block, Document, Inline};
use crate::ide::hover::pieces::the_others;
use crate::model::NgramPart;
use crate::text::Tokens;
use text_size::TextRange;

/// The n-gram regression's part of a label's logit of a line, split exactly: its bias and
/// one part per n-gram of the line (its tf-idf value times its weight; a word's unigram with
/// its character n-grams' part and its vector's part of the line's mean word vector, a word
/// no train line holds with those alone), all times the probability scale, as the softmax
/// reads them.
#[derive(Debug, Clone, PartialEq)]
pub struct RegressionParts {
    pub label: String,
    /// The regression's logit for the label: the bias and every part.
    pub logit: f32,
    pub bias: f32,
    /// At most [`HoverConfig::max_listed`] parts, the largest in absolute value first, each
    /// at the n-gram's first tokens, in bytes of the line's text.
    pub strongest: Vec<(TextRange, f32)>,
    /// The number of parts not listed, and their sum.
    pub rest: (usize, f32),
}

impl RegressionParts {
    /// The parts of `label`'s logit of a line whose tokens are `tokens`, from the
    /// regression's bias and parts ([`crate::model::NgramRegression::parts`]) and the
    /// probability scale.
    pub(super) fn new(
        label: String,
        (bias, mut parts): (f32, Vec<NgramPart>),
        scale: f32,
        tokens: &Tokens,
        config: &HoverConfig,
    ) -> RegressionParts {
        let logit = scale * (bias + parts.iter().map(|(_, x)| x).sum::<f32>());
        parts.sort_by(|a, b| {
            b.1.abs()
                .total_cmp(&a.1.abs())
                .then(a.0.start.cmp(&b.0.start))
        });
        let listed = parts.len().min(config.max_listed);
        let rest = &parts[listed..];
        RegressionParts {
            label,
            logit,
            bias: scale * bias,
            strongest: parts[..listed]
                .iter()
                .filter_map(|(tokens_at, x)| {
                    Some((token_range(tokens, tokens_at.clone())?, scale * x))
                })
                .collect(),
            rest: (rest.len(), scale * rest.iter().map(|(_, x)| x).sum::<f32>()),
        }
    }

    /// The regression's share of the prediction's score, its bias and parts exactly, as a
    /// list; `included` says what else in the hover includes it.
    pub(super) fn render(&self, doc: &mut Document, text: &str, included: &str) {
        let mut items: Vec<Vec<Inline>> = self
            .strongest
            .iter()
            .map(|&(range, part)| {
                let phrase = text
                    .get(usize::from(range.start())..usize::from(range.end()))
                    .unwrap_or("");
                vec![
                    Inline::Highlight(phrase.to_string()),
                    Inline::Text(format!(" {part:+.2}")),
                ]
            })
            .collect();
        items.extend(the_others(self.rest, "n-gram", 2));
        items.push(vec![Inline::Text(format!("bias {:+.2}", self.bias))]);
        doc.push(Block::List {
            heading: vec![Inline::Text(format!(
                "Beside the rules, an n-gram regression adds {:+.2} to {}'s scaled logit (the \
                 probabilities and {included} here include it), the sum of its parts:",
                self.logit, self.label
            ))],
            items,
        });
    }
}

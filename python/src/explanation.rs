//! What a network does with one text, as the editor's hover over a corpus line shows it:
//! the network prepared as the language server prepares it after training
//! ([`Explainer`], on `ide::TrainedNetwork`), its view of the text
//! (`TrainedNetwork::explain_line`), and that view as Python classes, byte ranges turned
//! into character offsets ([`Chars`]). It only translates: every figure is the library's.

use pyo3::prelude::*;
use pyo3::types::PyDict;
use rulelens::ide::{
    HoverConfig, Line, LineView, LogitParts as LibLogitParts, MEASURED_LINE_BUDGET,
    MvmaView as LibMvmaView, NetworkView as LibNetworkView,
    PatternContribution as LibPatternContribution, TrainedModelError, TrainedNetwork, Unprepared,
    analyze,
};
use rulelens::model::LoadedModel;
use rulelens::rules_file::RulesFile;
use rulelens::text::tokenize;
use std::ops::Range;
use std::sync::Arc;

/// Registers the classes of an explanation in the module `m`.
pub(crate) fn add_classes(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Explanation>()?;
    m.add_class::<Span>()?;
    m.add_class::<NetworkView>()?;
    m.add_class::<PatternScore>()?;
    m.add_class::<NgramContribution>()?;
    m.add_class::<PatternContribution>()?;
    m.add_class::<MvmaView>()?;
    m.add_class::<LogitParts>()?;
    m.add_class::<SuffixPart>()?;
    Ok(())
}

/// A network prepared for the editor's hover over a corpus line, with the rules it was
/// trained from (which it explains lines under).
pub(crate) struct Explainer {
    rules: Arc<RulesFile>,
    network: TrainedNetwork,
}

impl Explainer {
    /// Prepares `loaded` for the editor as the language server does after a save, with
    /// its own rules and no corpora (so a SoPa's learned patterns are not read back).
    pub(crate) fn prepare(loaded: &LoadedModel) -> Result<Explainer, TrainedModelError> {
        let analysis = analyze(Arc::new(loaded.rules.clone()), Vec::new(), &|| false)?;
        let network = TrainedNetwork::prepare(Unprepared {
            manifest: loaded.manifest.clone(),
            net: loaded.net.clone(),
            vocabulary: loaded.vocabulary.as_ref(),
            analysis: &analysis,
            reconstruct: None,
            cancelled: &|| false,
        })?;
        Ok(Explainer {
            rules: analysis.rules.clone(),
            network,
        })
    }

    /// What the hover over a corpus line of `text` says of the network's prediction.
    pub(crate) fn explain(&self, text: &str) -> Result<Explanation, String> {
        // Not an editor's 10 ms: every n-gram of up to 6 tokens on texts of up to 128 tokens,
        // as the editor's hover once the language server has measured the line ahead (for
        // each member of an ensemble).
        let config = HoverConfig {
            occlusion_budget: (self.network.rule_network())
                .map_or(MEASURED_LINE_BUDGET, |network| network.ahead_budget),
            ..HoverConfig::default()
        };
        let line = Line { text, gold: None };
        let view = (self.network)
            .explain_line(&line, &self.rules, &config)
            .map_err(|error| error.to_string())?;
        let chars = Chars::new(text);
        let (prediction, probabilities) = view.prediction();
        let mut explanation = Explanation {
            text: text.to_string(),
            prediction: prediction.to_string(),
            probabilities: probabilities.to_vec(),
            tokens: tokenize(text)
                .iter()
                .map(|token| chars.span(token.range))
                .collect(),
            network: None,
            patterns: None,
            mvma: None,
        };
        match view {
            LineView::RuleNetwork(view) => {
                explanation.network = Some(NetworkView::new(view, &chars));
            }
            LineView::Patterns(view) => {
                explanation.patterns = Some(
                    view.contributions
                        .into_iter()
                        .map(|c| PatternContribution::new(c, &chars))
                        .collect(),
                );
            }
            LineView::Mvma(view) => explanation.mvma = Some(MvmaView::new(view, &chars)),
            LineView::BlackBox(_) => {}
        }
        Ok(explanation)
    }
}

/// Byte offsets of a text as character offsets, which Python indexes a `str` by.
struct Chars<'a> {
    text: &'a str,
    /// The byte offset of each character.
    starts: Vec<usize>,
}

impl<'a> Chars<'a> {
    fn new(text: &'a str) -> Chars<'a> {
        Chars {
            text,
            starts: text.char_indices().map(|(i, _)| i).collect(),
        }
    }

    /// The span of the bytes `range` (on character boundaries, as the library's are).
    fn span(&self, range: impl Into<Range<usize>>) -> Span {
        let range = range.into();
        let at = |byte: usize| self.starts.partition_point(|&start| start < byte);
        Span {
            start: at(range.start),
            end: at(range.end),
            text: self.text.get(range).unwrap_or_default().to_string(),
        }
    }
}

/// A stretch of an explained text: `text[start:end]`, in characters.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct Span {
    start: usize,
    end: usize,
    /// The characters it covers, as written.
    text: String,
}

#[pymethods]
impl Span {
    fn __repr__(&self) -> String {
        format!("<Span {}:{} {:?}>", self.start, self.end, self.text)
    }
}

/// What a network does with one text, as the editor's hover over a corpus line shows it.
#[pyclass(frozen, module = "rulelens._rulelens")]
pub(crate) struct Explanation {
    /// The text explained.
    #[pyo3(get)]
    text: String,
    /// The network's prediction.
    #[pyo3(get)]
    prediction: String,
    probabilities: Vec<(String, f64)>,
    /// Every token of the text, as the rules and the networks split it (a network reads the
    /// first `max_sentence_tokens`).
    #[pyo3(get)]
    tokens: Vec<Span>,
    /// The view of an FA-RNN, FA-GRU or their bidirectional forms; `None` for the others.
    #[pyo3(get)]
    network: Option<NetworkView>,
    /// A SoPa's patterns with the largest contributions; `None` for the other families.
    #[pyo3(get)]
    patterns: Option<Vec<PatternContribution>>,
    /// An MVMA-G's logits split into parts; `None` for the other families.
    #[pyo3(get)]
    mvma: Option<MvmaView>,
}

#[pymethods]
impl Explanation {
    /// Each label's probability, as the hover computes it (the network's plain-loop scorer,
    /// equal to `predict`'s tensors up to rounding; `predict`'s own for the S-LSTM).
    #[getter]
    fn probabilities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        for (label, p) in &self.probabilities {
            dict.set_item(label, p)?;
        }
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        let p = self
            .probabilities
            .iter()
            .find(|(label, _)| *label == self.prediction)
            .map_or(f64::NAN, |(_, p)| *p);
        format!(
            "<Explanation {:?}: {:?} ({p:.4})>",
            self.text, self.prediction
        )
    }
}

/// What an FA-RNN (or FA-GRU, or their bidirectional forms) does with a text: its
/// patterns' scores and the n-grams whose deletion changes the prediction most.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct NetworkView {
    /// Whether the prediction is a label no rule names, which the word-vector path gives
    /// (with the n-gram regression's logits when the network has one).
    prediction_from_words: bool,
    /// Whether an n-gram regression beside the network adds to its logits (the training
    /// setting `ngram_weight`); the n-grams' effects include it.
    ngram_regression: bool,
    /// The patterns with the highest positive scores (at most the hover's 3).
    top_patterns: Vec<PatternScore>,
    /// The n-grams whose deletion changes the probability of the prediction most (at most
    /// the hover's 3; none that change it by less than 0.005).
    ngrams: Vec<NgramContribution>,
    /// The longest n-gram deleted, in tokens.
    max_ngram_len: usize,
    /// Whether the text is too long for the hover's n-grams of up to 6 tokens within its
    /// occlusion budget, so that `max_ngram_len` is shorter.
    ngram_len_capped: bool,
}

impl NetworkView {
    fn new(view: LibNetworkView, chars: &Chars<'_>) -> NetworkView {
        NetworkView {
            prediction_from_words: view.prediction_from_words,
            ngram_regression: view.ngram_regression.is_some(),
            top_patterns: view
                .top_patterns
                .into_iter()
                .map(|p| PatternScore {
                    pattern: p.pattern,
                    score: p.score,
                    span: p.span.map(|range| chars.span(range)),
                })
                .collect(),
            ngrams: view
                .ngrams
                .into_iter()
                .map(|n| NgramContribution {
                    span: chars.span(n.range),
                    contribution: n.contribution,
                    without: n.without,
                })
                .collect(),
            max_ngram_len: view.max_ngram_len,
            ngram_len_capped: view.ngram_len_capped,
        }
    }
}

#[pymethods]
impl NetworkView {
    fn __repr__(&self) -> String {
        format!(
            "<NetworkView: {} patterns, {} n-grams>",
            self.top_patterns.len(),
            self.ngrams.len()
        )
    }
}

/// A pattern's score on a text.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct PatternScore {
    /// The pattern, described (``the `spam` rule of line 6``, or its name).
    pattern: String,
    /// Its score: the weight the network gives the text in the pattern's automaton (about 1
    /// where the pattern matches; the mean of both directions' in a bidirectional network).
    score: f32,
    /// The span whose deletion lowers the score most, else where the pattern matches.
    span: Option<Span>,
}

#[pymethods]
impl PatternScore {
    fn __repr__(&self) -> String {
        format!("<PatternScore {}: {:.4}>", self.pattern, self.score)
    }
}

/// An n-gram of a text and what deleting it does to the probability of the prediction.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct NgramContribution {
    /// The n-gram's tokens.
    span: Span,
    /// P(prediction | text) − `without`: positive when the n-gram pushes toward the
    /// prediction.
    contribution: f64,
    /// P(prediction | the text without the n-gram's tokens), computed by the network.
    without: f64,
}

#[pymethods]
impl NgramContribution {
    fn __repr__(&self) -> String {
        format!(
            "<NgramContribution {:?}: {:+.4}>",
            self.span.text, self.contribution
        )
    }
}

/// One pattern's part in a SoPa's prediction of a text.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct PatternContribution {
    /// A rule's pattern, described, or `learned pattern N`.
    pattern: String,
    /// The feature the network's head reads.
    score: f32,
    /// P(prediction) − P(prediction when the network runs without the pattern's score).
    delta: f64,
    /// The tokens of the pattern's best path.
    span: Option<Span>,
}

impl PatternContribution {
    fn new(c: LibPatternContribution, chars: &Chars<'_>) -> PatternContribution {
        PatternContribution {
            pattern: c.pattern,
            score: c.score,
            delta: c.delta,
            span: c.span.map(|range| chars.span(range)),
        }
    }
}

#[pymethods]
impl PatternContribution {
    fn __repr__(&self) -> String {
        format!("<PatternContribution {}: {:+.4}>", self.pattern, self.delta)
    }
}

/// An MVMA-G's view of a text: its logit of the prediction as the exact sum of the parts of
/// the text's suffix n-grams.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct MvmaView {
    /// The prediction's logit and its parts.
    logits: Vec<LogitParts>,
    /// The tokens the network reads: the text's first `max_sentence_tokens`.
    n_tokens: usize,
    /// Whether the text has more tokens than that.
    truncated: bool,
}

impl MvmaView {
    fn new(view: LibMvmaView, chars: &Chars<'_>) -> MvmaView {
        let parts = |logit: LibLogitParts| LogitParts {
            label: logit.label,
            logit: logit.logit,
            sum: logit.sum,
            strongest: logit
                .strongest
                .into_iter()
                .map(|part| SuffixPart {
                    first_token: part.start,
                    span: chars.span(part.range),
                    score: part.score,
                })
                .collect(),
            rest: logit.rest,
        };
        MvmaView {
            logits: view.logits.into_iter().map(parts).collect(),
            n_tokens: view.n_tokens,
            truncated: view.truncated,
        }
    }
}

#[pymethods]
impl MvmaView {
    fn __repr__(&self) -> String {
        format!("<MvmaView: {} tokens read>", self.n_tokens)
    }
}

/// One label's logit and the parts it is the sum of, one per token.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct LogitParts {
    label: String,
    /// The label's logit, as the network's recurrence computes it.
    logit: f32,
    /// The sum of all the parts, computed apart from the logit: equal to it up to rounding.
    sum: f32,
    /// The largest parts in absolute value (at most the hover's 3).
    strongest: Vec<SuffixPart>,
    /// The number of parts not listed, and their sum.
    rest: (usize, f32),
}

#[pymethods]
impl LogitParts {
    fn __repr__(&self) -> String {
        format!("<LogitParts {}: {:.4}>", self.label, self.logit)
    }
}

/// The part of a logit that one suffix n-gram contributes, from its first token to the last
/// token the network reads.
#[pyclass(frozen, get_all, module = "rulelens._rulelens")]
#[derive(Clone)]
struct SuffixPart {
    /// The index of its first token.
    first_token: usize,
    span: Span,
    score: f32,
}

#[pymethods]
impl SuffixPart {
    fn __repr__(&self) -> String {
        format!("<SuffixPart {:?}: {:+.4}>", self.span.text, self.score)
    }
}

//! A SoPa scored one sentence at a time in plain loops, without candle: the language
//! server's hovers read it, as they read the FA-RNN's [`crate::model::FaRnnScorer`]. Its
//! parameters are copied once out of the tensors; a sentence costs one transition row per
//! token (tokens × rows × dimension multiply-adds, none for a word without a vector), the
//! recurrence, and the head. [`SopaScorer::explain_text`] is [`Sopa::explain`] computed the
//! same way: each pattern's leave-one-out contribution, by running the aggregation and the
//! head again without it, and its best span (tested equal, `tests.rs`). With the n-gram
//! regression a trained SoPa has beside it ([`SopaScorer::with_ngram_regression`]), every
//! logit adds the regression's logits of the sentence, which no pattern changes: the
//! predictions and leave-one-out contributions are those of the network with it.

use super::explain::best_path;
use super::transitions::encode;
use super::{BestPath, Contribution, Explanation, Group, PatternRef, Semiring, Sopa};
use crate::automata::{RuleSystem, SymbolId};
use crate::model::aggregation::Aggregation;
use crate::model::nn::embeddings::Vocabulary;
use crate::model::nn::ngrams::{NgramPart, NgramRegression};
use crate::model::nn::probabilities::softmax;
use crate::syntax::PatternId;
use crate::text::Tokens;
use candle_core::{Result, Tensor};
use std::ops::Range;

/// One group's transitions, as plain rows.
#[derive(Debug, Clone)]
struct PlainGroup {
    /// wᵀ [D, R]: a token's logits are the rows of wᵀ scaled by its vector's entries and
    /// summed, contiguous runs that vectorise.
    words_t: Vec<f32>,
    /// u [S + 2, R].
    symbols: Vec<f32>,
    /// b [R].
    bias: Vec<f32>,
    /// ε weights (encoded) [P, L − 1].
    epsilon: Vec<f32>,
    ends: Vec<usize>,
    n_states: usize,
}

impl PlainGroup {
    fn new(group: &Group, semiring: Semiring) -> Result<PlainGroup> {
        Ok(PlainGroup {
            words_t: flat(&group.words.t()?.contiguous()?)?,
            symbols: flat(&group.symbols)?,
            bias: flat(&group.bias)?,
            epsilon: flat(&semiring.encode(&group.epsilon)?)?,
            ends: group.ends.iter().map(|&end| end as usize).collect(),
            n_states: group.n_states,
        })
    }

    fn rows(&self) -> usize {
        self.bias.len()
    }

    /// The transition weights of one padded token: its word vector (`None` for the zero
    /// vector) and symbol id.
    fn weights(&self, vector: Option<&[f32]>, symbol: usize, semiring: Semiring) -> Vec<f32> {
        let rows = self.rows();
        let mut logits = self.bias.clone();
        let symbol_row = &self.symbols[symbol * rows..(symbol + 1) * rows];
        for (logit, u) in logits.iter_mut().zip(symbol_row) {
            *logit += u;
        }
        if let Some(vector) = vector {
            for (&x, row) in vector.iter().zip(self.words_t.chunks_exact(rows)) {
                if x != 0.0 {
                    for (logit, w) in logits.iter_mut().zip(row) {
                        *logit += x * w;
                    }
                }
            }
        }
        logits.into_iter().map(|x| encode(semiring, x)).collect()
    }

    /// Each pattern's document score over a padded sentence's weights: the recurrence of
    /// `Sopa::recurrence_unfused`, step for step.
    fn scores(&self, weights: &[Vec<f32>], semiring: Semiring) -> Vec<f32> {
        let (zero, one) = (semiring.zero() as f32, semiring.one() as f32);
        let l = self.n_states;
        let times = |a: f32, b: f32| if semiring.is_max() { a + b } else { a * b };
        let plus = |a: f32, b: f32| if semiring.is_max() { a.max(b) } else { a + b };
        let mut out = Vec::with_capacity(self.ends.len());
        for (p, &end) in self.ends.iter().enumerate() {
            let epsilon = &self.epsilon[p * (l - 1)..(p + 1) * (l - 1)];
            let mut h = vec![zero; end + 1];
            h[0] = one;
            let mut score = zero;
            let mut h_eps = h.clone();
            for row in weights {
                let weight = |kind: usize, state: usize| row[(p * 2 + kind) * l + state];
                h_eps[0] = h[0];
                for i in 1..=end {
                    h_eps[i] = plus(h[i], times(h[i - 1], epsilon[i - 1]));
                }
                for i in 0..=end {
                    let advanced = if i == 0 {
                        one
                    } else {
                        times(h_eps[i - 1], weight(1, i - 1))
                    };
                    h[i] = plus(advanced, times(h_eps[i], weight(0, i)));
                }
                score = if semiring.is_max() {
                    score.max(h[end])
                } else {
                    score + h[end]
                };
            }
            out.push(score);
        }
        out
    }
}

/// A document score's truth for the label logic ([`Semiring::truth`]).
fn truth(semiring: Semiring, score: f32) -> f32 {
    if semiring.is_max() {
        score.min(0.0).exp()
    } else {
        score
    }
}

/// A document score's feature for the head ([`Semiring::feature`]).
fn feature(semiring: Semiring, score: f32) -> f32 {
    match semiring {
        Semiring::MaxProduct => score.exp(),
        Semiring::MaxSum | Semiring::SumProduct => score,
    }
}

fn flat(tensor: &Tensor) -> Result<Vec<f32>> {
    tensor.flatten_all()?.to_vec1()
}

/// The head as plain matrices.
#[derive(Debug, Clone)]
struct PlainHead {
    /// [F, H] and [H].
    hidden: Option<(Vec<f32>, Vec<f32>)>,
    /// [W, C] and [C].
    weight: Vec<f32>,
    bias: Vec<f32>,
}

/// `x` [I] times `matrix` [I, O] plus `bias` [O].
fn affine(x: &[f32], matrix: &[f32], bias: &[f32]) -> Vec<f32> {
    let mut out = bias.to_vec();
    let width = bias.len();
    for (i, &xi) in x.iter().enumerate() {
        if xi != 0.0 {
            for (o, m) in out.iter_mut().zip(&matrix[i * width..(i + 1) * width]) {
                *o += xi * m;
            }
        }
    }
    out
}

impl PlainHead {
    fn forward(&self, features: &[f32]) -> Vec<f32> {
        match &self.hidden {
            Some((weight, bias)) => {
                let hidden: Vec<f32> = affine(features, weight, bias)
                    .into_iter()
                    .map(|x| x.max(0.0))
                    .collect();
                affine(&hidden, &self.weight, &self.bias)
            }
            None => affine(features, &self.weight, &self.bias),
        }
    }
}

/// What a SoPa makes of one sentence.
#[derive(Debug, Clone, PartialEq)]
pub struct SopaReading {
    /// Each rule pattern's truth, in the rule system's order.
    pub truths: Vec<f32>,
    /// Every pattern's feature, in feature order (rules' chains, rules' DFAs, free
    /// patterns).
    pub features: Vec<f32>,
    /// Label logits, in the rule system's order (with the n-gram regression's).
    pub logits: Vec<f32>,
    /// The n-gram regression's logits of the sentence (empty without a regression), which
    /// [`SopaScorer::logits`] adds.
    pub ngram_logits: Vec<f32>,
    /// Each soft pattern's best path (the rules' chains, then the free patterns).
    pub paths: Vec<Option<BestPath>>,
    /// The symbols of the tokens read.
    pub symbols: Vec<SymbolId>,
}

/// A SoPa's parameters as plain vectors, scoring one sentence at a time.
#[derive(Debug, Clone)]
pub struct SopaScorer {
    semiring: Semiring,
    system: RuleSystem,
    vocabulary: Vocabulary,
    max_tokens: usize,
    /// Word vectors [V, D].
    embedding: Vec<f32>,
    dim: usize,
    rules: Option<PlainGroup>,
    free: Option<PlainGroup>,
    chained: Vec<usize>,
    exact: Vec<usize>,
    aggregation: Aggregation,
    head: Option<PlainHead>,
    /// The n-gram regression beside the network, over `vocabulary`.
    ngrams: Option<NgramRegression>,
}

impl Sopa {
    /// The plain-loop scorer of this network, reading words through `vocabulary` (the
    /// checkpoint's) and at most `max_tokens` tokens of a text.
    pub fn scorer(&self, vocabulary: &Vocabulary, max_tokens: usize) -> Result<SopaScorer> {
        let (n_words, dim) = self.embedding.dims2()?;
        if n_words != vocabulary.len() {
            candle_core::bail!(
                "the network has {n_words} word vectors, its vocabulary {} words",
                vocabulary.len()
            );
        }
        let group = |group: &Option<Group>| {
            group
                .as_ref()
                .map(|g| PlainGroup::new(g, self.semiring))
                .transpose()
        };
        let head = match &self.head {
            Some(head) => Some(PlainHead {
                hidden: match &head.hidden {
                    Some((weight, bias)) => Some((flat(weight)?, flat(bias)?)),
                    None => None,
                },
                weight: flat(&head.weight)?,
                bias: flat(&head.bias)?,
            }),
            None => None,
        };
        Ok(SopaScorer {
            semiring: self.semiring,
            system: self.system.clone(),
            vocabulary: vocabulary.clone(),
            max_tokens,
            embedding: flat(&self.embedding)?,
            dim,
            rules: group(&self.rules)?,
            free: group(&self.free)?,
            chained: self.chained.clone(),
            exact: self.exact.clone(),
            aggregation: self.aggregation.clone(),
            head,
            ngrams: None,
        })
    }
}

impl SopaScorer {
    /// The scorer of the network with `ngrams` beside it (the trained network's, over the
    /// same vocabulary: [`crate::model::Network`]'s `ngram_regression`).
    pub fn with_ngram_regression(self, ngrams: Option<NgramRegression>) -> SopaScorer {
        SopaScorer { ngrams, ..self }
    }

    /// The rule system the network was built from (with every label it predicts).
    pub fn system(&self) -> &RuleSystem {
        &self.system
    }

    /// Each feature's pattern, in feature order.
    pub fn feature_patterns(&self) -> Vec<PatternRef> {
        self.chained
            .iter()
            .chain(&self.exact)
            .map(|&p| PatternRef::Rule(p))
            .chain((0..self.n_free_patterns()).map(PatternRef::Free))
            .collect()
    }

    /// How many free patterns the network learns.
    pub fn n_free_patterns(&self) -> usize {
        self.free.as_ref().map_or(0, |g| g.ends.len())
    }

    /// Each free pattern's number of states.
    pub fn free_pattern_states(&self) -> Vec<usize> {
        self.free
            .as_ref()
            .map_or_else(Vec::new, |g| g.ends.iter().map(|&end| end + 1).collect())
    }

    /// The rule system's patterns that are soft patterns (the others keep their DFA).
    pub fn chained_patterns(&self) -> &[usize] {
        &self.chained
    }

    /// How many features the head reads: the rules' chains, the rules kept as DFAs, then
    /// the free patterns.
    pub fn feature_count(&self) -> usize {
        self.chained.len() + self.exact.len() + self.n_free_patterns()
    }

    /// The label the network predicts from the rules' truths and every feature (those of
    /// a [`SopaReading`], or changed ones) and the sentence's n-gram logits
    /// ([`SopaReading::ngram_logits`]): the first of the largest logits.
    pub fn predict(&self, truths: &[f32], features: &[f32], ngram_logits: &[f32]) -> usize {
        let logits = self.logits(truths, features, ngram_logits);
        let mut best = 0;
        for (c, &logit) in logits.iter().enumerate() {
            if logit > logits[best] {
                best = c;
            }
        }
        best
    }

    /// The label a pattern's score pushes the head towards: the largest change of the
    /// head's logits when that feature goes from 0 to 1, the others at 0.
    pub fn favoured_label(&self, pattern: PatternRef) -> usize {
        let Some(head) = &self.head else {
            return 0;
        };
        let feature = match pattern {
            PatternRef::Rule(p) => self
                .chained
                .iter()
                .chain(&self.exact)
                .position(|&q| q == p)
                .unwrap_or(0),
            PatternRef::Free(i) => self.chained.len() + self.exact.len() + i,
        };
        let mut features = vec![0f32; self.feature_count()];
        let without = head.forward(&features);
        features[feature] = 1.0;
        let with = head.forward(&features);
        with.iter()
            .zip(&without)
            .map(|(a, b)| a - b)
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map_or(0, |(i, _)| i)
    }

    /// Tokenizes `text` and reads it.
    pub fn read_text(&self, text: &str) -> SopaReading {
        let mut tokens = Tokens::default();
        tokens.tokenize(text);
        self.read_tokens(&tokens)
    }

    /// Reads a tokenized text (its first `max_sentence_tokens` tokens).
    pub fn read_tokens(&self, tokens: &Tokens) -> SopaReading {
        let alphabet = self.system.alphabet();
        let (symbols, words): (Vec<SymbolId>, Vec<usize>) = tokens
            .iter()
            .take(self.max_tokens)
            .map(|token| {
                (
                    alphabet.symbol(token),
                    self.vocabulary.id(token.text) as usize,
                )
            })
            .unzip();
        self.read(&symbols, &words)
    }

    fn read(&self, symbols: &[SymbolId], words: &[usize]) -> SopaReading {
        let n_symbols = self.system.alphabet().len();
        // START, the tokens, END: (word vector, symbol id).
        let padded: Vec<(Option<&[f32]>, usize)> = std::iter::once((None, n_symbols))
            .chain(symbols.iter().zip(words).map(|(s, &w)| {
                let vector = (w != 0).then(|| &self.embedding[w * self.dim..(w + 1) * self.dim]);
                (vector, s.index())
            }))
            .chain(std::iter::once((None, n_symbols + 1)))
            .collect();
        let mut paths = Vec::new();
        let mut group_scores = |group: &Option<PlainGroup>| -> Vec<f32> {
            let Some(group) = group else {
                return Vec::new();
            };
            let weights: Vec<Vec<f32>> = padded
                .iter()
                .map(|&(vector, symbol)| group.weights(vector, symbol, self.semiring))
                .collect();
            let epsilon_width = group.n_states - 1;
            for (p, &end) in group.ends.iter().enumerate() {
                paths.push(best_path(
                    self.semiring,
                    group.n_states,
                    (p, end),
                    &weights,
                    &group.epsilon[p * epsilon_width..(p + 1) * epsilon_width],
                ));
            }
            group.scores(&weights, self.semiring)
        };
        let chain_scores = group_scores(&self.rules);
        let free_scores = group_scores(&self.free);
        let alphabet = self.system.alphabet();
        let exact: Vec<f32> = self
            .exact
            .iter()
            .map(|&p| {
                let matched = self.system.patterns()[p]
                    .dfa
                    .as_ref()
                    .is_some_and(|dfa| dfa.is_match(symbols, alphabet));
                f32::from(u8::from(matched))
            })
            .collect();
        let mut truths = vec![0f32; self.system.patterns().len()];
        for (&p, &score) in self.chained.iter().zip(&chain_scores) {
            truths[p] = truth(self.semiring, score);
        }
        for (&p, &matched) in self.exact.iter().zip(&exact) {
            truths[p] = matched;
        }
        let features: Vec<f32> = chain_scores
            .iter()
            .map(|&s| feature(self.semiring, s))
            .chain(exact)
            .chain(free_scores.iter().map(|&s| feature(self.semiring, s)))
            .collect();
        let ngram_logits = self.ngrams.as_ref().map_or_else(Vec::new, |ngrams| {
            let words: Vec<u32> = words.iter().map(|&w| w as u32).collect();
            ngrams.logits(&words, 0..0)
        });
        SopaReading {
            logits: self.logits(&truths, &features, &ngram_logits),
            ngram_logits,
            truths,
            features,
            paths,
            symbols: symbols.to_vec(),
        }
    }

    /// The label logits from the rules' truths and every feature: the soft logic plus the
    /// head, plus `ngram_logits`, the n-gram regression's (empty without one).
    pub fn logits(&self, truths: &[f32], features: &[f32], ngram_logits: &[f32]) -> Vec<f32> {
        let mut logits = self.aggregation.logits(truths);
        if let Some(head) = &self.head {
            for (l, h) in logits.iter_mut().zip(head.forward(features)) {
                *l += h;
            }
        }
        for (l, x) in logits.iter_mut().zip(ngram_logits) {
            *l += x;
        }
        logits
    }

    /// The n-gram regression's part of label `label`'s logit of `text`: its bias, and one
    /// part per n-gram of the text that train had, with the tokens where it first occurs
    /// ([`NgramRegression::parts`]); `None` without a regression.
    pub fn ngram_parts(&self, text: &str, label: usize) -> Option<(f32, Vec<NgramPart>)> {
        let ngrams = self.ngrams.as_ref()?;
        let mut tokens = Tokens::default();
        tokens.tokenize(text);
        let words: Vec<u32> = tokens
            .iter()
            .take(self.max_tokens)
            .map(|token| self.vocabulary.id(token.text))
            .collect();
        Some((ngrams.bias(label), ngrams.parts(&words, label)))
    }

    /// Why the network labels `text` as it does, probabilities taken at `logit_scale`:
    /// [`Sopa::explain`] in plain loops. Spans are token ranges of the text.
    pub fn explain_text(&self, text: &str, logit_scale: f64) -> Explanation {
        let reading = self.read_text(text);
        let probabilities = softmax(&reading.logits, logit_scale);
        let predicted = probabilities
            .iter()
            .enumerate()
            .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)))
            .map_or(0, |(i, _)| i);
        let spans = self.spans(&reading);
        let contributions = self
            .feature_patterns()
            .into_iter()
            .enumerate()
            .zip(spans)
            .map(|((i, pattern), span)| {
                let mut truths = reading.truths.clone();
                let mut features = reading.features.clone();
                features[i] = 0.0;
                if let PatternRef::Rule(p) = pattern {
                    truths[p] = 0.0;
                }
                let without = softmax(
                    &self.logits(&truths, &features, &reading.ngram_logits),
                    logit_scale,
                );
                Contribution {
                    pattern,
                    score: reading.features[i],
                    delta: probabilities[predicted] - without[predicted],
                    span,
                }
            })
            .collect();
        Explanation {
            probabilities,
            predicted,
            contributions,
        }
    }

    /// Each feature's best span: the soft patterns' best paths, the DFAs' match spans.
    fn spans(&self, reading: &SopaReading) -> Vec<Option<Range<usize>>> {
        let len = reading.symbols.len();
        let mut paths = reading.paths.iter();
        let mut span = || paths.next().and_then(|p| p.as_ref()?.span(len));
        let mut spans: Vec<Option<Range<usize>>> = self.chained.iter().map(|_| span()).collect();
        spans.extend(self.exact.iter().map(|&p| {
            self.system
                .match_span(PatternId(p as u32), &reading.symbols)
        }));
        spans.extend((0..self.n_free_patterns()).map(|_| span()));
        spans
    }
}

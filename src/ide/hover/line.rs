//! The hover over a corpus line: the rules' verdict and why the gold label's patterns
//! missed, then the trained network's view of the line (an FA-RNN's patterns and n-grams by
//! occlusion, a SoPa's pattern contributions, an MVMA-G's exact n-gram parts).

use super::{HoverConfig, MAX_EXPLAINED_PATTERNS, MAX_FOUND, match_span, token_range};
use crate::automata::{ElementKind, Failure, PatternElements, Scratch};
use crate::corpus::Example;
use crate::explain::NEGLIGIBLE;
use crate::ide::analysis::PatternKey;
use crate::ide::findings::describe;
use crate::ide::trained_fa_rnn::TrainedFaRnn;
use crate::ide::trained_mvma::TrainedMvma;
use crate::ide::trained_patterns::TrainedPatterns;
use crate::model::softmax;
use crate::model::sopa::{Contribution, PatternRef};
use crate::rules_file::RulesFile;
use crate::syntax::{PatternId, RuleSet};
use crate::text::tokenize;
use std::collections::HashMap;
use text_size::{TextRange, TextSize};

/// The network a corpus line's hover reads, or why there is none.
#[derive(Clone, Copy)]
pub enum LineNetwork<'a> {
    /// The last finished network; `stale` when it was trained from other rules than the
    /// ones being edited.
    Trained {
        model: &'a TrainedFaRnn,
        stale: bool,
    },
    /// Training is on, and no network has finished for these rules yet.
    NotYetTrained,
    /// No network has finished for these rules yet, and one is training: `progress` is
    /// what its progress report says (`Full training of FA-RNN (rule network): sms.rules:
    /// epoch 10/60, …`).
    Training { progress: &'a str },
    /// Training is off (the server's `training.enabled`).
    TrainingOff,
    /// The rules train as a SoPa only (`training.model`).
    SopaOnly,
    /// The save trains an MVMA-G (`training.model`), a black box with no rule network.
    MvmaOnly,
}

/// Why a corpus line's hover has no network view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AbsentNetwork {
    NotYetTrained,
    /// A network is training, and its progress report says `progress`.
    Training {
        progress: String,
    },
    TrainingOff,
    /// The rules train as a SoPa (`training.model`), whose view is [`LineHover::patterns`].
    SopaOnly,
    /// The save trains an MVMA-G (`training.model`), whose view is [`LineHover::mvma`].
    MvmaOnly,
}

/// A corpus line's hover.
#[derive(Debug, Clone, PartialEq)]
pub struct LineHover {
    pub gold: Option<String>,
    /// The rules' prediction; `None` when nothing fires and there is no default.
    pub rules_prediction: Option<String>,
    /// The patterns that matched, described.
    pub fired: Vec<String>,
    /// On a misclassified line: why the gold label's patterns did not match it, the
    /// closest first.
    pub missed: Vec<MissedPattern>,
    pub network: Result<NetworkView, AbsentNetwork>,
    /// The trained SoPa's view ([`patterns_view`]), when there is one.
    pub patterns: Option<PatternsView>,
    /// The trained MVMA-G's view ([`mvma_view`]), when there is one.
    pub mvma: Option<MvmaView>,
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

/// A trained SoPa's view of a corpus line: its prediction and the patterns whose
/// leave-one-out contribution (the change in the probability of the prediction when the
/// network runs without the pattern's score, measured by the network itself) is largest.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternsView {
    /// Whether the network was trained from other rules than the ones being edited.
    pub stale: bool,
    pub prediction: String,
    /// (label, probability), labels in the network's order.
    pub probabilities: Vec<(String, f64)>,
    /// At most [`HoverConfig::max_listed`]: those that change it by `explain::NEGLIGIBLE`
    /// or more, the largest change first, then the others by score (a prediction no single
    /// pattern decides).
    pub contributions: Vec<PatternContribution>,
}

/// One pattern's part in a SoPa's prediction of a line.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternContribution {
    /// A rule's pattern, described, or `learned pattern N`.
    pub pattern: String,
    /// A learned pattern's regex, as read back (`None` for a rule, or a learned pattern
    /// that read back as nothing).
    pub regex: Option<String>,
    /// The feature the head reads.
    pub score: f32,
    /// P(prediction) − P(prediction without the pattern).
    pub delta: f64,
    /// The tokens of the pattern's best path, in bytes of the line's text.
    pub span: Option<TextRange>,
}

/// Why a pattern of a line's gold label did not match the line.
#[derive(Debug, Clone, PartialEq)]
pub struct MissedPattern {
    /// The pattern, described.
    pub pattern: String,
    /// The elements it matched, in order and printed (`$* won $*`); empty when none, or
    /// only `$*`.
    pub matched: String,
    pub miss: Miss,
}

/// Where a pattern's match of a line fails.
#[derive(Debug, Clone, PartialEq)]
pub enum Miss {
    /// The next element expected one of `expected` (printed: `gift`, `"!"`, `%`) and the
    /// line had the tokens at `found` where it could start (several after an optional
    /// element: `how &* $? ( much | many )` on "how big is it" finds `big` and `is`; at most
    /// [`MAX_FOUND`], the last ones), in bytes of its text.
    Mismatch {
        expected: Vec<String>,
        found: Vec<TextRange>,
    },
    /// The line ended where the next element expected one of `expected`.
    Ended { expected: Vec<String> },
    /// Every element matched; the line goes on at `found`, where the pattern wants it to end.
    Continues { found: TextRange },
}

/// The trained network's view of a line.
#[derive(Debug, Clone, PartialEq)]
pub struct NetworkView {
    /// The architecture (`FA-RNN`, `FA-GRU`, …).
    pub kind: &'static str,
    /// Whether the network was trained from other rules than the ones being edited.
    pub stale: bool,
    pub prediction: String,
    /// Whether the prediction is a label no rule names, whose logit the network's
    /// word-vector path gives (`model::FaRnn`), with the n-gram regression's when it has one.
    pub prediction_from_words: bool,
    /// The part of the prediction's logit that the n-gram regression beside the network adds
    /// (the training setting `ngram_weight`), when it has one: the probabilities and the
    /// n-grams' effects include it.
    pub ngram_regression: Option<RegressionParts>,
    /// (label, probability), labels in priority order.
    pub probabilities: Vec<(String, f64)>,
    pub top_patterns: Vec<PatternScore>,
    /// The strongest n-grams toward or away from the prediction.
    pub ngrams: Vec<NgramContribution>,
    /// The longest n-gram deleted, in tokens (0 for a line without tokens).
    pub max_ngram_len: usize,
    /// Whether the line is too long for [`HoverConfig::max_ngram_len`] within
    /// `HoverConfig::occlusion_budget`, so that `max_ngram_len` is shorter.
    pub ngram_len_capped: bool,
    /// Whether the line is capped, and measuring it ahead of its hover
    /// (`TrainedFaRnn::measure_ahead`, which the language server does in the background for
    /// open corpora) would measure longer n-grams.
    pub measuring_ahead: bool,
}

/// The n-gram regression's part of a label's logit of a line, split exactly: its bias and
/// one part per n-gram of the line (its tf-idf value times its weight), all times the
/// logit scale, as the softmax reads them.
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

/// A pattern's score on a line.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternScore {
    pub pattern: String,
    pub score: f32,
    /// The span whose deletion lowers the score the most (`explain::best_span`), else where
    /// the pattern's automaton matches; in bytes of the line's text.
    pub span: Option<TextRange>,
}

/// An n-gram of a line and what deleting it does to the probability of the network's
/// prediction.
#[derive(Debug, Clone, PartialEq)]
pub struct NgramContribution {
    /// In bytes of the line's text.
    pub range: TextRange,
    /// P(prediction | line) − [`NgramContribution::without`]: positive when the n-gram
    /// pushes toward the prediction.
    pub contribution: f64,
    /// P(prediction | the line without the n-gram's tokens).
    pub without: f64,
}

/// Why each pattern voting for `gold` that did not match `text` (`matched` is per pattern)
/// missed it, the closest first: the fewest elements missing, then the most matched; the
/// first [`MAX_EXPLAINED_PATTERNS`] such patterns in file order are looked at. The corpus
/// line's hover and `rulelens classify --expect` show it.
pub fn missed_patterns(
    rules: &RulesFile,
    gold: crate::syntax::LabelId,
    text: &str,
    matched: &[bool],
) -> Vec<MissedPattern> {
    let system = &rules.system;
    let alphabet = system.alphabet();
    let tokens = tokenize(text);
    let mut symbols = Vec::new();
    alphabet.symbolize(&tokens, &mut symbols);
    let token_at = |i: usize| {
        token_range(&tokens, i..i + 1).unwrap_or_else(|| TextRange::empty(TextSize::of(text)))
    };
    let mut missed = Vec::new();
    let candidates = (system.patterns().iter().zip(&rules.rules.patterns))
        .enumerate()
        .filter(|(p, (compiled, _))| {
            compiled.labels.contains(&gold) && compiled.dfa.is_some() && !matched[*p]
        })
        .take(MAX_EXPLAINED_PATTERNS);
    for (p, (_, def)) in candidates {
        let Some(elements) = PatternElements::new(&def.regex, alphabet) else {
            continue;
        };
        let Some(run) = elements.run(&symbols, alphabet) else {
            continue;
        };
        let Some(why) = run.why_not() else {
            continue;
        };
        let expected = |element: usize| elements.elements[element].first.clone();
        let miss = match why.failure {
            Failure::Mismatch { element, .. } => {
                let starts: Vec<usize> = run.starts(element).collect();
                let last = &starts[starts.len().saturating_sub(MAX_FOUND)..];
                Miss::Mismatch {
                    expected: expected(element),
                    found: last.iter().map(|&i| token_at(i)).collect(),
                }
            }
            Failure::Ended { element } => Miss::Ended {
                expected: expected(element),
            },
            Failure::Continues { found } => Miss::Continues {
                found: token_at(found),
            },
        };
        // `$*` alone matched nothing worth saying.
        let matched = &elements.elements[..why.matched];
        let printed: Vec<&str> = if matched.iter().all(|e| e.kind == ElementKind::AnyTokens) {
            Vec::new()
        } else {
            matched.iter().map(|e| e.text.as_str()).collect()
        };
        let key = (why.missing, std::cmp::Reverse(why.matched), p);
        missed.push((
            key,
            MissedPattern {
                pattern: describe(&rules.rules, p),
                matched: printed.join(" "),
                miss,
            },
        ));
    }
    missed.sort_by_key(|(key, _)| *key);
    missed.into_iter().map(|(_, missed)| missed).collect()
}

/// Why a pattern missed `text`, in one line: what it matched, then where it failed (`rulelens classify
/// --expect`, `check --show-errors` and `report`).
pub fn why_missed(missed: &MissedPattern, text: &str) -> String {
    let slice = |range: TextRange| {
        text.get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
    };
    let matched = if missed.matched.is_empty() {
        String::new()
    } else {
        format!("`{}` matched, then ", missed.matched)
    };
    let one_of = |items: &[String]| -> String {
        let items: Vec<String> = items.iter().map(|item| format!("`{item}`")).collect();
        match items.as_slice() {
            [] => "nothing".to_string(),
            [one] => one.clone(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        }
    };
    match &missed.miss {
        Miss::Mismatch { expected, found } => {
            let found: Vec<String> = found.iter().map(|&r| format!("{:?}", slice(r))).collect();
            format!(
                "{matched}expected {}, found {}",
                one_of(expected),
                found.join(" or ")
            )
        }
        Miss::Ended { expected } => {
            format!("{matched}expected {}; the sentence ended", one_of(expected))
        }
        Miss::Continues { found } => format!(
            "{matched}the sentence goes on at {:?} (the pattern does not end with `$*`)",
            slice(*found)
        ),
    }
}

/// The hover of one corpus line, parsed as `example`, under the rules being edited and,
/// when there is one, a trained network (`stale` when it was trained from other rules).
/// Ranges in the result are in bytes of `example.text`.
pub fn hover_line(
    example: &Example,
    rules: &RulesFile,
    network: LineNetwork<'_>,
    config: &HoverConfig,
) -> LineHover {
    let system = &rules.system;
    let classification = system.classify(&example.text);
    let mut hover = LineHover {
        gold: example.label.clone(),
        rules_prediction: classification
            .prediction
            .map(|l| system.labels()[l.index()].clone()),
        fired: (0..classification.matched.len())
            .filter(|&p| classification.matched[p])
            .map(|p| describe(&rules.rules, p))
            .collect(),
        missed: Vec::new(),
        network: Err(AbsentNetwork::NotYetTrained),
        patterns: None,
        mvma: None,
    };
    if let Some(gold) = example
        .label
        .as_deref()
        .and_then(|l| system.label_by_name(l))
        && classification.prediction != Some(gold)
    {
        hover.missed = missed_patterns(rules, gold, &example.text, &classification.matched);
        hover.missed.truncate(config.max_listed);
    }
    let (model, stale) = match network {
        LineNetwork::Trained { model, stale } => (model, stale),
        LineNetwork::NotYetTrained => return hover,
        LineNetwork::Training { progress } => {
            hover.network = Err(AbsentNetwork::Training {
                progress: progress.to_string(),
            });
            return hover;
        }
        LineNetwork::TrainingOff => {
            hover.network = Err(AbsentNetwork::TrainingOff);
            return hover;
        }
        LineNetwork::SopaOnly => {
            hover.network = Err(AbsentNetwork::SopaOnly);
            return hover;
        }
        LineNetwork::MvmaOnly => {
            hover.network = Err(AbsentNetwork::MvmaOnly);
            return hover;
        }
    };
    let labels = model.rules.system.labels();
    let measured = model.measure_line(&example.text, config);
    let ngram_len_capped = measured.max_len < config.max_ngram_len.min(measured.n_tokens);
    let scores = &measured.scores;
    let probabilities = scores.probabilities(model.manifest.settings.logit_scale);
    let prediction = scores.prediction();
    let tokens = tokenize(&example.text);
    let current = still_there(stale, &rules.rules, &model.rules.rules);
    let mut by_score: Vec<(usize, f32)> = (0..model.rules.rules.patterns.len())
        .map(|p| (p, scores.pattern_score(p)))
        .filter(|&(p, score)| score > 0.0 && current(p).is_some())
        .collect();
    by_score.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    by_score.truncate(config.max_listed);
    let mut scratch = Scratch::default();
    let top_patterns = by_score
        .into_iter()
        .map(|(p, score)| PatternScore {
            pattern: describe(&rules.rules, current(p).unwrap_or(p)),
            score,
            span: measured
                .best_span(p)
                .and_then(|span| token_range(&tokens, span))
                .or_else(|| {
                    match_span(
                        &model.rules.system,
                        PatternId(p as u32),
                        &example.text,
                        &mut scratch,
                    )
                }),
        })
        .collect();
    let ngrams = measured
        .ngrams
        .iter()
        .map(|ngram| NgramContribution {
            range: ngram.range,
            contribution: ngram.contribution,
            without: ngram.without,
        })
        .collect();
    hover.network = Ok(NetworkView {
        kind: model.manifest.settings.model.display_name(),
        stale,
        prediction: labels.get(prediction).cloned().unwrap_or_default(),
        prediction_from_words: prediction + model.rules.system.corpus_labels().len()
            >= labels.len(),
        ngram_regression: regression_parts(model, &example.text, &tokens, prediction, config),
        probabilities: labels.iter().cloned().zip(probabilities).collect(),
        top_patterns,
        ngrams,
        max_ngram_len: measured.max_len,
        ngram_len_capped,
        measuring_ahead: ngram_len_capped && model.is_worth_measuring_ahead(&example.text, config),
    });
    hover
}

/// The n-gram regression's part of label `label`'s logit of `text` (whose tokens are
/// `tokens`), when `model` has a regression.
fn regression_parts(
    model: &TrainedFaRnn,
    text: &str,
    tokens: &crate::text::Tokens,
    label: usize,
    config: &HoverConfig,
) -> Option<RegressionParts> {
    let (bias, mut parts) = model.scorer.ngram_parts(text, label)?;
    let scale = model.manifest.settings.logit_scale as f32;
    let logit = scale * (bias + parts.iter().map(|(_, x)| x).sum::<f32>());
    parts.sort_by(|a, b| {
        b.1.abs()
            .total_cmp(&a.1.abs())
            .then(a.0.start.cmp(&b.0.start))
    });
    let listed = parts.len().min(config.max_listed);
    let rest = &parts[listed..];
    Some(RegressionParts {
        label: model.rules.system.labels().get(label)?.clone(),
        logit,
        bias: scale * bias,
        strongest: parts[..listed]
            .iter()
            .filter_map(|(tokens_at, x)| Some((token_range(tokens, tokens_at.clone())?, scale * x)))
            .collect(),
        rest: (rest.len(), scale * rest.iter().map(|(_, x)| x).sum::<f32>()),
    })
}

/// For a network trained from `trained` (of an earlier save when `stale`), each of its
/// patterns' index in `rules`, the rules being edited: the same index when not stale, else
/// the pattern with the same key (kind, name or label, and regex), or `None` for a pattern
/// changed or deleted since. A network of an earlier save lists only the patterns the rules
/// still have, described as they are now; a pattern changed since shows the rules' figures
/// alone.
fn still_there(stale: bool, rules: &RuleSet, trained: &RuleSet) -> impl Fn(usize) -> Option<usize> {
    let now: Option<(HashMap<PatternKey, PatternId>, Vec<PatternKey>)> =
        stale.then(|| (PatternKey::index(rules), PatternKey::all(trained)));
    move |p: usize| match &now {
        None => Some(p),
        Some((index, keys)) => keys
            .get(p)
            .and_then(|key| index.get(key))
            .map(|id| id.index()),
    }
}

/// A trained SoPa's view of the line `text` under `rules`, the rules being edited (`stale`
/// when it was trained from other rules: then the rules' patterns changed since are left
/// out).
pub fn patterns_view(
    text: &str,
    rules: &RulesFile,
    patterns: &TrainedPatterns,
    stale: bool,
    config: &HoverConfig,
) -> PatternsView {
    let current = still_there(stale, &rules.rules, &patterns.rules.rules);
    let scale = patterns.manifest.settings.logit_scale;
    let explanation = patterns.scorer.explain_text(text, scale);
    let labels = patterns.scorer.system().labels();
    let tokens = tokenize(text);
    // The decisive patterns by the size of their contribution, then (when fewer decide the
    // line: a saturated prediction) the others by their score.
    let mut contributions = explanation.contributions;
    contributions.retain(|c| match c.pattern {
        PatternRef::Rule(p) => current(p).is_some(),
        PatternRef::Free(_) => true,
    });
    contributions.sort_by(|a, b| {
        let decisive = |c: &Contribution| c.delta.abs() >= NEGLIGIBLE;
        let by_delta = || b.delta.abs().total_cmp(&a.delta.abs());
        decisive(b).cmp(&decisive(a)).then_with(|| {
            if decisive(a) {
                by_delta()
            } else {
                b.score.total_cmp(&a.score)
            }
        })
    });
    contributions.truncate(config.max_listed);
    let contributions = contributions
        .into_iter()
        .map(|c| {
            let (pattern, regex) = match c.pattern {
                PatternRef::Rule(p) => (describe(&rules.rules, current(p).unwrap_or(p)), None),
                PatternRef::Free(i) => (
                    format!("learned pattern {i}"),
                    patterns.pattern(i).map(|p| p.regex.clone()),
                ),
            };
            PatternContribution {
                pattern,
                regex,
                score: c.score,
                delta: c.delta,
                span: c.span.and_then(|span| token_range(&tokens, span)),
            }
        })
        .collect();
    PatternsView {
        stale,
        prediction: labels
            .get(explanation.predicted)
            .cloned()
            .unwrap_or_default(),
        probabilities: labels
            .iter()
            .cloned()
            .zip(explanation.probabilities)
            .collect(),
        contributions,
    }
}

/// A trained MVMA-G's view of the line `text`, whose gold label is `gold` (`stale` when the
/// network was trained from other rules than the ones being edited). Cost: one pass of the
/// network over the line each way (`model::MvmaScorer`).
pub fn mvma_view(
    text: &str,
    gold: Option<&str>,
    mvma: &TrainedMvma,
    stale: bool,
    config: &HoverConfig,
) -> MvmaView {
    let reading = mvma.scorer.read_text(text);
    let labels = mvma.labels();
    let probabilities = softmax(
        &reading.logits,
        mvma.manifest.settings.effective_logit_scale(),
    );
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

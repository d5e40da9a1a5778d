//! Hover data: what the editor shows over a pattern, a label or a corpus line, as plain
//! values ([`super::markdown`] renders them).
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

use super::analysis::{PatternKey, RulesAnalysis};
use super::findings::describe;
use super::trained::TrainedModel;
use super::trained_mvma::TrainedMvma;
use super::trained_patterns::TrainedPatterns;
use crate::automata::{
    ElementKind, Failure, LabelMetrics, PatternElements, PatternMetrics, RuleSystem, Scratch,
};
use crate::corpus::Example;
use crate::explain::LearnedPattern;
use crate::explain::{NEGLIGIBLE, OCCLUSION_BUDGET, best_span, ngrams, strongest_ngrams};
use crate::model::softmax;
use crate::model::sopa::{Contribution, PatternRef};
use crate::rules_file::{RulesFile, same_language};
use crate::syntax::ast::{Formula, FormulaKind, StatementKind};
use crate::syntax::{PatternId, RuleSet, print_regex};
use crate::text::tokenize;
use std::collections::HashMap;
use text_size::{TextRange, TextSize};

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
}

impl Default for HoverConfig {
    fn default() -> HoverConfig {
        HoverConfig {
            max_examples: DEFAULT_MAX_EXAMPLES,
            max_ngram_len: DEFAULT_MAX_NGRAM_LEN,
            max_listed: DEFAULT_MAX_LISTED,
        }
    }
}

/// The corpus figures a rules-file hover can show.
#[derive(Debug, Clone, Copy, Default)]
pub struct Figures<'a> {
    /// The last saved analysis, possibly of an older text.
    pub analysis: Option<&'a RulesAnalysis>,
    /// Whether a newer save's analysis is being computed.
    pub pending: bool,
    /// The last trained SoPa, whose learned patterns a rule may have been added from.
    pub patterns: Option<&'a TrainedPatterns>,
}

/// What a rules-file hover is about.
#[derive(Debug, Clone, PartialEq)]
pub enum RulesHover {
    Pattern(PatternHover),
    Label(LabelHover),
}

/// A pattern's hover.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternHover {
    /// `name`, or `the spam rule of line 14` for an anonymous one.
    pub title: String,
    pub regex: String,
    /// The labels it votes for.
    pub labels: Vec<String>,
    /// States of its minimal DFA; `None` when it passed the state cap.
    pub n_dfa_states: Option<usize>,
    /// Figures per corpus; empty when the saved analysis does not know the pattern.
    pub corpora: Vec<PatternFigures>,
    pub examples: Vec<MatchExample>,
    /// Whether the last saved analysis has this pattern as it is now.
    pub evaluated: bool,
    /// Whether a newer save's figures are being computed.
    pub pending: bool,
    /// Whether the pattern's statement has a syntax error, so that the regex shown is what
    /// the parser recovered from it.
    pub recovered: bool,
    /// The SoPa's learned pattern this rule is (same label, same language), with its top
    /// phrases.
    pub learned: Option<LearnedPattern>,
}

/// A pattern's figures on one corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternFigures {
    pub corpus: String,
    pub n_lines: usize,
    pub metrics: PatternMetrics,
}

impl PatternFigures {
    pub fn coverage(&self) -> Option<f64> {
        (self.n_lines > 0).then(|| self.metrics.matches as f64 / self.n_lines as f64)
    }
}

/// A corpus line a pattern matches.
#[derive(Debug, Clone, PartialEq)]
pub struct MatchExample {
    pub corpus: String,
    /// Zero-based line in the corpus file.
    pub line: u32,
    pub text: String,
    /// The matched tokens, in bytes of `text`.
    pub span: TextRange,
    pub gold: String,
    /// Whether the gold label is one the pattern votes for.
    pub correct: bool,
}

/// A label's hover.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelHover {
    pub name: String,
    pub is_default: bool,
    /// Its rules in the file.
    pub n_rules: usize,
    pub corpora: Vec<LabelFigures>,
    /// Whether a newer save's figures are being computed.
    pub pending: bool,
}

/// A label's figures on one corpus.
#[derive(Debug, Clone, PartialEq)]
pub struct LabelFigures {
    pub corpus: String,
    pub metrics: LabelMetrics,
    /// Gold this label, predicted another: (label, lines), most first.
    pub mistaken_for: Vec<(String, usize)>,
    /// Predicted this label, gold another.
    pub taken_for: Vec<(String, usize)>,
}

/// The network a corpus line's hover reads, or why there is none.
#[derive(Clone, Copy)]
pub enum LineNetwork<'a> {
    /// The last finished network; `stale` when it was trained from other rules than the
    /// ones being edited.
    Trained {
        model: &'a TrainedModel,
        stale: bool,
    },
    /// Training is on, and no network has finished for these rules yet.
    NotYetTrained,
    /// Training is off (the server's `training.enabled`).
    TrainingOff,
    /// The rules train as a SoPa only (`training.model`).
    SopaOnly,
    /// The save trains an MVMA-G (`training.model`), a black box with no rule network.
    MvmaOnly,
}

/// Why a corpus line's hover has no network view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbsentNetwork {
    NotYetTrained,
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
    /// word-vector path alone gives (`model::FaRnn`).
    pub prediction_from_words: bool,
    /// (label, probability), labels in priority order.
    pub probabilities: Vec<(String, f64)>,
    pub top_patterns: Vec<PatternScore>,
    /// The strongest n-grams toward or away from the prediction.
    pub ngrams: Vec<NgramContribution>,
    /// The longest n-gram deleted, in tokens (0 for a line without tokens).
    pub max_ngram_len: usize,
    /// Whether the line is too long for [`HoverConfig::max_ngram_len`] within
    /// `explain::OCCLUSION_BUDGET`, so that `max_ngram_len` is shorter.
    pub ngram_len_capped: bool,
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

/// Where `offset` falls in a rules file.
enum Target {
    Pattern(PatternId),
    Label(String),
}

/// The pattern name of a formula at `offset`, with its range.
fn formula_name_at(formula: &Formula, offset: TextSize) -> Option<(&str, TextRange)> {
    if !formula.range.contains_inclusive(offset) {
        return None;
    }
    match &formula.kind {
        FormulaKind::Name(name) => Some((name, formula.range)),
        FormulaKind::Not(inner) => formula_name_at(inner, offset),
        FormulaKind::And(items) | FormulaKind::Or(items) => {
            items.iter().find_map(|item| formula_name_at(item, offset))
        }
        FormulaKind::Error => None,
    }
}

/// What is at `offset`, with the range to highlight.
fn target_at(file: &RulesFile, offset: TextSize) -> Option<(TextRange, Target)> {
    let rules = &file.rules;
    let pattern_of_statement = |range: TextRange| {
        rules
            .patterns
            .iter()
            .position(|def| def.range == range)
            .map(|p| PatternId(p as u32))
    };
    let named = |name: &str| {
        rules
            .patterns
            .iter()
            .position(|def| !def.anonymous && def.name == name)
            .map(|p| PatternId(p as u32))
    };
    let statement = file
        .parse
        .file
        .statements
        .iter()
        .find(|s| s.range.contains_inclusive(offset))?;
    let label = |name: &crate::syntax::ast::Name| {
        name.range
            .contains_inclusive(offset)
            .then(|| (name.range, Target::Label(name.text.clone())))
    };
    match &statement.kind {
        StatementKind::Default { label: Some(name) } => label(name),
        StatementKind::Pattern { name, regex } => {
            let pattern = pattern_of_statement(statement.range)?;
            match (name, regex) {
                (Some(name), _) if name.range.contains_inclusive(offset) => {
                    Some((name.range, Target::Pattern(pattern)))
                }
                (_, Some(regex)) if regex.range.contains_inclusive(offset) => {
                    Some((regex.range, Target::Pattern(pattern)))
                }
                _ => None,
            }
        }
        StatementKind::LabelRegex { label: name, regex } => label(name).or_else(|| {
            let regex = regex.as_ref()?;
            regex.range.contains_inclusive(offset).then_some(())?;
            Some((
                regex.range,
                Target::Pattern(pattern_of_statement(statement.range)?),
            ))
        }),
        StatementKind::LabelFormula {
            label: name,
            formula,
        } => label(name).or_else(|| {
            let (name, range) = formula_name_at(formula.as_ref()?, offset)?;
            Some((range, Target::Pattern(named(name)?)))
        }),
        _ => None,
    }
}

/// The hover at `offset` of a rules file, with the range it is about.
pub fn hover_rules(
    file: &RulesFile,
    offset: TextSize,
    figures: Figures<'_>,
    config: &HoverConfig,
) -> Option<(TextRange, RulesHover)> {
    let (range, target) = target_at(file, offset)?;
    let hover = match target {
        Target::Pattern(pattern) => RulesHover::Pattern(PatternHover {
            pending: figures.pending,
            learned: figures
                .patterns
                .and_then(|patterns| learned_pattern(file, pattern, patterns)),
            ..pattern_hover(file, pattern, figures.analysis, config)
        }),
        Target::Label(name) => RulesHover::Label(LabelHover {
            pending: figures.pending,
            ..label_hover(file, &name, figures.analysis)
        }),
    };
    Some((range, hover))
}

/// The learned pattern of `patterns` that `pattern` is: a rule of its label whose regex
/// matches what the learned pattern's read-back regex matches.
fn learned_pattern(
    file: &RulesFile,
    pattern: PatternId,
    patterns: &TrainedPatterns,
) -> Option<LearnedPattern> {
    let def = file.rules.patterns.get(pattern.index())?;
    let regex = print_regex(&def.regex);
    let labels: Vec<&str> = def
        .labels
        .iter()
        .filter_map(|l| file.rules.labels.get(l.index()).map(|d| d.name.as_str()))
        .collect();
    patterns
        .learned()
        .iter()
        .find(|learned| {
            labels.contains(&patterns.label(learned)) && same_language(&regex, &learned.regex)
        })
        .cloned()
}

fn pattern_hover(
    file: &RulesFile,
    pattern: PatternId,
    analysis: Option<&RulesAnalysis>,
    config: &HoverConfig,
) -> PatternHover {
    let rules = &file.rules;
    let def = &rules.patterns[pattern.index()];
    let mut hover = PatternHover {
        title: describe(rules, pattern.index()),
        regex: print_regex(&def.regex),
        labels: def
            .labels
            .iter()
            .filter_map(|l| rules.labels.get(l.index()).map(|d| d.name.clone()))
            .collect(),
        n_dfa_states: file
            .system
            .patterns()
            .get(pattern.index())
            .and_then(|c| c.dfa.as_ref())
            .map(|dfa| dfa.live_states().count()),
        corpora: Vec::new(),
        examples: Vec::new(),
        evaluated: false,
        pending: false,
        recovered: file
            .parse
            .diagnostics
            .iter()
            .any(|d| d.is_error() && def.range.intersect(d.range).is_some()),
        learned: None,
    };
    let Some(analysis) = analysis else {
        return hover;
    };
    // The saved analysis is usually of this very text: then its pattern has the same id,
    // and no key is needed (naming every pattern costs a hover time in proportion to the
    // file).
    let saved = if analysis.rules.source.text == file.source.text {
        Some(pattern)
    } else {
        PatternKey::of(rules, pattern).find(&analysis.rules.rules)
    };
    let Some(saved) = saved else {
        return hover;
    };
    hover.evaluated = true;
    let system = &analysis.rules.system;
    let polarity = &analysis.rules.rules.patterns[saved.index()].labels;
    let mut scratch = Scratch::default();
    let (mut n_correct, mut n_wrong) = (0, 0);
    for run in &analysis.corpora {
        hover.corpora.push(PatternFigures {
            corpus: run.name.clone(),
            n_lines: run.file.examples.len(),
            metrics: run.evaluation.patterns[saved.index()].clone(),
        });
        for (outcome, example) in run.outcomes.iter().zip(&run.file.examples) {
            if n_correct >= config.max_examples && n_wrong >= config.max_examples {
                break;
            }
            let Some(gold) = example.label.as_deref() else {
                continue;
            };
            if !outcome.matched.contains(&saved) {
                continue;
            }
            let correct = polarity.iter().any(|l| system.labels()[l.index()] == gold);
            let count = if correct {
                &mut n_correct
            } else {
                &mut n_wrong
            };
            if *count >= config.max_examples {
                continue;
            }
            *count += 1;
            hover.examples.push(MatchExample {
                corpus: run.name.clone(),
                line: example.line,
                span: match_span(system, saved, &example.text, &mut scratch)
                    .unwrap_or_else(|| TextRange::up_to(TextSize::of(example.text.as_str()))),
                text: example.text.clone(),
                gold: gold.to_string(),
                correct,
            });
        }
    }
    hover
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

/// Why each pattern voting for `gold` that did not match `text` (`matched` is per pattern)
/// missed it, the closest first: the fewest elements missing, then the most matched.
fn missed_patterns(
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

fn label_hover(file: &RulesFile, name: &str, analysis: Option<&RulesAnalysis>) -> LabelHover {
    let rules = &file.rules;
    let mut hover = LabelHover {
        name: name.to_string(),
        is_default: rules
            .default
            .and_then(|l| rules.labels.get(l.index()))
            .is_some_and(|d| d.name == name),
        n_rules: rules
            .labels
            .iter()
            .find(|d| d.name == name)
            .map_or(0, |d| d.rules.len()),
        corpora: Vec::new(),
        pending: false,
    };
    for run in analysis.map_or(&[][..], |a| a.corpora.as_slice()) {
        let evaluation = &run.evaluation;
        let Some(index) = evaluation.label_names.iter().position(|l| l == name) else {
            continue;
        };
        let mut mistaken_for = Vec::new();
        let mut taken_for = Vec::new();
        for (other, other_name) in evaluation.label_names.iter().enumerate() {
            if other == index {
                continue;
            }
            let as_other = evaluation.confusion(index, Some(other));
            if as_other > 0 {
                mistaken_for.push((other_name.clone(), as_other));
            }
            let from_other = evaluation.confusion(other, Some(index));
            if from_other > 0 {
                taken_for.push((other_name.clone(), from_other));
            }
        }
        let unpredicted = evaluation.confusion(index, None);
        if unpredicted > 0 {
            mistaken_for.push(("no label".to_string(), unpredicted));
        }
        mistaken_for.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        taken_for.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        hover.corpora.push(LabelFigures {
            corpus: run.name.clone(),
            metrics: evaluation.labels[index].clone(),
            mistaken_for,
            taken_for,
        });
    }
    hover
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
    let scale = model.manifest.settings.logit_scale;
    let occlusions =
        model
            .scorer
            .occlusions_within(&example.text, config.max_ngram_len, OCCLUSION_BUDGET);
    let scores = &occlusions.scores;
    let probabilities = scores.probabilities(scale);
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
            span: best_span(&occlusions, p)
                .and_then(|(span, _)| token_range(&tokens, span))
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
    let ngrams = strongest_ngrams(
        ngrams(&example.text, &occlusions, prediction, scale),
        config.max_listed,
    )
    .into_iter()
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
        probabilities: labels.iter().cloned().zip(probabilities).collect(),
        top_patterns,
        ngrams,
        max_ngram_len: occlusions.max_len.min(occlusions.n_tokens),
        ngram_len_capped: occlusions.max_len < config.max_ngram_len.min(occlusions.n_tokens),
    });
    hover
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

#[cfg(test)]
mod tests;

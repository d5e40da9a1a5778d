//! A SoPa's learned patterns read back as rules: each free pattern's best paths over the
//! train corpus become one readable `.rules` regex, and the regex is measured against the
//! network it stands for.
//!
//! - **Regex.** Of the train sentences whose pattern score reaches a threshold, each best
//!   path's main-path transition i reads a token, its self-loops read tokens, and its
//!   ε-steps skip transition i. Per transition, the most frequent tokens covering
//!   [`COVERAGE`] of the paths become a word set (numbers as `%`), or, when that takes
//!   more than [`MAX_WORD_SET`] words, `$` (a wide candidate) or the [`MAX_WORD_SET`] most
//!   frequent (a narrow one); a transition some paths skip is
//!   optional, a state some paths loop on gets a repetition, and a pattern whose paths
//!   start on START (end on END) is anchored there instead of opening with `$*`.
//! - **Threshold.** Candidates are the scores of the train sentences at fixed shares of the
//!   corpus ([`FIRING_SHARES`]); each candidate's regex replaces the pattern in the network
//!   (its feature becomes the mean feature of the train sentences the regex matches, or of
//!   those it does not). Of the candidates whose regex agrees with the score on at least
//!   [`MIN_FIDELITY`] of train, the one whose replacement keeps the network's train
//!   accuracy best is kept, else the most faithful one (train only: dev is for reporting).
//! - **Measures.** Fidelity: the share of sentences where the regex matches exactly where
//!   the score reaches the threshold, on train and dev. Proxy accuracy: the network with
//!   every learned pattern replaced by its regex (SoPa++'s "regex proxy"). The regex's
//!   matches and precision on train as a rule for the label the head weighs it towards.
//! - **Top phrases** (the paper's Table 2): the distinct best paths of the highest-scoring
//!   train sentences, self-loop tokens in brackets and ε-steps as `ε`.
//!
//! All the candidates' regexes are compiled into one rules file, so each sentence is
//! tokenized and matched once.

use crate::automata::CompileConfig;
use crate::corpus::Example;
use crate::model::sopa::{BestPath, PatternRef, SopaScorer, Step};
use crate::rules_file::RulesFile;
use crate::syntax::ast::{Regex, RegexKind};
use crate::syntax::print_regex;
use crate::text::{SourceText, TokenKind, Tokens, tokenize};
use std::collections::HashMap;

/// The share of a transition's paths its word set must cover.
pub const COVERAGE: f64 = 0.9;
/// The most words a word set may have; beyond it the transition reads back as `$`.
pub const MAX_WORD_SET: usize = 10;
/// The shares of the train corpus whose score a threshold candidate is (the top 1 %, …).
pub const FIRING_SHARES: [f64; 6] = [0.01, 0.02, 0.05, 0.1, 0.2, 0.3];
/// The fidelity on train a threshold's regex needs to be preferred for its accuracy.
pub const MIN_FIDELITY: f64 = 0.95;
/// How many top phrases a pattern lists.
pub const TOP_PHRASES: usize = 5;

/// One learned pattern read back.
#[derive(Debug, Clone, PartialEq)]
pub struct LearnedPattern {
    /// Its index among the free patterns (`free.I`).
    pub index: usize,
    /// The label its head weights favour, an index into the rule system's labels.
    pub label: usize,
    /// In `.rules` syntax.
    pub regex: String,
    /// The score (log space in the max semirings) from which the pattern fires.
    pub threshold: f32,
    pub fidelity_train: f64,
    pub fidelity_dev: Option<f64>,
    /// Train sentences the regex matches, and the share of them with `label`.
    pub train_matches: usize,
    pub train_precision: Option<f64>,
    /// The best paths of its highest-scoring train sentences.
    pub top_phrases: Vec<String>,
}

/// Every learned pattern read back, with the network's accuracy and its regex proxy's.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadBack {
    pub patterns: Vec<LearnedPattern>,
    pub network_train: f64,
    pub network_dev: Option<f64>,
    pub proxy_train: f64,
    pub proxy_dev: Option<f64>,
}

/// A corpus as the network saw it: per sentence its tokens, gold label, the rules' pattern
/// truths, every pattern's feature, the n-gram regression's logits and the free patterns'
/// best paths.
struct Seen {
    tokens: Vec<Vec<String>>,
    gold: Vec<Option<usize>>,
    truths: Vec<Vec<f32>>,
    features: Vec<Vec<f32>>,
    ngram_logits: Vec<Vec<f32>>,
    paths: Vec<Vec<Option<BestPath>>>,
}

/// Reads `examples` with the network, one sentence at a time in plain loops.
fn see(scorer: &SopaScorer, examples: &[Example]) -> Seen {
    let n_chained = scorer.chained_patterns().len();
    let system = scorer.system();
    let mut seen = Seen {
        tokens: Vec::with_capacity(examples.len()),
        gold: Vec::with_capacity(examples.len()),
        truths: Vec::with_capacity(examples.len()),
        features: Vec::with_capacity(examples.len()),
        ngram_logits: Vec::with_capacity(examples.len()),
        paths: Vec::with_capacity(examples.len()),
    };
    let mut tokens = Tokens::default();
    for example in examples {
        tokens.tokenize(&example.text);
        let reading = scorer.read_tokens(&tokens);
        seen.tokens.push(
            tokens
                .iter()
                .take(reading.symbols.len())
                .map(|t| t.text.to_string())
                .collect(),
        );
        seen.gold.push(
            example
                .label
                .as_deref()
                .and_then(|l| system.label_by_name(l))
                .map(|l| l.index()),
        );
        seen.truths.push(reading.truths);
        seen.features.push(reading.features);
        seen.ngram_logits.push(reading.ngram_logits);
        seen.paths
            .push(reading.paths.into_iter().skip(n_chained).collect());
    }
    seen
}

/// The network's predictions for the sentences `seen` with `features` rows (theirs, or
/// changed ones).
fn predict(scorer: &SopaScorer, seen: &Seen, features: &[Vec<f32>]) -> Vec<usize> {
    seen.truths
        .iter()
        .zip(features)
        .zip(&seen.ngram_logits)
        .map(|((t, f), n)| scorer.predict(t, f, n))
        .collect()
}

fn accuracy(predictions: &[usize], gold: &[Option<usize>]) -> f64 {
    let correct = predictions
        .iter()
        .zip(gold)
        .filter(|(p, g)| Some(**p) == **g)
        .count();
    correct as f64 / gold.len().max(1) as f64
}

/// A token of a padded sentence by position: 0 is START, then the tokens, then END.
enum Read<'a> {
    Start,
    Token(&'a str),
    End,
}

fn read<'a>(tokens: &'a [String], position: usize) -> Read<'a> {
    match position {
        0 => Read::Start,
        p if p <= tokens.len() => Read::Token(&tokens[p - 1]),
        _ => Read::End,
    }
}

/// A one-token regex for `counts` (token → paths): the most frequent tokens covering
/// [`COVERAGE`], numbers as `%`; past [`MAX_WORD_SET`] of them, `$`, or when `narrow`, the
/// [`MAX_WORD_SET`] most frequent.
fn word_set(counts: &HashMap<&str, usize>, narrow: bool) -> Regex {
    let leaf = |kind: RegexKind| Regex {
        kind,
        range: Default::default(),
    };
    let total: usize = counts.values().sum();
    let mut sorted: Vec<(&str, usize)> = counts.iter().map(|(&w, &n)| (w, n)).collect();
    sorted.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let mut items: Vec<Regex> = Vec::new();
    let (mut numbers, mut covered) = (false, 0);
    for (word, n) in sorted {
        if covered as f64 >= COVERAGE * total as f64 {
            break;
        }
        covered += n;
        match tokenize(word).get(0).map(|t| t.kind) {
            Some(TokenKind::Number) => numbers = true,
            _ => items.push(leaf(RegexKind::Quoted(word.to_string()))),
        }
    }
    if numbers {
        items.push(leaf(RegexKind::Number));
    }
    if items.len() > MAX_WORD_SET && narrow {
        items.truncate(MAX_WORD_SET);
    }
    match items.len() {
        0 => leaf(RegexKind::Any),
        n if n > MAX_WORD_SET => leaf(RegexKind::Any),
        1 => items.pop().expect("one item"),
        _ => leaf(RegexKind::Alt(items)),
    }
}

/// The regex of a pattern of `n_states` states from the best paths of `chosen` sentences,
/// its large word sets `$` or, when `narrow`, cut to their most frequent words.
fn regex_of(paths: &[(&BestPath, &[String])], n_states: usize, narrow: bool) -> String {
    let transitions = n_states - 1;
    let mut main: Vec<HashMap<&str, usize>> = vec![HashMap::new(); transitions];
    let mut loops: Vec<HashMap<&str, usize>> = vec![HashMap::new(); transitions];
    let mut skipped = vec![0usize; transitions];
    let (mut starts, mut ends) = (0usize, 0usize);
    for (path, tokens) in paths {
        for step in &path.steps {
            let token = step.position.map(|p| read(tokens, p));
            match (step.step, token) {
                (Step::Skip, _) => skipped[step.state] += 1,
                (Step::Main, Some(Read::Token(word))) => {
                    *main[step.state].entry(word).or_default() += 1
                }
                (Step::Loop, Some(Read::Token(word))) if step.state < transitions => {
                    *loops[step.state].entry(word).or_default() += 1
                }
                (Step::Main, Some(Read::Start)) => starts += 1,
                (Step::Main, Some(Read::End)) => ends += 1,
                _ => {}
            }
        }
    }
    let n = paths.len().max(1);
    let leaf = |kind: RegexKind| Regex {
        kind,
        range: Default::default(),
    };
    let gap = || {
        leaf(RegexKind::Repeat {
            inner: Box::new(leaf(RegexKind::Any)),
            min: 0,
            max: None,
        })
    };
    let (anchored_start, anchored_end) = (starts * 2 >= n, ends * 2 >= n);
    let mut items = Vec::new();
    if !anchored_start {
        items.push(gap());
    }
    for i in 0..transitions {
        // State 0 restarts, so only later states' loops matter.
        if i > 0 && !loops[i].is_empty() {
            items.push(leaf(RegexKind::Repeat {
                inner: Box::new(word_set(&loops[i], narrow)),
                min: 0,
                max: None,
            }));
        }
        let padding = (i == 0 && anchored_start) || (i + 1 == transitions && anchored_end);
        if padding || main[i].is_empty() {
            continue;
        }
        let element = word_set(&main[i], narrow);
        // Skipped by some paths, or read as padding (at an end left open) by some.
        let optional =
            skipped[i] * 10 >= n || (i == 0 && starts > 0) || (i + 1 == transitions && ends > 0);
        items.push(if optional {
            leaf(RegexKind::Repeat {
                inner: Box::new(element),
                min: 0,
                max: Some(1),
            })
        } else {
            element
        });
    }
    if !anchored_end || items.is_empty() {
        items.push(gap());
    }
    print_regex(&leaf(RegexKind::Concat(items)))
}

/// The tokens of a path, self-loop tokens in brackets and ε-steps as `ε`.
fn phrase(path: &BestPath, tokens: &[String]) -> String {
    let mut words = Vec::new();
    for step in &path.steps {
        let text = match step.position.map(|p| read(tokens, p)) {
            Some(Read::Start) => "<s>".to_string(),
            Some(Read::End) => "</s>".to_string(),
            Some(Read::Token(word)) => word.to_string(),
            None => "ε".to_string(),
        };
        words.push(match step.step {
            Step::Loop => format!("[{text}]"),
            _ => text,
        });
    }
    words.join(" ")
}

/// Free pattern `i`'s best score on each sentence of `seen` (−∞ where it has no path).
fn pattern_scores(seen: &Seen, i: usize) -> Vec<f32> {
    seen.paths
        .iter()
        .map(|paths| paths[i].as_ref().map_or(f32::NEG_INFINITY, |p| p.score))
        .collect()
}

/// Every candidate regex of every free pattern (of `lengths[i]` states), as (pattern,
/// threshold, regex): at each threshold the top shares of train reach
/// ([`FIRING_SHARES`]), the regex of the paths reaching it, wide and narrow.
fn candidate_regexes(train_seen: &Seen, lengths: &[usize]) -> Vec<(usize, f32, String)> {
    let mut candidates: Vec<(usize, f32, String)> = Vec::new();
    for (i, &n_states) in lengths.iter().enumerate() {
        let train_scores = pattern_scores(train_seen, i);
        let mut sorted = train_scores.clone();
        sorted.sort_by(|a, b| b.total_cmp(a));
        let mut thresholds: Vec<f32> = FIRING_SHARES
            .iter()
            .filter_map(|share| {
                let k = ((share * sorted.len() as f64).ceil() as usize).max(1);
                sorted.get(k - 1).copied().filter(|s| s.is_finite())
            })
            .collect();
        thresholds.dedup();
        for threshold in thresholds {
            let chosen: Vec<(&BestPath, &[String])> = train_seen
                .paths
                .iter()
                .zip(&train_seen.tokens)
                .filter_map(|(paths, tokens)| {
                    paths[i]
                        .as_ref()
                        .filter(|p| p.score >= threshold)
                        .map(|p| (p, tokens.as_slice()))
                })
                .collect();
            for narrow in [false, true] {
                let regex = regex_of(&chosen, n_states, narrow);
                if !candidates
                    .iter()
                    .any(|(p, t, r)| *p == i && *t == threshold && *r == regex)
                {
                    candidates.push((i, threshold, regex));
                }
            }
        }
    }
    candidates
}

/// Free pattern `i`'s top phrases: the distinct words its best paths read on the train
/// sentences that score highest (`train_scores`), at most [`TOP_PHRASES`].
fn top_phrases(train_seen: &Seen, i: usize, train_scores: &[f32]) -> Vec<String> {
    let mut ranked: Vec<usize> = (0..train_seen.paths.len())
        .filter(|&s| train_seen.paths[s][i].is_some())
        .collect();
    ranked.sort_by(|&a, &b| train_scores[b].total_cmp(&train_scores[a]));
    let mut top_phrases: Vec<String> = Vec::new();
    for &s in &ranked {
        if top_phrases.len() == TOP_PHRASES {
            break;
        }
        if let Some(path) = &train_seen.paths[s][i] {
            let text = phrase(path, &train_seen.tokens[s]);
            if !top_phrases.contains(&text) {
                top_phrases.push(text);
            }
        }
    }
    top_phrases
}

/// Reads every free pattern of the network `scorer` scores with back as a regex, on
/// `train` (where the regexes and thresholds are chosen) and `dev` (reported).
pub fn read_back(scorer: &SopaScorer, train: &[Example], dev: &[Example]) -> ReadBack {
    let train_seen = see(scorer, train);
    let dev_seen = see(scorer, dev);
    let n_free = scorer.n_free_patterns();
    let first_free = scorer.feature_count() - n_free;
    let lengths = scorer.free_pattern_states();
    let scores = pattern_scores;
    // Every candidate regex of every pattern, compiled once.
    let candidates = candidate_regexes(&train_seen, &lengths);
    let text: String = std::iter::once("default z\n".to_string())
        .chain(
            candidates
                .iter()
                .map(|(_, _, regex)| format!("x: {regex}\n")),
        )
        .collect();
    let compiled = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &CompileConfig::default(),
    );
    let matches = |examples: &[Example]| -> Vec<Vec<bool>> {
        examples
            .iter()
            .map(|e| compiled.system.classify(&e.text).matched)
            .collect()
    };
    let (train_matches, dev_matches) = (matches(train), matches(dev));
    let network_train = predict(scorer, &train_seen, &train_seen.features);
    let network_dev = predict(scorer, &dev_seen, &dev_seen.features);
    // A candidate's stand-in feature values: the mean train feature where it matches, and
    // where it does not.
    let stand_in = |c: usize, feature: usize| -> (f32, f32) {
        let (mut on, mut off) = ((0f32, 0usize), (0f32, 0usize));
        for (row, matched) in train_seen.features.iter().zip(&train_matches) {
            let slot = if matched[c] { &mut on } else { &mut off };
            slot.0 += row[feature];
            slot.1 += 1;
        }
        (on.0 / on.1.max(1) as f32, off.0 / off.1.max(1) as f32)
    };
    let replaced = |features: &[Vec<f32>], matches: &[Vec<bool>], chosen: &[(usize, usize)]| {
        let mut rows = features.to_vec();
        for &(c, feature) in chosen {
            let (on, off) = stand_in(c, feature);
            for (row, matched) in rows.iter_mut().zip(matches) {
                row[feature] = if matched[c] { on } else { off };
            }
        }
        rows
    };
    let mut patterns = Vec::new();
    let mut chosen_all = Vec::new();
    for i in 0..n_free {
        let feature = first_free + i;
        let train_scores = scores(&train_seen, i);
        let fidelity = |c: usize, scores: &[f32], matches: &[Vec<bool>]| {
            let threshold = candidates[c].1;
            let agree = scores
                .iter()
                .zip(matches)
                .filter(|(s, m)| (**s >= threshold) == m[c])
                .count();
            agree as f64 / scores.len().max(1) as f64
        };
        // Faithful candidates first, then the network's train accuracy with the pattern
        // replaced.
        let mut best: Option<((bool, f64, f64), usize)> = None;
        for (c, _) in candidates
            .iter()
            .enumerate()
            .filter(|(_, (p, _, _))| *p == i)
        {
            let rows = replaced(&train_seen.features, &train_matches, &[(c, feature)]);
            let kept = accuracy(&predict(scorer, &train_seen, &rows), &train_seen.gold);
            let faithful = fidelity(c, &train_scores, &train_matches);
            let key = (
                faithful >= MIN_FIDELITY,
                if faithful >= MIN_FIDELITY {
                    kept
                } else {
                    faithful
                },
                faithful,
            );
            if best.is_none_or(|(b, _)| key > b) {
                best = Some((key, c));
            }
        }
        let Some((_, c)) = best else { continue };
        chosen_all.push((c, feature));
        let (_, threshold, regex) = &candidates[c];
        let label = scorer.favoured_label(PatternRef::Free(i));
        let matched: Vec<usize> = (0..train.len()).filter(|&s| train_matches[s][c]).collect();
        let right = matched
            .iter()
            .filter(|&&s| train_seen.gold[s] == Some(label))
            .count();
        let top_phrases = top_phrases(&train_seen, i, &train_scores);
        patterns.push(LearnedPattern {
            index: i,
            label,
            regex: regex.clone(),
            threshold: *threshold,
            fidelity_train: fidelity(c, &train_scores, &train_matches),
            fidelity_dev: (!dev.is_empty())
                .then(|| fidelity(c, &scores(&dev_seen, i), &dev_matches)),
            train_matches: matched.len(),
            train_precision: (!matched.is_empty()).then(|| right as f64 / matched.len() as f64),
            top_phrases,
        });
    }
    let proxy = |seen: &Seen, matches: &[Vec<bool>]| -> f64 {
        let rows = replaced(&seen.features, matches, &chosen_all);
        accuracy(&predict(scorer, seen, &rows), &seen.gold)
    };
    ReadBack {
        patterns,
        network_train: accuracy(&network_train, &train_seen.gold),
        network_dev: (!dev.is_empty()).then(|| accuracy(&network_dev, &dev_seen.gold)),
        proxy_train: proxy(&train_seen, &train_matches),
        proxy_dev: (!dev.is_empty()).then(|| proxy(&dev_seen, &dev_matches)),
    }
}

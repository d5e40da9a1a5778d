//! Reconstruction: the rules as a trained FA-RNN reads them back (`explain::reconstruct`,
//! Jiang et al. 2020 §3.4), as rewrites of the file's rules `LABEL: REGEX`.
//!
//! [`read_back`] reads every pattern of the network at each threshold γ of [`THRESHOLDS`],
//! every vocabulary word entering through the network's word-vector path (a word the rules
//! never name joins an edge when its transition passes γ); it keeps, per rule, the regexes
//! that are readable ([`readable`]) and differ from the rule. [`rewrites`] turns them into
//! candidates `LABEL: OLD` → `LABEL: NEW` for the engine, each with its exact effect on the
//! train lines, and only when that effect is a gain: a rewrite that only spells the rule
//! differently, or matches the same train lines, is never proposed. The engine measures
//! them like every candidate, so γ is chosen per rule on train and validated on dev.

use super::candidate::{Candidate, Edit, Estimate, Source};
use super::config::SuggestConfig;
use super::file_rules::{regex_range, rules_of};
use super::lines::{Lines, Standing, matches_alone};
use super::shape::MAX_SET_WORDS;
use crate::automata::{Classification, Scratch};
use crate::explain::reconstruct_at;
use crate::model::{PlainNetwork, TokenVector};
use crate::rules_file::{RulesFile, same_language};
use crate::syntax::ast::{Regex, RegexKind};
use crate::syntax::print_regex;
use crate::syntax::{LabelId, PatternId};
use std::ops::Range;

/// The thresholds γ each pattern is read back at: a transition weight above γ is an edge.
/// Below 0.2 wildcard loops appear where the rules had none; above 0.7 most patterns lose
/// every path (`docs/results.md`, the γ sweep).
pub const THRESHOLDS: [f32; 6] = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7];

/// The most elements (a word set counts once) of a rewrite, unless the rule has more.
pub const MAX_ELEMENTS: usize = 12;

/// A rule of the file as the network reads it back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadBack {
    pub label: String,
    /// The rule's regex as written in the rules the network was trained from.
    pub regex: String,
    /// The readable regexes read back at the thresholds, distinct, lowest γ first.
    pub rewrites: Vec<String>,
}

/// Every anonymous rule `LABEL: REGEX` of `file` read back from `network` (trained from
/// `file`) at each of [`THRESHOLDS`]; `pattern_states` and `tokens` as
/// `explain::reconstruct` takes them. Rules with no readable rewrite are left out.
pub fn read_back(
    file: &RulesFile,
    network: &PlainNetwork,
    pattern_states: &[Range<usize>],
    tokens: &[TokenVector],
) -> Vec<ReadBack> {
    let by_threshold = reconstruct_at(network, pattern_states, tokens, &THRESHOLDS, MAX_SET_WORDS);
    let text = &file.source.text;
    let mut out = Vec::new();
    for (p, def) in file.rules.patterns.iter().enumerate() {
        let ([label], true) = (def.labels.as_slice(), def.anonymous) else {
            continue;
        };
        let Some(label) = file.rules.labels.get(label.index()) else {
            continue;
        };
        let Some(regex) = regex_range(text, def.name_range, def.range)
            .and_then(|range| text.get(std::ops::Range::<usize>::from(range)))
        else {
            continue;
        };
        let limit = MAX_ELEMENTS.max(elements(&def.regex));
        let mut rewrites: Vec<String> = Vec::new();
        for reconstructions in &by_threshold {
            let Some(read) = reconstructions.get(p).and_then(|r| r.regex.as_ref()) else {
                continue;
            };
            let spelled = print_regex(read);
            if readable(read, limit)
                && !rewrites.contains(&spelled)
                && !same_language(&spelled, regex)
            {
                rewrites.push(spelled);
            }
        }
        if !rewrites.is_empty() {
            out.push(ReadBack {
                label: label.name.clone(),
                regex: regex.to_string(),
                rewrites,
            });
        }
    }
    out
}

/// Whether a person would write `regex`: at most `max_elements` elements, word sets of at
/// most [`MAX_SET_WORDS`] words, and stars on single words or classes only (so no star
/// inside a star).
pub fn readable(regex: &Regex, max_elements: usize) -> bool {
    elements(regex) <= max_elements && sets_are_short(regex) && !star_over_group(regex)
}

/// The elements of a regex: its literals and classes, a set of single words counting once.
fn elements(regex: &Regex) -> usize {
    match &regex.kind {
        RegexKind::Alt(alternatives) if alternatives.iter().all(is_atom) => 1,
        RegexKind::Concat(parts) | RegexKind::Alt(parts) => parts.iter().map(elements).sum(),
        RegexKind::Repeat { inner, .. } => elements(inner),
        _ => 1,
    }
}

fn is_atom(regex: &Regex) -> bool {
    matches!(
        regex.kind,
        RegexKind::Word(_)
            | RegexKind::Quoted(_)
            | RegexKind::Any
            | RegexKind::Number
            | RegexKind::Punct
    )
}

fn sets_are_short(regex: &Regex) -> bool {
    match &regex.kind {
        RegexKind::Alt(alternatives) => {
            alternatives.len() <= MAX_SET_WORDS && alternatives.iter().all(sets_are_short)
        }
        RegexKind::Concat(parts) => parts.iter().all(sets_are_short),
        RegexKind::Repeat { inner, .. } => sets_are_short(inner),
        _ => true,
    }
}

/// Whether an unbounded repetition repeats more than one token class or word (`( $ a? )*`,
/// which state elimination writes for a loop through two states, reads as `$*` to no one).
fn star_over_group(regex: &Regex) -> bool {
    match &regex.kind {
        RegexKind::Concat(parts) | RegexKind::Alt(parts) => parts.iter().any(star_over_group),
        RegexKind::Repeat { inner, max, .. } => {
            let one_token = match &inner.kind {
                RegexKind::Alt(alternatives) => alternatives.iter().all(is_atom),
                _ => is_atom(inner),
            };
            (max.is_none() && !one_token) || star_over_group(inner)
        }
        _ => false,
    }
}

/// The rewrites of the rules of `file` that `read_back` names (by label and regex as
/// written; a rule edited since is not rewritten), with their exact effect on the train
/// lines ([`effect`]). A rewrite is proposed when it fixes at least `min_fixed` lines and,
/// of the lines whose prediction it changes, the share it makes right is at least
/// `min_precision` (a new rule's floor, taken over the lines the rewrite decides: its added
/// matches that another rule wins anyway say nothing of it).
pub(super) fn rewrites(
    file: &RulesFile,
    lines: &Lines,
    standing: &Standing,
    config: &SuggestConfig,
    read_back: &[ReadBack],
) -> Vec<Candidate> {
    let text = &file.source.text;
    let mut out = Vec::new();
    for rule in rules_of(file, None) {
        let Some(old) = text.get(std::ops::Range::<usize>::from(rule.regex)) else {
            continue;
        };
        let Some(read) = read_back
            .iter()
            .find(|read| read.label == rule.label && read.regex == old)
        else {
            continue;
        };
        let Some(old_matches) = matches_alone(&rule.label, old, lines) else {
            continue;
        };
        for new in &read.rewrites {
            let edit = Edit::ReplaceRegex {
                label: rule.label.clone(),
                line: rule.line,
                old: old.to_string(),
                new: new.clone(),
                range: rule.regex,
            };
            let Some(new_matches) = matches_alone(&rule.label, new, lines) else {
                continue;
            };
            let estimate = effect(
                file,
                rule.pattern,
                &rule.label,
                lines,
                standing,
                &old_matches,
                &new_matches,
            );
            let decisive = (estimate.fixed + estimate.broken) as f64;
            if estimate.fixed >= config.min_fixed
                && estimate.fixed as f64 >= config.min_precision * decisive
            {
                out.push(Candidate {
                    source: Source::Reconstruction,
                    edit,
                    estimate: Some(estimate),
                });
            }
        }
    }
    out
}

/// What rewriting pattern `pattern` of `file` so that it matches where `new_matches` says
/// does to the train lines, exactly: each line whose match changes is classified by the
/// rules with that pattern's match flipped (every other line keeps its prediction).
/// `matches` and `correct_matches` count the lines it adds.
fn effect(
    file: &RulesFile,
    pattern: usize,
    label: &str,
    lines: &Lines,
    standing: &Standing,
    old_matches: &[bool],
    new_matches: &[bool],
) -> Estimate {
    let system = &file.system;
    let gold_label = lines.label(label);
    let (mut scratch, mut outcome) = (Scratch::default(), Classification::default());
    let mut estimate = Estimate::default();
    for line in (0..lines.len()).filter(|&line| new_matches[line] != old_matches[line]) {
        if new_matches[line] {
            estimate.matches += 1;
            estimate.correct_matches += usize::from(Some(lines.gold[line]) == gold_label);
        }
        system.classify_with(&lines.texts[line], &mut scratch, &mut outcome);
        outcome.matched[pattern] = new_matches[line];
        let matched = &outcome.matched;
        let predicted = (0..system.labels().len())
            .find(|&rank| {
                system
                    .label_formula(LabelId(rank as u32))
                    .eval(&|p: PatternId| matched[p.index()])
            })
            .or(system.default_label().map(|id| id.index()))
            .map(|rank| system.labels()[rank].as_str());
        let right = predicted == Some(lines.labels[lines.gold[line]].as_str());
        estimate.count_change(standing.correct[line], right);
    }
    estimate
}

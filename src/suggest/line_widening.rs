//! The editor's "Widen `gold: REGEX`" for one misclassified line ([`widen_for_line`]): the
//! closest rule of the line's gold label with one element widened so that it matches the
//! line, measured by the engine as `rulelens suggest` measures its suggestions.

use super::candidate::{Candidate, Corpora, Estimate, Suggestion, by_estimate};
use super::config::SuggestConfig;
use super::engine::State;
use super::file_rules::{Rule, rules_of};
use super::lines::Lines;
use super::shape::estimate_of;
use super::widen::{OnLines, Scope, Widening, Word, candidate, passes, symbolize};
use crate::rules_file::RulesFile;
use crate::text::Tokens;

/// A widening that makes a rule match one line, measured.
#[derive(Debug, Clone)]
pub struct LineWidening {
    pub suggestion: Suggestion,
    /// The rules after the edit, analyzed.
    pub edited: RulesFile,
}

/// The widening of a rule `label: REGEX` that makes it match `text`: of the rules of
/// `label` that do not match it, the closest (the fewest elements missing, then the most
/// matched) that one widened element makes match, with, of the widenings that do, one
/// `suggest` would propose (it passes the floors of a new rule on train), else the one with
/// the largest train gain; measured on `corpora` like every suggestion, and checked by
/// compiling the edited rules. `None` when no single widening makes one of them match.
/// Cost: the line run on each rule of `label`; when one is not far off, the corpora read
/// and classified, and one edit measured.
pub fn widen_for_line(
    file: &RulesFile,
    corpora: &Corpora,
    label: &str,
    text: &str,
) -> Option<LineWidening> {
    let mut tokens = Tokens::default();
    tokens.tokenize(text);
    let mut symbols = Vec::new();
    file.system.alphabet().symbolize(&tokens, &mut symbols);
    let rules = rules_of(file, Some(label));
    let mut closest: Vec<(usize, std::cmp::Reverse<usize>, &Rule)> = rules
        .iter()
        .filter_map(|rule| {
            let why = rule
                .elements
                .run(&symbols, file.system.alphabet())?
                .why_not()?;
            Some((why.missing, std::cmp::Reverse(why.matched), rule))
        })
        .collect();
    closest.sort_by_key(|&(missing, matched, rule)| (missing, matched, rule.pattern));
    if closest.is_empty() {
        return None;
    }
    let (train, dev) = (Lines::new(corpora.train), Lines::new(corpora.dev));
    let state = State::new(file.clone(), &train, &dev, &[], &[]);
    let gold = train.label(label);
    let rank = state.train_standing.rank_for(label);
    let train_symbols = symbolize(&train, file.system.alphabet());
    for (_, _, rule) in closest {
        let Some(run) = rule.elements.run(&symbols, file.system.alphabet()) else {
            continue;
        };
        let token = |i: usize| {
            let token = tokens.get(i).expect("a token of the line");
            (token.text, token.kind)
        };
        let mut widenings: Vec<(usize, Widening)> = Vec::new();
        for k in 0..rule.elements.elements.len() {
            for widening in rule.widenings_of(k, Scope::Line) {
                match widening {
                    Widening::Words(_) => {
                        let mut words: Vec<Word> = run
                            .slots(k)
                            .map(|i| (token(i).0.to_string(), token(i).1))
                            .collect();
                        words.sort();
                        words.dedup();
                        widenings.extend(
                            words
                                .into_iter()
                                .map(|word| (k, Widening::Words(vec![word]))),
                        );
                    }
                    other if rule.completes(&run, k, &other, token) => widenings.push((k, other)),
                    _ => {}
                }
            }
        }
        let mut on = OnLines::new(rule, &train, file.system.alphabet(), &train_symbols);
        let mut estimated: Vec<(Candidate, usize)> = widenings
            .iter()
            .filter_map(|(k, widening)| {
                let estimate = match gold {
                    Some(gold) => {
                        let gained = on.gained(*k, widening);
                        estimate_of(&train, &state.train_standing, &gained, gold, rank)
                    }
                    None => Estimate::default(),
                };
                let candidate = candidate(file, rule, *k, widening, estimate)?;
                Some((candidate, widening.breadth()))
            })
            .collect();
        // The widenings `suggest` would propose first, then the larger train gain, then the
        // narrower.
        let floors =
            |c: &Candidate| passes(&c.estimate.unwrap_or_default(), &SuggestConfig::DEFAULT);
        estimated.sort_by(|(a, a_breadth), (b, b_breadth)| {
            floors(b)
                .cmp(&floors(a))
                .then(
                    b.estimate
                        .unwrap_or_default()
                        .gain()
                        .cmp(&a.estimate.unwrap_or_default().gain()),
                )
                .then(a_breadth.cmp(b_breadth))
                .then(by_estimate(a, b))
        });
        for (candidate, _) in estimated {
            let Some((suggestion, next)) = state.measure(&candidate, false) else {
                continue;
            };
            let matched = next.file.system.classify(text).matched;
            if matched.get(rule.pattern) == Some(&true) {
                return Some(LineWidening {
                    suggestion,
                    edited: next.file,
                });
            }
        }
    }
    None
}

//! The short rules that rule induction proposes and narrowing looks for ([`Shape`]: an
//! n-gram, a sentence's start, two words with a `$*` gap; numbers read as `%`; word sets),
//! the shapes of a line ([`shapes_of`]), and what a rule does to the train lines from the
//! lines it matches ([`estimate_of`]). Below the producers that share them.

use super::candidate::Estimate;
use super::lines::{Element, Lines, Standing};
use std::collections::HashSet;

/// The longest contiguous n-gram, and the longest sentence start, proposed.
const MAX_NGRAM: usize = 3;
/// The most tokens between the two words of a gapped pair.
const MAX_GAP: usize = 5;
/// The most words of a word set.
pub(super) const MAX_SET_WORDS: usize = 10;
/// The fewest train lines each word of a word set must fix on its own, so that a set
/// generalises rather than lists the lines' rare words.
pub(super) const MIN_FIXED_PER_WORD: usize = 2;

/// A rule's regex as the induction builds it: parts matched in order with `$*` between
/// them, the first at the sentence's start when `anchored`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shape {
    pub anchored: bool,
    pub parts: Vec<Vec<Element>>,
}

impl Shape {
    /// Whether the regex matches `line`.
    pub fn matches(&self, lines: &Lines, line: usize) -> bool {
        let n = lines.tokens[line].len();
        let mut from = 0;
        for (i, part) in self.parts.iter().enumerate() {
            let fits = |start: usize| {
                start + part.len() <= n
                    && part
                        .iter()
                        .enumerate()
                        .all(|(k, element)| lines.is(line, start + k, element))
            };
            let found = if i == 0 && self.anchored {
                fits(0).then_some(0)
            } else {
                (from..n).find(|&start| fits(start))
            };
            match found {
                Some(start) => from = start + part.len(),
                None => return false,
            }
        }
        true
    }

    /// The regex as a person writes it.
    pub fn regex(&self, lines: &Lines) -> String {
        let token = |id: u32| {
            let (text, kind) = &lines.vocabulary[id as usize];
            crate::syntax::spell_token(*kind, text)
        };
        let spell = |element: &Element| match element {
            Element::Number => "%".to_string(),
            Element::Token(id) => token(*id),
            Element::AnyOf(ids) => {
                let words: Vec<String> = ids.iter().map(|&id| token(id)).collect();
                format!("( {} )", words.join(" | "))
            }
        };
        let parts: Vec<String> = self
            .parts
            .iter()
            .map(|part| part.iter().map(spell).collect::<Vec<_>>().join(" "))
            .collect();
        let body = parts.join(" $* ");
        if self.anchored {
            format!("{body} $*")
        } else {
            format!("$* {body} $*")
        }
    }

    /// The lines it matches, ascending.
    pub(super) fn matched_lines(&self, lines: &Lines) -> Vec<u32> {
        let mut matched = self.candidate_lines(lines);
        matched.retain(|&line| self.matches(lines, line as usize));
        matched
    }

    /// The lines that can match: those holding its rarest literal token, else all.
    fn candidate_lines(&self, lines: &Lines) -> Vec<u32> {
        self.parts
            .iter()
            .flatten()
            .filter_map(|element| match element {
                Element::Token(id) => Some(lines.postings[*id as usize].clone()),
                Element::Number => None,
                Element::AnyOf(ids) => {
                    let mut union: Vec<u32> = ids
                        .iter()
                        .flat_map(|&id| lines.postings[id as usize].iter().copied())
                        .collect();
                    union.sort_unstable();
                    union.dedup();
                    Some(union)
                }
            })
            .min_by_key(Vec::len)
            .unwrap_or_else(|| (0..lines.len() as u32).collect())
    }
}

/// The shapes found in one line.
pub(super) fn shapes_of(lines: &Lines, line: usize, out: &mut HashSet<Shape>) {
    let tokens = &lines.tokens[line];
    let n = tokens.len();
    let elements: Vec<Element> = tokens.iter().map(|&id| lines.element(id)).collect();
    let punct = |i: usize| lines.is_punct(tokens[i]);
    for start in 0..n {
        for len in 1..=MAX_NGRAM.min(n - start) {
            if (start..start + len).all(punct) {
                continue;
            }
            let part = elements[start..start + len].to_vec();
            if start == 0 {
                out.insert(Shape {
                    anchored: true,
                    parts: vec![part.clone()],
                });
            }
            out.insert(Shape {
                anchored: false,
                parts: vec![part],
            });
        }
        if punct(start) {
            continue;
        }
        for next in start + 2..n.min(start + 2 + MAX_GAP) {
            if !punct(next) && elements[next] != elements[start] {
                out.insert(Shape {
                    anchored: false,
                    parts: vec![vec![elements[start].clone()], vec![elements[next].clone()]],
                });
            }
        }
    }
}

/// What adding `shape` as a rule for the label `gold` (of rank `rank`) does to the train
/// lines.
pub fn estimate(
    lines: &Lines,
    standing: &Standing,
    shape: &Shape,
    gold: usize,
    rank: usize,
) -> Estimate {
    estimate_of(lines, standing, &shape.matched_lines(lines), gold, rank)
}

/// [`estimate`] from the lines the rule matches.
pub(super) fn estimate_of(
    lines: &Lines,
    standing: &Standing,
    matched: &[u32],
    gold: usize,
    rank: usize,
) -> Estimate {
    let mut estimate = Estimate::default();
    for &line in matched {
        let line = line as usize;
        estimate.matches += 1;
        let right = lines.gold[line] == gold;
        estimate.correct_matches += usize::from(right);
        if standing.wins(line, rank) {
            estimate.count_change(standing.correct[line], right);
        }
    }
    estimate
}

//! Rule induction from the misclassified lines, in the spirit of RIPPER and Snuba: for each
//! label, the short rules (n-grams, a sentence's first words, two words with a `$*` gap;
//! numbers read as `%`) that occur in the train lines the rules get wrong for that label,
//! each then counted over the whole train corpus: the lines it would fix, the lines it
//! would break, and its precision, exactly as the rule system would decide them
//! ([`Standing`]). Only rules that pass the precision and support floors of
//! [`SuggestConfig`] are proposed.

use super::lines::{Element, Lines, Standing};
use super::neighbours::WordNeighbours;
use super::{Candidate, Edit, Estimate, Source, SuggestConfig};
use std::collections::{HashMap, HashSet};

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
    fn matched_lines(&self, lines: &Lines) -> Vec<u32> {
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

/// The induced rules for every label, best first; with `neighbours`, word sets take words
/// near them in meaning that fix a single line.
pub fn induce(
    lines: &Lines,
    standing: &Standing,
    config: &SuggestConfig,
    neighbours: Option<&WordNeighbours>,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (gold, label) in lines.labels.iter().enumerate() {
        let rank = standing.rank_for(label);
        // The lines a rule for `label` can fix: wrong now, and won by `label` once it fires.
        let mut support: HashMap<Shape, usize> = HashMap::new();
        let mut found = HashSet::new();
        for line in 0..lines.len() {
            if lines.gold[line] != gold || standing.correct[line] || !standing.wins(line, rank) {
                continue;
            }
            found.clear();
            shapes_of(lines, line, &mut found);
            for shape in found.drain() {
                *support.entry(shape).or_default() += 1;
            }
        }
        let sets = word_sets(lines, standing, &support, (gold, rank), config, neighbours);
        let mut shapes: Vec<(Shape, usize)> = support
            .into_iter()
            .filter(|&(_, n)| n >= config.min_fixed)
            .collect();
        shapes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        shapes.truncate(config.max_shapes_per_label);
        shapes.extend(sets.into_iter().map(|shape| (shape, 0)));
        let mut passing = Vec::new();
        for (shape, _) in shapes {
            let matched = shape.matched_lines(lines);
            let estimate = estimate_of(lines, standing, &matched, gold, rank);
            if estimate.fixed >= config.min_fixed
                && estimate.gain() > 0
                && estimate.precision() >= config.min_precision
            {
                passing.push((shape, matched, estimate));
            }
        }
        // A rule whose lines another rule of the label matches too, with as large a gain,
        // adds nothing: keep the other (the shorter regex on a tie).
        passing.sort_by(|a, b| {
            (b.2.gain(), a.0.parts.iter().map(Vec::len).sum::<usize>())
                .cmp(&(a.2.gain(), b.0.parts.iter().map(Vec::len).sum::<usize>()))
                .then(b.1.len().cmp(&a.1.len()))
                .then(a.0.cmp(&b.0))
        });
        let mut kept: Vec<(Shape, Vec<u32>, Estimate)> = Vec::new();
        for candidate in passing {
            if !kept.iter().any(|other| is_subset(&candidate.1, &other.1)) {
                kept.push(candidate);
            }
        }
        out.extend(kept.into_iter().map(|(shape, _, estimate)| Candidate {
            source: Source::Induction,
            edit: Edit::AddRule {
                label: label.clone(),
                regex: shape.regex(lines),
            },
            estimate: Some(estimate),
        }));
    }
    out
}

/// Whether every element of the ascending `small` is in the ascending `large`.
fn is_subset(small: &[u32], large: &[u32]) -> bool {
    let mut large = large.iter().peekable();
    small.iter().all(|item| {
        while large.next_if(|&&other| other < *item).is_some() {}
        large.next_if(|&&other| other == *item).is_some()
    })
}

/// Word sets: the second word of a pair (at a sentence's start, or anywhere) generalised
/// to every word that fills the slot precisely, at most [`MAX_SET_WORDS`] of them, the ones
/// fixing the most lines first: `what ( actress | company | painter ) $*`. A word fixing
/// [`MIN_FIXED_PER_WORD`] lines on its own joins; with `neighbours`, so does a word fixing
/// one line whose vector is near the mean of theirs (`min_similarity` of [`SuggestConfig`]),
/// the nearest first, after them.
fn word_sets(
    lines: &Lines,
    standing: &Standing,
    support: &HashMap<Shape, usize>,
    (gold, rank): (usize, usize),
    config: &SuggestConfig,
    neighbours: Option<&WordNeighbours>,
) -> Vec<Shape> {
    let min_fixed = if neighbours.is_some() {
        1
    } else {
        MIN_FIXED_PER_WORD
    };
    let mut slots: HashMap<(bool, Element), Vec<(u32, usize)>> = HashMap::new();
    for shape in support.keys() {
        let [part] = shape.parts.as_slice() else {
            continue;
        };
        let [first, Element::Token(word)] = part.as_slice() else {
            continue;
        };
        let punct =
            |element: &Element| matches!(element, Element::Token(id) if lines.is_punct(*id));
        if matches!(first, Element::AnyOf(_)) || punct(first) || lines.is_punct(*word) {
            continue;
        }
        let estimate = estimate(lines, standing, shape, gold, rank);
        if estimate.fixed >= min_fixed && estimate.precision() >= config.min_precision {
            slots
                .entry((shape.anchored, first.clone()))
                .or_default()
                .push((*word, estimate.fixed));
        }
    }
    let mut out = Vec::new();
    let text = |id: u32| lines.vocabulary[id as usize].0.as_str();
    for ((anchored, first), mut words) in slots {
        words.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        let (mut ids, single): (Vec<u32>, Vec<u32>) = {
            let (core, single): (Vec<_>, Vec<_>) = words
                .into_iter()
                .partition(|&(_, fixed)| fixed >= MIN_FIXED_PER_WORD);
            (
                core.into_iter()
                    .map(|(id, _)| id)
                    .take(MAX_SET_WORDS)
                    .collect(),
                single.into_iter().map(|(id, _)| id).collect(),
            )
        };
        if let Some(neighbours) = neighbours
            && let Some(centroid) = neighbours.centroid(ids.iter().map(|&id| text(id)))
        {
            let mut near: Vec<(f32, u32)> = single
                .into_iter()
                .filter_map(|id| Some((neighbours.similarity(text(id), &centroid)?, id)))
                .filter(|&(similarity, _)| f64::from(similarity) >= config.min_similarity)
                .collect();
            near.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
            let room = MAX_SET_WORDS - ids.len();
            ids.extend(near.into_iter().take(room).map(|(_, id)| id));
        }
        if ids.len() < 2 {
            continue;
        }
        ids.sort_unstable();
        let shape = Shape {
            anchored,
            parts: vec![vec![first, Element::AnyOf(ids)]],
        };
        out.push(shape);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Example;

    fn example(label: &str, text: &str) -> Example {
        Example {
            text: text.to_string(),
            label: Some(label.to_string()),
            line: 0,
            text_range: None,
            label_range: None,
        }
    }

    /// Questions where `what ( actor | painter )` is a precise slot of `hum`, and `scoundrel`
    /// fills it on one line.
    const ACTORS: [(&str, &str); 7] = [
        ("hum", "what actor played rocky ?"),
        ("hum", "what actor won in 1990 ?"),
        ("hum", "what painter cut off his ear ?"),
        ("hum", "what painter lived in arles ?"),
        ("hum", "what scoundrel stole it ?"),
        ("enty", "what color is the sky ?"),
        ("enty", "what color are roses ?"),
    ];

    /// The `hum` rules induced from `lines` against `default enty` alone, with `min_fixed` 2.
    fn hum_rules(lines: &Lines, neighbours: Option<&WordNeighbours>) -> Vec<String> {
        let rules = crate::rules_file::RulesFile::analyze(
            crate::text::SourceText::from_bytes(b"default enty\n"),
            None,
            &Default::default(),
        );
        let standing = Standing::new(&rules.system, lines);
        let config = SuggestConfig {
            min_fixed: 2,
            ..SuggestConfig::DEFAULT
        };
        induce(lines, &standing, &config, neighbours)
            .into_iter()
            .filter_map(|candidate| match candidate.edit {
                Edit::AddRule { label, regex } if label == "hum" => Some(regex),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn words_that_fill_a_slot_precisely_become_a_word_set() {
        let lines = Lines::new(&ACTORS.map(|(label, text)| example(label, text)));
        let regexes = hum_rules(&lines, None);
        assert!(
            regexes.contains(&"$* what ( actor | painter ) $*".to_string()),
            "{regexes:?}"
        );
        // The same set at the sentence's start matches the same lines: it is not proposed
        // again. `scoundrel` fixes one line: too few to join the set.
        assert!(
            !regexes.contains(&"what ( actor | painter ) $*".to_string()),
            "{regexes:?}"
        );
        assert!(
            !regexes.iter().any(|r| r.contains("scoundrel")),
            "{regexes:?}"
        );
    }

    #[test]
    fn a_word_fixing_one_line_joins_a_set_near_it_in_meaning() {
        let mut examples = ACTORS.map(|(label, text)| example(label, text)).to_vec();
        examples.push(example("hum", "what rock fell on him ?"));
        let lines = Lines::new(&examples);
        let sets = |neighbours: &WordNeighbours| -> Vec<String> {
            hum_rules(&lines, Some(neighbours))
                .into_iter()
                .filter(|regex| regex.contains('|'))
                .collect()
        };
        // `scoundrel` (one line) is near `actor` and `painter`; `rock` (one line) is not.
        let near = WordNeighbours::from_vectors([
            ("actor", vec![1.0, 0.1, 0.0]),
            ("painter", vec![0.9, 0.3, 0.0]),
            ("scoundrel", vec![0.8, 0.2, 0.1]),
            ("rock", vec![0.0, 0.1, 1.0]),
        ]);
        let found = sets(&near);
        assert!(
            found.contains(&"$* what ( actor | painter | scoundrel ) $*".to_string()),
            "{found:?}"
        );
        assert!(!found.iter().any(|r| r.contains("rock")), "{found:?}");
        // Far from them, `scoundrel` stays out, as without vectors.
        let far = WordNeighbours::from_vectors([
            ("actor", vec![1.0, 0.1, 0.0]),
            ("painter", vec![0.9, 0.3, 0.0]),
            ("scoundrel", vec![0.0, 0.0, 1.0]),
        ]);
        let found = sets(&far);
        assert!(
            found.contains(&"$* what ( actor | painter ) $*".to_string()),
            "{found:?}"
        );
        assert!(!found.iter().any(|r| r.contains("scoundrel")), "{found:?}");
    }

    #[test]
    fn shapes_match_as_their_regexes_do() {
        let lines = Lines::new(&[
            example("num", "How many dogs are there ?"),
            example("num", "so how many , then"),
            example("hum", "Who won in 1999 ?"),
        ]);
        let id = |word: &str| {
            lines
                .vocabulary
                .iter()
                .position(|(text, _)| text == word)
                .unwrap() as u32
        };
        let how_many = vec![Element::Token(id("how")), Element::Token(id("many"))];
        let anchored = Shape {
            anchored: true,
            parts: vec![how_many.clone()],
        };
        assert_eq!(anchored.regex(&lines), "how many $*");
        assert!(anchored.matches(&lines, 0));
        assert!(!anchored.matches(&lines, 1));
        let anywhere = Shape {
            anchored: false,
            parts: vec![how_many],
        };
        assert!(anywhere.matches(&lines, 1));
        let gapped = Shape {
            anchored: false,
            parts: vec![vec![Element::Token(id("won"))], vec![Element::Number]],
        };
        assert_eq!(gapped.regex(&lines), "$* won $* % $*");
        assert!(gapped.matches(&lines, 2));
        assert!(!gapped.matches(&lines, 0));
        let question = Shape {
            anchored: false,
            parts: vec![vec![Element::Token(id("?"))]],
        };
        assert_eq!(question.regex(&lines), "$* \"?\" $*");
    }
}

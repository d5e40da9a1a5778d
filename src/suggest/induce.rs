//! Rule induction from the misclassified lines, in the spirit of RIPPER and Snuba: for each
//! label, the short rules (n-grams, a sentence's first words, two words with a `$*` gap;
//! numbers read as `%`; word sets, of a slot's precise fillers or of a precise word's
//! neighbours in meaning) that occur in the train lines the rules get wrong for that label,
//! each then counted over the whole train corpus: the lines it would fix, the lines it
//! would break, and its precision, exactly as the rule system would decide them
//! ([`Standing`]). Only rules that pass the precision and support floors of
//! [`SuggestConfig`] are proposed.

use super::cancel::Cancel;
use super::candidate::{Candidate, Edit, Estimate, Source};
use super::config::SuggestConfig;
use super::lines::{Element, Lines, Standing};
use super::neighbours::WordNeighbours;
use super::shape::{MAX_SET_WORDS, MIN_FIXED_PER_WORD, Shape, estimate, estimate_of, shapes_of};
use std::collections::{HashMap, HashSet};

/// The induced rules for every label, best first; with `neighbours`, word sets take words
/// near them in meaning that fix a single line, and precise words grow sets of their
/// neighbours ([`grown_sets`]). `None` when `cancel` says stop (polled for each line read
/// and each shape counted).
pub(super) fn induce(
    lines: &Lines,
    standing: &Standing,
    config: &SuggestConfig,
    neighbours: Option<&WordNeighbours>,
    cancel: Cancel,
) -> Option<Vec<Candidate>> {
    let mut out = Vec::new();
    for (gold, label) in lines.labels.iter().enumerate() {
        let rank = standing.rank_for(label);
        // The lines a rule for `label` can fix: wrong now, and won by `label` once it fires.
        let mut support: HashMap<Shape, usize> = HashMap::new();
        let mut found = HashSet::new();
        for line in 0..lines.len() {
            cancel.check()?;
            if lines.gold[line] != gold || standing.correct[line] || !standing.wins(line, rank) {
                continue;
            }
            found.clear();
            shapes_of(lines, line, &mut found);
            for shape in found.drain() {
                *support.entry(shape).or_default() += 1;
            }
        }
        let label_of = (gold, rank);
        let slots = slots(
            lines, standing, &support, label_of, config, neighbours, cancel,
        )?;
        let mut sets = word_sets(
            lines, standing, &slots, label_of, config, neighbours, cancel,
        )?;
        if let Some(neighbours) = neighbours {
            let alone = slots.get(&(false, None)).map_or(&[][..], Vec::as_slice);
            sets.extend(grown_sets(
                lines, standing, alone, label_of, config, neighbours, cancel,
            )?);
        }
        let mut shapes: Vec<(Shape, usize)> = support
            .into_iter()
            .filter(|&(_, n)| n >= config.min_fixed)
            .collect();
        shapes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        shapes.truncate(config.max_shapes_per_label);
        shapes.extend(sets.into_iter().map(|shape| (shape, 0)));
        let mut passing = Vec::new();
        for (shape, _) in shapes {
            cancel.check()?;
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
            cancel.check()?;
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
    Some(out)
}

/// Whether every element of the ascending `small` is in the ascending `large`.
fn is_subset(small: &[u32], large: &[u32]) -> bool {
    let mut large = large.iter().peekable();
    small.iter().all(|item| {
        while large.next_if(|&&other| other < *item).is_some() {}
        large.next_if(|&&other| other == *item).is_some()
    })
}

/// A slot of a word set: anchored or not, and the element before the set (none: a set
/// alone).
type Slot = (bool, Option<Element>);

/// Per slot, its fillers with the train lines each fixes, the most first.
type Slots = HashMap<Slot, Vec<(u32, usize)>>;

/// The slots of `support`'s shapes (the second word of a pair, at a sentence's start or
/// anywhere, or a word alone) and the words that fill them precisely: each fixing
/// [`MIN_FIXED_PER_WORD`] lines on its own, or one with `neighbours` (such a word joins a
/// set only by its meaning, [`word_sets`]). `None` when `cancel` says stop.
fn slots(
    lines: &Lines,
    standing: &Standing,
    support: &HashMap<Shape, usize>,
    (gold, rank): (usize, usize),
    config: &SuggestConfig,
    neighbours: Option<&WordNeighbours>,
    cancel: Cancel,
) -> Option<Slots> {
    let min_fixed = if neighbours.is_some() {
        1
    } else {
        MIN_FIXED_PER_WORD
    };
    let mut slots: Slots = HashMap::new();
    let punct = |element: &Element| matches!(element, Element::Token(id) if lines.is_punct(*id));
    for shape in support.keys() {
        cancel.check()?;
        let [part] = shape.parts.as_slice() else {
            continue;
        };
        let (first, word) = match part.as_slice() {
            [Element::Token(word)] if !shape.anchored => (None, *word),
            [first, Element::Token(word)]
                if !matches!(first, Element::AnyOf(_)) && !punct(first) =>
            {
                (Some(first), *word)
            }
            _ => continue,
        };
        if lines.is_punct(word) {
            continue;
        }
        let estimate = estimate(lines, standing, shape, gold, rank);
        if estimate.fixed >= min_fixed && estimate.precision() >= config.min_precision {
            slots
                .entry((shape.anchored, first.cloned()))
                .or_default()
                .push((word, estimate.fixed));
        }
    }
    for words in slots.values_mut() {
        words.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    }
    Some(slots)
}

/// Word sets: each slot of [`slots`] generalised to the words that fill it, the ones fixing
/// the most lines first, each joining only where it pays ([`paying_words`], at most
/// [`MAX_SET_WORDS`]): `what ( actress | company | painter ) $*`, `$* ( refund | waste |
/// cheap ) $*`. A word fixing [`MIN_FIXED_PER_WORD`] lines on its own may join; with
/// `neighbours`, so may a word fixing one line whose vector is near the mean of theirs
/// (`min_similarity` of [`SuggestConfig`]), the nearest first, after them. `None` when
/// `cancel` says stop.
fn word_sets(
    lines: &Lines,
    standing: &Standing,
    slots: &Slots,
    (gold, rank): (usize, usize),
    config: &SuggestConfig,
    neighbours: Option<&WordNeighbours>,
    cancel: Cancel,
) -> Option<Vec<Shape>> {
    let mut out = Vec::new();
    let text = |id: u32| lines.vocabulary[id as usize].0.as_str();
    for (&(anchored, ref first), words) in slots {
        cancel.check()?;
        let (mut ids, single): (Vec<u32>, Vec<u32>) = {
            let (core, single): (Vec<_>, Vec<_>) = words
                .iter()
                .partition(|&&(_, fixed)| fixed >= MIN_FIXED_PER_WORD);
            (
                core.into_iter().map(|(id, _)| id).collect(),
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
            ids.extend(near.into_iter().map(|(_, id)| id));
        }
        let shape_of = |ids: Vec<u32>| {
            let set = Element::AnyOf(ids);
            Shape {
                anchored,
                parts: vec![match &first {
                    Some(first) => vec![first.clone(), set],
                    None => vec![set],
                }],
            }
        };
        let ids = paying_words(lines, standing, (gold, rank), config, &ids, &shape_of);
        if ids.len() < 2 {
            continue;
        }
        out.push(shape_of(ids));
    }
    Some(out)
}

/// How many of a label's most fixing precise words seed a set grown from their neighbours.
const GROWN_SEEDS: usize = 20;
/// How many of a seed's nearest corpus words (by word vector) may join its set.
const GROWN_NEIGHBOURS: usize = 40;

/// Word sets grown by meaning: each of the [`GROWN_SEEDS`] words alone that fix the most
/// lines precisely on their own (`alone`, the fillers of [`slots`]' slot of a word alone,
/// the most fixing first) seeds a set `$* ( SEED | … ) $*`, which its [`GROWN_NEIGHBOURS`]
/// nearest train words (by word vector) join where each pays ([`paying_words`]):
/// `$* ( disappointed | disappointing | unhappy ) $*`. `None` when `cancel` says stop.
fn grown_sets(
    lines: &Lines,
    standing: &Standing,
    alone: &[(u32, usize)],
    (gold, rank): (usize, usize),
    config: &SuggestConfig,
    neighbours: &WordNeighbours,
    cancel: Cancel,
) -> Option<Vec<Shape>> {
    let text = |id: u32| lines.vocabulary[id as usize].0.as_str();
    let seeds = alone
        .iter()
        .filter(|&&(_, fixed)| fixed >= MIN_FIXED_PER_WORD)
        .take(GROWN_SEEDS);
    let shape_of = |ids: Vec<u32>| Shape {
        anchored: false,
        parts: vec![vec![Element::AnyOf(ids)]],
    };
    let mut out: Vec<Shape> = Vec::new();
    for &(seed, _) in seeds {
        cancel.check()?;
        let Some(centroid) = neighbours.centroid([text(seed)]) else {
            continue;
        };
        let mut near: Vec<(f32, u32)> = (0..lines.vocabulary.len() as u32)
            .filter(|&id| id != seed && !lines.is_punct(id) && lines.element(id) != Element::Number)
            .filter_map(|id| Some((neighbours.similarity(text(id), &centroid)?, id)))
            .filter(|&(similarity, _)| f64::from(similarity) >= config.min_similarity)
            .collect();
        near.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let words: Vec<u32> = std::iter::once(seed)
            .chain(near.into_iter().take(GROWN_NEIGHBOURS).map(|(_, id)| id))
            .collect();
        let ids = paying_words(lines, standing, (gold, rank), config, &words, &shape_of);
        let shape = shape_of(ids);
        if matches!(&shape.parts[0][0], Element::AnyOf(ids) if ids.len() >= 2)
            && !out.contains(&shape)
        {
            out.push(shape);
        }
    }
    Some(out)
}

/// Of `words` (in order of preference), those that pay in the set `shape_of` builds: each
/// joins, in turn, only when the set's train gain rises with it and the set stays above the
/// precision floor; at most [`MAX_SET_WORDS`], ascending.
fn paying_words(
    lines: &Lines,
    standing: &Standing,
    (gold, rank): (usize, usize),
    config: &SuggestConfig,
    words: &[u32],
    shape_of: &dyn Fn(Vec<u32>) -> Shape,
) -> Vec<u32> {
    let mut kept: Vec<u32> = Vec::new();
    let mut gain = 0;
    for &word in words {
        if kept.len() == MAX_SET_WORDS {
            break;
        }
        let mut ids = kept.clone();
        ids.push(word);
        ids.sort_unstable();
        let estimate = estimate(lines, standing, &shape_of(ids.clone()), gold, rank);
        if estimate.gain() > gain && estimate.precision() >= config.min_precision {
            gain = estimate.gain();
            kept = ids;
        }
    }
    kept
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

    /// Questions where `what ( actor | painter )` is a precise slot of `hum` (the words alone
    /// are not), and `scoundrel` fills it on one line.
    const ACTORS: [(&str, &str); 8] = [
        ("hum", "what actor played rocky ?"),
        ("hum", "what actor won in 1990 ?"),
        ("hum", "what painter cut off his ear ?"),
        ("hum", "what painter lived in arles ?"),
        ("hum", "what scoundrel stole it ?"),
        ("enty", "what color is the sky ?"),
        ("enty", "what color are roses ?"),
        ("enty", "which painter or actor in town has a yacht ?"),
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
        induce(lines, &standing, &config, neighbours, Cancel::NEVER)
            .unwrap()
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

    /// Reviews where `refund`, `waste` and `cheap` each mark `neg` lines precisely on their
    /// own; `junk` is precise too, but only on lines `waste` already fixes; `fine` fixes one
    /// `neg` line and breaks two `pos` ones.
    const REVIEWS: [(&str, &str); 13] = [
        ("neg", "refund please"),
        ("neg", "want a refund"),
        ("neg", "what a waste , junk"),
        ("neg", "waste , junk"),
        ("neg", "cheap stitching"),
        ("neg", "looks cheap , feels fine"),
        ("neg", "the zipper broke"),
        ("pos", "fits fine , looks great"),
        ("pos", "fine quality"),
        ("pos", "love the colour"),
        ("pos", "want more"),
        ("pos", "a great gift"),
        ("pos", "a delight"),
    ];

    /// `lines` against `default pos` alone, and `neg`'s (gold, rank).
    fn against_default_pos(lines: &Lines) -> (Standing, (usize, usize)) {
        let rules = crate::rules_file::RulesFile::analyze(
            crate::text::SourceText::from_bytes(b"default pos\n"),
            None,
            &Default::default(),
        );
        let standing = Standing::new(&rules.system, lines);
        let neg = (lines.label("neg").unwrap(), standing.rank_for("neg"));
        (standing, neg)
    }

    #[test]
    fn precise_words_alone_become_a_set_of_the_words_that_pay() {
        let lines = Lines::new(&REVIEWS.map(|(label, text)| example(label, text)));
        let (standing, _) = against_default_pos(&lines);
        let config = SuggestConfig {
            min_fixed: 2,
            ..SuggestConfig::DEFAULT
        };
        let regexes: Vec<String> = induce(&lines, &standing, &config, None, Cancel::NEVER)
            .unwrap()
            .into_iter()
            .filter_map(|candidate| match candidate.edit {
                Edit::AddRule { label, regex } if label == "neg" => Some(regex),
                _ => None,
            })
            .collect();
        // `junk` fixes two lines alone but none that `waste` leaves: it does not join.
        assert_eq!(
            regexes.first().map(String::as_str),
            Some("$* ( refund | waste | cheap ) $*"),
            "{regexes:?}"
        );
        assert!(
            !regexes
                .iter()
                .any(|r| r.contains("junk |") || r.contains("| junk")),
            "{regexes:?}"
        );
        assert!(!regexes.iter().any(|r| r.contains("fine")), "{regexes:?}");
    }

    #[test]
    fn a_precise_word_grows_a_set_of_its_neighbours_that_pay() {
        // `shoddy` and `flimsy` (one line each) are near `broke` in meaning; `ugly` too, but
        // it breaks more lines than it fixes; `great` is far.
        let mut examples = REVIEWS.map(|(label, text)| example(label, text)).to_vec();
        examples.extend([
            example("neg", "the heel broke off"),
            example("neg", "shoddy seams"),
            example("neg", "flimsy strap"),
            example("neg", "ugly"),
            example("pos", "ugly but i love them"),
            example("pos", "ugly christmas sweater , great fun"),
        ]);
        let lines = Lines::new(&examples);
        let (standing, neg) = against_default_pos(&lines);
        let mut support = HashMap::new();
        let mut found = HashSet::new();
        for line in (0..lines.len()).filter(|&line| lines.gold[line] == neg.0) {
            shapes_of(&lines, line, &mut found);
            for shape in found.drain() {
                *support.entry(shape).or_default() += 1;
            }
        }
        let near = WordNeighbours::from_vectors([
            ("broke", vec![1.0, 0.0, 0.0]),
            ("shoddy", vec![0.9, 0.2, 0.0]),
            ("flimsy", vec![0.8, 0.3, 0.1]),
            ("ugly", vec![0.9, 0.1, 0.1]),
            ("great", vec![0.0, 0.0, 1.0]),
        ]);
        let config = SuggestConfig::DEFAULT;
        let never = Cancel::NEVER;
        let slots = slots(
            &lines,
            &standing,
            &support,
            neg,
            &config,
            Some(&near),
            never,
        )
        .unwrap();
        let alone = &slots[&(false, None)];
        let grown: Vec<String> = grown_sets(&lines, &standing, alone, neg, &config, &near, never)
            .unwrap()
            .iter()
            .map(|shape| shape.regex(&lines))
            .collect();
        assert_eq!(grown, ["$* ( broke | shoddy | flimsy ) $*"]);
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

//! Narrowing: a rule `LABEL: REGEX` of the file whose train precision is under the floor of
//! [`SuggestConfig`] and that wins some train lines wrongly gets, each with its estimate:
//!
//! - an exception: the statement rewritten in place into `pattern NAME = REGEX`, `pattern
//!   NAME_except = EXC` and `LABEL <- NAME & !NAME_except` ([`Edit::AddException`]; the
//!   label's rule stays on its line, so no label's priority moves). EXC is one of
//!   induction's short shapes ([`Shape`]: an n-gram, a sentence's start, two words with a
//!   gap) found in the lines the rule's silence would make right, or a set of at most
//!   [`MAX_SET_WORDS`] such words, each fixing lines on its own and joining the set when it
//!   raises the set's gain; an exception, and each word of a set, is precise: of the lines
//!   it changes, it makes at least the precision floor's share right;
//! - an added literal: a word required in one `$*` of the regex's top-level concatenation,
//!   anywhere in it (`$* what $*` to `$* what $* mean $*`), or right at its start or end
//!   (`$* what is $*`), found in the lines the rule wins rightly; the narrowed rule keeps at
//!   least half of the lines the rule's removal would make wrong ([`Edit::ReplaceRegex`]);
//! - its removal ([`Edit::RemoveRule`]);
//! - another label for it, in place ([`Edit::Relabel`]), the one of the file's labels that
//!   fixes the most lines, when its matches have that label at least the precision floor's
//!   share and no label's priority moves.
//!
//! Each kind keeps its largest train gain, and must fix at least `min_fixed` train lines and
//! more than it breaks; a rule whose removal breaks no line gets only its removal, which
//! fixes every line a narrowing would. The estimates are exact: on a line the
//! rule stops matching, the prediction is the rule system's without the rule (every label's
//! formula evaluated with the rule's pattern false, from the line's pattern matches); on
//! the others nothing changes.

use super::candidate::{Candidate, Edit, Estimate, Source};
use super::config::SuggestConfig;
use super::file_rules::{MAX_ELEMENTS, Rule, rules_of};
use super::lines::{Element, Lines, Standing};
use super::shape::{MAX_SET_WORDS, MIN_FIXED_PER_WORD, Shape, shapes_of};
use crate::automata::{ElementKind, ElementRun, Scratch};
use crate::rules_file::RulesFile;
use crate::syntax::{LabelId, PatternId, spell_token};
use crate::text::TokenKind;
use std::collections::{HashMap, HashSet};

/// The most exception shapes counted over one rule's lines, those in the most lines the
/// rule's silence makes right first.
const MAX_EXCEPTION_SHAPES: usize = 200;

/// What a rule's silence does to a line it matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Change {
    Same,
    Fixes,
    Breaks,
}

/// Where a required word goes in a `$*` of the regex.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Place {
    /// Right at its start: `$* what $*` to `$* what is $*`.
    Start,
    /// Right at its end: `$* what $*` to `$* is what $*`.
    End,
    /// Anywhere in it: `$* what $*` to `$* what $* mean $*`.
    Anywhere,
}

impl Place {
    const ALL: [Place; 3] = [Place::Start, Place::End, Place::Anywhere];

    /// The gap with `word` required in this place.
    fn spelled(self, word: &str) -> String {
        match self {
            Place::Start => format!("{word} $*"),
            Place::End => format!("$* {word}"),
            Place::Anywhere => format!("$* {word} $*"),
        }
    }
}

/// An imprecise rule on the train lines it matches.
struct Imprecise {
    rule: Rule,
    /// Its label's gold index, if some line has the label.
    gold: Option<usize>,
    /// The lines it matches, ascending, and what its silence does on each.
    lines: Vec<u32>,
    changes: Vec<Change>,
    /// Per matched line: the rank of the first label that fires there without the rule.
    silent: Vec<Option<usize>>,
    /// The places a word may be required: (element, place) for each `$*` element.
    slots: Vec<(usize, Place)>,
    /// Per matched line, per slot: the ids of the words that may be required there for the
    /// narrowed rule to match the line still, ascending; `None` when some line could not be
    /// run.
    words: Option<Vec<Vec<Vec<u32>>>>,
}

impl Imprecise {
    /// What the rule's silence on the matched lines `silent` says (by index into
    /// [`Imprecise::lines`]) does to the train lines.
    fn estimate(&self, lines: &Lines, silent: impl Fn(usize) -> bool) -> Estimate {
        let mut estimate = Estimate::default();
        for (i, &line) in self.lines.iter().enumerate() {
            if !silent(i) {
                continue;
            }
            estimate.matches += 1;
            estimate.correct_matches += usize::from(Some(lines.gold[line as usize]) == self.gold);
            match self.changes[i] {
                Change::Fixes => estimate.fixed += 1,
                Change::Breaks => estimate.broken += 1,
                Change::Same => {}
            }
        }
        estimate
    }

    /// The rule removed.
    fn removal(&self, file: &RulesFile, lines: &Lines) -> Candidate {
        Candidate {
            source: Source::Narrowing,
            edit: Edit::RemoveRule {
                label: self.rule.label.clone(),
                regex: regex_text(file, &self.rule).to_string(),
                line: self.rule.line,
            },
            estimate: Some(self.estimate(lines, |_| true)),
        }
    }

    /// The best exception among induction's shapes, and the best word set.
    fn exceptions(
        &self,
        file: &RulesFile,
        lines: &Lines,
        config: &SuggestConfig,
    ) -> Vec<Candidate> {
        let mut support: HashMap<Shape, usize> = HashMap::new();
        let mut found = HashSet::new();
        for (i, &line) in self.lines.iter().enumerate() {
            if self.changes[i] != Change::Fixes {
                continue;
            }
            found.clear();
            shapes_of(lines, line as usize, &mut found);
            for shape in found.drain() {
                *support.entry(shape).or_default() += 1;
            }
        }
        let mut shapes: Vec<(Shape, usize)> = support
            .into_iter()
            .filter(|&(_, n)| n >= config.min_fixed)
            .collect();
        shapes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        shapes.truncate(MAX_EXCEPTION_SHAPES);
        let estimated: Vec<(Shape, Estimate)> = shapes
            .into_iter()
            .map(|(shape, _)| {
                let estimate =
                    self.estimate(lines, |i| shape.matches(lines, self.lines[i] as usize));
                (shape, estimate)
            })
            .collect();
        let mut out = Vec::new();
        // The largest gain, then the shortest shape.
        let best = estimated
            .iter()
            .filter(|(_, estimate)| self.passes(estimate, config) && precise(estimate, config))
            .map(|(shape, estimate)| {
                (
                    (shape.parts.iter().map(Vec::len).sum::<usize>(), shape),
                    *estimate,
                )
            })
            .min_by(by_gain);
        if let Some(((_, shape), estimate)) = best {
            out.extend(self.exception(file, lines, shape, estimate));
        }
        // Single words that fix lines on their own, the largest gains first, each joining
        // the set when it raises the set's gain.
        let mut words: Vec<&(Shape, Estimate)> = estimated
            .iter()
            .filter(|(shape, estimate)| {
                let [part] = shape.parts.as_slice() else {
                    return false;
                };
                !shape.anchored
                    && matches!(part.as_slice(), [Element::Token(_)])
                    && estimate.fixed >= MIN_FIXED_PER_WORD
                    && precise(estimate, config)
            })
            .collect();
        words.sort_by(|a, b| by_gain(a, b));
        let mut ids: Vec<u32> = Vec::new();
        let mut silent = vec![false; self.lines.len()];
        let mut set_estimate = Estimate::default();
        for (shape, _) in words {
            if ids.len() == MAX_SET_WORDS {
                break;
            }
            let [Element::Token(id)] = shape.parts[0].as_slice() else {
                continue;
            };
            let with: Vec<bool> = (0..self.lines.len())
                .map(|i| silent[i] || shape.matches(lines, self.lines[i] as usize))
                .collect();
            let estimate = self.estimate(lines, |i| with[i]);
            if estimate.gain() > set_estimate.gain() && estimate.matches < self.lines.len() {
                ids.push(*id);
                silent = with;
                set_estimate = estimate;
            }
        }
        if ids.len() >= 2 && self.passes(&set_estimate, config) {
            ids.sort_unstable();
            let set = Shape {
                anchored: false,
                parts: vec![vec![Element::AnyOf(ids)]],
            };
            out.extend(self.exception(file, lines, &set, set_estimate));
        }
        out
    }

    /// Whether a narrowing fixes enough lines, more than it breaks, and leaves the rule some
    /// lines (else it is the removal).
    fn passes(&self, estimate: &Estimate, config: &SuggestConfig) -> bool {
        estimate.fixed >= config.min_fixed
            && estimate.gain() > 0
            && estimate.matches < self.lines.len()
    }

    fn exception(
        &self,
        file: &RulesFile,
        lines: &Lines,
        shape: &Shape,
        estimate: Estimate,
    ) -> Option<Candidate> {
        let text = &file.source.text;
        let def = file.rules.patterns.get(self.rule.pattern)?;
        let (pattern, exception) = fresh_names(file, &self.rule.label, self.rule.line);
        Some(Candidate {
            source: Source::Narrowing,
            edit: Edit::AddException {
                label: self.rule.label.clone(),
                line: self.rule.line,
                regex: regex_text(file, &self.rule).to_string(),
                exception: shape.regex(lines),
                pattern,
                exception_name: exception,
                statement: text
                    .get(std::ops::Range::<usize>::from(def.range))?
                    .to_string(),
                range: def.range,
            },
            estimate: Some(estimate),
        })
    }

    /// The rule given the label that, of the labels it can take without moving any label's
    /// priority, fixes the most train lines: its matches have that label at least the
    /// precision floor's share, as a new rule's must.
    fn relabeling(
        &self,
        file: &RulesFile,
        lines: &Lines,
        standing: &Standing,
        config: &SuggestConfig,
    ) -> Option<Candidate> {
        let rules = &file.rules;
        let def = rules.patterns.get(self.rule.pattern)?;
        let first_rule = |label: LabelId| rules.labels[label.index()].rules.first();
        let own = *def.labels.first()?;
        // The rule is not its label's first, so the label keeps its place.
        if first_rule(own).is_none_or(|first| first.range.start() >= def.range.start()) {
            return None;
        }
        let gold_rank: Vec<Option<usize>> = lines
            .labels
            .iter()
            .map(|label| standing.ranks.iter().position(|name| name == label))
            .collect();
        let mut best: Option<(String, Estimate)> = None;
        for (rank, label) in standing.ranks.iter().enumerate() {
            let Some(id) = rules.label_by_name(label) else {
                continue;
            };
            // A label whose first rule comes later would rise to this rule's place.
            if id == own
                || first_rule(id).is_none_or(|first| first.range.start() > def.range.start())
            {
                continue;
            }
            let target = lines.label(label);
            let mut estimate = Estimate::default();
            for (i, &line) in self.lines.iter().enumerate() {
                let line = line as usize;
                estimate.matches += 1;
                estimate.correct_matches += usize::from(Some(lines.gold[line]) == target);
                // The new label fires, so it or a label above it wins.
                let predicted = self.silent[i].map_or(rank, |silent| silent.min(rank));
                let right = Some(predicted) == gold_rank[lines.gold[line]];
                estimate.count_change(standing.correct[line], right);
            }
            if estimate.fixed >= config.min_fixed
                && estimate.gain() > 0
                && estimate.precision() >= config.min_precision
                && best
                    .as_ref()
                    .is_none_or(|(_, b)| estimate.gain() > b.gain())
            {
                best = Some((label.clone(), estimate));
            }
        }
        let (new_label, estimate) = best?;
        Some(Candidate {
            source: Source::Relabeling,
            edit: Edit::Relabel {
                label: self.rule.label.clone(),
                new_label,
                line: self.rule.line,
                regex: regex_text(file, &self.rule).to_string(),
                range: def.name_range,
            },
            estimate: Some(estimate),
        })
    }

    /// The best word required in one `$*`: it keeps at least half of the lines the rule's
    /// removal would make wrong.
    fn literal(
        &self,
        file: &RulesFile,
        lines: &Lines,
        config: &SuggestConfig,
    ) -> Option<Candidate> {
        let words = self.words.as_ref()?;
        let breaks = self
            .changes
            .iter()
            .filter(|&&c| c == Change::Breaks)
            .count();
        let mut kept: HashMap<(usize, u32), usize> = HashMap::new();
        for (i, line_words) in words.iter().enumerate() {
            if self.changes[i] != Change::Breaks {
                continue;
            }
            for (slot, ids) in line_words.iter().enumerate() {
                for &id in ids {
                    *kept.entry((slot, id)).or_default() += 1;
                }
            }
        }
        let mut estimated: Vec<((usize, u32), Estimate)> = kept
            .into_iter()
            .filter(|&(_, n)| 2 * n >= breaks)
            .map(|((slot, id), _)| {
                let estimate = self.estimate(lines, |i| words[i][slot].binary_search(&id).is_err());
                ((slot, id), estimate)
            })
            .filter(|(_, estimate)| self.passes(estimate, config))
            .collect();
        estimated.sort_by(by_gain);
        let &((slot, id), estimate) = estimated.first()?;
        let (k, place) = self.slots[slot];
        let element = self.rule.elements.elements.get(k)?;
        let text = &file.source.text;
        let (start, end) = (
            usize::from(self.rule.regex.start()),
            usize::from(self.rule.regex.end()),
        );
        let (from, to) = (
            usize::from(element.range.start()),
            usize::from(element.range.end()),
        );
        let (word, kind) = &lines.vocabulary[id as usize];
        let new = format!(
            "{}{}{}",
            text.get(start..from)?,
            place.spelled(&spell_token(*kind, word)),
            text.get(to..end)?
        );
        Some(Candidate {
            source: Source::Narrowing,
            edit: Edit::ReplaceRegex {
                label: self.rule.label.clone(),
                line: self.rule.line,
                old: text.get(start..end)?.to_string(),
                new,
                range: self.rule.regex,
            },
            estimate: Some(estimate),
        })
    }
}

/// Whether an exception is precise: of the lines it changes, the share it makes right is
/// at least the precision floor, as a new rule's matches must be (else it trades lines the
/// rule wins rightly for lines it wins wrongly, as `$* ( in | the | of ) $*` did on TREC).
fn precise(estimate: &Estimate, config: &SuggestConfig) -> bool {
    estimate.fixed as f64 >= config.min_precision * (estimate.fixed + estimate.broken) as f64
}

/// The larger train gain first, then the fewer lines broken, then the first key.
fn by_gain<K: Ord>(a: &(K, Estimate), b: &(K, Estimate)) -> std::cmp::Ordering {
    (b.1.gain(), a.1.broken)
        .cmp(&(a.1.gain(), b.1.broken))
        .then_with(|| a.0.cmp(&b.0))
}

/// The regex of `rule` as written.
fn regex_text<'f>(file: &'f RulesFile, rule: &Rule) -> &'f str {
    &file.source.text[std::ops::Range::<usize>::from(rule.regex)]
}

/// Names for a narrowed rule's pattern and its exception that no pattern or label of the
/// file has: `desc_61` and `desc_61_except`, else with `_2`, `_3`, … after the line.
pub(super) fn fresh_names(file: &RulesFile, label: &str, line: u32) -> (String, String) {
    let taken = |name: &str| {
        file.rules.patterns.iter().any(|def| def.name == name)
            || file.rules.labels.iter().any(|def| def.name == name)
    };
    let mut base = format!("{label}_{line}");
    let mut n = 1;
    while taken(&base) || taken(&format!("{base}_except")) {
        n += 1;
        base = format!("{label}_{line}_{n}");
    }
    let exception = format!("{base}_except");
    (base, exception)
}

/// The positions of `run` where a word in `place` of the `$*` element `k` keeps the match.
fn positions(run: &ElementRun<'_>, k: usize, place: Place) -> Vec<usize> {
    let (Some(first_start), Some(last_end)) = (run.starts(k).next(), run.resumes(k + 1).last())
    else {
        return Vec::new();
    };
    match place {
        Place::Start => run.starts(k).filter(|&i| i < last_end).collect(),
        Place::End => run
            .resumes(k + 1)
            .filter(|&j| j > first_start)
            .map(|j| j - 1)
            .collect(),
        Place::Anywhere => (first_start..last_end).collect(),
    }
}

/// The rules of the file whose train precision is under the floor and that win some line
/// wrongly, at most `max_measured`, the most wrong wins first, on the lines they match.
fn imprecise(
    file: &RulesFile,
    lines: &Lines,
    standing: &Standing,
    config: &SuggestConfig,
) -> Vec<Imprecise> {
    let mut rules: Vec<Rule> = rules_of(file, None)
        .into_iter()
        .filter(|rule| {
            standing.patterns.get(rule.pattern).is_some_and(|p| {
                p.wrong_wins > 0
                    && (p.correct_matches as f64) < config.min_precision * p.matches as f64
            })
        })
        .collect();
    rules.sort_by_key(|rule| {
        (
            std::cmp::Reverse(standing.patterns[rule.pattern].wrong_wins),
            rule.line,
        )
    });
    rules.truncate(config.max_measured);
    let mut out: Vec<Imprecise> = rules
        .into_iter()
        .map(|rule| {
            let elements = &rule.elements.elements;
            let slots = if elements.len() + 2 <= MAX_ELEMENTS {
                elements
                    .iter()
                    .enumerate()
                    .filter(|(_, e)| e.kind == ElementKind::AnyTokens)
                    .flat_map(|(k, _)| Place::ALL.map(|place| (k, place)))
                    .collect()
            } else {
                Vec::new()
            };
            Imprecise {
                gold: lines.label(&rule.label),
                rule,
                lines: Vec::new(),
                changes: Vec::new(),
                silent: Vec::new(),
                slots,
                words: Some(Vec::new()),
            }
        })
        .collect();
    if out.is_empty() {
        return out;
    }
    let system = &file.system;
    let default = system.default_label().map(|id| id.index());
    let gold_rank: Vec<Option<usize>> = lines
        .labels
        .iter()
        .map(|label| system.label_by_name(label).map(|id| id.index()))
        .collect();
    let (mut scratch, mut outcome) = (Scratch::default(), Default::default());
    for (line, text) in lines.texts.iter().enumerate() {
        system.classify_with(text, &mut scratch, &mut outcome);
        for rule in &mut out {
            let p = rule.rule.pattern;
            if !outcome.matched[p] {
                continue;
            }
            let matched = |q: PatternId| q.index() != p && outcome.matched[q.index()];
            let silent = (0..system.labels().len())
                .find(|&i| system.label_formula(LabelId(i as u32)).eval(&matched));
            let predicted = silent.or(default);
            let right = predicted.is_some() && predicted == gold_rank[lines.gold[line]];
            rule.lines.push(line as u32);
            rule.silent.push(silent);
            rule.changes.push(match (standing.correct[line], right) {
                (false, true) => Change::Fixes,
                (true, false) => Change::Breaks,
                _ => Change::Same,
            });
            let tokens = &lines.tokens[line];
            let run = (!rule.slots.is_empty() && scratch.symbols.len() == tokens.len())
                .then(|| rule.rule.elements.run(&scratch.symbols, system.alphabet()))
                .flatten();
            match (run, &mut rule.words) {
                (Some(run), Some(words)) => words.push(
                    rule.slots
                        .iter()
                        .map(|&(k, place)| {
                            let mut ids: Vec<u32> = positions(&run, k, place)
                                .into_iter()
                                .map(|i| tokens[i])
                                .filter(|&id| lines.vocabulary[id as usize].1 == TokenKind::Word)
                                .collect();
                            ids.sort_unstable();
                            ids.dedup();
                            ids
                        })
                        .collect(),
                ),
                _ => rule.words = None,
            }
        }
    }
    out
}

/// The narrowings of the imprecise rules of the file, each the best of its kind for its
/// rule and passing the floors; at most `max_measured`, the largest train gain first.
pub(super) fn narrowings(
    file: &RulesFile,
    lines: &Lines,
    standing: &Standing,
    config: &SuggestConfig,
) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for rule in imprecise(file, lines, standing, config) {
        let removal = rule.removal(file, lines);
        let Some(estimate) = removal.estimate else {
            continue;
        };
        if estimate.gain() > 0 {
            out.push(removal);
        }
        out.extend(rule.relabeling(file, lines, standing, config));
        // A rule whose silence makes no line wrong is best removed: a narrowing fixes no
        // more lines.
        if estimate.broken > 0 {
            out.extend(rule.exceptions(file, lines, config));
            out.extend(rule.literal(file, lines, config));
        }
    }
    out.sort_by(|a, b| {
        let (a_estimate, b_estimate) = (
            a.estimate.unwrap_or_default(),
            b.estimate.unwrap_or_default(),
        );
        (b_estimate.gain(), a_estimate.broken)
            .cmp(&(a_estimate.gain(), b_estimate.broken))
            .then_with(|| {
                let (a, b) = (a.describe(), b.describe());
                a.len().cmp(&b.len()).then(a.cmp(&b))
            })
    });
    out.truncate(config.max_measured);
    out
}

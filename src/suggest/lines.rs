//! A labeled corpus as the suggestion engine reads it: each line's tokens as interned ids
//! (numbers also marked, for `%`), its gold label, and an index from token to the lines
//! holding it; and [`Standing`], what a rule system predicts for each line, from which the
//! effect of one more rule is computed without classifying again.

use super::cancel::Cancel;
use crate::automata::{Classification, CompileConfig, RuleSystem, Scratch};
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::text::{SourceText, TokenKind, Tokens};
use std::collections::HashMap;

/// One element of a candidate rule: a literal token, any number token (`%`), or one of a
/// set of tokens (`( a | b )`, ids ascending).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Element {
    Token(u32),
    Number,
    AnyOf(Vec<u32>),
}

/// The labeled lines of a corpus, tokenized once.
#[derive(Debug, Default)]
pub struct Lines {
    /// Per line, its tokens' ids.
    pub tokens: Vec<Vec<u32>>,
    /// Per line, the index of its gold label in [`Lines::labels`].
    pub gold: Vec<usize>,
    /// Every gold label, in order of first appearance.
    pub labels: Vec<String>,
    /// Per token id: its text and kind.
    pub vocabulary: Vec<(String, TokenKind)>,
    /// Per token id: the lines holding it, ascending, each once.
    pub postings: Vec<Vec<u32>>,
    /// Per line: its text.
    pub texts: Vec<String>,
    /// Per line: its zero-based line in the corpus file.
    pub file_lines: Vec<u32>,
    ids: HashMap<String, u32>,
}

impl Lines {
    /// The labeled examples of a corpus (unlabeled ones are left out).
    pub fn new(examples: &[Example]) -> Lines {
        Lines::read(examples, Cancel::NEVER).expect("Cancel::NEVER never stops")
    }

    /// [`Lines::new`], polling `cancel` at every example: `None` when it says stop.
    pub(super) fn read(examples: &[Example], cancel: Cancel) -> Option<Lines> {
        let mut lines = Lines::default();
        let mut tokens = Tokens::default();
        let mut label_ids: HashMap<String, usize> = HashMap::new();
        for example in examples {
            cancel.check()?;
            let Some(label) = example.label.as_deref() else {
                continue;
            };
            let gold = *label_ids.entry(label.to_string()).or_insert_with(|| {
                lines.labels.push(label.to_string());
                lines.labels.len() - 1
            });
            let line = lines.tokens.len() as u32;
            tokens.tokenize(&example.text);
            let ids: Vec<u32> = tokens
                .iter()
                .map(|token| lines.intern(token.text, token.kind))
                .collect();
            for &id in &ids {
                let postings = &mut lines.postings[id as usize];
                if postings.last() != Some(&line) {
                    postings.push(line);
                }
            }
            lines.tokens.push(ids);
            lines.gold.push(gold);
            lines.texts.push(example.text.clone());
            lines.file_lines.push(example.line);
        }
        Some(lines)
    }

    fn intern(&mut self, text: &str, kind: TokenKind) -> u32 {
        if let Some(&id) = self.ids.get(text) {
            return id;
        }
        let id = self.vocabulary.len() as u32;
        self.ids.insert(text.to_string(), id);
        self.vocabulary.push((text.to_string(), kind));
        self.postings.push(Vec::new());
        id
    }

    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The id of a token, if some line has it.
    pub fn id(&self, text: &str) -> Option<u32> {
        self.ids.get(text).copied()
    }

    /// The element a token stands for in a rule: numbers as `%`, other tokens as themselves.
    pub fn element(&self, id: u32) -> Element {
        match self.vocabulary[id as usize].1 {
            TokenKind::Number => Element::Number,
            _ => Element::Token(id),
        }
    }

    /// Whether the token `id` is punctuation.
    pub fn is_punct(&self, id: u32) -> bool {
        self.vocabulary[id as usize].1 == TokenKind::Punct
    }

    /// Whether the token at `position` of `line` is `element`.
    pub fn is(&self, line: usize, position: usize, element: &Element) -> bool {
        let id = self.tokens[line][position];
        match element {
            Element::Token(wanted) => id == *wanted,
            Element::Number => self.vocabulary[id as usize].1 == TokenKind::Number,
            Element::AnyOf(ids) => ids.binary_search(&id).is_ok(),
        }
    }

    /// The gold label index of `name`, if some line has it.
    pub fn label(&self, name: &str) -> Option<usize> {
        self.labels.iter().position(|label| label == name)
    }
}

/// What a rule system predicts for each line of [`Lines`], and the priority of its labels.
#[derive(Debug, Clone)]
pub struct Standing {
    /// Per line: the rank (in the system's priority order) of the first label that fires,
    /// `None` when none does.
    pub winner: Vec<Option<usize>>,
    /// Per line: the ranks of the labels that fire, as bits (bit `r` for rank `r`); empty
    /// when the system has more than [`Standing::MAX_RANKED`] labels.
    pub fired: Vec<u64>,
    /// Per line: whether the prediction is the gold label.
    pub correct: Vec<bool>,
    /// The system's labels in priority order.
    pub ranks: Vec<String>,
    /// Per pattern of the system: what it matches.
    pub patterns: Vec<PatternStanding>,
}

/// What one pattern of a rule system matches on the lines.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PatternStanding {
    /// Lines it matches.
    pub matches: usize,
    /// Of them, lines with one of the labels it votes for.
    pub correct_matches: usize,
    /// Of them, lines one of its labels wins, wrongly: all a removal of the pattern can fix.
    pub wrong_wins: usize,
}

impl Standing {
    /// The most labels whose firing is kept per line in [`Standing::fired`].
    pub const MAX_RANKED: usize = 64;

    /// Classifies every line with `system`.
    pub fn new(system: &RuleSystem, lines: &Lines) -> Standing {
        Standing::measure(system, lines, Cancel::NEVER).expect("Cancel::NEVER never stops")
    }

    /// [`Standing::new`], polling `cancel` at every line: `None` when it says stop.
    pub(super) fn measure(system: &RuleSystem, lines: &Lines, cancel: Cancel) -> Option<Standing> {
        let ranks = system.labels().to_vec();
        let rank_of_gold: Vec<Option<usize>> = lines
            .labels
            .iter()
            .map(|label| ranks.iter().position(|name| name == label))
            .collect();
        let mut scratch = Scratch::default();
        let mut outcome = Default::default();
        let mut winner = Vec::with_capacity(lines.len());
        let mut correct = Vec::with_capacity(lines.len());
        let ranked = ranks.len() <= Self::MAX_RANKED;
        let mut fired = Vec::with_capacity(if ranked { lines.len() } else { 0 });
        let mut patterns = vec![PatternStanding::default(); system.patterns().len()];
        for (line, text) in lines.texts.iter().enumerate() {
            cancel.check()?;
            system.classify_with(text, &mut scratch, &mut outcome);
            let gold = rank_of_gold[lines.gold[line]];
            let first = outcome.fired.iter().position(|&fired| fired);
            let compiled = system.patterns().iter().zip(&mut patterns);
            for (i, (pattern, standing)) in compiled.enumerate() {
                if outcome.matched[i] {
                    let votes = |rank: Option<usize>| {
                        pattern
                            .labels
                            .iter()
                            .any(|label| Some(label.index()) == rank)
                    };
                    standing.matches += 1;
                    standing.correct_matches += usize::from(votes(gold));
                    standing.wrong_wins += usize::from(first != gold && votes(first));
                }
            }
            winner.push(first);
            if ranked {
                fired.push(
                    outcome
                        .fired
                        .iter()
                        .enumerate()
                        .filter(|&(_, &fires)| fires)
                        .fold(0u64, |bits, (rank, _)| bits | 1 << rank),
                );
            }
            let predicted = first.or(system.default_label().map(|id| id.index()));
            correct.push(predicted.is_some() && predicted == rank_of_gold[lines.gold[line]]);
        }
        Some(Standing {
            winner,
            fired,
            correct,
            ranks,
            patterns,
        })
    }

    /// Share of lines predicted right.
    pub fn accuracy(&self) -> f64 {
        self.correct.iter().filter(|&&c| c).count() as f64 / self.correct.len().max(1) as f64
    }

    /// The rank a rule for `label` would have: its own, or last for a new label.
    pub fn rank_for(&self, label: &str) -> usize {
        self.ranks
            .iter()
            .position(|name| name == label)
            .unwrap_or(self.ranks.len())
    }

    /// Whether `line` would be predicted as the label of rank `rank` once that label fires
    /// there.
    pub fn wins(&self, line: usize, rank: usize) -> bool {
        self.winner[line].is_none_or(|winner| winner >= rank)
    }
}

/// Per train line, whether the rule `label: regex` alone matches it; `None` when it does
/// not compile.
pub(super) fn matches_alone(label: &str, regex: &str, lines: &Lines) -> Option<Vec<bool>> {
    let file = RulesFile::analyze(
        SourceText::from_bytes(format!("{label}: {regex}\n").as_bytes()),
        None,
        &CompileConfig::MEASURING,
    );
    if file.has_errors() {
        return None;
    }
    let (mut scratch, mut outcome) = (Scratch::default(), Classification::default());
    Some(
        lines
            .texts
            .iter()
            .map(|text| {
                file.system.classify_with(text, &mut scratch, &mut outcome);
                outcome.matched.first() == Some(&true)
            })
            .collect(),
    )
}

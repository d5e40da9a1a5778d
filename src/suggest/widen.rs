//! Widening: a rule `LABEL: REGEX` that almost matches lines of its label, failing at one
//! element only (`automata::PatternElements`: one token in that element's place, or `$*`
//! in a gap's place, would complete the match), gets that element widened: a literal or
//! word set takes the words seen at the failing position (`$* how &* $? ( much | many ) $*`
//! becomes `$* how &* $? ( much | many | deep | fast ) $*`), or becomes `$`, `%` or `&`, and
//! a `$` gap (`$?`, `${1,3}`, `$`) becomes `$*`.
//!
//! The words are found on the train lines the rules get wrong for the label (and the label
//! would win once the rule matches); each word, and each class or gap widening, is then
//! counted over the whole train corpus ([`Estimate`], exact for a rule `LABEL: REGEX`: the
//! lines it gains are those its widened element completes). A word joins the set only if
//! the rule with that word alone in the element's place passes the floors of
//! [`SuggestConfig`], as a new rule must; a class or gap widening likewise. A line can gain
//! a match only if it holds a literal of every other element that needs one, so only those
//! lines are run.
//!
//! What is not widened, and why (`docs/results.md` has the runs):
//! - a word set between two `$*`: there every token of the gap is a slot, so the words of
//!   every line are tried, and some are precise on train by chance (`$* won $* prize $*`
//!   gets no word set from the corpus; the editor's widening for one line, where the author
//!   picks, does offer `( prize | voucher )`);
//! - `$` beside a `$*`, which says next to nothing there;
//! - a rule whose only element that needs a token is the failing one (widening it would be
//!   a new rule, which induction proposes), or with more than [`MAX_ELEMENTS`] elements;
//! - a rule the engine wrote itself in this run ([`super::refine`]'s added and widened
//!   rules): it is fitted to the train lines already, and widening it fits it again with
//!   looser shapes than induction allows (`$* to % $*` into `$* ( to | call | on | from |
//!   … ) % $*`), which on SMS took the place of better rules.
//!
//! Widened regexes stay readable: at most [`MAX_ELEMENTS`] elements, word sets of at most
//! [`MAX_SET_WORDS`] words, and no star inside a star (only top-level elements change).
//! [`widen_for_line`] is the same widening for one line, for the editor.

use super::cancel::Cancel;
use super::candidate::{Candidate, Edit, Estimate, Source};
use super::config::SuggestConfig;
use super::file_rules::{MAX_ELEMENTS, Rule, rules_of};
use super::lines::{Lines, Standing};
use super::shape::{MAX_SET_WORDS, estimate_of};
use crate::automata::{Alphabet, ElementKind, ElementRun, Leaf, SymbolId};
use crate::rules_file::RulesFile;
use crate::syntax::spell_token;
use crate::text::TokenKind;
use std::collections::{BTreeMap, HashMap};
use text_size::{TextRange, TextSize};

/// A word a widening adds: its text and kind.
pub(super) type Word = (String, TokenKind);

/// What an element becomes.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Widening {
    /// Its words and these, as a word set.
    Words(Vec<Word>),
    /// `$`, `%` or `&`.
    Class(Class),
    /// `$*`, in place of a gap.
    AnyTokens,
}

impl Widening {
    /// How much it lets in, in order: words, `%` or `&`, `$`, `$*`.
    pub(super) fn breadth(&self) -> usize {
        match self {
            Widening::Words(_) => 0,
            Widening::Class(Class::Number | Class::Punct) => 1,
            Widening::Class(Class::Any) => 2,
            Widening::AnyTokens => 3,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(super) enum Class {
    Any,
    Number,
    Punct,
}

impl Class {
    fn accepts(self, kind: TokenKind) -> bool {
        match self {
            Class::Any => true,
            Class::Number => kind == TokenKind::Number,
            Class::Punct => kind == TokenKind::Punct,
        }
    }

    fn spelled(self) -> &'static str {
        match self {
            Class::Any => "$",
            Class::Number => "%",
            Class::Punct => "&",
        }
    }
}

/// What a widening is for: the train corpus (the producer), or one line (the editor).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scope {
    Corpus,
    Line,
}

impl Rule {
    /// The widenings of element `k` worth trying, by its kind; none when the element is
    /// the pattern's only one that needs a token (the widened rule would have no context).
    /// `$` only where no neighbour is `$*` (beside one it says next to nothing); for the
    /// train corpus, word sets only where a neighbour is not `$*`, so that the slot has a
    /// place in the line (between two `$*` every token of the gap is a slot, and a word
    /// precise there by chance joins the set: one of many tried per line).
    pub(super) fn widenings_of(&self, k: usize, scope: Scope) -> Vec<Widening> {
        let elements = &self.elements.elements;
        let context = elements
            .iter()
            .enumerate()
            .any(|(i, e)| i != k && !e.nullable);
        if !context || elements.len() > MAX_ELEMENTS {
            return Vec::new();
        }
        let element = &elements[k];
        if element.is_gap() {
            return vec![Widening::AnyTokens];
        }
        let ElementKind::OneToken(leaves) = &element.kind else {
            return Vec::new();
        };
        let literal_kinds: Option<Vec<TokenKind>> = leaves
            .iter()
            .map(|leaf| match leaf {
                Leaf::Literal { kind, .. } => Some(*kind),
                _ => None,
            })
            .collect();
        // Whether each side is `$*` (a side without an element is the sentence's end).
        let any_tokens = |i: Option<usize>| {
            i.and_then(|i| elements.get(i))
                .is_some_and(|e| e.kind == ElementKind::AnyTokens)
        };
        let sides = [any_tokens(k.checked_sub(1)), any_tokens(Some(k + 1))];
        let pinned = sides.contains(&false);
        let mut out = Vec::new();
        if let Some(kinds) = literal_kinds {
            if leaves.len() < MAX_SET_WORDS && (pinned || scope == Scope::Line) {
                out.push(Widening::Words(Vec::new()));
            }
            if kinds.iter().all(|&k| k == TokenKind::Number) {
                out.push(Widening::Class(Class::Number));
            }
            if kinds.iter().all(|&k| k == TokenKind::Punct) {
                out.push(Widening::Class(Class::Punct));
            }
        }
        if !leaves.contains(&Leaf::Any) && !sides.contains(&true) {
            out.push(Widening::Class(Class::Any));
        }
        out
    }

    /// Whether `widening` of element `k` makes the pattern match the line of `run`, whose
    /// tokens' texts and kinds `token` gives.
    pub(super) fn completes<'t>(
        &self,
        run: &ElementRun<'_>,
        k: usize,
        widening: &Widening,
        token: impl Fn(usize) -> (&'t str, TokenKind),
    ) -> bool {
        match widening {
            Widening::AnyTokens => run.bridged(k),
            Widening::Class(class) => run.slots(k).any(|i| class.accepts(token(i).1)),
            Widening::Words(words) => run
                .slots(k)
                .any(|i| words.iter().any(|(text, _)| text == token(i).0)),
        }
    }

    /// The element `k` widened, as written in the regex.
    fn spelled(&self, k: usize, widening: &Widening) -> String {
        match widening {
            Widening::AnyTokens => "$*".to_string(),
            Widening::Class(class) => class.spelled().to_string(),
            Widening::Words(words) => {
                let mut all = self.elements.elements[k].first.clone();
                all.extend(words.iter().map(|(text, kind)| spell_token(*kind, text)));
                format!("( {} )", all.join(" | "))
            }
        }
    }

    /// The edit that widens element `k`.
    fn edit(&self, text: &str, k: usize, widening: &Widening) -> Option<Edit> {
        let element = with_parentheses(text, self.elements.elements[k].range, self.regex)?;
        let (start, end) = (
            usize::from(self.regex.start()),
            usize::from(self.regex.end()),
        );
        let (from, to) = (usize::from(element.start()), usize::from(element.end()));
        let old = text.get(start..end)?;
        let new = format!(
            "{}{}{}",
            text.get(start..from)?,
            self.spelled(k, widening),
            text.get(to..end)?
        );
        Some(Edit::ReplaceRegex {
            label: self.label.clone(),
            line: self.line,
            old: old.to_string(),
            new,
            range: self.regex,
        })
    }
}

/// `range` grown over the parentheses that enclose it alone, inside `within`; `None` when
/// `range` is not inside `within` (a statement the parser recovered).
fn with_parentheses(text: &str, range: TextRange, within: TextRange) -> Option<TextRange> {
    let (mut start, mut end) = (usize::from(range.start()), usize::from(range.end()));
    let (lower, upper) = (usize::from(within.start()), usize::from(within.end()));
    loop {
        let before = text.get(lower..start)?.trim_end();
        let after = text.get(end..upper)?.trim_start();
        if !(before.ends_with('(') && after.starts_with(')')) {
            break;
        }
        start = lower + before.len() - 1;
        end = upper - after.len() + 1;
    }
    Some(TextRange::new(
        TextSize::from(start as u32),
        TextSize::from(end as u32),
    ))
}

/// The lines in the symbols of a rule system's alphabet.
pub(super) fn symbolize(lines: &Lines, alphabet: &Alphabet) -> Vec<Vec<SymbolId>> {
    let by_id: Vec<SymbolId> = lines
        .vocabulary
        .iter()
        .map(|(text, kind)| alphabet.find(text).unwrap_or(Alphabet::other(*kind)))
        .collect();
    lines
        .tokens
        .iter()
        .map(|tokens| tokens.iter().map(|&id| by_id[id as usize]).collect())
        .collect()
}

/// One rule on the train lines: each line's run, computed once.
pub(super) struct OnLines<'a> {
    rule: &'a Rule,
    lines: &'a Lines,
    alphabet: &'a Alphabet,
    symbols: &'a [Vec<SymbolId>],
    runs: HashMap<usize, Option<ElementRun<'a>>>,
    /// Per element: the lines holding a literal of it, when it needs one of its literals.
    needed: Vec<Option<Vec<u32>>>,
}

impl<'a> OnLines<'a> {
    pub(super) fn new(
        rule: &'a Rule,
        lines: &'a Lines,
        alphabet: &'a Alphabet,
        symbols: &'a [Vec<SymbolId>],
    ) -> OnLines<'a> {
        let needed = rule
            .elements
            .elements
            .iter()
            .map(|element| {
                let ElementKind::OneToken(leaves) = &element.kind else {
                    return None;
                };
                let mut holding = Vec::new();
                for leaf in leaves {
                    let Leaf::Literal { text, .. } = leaf else {
                        return None;
                    };
                    if let Some(id) = lines.id(text) {
                        holding.extend_from_slice(&lines.postings[id as usize]);
                    }
                }
                holding.sort_unstable();
                holding.dedup();
                Some(holding)
            })
            .collect();
        OnLines {
            rule,
            lines,
            alphabet,
            symbols,
            runs: HashMap::new(),
            needed,
        }
    }

    /// The run on `line`, when the pattern does not match it already.
    fn unmatched_run(&mut self, line: usize) -> Option<&ElementRun<'a>> {
        let (rule, alphabet, symbols) = (self.rule, self.alphabet, self.symbols);
        let run = self.runs.entry(line).or_insert_with(|| {
            let run = rule.elements.run(&symbols[line], alphabet)?;
            (!run.matches()).then_some(run)
        });
        run.as_ref()
    }

    /// The lines where widening element `k` may complete a match: those holding a literal
    /// of every other element that needs one (and, for words, one of them).
    fn may_gain(&self, k: usize, widening: &Widening) -> Vec<u32> {
        let mut sets: Vec<&[u32]> = self
            .needed
            .iter()
            .enumerate()
            .filter(|&(i, _)| i != k)
            .filter_map(|(_, needed)| needed.as_deref())
            .collect();
        let word_lines;
        if let Widening::Words(words) = widening {
            let mut holding: Vec<u32> = words
                .iter()
                .filter_map(|(text, _)| self.lines.id(text))
                .flat_map(|id| self.lines.postings[id as usize].iter().copied())
                .collect();
            holding.sort_unstable();
            holding.dedup();
            word_lines = holding;
            sets.push(&word_lines);
        }
        sets.sort_by_key(|set| set.len());
        let Some((first, rest)) = sets.split_first() else {
            return (0..self.lines.len() as u32).collect();
        };
        first
            .iter()
            .copied()
            .filter(|line| rest.iter().all(|set| set.binary_search(line).is_ok()))
            .collect()
    }

    /// The lines that widening element `k` makes the pattern match, ascending.
    pub(super) fn gained(&mut self, k: usize, widening: &Widening) -> Vec<u32> {
        let lines = self.lines;
        let rule = self.rule;
        self.may_gain(k, widening)
            .into_iter()
            .filter(|&line| {
                let tokens = &lines.tokens[line as usize];
                let token = |i: usize| {
                    let (text, kind) = &lines.vocabulary[tokens[i] as usize];
                    (text.as_str(), *kind)
                };
                self.unmatched_run(line as usize)
                    .is_some_and(|run| rule.completes(run, k, widening, token))
            })
            .collect()
    }
}

/// The widenings of the rules of the file, each passing the floors of `config`, but for
/// the rules the engine wrote itself (`written`, as (label, regex)): those are fitted to the
/// train lines already, and widening one would fit it again with looser shapes than
/// induction allows. `None` when `cancel` says stop (polled for each line read and each
/// widening counted).
pub(super) fn widen(
    file: &RulesFile,
    lines: &Lines,
    standing: &Standing,
    config: &SuggestConfig,
    written: &[(String, String)],
    cancel: Cancel,
) -> Option<Vec<Candidate>> {
    let symbols = symbolize(lines, file.system.alphabet());
    let mut out = Vec::new();
    let text = &file.source.text;
    for rule in rules_of(file, None) {
        cancel.check()?;
        let regex = &text[std::ops::Range::<usize>::from(rule.regex)];
        if written
            .iter()
            .any(|(label, r)| *label == rule.label && r == regex)
        {
            continue;
        }
        let Some(gold) = lines.label(&rule.label) else {
            continue;
        };
        let rank = standing.rank_for(&rule.label);
        let mut on = OnLines::new(&rule, lines, file.system.alphabet(), &symbols);
        // What each widening would fix among the lines wrong for the label.
        let mut fixing: BTreeMap<(usize, Widening), usize> = BTreeMap::new();
        for line in 0..lines.len() {
            cancel.check()?;
            if lines.gold[line] != gold || standing.correct[line] || !standing.wins(line, rank) {
                continue;
            }
            let Some(run) = on.unmatched_run(line) else {
                continue;
            };
            let tokens = &lines.tokens[line];
            for k in 0..rule.elements.elements.len() {
                for widening in rule.widenings_of(k, Scope::Corpus) {
                    let found: Vec<Widening> = match widening {
                        Widening::Words(_) => {
                            let mut words: Vec<Widening> = run
                                .slots(k)
                                .map(|i| {
                                    let (text, kind) = &lines.vocabulary[tokens[i] as usize];
                                    Widening::Words(vec![(text.clone(), *kind)])
                                })
                                .collect();
                            words.sort();
                            words.dedup();
                            words
                        }
                        other => {
                            let token = |i: usize| {
                                let (text, kind) = &lines.vocabulary[tokens[i] as usize];
                                (text.as_str(), *kind)
                            };
                            if rule.completes(run, k, &other, token) {
                                vec![other]
                            } else {
                                Vec::new()
                            }
                        }
                    };
                    for widening in found {
                        *fixing.entry((k, widening)).or_default() += 1;
                    }
                }
            }
        }
        // Each widening counted over the whole corpus; words gathered into one set per
        // element.
        let mut words: BTreeMap<usize, Vec<PreciseWord>> = BTreeMap::new();
        for ((k, widening), fixes) in fixing {
            cancel.check()?;
            // Each word on its own is the rule with that word in the element's place: it
            // passes the floors a new rule passes.
            if fixes < config.min_fixed {
                continue;
            }
            let gained = on.gained(k, &widening);
            let estimate = estimate_of(lines, standing, &gained, gold, rank);
            if !passes(&estimate, config) {
                continue;
            }
            match widening {
                Widening::Words(mut word) => {
                    let word = word.pop().expect("one word");
                    words.entry(k).or_default().push(PreciseWord {
                        word,
                        gained,
                        estimate,
                    });
                }
                widening => out.extend(candidate(file, &rule, k, &widening, estimate)),
            }
        }
        for (k, mut precise) in words {
            precise.sort_by(|a, b| {
                (b.estimate.fixed.cmp(&a.estimate.fixed)).then(a.word.cmp(&b.word))
            });
            let room = MAX_SET_WORDS.saturating_sub(rule.elements.elements[k].first.len());
            precise.truncate(room);
            let mut gained: Vec<u32> = precise.iter().flat_map(|w| w.gained.clone()).collect();
            gained.sort_unstable();
            gained.dedup();
            let estimate = estimate_of(lines, standing, &gained, gold, rank);
            let widening = Widening::Words(precise.into_iter().map(|w| w.word).collect());
            if passes(&estimate, config) {
                out.extend(candidate(file, &rule, k, &widening, estimate));
            }
        }
    }
    Some(out)
}

/// A word that fixes lines precisely on its own in one element's place.
struct PreciseWord {
    word: Word,
    /// The lines it gains, ascending.
    gained: Vec<u32>,
    estimate: Estimate,
}

/// Whether a widening passes the floors of a new rule.
pub(super) fn passes(estimate: &Estimate, config: &SuggestConfig) -> bool {
    estimate.fixed >= config.min_fixed
        && estimate.gain() > 0
        && estimate.precision() >= config.min_precision
}

pub(super) fn candidate(
    file: &RulesFile,
    rule: &Rule,
    k: usize,
    widening: &Widening,
    estimate: Estimate,
) -> Option<Candidate> {
    Some(Candidate {
        source: Source::Widening,
        edit: rule.edit(&file.source.text, k, widening)?,
        estimate: Some(estimate),
    })
}

//! Searching the product of several DFAs for a token sequence that reaches a goal.
//!
//! The language checks ask questions such as "is there a sentence that fires no label?".
//! The answer is a walk through the product automaton of the patterns involved, over the
//! coarsest partition of the alphabet that all of them respect. Best-first: without guides
//! the search is breadth-first (the witness is a shortest one); with guide DFAs it is A*
//! with the smallest distance to acceptance among the guides as the heuristic, which finds
//! a sentence matching a long pattern without enumerating all short sentences first.
//! States from which the goal is out of reach for good are not expanded: a pattern in its
//! dead state never matches again, one in an accepting sink always matches, and Kleene's
//! three-valued logic over those settles formulas early. The work is capped in DFA
//! transitions computed; passing the cap gives [`Search::GaveUp`], never a hang.

use super::alphabet::{Alphabet, SymbolId};
use super::dfa::{Dfa, StateId};
use super::rule_system::RuleSystem;
use crate::syntax::{Formula, PatternId};
use crate::text::TokenKind;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap, HashSet, VecDeque};

/// The outcome of a product search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Search {
    /// A symbol sequence whose product state satisfies the goal.
    Found(Vec<SymbolId>),
    /// No reachable product state satisfies the goal.
    Exhausted,
    /// The work budget ran out first.
    GaveUp,
}

/// What to search for: a product state in which every `must_fire` formula is true and
/// every `must_not_fire` formula is false.
pub(crate) struct Query<'a> {
    /// The rule system's alphabet, over which the DFAs read.
    pub(crate) alphabet: &'a Alphabet,
    pub(crate) dfas: &'a [&'a Dfa],
    /// Where each pattern's DFA is in `dfas`; a pattern missing here never matches.
    pub(crate) position: &'a HashMap<PatternId, usize>,
    pub(crate) must_fire: &'a [&'a Formula],
    pub(crate) must_not_fire: &'a [&'a Formula],
    /// Indices into `dfas` whose distance to acceptance orders the search.
    pub(crate) guides: &'a [usize],
    /// Most DFA transitions to compute.
    pub(crate) max_steps: usize,
}

impl Query<'_> {
    /// Whether a pattern matches for every continuation from this product state (`Some`:
    /// dead, or in an accepting sink), or may still change (`None`).
    fn settled(&self, states: &[StateId], pattern: PatternId) -> Option<bool> {
        let Some(&i) = self.position.get(&pattern) else {
            return Some(false);
        };
        let (dfa, state) = (self.dfas[i], states[i]);
        if dfa.is_accepting_sink(state) {
            Some(true)
        } else if dfa.dead_state() == Some(state) {
            Some(false)
        } else {
            None
        }
    }

    fn holds(&self, states: &[StateId]) -> bool {
        let matched = |pattern: PatternId| {
            self.position
                .get(&pattern)
                .is_some_and(|&i| self.dfas[i].is_accepting(states[i]))
        };
        self.must_fire.iter().all(|f| f.eval(&matched))
            && self.must_not_fire.iter().all(|f| !f.eval(&matched))
    }

    /// Whether no continuation from this state can reach the goal.
    fn dead_end(&self, states: &[StateId]) -> bool {
        let settled = |pattern| self.settled(states, pattern);
        self.must_fire
            .iter()
            .any(|f| eval3(f, &settled) == Some(false))
            || self
                .must_not_fire
                .iter()
                .any(|f| eval3(f, &settled) == Some(true))
    }
}

/// Kleene's three-valued evaluation: `None` is "not settled yet".
fn eval3(formula: &Formula, settled: &impl Fn(PatternId) -> Option<bool>) -> Option<bool> {
    match formula {
        Formula::Pattern(pattern) => settled(*pattern),
        Formula::Not(inner) => eval3(inner, settled).map(|value| !value),
        Formula::And(items) => {
            let mut result = Some(true);
            for item in items {
                match eval3(item, settled) {
                    Some(false) => return Some(false),
                    None => result = None,
                    Some(true) => {}
                }
            }
            result
        }
        Formula::Or(items) => {
            let mut result = Some(false);
            for item in items {
                match eval3(item, settled) {
                    Some(true) => return Some(true),
                    None => result = None,
                    Some(false) => {}
                }
            }
            result
        }
        Formula::False => Some(false),
    }
}

/// Searches the product of `query.dfas` for a state where the goal holds.
pub(crate) fn search(query: &Query<'_>) -> Search {
    search_counting(query).0
}

/// [`search`], with the DFA transitions it computed (what counts against
/// `query.max_steps`), for callers that share one budget between many searches.
pub(crate) fn search_counting(query: &Query<'_>) -> (Search, usize) {
    let dfas = query.dfas;
    // One representative symbol per class of the product partition: the "other" symbols
    // and the literals some DFA tells apart meet every class.
    let mut candidates = vec![
        Alphabet::OTHER_WORD,
        Alphabet::OTHER_NUMBER,
        Alphabet::OTHER_PUNCT,
    ];
    candidates.extend(dfas.iter().flat_map(|dfa| dfa.distinguished_symbols()));
    candidates.sort_unstable();
    candidates.dedup();
    // Telling the candidates apart costs a class lookup per DFA each, which counts against
    // the budget like a transition: a product of many patterns gives up here.
    let mut steps = dfas.len().saturating_mul(candidates.len());
    if steps > query.max_steps {
        return (Search::GaveUp, query.max_steps);
    }
    let alphabet = query.alphabet;
    let mut seen: HashSet<Vec<usize>> = HashSet::new();
    let representatives: Vec<SymbolId> = candidates
        .into_iter()
        .filter(|&symbol| {
            seen.insert(
                dfas.iter()
                    .map(|dfa| dfa.class_of(symbol, alphabet))
                    .collect(),
            )
        })
        .collect();
    let distances: Vec<(usize, Vec<Option<usize>>)> = query
        .guides
        .iter()
        .map(|&g| (g, distance_to_accept(dfas[g])))
        .collect();
    let heuristic = |states: &[StateId]| -> usize {
        distances
            .iter()
            .filter_map(|(g, distance)| distance[states[*g].index()])
            .min()
            .unwrap_or(0)
    };

    let start: Vec<StateId> = dfas.iter().map(|dfa| dfa.start()).collect();
    let mut states: Vec<Vec<StateId>> = vec![start.clone()];
    let mut parents: Vec<Option<(usize, SymbolId)>> = vec![None];
    let mut depth: Vec<usize> = vec![0];
    let mut index: HashMap<Vec<StateId>, usize> = HashMap::from([(start.clone(), 0)]);
    let mut queue = BinaryHeap::new();
    if !query.dead_end(&start) {
        queue.push(Reverse((heuristic(&start), 0usize)));
    }
    let step_cost = dfas.len().max(1) * representatives.len();
    while let Some(Reverse((_, id))) = queue.pop() {
        if query.holds(&states[id]) {
            let mut word = Vec::new();
            let mut at = id;
            while let Some((parent, symbol)) = parents[at] {
                word.push(symbol);
                at = parent;
            }
            word.reverse();
            return (Search::Found(word), steps);
        }
        steps += step_cost;
        if steps > query.max_steps {
            return (Search::GaveUp, query.max_steps);
        }
        for &symbol in &representatives {
            let next: Vec<StateId> = states[id]
                .iter()
                .zip(dfas)
                .map(|(&state, dfa)| dfa.next(state, symbol, alphabet))
                .collect();
            if index.contains_key(&next) {
                continue;
            }
            let next_id = states.len();
            let expand = !query.dead_end(&next);
            index.insert(next.clone(), next_id);
            states.push(next);
            parents.push(Some((id, symbol)));
            depth.push(depth[id] + 1);
            if expand {
                let h = heuristic(&states[next_id]);
                queue.push(Reverse((depth[next_id] + h, next_id)));
            }
        }
    }
    (Search::Exhausted, steps)
}

/// Up to `limit` of the shortest accepted symbol sequences of `dfa`, shortest first,
/// spelled with one symbol per class (the "other" symbols where they belong to it).
pub(crate) fn short_words(dfa: &Dfa, alphabet: &Alphabet, limit: usize) -> Vec<Vec<SymbolId>> {
    let mut seen = HashSet::new();
    let mut symbols = vec![
        Alphabet::OTHER_WORD,
        Alphabet::OTHER_NUMBER,
        Alphabet::OTHER_PUNCT,
    ];
    symbols.extend(dfa.distinguished_symbols());
    symbols.retain(|&symbol| seen.insert(dfa.class_of(symbol, alphabet)));
    let distance = distance_to_accept(dfa);
    let mut words = Vec::new();
    let mut queue = VecDeque::from([(dfa.start(), Vec::new())]);
    let mut budget = limit * 64;
    while let Some((state, word)) = queue.pop_front() {
        if dfa.is_accepting(state) {
            words.push(word.clone());
            if words.len() == limit {
                break;
            }
        }
        for &symbol in &symbols {
            let next = dfa.next(state, symbol, alphabet);
            if distance[next.index()].is_none() || budget == 0 {
                continue;
            }
            budget -= 1;
            let mut longer = word.clone();
            longer.push(symbol);
            queue.push_back((next, longer));
        }
    }
    words
}

/// The length of the shortest sentence `dfa` accepts, `None` when it accepts none.
pub(crate) fn shortest_length(dfa: &Dfa) -> Option<usize> {
    distance_to_accept(dfa)[dfa.start().index()]
}

/// Per state: the fewest tokens to an accepting state, `None` when unreachable.
fn distance_to_accept(dfa: &Dfa) -> Vec<Option<usize>> {
    let n = dfa.n_states();
    let mut predecessors = vec![Vec::new(); n];
    for s in 0..n {
        for c in 0..dfa.n_classes() {
            let t = dfa.next_by_class(StateId(s as u32), c);
            predecessors[t.index()].push(s);
        }
    }
    let mut distance = vec![None; n];
    let mut queue = VecDeque::new();
    for (s, d) in distance.iter_mut().enumerate() {
        if dfa.is_accepting(StateId(s as u32)) {
            *d = Some(0);
            queue.push_back(s);
        }
    }
    while let Some(t) = queue.pop_front() {
        let d = distance[t].unwrap_or(0);
        for &s in &predecessors[t] {
            if distance[s].is_none() {
                distance[s] = Some(d + 1);
                queue.push_back(s);
            }
        }
    }
    distance
}

/// A readable text for a symbol sequence: literals as themselves, the "other" classes as
/// a word, number or punctuation token that is not a literal of the rules.
pub(crate) fn witness_text(alphabet: &Alphabet, word: &[SymbolId]) -> String {
    let pick = |candidates: &[&'static str], kind: TokenKind| -> String {
        candidates
            .iter()
            .find(|c| {
                alphabet.symbol(crate::text::Token {
                    kind,
                    text: c,
                    range: Default::default(),
                }) == Alphabet::other(kind)
            })
            .map_or_else(|| "…".to_string(), |c| c.to_string())
    };
    word.iter()
        .map(|&symbol| match alphabet.literal(symbol) {
            Some(text) => text.to_string(),
            None => match alphabet.kind(symbol) {
                TokenKind::Word => {
                    pick(&["something", "whatever", "blah", "xyzzy"], TokenKind::Word)
                }
                TokenKind::Number => pick(&["7", "42", "1234", "98765"], TokenKind::Number),
                TokenKind::Punct => pick(&[".", ",", ";", "~", "^", "§"], TokenKind::Punct),
            },
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The DFAs of the given patterns (those that compiled), and each pattern's position.
pub(super) fn product<'s>(
    system: &'s RuleSystem,
    patterns: &[PatternId],
) -> (Vec<&'s Dfa>, HashMap<PatternId, usize>) {
    let mut dfas = Vec::new();
    let mut position = HashMap::new();
    for &pattern in patterns {
        if position.contains_key(&pattern) {
            continue;
        }
        if let Some(dfa) = &system.patterns[pattern.index()].dfa {
            position.insert(pattern, dfas.len());
            dfas.push(dfa);
        }
    }
    (dfas, position)
}

/// The patterns the formulas read, with repeats.
pub(super) fn patterns_of<'f>(formulas: impl IntoIterator<Item = &'f Formula>) -> Vec<PatternId> {
    let mut patterns = Vec::new();
    for formula in formulas {
        formula.visit(true, &mut |pattern, _| patterns.push(pattern));
    }
    patterns
}

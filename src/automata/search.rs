//! Searching the product of several DFAs for a token sequence that reaches a goal.
//!
//! The language checks ask questions such as "is there a sentence that fires no label?".
//! The answer is a walk through the product automaton of the patterns involved, over the
//! coarsest partition of the alphabet that all of them respect. Best-first: without a
//! guide the search is breadth-first (the witness is a shortest one); with a guide DFA it
//! is A* with the guide's distance to acceptance as the heuristic, which finds a sentence
//! matching a long pattern without enumerating all short sentences first. The number of
//! product states is capped; passing the cap gives [`Search::GaveUp`], never a hang.

use super::alphabet::{Alphabet, SymbolId};
use super::dfa::{Dfa, StateId};
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
    /// The state cap was reached first.
    GaveUp,
}

/// Searches the product of `dfas` for a state where `goal` holds. With `guide`, states in
/// which that DFA is dead are not expanded (the goal must require the guide to accept).
pub(crate) fn search(
    alphabet: &Alphabet,
    dfas: &[&Dfa],
    goal: impl Fn(&[StateId]) -> bool,
    guide: Option<usize>,
    max_states: usize,
) -> Search {
    // One representative symbol per class of the product partition.
    let mut seen: HashSet<Vec<usize>> = HashSet::new();
    let representatives: Vec<SymbolId> = alphabet
        .ids()
        .filter(|&symbol| seen.insert(dfas.iter().map(|dfa| dfa.class_of(symbol)).collect()))
        .collect();
    let distance = guide.map(|g| distance_to_accept(dfas[g]));
    let heuristic = |states: &[StateId]| -> Option<usize> {
        match (guide, &distance) {
            (Some(g), Some(distance)) => distance[states[g].index()],
            _ => Some(0),
        }
    };

    let start: Vec<StateId> = dfas.iter().map(|dfa| dfa.start()).collect();
    let mut states: Vec<Vec<StateId>> = vec![start.clone()];
    let mut parents: Vec<Option<(usize, SymbolId)>> = vec![None];
    let mut depth: Vec<usize> = vec![0];
    let mut index: HashMap<Vec<StateId>, usize> = HashMap::from([(start.clone(), 0)]);
    let mut queue = BinaryHeap::new();
    if let Some(h) = heuristic(&start) {
        queue.push(Reverse((h, 0usize)));
    }
    while let Some(Reverse((_, id))) = queue.pop() {
        if goal(&states[id]) {
            let mut word = Vec::new();
            let mut at = id;
            while let Some((parent, symbol)) = parents[at] {
                word.push(symbol);
                at = parent;
            }
            word.reverse();
            return Search::Found(word);
        }
        for &symbol in &representatives {
            let next: Vec<StateId> = states[id]
                .iter()
                .zip(dfas)
                .map(|(&state, dfa)| dfa.next(state, symbol))
                .collect();
            if index.contains_key(&next) {
                continue;
            }
            let Some(h) = heuristic(&next) else {
                continue;
            };
            if states.len() >= max_states {
                return Search::GaveUp;
            }
            let next_id = states.len();
            index.insert(next.clone(), next_id);
            states.push(next);
            parents.push(Some((id, symbol)));
            depth.push(depth[id] + 1);
            queue.push(Reverse((depth[next_id] + h, next_id)));
        }
    }
    Search::Exhausted
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

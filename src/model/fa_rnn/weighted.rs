//! The rule system as one weighted automaton (Jiang et al. 2020, §3.1 and appendix B).
//!
//! Each pattern's minimal DFA, without its dead state, is one block of a block-diagonal
//! automaton with K states in all. The start vector marks every pattern's start state (so
//! every pattern runs at once, with no BOS fan-out), and one final vector per pattern marks
//! its accepting states: after reading a sentence, the state vector's product with pattern
//! p's final vector is 1 when p matches and 0 otherwise.
//!
//! Transitions are never stored as a V×K×K tensor. A token's transition matrix depends only
//! on its symbol in the rules' alphabet, and most symbols (every word the rules do not
//! name) behave alike, so the automaton keeps the wildcard matrix W = T(any other word)
//! (appendix B's shared `$` matrix) and the symbol tensor of differences
//! T1[s] = T(s) − W, as a list of its nonzero entries: T(x) = W + T1[symbol(x)]. A literal
//! that leaves a `$*` loop contributes +1 on its edge and −1 on the loop it leaves, which
//! keeps T1's CP rank near one per literal edge.

use crate::automata::{Alphabet, RuleSystem, SymbolId};
use std::ops::Range;

/// One nonzero entry of the symbol tensor T1: reading `symbol` in `from` adds `weight`
/// (+1 or −1) to the wildcard's weight of the edge to `to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transition {
    pub symbol: SymbolId,
    pub from: u32,
    pub to: u32,
    pub weight: f32,
}

/// A block-diagonal weighted automaton over a rule system's alphabet.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedAutomaton {
    /// K: total number of states.
    pub n_states: usize,
    /// S: number of symbols of the alphabet.
    pub n_symbols: usize,
    /// Per pattern, its states' range in 0..K (empty for a pattern that matches nothing or
    /// whose automaton was too large).
    pub pattern_states: Vec<Range<usize>>,
    /// Length K: 1 at every pattern's start state.
    pub start: Vec<f32>,
    /// K × P, row-major: `finals[k * P + p]` is 1 when state k is accepting for pattern p.
    pub finals: Vec<f32>,
    /// K × K, row-major: the transitions of a word the rules do not name.
    pub wildcard: Vec<f32>,
    /// The nonzero entries of T1, sorted by symbol, then source, then target.
    pub transitions: Vec<Transition>,
}

impl WeightedAutomaton {
    /// Builds the automaton of a rule system.
    ///
    /// ```
    /// let text = "default ham\nspam: $* free $*\n";
    /// let parse = rulelens::syntax::parse(text);
    /// let (rules, _) = rulelens::syntax::lower(&parse, text);
    /// let (system, _) = rulelens::automata::compile(&rules, &Default::default());
    /// let automaton = rulelens::model::WeightedAutomaton::new(&system);
    /// assert_eq!(automaton.n_states, 2);
    /// // Other words stay; `free` leaves state 0: +1 to state 1, −1 on the loop.
    /// assert_eq!(automaton.wildcard, [1.0, 0.0, 0.0, 1.0]);
    /// assert_eq!(automaton.transitions.len(), 2);
    /// ```
    pub fn new(system: &RuleSystem) -> WeightedAutomaton {
        let alphabet = system.alphabet();
        let n_patterns = system.patterns().len();
        let pattern_states = pattern_blocks(system);
        let n_states = pattern_states.last().map_or(0, |block| block.end);
        // Per pattern: live DFA state → global index.
        let index_of: Vec<Vec<Option<u32>>> = system
            .patterns()
            .iter()
            .zip(&pattern_states)
            .map(|(pattern, block)| {
                let Some(dfa) = &pattern.dfa else {
                    return Vec::new();
                };
                let mut local = vec![None; dfa.n_states()];
                for (state, index) in dfa.live_states().zip(block.clone()) {
                    local[state.index()] = Some(index as u32);
                }
                local
            })
            .collect();
        let mut start = vec![0.0; n_states];
        let mut finals = vec![0.0; n_states * n_patterns];
        let mut wildcard = vec![0.0; n_states * n_states];
        let mut transitions = Vec::new();
        for (p, pattern) in system.patterns().iter().enumerate() {
            let Some(dfa) = &pattern.dfa else { continue };
            let local = &index_of[p];
            if let Some(s) = local[dfa.start().index()] {
                start[s as usize] = 1.0;
            }
            for state in dfa.live_states() {
                let Some(from) = local[state.index()] else {
                    continue;
                };
                if dfa.is_accepting(state) {
                    finals[from as usize * n_patterns + p] = 1.0;
                }
                let target = |symbol| local[dfa.next(state, symbol, alphabet).index()];
                let other = target(Alphabet::OTHER_WORD);
                if let Some(to) = other {
                    wildcard[from as usize * n_states + to as usize] = 1.0;
                }
                for symbol in alphabet.ids() {
                    let to = target(symbol);
                    if to == other {
                        continue;
                    }
                    if let Some(to) = to {
                        transitions.push(Transition {
                            symbol,
                            from,
                            to,
                            weight: 1.0,
                        });
                    }
                    if let Some(to) = other {
                        transitions.push(Transition {
                            symbol,
                            from,
                            to,
                            weight: -1.0,
                        });
                    }
                }
            }
        }
        transitions.sort_by_key(|t| (t.symbol, t.from, t.to));
        WeightedAutomaton {
            n_states,
            n_symbols: alphabet.len(),
            pattern_states,
            start,
            finals,
            wildcard,
            transitions,
        }
    }

    /// Number of patterns (columns of `finals`).
    pub fn n_patterns(&self) -> usize {
        self.pattern_states.len()
    }

    /// Runs the automaton exactly (dense vectors, no decomposition) and returns each
    /// pattern's score: the forward weight of the whole sentence, 1 or 0.
    pub fn pattern_scores(&self, symbols: &[SymbolId]) -> Vec<f32> {
        let k = self.n_states;
        let mut h = self.start.clone();
        let mut next = vec![0.0f32; k];
        for &symbol in symbols {
            next.iter_mut().for_each(|x| *x = 0.0);
            for (i, &weight) in h.iter().enumerate().filter(|(_, w)| **w != 0.0) {
                let row = &self.wildcard[i * k..(i + 1) * k];
                for (out, &edge) in next.iter_mut().zip(row) {
                    *out += weight * edge;
                }
            }
            let first = self.transitions.partition_point(|t| t.symbol < symbol);
            for t in self.transitions[first..]
                .iter()
                .take_while(|t| t.symbol == symbol)
            {
                next[t.to as usize] += t.weight * h[t.from as usize];
            }
            std::mem::swap(&mut h, &mut next);
        }
        let p = self.n_patterns();
        (0..p)
            .map(|pattern| (0..k).map(|i| h[i] * self.finals[i * p + pattern]).sum())
            .collect()
    }
}

/// Each pattern's states in the network, in pattern order: one per live state of its DFA
/// (none for a pattern that matches nothing or whose automaton was too large). They cover
/// 0..K in order, and no transition leaves its block.
pub fn pattern_blocks(system: &RuleSystem) -> Vec<Range<usize>> {
    let mut next = 0;
    system
        .patterns()
        .iter()
        .map(|pattern| {
            let start = next;
            next += pattern
                .dfa
                .as_ref()
                .map_or(0, |dfa| dfa.live_states().count());
            start..next
        })
        .collect()
}

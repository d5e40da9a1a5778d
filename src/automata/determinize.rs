//! Subset construction from a Thompson NFA to a complete DFA over symbol classes.
//!
//! Before determinizing, the global alphabet is cut into the pattern's own classes:
//! two symbols belong to one class when every atom of the NFA treats them alike. A pattern
//! such as `$* won $*` has two classes (`won`, everything else) however many literals the
//! whole rule system has, so the subset construction runs over a handful of classes. Only
//! the symbols the pattern mentions are listed, every other symbol being in the class of
//! its kind's "other" symbol, so nothing here grows with the alphabet.
//!
//! The construction is the textbook one (ε-closures of NFA state sets, one DFA state per
//! distinct set, the empty set kept as the dead state so that the DFA is complete). It is
//! exponential in the worst case (`$* a $ $ $ … $` has 2^n states); the number of DFA
//! states is capped, and passing the cap returns [`TooLarge`] rather than exhausting
//! memory. Minimization is in `minimize.rs`.

use super::alphabet::{Alphabet, Atom, SymbolId};
use super::nfa::{Nfa, NfaState, TooLarge};
use std::collections::HashMap;

/// A complete DFA as the subset construction makes it; state 0 is the start.
#[derive(Debug, Clone)]
pub(crate) struct RawDfa {
    /// The symbols the NFA tells apart, sorted: the three "other" symbols, then the
    /// literals it mentions; every other symbol is in the class of its kind's "other".
    pub(crate) symbols: Vec<SymbolId>,
    /// The class of each of `symbols`.
    pub(crate) symbol_classes: Vec<u16>,
    pub(crate) n_classes: usize,
    /// `table[state * n_classes + class]` is the next state.
    pub(crate) table: Vec<u32>,
    pub(crate) accepting: Vec<bool>,
    /// The NFA-state visits the construction took (each state's subset once per class).
    pub(crate) work: usize,
}

/// NFA states the subset construction may visit per DFA state it is allowed: the work of
/// building a DFA (each state's subset, once per class) is capped at `max_states` times
/// this, since subsets of thousands of NFA states make even a DFA under the state cap
/// slow to build (`$* (a+{1000}){4} $*` took 29 s and 758 MB before this cap).
pub(crate) const SUBSET_WORK_PER_STATE: usize = 2_000;

/// Determinizes `nfa`, with at most `max_states` DFA states and
/// `max_states ×` [`SUBSET_WORK_PER_STATE`] NFA-state visits.
pub(crate) fn determinize(
    nfa: &Nfa,
    alphabet: &Alphabet,
    max_states: usize,
) -> Result<RawDfa, TooLarge> {
    let (symbols, symbol_classes, accepts, atom_index, n_classes) = classes(nfa, alphabet)?;
    let n_atoms = accepts.len() / n_classes.max(1);

    let mut closure = Closure::new(nfa.states.len());
    let mut sets: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut queue: Vec<Vec<u32>> = Vec::new();
    let start = closure.of(nfa, [nfa.start].into_iter());
    sets.insert(start.clone(), 0);
    queue.push(start);
    let mut table = Vec::new();
    let mut accepting = Vec::new();
    let mut next_targets = Vec::new();
    let mut done = 0;
    let budget = max_states.saturating_mul(SUBSET_WORK_PER_STATE);
    let mut work = 0usize;
    while done < queue.len() {
        let set = queue[done].clone();
        done += 1;
        work = work.saturating_add(set.len().saturating_mul(n_classes));
        if work > budget {
            return Err(TooLarge);
        }
        accepting.push(
            set.iter()
                .any(|&s| matches!(nfa.states[s as usize], NfaState::Accept)),
        );
        for class in 0..n_classes {
            next_targets.clear();
            for &s in &set {
                if let NfaState::Atom(_, target) = nfa.states[s as usize] {
                    let atom = atom_index[s as usize] as usize;
                    if accepts[class * n_atoms + atom] {
                        next_targets.push(target);
                    }
                }
            }
            let next = closure.of(nfa, next_targets.iter().copied());
            let id = match sets.get(&next) {
                Some(&id) => id,
                None => {
                    if queue.len() >= max_states {
                        return Err(TooLarge);
                    }
                    let id = queue.len() as u32;
                    sets.insert(next.clone(), id);
                    queue.push(next);
                    id
                }
            };
            table.push(id);
        }
    }
    Ok(RawDfa {
        symbols,
        symbol_classes,
        n_classes,
        table,
        accepting,
        work,
    })
}

/// The pattern's symbol classes: (the symbols it tells apart, their classes,
/// `accepts[class * n_atoms + atom]`, NFA state → atom index, number of classes). Work and
/// memory grow with the NFA, not with the alphabet.
#[allow(clippy::type_complexity)]
fn classes(
    nfa: &Nfa,
    alphabet: &Alphabet,
) -> Result<(Vec<SymbolId>, Vec<u16>, Vec<bool>, Vec<u32>, usize), TooLarge> {
    let mut atoms: Vec<Atom> = Vec::new();
    let mut atom_index = vec![u32::MAX; nfa.states.len()];
    for (i, state) in nfa.states.iter().enumerate() {
        if let NfaState::Atom(atom, _) = state {
            atom_index[i] = atoms.len() as u32;
            atoms.push(*atom);
        }
    }
    // Candidates: the three "other" classes and every literal the NFA mentions. A symbol
    // the NFA does not mention behaves like the "other" class of its kind.
    let mut candidates = vec![
        Alphabet::OTHER_WORD,
        Alphabet::OTHER_NUMBER,
        Alphabet::OTHER_PUNCT,
    ];
    for atom in &atoms {
        match *atom {
            Atom::Symbol(id) => candidates.push(id),
            Atom::OneOf(set) => candidates.extend_from_slice(alphabet.set(set)),
            Atom::Any | Atom::Number | Atom::Punct | Atom::Nothing => {}
        }
    }
    candidates.sort_unstable();
    candidates.dedup();

    let mut by_signature: HashMap<Vec<bool>, u16> = HashMap::new();
    let mut accepts = Vec::new();
    let mut class_of_candidate = Vec::with_capacity(candidates.len());
    for &symbol in &candidates {
        let signature: Vec<bool> = atoms.iter().map(|&a| alphabet.accepts(a, symbol)).collect();
        let n = by_signature.len();
        if n >= usize::from(u16::MAX) {
            return Err(TooLarge);
        }
        let class = *by_signature.entry(signature.clone()).or_insert_with(|| {
            accepts.extend_from_slice(&signature);
            n as u16
        });
        class_of_candidate.push(class);
    }
    let n_classes = by_signature.len();
    Ok((
        candidates,
        class_of_candidate,
        accepts,
        atom_index,
        n_classes,
    ))
}

/// ε-closure with a reusable visited stamp; keeps only atom and accept states, sorted.
struct Closure {
    stamp: Vec<u32>,
    generation: u32,
    stack: Vec<u32>,
}

impl Closure {
    fn new(n_states: usize) -> Closure {
        Closure {
            stamp: vec![0; n_states],
            generation: 0,
            stack: Vec::new(),
        }
    }

    fn of(&mut self, nfa: &Nfa, from: impl Iterator<Item = u32>) -> Vec<u32> {
        self.generation += 1;
        let mut set = Vec::new();
        self.stack.extend(from);
        while let Some(s) = self.stack.pop() {
            if self.stamp[s as usize] == self.generation {
                continue;
            }
            self.stamp[s as usize] = self.generation;
            match &nfa.states[s as usize] {
                NfaState::Epsilon(targets) => self.stack.extend(targets.iter().copied()),
                NfaState::Atom(..) | NfaState::Accept => set.push(s),
            }
        }
        set.sort_unstable();
        set
    }
}

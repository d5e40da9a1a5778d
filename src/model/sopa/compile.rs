//! Rules compiled to soft patterns: a rule whose regex is a chain fits SoPa's linear shape.
//! A chain's elements are one-token regexes (literals, alternations of literals, word lists
//! of single tokens, `$`, `%`, `&`), each optional or not (`x?`), with repeated one-token regexes (`x*`, `$*` gaps)
//! between them. Each element is a main-path transition, an optional one also an
//! ε-transition past it, and a repetition a self-loop on the state between its neighbours.
//! A rule must match the whole sentence and a soft pattern matches any span, so an end
//! without `$*` is anchored by a transition on the START or END padding token.
//!
//! SoPa takes at most one ε-transition before each token and a match cannot end with one
//! (papers-brief §2.4), so two optional elements in a row, or an optional last element of
//! a chain open at its end, do not fit. Any regex that does not fit keeps its exact DFA.

use super::spec::MAX_PATTERN_STATES;
use crate::automata::{Alphabet, Atom, SymbolId};
use crate::syntax::ast::{Regex, RegexKind};

/// What one transition of a chain accepts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Accepts {
    /// The tokens any of these atoms accepts.
    Tokens(Vec<Atom>),
    /// The padding token before the sentence.
    Start,
    /// The padding token after it.
    End,
}

/// A token of a padded sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Padded {
    Start,
    Token(SymbolId),
    End,
}

/// A rule's regex as a soft pattern's shape: `elements[i]` takes state i to i + 1 (and
/// when `optional[i]`, an ε-transition too); state i loops on the tokens of `loops[i]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    pub elements: Vec<Accepts>,
    /// One per element.
    pub optional: Vec<bool>,
    /// One per state (elements + 1); empty where the state has no self-loop.
    pub loops: Vec<Vec<Atom>>,
}

impl Chain {
    pub fn n_states(&self) -> usize {
        self.elements.len() + 1
    }

    /// Whether a transition of `accepts` takes `token`.
    pub fn accepts(alphabet: &Alphabet, accepts: &Accepts, token: Padded) -> bool {
        match (accepts, token) {
            (Accepts::Tokens(atoms), Padded::Token(symbol)) => {
                atoms.iter().any(|&atom| alphabet.accepts(atom, symbol))
            }
            (Accepts::Start, Padded::Start) | (Accepts::End, Padded::End) => true,
            _ => false,
        }
    }
}

/// A piece of a flattened regex.
#[derive(Debug)]
enum Piece {
    Element { atoms: Vec<Atom>, optional: bool },
    Loop(Vec<Atom>),
}

impl Piece {
    fn is_gap(&self) -> bool {
        matches!(self, Piece::Loop(atoms) if atoms.contains(&Atom::Any))
    }
}

/// The chain of `regex`, or `None` when it is not one (or has more than
/// [`MAX_PATTERN_STATES`] states, or no token element).
pub fn chain(regex: &Regex, alphabet: &Alphabet) -> Option<Chain> {
    let mut pieces = Vec::new();
    flatten(regex, alphabet, &mut pieces)?;
    let open_start = pieces.first().is_some_and(Piece::is_gap);
    let open_end = pieces.last().is_some_and(Piece::is_gap);
    let mut chain = Chain {
        elements: Vec::new(),
        optional: Vec::new(),
        loops: vec![Vec::new()],
    };
    let push = |chain: &mut Chain, accepts: Accepts, optional: bool| {
        chain.elements.push(accepts);
        chain.optional.push(optional);
        chain.loops.push(Vec::new());
    };
    if !open_start {
        push(&mut chain, Accepts::Start, false);
    }
    for piece in pieces {
        match piece {
            Piece::Element { atoms, optional } => {
                push(&mut chain, Accepts::Tokens(atoms), optional);
            }
            Piece::Loop(atoms) => {
                let state = chain.loops.last_mut().expect("one state at least");
                state.extend(atoms);
            }
        }
    }
    if open_end {
        // Whatever follows the last element matches: the match may end right there.
        chain.loops.last_mut().expect("one state at least").clear();
    } else {
        push(&mut chain, Accepts::End, false);
    }
    if open_start {
        // State 0 restarts at every token: its loop adds nothing.
        chain.loops[0].clear();
    }
    // At most one ε before a token, and none at the end of a match.
    let optional = &chain.optional;
    if optional.windows(2).any(|pair| pair[0] && pair[1]) || optional.last() == Some(&true) {
        return None;
    }
    if !chain
        .elements
        .iter()
        .any(|e| matches!(e, Accepts::Tokens(_)))
    {
        return None;
    }
    (chain.n_states() <= MAX_PATTERN_STATES).then_some(chain)
}

/// Appends `regex` as elements and loops; `None` when it is not a chain.
fn flatten(regex: &Regex, alphabet: &Alphabet, out: &mut Vec<Piece>) -> Option<()> {
    match &regex.kind {
        RegexKind::Concat(items) => {
            for item in items {
                flatten(item, alphabet, out)?;
            }
        }
        RegexKind::Repeat { inner, min, max } => {
            let atoms = atoms(inner, alphabet)?;
            if *min as usize >= MAX_PATTERN_STATES {
                return None;
            }
            for _ in 0..*min {
                out.push(Piece::Element {
                    atoms: atoms.clone(),
                    optional: false,
                });
            }
            match max {
                None => out.push(Piece::Loop(atoms)),
                Some(max) if max == min => {}
                Some(max) if *max == min + 1 => out.push(Piece::Element {
                    atoms,
                    optional: true,
                }),
                Some(_) => return None,
            }
        }
        _ => out.push(Piece::Element {
            atoms: atoms(regex, alphabet)?,
            optional: false,
        }),
    }
    Some(())
}

/// What a one-token regex accepts; `None` for any other.
fn atoms(regex: &Regex, alphabet: &Alphabet) -> Option<Vec<Atom>> {
    Some(match &regex.kind {
        RegexKind::Word(text) | RegexKind::Quoted(text) => {
            vec![alphabet.find(text).map_or(Atom::Nothing, Atom::Symbol)]
        }
        RegexKind::Any => vec![Atom::Any],
        RegexKind::Number => vec![Atom::Number],
        RegexKind::Punct => vec![Atom::Punct],
        RegexKind::Alt(items) => {
            let mut all = Vec::new();
            for item in items {
                all.extend(atoms(item, alphabet)?);
            }
            all
        }
        RegexKind::Concat(items) if items.len() == 1 => atoms(&items[0], alphabet)?,
        // A list of single tokens is one transition (the set its automaton uses).
        RegexKind::WordList(reference) => {
            let list = reference.list.as_ref()?;
            let mut symbols = Vec::with_capacity(list.entries.len());
            for entry in &list.entries {
                match entry.as_slice() {
                    [token] => symbols.extend(alphabet.find(token)),
                    _ => return None,
                }
            }
            match alphabet.find_set(symbols.clone()) {
                Some(set) => vec![Atom::OneOf(set)],
                None if symbols.is_empty() => vec![Atom::Nothing],
                None => symbols.into_iter().map(Atom::Symbol).collect(),
            }
        }
        _ => return None,
    })
}

//! Thompson's construction: a token regex becomes an ε-NFA over [`Atom`]s.
//!
//! One state per atom plus O(1) ε-states per operator; `x{m,n}` is expanded into m copies
//! of `x` and n−m nested optional copies, `x{m,}`-style loops into a star. Literals are
//! interned into the [`Alphabet`]; a literal the tokenizer cannot produce becomes
//! [`Atom::Nothing`]. A word list (`@cities`) becomes the trie of its entries, whose
//! one-token endings share one [`Atom::OneOf`] transition per trie node. The number of
//! states is capped: a regex whose expansion would pass the cap is rejected with
//! [`TooLarge`] instead of exhausting memory.
//! [`build_elements`] builds the NFA of a pattern's elements over a finished alphabet and
//! remembers the state between each two elements, for `why_not`.

use super::alphabet::{Alphabet, Atom, SymbolId};
use crate::syntax::{Literal, ast, classify_literal};

#[derive(Debug, Clone)]
pub(crate) enum NfaState {
    /// ε-transitions to these states.
    Epsilon(Vec<u32>),
    /// One token accepted by the atom, then the target.
    Atom(Atom, u32),
    Accept,
}

/// An ε-NFA with one start and one accepting state.
#[derive(Debug, Clone)]
pub(crate) struct Nfa {
    pub(crate) states: Vec<NfaState>,
    pub(crate) start: u32,
}

/// A word list's entries as a trie of symbols.
#[derive(Default)]
struct Trie {
    ends_entry: bool,
    children: std::collections::BTreeMap<SymbolId, Trie>,
}

impl Trie {
    fn insert(&mut self, symbols: &[SymbolId]) {
        match symbols.split_first() {
            Some((first, rest)) => self.children.entry(*first).or_default().insert(rest),
            None => self.ends_entry = true,
        }
    }
}

/// The NFA would need more than the allowed number of states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TooLarge;

/// Builds the NFA of the concatenation of `items` (a whole regex is a one-item slice),
/// interning its literals into `alphabet`.
pub(crate) fn build(
    items: &[&ast::Regex],
    alphabet: &mut Alphabet,
    max_states: usize,
) -> Result<Nfa, TooLarge> {
    build_with(items, Literals::Intern(alphabet), max_states)
}

/// [`build`] over a finished `alphabet`: the same NFA where [`build`] has interned
/// `items`' literals into it before (a literal it lacks accepts nothing).
pub(crate) fn build_over(
    items: &[&ast::Regex],
    alphabet: &Alphabet,
    max_states: usize,
) -> Result<Nfa, TooLarge> {
    build_with(items, Literals::Look(alphabet), max_states)
}

fn build_with(
    items: &[&ast::Regex],
    literals: Literals<'_>,
    max_states: usize,
) -> Result<Nfa, TooLarge> {
    let mut builder = Builder {
        states: Vec::new(),
        literals,
        max_states,
    };
    let (start, end) = builder.concat(items.iter().copied())?;
    let accept = builder.push(NfaState::Accept)?;
    builder.connect(end, accept);
    Ok(Nfa {
        states: builder.states,
        start,
    })
}

/// The NFA of the concatenation of `items` over a finished `alphabet` (a literal it lacks
/// accepts nothing), and the state between each two items: `boundaries[k]` is an ε-state
/// that a run reaches exactly after reading a sentence of `items[..k]`, and from which it
/// accepts exactly after reading a sentence of `items[k..]` (Thompson fragments are entered
/// only at their start and left only at their end).
pub(crate) fn build_elements(
    items: &[&ast::Regex],
    alphabet: &Alphabet,
    max_states: usize,
) -> Result<(Nfa, Vec<u32>), TooLarge> {
    let mut builder = Builder {
        states: Vec::new(),
        literals: Literals::Look(alphabet),
        max_states,
    };
    let start = builder.empty()?;
    let mut boundaries = Vec::with_capacity(items.len() + 1);
    boundaries.push(start);
    let mut end = start;
    for item in items {
        let (s, e) = builder.regex(item)?;
        builder.connect(end, s);
        end = e;
        boundaries.push(end);
    }
    let accept = builder.push(NfaState::Accept)?;
    builder.connect(end, accept);
    let nfa = Nfa {
        states: builder.states,
        start,
    };
    Ok((nfa, boundaries))
}

/// Where a literal's symbol comes from: interned into the alphabet being built, or looked
/// up in a finished one.
enum Literals<'a> {
    Intern(&'a mut Alphabet),
    Look(&'a Alphabet),
}

struct Builder<'a> {
    states: Vec<NfaState>,
    literals: Literals<'a>,
    max_states: usize,
}

impl Builder<'_> {
    fn push(&mut self, state: NfaState) -> Result<u32, TooLarge> {
        if self.states.len() >= self.max_states {
            return Err(TooLarge);
        }
        self.states.push(state);
        Ok(self.states.len() as u32 - 1)
    }

    fn empty(&mut self) -> Result<u32, TooLarge> {
        self.push(NfaState::Epsilon(Vec::new()))
    }

    /// Adds an ε-edge from `from`, which must be an ε-state.
    fn connect(&mut self, from: u32, to: u32) {
        if let NfaState::Epsilon(targets) = &mut self.states[from as usize] {
            targets.push(to);
        }
    }

    /// A fragment: (start state, end ε-state to be connected onwards).
    fn regex(&mut self, regex: &ast::Regex) -> Result<(u32, u32), TooLarge> {
        match &regex.kind {
            ast::RegexKind::Word(text) | ast::RegexKind::Quoted(text) => {
                let quoted = matches!(regex.kind, ast::RegexKind::Quoted(_));
                let atom = self
                    .literal(text, quoted)
                    .map_or(Atom::Nothing, Atom::Symbol);
                self.atom(atom)
            }
            ast::RegexKind::WordList(reference) => match &reference.list {
                Some(list) => {
                    let mut trie = Trie::default();
                    for entry in &list.entries {
                        let symbols: Option<Vec<SymbolId>> = entry
                            .iter()
                            .map(|token| self.literal(token, true))
                            .collect();
                        // An entry with a token the alphabet lacks matches nothing.
                        if let Some(symbols) = symbols {
                            trie.insert(&symbols);
                        }
                    }
                    self.trie(&trie)
                }
                None => self.atom(Atom::Nothing),
            },
            ast::RegexKind::Any => self.atom(Atom::Any),
            ast::RegexKind::Number => self.atom(Atom::Number),
            ast::RegexKind::Punct => self.atom(Atom::Punct),
            ast::RegexKind::Error => self.atom(Atom::Nothing),
            ast::RegexKind::Concat(items) => self.concat(items.iter()),
            ast::RegexKind::Alt(branches) => {
                let start = self.empty()?;
                let end = self.empty()?;
                for branch in branches {
                    let (s, e) = self.regex(branch)?;
                    self.connect(start, s);
                    self.connect(e, end);
                }
                Ok((start, end))
            }
            ast::RegexKind::Repeat { inner, min, max } => {
                let start = self.empty()?;
                let mut end = start;
                for _ in 0..*min {
                    let (s, e) = self.regex(inner)?;
                    self.connect(end, s);
                    end = e;
                }
                match max {
                    None => {
                        // Star: loop back through a hub state.
                        let hub = self.empty()?;
                        let (s, e) = self.regex(inner)?;
                        self.connect(end, hub);
                        self.connect(hub, s);
                        self.connect(e, hub);
                        let exit = self.empty()?;
                        self.connect(hub, exit);
                        end = exit;
                    }
                    Some(max) => {
                        let exit = self.empty()?;
                        for _ in *min..*max {
                            let (s, e) = self.regex(inner)?;
                            self.connect(end, s);
                            self.connect(end, exit);
                            end = e;
                        }
                        self.connect(end, exit);
                        end = exit;
                    }
                }
                Ok((start, end))
            }
        }
    }

    /// The symbol of a literal written in a rule, `None` when it matches no token (the
    /// tokenizer never produces it, or a finished alphabet lacks it).
    fn literal(&mut self, text: &str, quoted: bool) -> Option<SymbolId> {
        match classify_literal(text, quoted, Default::default()) {
            Literal::Token(kind) => match &mut self.literals {
                Literals::Intern(alphabet) => Some(alphabet.intern(text, kind)),
                Literals::Look(alphabet) => alphabet.find(text),
            },
            Literal::Unproducible(_) => None,
        }
    }

    /// The fragment of a word list's trie: at each node, the children that end an entry
    /// and go no further share one [`Atom::OneOf`] transition, and every other child has
    /// its own, so a list of single words is one transition however long it is.
    fn trie(&mut self, node: &Trie) -> Result<(u32, u32), TooLarge> {
        let start = self.empty()?;
        let end = self.empty()?;
        let (leaves, inner): (Vec<_>, Vec<_>) = node
            .children
            .iter()
            .partition(|(_, child)| child.children.is_empty());
        let leaves: Vec<SymbolId> = leaves.into_iter().map(|(&symbol, _)| symbol).collect();
        if !leaves.is_empty() {
            let atom = match &mut self.literals {
                Literals::Intern(alphabet) => {
                    Some(Atom::OneOf(alphabet.intern_set(leaves.clone())))
                }
                Literals::Look(alphabet) => alphabet.find_set(leaves.clone()).map(Atom::OneOf),
            };
            match atom {
                Some(atom) => {
                    let (s, e) = self.atom(atom)?;
                    self.connect(start, s);
                    self.connect(e, end);
                }
                // A finished alphabet without this set: one transition per literal.
                None => {
                    for symbol in leaves {
                        let (s, e) = self.atom(Atom::Symbol(symbol))?;
                        self.connect(start, s);
                        self.connect(e, end);
                    }
                }
            }
        }
        for (&symbol, child) in inner {
            let (s, e) = self.atom(Atom::Symbol(symbol))?;
            self.connect(start, s);
            if child.ends_entry {
                self.connect(e, end);
            }
            let (rest_start, rest_end) = self.trie(child)?;
            self.connect(e, rest_start);
            self.connect(rest_end, end);
        }
        Ok((start, end))
    }

    fn atom(&mut self, atom: Atom) -> Result<(u32, u32), TooLarge> {
        let end = self.empty()?;
        let start = self.push(NfaState::Atom(atom, end))?;
        Ok((start, end))
    }

    fn concat<'r>(
        &mut self,
        items: impl Iterator<Item = &'r ast::Regex>,
    ) -> Result<(u32, u32), TooLarge> {
        let start = self.empty()?;
        let mut end = start;
        for item in items {
            let (s, e) = self.regex(item)?;
            self.connect(end, s);
            end = e;
        }
        Ok((start, end))
    }
}

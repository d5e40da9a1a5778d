//! The alphabet of a rule system: one symbol per literal used by the rules, plus one class
//! each for "any other word", "any other number" and "any other punctuation token".
//!
//! Every token maps to exactly one symbol, so the automata are deterministic over tokens
//! and `$`, `%` and `&` behave as the spec says: `%` accepts [`Alphabet::OTHER_NUMBER`] and
//! every number literal (a literal `2` in one rule and `%` in another both accept the token
//! `2`), `&` likewise for punctuation, and `$` accepts everything. A lookup is one hash of
//! the token text, with foldhash's randomly seeded quality hasher: about a fifth of
//! SipHash's cost on short words, and still no fixed seed for a corpus to collide against.

use crate::text::{Token, TokenKind, Tokens};
use std::collections::HashMap;

/// A symbol of an [`Alphabet`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SymbolId(pub u32);

impl SymbolId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Symbols: the three "other" classes, then the literals in order of first use.
#[derive(Debug, Clone)]
pub struct Alphabet {
    index: HashMap<Box<str>, SymbolId, foldhash::quality::RandomState>,
    // Invariant: the first three entries are the "other" classes, in the order of the
    // OTHER_* constants; the rest are literals, each in `index`.
    symbols: Vec<(Option<Box<str>>, TokenKind)>,
    /// Sets of literals that one transition accepts ([`Atom::OneOf`]): the one-token entries
    /// of a word list. Each is sorted, and interned by content in `set_index`.
    sets: Vec<Box<[SymbolId]>>,
    set_index: HashMap<Box<[SymbolId]>, SetId, foldhash::quality::RandomState>,
}

/// A set of literals of an [`Alphabet`] ([`Atom::OneOf`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SetId(pub u32);

/// What a single transition of a Thompson NFA accepts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Atom {
    Symbol(SymbolId),
    /// `$`
    Any,
    /// `%`
    Number,
    /// `&`
    Punct,
    /// Any literal of a set: a word list's one-token entries, as one transition however
    /// long the list.
    OneOf(SetId),
    /// A literal the tokenizer never produces, or a part that did not parse.
    Nothing,
}

impl Default for Alphabet {
    fn default() -> Alphabet {
        Alphabet {
            index: HashMap::default(),
            symbols: vec![
                (None, TokenKind::Word),
                (None, TokenKind::Number),
                (None, TokenKind::Punct),
            ],
            sets: Vec::new(),
            set_index: HashMap::default(),
        }
    }
}

impl Alphabet {
    /// Any word that is not a literal of the rules.
    pub const OTHER_WORD: SymbolId = SymbolId(0);
    /// Any number that is not a literal of the rules.
    pub const OTHER_NUMBER: SymbolId = SymbolId(1);
    /// Any punctuation token that is not a literal of the rules.
    pub const OTHER_PUNCT: SymbolId = SymbolId(2);

    /// The symbol of a literal, added on first use.
    pub fn intern(&mut self, text: &str, kind: TokenKind) -> SymbolId {
        if let Some(&id) = self.index.get(text) {
            return id;
        }
        let id = SymbolId(self.symbols.len() as u32);
        self.symbols.push((Some(text.into()), kind));
        self.index.insert(text.into(), id);
        id
    }

    /// The symbol of a literal, if the rules use it.
    pub fn find(&self, text: &str) -> Option<SymbolId> {
        self.index.get(text).copied()
    }

    /// The set of these literals (sorted and deduplicated here), added on first use.
    pub fn intern_set(&mut self, mut symbols: Vec<SymbolId>) -> SetId {
        symbols.sort_unstable();
        symbols.dedup();
        if let Some(&id) = self.set_index.get(symbols.as_slice()) {
            return id;
        }
        let id = SetId(self.sets.len() as u32);
        let symbols: Box<[SymbolId]> = symbols.into();
        self.set_index.insert(symbols.clone(), id);
        self.sets.push(symbols);
        id
    }

    /// The set of these literals, if one was interned.
    pub fn find_set(&self, mut symbols: Vec<SymbolId>) -> Option<SetId> {
        symbols.sort_unstable();
        symbols.dedup();
        self.set_index.get(symbols.as_slice()).copied()
    }

    /// The literals of a set, sorted.
    pub fn set(&self, id: SetId) -> &[SymbolId] {
        &self.sets[id.0 as usize]
    }

    /// The symbol of a token.
    pub fn symbol(&self, token: Token<'_>) -> SymbolId {
        match self.index.get(token.text) {
            Some(&id) => id,
            None => Alphabet::other(token.kind),
        }
    }

    /// The symbols of a token sequence, appended to `out` after clearing it.
    pub fn symbolize(&self, tokens: &Tokens, out: &mut Vec<SymbolId>) {
        out.clear();
        out.extend(tokens.iter().map(|token| self.symbol(token)));
    }

    /// The "other" class of a token kind.
    pub fn other(kind: TokenKind) -> SymbolId {
        match kind {
            TokenKind::Word => Alphabet::OTHER_WORD,
            TokenKind::Number => Alphabet::OTHER_NUMBER,
            TokenKind::Punct => Alphabet::OTHER_PUNCT,
        }
    }

    /// Number of symbols, the three classes included.
    pub fn len(&self) -> usize {
        self.symbols.len()
    }

    /// Always false: the three classes are always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The token kind of every token the symbol stands for.
    pub fn kind(&self, id: SymbolId) -> TokenKind {
        self.symbols[id.index()].1
    }

    /// The literal text of a symbol, `None` for the three classes.
    pub fn literal(&self, id: SymbolId) -> Option<&str> {
        self.symbols[id.index()].0.as_deref()
    }

    /// All symbols in id order.
    pub fn ids(&self) -> impl ExactSizeIterator<Item = SymbolId> + use<> {
        (0..self.symbols.len() as u32).map(SymbolId)
    }

    /// Whether `atom` accepts every token that `symbol` stands for.
    pub fn accepts(&self, atom: Atom, symbol: SymbolId) -> bool {
        match atom {
            Atom::Symbol(id) => id == symbol,
            Atom::Any => true,
            Atom::Number => self.kind(symbol) == TokenKind::Number,
            Atom::Punct => self.kind(symbol) == TokenKind::Punct,
            Atom::OneOf(set) => self.set(set).binary_search(&symbol).is_ok(),
            Atom::Nothing => false,
        }
    }
}

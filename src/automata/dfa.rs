//! Minimal complete DFAs over a rule system's symbol classes, and their graph view.
//!
//! Matching runs on a dense table (`table[state * n_classes + class]`) after finding the
//! token's class: a binary search among the few literals the DFA tells apart, else its
//! kind's "other" class, so a DFA's size never grows with the alphabet; a run stops early
//! in the dead state and in an accepting state nothing leaves. The canonical form (classes numbered by their smallest symbol, states in
//! breadth-first order from the start) makes equal languages give equal values, which is
//! the standard test for language equivalence and what `lint` uses to find duplicates.
//! petgraph serves the graph view only: trimming to useful states and DOT export.

use super::alphabet::{Alphabet, SymbolId};
use petgraph::graph::{DiGraph, NodeIndex};
use petgraph::visit::{Dfs, Reversed};
use std::collections::HashMap;
use std::collections::VecDeque;

/// A DFA state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId(pub u32);

impl StateId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Alphabets up to this many symbols also get a dense class map per DFA (one `u16` per
/// symbol, 8 KiB at most), so that matching reads a token's class with one array read;
/// larger ones, where a map per pattern would make memory quadratic, find it among the
/// few literals a DFA tells apart.
pub const DENSE_CLASS_MAP_MAX_SYMBOLS: usize = 4096;

/// How many table reads [`Dfa::required_literals`] may spend making a pattern's required
/// literals fewer: 4 million, about a millisecond a pattern.
pub const REQUIRED_LITERALS_MAX_WORK: usize = 1 << 22;

/// A minimal complete DFA; the start state is state 0. Equality and hashing compare the
/// language's canonical form only (the dense class map is derived from it).
#[derive(Debug, Clone)]
pub struct Dfa {
    /// The class of each "other" symbol (`Alphabet::OTHER_*`, ids 0 to 2).
    // Invariant: every class id < n_classes.
    other_classes: [u16; 3],
    n_classes: usize,
    // Invariant: table.len() == accepting.len() * n_classes; every entry < accepting.len().
    table: Vec<u32>,
    accepting: Vec<bool>,
    dead: Option<StateId>,
    /// States that accept and never leave: once there, the pattern matches whatever follows.
    accepting_sink: Vec<bool>,
    /// Symbols whose class differs from that of their kind's "other" symbol: the literals
    /// this DFA tells apart, in symbol order. Every other symbol is in its kind's "other"
    /// class, so the DFA's size does not grow with the alphabet.
    distinguished: Vec<SymbolId>,
    /// The class of each of `distinguished`.
    distinguished_classes: Vec<u16>,
    /// Every symbol's class, for alphabets of at most [`DENSE_CLASS_MAP_MAX_SYMBOLS`].
    dense: Option<Box<[u16]>>,
}

impl Dfa {
    /// The fields that make up the canonical form.
    #[allow(clippy::type_complexity)]
    fn canonical_parts(
        &self,
    ) -> (
        &[u16; 3],
        usize,
        &[u32],
        &[bool],
        Option<StateId>,
        &[SymbolId],
        &[u16],
    ) {
        (
            &self.other_classes,
            self.n_classes,
            &self.table,
            &self.accepting,
            self.dead,
            &self.distinguished,
            &self.distinguished_classes,
        )
    }
}

impl PartialEq for Dfa {
    fn eq(&self, other: &Dfa) -> bool {
        self.canonical_parts() == other.canonical_parts()
    }
}

impl Eq for Dfa {}

impl std::hash::Hash for Dfa {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.canonical_parts().hash(state);
    }
}

impl Dfa {
    /// Builds the canonical form of a minimal DFA whose classes are given for `symbols`
    /// (sorted, starting with the three "other" symbols; a symbol not listed is in its
    /// kind's "other" class): merges classes with equal columns, numbers classes by first
    /// occurrence in symbol order and states breadth-first.
    pub(crate) fn canonical(
        symbols: &[SymbolId],
        symbol_classes: &[u16],
        n_classes: usize,
        table: Vec<u32>,
        accepting: Vec<bool>,
        start: u32,
        alphabet: &Alphabet,
    ) -> Dfa {
        let n = accepting.len();
        // 1. Classes with equal columns are one class; number them by first occurrence.
        // The unlisted symbols are in classes of the first three, so the listed ones decide
        // the order.
        let mut column_class: HashMap<Vec<u32>, u16> = HashMap::new();
        let mut old_to_new = vec![u16::MAX; n_classes];
        let mut new_classes = Vec::with_capacity(symbols.len());
        let mut representative = Vec::new();
        for &old in symbol_classes {
            let old = usize::from(old);
            if old_to_new[old] == u16::MAX {
                let column: Vec<u32> = (0..n).map(|s| table[s * n_classes + old]).collect();
                let next = column_class.len() as u16;
                let new = *column_class.entry(column).or_insert_with(|| {
                    representative.push(old);
                    next
                });
                old_to_new[old] = new;
            }
            new_classes.push(old_to_new[old]);
        }
        let k = representative.len();
        // 2. States breadth-first from the start.
        let mut order = vec![u32::MAX; n];
        let mut queue = VecDeque::from([start]);
        order[start as usize] = 0;
        let mut visited = vec![start];
        while let Some(s) = queue.pop_front() {
            for &old in &representative {
                let t = table[s as usize * n_classes + old];
                if order[t as usize] == u32::MAX {
                    order[t as usize] = visited.len() as u32;
                    visited.push(t);
                    queue.push_back(t);
                }
            }
        }
        let mut new_table = Vec::with_capacity(visited.len() * k);
        let mut new_accepting = Vec::with_capacity(visited.len());
        for &s in &visited {
            new_accepting.push(accepting[s as usize]);
            for &old in &representative {
                new_table.push(order[table[s as usize * n_classes + old] as usize]);
            }
        }
        let sink = |s: usize| {
            new_table[s * k..(s + 1) * k]
                .iter()
                .all(|&t| t as usize == s)
        };
        let dead = (0..visited.len()).find(|&s| !new_accepting[s] && sink(s));
        let accepting_sink = (0..visited.len())
            .map(|s| new_accepting[s] && sink(s))
            .collect();
        let other_classes = [new_classes[0], new_classes[1], new_classes[2]];
        let (distinguished, distinguished_classes) = symbols
            .iter()
            .zip(&new_classes)
            .skip(3)
            .filter(|&(&symbol, &class)| {
                class != other_classes[Alphabet::other(alphabet.kind(symbol)).index()]
            })
            .map(|(&symbol, &class)| (symbol, class))
            .unzip();
        let mut dfa = Dfa {
            other_classes,
            n_classes: k,
            table: new_table,
            accepting: new_accepting,
            dead: dead.map(|s| StateId(s as u32)),
            accepting_sink,
            distinguished,
            distinguished_classes,
            dense: None,
        };
        if alphabet.len() <= DENSE_CLASS_MAP_MAX_SYMBOLS {
            dfa.dense = Some(
                alphabet
                    .ids()
                    .map(|s| dfa.class_of(s, alphabet) as u16)
                    .collect(),
            );
        }
        dfa
    }

    /// The start state.
    pub fn start(&self) -> StateId {
        StateId(0)
    }

    pub fn n_states(&self) -> usize {
        self.accepting.len()
    }

    /// Number of symbol classes the DFA distinguishes.
    pub fn n_classes(&self) -> usize {
        self.n_classes
    }

    /// The class of a symbol of `alphabet` (the rule system's, whose kinds say which
    /// "other" class an unlisted literal belongs to): a binary search among the literals
    /// this DFA tells apart.
    #[inline]
    pub fn class_of(&self, symbol: SymbolId, alphabet: &Alphabet) -> usize {
        if let Some(class) = self
            .dense
            .as_ref()
            .and_then(|dense| dense.get(symbol.index()))
        {
            return usize::from(*class);
        }
        // Most tokens are none of the rules' literals; the few literals a DFA tells apart
        // are faster scanned than searched.
        if symbol.index() < 3 {
            return usize::from(self.other_classes[symbol.index()]);
        }
        let found = if self.distinguished.len() <= 8 {
            self.distinguished.iter().position(|&s| s == symbol)
        } else {
            self.distinguished.binary_search(&symbol).ok()
        };
        let class = match found {
            Some(i) => self.distinguished_classes[i],
            None => self.other_classes[Alphabet::other(alphabet.kind(symbol)).index()],
        };
        usize::from(class)
    }

    /// The state after reading one token of class `class`.
    pub fn next_by_class(&self, state: StateId, class: usize) -> StateId {
        StateId(self.table[state.index() * self.n_classes + class])
    }

    /// The state after reading one symbol of `alphabet`.
    pub fn next(&self, state: StateId, symbol: SymbolId, alphabet: &Alphabet) -> StateId {
        self.next_by_class(state, self.class_of(symbol, alphabet))
    }

    pub fn is_accepting(&self, state: StateId) -> bool {
        self.accepting[state.index()]
    }

    /// Whether `state` accepts and every token keeps it there.
    pub fn is_accepting_sink(&self, state: StateId) -> bool {
        self.accepting_sink[state.index()]
    }

    /// The literals this DFA treats differently from other tokens of their kind.
    pub fn distinguished_symbols(&self) -> &[SymbolId] {
        &self.distinguished
    }

    /// The state from which nothing is accepted, if the DFA has one.
    pub fn dead_state(&self) -> Option<StateId> {
        self.dead
    }

    /// Whether the whole sequence of symbols of `alphabet` is in the language.
    /// A run stops in the dead state, and in an accepting state that nothing leaves.
    pub fn is_match(&self, symbols: &[SymbolId], alphabet: &Alphabet) -> bool {
        let mut state = 0u32;
        let dead = self.dead.map_or(u32::MAX, |d| d.0);
        for &symbol in symbols {
            state = self.table[state as usize * self.n_classes + self.class_of(symbol, alphabet)];
            if state == dead {
                return false;
            }
            if self.accepting_sink[state as usize] {
                return true;
            }
        }
        self.accepting[state as usize]
    }

    /// Literals at least one of which every sentence in the language contains, chosen
    /// few and long (long words are rare ones): the prefilter runs the DFA only on
    /// sentences holding one of them. `None` when the DFA accepts a sentence of tokens it
    /// treats as their kind's "other" alone (`$*`, `$* % $*`, `! $* x $*`), which the
    /// prefilter must run on every sentence.
    ///
    /// The set is the literals of a set of classes that cuts every path from the start to
    /// an accepting state: first all classes of literals only, then, class by class (those
    /// with more literals, then shorter ones, first), those the cut does not need are
    /// dropped. Each try is one search over the table; past [`REQUIRED_LITERALS_MAX_WORK`]
    /// table reads the first cut stands.
    pub(crate) fn required_literals(&self, alphabet: &Alphabet) -> Option<Vec<SymbolId>> {
        let mut cut = vec![false; self.n_classes];
        for &class in &self.distinguished_classes {
            cut[usize::from(class)] = true;
        }
        // A literal whose class is also some "other" class's cannot be required: that
        // class takes tokens that are no literal.
        for &class in &self.other_classes {
            cut[usize::from(class)] = false;
        }
        if self.accepts_avoiding(&cut) {
            return None;
        }
        let mut classes: Vec<usize> = (0..self.n_classes).filter(|&c| cut[c]).collect();
        if classes.len() * self.table.len() <= REQUIRED_LITERALS_MAX_WORK {
            let literals_of = |class: usize| {
                self.distinguished
                    .iter()
                    .zip(&self.distinguished_classes)
                    .filter(move |&(_, &c)| usize::from(c) == class)
                    .map(|(&symbol, _)| alphabet.literal(symbol).map_or(0, str::len))
            };
            classes.sort_by_key(|&class| {
                let count = literals_of(class).count();
                let longest = literals_of(class).max().unwrap_or(0);
                (std::cmp::Reverse(count), longest)
            });
            for class in classes {
                cut[class] = false;
                if self.accepts_avoiding(&cut) {
                    cut[class] = true;
                }
            }
        }
        Some(
            self.distinguished
                .iter()
                .zip(&self.distinguished_classes)
                .filter(|&(_, &class)| cut[usize::from(class)])
                .map(|(&symbol, _)| symbol)
                .collect(),
        )
    }

    /// Whether an accepting state is reachable from the start without reading a class of
    /// `avoided`.
    fn accepts_avoiding(&self, avoided: &[bool]) -> bool {
        let mut seen = vec![false; self.n_states()];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(state) = stack.pop() {
            if self.accepting[state] {
                return true;
            }
            let row = &self.table[state * self.n_classes..(state + 1) * self.n_classes];
            for (class, &next) in row.iter().enumerate() {
                let next = next as usize;
                if !avoided[class] && !seen[next] {
                    seen[next] = true;
                    stack.push(next);
                }
            }
        }
        false
    }

    /// Whether the language is empty.
    pub fn accepts_nothing(&self) -> bool {
        !self.accepting.contains(&true)
    }

    /// Whether every token sequence, the empty one included, is in the language.
    pub fn accepts_everything(&self) -> bool {
        self.accepting.len() == 1 && self.accepting[0]
    }

    /// The states from which some sentence is accepted: all but the dead state, since in a
    /// minimal DFA every state is reachable and only the dead state cannot accept.
    pub fn live_states(&self) -> impl Iterator<Item = StateId> + '_ {
        (0..self.n_states() as u32)
            .map(StateId)
            .filter(move |&state| Some(state) != self.dead)
    }

    /// The useful part of the DFA as a graph: states reachable from the start that can
    /// reach an accepting state (the dead state is gone), one edge per (source, target)
    /// carrying the classes that take it. Node weights are the states.
    pub fn graph(&self) -> DiGraph<StateId, Vec<usize>> {
        let mut full: DiGraph<StateId, Vec<usize>> = DiGraph::new();
        let nodes: Vec<NodeIndex> = (0..self.n_states())
            .map(|s| full.add_node(StateId(s as u32)))
            .collect();
        let mut edges: HashMap<(usize, usize), Vec<usize>> = HashMap::new();
        for s in 0..self.n_states() {
            for c in 0..self.n_classes {
                let t = self.table[s * self.n_classes + c] as usize;
                edges.entry((s, t)).or_default().push(c);
            }
        }
        let mut edge_list: Vec<_> = edges.into_iter().collect();
        edge_list.sort();
        for ((s, t), classes) in edge_list {
            full.add_edge(nodes[s], nodes[t], classes);
        }
        // Co-reachable: states from which an accepting state can be reached.
        let mut useful = vec![false; self.n_states()];
        let reversed = Reversed(&full);
        for s in (0..self.n_states()).filter(|&s| self.accepting[s]) {
            let mut dfs = Dfs::new(reversed, nodes[s]);
            while let Some(node) = dfs.next(reversed) {
                useful[node.index()] = true;
            }
        }
        // Reachable from the start through useful states only.
        let mut keep = vec![false; self.n_states()];
        if useful[0] {
            let mut dfs = Dfs::new(&full, nodes[0]);
            while let Some(node) = dfs.next(&full) {
                keep[node.index()] = useful[node.index()];
            }
        }
        full.filter_map(
            |node, &state| keep[node.index()].then_some(state),
            |edge, classes| {
                let (s, t) = full.edge_endpoints(edge)?;
                (keep[s.index()] && keep[t.index()]).then(|| classes.clone())
            },
        )
    }

    /// A short description of a set of classes, in the rules syntax: `$`, `%`, `&`,
    /// literals, joined by ` | `. A class containing every other word is written `$` when
    /// it also holds every other number and punctuation token.
    pub fn describe_classes(&self, classes: &[usize], alphabet: &Alphabet) -> String {
        let mut in_set = vec![false; self.n_classes];
        for &c in classes {
            in_set[c] = true;
        }
        let has = |symbol: SymbolId| in_set[self.class_of(symbol, alphabet)];
        let (word, number, punct) = (
            has(Alphabet::OTHER_WORD),
            has(Alphabet::OTHER_NUMBER),
            has(Alphabet::OTHER_PUNCT),
        );
        let mut parts: Vec<String> = Vec::new();
        if word && number && punct {
            parts.push("$".into());
        } else {
            if word {
                parts.push("<other word>".into());
            }
            if number {
                parts.push("%".into());
            }
            if punct {
                parts.push("&".into());
            }
        }
        // A literal this DFA does not tell apart is in its kind's "other" class.
        for &symbol in &self.distinguished {
            if !has(symbol) {
                continue;
            }
            let implied = match alphabet.kind(symbol) {
                crate::text::TokenKind::Word => word,
                crate::text::TokenKind::Number => number,
                crate::text::TokenKind::Punct => punct,
            };
            if !implied {
                let text = alphabet.literal(symbol).unwrap_or_default();
                parts.push(crate::syntax::spell_token(alphabet.kind(symbol), text));
            }
        }
        parts.join(" | ")
    }
}

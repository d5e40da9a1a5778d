//! Why a pattern does not match a sentence, in the rules' own terms: the longest prefix of
//! the pattern that a prefix of the sentence matches, the element of the pattern that
//! fails next, what that element expected (its literals, word sets, `$`, `%`, `&` as
//! written) and the token the sentence had there, or that the sentence ended.
//!
//! The pattern's DFA says whether it matches, but not why not: after a leading `$*` its
//! path never dies (every token may start a match), and minimization merges the states
//! that would say which element was reached. So a pattern is read as its **elements**, the
//! items of its top-level concatenation (`$* won $* prize $*` has five), and run as a
//! Thompson NFA whose state between each two elements is remembered
//! (`nfa::build_elements`): one pass forward finds, for each k, the sentence prefixes that
//! `elements[..k]` match, one pass backward the suffixes that `elements[k..]` match. The
//! largest k whose prefixes are not empty is the pattern's matched prefix, its longest
//! sentence prefix where the next element fails: for `$* won $* prize $*` on "you won a
//! voucher", `$* won $*` matched all four tokens, then `prize` was expected and the line
//! ended. Element ranges are byte ranges of the rules text.
//!
//! The same two passes tell where one token in place of element k would complete a match
//! ([`ElementRun::slots`]: "a" and "voucher" above) and whether `$*` in place of element k
//! would ([`ElementRun::bridged`]): what widening a pattern reads.
//!
//! Cost: building is linear in the regex; a run visits each NFA state at most once per
//! token, each way, and is refused past [`MAX_RUN_WORK`] visits.

use super::alphabet::{Alphabet, SymbolId};
use super::config::DEFAULT_MAX_NFA_STATES;
use super::nfa::{self, Nfa, NfaState};
use crate::syntax::ast::{Regex, RegexKind};
use crate::syntax::{Literal, classify_literal, print_regex};
use crate::text::TokenKind;
use text_size::TextRange;

/// The most NFA-state visits (states × (tokens + 1)) one run may take each way.
pub const MAX_RUN_WORK: usize = 20_000_000;

/// What a leaf of a regex accepts: one token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Leaf {
    /// A literal, as the tokenizer produces it.
    Literal { text: String, kind: TokenKind },
    /// `$`
    Any,
    /// `%`
    Number,
    /// `&`
    Punct,
    /// A literal the tokenizer never produces, or a part that did not parse.
    Nothing,
}

/// What an element matches, as widening reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElementKind {
    /// Exactly one token that one of these leaves accepts: a literal, a word set
    /// `( a | b )`, `$`, `%` or `&`.
    OneToken(Vec<Leaf>),
    /// `$` repeated other than `$*`: `$?`, `${1,3}`, `$+`.
    Gap,
    /// `$*`: any tokens.
    AnyTokens,
    /// Anything else (sequences, other repetitions, alternatives of sequences).
    Other,
}

/// One item of a pattern's top-level concatenation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Where the parser put it in the rules text (a group's parentheses left out).
    pub range: TextRange,
    /// As printed: `prize`, `( gift | prize )`, `$*`.
    pub text: String,
    /// What can begin it, printed, each once: `gift`, `"!"`, `$`, `%`, `&`.
    pub first: Vec<String>,
    /// Whether it matches the empty sequence.
    pub nullable: bool,
    pub kind: ElementKind,
}

impl Element {
    /// Whether `$*` in its place is a widening: it is `$` or a gap.
    pub fn is_gap(&self) -> bool {
        self.kind == ElementKind::Gap || self.kind == ElementKind::OneToken(vec![Leaf::Any])
    }
}

/// Why a pattern does not match a sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WhyNot {
    /// Elements matched, in order: `elements[..matched]`.
    pub matched: usize,
    /// The longest sentence prefix they match, in tokens.
    pub tokens_matched: usize,
    pub failure: Failure,
    /// Elements from the failing one on that need at least one token: how far the pattern
    /// is from matching (0 when only the sentence's end is wrong).
    pub missing: usize,
}

/// Where a pattern's match fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// Element `element` does not accept token `found`.
    Mismatch { element: usize, found: usize },
    /// The sentence ended where element `element` was expected.
    Ended { element: usize },
    /// Every element matched, and the sentence goes on at token `found`.
    Continues { found: usize },
}

/// A pattern read as its elements, ready to run on sentences of one rule system.
#[derive(Debug, Clone)]
pub struct PatternElements {
    pub elements: Vec<Element>,
    nfa: Nfa,
    /// Per NFA state: the element boundary it is, or `u32::MAX`.
    boundary_of: Vec<u32>,
    accept: u32,
    /// Per NFA state: the states with an ε-edge to it, and the atom states that lead to it.
    epsilon_into: Vec<Vec<u32>>,
    atoms_into: Vec<Vec<u32>>,
}

impl PatternElements {
    /// `regex` read as elements, its literals looked up in `alphabet` (the rule system's);
    /// `None` when its NFA would pass the default state cap.
    pub fn new(regex: &Regex, alphabet: &Alphabet) -> Option<PatternElements> {
        let mut items = Vec::new();
        flatten(regex, &mut items);
        let (nfa, boundaries) =
            nfa::build_elements(&items, alphabet, DEFAULT_MAX_NFA_STATES).ok()?;
        let n = nfa.states.len();
        let mut boundary_of = vec![u32::MAX; n];
        for (k, &state) in boundaries.iter().enumerate() {
            boundary_of[state as usize] = k as u32;
        }
        let mut epsilon_into = vec![Vec::new(); n];
        let mut atoms_into = vec![Vec::new(); n];
        let mut accept = 0;
        for (s, state) in nfa.states.iter().enumerate() {
            match state {
                NfaState::Epsilon(targets) => {
                    for &t in targets {
                        epsilon_into[t as usize].push(s as u32);
                    }
                }
                NfaState::Atom(_, t) => atoms_into[*t as usize].push(s as u32),
                NfaState::Accept => accept = s as u32,
            }
        }
        let elements = items.iter().map(|item| element(item)).collect();
        Some(PatternElements {
            elements,
            nfa,
            boundary_of,
            accept,
            epsilon_into,
            atoms_into,
        })
    }

    /// The elements on a sentence given as symbols of `alphabet`; `None` when the run
    /// would pass [`MAX_RUN_WORK`].
    pub fn run(&self, symbols: &[SymbolId], alphabet: &Alphabet) -> Option<ElementRun<'_>> {
        let n = symbols.len();
        let n_states = self.nfa.states.len();
        if n_states.saturating_mul(n + 1) > MAX_RUN_WORK {
            return None;
        }
        let accepts = |state: u32, j: usize| match &self.nfa.states[state as usize] {
            NfaState::Atom(atom, _) => alphabet.accepts(*atom, symbols[j]),
            _ => false,
        };
        let boundaries = self.elements.len() + 1;
        let mut reach = Rows::new(boundaries, n + 1);
        let mut coreach = Rows::new(boundaries, n + 1);
        let mut marks = Marks::new(n_states);
        let mut closure = Vec::new();
        let mut seeds = vec![self.nfa.start];
        for j in 0..=n {
            marks.closure(&seeds, &mut closure, |s| {
                match &self.nfa.states[s as usize] {
                    NfaState::Epsilon(targets) => targets.as_slice(),
                    _ => &[],
                }
            });
            seeds.clear();
            for &s in &closure {
                if let Some(k) = self.boundary(s) {
                    reach.set(k, j);
                }
                if j < n
                    && accepts(s, j)
                    && let NfaState::Atom(_, t) = self.nfa.states[s as usize]
                {
                    seeds.push(t);
                }
            }
            if seeds.is_empty() {
                break;
            }
        }
        seeds.clear();
        seeds.push(self.accept);
        for j in (0..=n).rev() {
            marks.closure(&seeds, &mut closure, |s| &self.epsilon_into[s as usize]);
            seeds.clear();
            for &t in &closure {
                if let Some(k) = self.boundary(t) {
                    coreach.set(k, j);
                }
                if j > 0 {
                    let into = self.atoms_into[t as usize].iter();
                    seeds.extend(into.filter(|&&s| accepts(s, j - 1)));
                }
            }
            if seeds.is_empty() {
                break;
            }
        }
        Some(ElementRun {
            pattern: self,
            n,
            reach,
            coreach,
        })
    }

    fn boundary(&self, state: u32) -> Option<usize> {
        let k = self.boundary_of[state as usize];
        (k != u32::MAX).then_some(k as usize)
    }
}

/// A pattern's elements on one sentence of n tokens.
#[derive(Debug, Clone)]
pub struct ElementRun<'p> {
    pattern: &'p PatternElements,
    n: usize,
    /// Row k: the j such that `elements[..k]` match tokens `..j`.
    reach: Rows,
    /// Row k: the j such that `elements[k..]` match tokens `j..`.
    coreach: Rows,
}

impl ElementRun<'_> {
    /// Whether the pattern matches the sentence.
    pub fn matches(&self) -> bool {
        self.reach.get(self.pattern.elements.len(), self.n)
    }

    /// Why the pattern does not match; `None` when it does.
    pub fn why_not(&self) -> Option<WhyNot> {
        if self.matches() {
            return None;
        }
        let elements = &self.pattern.elements;
        let matched = (0..=elements.len())
            .rev()
            .find(|&k| self.reach.first(k).is_some())
            .unwrap_or(0);
        let tokens_matched = self.reach.last(matched).unwrap_or(0);
        let failure = if matched == elements.len() {
            Failure::Continues {
                found: tokens_matched,
            }
        } else if tokens_matched == self.n {
            Failure::Ended { element: matched }
        } else {
            Failure::Mismatch {
                element: matched,
                found: tokens_matched,
            }
        };
        Some(WhyNot {
            matched,
            tokens_matched,
            failure,
            missing: elements[matched..].iter().filter(|e| !e.nullable).count(),
        })
    }

    /// The positions where element `k` may start: those where `elements[..k]` match the
    /// tokens before (`n` when they match the whole sentence).
    pub fn starts(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        (0..=self.n).filter(move |&j| self.reach.get(k, j))
    }

    /// The positions from which `elements[k..]` match the rest of the sentence (`n` when
    /// they match the empty rest).
    pub fn resumes(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        (0..=self.n).filter(move |&j| self.coreach.get(k, j))
    }

    /// The token positions where one token in place of element `k` would complete a match.
    pub fn slots(&self, k: usize) -> impl Iterator<Item = usize> + '_ {
        (0..self.n).filter(move |&i| self.reach.get(k, i) && self.coreach.get(k + 1, i + 1))
    }

    /// Whether `$*` in place of element `k` would complete a match.
    pub fn bridged(&self, k: usize) -> bool {
        match (self.reach.first(k), self.coreach.last(k + 1)) {
            (Some(start), Some(end)) => start <= end,
            _ => false,
        }
    }
}

/// Items of nested concatenations, in order.
fn flatten<'r>(regex: &'r Regex, out: &mut Vec<&'r Regex>) {
    match &regex.kind {
        RegexKind::Concat(items) => items.iter().for_each(|item| flatten(item, out)),
        _ => out.push(regex),
    }
}

fn element(regex: &Regex) -> Element {
    let mut first = Vec::new();
    first_leaves(regex, &mut first);
    let mut printed: Vec<String> = Vec::new();
    for leaf in first {
        let text = print_regex(leaf);
        if !printed.contains(&text) {
            printed.push(text);
        }
    }
    let kind = match &regex.kind {
        RegexKind::Repeat {
            inner,
            min: 0,
            max: None,
        } if inner.kind == RegexKind::Any => ElementKind::AnyTokens,
        RegexKind::Repeat { inner, .. } if inner.kind == RegexKind::Any => ElementKind::Gap,
        _ => {
            let mut leaves = Vec::new();
            if one_token(regex, &mut leaves) {
                ElementKind::OneToken(leaves)
            } else {
                ElementKind::Other
            }
        }
    };
    // A top-level alternative is printed as the group it was written as.
    let text = match regex.kind {
        RegexKind::Alt(_) => format!("( {} )", print_regex(regex)),
        _ => print_regex(regex),
    };
    Element {
        range: regex.range,
        text,
        first: printed,
        nullable: nullable(regex),
        kind,
    }
}

/// Whether `regex` matches exactly one token (a leaf, or alternatives of them), with its
/// leaves appended to `out`.
fn one_token(regex: &Regex, out: &mut Vec<Leaf>) -> bool {
    let leaf = match &regex.kind {
        RegexKind::Word(text) | RegexKind::Quoted(text) => {
            let quoted = matches!(regex.kind, RegexKind::Quoted(_));
            match classify_literal(text, quoted, regex.range) {
                Literal::Token(kind) => Leaf::Literal {
                    text: text.clone(),
                    kind,
                },
                Literal::Unproducible(_) => Leaf::Nothing,
            }
        }
        RegexKind::Any => Leaf::Any,
        RegexKind::Number => Leaf::Number,
        RegexKind::Punct => Leaf::Punct,
        RegexKind::Error => Leaf::Nothing,
        RegexKind::Alt(branches) => return branches.iter().all(|b| one_token(b, out)),
        // A word list is told as a whole (`@cities`), not entry by entry.
        RegexKind::Concat(_) | RegexKind::Repeat { .. } | RegexKind::WordList(_) => {
            return false;
        }
    };
    if !out.contains(&leaf) {
        out.push(leaf);
    }
    true
}

fn nullable(regex: &Regex) -> bool {
    match &regex.kind {
        RegexKind::Concat(items) => items.iter().all(nullable),
        RegexKind::Alt(branches) => branches.iter().any(nullable),
        RegexKind::Repeat { inner, min, .. } => *min == 0 || nullable(inner),
        _ => false,
    }
}

/// The leaves that can read the first token of a sentence of `regex`.
fn first_leaves<'r>(regex: &'r Regex, out: &mut Vec<&'r Regex>) {
    match &regex.kind {
        RegexKind::Concat(items) => {
            for item in items {
                first_leaves(item, out);
                if !nullable(item) {
                    break;
                }
            }
        }
        RegexKind::Alt(branches) => branches.iter().for_each(|b| first_leaves(b, out)),
        RegexKind::Repeat { max: Some(0), .. } => {}
        RegexKind::Repeat { inner, .. } => first_leaves(inner, out),
        RegexKind::Error => {}
        _ => out.push(regex),
    }
}

/// A bit table: rows of `width` bits.
#[derive(Debug, Clone)]
struct Rows {
    words_per_row: usize,
    width: usize,
    bits: Vec<u64>,
}

impl Rows {
    fn new(rows: usize, width: usize) -> Rows {
        let words_per_row = width.div_ceil(64);
        Rows {
            words_per_row,
            width,
            bits: vec![0; rows * words_per_row],
        }
    }

    fn row(&self, row: usize) -> &[u64] {
        &self.bits[row * self.words_per_row..(row + 1) * self.words_per_row]
    }

    fn set(&mut self, row: usize, column: usize) {
        self.bits[row * self.words_per_row + column / 64] |= 1 << (column % 64);
    }

    fn get(&self, row: usize, column: usize) -> bool {
        column < self.width && self.row(row)[column / 64] & (1 << (column % 64)) != 0
    }

    fn first(&self, row: usize) -> Option<usize> {
        let words = self.row(row);
        let i = words.iter().position(|&w| w != 0)?;
        Some(i * 64 + words[i].trailing_zeros() as usize)
    }

    fn last(&self, row: usize) -> Option<usize> {
        let words = self.row(row);
        let i = words.iter().rposition(|&w| w != 0)?;
        Some(i * 64 + 63 - words[i].leading_zeros() as usize)
    }
}

/// Visited marks for ε-closures, cleared in O(1) per closure by a generation count.
struct Marks {
    generation: u32,
    seen: Vec<u32>,
    stack: Vec<u32>,
}

impl Marks {
    fn new(n: usize) -> Marks {
        Marks {
            generation: 0,
            seen: vec![0; n],
            stack: Vec::new(),
        }
    }

    /// The states reachable from `seeds` along `edges`, into `out`.
    fn closure<'e>(&mut self, seeds: &[u32], out: &mut Vec<u32>, edges: impl Fn(u32) -> &'e [u32]) {
        self.generation += 1;
        out.clear();
        self.stack.clear();
        for &s in seeds {
            if self.seen[s as usize] != self.generation {
                self.seen[s as usize] = self.generation;
                self.stack.push(s);
            }
        }
        while let Some(s) = self.stack.pop() {
            out.push(s);
            for &t in edges(s) {
                if self.seen[t as usize] != self.generation {
                    self.seen[t as usize] = self.generation;
                    self.stack.push(t);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automata::{CompileConfig, compile};
    use crate::syntax::{PatternId, lower, parse};
    use crate::text::Tokens;

    /// The elements of the fixture's only pattern and its run on `sentence`, with the
    /// matched elements printed, and the verdict of the pattern's DFA.
    fn explain(regex: &str, sentence: &str) -> (Option<WhyNot>, Vec<Element>, bool) {
        let text = format!("x: {regex}\n");
        let parsed = parse(&text);
        let (rules, _) = lower(&parsed, &text);
        let (system, _) = compile(&rules, &CompileConfig::default());
        let elements =
            PatternElements::new(&rules.patterns[0].regex, system.alphabet()).expect("built");
        let mut tokens = Tokens::default();
        tokens.tokenize(sentence);
        let mut symbols = Vec::new();
        system.alphabet().symbolize(&tokens, &mut symbols);
        let run = elements.run(&symbols, system.alphabet()).expect("run");
        let dfa = system.pattern(PatternId(0)).dfa.as_ref().expect("a DFA");
        assert_eq!(run.matches(), dfa.is_match(&symbols, system.alphabet()));
        (run.why_not(), elements.elements.clone(), run.matches())
    }

    #[test]
    fn the_line_ending_before_an_element_is_the_failure_after_a_gap() {
        let (why, elements, _) = explain("$* won $* prize $*", "you won a voucher");
        let why = why.expect("no match");
        let matched: Vec<&str> = elements[..why.matched]
            .iter()
            .map(|e| e.text.as_str())
            .collect();
        assert_eq!(matched, ["$*", "won", "$*"]);
        assert_eq!(why.failure, Failure::Ended { element: 3 });
        assert_eq!(elements[3].first, ["prize"]);
        assert_eq!((why.tokens_matched, why.missing), (4, 1));
    }

    #[test]
    fn a_mismatch_names_the_element_what_it_expected_and_the_token_found() {
        let (why, elements, _) = explain("what ( actor | painter ) $*", "what color is it");
        let why = why.expect("no match");
        assert_eq!(why.matched, 1);
        assert_eq!(
            why.failure,
            Failure::Mismatch {
                element: 1,
                found: 1
            }
        );
        assert_eq!(elements[1].first, ["actor", "painter"]);
        assert_eq!(elements[1].text, "( actor | painter )");
        // The longest prefix: `how &* $?` reads `how big`, then `is` is no `much`.
        let (why, elements, _) = explain("$* how &* $? ( much | many ) $*", "how big is it");
        let why = why.expect("no match");
        assert_eq!((why.matched, why.tokens_matched), (4, 2));
        assert_eq!(
            why.failure,
            Failure::Mismatch {
                element: 4,
                found: 2
            }
        );
        assert_eq!(elements[4].first, ["much", "many"]);
        // Nothing matched: the first element expected what it begins with.
        let (why, elements, _) = explain("( hi | hey ) \"!\" $*", "hello !");
        let why = why.expect("no match");
        assert_eq!(
            why.failure,
            Failure::Mismatch {
                element: 0,
                found: 0
            }
        );
        assert_eq!((why.matched, why.missing), (0, 2));
        assert_eq!(elements[1].first, ["\"!\""]);
    }

    #[test]
    fn a_pattern_that_matches_has_no_why_not_and_one_without_an_end_gap_can_continue() {
        let (why, _, matches) = explain("$* won $* prize $*", "you won a prize !");
        assert!(matches);
        assert_eq!(why, None);
        let (why, _, _) = explain("what ( actor | painter )", "what actor played");
        assert_eq!(
            why,
            Some(WhyNot {
                matched: 2,
                tokens_matched: 2,
                failure: Failure::Continues { found: 2 },
                missing: 0
            })
        );
    }

    #[test]
    fn slots_and_bridges_are_where_a_widening_would_complete_the_match() {
        let text = "x: $* won $* prize $*\n";
        let parsed = parse(text);
        let (rules, _) = lower(&parsed, text);
        let (system, _) = compile(&rules, &CompileConfig::default());
        let alphabet = system.alphabet();
        let elements = PatternElements::new(&rules.patterns[0].regex, alphabet).unwrap();
        let symbolize = |sentence: &str| {
            let mut tokens = Tokens::default();
            tokens.tokenize(sentence);
            let mut symbols = Vec::new();
            alphabet.symbolize(&tokens, &mut symbols);
            symbols
        };
        let symbols = symbolize("you won a voucher");
        let run = elements.run(&symbols, alphabet).unwrap();
        assert_eq!(run.slots(3).collect::<Vec<_>>(), [2, 3]);
        assert_eq!(run.slots(1).count(), 0);
        // `won` in place of nothing: `you` could be the `won` if `prize` came after.
        let symbols = symbolize("you got a prize");
        let run = elements.run(&symbols, alphabet).unwrap();
        assert_eq!(run.slots(1).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(
            elements.elements[1].kind,
            ElementKind::OneToken(vec![Leaf::Literal {
                text: "won".into(),
                kind: TokenKind::Word
            }])
        );

        let text = "x: how $? many $*\n";
        let parsed = parse(text);
        let (rules, _) = lower(&parsed, text);
        let (system, _) = compile(&rules, &CompileConfig::default());
        let alphabet = system.alphabet();
        let elements = PatternElements::new(&rules.patterns[0].regex, alphabet).unwrap();
        assert!(elements.elements[1].is_gap());
        let symbolize = |sentence: &str| {
            let mut tokens = Tokens::default();
            tokens.tokenize(sentence);
            let mut symbols = Vec::new();
            alphabet.symbolize(&tokens, &mut symbols);
            symbols
        };
        let symbols = symbolize("how very very many dogs");
        let run = elements.run(&symbols, alphabet).unwrap();
        assert!(run.bridged(1));
        assert_eq!(
            run.why_not().map(|w| w.failure),
            Some(Failure::Mismatch {
                element: 2,
                found: 2
            })
        );
        let symbols = symbolize("how very very dogs");
        assert!(!elements.run(&symbols, alphabet).unwrap().bridged(1));
    }

    #[test]
    fn a_run_past_the_work_cap_is_refused() {
        let text = "x: $* a $*\n";
        let parsed = parse(text);
        let (rules, _) = lower(&parsed, text);
        let (system, _) = compile(&rules, &CompileConfig::default());
        let elements = PatternElements::new(&rules.patterns[0].regex, system.alphabet()).unwrap();
        let long = vec![SymbolId(0); MAX_RUN_WORK];
        assert!(elements.run(&long, system.alphabet()).is_none());
    }
}

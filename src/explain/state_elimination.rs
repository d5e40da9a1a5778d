//! From an automaton whose edges carry token sets to a regular expression in the `.rules`
//! syntax, by state elimination (Brzozowski and McCluskey 1963), with simplification so
//! that a person can read the result.
//!
//! The automaton is trimmed first (states that are unreachable or cannot reach a final
//! state go), and when the start state loops on every token (`$*` first), the tokens with
//! which an edge only restarts a match are dropped, which keeps the language. Then a new start and a new final state are added, and the other states are
//! eliminated one by one, cheapest first (fewest in × out edges), each turning
//! `i → k → j` with a loop on k into the edge `i → (R_ik R_kk* R_kj) → j`. The expression
//! algebra simplifies as it builds: ∅ and ε laws, flattened and deduplicated alternatives,
//! token sets of parallel edges merged into one `( a | b )`, shared leading and trailing
//! items factored out of alternatives, `x x*` written `x+`, `(ε | x)` written `x?`, and
//! `(x*)*`, `(x?)*` collapsed. Worst case exponential in the number of states, as state
//! elimination is; pattern automata have a handful of states.

use crate::syntax::ast::{Regex, RegexKind};
use crate::text::is_number_token;
use std::collections::{BTreeMap, BTreeSet};

/// The tokens an edge accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenSet {
    /// Every token (`$`).
    pub any: bool,
    /// Every number token (`%`).
    pub numbers: bool,
    /// Every punctuation token (`&`).
    pub punctuation: bool,
    /// Literal tokens, as regex atoms: `Word` for words and numbers, `Quoted` for
    /// punctuation.
    pub literals: BTreeSet<LiteralAtom>,
}

/// One literal token of a [`TokenSet`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LiteralAtom {
    Word(String),
    Punct(String),
}

impl TokenSet {
    fn union(&mut self, other: &TokenSet) {
        self.any |= other.any;
        self.numbers |= other.numbers;
        self.punctuation |= other.punctuation;
        self.literals.extend(other.literals.iter().cloned());
    }

    fn is_empty(&self) -> bool {
        !self.any && !self.numbers && !self.punctuation && self.literals.is_empty()
    }

    /// The tokens of `self` that are not in `other`, as far as a token set can say: a class
    /// (`$`, `%`, `&`) goes only when `other` has it (or `$`).
    fn minus(&self, other: &TokenSet) -> TokenSet {
        if other.any {
            return TokenSet::default();
        }
        TokenSet {
            any: self.any,
            numbers: self.numbers && !other.numbers,
            punctuation: self.punctuation && !other.punctuation,
            literals: self
                .literals
                .iter()
                .filter(|literal| {
                    !other.literals.contains(literal)
                        && !match literal {
                            LiteralAtom::Word(text) => other.numbers && is_number_token(text),
                            LiteralAtom::Punct(_) => other.punctuation,
                        }
                })
                .cloned()
                .collect(),
        }
    }
}

/// An automaton to turn into a regex: states 0..n_states, edges with token sets.
#[derive(Debug, Clone, Default)]
pub struct LabeledAutomaton {
    pub n_states: usize,
    pub start: usize,
    pub finals: Vec<usize>,
    /// (from, to) → tokens.
    pub edges: BTreeMap<(usize, usize), TokenSet>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Re {
    Eps,
    Set(TokenSet),
    Cat(Vec<Re>),
    Alt(Vec<Re>),
    Opt(Box<Re>),
    Star(Box<Re>),
}

fn items(re: Re) -> Vec<Re> {
    match re {
        Re::Cat(items) => items,
        Re::Eps => Vec::new(),
        other => vec![other],
    }
}

fn from_items(mut items: Vec<Re>) -> Re {
    match items.len() {
        0 => Re::Eps,
        1 => items.pop().unwrap_or(Re::Eps),
        _ => Re::Cat(items),
    }
}

fn cat(a: Option<Re>, b: Option<Re>) -> Option<Re> {
    let mut all = items(a?);
    all.extend(items(b?));
    Some(from_items(all))
}

fn star(a: Option<Re>) -> Re {
    match a {
        None | Some(Re::Eps) => Re::Eps,
        Some(Re::Star(inner)) | Some(Re::Opt(inner)) => Re::Star(inner),
        Some(other) => Re::Star(Box::new(other)),
    }
}

fn alt(a: Option<Re>, b: Option<Re>) -> Option<Re> {
    let (a, b) = match (a, b) {
        (None, x) | (x, None) => return x,
        (Some(a), Some(b)) => (a, b),
    };
    let mut eps = false;
    let mut set: Option<TokenSet> = None;
    let mut branches: BTreeSet<Re> = BTreeSet::new();
    let mut add = |re: Re, eps: &mut bool| match re {
        Re::Eps => *eps = true,
        Re::Set(tokens) => set.get_or_insert_with(TokenSet::default).union(&tokens),
        other => {
            branches.insert(other);
        }
    };
    for re in [a, b] {
        match re {
            Re::Alt(inner) => inner.into_iter().for_each(|r| add(r, &mut eps)),
            Re::Opt(inner) => {
                eps = true;
                add(*inner, &mut eps);
            }
            other => add(other, &mut eps),
        }
    }
    let mut list: Vec<Re> = set.into_iter().map(Re::Set).collect();
    list.extend(branches);
    let list = factor(list);
    let body = match list.len() {
        0 => return Some(Re::Eps),
        1 => list.into_iter().next().unwrap_or(Re::Eps),
        _ => Re::Alt(list),
    };
    Some(match (eps, &body) {
        (false, _) | (true, Re::Star(_)) | (true, Re::Opt(_)) => body,
        // (ε | x x*) and (ε | x* x) are x*.
        (true, Re::Cat(parts)) if parts.len() == 2 && is_plus(&parts[0], &parts[1]) => {
            star(Some(parts[0].clone()))
        }
        (true, Re::Cat(parts)) if parts.len() == 2 && is_plus(&parts[1], &parts[0]) => {
            star(Some(parts[1].clone()))
        }
        (true, _) => Re::Opt(Box::new(body)),
    })
}

/// Whether `x` followed (or preceded) by `starred` is `x+`.
fn is_plus(x: &Re, starred: &Re) -> bool {
    matches!(starred, Re::Star(inner) if **inner == *x)
}

/// Factors a shared first item, then a shared last item, out of alternatives.
fn factor(branches: Vec<Re>) -> Vec<Re> {
    let branches = factor_end(branches, true);
    factor_end(branches, false)
}

fn factor_end(branches: Vec<Re>, front: bool) -> Vec<Re> {
    let mut groups: BTreeMap<Re, Vec<Vec<Re>>> = BTreeMap::new();
    let mut order: Vec<Re> = Vec::new();
    let mut singles: Vec<Re> = Vec::new();
    for branch in branches {
        let mut seq = items(branch);
        if seq.is_empty() {
            singles.push(Re::Eps);
            continue;
        }
        let key = if front {
            seq.remove(0)
        } else {
            seq.pop().unwrap_or(Re::Eps)
        };
        if !groups.contains_key(&key) {
            order.push(key.clone());
        }
        groups.entry(key).or_default().push(seq);
    }
    let mut out = singles;
    for key in order {
        let rests = groups.remove(&key).unwrap_or_default();
        if rests.len() == 1 {
            let mut seq = rests.into_iter().next().unwrap_or_default();
            if front {
                seq.insert(0, key);
            } else {
                seq.push(key);
            }
            out.push(from_items(seq));
            continue;
        }
        let merged = rests
            .into_iter()
            .map(|seq| Some(from_items(seq)))
            .reduce(alt)
            .flatten();
        let combined = if front {
            cat(Some(key), merged)
        } else {
            cat(merged, Some(key))
        };
        out.extend(combined);
    }
    out
}

/// The regular expression of the automaton's language; `None` when it is empty.
pub fn to_regex(automaton: &LabeledAutomaton) -> Option<Regex> {
    let n = automaton.n_states;
    // Trim: reachable from the start and co-reachable from a final state.
    let mut forward = vec![false; n];
    let mut backward = vec![false; n];
    let mut stack = vec![automaton.start];
    while let Some(s) = stack.pop() {
        if s < n && !forward[s] {
            forward[s] = true;
            stack.extend(
                automaton
                    .edges
                    .keys()
                    .filter(|(i, _)| *i == s)
                    .map(|(_, j)| *j),
            );
        }
    }
    stack = automaton.finals.clone();
    while let Some(s) = stack.pop() {
        if s < n && !backward[s] {
            backward[s] = true;
            stack.extend(
                automaton
                    .edges
                    .keys()
                    .filter(|(_, j)| *j == s)
                    .map(|(i, _)| *i),
            );
        }
    }
    let live = |s: usize| s < n && forward[s] && backward[s];
    if !live(automaton.start) {
        return None;
    }
    // With a `$` loop on the start state a match may begin anywhere, so an edge p → q whose
    // tokens also lead from the start to q only restarts a match the loop already allows:
    // dropping it keeps the language and removes the back edges a DFA for `$* r` has.
    let start_loops = automaton
        .edges
        .get(&(automaton.start, automaton.start))
        .is_some_and(|tokens| tokens.any);
    // The tokens of edge i → j that do not just restart a match.
    let without_restarts = |i: usize, j: usize, tokens: &TokenSet| -> TokenSet {
        match automaton.edges.get(&(automaton.start, j)) {
            Some(from_start) if start_loops && i != automaton.start => tokens.minus(from_start),
            _ => tokens.clone(),
        }
    };
    // GNFA over states 0..n plus a new start n and a new final n + 1.
    let (start, end) = (n, n + 1);
    let mut edges: BTreeMap<(usize, usize), Re> = BTreeMap::new();
    for (&(i, j), tokens) in &automaton.edges {
        let tokens = without_restarts(i, j, tokens);
        if live(i) && live(j) && !tokens.is_empty() {
            edges.insert((i, j), Re::Set(tokens));
        }
    }
    edges.insert((start, automaton.start), Re::Eps);
    for &f in automaton.finals.iter().filter(|&&f| live(f)) {
        let existing = edges.remove(&(f, end));
        if let Some(re) = alt(existing, Some(Re::Eps)) {
            edges.insert((f, end), re);
        }
    }
    let mut remaining: BTreeSet<usize> = (0..n).filter(|&s| live(s)).collect();
    while !remaining.is_empty() {
        let degree = |k: usize| {
            let ins = edges.keys().filter(|(i, j)| *j == k && *i != k).count();
            let outs = edges.keys().filter(|(i, j)| *i == k && *j != k).count();
            ins * outs
        };
        let Some(&k) = remaining.iter().min_by_key(|&&k| degree(k)) else {
            break;
        };
        remaining.remove(&k);
        let looped = star(edges.remove(&(k, k)));
        let ins: Vec<(usize, Re)> = edges
            .iter()
            .filter(|((_, j), _)| *j == k)
            .map(|((i, _), re)| (*i, re.clone()))
            .collect();
        let outs: Vec<(usize, Re)> = edges
            .iter()
            .filter(|((i, _), _)| *i == k)
            .map(|((_, j), re)| (*j, re.clone()))
            .collect();
        edges.retain(|(i, j), _| *i != k && *j != k);
        for (i, into) in &ins {
            for (j, out) in &outs {
                let path = cat(
                    cat(Some(into.clone()), Some(looped.clone())),
                    Some(out.clone()),
                );
                let merged = alt(edges.remove(&(*i, *j)), path);
                if let Some(re) = merged {
                    edges.insert((*i, *j), re);
                }
            }
        }
    }
    edges.remove(&(start, end)).map(|re| to_ast(&re))
}

fn node(kind: RegexKind) -> Regex {
    Regex {
        kind,
        range: Default::default(),
    }
}

fn set_ast(tokens: &TokenSet) -> Regex {
    if tokens.any {
        return node(RegexKind::Any);
    }
    let mut atoms = Vec::new();
    if tokens.numbers {
        atoms.push(node(RegexKind::Number));
    }
    if tokens.punctuation {
        atoms.push(node(RegexKind::Punct));
    }
    for literal in &tokens.literals {
        // `%` and `&` already take every number and punctuation token.
        match literal {
            LiteralAtom::Word(text) if tokens.numbers && is_number_token(text) => {}
            LiteralAtom::Punct(_) if tokens.punctuation => {}
            LiteralAtom::Word(text) => atoms.push(node(RegexKind::Word(text.clone()))),
            LiteralAtom::Punct(text) => atoms.push(node(RegexKind::Quoted(text.clone()))),
        }
    }
    match atoms.len() {
        1 => atoms.pop().unwrap_or_else(|| node(RegexKind::Any)),
        _ => node(RegexKind::Alt(atoms)),
    }
}

fn repeat(inner: Regex, min: u32, max: Option<u32>) -> Regex {
    node(RegexKind::Repeat {
        inner: Box::new(inner),
        min,
        max,
    })
}

fn to_ast(re: &Re) -> Regex {
    match re {
        // The empty sequence alone: `${0}`.
        Re::Eps => repeat(node(RegexKind::Any), 0, Some(0)),
        Re::Set(tokens) => set_ast(tokens),
        Re::Alt(branches) => node(RegexKind::Alt(branches.iter().map(to_ast).collect())),
        Re::Opt(inner) => repeat(to_ast(inner), 0, Some(1)),
        Re::Star(inner) => repeat(to_ast(inner), 0, None),
        Re::Cat(items) => {
            // `x x*` is `x+`.
            let mut out: Vec<Regex> = Vec::new();
            let mut i = 0;
            while i < items.len() {
                match (&items[i], items.get(i + 1)) {
                    (x, Some(Re::Star(inner))) if **inner == *x => {
                        out.push(repeat(to_ast(x), 1, None));
                        i += 2;
                    }
                    (x, _) => {
                        out.push(to_ast(x));
                        i += 1;
                    }
                }
            }
            if out.len() == 1 {
                out.pop().unwrap_or_else(|| to_ast(&Re::Eps))
            } else {
                node(RegexKind::Concat(out))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::print_regex;

    fn words(list: &[&str]) -> TokenSet {
        TokenSet {
            literals: list
                .iter()
                .map(|w| LiteralAtom::Word(w.to_string()))
                .collect(),
            ..TokenSet::default()
        }
    }

    fn any() -> TokenSet {
        TokenSet {
            any: true,
            ..TokenSet::default()
        }
    }

    fn regex(
        n_states: usize,
        finals: &[usize],
        edges: &[(usize, usize, TokenSet)],
    ) -> Option<String> {
        let automaton = LabeledAutomaton {
            n_states,
            start: 0,
            finals: finals.to_vec(),
            edges: edges
                .iter()
                .map(|(i, j, t)| ((*i, *j), t.clone()))
                .collect(),
        };
        to_regex(&automaton).map(|r| print_regex(&r))
    }

    #[test]
    fn a_search_dfa_reads_back_as_its_pattern() {
        // The minimal DFA of `$* free $* call $*`, back edges included.
        let edges = [
            (0, 0, any()),
            (0, 1, words(&["free"])),
            (1, 1, any()),
            (1, 2, words(&["call"])),
            (2, 2, any()),
        ];
        assert_eq!(
            regex(3, &[2], &edges).as_deref(),
            Some("$* free $* call $*")
        );
    }

    #[test]
    fn restart_edges_are_dropped_and_alternatives_factored() {
        // `$* how ( much | many ) $*` with the DFA's back edges to the start and its
        // restart on `how`.
        let edges = [
            (0, 0, any()),
            (0, 1, words(&["how"])),
            (1, 1, words(&["how"])),
            (1, 0, any()),
            (1, 2, words(&["much", "many"])),
            (2, 2, any()),
        ];
        assert_eq!(
            regex(3, &[2], &edges).as_deref(),
            Some("$* how ( many | much ) $*")
        );
        let suffixes = [
            (0, 1, words(&["a"])),
            (0, 2, words(&["b"])),
            (1, 3, words(&["c"])),
            (2, 3, words(&["c"])),
        ];
        assert_eq!(regex(4, &[3], &suffixes).as_deref(), Some("( a | b ) c"));
    }

    #[test]
    fn loops_become_plus_and_optional_parts_question_marks() {
        let edges = [
            (0, 1, words(&["x"])),
            (1, 1, words(&["x"])),
            (1, 2, words(&["y"])),
            (0, 2, words(&["y"])),
        ];
        assert_eq!(regex(3, &[2], &edges).as_deref(), Some("x* y"));
        let plus = [(0, 1, words(&["x"])), (1, 1, words(&["x"]))];
        assert_eq!(regex(2, &[1], &plus).as_deref(), Some("x+"));
        let optional = [(0, 1, words(&["x"])), (1, 2, words(&["y"]))];
        assert_eq!(regex(3, &[1, 2], &optional).as_deref(), Some("x y?"));
    }

    #[test]
    fn an_automaton_without_a_path_to_a_final_state_is_empty() {
        assert_eq!(regex(2, &[1], &[(1, 1, any())]), None);
        assert_eq!(regex(2, &[], &[(0, 1, any())]), None);
    }
}

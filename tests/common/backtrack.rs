//! A naive reference matcher for token regexes, written from `docs/rules-language.md`
//! ("Regular expressions over tokens") and independent of `src/automata`.
//!
//! It computes, for a regex and a start position, the SET of positions where a match of
//! the regex starting there can end (no automata, no alphabet, no symbol classes):
//!
//! - a literal (`word` or `"quoted"`) accepts one token whose text is equal to it;
//! - a word list (`@NAME`) accepts the tokens of any one of its entries, in order;
//! - `$` accepts any token, `%` any number token, `&` any punctuation token;
//! - concatenation composes the sets, alternation unions them;
//! - `x{m,n}` is m steps then up to n−m more, `x*`/`x+` iterate to a fixed point;
//! - a part that did not parse (`Error`) accepts nothing.
//!
//! A pattern matches a sentence when the whole token sequence is matched. Exponential
//! worst cases do not matter: sentences in tests are a handful of tokens.

use rulelens::syntax::ast::{Regex, RegexKind};
use rulelens::text::TokenKind;
use std::collections::BTreeSet;
use std::ops::Range;

/// One token: its kind and its (lowercased) text.
pub type Token = (TokenKind, String);

/// The positions where a match of `regex` starting at `start` can end.
pub fn ends(regex: &Regex, tokens: &[Token], start: usize) -> BTreeSet<usize> {
    let one = |accepts: &dyn Fn(&Token) -> bool| -> BTreeSet<usize> {
        match tokens.get(start) {
            Some(token) if accepts(token) => BTreeSet::from([start + 1]),
            _ => BTreeSet::new(),
        }
    };
    match &regex.kind {
        RegexKind::Word(text) | RegexKind::Quoted(text) => one(&|token| token.1 == *text),
        RegexKind::Any => one(&|_| true),
        RegexKind::Number => one(&|token| token.0 == TokenKind::Number),
        RegexKind::Punct => one(&|token| token.0 == TokenKind::Punct),
        RegexKind::Error => BTreeSet::new(),
        RegexKind::WordList(reference) => reference
            .list
            .iter()
            .flat_map(|list| &list.entries)
            .filter(|entry| {
                tokens.get(start..start + entry.len()).is_some_and(|read| {
                    read.iter()
                        .zip(entry.iter())
                        .all(|(token, word)| token.1 == *word)
                })
            })
            .map(|entry| start + entry.len())
            .collect(),
        RegexKind::Concat(items) => concat_ends(items.iter(), tokens, start),
        RegexKind::Alt(branches) => branches
            .iter()
            .flat_map(|branch| ends(branch, tokens, start))
            .collect(),
        RegexKind::Repeat { inner, min, max } => {
            let step = |from: &BTreeSet<usize>| -> BTreeSet<usize> {
                from.iter()
                    .flat_map(|&position| ends(inner, tokens, position))
                    .collect()
            };
            let mut current = BTreeSet::from([start]);
            for _ in 0..*min {
                current = step(&current);
            }
            let mut result = current.clone();
            match max {
                Some(max) => {
                    for _ in *min..*max {
                        current = step(&current);
                        if current.is_empty() {
                            break;
                        }
                        result.extend(current.iter().copied());
                    }
                }
                None => loop {
                    // Fixed point: keep stepping from the positions not seen yet.
                    let next: BTreeSet<usize> = step(&current)
                        .into_iter()
                        .filter(|position| !result.contains(position))
                        .collect();
                    if next.is_empty() {
                        break;
                    }
                    result.extend(next.iter().copied());
                    current = next;
                },
            }
            result
        }
    }
}

/// The positions where a match of the concatenation of `items` from `start` can end.
pub fn concat_ends<'r>(
    items: impl Iterator<Item = &'r Regex>,
    tokens: &[Token],
    start: usize,
) -> BTreeSet<usize> {
    let mut current = BTreeSet::from([start]);
    for item in items {
        current = current
            .iter()
            .flat_map(|&position| ends(item, tokens, position))
            .collect();
        if current.is_empty() {
            break;
        }
    }
    current
}

/// Whether `regex` matches the WHOLE token sequence.
pub fn is_match(regex: &Regex, tokens: &[Token]) -> bool {
    ends(regex, tokens, 0).contains(&tokens.len())
}

fn is_dollar_star(regex: &Regex) -> bool {
    match &regex.kind {
        RegexKind::Repeat {
            inner,
            min: 0,
            max: None,
        } => matches!(inner.kind, RegexKind::Any),
        _ => false,
    }
}

/// The span of a match: when the regex is a concatenation whose first (last) top-level
/// items are `$*`, what they absorb is left out; of the remaining "core", the leftmost
/// start, then the shortest end. A side without `$*` is pinned to the sentence's start
/// (end). `None` when the regex does not match the whole sentence.
pub fn span(regex: &Regex, tokens: &[Token]) -> Option<Range<usize>> {
    let n = tokens.len();
    if !is_match(regex, tokens) {
        return None;
    }
    let items: Vec<&Regex> = match &regex.kind {
        RegexKind::Concat(items) => items.iter().collect(),
        _ => vec![regex],
    };
    let leading = items.iter().take_while(|item| is_dollar_star(item)).count();
    let rest = &items[leading..];
    let trailing = rest
        .iter()
        .rev()
        .take_while(|item| is_dollar_star(item))
        .count();
    let core = &rest[..rest.len() - trailing];
    // A pattern of `$*` alone counts as stripped at both ends.
    let (free_start, free_end) = (
        leading > 0,
        trailing > 0 || (leading > 0 && rest.is_empty()),
    );
    let starts = if free_start { 0..=n } else { 0..=0 };
    for start in starts {
        let core_ends = concat_ends(core.iter().copied(), tokens, start);
        let end = if free_end {
            core_ends.first().copied()
        } else {
            core_ends.contains(&n).then_some(n)
        };
        if let Some(end) = end {
            return Some(start..end);
        }
    }
    unreachable!("the whole regex matched, so some core match exists")
}

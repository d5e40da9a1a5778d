//! Which patterns and rules can fire on a sentence, found from the rules' literals the
//! sentence holds, so that classifying a line costs what its literals trigger rather than
//! one automaton run per pattern and one formula per rule.
//!
//! Every pattern gets its *required literals* ([`Dfa::required_literals`]): literals at
//! least one of which every sentence it matches contains. An index from each literal to
//! the patterns that require it gives a sentence's candidate patterns in one pass over its
//! symbols, the way ripgrep's and Hyperscan's literal prefilters pick the regexes worth
//! running; only the candidates run their DFA. A pattern without required literals (it
//! matches sentences of "other" tokens alone, like `$*` or `$* % $*`) runs on every
//! sentence. Likewise for rules: a rule whose formula is false when none of its patterns
//! matched (`a`, `a & !b`, `a | b`) is evaluated only when one of its patterns matched,
//! through an index from each pattern to the rules that name it; the others (`!a`) are
//! evaluated on every sentence.
//!
//! [`Dfa::required_literals`]: super::dfa::Dfa::required_literals

use super::alphabet::{Alphabet, SymbolId};
use super::dfa::Dfa;
use crate::syntax::Formula;

/// Lists of ids by key, stored flat: the items of key `k` are
/// `items[offsets[k]..offsets[k + 1]]`.
#[derive(Debug, Clone, Default)]
struct Postings {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl Postings {
    /// Postings of `n_keys` keys from (key, item) pairs, each key's items in ascending order.
    fn new(n_keys: usize, mut pairs: Vec<(u32, u32)>) -> Postings {
        pairs.sort_unstable();
        pairs.dedup();
        let mut offsets = vec![0u32; n_keys + 1];
        for &(key, _) in &pairs {
            offsets[key as usize + 1] += 1;
        }
        for k in 0..n_keys {
            offsets[k + 1] += offsets[k];
        }
        Postings {
            offsets,
            items: pairs.into_iter().map(|(_, item)| item).collect(),
        }
    }

    fn get(&self, key: usize) -> &[u32] {
        match (self.offsets.get(key), self.offsets.get(key + 1)) {
            (Some(&start), Some(&end)) => &self.items[start as usize..end as usize],
            _ => &[],
        }
    }
}

/// The indexes of one rule system.
#[derive(Debug, Clone, Default)]
pub(crate) struct Prefilter {
    /// Per symbol: the patterns that require it.
    patterns_by_symbol: Postings,
    /// Patterns without required literals, ascending.
    always_patterns: Vec<u32>,
    /// Per pattern: the rules whose formulas name it.
    rules_by_pattern: Postings,
    /// Rules true when none of their patterns matched, ascending.
    always_rules: Vec<u32>,
}

/// The prefilter's buffers, reused from sentence to sentence.
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    pub(crate) patterns: Vec<u32>,
    /// The candidates that matched.
    pub(crate) matched: Vec<u32>,
    pub(crate) rules: Vec<u32>,
}

impl Prefilter {
    /// The indexes of the patterns' DFAs (`None`: past a cap, it matches nothing) and the
    /// rules' formulas.
    pub(crate) fn new<'a>(
        dfas: &[Option<&Dfa>],
        formulas: impl IntoIterator<Item = &'a Formula>,
        alphabet: &Alphabet,
    ) -> Prefilter {
        let mut by_symbol = Vec::new();
        let mut always_patterns = Vec::new();
        for (index, dfa) in dfas.iter().enumerate() {
            // A pattern past a cap matches nothing and never runs.
            let Some(dfa) = dfa else { continue };
            match dfa.required_literals(alphabet) {
                Some(literals) => {
                    by_symbol.extend(literals.iter().map(|s| (s.0, index as u32)));
                }
                None => always_patterns.push(index as u32),
            }
        }
        let mut by_pattern = Vec::new();
        let mut always_rules = Vec::new();
        for (index, formula) in formulas.into_iter().enumerate() {
            if formula.eval(&|_| false) {
                always_rules.push(index as u32);
            } else {
                formula.visit(true, &mut |pattern, _| {
                    by_pattern.push((pattern.0, index as u32))
                });
            }
        }
        Prefilter {
            patterns_by_symbol: Postings::new(alphabet.len(), by_symbol),
            always_patterns,
            rules_by_pattern: Postings::new(dfas.len(), by_pattern),
            always_rules,
        }
    }

    /// The patterns worth running on a sentence of `symbols`, ascending, into `out`.
    pub(crate) fn candidate_patterns(&self, symbols: &[SymbolId], out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&self.always_patterns);
        for symbol in symbols {
            out.extend_from_slice(self.patterns_by_symbol.get(symbol.index()));
        }
        out.sort_unstable();
        out.dedup();
    }

    /// The rules that can be true when exactly the `matched` patterns matched, ascending,
    /// into `out`.
    pub(crate) fn candidate_rules(&self, matched: &[u32], out: &mut Vec<u32>) {
        out.clear();
        out.extend_from_slice(&self.always_rules);
        for &pattern in matched {
            out.extend_from_slice(self.rules_by_pattern.get(pattern as usize));
        }
        out.sort_unstable();
        out.dedup();
    }
}

#[cfg(test)]
mod tests {
    use crate::automata::{Classification, RuleSystem, Scratch};
    use crate::ide::testing::rules_of;
    use crate::limits::ReadLimits;
    use crate::rules_file::RulesFile;
    use crate::syntax::{LabelId, PatternId};
    use std::path::Path;

    /// What classification is without the prefilter: every pattern's DFA, every label's
    /// formula.
    fn without_prefilter(system: &RuleSystem, text: &str) -> (Vec<bool>, Vec<bool>) {
        let mut scratch = Scratch::default();
        scratch.tokens.tokenize(text);
        system
            .alphabet
            .symbolize(&scratch.tokens, &mut scratch.symbols);
        let matched: Vec<bool> = system
            .patterns
            .iter()
            .map(|p| {
                p.dfa
                    .as_ref()
                    .is_some_and(|dfa| dfa.is_match(&scratch.symbols, &system.alphabet))
            })
            .collect();
        let fired = (0..system.labels.len())
            .map(|l| {
                system
                    .label_formula(LabelId(l as u32))
                    .eval(&|p: PatternId| matched[p.index()])
            })
            .collect();
        (matched, fired)
    }

    fn assert_same(system: &RuleSystem, texts: impl IntoIterator<Item = String>) {
        let mut scratch = Scratch::default();
        let mut out = Classification::default();
        for text in texts {
            system.classify_with(&text, &mut scratch, &mut out);
            let (matched, fired) = without_prefilter(system, &text);
            assert_eq!(out.matched, matched, "patterns on {text:?}");
            assert_eq!(out.fired, fired, "labels on {text:?}");
            let rules_fired: Vec<usize> = (0..system.rules.len())
                .filter(|&r| {
                    system.rules[r]
                        .formula
                        .eval(&|p: PatternId| matched[p.index()])
                })
                .collect();
            assert_eq!(out.rules_fired, rules_fired, "rules on {text:?}");
        }
    }

    #[test]
    fn required_literals_are_few_and_long() {
        let file = rules_of(
            "default ham\n\
             spam: $* ( won | win ) $* cash $*\n\
             spam: $* % $*\n\
             spam: ! $* free $*\n\
             spam: ( claim | prize ) $*\n",
        );
        let system = &file.system;
        let required = |i: usize| {
            system.patterns[i]
                .dfa
                .as_ref()
                .unwrap()
                .required_literals(&system.alphabet)
                .map(|symbols| {
                    symbols
                        .iter()
                        .map(|&s| system.alphabet.literal(s).unwrap().to_string())
                        .collect::<Vec<_>>()
                })
        };
        assert_eq!(required(0), Some(vec!["cash".to_string()]));
        assert_eq!(required(1), None);
        // `!` is the first token, but the cut takes the rarer word.
        assert_eq!(required(2), Some(vec!["free".to_string()]));
        assert_eq!(
            required(3),
            Some(vec!["claim".to_string(), "prize".to_string()])
        );
    }

    /// Every sentence of up to four tokens over the rules' literals and one token of each
    /// "other" kind: the prefilter changes nothing, whatever the patterns' shapes (anchored,
    /// `$*`-only, `%`, `&`, repetitions, optional parts) and the formulas' (negations,
    /// conjunctions, rules true when nothing matches).
    #[test]
    fn classification_is_the_same_with_the_prefilter_on_every_short_sentence() {
        let file = rules_of(
            "default c\n\
             pattern p = $* a $*\n\
             pattern q = a $* b\n\
             pattern r = $* ( b | 7 ) ! $*\n\
             pattern s = $*\n\
             pattern t = % $* & $*\n\
             pattern u = a{2,3} $?\n\
             pattern v = x ( a | b )* x\n\
             x: $* a $* b $*\n\
             x <- p & !q\n\
             y <- !r\n\
             y <- t | u\n\
             z <- s & !p & !v\n\
             z: b $? a\n\
             c <- v\n",
        );
        assert!(!file.has_errors(), "{:?}", file.diagnostics);
        let words = ["a", "b", "x", "7", "!", "other", "42", "?"];
        let mut texts = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for prefix in &frontier {
                for word in words {
                    next.push(format!("{prefix} {word}"));
                }
            }
            texts.extend(next.iter().cloned());
            frontier = next;
        }
        assert_same(&file.system, texts);
    }

    #[test]
    fn classification_is_the_same_with_the_prefilter_on_the_bundled_corpora() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
        for name in ["sms", "trec"] {
            let file = RulesFile::read(
                &root.join(format!("{name}/{name}.rules")),
                &Default::default(),
                &ReadLimits::DEFAULT,
            )
            .unwrap();
            let corpus = crate::corpus::read_file(
                &root.join(format!("{name}/dev.tsv")),
                &ReadLimits::DEFAULT,
            )
            .unwrap();
            assert_same(
                &file.system,
                corpus.examples.into_iter().map(|example| example.text),
            );
        }
    }
}

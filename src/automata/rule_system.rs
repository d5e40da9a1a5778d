//! The exact rule system: the classifier a `.rules` file defines.
//!
//! Each pattern is a minimal DFA that must match the whole token sequence; each label's
//! truth is the OR of its rules' formulas over pattern matches; the prediction is the
//! first firing label in priority order (ties go to the label whose first rule comes
//! first), or the `default` when none fires (`docs/rules-language.md`, "Classification").
//! Classifying a sentence costs one tokenization, one hash lookup per token, one table walk
//! per pattern the `prefilter` picks from the sentence's literals (it stops in the dead
//! state or an accepting sink), and one evaluation per rule one of whose patterns matched;
//! [`Scratch`] keeps the buffers so that classifying a corpus allocates nothing per
//! sentence.

use super::alphabet::{Alphabet, SymbolId};
use super::dfa::Dfa;
pub use super::prefilter::Candidates;
use super::prefilter::Prefilter;
use crate::syntax::{Formula, LabelId, PatternId};
use crate::text::Tokens;
use std::ops::Range;

/// A compiled pattern.
#[derive(Debug, Clone)]
pub struct CompiledPattern {
    pub name: String,
    /// 1-based line of its statement.
    pub line: u32,
    /// The labels it votes for (its polarity).
    pub labels: Vec<LabelId>,
    /// `None` when the automaton passed the state cap; such a pattern matches nothing.
    pub dfa: Option<Dfa>,
    /// The pattern without its leading and trailing `$*`, for spans; `None` when the
    /// pattern has neither (its span is the whole sentence).
    pub(crate) core: Option<Core>,
}

/// The pattern without leading and trailing `$*`, and which ends were stripped.
#[derive(Debug, Clone)]
pub(crate) struct Core {
    pub(crate) dfa: Dfa,
    pub(crate) stripped_start: bool,
    pub(crate) stripped_end: bool,
}

/// One `LABEL: REGEX` or `LABEL <- FORMULA` statement of the rules file.
#[derive(Debug, Clone)]
pub struct SystemRule {
    pub label: LabelId,
    /// Its index among its label's rules (`LabelDef::rules`).
    pub index_in_label: usize,
    /// 1-based line of the statement.
    pub line: u32,
    pub formula: Formula,
}

/// The classifier defined by a rules file.
#[derive(Debug, Clone)]
pub struct RuleSystem {
    pub(crate) alphabet: Alphabet,
    pub(crate) patterns: Vec<CompiledPattern>,
    /// Label names in priority order.
    pub(crate) labels: Vec<String>,
    /// Per label: the OR of its rules.
    pub(crate) label_formulas: Vec<Formula>,
    /// The rules in file order.
    pub(crate) rules: Vec<SystemRule>,
    /// Which patterns and rules a sentence's literals can fire.
    pub(crate) prefilter: Prefilter,
    pub(crate) default: Option<LabelId>,
    /// How many of `labels` the rules name; those after are a corpus's
    /// ([`RuleSystem::with_labels`]).
    pub(crate) named_labels: usize,
    /// See [`RuleSystem::compile_work`].
    pub(crate) compile_work: u64,
}

/// A label's formula: the OR of its rules' formulas, or the one rule's own.
pub(crate) fn label_formula<'a>(rules: impl IntoIterator<Item = &'a Formula>) -> Formula {
    let mut formulas: Vec<Formula> = rules.into_iter().cloned().collect();
    match formulas.len() {
        1 => formulas.swap_remove(0),
        _ => Formula::Or(formulas),
    }
}

/// Reusable buffers for classification.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    pub tokens: Tokens,
    pub symbols: Vec<SymbolId>,
    pub candidates: Candidates,
}

/// The outcome of classifying one sentence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Classification {
    /// The predicted label; `None` when no label fires and there is no default.
    pub prediction: Option<LabelId>,
    /// Per pattern: whether it matched.
    pub matched: Vec<bool>,
    /// Per label: whether its formula is true.
    pub fired: Vec<bool>,
    /// The rules that fired, as indices into [`RuleSystem::rules`] (file order), ascending.
    pub rules_fired: Vec<usize>,
}

impl Classification {
    /// Whether some label fired (the sentence is covered by the rules).
    pub fn covered(&self) -> bool {
        self.fired.contains(&true)
    }
}

impl RuleSystem {
    pub fn alphabet(&self) -> &Alphabet {
        &self.alphabet
    }

    pub fn patterns(&self) -> &[CompiledPattern] {
        &self.patterns
    }

    pub fn pattern(&self, id: PatternId) -> &CompiledPattern {
        &self.patterns[id.index()]
    }

    /// Label names in priority order.
    pub fn labels(&self) -> &[String] {
        &self.labels
    }

    pub fn label_by_name(&self, name: &str) -> Option<LabelId> {
        self.labels
            .iter()
            .position(|label| label == name)
            .map(|i| LabelId(i as u32))
    }

    /// The rules in file order.
    pub fn rules(&self) -> &[SystemRule] {
        &self.rules
    }

    /// The formula of a label: the OR of its rules.
    pub fn label_formula(&self, id: LabelId) -> &Formula {
        &self.label_formulas[id.index()]
    }

    pub fn default_label(&self) -> Option<LabelId> {
        self.default
    }

    /// The NFA-state visits its DFAs' subset constructions took: what compiling it cost
    /// beyond its text's size (a `$* a $* a …` of n elements takes about n² of them), by
    /// which `suggest` budgets the analyses of its candidates.
    pub fn compile_work(&self) -> u64 {
        self.compile_work
    }

    /// The labels [`RuleSystem::with_labels`] appended: a corpus's labels the rules do not
    /// name, which a network learns from the corpus alone.
    pub fn corpus_labels(&self) -> &[String] {
        &self.labels[self.named_labels..]
    }

    /// This system with `names` it lacks appended to its labels, each never true: for a
    /// network that learns labels the rules do not name yet ([`RuleSystem::corpus_labels`]).
    pub fn with_labels<'a>(&self, names: impl IntoIterator<Item = &'a str>) -> RuleSystem {
        let mut system = self.clone();
        for name in names {
            if system.label_by_name(name).is_none() {
                system.labels.push(name.to_string());
                system.label_formulas.push(Formula::False);
            }
        }
        system
    }

    /// This system without the rules at `left_out` (indices into [`RuleSystem::rules`]): each
    /// label's formula is the OR of the rules it keeps, so that it classifies as the file
    /// with those rules deleted would, but that its labels keep their priority as written.
    /// Its patterns and alphabet stay, so that a network built from it has the same
    /// parameters. For the rules training leaves out (`model/train/left_out.rs`).
    /// Linear in the rules and `left_out` (a manifest read from disk names them).
    pub fn without_rules(&self, left_out: &[usize]) -> RuleSystem {
        let mut dropped = vec![false; self.rules.len()];
        for &index in left_out {
            if let Some(dropped) = dropped.get_mut(index) {
                *dropped = true;
            }
        }
        let kept: Vec<SystemRule> = (self.rules.iter().zip(&dropped))
            .filter(|(_, dropped)| !**dropped)
            .map(|(rule, _)| rule.clone())
            .collect();
        let mut by_label: Vec<Vec<&Formula>> = vec![Vec::new(); self.named_labels];
        for rule in &kept {
            by_label[rule.label.index()].push(&rule.formula);
        }
        let named = by_label.into_iter().map(label_formula);
        let corpus = self.label_formulas[self.named_labels..].iter().cloned();
        RuleSystem {
            label_formulas: named.chain(corpus).collect(),
            prefilter: Prefilter::new(
                &self
                    .patterns
                    .iter()
                    .map(|p| p.dfa.as_ref())
                    .collect::<Vec<_>>(),
                kept.iter().map(|rule| &rule.formula),
                &self.alphabet,
            ),
            rules: kept,
            ..self.clone()
        }
    }

    /// Classifies a text.
    ///
    /// ```
    /// let text = "default ham\nspam: $* ( won | win ) $* cash $*\n";
    /// let parse = rulelens::syntax::parse(text);
    /// let (rules, _) = rulelens::syntax::lower(&parse, text);
    /// let (system, _) = rulelens::automata::compile(&rules, &Default::default());
    /// let spam = system.label_by_name("spam");
    /// assert_eq!(system.classify("You WON cash!").prediction, spam);
    /// assert_eq!(system.classify("see you").prediction, system.default_label());
    /// ```
    pub fn classify(&self, text: &str) -> Classification {
        let mut out = Classification::default();
        self.classify_with(text, &mut Scratch::default(), &mut out);
        out
    }

    /// Classifies a text, reusing buffers; the symbols stay in `scratch.symbols`.
    pub fn classify_with(&self, text: &str, scratch: &mut Scratch, out: &mut Classification) {
        scratch.tokens.tokenize(text);
        self.alphabet
            .symbolize(&scratch.tokens, &mut scratch.symbols);
        self.classify_symbols(&scratch.symbols, &mut scratch.candidates, out);
    }

    /// Classifies a sentence given as symbols of this system's alphabet.
    pub fn classify_symbols(
        &self,
        symbols: &[SymbolId],
        candidates: &mut Candidates,
        out: &mut Classification,
    ) {
        let Candidates {
            patterns,
            matched: matched_ids,
            rules,
        } = candidates;
        self.prefilter.candidate_patterns(symbols, patterns);
        out.matched.clear();
        out.matched.resize(self.patterns.len(), false);
        matched_ids.clear();
        for &pattern in patterns.iter() {
            let dfa = self.patterns[pattern as usize].dfa.as_ref();
            if dfa.is_some_and(|dfa| dfa.is_match(symbols, &self.alphabet)) {
                out.matched[pattern as usize] = true;
                matched_ids.push(pattern);
            }
        }
        let matched = &out.matched;
        self.prefilter.candidate_rules(matched_ids, rules);
        out.rules_fired.clear();
        out.fired.clear();
        out.fired.resize(self.labels.len(), false);
        for &rule in rules.iter() {
            let rule_def = &self.rules[rule as usize];
            if rule_def.formula.eval(&|p: PatternId| matched[p.index()]) {
                out.rules_fired.push(rule as usize);
                out.fired[rule_def.label.index()] = true;
            }
        }
        out.prediction = out
            .fired
            .iter()
            .position(|&fired| fired)
            .map(|i| LabelId(i as u32))
            .or(self.default);
    }

    /// The token span a matching pattern matched, leaving out what its leading and
    /// trailing `$*` absorbed: the leftmost start, then the shortest end. `None` when the
    /// pattern does not match.
    pub fn match_span(&self, pattern: PatternId, symbols: &[SymbolId]) -> Option<Range<usize>> {
        let compiled = &self.patterns[pattern.index()];
        let dfa = compiled.dfa.as_ref()?;
        if !dfa.is_match(symbols, &self.alphabet) {
            return None;
        }
        let Some(core) = &compiled.core else {
            return Some(0..symbols.len());
        };
        let core_dfa = &core.dfa;
        let n = symbols.len();
        let starts = if core.stripped_start { 0..n + 1 } else { 0..1 };
        for start in starts {
            let mut state = core_dfa.start();
            let fits =
                |end: usize, state| core_dfa.is_accepting(state) && (core.stripped_end || end == n);
            if fits(start, state) {
                return Some(start..start);
            }
            for (end, &symbol) in symbols.iter().enumerate().skip(start) {
                state = core_dfa.next(state, symbol, &self.alphabet);
                if Some(state) == core_dfa.dead_state() {
                    break;
                }
                if fits(end + 1, state) {
                    return Some(start..end + 1);
                }
            }
        }
        // Unreachable when the pattern matched; the whole sentence is a safe answer.
        Some(0..n)
    }
}

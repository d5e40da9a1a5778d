//! Checks on the languages of a compiled rule system.
//!
//! - a pattern whose language is empty ([`Code::EmptyLanguage`]) or that matches every
//!   sentence ([`Code::MatchesEverything`]): read off the minimal DFA;
//! - a pattern with exactly the language of an earlier one ([`Code::DuplicateLanguage`]):
//!   canonical minimal DFAs are equal, found with one hash map;
//! - no `default` while some sentence fires no label ([`Code::MissingDefault`]): a
//!   breadth-first product search that also yields a shortest such sentence;
//! - a rule that never decides a prediction because a label of higher priority fires
//!   whenever it does ([`Code::ShadowedRule`]): an A* product search per rule, guided by the
//!   rule's patterns, that must exhaust the product to report anything; a rule that no
//!   sentence fires at all is [`Code::UnsatisfiableFormula`] instead, explained by `sets`;
//! - then, on the rules none of these reported, `sets`' pairwise checks: redundant rules
//!   ([`Code::RedundantRule`]) and rules of different labels that overlap
//!   ([`Code::OverlappingRules`]).
//!
//! Product searches are capped ([`CompileConfig::max_search_steps`]); when one gives up,
//! nothing is reported.

use super::alphabet::{Alphabet, SymbolId};
use super::config::CompileConfig;
use super::dfa::Dfa;
use super::rule_system::RuleSystem;
use super::search::{Query, Search, patterns_of, product, search, short_words, witness_text};
use super::sets::{self, Budget, Open, RuleRef};
use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::{Formula, Literal, PatternId, RuleSet, ast, classify_literal};
use std::cell::RefCell;
use std::collections::HashMap;

pub(crate) fn check(
    system: &RuleSystem,
    rules: &RuleSet,
    config: &CompileConfig,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut first_with_language: HashMap<&Dfa, usize> = HashMap::new();
    // Patterns W0304 reports: the rules made of them alone are not checked again.
    let mut duplicates = vec![false; rules.patterns.len()];
    for (i, (compiled, def)) in system.patterns.iter().zip(&rules.patterns).enumerate() {
        let Some(dfa) = &compiled.dfa else { continue };
        // What a pattern with a syntax error means is unclear; its error says enough.
        if has_syntax_error(&def.regex) {
            continue;
        }
        if dfa.accepts_nothing() {
            let help = if has_unproducible_literal(&def.regex) {
                "it needs a literal the tokenizer never produces (see E0205)"
            } else {
                "its regular expression accepts no token sequence"
            };
            diagnostics.push(
                Diagnostic::new(
                    Code::EmptyLanguage,
                    def.name_range,
                    format!("pattern `{}` can never match", def.name),
                )
                .with_help(help),
            );
            continue;
        }
        if dfa.accepts_everything() {
            diagnostics.push(
                Diagnostic::new(
                    Code::MatchesEverything,
                    def.name_range,
                    format!("pattern `{}` matches every sentence", def.name),
                )
                .with_help("add a literal it must see, as in `$* free $*`"),
            );
        }
        match first_with_language.get(dfa) {
            // Two rules of different labels with one language: `shadowed_rules` reports the
            // one that never decides, with the reason.
            Some(&first)
                if def.anonymous
                    && rules.patterns[first].anonymous
                    && rules.patterns[first].labels != def.labels => {}
            Some(&first) => {
                duplicates[i] = true;
                let first_def = &rules.patterns[first];
                diagnostics.push(
                    Diagnostic::new(
                        Code::DuplicateLanguage,
                        def.name_range,
                        format!(
                            "pattern `{}` matches exactly the sentences that `{}` (line {}) matches",
                            def.name, first_def.name, first_def.line
                        ),
                    )
                    .with_related(first_def.name_range, "same language")
                    .with_help(duplicate_help(system, first, i)),
                );
            }
            None => {
                first_with_language.insert(dfa, i);
            }
        }
    }
    if rules.default.is_none() {
        diagnostics.extend(missing_default(system, rules, config));
    }
    let mut open: Open = rules
        .labels
        .iter()
        .map(|label| {
            label
                .rules
                .iter()
                .map(|rule| !matches!(rule.formula, Formula::Pattern(p) if duplicates[p.index()]))
                .collect()
        })
        .collect();
    diagnostics.extend(shadowed_rules(system, rules, config, &mut open));
    diagnostics.extend(sets::redundant_rules(system, rules, &mut open, config));
    diagnostics.extend(sets::overlapping_rules(system, rules, &open, config));
    diagnostics
}

fn duplicate_help(system: &RuleSystem, first: usize, second: usize) -> String {
    let labels = |p: usize| -> Vec<&str> {
        system.patterns[p]
            .labels
            .iter()
            .map(|l| system.labels[l.index()].as_str())
            .collect()
    };
    let (earlier_labelss, second_labels) = (labels(first), labels(second));
    if earlier_labelss == second_labels {
        "they always fire together: remove one of them".to_string()
    } else {
        format!(
            "they always fire together, so label priority alone decides between {} and {}",
            earlier_labelss.join(", "),
            second_labels.join(", ")
        )
    }
}

/// Whether some node of the regex satisfies `predicate`.
fn any_node(regex: &ast::Regex, predicate: &impl Fn(&ast::Regex) -> bool) -> bool {
    predicate(regex)
        || match &regex.kind {
            ast::RegexKind::Concat(items) | ast::RegexKind::Alt(items) => {
                items.iter().any(|item| any_node(item, predicate))
            }
            ast::RegexKind::Repeat { inner, .. } => any_node(inner, predicate),
            _ => false,
        }
}

fn has_syntax_error(regex: &ast::Regex) -> bool {
    // An empty quoted literal is reported by the lexer (E0103).
    any_node(regex, &|node| match &node.kind {
        ast::RegexKind::Error => true,
        ast::RegexKind::Quoted(text) => text.is_empty(),
        // An unknown word list (E0208).
        ast::RegexKind::WordList(reference) => reference.list.is_none(),
        _ => false,
    })
}

fn has_unproducible_literal(regex: &ast::Regex) -> bool {
    any_node(regex, &|node| match &node.kind {
        ast::RegexKind::Word(text) | ast::RegexKind::Quoted(text) => {
            let quoted = matches!(node.kind, ast::RegexKind::Quoted(_));
            matches!(
                classify_literal(text, quoted, node.range),
                Literal::Unproducible(_)
            )
        }
        _ => false,
    })
}

fn missing_default(
    system: &RuleSystem,
    rules: &RuleSet,
    config: &CompileConfig,
) -> Option<Diagnostic> {
    let (dfas, position) = product(system, &patterns_of(&system.label_formulas));
    let labels: Vec<&Formula> = system.label_formulas.iter().collect();
    let query = Query {
        alphabet: &system.alphabet,
        dfas: &dfas,
        position: &position,
        must_fire: &[],
        must_not_fire: &labels,
        guides: &[],
        max_steps: config.max_search_steps,
    };
    let word = match search(&query) {
        Search::Found(word) => word,
        Search::Exhausted | Search::GaveUp => return None,
    };
    let example = if word.is_empty() {
        "an empty text".to_string()
    } else {
        format!("`{}`", witness_text(&system.alphabet, &word))
    };
    let range = rules
        .labels
        .first()
        .map(|label| label.range)
        .unwrap_or_default();
    Some(
        Diagnostic::new(
            Code::MissingDefault,
            range,
            format!(
                "no `default` label, and some texts fire no label (for example {example}); they get no prediction"
            ),
        )
        .with_help("add `default LABEL` for the label such texts should get"),
    )
}

/// How many of a pattern's shortest sentences the shadowing check tries first.
const QUICK_WORDS: usize = 8;

/// Why a rule never decides a prediction.
enum Shadowing {
    /// Some sentence fires it while no label of higher priority fires (or the search gave
    /// up).
    No,
    /// This pattern, which makes a label of higher priority fire, matches every sentence
    /// the rule's only pattern matches.
    ByPattern(PatternId),
    /// The labels of higher priority together fire whenever the rule does.
    ByLabels,
    /// No sentence fires the rule.
    Never,
}

/// Rules that never decide a prediction: no sentence fires them while every label of higher
/// priority stays silent (W0306), or none fires them at all (W0308). Marks in `open` the
/// rules reported here or before (their patterns are broken, too large or empty).
fn shadowed_rules(
    system: &RuleSystem,
    rules: &RuleSet,
    config: &CompileConfig,
    open: &mut Open,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let earlier_labels = EarlierLabels::new(system);
    let mut explanations = Budget::new(config);
    for (label_index, label) in rules.labels.iter().enumerate() {
        // Patterns that alone make a label of higher priority fire.
        let mut covering = Vec::new();
        for formula in &system.label_formulas[..label_index] {
            match formula {
                Formula::Pattern(q) => covering.push(*q),
                Formula::Or(items) => covering.extend(items.iter().filter_map(|item| match item {
                    Formula::Pattern(q) => Some(*q),
                    _ => None,
                })),
                _ => {}
            }
        }
        let mut n_shadowed = 0;
        for (rule_index, rule) in label.rules.iter().enumerate() {
            let at = RuleRef {
                label: label_index,
                rule: rule_index,
            };
            // Unresolved names, and patterns that are broken, too large or empty, are
            // reported already.
            let mut reported = contains_false(&rule.formula);
            rule.formula.visit(true, &mut |pattern, _| {
                let dfa = &system.patterns[pattern.index()].dfa;
                reported |= dfa.as_ref().is_none_or(Dfa::accepts_nothing)
                    || has_syntax_error(&rules.patterns[pattern.index()].regex);
            });
            if reported {
                open[label_index][rule_index] = false;
                continue;
            }
            let shadowing = shadowing(
                system,
                &earlier_labels,
                &rule.formula,
                label_index,
                &covering,
                config,
            );
            let higher_names: Vec<&str> = rules.labels[..label_index]
                .iter()
                .map(|l| l.name.as_str())
                .collect();
            let mut diagnostic = match shadowing {
                Shadowing::No => continue,
                Shadowing::Never => sets::unsatisfiable_rule(system, rules, at, &mut explanations),
                Shadowing::ByPattern(q) => {
                    let q_def = &rules.patterns[q.index()];
                    let q_labels: Vec<&str> = q_def
                        .labels
                        .iter()
                        .map(|l| rules.labels[l.index()].name.as_str())
                        .filter(|name| higher_names.contains(name))
                        .collect();
                    Diagnostic::new(
                        Code::ShadowedRule,
                        rule.label_range,
                        format!(
                            "this rule never decides a prediction: pattern `{}` (line {}) matches every sentence it matches, and label `{}` is tried before `{}`",
                            q_def.name,
                            q_def.line,
                            q_labels.first().copied().unwrap_or("?"),
                            label.name
                        ),
                    )
                    .with_related(q_def.name_range, "matches every sentence the shadowed rule matches")
                }
                Shadowing::ByLabels => Diagnostic::new(
                    Code::ShadowedRule,
                    rule.label_range,
                    format!(
                        "this rule never decides a prediction: whenever it fires, a label tried before `{}` ({}) fires too",
                        label.name,
                        higher_names.join(", ")
                    ),
                ),
            };
            open[label_index][rule_index] = false;
            n_shadowed += 1;
            if n_shadowed == label.rules.len()
                && rules.default.map(|d| d.index()) != Some(label_index)
            {
                diagnostic
                    .message
                    .push_str(&format!("; label `{}` is never predicted", label.name));
            }
            if diagnostic.help.is_none() {
                diagnostic = diagnostic.with_help(
                    "labels are tried in the order of their first rule; make the rule more \
                     specific, remove it, or move the label's first rule up",
                );
            }
            diagnostics.push(diagnostic);
        }
    }
    diagnostics
}

fn contains_false(formula: &Formula) -> bool {
    match formula {
        Formula::False => true,
        Formula::Pattern(_) => false,
        Formula::Not(inner) => contains_false(inner),
        Formula::And(items) | Formula::Or(items) => items.iter().any(contains_false),
    }
}

/// Whether a label of higher priority fires on a short symbol sequence, without running
/// every pattern: a
/// pattern that tells none of a sequence's literals apart reads it as the sequence of its
/// kinds' "other" symbols, whose accepting patterns are found once per such sequence, and
/// a label whose formula is monotone and false on no match can only fire when one of its
/// patterns matches. A sequence then costs the patterns its literals touch, the patterns
/// accepting its "other" form and the labels those feed, not the whole rule system.
struct EarlierLabels<'s> {
    system: &'s RuleSystem,
    /// Literal symbol → the patterns whose DFA tells it apart.
    by_symbol: HashMap<SymbolId, Vec<usize>>,
    /// Pattern → the labels whose formula reads it.
    labels_of: Vec<Vec<usize>>,
    /// Labels to evaluate on every sequence (a negation, or true with no pattern matched).
    always: Vec<usize>,
    /// Labels whose formula is a pattern or an OR of patterns: they fire exactly when one
    /// of their patterns matches, with no formula to evaluate.
    any_pattern: Vec<bool>,
    /// "Other" form of a sequence → the patterns that accept it, sorted.
    accepting: RefCell<HashMap<Vec<SymbolId>, Vec<usize>>>,
}

impl<'s> EarlierLabels<'s> {
    fn new(system: &'s RuleSystem) -> EarlierLabels<'s> {
        let mut by_symbol: HashMap<SymbolId, Vec<usize>> = HashMap::new();
        for (p, pattern) in system.patterns.iter().enumerate() {
            for &symbol in pattern
                .dfa
                .iter()
                .flat_map(|dfa| dfa.distinguished_symbols())
            {
                by_symbol.entry(symbol).or_default().push(p);
            }
        }
        let mut labels_of = vec![Vec::new(); system.patterns.len()];
        let mut always = Vec::new();
        let is_pattern = |f: &Formula| matches!(f, Formula::Pattern(_));
        let any_pattern = system
            .label_formulas
            .iter()
            .map(|f| match f {
                Formula::Or(items) => items.iter().all(is_pattern),
                other => is_pattern(other),
            })
            .collect();
        for (label, formula) in system.label_formulas.iter().enumerate() {
            let mut monotone = true;
            formula.visit(true, &mut |pattern, positive| {
                monotone &= positive;
                labels_of[pattern.index()].push(label);
            });
            if !monotone || formula.eval(&|_| false) {
                always.push(label);
            }
        }
        EarlierLabels {
            system,
            by_symbol,
            labels_of,
            always,
            any_pattern,
            accepting: RefCell::default(),
        }
    }

    /// Whether a label before `label` (in priority order) fires on `word`.
    fn fire(&self, label: usize, word: &[SymbolId]) -> bool {
        if label == 0 {
            return false;
        }
        let (system, alphabet) = (self.system, &self.system.alphabet);
        let mut touched: Vec<usize> = word
            .iter()
            .filter_map(|symbol| self.by_symbol.get(symbol))
            .flatten()
            .copied()
            .collect();
        touched.sort_unstable();
        touched.dedup();
        let other_form: Vec<SymbolId> = word
            .iter()
            .map(|&symbol| Alphabet::other(alphabet.kind(symbol)))
            .collect();
        let mut cache = self.accepting.borrow_mut();
        let accepting = cache.entry(other_form).or_insert_with_key(|form| {
            (0..system.patterns.len())
                .filter(|&p| {
                    system.patterns[p]
                        .dfa
                        .as_ref()
                        .is_some_and(|dfa| dfa.is_match(form, alphabet))
                })
                .collect()
        });
        let matched = |p: usize| match touched.binary_search(&p) {
            Ok(_) => system.patterns[p]
                .dfa
                .as_ref()
                .is_some_and(|dfa| dfa.is_match(word, alphabet)),
            Err(_) => accepting.binary_search(&p).is_ok(),
        };
        let mut candidates: Vec<usize> =
            self.always.iter().copied().filter(|&l| l < label).collect();
        for &p in touched.iter().chain(accepting.iter()) {
            if matched(p) {
                let feeds = self.labels_of[p].iter().copied().filter(|&l| l < label);
                if feeds.clone().any(|l| self.any_pattern[l]) {
                    return true;
                }
                candidates.extend(feeds);
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates
            .into_iter()
            .any(|l| system.label_formulas[l].eval(&|pattern: PatternId| matched(pattern.index())))
    }
}

fn shadowing(
    system: &RuleSystem,
    earlier_labels: &EarlierLabels<'_>,
    formula: &Formula,
    label_index: usize,
    covering: &[PatternId],
    config: &CompileConfig,
) -> Shadowing {
    let higher = &system.label_formulas[..label_index];
    let mut positive = Vec::new();
    formula.visit(true, &mut |pattern, is_positive| {
        if is_positive && !positive.contains(&pattern) {
            positive.push(pattern);
        }
    });
    let alphabet = &system.alphabet;
    // 1. Cheap: one of the shortest sentences of the rule's patterns may decide for it.
    // Only the patterns the formulas read are run, so a rule costs what its formula and
    // the higher labels' formulas read, not the whole rule system.
    let mut words_of_single = Vec::new();
    // A single pattern fires on some sentence: its empty language was reported already.
    let mut satisfied = matches!(formula, Formula::Pattern(_));
    for &p in &positive {
        let Some(dfa) = &system.patterns[p.index()].dfa else {
            continue;
        };
        let words = short_words(dfa, alphabet, QUICK_WORDS);
        for word in &words {
            let matched = |q: PatternId| {
                system.patterns[q.index()]
                    .dfa
                    .as_ref()
                    .is_some_and(|dfa| dfa.is_match(word, alphabet))
            };
            if formula.eval(&matched) {
                if !earlier_labels.fire(label_index, word) {
                    return Shadowing::No;
                }
                satisfied = true;
            }
        }
        if *formula == Formula::Pattern(p) {
            words_of_single = words;
        }
    }
    // 2. A formula no sentence satisfies, by a search of its own patterns' product, whose
    // witness may also show that the rule decides.
    if !satisfied {
        let (dfas, position) = product(system, &patterns_of([formula]));
        let guides: Vec<usize> = positive
            .iter()
            .filter_map(|p| position.get(p).copied())
            .collect();
        let query = Query {
            alphabet,
            dfas: &dfas,
            position: &position,
            must_fire: &[formula],
            must_not_fire: &[],
            guides: &guides,
            max_steps: config.max_search_steps,
        };
        match search(&query) {
            Search::Exhausted => return Shadowing::Never,
            Search::Found(word) if !earlier_labels.fire(label_index, &word) => {
                return Shadowing::No;
            }
            Search::Found(_) | Search::GaveUp => {}
        }
    }
    if label_index == 0 {
        return Shadowing::No;
    }
    // 3. One pattern of a higher label whose language contains the rule's only pattern's.
    if let Formula::Pattern(p) = formula
        && let Some(p_dfa) = &system.patterns[p.index()].dfa
    {
        for &q in covering {
            let Some(q_dfa) = &system.patterns[q.index()].dfa else {
                continue;
            };
            if !words_of_single
                .iter()
                .all(|word| q_dfa.is_match(word, alphabet))
            {
                continue;
            }
            let position = HashMap::from([(*p, 0), (q, 1)]);
            let query = Query {
                alphabet: &system.alphabet,
                dfas: &[p_dfa, q_dfa],
                position: &position,
                must_fire: &[formula],
                must_not_fire: &[&Formula::Pattern(q)],
                guides: &[0],
                max_steps: config.max_search_steps,
            };
            if search(&query) == Search::Exhausted {
                return Shadowing::ByPattern(q);
            }
        }
    }
    // 4. The product of the rule's patterns with every pattern of the higher labels.
    let mut involved = patterns_of([formula]);
    involved.extend(patterns_of(higher));
    let (dfas, position) = product(system, &involved);
    let guides: Vec<usize> = positive
        .iter()
        .filter_map(|p| position.get(p).copied())
        .collect();
    let higher: Vec<&Formula> = higher.iter().collect();
    let query = Query {
        alphabet: &system.alphabet,
        dfas: &dfas,
        position: &position,
        must_fire: &[formula],
        must_not_fire: &higher,
        guides: &guides,
        max_steps: config.max_search_steps,
    };
    if search(&query) == Search::Exhausted {
        Shadowing::ByLabels
    } else {
        Shadowing::No
    }
}

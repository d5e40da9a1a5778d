//! Exact set analysis of the rules: relations between the sets of sentences that label
//! rules fire on, proved by product search (`search`).
//!
//! - a rule whose formula no sentence satisfies ([`Code::UnsatisfiableFormula`]): `lint`'s
//!   shadowing check proves it (its product search exhausts); [`unsatisfiable_rule`] says
//!   why when two conjuncts already contradict each other (`a & !a`, disjoint `a & b`,
//!   `a & !b` with `b` matching all that `a` matches);
//! - a rule that never changes a prediction because another rule of its label fires
//!   whenever it does ([`Code::RedundantRule`]): language inclusion, by a search for a
//!   sentence that fires the rule and not the other one;
//! - two rules of different labels that react to the same words ([`Code::OverlappingRules`]):
//!   the shortest sentence firing both, when it is no longer than the longer rule's shortest
//!   sentence (two keyword rules always overlap on a text that holds both keywords; that
//!   is not reported), and the higher-priority rule is not an exception carved out of the
//!   lower one (its sentences all fire the lower rule).
//!
//! Only rules no earlier check reported are compared, so a rule gets at most one of W0304,
//! W0306, W0307 and W0308, and I0309 only when it got none of them.
//!
//! Cost. Pairs are never enumerated. A rule is compared only with candidates found through
//! an index by literal: for W0307, the rules of its label whose rarest required literal
//! class (literals one of which every sentence of the rule contains) shares a literal with
//! one of the rule's required classes, then the label's rules that require none; for
//! I0309, the rules of higher-priority labels that tell apart a literal the rule tells
//! apart. At most [`MAX_CANDIDATES`] candidates per rule, first in priority and file order,
//! are compared, and each of the two checks computes at most [`BUDGET_SEARCHES`] times
//! `CompileConfig::max_search_steps` DFA transitions in all (each search at most
//! `max_search_steps`); past that budget a check stops silently, reporting only what it
//! proved. Finding a pattern's required classes costs at most [`MAX_REQUIRED_WORK`]
//! transitions per pattern. The explanations of W0308 share one such budget.

use super::alphabet::{Alphabet, SymbolId};
use super::config::CompileConfig;
use super::dfa::{Dfa, StateId};
use super::rule_system::RuleSystem;
use super::search::{
    Query, Search, patterns_of, product, search_counting, short_words, shortest_length,
    witness_text,
};
use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::{Formula, PatternId, RuleSet};
use std::collections::{HashMap, HashSet, VecDeque};

/// How many times `CompileConfig::max_search_steps` one pairwise check may spend in all.
pub(crate) const BUDGET_SEARCHES: usize = 10;
/// Most candidate rules one rule is compared with, per check.
pub(crate) const MAX_CANDIDATES: usize = 32;
/// Most DFA transitions spent finding one pattern's required literal classes.
pub(crate) const MAX_REQUIRED_WORK: usize = 100_000;
/// How many of a rule's shortest sentences are tried on a candidate cover before searching.
const SAMPLE_SENTENCES: usize = 8;
/// How many more overlapping rules an I0309 diagnostic points at, besides the one it names.
const MAX_RELATED: usize = 3;
/// Most conjuncts whose pairs the explanation of W0308 tries.
const MAX_EXPLAINED_CONJUNCTS: usize = 8;

/// A label rule: its label's index (priority order) and its place among the label's rules
/// (file order). Ordered by priority, then file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct RuleRef {
    pub(super) label: usize,
    pub(super) rule: usize,
}

/// Per label, per rule: whether no check has reported the rule yet.
pub(super) type Open = Vec<Vec<bool>>;

/// A share of DFA transitions for many product searches.
pub(super) struct Budget {
    left: usize,
    per_search: usize,
}

impl Budget {
    /// [`BUDGET_SEARCHES`] searches' worth of `config.max_search_steps`.
    pub(super) fn new(config: &CompileConfig) -> Budget {
        Budget {
            left: config.max_search_steps.saturating_mul(BUDGET_SEARCHES),
            per_search: config.max_search_steps,
        }
    }

    fn spent(&self) -> bool {
        self.left == 0
    }

    /// Searches for a sentence that fires every formula of `fire` and none of `silent`:
    /// breadth-first (a shortest one), or guided by the patterns `fire` reads positively.
    /// [`Search::GaveUp`] once the budget is spent.
    fn find(
        &mut self,
        system: &RuleSystem,
        fire: &[&Formula],
        silent: &[&Formula],
        guided: bool,
    ) -> Search {
        if self.spent() {
            return Search::GaveUp;
        }
        let (dfas, position) = product(system, &patterns_of(fire.iter().chain(silent).copied()));
        let mut guides = Vec::new();
        if guided {
            for formula in fire {
                formula.visit(true, &mut |pattern, positive| {
                    if let Some(&i) = position.get(&pattern).filter(|_| positive) {
                        guides.push(i);
                    }
                });
            }
            guides.sort_unstable();
            guides.dedup();
        }
        let query = Query {
            alphabet: &system.alphabet,
            dfas: &dfas,
            position: &position,
            must_fire: fire,
            must_not_fire: silent,
            guides: &guides,
            max_steps: self.per_search.min(self.left),
        };
        let (result, steps) = search_counting(&query);
        self.left -= steps.min(self.left);
        result
    }
}

/// "the `spam` rule of line 5".
fn describe(rules: &RuleSet, at: RuleRef) -> String {
    let label = &rules.labels[at.label];
    format!(
        "the `{}` rule of line {}",
        label.name, label.rules[at.rule].line
    )
}

/// Whether deleting a rule leaves every label that can still fire where it was in the
/// priority order: a label's place is that of its first rule.
fn removal_keeps_priority(rules: &RuleSet, at: RuleRef) -> bool {
    let own = &rules.labels[at.label].rules;
    if at.rule != 0 || own.len() == 1 {
        return true;
    }
    let second = own[1].range.start();
    rules
        .labels
        .get(at.label + 1)
        .and_then(|next| next.rules.first())
        .is_none_or(|first| first.range.start() > second)
}

/// Adds the help and, when deleting the rule's line keeps the labels' priority, the quick
/// fix that deletes it; otherwise the help says to put the rule of line `successor` (of
/// the same label, firing wherever this one does) in its place.
fn removable(diagnostic: Diagnostic, rules: &RuleSet, at: RuleRef, successor: u32) -> Diagnostic {
    let label = &rules.labels[at.label];
    let rule = &label.rules[at.rule];
    if removal_keeps_priority(rules, at) {
        diagnostic
            .with_help("remove it: it never changes a prediction")
            .with_fix(
                format!("Remove the rule of line {}", rule.line),
                rule.line_range,
                "",
            )
    } else {
        diagnostic.with_help(format!(
            "it never changes a prediction, but as the first rule of `{}` it places the label \
             in the priority order: put the rule of line {successor} in its place",
            label.name
        ))
    }
}

/// The W0308 diagnostic of a rule whose formula no sentence satisfies (`lint` proved it),
/// with the reason when two of its conjuncts contradict each other.
pub(super) fn unsatisfiable_rule(
    system: &RuleSystem,
    rules: &RuleSet,
    at: RuleRef,
    budget: &mut Budget,
) -> Diagnostic {
    let rule = &rules.labels[at.label].rules[at.rule];
    let reason = contradiction(system, rules, &rule.formula, budget)
        .unwrap_or_else(|| "no sentence satisfies its formula".to_string());
    // Only the first of several rules may not go; the label's next one can take its place.
    let next = rules.labels[at.label]
        .rules
        .get(1)
        .map_or(rule.line, |r| r.line);
    removable(
        Diagnostic::new(
            Code::UnsatisfiableFormula,
            rule.label_range,
            format!("this rule can never fire: {reason}"),
        ),
        rules,
        at,
        next,
    )
}

/// Two conjuncts of `formula`, each a pattern or a negated pattern, that no sentence
/// satisfies together, said in words.
fn contradiction(
    system: &RuleSystem,
    rules: &RuleSet,
    formula: &Formula,
    budget: &mut Budget,
) -> Option<String> {
    let conjuncts: Vec<&Formula> = match formula {
        Formula::And(items) => items.iter().collect(),
        other => vec![other],
    };
    let literals: Vec<(PatternId, bool)> = conjuncts
        .iter()
        .filter_map(|conjunct| match conjunct {
            Formula::Pattern(p) => Some((*p, true)),
            Formula::Not(inner) => match **inner {
                Formula::Pattern(p) => Some((p, false)),
                _ => None,
            },
            _ => None,
        })
        .take(MAX_EXPLAINED_CONJUNCTS)
        .collect();
    let name = |p: PatternId| rules.patterns[p.index()].name.as_str();
    for (i, &(p, p_positive)) in literals.iter().enumerate() {
        for &(q, q_positive) in &literals[i + 1..] {
            if p == q && p_positive != q_positive {
                return Some(format!(
                    "it needs `{}` both to match and not to match",
                    name(p)
                ));
            }
        }
    }
    for (i, &(p, p_positive)) in literals.iter().enumerate() {
        for &(q, q_positive) in &literals[i + 1..] {
            if p == q {
                continue;
            }
            let (fp, fq) = (Formula::Pattern(p), Formula::Pattern(q));
            let (fire, silent): (Vec<&Formula>, Vec<&Formula>) = match (p_positive, q_positive) {
                (true, true) => (vec![&fp, &fq], vec![]),
                (true, false) => (vec![&fp], vec![&fq]),
                (false, true) => (vec![&fq], vec![&fp]),
                (false, false) => (vec![], vec![&fp, &fq]),
            };
            if budget.find(system, &fire, &silent, true) != Search::Exhausted {
                continue;
            }
            return Some(match (p_positive, q_positive) {
                (true, true) => format!("no sentence matches both `{}` and `{}`", name(p), name(q)),
                (true, false) => format!(
                    "`{}` matches every sentence that `{}` matches",
                    name(q),
                    name(p)
                ),
                (false, true) => format!(
                    "`{}` matches every sentence that `{}` matches",
                    name(p),
                    name(q)
                ),
                (false, false) => format!("every sentence matches `{}` or `{}`", name(p), name(q)),
            });
        }
    }
    None
}

/// Per pattern: classes of literals the pattern tells apart, one of which every sentence it
/// matches contains (each class sorted); empty when finding them would cost more than
/// [`MAX_REQUIRED_WORK`].
fn required_classes(dfa: &Dfa, alphabet: &Alphabet) -> Vec<Vec<SymbolId>> {
    let other_classes: Vec<usize> = [
        Alphabet::OTHER_WORD,
        Alphabet::OTHER_NUMBER,
        Alphabet::OTHER_PUNCT,
    ]
    .iter()
    .map(|&symbol| dfa.class_of(symbol, alphabet))
    .collect();
    // Classes made of literals only: a class holding an "other" symbol holds unboundedly
    // many words, which no index can list.
    let mut literal_classes: HashMap<usize, Vec<SymbolId>> = HashMap::new();
    for &symbol in dfa.distinguished_symbols() {
        let class = dfa.class_of(symbol, alphabet);
        if !other_classes.contains(&class) {
            literal_classes.entry(class).or_default().push(symbol);
        }
    }
    let work = literal_classes.len() * dfa.n_states() * dfa.n_classes();
    if work > MAX_REQUIRED_WORK {
        return Vec::new();
    }
    let mut required: Vec<Vec<SymbolId>> = literal_classes
        .into_iter()
        .filter(|&(class, _)| !accepts_avoiding(dfa, class))
        .map(|(_, symbols)| symbols)
        .collect();
    required.sort_unstable();
    required
}

/// Whether `dfa` accepts some sentence without a token of class `avoided`.
fn accepts_avoiding(dfa: &Dfa, avoided: usize) -> bool {
    let mut seen = vec![false; dfa.n_states()];
    let mut queue = VecDeque::from([dfa.start()]);
    seen[dfa.start().index()] = true;
    while let Some(state) = queue.pop_front() {
        if dfa.is_accepting(state) {
            return true;
        }
        for class in (0..dfa.n_classes()).filter(|&c| c != avoided) {
            let next: StateId = dfa.next_by_class(state, class);
            if !seen[next.index()] {
                seen[next.index()] = true;
                queue.push_back(next);
            }
        }
    }
    false
}

/// The literal classes one of which every sentence satisfying `formula` contains, from its
/// patterns' (`by_pattern`).
fn formula_required(formula: &Formula, by_pattern: &[Vec<Vec<SymbolId>>]) -> Vec<Vec<SymbolId>> {
    match formula {
        Formula::Pattern(p) => by_pattern[p.index()].clone(),
        Formula::And(items) => {
            let mut all: Vec<Vec<SymbolId>> = items
                .iter()
                .flat_map(|item| formula_required(item, by_pattern))
                .collect();
            all.sort_unstable();
            all.dedup();
            all
        }
        Formula::Or(items) => {
            let mut items = items.iter().map(|item| formula_required(item, by_pattern));
            let first = items.next().unwrap_or_default();
            items.fold(first, |common, next| {
                common.into_iter().filter(|c| next.contains(c)).collect()
            })
        }
        Formula::Not(_) | Formula::False => Vec::new(),
    }
}

/// Whether a rule's formula fires on a symbol sequence.
fn fires(system: &RuleSystem, formula: &Formula, word: &[SymbolId]) -> bool {
    formula.eval(&|pattern: PatternId| {
        system.patterns[pattern.index()]
            .dfa
            .as_ref()
            .is_some_and(|dfa| dfa.is_match(word, &system.alphabet))
    })
}

/// A few short sentences that fire `formula`: shortest sentences of its positive patterns.
fn sample_sentences(system: &RuleSystem, formula: &Formula) -> Vec<Vec<SymbolId>> {
    let mut positive = Vec::new();
    formula.visit(true, &mut |pattern, is_positive| {
        if is_positive && !positive.contains(&pattern) {
            positive.push(pattern);
        }
    });
    positive
        .iter()
        .filter_map(|p| system.patterns[p.index()].dfa.as_ref())
        .flat_map(|dfa| short_words(dfa, &system.alphabet, SAMPLE_SENTENCES))
        .filter(|word| fires(system, formula, word))
        .take(SAMPLE_SENTENCES)
        .collect()
}

/// Rules that never change a prediction because another rule of their label fires whenever
/// they do ([`Code::RedundantRule`]). Marks the reported rules in `open`.
pub(super) fn redundant_rules(
    system: &RuleSystem,
    rules: &RuleSet,
    open: &mut Open,
    config: &CompileConfig,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let alphabet = &system.alphabet;
    // The required classes of the patterns open rules read positively.
    let mut by_pattern: Vec<Vec<Vec<SymbolId>>> = vec![Vec::new(); system.patterns.len()];
    let mut computed = vec![false; system.patterns.len()];
    for (label, def) in rules.labels.iter().enumerate() {
        for (rule, label_rule) in def.rules.iter().enumerate() {
            if !open[label][rule] || def.rules.len() < 2 {
                continue;
            }
            label_rule.formula.visit(true, &mut |pattern, positive| {
                let p = pattern.index();
                if positive && !computed[p] {
                    computed[p] = true;
                    if let Some(dfa) = &system.patterns[p].dfa {
                        by_pattern[p] = required_classes(dfa, alphabet);
                    }
                }
            });
        }
    }
    // Every open rule's required classes, and how many rules require each literal.
    let mut required: HashMap<RuleRef, Vec<Vec<SymbolId>>> = HashMap::new();
    let mut frequency: HashMap<SymbolId, usize> = HashMap::new();
    for (label, def) in rules.labels.iter().enumerate() {
        if def.rules.len() < 2 {
            continue;
        }
        for (rule, label_rule) in def.rules.iter().enumerate() {
            if !open[label][rule] {
                continue;
            }
            let classes = formula_required(&label_rule.formula, &by_pattern);
            for symbol in classes.iter().flatten() {
                *frequency.entry(*symbol).or_default() += 1;
            }
            required.insert(RuleRef { label, rule }, classes);
        }
    }
    // A candidate cover is indexed under the literals of its rarest required class; one
    // with none is tried for every rule of its label. A pattern that matches every sentence
    // covers every rule of its label, which W0302 says already.
    let mut index: HashMap<(usize, SymbolId), Vec<usize>> = HashMap::new();
    let mut keyless: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut keys: Vec<_> = required.iter().collect();
    keys.sort_unstable_by_key(|(at, _)| **at);
    for (at, classes) in keys {
        if let Formula::Pattern(p) = rules.labels[at.label].rules[at.rule].formula
            && system.patterns[p.index()]
                .dfa
                .as_ref()
                .is_some_and(Dfa::accepts_everything)
        {
            continue;
        }
        let rarest = classes
            .iter()
            .min_by_key(|class| class.iter().map(|s| frequency[s]).sum::<usize>());
        match rarest {
            Some(class) => {
                for &symbol in class {
                    index.entry((at.label, symbol)).or_default().push(at.rule);
                }
            }
            None => keyless.entry(at.label).or_default().push(at.rule),
        }
    }
    let mut budget = Budget::new(config);
    'labels: for (label, def) in rules.labels.iter().enumerate() {
        for (rule, label_rule) in def.rules.iter().enumerate() {
            let at = RuleRef { label, rule };
            let Some(classes) = required.get(&at) else {
                continue;
            };
            if budget.spent() {
                break 'labels;
            }
            let mut candidates: Vec<usize> = Vec::new();
            let keyed = classes
                .iter()
                .flatten()
                .filter_map(|&symbol| index.get(&(label, symbol)))
                .flatten();
            let unkeyed = keyless.get(&label).into_iter().flatten();
            for &other in keyed.chain(unkeyed) {
                if candidates.len() == MAX_CANDIDATES {
                    break;
                }
                if other != rule && !candidates.contains(&other) {
                    candidates.push(other);
                }
            }
            if candidates.is_empty() {
                continue;
            }
            let formula = &label_rule.formula;
            let samples = sample_sentences(system, formula);
            let cover = candidates.into_iter().find(|&other| {
                let other_formula = &def.rules[other].formula;
                if !samples.iter().all(|w| fires(system, other_formula, w))
                    || budget.find(system, &[formula], &[other_formula], true) != Search::Exhausted
                {
                    return false;
                }
                // Two rules that fire on the same sentences: only the later one is
                // redundant (W0304 has reported equal single patterns already).
                other < rule
                    || budget.find(system, &[other_formula], &[formula], true) != Search::Exhausted
            });
            let Some(cover) = cover else {
                continue;
            };
            let cover_rule = &def.rules[cover];
            let diagnostic = Diagnostic::new(
                Code::RedundantRule,
                label_rule.label_range,
                format!(
                    "this rule is redundant: whenever it fires, {} fires too",
                    describe(rules, RuleRef { label, rule: cover })
                ),
            )
            .with_related(
                cover_rule.label_range,
                "fires on every sentence the redundant rule fires on",
            );
            diagnostics.push(removable(diagnostic, rules, at, cover_rule.line));
            open[label][rule] = false;
        }
    }
    diagnostics
}

/// Rules of different labels that react to the same words ([`Code::OverlappingRules`]),
/// reported on the rule of the lower-priority label.
pub(super) fn overlapping_rules(
    system: &RuleSystem,
    rules: &RuleSet,
    open: &Open,
    config: &CompileConfig,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    // Literal → the open rules whose positive patterns tell it apart, in priority order.
    let mut index: HashMap<SymbolId, Vec<RuleRef>> = HashMap::new();
    let mut symbols_of: HashMap<RuleRef, Vec<SymbolId>> = HashMap::new();
    for (label, def) in rules.labels.iter().enumerate() {
        for (rule, label_rule) in def.rules.iter().enumerate() {
            if !open[label][rule] {
                continue;
            }
            let at = RuleRef { label, rule };
            let mut symbols = Vec::new();
            label_rule.formula.visit(true, &mut |pattern, positive| {
                if let Some(dfa) = &system.patterns[pattern.index()].dfa
                    && positive
                {
                    symbols.extend_from_slice(dfa.distinguished_symbols());
                }
            });
            symbols.sort_unstable();
            symbols.dedup();
            for &symbol in &symbols {
                index.entry(symbol).or_default().push(at);
            }
            symbols_of.insert(at, symbols);
        }
    }
    let formula_of = |at: RuleRef| &rules.labels[at.label].rules[at.rule].formula;
    let mut budget = Budget::new(config);
    let mut shortest: HashMap<RuleRef, Option<usize>> = HashMap::new();
    let mut shortest_of = |at: RuleRef, budget: &mut Budget| -> Option<usize> {
        *shortest.entry(at).or_insert_with(|| match formula_of(at) {
            Formula::Pattern(p) => system.patterns[p.index()]
                .dfa
                .as_ref()
                .and_then(shortest_length),
            formula => match budget.find(system, &[formula], &[], false) {
                Search::Found(word) => Some(word.len()),
                Search::Exhausted | Search::GaveUp => None,
            },
        })
    };
    'labels: for (label, def) in rules.labels.iter().enumerate().skip(1) {
        for rule in 0..def.rules.len() {
            let at = RuleRef { label, rule };
            let Some(symbols) = symbols_of.get(&at) else {
                continue;
            };
            if budget.spent() {
                break 'labels;
            }
            let mut candidates: Vec<RuleRef> = Vec::new();
            let mut seen = HashSet::new();
            for symbol in symbols {
                // Each bucket's first candidates include the first ones of all of them.
                let higher = index[symbol]
                    .iter()
                    .take_while(|other| other.label < label)
                    .take(MAX_CANDIDATES);
                for &other in higher {
                    if seen.insert(other) {
                        candidates.push(other);
                    }
                }
            }
            candidates.sort_unstable();
            candidates.truncate(MAX_CANDIDATES);
            let formula = formula_of(at);
            let Some(own_shortest) = shortest_of(at, &mut budget) else {
                continue;
            };
            let mut overlaps: Vec<(Vec<SymbolId>, RuleRef)> = Vec::new();
            for other in candidates {
                let other_formula = formula_of(other);
                let Search::Found(word) =
                    budget.find(system, &[formula, other_formula], &[], false)
                else {
                    continue;
                };
                let Some(other_shortest) = shortest_of(other, &mut budget) else {
                    continue;
                };
                // Two keyword rules meet on any text that holds both keywords; only a
                // sentence as short as the longer rule's shortest shows shared words.
                if word.len() > own_shortest.max(other_shortest) {
                    continue;
                }
                // An exception carved out of this rule, tried first on purpose.
                if budget.find(system, &[other_formula], &[formula], true) == Search::Exhausted {
                    continue;
                }
                overlaps.push((word, other));
            }
            // Shortest witness first; on ties, the rule of highest priority.
            overlaps.sort_by_key(|(word, other)| (word.len(), *other));
            let Some((word, first)) = overlaps.first() else {
                continue;
            };
            let higher = &rules.labels[first.label].name;
            let label_rule = &def.rules[rule];
            let mut diagnostic = Diagnostic::new(
                Code::OverlappingRules,
                label_rule.label_range,
                format!(
                    "`{}` fires this rule and {}; label `{higher}` is tried before `{}`, so it wins on such sentences",
                    witness_text(&system.alphabet, word),
                    describe(rules, *first),
                    def.name
                ),
            )
            .with_related(
                rules.labels[first.label].rules[first.rule].label_range,
                format!("fires on `{}` too", witness_text(&system.alphabet, word)),
            );
            for (word, other) in overlaps.iter().skip(1).take(MAX_RELATED) {
                diagnostic = diagnostic.with_related(
                    rules.labels[other.label].rules[other.rule].label_range,
                    format!(
                        "also overlaps: both fire on `{}`",
                        witness_text(&system.alphabet, word)
                    ),
                );
            }
            diagnostics.push(diagnostic.with_help(format!(
                "only label priority decides between them; if such sentences should get `{}`, \
                 exclude them from the `{higher}` rule with `& !PATTERN` in a formula",
                def.name
            )));
        }
    }
    diagnostics
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::automata::compile;
    use crate::syntax::{lower, parse};
    use text_size::TextSize;

    /// The diagnostics of the language checks on `text`, each as `CODE LINE: message`.
    fn check_with(text: &str, config: &CompileConfig) -> Vec<Diagnostic> {
        let parse = parse(text);
        let (rules, _) = lower(&parse, text);
        compile(&rules, config).1
    }

    fn line_of(text: &str, offset: TextSize) -> usize {
        text[..usize::from(offset)].matches('\n').count() + 1
    }

    fn summary(text: &str) -> Vec<String> {
        check_with(text, &CompileConfig::default())
            .iter()
            .map(|d| {
                format!(
                    "{} {}: {}",
                    d.code.as_str(),
                    line_of(text, d.range.start()),
                    d.message
                )
            })
            .collect()
    }

    fn only(text: &str, code: Code) -> Vec<Diagnostic> {
        check_with(text, &CompileConfig::default())
            .into_iter()
            .filter(|d| d.code == code)
            .collect()
    }

    #[test]
    fn a_rule_included_in_another_of_its_label_is_redundant() {
        let text = "default ham\nspam: $* free $*\nspam: $* free entry $*  # why\nham: $* hi $*\n";
        assert_eq!(
            summary(text),
            [
                "W0307 3: this rule is redundant: whenever it fires, the `spam` rule of line 2 fires too"
            ]
        );
        let diagnostic = &only(text, Code::RedundantRule)[0];
        assert_eq!(line_of(text, diagnostic.related[0].range.start()), 2);
        let fix = diagnostic.fix.as_ref().expect("a quick fix");
        assert_eq!(fix.title, "Remove the rule of line 3");
        assert_eq!(
            &text[fix.range], "spam: $* free entry $*  # why\n",
            "the whole line"
        );
        // The cover may come later, and be an alternation or a formula.
        assert_eq!(
            summary(
                "default ham\nspam: $* gratis offer $*\nspam: $* ( free | gratis ) $*\n\
                 pattern a = $* won $*\npattern b = $* cash $*\nspam <- a & b\nspam: $* won $* cash $* prize $*\n"
            ),
            [
                "W0307 2: this rule is redundant: whenever it fires, the `spam` rule of line 3 fires too",
                "W0307 7: this rule is redundant: whenever it fires, the `spam` rule of line 6 fires too",
            ]
        );
    }

    #[test]
    fn rules_that_do_not_include_each_other_or_are_reported_otherwise_are_not_redundant() {
        // Neither includes the other.
        assert_eq!(
            summary("default ham\nspam: $* free $* call $*\nspam: $* free $* entry $*\n"),
            Vec::<String>::new()
        );
        // Another label: W0306 says it never decides.
        let codes: Vec<Code> = check_with(
            "default ham\nspam: $* free $*\nham: $* free entry $*\n",
            &CompileConfig::default(),
        )
        .iter()
        .map(|d| d.code)
        .collect();
        assert_eq!(codes, [Code::ShadowedRule]);
        // One language: W0304 only.
        let codes: Vec<Code> = check_with(
            "default ham\nspam: $* free $*\nspam: $* free $* $*\n",
            &CompileConfig::default(),
        )
        .iter()
        .map(|d| d.code)
        .collect();
        assert_eq!(codes, [Code::DuplicateLanguage]);
        // Two formulas that fire on the same sentences: the later one only.
        assert_eq!(
            summary(
                "default ham\npattern a = $* won $*\npattern b = $* cash $*\n\
                 spam <- a & b\nspam <- b & a\n"
            ),
            [
                "W0307 5: this rule is redundant: whenever it fires, the `spam` rule of line 4 fires too"
            ]
        );
    }

    #[test]
    fn removing_a_label_s_first_rule_that_places_it_has_no_quick_fix() {
        let text = "default ham\nspam: $* free entry $*\nham: $* hi $*\nspam: $* free $*\n";
        let diagnostic = &only(text, Code::RedundantRule)[0];
        assert_eq!(line_of(text, diagnostic.range.start()), 2);
        assert!(diagnostic.fix.is_none());
        assert!(
            diagnostic
                .help
                .as_deref()
                .is_some_and(|h| h.contains("put the rule of line 4 in its place")),
            "{:?}",
            diagnostic.help
        );
        // With no other label's first rule in between, the label stays where it was.
        let text = "default ham\nspam: $* free entry $*\nspam: $* free $*\nham: $* hi $*\n";
        assert!(only(text, Code::RedundantRule)[0].fix.is_some());
    }

    #[test]
    fn a_formula_no_sentence_satisfies_says_why() {
        let text = "default ham\npattern hi = hi $*\npattern hello = hello $*\n\
                    pattern call = $* call $*\npattern calls = $* ( call | calls ) $*\n\
                    ham <- hi & !hi\nspam <- hi & hello\nenty: $* what $*\nspam <- call & !calls\n\
                    spam <- ( hi | call ) & !hi & !call\nspam: $* win $*\n";
        assert_eq!(
            summary(text),
            [
                "W0308 6: this rule can never fire: it needs `hi` both to match and not to match",
                "W0308 7: this rule can never fire: no sentence matches both `hi` and `hello`",
                "W0308 9: this rule can never fire: `calls` matches every sentence that `call` matches",
                "W0308 10: this rule can never fire: no sentence satisfies its formula",
            ]
        );
        let diagnostics = only(text, Code::UnsatisfiableFormula);
        // `ham`'s only rule: removing it changes no prediction.
        assert!(diagnostics[0].fix.is_some());
        // `spam`'s first rule places the label before `enty`; the others can go.
        assert!(diagnostics[1].fix.is_none());
        assert!(diagnostics[2].fix.is_some());
    }

    #[test]
    fn a_formula_some_sentence_satisfies_is_not_reported() {
        let text = "default ham\npattern call = $* call $*\npattern free = $* free $*\n\
                    spam <- call & !free\nspam <- call & free\n";
        assert_eq!(summary(text), Vec::<String>::new());
    }

    #[test]
    fn rules_of_different_labels_that_share_words_overlap() {
        let text = "default enty\ndesc: $* ( explain | describe | what ) $*\n\
                    loc: $* ( which | where | what ) $* ( near | around ) $*\n";
        assert_eq!(
            summary(text),
            [
                "I0309 3: `what near` fires this rule and the `desc` rule of line 2; label `desc` is tried before `loc`, so it wins on such sentences"
            ]
        );
        let diagnostic = &only(text, Code::OverlappingRules)[0];
        assert_eq!(diagnostic.severity, crate::diagnostic::Severity::Info);
        assert_eq!(line_of(text, diagnostic.related[0].range.start()), 2);
        // More overlapping rules are related information; the shortest sentence is named.
        let text = "default enty\ndesc: $* what $* is $*\nhum: $* who $*\nnum: $* what $* year $*\n\
                    loc: $* ( who | what ) $* ( is | year | was ) $* city $*\n";
        let diagnostics = only(text, Code::OverlappingRules);
        let [diagnostic] = diagnostics.as_slice() else {
            panic!("{diagnostics:?}");
        };
        assert_eq!(line_of(text, diagnostic.range.start()), 5);
        assert!(
            diagnostic
                .message
                .starts_with("`what is city` fires this rule and the `desc` rule of line 2"),
            "{}",
            diagnostic.message
        );
        let related: Vec<usize> = diagnostic
            .related
            .iter()
            .map(|r| line_of(text, r.range.start()))
            .collect();
        assert_eq!(related, [2, 3, 4]);
    }

    #[test]
    fn keyword_rules_exceptions_resolved_and_shadowed_overlaps_are_not_reported() {
        // Two keywords meet only on a text with both.
        assert_eq!(
            summary(
                "default ham\nham: $* mum $*\nspam: $* free $*\nspam: $* call $* now $*\n\
                 ham: $* call $* home $*\n"
            ),
            Vec::<String>::new()
        );
        // A narrower rule of higher priority, on purpose.
        assert_eq!(
            summary("default desc\nabbr: $* what $* stand for $*\ndesc: $* what $*\n"),
            Vec::<String>::new()
        );
        // The overlap taken out with `& !pattern`.
        assert_eq!(
            summary(
                "default enty\npattern what = $* ( explain | describe | what ) $*\n\
                 pattern near = $* ( which | where | what ) $* ( near | around ) $*\n\
                 desc <- what & !near\nloc <- near\n"
            ),
            Vec::<String>::new()
        );
        // Shadowed entirely: W0306 only.
        let codes: Vec<Code> = check_with(
            "default enty\ndesc: $* what $*\nloc: $* what $* near $*\n",
            &CompileConfig::default(),
        )
        .iter()
        .map(|d| d.code)
        .collect();
        assert_eq!(codes, [Code::ShadowedRule]);
    }

    #[test]
    fn past_its_budget_a_pairwise_check_stops_silently() {
        // Every rule after the first is redundant; with a small budget only the first few
        // are checked, and nothing says that the rest were not.
        let mut text = String::from("default ham\nspam: $* w0 $*\n");
        for i in 1..=2_000 {
            text.push_str(&format!("spam: $* w0 $* w{i} $*\n"));
        }
        let all = check_with(&text, &CompileConfig::default());
        assert_eq!(all.len(), 2_000);
        assert!(all.iter().all(|d| d.code == Code::RedundantRule));
        let small = CompileConfig {
            max_search_steps: 1_000,
            ..CompileConfig::default()
        };
        let some = check_with(&text, &small);
        assert!(!some.is_empty() && some.len() < all.len(), "{}", some.len());
        assert!(some.iter().all(|d| d.code == Code::RedundantRule));
    }
}

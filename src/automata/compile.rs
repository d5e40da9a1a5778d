//! Compiling a [`RuleSet`] to a [`RuleSystem`]: Thompson NFA → subset construction →
//! Hopcroft minimization, per pattern, over one alphabet for the whole rule system.
//!
//! All literals are interned first, so every DFA's class map covers the same alphabet.
//! A pattern whose NFA or DFA would pass the configured caps gets an
//! [`Code::AutomatonTooLarge`] diagnostic and matches nothing; the others still compile.
//! Then `lint` checks the languages. Each pattern also gets a "core" DFA without its
//! leading and trailing `$*`, from which match spans are found.

use super::alphabet::Alphabet;
use super::config::CompileConfig;
use super::determinize::determinize;
use super::dfa::Dfa;
use super::lint;
use super::minimize::minimize;
use super::nfa::{self, Nfa, TooLarge};
use super::prefilter::Prefilter;
use super::rule_system::{CompiledPattern, Core, RuleSystem, SystemRule, label_formula};
use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::{LabelId, RuleSet, ast};

/// Compiles a rule set; diagnostics cover automata that passed a cap and language
/// problems (see `docs/diagnostics.md`, W03xx and E0305).
pub fn compile(rules: &RuleSet, config: &CompileConfig) -> (RuleSystem, Vec<Diagnostic>) {
    let mut alphabet = Alphabet::default();
    let mut diagnostics = Vec::new();

    // 1. The NFAs of every pattern and its core, built to intern every literal and dropped:
    //    kept until their DFAs, all patterns' NFAs at once were a quarter of the peak
    //    memory of `check` on 2.4 M rules.
    for pattern in &rules.patterns {
        let _interned = nfa::build(&[&pattern.regex], &mut alphabet, config.max_nfa_states);
        let (stripped_start, core, stripped_end) = split_core(&pattern.regex);
        if stripped_start || stripped_end {
            let _interned = nfa::build(&core, &mut alphabet, config.max_nfa_states);
        }
    }

    // 2. DFAs, now that the alphabet is complete.
    let compile_work = std::cell::Cell::new(0u64);
    let to_dfa = |nfa: &Result<Nfa, TooLarge>| -> Result<Dfa, TooLarge> {
        let nfa = nfa.as_ref().map_err(|&e| e)?;
        let raw = determinize(nfa, &alphabet, config.max_dfa_states)?;
        compile_work.set(compile_work.get().saturating_add(raw.work as u64));
        Ok(minimize(&raw, &alphabet))
    };
    let mut patterns = Vec::with_capacity(rules.patterns.len());
    for def in &rules.patterns {
        // Built again over the finished alphabet: the same NFAs, one pattern's at a time.
        let built = nfa::build_over(&[&def.regex], &alphabet, config.max_nfa_states);
        let dfa = match to_dfa(&built) {
            Ok(dfa) => Some(dfa),
            Err(TooLarge) => {
                let what = if built.is_err() { "NFA" } else { "DFA" };
                let cap = if built.is_err() {
                    config.max_nfa_states
                } else {
                    config.max_dfa_states
                };
                diagnostics.push(
                    Diagnostic::new(
                        Code::AutomatonTooLarge,
                        def.name_range,
                        if built.is_err() {
                            format!(
                                "the automaton of pattern `{}` needs more than {cap} {what} states; the pattern is ignored",
                                def.name
                            )
                        } else {
                            format!(
                                "the automaton of pattern `{}` needs more than {cap} {what} states, or more work to build than {cap} states allow; the pattern is ignored",
                                def.name
                            )
                        },
                    )
                    .with_help(
                        "a wildcard loop followed by a fixed-length tail (`$* a $ $ $ $`) or large \
                         repetition counts blow automata up; end such patterns with `$*`, or raise \
                         --max-dfa-states",
                    ),
                );
                None
            }
        };
        // A core's NFA only where the pattern has a DFA: no core is kept without one.
        let (stripped_start, core, stripped_end) = split_core(&def.regex);
        let core = (dfa.is_some() && (stripped_start || stripped_end))
            .then(|| to_dfa(&nfa::build_over(&core, &alphabet, config.max_nfa_states)).ok())
            .flatten()
            .map(|dfa| Core {
                dfa,
                stripped_start,
                stripped_end,
            });
        patterns.push(CompiledPattern {
            name: def.name.clone(),
            line: def.line,
            labels: def.labels.clone(),
            dfa,
            core,
        });
    }

    let mut system_rules: Vec<SystemRule> = rules
        .labels
        .iter()
        .enumerate()
        .flat_map(|(label, def)| {
            def.rules
                .iter()
                .enumerate()
                .map(move |(index_in_label, rule)| SystemRule {
                    label: LabelId(label as u32),
                    index_in_label,
                    line: rule.line,
                    formula: rule.formula.clone(),
                })
        })
        .collect();
    system_rules.sort_by_key(|rule| rule.line);
    let prefilter = Prefilter::new(
        &patterns.iter().map(|p| p.dfa.as_ref()).collect::<Vec<_>>(),
        system_rules.iter().map(|rule| &rule.formula),
        &alphabet,
    );
    let system = RuleSystem {
        alphabet,
        patterns,
        labels: rules
            .labels
            .iter()
            .map(|label| label.name.clone())
            .collect(),
        label_formulas: rules
            .labels
            .iter()
            .map(|label| label_formula(label.rules.iter().map(|rule| &rule.formula)))
            .collect(),
        rules: system_rules,
        prefilter,
        default: rules.default,
        named_labels: rules.labels.len(),
        compile_work: compile_work.get(),
    };
    if config.lints {
        diagnostics.extend(lint::check(&system, rules, config));
    }
    (system, diagnostics)
}

/// The rule system of the reversed patterns (`ast::Regex::reversed`), over `system`'s
/// alphabet, so that symbol ids agree: a pattern matches a sentence exactly when its
/// reversed pattern matches the reversed sentence. For the backward direction of
/// bidirectional networks; no lints, no match spans. Also returns the names of the patterns
/// whose reversed automaton passed a cap (they match nothing).
pub fn compile_reversed(
    rules: &RuleSet,
    system: &RuleSystem,
    config: &CompileConfig,
) -> (RuleSystem, Vec<String>) {
    let mut alphabet = system.alphabet.clone();
    let mut too_large = Vec::new();
    let mut patterns = Vec::with_capacity(rules.patterns.len());
    let mut compile_work = 0u64;
    for (def, forward) in rules.patterns.iter().zip(&system.patterns) {
        let dfa = forward.dfa.as_ref().and_then(|_| {
            let reversed = def.regex.reversed();
            let nfa = nfa::build(&[&reversed], &mut alphabet, config.max_nfa_states).ok()?;
            let raw = determinize(&nfa, &alphabet, config.max_dfa_states).ok()?;
            compile_work = compile_work.saturating_add(raw.work as u64);
            Some(minimize(&raw, &alphabet))
        });
        if forward.dfa.is_some() && dfa.is_none() {
            too_large.push(def.name.clone());
        }
        patterns.push(CompiledPattern {
            name: forward.name.clone(),
            line: forward.line,
            labels: forward.labels.clone(),
            dfa,
            core: None,
        });
    }
    debug_assert_eq!(alphabet.len(), system.alphabet.len());
    let prefilter = Prefilter::new(
        &patterns.iter().map(|p| p.dfa.as_ref()).collect::<Vec<_>>(),
        system.rules.iter().map(|rule| &rule.formula),
        &alphabet,
    );
    let reversed = RuleSystem {
        alphabet,
        patterns,
        labels: system.labels.clone(),
        label_formulas: system.label_formulas.clone(),
        rules: system.rules.clone(),
        prefilter,
        default: system.default,
        named_labels: system.named_labels,
        compile_work,
    };
    (reversed, too_large)
}

fn is_dollar_star(regex: &ast::Regex) -> bool {
    matches!(
        &regex.kind,
        ast::RegexKind::Repeat { inner, min: 0, max: None } if inner.kind == ast::RegexKind::Any
    )
}

/// Splits a regex into (leading `$*` stripped?, the rest, trailing `$*` stripped?).
fn split_core(regex: &ast::Regex) -> (bool, Vec<&ast::Regex>, bool) {
    let items: Vec<&ast::Regex> = match &regex.kind {
        ast::RegexKind::Concat(items) => items.iter().collect(),
        _ => vec![regex],
    };
    let leading = items.iter().take_while(|item| is_dollar_star(item)).count();
    let rest = &items[leading..];
    let trailing = rest
        .iter()
        .rev()
        .take_while(|item| is_dollar_star(item))
        .count();
    let core = rest[..rest.len() - trailing].to_vec();
    // A pattern of `$*` alone is stripped at both ends: its span is empty, at the start.
    (
        leading > 0,
        core,
        trailing > 0 || (leading > 0 && rest.is_empty()),
    )
}

//! Checks on the languages of a compiled rule system.
//!
//! - a pattern whose language is empty ([`Code::EmptyLanguage`]) or that matches every
//!   sentence ([`Code::MatchesEverything`]): read off the minimal DFA;
//! - a pattern with exactly the language of an earlier one ([`Code::DuplicateLanguage`]):
//!   canonical minimal DFAs are equal, found with one hash map;
//! - no `default` while some sentence fires no label ([`Code::MissingDefault`]): a
//!   breadth-first product search that also yields a shortest such sentence.
//!
//! The product search is capped ([`CompileConfig::max_search_states`]); when it gives up,
//! nothing is reported.

use super::compile::CompileConfig;
use super::dfa::{Dfa, StateId};
use super::rule_system::RuleSystem;
use super::search::{Search, search, witness_text};
use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::{Literal, PatternId, RuleSet, ast, classify_literal};
use std::collections::HashMap;

pub(crate) fn check(
    system: &RuleSystem,
    rules: &RuleSet,
    config: &CompileConfig,
) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    let mut first_with_language: HashMap<&Dfa, usize> = HashMap::new();
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
            Some(&first) => {
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
    let (first_labels, second_labels) = (labels(first), labels(second));
    if first_labels == second_labels {
        "they always fire together: remove one of them".to_string()
    } else {
        format!(
            "they always fire together, so label priority alone decides between {} and {}",
            first_labels.join(", "),
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
    // The patterns the label formulas use, and where each sits in the product.
    let mut involved: Vec<PatternId> = Vec::new();
    for formula in &system.label_formulas {
        formula.visit(true, &mut |pattern, _| {
            if !involved.contains(&pattern) {
                involved.push(pattern);
            }
        });
    }
    involved.retain(|p| system.patterns[p.index()].dfa.is_some());
    let dfas: Vec<&Dfa> = involved
        .iter()
        .filter_map(|p| system.patterns[p.index()].dfa.as_ref())
        .collect();
    let position: HashMap<PatternId, usize> =
        involved.iter().enumerate().map(|(i, &p)| (p, i)).collect();
    let goal = |states: &[StateId]| {
        let matched = |p: PatternId| {
            position
                .get(&p)
                .is_some_and(|&i| dfas[i].is_accepting(states[i]))
        };
        system
            .label_formulas
            .iter()
            .all(|formula| !formula.eval(&matched))
    };
    let word = match search(
        &system.alphabet,
        &dfas,
        goal,
        None,
        config.max_search_states,
    ) {
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
            format!("no `default` label, and some texts fire no label (for example {example}); they get no prediction"),
        )
        .with_help("add `default LABEL` for the label such texts should get"),
    )
}

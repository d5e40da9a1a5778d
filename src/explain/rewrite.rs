//! Rewriting a rules file with new regular expressions for some of its patterns, keeping
//! comments, order and everything else as written, so that the result means exactly the
//! rule system with those patterns replaced.
//!
//! A pattern can read back as nothing (no sentence matches it), and the `.rules` syntax
//! has no regex for the empty language: a literal the tokenizer cannot produce is an error.
//! Such a pattern is written through its uses instead. The rewritten file gains one
//! pattern that matches every sentence, `pattern any_sentence = $*`, every formula that
//! used the empty pattern reads `!any_sentence` in its place (false in every sentence), an
//! anonymous rule `label: REGEX` becomes `label <- !any_sentence` (so the label keeps its
//! place in the tie-breaking order), and a named pattern's definition is commented out.

use crate::syntax::{Formula, PatternId, RuleSet};
use std::collections::HashSet;
use std::ops::Range;
use text_size::TextRange;

/// The rules text with each given pattern's regular expression replaced: `Some(regex)`
/// by that regex (in `.rules` syntax), `None` by the empty language, as the module doc
/// describes. Patterns without a regex in the text (a syntax error) are left as they are,
/// and so are formulas that did not resolve.
pub fn rewrite_rules(
    text: &str,
    rules: &RuleSet,
    replacements: &[(PatternId, Option<String>)],
) -> String {
    let span = |range: TextRange| -> Option<Range<usize>> {
        let range = usize::from(range.start())..usize::from(range.end());
        (!range.is_empty() && text.get(range.clone()).is_some()).then_some(range)
    };
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    // The edits that exist because a pattern reads back as nothing.
    let mut for_empty = Vec::new();
    let mut empty = HashSet::new();
    for (pattern, regex) in replacements {
        let Some(def) = rules.patterns.get(pattern.index()) else {
            continue;
        };
        match regex {
            Some(regex) => {
                if let Some(range) = span(def.regex.range) {
                    edits.push((range, regex.clone()));
                }
            }
            None => {
                empty.insert(*pattern);
                if !def.anonymous
                    && let Some(range) = span(def.range)
                {
                    for_empty.push(edits.len());
                    let commented: Vec<String> = text[range.clone()]
                        .lines()
                        .map(|l| format!("# {l}"))
                        .collect();
                    edits.push((
                        range,
                        format!(
                            "# `{}` reads back as nothing: no sentence matches it.\n{}",
                            def.name,
                            commented.join("\n")
                        ),
                    ));
                }
            }
        }
    }
    if empty.is_empty() {
        return apply(text, edits);
    }

    let everything = fresh_name(rules);
    for label in &rules.labels {
        for rule in &label.rules {
            if !mentions(&rule.formula, &empty) || contains_false(&rule.formula) {
                continue;
            }
            if let Some(range) = span(rule.range) {
                let formula = print_formula(&rule.formula, rules, &empty, &everything, 0);
                for_empty.push(edits.len());
                edits.push((range, format!("{} <- {formula}", label.name)));
            }
        }
    }
    // The new pattern goes in front of the first statement that changed because of it.
    let earliest = for_empty.iter().copied().min_by_key(|&i| edits[i].0.start);
    if let Some(i) = earliest {
        edits[i].1 = format!(
            "pattern {everything} = $*    # every sentence: `!{everything}` stands for a pattern that reads back as nothing\n{}",
            edits[i].1
        );
    }
    apply(text, edits)
}

/// `text` with non-overlapping `edits` applied.
fn apply(text: &str, mut edits: Vec<(Range<usize>, String)>) -> String {
    edits.sort_by_key(|(range, _)| std::cmp::Reverse(range.start));
    let mut out = text.to_string();
    for (range, replacement) in edits {
        out.replace_range(range, &replacement);
    }
    out
}

/// `any_sentence`, or `any_sentence_2`, … : the first name no pattern or label has.
fn fresh_name(rules: &RuleSet) -> String {
    let taken = |name: &str| {
        rules.patterns.iter().any(|p| p.name == name) || rules.labels.iter().any(|l| l.name == name)
    };
    (1..)
        .map(|n| match n {
            1 => "any_sentence".to_string(),
            n => format!("any_sentence_{n}"),
        })
        .find(|name| !taken(name))
        .expect("some name is free")
}

fn mentions(formula: &Formula, patterns: &HashSet<PatternId>) -> bool {
    match formula {
        Formula::Pattern(p) => patterns.contains(p),
        Formula::Not(inner) => mentions(inner, patterns),
        Formula::And(items) | Formula::Or(items) => items.iter().any(|f| mentions(f, patterns)),
        Formula::False => false,
    }
}

fn contains_false(formula: &Formula) -> bool {
    match formula {
        Formula::Pattern(_) => false,
        Formula::Not(inner) => contains_false(inner),
        Formula::And(items) | Formula::Or(items) => items.iter().any(contains_false),
        Formula::False => true,
    }
}

/// The formula in `.rules` syntax (precedence `!` > `&` > `|`), each pattern of `empty`
/// written `!everything`. `outer` is the binding strength of the context: 0 top level,
/// 1 inside `|`, 2 inside `&`, 3 under `!`.
fn print_formula(
    formula: &Formula,
    rules: &RuleSet,
    empty: &HashSet<PatternId>,
    everything: &str,
    outer: u8,
) -> String {
    let joined = |items: &[Formula], op: &str, strength: u8| {
        let parts: Vec<String> = items
            .iter()
            .map(|f| print_formula(f, rules, empty, everything, strength))
            .collect();
        let joined = parts.join(op);
        if outer > strength {
            format!("( {joined} )")
        } else {
            joined
        }
    };
    match formula {
        Formula::Pattern(p) if empty.contains(p) => format!("!{everything}"),
        Formula::Pattern(p) => rules.patterns[p.index()].name.clone(),
        Formula::Not(inner) => match inner.as_ref() {
            Formula::Pattern(p) if empty.contains(p) => everything.to_string(),
            inner => format!("!{}", print_formula(inner, rules, empty, everything, 3)),
        },
        Formula::And(items) => joined(items, " & ", 2),
        Formula::Or(items) => joined(items, " | ", 1),
        Formula::False => String::new(),
    }
}

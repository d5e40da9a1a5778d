//! Fuzz target `parse`: arbitrary bytes → lossy UTF-8 → `parse` → `lower`.
//!
//! Nothing may panic, and every byte range the front end hands out (AST nodes, parse and
//! lowering diagnostics with their related locations, the ranges kept in the `RuleSet`)
//! must lie within the text and start and end on char boundaries; pattern and label ids in
//! the `RuleSet` must point at existing patterns and labels.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rulelens::diagnostic::Diagnostic;
use rulelens::syntax::ast::{
    Formula, FormulaKind, Name, Regex, RegexKind, RuleFile, StatementKind, StringLiteral,
};
use rulelens::syntax::{RuleSet, lower, parse};
use text_size::TextRange;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let text: &str = &text;

    let parsed = parse(text);
    check_file(text, &parsed.file);
    check_diagnostics(text, "parse", &parsed.diagnostics);

    let (rules, diagnostics) = lower(&parsed, text);
    check_diagnostics(text, "lower", &diagnostics);
    check_rule_set(text, &rules);
});

/// Panics unless `range` lies within `text` and both ends are char boundaries.
fn check_range(text: &str, what: &str, range: TextRange) {
    let start = usize::from(range.start());
    let end = usize::from(range.end());
    assert!(
        end <= text.len(),
        "{what}: range {range:?} ends past the text ({} bytes)",
        text.len()
    );
    assert!(
        text.is_char_boundary(start),
        "{what}: range {range:?} starts inside a char"
    );
    assert!(
        text.is_char_boundary(end),
        "{what}: range {range:?} ends inside a char"
    );
    // The slice itself must be valid (implied by the above, but cheap and explicit).
    let _ = &text[range];
}

fn check_diagnostics(text: &str, stage: &str, diagnostics: &[Diagnostic]) {
    for diagnostic in diagnostics {
        let what = format!("{stage} diagnostic {}", diagnostic.code.as_str());
        check_range(text, &what, diagnostic.range);
        for related in &diagnostic.related {
            check_range(text, &format!("{what} (related)"), related.range);
        }
    }
}

fn check_file(text: &str, file: &RuleFile) {
    for statement in &file.statements {
        check_range(text, "statement", statement.range);
        match &statement.kind {
            StatementKind::Default { label } => check_name(text, label.as_ref()),
            StatementKind::Corpus { name, path } => {
                check_name(text, name.as_ref());
                check_string(text, path.as_ref());
            }
            StatementKind::Pattern { name, regex } => {
                check_name(text, name.as_ref());
                if let Some(regex) = regex {
                    check_regex(text, regex);
                }
            }
            StatementKind::LabelRegex { label, regex } => {
                check_name(text, Some(label));
                if let Some(regex) = regex {
                    check_regex(text, regex);
                }
            }
            StatementKind::LabelFormula { label, formula } => {
                check_name(text, Some(label));
                if let Some(formula) = formula {
                    check_formula(text, formula);
                }
            }
        }
    }
}

fn check_name(text: &str, name: Option<&Name>) {
    if let Some(name) = name {
        check_range(text, "name", name.range);
    }
}

fn check_string(text: &str, string: Option<&StringLiteral>) {
    if let Some(string) = string {
        check_range(text, "string literal", string.range);
    }
}

// Recursion is bounded by the parser's nesting caps (MAX_NESTING, MAX_STACKED_QUANTIFIERS).
fn check_regex(text: &str, regex: &Regex) {
    check_range(text, "regex", regex.range);
    match &regex.kind {
        RegexKind::Word(_)
        | RegexKind::Quoted(_)
        | RegexKind::Any
        | RegexKind::Number
        | RegexKind::Punct
        | RegexKind::Error => {}
        RegexKind::Concat(items) | RegexKind::Alt(items) => {
            for item in items {
                check_regex(text, item);
            }
        }
        RegexKind::Repeat { inner, .. } => check_regex(text, inner),
    }
}

fn check_formula(text: &str, formula: &Formula) {
    check_range(text, "formula", formula.range);
    match &formula.kind {
        FormulaKind::Name(_) | FormulaKind::Error => {}
        FormulaKind::Not(inner) => check_formula(text, inner),
        FormulaKind::And(items) | FormulaKind::Or(items) => {
            for item in items {
                check_formula(text, item);
            }
        }
    }
}

fn check_rule_set(text: &str, rules: &RuleSet) {
    for pattern in &rules.patterns {
        check_range(text, "pattern name", pattern.name_range);
        check_range(text, "pattern statement", pattern.range);
        check_regex(text, &pattern.regex);
    }
    for label in &rules.labels {
        check_range(text, "label", label.range);
        for rule in &label.rules {
            check_range(text, "label rule", rule.range);
            rule.formula.visit(true, &mut |id, _| {
                assert!(
                    id.index() < rules.patterns.len(),
                    "formula of label `{}` names pattern {id:?} of {}",
                    label.name,
                    rules.patterns.len()
                );
            });
        }
    }
    for pattern in &rules.patterns {
        for label in &pattern.labels {
            assert!(
                label.index() < rules.labels.len(),
                "pattern label {label:?}"
            );
        }
    }
    if let Some(default) = rules.default {
        assert!(default.index() < rules.labels.len(), "default {default:?}");
    }
    for corpus in &rules.corpora {
        check_range(text, "corpus name", corpus.name_range);
        check_range(text, "corpus path", corpus.path_range);
    }
}

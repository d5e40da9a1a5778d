//! Parser and front-end fixtures: every `tests/data/syntax/{ok,err}/*.rules` goes through
//! the whole front end (`RulesFile::analyze`). Each fixture lists the diagnostics it must
//! produce in `# expect: CODE LINE:COLUMN` comments (`# expect: nothing` for none), which
//! are compared exactly; the tree dump and the rendered diagnostics are snapshotted with
//! insta; and every range is checked to lie inside the text, on char boundaries, with
//! children inside their parents.

use rulelens::diagnostic::render;
use rulelens::limits::ReadLimits;
use rulelens::rules_file::RulesFile;
use rulelens::syntax::ast::{Formula, FormulaKind, Regex, RegexKind, StatementKind, WordsBody};
use rulelens::text::SourceText;
use std::path::Path;
use text_size::TextRange;

fn expectations(text: &str) -> Vec<String> {
    let mut expected: Vec<String> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("# expect:"))
        .map(|rest| rest.trim().to_string())
        .filter(|rest| rest != "nothing")
        .collect();
    expected.sort();
    expected
}

fn check_range(text: &str, range: TextRange, parent: TextRange, what: &str) {
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    assert!(end <= text.len(), "{what} {range:?} past the end");
    assert!(
        text.is_char_boundary(start) && text.is_char_boundary(end),
        "{what} {range:?} not on char boundaries"
    );
    assert!(
        parent.contains_range(range),
        "{what} {range:?} outside its parent {parent:?}"
    );
}

fn check_regex(text: &str, regex: &Regex, parent: TextRange) {
    check_range(text, regex.range, parent, "regex");
    match &regex.kind {
        RegexKind::Concat(items) | RegexKind::Alt(items) => items
            .iter()
            .for_each(|item| check_regex(text, item, regex.range)),
        RegexKind::Repeat { inner, .. } => check_regex(text, inner, regex.range),
        _ => {}
    }
}

fn check_formula(text: &str, formula: &Formula, parent: TextRange) {
    check_range(text, formula.range, parent, "formula");
    match &formula.kind {
        FormulaKind::And(items) | FormulaKind::Or(items) => items
            .iter()
            .for_each(|item| check_formula(text, item, formula.range)),
        FormulaKind::Not(inner) => check_formula(text, inner, formula.range),
        _ => {}
    }
}

fn check_fixture(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    // Relative to the package root (the tests' working directory), so that messages naming
    // resolved corpus paths do not depend on where the checkout is.
    let relative = path
        .strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap_or(path);
    let file = RulesFile::analyze(
        SourceText::from_bytes(&bytes),
        Some(relative),
        &Default::default(),
    );
    let text = &file.source.text;
    let whole = TextRange::up_to(text_size::TextSize::of(text.as_str()));

    let mut actual: Vec<String> = file
        .diagnostics
        .iter()
        .map(|d| {
            let at = file.line_index.to_chars(text, d.range.start());
            format!("{} {}:{}", d.code.as_str(), at.line + 1, at.col + 1)
        })
        .collect();
    actual.sort();
    assert_eq!(
        actual,
        expectations(text),
        "diagnostics of {}",
        path.display()
    );

    let mut previous_end = 0.into();
    for statement in &file.parse.file.statements {
        check_range(text, statement.range, whole, "statement");
        assert!(
            statement.range.start() >= previous_end,
            "statements overlap"
        );
        previous_end = statement.range.end();
        match &statement.kind {
            StatementKind::Pattern {
                regex: Some(regex), ..
            }
            | StatementKind::LabelRegex {
                regex: Some(regex), ..
            } => check_regex(text, regex, statement.range),
            StatementKind::LabelFormula {
                formula: Some(formula),
                ..
            } => check_formula(text, formula, statement.range),
            StatementKind::Words {
                body: Some(WordsBody::Inline(regex)),
                ..
            } => check_regex(text, regex, statement.range),
            _ => {}
        }
    }
    for diagnostic in &file.diagnostics {
        check_range(text, diagnostic.range, whole, "diagnostic");
        for related in &diagnostic.related {
            check_range(text, related.range, whole, "related");
        }
    }
    for &comment in &file.parse.comments {
        check_range(text, comment, whole, "comment");
        assert!(text[comment].starts_with('#'), "comment {comment:?}");
    }
    // Every `# expect:` line is a comment the parser found.
    let n_expect_lines = text
        .lines()
        .filter(|line| line.trim_start().starts_with("# expect:"))
        .count();
    let n_expect_comments = file
        .parse
        .comments
        .iter()
        .filter(|&&comment| text[comment].starts_with("# expect:"))
        .count();
    assert_eq!(
        n_expect_comments,
        n_expect_lines,
        "comments of {}",
        path.display()
    );

    let name = path.file_name().unwrap().to_string_lossy();
    let rendered: Vec<String> = file
        .diagnostics
        .iter()
        .map(|d| render(d, &name, text, &file.line_index, false))
        .collect();
    format!("{}\n{}", file.parse.file.dump(), rendered.join("\n"))
}

#[test]
fn valid_fixtures() {
    insta::glob!("data/syntax/ok/*.rules", |path| {
        insta::assert_snapshot!(check_fixture(path));
    });
}

#[test]
fn invalid_fixtures() {
    insta::glob!("data/syntax/err/*.rules", |path| {
        insta::assert_snapshot!(check_fixture(path));
    });
}

/// `Parse::comments`: where the parser skipped a `#` as trivia, in any lexer mode, on
/// statements, after errors and on lines that are no statement; not inside quoted literals
/// or in what a repetition's braces swallowed.
#[test]
fn comments_are_where_the_parser_skipped_them() {
    let text = "# a\n  # b\r\nspam: \"#\" x # c\nnot a statement # d\nspam <- p q # e\nx: y{a#} # f\nx: \"# g\ndefault ham # h";
    let parse = rulelens::syntax::parse(text);
    let comments: Vec<&str> = parse.comments.iter().map(|&range| &text[range]).collect();
    assert_eq!(comments, ["# a", "# b", "# c", "# d", "# e", "# f", "# h"]);
}

/// The bundled examples: SMS has eight rules that another of their label covers (seven by
/// `ham: $* i $*`); TREC repeats four patterns of earlier ones, has rules that never decide,
/// sixteen redundant rules (seven under `desc: $* ( explain | describe | what ) $*`, five
/// under `hum: $* who $*`) and eleven rules that overlap rules of higher-priority labels
/// (eight of them `desc`'s catch-all, on `what …` questions).
#[test]
fn bundled_examples() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let codes = |name: &str| -> Vec<String> {
        let path = root.join(format!("examples/{name}/{name}.rules"));
        let file = RulesFile::read(&path, &Default::default(), &ReadLimits::DEFAULT).unwrap();
        file.diagnostics
            .iter()
            .map(|d| {
                let at = file.line_index.line_col(d.range.start());
                format!("{} {}", d.code.as_str(), at.line + 1)
            })
            .collect()
    };
    assert_eq!(
        codes("sms"),
        [
            "W0307 18", "W0307 22", "W0307 28", "W0307 29", "W0307 30", "W0307 41", "W0307 44",
            "W0307 49"
        ]
    );
    assert_eq!(
        codes("trec"),
        [
            "W0307 17", "W0307 19", "I0309 20", "I0309 21", "W0307 25", "I0309 26", "I0309 28",
            "W0307 29", "W0307 31", "W0307 32", "W0306 34", "I0309 39", "W0307 40", "W0307 41",
            "W0307 42", "W0307 45", "I0309 48", "W0306 55", "W0304 59", "W0306 60", "I0309 61",
            "W0307 67", "W0306 68", "W0307 69", "W0307 70", "W0307 71", "I0309 74", "I0309 75",
            "I0309 77", "I0309 81", "W0304 82", "W0304 84", "W0307 85", "W0307 86", "W0306 88"
        ]
    );
}

#[test]
fn a_pattern_name_in_a_regex_gets_its_regex_as_the_fix_and_a_quoted_word_nothing() {
    // `free` is named after its own word: writing the word elsewhere means the word.
    let text = "default other\npattern places = ( city | country )\nloc: $* places $*\nloc <- places\nhum: who $* \"places\"\npattern free = $* free $*\nhum <- free\nhum: free call\n";
    let file = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    );
    let found: Vec<_> = file
        .diagnostics
        .iter()
        .filter(|d| d.code.as_str() == "W0207")
        .collect();
    assert_eq!(found.len(), 1, "{:?}", file.diagnostics);
    let fix = found[0].fix.as_ref().unwrap();
    assert_eq!(&text[std::ops::Range::<usize>::from(fix.range)], "places");
    assert_eq!(fix.new_text, "( city | country )");
    let fixed = format!(
        "{}{}{}",
        &text[..usize::from(fix.range.start())],
        fix.new_text,
        &text[usize::from(fix.range.end())..]
    );
    let after = RulesFile::analyze(
        SourceText::from_bytes(fixed.as_bytes()),
        None,
        &Default::default(),
    );
    assert!(
        after.diagnostics.iter().all(|d| d.code.as_str() != "W0207"),
        "{:?}",
        after.diagnostics
    );
    assert_eq!(
        after.system.classify("the city of light").prediction,
        after.system.label_by_name("loc")
    );
}

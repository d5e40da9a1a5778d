//! The engine-independent matching suite: every `[[test]]` of `tests/data/matching/*.toml`
//! runs against the compiled minimal DFA (`Dfa::is_match`, `RuleSystem::match_span`), the
//! element run of `automata::PatternElements` (whose why-not must exist exactly when the
//! pattern does not match) and the reference backtracking matcher of
//! `tests/common/backtrack.rs`. A failure
//! names the file and the case.
//!
//! Case format (in the style of the regex crate's testdata):
//! ```toml
//! [[test]]
//! name = "anywhere"          # unique within its file
//! regex = '$* cash $*'       # one anonymous pattern
//! sentence = 'win cash now'  # tokenized by the crate's tokenizer
//! matches = true             # whether the pattern matches the WHOLE token sequence
//! span = [1, 2]              # optional: the match's token span
//! tokens = ['win', 'cash', 'now']  # optional: the expected tokenization
//! ```

mod common;

use common::backtrack;
use rulelens::automata::PatternElements;
use rulelens::syntax::PatternId;
use serde::Deserialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Suite {
    test: Vec<Case>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    regex: String,
    sentence: String,
    matches: bool,
    span: Option<[usize; 2]>,
    tokens: Option<Vec<String>>,
}

fn suite_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/matching");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no suite files in {}", dir.display());
    files
}

fn load(path: &Path) -> Vec<Case> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let suite: Suite =
        toml::from_str(&text).unwrap_or_else(|e| panic!("parsing {}: {e}", path.display()));
    suite.test
}

/// Runs one case; returns the problems found (empty when it passes).
fn run_case(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    let compiled = common::compile(&[&case.regex]);
    if !compiled.parse_diagnostics.is_empty() {
        problems.push(format!(
            "the regex does not parse cleanly: {:?}",
            compiled
                .parse_diagnostics
                .iter()
                .map(|d| &d.message)
                .collect::<Vec<_>>()
        ));
        return problems;
    }
    let sentence = common::sentence(&case.sentence);
    if let Some(expected) = &case.tokens {
        let got: Vec<&str> = sentence.iter().map(|(_, text)| text.as_str()).collect();
        if got != *expected {
            problems.push(format!("tokens: expected {expected:?}, got {got:?}"));
        }
    }
    let regex = &compiled.regexes[0];
    let pattern = &compiled.system.patterns()[0];
    let Some(dfa) = &pattern.dfa else {
        problems.push("the pattern did not compile to a DFA".into());
        return problems;
    };
    let symbols = compiled.symbols(&case.sentence);

    let by_dfa = dfa.is_match(&symbols, compiled.system.alphabet());
    let by_backtracking = backtrack::is_match(regex, &sentence);
    if by_dfa != case.matches {
        problems.push(format!(
            "DFA: expected matches = {}, got {by_dfa}",
            case.matches
        ));
    }
    let alphabet = compiled.system.alphabet();
    match PatternElements::new(regex, alphabet) {
        Some(elements) => match elements.run(&symbols, alphabet) {
            Some(run) => {
                if run.matches() != case.matches {
                    problems.push(format!(
                        "element run: expected matches = {}, got {}",
                        case.matches,
                        run.matches()
                    ));
                }
                if run.why_not().is_some() == case.matches {
                    problems.push(format!(
                        "why-not: {:?} on a match = {}",
                        run.why_not(),
                        case.matches
                    ));
                }
            }
            None => problems.push("the element run passed its work cap".into()),
        },
        None => problems.push("the pattern's elements did not build".into()),
    }
    if by_backtracking != case.matches {
        problems.push(format!(
            "backtracker: expected matches = {}, got {by_backtracking}",
            case.matches
        ));
    }

    let span_dfa = compiled.system.match_span(PatternId(0), &symbols);
    let span_backtracking = backtrack::span(regex, &sentence);
    let expected_span = match case.span {
        Some([start, end]) => {
            if !case.matches {
                problems.push("a case with a span must match".into());
            }
            Some(Some(start..end))
        }
        None if !case.matches => Some(None),
        None => None,
    };
    match expected_span {
        Some(expected) => {
            if span_dfa != expected {
                problems.push(format!(
                    "match_span: expected {expected:?}, got {span_dfa:?}"
                ));
            }
            if span_backtracking != expected {
                problems.push(format!(
                    "backtracker span: expected {expected:?}, got {span_backtracking:?}"
                ));
            }
        }
        None => {
            if span_dfa != span_backtracking {
                problems.push(format!(
                    "spans differ: match_span {span_dfa:?}, backtracker {span_backtracking:?}"
                ));
            }
        }
    }
    problems
}

#[test]
fn matching_suite() {
    let mut failures = Vec::new();
    let mut total = 0;
    for path in suite_files() {
        let file = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let mut names = HashSet::new();
        for case in load(&path) {
            total += 1;
            assert!(
                names.insert(case.name.clone()),
                "{file}: duplicate case name {:?}",
                case.name
            );
            let problems = run_case(&case);
            if !problems.is_empty() {
                failures.push(format!(
                    "{file} :: {} (regex {:?}, sentence {:?}):\n    {}",
                    case.name,
                    case.regex,
                    case.sentence,
                    problems.join("\n    ")
                ));
            }
        }
    }
    assert!(total > 0, "the suite is empty");
    assert!(
        failures.is_empty(),
        "{} of {total} matching cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Sanity checks of the reference matcher itself on hand-built token sequences, so that
/// a bug in it is not mistaken for agreement.
#[test]
fn backtracker_self_check() {
    use rulelens::text::TokenKind::{Number, Punct, Word};
    let sentence = |tokens: &[(rulelens::text::TokenKind, &str)]| -> common::Sentence {
        tokens.iter().map(|&(k, t)| (k, t.to_string())).collect()
    };
    let regex = |text: &str| common::compile(&[text]).regexes[0].clone();

    let s = sentence(&[(Word, "a"), (Number, "2"), (Punct, "!")]);
    assert!(backtrack::is_match(&regex("a % &"), &s));
    assert!(backtrack::is_match(&regex("$ 2 \"!\""), &s));
    assert!(backtrack::is_match(&regex("${3}"), &s));
    assert!(!backtrack::is_match(&regex("${2}"), &s));
    assert!(!backtrack::is_match(&regex("a & %"), &s));
    assert!(backtrack::is_match(&regex("( a | % | & )+"), &s));
    assert!(!backtrack::is_match(&regex("( a | % | & ){4,5}"), &s));
    assert_eq!(backtrack::span(&regex("$* % $*"), &s), Some(1..2));
    assert_eq!(backtrack::span(&regex("$* ( % | a % ) $*"), &s), Some(0..2));
    assert_eq!(backtrack::span(&regex("a $*"), &s), Some(0..1));
    assert_eq!(backtrack::span(&regex("a"), &s), None);
    // Kind comes from the token, not from its text.
    let odd = sentence(&[(Word, "7")]);
    assert!(!backtrack::is_match(&regex("%"), &odd));
    assert!(backtrack::is_match(&regex("7"), &odd));
    // The empty sequence.
    assert!(backtrack::is_match(&regex("( a? )*"), &[]));
    assert!(!backtrack::is_match(&regex("( a? )+ b"), &[]));
    assert_eq!(backtrack::span(&regex("$* a? $*"), &[]), Some(0..0));
}

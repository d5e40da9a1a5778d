//! The engine on small corpora: each producer, the exact evidence, and the greedy
//! application.

use super::fixture::*;
use super::*;

#[test]
fn induction_finds_the_rule_that_fixes_most_train_lines_and_its_estimate_is_exact() {
    let (train, dev) = (examples(TRAIN), examples(DEV));
    let file = rules("default ham\n");
    let suggestions = suggest_on_fixture(&file);
    let best = suggestions.first().expect("a suggestion");
    assert_eq!(
        best.edit,
        Edit::AddRule {
            label: "spam".to_string(),
            regex: "$* call % $*".to_string()
        }
    );
    assert_eq!(best.source, Source::Induction);
    let evidence = best.evidence;
    assert_eq!((evidence.fixed, evidence.broken), (5, 0));
    assert_eq!(evidence.train_matches, 5);
    assert_eq!(evidence.train_precision, 1.0);
    assert_eq!((evidence.dev_before, evidence.dev_after), (0.5, 1.0));
    assert!(best.new_text.ends_with("default ham\nspam: $* call % $*\n"));
    // What the standing estimated is what the rule system measured, for every candidate.
    let (train_lines, dev_lines) = (Lines::new(&train), Lines::new(&dev));
    let state = State::new(file, &train_lines, &dev_lines);
    for candidate in state.candidates(&SuggestConfig::default()) {
        let Some(estimate) = candidate.estimate else {
            continue;
        };
        let (measured, _) = state.measure(&candidate, false).expect("measured");
        let evidence = measured.evidence;
        assert_eq!(
            (estimate.fixed, estimate.broken, estimate.matches),
            (evidence.fixed, evidence.broken, evidence.train_matches),
            "{}",
            candidate.edit.describe()
        );
    }
}

#[test]
fn a_rule_below_the_precision_floor_is_offered_for_removal() {
    let file = rules("default ham\n# too wide\nspam: $* you $*    # see you\nspam: $* free $*\n");
    let suggestions = suggest_on_fixture(&file);
    let removal = suggestions
        .iter()
        .find(|s| s.source == Source::Narrowing)
        .expect("a removal");
    assert_eq!(
        removal.edit,
        Edit::RemoveRule {
            label: "spam".to_string(),
            regex: "$* you $*".to_string(),
            line: 3
        }
    );
    assert_eq!(
        removal.new_text,
        "default ham\n# too wide\nspam: $* free $*\n"
    );
    assert_eq!((removal.evidence.fixed, removal.evidence.broken), (5, 0));
    assert_eq!(removal.evidence.train_precision, 0.0);
}

#[test]
fn refine_applies_an_edit_only_when_it_raises_dev_accuracy() {
    let (train, dev) = (examples(TRAIN), examples(DEV));
    let corpora = Corpora {
        train: &train,
        dev: &dev,
    };
    let file = rules("default ham\n");
    let refined = refine(&file, &corpora, &SuggestConfig::default(), 30);
    assert_eq!(refined.text, "default ham\nspam: $* call % $*\n");
    assert_eq!(refined.applied.len(), 1);
    // The result reads back without errors, and a second round finds nothing to add.
    let again = rules(&refined.text);
    assert!(!again.has_errors());
    assert!(
        refine(&again, &corpora, &SuggestConfig::default(), 30)
            .applied
            .is_empty()
    );
    // A dev corpus where the rule is wrong: nothing is applied.
    let contrary = examples(&[("ham", "call 0900 to win"), ("spam", "can you call mum")]);
    let corpora = Corpora {
        train: &train,
        dev: &contrary,
    };
    let kept = refine(&file, &corpora, &SuggestConfig::default(), 30);
    assert_eq!(kept.text, "default ham\n");
    assert!(kept.applied.is_empty());
    // At most `max_edits`.
    let corpora = Corpora {
        train: &train,
        dev: &dev,
    };
    assert!(
        refine(&file, &corpora, &SuggestConfig::default(), 0)
            .applied
            .is_empty()
    );
}

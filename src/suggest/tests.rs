//! The engine on small corpora: each producer, the exact evidence, and the greedy
//! application.

use super::fixture::*;
use super::*;
use text_size::TextRange;

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
            candidate.edit.describe(candidate.source)
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

const WON: &[(&str, &str)] = &[
    ("spam", "you won prize money today"),
    ("spam", "you won voucher codes"),
    ("spam", "we won voucher now"),
    ("spam", "i won voucher !"),
    ("spam", "u won voucher"),
    ("ham", "a voucher for lunch"),
    ("ham", "we won the game"),
    ("ham", "see you"),
];

const WON_DEV: &[(&str, &str)] = &[("spam", "they won voucher"), ("ham", "won the match")];

#[test]
fn a_rule_that_fails_at_one_element_on_lines_of_its_label_is_widened_and_measured() {
    let (train, dev) = (examples(WON), examples(WON_DEV));
    let corpora = Corpora {
        train: &train,
        dev: &dev,
    };
    let text = "default ham\nspam: $* won ( prize | cash ) $*    # the prize\n";
    let file = rules(text);
    let suggestions = suggest(&file, &corpora, &SuggestConfig::default(), &|| false).unwrap();
    let widening = suggestions
        .iter()
        .find(|s| s.source == Source::Widening)
        .expect("a widening");
    let regex = "$* won ( prize | cash ) $*";
    let start = text.find(regex).unwrap() as u32;
    assert_eq!(
        widening.edit,
        Edit::ReplaceRegex {
            label: "spam".to_string(),
            line: 2,
            old: regex.to_string(),
            new: "$* won ( prize | cash | voucher ) $*".to_string(),
            range: TextRange::at(start.into(), (regex.len() as u32).into()),
        }
    );
    assert_eq!(
        widening.edit.describe(widening.source),
        "widen line 2 `spam: $* won ( prize | cash ) $*` to \
         `$* won ( prize | cash | voucher ) $*`"
    );
    assert_eq!(
        widening.new_text,
        "default ham\nspam: $* won ( prize | cash | voucher ) $*    # the prize\n"
    );
    let evidence = widening.evidence;
    assert_eq!((evidence.fixed, evidence.broken), (4, 0));
    assert_eq!((evidence.train_matches, evidence.train_precision), (4, 1.0));
    assert_eq!((evidence.dev_before, evidence.dev_after), (0.5, 1.0));
    // Every estimate is what the rule system measures.
    let (train_lines, dev_lines) = (Lines::new(&train), Lines::new(&dev));
    let state = State::new(file, &train_lines, &dev_lines);
    let candidates = state.candidates(&SuggestConfig::default());
    assert!(candidates.iter().any(|c| c.source == Source::Widening));
    for candidate in candidates {
        let Some(estimate) = candidate.estimate else {
            continue;
        };
        let (measured, _) = state.measure(&candidate, false).expect("measured");
        let evidence = measured.evidence;
        assert_eq!(
            (estimate.fixed, estimate.broken, estimate.matches),
            (evidence.fixed, evidence.broken, evidence.train_matches),
            "{}",
            candidate.edit.describe(candidate.source)
        );
    }
    // A rule the engine wrote is not widened.
    let written = [("spam".to_string(), regex.to_string())];
    assert!(
        widen::widen(
            &state.file,
            &train_lines,
            &state.train_standing,
            &SuggestConfig::default(),
            &written
        )
        .is_empty()
    );
    // Applied greedily, it is the widening or the rule induction finds for the same lines
    // (`$* won voucher $*`).
    let refined = refine(&rules(text), &corpora, &SuggestConfig::default(), 30);
    assert_eq!(refined.applied.len(), 1);
    assert_eq!(refined.applied[0].evidence.fixed, 4);
    // Between two `$*` every token of the gap is a slot: the train corpus gets no word set
    // there (the editor's widening for one line does: see below).
    let unpinned = rules("default ham\nspam: $* won $* ( prize | cash ) $*\n");
    assert!(
        suggest(&unpinned, &corpora, &SuggestConfig::default(), &|| false)
            .unwrap()
            .iter()
            .all(|s| s.source != Source::Widening)
    );
}

#[test]
fn a_gap_becomes_dollar_star_and_a_rule_without_context_is_not_widened() {
    let lines = [
        ("num", "how many dogs are there"),
        ("num", "how very many cats"),
        ("num", "how very very many birds"),
        ("num", "how so very many fish"),
        ("num", "how terribly many words"),
        ("num", "how really very many ants"),
        ("desc", "how are you"),
        ("desc", "many thanks"),
    ];
    let train = examples(&lines);
    let dev = examples(&[("num", "how so so many"), ("desc", "how come")]);
    let corpora = Corpora {
        train: &train,
        dev: &dev,
    };
    let file = rules("default desc\nnum: how $? many $*\n");
    let suggestions = suggest(&file, &corpora, &SuggestConfig::default(), &|| false).unwrap();
    let widened: Vec<&str> = suggestions
        .iter()
        .filter_map(|s| match &s.edit {
            Edit::ReplaceRegex { new, .. } => Some(new.as_str()),
            _ => None,
        })
        .collect();
    assert!(widened.contains(&"how $* many $*"), "{widened:?}");
    let gap = suggestions
        .iter()
        .find(|s| matches!(&s.edit, Edit::ReplaceRegex { new, .. } if new == "how $* many $*"))
        .unwrap();
    assert_eq!((gap.evidence.fixed, gap.evidence.broken), (3, 0));
    assert_eq!(
        (gap.evidence.dev_before, gap.evidence.dev_after),
        (0.5, 1.0)
    );
    // `$* voucher $*` has one element that needs a token: widening it would be a new rule.
    let file = rules("default ham\nspam: $* voucher $*\n");
    let (train, dev) = (examples(WON), examples(WON_DEV));
    let corpora = Corpora {
        train: &train,
        dev: &dev,
    };
    assert!(
        suggest(&file, &corpora, &SuggestConfig::default(), &|| false)
            .unwrap()
            .iter()
            .all(|s| s.source != Source::Widening)
    );
}

#[test]
fn a_line_gets_the_widening_of_its_closest_rule_that_makes_the_rule_match_it() {
    let (train, dev) = (examples(WON), examples(WON_DEV));
    let corpora = Corpora {
        train: &train,
        dev: &dev,
    };
    // The first rule misses two elements; the second misses `prize` only, after a gap
    // where `a` and `voucher` stand: `voucher` has the better estimate.
    let file = rules("default ham\nspam: $* lucky $* draw $*\nspam: $* won $* prize $*\n");
    let widened =
        widen_for_line(&file, &corpora, "spam", "they won a voucher").expect("a widening");
    assert_eq!(
        widened.suggestion.edit.describe(Source::Widening),
        "widen line 3 `spam: $* won $* prize $*` to `$* won $* ( prize | voucher ) $*`"
    );
    assert_eq!(widened.suggestion.source, Source::Widening);
    let system = &widened.edited.system;
    assert_eq!(
        system.classify("they won a voucher").prediction,
        system.label_by_name("spam")
    );
    assert_eq!(widened.suggestion.evidence.fixed, 4);
    // Groups at the regex's ends are rewritten whole; with no train evidence either way,
    // the narrower widening (a word rather than `$`).
    let grouped = rules("default ham\nspam: ( we | you ) won ( prize )    # no end gap\n");
    let widened = widen_for_line(&grouped, &corpora, "spam", "you won voucher").unwrap();
    assert_eq!(
        widened.suggestion.new_text,
        "default ham\nspam: ( we | you ) won ( prize | voucher )    # no end gap\n"
    );
    // A line no single widening makes a rule match, and a label without rules: none.
    assert!(widen_for_line(&file, &corpora, "spam", "free entry").is_none());
    assert!(widen_for_line(&file, &corpora, "ham", "see you").is_none());
}

/// The narrowing of `source` whose edit is `kind`.
fn narrowing<'s>(suggestions: &'s [Suggestion], kind: &str) -> &'s Suggestion {
    suggestions
        .iter()
        .find(|s| {
            s.source == Source::Narrowing && serde_json::to_value(&s.edit).unwrap()["kind"] == kind
        })
        .unwrap_or_else(|| panic!("a narrowing by {kind}"))
}

#[test]
fn an_imprecise_rule_gets_an_exception_and_a_required_word_that_keep_its_right_lines() {
    let file = rules(WHAT_RULES);
    let suggestions = suggest_on_questions(&file);
    // The exception: a word set of the lines its silence makes right, in place of the rule.
    let exception = narrowing(&suggestions, "add-exception");
    assert_eq!(
        exception.edit.describe(exception.source),
        "narrow line 2 `desc: $* what $*` to exclude `$* ( president | color ) $*`"
    );
    assert_eq!(
        exception.new_text,
        "default enty\npattern desc_2 = $* what $*\n\
         pattern desc_2_except = $* ( president | color ) $*\n\
         desc <- desc_2 & !desc_2_except    # too wide\nhum: $* president $*\n"
    );
    let evidence = exception.evidence;
    assert_eq!((evidence.fixed, evidence.broken), (6, 0));
    assert_eq!((evidence.train_matches, evidence.train_precision), (6, 0.0));
    assert_eq!((evidence.dev_before, evidence.dev_after), (0.5, 1.0));
    // It checks clean, no label's priority moves, and the rule system agrees.
    let edited = rules(&exception.new_text);
    assert!(!edited.has_errors());
    assert_eq!(edited.system.labels(), file.system.labels());
    for (text, label) in [
        ("what president was shot ?", "hum"),
        ("what color is grass ?", "enty"),
        ("what does ukulele mean ?", "desc"),
    ] {
        assert_eq!(
            edited.system.classify(text).prediction,
            edited.system.label_by_name(label),
            "{text}"
        );
    }
    // The required word keeps three of the four lines the rule wins rightly.
    let literal = narrowing(&suggestions, "replace-regex");
    assert_eq!(
        literal.edit.describe(literal.source),
        "narrow line 2 `desc: $* what $*` to `$* what does $*`"
    );
    assert_eq!(
        literal.new_text,
        "default enty\ndesc: $* what does $*    # too wide\nhum: $* president $*\n"
    );
    assert_eq!((literal.evidence.fixed, literal.evidence.broken), (6, 1));
    assert_eq!(literal.evidence.train_matches, 7);
    // The removal is offered still, with its evidence.
    let removal = narrowing(&suggestions, "remove-rule");
    assert_eq!((removal.evidence.fixed, removal.evidence.broken), (6, 4));
    // Every estimate is what the rule system measures.
    let (train, dev) = (examples(WHAT), examples(WHAT_DEV));
    let (train_lines, dev_lines) = (Lines::new(&train), Lines::new(&dev));
    let state = State::new(file.clone(), &train_lines, &dev_lines);
    let candidates = state.candidates(&SuggestConfig::default());
    assert!(candidates.iter().any(|c| c.source == Source::Narrowing));
    for candidate in candidates {
        let estimate = candidate.estimate.expect("an estimate");
        let (measured, _) = state.measure(&candidate, false).expect("measured");
        let evidence = measured.evidence;
        assert_eq!(
            (estimate.fixed, estimate.broken, estimate.matches),
            (evidence.fixed, evidence.broken, evidence.train_matches),
            "{}",
            candidate.edit.describe(candidate.source)
        );
    }
    // Applied greedily: the exception, the largest train gain; nothing to narrow after.
    let corpora = Corpora {
        train: &train,
        dev: &dev,
    };
    let refined = refine(&file, &corpora, &SuggestConfig::default(), 30);
    assert_eq!(refined.text, exception.new_text);
    assert_eq!(refined.applied.len(), 1);
}

#[test]
fn a_narrowing_does_not_apply_to_a_changed_rule_or_where_its_names_are_taken() {
    let suggestions = suggest_on_questions(&rules(WHAT_RULES));
    let exception = narrowing(&suggestions, "add-exception");
    let literal = narrowing(&suggestions, "replace-regex");
    let changed =
        rules("default enty\ndesc: $* what $* \"?\"    # too wide\nhum: $* president $*\n");
    assert_eq!(exception.edit.apply(&changed), None);
    assert_eq!(literal.edit.apply(&changed), None);
    let taken = rules(&format!("{WHAT_RULES}pattern desc_2 = $* why $*\n"));
    assert_eq!(exception.edit.apply(&taken), None);
    // Names that are taken give way to fresh ones.
    assert_eq!(
        narrow::fresh_names(&taken, "desc", 2),
        ("desc_2_2".to_string(), "desc_2_2_except".to_string())
    );
}

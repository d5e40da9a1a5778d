//! The engine on small corpora: each producer, the exact evidence, and the greedy
//! application.

use super::cancel::Cancel;
use super::engine::State;
use super::fixture::*;
use super::lines::Lines;
use super::*;
use crate::automata::CompileConfig;
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use text_size::TextRange;

/// `refine` with no network's rules beside the engine's own, at the default thresholds.
fn refine_rules_alone(file: &RulesFile, corpora: &Corpora, refining: &RefineConfig) -> Refined {
    refine(file, corpora, &[], &[], &SuggestConfig::default(), refining)
}

/// A refined text without the provenance comments `refine` writes above its edits.
fn without_provenance(text: &str) -> String {
    text.split_inclusive('\n')
        .filter(|line| !line.starts_with("# suggested by rulelens: "))
        .collect()
}

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
    let state = State::new(file, &train_lines, &dev_lines, &[], &[]);
    for candidate in state
        .candidates(&SuggestConfig::default(), Cancel::NEVER)
        .unwrap()
    {
        let Some(estimate) = candidate.estimate else {
            continue;
        };
        let (measured, _) = state.measure(&candidate, false).expect("measured");
        let evidence = measured.evidence;
        assert_eq!(
            (estimate.fixed, estimate.broken, estimate.matches),
            (evidence.fixed, evidence.broken, evidence.train_matches),
            "{}",
            candidate.describe()
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
    let corpora = plain_corpora(&train, &dev);
    let file = rules("default ham\n");
    let refined = refine_rules_alone(&file, &corpora, &RefineConfig::default());
    assert_eq!(refined.applied.len(), 1);
    // The edit, with its provenance above it.
    let evidence = refined.applied[0].evidence;
    assert_eq!(
        refined.text,
        format!(
            "default ham\n# suggested by rulelens: add `spam: $* call % $*` (fixes {} train lines, breaks {}; dev accuracy {:.2}% → {:.2}%)\nspam: $* call % $*\n",
            evidence.fixed,
            evidence.broken,
            100.0 * evidence.dev_before,
            100.0 * evidence.dev_after
        )
    );
    // The result reads back without errors, and a second round finds nothing to add.
    let again = rules(&refined.text);
    assert!(!again.has_errors());
    assert!(
        refine_rules_alone(&again, &corpora, &RefineConfig::default())
            .applied
            .is_empty()
    );
    // A dev corpus where the rule is wrong: nothing is applied.
    let contrary = examples(&[("ham", "call 0900 to win"), ("spam", "can you call mum")]);
    let corpora = plain_corpora(&train, &contrary);
    let kept = refine_rules_alone(&file, &corpora, &RefineConfig::default());
    assert_eq!(kept.text, "default ham\n");
    assert!(kept.applied.is_empty());
    // At most `max_edits`.
    let corpora = plain_corpora(&train, &dev);
    assert!(
        refine_rules_alone(
            &file,
            &corpora,
            &RefineConfig {
                max_edits: 0,
                ..RefineConfig::DEFAULT
            },
        )
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
    let corpora = plain_corpora(&train, &dev);
    let text = "default ham\nspam: $* won ( prize | cash ) $*    # the prize\n";
    let file = rules(text);
    let suggestions = suggest(
        &file,
        &corpora,
        &[],
        &[],
        &SuggestConfig::default(),
        &|| false,
    )
    .unwrap();
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
        widening.describe(),
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
    let state = State::new(file, &train_lines, &dev_lines, &[], &[]);
    let candidates = state
        .candidates(&SuggestConfig::default(), Cancel::NEVER)
        .unwrap();
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
            candidate.describe()
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
            &written,
            Cancel::NEVER,
        )
        .unwrap()
        .is_empty()
    );
    // Applied greedily, it is the widening or the rule induction finds for the same lines
    // (`$* won voucher $*`).
    let refined = refine_rules_alone(&rules(text), &corpora, &RefineConfig::default());
    assert_eq!(refined.applied.len(), 1);
    assert_eq!(refined.applied[0].evidence.fixed, 4);
    // Between two `$*` every token of the gap is a slot: the train corpus gets no word set
    // there (the editor's widening for one line does: see below).
    let unpinned = rules("default ham\nspam: $* won $* ( prize | cash ) $*\n");
    assert!(
        suggest(
            &unpinned,
            &corpora,
            &[],
            &[],
            &SuggestConfig::default(),
            &|| { false }
        )
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
    let corpora = plain_corpora(&train, &dev);
    let file = rules("default desc\nnum: how $? many $*\n");
    let suggestions = suggest(
        &file,
        &corpora,
        &[],
        &[],
        &SuggestConfig::default(),
        &|| false,
    )
    .unwrap();
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
    let corpora = plain_corpora(&train, &dev);
    assert!(
        suggest(
            &file,
            &corpora,
            &[],
            &[],
            &SuggestConfig::default(),
            &|| false
        )
        .unwrap()
        .iter()
        .all(|s| s.source != Source::Widening)
    );
}

#[test]
fn a_line_gets_the_widening_of_its_closest_rule_that_makes_the_rule_match_it() {
    let (train, dev) = (examples(WON), examples(WON_DEV));
    let corpora = plain_corpora(&train, &dev);
    // The first rule misses two elements; the second misses `prize` only, after a gap
    // where `a` and `voucher` stand: `voucher` has the better estimate.
    let file = rules("default ham\nspam: $* lucky $* draw $*\nspam: $* won $* prize $*\n");
    let widened =
        widen_for_line(&file, &corpora, "spam", "they won a voucher").expect("a widening");
    assert_eq!(
        widened.suggestion.describe(),
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

/// The fixture's rule `spam: $* call 0800 $*` as a network might read it back: wider (`%`
/// for `0800`: it fixes the other four spam lines), and wider still (`you` too: it breaks
/// five ham lines).
fn read_back_of_call_0800() -> Vec<ReadBack> {
    vec![ReadBack {
        label: "spam".to_string(),
        regex: "$* call 0800 $*".to_string(),
        rewrites: vec![
            "$* call % $*".to_string(),
            "$* ( call | you ) $*".to_string(),
        ],
    }]
}

#[test]
fn a_reconstruction_that_fixes_train_lines_is_offered_with_its_exact_effect() {
    let (train, dev) = (examples(TRAIN), examples(DEV));
    let corpora = plain_corpora(&train, &dev);
    let file = rules("default ham\nspam: $* call 0800 $*\n");
    let read_back = read_back_of_call_0800();
    let suggestions = suggest(
        &file,
        &corpora,
        &read_back,
        &[],
        &SuggestConfig::default(),
        &|| false,
    )
    .unwrap();
    let rewrites: Vec<_> = suggestions
        .iter()
        .filter(|s| s.source == Source::Reconstruction)
        .collect();
    let [rewrite] = rewrites.as_slice() else {
        panic!("one rewrite, not {rewrites:?}");
    };
    assert_eq!(
        rewrite.describe(),
        "rewrite line 2 `spam: $* call 0800 $*` as `$* call % $*`"
    );
    assert_eq!(rewrite.new_text, "default ham\nspam: $* call % $*\n");
    assert_eq!((rewrite.evidence.fixed, rewrite.evidence.broken), (4, 0));
    // The producer's effect is the rule system's measurement, for every rewrite it offers.
    let (train_lines, dev_lines) = (Lines::new(&train), Lines::new(&dev));
    let state = State::new(file.clone(), &train_lines, &dev_lines, &read_back, &[]);
    let candidates = reconstruct::rewrites(
        &state.file,
        &train_lines,
        &state.train_standing,
        &SuggestConfig {
            min_precision: 0.1,
            ..SuggestConfig::default()
        },
        &read_back,
    );
    assert_eq!(candidates.len(), 2, "{candidates:?}");
    for candidate in candidates {
        let estimate = candidate.estimate.expect("an estimate");
        let (measured, _) = state.measure(&candidate, false).expect("measured");
        let evidence = measured.evidence;
        assert_eq!(
            (estimate.fixed, estimate.broken, estimate.matches),
            (evidence.fixed, evidence.broken, evidence.train_matches),
            "{}",
            candidate.describe()
        );
    }
    // Greedy application takes it, and a rule edited since is not rewritten.
    let refined = refine(
        &file,
        &corpora,
        &read_back,
        &[],
        &SuggestConfig::default(),
        &RefineConfig::default(),
    );
    assert_eq!(
        without_provenance(&refined.text),
        "default ham\nspam: $* call % $*\n"
    );
    let edited = rules("default ham\nspam: $* call 0900 $*\n");
    assert!(
        suggest(
            &edited,
            &corpora,
            &read_back,
            &[],
            &SuggestConfig::default(),
            &|| false
        )
        .unwrap()
        .iter()
        .all(|s| s.source != Source::Reconstruction)
    );
}

#[test]
fn an_untrained_network_reads_every_rule_back_as_it_is_so_nothing_is_rewritten() {
    let train = examples(TRAIN);
    let file = rules("default ham\nspam: $* call % $*\nspam: $* ( free | prize ) $*\n");
    let settings = crate::model::TrainingSettings {
        beta: 1.0,
        epochs: 0,
        ..crate::model::TrainingSettings::default()
    };
    let fitted = crate::model::fit(
        &file,
        &train,
        &train,
        &settings,
        &crate::limits::ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .expect("fitted");
    let forward = fitted.net.directions()[0].0;
    let tokens = forward
        .known_token_vectors(&file.system, fitted.vocabulary.as_ref())
        .unwrap();
    let states = crate::model::WeightedAutomaton::new(&file.system).pattern_states;
    let read = reconstruct::read_back(&file, &forward.plain().unwrap(), &states, &tokens);
    assert_eq!(read, Vec::new());
}

#[test]
fn a_readable_regex_is_short_with_short_sets_and_stars_on_single_tokens() {
    let regex = |text: &str| {
        let file = rules(&format!("pattern p = {text}\n"));
        file.rules.patterns[0].regex.clone()
    };
    let max = reconstruct::MAX_ELEMENTS;
    assert!(reconstruct::readable(
        &regex("$* how ( much | many ) $*"),
        max
    ));
    assert!(!reconstruct::readable(&regex("$* ( a b* )* $*"), max));
    assert!(!reconstruct::readable(&regex("$* why ( $ a? )* $*"), max));
    assert!(reconstruct::readable(&regex("$* why ( a | b )* $*"), max));
    let eleven = "$* ( a | b | c | d | e | f | g | h | i | j | k ) $*";
    assert!(!reconstruct::readable(&regex(eleven), max));
    let long = "a b c d e f g h i j k l m";
    assert!(!reconstruct::readable(&regex(long), max));
    assert!(reconstruct::readable(&regex(long), 13));
}

#[test]
fn learned_rules_alone_are_measured_as_the_engine_measures_them_in_the_full_list() {
    let (train, dev) = (examples(TRAIN), examples(DEV));
    let corpora = plain_corpora(&train, &dev);
    let file = rules("default ham\n");
    let learned = [
        LearnedRule {
            label: "spam".to_string(),
            regex: "$* call % $*".to_string(),
        },
        // Below the floors: it fixes no line.
        LearnedRule {
            label: "spam".to_string(),
            regex: "$* keys $*".to_string(),
        },
    ];
    let config = SuggestConfig::default();
    let alone = suggest_learned(&file, &corpora, &learned, &config, &|| false).unwrap();
    assert_eq!(alone.len(), 1, "{alone:#?}");
    assert_eq!(alone[0].source, Source::Learned);
    assert_eq!(
        alone[0].edit,
        Edit::AddRule {
            label: "spam".to_string(),
            regex: "$* call % $*".to_string()
        }
    );
    // The same edit, found by induction in the full list, has the same evidence.
    let full = suggest(&file, &corpora, &[], &learned, &config, &|| false).unwrap();
    let same = full
        .iter()
        .find(|s| s.edit == alone[0].edit)
        .expect("in the full list");
    assert_eq!(same.evidence, alone[0].evidence);
    assert!(suggest_learned(&file, &corpora, &learned, &config, &|| true).is_none());
}

/// A superseded save's suggestions stop while the engine reads the lines and builds its
/// candidates, not only between measurements (on a million lines, building them took over a
/// minute): the caller's stop is polled beyond once per candidate measured, and a stop
/// asked for at any poll ends the work there.
#[test]
fn a_stop_is_heard_while_the_candidates_are_built() {
    let (train, dev) = (examples(TRAIN), examples(DEV));
    let corpora = plain_corpora(&train, &dev);
    let file = rules("default ham\n");
    let config = SuggestConfig::default();
    let polls = std::cell::Cell::new(0);
    let counting = || {
        polls.set(polls.get() + 1);
        false
    };
    suggest(&file, &corpora, &[], &[], &config, &counting).expect("not stopped");
    let total = polls.get();
    let (train_lines, dev_lines) = (Lines::new(&train), Lines::new(&dev));
    let state = State::new(file.clone(), &train_lines, &dev_lines, &[], &[]);
    let measured = state.candidates(&config, Cancel::NEVER).unwrap().len();
    assert!(
        total > measured + train.len(),
        "{total} polls for {measured} candidates measured"
    );
    for stop_at in 1..=total {
        polls.set(0);
        let stopping = || {
            polls.set(polls.get() + 1);
            polls.get() >= stop_at
        };
        assert!(suggest(&file, &corpora, &[], &[], &config, &stopping).is_none());
        assert_eq!(polls.get(), stop_at, "polled on after the stop");
    }
}

#[test]
fn large_corpora_measure_fewer_candidates_a_round() {
    let config = SuggestConfig::DEFAULT;
    assert_eq!(config.for_lines(6_000).max_measured, config.max_measured);
    assert_eq!(config.for_lines(1_000_000).max_measured, 20);
    assert_eq!(config.for_lines(usize::MAX).max_measured, 1);
    assert_eq!(config.for_lines(0).max_measured, config.max_measured);
}

/// A file whose analysis is slow (a long chain of `$* a`: its DFA's subsets grow with the
/// chain) measures fewer candidates a round; SMS's rules are not held back (issue 51,
/// item 3.6).
#[test]
fn rules_that_take_long_to_analyse_measure_fewer_candidates_a_round() {
    let config = SuggestConfig {
        max_measured: SuggestConfig::MAX_MEASURED,
        ..SuggestConfig::DEFAULT
    };
    let analyse = |text: &str| {
        RulesFile::analyze(
            SourceText::from_bytes(text.as_bytes()),
            None,
            &CompileConfig::MEASURING,
        )
    };
    let sms = analyse(&std::fs::read_to_string("examples/sms/sms.rules").unwrap());
    assert!(config.for_file(&sms).max_measured >= 400);
    let chain = format!("default ham\nspam: {}$*\n", "$* a ".repeat(2_000));
    let long = analyse(&chain);
    assert!(long.system.compile_work() > 10_000_000);
    let measured = config.for_file(&long).max_measured;
    assert!((1..=5).contains(&measured), "{measured}");
}

#[test]
fn a_rule_whose_matches_have_another_label_is_relabeled_in_place_with_its_exact_effect() {
    // `what president` lines are `hum`, but the file's rule for them says `enty`, which
    // comes first: no `hum` rule can win them, and removing the rule leaves them to the
    // default `enty`. Relabeled, it fixes them.
    let text = "default enty\nenty: $* color $*\nhum: $* who $*\nenty: $* what president $*\n";
    let file = rules(text);
    let suggestions = suggest_on_questions(&file);
    let relabel = suggestions
        .iter()
        .find(|s| s.source == Source::Relabeling)
        .expect("a relabeling");
    assert!(
        matches!(&relabel.edit, Edit::Relabel { label, new_label, line: 4, regex, .. }
            if label == "enty" && new_label == "hum" && regex == "$* what president $*"),
        "{:?}",
        relabel.edit
    );
    assert_eq!(
        relabel.new_text,
        "default enty\nenty: $* color $*\nhum: $* who $*\nhum: $* what president $*\n"
    );
    let evidence = relabel.evidence;
    assert_eq!((evidence.fixed, evidence.broken), (3, 0));
    assert_eq!((evidence.train_matches, evidence.train_precision), (3, 1.0));
    assert_eq!((evidence.dev_before, evidence.dev_after), (0.5, 0.75));
    assert_eq!(
        relabel.describe(),
        "relabel line 4 `enty: $* what president $*` as `hum`"
    );
    // The estimate is what the rule system measured.
    let (train, dev) = (examples(WHAT), examples(WHAT_DEV));
    let (train_lines, dev_lines) = (Lines::new(&train), Lines::new(&dev));
    let state = State::new(file.clone(), &train_lines, &dev_lines, &[], &[]);
    let candidate = state
        .candidates(&SuggestConfig::default(), Cancel::NEVER)
        .unwrap()
        .into_iter()
        .find(|c| c.source == Source::Relabeling)
        .expect("a relabeling candidate");
    let estimate = candidate.estimate.expect("an estimate");
    assert_eq!(
        (estimate.fixed, estimate.broken, estimate.matches),
        (evidence.fixed, evidence.broken, evidence.train_matches)
    );
    // Once the text has changed under it, the edit no longer applies.
    let moved =
        rules("default enty\nenty: $* color $*\nhum: $* who $*\n\nenty: $* what president $*\n");
    assert_eq!(relabel.edit.apply(&moved), None);
}

#[test]
fn a_relabeling_that_would_move_a_labels_priority_is_not_offered() {
    // The rule is `enty`'s first: relabeled, `enty` would fall below `hum`.
    let first =
        rules("default enty\nenty: $* what president $*\nhum: $* who $*\nenty: $* color $*\n");
    assert!(
        suggest_on_questions(&first)
            .iter()
            .all(|s| s.source != Source::Relabeling)
    );
    // `hum`'s first rule comes after it: relabeled, `hum` would rise above `enty`.
    let before =
        rules("default enty\nenty: $* color $*\nenty: $* what president $*\nhum: $* who $*\n");
    assert!(
        suggest_on_questions(&before)
            .iter()
            .all(|s| s.source != Source::Relabeling)
    );
}

#[test]
fn a_label_that_loses_where_it_is_right_is_raised_above_the_label_that_wins() {
    let train = &[
        ("num", "how many dogs are there ?"),
        ("num", "how many legs has a spider ?"),
        ("num", "how many moons has mars ?"),
        ("desc", "how do you bake bread ?"),
        ("desc", "how does a siphon work ?"),
        ("enty", "what is the best fruit ?"),
    ];
    let dev = &[("num", "how many cats ?"), ("desc", "how do birds fly ?")];
    let text = "default enty\ndesc: $* how $*    # too wide\n# counts\nnum: $* how many $*\n";
    let file = rules(text);
    let suggestions = suggest_on(&file, train, dev);
    let raise = suggestions
        .iter()
        .find(|s| s.source == Source::Priority)
        .expect("a raising");
    assert_eq!(
        raise.edit,
        Edit::RaiseLabel {
            label: "num".to_string(),
            above: "desc".to_string(),
            line: 4,
            statement: "num: $* how many $*".to_string(),
            before_line: 2,
        }
    );
    assert_eq!(
        raise.new_text,
        "default enty\nnum: $* how many $*\ndesc: $* how $*    # too wide\n# counts\n"
    );
    let evidence = raise.evidence;
    assert_eq!((evidence.fixed, evidence.broken), (3, 0));
    assert_eq!((evidence.train_matches, evidence.train_precision), (3, 1.0));
    assert_eq!((evidence.dev_before, evidence.dev_after), (0.5, 1.0));
    // Once either first rule has moved, the edit no longer applies.
    let moved = rules("default enty\n\ndesc: $* how $*\nnum: $* how many $*\n");
    assert_eq!(raise.edit.apply(&moved), None);
    let raised = rules(&raise.new_text);
    assert_eq!(raise.edit.apply(&raised), None);
    // Raised, `num` wins every line both fire on: nothing more to raise.
    let again = suggest_on(&raised, train, dev);
    assert!(again.iter().all(|s| s.source != Source::Priority));
}

#[test]
fn a_round_with_nothing_precise_enough_falls_back_to_the_lower_floor() {
    // `call` is right on 6 of its 7 train matches (86 %): under the 0.9 floor, above 0.8.
    let train = examples(&[
        ("spam", "call now"),
        ("spam", "please call"),
        ("spam", "call us today"),
        ("spam", "you should call"),
        ("spam", "call and win"),
        ("spam", "call for prizes"),
        ("ham", "call me later"),
        ("ham", "see you soon"),
        ("ham", "thanks a lot"),
        ("ham", "good night"),
    ]);
    let dev = examples(&[("spam", "call today"), ("ham", "see you")]);
    let corpora = plain_corpora(&train, &dev);
    let file = rules("default ham\n");
    let refined = refine_rules_alone(&file, &corpora, &RefineConfig::default());
    assert_eq!(
        without_provenance(&refined.text),
        "default ham\nspam: $* call $*\n"
    );
    let evidence = refined.applied[0].evidence;
    assert_eq!((evidence.fixed, evidence.broken), (6, 1));
    // With the fallback at the floor itself there is no second try.
    let strict = RefineConfig {
        fallback_precision: SuggestConfig::DEFAULT.min_precision,
        ..RefineConfig::DEFAULT
    };
    let kept = refine_rules_alone(&file, &corpora, &strict);
    assert!(kept.applied.is_empty(), "{:?}", kept.text);
    // Nor is it offered where it is listed: `suggest` keeps the floor.
    assert!(
        suggest(
            &file,
            &corpora,
            &[],
            &[],
            &SuggestConfig::default(),
            &|| false
        )
        .unwrap()
        .iter()
        .all(|suggestion| !matches!(&suggestion.edit, Edit::AddRule { regex, .. } if regex == "$* call $*"))
    );
    assert!(RefineConfig::DEFAULT.check(&SuggestConfig::DEFAULT).is_ok());
    let above = RefineConfig {
        fallback_precision: 0.95,
        ..RefineConfig::DEFAULT
    };
    assert_eq!(
        above.check(&SuggestConfig::DEFAULT).unwrap_err(),
        "--fallback-precision must be in (0, --min-precision = 0.9], not 0.95"
    );
}

/// Reviews where only the default label's side has common cues: each `pos` review says one
/// of four words of praise, each `neg` review a complaint word of its own (no two alike), so
/// that no `neg` rule fixes two lines. `first` numbers the complaints.
fn praise_reviews(n: usize, first: usize) -> Vec<Example> {
    const PRAISE: [&str; 4] = ["great", "love", "perfect", "comfy"];
    const ITEMS: [&str; 5] = [
        "the shirt",
        "these socks",
        "my jacket",
        "that coat",
        "the shoes",
    ];
    let lines: Vec<(String, String)> = (0..n)
        .map(|i| {
            let item = ITEMS[i % ITEMS.len()];
            if i % 2 == 0 {
                let praise = PRAISE[(i / 2) % PRAISE.len()];
                ("pos".to_string(), format!("{item} are {praise} indeed"))
            } else {
                (
                    "neg".to_string(),
                    format!("{item} are complaint{} indeed", first + i),
                )
            }
        })
        .collect();
    let pairs: Vec<(&str, &str)> = lines
        .iter()
        .map(|(l, t)| (l.as_str(), t.as_str()))
        .collect();
    examples(&pairs)
}

#[test]
fn on_two_labels_refine_makes_the_list_two_sided_when_a_held_out_fifth_of_train_says_so() {
    let (train, dev) = (praise_reviews(300, 0), praise_reviews(100, 1000));
    let corpora = Corpora {
        train: &train,
        dev: &dev,
        vectors: None,
    };
    // From `default pos`, only `neg` rules could change a prediction, and none fixes two
    // lines: one-sided, the rules stay at half of dev. Made two-sided, `neg` is the default
    // and the praise is a `pos` rule.
    let file = rules("default pos\n");
    let refined = refine_rules_alone(&file, &corpora, &RefineConfig::default());
    assert_eq!(
        refined.applied[0].edit,
        Edit::SetDefault {
            label: "pos".to_string(),
            new_label: "neg".to_string(),
            line: 1,
            range: TextRange::new(8.into(), 11.into()),
        }
    );
    let text = without_provenance(&refined.text);
    assert!(text.starts_with("default neg\npos: "), "{text}");
    let refined_file = rules(&refined.text);
    assert!(!refined_file.has_errors());
    let right = dev
        .iter()
        .filter(|e| {
            let prediction = refined_file.system.classify(&e.text).prediction;
            prediction.map(|l| refined_file.system.labels()[l.index()].as_str())
                == e.label.as_deref()
        })
        .count();
    assert_eq!(right, dev.len(), "{text}");
    // The change of default is listed with what it did to dev at the time.
    assert_eq!(refined.applied[0].source, Source::Default);
    assert_eq!(refined.applied[0].evidence.dev_after, 0.5);

    // Not two-sided: a third label, a rule of the default's, too few lines to hold out.
    let three: Vec<Example> = train
        .iter()
        .cloned()
        .chain(examples(&[("meh", "the shirt is fine")]))
        .collect();
    let lines = |examples: &[Example]| Lines::new(examples);
    assert_eq!(
        two_sided::new_default(&file, &lines(&train)),
        Some("neg".to_string())
    );
    assert_eq!(two_sided::new_default(&file, &lines(&three)), None);
    let with_pos_rule = rules("default pos\npos: $* great $*\n");
    assert_eq!(two_sided::new_default(&with_pos_rule, &lines(&train)), None);
    assert!(two_sided::split(&train[..200]).is_none());
    assert!(two_sided::split(&train[..250]).is_some());
    // The edit applies to the text it was made for only.
    let set_neg = two_sided::set_default(&file, "neg").expect("an edit");
    assert_eq!(set_neg.edit.apply(&file).as_deref(), Some("default neg\n"));
    assert_eq!(set_neg.edit.apply(&rules("default neg\n")), None);
    assert_eq!(
        set_neg.edit.apply(&rules("# a comment\ndefault pos\n")),
        None
    );
}

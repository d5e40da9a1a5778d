//! The corpus- and model-level editor features of `rulelens::ide` on small hand-written
//! rules and corpora, with every figure computed by hand: the analysis, the findings
//! (W0501–W0503, I0504) and where they are placed, corpus-line diagnostics (I0505), code
//! actions, code lenses, inlay hints and the [`TrainedFaRnn`] (hovers are tested beside
//! their code, in src/ide/hover/tests.rs, on the same fixtures: `ide::testing`); and
//! the promise of `FaRnnScorer::occlusions` / `explain::ngrams` that, for the zero-shot network
//! compiled from the rules, deleting a span does to the network exactly what it does to the
//! rules.
//!
//! The network, where one is needed, is the zero-shot one `model::fit` builds with no
//! training epoch: it computes exactly what the rules compute, so its figures are known too.

use candle_core::Device;
use rulelens::automata::{RuleSystem, compile_reversed};
use rulelens::corpus::{Example, Format, parse};
use rulelens::diagnostic::{Code, Diagnostic};
use rulelens::explain::{NEGLIGIBLE, ReconstructConfig, best_span, ngrams};
use rulelens::ide::testing::*;
use rulelens::ide::{
    Action, ActionKind, Figures, Finding, FindingsConfig, HoverConfig, InlayHint, Lens, Line,
    LineView, PatternKey, RulesHover, TextEdit, TrainedNetwork, Unprepared, analyze, apply,
    corpus_diagnostics, corpus_findings, examples_in, hover_rules, line_actions, line_hints,
    lines_diagnostics, minimal_edit, pattern_lenses, place, render_rules_hover, rules_actions,
};
use rulelens::limits::ReadLimits;
use rulelens::model::{
    BiFaRnn, FaRnn, FaRnnScorer, Network, Scoring, TrainingSettings, WeightedAutomaton, decompose,
    fit,
};
use rulelens::rules_file::RulesFile;
use rulelens::syntax::PatternId;
use rulelens::text::{LineIndex, tokenize};
use std::sync::Arc;
use text_size::{TextRange, TextSize};

/// The most tokens of a sentence a network reads, by default.
const MAX_TOKENS: usize = rulelens::model::TrainingSettings::DEFAULT.max_sentence_tokens;

// The fixtures (RULES, TRAIN, TEST and the helpers) are `rulelens::ide::testing`'s, shared
// with hover's own tests.

// ---------------------------------------------------------------------------------------
// analyze
// ---------------------------------------------------------------------------------------

#[test]
fn analysis_runs_the_rules_on_every_line_of_every_corpus() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("test", TEST)]);
    let rules = &analysis.rules.rules;
    let names: Vec<&str> = rules.patterns.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["prize", "zebra", "spam@2", "ham@5"]);
    assert_eq!(analysis.rules.system.labels(), ["spam", "ham"]);

    let train = analysis.corpus("train").unwrap();
    assert_eq!(train.name, "train");
    let outcomes: Vec<(Option<u32>, Vec<u32>)> = train
        .outcomes
        .iter()
        .map(|o| {
            (
                o.prediction.map(|l| l.0),
                o.matched.iter().map(|p| p.0).collect(),
            )
        })
        .collect();
    let (spam, ham) = (Some(0), Some(1));
    assert_eq!(
        outcomes,
        [
            (spam, vec![2]),
            (spam, vec![2, 3]),
            (spam, vec![2, 3]),
            (spam, vec![2, 3]),
            (spam, vec![0]),
            (spam, vec![0]),
            (ham, vec![]),
        ]
    );
    let evaluation = &train.evaluation;
    assert_eq!(
        (
            evaluation.n_examples,
            evaluation.n_labeled,
            evaluation.n_correct
        ),
        (7, 7, 4)
    );
    let free = &evaluation.patterns[2];
    assert_eq!(
        (free.matches, free.correct, free.incorrect, free.relevant),
        (4, 1, 3, 3)
    );
    assert_eq!(evaluation.patterns[1].matches, 0);

    let test = analysis.corpus("test").unwrap();
    assert_eq!(test.evaluation.n_correct, 2);
    assert_eq!(test.outcomes[0].matched, [PatternId(0), PatternId(2)]);
    assert!(analysis.corpus("dev").is_none());
    assert_eq!(
        analysis
            .corpus_at(std::path::Path::new("test.tsv"))
            .map(|run| run.name.as_str()),
        Some("test")
    );
}

#[test]
fn analysis_stops_when_cancelled() {
    let file = Arc::new(rules(RULES));
    let result = analyze(
        file,
        vec![("train".into(), corpus("train", Format::Tsv, TRAIN))],
        &|| true,
    );
    assert!(result.is_err());
}

// ---------------------------------------------------------------------------------------
// Findings: W0501, W0502, W0503, and placing them
// ---------------------------------------------------------------------------------------

#[test]
fn corpus_findings_report_never_matching_low_precision_and_conflicting_patterns() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let file = &analysis.rules;
    let findings = corpus_findings(&analysis, &FindingsConfig::default());
    let summary: Vec<(Code, PatternKey)> = findings
        .iter()
        .map(|f| (f.code, f.pattern.clone()))
        .collect();
    // Per pattern in order (W0501 before W0502), then the conflicts.
    assert_eq!(
        summary,
        [
            (Code::NeverMatches, key(file, 1)),
            (Code::LowPrecision, key(file, 2)),
            (Code::ConflictingPatterns, key(file, 3)),
        ]
    );
    assert_eq!(
        findings[0].message,
        "`zebra` matches none of the 7 lines of the train corpus"
    );
    assert_eq!(findings[0].related, None);
    // The free rule: right on line 0 only of lines 0–3.
    assert_eq!(
        findings[1].message,
        "the `spam` rule of line 2 is right on 1 of the 4 labeled train lines it matches \
         (25% precision, below 50%)"
    );
    assert_eq!(
        findings[1].help.as_deref(),
        Some("make the pattern more specific, or remove it")
    );
    // Free (spam) and call (ham) share lines 1–3; the finding is on the later pattern and
    // points at the earlier one.
    let conflict = &findings[2];
    assert!(
        conflict.message.starts_with(
            "the `ham` rule of line 5 and the `spam` rule of line 2 vote for different labels \
             and both match 3 train lines"
        ),
        "{}",
        conflict.message
    );
    assert_eq!(
        conflict.related,
        Some((
            key(file, 2),
            "the `ham` rule of line 5 conflicts with this pattern".to_string()
        ))
    );
}

/// The conflict message names the later pattern first ("the `ham` rule … and the `spam`
/// rule …") but gives the gold counts in the other order: gold is `ham` on all three shared
/// lines, yet the message says gold agrees with the first (the ham rule) on 0.
#[test]
fn conflict_message_gives_each_pattern_its_own_gold_count() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let findings = corpus_findings(&analysis, &FindingsConfig::default());
    let conflict = findings
        .iter()
        .find(|f| f.code == Code::ConflictingPatterns)
        .unwrap();
    assert_eq!(
        conflict.message,
        "the `ham` rule of line 5 and the `spam` rule of line 2 vote for different labels and \
         both match 3 train lines (gold agrees with the first on 3, with the second on 0)"
    );
}

#[test]
fn findings_follow_their_thresholds_and_need_a_train_corpus() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let codes = |config: FindingsConfig| -> Vec<Code> {
        corpus_findings(&analysis, &config)
            .iter()
            .map(|f| f.code)
            .collect()
    };
    // Precision 25 % passes a 25 % floor (the test is `<`); 3 shared lines of a rarer
    // pattern with 3 matches is a share of 1, which passes 1 but not 1.01.
    assert_eq!(
        codes(FindingsConfig {
            min_precision: 0.25,
            conflict_share: 1.0,
        }),
        [Code::NeverMatches, Code::ConflictingPatterns]
    );
    assert_eq!(
        codes(FindingsConfig {
            min_precision: 0.26,
            conflict_share: 1.01,
        }),
        [Code::NeverMatches, Code::LowPrecision]
    );

    // Two wrong matches and two shared lines are below MIN_EVIDENCE (3): nothing to judge.
    let small = analysis_of(
        RULES,
        &[("train", "ham\tfree call\nham\tcall free\nspam\twon\n")],
    );
    let small_codes: Vec<(Code, PatternKey)> = corpus_findings(&small, &FindingsConfig::default())
        .into_iter()
        .map(|f| (f.code, f.pattern))
        .collect();
    assert_eq!(small_codes, [(Code::NeverMatches, key(&small.rules, 1))]);

    // Another binding than `train` gives no findings, and neither does an empty train.
    let no_train = analysis_of(RULES, &[("dev", TRAIN)]);
    assert!(corpus_findings(&no_train, &FindingsConfig::default()).is_empty());
    let empty = analysis_of(RULES, &[("train", "")]);
    assert!(corpus_findings(&empty, &FindingsConfig::default()).is_empty());
}

#[test]
fn identical_never_matching_rules_each_get_their_own_finding() {
    // Three identical rules on lines 4, 6 and 7 of the file, none of which matches.
    let text = "default ham\nspam: $* free $*\n\nspam: $* okapi $*\n\nspam: $* okapi $*\nspam: $* okapi $*\n";
    let analysis = analysis_of(text, &[("train", "spam\tfree now\nham\thello\n")]);
    let placed = place(
        &corpus_findings(&analysis, &FindingsConfig::default()),
        &analysis.rules,
    );
    let lines: Vec<(&str, u32)> = placed
        .iter()
        .map(|d| {
            let line = analysis.rules.line_index.line_col(d.range.start()).line + 1;
            (d.code.as_str(), line)
        })
        .collect();
    assert_eq!(lines, [("W0501", 4), ("W0501", 6), ("W0501", 7)]);
}

#[test]
fn findings_are_placed_on_the_text_being_edited() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let findings = corpus_findings(&analysis, &FindingsConfig::default());

    let placed = place(&findings, &analysis.rules);
    let summary: Vec<(&str, TextRange)> =
        placed.iter().map(|d| (d.code.as_str(), d.range)).collect();
    assert_eq!(
        summary,
        [
            // A named pattern: its name; an anonymous rule: its regex.
            ("W0501", find_nth(RULES, "zebra", 0)),
            ("W0502", find(RULES, "$* free $*")),
            ("W0503", find(RULES, "$* call $*")),
        ]
    );
    assert_eq!(placed[0].message, findings[0].message);
    assert_eq!(placed[1].help, findings[1].help);
    assert_eq!(placed[2].related.len(), 1);
    assert_eq!(placed[2].related[0].range, find(RULES, "$* free $*"));
    assert_eq!(
        placed[2].related[0].message,
        "the `ham` rule of line 5 conflicts with this pattern"
    );

    // Lines moved by a comment, spacing changed: every finding follows its pattern.
    let moved_text = format!(
        "# a comment\n{}",
        RULES.replace("$* call $*", "$*   call $*")
    );
    let moved = place(&findings, &rules(&moved_text));
    let ranges: Vec<TextRange> = moved.iter().map(|d| d.range).collect();
    assert_eq!(
        ranges,
        [
            find_nth(&moved_text, "zebra", 0),
            find(&moved_text, "$* free $*"),
            find(&moved_text, "$*   call $*"),
        ]
    );
    assert_eq!(moved[2].related[0].range, find(&moved_text, "$* free $*"));

    // The free rule edited away: its own finding and the conflict pointing at it go.
    let edited_text = RULES.replace("$* free $*", "$* freebie $*");
    let edited = place(&findings, &rules(&edited_text));
    let codes: Vec<&str> = edited.iter().map(|d| d.code.as_str()).collect();
    assert_eq!(codes, ["W0501"]);
    // A named pattern is known by its name and regex: the finding was about the old regex,
    // so a new regex drops it, as does a new name; spacing does not.
    let regex_changed = RULES.replace("$* zebra $*", "$* okapi $*");
    assert!(place(&findings[..1], &rules(&regex_changed)).is_empty());
    let respaced = RULES.replace("$* zebra $*", "$*   zebra  $*");
    assert_eq!(place(&findings[..1], &rules(&respaced)).len(), 1);
    let renamed = RULES.replace("zebra", "okapi");
    assert!(place(&findings[..1], &rules(&renamed)).is_empty());
}

// ---------------------------------------------------------------------------------------
// TrainedFaRnn and I0504
// ---------------------------------------------------------------------------------------

#[test]
fn zero_shot_trained_model_predicts_and_reads_back_the_rules() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("dev", TRAIN)]);
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    // The rules' predictions on train (spam = 0, ham = 1) where a pattern decides: not on
    // line 6, which falls to the default.
    let spam = Some(0);
    assert_eq!(
        model.train_predictions,
        [spam, spam, spam, spam, spam, spam, None]
    );
    assert_close(model.dev_accuracy.unwrap(), 4.0 / 7.0, "dev accuracy");
    assert!(model.manifest.is_trained_on(RULES));
    assert!(
        !model
            .manifest
            .is_trained_on(&RULES.replace("zebra", "okapi"))
    );

    let file = &analysis.rules;
    let read_back: Vec<(PatternKey, Option<&str>)> = model
        .reconstructions
        .iter()
        .map(|r| (r.pattern.clone(), r.regex.as_deref()))
        .collect();
    // Each pattern reads back as itself (state elimination sorts an alternation).
    assert_eq!(
        read_back,
        [
            (key(file, 0), Some("$* ( win | won ) $*")),
            (key(file, 1), Some("$* zebra $*")),
            (key(file, 2), Some("$* free $*")),
            (key(file, 3), Some("$* call $*")),
        ]
    );
    for reconstruction in &model.reconstructions {
        assert_close(
            reconstruction.dev_accuracy.unwrap(),
            4.0 / 7.0,
            "same language, same accuracy",
        );
    }
    assert_eq!(
        model.reconstruction(&key(file, 3)).map(|r| &r.pattern),
        Some(&key(file, 3))
    );
    assert_eq!(model.pattern(&key(file, 1)), Some(PatternId(1)));
    let other = rules("default ham\nspam: $* nope $*\n");
    assert_eq!(model.pattern(&key(&other, 0)), None);
    assert!(model.reconstruction(&key(&other, 0)).is_none());
}

#[test]
fn reconstructions_that_accept_nothing_get_the_dev_accuracy_of_the_rules_without_them() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("dev", TRAIN)]);
    // No transition weight of the zero-shot network exceeds 1: at 1.5 nothing is an edge.
    let model = zero_shot_model(
        &analysis,
        &ReconstructConfig {
            threshold: 1.5,
            ..ReconstructConfig::default()
        },
    );
    let figures: Vec<(Option<&str>, f64)> = model
        .reconstructions
        .iter()
        .map(|r| (r.regex.as_deref(), r.dev_accuracy.unwrap()))
        .collect();
    // Without prize lines 4 and 5 fall to ham (2/7); zebra changes nothing (4/7); without
    // the free rule line 0 falls to ham but lines 1–3 become ham (6/7); without the call
    // rule nothing changes, spam wins lines 1–3 anyway (4/7).
    let expected = [2.0 / 7.0, 4.0 / 7.0, 6.0 / 7.0, 4.0 / 7.0];
    for ((regex, accuracy), expected) in figures.iter().zip(expected) {
        assert_eq!(*regex, None);
        assert_close(*accuracy, expected, "dev accuracy without the pattern");
    }
    assert_eq!(figures.len(), 4);
}

#[test]
fn trained_model_without_dev_has_no_accuracies_and_can_be_cancelled() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    assert_eq!(model.dev_accuracy, None);
    assert!(
        model
            .reconstructions
            .iter()
            .all(|r| r.dev_accuracy.is_none())
    );

    let config = TrainingSettings {
        beta: 1.0,
        epochs: 0,
        ..TrainingSettings::default()
    };
    let examples = &analysis.corpus("train").unwrap().file.examples;
    let fitted = fit(
        &analysis.rules,
        examples,
        examples,
        &config,
        &ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .unwrap();
    let cancelled = TrainedNetwork::prepare(Unprepared {
        manifest: fitted.manifest,
        net: fitted.net.into(),
        vocabulary: None,
        analysis: &analysis,
        reconstruct: Some(&ReconstructConfig::default()),
        cancelled: &|| true,
    });
    assert_eq!(
        cancelled.err(),
        Some(rulelens::ide::TrainedModelError::Cancelled)
    );
}

#[test]
fn model_findings_report_patterns_the_network_overrules() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let file = &analysis.rules;
    let mut model = zero_shot_model(&analysis, &ReconstructConfig::default());

    // The zero-shot network predicts what the rules predict: spam on lines 1–3, where the
    // call rule (ham) matches but loses to the free rule. It overrules nothing, since the
    // call rule decides none of its lines.
    assert!(model.findings(&analysis).is_empty());

    // A network that says ham on lines 0–3 and spam elsewhere: it overrules the free rule
    // on the 4 lines it decides (right on lines 1–3) and the prize rule on none; the call
    // rule decides no line, so it cannot be overruled.
    let (spam, ham) = (Some(0), Some(1));
    model.train_predictions = vec![ham, ham, ham, ham, spam, spam, None];
    let findings = model.findings(&analysis);
    assert_eq!(
        findings,
        [Finding {
            code: Code::OverruledByModel,
            pattern: key(file, 2),
            message: "the trained FA-RNN overrules the `spam` rule of line 2 on 4 of the 4 \
                      train lines it decides, and is right on 3 of those"
                .to_string(),
            help: Some(
                "hover the pattern for its matches; when the network reads it back \
                 differently, the code action \"Replace with reconstructed regex\" shows \
                 what it learned"
                    .to_string()
            ),
            related: None,
        }]
    );
    let placed = place(&findings, file);
    assert_eq!(placed[0].code.as_str(), "I0504");
    assert_eq!(placed[0].range, find(RULES, "$* free $*"));
    // Two overruled lines are not enough evidence.
    model.train_predictions = vec![spam, ham, ham, spam, spam, spam, None];
    assert!(model.findings(&analysis).is_empty());
    // Predictions for another corpus than this train are ignored.
    model.train_predictions = vec![ham; 6];
    assert!(model.findings(&analysis).is_empty());
}

/// `spam: $* free $*` (line 2) is right on one of the four train lines it fires on, and on
/// one of dev's four (dev is train again): training leaves it out, and I0504 says so on its
/// pattern whatever the evidence, with the gold lines that judged it.
#[test]
fn a_rule_training_left_out_is_reported_on_its_pattern() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("dev", TRAIN)]);
    let file = &analysis.rules;
    let model = trained_model(&analysis, &ReconstructConfig::default(), 2);
    let left_out: Vec<(u32, &str, usize, usize)> = (model.manifest.rules_left_out.iter())
        .map(|rule| (rule.line, rule.label.as_str(), rule.right, rule.gold_lines))
        .collect();
    assert_eq!(left_out, [(2, "spam", 2, 8)]);
    // The network reads the rules without it: the call rule decides `free call me later`.
    let ham = model.rules.system.label_by_name("ham");
    assert_eq!(
        model.rules.system.classify("free call me later").prediction,
        ham
    );
    let findings = model.findings(&analysis);
    let finding = (findings.iter())
        .find(|finding| finding.pattern == key(file, 2))
        .unwrap_or_else(|| panic!("{findings:?}"));
    assert_eq!(finding.code, Code::OverruledByModel);
    assert!(
        finding.message.starts_with(
            "training left the `spam` rule of line 2 out of the FA-RNN: it is right on 2 of \
             the 8 gold lines it fires on, and the network overrules it on "
        ),
        "{}",
        finding.message
    );
    let placed = place(&findings, file);
    assert!(placed.iter().any(|d| d.range == find(RULES, "$* free $*")));
}

#[test]
fn a_briefly_trained_model_keeps_its_bookkeeping_consistent() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("dev", TRAIN)]);
    let model = trained_model(&analysis, &ReconstructConfig::default(), 2);
    let train = analysis.corpus("train").unwrap();
    assert_eq!(model.manifest.metrics.epochs_run, 2);
    assert_eq!(model.train_predictions.len(), train.file.examples.len());
    // Scored where a pattern decides the line: it matched, and the rules predict its label.
    let rules = &analysis.rules.rules;
    let decides = |outcome: &rulelens::ide::Outcome, def: &rulelens::syntax::PatternDef| {
        outcome
            .prediction
            .is_some_and(|label| def.labels.contains(&label))
    };
    for ((example, outcome), &predicted) in (train.file.examples.iter())
        .zip(&train.outcomes)
        .zip(&model.train_predictions)
    {
        let decided = outcome
            .matched
            .iter()
            .any(|p| decides(outcome, &rules.patterns[p.index()]));
        let scored = decided.then(|| model.scorer.score_text(&example.text).prediction());
        assert_eq!(scored, predicted, "{}", example.text);
    }
    let keys: Vec<PatternKey> = model
        .reconstructions
        .iter()
        .map(|r| r.pattern.clone())
        .collect();
    assert_eq!(
        keys,
        (0..4).map(|p| key(&analysis.rules, p)).collect::<Vec<_>>()
    );
    assert_close(
        model.dev_accuracy.unwrap(),
        4.0 / 7.0,
        "the rules' dev accuracy",
    );
    // I0504 recounted by hand from the network's predictions on the lines each decides.
    let mut expected = Vec::new();
    for (p, def) in rules.patterns.iter().enumerate() {
        let (mut decided, mut overruled) = (0, 0);
        for (outcome, &predicted) in train.outcomes.iter().zip(&model.train_predictions) {
            if outcome.matched.contains(&PatternId(p as u32)) && decides(outcome, def) {
                let predicted = predicted.expect("a decided line is scored");
                decided += 1;
                overruled += usize::from(!def.labels.iter().any(|l| l.index() == predicted));
            }
        }
        if overruled >= 3 && 2 * overruled >= decided {
            expected.push(key(&analysis.rules, p));
        }
    }
    let found: Vec<PatternKey> = model
        .findings(&analysis)
        .into_iter()
        .map(|f| f.pattern)
        .collect();
    assert_eq!(found, expected);
}

// ---------------------------------------------------------------------------------------
// TrainedPatterns: a SoPa in the editor
// ---------------------------------------------------------------------------------------

#[test]
fn a_trained_sopa_explains_lines_by_leave_one_out_and_a_rule_added_from_it_lists_its_phrases() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("dev", TEST)]);
    let patterns = trained_patterns(&analysis, "3:2,2:2", 3);
    let train = analysis.corpus("train").unwrap();
    let config = HoverConfig::default();
    let labels = patterns.scorer.system().labels();
    for example in &train.file.examples {
        let line = Line {
            text: &example.text,
            gold: None,
        };
        let held = TrainedNetwork::Patterns(patterns.clone());
        let Ok(LineView::Patterns(view)) = held.explain_line(&line, &analysis.rules, &config)
        else {
            panic!("a SoPa's view");
        };
        let explanation = patterns
            .scorer
            .explain_text(&example.text, patterns.manifest.probability_scale());
        assert_eq!(view.prediction, labels[explanation.predicted]);
        // What the hover lists is what the network loses without each pattern: the decisive
        // ones, the largest first, then the others by score.
        let mut decisive: Vec<f64> = explanation
            .contributions
            .iter()
            .map(|c| c.delta)
            .filter(|d| d.abs() >= NEGLIGIBLE)
            .collect();
        decisive.sort_by(|a, b| b.abs().total_cmp(&a.abs()));
        decisive.truncate(config.max_listed);
        let listed: Vec<f64> = view.contributions.iter().map(|c| c.delta).collect();
        assert_eq!(
            listed.len(),
            config.max_listed.min(explanation.contributions.len())
        );
        assert_eq!(listed[..decisive.len()], decisive, "{:?}", example.text);
        for pair in view.contributions[decisive.len()..].windows(2) {
            assert!(pair[0].score >= pair[1].score, "{:?}", example.text);
        }
        // Without the pattern of the largest contribution, the prediction's probability
        // drops by exactly that much.
        if let Some(top) = explanation
            .contributions
            .iter()
            .max_by(|a, b| a.delta.abs().total_cmp(&b.delta.abs()))
        {
            let reading = patterns.scorer.read_text(&example.text);
            let i = explanation
                .contributions
                .iter()
                .position(|c| c.pattern == top.pattern)
                .unwrap();
            let mut features = reading.features.clone();
            let mut truths = reading.truths.clone();
            features[i] = 0.0;
            if let rulelens::model::sopa::PatternRef::Rule(p) = top.pattern {
                truths[p] = 0.0;
            }
            let scale = patterns.manifest.probability_scale();
            let softmax = |logits: &[f32]| -> Vec<f64> {
                let max = logits.iter().copied().fold(f32::MIN, f32::max);
                let exp: Vec<f64> = logits
                    .iter()
                    .map(|&l| (scale * f64::from(l - max)).exp())
                    .collect();
                let sum: f64 = exp.iter().sum();
                exp.into_iter().map(|e| e / sum).collect()
            };
            let with = softmax(&reading.logits)[explanation.predicted];
            let without = softmax(&patterns.scorer.logits(
                &truths,
                &features,
                &reading.ngram_logits,
            ))[explanation.predicted];
            assert_close(with - without, top.delta, "a leave-one-out contribution");
        }
    }
    // Each free pattern is read back; a rule added from one shows its top phrases on hover.
    let learned = patterns
        .learned()
        .first()
        .expect("a learned pattern")
        .clone();
    let text = format!("{RULES}{}: {}\n", patterns.label(&learned), learned.regex);
    let edited = analysis_of(&text, &[("train", TRAIN), ("dev", TEST)]);
    let at = find(&text, &learned.regex).start() + TextSize::from(1);
    let figures = Figures {
        analysis: Some(&edited),
        pending: false,
        patterns: Some(&patterns),
    };
    let (_, hover) = hover_rules(&edited.rules, at, figures, &config).expect("a hover");
    let RulesHover::Pattern(pattern) = &hover else {
        panic!("{hover:?}")
    };
    assert_eq!(pattern.learned.as_ref(), Some(&learned));
    let markdown = render_rules_hover(&hover).to_markdown();
    assert!(
        markdown.contains(&format!("Learned by the SoPa as pattern {}", learned.index)),
        "{markdown}"
    );
    if !learned.top_phrases.is_empty() {
        assert!(markdown.contains("Top phrases: `"), "{markdown}");
    }
    // Under another label, the same regex is not that learned pattern.
    let other = if patterns.label(&learned) == "spam" {
        "ham"
    } else {
        "spam"
    };
    let text = format!("{RULES}{other}: {}\n", learned.regex);
    let edited = analysis_of(&text, &[("train", TRAIN)]);
    let at = find(&text, &learned.regex).start() + TextSize::from(1);
    let figures = Figures {
        analysis: Some(&edited),
        pending: false,
        patterns: Some(&patterns),
    };
    let (_, hover) = hover_rules(&edited.rules, at, figures, &config).expect("a hover");
    let RulesHover::Pattern(pattern) = hover else {
        panic!("{hover:?}")
    };
    assert_eq!(pattern.learned, None);
}

// ---------------------------------------------------------------------------------------
// Corpus-line diagnostics (I0505) and examples_in
// ---------------------------------------------------------------------------------------

#[test]
fn corpus_diagnostics_report_misclassified_lines_with_what_fired() {
    let file = rules(RULES);
    let text = "{\"label\": \"ham\", \"text\": \"free call me\"}\n\
                {\"label\": \"spam\", \"text\": \"won big\"}\n\
                {\"text\": \"free for all\"}\n\
                not json\n\
                {\"label\": \"eggs\", \"text\": \"free eggs\"}\n\
                {\"label\": \"spam\", \"text\": \"nothing here\"}\n\
                {\"label\": \"eggs\", \"text\": \"more eggs\"}\n";
    let corpus = corpus("c", Format::Jsonl, text);
    let diagnostics = corpus_diagnostics(&corpus, &file, 1000);
    let summary: Vec<(&str, TextRange)> = diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.range))
        .collect();
    assert_eq!(
        summary,
        [
            // The text of a JSON line, where it stands verbatim.
            ("I0505", find(text, "free call me")),
            // Where serde stopped reading: the `o` of `not`.
            (
                "E0404",
                TextRange::at(find(text, "not json").start() + TextSize::from(1), 1.into())
            ),
            // Reported once, at the label's first use.
            ("W0405", find_nth(text, "eggs", 0)),
            ("I0505", find(text, "nothing here")),
        ]
    );
    assert_eq!(
        diagnostics[0].message,
        "gold `ham`, rules predict `spam` (fired: the `spam` rule of line 2, the `ham` rule of \
         line 5)"
    );
    assert_eq!(
        diagnostics[0].help.as_deref(),
        Some(
            "hover the line for why the gold label's patterns missed it and the network's view; \"Widen\" and \"Add rule for this line\" propose edits"
        )
    );
    assert_eq!(
        diagnostics[2].message,
        "label `eggs` (2 examples) has no rule and is not the default: the rules can never \
         predict it"
    );
    assert_eq!(
        diagnostics[3].message,
        "gold `spam`, rules predict `ham` (no rule fired)"
    );

    // The cap counts misclassified lines only, in file order.
    let capped: Vec<&str> = corpus_diagnostics(&corpus, &file, 1)
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(capped, ["I0505", "E0404", "W0405"]);
    let none: Vec<&str> = corpus_diagnostics(&corpus, &file, 0)
        .iter()
        .map(|d| d.code.as_str())
        .collect();
    assert_eq!(none, ["E0404", "W0405"]);
}

#[test]
fn lines_diagnostics_say_nothing_when_no_rule_fires_and_there_is_no_default() {
    let file = rules("spam: $* free $*\nham: $* call $*\n");
    let text = "spam\thello there\nham\tcall free\nspam\tfree\n";
    let (examples, read) = parse(text, Format::Tsv, &[]);
    assert!(read.is_empty());
    let reader = Diagnostic::new(
        Code::MalformedLine,
        TextRange::empty(TextSize::from(0)),
        "from the reader",
    );
    let diagnostics = lines_diagnostics(&examples, std::slice::from_ref(&reader), &file, 10);
    let summary: Vec<(&str, TextRange, &str)> = diagnostics
        .iter()
        .map(|d| (d.code.as_str(), d.range, d.message.as_str()))
        .collect();
    assert_eq!(
        summary,
        [
            ("E0404", reader.range, "from the reader"),
            (
                "I0505",
                find(text, "hello there"),
                "gold `spam`, rules predict `nothing` (no rule fired)"
            ),
            (
                "I0505",
                find(text, "call free"),
                "gold `ham`, rules predict `spam` (fired: the `spam` rule of line 1, the `ham` \
                 rule of line 2)"
            ),
        ]
    );
}

#[test]
fn examples_in_parses_only_the_lines_a_range_touches() {
    let text = "spam\tfree prize\nham\tcall me\n\nunlabeled words\nspam\twin\n";
    let index = LineIndex::new(text);
    // From inside line 1 to inside line 3: lines 1, 2 (blank) and 3.
    let range = TextRange::new(
        find(text, "me").start(),
        find(text, "words").start() + TextSize::from(2),
    );
    let examples = examples_in(text, &index, Format::Tsv, range);
    assert_eq!(
        examples,
        [
            Example {
                text: "call me".into(),
                label: Some("ham".into()),
                line: 1,
                text_range: Some(find(text, "call me")),
                label_range: Some(find(text, "ham")),
            },
            Example {
                text: "unlabeled words".into(),
                label: None,
                line: 3,
                text_range: Some(find(text, "unlabeled words")),
                label_range: None,
            },
        ]
    );
    // Every example agrees with a parse of the whole text.
    let (all, _) = parse(text, Format::Tsv, &[]);
    let whole = TextRange::up_to(TextSize::of(text));
    assert_eq!(examples_in(text, &index, Format::Tsv, whole), all);
    // An empty range at the end of the last line.
    let last = examples_in(
        text,
        &index,
        Format::Tsv,
        TextRange::empty(find(text, "win").end()),
    );
    assert_eq!(last.len(), 1);
    assert_eq!((last[0].line, last[0].text.as_str()), (4, "win"));

    let jsonl = "{\"text\": \"a\"}\n{\"label\": \"spam\", \"text\": \"free\"}\n";
    let index = LineIndex::new(jsonl);
    let examples = examples_in(
        jsonl,
        &index,
        Format::Jsonl,
        TextRange::empty(find(jsonl, "free").start()),
    );
    assert_eq!(examples.len(), 1);
    assert_eq!(examples[0].line, 1);
    assert_eq!(examples[0].label_range, Some(find(jsonl, "spam")));
    assert_eq!(examples[0].text_range, Some(find(jsonl, "free")));
}

// ---------------------------------------------------------------------------------------
// Code actions
// ---------------------------------------------------------------------------------------

/// Applies an action's edit, checks it is the minimal edit for its result and that the
/// result parses without errors, and returns the result.
fn applied(text: &str, action: &Action) -> String {
    let new = apply(text, std::slice::from_ref(&action.edit));
    assert_eq!(minimal_edit(text, &new), action.edit, "{}", action.title);
    let file = rules(&new);
    let errors: Vec<&Diagnostic> = file.diagnostics.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{new}\n{errors:?}");
    new
}

const ANY_SENTENCE: &str = "pattern any_sentence = $*    # every sentence: `!any_sentence` stands \
                            for a pattern that reads back as nothing";

#[test]
fn disabling_comments_out_an_anonymous_rule_and_rewrites_a_named_pattern() {
    let file = rules(RULES);
    // Only the patterns whose statements the range touches: the free rule (line 2).
    let line_2 = find(RULES, "spam: $* free $*");
    let actions = rules_actions(&file, TextRange::empty(line_2.start()), None);
    assert_eq!(actions.len(), 1);
    assert_eq!(actions[0].title, "Disable the `spam` rule of line 2");
    assert_eq!(actions[0].kind, ActionKind::RefactorRewrite);
    assert_eq!(
        actions[0].edit,
        TextEdit {
            range: TextRange::empty(line_2.start()),
            new_text: "# disabled: ".into(),
        }
    );
    let disabled = rules(&applied(RULES, &actions[0]));
    assert_eq!(disabled.system.labels(), ["spam", "ham"]);
    assert_eq!(
        disabled.system.classify("free stuff").prediction,
        disabled.system.label_by_name("ham")
    );

    // `prize`: the definition commented out, its use replaced by a false formula.
    let line_3 = find(RULES, "pattern prize = $* ( won | win ) $*");
    let actions = rules_actions(&file, line_3, None);
    let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
    assert_eq!(titles, ["Disable `prize`"]);
    let new = applied(RULES, &actions[0]);
    assert_eq!(
        new,
        format!(
            "default ham\n\
             spam: $* free $*\n\
             {ANY_SENTENCE}\n\
             # `prize` reads back as nothing: no sentence matches it.\n\
             # pattern prize = $* ( won | win ) $*\n\
             spam <- !any_sentence\n\
             ham: $* call $*\n\
             pattern zebra = $* zebra $*\n\
             ham <- zebra\n"
        )
    );
    // The edit starts after the common `pattern ` and ends before the common `e\n…`.
    assert_eq!(
        actions[0].edit.range,
        TextRange::new(
            line_3.start() + TextSize::from(8),
            find(RULES, "prize\nham").start() + TextSize::from(4)
        )
    );
    let rewritten = rules(&new);
    assert_eq!(rewritten.system.labels(), ["spam", "ham"]);
    assert_eq!(
        rewritten.system.classify("you won").prediction,
        rewritten.system.label_by_name("ham")
    );
    assert_eq!(
        rewritten.system.classify("free").prediction,
        rewritten.system.label_by_name("spam")
    );

    // A range over everything: one action per pattern, in the rule set's order.
    let all = rules_actions(&file, TextRange::up_to(TextSize::of(RULES)), None);
    let titles: Vec<&str> = all.iter().map(|a| a.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "Disable `prize`",
            "Disable `zebra`",
            "Disable the `spam` rule of line 2",
            "Disable the `ham` rule of line 5"
        ]
    );
}

#[test]
fn disabling_a_rule_whose_label_would_lose_its_priority_rewrites_it() {
    // Commenting out line 2 would put ham (line 3) before spam (line 4).
    let text = "default ham\nspam: $* free $*\nham: $* call $*\nspam: $* win $*\n";
    let file = rules(text);
    let actions = rules_actions(&file, find(text, "free"), None);
    assert_eq!(actions.len(), 1);
    let new = applied(text, &actions[0]);
    assert_eq!(
        new,
        format!(
            "default ham\n{ANY_SENTENCE}\nspam <- !any_sentence\nham: $* call $*\nspam: $* win $*\n"
        )
    );
    let disabled = rules(&new);
    assert_eq!(disabled.system.labels(), ["spam", "ham"]);
    assert_eq!(
        disabled.system.classify("free call win").prediction,
        disabled.system.label_by_name("spam")
    );
    assert_eq!(
        disabled.system.classify("free call").prediction,
        disabled.system.label_by_name("ham")
    );

    // A label's only rule: commenting it out removes the label, which keeps the others'
    // order.
    let text = "default ham\nspam: $* free $*\n";
    let actions = rules_actions(&rules(text), find(text, "free"), None);
    assert_eq!(
        applied(text, &actions[0]),
        "default ham\n# disabled: spam: $* free $*\n"
    );
}

#[test]
fn replacing_with_the_reconstructed_regex_gives_the_dev_accuracies() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("dev", TRAIN)]);
    let file = &analysis.rules;
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    let line_3 = find(RULES, "pattern prize");
    let actions = rules_actions(file, line_3, Some(&model));
    let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
    // The alternation reads back sorted, `$* ( win | won ) $*`: the same language written
    // otherwise, which would change nothing, so only disabling is offered.
    assert_eq!(titles, ["Disable `prize`"]);
    assert!(model.reconstructions[1].same_language);
    // A pattern that reads back exactly as written has nothing to replace.
    let actions = rules_actions(file, find(RULES, "$* free $*"), Some(&model));
    let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
    assert_eq!(titles, ["Disable the `spam` rule of line 2"]);

    // Read back at a threshold nothing passes, each pattern is replaced by nothing. For
    // `prize` that lowers dev accuracy (57.1 % → 28.6 %), so it is not offered.
    let empty = zero_shot_model(
        &analysis,
        &ReconstructConfig {
            threshold: 1.5,
            ..ReconstructConfig::default()
        },
    );
    let actions = rules_actions(file, line_3, Some(&empty));
    let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
    assert_eq!(titles, ["Disable `prize`"]);
    let actions = rules_actions(file, find(RULES, "$* free $*"), Some(&empty));
    assert_eq!(
        actions[0].title,
        "Replace the `spam` rule of line 2 with reconstructed regex nothing (dev accuracy 57.1% \
         → 85.7%, +28.6)"
    );
    assert_eq!(
        applied(RULES, &actions[0]),
        format!(
            "default ham\n{ANY_SENTENCE}\nspam <- !any_sentence\n{}",
            &RULES["default ham\nspam: $* free $*\n".len()..]
        )
    );
    assert_eq!(actions[0].kind, ActionKind::RefactorRewrite);
    assert_ne!(actions[0].edit, actions[1].edit);

    // An anonymous rule edited since the network was trained has no reconstruction.
    let edited_text = RULES.replace("$* free $*", "$* freebie $*");
    let edited = rules(&edited_text);
    let titles: Vec<String> = rules_actions(&edited, find(&edited_text, "freebie"), Some(&empty))
        .into_iter()
        .map(|a| a.title)
        .collect();
    assert_eq!(titles, ["Disable the `spam` rule of line 2"]);
}

/// `rules_actions` promises that a pattern edited since the saved rules has no
/// reconstruction, but a named pattern is known by its name alone, so after its regex is
/// edited the action still offers the old pattern's reconstruction, with the old rules'
/// dev accuracies. (The language server passes the model whatever the text.)
#[test]
fn a_named_pattern_edited_since_training_has_no_reconstruction() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("dev", TRAIN)]);
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    let edited_text = RULES.replace("( won | win )", "( cash | prize )");
    let edited = rules(&edited_text);
    let titles: Vec<String> =
        rules_actions(&edited, find(&edited_text, "pattern prize"), Some(&model))
            .into_iter()
            .map(|a| a.title)
            .collect();
    assert_eq!(titles, ["Disable `prize`"]);
}

#[test]
fn add_rule_for_a_line_picks_the_n_gram_the_train_corpus_ties_to_its_gold_label() {
    let text = "default ham\nspam: $* free $*\n";
    // `cash`: 3 spam lines, 1 ham line; `today`: 1 spam line (too few); `get`: none.
    let train = "spam\tfree cash now\nspam\tclaim your cash\nspam\tcash prize today\n\
                 ham\tcash register broke\nham\tsee you soon\n";
    let analysis = analysis_of(text, &[("train", train)]);
    let line = Example {
        text: "get cash today".into(),
        label: Some("spam".into()),
        line: 0,
        text_range: None,
        label_range: None,
    };
    let actions = line_actions(&line, &analysis.rules, Some(&analysis), None);
    assert_eq!(actions.len(), 1);
    assert_eq!(
        actions[0].title,
        "Add rule `spam: $* cash $*` (train: 4 lines, 75.0% spam)"
    );
    assert_eq!(actions[0].kind, ActionKind::QuickFix);
    // After the label's last rule: here, at the end.
    assert_eq!(
        actions[0].edit,
        TextEdit {
            range: TextRange::empty(TextSize::of(text)),
            new_text: "spam: $* cash $*\n".into(),
        }
    );
    let fixed = rules(&applied(text, &actions[0]));
    assert_eq!(
        fixed.system.classify(&line.text).prediction,
        fixed.system.label_by_name("spam")
    );

    // Without train counts or a network there is nothing to go on; a line the rules get
    // right or without a label needs nothing.
    assert!(line_actions(&line, &analysis.rules, None, None).is_empty());
    let right = Example {
        text: "free cash".into(),
        ..line.clone()
    };
    assert!(line_actions(&right, &analysis.rules, Some(&analysis), None).is_empty());
    let unlabeled = Example {
        label: None,
        ..line.clone()
    };
    assert!(line_actions(&unlabeled, &analysis.rules, Some(&analysis), None).is_empty());

    // A rule goes after its label's last rule, not at the end, and the punctuation-only
    // n-gram `!` is never a candidate.
    let text = "default ham\nspam: $* free $*\nham: $* call $*\n";
    let analysis = analysis_of(text, &[("train", train)]);
    let line = Example {
        text: "cash !".into(),
        ..line
    };
    let actions = line_actions(&line, &analysis.rules, Some(&analysis), None);
    assert_eq!(actions.len(), 1);
    assert_eq!(
        applied(text, &actions[0]),
        "default ham\nspam: $* free $*\nspam: $* cash $*\nham: $* call $*\n"
    );
}

#[test]
fn add_rule_for_a_line_follows_the_network_polarity_and_says_when_it_cannot_fix_the_line() {
    // ham outranks spam: `free call` is ham by the rules, spam by gold.
    let text = "default ham\nham: $* call $*\nspam: $* free $*\n";
    let analysis = analysis_of(text, &[("train", "spam\tfree\nham\tcall\n")]);
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    let line = Example {
        text: "free call".into(),
        label: Some("spam".into()),
        line: 0,
        text_range: None,
        label_range: None,
    };
    // P(spam) is softmax10([1.02, 1.01])[1] = 0.475 (ham comes first); deleting `free` makes
    // it softmax10([1.02, 0])[1] ≈ 0, deleting `free call` softmax10([0.5, 0])[1] = 0.007,
    // and deleting `call` raises it. The train corpus has `free` once, as spam, and `free
    // call` never, so `free` would win, but the file has `spam: $* free $*` already (it
    // fired, and lost to ham): `free call` is next.
    let actions = line_actions(&line, &analysis.rules, Some(&analysis), Some(&model));
    assert_eq!(actions.len(), 1);
    assert_eq!(
        actions[0].title,
        "Add rule `spam: $* free call $*` (FA-RNN +0.47 toward spam; train: 0 lines, – spam; \
         a higher-priority label still wins here)"
    );
    assert_eq!(
        applied(text, &actions[0]),
        "default ham\nham: $* call $*\nspam: $* free $*\nspam: $* free call $*\n"
    );
    // Without the analysis: the network's reason only.
    let actions = line_actions(&line, &analysis.rules, None, Some(&model));
    assert_eq!(
        actions[0].title,
        "Add rule `spam: $* free call $*` (FA-RNN +0.47 toward spam; a higher-priority \
         label still wins here)"
    );
}

#[test]
fn widen_for_a_line_rewrites_the_closest_gold_rule_so_that_it_matches_the_line() {
    let text = "default ham\nspam: $* lucky $* draw $*\nspam: $* won $* prize $*    # a prize\n";
    let train = "spam\tyou won a prize today\nspam\tyou won a voucher\nspam\twe won the voucher now\n\
                 spam\ti won this voucher !\nspam\tu won voucher\nham\ta voucher for lunch\n\
                 ham\twe won the game\nham\tsee you\n";
    let dev = "spam\tthey won a voucher\nham\twon the match\n";
    let analysis = analysis_of(text, &[("train", train), ("dev", dev)]);
    let line = Example {
        text: "they WON a voucher".into(),
        label: Some("spam".into()),
        line: 0,
        text_range: None,
        label_range: None,
    };
    let actions = line_actions(&line, &analysis.rules, Some(&analysis), None);
    let titles: Vec<&str> = actions.iter().map(|a| a.title.as_str()).collect();
    // `$* won $* prize $*` misses `prize` alone, after a gap holding `a` and `voucher`:
    // `voucher` fixes the four voucher lines of train, and the dev line.
    let widen = actions
        .iter()
        .find(|a| a.title.starts_with("Widen"))
        .unwrap_or_else(|| panic!("{titles:?}"));
    assert_eq!(
        widen.title,
        "Widen `spam: $* won $* ( prize | voucher ) $*` (fixes 4 train lines, breaks 0; \
         dev 50.0 → 100.0 %)"
    );
    assert_eq!(widen.kind, ActionKind::QuickFix);
    assert_eq!(
        widen.edit,
        TextEdit {
            range: TextRange::at(
                TextSize::of("default ham\nspam: $* lucky $* draw $*\nspam: $* won $* "),
                TextSize::of("prize")
            ),
            new_text: "( prize | voucher )".into(),
        }
    );
    let widened = rules(&applied(text, widen));
    assert!(widened.system.classify(&line.text).matched[1]);

    // A line no one widening makes a gold rule match, a line the rules get right, and a
    // project without a train corpus: no widening.
    let far = Example {
        text: "free entry now".into(),
        ..line.clone()
    };
    let offered = |example: &Example, analysis| {
        line_actions(example, &rules(text), analysis, None)
            .into_iter()
            .any(|a| a.title.starts_with("Widen"))
    };
    assert!(!offered(&far, Some(&analysis)));
    let right = Example {
        text: "you won a prize".into(),
        ..line.clone()
    };
    assert!(!offered(&right, Some(&analysis)));
    let dev_only = analysis_of(text, &[("dev", dev)]);
    assert!(!offered(&line, Some(&dev_only)));
    // Without a dev corpus, the title has the train evidence only; with a higher-priority
    // label winning the line after the edit, it says so.
    let train_only = analysis_of(text, &[("train", train)]);
    let actions = line_actions(&line, &train_only.rules, Some(&train_only), None);
    assert!(
        actions.iter().any(|a| a.title
            == "Widen `spam: $* won $* ( prize | voucher ) $*` (fixes 4 train lines, breaks 0)"),
        "{:?}",
        actions.iter().map(|a| &a.title).collect::<Vec<_>>()
    );
    let outranked = "default ham\nham: $* they $*\nspam: $* won $* prize $*\n";
    let analysis = analysis_of(outranked, &[("train", train)]);
    let actions = line_actions(&line, &analysis.rules, Some(&analysis), None);
    let widen = actions
        .iter()
        .find(|a| a.title.starts_with("Widen"))
        .unwrap();
    assert!(
        widen
            .title
            .ends_with("; a higher-priority label still wins here)"),
        "{}",
        widen.title
    );
}

#[test]
fn minimal_edit_keeps_the_common_prefix_and_suffix_on_char_boundaries() {
    let check = |old: &str, new: &str, range: (u32, u32), text: &str| {
        let edit = minimal_edit(old, new);
        assert_eq!(
            edit,
            TextEdit {
                range: TextRange::new(range.0.into(), range.1.into()),
                new_text: text.into(),
            },
            "{old:?} → {new:?}"
        );
        assert_eq!(apply(old, &[edit]), new);
    };
    check("abc", "abc", (3, 3), "");
    check("", "xy", (0, 0), "xy");
    check("abc", "", (0, 3), "");
    check("aXc", "aYc", (1, 2), "Y");
    // Prefix and suffix may not overlap: `aa` → `aaa` inserts one `a` at the end of the
    // prefix.
    check("aa", "aaa", (2, 2), "a");
    // `é` (c3 a9) and `è` (c3 a8) share a first byte, which is not a char boundary.
    check("é", "è", (0, 2), "è");
    check("xéy", "xèy", (1, 3), "è");
}

// ---------------------------------------------------------------------------------------
// Code lenses and inlay hints
// ---------------------------------------------------------------------------------------

#[test]
fn pattern_lenses_give_each_pattern_its_figures_on_every_corpus() {
    let analysis = analysis_of(RULES, &[("train", TRAIN), ("test", TEST)]);
    let mut lenses = pattern_lenses(&analysis.rules, &analysis);
    lenses.sort_by_key(|l| l.range.start());
    let line = |text: &str| find(RULES, text);
    assert_eq!(
        lenses,
        [
            Lens {
                range: line("spam: $* free $*"),
                title: "train 4 matches · 57.1% coverage · 25% precision  |  \
                        test 1 match · 33.3% coverage · 100% precision"
                    .into(),
            },
            Lens {
                range: line("pattern prize = $* ( won | win ) $*"),
                title: "train 2 matches · 28.6% coverage · 100% precision  |  \
                        test 1 match · 33.3% coverage · 100% precision"
                    .into(),
            },
            Lens {
                range: line("ham: $* call $*"),
                title: "train 3 matches · 42.9% coverage · 100% precision  |  \
                        test 1 match · 33.3% coverage · 100% precision"
                    .into(),
            },
            Lens {
                range: line("pattern zebra = $* zebra $*"),
                title: "train 0 matches · 0.0% coverage · – precision  |  \
                        test 0 matches · 0.0% coverage · – precision"
                    .into(),
            },
        ]
    );

    // On the text being edited: an edited anonymous rule has no lens, the others move.
    let edited_text = format!("\n{}", RULES.replace("$* call $*", "$* calls $*"));
    let edited = pattern_lenses(&rules(&edited_text), &analysis);
    let ranges: Vec<TextRange> = edited.iter().map(|l| l.range).collect();
    assert_eq!(ranges.len(), 3);
    assert!(ranges.contains(&find(&edited_text, "spam: $* free $*")));
    assert!(!ranges.contains(&find(&edited_text, "ham: $* calls $*")));
    // No corpus, no lens.
    let bare = analysis_of(RULES, &[]);
    assert!(pattern_lenses(&bare.rules, &bare).is_empty());
}

/// `pattern_lenses` promises "one lens per pattern …, in file order", but the rule set keeps
/// named patterns before anonymous rules, so a `LABEL: REGEX` rule written before a
/// `pattern` statement gets its lens after it.
#[test]
fn pattern_lenses_are_in_file_order() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let lenses = pattern_lenses(&analysis.rules, &analysis);
    let starts: Vec<TextSize> = lenses.iter().map(|l| l.range.start()).collect();
    let mut sorted = starts.clone();
    sorted.sort();
    assert_eq!(starts, sorted);
}

#[test]
fn line_hints_show_the_rules_and_network_predictions_at_each_line_end() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    let index = LineIndex::new(TRAIN);
    // Lines 0 and 1.
    let range = TextRange::new(find(TRAIN, "prize").start(), find(TRAIN, "call").start());
    let hints = line_hints(TRAIN, &index, Format::Tsv, range, &analysis.rules, None);
    assert_eq!(
        hints,
        [
            InlayHint {
                offset: find(TRAIN, "free prize inside").end(),
                label: "rules: spam".into(),
                tooltip: None,
            },
            InlayHint {
                offset: find(TRAIN, "free call me later").end(),
                label: "rules: spam ✗".into(),
                tooltip: None,
            },
        ]
    );

    // With the network: spam only (1.02 against the default's 0.5), both (1.02 vs 1.01),
    // and the default only (0 vs 0.5).
    let range = TextRange::up_to(TextSize::of(TRAIN));
    let hints = line_hints(
        TRAIN,
        &index,
        Format::Tsv,
        range,
        &analysis.rules,
        Some(&model),
    );
    assert_eq!(hints.len(), 7);
    let spam_only = softmax10(&[1.02, 0.5]);
    let both = softmax10(&[1.02, 1.01]);
    let default_only = softmax10(&[0.0, 0.5]);
    let expected = [
        (
            0,
            format!("rules: spam · FA-RNN: spam {:.2}", spam_only[0]),
            spam_only,
        ),
        (
            1,
            format!("rules: spam ✗ · FA-RNN: spam {:.2} ✗", both[0]),
            both.clone(),
        ),
        (
            6,
            format!("rules: ham · FA-RNN: ham {:.2}", default_only[1]),
            default_only,
        ),
    ];
    for (line, label, probabilities) in expected {
        let hint = &hints[line];
        assert_eq!(hint.label, label);
        assert_eq!(hint.offset, index.line_range(line as u32).unwrap().end());
        assert_eq!(
            hint.tooltip.as_deref(),
            Some(format!("spam {:.3}, ham {:.3}", probabilities[0], probabilities[1]).as_str())
        );
    }
    assert_eq!(hints[0].label, "rules: spam · FA-RNN: spam 0.99");
    assert_eq!(hints[1].label, "rules: spam ✗ · FA-RNN: spam 0.52 ✗");
}

// ---------------------------------------------------------------------------------------
// Occlusions of the zero-shot network are what the rules say
// ---------------------------------------------------------------------------------------

/// Patterns: 0 `a` = `$* free $*`, 1 `b` = `call $* now` (anchored at both ends),
/// 2 `c` = `$* ( win | won ) % $*`, 3 `d` = `$* "!" "!" $*`, 4 `e` = `hi $? there`,
/// 5 the spam rule `$* cash $*`, 6 the ham rule `$* x{2,3} $*`.
/// Labels: spam = `a & !b | c` plus the cash rule, ham = `b | e | d` plus the x rule.
const EXACT_RULES: &str = "default other
pattern a = $* free $*
pattern b = call $* now
pattern c = $* ( win | won ) % $*
pattern d = $* \"!\" \"!\" $*
pattern e = hi $? there
spam <- a & !b | c
spam: $* cash $*
ham <- b | e | d
ham: $* x{2,3} $*
";

const EXACT_SENTENCES: &[&str] = &[
    "call me now !! free win 100 cash",
    "hi you there x x x x",
    "won 5 free won 6,000 call now",
    "hi there ! ! x x",
    "Free FREE cash? win it now!",
    "call now",
    "nothing to see",
    "",
];

fn exact_network(system: &RuleSystem, scoring: Scoring) -> FaRnn {
    let automaton = WeightedAutomaton::new(system);
    let exact = decompose::exact(&automaton);
    assert!(exact.relative_error < 1e-6, "{}", exact.relative_error);
    FaRnn::new(system, &automaton, &exact, None, scoring, &Device::Cpu).unwrap()
}

/// `text` without the bytes of `range`, a space in their place.
fn cut(text: &str, range: TextRange) -> String {
    format!(
        "{} {}",
        &text[..usize::from(range.start())],
        &text[usize::from(range.end())..]
    )
}

/// For every span of every sentence up to `max_len` tokens, deleted: each pattern's score
/// in each direction is 1 when the pattern matches the sentence without the span and 0
/// otherwise, the prediction is the rules' on it, and the scores are those of the sentence
/// without the span re-scored from its text; the n-grams' contributions toward each label are
/// the probabilities of those re-scored sentences subtracted from the sentence's own; and each
/// pattern's best span is its shortest, then earliest, span whose deletion unmatches it.
fn check_occlusions_are_exact(file: &RulesFile, net: &dyn Network, max_len: usize) {
    let system = &file.system;
    let scorer = FaRnnScorer::new(net, system, None, MAX_TOKENS).unwrap();
    let n_patterns = system.patterns().len();
    let mut n_unmatching_deletions = 0;
    for &sentence in EXACT_SENTENCES {
        let tokens = tokenize(sentence);
        let occlusions = scorer.occlusions(sentence, max_len);
        assert_eq!(
            (occlusions.n_tokens, occlusions.max_len),
            (tokens.len(), max_len)
        );
        assert_eq!(occlusions.scores, scorer.score_text(sentence));
        let matched = system.classify(sentence).matched;
        let mut best: Vec<Option<std::ops::Range<usize>>> = vec![None; n_patterns];
        let listed: Vec<Vec<rulelens::explain::Ngram>> = (0..system.labels().len())
            .map(|c| ngrams(sentence, &occlusions, c, 10.0))
            .collect();
        let mut spans = occlusions.spans();
        let mut i = 0;
        for start in 0..tokens.len() {
            for len in 1..=max_len.min(tokens.len() - start) {
                let range = TextRange::new(
                    tokens.get(start).unwrap().range.start(),
                    tokens.get(start + len - 1).unwrap().range.end(),
                );
                let without_text = cut(sentence, range);
                let kept: Vec<&str> = tokens
                    .iter()
                    .enumerate()
                    .filter(|(t, _)| !(start..start + len).contains(t))
                    .map(|(_, token)| token.text)
                    .collect();
                let retokenized = tokenize(&without_text);
                let retokenized: Vec<&str> = retokenized.iter().map(|t| t.text).collect();
                assert_eq!(retokenized, kept, "{sentence:?} without {start}+{len}");
                let rules = system.classify(&without_text);
                let without = occlusions.without(start, len).unwrap();
                let (span, scores) = spans.next().expect("a span");
                assert_eq!((span, scores), (start..start + len, without));
                for direction in &without.pattern_scores {
                    for p in 0..n_patterns {
                        let expected = f32::from(u8::from(rules.matched[p]));
                        assert!(
                            (direction[p] - expected).abs() < 1e-4,
                            "{without_text:?}, pattern {}: {} vs {expected}",
                            system.patterns()[p].name,
                            direction[p]
                        );
                        if matched[p] && !rules.matched[p] {
                            n_unmatching_deletions += 1;
                            if best[p].as_ref().is_none_or(|b| b.len() > len) {
                                best[p] = Some(start..start + len);
                            }
                        }
                    }
                }
                assert_eq!(
                    Some(without.prediction()),
                    rules.prediction.map(|l| l.index()),
                    "{without_text:?}"
                );
                let rescored = scorer.score_text(&without_text);
                for (a, b) in without.logits.iter().zip(&rescored.logits) {
                    assert!((a - b).abs() < 1e-5, "{without_text:?}");
                }
                let (p_with, p_without) = (
                    occlusions.scores.probabilities(10.0),
                    rescored.probabilities(10.0),
                );
                for (c, listed) in listed.iter().enumerate() {
                    let ngram = &listed[i];
                    assert_eq!(
                        (ngram.tokens.clone(), ngram.range),
                        (start..start + len, range)
                    );
                    assert_close(ngram.without, p_without[c], &without_text);
                    assert_close(ngram.contribution, p_with[c] - p_without[c], &without_text);
                }
                i += 1;
            }
        }
        assert!(spans.next().is_none() && listed.iter().all(|l| l.len() == i));
        assert!(occlusions.without(0, max_len + 1).is_none());
        assert!(occlusions.without(tokens.len(), 1).is_none());
        for (p, expected) in best.iter().enumerate() {
            let found = best_span(&occlusions, p);
            assert_eq!(
                found.as_ref().map(|(tokens, _)| tokens.clone()),
                *expected,
                "{sentence:?}, best span of {}",
                system.patterns()[p].name
            );
            if let Some((_, drop)) = found {
                assert!((drop - 1.0).abs() < 1e-4);
            }
        }
    }
    assert!(n_unmatching_deletions > 0);
}

#[test]
fn zero_shot_occlusions_are_what_the_rules_say_about_each_deletion() {
    let file = rules(EXACT_RULES);
    assert!(
        file.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        file.diagnostics
    );
    let names: Vec<&str> = file
        .rules
        .patterns
        .iter()
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(names, ["a", "b", "c", "d", "e", "spam@8", "ham@10"]);
    assert_eq!(file.system.labels(), ["spam", "ham", "other"]);
    let net = exact_network(&file.system, Scoring::Forward);
    check_occlusions_are_exact(&file, &net, 8);
    // Deletions cut at a shorter length are the same numbers.
    let scorer = FaRnnScorer::new(&net, &file.system, None, MAX_TOKENS).unwrap();
    let (long, short) = (
        scorer.occlusions(EXACT_SENTENCES[0], 8),
        scorer.occlusions(EXACT_SENTENCES[0], 2),
    );
    for start in 0..long.n_tokens {
        for len in 1..=2 {
            assert_eq!(long.without(start, len), short.without(start, len));
        }
    }
    // On a deterministic automaton the best path is the only path: Viterbi agrees.
    let viterbi = exact_network(&file.system, Scoring::Viterbi);
    check_occlusions_are_exact(&file, &viterbi, 8);
}

#[test]
fn zero_shot_bidirectional_occlusions_are_exact_too() {
    let file = rules(EXACT_RULES);
    let (reversed, too_large) = compile_reversed(&file.rules, &file.system, &Default::default());
    assert!(too_large.is_empty());
    let net = BiFaRnn {
        forward: exact_network(&file.system, Scoring::Forward),
        backward: exact_network(&reversed, Scoring::Forward),
    };
    check_occlusions_are_exact(&file, &net, 8);
}

#[test]
fn add_rule_spells_punctuation_and_keywords_so_that_the_rule_parses_and_fixes_the_line() {
    let text = "default ham\nspam: $* free $*\n";
    // `zzz` is in three ham lines and two spam lines, the token (or, punctuation never being
    // a candidate alone, `zzz` and the token) in the two spam lines only.
    for (token, rule) in [
        ("\"", r#"spam: $* zzz "\"" $*"#),
        ("\\", r#"spam: $* zzz "\\" $*"#),
        ("#", r##"spam: $* zzz "#" $*"##),
        ("|", r#"spam: $* zzz "|" $*"#),
        ("$", r#"spam: $* zzz "$" $*"#),
        ("pattern", "spam: $* pattern $*"),
        ("6,000", "spam: $* 6,000 $*"),
        ("DON'T", "spam: $* don't $*"),
    ] {
        let line = format!("zzz {token}");
        let train = format!("spam\t{line}\nspam\t{line} yy\nham\tzzz\nham\tzzz\nham\tzzz\n");
        let analysis = analysis_of(text, &[("train", &train)]);
        let example = Example {
            text: line.clone(),
            label: Some("spam".into()),
            line: 0,
            text_range: None,
            label_range: None,
        };
        let actions = line_actions(&example, &analysis.rules, Some(&analysis), None);
        assert_eq!(actions.len(), 1, "{token:?}");
        assert_eq!(
            actions[0].title,
            format!("Add rule `{rule}` (train: 2 lines, 100.0% spam)")
        );
        let fixed = rules(&applied(text, &actions[0]));
        assert_eq!(
            fixed.system.classify(&line).prediction,
            fixed.system.label_by_name("spam"),
            "{token:?}"
        );
        assert_eq!(
            fixed.system.classify("zzz").prediction,
            fixed.system.label_by_name("ham")
        );
    }
}

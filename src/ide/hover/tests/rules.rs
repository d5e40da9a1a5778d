//! The hovers over a rules file: patterns (figures, matches, a save in progress, edits
//! since the save) and labels.

use super::*;

const THREE_LINES: &str = "spam\tfree prize inside\nham\tfree call me later\nham\tsee you soon\n";

/// The rules of `with_cursor` analyzed on `THREE_LINES`, and the hover at `$0` rendered as
/// the editor shows it.
fn rules_hover_at(with_cursor: &str, pending: bool) -> String {
    let (file, at) = fixture(with_cursor);
    let analysis = analysis_of(&file.source.text, &[("train", THREE_LINES)]);
    let figures = Figures {
        analysis: Some(&analysis),
        pending,
        patterns: None,
    };
    let (_, hover) =
        hover_rules(&analysis.rules, at, figures, &HoverConfig::default()).expect("a hover");
    render_rules_hover(&hover)
}

#[test]
fn a_pattern_hover_during_a_save_shows_the_previous_figures_marked_as_such() {
    let rules = "default ham\nspam: $* fr$0ee $*\n";
    let settled = rules_hover_at(rules, false);
    let pending = rules_hover_at(rules, true);
    assert!(!settled.contains("being computed"), "{settled}");
    assert_eq!(
        pending.replace(
            "\n_Figures of the previous save; this save's are being computed._\n",
            ""
        ),
        settled,
    );
    insta::assert_snapshot!(pending, @r"
    **pattern** the `spam` rule of line 2 → spam · 2 DFA states

    ```rules
    $* free $*
    ```

    _Figures of the previous save; this save's are being computed._

    | corpus | matches | coverage | precision | recall |
    | --- | ---: | ---: | ---: | ---: |
    | train | 2 | 66.7% | 50.0% | 100.0% |

    - ✓ train:1 (spam) **free** prize inside
    - ✗ train:2 (ham) **free** call me later
    ");
}

fn rules_hover(
    file: &RulesFile,
    at: TextSize,
    analysis: Option<&RulesAnalysis>,
    config: &HoverConfig,
) -> (TextRange, RulesHover) {
    let figures = Figures {
        analysis,
        pending: false,
        patterns: None,
    };
    hover_rules(file, at, figures, config).expect("a hover")
}

#[test]
fn pattern_hover_shows_figures_and_matches_with_their_spans() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let file = &analysis.rules;
    let at = find(RULES, "free").start();
    let (range, hover) = rules_hover(file, at, Some(&analysis), &HoverConfig::default());
    assert_eq!(range, find(RULES, "$* free $*"));
    let RulesHover::Pattern(pattern) = &hover else {
        panic!("{hover:?}")
    };
    assert_eq!(pattern.title, "the `spam` rule of line 2");
    assert_eq!(pattern.regex, "$* free $*");
    assert_eq!(pattern.labels, ["spam"]);
    assert_eq!(pattern.n_dfa_states, Some(2));
    assert!(pattern.evaluated);
    assert_eq!(pattern.corpora.len(), 1);
    assert_eq!(pattern.corpora[0].n_lines, 7);
    assert_eq!(pattern.corpora[0].metrics.matches, 4);
    assert_eq!(pattern.corpora[0].metrics.overlaps, 3);
    assert_eq!(pattern.corpora[0].metrics.conflicts, 3);
    // One right match and the three wrong ones, each with the matched token only.
    let examples: Vec<(u32, bool, &str)> = pattern
        .examples
        .iter()
        .map(|e| {
            (
                e.line,
                e.correct,
                &e.text[usize::from(e.span.start())..usize::from(e.span.end())],
            )
        })
        .collect();
    assert_eq!(
        examples,
        [
            (0, true, "free"),
            (1, false, "free"),
            (2, false, "free"),
            (3, false, "free")
        ]
    );
    assert_eq!(
        render_rules_hover(&hover),
        "**pattern** the `spam` rule of line 2 → spam · 2 DFA states\n\
         \n\
         ```rules\n\
         $* free $*\n\
         ```\n\
         \n\
         | corpus | matches | coverage | precision | recall |\n\
         | --- | ---: | ---: | ---: | ---: |\n\
         | train | 4 | 57.1% | 25.0% | 33.3% |\n\
         \n\
         - ✓ train:1 (spam) **free** prize inside\n\
         - ✗ train:2 (ham) **free** call me later\n\
         - ✗ train:3 (ham) is it **free** to call\n\
         - ✗ train:4 (ham) call me **free**\n"
    );

    // At most `max_examples` right and wrong matches each.
    let one = HoverConfig {
        max_examples: 1,
        ..HoverConfig::default()
    };
    let (_, hover) = rules_hover(file, at, Some(&analysis), &one);
    let RulesHover::Pattern(pattern) = hover else {
        panic!()
    };
    let lines: Vec<(u32, bool)> = pattern
        .examples
        .iter()
        .map(|e| (e.line, e.correct))
        .collect();
    assert_eq!(lines, [(0, true), (1, false)]);
}

#[test]
fn pattern_hover_on_a_name_and_on_a_use_in_a_formula() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let file = &analysis.rules;
    let config = HoverConfig::default();
    let definition = find(RULES, "prize");
    let use_in_formula = find_nth(RULES, "prize", 1);
    for (at, range) in [
        (definition.start(), definition),
        (use_in_formula.end(), use_in_formula),
    ] {
        let (hovered, hover) = rules_hover(file, at, Some(&analysis), &config);
        assert_eq!(hovered, range);
        let RulesHover::Pattern(pattern) = &hover else {
            panic!("{hover:?}")
        };
        assert_eq!(pattern.title, "`prize`");
        assert_eq!(pattern.regex, "$* ( won | win ) $*");
        // `won` on line 4, `win` on line 5; spam has 3 lines.
        assert_eq!(
            render_rules_hover(&hover),
            "**pattern** `prize` → spam · 2 DFA states\n\
             \n\
             ```rules\n\
             $* ( won | win ) $*\n\
             ```\n\
             \n\
             | corpus | matches | coverage | precision | recall |\n\
             | --- | ---: | ---: | ---: | ---: |\n\
             | train | 2 | 28.6% | 100.0% | 66.7% |\n\
             \n\
             - ✓ train:5 (spam) you **won** cash\n\
             - ✓ train:6 (spam) **win** big now\n"
        );
    }
    // `zebra` matches nothing: a table row with no precision and no examples.
    let (_, hover) = rules_hover(file, find(RULES, "zebra").start(), Some(&analysis), &config);
    assert_eq!(
        render_rules_hover(&hover),
        "**pattern** `zebra` → ham · 2 DFA states\n\
         \n\
         ```rules\n\
         $* zebra $*\n\
         ```\n\
         \n\
         | corpus | matches | coverage | precision | recall |\n\
         | --- | ---: | ---: | ---: | ---: |\n\
         | train | 0 | 0.0% | – | 0.0% |\n"
    );
}

#[test]
fn pattern_hover_of_an_unsaved_pattern_has_no_figures() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let edited_text = RULES.replace("$* free $*", "$* freebie $*");
    let edited = rules(&edited_text);
    let at = find(&edited_text, "freebie").start();
    let (_, hover) = rules_hover(&edited, at, Some(&analysis), &HoverConfig::default());
    let RulesHover::Pattern(pattern) = &hover else {
        panic!("{hover:?}")
    };
    assert!(!pattern.evaluated);
    assert!(pattern.corpora.is_empty() && pattern.examples.is_empty());
    assert_eq!(
        render_rules_hover(&hover),
        "**pattern** the `spam` rule of line 2 → spam · 2 DFA states\n\
         \n\
         ```rules\n\
         $* freebie $*\n\
         ```\n\
         \n\
         _Not in the last saved analysis: save to evaluate it on the corpora._\n"
    );
    // Without any analysis, the same.
    let (_, hover) = rules_hover(&edited, at, None, &HoverConfig::default());
    let RulesHover::Pattern(pattern) = hover else {
        panic!()
    };
    assert!(!pattern.evaluated);
    // Nothing to hover on a blank line or a keyword.
    assert!(
        hover_rules(
            &edited,
            TextSize::from(0),
            Figures::default(),
            &HoverConfig::default()
        )
        .is_none()
    );
}

#[test]
fn label_hover_shows_precision_recall_and_confusions() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let file = &analysis.rules;
    let config = HoverConfig::default();
    // `spam` on line 2: gold on lines 0, 4, 5; predicted on lines 0–5.
    let (range, hover) = rules_hover(file, TextSize::from(12), Some(&analysis), &config);
    assert_eq!(range, find(RULES, "spam"));
    let RulesHover::Label(label) = &hover else {
        panic!("{hover:?}")
    };
    assert_eq!(
        (label.name.as_str(), label.is_default, label.n_rules),
        ("spam", false, 2)
    );
    assert_eq!(label.corpora[0].mistaken_for, []);
    assert_eq!(label.corpora[0].taken_for, [("ham".to_string(), 3)]);
    assert_eq!(
        render_rules_hover(&hover),
        "**label** `spam` · 2 rules\n\
         \n\
         | corpus | gold | predicted | precision | recall | F1 |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |\n\
         | train | 3 | 6 | 50.0% | 100.0% | 66.7% |\n\
         \n\
         - train: 3 ham lines predicted as spam\n"
    );
    // `ham` in `default ham`: gold on lines 1, 2, 3, 6, predicted on line 6 only.
    let at = find(RULES, "ham").start();
    let (range, hover) = rules_hover(file, at, Some(&analysis), &config);
    assert_eq!(range, find(RULES, "ham"));
    assert_eq!(
        render_rules_hover(&hover),
        "**label** `ham` · 2 rules · default\n\
         \n\
         | corpus | gold | predicted | precision | recall | F1 |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |\n\
         | train | 4 | 1 | 100.0% | 25.0% | 40.0% |\n\
         \n\
         - train: 3 ham lines predicted as spam\n"
    );
    // Without a saved analysis: the rule count only.
    let (_, hover) = rules_hover(file, at, None, &config);
    assert_eq!(
        render_rules_hover(&hover),
        "**label** `ham` · 2 rules · default\n\
         \n\
         _No corpus figures yet: bind a corpus and save._\n"
    );
}

#[test]
fn label_hover_counts_lines_no_label_was_given() {
    // No default: a line nothing fires on gets no label.
    let text = "spam: $* free $*\nham: $* call $*\n";
    let analysis = analysis_of(
        text,
        &[("train", "ham\thello\nham\tcall\nspam\tfree call\n")],
    );
    let at = find(text, "ham").start();
    let (_, hover) = rules_hover(
        &analysis.rules,
        at,
        Some(&analysis),
        &HoverConfig::default(),
    );
    let RulesHover::Label(label) = &hover else {
        panic!("{hover:?}")
    };
    assert_eq!(label.corpora[0].mistaken_for, [("no label".to_string(), 1)]);
    assert!(render_rules_hover(&hover).ends_with("- train: 1 ham line predicted as no label\n"));
}

/// The hover module promises that "a pattern edited since the save shows its regex and DFA
/// size only", and `PatternHover::evaluated` is "whether the last saved analysis has this
/// pattern as it is now"; a named pattern whose regex was edited is still found by its
/// name, so the hover shows the new regex beside the old regex's figures and matches.
#[test]
fn hover_of_a_named_pattern_edited_since_the_save_has_no_figures() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let edited_text = RULES.replace("( won | win )", "( cash | prize )");
    let edited = rules(&edited_text);
    let at = find(&edited_text, "prize").start();
    let (_, hover) = rules_hover(&edited, at, Some(&analysis), &HoverConfig::default());
    let RulesHover::Pattern(pattern) = &hover else {
        panic!("{hover:?}")
    };
    assert_eq!(pattern.regex, "$* ( cash | prize ) $*");
    assert!(!pattern.evaluated, "{}", render_rules_hover(&hover));
    assert!(pattern.corpora.is_empty() && pattern.examples.is_empty());
}

/// On lines without a gold label, a rule's hover says what the rules' label model estimates
/// of its precision, in the table and in words.
#[test]
fn pattern_hover_on_unlabeled_lines_shows_the_label_models_estimate() {
    let rules = "default ham\nspam: $* fr$0ee $*\nspam: $* prize $*\nham: $* soon $*\n";
    let unlabeled = "free prize inside\nfree call me later\nsee you soon\nprize draw\nok\n";
    let (file, at) = fixture(rules);
    let analysis = analysis_of(&file.source.text, &[("train", unlabeled)]);
    let (_, hover) = rules_hover(&file, at, Some(&analysis), &HoverConfig::default());
    let RulesHover::Pattern(pattern) = &hover else {
        panic!("{hover:?}")
    };
    let run = analysis.corpus("train").unwrap();
    let estimates = run.estimates.as_ref().unwrap().as_ref().unwrap();
    assert_eq!(pattern.corpora[0].n_unlabeled, 5);
    let estimated = pattern.corpora[0].estimated_precision.expect("an estimate");
    assert_eq!(Some(estimated), estimates.precision[0]);
    assert!((0.0..=1.0).contains(&estimated));
    let text = render_rules_hover(&hover);
    assert!(text.contains("| est. precision |"), "{text}");
    assert!(
        text.contains(&format!(
            "Estimated precision {estimated:.2} on train's 5 lines without a gold label"
        )),
        "{text}"
    );
    // Fully labeled lines have no estimate.
    let labeled = analysis_of(&file.source.text, &[("train", THREE_LINES)]);
    assert!(labeled.corpus("train").unwrap().estimates.is_none());
    let (_, hover) = rules_hover(&file, at, Some(&labeled), &HoverConfig::default());
    assert!(!render_rules_hover(&hover).contains("est. precision"));
}

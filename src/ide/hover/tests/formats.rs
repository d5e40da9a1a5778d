//! The two writings of a hover on the SMS example (`examples/sms`): Markdown that escapes
//! only what CommonMark needs, and plain text with no Markdown at all, for clients that take
//! only plain text (issue 36, defect 1).

use super::*;

const SMS_RULES: &str = include_str!("../../../../examples/sms/sms.rules");
const SMS_TRAIN: &str = include_str!("../../../../examples/sms/train.tsv");

/// The first train line of `examples/sms` that holds each needle, as a TSV corpus.
fn sms_lines(needles: &[&str]) -> String {
    needles
        .iter()
        .filter_map(|needle| SMS_TRAIN.lines().find(|line| line.contains(needle)))
        .map(|line| format!("{line}\n"))
        .collect()
}

/// The hover of the SMS rules at `needle` (the cursor at its start), on the SMS train
/// corpus.
fn sms_rules_hover(needle: &str) -> Document {
    let analysis = analysis_of(SMS_RULES, &[("train", SMS_TRAIN)]);
    let at = TextSize::from(SMS_RULES.find(needle).expect("in sms.rules") as u32);
    let figures = Figures {
        analysis: Some(&analysis),
        pending: false,
        patterns: None,
    };
    let (_, hover) =
        hover_rules(&analysis.rules, at, figures, &HoverConfig::default()).expect("a hover");
    super::super::render_rules_hover(&hover)
}

/// What plain text must not hold: Markdown's emphasis, fences, escapes and table rules.
fn assert_no_markdown(plain: &str) {
    for markup in ["**", "```", "\\", "| ---", "_No", "_Training"] {
        assert!(
            !plain.contains(markup),
            "{markup:?} in the plain text:\n{plain}"
        );
    }
}

#[test]
fn a_pattern_hover_on_sms_in_markdown_and_in_plain_text() {
    let document = sms_rules_hover("$* won $* cash $* prize $*");
    insta::assert_snapshot!(document.to_markdown(), @r"
    **pattern** the `spam` rule of line 18 → spam · 4 DFA states

    ```rules
    $* won $* cash $* prize $*
    ```

    | corpus | matches | coverage | precision | recall |
    | --- | ---: | ---: | ---: | ---: |
    | train | 7 | 0.2% | 100.0% | 1.2% |

    - ✓ train:577 (spam) …0 169 6031 between 10am-9pm as you have **won a guaranteed ??1000 cash or ??5000 prize!**
    - ✓ train:596 (spam) you have **won a guaranteed ??1000 cash or a ??2000 prize.** to claim yr prize call our customer ser…
    - ✓ train:793 (spam) …8 145 4742 between 9am-11pm as you have **won a guaranteed ??1000 cash or ??5000 prize!**
    ");
    let plain = document.to_plain_text();
    assert_no_markdown(&plain);
    insta::assert_snapshot!(plain, @r"
    pattern the `spam` rule of line 18 → spam · 4 DFA states

        $* won $* cash $* prize $*

    corpus  matches  coverage  precision  recall
    train         7      0.2%     100.0%    1.2%

    - ✓ train:577 (spam) …0 169 6031 between 10am-9pm as you have [won a guaranteed ??1000 cash or ??5000 prize!]
    - ✓ train:596 (spam) you have [won a guaranteed ??1000 cash or a ??2000 prize.] to claim yr prize call our customer ser…
    - ✓ train:793 (spam) …8 145 4742 between 9am-11pm as you have [won a guaranteed ??1000 cash or ??5000 prize!]
    ");
}

#[test]
fn a_label_hover_on_sms_lays_its_table_out_in_columns() {
    let document = sms_rules_hover("ham\n");
    let plain = document.to_plain_text();
    assert_no_markdown(&plain);
    insta::assert_snapshot!(plain, @r"
    label `ham` · 31 rules · default

    corpus  gold  predicted  precision  recall     F1
    train   3923       4281      91.5%   99.9%  95.5%

    - train: 4 ham lines predicted as spam; 362 spam lines predicted as ham
    ");
}

#[test]
fn corpus_text_in_a_line_hover_is_escaped_minimally_or_not_at_all() {
    // The lines of issue 36's report: `last chance! claim …` and `86888 & claim …`.
    let rules = "default ham\nspam: $* claim $*\n";
    let train = sms_lines(&["last chance! claim", "86888 & claim"]);
    let analysis = analysis_of(rules, &[("train", &train)]);
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    let examples = &analysis.corpus("train").unwrap().file.examples;
    let mut rendered = String::new();
    for example in examples {
        let hover = hover_line(
            example,
            &analysis.rules,
            &[&TrainedNetwork::RuleNetwork(model.clone())],
            None,
            &HoverConfig::default(),
        );
        let document = super::super::render_line_hover(&hover, &example.text);
        let markdown = document.to_markdown();
        assert!(
            !markdown.contains("\\!") && !markdown.contains("\\&"),
            "{markdown}"
        );
        let plain = document.to_plain_text();
        assert_no_markdown(&plain);
        rendered.push_str(&format!("{markdown}\n=====\n{plain}\n=====\n"));
    }
    insta::assert_snapshot!(rendered, @r"
    gold **spam** · rules **spam** ✓ (fired: the `spam` rule of line 2)

    **FA-RNN** **spam** ✓ · spam 0.99 · ham 0.01

    Top patterns:
    - the `spam` rule of line 2 1.00: last chance! **claim** ur ??150 worth of discount vouchers tod…

    Strongest n-grams (occlusion: what deleting each does to P(spam)):
    - **claim** +0.99 toward spam (0.01 without it)

    =====
    gold spam · rules spam ✓ (fired: the `spam` rule of line 2)

    FA-RNN spam ✓ · spam 0.99 · ham 0.01

    Top patterns:
    - the `spam` rule of line 2 1.00: last chance! [claim] ur ??150 worth of discount vouchers tod…

    Strongest n-grams (occlusion: what deleting each does to P(spam)):
    - [claim] +0.99 toward spam (0.01 without it)

    =====
    gold **spam** · rules **spam** ✓ (fired: the `spam` rule of line 2)

    **FA-RNN** **spam** ✓ · spam 0.99 · ham 0.01

    Top patterns:
    - the `spam` rule of line 2 1.00: freemsg: txt: call to no: 86888 & **claim** your reward of 3 hours talk time to use…

    Strongest n-grams (occlusion: what deleting each does to P(spam)):
    - **claim** +0.99 toward spam (0.01 without it)

    =====
    gold spam · rules spam ✓ (fired: the `spam` rule of line 2)

    FA-RNN spam ✓ · spam 0.99 · ham 0.01

    Top patterns:
    - the `spam` rule of line 2 1.00: freemsg: txt: call to no: 86888 & [claim] your reward of 3 hours talk time to use…

    Strongest n-grams (occlusion: what deleting each does to P(spam)):
    - [claim] +0.99 toward spam (0.01 without it)

    =====
    ");
}

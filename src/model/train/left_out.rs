//! The rules training leaves out: those the gold lines it reads show wrong more often than
//! right. A network compiled from the rules starts as them, and with a few dozen gold lines
//! it does not learn a broad wrong rule away: at 1 % of TREC, `desc: $* ( explain | describe
//! | what ) $*` fires on 58 of the 100 gold lines and is right on 14, and the network and the
//! label model that teaches beside it both say `desc` for most questions that start with
//! `what` (`docs/results.md`, "Rules the gold lines contradict").
//!
//! A rule is judged on the gold lines training reads (train's, at the settings' fraction,
//! and dev's as `data::training_data` picks them, unless `hold_out_dev` keeps dev out of
//! what learns), and left out where it is wrong on at least [`MIN_WRONG_PAST_RIGHT`] more of
//! those it fires on than it is right on. Left out, a rule no longer counts in its label's
//! formula (`RuleSystem::without_rules`) for the network, the label model and the n-gram
//! regression's teaching; its pattern stays, so that the network has the same parameters,
//! and its untrained state (`--zero-shot`) is the rules as written. The manifest records what
//! was left out ([`LeftOutRule`]), and loading leaves out the same rules. The setting
//! `keep_every_rule` judges nothing.

use crate::automata::RuleSystem;
use crate::corpus::Example;
use crate::labeling::{labeling_rules, summarize_examples};
use crate::model::train::checkpoint::LeftOutRule;
use crate::model::train::data::{dev_lines_read, train_lines_read};
use crate::model::train::events::FitEvent;
use crate::model::train::settings::TrainingSettings;
use crate::rules_file::RulesFile;

/// How many more of the gold lines it fires on a rule must be wrong on than right on to be
/// left out. One more is a coin's toss on a few lines: at 10 % of TREC it would leave out
/// ten rules, four of them right on at least half of train's lines; two more leaves out
/// seven, one of them right on 52 %, and at 1 % the same five as one more, none right on
/// half (`docs/results.md`, "Rules the gold lines contradict").
pub const MIN_WRONG_PAST_RIGHT: usize = 2;

/// The rules of `file` that the gold lines training reads contradict, in file order.
/// `system` is the network's (`data::network_system`): its labels decide which train lines
/// training reads.
pub(crate) fn rules_to_leave_out(
    file: &RulesFile,
    system: &RuleSystem,
    train_examples: &[Example],
    dev_examples: &[Example],
    settings: &TrainingSettings,
) -> Vec<LeftOutRule> {
    if settings.keep_every_rule {
        return Vec::new();
    }
    let train_gold: Vec<&Example> = train_examples
        .iter()
        .filter(|e| {
            e.label
                .as_deref()
                .is_some_and(|l| system.label_by_name(l).is_some())
        })
        .collect();
    let train_read = train_lines_read(train_gold.len(), settings.fraction);
    // Dev held out is read by nothing that learns.
    let dev_gold: Vec<&Example> = (dev_examples.iter())
        .filter(|e| e.label.is_some() && !settings.hold_out_dev)
        .collect();
    let dev_read = dev_lines_read(dev_gold.len(), train_read.len(), settings.fraction);
    let gold: Vec<Example> = (train_read.iter().map(|&i| train_gold[i]))
        .chain(dev_read.iter().map(|&i| dev_gold[i]))
        .cloned()
        .collect();
    // Fewer gold lines than the margin contradict no rule.
    if gold.len() < MIN_WRONG_PAST_RIGHT {
        return Vec::new();
    }
    // `check`'s figures of each rule (a label the rules do not name is wrong for every rule).
    let rules = labeling_rules(file);
    let summaries = summarize_examples(file, &rules, &gold);
    (rules.iter().zip(&summaries).enumerate())
        .filter(|(_, (_, summary))| summary.incorrect >= summary.correct + MIN_WRONG_PAST_RIGHT)
        .map(|(rule, (labeling, summary))| LeftOutRule {
            rule,
            line: labeling.line,
            label: system.labels()[labeling.label].clone(),
            gold_lines: summary.correct + summary.incorrect,
            right: summary.correct,
        })
        .collect()
}

/// The rules the gold lines contradict ([`rules_to_leave_out`]) and, where there are some,
/// `file` and the network's `system` without them (`system` as it is otherwise), which
/// `on_event` hears of.
pub(crate) fn leave_out(
    file: &RulesFile,
    system: RuleSystem,
    (train_examples, dev_examples): (&[Example], &[Example]),
    settings: &TrainingSettings,
    on_event: &mut dyn FnMut(FitEvent),
) -> (Vec<LeftOutRule>, Option<RulesFile>, RuleSystem) {
    let left_out = rules_to_leave_out(file, &system, train_examples, dev_examples, settings);
    if left_out.is_empty() {
        return (left_out, None, system);
    }
    on_event(FitEvent::RulesLeftOut(&left_out));
    let indices: Vec<usize> = left_out.iter().map(|rule| rule.rule).collect();
    let kept = RulesFile {
        system: file.system.without_rules(&indices),
        ..file.clone()
    };
    (left_out, Some(kept), system.without_rules(&indices))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::testing::{example_line as line, rules_of};
    use crate::model::train::checkpoint::rule_indices;

    /// `spam: $* you $*` (line 3) is wrong on three of the four gold lines it fires on, one
    /// of them dev's; `spam: $* free $*` (line 2) right on both of its own; `spam: $* win $*`
    /// (line 4) wrong on its only one; `spam: $* now $*` (line 5) right on one of two.
    const RULES: &str =
        "default ham\nspam: $* free $*\nspam: $* you $*\nspam: $* win $*\nspam: $* now $*\n";

    fn corpora() -> (Vec<Example>, Vec<Example>) {
        let train = vec![
            line("free cash for you", Some("spam")),
            line("see you later", Some("ham")),
            line("free prize", Some("spam")),
            line("did you win", Some("ham")),
            line("call now", Some("spam")),
            line("not now", Some("ham")),
            line("you there", None),
        ];
        let dev = vec![line("thank you", Some("ham")), line("hello", None)];
        (train, dev)
    }

    fn judged(settings: &TrainingSettings) -> Vec<LeftOutRule> {
        let rules = rules_of(RULES);
        let (train, dev) = corpora();
        rules_to_leave_out(&rules, &rules.system, &train, &dev, settings)
    }

    #[test]
    fn a_rule_wrong_on_more_gold_lines_than_right_is_left_out() {
        let left_out = judged(&TrainingSettings::DEFAULT);
        assert_eq!(
            left_out,
            [LeftOutRule {
                rule: 1,
                line: 3,
                label: "spam".into(),
                gold_lines: 4,
                right: 1,
            }]
        );
    }

    /// Dev held out is not read: `you` is then wrong on two of train's lines and right on
    /// one, and stays. With every rule kept nothing is judged.
    #[test]
    fn a_held_out_dev_is_not_read_and_every_rule_can_be_kept() {
        let held_out = judged(&TrainingSettings {
            hold_out_dev: true,
            ..TrainingSettings::DEFAULT
        });
        assert!(held_out.is_empty(), "{held_out:?}");
        let kept = judged(&TrainingSettings {
            keep_every_rule: true,
            ..TrainingSettings::DEFAULT
        });
        assert!(kept.is_empty());
    }

    /// At a fraction of train, only the gold lines training reads are judged: every other
    /// one (`free cash for you`, `free prize`, `call now`) and dev's, where `you` is right
    /// on one of two and stays.
    #[test]
    fn only_the_gold_lines_training_reads_are_judged() {
        let left_out = judged(&TrainingSettings {
            fraction: 0.5,
            ..TrainingSettings::DEFAULT
        });
        assert!(left_out.is_empty(), "{left_out:?}");
    }

    /// The record names rules by their index in file order, checked against the rules it
    /// is read back with; the rules and the network's system leave out the same rule.
    #[test]
    fn a_record_that_does_not_fit_the_rules_is_refused() {
        let rules = rules_of(RULES);
        let (train, dev) = corpora();
        let mut said = Vec::new();
        let (left_out, kept, system) = leave_out(
            &rules,
            rules.system.clone(),
            (&train, &dev),
            &TrainingSettings::DEFAULT,
            &mut |event| said.extend(event.lines()),
        );
        assert_eq!(
            said,
            [
                "1 rule left out, which the gold lines contradict: line 3 (`spam`, right on 1 of 4); the network and the label model read the others (--keep-every-rule, the server's training.keepEveryRule, keeps them; --zero-shot is every rule)"
            ]
        );
        assert_eq!(rule_indices(&left_out, &rules.system), Ok(vec![1]));
        let other = rules_of("default ham\nspam: $* free $*\nham: $* you $*\n");
        let error = rule_indices(&left_out, &other.system).unwrap_err();
        assert!(error.contains("rule 1 (`spam`, line 3)"), "{error}");
        let fewer = rules_of("default ham\nspam: $* free $*\n");
        assert!(rule_indices(&left_out, &fewer.system).is_err());
        let ham = rules.system.label_by_name("ham");
        assert_ne!(rules.system.classify("see you").prediction, ham);
        assert_eq!(kept.unwrap().system.classify("see you").prediction, ham);
        assert_eq!(system.classify("see you").prediction, ham);
    }
}

//! A SoPa's learned patterns as suggestions: each free pattern read back as a rule
//! (`explain::read_back`) is proposed as `LABEL: REGEX` with its exact effect on the train
//! lines, under the same floors as an induced rule (it fixes at least `min_fixed` lines and,
//! of the lines whose prediction it changes, makes at least `min_precision` right).

use super::candidate::{Candidate, Edit, LearnedRule, Source};
use super::config::SuggestConfig;
use super::lines::{Lines, Standing, matches_alone};
use super::shape::estimate_of;

/// The learned rules worth measuring, with their estimates.
pub(super) fn additions(
    lines: &Lines,
    standing: &Standing,
    config: &SuggestConfig,
    learned: &[LearnedRule],
) -> Vec<Candidate> {
    let mut out = Vec::new();
    for rule in learned {
        let Some(gold) = lines.label(&rule.label) else {
            continue;
        };
        let Some(matches) = matches_alone(&rule.label, &rule.regex, lines) else {
            continue;
        };
        let matched: Vec<u32> = (0..matches.len() as u32)
            .filter(|&line| matches[line as usize])
            .collect();
        let rank = standing.rank_for(&rule.label);
        let estimate = estimate_of(lines, standing, &matched, gold, rank);
        let decisive = (estimate.fixed + estimate.broken) as f64;
        if estimate.fixed >= config.min_fixed
            && estimate.fixed as f64 >= config.min_precision * decisive
        {
            out.push(Candidate {
                source: Source::Learned,
                edit: Edit::AddRule {
                    label: rule.label.clone(),
                    regex: rule.regex.clone(),
                },
                estimate: Some(estimate),
            });
        }
    }
    out
}

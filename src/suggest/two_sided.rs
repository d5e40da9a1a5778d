//! Two-sided decision lists for [`refine`](super::refine) on two-label corpora.
//!
//! From a file whose rules are all for one label `L` (a `default D`-only file is one), the
//! greedy rounds can only add rules for `L`: a rule for `D` changes no prediction while `D`
//! is the default. On long documents that is a one-sided list ("`neg` when a `neg` cue
//! fires"), which cannot say "`pos` when a `pos` cue fires and no `neg` cue does". The
//! two-sided list spends the first [`first_side_edits`] edits on `L`'s rules, makes `L` the
//! default ([`Edit::SetDefault`]; `L`'s first rule stays first, so `L` still wins where
//! both fire) and goes on greedily, now adding rules for `D` too. The change of default
//! lowers dev accuracy at first, so a greedy round never takes it; whether the two-sided
//! list beats the one-sided one is decided on train alone ([`pays`]): both are refined on
//! four fifths of train and scored on the fifth they did not see (dev, which chose every
//! edit, would favour the list it chose more edits for).

use super::candidate::{Candidate, Edit, Source};
use super::lines::{Lines, Standing};
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::syntax::ast::StatementKind;

/// Every how-many'th train line [`pays`] holds out.
const HELD_OUT_EVERY: usize = 5;

/// The fewest held-out lines [`pays`] decides on; with fewer the one-sided list stays.
pub const MIN_HELD_OUT_LINES: usize = 50;

/// Of `max_edits`, the edits spent on the first side's rules before the default changes:
/// a fifth (6 of 30). On the apparel reviews 3 to 10 of 30 give held-out figures within a
/// point of each other (`docs/results.md`).
pub fn first_side_edits(max_edits: usize) -> usize {
    max_edits / 5
}

/// The label a two-sided list makes the default: on a train corpus of exactly two labels,
/// the one that is not `file`'s default, when every rule of the file is for it (none is
/// for the default). `None` otherwise.
pub fn new_default(file: &RulesFile, train: &Lines) -> Option<String> {
    let rules = &file.rules;
    let default = &rules.labels[rules.default?.index()];
    if train.labels.len() != 2 || !default.rules.is_empty() {
        return None;
    }
    let other = train.labels.iter().find(|label| **label != default.name)?;
    train.labels.contains(&default.name).then(|| other.clone())
}

/// The edit that makes `label` the default of `file`, whose default statement names
/// another label; `None` without one.
pub fn set_default(file: &RulesFile, label: &str) -> Option<Candidate> {
    let name = file
        .parse
        .file
        .statements
        .iter()
        .find_map(|statement| match &statement.kind {
            StatementKind::Default { label: Some(name) } => Some(name),
            _ => None,
        })?;
    (name.text != label).then(|| Candidate {
        source: Source::Default,
        edit: Edit::SetDefault {
            label: name.text.clone(),
            new_label: label.to_string(),
            line: file.line_index.line_col(name.range.start()).line + 1,
            range: name.range,
        },
        estimate: None,
    })
}

/// Train split for [`pays`]: every [`HELD_OUT_EVERY`]th labeled line held out, the rest
/// to refine on; `None` when fewer than [`MIN_HELD_OUT_LINES`] would be held out.
pub fn split(train: &[Example]) -> Option<(Vec<Example>, Vec<Example>)> {
    let (mut kept, mut held_out) = (Vec::new(), Vec::new());
    for (i, example) in train.iter().filter(|e| e.label.is_some()).enumerate() {
        if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1 {
            held_out.push(example.clone());
        } else {
            kept.push(example.clone());
        }
    }
    (held_out.len() >= MIN_HELD_OUT_LINES).then_some((kept, held_out))
}

/// Whether the two-sided list is the better on the held-out lines: `one_sided` and
/// `two_sided` are the two lists refined on the rest of train, strictly more held-out
/// lines right (a tie keeps the one-sided list, the simpler).
pub fn pays(one_sided: &RulesFile, two_sided: &RulesFile, held_out: &Lines) -> bool {
    let accuracy = |file: &RulesFile| Standing::new(&file.system, held_out).accuracy();
    accuracy(two_sided) > accuracy(one_sided)
}

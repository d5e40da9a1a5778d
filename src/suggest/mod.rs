//! Suggested edits of a rules file, each with its evidence measured exactly by the rule
//! system: `rulelens suggest`, and later the editor's refinements.
//!
//! Producers propose candidates (a rule for a label, as a regex) with an estimate of what
//! they do to the train lines ([`Estimate`], computed from each line's standing without
//! classifying again); the engine measures the best of them exactly, by rewriting the rules
//! text, analyzing it as `rulelens check` would and classifying the train and dev lines
//! ([`Evidence`]). A new source of suggestions is one new producer: today, rule induction
//! from the misclassified lines ([`induce`]), the widening of a rule's element that fails on
//! lines of its label ([`widen`]), the rules as a trained network reads them back
//! ([`reconstruct`], when one is given), a SoPa's learned patterns read back as rules
//! ([`learned`], when one is given), and the narrowing (an exception, a required word),
//! removal or relabeling of rules that are wrong more often than the precision floor allows
//! ([`narrow`]).
//!
//! [`suggest`] lists suggestions against the rules as they are; [`refine`] applies them one
//! at a time, greedily, each only when it raises dev accuracy.
//!
//! This file only declares and re-exports. Bottom up: `cancel` and `lines` (the corpus
//! lines and their standing); `candidate` (the types the engine speaks) and `config`;
//! `shape` and `file_rules`, what several producers share; the producers (`induce`,
//! `widen`, `narrow`, `reconstruct`, `learned`, `priority`, `two_sided`); `edit`
//! ([`Edit::apply`]); `engine` (the rules as they stand, measuring); and on top `refine` and
//! `line_widening`.

mod cancel;
mod candidate;
mod config;
mod edit;
mod engine;
mod file_rules;
pub mod induce;
mod learned;
mod line_widening;
pub mod lines;
mod narrow;
mod neighbours;
mod network_labels;
mod priority;
mod provenance;
pub mod reconstruct;
mod refine;
pub mod scaffold;
mod shape;
mod two_sided;
pub mod widen;

pub use candidate::{
    Candidate, ChangedLines, Corpora, Edit, Estimate, Evidence, LearnedRule, Source, Suggestion,
};
pub use config::SuggestConfig;
pub use edit::insert_rule;
pub use engine::{rank, suggest, suggest_learned};
pub use line_widening::{LineWidening, widen_for_line};
pub use neighbours::WordNeighbours;
pub use network_labels::label_unlabeled;
pub use reconstruct::ReadBack;
pub use refine::{RefineConfig, Refined, refine};

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;

//! The floors a candidate must pass and how many are measured: [`SuggestConfig`], declared
//! once for `rulelens suggest`'s flags and the language server's `suggest.*` settings.

use crate::rules_file::RulesFile;
use serde::{Deserialize, Serialize};

/// The floors a candidate must pass, and how many are measured exactly: `rulelens
/// suggest`'s flags and the language server's `suggest.*` settings.
#[derive(Debug, Clone, Copy, PartialEq, clap::Args, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SuggestConfig {
    /// The least share of a new rule's train matches (or of the matches a widening adds)
    /// that have its label; a rule of the file below it is offered for removal.
    #[arg(long, value_name = "P", default_value_t = SuggestConfig::DEFAULT.min_precision)]
    pub min_precision: f64,
    /// The fewest train lines a new rule (or a widening) must fix.
    #[arg(long, value_name = "N", default_value_t = SuggestConfig::DEFAULT.min_fixed)]
    pub min_fixed: usize,
    /// The most candidate rules per label counted over the whole train corpus.
    #[arg(long, value_name = "N", default_value_t = SuggestConfig::DEFAULT.max_shapes_per_label)]
    pub max_shapes_per_label: usize,
    /// The most induced rules and widenings measured exactly per round, best estimate
    /// first.
    #[arg(long, value_name = "N", default_value_t = SuggestConfig::DEFAULT.max_measured)]
    pub max_measured: usize,
    /// The least cosine similarity between the word vector of a word that fixes a single
    /// train line and the mean of an induced word set's vectors for the word to join the set
    /// (1 keeps such words out).
    #[arg(long, value_name = "S", default_value_t = SuggestConfig::DEFAULT.min_similarity)]
    pub min_similarity: f64,
}

impl SuggestConfig {
    /// Every default (`docs/results.md` has the sweep on the SMS and TREC dev sets).
    pub const DEFAULT: SuggestConfig = SuggestConfig {
        min_precision: 0.9,
        min_fixed: 3,
        max_shapes_per_label: 400,
        max_measured: 100,
        min_similarity: 0.3,
    };

    /// The most `max_shapes_per_label` and `max_measured` may be: each candidate counted
    /// costs a pass over its lines, each one measured a classification of both corpora.
    pub const MAX_SHAPES_PER_LABEL: usize = 100_000;
    pub const MAX_MEASURED: usize = 1_000;

    /// The most corpus lines classified to measure one round's candidates (train and dev
    /// lines, times the candidates): on large corpora fewer than `max_measured` candidates
    /// are measured a round (at least one), so that a million-line corpus costs what 20
    /// candidates did before the default rose to 100.
    pub const MAX_LINES_MEASURED: usize = 20_000_000;

    /// This configuration for corpora of `lines` train and dev lines: `max_measured`
    /// within [`SuggestConfig::MAX_LINES_MEASURED`].
    pub fn for_lines(&self, lines: usize) -> SuggestConfig {
        SuggestConfig {
            max_measured: self
                .max_measured
                .min(Self::MAX_LINES_MEASURED / lines.max(1))
                .max(1),
            ..*self
        }
    }

    /// The most work analysing one round's candidates may take: each candidate measured is
    /// the whole rules text analysed again, which costs its DFAs' subset constructions
    /// ([`crate::automata::RuleSystem::compile_work`], about 25 ns a unit) and
    /// [`SuggestConfig::ANALYSIS_WORK_PER_BYTE`] units a byte of its text (parsing,
    /// lowering, formulas: about 250 ns). Past it (about 1.2 s of analysis), fewer than
    /// `max_measured` candidates are measured a round (at least one), so that a file whose
    /// automata take long to build (one rule of 2,000 `$* a`: 3 a round) or a huge file
    /// (a formula of 100,000 terms: 12) finishes; SMS's and TREC's rules allow 460.
    pub const MAX_ANALYSIS_WORK: u64 = 50_000_000;
    /// See [`SuggestConfig::MAX_ANALYSIS_WORK`].
    pub const ANALYSIS_WORK_PER_BYTE: u64 = 10;

    /// This configuration for the rules `file`: `max_measured` within
    /// [`SuggestConfig::MAX_ANALYSIS_WORK`].
    pub fn for_file(&self, file: &RulesFile) -> SuggestConfig {
        let cost = (file.source.text.len() as u64)
            .saturating_mul(Self::ANALYSIS_WORK_PER_BYTE)
            .saturating_add(file.system.compile_work())
            .max(1);
        SuggestConfig {
            max_measured: self
                .max_measured
                .min(usize::try_from(Self::MAX_ANALYSIS_WORK / cost).unwrap_or(usize::MAX))
                .max(1),
            ..*self
        }
    }

    /// Why the values cannot be used, naming the option (as its flag).
    pub fn check(&self) -> Result<(), String> {
        if !(self.min_precision > 0.0 && self.min_precision <= 1.0) {
            return Err(format!(
                "--min-precision must be in (0, 1], not {}",
                self.min_precision
            ));
        }
        if self.min_fixed == 0 {
            return Err("--min-fixed must be at least 1".to_string());
        }
        if !(0.0..=1.0).contains(&self.min_similarity) {
            return Err(format!(
                "--min-similarity must be in [0, 1], not {}",
                self.min_similarity
            ));
        }
        for (flag, value, max) in [
            (
                "--max-shapes-per-label",
                self.max_shapes_per_label,
                Self::MAX_SHAPES_PER_LABEL,
            ),
            ("--max-measured", self.max_measured, Self::MAX_MEASURED),
        ] {
            if !(1..=max).contains(&value) {
                return Err(format!("{flag} must be between 1 and {max}, not {value}"));
            }
        }
        Ok(())
    }
}

impl Default for SuggestConfig {
    fn default() -> SuggestConfig {
        SuggestConfig::DEFAULT
    }
}

//! [`refine`]: suggestions applied one at a time, greedily, each only when it raises dev
//! accuracy (`rulelens suggest --format rules`), with each edit's provenance as a comment.

use super::candidate::{Corpora, LearnedRule, Suggestion};
use super::config::SuggestConfig;
use super::engine::State;
use super::lines::Lines;
use super::neighbours::WordNeighbours;
use super::reconstruct::ReadBack;
use super::{provenance, two_sided};
use crate::automata::CompileConfig;
use crate::rules_file::RulesFile;
use crate::text::SourceText;

/// The rules after [`refine`], with the edits applied in order.
#[derive(Debug, Clone)]
pub struct Refined {
    pub text: String,
    pub applied: Vec<Suggestion>,
}

/// How [`refine`] applies suggestions: `rulelens suggest --format rules`'s own flags.
#[derive(Debug, Clone, Copy, PartialEq, clap::Args)]
pub struct RefineConfig {
    /// The most edits `--format rules` applies.
    #[arg(long, value_name = "N", default_value_t = RefineConfig::DEFAULT.max_edits)]
    pub max_edits: usize,
    /// The precision floor of `--format rules` once no candidate at `--min-precision`
    /// raises dev accuracy: a round then measures the candidates again with this floor
    /// (equal to `--min-precision`: no second try).
    #[arg(long, value_name = "P", default_value_t = RefineConfig::DEFAULT.fallback_precision)]
    pub fallback_precision: f64,
}

impl RefineConfig {
    /// Every default (`docs/results.md` has the measurements on the SMS, TREC and apparel
    /// splits).
    pub const DEFAULT: RefineConfig = RefineConfig {
        max_edits: 30,
        fallback_precision: 0.8,
    };

    /// Why the values cannot be used with `suggest`'s floors, naming the option (as its
    /// flag).
    pub fn check(&self, suggest: &SuggestConfig) -> Result<(), String> {
        if !(self.fallback_precision > 0.0 && self.fallback_precision <= suggest.min_precision) {
            return Err(format!(
                "--fallback-precision must be in (0, --min-precision = {}], not {}",
                suggest.min_precision, self.fallback_precision
            ));
        }
        Ok(())
    }
}

impl Default for RefineConfig {
    fn default() -> RefineConfig {
        RefineConfig::DEFAULT
    }
}

/// Applies suggestions greedily, at most `refining.max_edits`: each round measures the
/// candidates and applies, of those that raise dev accuracy and fix more train lines than
/// they break, the one with the largest train gain; when none qualifies under `config`'s
/// precision floor, the round measures the candidates again under
/// `refining.fallback_precision` (rules of long documents are rarely 90 % precise:
/// `docs/results.md`), and it stops when none qualifies there either. On a two-label train
/// corpus whose rules are all for the label that is not the default, the list can be made
/// two-sided ([`two_sided`]): taken when, refined on four fifths of train, it gets more of
/// the fifth held out right than the one-sided list. `read_back` as for [`suggest`].
pub fn refine(
    file: &RulesFile,
    corpora: &Corpora,
    read_back: &[ReadBack],
    learned: &[LearnedRule],
    config: &SuggestConfig,
    refining: &RefineConfig,
) -> Refined {
    let fallback = SuggestConfig {
        min_precision: refining.fallback_precision,
        ..*config
    };
    let greedy = Greedy {
        floors: if fallback.min_precision < config.min_precision {
            vec![*config, fallback]
        } else {
            vec![*config]
        },
        max_edits: refining.max_edits,
        read_back,
        learned,
        vectors: corpora.vectors,
    };
    let (train, dev) = (Lines::new(corpora.train), Lines::new(corpora.dev));
    let two_sided = two_sided::new_default(file, &train).filter(|label| {
        two_sided::split(corpora.train).is_some_and(|(kept, held_out)| {
            let kept = Lines::new(&kept);
            let (one, _) = greedy.one_sided(file, &kept, &dev);
            let (two, _) = greedy.two_sided(file, &kept, &dev, label);
            two_sided::pays(&one.file, &two.file, &Lines::new(&held_out))
        })
    });
    let (state, applied) = match two_sided {
        Some(label) => greedy.two_sided(file, &train, &dev, &label),
        None => greedy.one_sided(file, &train, &dev),
    };
    Refined {
        text: state.file.source.text.clone(),
        applied,
    }
}

/// [`refine`]'s greedy rounds: its floors (`--min-precision`, then the fallback when it is
/// lower), its budget of edits and what the candidates are made from besides the corpora.
struct Greedy<'r> {
    floors: Vec<SuggestConfig>,
    max_edits: usize,
    read_back: &'r [ReadBack],
    learned: &'r [LearnedRule],
    vectors: Option<&'r WordNeighbours>,
}

impl<'r> Greedy<'r> {
    /// The rules of `file` as they stand on `train` and `dev`.
    fn start<'a>(&self, file: &RulesFile, train: &'a Lines, dev: &'a Lines) -> State<'a>
    where
        'r: 'a,
    {
        State {
            vectors: self.vectors,
            ..State::new(file.clone(), train, dev, self.read_back, self.learned)
        }
    }

    /// Greedy rounds from `file` until the budget is spent or no candidate qualifies.
    fn one_sided<'a>(
        &self,
        file: &RulesFile,
        train: &'a Lines,
        dev: &'a Lines,
    ) -> (State<'a>, Vec<Suggestion>)
    where
        'r: 'a,
    {
        let mut applied = Vec::new();
        let state = self.rounds(self.start(file, train, dev), &mut applied, self.max_edits);
        (state, applied)
    }

    /// Greedy rounds for [`two_sided::first_side_edits`] edits, `label` made the default,
    /// then greedy rounds until the budget is spent or no candidate qualifies.
    fn two_sided<'a>(
        &self,
        file: &RulesFile,
        train: &'a Lines,
        dev: &'a Lines,
        label: &str,
    ) -> (State<'a>, Vec<Suggestion>)
    where
        'r: 'a,
    {
        let mut applied = Vec::new();
        let first = two_sided::first_side_edits(self.max_edits);
        let mut state = self.rounds(self.start(file, train, dev), &mut applied, first);
        if applied.len() < self.max_edits
            && let Some((suggestion, next)) = two_sided::set_default(&state.file, label)
                .and_then(|candidate| state.measure(&candidate, false))
        {
            state = self.apply(&state, suggestion, next, &mut applied);
        }
        let state = self.rounds(state, &mut applied, self.max_edits);
        (state, applied)
    }

    /// Rounds from `state` while fewer than `until` edits are applied: each applies the
    /// best candidate under the first floor that has one, and none qualifying ends them.
    fn rounds<'a>(
        &self,
        mut state: State<'a>,
        applied: &mut Vec<Suggestion>,
        until: usize,
    ) -> State<'a> {
        while applied.len() < until {
            let Some((suggestion, next)) = self.floors.iter().find_map(|config| state.best(config))
            else {
                break;
            };
            state = self.apply(&state, suggestion, next, applied);
        }
        state
    }

    /// `next` (the rules of `state` with `suggestion` applied) with the edit's provenance
    /// comment: comments only, so the rules and their standings stay those measured.
    fn apply<'a>(
        &self,
        state: &State<'a>,
        suggestion: Suggestion,
        mut next: State<'a>,
        applied: &mut Vec<Suggestion>,
    ) -> State<'a> {
        let commented = provenance::with_provenance(
            &state.file.source.text,
            &next.file.source.text,
            &suggestion,
        );
        next.file = RulesFile::analyze(
            SourceText::from_bytes(commented.as_bytes()),
            next.file.path.as_deref(),
            &CompileConfig::MEASURING,
        );
        applied.push(suggestion);
        next
    }
}

//! The measuring engine: the rules as they stand on the train and dev lines ([`State`]),
//! the producers' candidates gathered and the best measured exactly, by rewriting the rules
//! text, analyzing it as `rulelens check` would and classifying the lines again
//! ([`suggest`], [`suggest_learned`]), and suggestions ranked ([`rank`]).

use super::cancel::Cancel;
use super::candidate::{
    Candidate, ChangedLines, Corpora, Edit, Evidence, LearnedRule, Suggestion, by_estimate,
};
use super::config::SuggestConfig;
use super::lines::{Lines, Standing};
use super::neighbours::WordNeighbours;
use super::reconstruct::ReadBack;
use super::{induce, learned, narrow, priority, reconstruct, widen};
use crate::automata::CompileConfig;
use crate::rules_file::RulesFile;
use crate::text::SourceText;

/// The rules as they stand, with their lines read and classified.
pub(super) struct State<'a> {
    pub(super) file: RulesFile,
    pub(super) train: &'a Lines,
    pub(super) dev: &'a Lines,
    pub(super) train_standing: Standing,
    pub(super) dev_standing: Standing,
    /// The file's rules as a trained network reads them back (empty without one).
    pub(super) read_back: &'a [ReadBack],
    /// A SoPa's learned patterns as rules (empty without one).
    pub(super) learned: &'a [LearnedRule],
    /// The corpus words' vectors, for induction's word sets.
    pub(super) vectors: Option<&'a WordNeighbours>,
    /// The rules the engine wrote into the file so far, as (label, regex): they are not
    /// widened (see [`widen`]).
    pub(super) written: Vec<(String, String)>,
}

impl<'a> State<'a> {
    pub(super) fn new(
        file: RulesFile,
        train: &'a Lines,
        dev: &'a Lines,
        read_back: &'a [ReadBack],
        learned: &'a [LearnedRule],
    ) -> State<'a> {
        State::read(file, (train, dev), (read_back, learned), Cancel::NEVER)
            .expect("Cancel::NEVER never stops")
    }

    /// [`State::new`], polling `cancel` at every line it classifies: `None` when it says
    /// stop.
    fn read(
        file: RulesFile,
        (train, dev): (&'a Lines, &'a Lines),
        (read_back, learned): (&'a [ReadBack], &'a [LearnedRule]),
        cancel: Cancel,
    ) -> Option<State<'a>> {
        Some(State {
            train_standing: Standing::measure(&file.system, train, cancel)?,
            dev_standing: Standing::measure(&file.system, dev, cancel)?,
            file,
            train,
            dev,
            read_back,
            learned,
            vectors: None,
            written: Vec::new(),
        })
    }

    /// The candidates worth measuring: the induced rules, widenings, reconstructions and
    /// learned rules with the best estimates (at most `max_measured` in all: an estimate is
    /// what the edit does to the train lines, whatever its source), every narrowing and
    /// relabeling, and every label's raising.
    pub(super) fn candidates(
        &self,
        config: &SuggestConfig,
        cancel: Cancel,
    ) -> Option<Vec<Candidate>> {
        let config = &config
            .for_lines(self.train.len() + self.dev.len())
            .for_file(&self.file);
        let mut candidates = induce::induce(
            self.train,
            &self.train_standing,
            config,
            self.vectors,
            cancel,
        )?;
        candidates.extend(widen::widen(
            &self.file,
            self.train,
            &self.train_standing,
            config,
            &self.written,
            cancel,
        )?);
        cancel.check()?;
        candidates.extend(reconstruct::rewrites(
            &self.file,
            self.train,
            &self.train_standing,
            config,
            self.read_back,
        ));
        candidates.extend(learned::additions(
            self.train,
            &self.train_standing,
            config,
            self.learned,
        ));
        candidates.sort_by(by_estimate);
        candidates.truncate(config.max_measured);
        cancel.check()?;
        candidates.extend(narrow::narrowings(
            &self.file,
            self.train,
            &self.train_standing,
            config,
        ));
        cancel.check()?;
        candidates.extend(priority::raisings(
            &self.file,
            self.train,
            &self.train_standing,
            config,
        ));
        Some(candidates)
    }

    /// Of the candidates under `config`, the one [`refine`] applies: the largest train gain
    /// (then dev accuracy) among those that raise dev accuracy and fix more train lines than
    /// they break.
    pub(super) fn best(&self, config: &SuggestConfig) -> Option<(Suggestion, State<'a>)> {
        self.candidates(config, Cancel::NEVER)?
            .iter()
            .filter_map(|candidate| self.measure(candidate, true))
            .filter(|(suggestion, _)| {
                let evidence = &suggestion.evidence;
                evidence.dev_after > evidence.dev_before && evidence.train_gain() > 0
            })
            .max_by(|(a, _), (b, _)| {
                let (a, b) = (&a.evidence, &b.evidence);
                a.train_gain()
                    .cmp(&b.train_gain())
                    .then(a.dev_after.total_cmp(&b.dev_after))
            })
    }

    /// The candidate applied and measured; `None` when the edited rules have errors or
    /// (with `dev_must_rise`) dev accuracy does not rise, which is found before the train
    /// lines are classified.
    pub(super) fn measure(
        &self,
        candidate: &Candidate,
        dev_must_rise: bool,
    ) -> Option<(Suggestion, State<'a>)> {
        let new_text = candidate.edit.apply(&self.file)?;
        let edited = RulesFile::analyze(
            SourceText::from_bytes(new_text.as_bytes()),
            self.file.path.as_deref(),
            &CompileConfig::MEASURING,
        );
        if edited.has_errors() {
            return None;
        }
        let dev_standing = Standing::new(&edited.system, self.dev);
        if dev_must_rise && dev_standing.accuracy() <= self.dev_standing.accuracy() {
            return None;
        }
        let (train_matches, correct_matches) = self.rule_matches(&candidate.edit)?;
        let mut written = self.written.clone();
        match &candidate.edit {
            Edit::AddRule { label, regex } => written.push((label.clone(), regex.clone())),
            Edit::ReplaceRegex { label, new, .. } => written.push((label.clone(), new.clone())),
            Edit::RemoveRule { .. }
            | Edit::AddException { .. }
            | Edit::Relabel { .. }
            | Edit::RaiseLabel { .. }
            | Edit::SetDefault { .. } => {}
        }
        let next = State {
            train_standing: Standing::new(&edited.system, self.train),
            dev_standing,
            file: edited,
            train: self.train,
            dev: self.dev,
            read_back: self.read_back,
            learned: self.learned,
            vectors: self.vectors,
            written,
        };
        let train_lines =
            ChangedLines::between(self.train, &self.train_standing, &next.train_standing);
        let dev_lines = ChangedLines::between(self.dev, &self.dev_standing, &next.dev_standing);
        let evidence = Evidence {
            train_matches,
            train_precision: correct_matches as f64 / train_matches.max(1) as f64,
            fixed: train_lines.fixed.len(),
            broken: train_lines.broken.len(),
            dev_before: self.dev_standing.accuracy(),
            dev_after: next.dev_standing.accuracy(),
        };
        let suggestion = Suggestion {
            source: candidate.source,
            edit: candidate.edit.clone(),
            evidence,
            train_lines,
            dev_lines,
            new_text,
        };
        Some((suggestion, next))
    }

    /// The train lines whose match an edit adds or removes (a rule added or removed: its
    /// matches; a regex replaced: the lines one of the old and new regexes matches and the
    /// other does not; an exception added: the lines the rule and the exception match; a
    /// label raised: the lines it comes to win), and how many of them have the rule's (or
    /// raised) label, by the rule system; `None` when a regex does not compile.
    fn rule_matches(&self, edit: &Edit) -> Option<(usize, usize)> {
        let (label, regexes, counted): (_, Vec<&String>, Counted) = match edit {
            Edit::RaiseLabel { label, above, .. } => {
                let standing = &self.train_standing;
                let estimate = priority::estimate(
                    self.train,
                    standing,
                    standing.rank_for(label),
                    standing.rank_for(above),
                );
                return Some((estimate.matches, estimate.correct_matches));
            }
            Edit::SetDefault { new_label, .. } => {
                // The lines no label fires on: the default decides them.
                let gold = self.train.label(new_label);
                let undecided = (0..self.train.len())
                    .filter(|&line| self.train_standing.winner[line].is_none());
                let (matches, correct) = undecided.fold((0, 0), |(m, c), line| {
                    (m + 1, c + usize::from(Some(self.train.gold[line]) == gold))
                });
                return Some((matches, correct));
            }
            Edit::AddRule { label, regex }
            | Edit::RemoveRule { label, regex, .. }
            | Edit::Relabel {
                new_label: label,
                regex,
                ..
            } => (label, vec![regex], |m| m[0]),
            Edit::ReplaceRegex {
                label, new, old, ..
            } => (label, vec![new, old], |m| m[0] != m[1]),
            Edit::AddException {
                label,
                regex,
                exception,
                ..
            } => (label, vec![regex, exception], |m| m[0] && m[1]),
        };
        let alone = |regex: &str| {
            let file = RulesFile::analyze(
                SourceText::from_bytes(format!("{label}: {regex}\n").as_bytes()),
                None,
                &CompileConfig::MEASURING,
            );
            (!file.has_errors()).then_some(file)
        };
        let rules: Vec<RulesFile> = regexes
            .into_iter()
            .map(|regex| alone(regex))
            .collect::<Option<_>>()?;
        let gold = self.train.label(label);
        let mut counts = (0, 0);
        let mut matched = Vec::with_capacity(rules.len());
        for (line, text) in self.train.texts.iter().enumerate() {
            matched.clear();
            matched.extend(
                rules
                    .iter()
                    .map(|file| file.system.classify(text).matched.first() == Some(&true)),
            );
            if counted(&matched) {
                counts.0 += 1;
                counts.1 += usize::from(Some(self.train.gold[line]) == gold);
            }
        }
        Some(counts)
    }
}

/// Whether a train line counts among an edit's matches, from which of its regexes match it.
type Counted = fn(&[bool]) -> bool;

/// Suggestions for `file` as it is, measured on `corpora`, the largest dev gain first (then
/// the largest train gain); `read_back` is the file's rules as a network trained from it
/// reads them back, `learned` a SoPa's learned patterns as rules (each empty without one).
/// `None` when `cancelled` says so: it is polled between units of the work, from reading the
/// lines through building the candidates (a line, a candidate counted) to measuring them.
pub fn suggest(
    file: &RulesFile,
    corpora: &Corpora,
    read_back: &[ReadBack],
    learned: &[LearnedRule],
    config: &SuggestConfig,
    cancelled: &dyn Fn() -> bool,
) -> Option<Vec<Suggestion>> {
    let cancel = Cancel(cancelled);
    let (train, dev) = read_lines(corpora, cancel)?;
    let state = State {
        vectors: corpora.vectors,
        ..State::read(file.clone(), (&train, &dev), (read_back, learned), cancel)?
    };
    let candidates = state.candidates(config, cancel)?;
    measured(&state, candidates, cancel)
}

/// The `train` and `dev` lines of `corpora`; `None` when `cancel` says stop.
fn read_lines(corpora: &Corpora, cancel: Cancel) -> Option<(Lines, Lines)> {
    Some((
        Lines::read(corpora.train, cancel)?,
        Lines::read(corpora.dev, cancel)?,
    ))
}

/// A SoPa's learned patterns alone (`learned`, as rules) as suggestions for `file`,
/// measured as [`suggest`] measures them (at most `max_measured`, the best estimates, within
/// [`SuggestConfig::MAX_LINES_MEASURED`]), best first: what a SoPa trained after the
/// suggestions of a save adds to them. `None` when `cancelled` says so.
pub fn suggest_learned(
    file: &RulesFile,
    corpora: &Corpora,
    learned: &[LearnedRule],
    config: &SuggestConfig,
    cancelled: &dyn Fn() -> bool,
) -> Option<Vec<Suggestion>> {
    let cancel = Cancel(cancelled);
    let (train, dev) = read_lines(corpora, cancel)?;
    let state = State::read(file.clone(), (&train, &dev), (&[], learned), cancel)?;
    let mut candidates = learned::additions(&train, &state.train_standing, config, learned);
    candidates.sort_by(by_estimate);
    candidates.truncate(
        config
            .for_lines(train.len() + dev.len())
            .for_file(file)
            .max_measured,
    );
    measured(&state, candidates, cancel)
}

/// The candidates that change some train line, measured against `state` and [`rank`]ed;
/// `None` when `cancel` (polled before each measurement) says stop.
fn measured(state: &State, candidates: Vec<Candidate>, cancel: Cancel) -> Option<Vec<Suggestion>> {
    let mut suggestions = Vec::new();
    for candidate in candidates {
        cancel.check()?;
        if let Some((suggestion, _)) = state.measure(&candidate, false)
            && (suggestion.evidence.fixed > 0 || suggestion.evidence.broken > 0)
        {
            suggestions.push(suggestion);
        }
    }
    rank(&mut suggestions);
    Some(suggestions)
}

/// Sorts suggestions best first: the largest dev accuracy after the edit, then the largest
/// train gain.
pub fn rank(suggestions: &mut [Suggestion]) {
    suggestions.sort_by(|a, b| {
        let (a, b) = (&a.evidence, &b.evidence);
        b.dev_after
            .total_cmp(&a.dev_after)
            .then(b.train_gain().cmp(&a.train_gain()))
    });
}

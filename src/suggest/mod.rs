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

mod edit;
pub mod induce;
mod learned;
pub mod lines;
mod narrow;
mod neighbours;
mod network_labels;
mod priority;
mod provenance;
pub mod reconstruct;
pub mod scaffold;
mod two_sided;
pub mod widen;

pub use edit::insert_rule;
use lines::{Lines, Standing};
pub use neighbours::WordNeighbours;
pub use network_labels::label_unlabeled;
pub use reconstruct::ReadBack;
pub use widen::{LineWidening, widen_for_line};

use crate::automata::CompileConfig;
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use serde::{Deserialize, Serialize};
use text_size::TextRange;

/// Where a suggestion comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// Rule induction from the misclassified train lines.
    Induction,
    /// A rule's element widened so that the rule matches lines of its label.
    Widening,
    /// A rule of the file narrowed (an exception, a required word) or removed.
    Narrowing,
    /// A rule rewritten as a trained network reads it back.
    Reconstruction,
    /// A SoPa's learned pattern, read back as a rule.
    Learned,
    /// A rule of the file given the label most of its matches have.
    Relabeling,
    /// A label given priority over another.
    Priority,
    /// The default label changed, for a two-sided decision list (`refine` only).
    Default,
}

/// A learned pattern of a SoPa read back as a rule `LABEL: REGEX` (`explain::read_back`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedRule {
    pub label: String,
    pub regex: String,
}

/// An edit of the rules file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Edit {
    /// A new rule `LABEL: REGEX`, after the label's last rule (no label's priority moves).
    AddRule { label: String, regex: String },
    /// The rule `LABEL: REGEX` on 1-based line `line` removed, with its line.
    RemoveRule {
        label: String,
        regex: String,
        line: u32,
    },
    /// The regex `old` of the rule `LABEL: OLD` on 1-based line `line` replaced by `new`
    /// (wider, or narrower): the bytes `range` of the rules text, which must read `old`.
    ReplaceRegex {
        label: String,
        line: u32,
        old: String,
        new: String,
        #[serde(skip)]
        range: TextRange,
    },
    /// The rule `LABEL: REGEX` on 1-based line `line` made a rule of `new_label`: its label
    /// (the bytes `range` of the rules text, which must read `label`) replaced in place.
    Relabel {
        label: String,
        new_label: String,
        line: u32,
        regex: String,
        #[serde(skip)]
        range: TextRange,
    },
    /// The label `label` raised above `above`: its first rule (on 1-based line `line`,
    /// reading `statement`) moved, with its line, to just before the line of `above`'s
    /// first rule (1-based `before_line`), so that where both fire `label` wins.
    RaiseLabel {
        label: String,
        above: String,
        line: u32,
        statement: String,
        before_line: u32,
    },
    /// The rule `LABEL: REGEX` on 1-based line `line` given an exception: its statement
    /// (the bytes `range` of the rules text, which must read `statement`) rewritten in
    /// place into `pattern PATTERN = REGEX`, `pattern EXCEPTION_NAME = EXCEPTION` and
    /// `LABEL <- PATTERN & !EXCEPTION_NAME`, names no pattern or label of the file has.
    AddException {
        label: String,
        line: u32,
        regex: String,
        exception: String,
        pattern: String,
        exception_name: String,
        statement: String,
        #[serde(skip)]
        range: TextRange,
    },
    /// The default label `label` made `new_label`: the label's name in the `default`
    /// statement on 1-based line `line` (the bytes `range` of the rules text, which must read
    /// `label`) replaced.
    SetDefault {
        label: String,
        new_label: String,
        line: u32,
        #[serde(skip)]
        range: TextRange,
    },
}

impl Edit {
    /// The edit, made for `source`, in a few words: `add `spam: $* txt $*``, `remove line
    /// 61 `desc: …``, `narrow line 61 `desc: …` to exclude `$* name $*``.
    pub fn describe(&self, source: Source) -> String {
        match self {
            Edit::AddRule { label, regex } => format!("add `{label}: {regex}`"),
            Edit::RemoveRule { label, regex, line } => {
                format!("remove line {line} `{label}: {regex}`")
            }
            Edit::ReplaceRegex {
                label,
                line,
                old,
                new,
                ..
            } => {
                let (verb, to) = match source {
                    Source::Widening => ("widen", "to"),
                    Source::Narrowing => ("narrow", "to"),
                    Source::Induction
                    | Source::Reconstruction
                    | Source::Learned
                    | Source::Relabeling
                    | Source::Priority
                    | Source::Default => ("rewrite", "as"),
                };
                format!("{verb} line {line} `{label}: {old}` {to} `{new}`")
            }
            Edit::Relabel {
                label,
                new_label,
                line,
                regex,
                ..
            } => format!("relabel line {line} `{label}: {regex}` as `{new_label}`"),
            Edit::RaiseLabel {
                label,
                above,
                line,
                statement,
                before_line,
            } => format!(
                "raise `{label}` above `{above}`: line {line} `{statement}` moved before line \
                 {before_line}"
            ),
            Edit::AddException {
                label,
                line,
                regex,
                exception,
                ..
            } => format!("narrow line {line} `{label}: {regex}` to exclude `{exception}`"),
            Edit::SetDefault {
                label,
                new_label,
                line,
                ..
            } => format!("make `{new_label}` the default on line {line} (was `{label}`)"),
        }
    }

    /// The rules text after the edit; `None` when the rule to remove or rewrite is not
    /// there (on its line, with its label and regex; a regex or statement replaced must be
    /// a whole one of a rule `LABEL: REGEX`).
    pub fn apply(&self, file: &RulesFile) -> Option<String> {
        match self {
            Edit::AddRule { label, regex } => {
                Some(insert_rule(file, label, &format!("{label}: {regex}")))
            }
            Edit::RemoveRule { label, regex, line } => {
                let text = &file.source.text;
                let def = rule_on_line(file, label, regex, *line)?;
                let start = usize::from(def.range.start());
                let end = usize::from(def.range.end());
                let start = text[..start].rfind('\n').map_or(0, |i| i + 1);
                let end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
                Some(format!("{}{}", &text[..start], &text[end..]))
            }
            Edit::RaiseLabel {
                label,
                above,
                line,
                statement,
                before_line,
            } => priority::raise(file, label, above, *line, statement, *before_line),
            Edit::SetDefault {
                label,
                new_label,
                range,
                ..
            } => {
                let text = &file.source.text;
                let default = file.rules.default?;
                let range = std::ops::Range::<usize>::from(*range);
                (file.rules.labels[default.index()].name == *label
                    && text.get(range.clone()) == Some(label.as_str()))
                .then(|| format!("{}{new_label}{}", &text[..range.start], &text[range.end..]))
            }
            Edit::Relabel {
                label,
                new_label,
                line,
                regex,
                range,
            } => {
                let text = &file.source.text;
                let def = rule_on_line(file, label, regex, *line)?;
                file.rules.label_by_name(new_label)?;
                if def.name_range != *range {
                    return None;
                }
                let range = std::ops::Range::<usize>::from(*range);
                (text.get(range.clone()) == Some(label.as_str()))
                    .then(|| format!("{}{new_label}{}", &text[..range.start], &text[range.end..]))
            }
            Edit::ReplaceRegex {
                old, new, range, ..
            } => {
                let text = &file.source.text;
                let whole = file.rules.patterns.iter().any(|def| {
                    def.anonymous
                        && widen::regex_range(text, def.name_range, def.range) == Some(*range)
                });
                let range = std::ops::Range::<usize>::from(*range);
                if !whole || text.get(range.clone()) != Some(old.as_str()) {
                    return None;
                }
                Some(format!(
                    "{}{new}{}",
                    &text[..range.start],
                    &text[range.end..]
                ))
            }
            Edit::AddException {
                label,
                regex,
                exception,
                pattern,
                exception_name,
                statement,
                range,
                ..
            } => {
                let text = &file.source.text;
                let range_of_statement = range;
                let range = std::ops::Range::<usize>::from(*range);
                let taken = |name: &str| {
                    file.rules.patterns.iter().any(|def| def.name == name)
                        || file.rules.label_by_name(name).is_some()
                };
                let whole = file
                    .rules
                    .patterns
                    .iter()
                    .any(|def| def.anonymous && def.range == *range_of_statement);
                if text.get(range.clone()) != Some(statement.as_str())
                    || !whole
                    || taken(pattern)
                    || taken(exception_name)
                {
                    return None;
                }
                let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
                let indent = &text[line_start..range.start];
                let indent = if indent.trim().is_empty() { indent } else { "" };
                let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
                Some(format!(
                    "{}pattern {pattern} = {regex}{newline}{indent}pattern {exception_name} = \
                     {exception}{newline}{indent}{label} <- {pattern} & !{exception_name}{}",
                    &text[..range.start],
                    &text[range.end..]
                ))
            }
        }
    }
}

/// The anonymous rule `LABEL: REGEX` on 1-based line `line` of `file`, if it is there.
fn rule_on_line<'f>(
    file: &'f RulesFile,
    label: &str,
    regex: &str,
    line: u32,
) -> Option<&'f crate::syntax::PatternDef> {
    let text = &file.source.text;
    let label = file.rules.label_by_name(label)?;
    file.rules.patterns.iter().find(|def| {
        def.anonymous
            && def.line == line
            && def.labels == [label]
            && text.get(def.regex.range.start().into()..def.regex.range.end().into()) == Some(regex)
    })
}

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

/// What a candidate does to the train lines, as estimated from their standing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Estimate {
    /// Train lines the rule matches.
    pub matches: usize,
    /// Of them, lines with the rule's label.
    pub correct_matches: usize,
    /// Train lines it makes right.
    pub fixed: usize,
    /// Train lines it makes wrong.
    pub broken: usize,
}

impl Estimate {
    /// Share of its matches with its label (0 without matches).
    pub fn precision(&self) -> f64 {
        self.correct_matches as f64 / self.matches.max(1) as f64
    }

    /// Lines fixed less lines broken.
    pub fn gain(&self) -> isize {
        self.fixed as isize - self.broken as isize
    }

    /// Counts a line that was predicted right (`was`) and is now right or not (`is`): a
    /// fixed line, a broken one, or neither.
    fn count_change(&mut self, was: bool, is: bool) {
        match (was, is) {
            (false, true) => self.fixed += 1,
            (true, false) => self.broken += 1,
            _ => {}
        }
    }
}

/// A proposed edit, before it is measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub source: Source,
    pub edit: Edit,
    /// What it does to the train lines, where the producer estimated it.
    pub estimate: Option<Estimate>,
}

impl Candidate {
    /// The edit in a few words ([`Edit::describe`]).
    pub fn describe(&self) -> String {
        self.edit.describe(self.source)
    }
}

/// What an edit does, measured by the rule system.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Evidence {
    /// Train lines whose match the edit adds or removes, and the share of them with the
    /// rule's label.
    pub train_matches: usize,
    pub train_precision: f64,
    /// Train lines the edit makes right, and makes wrong.
    pub fixed: usize,
    pub broken: usize,
    /// The rule system's dev accuracy before and after the edit.
    pub dev_before: f64,
    pub dev_after: f64,
}

impl Evidence {
    /// Dev accuracy gained, in points.
    pub fn dev_gain(&self) -> f64 {
        100.0 * (self.dev_after - self.dev_before)
    }

    /// Train lines fixed less lines broken.
    pub fn train_gain(&self) -> isize {
        self.fixed as isize - self.broken as isize
    }
}

/// The lines of one corpus an edit changes the prediction's correctness of, as 1-based
/// line numbers of the corpus file.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct ChangedLines {
    /// Lines the edit makes right.
    pub fixed: Vec<u32>,
    /// Lines the edit makes wrong.
    pub broken: Vec<u32>,
}

impl ChangedLines {
    /// The lines whose correctness differs between `before` and `after`.
    fn between(lines: &Lines, before: &Standing, after: &Standing) -> ChangedLines {
        let mut changed = ChangedLines::default();
        for (line, (&was, &is)) in before.correct.iter().zip(&after.correct).enumerate() {
            let number = lines.file_lines[line] + 1;
            match (was, is) {
                (false, true) => changed.fixed.push(number),
                (true, false) => changed.broken.push(number),
                _ => {}
            }
        }
        changed
    }
}

/// A measured edit of the rules file.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Suggestion {
    pub source: Source,
    pub edit: Edit,
    pub evidence: Evidence,
    /// The train and dev lines it fixes and breaks.
    pub train_lines: ChangedLines,
    pub dev_lines: ChangedLines,
    /// The whole rules text after the edit.
    #[serde(skip)]
    pub new_text: String,
}

impl Suggestion {
    /// The edit in a few words ([`Edit::describe`]).
    pub fn describe(&self) -> String {
        self.edit.describe(self.source)
    }
}

/// The labeled corpora suggestions are made from and validated on, and the word vectors of
/// their words (`None`: induction's word sets take no word by its meaning).
pub struct Corpora<'a> {
    pub train: &'a [Example],
    pub dev: &'a [Example],
    pub vectors: Option<&'a WordNeighbours>,
}

/// A caller's "stop": polled between units of the engine's work (a line read for
/// induction, a candidate counted, a measurement), so that a superseded save's suggestions
/// stop within one unit, however large the corpora.
#[derive(Clone, Copy)]
pub(super) struct Cancel<'a>(&'a dyn Fn() -> bool);

impl Cancel<'_> {
    /// Never stops: `rulelens suggest` and the greedy rounds of [`refine`].
    const NEVER: Cancel<'static> = Cancel(&|| false);

    /// `None` once the caller says stop, for `?` to end the work.
    fn check(self) -> Option<()> {
        (!(self.0)()).then_some(())
    }
}

/// The rules as they stand, with their lines read and classified.
struct State<'a> {
    file: RulesFile,
    train: &'a Lines,
    dev: &'a Lines,
    train_standing: Standing,
    dev_standing: Standing,
    /// The file's rules as a trained network reads them back (empty without one).
    read_back: &'a [ReadBack],
    /// A SoPa's learned patterns as rules (empty without one).
    learned: &'a [LearnedRule],
    /// The corpus words' vectors, for induction's word sets.
    vectors: Option<&'a WordNeighbours>,
    /// The rules the engine wrote into the file so far, as (label, regex): they are not
    /// widened (see [`widen`]).
    written: Vec<(String, String)>,
}

impl<'a> State<'a> {
    fn new(
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
    fn candidates(&self, config: &SuggestConfig, cancel: Cancel) -> Option<Vec<Candidate>> {
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
        candidates.sort_by(widen::by_estimate);
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
    fn best(&self, config: &SuggestConfig) -> Option<(Suggestion, State<'a>)> {
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
    fn measure(
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
    candidates.sort_by(widen::by_estimate);
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

#[cfg(test)]
pub(crate) mod fixture;
#[cfg(test)]
mod tests;

//! What the suggestion engine speaks: where a suggestion comes from ([`Source`]), the edit
//! of the rules file it makes ([`Edit`]; how it applies is `edit.rs`), a producer's
//! proposal with its estimate ([`Candidate`], [`Estimate`]), and a measured edit with its
//! evidence ([`Suggestion`], [`Evidence`], [`ChangedLines`]), and the corpora they are
//! measured on ([`Corpora`]).

use super::lines::{Lines, Standing};
use super::neighbours::WordNeighbours;
use crate::corpus::Example;
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
    pub(super) fn count_change(&mut self, was: bool, is: bool) {
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
    pub(super) fn between(lines: &Lines, before: &Standing, after: &Standing) -> ChangedLines {
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

/// The larger train gain first, then the higher precision, then the shorter edit.
pub(super) fn by_estimate(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    let (a_estimate, b_estimate) = (
        a.estimate.unwrap_or_default(),
        b.estimate.unwrap_or_default(),
    );
    b_estimate
        .gain()
        .cmp(&a_estimate.gain())
        .then(b_estimate.precision().total_cmp(&a_estimate.precision()))
        .then(a.describe().len().cmp(&b.describe().len()))
        .then(a.describe().cmp(&b.describe()))
}

/// The labeled corpora suggestions are made from and validated on, and the word vectors of
/// their words (`None`: induction's word sets take no word by its meaning).
pub struct Corpora<'a> {
    pub train: &'a [Example],
    pub dev: &'a [Example],
    pub vectors: Option<&'a WordNeighbours>,
}

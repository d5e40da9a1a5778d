//! `rulelens report`: everything rulelens knows about a rules file as one self-contained
//! HTML page, to look at rather than read. `data` gathers the figures from the library's
//! own computations (the rule system on each corpus, each rule's figures as `rulelens
//! check` has them, the misclassified lines with why, the model cache's training curves,
//! the bench cache's results); `charts` draws them as SVG with plotters; `page` renders the
//! page from a minijinja template.
//!
//! Nothing here trains or reads the network: the curves and the bench are what earlier
//! trainings recorded, and the suggestions are measured by the caller (the suggestion
//! engine, `crate::suggest`), so that a report costs about what `rulelens check` and
//! `rulelens suggest` cost.

pub mod charts;
pub mod data;
pub mod page;

pub use data::{
    CorpusReport, DEFAULT_MAX_MISCLASSIFIED, MAX_CURVES, Misclassified, MisclassifiedLine,
    NamedCorpus, NearestMiss, Report, ReportInputs, TrainingCurve, gather, misclassified,
};
pub use page::{RenderError, render};

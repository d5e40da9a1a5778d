//! What fitting says: the events it reports as it goes ([`FitEvent`]), each as the lines a
//! person reads ([`FitEvent::lines`], one wording for `rulelens train`'s standard error and
//! the language server's log and progress), and the errors it stops with ([`FitError`]),
//! shared by the steps of [`fit`](crate::model::fit).

use crate::model::encoder::ENCODER_NAME;
use crate::model::fa_rnn::Reading;
use crate::model::fa_rnn::decompose::Method;
use crate::model::nn::embeddings::EmbeddingsError;
use crate::model::nn::probabilities::Calibration;
use crate::model::train::checkpoint::{
    DevFigure, LabelModelMetrics, LeftOutRule, TrainedAgain, WarmStartRecord,
};
use crate::model::train::learn::{EpochReport, TrainError};
use crate::model::train::settings::{MIN_DEFAULT_REACH, ModelKind};
use crate::model::train::warm::WhyFull;
use std::fmt;

/// What [`fit`](crate::model::fit) reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum FitEvent<'a> {
    /// A direction's network was built: the rules' states and the free ones.
    Built {
        reading: Reading,
        n_states: usize,
        free_states: usize,
        rank: usize,
        method: Method,
        relative_error: f64,
    },
    /// A SoPa was built: the rules' patterns that became soft patterns, those that kept
    /// their DFA, and the free patterns; the share of words it drops in training
    /// ([`crate::model::SopaSettings::word_dropout_for`]), for train sentences of
    /// `mean_tokens` tokens on average.
    BuiltSopa {
        chained: usize,
        exact: usize,
        free: usize,
        word_dropout: f64,
        mean_tokens: f64,
    },
    /// A black box was built: its trained numbers.
    BuiltBlackBox { model: ModelKind, parameters: usize },
    /// The labels of the train corpus the rules do not name, which the network (`model`)
    /// learns too ([`ModelKind::how_it_learns_unnamed_labels`]).
    CorpusLabels {
        labels: &'a [String],
        model: ModelKind,
    },
    /// The rules the gold lines training reads contradict, which it leaves out
    /// (`left_out.rs`).
    RulesLeftOut(&'a [LeftOutRule]),
    /// A reversed pattern passed the state cap; the backward direction ignores it.
    ReversedTooLarge { pattern: &'a str },
    /// The data training will use, how many of its sentences are longer than the network
    /// reads (`max_tokens`, the setting `max_sentence_tokens`), and how many train lines
    /// were left out for a label no rule names (the setting `drop_unnamed_labels`).
    Data {
        n_train: usize,
        n_dev: usize,
        n_truncated: usize,
        max_tokens: usize,
        n_dropped: usize,
    },
    /// Some train or dev lines have no gold label: the label model of the rules taught them
    /// (see [`LabelModelMetrics`]).
    LabelModel(LabelModelMetrics),
    /// Member `index` (from 0) of an ensemble of `members` starts training, from `seed`.
    Member {
        index: usize,
        members: usize,
        seed: u64,
    },
    /// Every member of an ensemble trained; the dev accuracy of their averaged logits (or
    /// what `figure` says the dev figures measure).
    Ensemble {
        members: usize,
        dev_accuracy: f64,
        figure: DevFigure,
    },
    /// The n-gram regression beside the network was fitted, or a warm start's previous one
    /// `reused`: its n-grams, its character n-grams (0 where dev left them out), the words
    /// whose vectors it reads (0 for n-grams alone), the C chosen on dev, its weight (asked
    /// for, the previous one's, or chosen on a gold dev from `weights_tried`), the dev
    /// accuracy of the network with it (or what `figure` says the dev figures measure), and
    /// on a gold dev the temperature of its probabilities fitted there
    /// (`checkpoint::Manifest::probability_scale`) with their log loss at it.
    NgramRegression {
        n_features: usize,
        character_features: usize,
        vector_words: usize,
        c: f64,
        weight: f64,
        weights_tried: usize,
        reused: bool,
        dev_accuracy: f64,
        figure: DevFigure,
        calibration: Option<Calibration>,
        /// Dev's gold lines it was then fitted again with (`data::with_dev_gold`), or a
        /// reused one was; 0: none.
        refit_dev_lines: usize,
    },
    /// The network was trained again on train's and dev's gold lines together, each member
    /// for the epochs it kept on dev (`fit::train_again_with_dev`).
    TrainedAgain(&'a TrainedAgain),
    /// An epoch ended (epoch 0 is the untrained network); with a warm start, a dev
    /// measurement (0 is the warm-started network before fine-tuning). The figure says what
    /// its dev accuracy measures.
    Epoch(&'a EpochReport, DevFigure),
    /// The network starts from the previous one ([`fit_from`](crate::model::fit_from)).
    WarmStart(&'a WarmStartRecord),
    /// [`fit_from`](crate::model::fit_from) trains from scratch, and why.
    FullTraining { why: WhyFull },
}

/// What training says of the teacher of the lines without a gold label.
fn label_model_lines(used: &LabelModelMetrics) -> Vec<String> {
    let teacher = if used.encoder_teaches {
        format!(
            "a regression on the sentence encoder's vectors ({ENCODER_NAME}), which the rules' label model taught"
        )
    } else {
        "the rules' label model".to_string()
    };
    let mut lines = vec![format!(
        "{} gold train line{} and {} without a gold label, taught by {teacher} (its estimated accuracy on them {:.2}%)",
        used.gold_lines,
        plural(used.gold_lines),
        used.unlabeled_lines,
        100.0 * used.estimated_accuracy
    )];
    if used.silence_teaches_default {
        lines.push(format!(
                "the lines no rule fires on are among them, taught the label model's answer for the rules' silence: nothing else speaks for the default label (no gold line of it, and no rule of its own, or the lines the rules fire on hold under {:.0}% of it by the label model's estimate)",
                100.0 * MIN_DEFAULT_REACH
            ));
    }
    if let Some(reach) = used.silence_rules_reach {
        lines.push(format!(
            "past the rules' silence, each line no rule fires on is taught the rules' label at a regression's probability, on the sentence encoder's vectors ({ENCODER_NAME}), that a rule of it fires there, over {:.1}%: the share of that label's lines the rules are estimated to fire on",
            100.0 * reach
        ));
    }
    if used.network_from_gold {
        lines.push("the network learns from the gold lines; the n-gram regression beside it from them and the taught ones".to_string());
    }
    if used.dev_from_label_model {
        lines.push(format!(
                "dev has no gold label: training stops on agreement with {} of each dev line",
                if used.encoder_teaches {
                    "the encoder's regression's most probable label"
                } else if used.silence_rules_reach.is_some() {
                    "the most probable label taught (past the rules' silence where no rule fires, else the label model's)"
                } else {
                    "the label model's most probable label"
                }
            ));
    }
    lines
}

impl FitEvent<'_> {
    /// What the event says, as lines for a person (without the rules file's name, which
    /// the caller puts before them where it helps): `rulelens train` prints them, the
    /// language server logs them and shows the data's and a member's in its progress. Empty
    /// for an epoch, which a progress bar or `$/progress` shows ([`EpochReport::summary`]).
    pub fn lines(&self) -> Vec<String> {
        match self {
            FitEvent::Built {
                reading,
                n_states,
                free_states,
                rank,
                method,
                relative_error,
            } => vec![format!(
                "{}{n_states} states{}, rank {rank} ({}, relative error {relative_error:.2e})",
                if *reading == Reading::RightToLeft {
                    "reversed: "
                } else {
                    ""
                },
                if *free_states > 0 {
                    format!(" and {free_states} free states")
                } else {
                    String::new()
                },
                if *method == Method::Exact {
                    "exact"
                } else {
                    "ALS"
                },
            )],
            FitEvent::BuiltSopa {
                chained,
                exact,
                free,
                word_dropout,
                mean_tokens,
            } => vec![format!(
                "{chained} of {} rule patterns are soft patterns (the others keep their DFA), {free} free patterns; {:.0} % of words dropped in training ({mean_tokens:.1} tokens per train sentence on average)",
                chained + exact,
                word_dropout * 100.0
            )],
            FitEvent::BuiltBlackBox { model, parameters } => vec![format!(
                "{}: {parameters} trained numbers, reading the words alone (the rules name the corpora and labels)",
                model.display_name()
            )],
            FitEvent::CorpusLabels { labels, model } => vec![format!(
                "the train corpus has {} label{} the rules do not name ({}); the {} learns {} {}",
                labels.len(),
                plural(labels.len()),
                labels.join(", "),
                model.display_name(),
                if labels.len() == 1 { "it" } else { "them" },
                model.how_it_learns_unnamed_labels()
            )],
            FitEvent::RulesLeftOut(left_out) => vec![format!(
                "{} rule{} left out, which the gold lines contradict: {}; the network and the label model read the others (--keep-every-rule, the server's training.keepEveryRule, keeps them; --zero-shot is every rule)",
                left_out.len(),
                plural(left_out.len()),
                left_out
                    .iter()
                    .map(|rule| format!(
                        "line {} (`{}`, right on {} of {})",
                        rule.line, rule.label, rule.right, rule.gold_lines
                    ))
                    .collect::<Vec<_>>()
                    .join(", ")
            )],
            FitEvent::ReversedTooLarge { pattern } => vec![format!(
                "warning: the reversed automaton of pattern `{pattern}` passes the state cap; the backward direction ignores the pattern"
            )],
            FitEvent::Data {
                n_train,
                n_dev,
                n_truncated,
                max_tokens,
                n_dropped,
            } => {
                let mut lines = vec![format!("{n_train} training and {n_dev} dev sentences")];
                if *n_dropped > 0 {
                    lines.push(format!(
                        "{n_dropped} train line{} of labels the rules do not name left out (--drop-unnamed-labels; the server's training.dropUnnamedLabels); dev lines of such labels count as errors",
                        plural(*n_dropped)
                    ));
                }
                if *n_truncated > 0 {
                    lines.push(format!(
                        "warning: {n_truncated} sentence{} longer than {max_tokens} tokens; the network reads the first {max_tokens} (--max-sentence-tokens; the server's training.maxSentenceTokens)",
                        if *n_truncated == 1 { " is" } else { "s are" }
                    ));
                }
                lines
            }
            FitEvent::LabelModel(used) => label_model_lines(used),
            FitEvent::Member {
                index,
                members,
                seed,
            } => vec![format!(
                "ensemble member {} of {members} (seed {seed})",
                index + 1
            )],
            FitEvent::Ensemble {
                members,
                dev_accuracy,
                figure,
            } => vec![format!(
                "the {members} members' logits averaged: {} {:.2}%",
                figure.name(),
                100.0 * dev_accuracy
            )],
            FitEvent::NgramRegression { .. } => self.ngram_regression_lines(),
            FitEvent::TrainedAgain(again) => vec![format!(
                "the network trained again from its start on {} lines, dev's {} gold line{} among them, each member for the epochs it kept on dev ({}): dev no longer measures it either (--hold-out-dev keeps dev out)",
                again.lines,
                again.dev_lines,
                plural(again.dev_lines),
                again
                    .epochs
                    .iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )],
            FitEvent::Epoch(..) => Vec::new(),
            FitEvent::WarmStart(record) => vec![format!(
                "warm start: {} of {} patterns keep their trained parameters ({} new or changed, {} gone); rank {} kept + {} new",
                record.kept_patterns,
                record.kept_patterns + record.changed_patterns,
                record.changed_patterns,
                record.removed_patterns,
                record.kept_rank,
                record.new_rank
            )],
            FitEvent::FullTraining { why } => vec![format!(
                "training from scratch, not from the previous network: {why}"
            )],
        }
    }

    /// [`FitEvent::NgramRegression`]'s lines: its fit, and the fit again with dev's lines.
    fn ngram_regression_lines(&self) -> Vec<String> {
        let FitEvent::NgramRegression {
            n_features,
            character_features,
            vector_words,
            c,
            weight,
            weights_tried,
            reused,
            dev_accuracy,
            figure,
            calibration,
            refit_dev_lines,
        } = self
        else {
            return Vec::new();
        };
        let mut lines = vec![format!(
            "with the n-gram regression beside it ({}, C {c}, weight {weight}{}): {} {:.2}%{}",
            regression_reads(*n_features, *character_features, *vector_words),
            weight_from(*reused, *weights_tried),
            figure.name(),
            100.0 * dev_accuracy,
            calibration.map_or(String::new(), |fitted| format!(
                "; probabilities at temperature {:.2}, fitted on dev, log loss {:.3}",
                fitted.temperature, fitted.log_loss
            )),
        )];
        if *refit_dev_lines > 0 {
            lines.push(format!(
                "the n-gram regression fitted again at C {c} with dev's {refit_dev_lines} gold line{} beside train's: dev no longer measures it, and the dev figures above are from before (--hold-out-dev keeps dev out)",
                plural(*refit_dev_lines)
            ));
        }
        lines
    }
}

/// A noun's plural ending after `n`.
fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Why fitting failed.
#[derive(Debug)]
pub enum FitError {
    /// A setting out of range, or a device that cannot be had.
    Config(String),
    /// The rules file has errors.
    RulesHaveErrors {
        n_errors: usize,
    },
    /// No example with a label the rules know, in train or in dev.
    NoData {
        split: &'static str,
    },
    /// The train corpus has labels the rules do not name and the network cannot learn them
    /// (an FA-RNN without word vectors).
    UnnamedLabels {
        labels: Vec<String>,
    },
    Embeddings(EmbeddingsError),
    Train(TrainError),
}

impl fmt::Display for FitError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FitError::Config(message) => write!(f, "{message}"),
            FitError::RulesHaveErrors { n_errors } => write!(
                f,
                "the rules have {n_errors} error{}; fix them before training",
                if *n_errors == 1 { "" } else { "s" }
            ),
            FitError::NoData { split } => write!(
                f,
                "no {split} example has a label the rules know (a label with a rule or the default), and none without a label is learned from: lines without a gold label are learned from where some rule fires on them (any line, for a black box or where no rule and no gold line has the default label; dev: where it has no gold label at all), and never from a file without a rule"
            ),
            FitError::UnnamedLabels { labels } => write!(
                f,
                "the train corpus has {} label{} the rules do not name ({}), which the FA-RNN family learns from word vectors, and beta 1 reads none; lower --beta, or pass --drop-unnamed-labels to leave their lines out",
                labels.len(),
                if labels.len() == 1 { "" } else { "s" },
                labels.join(", ")
            ),
            FitError::Embeddings(error) => write!(f, "{error}"),
            FitError::Train(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for FitError {}

impl From<TrainError> for FitError {
    fn from(error: TrainError) -> FitError {
        FitError::Train(error)
    }
}

impl From<candle_core::Error> for FitError {
    fn from(error: candle_core::Error) -> FitError {
        FitError::Train(TrainError::Tensor(error))
    }
}

/// Where an n-gram regression's weight came from, as `train` says it after the weight.
fn weight_from(reused: bool, weights_tried: usize) -> String {
    if reused {
        ", the previous network's".to_string()
    } else if weights_tried > 1 {
        format!(", the smallest dev log loss of {weights_tried} weights")
    } else {
        String::new()
    }
}

/// What an n-gram regression reads, as `train` says it: its n-grams, its character n-grams
/// and the words whose vectors its mean word vector reads, where it has them.
fn regression_reads(n_features: usize, character_features: usize, vector_words: usize) -> String {
    let mut reads = vec![format!("{n_features} n-grams")];
    if character_features > 0 {
        reads.push(format!("{character_features} character n-grams"));
    }
    if vector_words > 0 {
        reads.push(format!("the mean vector of {vector_words} words"));
    }
    match reads.len() {
        3 => format!("{}, {} and {}", reads[0], reads[1], reads[2]),
        _ => reads.join(" and "),
    }
}

//! The n-gram regression beside a trained network (`nn/ngrams.rs`) as [`super::fit`]
//! adds it: fitted on the train lines once the network has trained (or a warm start's,
//! reused), its weight chosen on a gold dev by the log loss of the network's probabilities
//! with it, each weight's at the temperature fitted there. The network's dev logits are read
//! once, by the path its dev accuracy takes; each weight's are those plus the regression's, a
//! sparse product a line (`docs/performance.md`).

use crate::automata::RuleSystem;
use crate::corpus::Example;
use crate::model::fa_rnn::WordInput;
use crate::model::nn::network::Network;
use crate::model::nn::ngrams::{
    NgramFit, NgramLine, NgramRegression, NgramTrainLine, Regularization, WithNgrams,
};
use crate::model::nn::probabilities::{Calibration, calibrate};
use crate::model::nn::softmax_regression::Target;
use crate::model::train::checkpoint::{DevFigure, DevRefit, LabelModelMetrics, NgramMetrics};
use crate::model::train::data::with_dev_gold;
use crate::model::train::events::{FitError, FitEvent};
use crate::model::train::learn::{LabeledSentence, share_first_largest};
use crate::model::train::load::LoadedModel;
use crate::model::train::settings::{
    DEFAULT_NGRAM_WEIGHT, TrainingSettings, UNLABELED_DEV_NGRAM_WEIGHT,
};
use crate::model::train::warm::data_sha256;

/// What deciding on the n-gram regression beside a network knows: what dev's figures
/// measure (whether dev has gold labels), the network's dev accuracy alone, and the seconds
/// the regression's fit took.
pub(super) struct NgramsBeside {
    pub figure: DevFigure,
    pub network_accuracy: f64,
    pub seconds: f64,
}

/// A network with the n-gram regression beside it, the regression's metrics and the dev
/// accuracy with it.
pub(super) type NetworkWithNgrams = (Box<dyn Network>, NgramMetrics, f64);

/// The regression fitted again once its C, its weight and the temperature were chosen on a
/// gold dev, on train's and dev's gold lines together (`data::with_dev_gold`):
/// `record.dev_lines` of `lines` are dev's.
pub(super) struct Refit<'a> {
    input: &'a WordInput,
    n_labels: usize,
    lines: Vec<&'a LabeledSentence>,
    record: DevRefit,
}

/// A warm start's regression, reused as it is: its weight, and its fit again with dev's
/// lines where it had one (the same dev: a warm start needs the same train and dev lines).
pub(super) struct Reused {
    weight: f64,
    refit: Option<DevRefit>,
}

/// The refit of the regression of `n_labels` labels with dev's gold lines beside train's
/// (`train`, `label_model` and `dev` as [`TrainingData`](super::data::TrainingData) holds
/// them; `dev_examples` the dev corpus read), unless there is no `input` to fit it with,
/// `settings` hold dev out or dev has no gold line of a label the network knows.
pub(super) fn refit_with_dev<'a>(
    input: Option<&'a WordInput>,
    (train, label_model, dev): (
        &'a [LabeledSentence],
        Option<LabelModelMetrics>,
        &'a [LabeledSentence],
    ),
    dev_examples: &[Example],
    n_labels: usize,
    settings: &TrainingSettings,
) -> Option<Refit<'a>> {
    let input = input.filter(|_| !settings.hold_out_dev)?;
    let (lines, dev_lines) = with_dev_gold(train, label_model, dev, n_labels);
    (dev_lines > 0).then(|| Refit {
        input,
        n_labels,
        lines,
        record: DevRefit {
            dev_lines,
            dev_sha256: data_sha256(&[], dev_examples),
        },
    })
}

/// `net` with the fitted n-gram regression beside it at the weight chosen on a gold dev, the
/// one whose probabilities have the smallest log loss there at their fitted temperature (a
/// warm start's reused weight, or without a gold dev the setting's or
/// [`UNLABELED_DEV_NGRAM_WEIGHT`]), with its metrics and
/// the dev accuracy with it ([`FitEvent::NgramRegression`]), from `net`'s logits of each
/// line of `dev` (read as its dev accuracy reads them). It is kept even where dev
/// says the network alone does better: that happens only on a dev of some hundred lines,
/// where the difference is a line or two, and keeping it does better on held-out lines
/// (`docs/results.md`, "A hundred lines, many draws"). Given a `refit` (made only on a
/// gold dev, for a regression not reused), the regression beside the network is the one
/// fitted again with dev's gold lines at the chosen C (with character n-grams where dev kept
/// them), at the chosen weight and temperature; the dev accuracy and log loss reported are those measured before. On
/// held-out lines a hundred short sentences gain 3.4 points, 1 % of TREC 1.6
/// (`docs/results.md`, "Dev's gold lines in the regression's last fit").
pub(super) fn with_ngram_regression(
    net: Box<dyn Network>,
    (NgramFit { regression, c }, reused): (NgramFit, Option<Reused>),
    beside: NgramsBeside,
    (network_logits, dev): (Vec<Vec<f32>>, &[LabeledSentence]),
    settings: &TrainingSettings,
    refit: Option<Refit>,
    on_event: &mut dyn FnMut(FitEvent),
) -> Result<NetworkWithNgrams, FitError> {
    let NgramsBeside {
        figure,
        network_accuracy,
        seconds,
    } = beside;
    let gold_dev = figure == DevFigure::Accuracy;
    // Each weight with the factor on the fitted regression's logits: a warm start's keeps
    // its weight, already in; a new one, fitted at weight 1, takes each weight to choose from
    // on the gold dev in turn.
    let candidates: Vec<(f64, f32)> = match &reused {
        Some(reused) => vec![(reused.weight, 1.0)],
        None if gold_dev => settings
            .ngram_weights()
            .into_iter()
            .map(|weight| (weight, weight as f32))
            .collect(),
        None => {
            let weight = settings.ngram_weight.unwrap_or(UNLABELED_DEV_NGRAM_WEIGHT);
            vec![(weight, weight as f32)]
        }
    };
    // Each weight's dev logits are the network's plus the regression's at that weight, a
    // sparse product a line.
    let with_weight = |factor: f32| -> Vec<Vec<f32>> {
        let scaled = regression.scaled(factor);
        network_logits
            .iter()
            .zip(dev)
            .map(|(logits, line)| {
                let added = scaled.logits(&line.sentence.words, 0..0);
                let mut logits = logits.clone();
                // An empty row (a line the plain scorer cannot read) stays empty: wrong.
                for (l, x) in logits.iter_mut().zip(added) {
                    *l += x;
                }
                logits
            })
            .collect()
    };
    let weighted: Vec<Vec<Vec<f32>>> = candidates
        .iter()
        .map(|&(_, factor)| with_weight(factor))
        .collect();
    // On a gold dev, each weight's probabilities at the temperature that fits dev best, and
    // their log loss there: the weight is the one with the smallest. Dev accuracy on fifty
    // or a hundred lines moves in steps of a line or two, and log loss also counts how sure
    // each line's prediction was. On the held-out lines of every hundred-line proxy it
    // chose better, for both families (`docs/results.md`, "The weight chosen by dev log
    // loss").
    let scale = settings.effective_logit_scale();
    let labels: Vec<Option<usize>> = dev
        .iter()
        .map(|line| usize::try_from(line.label).ok())
        .collect();
    let calibrations: Vec<Option<Calibration>> = weighted
        .iter()
        .map(|logits| {
            if !gold_dev {
                return None;
            }
            let lines: Vec<(Vec<f32>, Option<usize>)> =
                logits.iter().cloned().zip(labels.iter().copied()).collect();
            calibrate(&lines, scale)
        })
        .collect();
    let best = first_least(&calibrations);
    let (weight, factor) = candidates[best];
    let accuracy = share_first_largest(&weighted[best], dev);
    let calibration = calibrations[best];
    let refit_started = std::time::Instant::now();
    let was_reused = reused.is_some();
    let characters = regression.reads_characters();
    let refitted = refit.and_then(|refit| {
        let lines = refit.lines.into_iter();
        let fixed = Regularization::Fixed { c, characters };
        let fit = fit_regression(refit.input, refit.n_labels, lines, fixed, settings)?;
        Some((fit.regression, refit.record))
    });
    // A reused regression was fitted again with dev's lines where its record says so.
    let (regression, refit) = match (refitted, reused) {
        (Some((refitted, record)), _) => (refitted, Some(record)),
        (None, reused) => (regression, reused.and_then(|reused| reused.refit)),
    };
    let seconds = seconds + refit_started.elapsed().as_secs_f64();
    // The refit's n-grams are train's and dev's.
    let (n_features, character_features, vector_words) = (
        regression.n_features(),
        regression.n_character_features(),
        regression.n_vector_words(),
    );
    let with = WithNgrams::new(net, regression.scaled(factor))?;
    on_event(FitEvent::NgramRegression {
        n_features,
        character_features,
        vector_words,
        c,
        weight,
        weights_tried: candidates.len(),
        reused: was_reused,
        dev_accuracy: accuracy,
        figure,
        calibration,
        refit_dev_lines: refit.as_ref().map_or(0, |record| record.dev_lines),
    });
    let metrics = NgramMetrics {
        features: n_features,
        character_features,
        vector_words,
        c,
        weight: Some(weight),
        network_dev_accuracy: network_accuracy,
        seconds,
        temperature: calibration.map(|fitted| fitted.temperature),
        dev_log_loss: calibration.map(|fitted| fitted.log_loss),
        refit,
    };
    Ok((Box::new(with), metrics, accuracy))
}

/// The n-gram regression beside a trained network of `system`'s labels, and the weight
/// already in it where it is `previous`'s (a warm start's: the same train and dev lines under
/// the same settings, so the same n-grams, C and weight), which it is where that network has
/// one for the same labels in the same order; else fitted on `train_data` at weight 1 (its
/// logits over the logit scale), with the mean vectors of `input`'s word vectors, its C
/// chosen on `dev_data`. `None` where it cannot be fitted
/// (no train line, a vocabulary past its limit).
pub(super) fn ngram_regression(
    previous: Option<&LoadedModel>,
    input: &WordInput,
    system: &RuleSystem,
    (train_data, dev_data): (&[LabeledSentence], &[LabeledSentence]),
    settings: &TrainingSettings,
) -> Option<(NgramFit, Option<Reused>)> {
    let labels = system.labels();
    let reused = previous.and_then(|previous| {
        let regression = previous.net.ngram_regression()?;
        let metrics = previous.manifest.metrics.ngram_regression.as_ref()?;
        if previous.manifest.labels != labels {
            return None;
        }
        let regression = regression.remapped(previous.vocabulary.as_ref()?, &input.vocabulary)?;
        let weight = metrics
            .weight
            .or(previous.manifest.settings.ngram_weight)
            .unwrap_or(DEFAULT_NGRAM_WEIGHT);
        let reused = Reused {
            weight,
            refit: metrics.refit.clone(),
        };
        Some((
            NgramFit {
                regression,
                c: metrics.c,
            },
            Some(reused),
        ))
    });
    if reused.is_some() {
        return reused;
    }
    let dev: Vec<NgramLine> = dev_data
        .iter()
        .map(|line| {
            (
                line.sentence.words.as_slice(),
                usize::try_from(line.label).ok(),
            )
        })
        .collect();
    fit_regression(
        input,
        labels.len(),
        train_data.iter(),
        Regularization::ChosenOn(&dev),
        settings,
    )
    .map(|fit| (fit, None))
}

/// The n-gram regression of `n_labels` labels fitted on `lines` at weight 1 (its logits
/// over the logit scale), with the mean vectors of `input`'s word vectors, its C as
/// `regularization` says; `None` where it cannot be fitted.
fn fit_regression<'a>(
    input: &WordInput,
    n_labels: usize,
    lines: impl Iterator<Item = &'a LabeledSentence>,
    regularization: Regularization,
    settings: &TrainingSettings,
) -> Option<NgramFit> {
    let train: Vec<NgramTrainLine> = lines
        .map(|line| {
            let target = match &line.soft {
                Some(probabilities) => Target::Distribution(probabilities.clone()),
                None => Target::Label(line.label as usize),
            };
            (line.sentence.words.as_slice(), target)
        })
        .collect();
    let factor = (1.0 / settings.effective_logit_scale()) as f32;
    let words = (&input.vocabulary, Some(&input.vectors));
    NgramRegression::fit(words, &train, regularization, n_labels, factor)
}

/// The index of the first calibration with the smallest log loss (0 for none).
fn first_least(calibrations: &[Option<Calibration>]) -> usize {
    let mut best = 0;
    let mut least = f64::INFINITY;
    for (i, calibration) in calibrations.iter().enumerate() {
        if let Some(Calibration { log_loss, .. }) = calibration
            && *log_loss < least
        {
            (best, least) = (i, *log_loss);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_of_the_least_log_losses_is_chosen() {
        let at = |log_loss: f64| {
            Some(Calibration {
                temperature: 1.0,
                log_loss,
            })
        };
        assert_eq!(first_least(&[at(0.5), at(0.3), at(0.3), at(0.4)]), 1);
        assert_eq!(first_least(&[at(0.3), at(0.5), at(0.3)]), 0);
        assert_eq!(first_least(&[None, at(0.5)]), 1);
        assert_eq!(first_least(&[None, None]), 0);
        assert_eq!(first_least(&[]), 0);
    }
}

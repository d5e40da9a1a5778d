//! The learning loop, for a network of any family: cross-entropy, Adam, minibatches, early
//! stopping on dev accuracy (Jiang et al. 2020, §4 and papers-brief §1.12).
//!
//! - The loss is the mean cross-entropy of the aggregation's logits times
//!   [`TrainingSettings::logit_scale`]: soft-logic logits live in [0, ~1], and without a scale the
//!   softmax could never become confident. A sentence without a gold label is taught the
//!   label model's probabilities instead (`LabeledSentence::soft`): the cross-entropy
//!   against that distribution.
//! - Each epoch shuffles the sentences with a seeded generator, cuts them into groups of 32
//!   batches, sorts each group by length and shuffles the batches, so that batches pad
//!   little (length bucketing) and the order still changes every epoch.
//! - The untrained network is the first candidate; after each epoch the dev accuracy is
//!   measured and the best parameters are kept; training stops after `patience` epochs
//!   without a strictly better dev accuracy ([`TrainingSettings::patience_epochs`]: never
//!   fewer than [`MIN_PATIENCE_UPDATES`] updates, which on a hundred lines are 25 epochs),
//!   and the best parameters are restored. A network trained again on train's and dev's
//!   lines together ([`Schedule::keep_last`]) trains the epochs dev chose before and keeps
//!   its last parameters.
//! - Adam steps a network's linear head on fixed features ([`Network::head_parameters`]: the
//!   FA-RNN's labels no rule names) at [`HEAD_LEARNING_RATE`], the rest at the settings' step
//!   size: a head starting at zero at the rules' step size had not left its start when
//!   patience ran out.
//! - A batch that would keep more than [`MAX_TRAINING_BYTES`] for the gradient (long
//!   documents: [`Network::training_bytes_per_token`] times its sentences times its longest
//!   one) is split, by length, into parts that each keep less; their gradients are summed
//!   into the one update the whole batch would make. Only a sentence past the budget on its
//!   own cannot train (`fit` refuses it before training).
//! - A batch whose loss is not finite (a diverging network) updates nothing and is
//!   counted in [`EpochReport::skipped_batches`]; the clamped states of `fa_rnn/mod.rs` keep
//!   this from happening in practice.
//! - Runs are reproducible: the same seed, data and configuration give the same weights.
//! - [`train`] checks `cancelled` between batches and returns [`TrainError::Cancelled`].
//! - Low-resource subsets ([`evenly_spaced`]) take the evenly spaced indices ⌊i·n/m⌋, as the
//!   reference code does (papers-brief §1.13): the same subset for every seed.

use crate::automata::RuleSystem;
use crate::model::fa_rnn::scorer::FaRnnScorer;
use crate::model::nn::batch::{Batch, Sentence};
use crate::model::nn::embeddings::Vocabulary;
use crate::model::nn::network::Network;
use crate::model::nn::rng::SplitMix64;
use crate::model::nn::threads::on_two_threads;
use crate::model::train::checkpoint::DevFigure;
#[cfg(doc)]
use crate::model::train::settings::MIN_PATIENCE_UPDATES;
use crate::model::train::settings::{HEAD_LEARNING_RATE, TrainingSettings};
use candle_core::backprop::GradStore;
use candle_core::{Device, Tensor};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use std::fmt;

/// The most bytes a training batch may keep for the gradient: a batch past it is split
/// into parts (the module's doc).
pub const MAX_TRAINING_BYTES: u64 = 8 << 30;

/// A sentence with its gold label (an index into the rule system's labels), or, for a line
/// without one, what the label model estimates of it.
#[derive(Debug, Clone, PartialEq)]
pub struct LabeledSentence {
    pub sentence: Sentence,
    /// The gold label; for a line without one, the label model's most probable label.
    pub label: u32,
    /// For a line without a gold label: the label model's probability of each label, which
    /// training teaches instead of `label`.
    pub soft: Option<Vec<f32>>,
}

/// What one epoch did.
#[derive(Debug, Clone, PartialEq)]
pub struct EpochReport {
    /// 0 is the untrained network.
    pub epoch: usize,
    /// Mean training loss of the epoch's updates (`None` for epoch 0).
    pub loss: Option<f64>,
    /// Batches whose loss was not finite, and so updated nothing.
    pub skipped_batches: usize,
    pub dev_accuracy: f64,
    /// Whether this epoch's parameters are the best so far.
    pub best: bool,
    /// Seconds the epoch's updates took.
    pub seconds: f64,
}

impl EpochReport {
    /// The epoch in a few words, as `rulelens train` shows it beside its progress bar (or
    /// after `epoch N: `): `loss 0.2113  dev accuracy 91.40% (best)`, the dev figure named
    /// by what it measures (`figure`).
    pub fn summary(&self, figure: DevFigure) -> String {
        format!(
            "loss {}  {} {:.2}%{}{}",
            self.loss
                .map_or_else(|| "-".to_string(), |l| format!("{l:.4}")),
            figure.name(),
            100.0 * self.dev_accuracy,
            if self.best { " (best)" } else { "" },
            match self.skipped_batches {
                0 => String::new(),
                n => format!("  ({n} batches skipped: loss not finite)"),
            }
        )
    }
}

/// What a training run did.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainReport {
    pub history: Vec<EpochReport>,
    pub best_epoch: usize,
    pub best_dev_accuracy: f64,
}

/// Why training stopped early.
#[derive(Debug)]
pub enum TrainError {
    Cancelled,
    Tensor(candle_core::Error),
}

impl fmt::Display for TrainError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TrainError::Cancelled => write!(f, "training was cancelled"),
            TrainError::Tensor(error) => write!(f, "{error}"),
        }
    }
}

impl std::error::Error for TrainError {}

impl From<candle_core::Error> for TrainError {
    fn from(error: candle_core::Error) -> TrainError {
        TrainError::Tensor(error)
    }
}

/// `m` evenly spaced indices of `0..n`: ⌊i·n/m⌋ for i in 0..m, with m = ⌈fraction·n⌉ (at
/// least one when n > 0).
///
/// ```
/// assert_eq!(rulelens::model::evenly_spaced(10, 0.3), [0, 3, 6]);
/// ```
pub fn evenly_spaced(n: usize, fraction: f64) -> Vec<usize> {
    let m = ((fraction.clamp(0.0, 1.0) * n as f64).ceil() as usize).clamp(usize::from(n > 0), n);
    (0..m).map(|i| i * n / m).collect()
}

/// Predicted label indices of `sentences`, in their order. The sentences are batched by
/// length, so that a batch pads little (a batch is as long as its longest sentence; in
/// the given order one long message made every batch of SMS dev that long).
pub fn predict(
    net: &dyn Network,
    sentences: &[&Sentence],
    batch_size: usize,
    device: &Device,
) -> candle_core::Result<Vec<u32>> {
    let mut predictions = vec![0; sentences.len()];
    for batch in length_batches(sentences, batch_size) {
        predict_batch(net, sentences, &batch, device, &mut predictions)?;
    }
    Ok(predictions)
}

/// Indices of `sentences` sorted by length, `batch_size` at a time: [`predict`]'s batches.
fn length_batches(sentences: &[&Sentence], batch_size: usize) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..sentences.len()).collect();
    order.sort_by_key(|&i| sentences[i].symbols.len());
    order
        .chunks(batch_size.max(1))
        .map(<[usize]>::to_vec)
        .collect()
}

/// The predictions of the sentences at `batch`, written at their indices.
fn predict_batch(
    net: &dyn Network,
    sentences: &[&Sentence],
    batch: &[usize],
    device: &Device,
    predictions: &mut [u32],
) -> candle_core::Result<()> {
    let sentences: Vec<&Sentence> = batch.iter().map(|&i| sentences[i]).collect();
    let labels = net
        .logits(&Batch::from_sentences(&sentences, device)?)?
        .argmax(1)?
        .to_vec1::<u32>()?;
    for (&i, label) in batch.iter().zip(labels) {
        predictions[i] = label;
    }
    Ok(())
}

/// Share of `data` the network labels correctly (0 for no data).
pub fn accuracy(
    net: &dyn Network,
    data: &[LabeledSentence],
    batch_size: usize,
    device: &Device,
) -> candle_core::Result<f64> {
    let sentences: Vec<&Sentence> = data.iter().map(|d| &d.sentence).collect();
    Ok(share_correct(
        &predict(net, &sentences, batch_size, device)?,
        data,
    ))
}

/// [`accuracy`], with `cancelled` polled before each batch.
fn accuracy_unless_cancelled(
    net: &dyn Network,
    data: &[LabeledSentence],
    batch_size: usize,
    device: &Device,
    cancelled: &dyn Fn() -> bool,
) -> Result<f64, TrainError> {
    let sentences: Vec<&Sentence> = data.iter().map(|d| &d.sentence).collect();
    let mut predictions = vec![0; sentences.len()];
    for batch in length_batches(&sentences, batch_size) {
        if cancelled() {
            return Err(TrainError::Cancelled);
        }
        predict_batch(net, &sentences, &batch, device, &mut predictions)?;
    }
    Ok(share_correct(&predictions, data))
}

/// The share of `predictions` equal to `data`'s labels (0 for no data).
fn share_correct(predictions: &[u32], data: &[LabeledSentence]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let correct = predictions
        .iter()
        .zip(data)
        .filter(|(p, d)| **p == d.label)
        .count();
    correct as f64 / data.len() as f64
}

/// Adam over a network's parameters: its head ([`Network::head_parameters`]) at
/// [`HEAD_LEARNING_RATE`], the rest at the settings' step size, both times the schedule's
/// factor.
struct Steps {
    body: AdamW,
    head: Option<AdamW>,
}

impl Steps {
    fn new(net: &dyn Network, learning_rate: f64, factor: f64) -> candle_core::Result<Steps> {
        let adam = |vars: Vec<candle_core::Var>, lr: f64| {
            AdamW::new(
                vars,
                ParamsAdamW {
                    lr: lr * factor,
                    weight_decay: 0.0,
                    ..ParamsAdamW::default()
                },
            )
        };
        let head = net.head_parameters();
        let in_head = |var: &candle_core::Var| head.iter().any(|h| h.id() == var.id());
        let body = net
            .parameters()
            .into_iter()
            .filter(|v| !in_head(v))
            .collect();
        Ok(Steps {
            body: adam(body, learning_rate)?,
            head: if head.is_empty() {
                None
            } else {
                Some(adam(head, HEAD_LEARNING_RATE)?)
            },
        })
    }

    fn step(&mut self, gradients: &GradStore) -> candle_core::Result<()> {
        self.body.step(gradients)?;
        if let Some(head) = &mut self.head {
            head.step(gradients)?;
        }
        Ok(())
    }
}

/// The updates since the last dev measurement.
struct Round {
    started: std::time::Instant,
    batches: usize,
    loss_sum: f64,
    n_sentences: usize,
    skipped_batches: usize,
}

impl Default for Round {
    fn default() -> Round {
        Round {
            started: std::time::Instant::now(),
            batches: 0,
            loss_sum: 0.0,
            n_sentences: 0,
            skipped_batches: 0,
        }
    }
}

impl Round {
    /// One update on the sentences `indices` of `data`, in parts that each keep at most
    /// `budget` bytes ([`parts`]).
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        net: &dyn Network,
        data: &[LabeledSentence],
        indices: &[usize],
        config: &TrainingSettings,
        optimizer: &mut Steps,
        rng: &mut SplitMix64,
        device: &Device,
        budget: u64,
    ) -> candle_core::Result<()> {
        self.batches += 1;
        let mut gradients: Option<GradStore> = None;
        let mut value = 0.0;
        for part in parts(data, indices, net.training_bytes_per_token(), budget) {
            let sentences: Vec<&Sentence> = part.iter().map(|&i| &data[i].sentence).collect();
            let batch = Batch::from_sentences(&sentences, device)?;
            let logits = net
                .training_logits(&batch, rng)?
                .affine(config.effective_logit_scale(), 0.0)?;
            // The part's share of the batch's mean loss.
            let loss = cross_entropy(&logits, part.iter().map(|&i| &data[i]), device)?
                .affine(part.len() as f64 / indices.len() as f64, 0.0)?;
            let part_value = f64::from(loss.to_scalar::<f32>()?);
            if !part_value.is_finite() {
                self.skipped_batches += 1;
                return Ok(());
            }
            value += part_value;
            let part_gradients = loss.backward()?;
            gradients = Some(match gradients {
                None => part_gradients,
                Some(mut sum) => {
                    for var in net.parameters() {
                        if let Some(gradient) = part_gradients.get(&var) {
                            let total = match sum.get(&var) {
                                Some(previous) => (previous + gradient)?,
                                None => gradient.clone(),
                            };
                            sum.insert(&var, total);
                        }
                    }
                    sum
                }
            });
        }
        if let Some(gradients) = gradients {
            optimizer.step(&gradients)?;
        }
        self.loss_sum += value * indices.len() as f64;
        self.n_sentences += indices.len();
        Ok(())
    }
}

/// The mean cross-entropy of `logits` ([sentences × labels]) against each sentence's gold
/// label, or its label model's probabilities where it has them.
fn cross_entropy<'a>(
    logits: &Tensor,
    sentences: impl ExactSizeIterator<Item = &'a LabeledSentence> + Clone,
    device: &Device,
) -> candle_core::Result<Tensor> {
    if sentences.clone().all(|s| s.soft.is_none()) {
        let labels: Vec<u32> = sentences.map(|s| s.label).collect();
        return candle_nn::loss::cross_entropy(logits, &Tensor::new(labels.as_slice(), device)?);
    }
    let (n, k) = logits.dims2()?;
    let mut targets = vec![0f32; n * k];
    for (row, sentence) in targets.chunks_mut(k).zip(sentences) {
        match &sentence.soft {
            Some(probabilities) => {
                for (t, &p) in row.iter_mut().zip(probabilities) {
                    *t = p;
                }
            }
            None => {
                if let Some(t) = row.get_mut(sentence.label as usize) {
                    *t = 1.0;
                }
            }
        }
    }
    let targets = Tensor::from_vec(targets, (n, k), device)?.to_dtype(logits.dtype())?;
    let log_probabilities = candle_nn::ops::log_softmax(logits, 1)?;
    (log_probabilities * targets)?
        .sum_all()?
        .affine(-1.0 / n as f64, 0.0)
}

/// The sentences `indices` of `data` in parts, shortest first, each keeping at most
/// `budget` bytes at `bytes_per_token` per sentence and padded token (a part holds at
/// least one sentence): the whole batch when it fits.
fn parts(
    data: &[LabeledSentence],
    indices: &[usize],
    bytes_per_token: u64,
    budget: u64,
) -> Vec<Vec<usize>> {
    let tokens = |i: usize| data[i].sentence.symbols.len().max(1) as u64;
    let fits = |n: usize, longest: u64| {
        bytes_per_token
            .saturating_mul(longest)
            .saturating_mul(n as u64)
            <= budget
    };
    let longest = indices.iter().map(|&i| tokens(i)).max().unwrap_or(1);
    if fits(indices.len(), longest) {
        return vec![indices.to_vec()];
    }
    let mut sorted = indices.to_vec();
    sorted.sort_by_key(|&i| tokens(i));
    let mut parts: Vec<Vec<usize>> = Vec::new();
    for i in sorted {
        match parts.last_mut() {
            // Sorted: the new sentence is the part's longest.
            Some(part) if fits(part.len() + 1, tokens(i)) => part.push(i),
            _ => parts.push(vec![i]),
        }
    }
    parts
}

/// The batches of one epoch, as index lists into the training data.
fn epoch_batches(
    data: &[LabeledSentence],
    batch_size: usize,
    rng: &mut SplitMix64,
) -> Vec<Vec<usize>> {
    let mut order: Vec<usize> = (0..data.len()).collect();
    shuffle(&mut order, rng);
    let mut batches = Vec::new();
    for group in order.chunks(batch_size * 32) {
        let mut group = group.to_vec();
        group.sort_by_key(|&i| data[i].sentence.symbols.len());
        batches.extend(group.chunks(batch_size).map(<[usize]>::to_vec));
    }
    shuffle(&mut batches, rng);
    batches
}

fn shuffle<T>(items: &mut [T], rng: &mut SplitMix64) {
    for i in (1..items.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        items.swap(i, j);
    }
}

/// When training measures dev and when it stops; `None` takes the settings' value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Schedule {
    /// Batches between two dev measurements; `None`: one per epoch.
    pub evaluate_every: Option<usize>,
    /// The most passes over train, and never more than `TrainingSettings::epochs`.
    pub epochs: Option<usize>,
    /// Measurements without a better dev accuracy before training stops
    /// (`TrainingSettings::patience`).
    pub patience: Option<usize>,
    /// Factor on the settings' step size.
    pub learning_rate_factor: f64,
    /// Train every epoch of `epochs` and keep the last parameters: dev is not measured (its
    /// accuracy reads 0 in the reports) and nothing stops early. For a network trained again
    /// on train's and dev's lines together, for the epochs dev chose before
    /// (`fit::train_again_with_dev`).
    pub keep_last: bool,
}

impl Schedule {
    /// The settings' schedule: dev after every epoch, `epochs` and `patience` as set.
    pub const SETTINGS: Schedule = Schedule {
        evaluate_every: None,
        epochs: None,
        patience: None,
        learning_rate_factor: 1.0,
        keep_last: false,
    };

    /// The most dev measurements after the untrained network's on `n_train` sentences in
    /// batches of `batch_size` (`epochs` when the schedule does not set it).
    pub fn measurements(&self, n_train: usize, batch_size: usize) -> usize {
        let epochs = self.epochs.unwrap_or(1);
        match self.evaluate_every {
            None => epochs,
            Some(every) => (n_train.div_ceil(batch_size.max(1)) * epochs).div_ceil(every.max(1)),
        }
    }
}

/// Dev sentences scored at once through the tensors; [`DevScoring::Tensors`] polls
/// cancellation between two such batches.
const DEV_BATCH: usize = 64;

/// How training measures dev accuracy.
#[derive(Clone, Copy)]
pub enum DevScoring<'a> {
    /// Through the network's tensors, in batches sorted by length: any network, any device.
    Tensors,
    /// With the plain-loop [`FaRnnScorer`] of the FA-RNN family (the editor's path, equal to the
    /// tensors up to rounding) built from `system` and `vocabulary`, on two threads: SMS's
    /// 3-epoch training 3.65 → 3.49 s (`docs/performance.md`).
    Plain {
        system: &'a RuleSystem,
        vocabulary: Option<&'a Vocabulary>,
    },
}

impl DevScoring<'_> {
    /// The logits of every line of `data`, in order, read as [`DevScoring::accuracy`] reads
    /// them (so that the share of lines whose first largest logit is the label is that
    /// accuracy); an empty row for a line the plain scorer cannot read, which that counts
    /// wrong. [`TrainError::Cancelled`] when `cancelled` says so first.
    pub(crate) fn logits(
        self,
        net: &dyn Network,
        data: &[LabeledSentence],
        config: &TrainingSettings,
        device: &Device,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<Vec<f32>>, TrainError> {
        let DevScoring::Plain { system, vocabulary } = self else {
            let sentences: Vec<&Sentence> = data.iter().map(|d| &d.sentence).collect();
            let mut logits = vec![Vec::new(); sentences.len()];
            for batch in length_batches(&sentences, DEV_BATCH) {
                if cancelled() {
                    return Err(TrainError::Cancelled);
                }
                let chosen: Vec<&Sentence> = batch.iter().map(|&i| sentences[i]).collect();
                let rows = net
                    .logits(&Batch::from_sentences(&chosen, device)?)?
                    .to_vec2::<f32>()?;
                for (&i, row) in batch.iter().zip(rows) {
                    logits[i] = row;
                }
            }
            return Ok(logits);
        };
        let scorer = FaRnnScorer::new(net, system, vocabulary, config.max_sentence_tokens)?;
        on_two_threads(
            data,
            &|labeled| {
                scorer
                    .score(&labeled.sentence)
                    .map_or_else(|_| Vec::new(), |scores| scores.logits)
            },
            cancelled,
        )
        .ok_or(TrainError::Cancelled)
    }

    /// The share of `data` that `net` labels correctly (0 for no data);
    /// [`TrainError::Cancelled`] when `cancelled` says so first.
    pub(crate) fn accuracy(
        self,
        net: &dyn Network,
        data: &[LabeledSentence],
        config: &TrainingSettings,
        device: &Device,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<f64, TrainError> {
        if let DevScoring::Tensors = self {
            return accuracy_unless_cancelled(net, data, DEV_BATCH, device, cancelled);
        }
        if data.is_empty() {
            return Ok(0.0);
        }
        let logits = self.logits(net, data, config, device, cancelled)?;
        Ok(share_first_largest(&logits, data))
    }
}

/// The share of `data` whose first largest logit (as `argmax` and the plain scorer pick it)
/// is the line's label (0 for no line): an empty row, or a label past the row, is wrong.
pub(crate) fn share_first_largest(logits: &[Vec<f32>], data: &[LabeledSentence]) -> f64 {
    if data.is_empty() {
        return 0.0;
    }
    let correct = logits
        .iter()
        .zip(data)
        .filter(|(row, line)| {
            let first_largest =
                (0..row.len()).reduce(|best, c| if row[c] > row[best] { c } else { best });
            first_largest.is_some_and(|c| Some(c) == usize::try_from(line.label).ok())
        })
        .count();
    correct as f64 / data.len() as f64
}

/// Trains `net` (whose tensors live on `device`) in place and leaves it at its best dev
/// accuracy (at its last epoch with [`Schedule::keep_last`]). `on_epoch` hears about every
/// dev measurement (epoch 0 is the untrained network; with a [`Schedule`] that measures
/// within epochs, `epoch` counts measurements).
#[allow(clippy::too_many_arguments)]
pub fn train(
    net: &dyn Network,
    train_data: &[LabeledSentence],
    dev_data: &[LabeledSentence],
    config: &TrainingSettings,
    schedule: Schedule,
    dev_scoring: DevScoring,
    device: &Device,
    on_epoch: &mut dyn FnMut(&EpochReport),
    cancelled: &dyn Fn() -> bool,
) -> Result<TrainReport, TrainError> {
    let vars = net.parameters();
    let mut optimizer = Steps::new(net, config.learning_rate(), schedule.learning_rate_factor)?;
    let mut rng = SplitMix64::new(config.seed);
    let snapshot = |vars: &[candle_core::Var]| -> candle_core::Result<Vec<Tensor>> {
        vars.iter().map(|v| v.as_tensor().copy()).collect()
    };
    if cancelled() {
        return Err(TrainError::Cancelled);
    }
    let dev_accuracy = |net: &dyn Network| -> Result<f64, TrainError> {
        if schedule.keep_last {
            return Ok(0.0);
        }
        dev_scoring.accuracy(net, dev_data, config, device, cancelled)
    };
    let initial = EpochReport {
        epoch: 0,
        loss: None,
        skipped_batches: 0,
        dev_accuracy: dev_accuracy(net)?,
        best: true,
        seconds: 0.0,
    };
    on_epoch(&initial);
    let mut best = (0, initial.dev_accuracy, snapshot(&vars)?);
    let mut history = vec![initial];
    let epochs = schedule
        .epochs
        .map_or(config.epochs, |epochs| epochs.min(config.epochs));
    let patience = schedule
        .patience
        .unwrap_or_else(|| config.patience_epochs(train_data.len()));
    let mut round = Round::default();
    'epochs: for epoch in 1..=epochs {
        let batches = epoch_batches(train_data, config.batch_size.max(1), &mut rng);
        let n_batches = batches.len();
        for (b, indices) in batches.into_iter().enumerate() {
            if cancelled() {
                return Err(TrainError::Cancelled);
            }
            round.step(
                net,
                train_data,
                &indices,
                config,
                &mut optimizer,
                &mut rng,
                device,
                MAX_TRAINING_BYTES,
            )?;
            let last = b + 1 == n_batches;
            let measure = match schedule.evaluate_every {
                None => last,
                Some(every) => round.batches >= every.max(1) || (last && epoch == epochs),
            };
            if !measure {
                continue;
            }
            let seconds = round.started.elapsed().as_secs_f64();
            let dev_accuracy = dev_accuracy(net)?;
            let measurement = history.len();
            let improved = dev_accuracy > best.1;
            if improved {
                best = (measurement, dev_accuracy, snapshot(&vars)?);
            }
            let report = EpochReport {
                epoch: measurement,
                loss: Some(round.loss_sum / round.n_sentences.max(1) as f64),
                skipped_batches: round.skipped_batches,
                dev_accuracy,
                best: improved,
                seconds,
            };
            on_epoch(&report);
            history.push(report);
            round = Round::default();
            if !schedule.keep_last && measurement - best.0 >= patience {
                break 'epochs;
            }
        }
    }
    if !schedule.keep_last {
        for (var, value) in vars.iter().zip(&best.2) {
            var.set(value)?;
        }
    }
    Ok(TrainReport {
        history,
        best_epoch: best.0,
        best_dev_accuracy: best.1,
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::fa_rnn::FaRnn;
    use crate::model::fa_rnn::Scoring;
    use crate::model::fa_rnn::decompose;
    use crate::model::fa_rnn::tests::tiny_word_input;
    use crate::model::fa_rnn::weighted::WeightedAutomaton;
    use crate::model::nn::batch::Sentence;
    use crate::model::nn::embeddings::Vocabulary;
    use crate::text::tokenize;

    fn sentence(
        system: &RuleSystem,
        vocabulary: &Vocabulary,
        text: &str,
        label: u32,
    ) -> LabeledSentence {
        LabeledSentence {
            sentence: Sentence::new(system, Some(vocabulary), &tokenize(text), 1024),
            label,
            soft: None,
        }
    }

    /// The spam filter of the tests, with word vectors, and six sentences of 1 to 9 tokens.
    pub(crate) fn network_and_data() -> (FaRnn, Vec<LabeledSentence>) {
        network_and_data_with_labels(&[])
    }

    /// [`network_and_data`] with `labels` no rule names added to the rule system.
    fn network_and_data_with_labels(labels: &[&str]) -> (FaRnn, Vec<LabeledSentence>) {
        let text = "default ham\nspam: $* free $* ( call | txt ) $*\n";
        let parse = crate::syntax::parse(text);
        let (rules, _) = crate::syntax::lower(&parse, text);
        let (system, _) = crate::automata::compile(&rules, &Default::default());
        let system = system.with_labels(labels.iter().copied());
        let automaton = WeightedAutomaton::new(&system);
        let words = tiny_word_input(&["free", "call", "now", "hi", "you", "txt", "mum"]);
        let net = FaRnn::new(
            &system,
            &automaton,
            &decompose::exact(&automaton),
            Some(&words),
            Scoring::Forward,
            &Device::Cpu,
        )
        .unwrap();
        let v = &words.vocabulary;
        let data = vec![
            sentence(&system, v, "free call now you free txt mum hi you", 1),
            sentence(&system, v, "hi", 0),
            sentence(&system, v, "free txt", 1),
            sentence(&system, v, "mum call you", 0),
            sentence(&system, v, "you free now call", 1),
            sentence(&system, v, "hi mum hi mum hi", 0),
        ];
        (net, data)
    }

    /// Dev measured through the tensors hears a cancellation between two batches: a save
    /// stops a SoPa that is measuring dev without waiting for the measurement to end.
    #[test]
    fn dev_through_the_tensors_is_cancelled_between_batches() {
        let (net, data) = network_and_data();
        let polls = std::cell::Cell::new(0);
        let cancelled_at = |at: usize| {
            let polls = &polls;
            move || {
                polls.set(polls.get() + 1);
                polls.get() > at
            }
        };
        let whole = accuracy(&net, &data, 2, &Device::Cpu).unwrap();
        let measured =
            accuracy_unless_cancelled(&net, &data, 2, &Device::Cpu, &cancelled_at(3)).unwrap();
        assert_eq!(measured, whole);
        assert_eq!(polls.get(), 3, "one poll before each of the three batches");
        for at in 0..3 {
            polls.set(0);
            let stopped =
                accuracy_unless_cancelled(&net, &data, 2, &Device::Cpu, &cancelled_at(at));
            assert!(matches!(stopped, Err(TrainError::Cancelled)), "{at}");
            assert_eq!(polls.get(), at + 1, "stopped at the poll that said so");
        }
    }

    /// Adam's first step moves every parameter by about its step size: the corpus labels'
    /// head ([`Network::head_parameters`]) by [`HEAD_LEARNING_RATE`], the rest by the
    /// settings' step size.
    #[test]
    fn the_head_of_labels_no_rule_names_steps_at_its_own_rate() {
        let (net, mut data) = network_and_data_with_labels(&["question"]);
        data[1].label = 2;
        data[3].label = 2;
        let head = net.head_parameters();
        assert_eq!(head.len(), 2, "U and the bias");
        let values = |vars: &[candle_core::Var]| -> Vec<Vec<f32>> {
            vars.iter()
                .map(|v| v.as_tensor().flatten_all().unwrap().to_vec1().unwrap())
                .collect()
        };
        let body: Vec<candle_core::Var> = net
            .parameters()
            .into_iter()
            .filter(|v| head.iter().all(|h| h.id() != v.id()))
            .collect();
        let (head_before, body_before) = (values(&head), values(&body));
        let lr = 1e-4;
        let mut optimizer = Steps::new(&net, lr, 0.5).unwrap();
        let indices: Vec<usize> = (0..data.len()).collect();
        let config = TrainingSettings::DEFAULT;
        let mut rng = SplitMix64::new(1);
        Round::default()
            .step(
                &net,
                &data,
                &indices,
                &config,
                &mut optimizer,
                &mut rng,
                &Device::Cpu,
                u64::MAX,
            )
            .unwrap();
        let largest_move = |before: &[Vec<f32>], after: &[Vec<f32>]| -> f64 {
            before
                .iter()
                .flatten()
                .zip(after.iter().flatten())
                .map(|(a, b)| f64::from((a - b).abs()))
                .fold(0.0, f64::max)
        };
        let head_move = largest_move(&head_before, &values(&head));
        let body_move = largest_move(&body_before, &values(&body));
        assert!(
            (head_move - 0.5 * HEAD_LEARNING_RATE).abs() < 0.05 * HEAD_LEARNING_RATE,
            "the head moved {head_move}"
        );
        assert!(
            body_move > 0.0 && body_move < 0.5 * lr * 1.05,
            "the rest moved {body_move}"
        );
    }

    #[test]
    fn parts_cover_the_batch_shortest_first_within_the_budget() {
        let (_, data) = network_and_data();
        let indices: Vec<usize> = (0..data.len()).collect();
        assert_eq!(parts(&data, &indices, 10, u64::MAX), [indices.as_slice()]);
        // 10 bytes a token, 60 a part: 9 tokens alone, then sentences while n × longest ≤ 6.
        let split = parts(&data, &indices, 10, 60);
        assert_eq!(split, [vec![1, 2], vec![3], vec![4], vec![5], vec![0]]);
        let mut all: Vec<usize> = split.concat();
        all.sort();
        assert_eq!(all, indices);
    }

    /// A batch split into parts makes the update the whole batch makes: the parts' gradients
    /// add up to the batch's.
    #[test]
    fn a_split_batch_makes_the_whole_batchs_update() {
        let config = TrainingSettings::DEFAULT;
        let indices: Vec<usize> = (0..6).collect();
        let updated = |budget: u64| -> Vec<Vec<f32>> {
            let (net, data) = network_and_data();
            let mut optimizer = Steps::new(&net, 0.01, 1.0).unwrap();
            let mut round = Round::default();
            let mut rng = SplitMix64::new(1);
            for _ in 0..3 {
                round
                    .step(
                        &net,
                        &data,
                        &indices,
                        &config,
                        &mut optimizer,
                        &mut rng,
                        &Device::Cpu,
                        budget,
                    )
                    .unwrap();
            }
            assert_eq!(round.skipped_batches, 0);
            net.parameters()
                .iter()
                .map(|var| var.flatten_all().unwrap().to_vec1().unwrap())
                .collect()
        };
        let (whole, split) = (updated(u64::MAX), updated(1));
        let (untrained, _) = network_and_data();
        let moved = untrained
            .parameters()
            .iter()
            .zip(&whole)
            .any(|(var, after)| var.flatten_all().unwrap().to_vec1::<f32>().unwrap() != *after);
        assert!(moved, "the update changed nothing");
        for (a, b) in whole.iter().zip(&split) {
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() < 1e-5, "{x} against {y}");
            }
        }
    }

    /// A sentence taught a distribution: a one-hot one is its label's cross-entropy, and the
    /// loss of a distribution is the probability-weighted sum of each label's.
    #[test]
    fn soft_targets_are_the_cross_entropy_against_a_distribution() {
        let (_, data) = network_and_data();
        let logits = Tensor::new(&[[0.5f32, -1.0], [2.0, 0.25]], &Device::Cpu).unwrap();
        let loss = |sentences: &[LabeledSentence]| -> f32 {
            cross_entropy(&logits, sentences.iter(), &Device::Cpu)
                .unwrap()
                .to_scalar()
                .unwrap()
        };
        let with = |i: usize, label: u32, soft: Option<Vec<f32>>| LabeledSentence {
            label,
            soft,
            ..data[i].clone()
        };
        let hard = loss(&[with(0, 1, None), with(1, 0, None)]);
        let one_hot = loss(&[with(0, 1, Some(vec![0.0, 1.0])), with(1, 0, None)]);
        assert!((hard - one_hot).abs() < 1e-6, "{hard} against {one_hot}");
        let label = |i: usize, l: u32| loss(&[with(i, l, None), with(1 - i, l, None)]);
        let mixed = loss(&[
            with(0, 0, Some(vec![0.25, 0.75])),
            with(1, 0, Some(vec![0.25, 0.75])),
        ]);
        let expected = 0.25 * label(0, 0) + 0.75 * label(0, 1);
        assert!(
            (mixed - expected).abs() < 1e-5,
            "{mixed} against {expected}"
        );
    }

    /// A line is right where its first largest logit is its label, as `argmax` picks: ties
    /// go to the first label, and a row the plain scorer could not read (empty) or a label
    /// past the logits is wrong.
    #[test]
    fn dev_accuracy_from_logits_counts_the_first_largest() {
        let line = |label: u32| LabeledSentence {
            sentence: Sentence {
                symbols: Vec::new(),
                words: Vec::new(),
            },
            label,
            soft: None,
        };
        let dev = [line(0), line(1), line(1), line(0), line(7)];
        let logits = [
            vec![2.0, 2.0],
            vec![2.0, 2.0],
            vec![0.0, 1.0],
            Vec::new(),
            vec![0.0, 1.0],
        ];
        assert_eq!(share_first_largest(&logits, &dev), 2.0 / 5.0);
        assert_eq!(share_first_largest(&[], &[]), 0.0);
    }
}

//! Fitting a rules file's network in one call: build the network the settings name (an
//! FA-RNN, FA-GRU or a bidirectional one compiled from the rules, a SoPa, or a black box
//! that reads words alone; `kinds.rs`), train it on labeled examples with early stopping on
//! dev, and describe the result in a checkpoint [`Manifest`]. An ensemble (the setting
//! `members`) is that many networks built from consecutive seeds, trained side by side
//! (`members.rs`), each stopped early on its own, then averaged (`fa_rnn/ensemble.rs`). Loading such
//! a checkpoint back is `load.rs`.
//!
//! This is the whole of `rulelens train`, shared with the language server, which fits in the
//! background on every save and caches checkpoints by the rules' hash. Reading the corpora is
//! the caller's job (the CLI reads files, the server may hold unsaved buffers); the word
//! vectors are read while fitting (`data.rs`: the bundled table, or the settings' GloVe
//! file) because the manifest records their hash. Progress is reported through
//! [`FitEvent`]s and `cancelled` is polled between batches (see [`train`]). [`fit`] is a
//! sequence of named steps: check the settings, read the word vectors, pick the training
//! data, build the network, train, describe it.

use crate::automata::{CompileConfig, RuleSystem, compile_reversed};
use crate::corpus::Example;
use crate::limits::ReadLimits;
use crate::model::fa_rnn::WordInput;
use crate::model::fa_rnn::bidirectional::BiFaRnn;
use crate::model::fa_rnn::ensemble::Ensemble;
use crate::model::nn::embeddings::Vocabulary;
use crate::model::nn::network::Network;
use crate::model::sopa;
use crate::model::train::checkpoint::{
    self, CheckpointError, DecompositionRecord, DevFigure, EmbeddingsIdentity, LabelModelMetrics,
    Manifest, MemberMetrics, Metrics, NgramMetrics, RulesIdentity, TrainedAgain, WarmStartRecord,
};
use crate::model::train::data::{
    check_longest_sentence, network_system, training_data, with_dev_gold, word_input,
};
use crate::model::train::events::{FitError, FitEvent};
use crate::model::train::kinds::{Built, Declaration, Start, network_size};
use crate::model::train::learn::{DevScoring, LabeledSentence, Schedule, TrainError, TrainReport};
use crate::model::train::left_out::leave_out;
use crate::model::train::load::LoadedModel;
use crate::model::train::members::{Common, Member, MemberEvent, side_by_side, train_members};
use crate::model::train::ngram_fit::{
    NgramsBeside, ngram_regression, refit_with_dev, with_ngram_regression,
};
use crate::model::train::settings::{ModelKind, TrainingSettings};
use crate::model::train::warm::{self, WARM_SCHEDULE, WhyFull};
use crate::rules_file::RulesFile;
use candle_core::{Device, Tensor};
use std::collections::HashMap;
use std::path::Path;

/// What training computes from the same rules, settings, word vectors and texts: bumped by
/// every change that makes them train another network, so that the caches keyed on it
/// (`project::cache_key`: the editor's networks and `bench`'s results) train again rather
/// than load what an earlier build trained. 1: the n-gram regression's weight chosen by dev
/// log loss (`docs/results.md`, "The weight chosen by dev log loss"); 2: gold lines
/// repeated to weigh as much as the lines the label model teaches (`data::gold_repeats`); 3:
/// the network learns from the gold lines alone where the regression learns from the taught
/// ones too (`data::network_from_gold`); 4: the lines no rule fires on taught where only
/// they speak for the default label (`data::silence_speaks_for_default`), and the
/// regression's weight 30 without a gold dev (`settings::UNLABELED_DEV_NGRAM_WEIGHT`); 5:
/// the regression reads the line's mean word vector beside its n-grams
/// (`nn/mean_vector.rs`); 6: the regression's C chosen by its dev log loss
/// (`softmax_regression::Selection::LogLoss`); 7: the regression fitted again with dev's
/// gold lines once C and its weight are chosen (`data::with_dev_gold`); 8: the FA-RNN trained
/// again with dev's gold lines once dev has chosen its epochs ([`train_again_with_dev`]); 9:
/// the regression reads a line's character n-grams beside its word n-grams, where a gold dev
/// keeps them (`nn/character_ngrams.rs`); 10: the regression keeps what folds a word's vector
/// into its row, so that a loaded model reads a word past its vocabulary through its vector
/// (`train/open_vocabulary.rs`); 11: the lines no rule fires on taught also where the lines
/// the rules fire on hold under `settings::MIN_DEFAULT_REACH` of the default's lines; 12:
/// the sentence encoder's regression teaches the lines without a gold label where the label
/// model estimates the rules' accuracy low or does worse on dev (`train/encoder_teacher.rs`);
/// 13: the rules wrong on at least two more of the gold lines training reads than right
/// left out (`train/left_out.rs`); 14: a filter's lines no rule fires on taught its label
/// past the rules' silence (`train/silence_teacher.rs`).
pub const TRAINING_VERSION: u32 = 14;

/// A fitted network with its manifest, ready to use or to save.
pub struct Fitted {
    pub manifest: Manifest,
    pub net: Box<dyn Network>,
    /// The network's vocabulary (with word vectors only).
    pub vocabulary: Option<Vocabulary>,
    /// The untrained value of every trained tensor, for `initial.*` in the checkpoint.
    initial: Vec<(String, Tensor)>,
}

impl Fitted {
    /// Writes the checkpoint into `dir` (see `models/README.md`).
    pub fn save(&mut self, dir: &Path) -> Result<(), CheckpointError> {
        let mut tensors: HashMap<String, Tensor> = self.net.named_tensors().into_iter().collect();
        for (name, tensor) in &self.initial {
            tensors.insert(format!("initial.{name}"), tensor.clone());
        }
        checkpoint::save(dir, &mut self.manifest, &tensors)
    }
}

/// Compiles `rules` to the network `settings` ask for and trains it on `train_examples`,
/// stopping early on `dev_examples`. The network learns every label of `train_examples`,
/// those the rules do not name too, unless `drop_unnamed_labels` leaves their lines out;
/// dev lines of a label the network does not know count as errors.
/// A word-vectors file is read within `limits`.
pub fn fit(
    rules: &RulesFile,
    train_examples: &[Example],
    dev_examples: &[Example],
    settings: &TrainingSettings,
    limits: &ReadLimits,
    on_event: &mut dyn FnMut(FitEvent),
    cancelled: &dyn Fn() -> bool,
) -> Result<Fitted, FitError> {
    fit_from(
        None,
        rules,
        train_examples,
        dev_examples,
        settings,
        limits,
        on_event,
        cancelled,
    )
}

/// [`fit`] starting, when `previous` gives one, from the network trained for an earlier
/// text of the rules (`warm.rs`): the patterns that did not change keep their trained
/// parameters and the network is fine-tuned briefly ([`WARM_SCHEDULE`]). Where a warm start
/// does not apply (other settings or data, most patterns changed, …) [`FitEvent::FullTraining`]
/// says why and the network is trained from scratch.
#[allow(clippy::too_many_arguments)]
pub fn fit_from(
    previous: Option<&LoadedModel>,
    rules: &RulesFile,
    train_examples: &[Example],
    dev_examples: &[Example],
    settings: &TrainingSettings,
    limits: &ReadLimits,
    on_event: &mut dyn FnMut(FitEvent),
    cancelled: &dyn Fn() -> bool,
) -> Result<Fitted, FitError> {
    check(rules, settings)?;
    let device = settings.device.open().map_err(FitError::Config)?;
    // The rules the gold lines contradict are left out of everything below.
    let system = network_system(&rules.system, train_examples, settings)?;
    let examples = (train_examples, dev_examples);
    let (left_out, kept, system) = leave_out(rules, system, examples, settings, on_event);
    let rules = kept.as_ref().unwrap_or(rules);
    if !system.corpus_labels().is_empty() {
        on_event(FitEvent::CorpusLabels {
            labels: system.corpus_labels(),
            model: settings.model,
        });
    }
    let words = word_input(&system, train_examples, dev_examples, settings, limits)?;
    let vocabulary = words.as_ref().map(|(input, _)| &input.vocabulary);
    let data = training_data(
        rules,
        &system,
        vocabulary,
        train_examples,
        dev_examples,
        settings,
        cancelled,
    )?;
    let data_events = data.events(settings.max_sentence_tokens);
    let (train_data, dev_data) = (data.train, data.dev);
    // The gold lines alone where the regression learns from the taught ones too.
    let network_train = &train_data[..data.network_lines];
    // A newer save may have come while the vectors were read.
    if cancelled() {
        return Err(TrainError::Cancelled.into());
    }
    let data_sha256 = warm::data_sha256(train_examples, dev_examples);
    let input = words.as_ref().map(|(input, _)| input);
    // Each member from the previous network's member of the same number, where a warm
    // start applies to every one.
    let warm = match previous {
        Some(previous) => warm_members(
            previous,
            (rules, &system),
            settings,
            &data_sha256,
            input,
            &device,
            on_event,
        )?,
        None => None,
    };
    let dev_scoring = dev_scoring(settings, &device, &system, vocabulary);
    // Every member built first (only the first says how), then trained side by side.
    let BuiltMembers {
        members: built_members,
        initial,
        warm_record,
    } = build_members(
        (rules, &system),
        settings,
        &device,
        warm,
        (network_train, input),
        data_events,
        on_event,
    )?;
    let common = Common {
        train_data: network_train,
        dev_data: &dev_data,
        dev_scoring,
        device: &device,
    };
    let figure = DevFigure::of(data.label_model.as_ref());
    let reports = train_side_by_side(
        &built_members,
        settings,
        common,
        figure,
        on_event,
        cancelled,
    )?;
    let measure = DevMeasure {
        figure,
        scoring: dev_scoring,
        dev: &dev_data,
        settings,
        device: &device,
        cancelled,
    };
    let Combined {
        net,
        records: (forward, backward),
        ensemble_accuracy,
    } = combine(built_members, &measure, on_event)?;
    let last = LastSteps {
        declaration: (rules, &system, settings, &device),
        previous: previous.filter(|_| warm_record.is_some()),
        input,
        data: (&train_data, network_train, data.label_model, &dev_data),
        dev_examples,
        reports: &reports,
    };
    let network_accuracy = ensemble_accuracy.unwrap_or(reports[0].best_dev_accuracy);
    let (net, ngrams) = last.run(net, network_accuracy, &measure, on_event)?;
    let (input, identity) = words.unzip();
    let mut manifest = describe(
        rules,
        &system,
        settings,
        (forward, backward),
        identity.zip(input.as_ref().map(|input| &input.vocabulary)),
        (network_train.len(), dev_data.len()),
        &reports[0],
    );
    if let Some(accuracy) = ensemble_accuracy {
        record_members(&mut manifest.metrics, accuracy, &reports, settings);
    }
    if let Some((metrics, accuracy, again)) = ngrams {
        manifest.metrics.dev_accuracy = accuracy;
        manifest.metrics.ngram_regression = Some(metrics);
        manifest.metrics.trained_again_with_dev = again;
    }
    manifest.metrics.label_model = data.label_model;
    manifest.rules_left_out = left_out;
    manifest.training_data_sha256 = Some(data_sha256);
    manifest.warm_start = warm_record;
    Ok(Fitted {
        manifest,
        vocabulary: input.map(|input| input.vocabulary),
        net,
        initial,
    })
}

/// What the steps after the members have trained read ([`LastSteps::run`]): the rules, the
/// network's rule system, the settings and the device; a warm start's previous network; the
/// word input; the training data (train, the network's part of it, what the label model
/// did, dev); the dev corpus read; and the members' reports.
struct LastSteps<'a> {
    declaration: (
        &'a RulesFile,
        &'a RuleSystem,
        &'a TrainingSettings,
        &'a Device,
    ),
    previous: Option<&'a LoadedModel>,
    input: Option<&'a WordInput>,
    data: (
        &'a [LabeledSentence],
        &'a [LabeledSentence],
        Option<LabelModelMetrics>,
        &'a [LabeledSentence],
    ),
    dev_examples: &'a [Example],
    reports: &'a [TrainReport],
}

/// The n-gram regression's metrics, the dev accuracy with it, and the record of the network
/// trained again with dev.
type BesideMetrics = (NgramMetrics, f64, Option<TrainedAgain>);

impl LastSteps<'_> {
    /// `net` (of dev accuracy `network_accuracy`) with the n-gram regression beside it where
    /// the settings want one (`ngram_fit.rs`), its C, weight and temperature chosen on a
    /// gold dev; then, on a gold dev not held out, the regression fitted again with dev's
    /// gold lines and the network trained again with them ([`train_again_with_dev`]).
    fn run(
        &self,
        net: Box<dyn Network>,
        network_accuracy: f64,
        measure: &DevMeasure,
        on_event: &mut dyn FnMut(FitEvent),
    ) -> Result<(Box<dyn Network>, Option<BesideMetrics>), FitError> {
        let (_, system, settings, _) = self.declaration;
        let (train_data, network_train, label_model, dev_data) = self.data;
        // Without a gold dev label, dev holds the label model's labels, which the rules (and
        // so the network) already agree with: neither C nor the weight is chosen on them.
        let gold_dev = measure.figure == DevFigure::Accuracy;
        let started = std::time::Instant::now();
        let fitted = match self.input {
            Some(input) if settings.wants_ngram_regression() => ngram_regression(
                self.previous,
                input,
                system,
                (train_data, if gold_dev { dev_data } else { &[] }),
                settings,
            ),
            _ => None,
        };
        let Some(fitted) = fitted else {
            return Ok((net, None));
        };
        let beside = NgramsBeside {
            figure: measure.figure,
            network_accuracy,
            seconds: started.elapsed().as_secs_f64(),
        };
        let dev = (measure.logits(net.as_ref())?, measure.dev);
        // Dev's gold lines only (without them dev holds the label model's labels), and a
        // regression fitted now (a warm start's reused one keeps its own).
        let input = self.input.filter(|_| gold_dev && fitted.1.is_none());
        let lines = (train_data, label_model, dev_data);
        let n_labels = system.labels().len();
        let refit = refit_with_dev(input, lines, self.dev_examples, n_labels, settings);
        // The network too, where the regression is fitted again with dev. A warm start's
        // network descends from the previous one, and so from its training with dev.
        let (net, again, fresh) = match refit {
            Some(_) => {
                let (net, again) = train_again_with_dev(
                    self.declaration,
                    (network_train, label_model, dev_data),
                    (input, self.reports),
                    net,
                    measure.cancelled,
                )?;
                (net, again, true)
            }
            None => {
                let previous = self.previous.map(|previous| &previous.manifest.metrics);
                let again = previous.and_then(|metrics| metrics.trained_again_with_dev.clone());
                (net, again, false)
            }
        };
        let (net, metrics, accuracy) =
            with_ngram_regression(net, fitted, beside, dev, settings, refit, on_event)?;
        if let Some(again) = again.as_ref().filter(|_| fresh) {
            on_event(FitEvent::TrainedAgain(again));
        }
        Ok((net, Some((metrics, accuracy, again))))
    }
}

/// The members of a network, built before any trains, with the first member's initial
/// tensors and what a warm start kept.
struct BuiltMembers {
    members: Vec<(Built, Schedule)>,
    initial: Vec<(String, Tensor)>,
    warm_record: Option<WarmStartRecord>,
}

/// Builds every member of the network ([`build_member`]): warm-started where `warm` gives
/// them, else from scratch. Only the first says how, and then `data_events`, what it will
/// train on.
fn build_members(
    (rules, system): (&RulesFile, &RuleSystem),
    settings: &TrainingSettings,
    device: &Device,
    warm: Option<Vec<(Built, WarmStartRecord)>>,
    (train_data, input): (&[LabeledSentence], Option<&WordInput>),
    mut data_events: Vec<FitEvent<'static>>,
    on_event: &mut dyn FnMut(FitEvent),
) -> Result<BuiltMembers, FitError> {
    let n_members = settings.members();
    let mut warm = warm.map(Vec::into_iter);
    let mut built_members: Vec<(Built, Schedule)> = Vec::with_capacity(n_members);
    let mut initial = Vec::new();
    let mut warm_record = None;
    for i in 0..n_members {
        let member_settings = settings.of_member(i);
        if i == 0 && n_members > 1 {
            on_event(FitEvent::Member {
                index: 0,
                members: n_members,
                seed: member_settings.seed,
            });
        }
        let declaration = Declaration {
            rules,
            system,
            settings: &member_settings,
            device,
        };
        let warm_member = warm.as_mut().and_then(Iterator::next);
        let member = build_member(
            i == 0,
            &declaration,
            warm_member,
            (train_data, input),
            on_event,
        )?;
        let (built, schedule) = (member.built, member.schedule);
        if let Some(values) = member.initial {
            initial = values;
        }
        if member.record.is_some() {
            warm_record = member.record;
        }
        if i == 0 {
            check_longest_sentence(train_data, built.net.as_ref(), settings)?;
            for event in data_events.drain(..) {
                on_event(event);
            }
        }
        built_members.push((built, schedule));
    }
    Ok(BuiltMembers {
        members: built_members,
        initial,
        warm_record,
    })
}

/// How training measures dev: the plain-loop scorer of the FA-RNN family on the CPU, faster
/// there; else the network's tensors.
fn dev_scoring<'a>(
    settings: &TrainingSettings,
    device: &Device,
    system: &'a RuleSystem,
    vocabulary: Option<&'a Vocabulary>,
) -> DevScoring<'a> {
    if !settings.model.is_rule_network() || !device.is_cpu() {
        DevScoring::Tensors
    } else {
        DevScoring::Plain { system, vocabulary }
    }
}

/// The trained members as one network, with the first member's decomposition records, and
/// an ensemble's dev accuracy.
struct Combined {
    net: Box<dyn Network>,
    records: (Option<DecompositionRecord>, Option<DecompositionRecord>),
    ensemble_accuracy: Option<f64>,
}

/// The trained members as one network: the one, or the ensemble that averages their logits
/// (its dev accuracy said).
fn combine(
    built_members: Vec<(Built, Schedule)>,
    measure: &DevMeasure,
    on_event: &mut dyn FnMut(FitEvent),
) -> Result<Combined, FitError> {
    let n_members = built_members.len();
    let mut nets = Vec::with_capacity(n_members);
    let mut records = None;
    for (built, _) in built_members {
        records.get_or_insert((built.forward, built.backward));
        nets.push(built.net);
    }
    let records = records.unwrap_or_default();
    let net = one_network(nets);
    if n_members == 1 {
        return Ok(Combined {
            net,
            records,
            ensemble_accuracy: None,
        });
    }
    let accuracy = measure.accuracy(net.as_ref())?;
    on_event(FitEvent::Ensemble {
        members: n_members,
        dev_accuracy: accuracy,
        figure: measure.figure,
    });
    Ok(Combined {
        net,
        records,
        ensemble_accuracy: Some(accuracy),
    })
}

/// The members as one network: the one, or the ensemble that averages their logits.
fn one_network(mut nets: Vec<Box<dyn Network>>) -> Box<dyn Network> {
    if nets.len() == 1 {
        nets.remove(0)
    } else {
        Box::new(Ensemble { members: nets })
    }
}

/// The most lines the network is trained again on with dev's ([`train_again_with_dev`]).
/// Training again costs up to as much as training did. Where train has some hundred gold
/// lines dev's double what the network learns from, and that is where it gains on held-out
/// lines: a hundred short sentences +1.0, 1 % of TREC +1.9; at 10 % and 15 % of TREC and
/// SMS (500 to 800 lines) it is level, just under the cap (18 % of TREC, 20 % of SMS: 950
/// lines) +1.7 and +0.2, and above it, at 30 % (1,400 to 1,540 lines), it loses 1.4 and 0.3
/// (`docs/results.md`, "Dev's gold lines in the network's last training"). With all of
/// SMS's or TREC's labels (some 5,000 lines beside 500 of dev's) it would also double a
/// training of minutes, and is not done.
const MAX_LINES_TRAINED_AGAIN: usize = 1_000;

/// `net` trained again from its start on train's and dev's gold lines together
/// ([`with_dev_gold`]: once each where the network learns from the gold lines alone, else
/// repeated beside the taught lines, as training read them), each member for the epochs it
/// kept on dev and keeping its last parameters, as a grid search refits its best estimator
/// on all it was given; with the record of it. Made where the n-gram regression is fitted
/// again with dev (a gold dev, dev not held out, no warm start), for the FA-RNN family,
/// unless dev has no gold line of a label the network knows, there would be more than
/// [`MAX_LINES_TRAINED_AGAIN`] lines, or a dev line is too long to train on; else `net` as
/// it is. SoPa is not trained again: its free patterns start from the train lines'
/// n-grams, and trained again it lost on four proxies of six (short sentences −0.09,
/// apparel at 10 % −1.82).
fn train_again_with_dev(
    (rules, system, settings, device): (&RulesFile, &RuleSystem, &TrainingSettings, &Device),
    (network_train, label_model, dev): (
        &[LabeledSentence],
        Option<LabelModelMetrics>,
        &[LabeledSentence],
    ),
    (input, reports): (Option<&WordInput>, &[TrainReport]),
    net: Box<dyn Network>,
    cancelled: &dyn Fn() -> bool,
) -> Result<(Box<dyn Network>, Option<TrainedAgain>), FitError> {
    if !settings.model.is_rule_network() {
        return Ok((net, None));
    }
    let taught = label_model.filter(|used| !used.network_from_gold);
    let (lines, dev_lines) = with_dev_gold(network_train, taught, dev, system.labels().len());
    if dev_lines == 0 || lines.len() > MAX_LINES_TRAINED_AGAIN {
        return Ok((net, None));
    }
    let lines: Vec<LabeledSentence> = lines.into_iter().cloned().collect();
    let built = match build_members(
        (rules, system),
        settings,
        device,
        None,
        (&lines, input),
        Vec::new(),
        &mut |_| {},
    ) {
        Ok(built) => built.members,
        // The settings built these members once already: what is refused now is a dev line
        // too long to train on (`check_longest_sentence`), which only dev was measured on.
        // The network stays as it stopped early on dev.
        Err(FitError::Config(_)) => return Ok((net, None)),
        Err(error) => return Err(error),
    };
    let epochs: Vec<usize> = reports.iter().map(|report| report.best_epoch).collect();
    let members: Vec<Member> = built
        .iter()
        .zip(&epochs)
        .enumerate()
        .map(|(i, ((built, _), &epochs))| Member {
            net: built.net.as_ref(),
            settings: settings.of_member(i),
            schedule: Schedule {
                epochs: Some(epochs),
                keep_last: true,
                ..Schedule::SETTINGS
            },
        })
        .collect();
    let common = Common {
        train_data: &lines,
        dev_data: &[],
        dev_scoring: DevScoring::Tensors,
        device,
    };
    let at_once = side_by_side(&members, &lines, device);
    train_members(at_once, &members, common, &mut |_| {}, cancelled)?;
    drop(members);
    let nets = built.into_iter().map(|(built, _)| built.net).collect();
    let record = TrainedAgain {
        lines: lines.len(),
        dev_lines,
        epochs,
    };
    Ok((one_network(nets), Some(record)))
}

/// Trains the built members side by side, on the cores there are ([`side_by_side`]), each
/// from its seed and on its schedule; an ensemble's members (after the first, said before
/// it was built) say when they start, and each epoch what its dev figure measures.
fn train_side_by_side(
    built_members: &[(Built, Schedule)],
    settings: &TrainingSettings,
    common: Common,
    figure: DevFigure,
    on_event: &mut dyn FnMut(FitEvent),
    cancelled: &dyn Fn() -> bool,
) -> Result<Vec<TrainReport>, FitError> {
    let members: Vec<Member> = built_members
        .iter()
        .enumerate()
        .map(|(i, (built, schedule))| Member {
            net: built.net.as_ref(),
            settings: settings.of_member(i),
            schedule: *schedule,
        })
        .collect();
    let n_members = members.len();
    let reports = train_members(
        side_by_side(&members, common.train_data, common.device),
        &members,
        common,
        &mut |event| match event {
            // The first member's start was said before it was built.
            MemberEvent::Starts { index } if index > 0 => on_event(FitEvent::Member {
                index,
                members: n_members,
                seed: members[index].settings.seed,
            }),
            MemberEvent::Starts { .. } => {}
            MemberEvent::Epoch(report) => on_event(FitEvent::Epoch(report, figure)),
        },
        cancelled,
    )?;
    Ok(reports)
}

/// A member of the network, as [`build_member`] builds it: for the first member, also the
/// checkpoint's initial tensors (the rules' untrained network, whole) and what a warm start
/// kept.
struct BuiltMember {
    built: Built,
    schedule: Schedule,
    initial: Option<Vec<(String, Tensor)>>,
    record: Option<WarmStartRecord>,
}

/// A member of the network: `warm`'s, fine-tuned on [`WARM_SCHEDULE`], where a warm start
/// gives it (the first member says so), else declared from scratch on the settings' schedule
/// (the first member says how).
fn build_member(
    first: bool,
    declaration: &Declaration,
    warm: Option<(Built, WarmStartRecord)>,
    (train, words): (&[LabeledSentence], Option<&WordInput>),
    on_event: &mut dyn FnMut(FitEvent),
) -> Result<BuiltMember, FitError> {
    match warm {
        Some((built, record)) if first => {
            on_event(FitEvent::WarmStart(&record));
            // The checkpoint's untrained network is the rules' own, whole.
            let start = Start::Fresh {
                train,
                words,
                on_event: &mut |_| {},
            };
            let cold = declaration.declare(start)?;
            let initial = cold
                .net
                .named_tensors()
                .into_iter()
                .map(|(name, tensor)| Ok((name, tensor.copy()?)))
                .collect::<candle_core::Result<_>>()?;
            Ok(BuiltMember {
                built,
                schedule: WARM_SCHEDULE,
                initial: Some(initial),
                record: Some(record),
            })
        }
        Some((built, _)) => Ok(BuiltMember {
            built,
            schedule: WARM_SCHEDULE,
            initial: None,
            record: None,
        }),
        None => {
            let mut silent = |_: FitEvent| {};
            let start = Start::Fresh {
                train,
                words,
                on_event: if first { on_event } else { &mut silent },
            };
            let cold = declaration.declare(start)?;
            let initial = if first {
                Some(initial_values(cold.net.as_ref())?)
            } else {
                None
            };
            Ok(BuiltMember {
                built: cold,
                schedule: Schedule::SETTINGS,
                initial,
                record: None,
            })
        }
    }
}

/// An ensemble's figures in the manifest: the dev accuracy of its averaged logits, its
/// members' training time, and each member's seed, best dev accuracy and curve.
fn record_members(
    metrics: &mut Metrics,
    accuracy: f64,
    reports: &[TrainReport],
    settings: &TrainingSettings,
) {
    metrics.dev_accuracy = accuracy;
    metrics.training_seconds = 0.0;
    for (i, report) in reports.iter().enumerate() {
        metrics.training_seconds += report.history.iter().map(|e| e.seconds).sum::<f64>();
        metrics.members.push(MemberMetrics {
            seed: settings.of_member(i).seed,
            dev_accuracy: report.best_dev_accuracy,
            best_epoch: report.best_epoch,
            epochs_run: report.history.len() - 1,
            dev_accuracy_by_epoch: report.history.iter().map(|e| e.dev_accuracy).collect(),
        });
    }
}

/// Each member of the network built from `previous`'s member of the same number, with what
/// it kept, where a warm start applies to every one ([`warm::plan`], [`build_warm`]); else
/// `None`, [`FitEvent::FullTraining`] saying why.
fn warm_members(
    previous: &LoadedModel,
    (rules, system): (&RulesFile, &RuleSystem),
    settings: &TrainingSettings,
    data_sha256: &str,
    input: Option<&WordInput>,
    device: &Device,
    on_event: &mut dyn FnMut(FitEvent),
) -> Result<Option<Vec<(Built, WarmStartRecord)>>, FitError> {
    let reuse = match warm::plan(
        (&previous.manifest, &previous.rules),
        rules,
        settings,
        data_sha256,
    ) {
        Ok(reuse) => reuse,
        Err(why) => {
            on_event(FitEvent::FullTraining { why });
            return Ok(None);
        }
    };
    let mut members = Vec::with_capacity(settings.members());
    for (i, previous_net) in previous.net.members().into_iter().enumerate() {
        let member_settings = settings.of_member(i);
        match build_warm(
            previous,
            previous_net,
            rules,
            system,
            &reuse,
            input,
            &member_settings,
            device,
        )? {
            Ok(member) => members.push(member),
            Err(why) => {
                on_event(FitEvent::FullTraining { why });
                return Ok(None);
            }
        }
    }
    Ok(Some(members))
}

/// How a fitted network's dev accuracy is measured.
struct DevMeasure<'a> {
    /// What its accuracy measures: dev's gold labels, or the label model's.
    figure: DevFigure,
    scoring: DevScoring<'a>,
    dev: &'a [LabeledSentence],
    settings: &'a TrainingSettings,
    device: &'a Device,
    cancelled: &'a dyn Fn() -> bool,
}

impl DevMeasure<'_> {
    fn accuracy(&self, net: &dyn Network) -> Result<f64, TrainError> {
        self.scoring
            .accuracy(net, self.dev, self.settings, self.device, self.cancelled)
    }

    /// Each dev line's logits, read as [`DevMeasure::accuracy`] reads them.
    fn logits(&self, net: &dyn Network) -> Result<Vec<Vec<f32>>, TrainError> {
        self.scoring
            .logits(net, self.dev, self.settings, self.device, self.cancelled)
    }
}

/// The network of `rules` (whose network labels are `system`'s) started from `previous_net`,
/// `previous`'s network or one of its ensemble's members, with the patterns `reuse` keeps,
/// each direction on its own, and its record; `Err(WhyFull)` when the rank would grow too
/// large.
#[allow(clippy::too_many_arguments)]
fn build_warm(
    previous: &LoadedModel,
    previous_net: &dyn Network,
    rules: &RulesFile,
    system: &RuleSystem,
    reuse: &warm::Reuse,
    words: Option<&WordInput>,
    settings: &TrainingSettings,
    device: &Device,
) -> Result<Result<(Built, WarmStartRecord), WhyFull>, FitError> {
    let mut systems = vec![(system.clone(), previous.rules.system.clone())];
    if settings.model.is_bidirectional() {
        let config = CompileConfig::default();
        systems.push((
            compile_reversed(&rules.rules, system, &config).0,
            compile_reversed(&previous.rules.rules, &previous.rules.system, &config).0,
        ));
    }
    let mut nets = Vec::new();
    for (i, ((system, previous_system), previous_net)) in
        systems.iter().zip(previous_net.directions()).enumerate()
    {
        let states = warm::state_map(previous_system, system, reuse);
        match warm::warm_network(
            (previous_net.0, previous_system),
            system,
            &states,
            words,
            settings,
            settings.seed.wrapping_add(i as u64),
            device,
        )? {
            Ok(net) => nets.push(net),
            Err(why) => return Ok(Err(why)),
        }
    }
    let warm_decomposition = |net: &warm::WarmNetwork| DecompositionRecord {
        method: "warm".to_string(),
        rank: net.kept_columns.len() + net.new_rank,
        relative_error: 0.0,
    };
    let (forward, backward) = (
        nets.first().map(warm_decomposition),
        nets.get(1).map(warm_decomposition),
    );
    let warm = WarmStartRecord {
        from_weights_sha256: previous.manifest.weights_sha256.clone(),
        from_rules_sha256: previous.manifest.rules.sha256.clone(),
        kept_patterns: reuse.kept(),
        changed_patterns: reuse.changed(),
        removed_patterns: reuse.removed,
        kept_rank: nets.first().map_or(0, |net| net.kept_columns.len()),
        new_rank: nets.first().map_or(0, |net| net.new_rank),
    };
    let mut nets = nets.into_iter().map(|warm| warm.net);
    let net: Box<dyn Network> = match (nets.next(), nets.next()) {
        (Some(forward), Some(backward)) => Box::new(BiFaRnn { forward, backward }),
        (Some(forward), None) => Box::new(forward),
        (None, _) => {
            return Err(FitError::Config(
                "the previous network has no FA-RNN".into(),
            ));
        }
    };
    Ok(Ok((
        Built {
            net,
            forward,
            backward,
        },
        warm,
    )))
}

/// Refuses rules with errors and settings out of range.
fn check(rules: &RulesFile, settings: &TrainingSettings) -> Result<(), FitError> {
    let n_errors = rules.diagnostics.iter().filter(|d| d.is_error()).count();
    if n_errors > 0 {
        return Err(FitError::RulesHaveErrors { n_errors });
    }
    settings.check().map_err(FitError::Config)?;
    if settings.model == ModelKind::Sopa {
        // Soft patterns have at most `MAX_PATTERN_STATES` states; the other rules are DFAs.
        let rows = sopa::transition_rows(&rules.system, &rules.rules, &settings.sopa.patterns);
        if rows > sopa::MAX_TRANSITION_ROWS {
            return Err(FitError::Config(format!(
                "the rules' soft patterns and the free patterns have {rows} transitions, more than the {} a SoPa may have (a batch's weights take batch × tokens × transitions floats); ask for fewer or shorter free patterns",
                sopa::MAX_TRANSITION_ROWS
            )));
        }
        return Ok(());
    }
    if settings.model.is_black_box() {
        return Ok(());
    }
    network_size(&rules.system)
}

/// Copies of the untrained value of every tensor training will change (the network's
/// tensors share storage with the parameters training updates).
fn initial_values(net: &dyn Network) -> candle_core::Result<Vec<(String, Tensor)>> {
    let trained_names = net.parameter_names();
    net.named_tensors()
        .into_iter()
        .filter(|(name, _)| trained_names.contains(name))
        .map(|(name, tensor)| Ok((name, tensor.copy()?)))
        .collect()
}

/// The manifest of a trained network.
fn describe(
    rules: &RulesFile,
    system: &RuleSystem,
    settings: &TrainingSettings,
    (forward, backward): (Option<DecompositionRecord>, Option<DecompositionRecord>),
    words: Option<(EmbeddingsIdentity, &Vocabulary)>,
    (n_train, n_dev): (usize, usize),
    report: &TrainReport,
) -> Manifest {
    let rules_path = rules.path.clone().unwrap_or_default();
    let (embeddings, vocabulary) = words.unzip();
    Manifest {
        format_version: checkpoint::FORMAT_VERSION,
        tokenizer_version: crate::text::TOKENIZER_VERSION,
        rules: RulesIdentity {
            path: std::path::absolute(&rules_path).unwrap_or(rules_path),
            sha256: crate::digest::sha256_hex(rules.source.text.as_bytes()),
            text: Some(rules.source.text.clone()),
            word_files: rules.word_files(),
        },
        // The step size and dropout the network was trained with, also where they were
        // the defaults.
        settings: settings.resolved(),
        labels: system.labels().to_vec(),
        decomposition: forward,
        backward_decomposition: backward,
        embeddings,
        vocabulary: vocabulary.map(|v| v.words().to_vec()).unwrap_or_default(),
        metrics: Metrics {
            train_examples: n_train,
            dev_examples: n_dev,
            zero_shot_dev_accuracy: report.history.first().map_or(0.0, |e| e.dev_accuracy),
            dev_accuracy: report.best_dev_accuracy,
            best_epoch: report.best_epoch,
            epochs_run: report.history.len() - 1,
            training_seconds: report.history.iter().map(|e| e.seconds).sum(),
            dev_accuracy_by_epoch: report.history.iter().map(|e| e.dev_accuracy).collect(),
            members: Vec::new(),
            ngram_regression: None,
            label_model: None,
            trained_again_with_dev: None,
        },
        weights_sha256: String::new(),
        tensors: Default::default(),
        training_data_sha256: None,
        warm_start: None,
        rules_left_out: Vec::new(),
    }
}

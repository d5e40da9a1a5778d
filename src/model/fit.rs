//! Fitting a rules file's network in one call: compile the rules to an FA-RNN, FA-GRU or a
//! bidirectional one, train it on labeled examples with early stopping on dev, and describe
//! the result in a checkpoint [`Manifest`]; and loading such a checkpoint back, verified,
//! beside the rules file it was made from.
//!
//! This is the whole of `rulelens train` and the loading half of `eval`, `predict` and
//! `reconstruct`, shared with the language server, which fits in the background on every
//! save and caches checkpoints by the rules' hash. Reading the corpora is the caller's job
//! (the CLI reads files, the server may hold unsaved buffers); the word-vector file is read
//! here because the manifest records its hash. Progress is reported through [`FitEvent`]s
//! and `cancelled` is polled between batches (see [`train`]).

use super::bidirectional::BiFaRnn;
use super::build::{RankChoice, decomposition, labeled, vocabulary};
use super::checkpoint::{
    self, CheckpointError, DecompositionRecord, EmbeddingsIdentity, Hyperparameters, Manifest,
    Metrics, ModelKind, RulesIdentity, ScoringName,
};
use super::decompose::{Decomposition, Method};
use super::embeddings::{EmbeddingsError, Vocabulary, read_glove};
use super::fa_rnn::{FaRnn, Scoring, WordInput};
use super::network::Network;
use super::train::{EpochReport, LabeledSentence, TrainConfig, TrainError, evenly_spaced, train};
use super::weighted::WeightedAutomaton;
use crate::automata::{CompileConfig, RuleSystem, compile_reversed};
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use candle_core::{Device, Tensor};
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// Default for [`FitConfig::beta`] when word vectors are given: the β that trained best on
/// the SMS and TREC dev sets (`docs/results.md`).
pub const DEFAULT_BETA_WITH_EMBEDDINGS: f64 = 0.7;

/// Where a network is trained and run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceKind {
    Cpu,
    /// The first CUDA GPU (needs the `cuda` feature).
    Cuda,
}

impl DeviceKind {
    /// The device, or why it cannot be had.
    pub fn open(self) -> Result<Device, String> {
        match self {
            DeviceKind::Cpu => Ok(Device::Cpu),
            #[cfg(feature = "cuda")]
            DeviceKind::Cuda => {
                Device::new_cuda(0).map_err(|error| format!("cannot use CUDA: {error}"))
            }
            #[cfg(not(feature = "cuda"))]
            DeviceKind::Cuda => Err(
                "this rulelens was built without CUDA; rebuild with `cargo build --release --features cuda`"
                    .to_string(),
            ),
        }
    }
}

/// What to fit and how.
#[derive(Debug, Clone)]
pub struct FitConfig {
    pub model: ModelKind,
    pub scoring: Scoring,
    /// A GloVe text file; `None` trains on the rules' symbols alone.
    pub embeddings: Option<PathBuf>,
    /// Weight of the rules' symbol embedding against the word vectors, in [0, 1]; must be 1
    /// without `embeddings`.
    pub beta: f64,
    pub rank: RankChoice,
    /// Share of the training examples used (evenly spaced), in (0, 1].
    pub fraction: f64,
    pub train: TrainConfig,
    pub device: DeviceKind,
}

/// Which way a network reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    LeftToRight,
    RightToLeft,
}

/// What [`fit`] reports as it goes.
#[derive(Debug, Clone, PartialEq)]
pub enum FitEvent<'a> {
    /// A direction's network was built.
    Built {
        reading: Reading,
        n_states: usize,
        rank: usize,
        method: Method,
        relative_error: f64,
    },
    /// A reversed pattern passed the state cap; the backward direction ignores it.
    ReversedTooLarge { pattern: &'a str },
    /// The data training will use.
    Data { n_train: usize, n_dev: usize },
    /// An epoch ended (epoch 0 is the untrained network).
    Epoch(&'a EpochReport),
}

/// Why fitting failed.
#[derive(Debug)]
pub enum FitError {
    /// A setting out of range, or two that do not go together, or a device that cannot be had.
    Config(String),
    /// The rules file has errors.
    RulesHaveErrors {
        n_errors: usize,
    },
    /// No example with a label the rules know, in train or in dev.
    NoData {
        split: &'static str,
    },
    Embeddings(EmbeddingsError),
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
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
                "no {split} example has a label the rules know (a label with a rule or the default)"
            ),
            FitError::Embeddings(error) => write!(f, "{error}"),
            FitError::Io { path, error } => write!(f, "cannot read {}: {error}", path.display()),
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

/// Compiles `rules` (whose text is `rules_text`, as it will be hashed into the manifest) to
/// the network `config` asks for and trains it on `train_examples`, stopping early on
/// `dev_examples`. Examples whose label the rules do not know are left out.
pub fn fit(
    rules: &RulesFile,
    train_examples: &[Example],
    dev_examples: &[Example],
    config: &FitConfig,
    on_event: &mut dyn FnMut(FitEvent),
    cancelled: &dyn Fn() -> bool,
) -> Result<Fitted, FitError> {
    let n_errors = rules.diagnostics.iter().filter(|d| d.is_error()).count();
    if n_errors > 0 {
        return Err(FitError::RulesHaveErrors { n_errors });
    }
    if !(0.0..=1.0).contains(&config.beta) {
        return Err(FitError::Config(format!(
            "beta must be between 0 and 1, not {}",
            config.beta
        )));
    }
    if !(config.fraction > 0.0 && config.fraction <= 1.0) {
        return Err(FitError::Config(format!(
            "the training fraction must be in (0, 1], not {}",
            config.fraction
        )));
    }
    let device = config.device.open().map_err(FitError::Config)?;
    let system = &rules.system;
    let words = match &config.embeddings {
        Some(path) => {
            let vocabulary = vocabulary(system, [train_examples, dev_examples]);
            let vectors = read_glove(path, &vocabulary).map_err(FitError::Embeddings)?;
            let bytes = std::fs::read(path).map_err(|error| FitError::Io {
                path: path.clone(),
                error,
            })?;
            let identity = EmbeddingsIdentity {
                path: std::path::absolute(path).unwrap_or_else(|_| path.clone()),
                sha256: checkpoint::sha256_hex(&bytes),
                dim: vectors.dim,
                found: vectors.n_found,
                backed_off: vectors.n_backed_off,
                beta: config.beta,
            };
            Some((
                WordInput {
                    vocabulary,
                    vectors,
                    beta: config.beta,
                },
                identity,
            ))
        }
        None if config.beta < 1.0 => {
            return Err(FitError::Config(
                "beta below 1 mixes in word vectors: give an embeddings file".to_string(),
            ));
        }
        None => None,
    };
    let vocabulary = words.as_ref().map(|(input, _)| &input.vocabulary);
    let (all_train, _) = labeled(system, vocabulary, train_examples);
    let (all_dev, _) = labeled(system, vocabulary, dev_examples);
    let pick = |data: &[LabeledSentence], indices: Vec<usize>| -> Vec<LabeledSentence> {
        indices.into_iter().map(|i| data[i].clone()).collect()
    };
    let train_data = pick(&all_train, evenly_spaced(all_train.len(), config.fraction));
    // As in the reference code: at 1 % or less, the dev set shrinks to the training set's
    // size (evenly spaced too).
    let dev_data = if config.fraction <= 0.01 {
        pick(
            &all_dev,
            evenly_spaced(
                all_dev.len(),
                train_data.len() as f64 / all_dev.len().max(1) as f64,
            ),
        )
    } else {
        all_dev
    };
    if train_data.is_empty() {
        return Err(FitError::NoData { split: "train" });
    }
    if dev_data.is_empty() {
        return Err(FitError::NoData { split: "dev" });
    }

    let word_input = words.as_ref().map(|(input, _)| input);
    let mut build = |system: &RuleSystem,
                     reading: Reading,
                     seed: u64|
     -> candle_core::Result<(FaRnn, Decomposition)> {
        let automaton = WeightedAutomaton::new(system);
        let decomposed = decomposition(&automaton, config.rank, seed);
        let mut net = FaRnn::new(
            system,
            &automaton,
            &decomposed,
            word_input,
            config.scoring,
            &device,
        )?;
        if config.model.is_gated() {
            net = net.with_gates(seed)?;
        }
        on_event(FitEvent::Built {
            reading,
            n_states: automaton.n_states,
            rank: decomposed.rank(),
            method: decomposed.method,
            relative_error: decomposed.relative_error,
        });
        Ok((net, decomposed))
    };
    let seed = config.train.seed;
    let (forward, decomposed) = build(system, Reading::LeftToRight, seed)?;
    let (net, backward_decomposed): (Box<dyn Network>, _) = if config.model.is_bidirectional() {
        let (reversed, too_large) =
            compile_reversed(&rules.rules, system, &CompileConfig::default());
        let (backward, decomposed) = build(&reversed, Reading::RightToLeft, seed.wrapping_add(1))?;
        for name in &too_large {
            on_event(FitEvent::ReversedTooLarge { pattern: name });
        }
        (Box::new(BiFaRnn { forward, backward }), Some(decomposed))
    } else {
        (Box::new(forward), None)
    };
    // Copies: the network's tensors share storage with the parameters training updates.
    let trained_names = net.parameter_names();
    let initial: Vec<(String, Tensor)> = net
        .named_tensors()
        .into_iter()
        .filter(|(name, _)| trained_names.contains(name))
        .map(|(name, tensor)| Ok((name, tensor.copy()?)))
        .collect::<candle_core::Result<_>>()?;
    on_event(FitEvent::Data {
        n_train: train_data.len(),
        n_dev: dev_data.len(),
    });
    let report = train(
        net.as_ref(),
        &train_data,
        &dev_data,
        &config.train,
        &device,
        &mut |report| on_event(FitEvent::Epoch(report)),
        cancelled,
    )?;

    let rules_path = rules.path.clone().unwrap_or_default();
    let manifest = Manifest {
        format_version: checkpoint::FORMAT_VERSION,
        model: config.model,
        scoring: match config.scoring {
            Scoring::Forward => ScoringName::Forward,
            Scoring::Viterbi => ScoringName::Viterbi,
        },
        rules: RulesIdentity {
            path: std::path::absolute(&rules_path).unwrap_or(rules_path),
            sha256: checkpoint::sha256_hex(rules.source.text.as_bytes()),
        },
        labels: system.labels().to_vec(),
        decomposition: record(&decomposed),
        backward_decomposition: backward_decomposed.as_ref().map(record),
        embeddings: words.as_ref().map(|(_, identity)| identity.clone()),
        vocabulary: words
            .as_ref()
            .map(|(input, _)| input.vocabulary.words().to_vec())
            .unwrap_or_default(),
        hyperparameters: Hyperparameters {
            epochs: config.train.epochs,
            batch_size: config.train.batch_size,
            learning_rate: config.train.learning_rate,
            patience: config.train.patience,
            logit_scale: config.train.logit_scale,
            seed: config.train.seed,
            fraction: config.fraction,
        },
        metrics: Metrics {
            train_examples: train_data.len(),
            dev_examples: dev_data.len(),
            zero_shot_dev_accuracy: report.history.first().map_or(0.0, |e| e.dev_accuracy),
            dev_accuracy: report.best_dev_accuracy,
            best_epoch: report.best_epoch,
            epochs_run: report.history.len() - 1,
            training_seconds: report.history.iter().map(|e| e.seconds).sum(),
        },
        weights_sha256: String::new(),
        tensors: Default::default(),
    };
    Ok(Fitted {
        manifest,
        vocabulary: words.map(|(input, _)| input.vocabulary),
        net,
        initial,
    })
}

fn record(decomposed: &Decomposition) -> DecompositionRecord {
    DecompositionRecord {
        method: match decomposed.method {
            Method::Exact => "exact",
            Method::Als => "als",
        }
        .to_string(),
        rank: decomposed.rank(),
        relative_error: decomposed.relative_error,
    }
}

/// A checkpoint with its rules file and network, ready to use.
pub struct LoadedModel {
    pub manifest: Manifest,
    pub rules: RulesFile,
    pub net: Box<dyn Network>,
    pub vocabulary: Option<Vocabulary>,
}

/// Loads a checkpoint, verifying it and that its rules file (read from the manifest's path)
/// is unchanged; `zero_shot` takes the untrained parameters.
pub fn load_model(
    model_dir: &Path,
    zero_shot: bool,
    device: &Device,
) -> Result<LoadedModel, CheckpointError> {
    let (manifest, tensors) = checkpoint::load(model_dir, device)?;
    let rules_bytes = std::fs::read(&manifest.rules.path).map_err(|error| CheckpointError::Io {
        path: manifest.rules.path.clone(),
        error,
    })?;
    assemble(model_dir, manifest, tensors, &rules_bytes, zero_shot)
}

/// [`load_model`] with the rules file's bytes given (an editor's buffer, say): refuses a
/// checkpoint made from other rules.
pub fn load_model_for(
    model_dir: &Path,
    rules_bytes: &[u8],
    zero_shot: bool,
    device: &Device,
) -> Result<LoadedModel, CheckpointError> {
    let (manifest, tensors) = checkpoint::load(model_dir, device)?;
    assemble(model_dir, manifest, tensors, rules_bytes, zero_shot)
}

/// Checks the rules' hash and builds the network from a loaded checkpoint's tensors.
fn assemble(
    model_dir: &Path,
    manifest: Manifest,
    tensors: HashMap<String, Tensor>,
    rules_bytes: &[u8],
    zero_shot: bool,
) -> Result<LoadedModel, CheckpointError> {
    checkpoint::check_rules(&manifest, rules_bytes)?;
    let rules = RulesFile::analyze(
        SourceText::from_bytes(rules_bytes),
        Some(&manifest.rules.path),
        &CompileConfig::default(),
    );
    let scoring = match manifest.scoring {
        ScoringName::Forward => Scoring::Forward,
        ScoringName::Viterbi => Scoring::Viterbi,
    };
    // The untrained network is the checkpoint with its `initial.*` tensors in place.
    let mut chosen = HashMap::new();
    for (name, tensor) in tensors {
        match name.strip_prefix("initial.") {
            Some(base) if zero_shot => {
                chosen.insert(base.to_string(), tensor);
            }
            Some(_) => {}
            None => {
                chosen.entry(name).or_insert(tensor);
            }
        }
    }
    let beta = manifest.embeddings.as_ref().map(|e| e.beta);
    let built: candle_core::Result<Box<dyn Network>> = if manifest.model.is_bidirectional() {
        let (reversed, _) =
            compile_reversed(&rules.rules, &rules.system, &CompileConfig::default());
        BiFaRnn::from_tensors(&rules.system, &reversed, chosen, scoring, beta)
            .map(|net| Box::new(net) as Box<dyn Network>)
    } else {
        FaRnn::from_tensors(&rules.system, chosen, scoring, beta)
            .map(|net| Box::new(net) as Box<dyn Network>)
    };
    let foreign = |message: String| CheckpointError::Corrupt {
        path: model_dir.join(checkpoint::WEIGHTS_FILE),
        message,
    };
    let net = built
        .map_err(|error| foreign(format!("the weights do not fit the rules file: {error}")))?;
    let gated = net
        .directions()
        .iter()
        .all(|direction| direction.is_gated());
    if gated != manifest.model.is_gated() {
        return Err(foreign(format!(
            "the manifest says {:?} but the weights are {}",
            manifest.model,
            if gated { "gated" } else { "not gated" }
        )));
    }
    let vocabulary = (!manifest.vocabulary.is_empty())
        .then(|| Vocabulary::new(manifest.vocabulary.iter().skip(1).map(String::as_str)));
    Ok(LoadedModel {
        manifest,
        rules,
        net,
        vocabulary,
    })
}

//! Training settings, declared once: [`TrainingSettings`], the knobs every family shares,
//! with the families' own settings flattened into it (`SopaSettings`, `SlstmSettings`,
//! declared in their folders), and the kinds it names ([`ModelKind`] with its table of
//! names, [`DeviceKind`]). The command line takes them as flags (clap is
//! derived from these types), the language server reads them from its clients' settings
//! (serde, camelCase), and checkpoints record them in their manifest; each default is the
//! value of [`TrainingSettings::DEFAULT`], the best setting measured on the SMS and TREC dev
//! sets (`docs/results.md`).

use crate::model::fa_rnn::ensemble::MAX_MEMBERS;
use crate::model::fa_rnn::{MAX_FREE_STATES, Scoring};
use crate::model::slstm::SlstmSettings;
use crate::model::sopa::SopaSettings;
use candle_core::Device;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The network architecture. Its names (the `--model` flag's, the JSON's and the papers')
/// are declared once, in [`ModelKind::TABLE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum ModelKind {
    FaRnn,
    FaGru,
    BiFaRnn,
    BiFaGru,
    Sopa,
    Slstm,
    MvmaG,
}

/// One row of [`ModelKind::TABLE`].
pub struct ModelKindRow {
    pub kind: ModelKind,
    /// What `--model`, `--models`, settings and manifests call it.
    pub name: &'static str,
    /// As the papers write it.
    pub display_name: &'static str,
    /// One line for `--help`.
    pub help: &'static str,
}

impl ModelKind {
    /// Every kind with its names, in the order tables list them: the networks compiled from
    /// the rules, SoPa, then the black boxes.
    pub const TABLE: [ModelKindRow; 7] = [
        ModelKindRow {
            kind: ModelKind::FaRnn,
            name: "fa-rnn",
            display_name: "FA-RNN",
            help: "FA-RNN (Jiang et al. 2020): the rules' automata as a recurrent network",
        },
        ModelKindRow {
            kind: ModelKind::FaGru,
            name: "fa-gru",
            display_name: "FA-GRU",
            help: "FA-RNN inside update and reset gates that start open, so it starts as the FA-RNN",
        },
        ModelKindRow {
            kind: ModelKind::BiFaRnn,
            name: "bifa-rnn",
            display_name: "BiFA-RNN",
            help: "An FA-RNN reading left to right and one reading right to left with the reversed rules, their logits averaged",
        },
        ModelKindRow {
            kind: ModelKind::BiFaGru,
            name: "bifa-gru",
            display_name: "BiFA-GRU",
            help: "The same with FA-GRUs",
        },
        ModelKindRow {
            kind: ModelKind::Sopa,
            name: "sopa",
            display_name: "SoPa",
            help: "SoPa (Schwartz et al. 2018): the rules' chains as soft patterns, plus free patterns learned from the corpus",
        },
        ModelKindRow {
            kind: ModelKind::Slstm,
            name: "slstm",
            display_name: "S-LSTM",
            help: "S-LSTM (Zhang et al. 2018): a black-box yardstick that reads no rules",
        },
        ModelKindRow {
            kind: ModelKind::MvmaG,
            name: "mvma-g",
            display_name: "MVMA-G",
            help: "MVMA-G (Sun and Lu 2022): a black box that reads no rules and whose n-grams' contributions to a label are exact",
        },
    ];

    /// Every kind, in the table's order.
    pub const ALL: [ModelKind; 7] = {
        let mut all = [ModelKind::FaRnn; 7];
        let mut i = 0;
        while i < all.len() {
            all[i] = Self::TABLE[i].kind;
            i += 1;
        }
        all
    };

    /// The kind's row: the table lists the kinds in the order they are declared (a test
    /// checks it).
    fn row(self) -> &'static ModelKindRow {
        &Self::TABLE[self as usize]
    }

    /// What `--model`, settings and manifests call the kind (`fa-rnn`, `mvma-g`, …).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The kind `name` names.
    pub fn from_name(name: &str) -> Option<ModelKind> {
        Self::TABLE
            .iter()
            .find(|row| row.name == name)
            .map(|row| row.kind)
    }

    /// Whether the network has FA-GRU's gates.
    pub fn is_gated(self) -> bool {
        matches!(self, ModelKind::FaGru | ModelKind::BiFaGru)
    }

    /// The architecture's name as the papers write it (`FA-RNN`, `BiFA-GRU`, …).
    pub fn display_name(self) -> &'static str {
        self.row().display_name
    }

    /// Whether the network is compiled from the rules' automata (FA-RNN, FA-GRU and their
    /// bidirectional versions).
    pub const fn is_rule_network(self) -> bool {
        matches!(
            self,
            ModelKind::FaRnn | ModelKind::FaGru | ModelKind::BiFaRnn | ModelKind::BiFaGru
        )
    }

    /// Whether a trained network of the kind gets an n-gram regression beside it: the
    /// networks that read the rules, the FA-RNN family and SoPa. The black boxes are
    /// yardsticks of a network alone.
    pub const fn has_ngram_regression(self) -> bool {
        self.is_rule_network() || matches!(self, ModelKind::Sopa)
    }

    /// Whether the network reads words alone, not the rules: a yardstick of how well any
    /// model does on the corpora.
    pub fn is_black_box(self) -> bool {
        matches!(self, ModelKind::Slstm | ModelKind::MvmaG)
    }

    /// How the network learns the labels of a train corpus that no rule names.
    pub fn how_it_learns_unnamed_labels(self) -> &'static str {
        if self.is_rule_network() {
            "from the sentence's mean word vector, through a linear layer that starts under the default label"
        } else if self == ModelKind::Sopa {
            "from its free patterns, through its head"
        } else {
            "as it learns every label"
        }
    }

    /// Whether a second network reads the sentence right to left.
    pub fn is_bidirectional(self) -> bool {
        matches!(self, ModelKind::BiFaRnn | ModelKind::BiFaGru)
    }

    /// Adam's step size when none is asked for: the best measured on the SMS and TREC dev
    /// sets for each family (`docs/results.md`).
    pub const fn default_learning_rate(self) -> f64 {
        match self {
            ModelKind::Sopa => SOPA_LEARNING_RATE,
            ModelKind::Slstm | ModelKind::MvmaG => BLACK_BOX_LEARNING_RATE,
            _ => FA_RNN_LEARNING_RATE,
        }
    }

    /// How many networks an ensemble of this kind has when no number is asked for: five
    /// for the FA-RNN family (the best measured on TREC dev, `docs/results.md`), one for
    /// SoPa and the black boxes, which are not built as ensembles.
    pub const fn default_members(self) -> usize {
        if self.is_rule_network() {
            FA_RNN_MEMBERS
        } else {
            1
        }
    }

    /// The share dropped in training when none is asked for: SoPa's transition weights
    /// (none: the best measured), the black boxes' word vectors and final states (0.5, as
    /// in their papers' code); the FA-RNN family has no dropout.
    pub const fn default_dropout(self) -> f64 {
        match self {
            ModelKind::Slstm | ModelKind::MvmaG => 0.5,
            _ => 0.0,
        }
    }
}

impl From<ModelKind> for &'static str {
    fn from(kind: ModelKind) -> &'static str {
        kind.name()
    }
}

impl TryFrom<String> for ModelKind {
    type Error = String;

    fn try_from(name: String) -> Result<ModelKind, String> {
        ModelKind::from_name(&name).ok_or_else(|| {
            let names: Vec<&str> = ModelKind::TABLE.iter().map(|row| row.name).collect();
            format!(
                "unknown model `{name}`, expected one of {}",
                names.join(", ")
            )
        })
    }
}

impl clap::ValueEnum for ModelKind {
    fn value_variants<'a>() -> &'a [ModelKind] {
        &ModelKind::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let row = self.row();
        Some(clap::builder::PossibleValue::new(row.name).help(row.help))
    }
}

/// Where a network is trained and run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum DeviceKind {
    Cpu,
    /// The first CUDA GPU (needs a build with the `cuda` feature).
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

/// What to train and how: `rulelens train`'s flags, the language server's `training.*`
/// settings and a checkpoint manifest's `settings`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, clap::Args)]
#[serde(rename_all = "camelCase", default)]
pub struct TrainingSettings {
    /// The network architecture.
    #[arg(long, value_enum, default_value_t = TrainingSettings::DEFAULT.model)]
    pub model: ModelKind,
    /// How path weights combine.
    #[arg(long, value_enum, default_value_t = TrainingSettings::DEFAULT.scoring)]
    pub scoring: Scoring,
    /// Word vectors in the GloVe text format; default: the bundled GloVe 6B 50d vectors of
    /// the 100,000 most frequent words (models/README.md).
    #[arg(long, value_name = "FILE")]
    pub embeddings: Option<PathBuf>,
    /// How little the FA-RNN family weighs the word vectors, in [0, 1]: a token enters the
    /// network as E_R[symbol] + (1−β)·E_w[word]·G, with G starting at zero so that the
    /// untrained network predicts what the rules predict; at 1 no word vectors are read.
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.beta)]
    pub beta: f64,
    /// States the FA-RNN family adds to the rules' automata (the paper's K'), for what the
    /// rules do not say: each reads and writes every state through D1 and D2, and none
    /// scores a pattern. They start at 0 and nothing writes them until training does, so
    /// the untrained network still predicts what the rules predict. Forward scoring only:
    /// a Viterbi network keeps each pattern's best path inside its own states, and has none.
    #[arg(long, value_name = "N", default_value_t = TrainingSettings::DEFAULT.free_states)]
    pub free_states: usize,
    /// Networks trained side by side, one a core, from the seeds `seed`, `seed`+1, … (each with
    /// its own batch order and free-state noise, each stopped early on dev) whose label
    /// logits are averaged: an ensemble, which predicts what the rules predict untrained as
    /// each member does. Default: 5 for the FA-RNN family; SoPa and the black boxes train
    /// one network.
    #[arg(long, value_name = "N")]
    pub members: Option<usize>,
    /// The weight of the n-gram regression beside the trained networks of the FA-RNN family
    /// and SoPa: a logistic regression on each line's tf-idf unigrams and bigrams, fitted on
    /// train once the network has trained (its C chosen on dev), whose logits, times this
    /// weight, are added to the network's logit-scaled ones. Default: chosen on a gold dev from
    /// [`NGRAM_WEIGHTS`] by the dev log loss of the network's probabilities with it (each
    /// weight's at the temperature fitted on dev), else (dev has no gold label)
    /// [`UNLABELED_DEV_NGRAM_WEIGHT`]. 0: none. The untrained network has none, so it
    /// predicts what the rules predict. Its n-grams are of the network's vocabulary: the
    /// FA-RNN family has one with word vectors (`beta` under 1), SoPa always.
    #[arg(long, value_name = "W")]
    pub ngram_weight: Option<f64>,
    /// Keeps dev's gold lines out of the n-gram regression and the network. By default, once
    /// its C, its weight and the temperature are chosen on a gold dev, the regression is
    /// fitted again on train's and dev's gold lines together at that C, and an FA-RNN of at
    /// most 1,000 such lines is trained again on them from its start for the epochs dev
    /// chose: a hundred more lines where train has a hundred. Dev then no longer measures
    /// them: the manifest's dev accuracy is the one measured before, and `eval` on dev says
    /// so. `bench` keeps dev out, as it measures on dev.
    #[arg(long)]
    pub hold_out_dev: bool,
    /// Keeps every rule in the network and the label model. By default training leaves out
    /// each rule wrong on at least two more of the gold lines it reads (train's, and dev's
    /// unless `--hold-out-dev`) than it is right on: a network that starts as the rules does
    /// not learn such a rule away from a few dozen lines. Its pattern stays; `train` names
    /// the rules left out, and `--zero-shot` is every rule.
    #[arg(long)]
    pub keep_every_rule: bool,
    /// Decomposition rank, by ALS; default: the exact decomposition when its rank is at most
    /// 1024, else ALS at 1024.
    #[arg(long, value_name = "R")]
    pub rank: Option<usize>,
    /// Share of the training corpus used (evenly spaced examples), in (0, 1].
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.fraction)]
    pub fraction: f64,
    /// The most passes over the training corpus.
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.epochs)]
    pub epochs: usize,
    /// Sentences per update.
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.batch_size)]
    pub batch_size: usize,
    /// Adam's step size; default: 0.0003 for the FA-RNN family, 0.01 for SoPa, 0.001 for
    /// the S-LSTM and MVMA-G.
    #[arg(long, value_name = "X")]
    pub learning_rate: Option<f64>,
    /// Epochs without a better dev accuracy before training stops (the best epoch is kept),
    /// and never fewer than make 100 updates (25 epochs of a hundred lines).
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.patience)]
    pub patience: usize,
    /// Factor on the soft-logic logits of the rule networks and SoPa inside the loss and the
    /// probabilities (a black box's logits are its own).
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.logit_scale)]
    pub logit_scale: f64,
    /// Leaves out the train lines whose label no rule names, where the network would learn
    /// it (the FA-RNN family from word vectors, SoPa from its free patterns, a black box as
    /// any label); dev lines of such labels then count as errors.
    #[arg(long)]
    pub drop_unnamed_labels: bool,
    /// Seed of the batch order (and of FA-GRU's gates and ALS); runs are reproducible.
    #[arg(long, default_value_t = TrainingSettings::DEFAULT.seed)]
    pub seed: u64,
    /// Where tensors live.
    #[arg(long, value_enum, default_value_t = TrainingSettings::DEFAULT.device)]
    pub device: DeviceKind,
    /// The most tokens of a sentence the network reads, in training, evaluation and
    /// prediction alike; the rest is left out, and `train` says how many sentences were cut.
    /// A batch is padded to its longest sentence, so this bounds a batch's buffers at
    /// batch × tokens × (rank + states) floats whatever the corpus holds (one 10 MB line
    /// once asked for 42 GB). The longest SMS and TREC sentences have about 190 and 40.
    #[arg(long, value_name = "N", default_value_t = TrainingSettings::DEFAULT.max_sentence_tokens)]
    pub max_sentence_tokens: usize,
    /// Share dropped in training, in [0, 1): SoPa's transition weights (default 0), the
    /// S-LSTM's and MVMA-G's word vectors and final states (default 0.5).
    #[arg(long, value_name = "P")]
    pub dropout: Option<f64>,
    /// SoPa's own settings.
    #[serde(flatten)]
    #[command(flatten)]
    pub sopa: SopaSettings,
    /// The S-LSTM's own settings.
    #[serde(flatten)]
    #[command(flatten)]
    pub slstm: SlstmSettings,
}

/// The FA-RNN family's default number of ensemble members.
pub const FA_RNN_MEMBERS: usize = 5;
/// The FA-RNN family's default step size.
pub const FA_RNN_LEARNING_RATE: f64 = 3e-4;
/// The step size of a network's linear head on fixed features
/// ([`crate::model::nn::network::Network::head_parameters`]: the FA-RNN's labels no rule
/// names), times the schedule's factor: the best of 0.0003 to 0.1 on `default`-only files
/// from a hundred lines (`docs/results.md`, "Learning from a hundred lines").
pub const HEAD_LEARNING_RATE: f64 = 0.03;
/// The fewest updates training waits for a better dev accuracy, whatever `patience` says in
/// epochs: on a hundred lines an epoch is four updates, and SoPa's dev accuracy only starts
/// to rise after about eighty (`docs/results.md`, "Learning from a hundred lines").
pub const MIN_PATIENCE_UPDATES: usize = 100;
/// SoPa's default step size (the paper's grid: 0.005, 0.01, 0.05).
pub const SOPA_LEARNING_RATE: f64 = 0.01;
/// The black boxes' default step size (the S-LSTM paper's and code's; MVMA-G's reference
/// trains with Adagrad at 0.002, here Adam as for every model).
pub const BLACK_BOX_LEARNING_RATE: f64 = 1e-3;

/// The n-gram regression's weight measured best of 1, 2, 3, 4 and 6 on all of SMS and TREC
/// (`docs/results.md`, "The n-gram regression beside the network"): the first of
/// [`NGRAM_WEIGHTS`], which ties go to, and the weight of older manifests that record none.
pub const DEFAULT_NGRAM_WEIGHT: f64 = 3.0;

/// The n-gram regression's weight where none is asked for and dev has no gold label to
/// choose one on (the label model's labels of dev, which the rules agree with, would choose
/// the network alone). Without a gold label the network is the rules again (each member
/// keeps its start or learns them back), and what learns beyond them is the regression,
/// which at 30 outvotes them where its n-grams are sure. With no gold label anywhere (seed
/// 0, dev): SMS 93.60 % at 3, 95.20 % at 10, 96.20 % at 30 and at 100; TREC 61.40, 61.20,
/// 61.20 and 61.00 %; apparel with four `neg` word lists `suggest` induced (the rules
/// 69.38 %), 69.38, 72.50, 73.12 and 72.50 % (`docs/results.md`, "No gold label: the
/// regression's weight, and the silence that speaks for the default").
pub const UNLABELED_DEV_NGRAM_WEIGHT: f64 = 30.0;

/// The least share of the default label's lines, as the label model estimates them on the
/// train lines without a gold label, that the lines some rule fires on must hold for the
/// lines no rule fires on to be left out (`data::silence_speaks_for_default`). SMS's spam rules with one
/// ham rule of their `thanks` or `i … miss` (reaching 1.8 % and 1.3 % of ham) and no gold
/// label learned spam on most lines with the silence left out (dev 45.80 %, the rules
/// 91.60 %) and give the rules back with it taught (91.80 %); every other file measured
/// reaches more (random halves of SMS's rules 6.9 % to 30 %, where leaving the silence out
/// gains 5.2 to 6.6 points over teaching it; SMS's and TREC's whole files 38 % and 95 %;
/// `docs/results.md`, "Rules that scarcely speak for the default").
pub const MIN_DEFAULT_REACH: f64 = 0.05;

/// The n-gram regression's weights chosen from on a gold dev where none is asked for, by
/// the dev log loss of the network's probabilities with each at its fitted temperature, ties
/// going to the earlier: all of TREC and SMS want 1 to 100, a hundred train lines any, and a
/// hundred short sentences without rules often the regression nearly alone, which 1000 is
/// (the network's logits then only break its near ties; `docs/results.md`, "The n-gram
/// regression's weight chosen on dev", "A hundred lines, many draws" and "The weight chosen
/// by dev log loss").
pub const NGRAM_WEIGHTS: [f64; 6] = [DEFAULT_NGRAM_WEIGHT, 1.0, 10.0, 30.0, 100.0, 1000.0];

/// The most epochs, batch size and rank a setting may ask for: beyond them a typo, not a
/// wish, and a rank's factors are allocated before training starts.
pub const MAX_EPOCHS: usize = 10_000;
/// See [`MAX_EPOCHS`].
pub const MAX_BATCH_SIZE: usize = 65_536;
/// See [`MAX_EPOCHS`].
pub const MAX_RANK: usize = 4_096;
/// See [`MAX_EPOCHS`].
pub const MAX_SENTENCE_TOKENS: usize = 1 << 20;

impl TrainingSettings {
    /// Every default.
    pub const DEFAULT: TrainingSettings = TrainingSettings {
        model: ModelKind::FaRnn,
        scoring: Scoring::Forward,
        embeddings: None,
        beta: 0.7,
        free_states: 30,
        members: None,
        ngram_weight: None,
        hold_out_dev: false,
        keep_every_rule: false,
        rank: None,
        fraction: 1.0,
        epochs: 60,
        batch_size: 32,
        learning_rate: None,
        patience: 10,
        logit_scale: 10.0,
        drop_unnamed_labels: false,
        seed: 0,
        device: DeviceKind::Cpu,
        max_sentence_tokens: 1024,
        dropout: None,
        sopa: SopaSettings::DEFAULT,
        slstm: SlstmSettings::DEFAULT,
    };

    /// The settings member `i` of an ensemble trains with: the seed `seed + i`.
    pub fn of_member(&self, i: usize) -> TrainingSettings {
        TrainingSettings {
            seed: self.seed.wrapping_add(i as u64),
            ..self.clone()
        }
    }

    /// Epochs without a better dev accuracy before training on `n_train` sentences stops:
    /// `patience`, or more where that many epochs make fewer than [`MIN_PATIENCE_UPDATES`]
    /// updates.
    pub fn patience_epochs(&self, n_train: usize) -> usize {
        let updates_per_epoch = n_train.div_ceil(self.batch_size.max(1)).max(1);
        self.patience
            .max(MIN_PATIENCE_UPDATES.div_ceil(updates_per_epoch))
    }

    /// Adam's step size: the one asked for, else the model's default.
    pub fn learning_rate(&self) -> f64 {
        self.learning_rate
            .unwrap_or(self.model.default_learning_rate())
    }

    /// How many networks are trained and averaged: the number asked for, else the model's
    /// default.
    pub fn members(&self) -> usize {
        self.members.unwrap_or(self.model.default_members())
    }

    /// The settings with the model's defaults written in (as a manifest records them): the
    /// step size, the dropout and the ensemble's members.
    pub fn resolved(&self) -> TrainingSettings {
        TrainingSettings {
            learning_rate: Some(self.learning_rate()),
            members: Some(self.members()),
            dropout: Some(self.dropout()),
            ..self.clone()
        }
    }

    /// The share dropped in training: the one asked for, else the model's default.
    pub fn dropout(&self) -> f64 {
        self.dropout.unwrap_or(self.model.default_dropout())
    }

    /// Whether a trained network gets an n-gram regression beside it: the FA-RNN family's
    /// and SoPa's ([`ModelKind::has_ngram_regression`]), with a weight above 0, when training
    /// runs at all (the untrained network is the rules').
    pub fn wants_ngram_regression(&self) -> bool {
        self.model.has_ngram_regression() && self.ngram_weight != Some(0.0) && self.epochs > 0
    }

    /// The n-gram regression's weights to choose from on a gold dev, in the order ties go:
    /// the one asked for, else [`NGRAM_WEIGHTS`].
    pub fn ngram_weights(&self) -> Vec<f64> {
        match self.ngram_weight {
            Some(weight) => vec![weight],
            None => NGRAM_WEIGHTS.to_vec(),
        }
    }

    /// The free states the FA-RNN family's networks get: `free_states` with forward
    /// scoring, none with Viterbi scoring.
    pub fn effective_free_states(&self) -> usize {
        match self.scoring {
            Scoring::Forward => self.free_states,
            Scoring::Viterbi => 0,
        }
    }

    /// The factor on the logits inside the loss and the probabilities: `logit_scale` for
    /// the soft-logic logits of the rule networks and SoPa, 1 for a black box.
    pub fn effective_logit_scale(&self) -> f64 {
        if self.model.is_black_box() {
            1.0
        } else {
            self.logit_scale
        }
    }

    /// Why these settings cannot train, naming the setting (as `rulelens train`'s flag and the
    /// server's camelCase key both read it), or `Ok`.
    pub fn check(&self) -> Result<(), String> {
        let range = |name: &str, value: f64, low: f64, high: f64, open_low: bool| {
            let inside = if open_low {
                value > low && value <= high
            } else {
                value >= low && value <= high
            };
            if inside {
                Ok(())
            } else {
                Err(format!(
                    "{name} must be in {}{low}, {high}], not {value}",
                    if open_low { "(" } else { "[" }
                ))
            }
        };
        range("beta", self.beta, 0.0, 1.0, false)?;
        range("fraction", self.fraction, 0.0, 1.0, true)?;
        range("learning rate", self.learning_rate(), 0.0, 1.0, true)?;
        range("logit scale", self.logit_scale, 0.0, 1e6, true)?;
        if let Some(weight) = self.ngram_weight {
            range("n-gram weight", weight, 0.0, 1e3, false)?;
        }
        let dropout = self.dropout();
        if !(0.0..1.0).contains(&dropout) {
            return Err(format!("dropout must be in [0, 1), not {dropout}"));
        }
        let count = |name: &str, value: usize, low: usize, high: usize| {
            if (low..=high).contains(&value) {
                Ok(())
            } else {
                Err(format!(
                    "{name} must be between {low} and {high}, not {value}"
                ))
            }
        };
        count("epochs", self.epochs, 0, MAX_EPOCHS)?;
        count("batch size", self.batch_size, 1, MAX_BATCH_SIZE)?;
        count("patience", self.patience, 0, MAX_EPOCHS)?;
        count("free states", self.free_states, 0, MAX_FREE_STATES)?;
        count("members", self.members(), 1, MAX_MEMBERS)?;
        if self.members() > 1 && !self.model.is_rule_network() {
            return Err(format!(
                "members: ensembles are built of the FA-RNN family's networks, and {} trains one network; leave members out or ask for 1",
                self.model.display_name()
            ));
        }
        count(
            "max sentence tokens",
            self.max_sentence_tokens,
            1,
            MAX_SENTENCE_TOKENS,
        )?;
        if let Some(rank) = self.rank {
            count("rank", rank, 1, MAX_RANK)?;
        }
        self.sopa.check()?;
        self.slstm.check()
    }
}

impl Default for TrainingSettings {
    fn default() -> TrainingSettings {
        TrainingSettings::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patience_waits_at_least_the_fewest_updates() {
        let settings = TrainingSettings::DEFAULT;
        // A hundred lines in batches of 32: four updates an epoch.
        assert_eq!(settings.patience_epochs(100), 25);
        assert_eq!(settings.patience_epochs(1), MIN_PATIENCE_UPDATES);
        // Ten epochs of 4,500 lines are 1,410 updates: the setting as it is.
        assert_eq!(settings.patience_epochs(4_500), settings.patience);
        let patient = TrainingSettings {
            patience: 40,
            ..TrainingSettings::DEFAULT
        };
        assert_eq!(patient.patience_epochs(100), 40);
    }

    #[test]
    fn the_model_kind_table_lists_each_kind_once_in_declaration_order() {
        for (i, row) in ModelKind::TABLE.iter().enumerate() {
            assert_eq!(row.kind as usize, i, "{}", row.name);
            assert_eq!(ModelKind::from_name(row.name), Some(row.kind));
            let json = serde_json::to_string(&row.kind).unwrap();
            assert_eq!(json, format!("\"{}\"", row.name));
            assert_eq!(serde_json::from_str::<ModelKind>(&json).unwrap(), row.kind);
        }
        let unknown = serde_json::from_str::<ModelKind>("\"fa-lstm\"").unwrap_err();
        assert!(
            unknown.to_string().contains("unknown model `fa-lstm`"),
            "{unknown}"
        );
    }

    #[test]
    fn the_defaults_pass_their_own_check_and_bad_values_are_named() {
        assert_eq!(TrainingSettings::DEFAULT.check(), Ok(()));
        let with = |change: fn(&mut TrainingSettings)| {
            let mut settings = TrainingSettings::default();
            change(&mut settings);
            settings.check().unwrap_err()
        };
        assert_eq!(
            with(|s| s.beta = f64::NAN),
            "beta must be in [0, 1], not NaN"
        );
        assert_eq!(
            with(|s| s.batch_size = 0),
            "batch size must be between 1 and 65536, not 0"
        );
        assert_eq!(
            with(|s| s.logit_scale = f64::INFINITY),
            "logit scale must be in (0, 1000000], not inf"
        );
        assert_eq!(
            with(|s| s.rank = Some(100_000)),
            "rank must be between 1 and 4096, not 100000"
        );
        assert_eq!(
            with(|s| s.fraction = 0.0),
            "fraction must be in (0, 1], not 0"
        );
    }

    #[test]
    fn settings_read_camel_case_and_default_what_is_left_out() {
        let settings: TrainingSettings = serde_json::from_value(serde_json::json!({
            "model": "bifa-gru", "learningRate": 0.01, "device": "cuda"
        }))
        .unwrap();
        assert_eq!(
            settings,
            TrainingSettings {
                model: ModelKind::BiFaGru,
                learning_rate: Some(0.01),
                device: DeviceKind::Cuda,
                ..TrainingSettings::DEFAULT
            }
        );
        let written = serde_json::to_value(TrainingSettings::DEFAULT).unwrap();
        assert_eq!(written["batchSize"], 32);
        assert_eq!(written["scoring"], "forward");
        assert_eq!(written["embeddings"], serde_json::Value::Null);
    }
}

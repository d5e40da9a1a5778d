//! Checkpoints: a folder holding `weights.safetensors` (the network's tensors under the
//! names of [`Network::named_tensors`](crate::model::Network::named_tensors), plus the untrained values under
//! `initial.NAME`) and `manifest.json` (what the weights belong to and how they were made).
//!
//! The manifest records the SHA-256 of the rules text and of the weights file. Loading
//! refuses a checkpoint whose format version is unknown, whose weights file is missing or
//! does not hash to the recorded value (corrupt or replaced), or whose rules file has
//! changed since training (stale). Writes are atomic: each file is written under a
//! temporary name in the same folder and renamed into place, weights first, so a folder
//! never pairs a manifest with weights it does not describe.

use crate::automata::{CompileConfig, RuleSystem};
use crate::digest::sha256_hex;
use crate::limits::{Limit, ReadLimits};
use crate::model::train::settings::TrainingSettings;
use crate::rules_file::{DiskWordFiles, RulesFile, StoredWordFiles};
use crate::syntax::WordFiles;
use crate::text::SourceText;
use crate::text::read_capped;
use crate::text::{TOKENIZER_VERSION, is_unspaced};
use candle_core::{Device, Tensor};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::{Path, PathBuf};

/// The version of the checkpoint format this build reads and writes. Version 3: an FA-RNN's
/// word-vector path is added to the rules' symbols (`fa_rnn/mod.rs`), where version 2 mixed
/// them by β; the same tensors mean another network, so a version-2 checkpoint is refused.
pub const FORMAT_VERSION: u32 = 3;
/// The manifest's file name inside a checkpoint folder.
pub const MANIFEST_FILE: &str = "manifest.json";
/// The weights' file name inside a checkpoint folder.
pub const WEIGHTS_FILE: &str = "weights.safetensors";
/// Room in the weights' safetensors header for its own fields.
/// The largest magnitude of a value a checkpoint's weights may hold: the largest word id an
/// n-gram regression stores (below `MAX_NGRAM_VOCABULARY`, 2²⁴), and far above any trained
/// value (the checkpoints trained on SMS and TREC here stay under 60, an n-gram regression's
/// weights the largest). A larger one is a forged or corrupt file: a D1 of 10³⁰ had every
/// pattern score 1.00.
pub const MAX_STORED_MAGNITUDE: f32 = (1u32 << 24) as f32;

const HEADER_BYTES: u64 = 4096;
/// Room in the weights' safetensors header per tensor, beside the tensor's name.
const HEADER_BYTES_PER_TENSOR: u64 = 256;

/// The rules file a checkpoint was trained from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RulesIdentity {
    /// The path as given to `rulelens train`, made absolute.
    pub path: PathBuf,
    /// SHA-256 of the file's bytes, hex.
    pub sha256: String,
    /// The text trained from, so that a later text can start from this network
    /// (`rulelens train --from`); absent in checkpoints of rulelens before 0.1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// The text of each file its `words NAME from "PATH"` statements read, by the path as
    /// written, so that the checkpoint needs nothing beside it.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub word_files: BTreeMap<String, String>,
}

/// What a warm-started network started from (`warm.rs`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WarmStartRecord {
    /// The previous checkpoint's `weights_sha256` and rules' SHA-256.
    pub from_weights_sha256: String,
    pub from_rules_sha256: String,
    /// Patterns that kept their trained parameters, new or changed ones, and previous
    /// patterns that are gone (read left to right).
    pub kept_patterns: usize,
    pub changed_patterns: usize,
    pub removed_patterns: usize,
    /// Columns of the rank space kept from the previous network, and added for the new
    /// and changed patterns (left to right).
    pub kept_rank: usize,
    pub new_rank: usize,
}

/// The decomposition the network started from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DecompositionRecord {
    /// `exact` or `als`.
    pub method: String,
    pub rank: usize,
    pub relative_error: f64,
}

/// The word vectors a checkpoint was built with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EmbeddingsIdentity {
    /// The GloVe file (made absolute), or the bundled table's name.
    pub source: String,
    /// SHA-256 of the table, hex.
    pub sha256: String,
    pub dim: usize,
    /// Vocabulary words with their own vector, and with the mean of their pieces'.
    pub found: usize,
    pub backed_off: usize,
}

/// A rule training left out, with what the gold lines said of it (`left_out.rs`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOutRule {
    /// Its index among the rules in file order (`RuleSystem::rules`), which a change of
    /// comments or layout keeps.
    pub rule: usize,
    /// Its 1-based line in the text trained from.
    pub line: u32,
    /// The label it votes for.
    pub label: String,
    /// The gold lines it fired on, and how many of them have its label.
    pub gold_lines: usize,
    pub right: usize,
}

/// The indices of the rules `left_out` names, each checked against `system`'s rules (a
/// manifest's record is read from disk): it must name a rule of the label it records.
pub(crate) fn rule_indices(
    left_out: &[LeftOutRule],
    system: &RuleSystem,
) -> Result<Vec<usize>, String> {
    left_out
        .iter()
        .map(|left| {
            let label = (system.rules().get(left.rule))
                .map(|rule| system.labels()[rule.label.index()].as_str());
            match label {
                Some(label) if label == left.label => Ok(left.rule),
                _ => Err(format!(
                    "it leaves out rule {} (`{}`, line {}), which the rules file does not have",
                    left.rule, left.label, left.line
                )),
            }
        })
        .collect()
}

/// The figures a training run measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Metrics {
    pub train_examples: usize,
    pub dev_examples: usize,
    /// Dev accuracy of the network training started from: the untrained network (of the
    /// rules it kept, where it left some out: [`Manifest::rules_left_out`]), or the
    /// warm-started one for a warm start ([`Manifest::started_from`]).
    pub zero_shot_dev_accuracy: f64,
    /// The network's dev accuracy: an ensemble's, of its members' logits averaged. Where dev
    /// has no gold label, this and every dev figure here is agreement with the label model
    /// ([`Metrics::dev_figure`]).
    pub dev_accuracy: f64,
    /// The epoch kept, of those run (an ensemble's first member's; `members` has each).
    pub best_epoch: usize,
    pub epochs_run: usize,
    /// Seconds spent in updates (evaluation excluded), every member's.
    pub training_seconds: f64,
    /// Dev accuracy after each epoch (for a warm start, each dev measurement), the network
    /// training started from first: the training curve `rulelens report` draws (an
    /// ensemble's first member's). Empty in checkpoints written before rulelens recorded it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub dev_accuracy_by_epoch: Vec<f64>,
    /// An ensemble's members, each on its own; empty for one network.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<MemberMetrics>,
    /// The n-gram regression beside the network, when it has one (`dev_accuracy` is then
    /// the network's with it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ngram_regression: Option<NgramMetrics>,
    /// What the label model did, where some train or dev line had no gold label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label_model: Option<LabelModelMetrics>,
    /// Where the network was trained again on train's and dev's gold lines together once
    /// dev had chosen its epochs (`fit::train_again_with_dev`): then dev no longer measures
    /// it either, and the dev figures above (`members`' included) are those of the network
    /// stopped early on dev. Absent where dev is held out and in older manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trained_again_with_dev: Option<TrainedAgain>,
}

impl Metrics {
    /// What the dev figures above measure ([`DevFigure`]).
    pub fn dev_figure(&self) -> DevFigure {
        DevFigure::of(self.label_model.as_ref())
    }
}

/// The network trained again with dev's gold lines ([`Metrics::trained_again_with_dev`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrainedAgain {
    /// The lines it learned from, dev's among them.
    pub lines: usize,
    pub dev_lines: usize,
    /// The epochs each member trained again for: those it had kept on dev.
    pub epochs: Vec<usize>,
}

/// What a training's dev figures measure: accuracy against dev's gold labels, or, where dev
/// has no gold label, agreement with the label model's most probable label of each dev line
/// ([`LabelModelMetrics::dev_from_label_model`]), which says how well the network says the
/// rules back, not how often it is right. Every place that shows a dev figure names it by
/// [`DevFigure::name`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DevFigure {
    #[default]
    Accuracy,
    LabelModelAgreement,
    /// Where the sentence encoder's regression taught dev ([`LabelModelMetrics::encoder_teaches`]).
    EncoderAgreement,
    /// Where dev's lines no rule fires on were taught past a filter's silence
    /// ([`LabelModelMetrics::silence_rules_reach`]), and the others by the label model.
    SilenceTeachingAgreement,
}

impl DevFigure {
    /// What the dev figures of a training measure, from what its label model did (`None`:
    /// every line had a gold label).
    pub fn of(label_model: Option<&LabelModelMetrics>) -> DevFigure {
        match label_model {
            Some(used) if used.dev_from_label_model && used.encoder_teaches => {
                DevFigure::EncoderAgreement
            }
            Some(used) if used.dev_from_label_model && used.silence_rules_reach.is_some() => {
                DevFigure::SilenceTeachingAgreement
            }
            Some(used) if used.dev_from_label_model => DevFigure::LabelModelAgreement,
            _ => DevFigure::Accuracy,
        }
    }

    /// The figure's name, as a person reads it before its value: `dev accuracy 91.40%`.
    pub fn name(self) -> &'static str {
        match self {
            DevFigure::Accuracy => "dev accuracy",
            DevFigure::LabelModelAgreement => "dev agreement with the label model",
            DevFigure::EncoderAgreement => "dev agreement with the encoder's regression",
            DevFigure::SilenceTeachingAgreement => {
                "dev agreement with the labels taught past the rules' silence"
            }
        }
    }
}

/// What the label model of the rules did for training (`labeling::LabelModel`): the train
/// lines it taught (those without a gold label that some rule fired on, every one for a black box)
/// beside the gold ones, its estimated accuracy
/// on them (the mean probability of its most probable label), and whether dev had no gold
/// label, so that training stopped on agreement with the label model's most probable label
/// of each dev line (`dev_accuracy` is then that agreement), and whether the network learned
/// from the gold lines alone.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LabelModelMetrics {
    pub gold_lines: usize,
    pub unlabeled_lines: usize,
    pub estimated_accuracy: f64,
    pub dev_from_label_model: bool,
    /// Whether the network learned from the gold lines alone and the taught lines reached
    /// only the n-gram regression beside it (`data::network_from_gold`); false in older
    /// manifests, whose network learned from every line.
    #[serde(default)]
    pub network_from_gold: bool,
    /// Whether the unlabeled lines no rule fires on were taught (the label model's answer
    /// there) because nothing else speaks for the default label: no gold train line has it,
    /// and no rule votes for it or the lines some rule fires on hold under
    /// `settings::MIN_DEFAULT_REACH` of its lines by the label model's estimate
    /// (`data::silence_speaks_for_default`); false in older manifests. A black box is taught
    /// them whatever this says.
    #[serde(default)]
    pub silence_teaches_default: bool,
    /// Whether the sentence encoder's regression taught the lines without a gold label (and
    /// dev's, where dev had none) in place of the label model, which taught it
    /// (`train/encoder_teacher.rs`); false in older manifests.
    #[serde(default)]
    pub encoder_teaches: bool,
    /// Where a filter's silence was taught past the rules (`train/silence_teacher.rs`): the
    /// estimated share of the rules' label's lines the rules fire on, by which each line no
    /// rule fires on was taught that label at the sentence encoder's regression's
    /// probability that a rule of it fires there, over this; absent otherwise and in older
    /// manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub silence_rules_reach: Option<f64>,
}

/// How the n-gram regression beside a network was fitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NgramMetrics {
    /// The n-grams it weighs (train's, and dev's where it was fitted again with them).
    pub features: usize,
    /// The character n-grams it weighs (0, or absent in manifests of training version 8 or
    /// older, for none).
    #[serde(default)]
    pub character_features: usize,
    /// The words whose vectors its mean word vector reads (0, or absent in manifests of
    /// training version 4 or older, for n-grams alone).
    #[serde(default)]
    pub vector_words: usize,
    /// Its inverse regularisation strength, chosen on dev.
    pub c: f64,
    /// The weight on its logits, asked for or chosen on dev (absent in older manifests,
    /// whose settings' `ngramWeight` is the weight).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// The dev accuracy of the network without it.
    pub network_dev_accuracy: f64,
    /// Seconds spent fitting it (every C tried, and the fit again with dev's lines; about 0
    /// for a warm start's, reused).
    pub seconds: f64,
    /// The temperature the network's probabilities are taken at, with the regression beside
    /// it ([`Manifest::probability_scale`]): fitted on a gold dev's log loss
    /// (`nn::probabilities::calibrate`); absent (1) without a gold dev and in older
    /// manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The mean log loss on that gold dev of the network's probabilities with the regression,
    /// at that temperature: the smallest of the weights tried where the weight was chosen;
    /// absent where `temperature` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dev_log_loss: Option<f64>,
    /// Where it was fitted again with dev's gold lines once C, the weight and the
    /// temperature were chosen (`data::with_dev_gold`): then dev no longer measures it, and
    /// the dev figures above are those measured before. Absent where dev is held out (no
    /// gold dev, `holdOutDev`, a regression reused) and in older manifests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refit: Option<DevRefit>,
}

/// The n-gram regression's fit again with dev's gold lines ([`NgramMetrics::refit`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevRefit {
    /// Dev's gold lines it read beside train's.
    pub dev_lines: usize,
    /// The dev corpus's examples, as `training_data_sha256` hashes a dev with no train
    /// lines: `eval` on that corpus says its figure is not held out.
    pub dev_sha256: String,
}

/// How one member of an ensemble trained.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MemberMetrics {
    /// The seed of its batch order and free-state noise.
    pub seed: u64,
    pub dev_accuracy: f64,
    pub best_epoch: usize,
    pub epochs_run: usize,
    pub dev_accuracy_by_epoch: Vec<f64>,
}

/// `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    /// The version of the tokenizer its rules, vocabulary and training lines were cut into
    /// tokens with ([`TOKENIZER_VERSION`]); 1 where the manifest has none (a rulelens
    /// before text without spaces was segmented). [`check_tokenizer`] refuses one that
    /// would be read otherwise.
    #[serde(default = "first_tokenizer")]
    pub tokenizer_version: u32,
    pub rules: RulesIdentity,
    /// What the network was trained with.
    pub settings: TrainingSettings,
    /// Labels in priority order, as the network's outputs are.
    pub labels: Vec<String>,
    /// SHA-256 of the train and dev examples read (texts and labels), which a warm start
    /// must share.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub training_data_sha256: Option<String>,
    /// What the network was warm-started from; `None` for a training from scratch. The
    /// `initial.*` tensors of a warm-started checkpoint are the whole untrained network of
    /// its rules (not the warm start), so that `--zero-shot` is the rules' network.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warm_start: Option<WarmStartRecord>,
    /// The FA-RNN family's decomposition (none for SoPa).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decomposition: Option<DecompositionRecord>,
    /// The backward direction's decomposition (bidirectional models only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backward_decomposition: Option<DecompositionRecord>,
    /// The word vectors (`None` when β is 1: the network reads the rules' symbols alone).
    pub embeddings: Option<EmbeddingsIdentity>,
    /// The vocabulary, the unknown word first; empty without word vectors.
    pub vocabulary: Vec<String>,
    pub metrics: Metrics,
    /// SHA-256 of `weights.safetensors`, hex.
    pub weights_sha256: String,
    /// Every tensor's shape, by name.
    pub tensors: BTreeMap<String, Vec<usize>>,
    /// The rules training left out, which the gold lines contradicted (`left_out.rs`):
    /// loading leaves them out again. A network loaded untrained (`--zero-shot`) is every
    /// rule, and its manifest has none here.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules_left_out: Vec<LeftOutRule>,
}

impl Manifest {
    /// The factor on the network's logits inside its probabilities: the logit scale
    /// (`TrainingSettings::effective_logit_scale`, as training used it) over the temperature
    /// fitted with the n-gram regression, so that a network with the regression weighed in
    /// heavily is no surer than dev says it should be. Every probability of the network
    /// reads it; training's loss reads the logit scale alone.
    pub fn probability_scale(&self) -> f64 {
        let temperature = self
            .metrics
            .ngram_regression
            .as_ref()
            .and_then(|ngrams| ngrams.temperature)
            .unwrap_or(1.0);
        self.settings.effective_logit_scale() / temperature
    }

    /// The rules the network predicts with, from those it was trained from as the file
    /// holds them (`written`): the labels it learned from the corpus appended to the rules',
    /// and the rules training left out ([`Manifest::rules_left_out`]) left out. An error
    /// names a record that does not fit the rules.
    pub fn network_rules(&self, written: &RulesFile) -> Result<RulesFile, String> {
        let known = written.system.labels().len();
        let mut system =
            (written.system).with_labels(self.labels.iter().skip(known).map(String::as_str));
        if !self.rules_left_out.is_empty() {
            system = system.without_rules(&rule_indices(&self.rules_left_out, &system)?);
        }
        Ok(RulesFile {
            system,
            ..written.clone()
        })
    }

    /// Whether the network was trained from exactly `text` (comments and layout included:
    /// an editor shows a network trained on another text as stale).
    pub fn is_trained_on(&self, text: &str) -> bool {
        sha256_hex(text.as_bytes()) == self.rules.sha256
    }

    /// What `metrics.zero_shot_dev_accuracy` measured: `untrained`, or `warm start`.
    pub fn started_from(&self) -> &'static str {
        if self.warm_start.is_some() {
            "warm start"
        } else {
            "untrained"
        }
    }
}

/// Why a checkpoint could not be written or used.
#[derive(Debug)]
pub enum CheckpointError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    /// The manifest is not valid JSON of the expected shape.
    Manifest {
        path: PathBuf,
        message: String,
    },
    UnsupportedVersion {
        path: PathBuf,
        found: u32,
    },
    /// The checkpoint's rules or vocabulary were tokenized by another tokenizer than this
    /// rulelens's, which cuts them otherwise ([`check_tokenizer`]).
    TokenizerChanged {
        path: PathBuf,
        found: u32,
    },
    /// The weights could not be written (a full disk, a read-only folder, …).
    Write {
        path: PathBuf,
        message: String,
    },
    /// The weights do not hash to the manifest's value, or cannot be parsed.
    Corrupt {
        path: PathBuf,
        message: String,
    },
    /// The path is no checkpoint folder: a file (a rules file, say), or a folder without a
    /// manifest.
    NotACheckpoint {
        path: PathBuf,
        what: &'static str,
    },
    /// The rules given are not those the checkpoint was trained from, beyond comments,
    /// layout and line numbers: what the given file lacks and what it adds, as
    /// `RulesFile::rule_lines` (empty both when only the order changed). What it adds is
    /// quoted only where the file was given by the user: a file the checkpoint's manifest
    /// names could be any file (`/etc/passwd`), and its lines are counted, not shown.
    RulesChanged {
        trained_from: PathBuf,
        given: PathBuf,
        removed: Vec<String>,
        added: Vec<String>,
        quote_added: bool,
    },
    /// The rules file changed since the checkpoint was made (a checkpoint of rulelens
    /// before 0.1, whose manifest does not record the rules text).
    Stale {
        rules: PathBuf,
        expected: String,
        found: String,
    },
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Io { path, error } => write!(f, "{}: {error}", path.display()),
            CheckpointError::NotACheckpoint { path, what } => write!(
                f,
                "{} is {what}, not a checkpoint folder (`rulelens train --out DIR` writes one){}",
                path.display(),
                if path.extension().is_some_and(|e| e == "rules") {
                    "; for what the rules alone say, run `rulelens classify`"
                } else {
                    ""
                }
            ),
            CheckpointError::Manifest { path, message } => {
                write!(
                    f,
                    "{}: not a rulelens checkpoint manifest: {message}",
                    path.display()
                )
            }
            CheckpointError::UnsupportedVersion { path, found } => write!(
                f,
                "{}: checkpoint format version {found}, this rulelens reads version {FORMAT_VERSION}; train the network again",
                path.display()
            ),
            CheckpointError::TokenizerChanged { path, found } if *found > TOKENIZER_VERSION => {
                write!(
                    f,
                    "{}: tokenizer version {found}, from a later rulelens; this rulelens tokenizes with version {TOKENIZER_VERSION}; train the network again or use that rulelens",
                    path.display()
                )
            }
            CheckpointError::TokenizerChanged { path, found } => write!(
                f,
                "{}: trained with tokenizer version {found}, which kept text without spaces (Chinese, Japanese, Thai, …) as one token, and its rules or vocabulary hold such text; this rulelens tokenizes with version {TOKENIZER_VERSION}, which cuts it into words, so the network would read other tokens than it learned; train the network again",
                path.display()
            ),
            CheckpointError::Write { path, message } => {
                write!(f, "cannot write {}: {message}", path.display())
            }
            CheckpointError::Corrupt { path, message } => {
                write!(f, "{}: corrupt checkpoint: {message}", path.display())
            }
            CheckpointError::RulesChanged {
                trained_from,
                given,
                removed,
                added,
                quote_added,
            } => {
                let listed = |lines: &[String]| {
                    let shown: Vec<String> =
                        lines.iter().take(3).map(|l| format!("`{l}`")).collect();
                    let more = lines.len().saturating_sub(3);
                    format!(
                        "{}{}",
                        shown.join(", "),
                        if more > 0 {
                            format!(" and {more} more")
                        } else {
                            String::new()
                        }
                    )
                };
                write!(
                    f,
                    "the checkpoint was trained from the rules of {}, and {} has other rules",
                    trained_from.display(),
                    given.display()
                )?;
                match (removed.is_empty(), added.is_empty()) {
                    (true, true) => write!(f, " (the same, in another order)")?,
                    _ => {
                        if !removed.is_empty() {
                            write!(f, "; it lacks {}", listed(removed))?;
                        }
                        match (added.len(), quote_added) {
                            (0, _) => {}
                            (_, true) => write!(f, "; it adds {}", listed(added))?,
                            (1, false) => write!(f, "; it adds a rule or declaration")?,
                            (n, false) => write!(f, "; it adds {n} rules or declarations")?,
                        }
                    }
                }
                write!(
                    f,
                    ". Comments and layout do not count; retrain with `rulelens train`"
                )
            }
            CheckpointError::Stale {
                rules,
                expected,
                found,
            } => write!(
                f,
                "{} changed since the checkpoint was trained (SHA-256 {} there, {} now); retrain with `rulelens train`",
                rules.display(),
                &expected[..expected.len().min(12)],
                &found[..found.len().min(12)]
            ),
        }
    }
}

impl std::error::Error for CheckpointError {}

fn io(path: &Path) -> impl Fn(std::io::Error) -> CheckpointError + '_ {
    move |error| CheckpointError::Io {
        path: path.to_path_buf(),
        error,
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
fn write_atomically(path: &Path, bytes: &[u8]) -> Result<(), CheckpointError> {
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&temporary, bytes)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|error| {
            let _ = std::fs::remove_file(&temporary);
            CheckpointError::Io {
                path: path.to_path_buf(),
                error,
            }
        })
}

/// Saves tensors and manifest into `dir` (created if needed); fills in the manifest's
/// weights hash and tensor shapes.
pub fn save(
    dir: &Path,
    manifest: &mut Manifest,
    tensors: &HashMap<String, Tensor>,
) -> Result<(), CheckpointError> {
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let weights = dir.join(WEIGHTS_FILE);
    let temporary = dir.join(format!("{WEIGHTS_FILE}.tmp{}", std::process::id()));
    candle_core::safetensors::save(tensors, &temporary).map_err(|error| {
        let _ = std::fs::remove_file(&temporary);
        CheckpointError::Write {
            path: temporary.clone(),
            message: error.to_string(),
        }
    })?;
    let bytes = std::fs::read(&temporary).map_err(io(&temporary))?;
    manifest.weights_sha256 = sha256_hex(&bytes);
    manifest.tensors = tensors
        .iter()
        .map(|(name, tensor)| (name.clone(), tensor.dims().to_vec()))
        .collect();
    std::fs::rename(&temporary, &weights).map_err(io(&weights))?;
    let json = serde_json::to_vec_pretty(manifest).map_err(|error| CheckpointError::Manifest {
        path: dir.join(MANIFEST_FILE),
        message: error.to_string(),
    })?;
    write_atomically(&dir.join(MANIFEST_FILE), &json)
}

/// Reads a checkpoint's manifest alone, verifying its format version (not the weights): what
/// a checkpoint records of its training, for `rulelens report`. Read up to
/// `limits.max_manifest_bytes`.
pub fn read_manifest(dir: &Path, limits: &ReadLimits) -> Result<Manifest, CheckpointError> {
    let manifest_path = dir.join(MANIFEST_FILE);
    let not_a_checkpoint = |what| CheckpointError::NotACheckpoint {
        path: dir.to_path_buf(),
        what,
    };
    if dir.is_file() {
        return Err(not_a_checkpoint("a file"));
    }
    if dir.is_dir() && !manifest_path.exists() {
        return Err(not_a_checkpoint("a folder without `manifest.json`"));
    }
    let text = limits
        .read(Limit::Manifest, &manifest_path)
        .map_err(io(&manifest_path))?;
    let version: serde_json::Value =
        serde_json::from_slice(&text).map_err(|error| CheckpointError::Manifest {
            path: manifest_path.clone(),
            message: error.to_string(),
        })?;
    let found = version
        .get("format_version")
        .and_then(serde_json::Value::as_u64);
    if found != Some(u64::from(FORMAT_VERSION)) {
        return match found {
            Some(found) => Err(CheckpointError::UnsupportedVersion {
                path: manifest_path,
                found: found.min(u64::from(u32::MAX)) as u32,
            }),
            None => Err(CheckpointError::Manifest {
                path: manifest_path,
                message: "no `format_version`".to_string(),
            }),
        };
    }
    serde_json::from_value(version).map_err(|error| CheckpointError::Manifest {
        path: manifest_path,
        message: error.to_string(),
    })
}

/// Reads a checkpoint's manifest and tensors, verifying the format version and the weights'
/// hash and shapes. Whether the rules file is still the same is [`check_rules`]'s job.
/// The manifest is read up to `limits.max_manifest_bytes`; the weights up to the size the
/// manifest's shapes give them, if that is within `limits.max_weights_bytes`.
pub fn load(
    dir: &Path,
    device: &Device,
    limits: &ReadLimits,
) -> Result<(Manifest, HashMap<String, Tensor>), CheckpointError> {
    let manifest = read_manifest(dir, limits)?;
    // Settings out of their ranges (a tampered `logitScale` of 0 makes every probability
    // one half) are refused as `rulelens train` refuses them.
    manifest
        .settings
        .check()
        .map_err(|message| CheckpointError::Manifest {
            path: dir.join(MANIFEST_FILE),
            message: format!("its settings: {message}"),
        })?;
    let weights = dir.join(WEIGHTS_FILE);
    let corrupt = |message: String| CheckpointError::Corrupt {
        path: weights.clone(),
        message,
    };
    // The manifest's shapes say how large the weights are: nothing larger is read.
    let limit = weights_size(&manifest.tensors)
        .filter(|&size| size <= limits.of(Limit::Weights).0)
        .ok_or_else(|| {
            corrupt(format!(
                "the manifest's tensor shapes ask for weights {}",
                limits.too_large(Limit::Weights)
            ))
        })?;
    let bytes = read_capped(&weights, limit).map_err(|error| {
        if error.kind() == std::io::ErrorKind::FileTooLarge {
            corrupt(format!(
                "larger than the {limit} bytes the manifest's tensor shapes allow"
            ))
        } else {
            io(&weights)(error)
        }
    })?;
    let hash = sha256_hex(&bytes);
    if hash != manifest.weights_sha256 {
        return Err(corrupt(format!(
            "SHA-256 {} where the manifest records {}",
            &hash[..12],
            &manifest.weights_sha256[..manifest.weights_sha256.len().min(12)]
        )));
    }
    let tensors = candle_core::safetensors::load_buffer(&bytes, device)
        .map_err(|error| corrupt(error.to_string()))?;
    for (name, shape) in &manifest.tensors {
        match tensors.get(name) {
            Some(tensor) if tensor.dims() == shape.as_slice() => {}
            Some(tensor) => {
                return Err(corrupt(format!(
                    "tensor `{name}` has shape {:?}, the manifest says {shape:?}",
                    tensor.dims()
                )));
            }
            None => return Err(corrupt(format!("tensor `{name}` is missing"))),
        }
    }
    if let Some(name) = tensors
        .keys()
        .find(|name| !manifest.tensors.contains_key(*name))
    {
        return Err(corrupt(format!("tensor `{name}` is not in the manifest")));
    }
    for (name, tensor) in &tensors {
        let in_range = tensor
            .flatten_all()
            .and_then(|t| t.to_dtype(candle_core::DType::F32))
            .and_then(|t| t.to_vec1::<f32>())
            .map(|values| {
                values
                    .iter()
                    .all(|v| v.is_finite() && v.abs() <= MAX_STORED_MAGNITUDE)
            });
        if !matches!(in_range, Ok(true)) {
            return Err(corrupt(format!(
                "tensor `{name}` holds values that are not finite numbers of at most {MAX_STORED_MAGNITUDE:e} in magnitude"
            )));
        }
    }
    Ok((manifest, tensors))
}

/// The most bytes a weights file with these tensor shapes can take: their f32 values plus
/// the safetensors header (8 bytes, then JSON of at most [`HEADER_BYTES_PER_TENSOR`] per
/// tensor and [`HEADER_BYTES`] more); `None` past `u64`.
fn weights_size(shapes: &BTreeMap<String, Vec<usize>>) -> Option<u64> {
    let mut total = 8 + HEADER_BYTES;
    for (name, shape) in shapes {
        let values = shape
            .iter()
            .try_fold(1u64, |n, &d| n.checked_mul(d as u64))?;
        total = total
            .checked_add(values.checked_mul(4)?)?
            .checked_add(HEADER_BYTES_PER_TENSOR + name.len() as u64)?;
    }
    Some(total)
}

/// The tokenizer version of a manifest that records none.
fn first_tokenizer() -> u32 {
    1
}

/// Refuses a checkpoint tokenized otherwise than this rulelens tokenizes
/// ([`CheckpointError::TokenizerChanged`]): one from a later tokenizer, or one from version 1
/// whose rules (`rules_bytes`, its word-list files) or vocabulary hold text of a script
/// written without spaces ([`is_unspaced`]), the only text version 2 cuts otherwise. A
/// version-1 checkpoint without such text tokenizes as it did, and loads. The manifest is
/// in `model_dir`.
pub fn check_tokenizer(
    manifest: &Manifest,
    rules_bytes: &[u8],
    model_dir: &Path,
) -> Result<(), CheckpointError> {
    let found = manifest.tokenizer_version;
    let unspaced = |text: &str| text.chars().any(is_unspaced);
    let read_otherwise = match found.cmp(&TOKENIZER_VERSION) {
        std::cmp::Ordering::Equal => false,
        std::cmp::Ordering::Greater => true,
        std::cmp::Ordering::Less => {
            unspaced(&String::from_utf8_lossy(rules_bytes))
                || manifest
                    .rules
                    .word_files
                    .values()
                    .any(|text| unspaced(text))
                || manifest.vocabulary.iter().any(|word| unspaced(word))
        }
    };
    if read_otherwise {
        return Err(CheckpointError::TokenizerChanged {
            path: model_dir.join(MANIFEST_FILE),
            found,
        });
    }
    Ok(())
}

/// Refuses a checkpoint whose rules are not those it was trained from, up to comments and
/// layout: `rules_bytes` read from `rules_path` (its word-list files beside it), or the
/// manifest's own text when `None` (its word-list files from the manifest).
pub fn check_rules(
    manifest: &Manifest,
    rules_bytes: &[u8],
    rules_path: Option<&Path>,
) -> Result<(), CheckpointError> {
    let given = rules_path.unwrap_or(&manifest.rules.path);
    let found = sha256_hex(rules_bytes);
    // The same text with no word-list files is the same rules; files may have changed.
    if found == manifest.rules.sha256 && manifest.rules.word_files.is_empty() {
        return Ok(());
    }
    let Some(trained) = &manifest.rules.text else {
        return Err(CheckpointError::Stale {
            rules: manifest.rules.path.clone(),
            expected: manifest.rules.sha256.clone(),
            found,
        });
    };
    let stored = StoredWordFiles(&manifest.rules.word_files);
    let lines = |bytes: &[u8], path: Option<&Path>, files: &dyn WordFiles| {
        RulesFile::analyze_with(
            SourceText::from_bytes(bytes),
            path,
            &CompileConfig::MEASURING,
            files,
        )
        .rule_lines()
    };
    let before = lines(trained.as_bytes(), None, &stored);
    let after = match rules_path {
        Some(path) => lines(
            rules_bytes,
            Some(path),
            &DiskWordFiles::beside(path, &ReadLimits::DEFAULT),
        ),
        None => lines(rules_bytes, None, &stored),
    };
    if before == after {
        return Ok(());
    }
    // What each side has that the other lacks, counting repeats.
    let missing_from = |from: &[String], other: &[String]| {
        let mut left: Vec<&String> = other.iter().collect();
        let mut missing = Vec::new();
        for line in from {
            match left.iter().position(|l| *l == line) {
                Some(i) => {
                    left.swap_remove(i);
                }
                None => missing.push(line.clone()),
            }
        }
        missing
    };
    Err(CheckpointError::RulesChanged {
        trained_from: manifest.rules.path.clone(),
        given: given.to_path_buf(),
        removed: missing_from(&before, &after),
        added: missing_from(&after, &before),
        quote_added: true,
    })
}

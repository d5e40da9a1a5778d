//! Loading a checkpoint back, verified: its manifest and tensors, the rules file it was made
//! from (read from disk, given as bytes, or the text the manifest records), and its network
//! declared from the tensors (`kinds.rs`), checked against what the manifest says. The
//! loading half of `eval`, `predict` and `reconstruct`, and of the language server's cache.

use crate::automata::{CompileConfig, RuleSystem};
use crate::limits::{Limit, ReadLimits};
use crate::model::fa_rnn::ensemble::member_of;
use crate::model::nn::batch::Batch;
use crate::model::nn::embeddings::Vocabulary;
use crate::model::nn::network::Network;
use crate::model::nn::ngrams::{NGRAM_PREFIX, NgramRegression, WithNgrams};
use crate::model::nn::probabilities::softmax;
use crate::model::train::checkpoint::{self, CheckpointError, Manifest};
use crate::model::train::kinds::{Declaration, Start};
use crate::model::train::settings::TrainingSettings;
use crate::rules_file::{RulesFile, StoredWordFiles};
use crate::text::SourceText;
use candle_core::{Device, Tensor};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

/// A checkpoint with its rules file and network, ready to use.
pub struct LoadedModel {
    pub manifest: Manifest,
    pub rules: RulesFile,
    pub net: Arc<dyn Network>,
    pub vocabulary: Option<Vocabulary>,
}

impl LoadedModel {
    /// Texts scored at once by [`LoadedModel::most_probable_labels`].
    pub const BATCH_SIZE: usize = 256;

    /// Each text's label probabilities, labels in the order of the manifest's `labels`,
    /// computed by the network's tensors (what training measured, for every family) in
    /// batches of at most `batch_size` texts of similar length; a text is read up to the
    /// model's `max_sentence_tokens`.
    pub fn probabilities(
        &self,
        texts: &[&str],
        batch_size: usize,
        device: &Device,
    ) -> candle_core::Result<Vec<Vec<f64>>> {
        let reader = TextReader {
            system: &self.rules.system,
            vocabulary: self.vocabulary.as_ref(),
            max_tokens: self.manifest.settings.max_sentence_tokens,
            probability_scale: self.manifest.probability_scale(),
        };
        probabilities_of(self.net.as_ref(), &reader, texts, batch_size, device)
    }

    /// Each text's most probable label, by [`LoadedModel::probabilities`].
    pub fn most_probable_labels(
        &self,
        texts: &[&str],
        device: &Device,
    ) -> candle_core::Result<Vec<String>> {
        let labels = &self.manifest.labels;
        self.probabilities(texts, Self::BATCH_SIZE, device)?
            .iter()
            .map(|row| {
                (0..row.len())
                    .max_by(|&a, &b| row[a].total_cmp(&row[b]))
                    .and_then(|k| labels.get(k).cloned())
                    .ok_or_else(|| {
                        candle_core::Error::Msg(format!(
                            "the network gives {} labels, the checkpoint names {}",
                            row.len(),
                            labels.len()
                        ))
                    })
            })
            .collect()
    }
}

/// What reads a text into a network's batch and its logits into probabilities: the
/// alphabet of the rules it was trained from, its vocabulary, the most tokens it reads, and
/// the factor on its logits ([`Manifest::probability_scale`]).
pub struct TextReader<'a> {
    pub system: &'a RuleSystem,
    pub vocabulary: Option<&'a Vocabulary>,
    pub max_tokens: usize,
    pub probability_scale: f64,
}

/// Each text's label probabilities by `net`'s tensors, read by `reader`, in batches of at
/// most `batch_size` texts of similar length ([`LoadedModel::probabilities`], for a network
/// held apart from its checkpoint).
pub fn probabilities_of(
    net: &dyn Network,
    reader: &TextReader<'_>,
    texts: &[&str],
    batch_size: usize,
    device: &Device,
) -> candle_core::Result<Vec<Vec<f64>>> {
    let mut order: Vec<usize> = (0..texts.len()).collect();
    order.sort_by_key(|&i| texts[i].len());
    let mut out = vec![Vec::new(); texts.len()];
    for chunk in order.chunks(batch_size.max(1)) {
        let batch: Vec<&str> = chunk.iter().map(|&i| texts[i]).collect();
        let batch = Batch::from_texts(
            reader.system,
            reader.vocabulary,
            &batch,
            reader.max_tokens,
            device,
        )?;
        let logits = net.logits(&batch)?.to_vec2::<f32>()?;
        for (&i, row) in chunk.iter().zip(&logits) {
            out[i] = softmax(row, reader.probability_scale);
        }
    }
    Ok(out)
}

/// Loads a checkpoint, verifying it and that its rules file (read from the manifest's path)
/// still holds the rules it was trained from, up to comments and layout; a checkpoint whose
/// rules file is gone uses the rules text it carries. `zero_shot` takes the untrained
/// parameters.
pub fn load_model(
    model_dir: &Path,
    zero_shot: bool,
    device: &Device,
    limits: &ReadLimits,
) -> Result<LoadedModel, CheckpointError> {
    let (manifest, tensors) = checkpoint::load(model_dir, device, limits)?;
    let path = manifest.rules.path.clone();
    let (bytes, rules_path) = match (limits.read(Limit::Rules, &path), &manifest.rules.text) {
        // The file it was trained from, as it is now: named by its lines now.
        (Ok(bytes), _) => (bytes, Some(path.as_path())),
        // Moved, copied to another machine, or the file is gone. (A file that is there but
        // cannot be read is an error.)
        (Err(error), Some(text)) if error.kind() == std::io::ErrorKind::NotFound => {
            (text.clone().into_bytes(), None)
        }
        (Err(error), _) => return Err(CheckpointError::Io { path, error }),
    };
    assemble(
        model_dir, manifest, tensors, &bytes, rules_path, zero_shot, device,
    )
    .map_err(|mut error| {
        // The file is the one the manifest names, which could be any file.
        if let CheckpointError::RulesChanged { quote_added, .. } = &mut error {
            *quote_added = false;
        }
        error
    })
}

/// Loads a checkpoint to start a later text of its rules from ([`fit_from`](crate::model::fit_from)): its rules are
/// the text it records, whatever the file holds now.
pub fn load_previous(
    model_dir: &Path,
    device: &Device,
    limits: &ReadLimits,
) -> Result<LoadedModel, CheckpointError> {
    let (manifest, tensors) = checkpoint::load(model_dir, device, limits)?;
    let Some(text) = manifest.rules.text.clone() else {
        return Err(CheckpointError::Manifest {
            path: model_dir.join(checkpoint::MANIFEST_FILE),
            message: "the manifest does not record the rules text it was trained from (made by an earlier rulelens); train it again".to_string(),
        });
    };
    assemble(
        model_dir,
        manifest,
        tensors,
        text.as_bytes(),
        None,
        false,
        device,
    )
}

/// [`load_model`] with the rules file's bytes given (an editor's buffer, say, of the file at
/// `rules_path`): refuses a checkpoint made from other rules, naming both files.
pub fn load_model_for(
    model_dir: &Path,
    rules_bytes: &[u8],
    rules_path: Option<&Path>,
    zero_shot: bool,
    device: &Device,
    limits: &ReadLimits,
) -> Result<LoadedModel, CheckpointError> {
    let (manifest, tensors) = checkpoint::load(model_dir, device, limits)?;
    assemble(
        model_dir,
        manifest,
        tensors,
        rules_bytes,
        rules_path,
        zero_shot,
        device,
    )
}

/// Checks that the rules are those the checkpoint was trained from (`checkpoint::check_rules`)
/// and builds the network from its tensors; `rules_path` is where the rules come from (their
/// corpus bindings resolve there), `None` for the manifest's own text.
fn assemble(
    model_dir: &Path,
    mut manifest: Manifest,
    tensors: HashMap<String, Tensor>,
    rules_bytes: &[u8],
    rules_path: Option<&Path>,
    zero_shot: bool,
    device: &Device,
) -> Result<LoadedModel, CheckpointError> {
    checkpoint::check_rules(&manifest, rules_bytes, rules_path)?;
    checkpoint::check_tokenizer(&manifest, rules_bytes, model_dir)?;
    let rules = match rules_path {
        Some(_) => RulesFile::analyze(
            SourceText::from_bytes(rules_bytes),
            rules_path,
            &CompileConfig::default(),
        ),
        None => RulesFile::analyze_with(
            SourceText::from_bytes(rules_bytes),
            None,
            &CompileConfig::default(),
            &StoredWordFiles(&manifest.rules.word_files),
        ),
    };
    // The untrained network is the checkpoint with its `initial.*` tensors in place.
    let mut chosen = HashMap::new();
    for (name, tensor) in tensors {
        match name.strip_prefix("initial.") {
            Some(base) if zero_shot => {
                chosen.insert(base.to_string(), tensor);
            }
            Some(_) => {}
            // The untrained network is member 0's: the rules' own, without the n-gram
            // regression training added.
            None if zero_shot && (member_of(&name).is_some() || name.starts_with(NGRAM_PREFIX)) => {
            }
            None => {
                chosen.entry(name).or_insert(tensor);
            }
        }
    }
    let foreign = |message: String| CheckpointError::Corrupt {
        path: model_dir.join(checkpoint::WEIGHTS_FILE),
        message,
    };
    let vocabulary = (!manifest.vocabulary.is_empty())
        .then(|| Vocabulary::new(manifest.vocabulary.iter().skip(1).map(String::as_str)));
    // As training writes it: the unknown word first, every word once, so that row i of
    // the word embedding is word i for every path that reads it.
    if vocabulary.as_ref().is_some_and(|v| {
        v.len() != manifest.vocabulary.len() || manifest.vocabulary[0] != Vocabulary::UNKNOWN
    }) {
        return Err(CheckpointError::Manifest {
            path: model_dir.join(checkpoint::MANIFEST_FILE),
            message: format!(
                "its vocabulary does not start with `{}` or lists a word twice, as no training writes it",
                Vocabulary::UNKNOWN
            ),
        });
    }
    let model = manifest.settings.model;
    // The labels the rules name, then those the network learned from the corpus; the rules
    // training left out, left out, but for the untrained network, which is every rule.
    if zero_shot {
        manifest.rules_left_out.clear();
    }
    let rules = (manifest.network_rules(&rules)).map_err(|message| CheckpointError::Manifest {
        path: model_dir.join(checkpoint::MANIFEST_FILE),
        message,
    })?;
    if !model.is_rule_network() {
        check_manifest_against_weights(&manifest, &rules).map_err(foreign)?;
    }
    let ngrams =
        NgramRegression::take_from(&mut chosen, vocabulary.as_ref(), manifest.labels.len())
            .map_err(|error| foreign(format!("the n-gram regression: {error}")))?;
    if ngrams.is_some() && !model.has_ngram_regression() {
        return Err(foreign(format!(
            "the weights hold an n-gram regression, which only the FA-RNN family and SoPa have, and the manifest says {}",
            model.display_name()
        )));
    }
    let start = Start::Checkpoint {
        tensors: chosen,
        words: (
            manifest.vocabulary.len(),
            manifest
                .embeddings
                .as_ref()
                .map_or(0, |identity| identity.dim),
        ),
        beta: manifest.embeddings.as_ref().map(|_| manifest.settings.beta),
    };
    let settings = TrainingSettings {
        members: zero_shot.then_some(1).or(manifest.settings.members),
        ..manifest.settings.clone()
    };
    let declaration = Declaration {
        rules: &rules,
        system: &rules.system,
        settings: &settings,
        device,
    };
    let net = declaration
        .declare(start)
        .map_err(|error| foreign(format!("the weights do not fit the rules file: {error}")))?
        .net;
    let net = match ngrams {
        Some(ngrams) => Box::new(
            WithNgrams::new(net, ngrams)
                .map_err(|error| foreign(format!("the n-gram regression: {error}")))?,
        ),
        None => net,
    };
    if model.is_rule_network() {
        let gated = net
            .directions()
            .iter()
            .all(|(direction, _)| direction.is_gated());
        if gated != model.is_gated() {
            return Err(foreign(format!(
                "the manifest says {} but the weights are {}",
                model.display_name(),
                if gated { "gated" } else { "not gated" }
            )));
        }
        check_manifest_against_weights(&manifest, &rules).map_err(foreign)?;
    }
    let mut manifest = manifest;
    if zero_shot {
        // The untrained network has no regression beside it, nor the temperature fitted with
        // one: its probabilities are at the logit scale alone.
        if let Some(ngrams) = manifest.metrics.ngram_regression.as_mut() {
            ngrams.temperature = None;
            ngrams.dev_log_loss = None;
        }
    }
    Ok(LoadedModel {
        manifest,
        rules,
        net: net.into(),
        vocabulary,
    })
}

/// What the manifest says about the network against what its weights and rules are: the
/// labels in priority order, the decomposition's rank, the word vectors' dimension and the
/// vocabulary's size (a manifest edited after training, with the rules' hash recomputed,
/// gets no further).
fn check_manifest_against_weights(manifest: &Manifest, rules: &RulesFile) -> Result<(), String> {
    if manifest.labels != rules.system.labels() {
        return Err(format!(
            "the manifest's labels {:?} are not the rules' labels {:?}",
            manifest.labels,
            rules.system.labels()
        ));
    }
    let shape = |name: &str| manifest.tensors.get(name).map(Vec::as_slice);
    let rank = shape("d1").and_then(|dims| dims.get(1)).copied();
    let recorded = manifest.decomposition.as_ref().map(|d| d.rank);
    if rank != recorded {
        return Err(format!(
            "the manifest's rank {recorded:?} is not the weights' {rank:?}"
        ));
    }
    let embedding = shape("word_embedding");
    match (&manifest.embeddings, embedding) {
        (Some(identity), Some(&[rows, dim])) => {
            if dim != identity.dim {
                return Err(format!(
                    "the manifest's word vectors have {} dimensions, the weights {dim}",
                    identity.dim
                ));
            }
            if rows != manifest.vocabulary.len() {
                return Err(format!(
                    "the manifest lists {} vocabulary words, the weights have {rows}",
                    manifest.vocabulary.len()
                ));
            }
        }
        (None, None) if manifest.vocabulary.is_empty() => {}
        _ => {
            return Err(
                "the manifest's word vectors and vocabulary do not match the weights".to_string(),
            );
        }
    }
    Ok(())
}

//! Preparing what a network trains on: the rule system whose labels it predicts, the word
//! vectors it reads, the labeled train and dev sentences, and the check that the longest of
//! them fits in memory.

use crate::automata::RuleSystem;
use crate::corpus::Example;
use crate::limits::ReadLimits;
use crate::model::fa_rnn::WordInput;
use crate::model::nn::embeddings::{VectorSource, Vocabulary, read_vectors};
use crate::model::nn::network::Network;
use crate::model::train::build::{labeled, labeled_or_unknown, vocabulary};
use crate::model::train::checkpoint::EmbeddingsIdentity;
use crate::model::train::events::FitError;
use crate::model::train::learn::{LabeledSentence, MAX_TRAINING_BYTES, evenly_spaced};
use crate::model::train::settings::{ModelKind, TrainingSettings};

/// The most labels of a train corpus that the rules do not name a network learns: beyond
/// it a mislabeled column, not a task (each is a logit).
pub const MAX_CORPUS_LABELS: usize = 1_000;

/// The rule system the network predicts the labels of: the rules' labels, then those of
/// the train corpus the rules do not name, in order of first appearance, which every
/// network learns (the FA-RNN family through its word-vector path, which β 1 turns off);
/// the rules' own with `drop_unnamed_labels`.
pub(crate) fn network_system(
    system: &RuleSystem,
    train_examples: &[Example],
    settings: &TrainingSettings,
) -> Result<RuleSystem, FitError> {
    if settings.drop_unnamed_labels {
        return Ok(system.clone());
    }
    let mut extra: Vec<&str> = Vec::new();
    for label in train_examples.iter().filter_map(|e| e.label.as_deref()) {
        if system.label_by_name(label).is_none() && !extra.contains(&label) {
            if extra.len() == MAX_CORPUS_LABELS {
                return Err(FitError::Config(format!(
                    "the train corpus has more than {MAX_CORPUS_LABELS} labels the rules do not name"
                )));
            }
            extra.push(label);
        }
    }
    if !extra.is_empty() && settings.model.is_rule_network() && settings.beta >= 1.0 {
        return Err(FitError::UnnamedLabels {
            labels: extra.iter().map(|label| label.to_string()).collect(),
        });
    }
    Ok(system.with_labels(extra))
}

/// The word vectors of every train and dev word and of the rules' literals, with the
/// manifest's record of them; `None` when β is 1 for the FA-RNN family (the network then
/// reads the rules' symbols alone, and word vectors would change nothing). SoPa and the
/// black boxes always read them.
pub(crate) fn word_input(
    system: &RuleSystem,
    train_examples: &[Example],
    dev_examples: &[Example],
    settings: &TrainingSettings,
    limits: &ReadLimits,
) -> Result<Option<(WordInput, EmbeddingsIdentity)>, FitError> {
    if settings.beta >= 1.0 && settings.model.is_rule_network() {
        return Ok(None);
    }
    let vocabulary = vocabulary(system, [train_examples, dev_examples]);
    let source = VectorSource::of(settings.embeddings.as_deref());
    let vectors = read_vectors(source, &vocabulary, limits).map_err(FitError::Embeddings)?;
    let identity = EmbeddingsIdentity {
        source: match source {
            VectorSource::Glove(path) => std::path::absolute(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .display()
                .to_string(),
            VectorSource::Bundled => source.name(),
        },
        sha256: vectors.sha256.clone(),
        dim: vectors.dim,
        found: vectors.n_found,
        backed_off: vectors.n_backed_off,
    };
    let input = WordInput {
        vocabulary,
        vectors,
        beta: settings.beta,
    };
    Ok(Some((input, identity)))
}

/// What training reads: the labeled train and dev sentences, how many of them the network
/// reads only in part, and how many train lines were left out for a label the network does
/// not know.
pub(crate) struct TrainingData {
    pub(crate) train: Vec<LabeledSentence>,
    pub(crate) dev: Vec<LabeledSentence>,
    pub(crate) n_truncated: usize,
    pub(crate) n_dropped: usize,
}

/// The labeled train and dev sentences training uses: `fraction` of train (evenly spaced)
/// and all of dev, or, at 1 % or less, as many dev sentences as train ones (evenly spaced
/// too), as in the reference code. A train line whose label the network does not know is
/// left out; a dev line keeps [`UNKNOWN_LABEL`] for its label, so that dev accuracy
/// counts it as an error, as `rulelens eval` does.
pub(crate) fn training_data(
    system: &RuleSystem,
    vocabulary: Option<&Vocabulary>,
    train_examples: &[Example],
    dev_examples: &[Example],
    settings: &TrainingSettings,
) -> Result<TrainingData, FitError> {
    let max_tokens = settings.max_sentence_tokens;
    let (all_train, train_truncated) = labeled(system, vocabulary, train_examples, max_tokens);
    let (all_dev, dev_truncated) = labeled_or_unknown(system, vocabulary, dev_examples, max_tokens);
    let n_dropped = train_examples.iter().filter(|e| e.label.is_some()).count() - all_train.len();
    let fraction = settings.fraction;
    let pick = |data: &[LabeledSentence], indices: Vec<usize>| -> Vec<LabeledSentence> {
        indices.into_iter().map(|i| data[i].clone()).collect()
    };
    let train = pick(&all_train, evenly_spaced(all_train.len(), fraction));
    let dev = if fraction <= 0.01 {
        let share = train.len() as f64 / all_dev.len().max(1) as f64;
        pick(&all_dev, evenly_spaced(all_dev.len(), share))
    } else {
        all_dev
    };
    if train.is_empty() {
        return Err(FitError::NoData { split: "train" });
    }
    if dev.is_empty() {
        return Err(FitError::NoData { split: "dev" });
    }
    Ok(TrainingData {
        train,
        dev,
        n_truncated: train_truncated + dev_truncated,
        n_dropped,
    })
}

/// Refuses a train sentence that would keep more than [`MAX_TRAINING_BYTES`] for the
/// gradient on its own, in a batch of one (a larger batch is split, `learn.rs`).
pub(crate) fn check_longest_sentence(
    train_data: &[LabeledSentence],
    net: &dyn Network,
    settings: &TrainingSettings,
) -> Result<(), FitError> {
    let longest = train_data
        .iter()
        .map(|d| d.sentence.symbols.len())
        .max()
        .unwrap_or(0);
    let bytes = net
        .training_bytes_per_token()
        .saturating_mul(longest as u64);
    if bytes > MAX_TRAINING_BYTES {
        return Err(FitError::Config(format!(
            "the longest train sentence, {longest} tokens, keeps about {} MiB for training on its own, more than the {} MiB allowed; lower max sentence tokens{}",
            bytes >> 20,
            MAX_TRAINING_BYTES >> 20,
            if settings.model == ModelKind::Slstm {
                " or slstm steps"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

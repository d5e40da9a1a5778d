//! The one match over model kinds: the network each kind names, declared fresh (from the
//! rules, the word vectors and the train sentences) or from a checkpoint's tensors. Fitting
//! and loading both declare their networks through [`declare`], so a new family is one more
//! arm of its match.

use crate::automata::{CompileConfig, RuleSystem, compile_reversed};
use crate::model::fa_rnn::Reading;
use crate::model::fa_rnn::bidirectional::BiFaRnn;
use crate::model::fa_rnn::decompose::{Decomposition, Method};
use crate::model::fa_rnn::ensemble::{Ensemble, split_members};
use crate::model::fa_rnn::weighted::{WeightedAutomaton, pattern_blocks};
use crate::model::fa_rnn::{FaRnn, WordInput};
use crate::model::mvma::Mvma;
use crate::model::nn::network::Network;
use crate::model::nn::parameters::Parameters;
use crate::model::slstm::Slstm;
use crate::model::sopa::{self, Sopa};
use crate::model::train::build::decomposition;
use crate::model::train::checkpoint::DecompositionRecord;
use crate::model::train::events::{FitError, FitEvent};
use crate::model::train::learn::LabeledSentence;
use crate::model::train::settings::{ModelKind, TrainingSettings};
use crate::rules_file::RulesFile;
use candle_core::{Device, Tensor};
use std::collections::HashMap;

/// A declared network, with its decompositions (the FA-RNN family's, declared fresh; none
/// for SoPa, the black boxes, or a network from a checkpoint).
pub(crate) struct Built {
    pub(crate) net: Box<dyn Network>,
    pub(crate) forward: Option<DecompositionRecord>,
    /// Bidirectional models only.
    pub(crate) backward: Option<DecompositionRecord>,
}

/// The most states (K, all patterns together) a network may have: its wildcard matrix and
/// the weighted automaton it starts from are K × K, 256 MiB of f32 at this size. SMS has
/// 239 states, TREC 256.
pub const MAX_NETWORK_STATES: usize = 8_192;

/// Where a network's numbers come from.
pub(crate) enum Start<'a> {
    /// Drawn from the settings' seed: the FA-RNN family's from the rules' automata, a SoPa's
    /// free patterns seeded from `train`, the embeddings from `words`; `on_event` hears what
    /// was built.
    Fresh {
        train: &'a [LabeledSentence],
        words: Option<&'a WordInput>,
        on_event: &'a mut dyn FnMut(FitEvent),
    },
    /// A checkpoint's tensors by name, with the size of the vocabulary and of the word
    /// vectors (0 without them), and β where the network reads word vectors.
    Checkpoint {
        tensors: HashMap<String, Tensor>,
        words: (usize, usize),
        beta: Option<f64>,
    },
}

/// What a network is declared for: `rules` (and, for a bidirectional model, the reversed
/// rules), predicting `system`'s labels, the kind and configuration `settings` name, on
/// `device`.
#[derive(Clone, Copy)]
pub(crate) struct Declaration<'a> {
    pub(crate) rules: &'a RulesFile,
    pub(crate) system: &'a RuleSystem,
    pub(crate) settings: &'a TrainingSettings,
    pub(crate) device: &'a Device,
}

/// The rows `kind`'s word embedding holds for words whose vectors are `vectors` ([n × `dim`]),
/// as its declaration makes them: the FA-RNN family's the vectors themselves, SoPa's scaled
/// to unit length, both never trained. `None` for the black boxes, which train theirs: a row
/// training never saw is not what it would have made of the word.
pub(crate) fn frozen_embedding_rows(
    kind: ModelKind,
    vectors: &[f32],
    dim: usize,
) -> Option<Vec<f32>> {
    match kind {
        ModelKind::FaRnn | ModelKind::FaGru | ModelKind::BiFaRnn | ModelKind::BiFaGru => {
            Some(vectors.to_vec())
        }
        ModelKind::Sopa => Some(sopa::unit_length(vectors, dim)),
        ModelKind::Slstm | ModelKind::MvmaG => None,
    }
}

impl Declaration<'_> {
    /// Declares the network from `start`. From a checkpoint the only errors are the
    /// tensors' ([`FitError::Train`]).
    pub(crate) fn declare(self, start: Start) -> Result<Built, FitError> {
        let n_labels = self.system.labels().len();
        let settings = self.settings;
        match settings.model {
            ModelKind::FaRnn | ModelKind::FaGru | ModelKind::BiFaRnn | ModelKind::BiFaGru => {
                self.fa_rnn(start)
            }
            ModelKind::Sopa => self.sopa(start),
            ModelKind::Slstm => self.black_box(start, |parameters, words, vectors| {
                let config = (&settings.slstm, settings.dropout());
                let net = Slstm::declare(parameters, n_labels, words, vectors, config)?;
                Ok(Box::new(net))
            }),
            ModelKind::MvmaG => self.black_box(start, |parameters, words, vectors| {
                let dropout = settings.dropout();
                let net = Mvma::declare(parameters, n_labels, words, vectors, dropout)?;
                Ok(Box::new(net))
            }),
        }
    }

    /// An FA-RNN or FA-GRU reading one way or both: fresh from the rules' automata, each
    /// decomposed, or from a checkpoint's tensors.
    fn fa_rnn(self, start: Start) -> Result<Built, FitError> {
        let Declaration {
            rules,
            system,
            settings,
            device,
        } = self;
        let (words, on_event) = match start {
            Start::Fresh {
                words, on_event, ..
            } => (words, on_event),
            Start::Checkpoint { tensors, beta, .. } => {
                let scoring = settings.scoring;
                let reversed = settings
                    .model
                    .is_bidirectional()
                    .then(|| compile_reversed(&rules.rules, system, &CompileConfig::default()).0);
                let split = split_members(tensors)?;
                let n_members = split.len();
                let mut members = Vec::with_capacity(n_members);
                for (i, tensors) in split.into_iter().enumerate() {
                    let member: candle_core::Result<Box<dyn Network>> = match &reversed {
                        Some(reversed) => {
                            BiFaRnn::from_tensors(system, reversed, tensors, scoring, beta)
                                .map(|net| Box::new(net) as Box<dyn Network>)
                        }
                        None => FaRnn::from_tensors(system, tensors, scoring, beta)
                            .map(|net| Box::new(net) as Box<dyn Network>),
                    };
                    members.push(member.map_err(|e| match n_members {
                        1 => e,
                        _ => candle_core::Error::Msg(format!("ensemble member {i}: {e}")),
                    })?);
                }
                if let Some(n) = settings.members
                    && n != members.len()
                {
                    return Err(candle_core::Error::Msg(format!(
                        "the settings say {n} ensemble members and the weights hold {}",
                        members.len()
                    ))
                    .into());
                }
                let net: Box<dyn Network> = if members.len() == 1 {
                    members.remove(0)
                } else {
                    Box::new(Ensemble { members })
                };
                return Ok(Built {
                    net,
                    forward: None,
                    backward: None,
                });
            }
        };
        let mut direction = |system: &RuleSystem,
                             reading: Reading,
                             seed: u64|
         -> candle_core::Result<(FaRnn, Decomposition)> {
            let automaton = WeightedAutomaton::new(system);
            let decomposed = decomposition(&automaton, settings.rank, seed);
            let mut net = FaRnn::new(
                system,
                &automaton,
                &decomposed,
                words,
                settings.scoring,
                device,
            )?
            .with_free_states(system, settings.effective_free_states(), seed)?;
            if settings.model.is_gated() {
                net = net.with_gates(seed)?;
            }
            on_event(FitEvent::Built {
                reading,
                n_states: automaton.n_states,
                free_states: net.free_states(),
                rank: decomposed.rank(),
                method: decomposed.method,
                relative_error: decomposed.relative_error,
            });
            Ok((net, decomposed))
        };
        let seed = settings.seed;
        let (forward, forward_decomposed) = direction(system, Reading::LeftToRight, seed)?;
        if !settings.model.is_bidirectional() {
            return Ok(Built {
                net: Box::new(forward),
                forward: Some(record(&forward_decomposed)),
                backward: None,
            });
        }
        let (reversed, too_large) =
            compile_reversed(&rules.rules, system, &CompileConfig::default());
        network_size(&reversed)?;
        let (backward, backward_decomposed) =
            direction(&reversed, Reading::RightToLeft, seed.wrapping_add(1))?;
        for name in &too_large {
            on_event(FitEvent::ReversedTooLarge { pattern: name });
        }
        Ok(Built {
            net: Box::new(BiFaRnn { forward, backward }),
            forward: Some(record(&forward_decomposed)),
            backward: Some(record(&backward_decomposed)),
        })
    }

    /// A SoPa: fresh, its free patterns seeded from the train sentences' informative phrases,
    /// or from a checkpoint's tensors.
    fn sopa(self, start: Start) -> Result<Built, FitError> {
        let net = match start {
            Start::Fresh {
                train,
                words,
                on_event,
            } => {
                let words =
                    words.ok_or_else(|| FitError::Config("SoPa reads word vectors".into()))?;
                let (vectors, dim) = (&words.vectors.data, words.vectors.dim);
                let has_vector = |w: u32| {
                    vectors
                        .get(w as usize * dim..(w as usize + 1) * dim)
                        .is_some_and(|v| v.iter().any(|&x| x != 0.0))
                };
                let sentences: Vec<(&[u32], u32)> = train
                    .iter()
                    .map(|d| (d.sentence.words.as_slice(), d.label))
                    .collect();
                let phrases = sopa::informative_phrases(
                    &sentences,
                    &self.settings.sopa.patterns.lengths(),
                    self.system.labels().len(),
                    &has_vector,
                );
                let tokens: usize = train.iter().map(|d| d.sentence.words.len()).sum();
                let mean_tokens = tokens as f64 / train.len().max(1) as f64;
                let word_dropout = self
                    .settings
                    .sopa
                    .word_dropout_for(mean_tokens, train.len());
                let net = Sopa::declare(
                    Parameters::fresh(self.settings.seed ^ SOPA_STREAM, self.device),
                    self.system,
                    &self.rules.rules,
                    (&self.settings.sopa, self.settings.dropout(), word_dropout),
                    (words.vocabulary.len(), dim),
                    Some(vectors),
                    &phrases,
                )?;
                let chained = net.chained_patterns().len();
                on_event(FitEvent::BuiltSopa {
                    chained,
                    exact: self.rules.system.patterns().len() - chained,
                    free: net.n_free_patterns(),
                    word_dropout,
                    mean_tokens,
                });
                net
            }
            Start::Checkpoint { tensors, words, .. } => Sopa::declare(
                Parameters::checkpoint(tensors, self.device),
                self.system,
                &self.rules.rules,
                // A checkpoint's network is not trained again: no words dropped.
                (&self.settings.sopa, self.settings.dropout(), 0.0),
                words,
                None,
                &[],
            )?,
        };
        Ok(Built {
            net: Box::new(net),
            forward: None,
            backward: None,
        })
    }

    /// A black box from `declare_net` (its [`Slstm::declare`] or [`Mvma::declare`]): fresh,
    /// its embedding from the word vectors, or from a checkpoint's tensors.
    fn black_box(
        self,
        start: Start,
        declare_net: impl FnOnce(
            Parameters,
            (usize, usize),
            Option<&[f32]>,
        ) -> candle_core::Result<Box<dyn Network>>,
    ) -> Result<Built, FitError> {
        let Declaration {
            settings, device, ..
        } = self;
        let net = match start {
            Start::Fresh {
                words, on_event, ..
            } => {
                let words = words
                    .ok_or_else(|| FitError::Config("a black box reads word vectors".into()))?;
                let net = declare_net(
                    Parameters::fresh(settings.seed ^ BLACK_BOX_STREAM, device),
                    (words.vocabulary.len(), words.vectors.dim),
                    Some(&words.vectors.data),
                )?;
                on_event(FitEvent::BuiltBlackBox {
                    model: settings.model,
                    parameters: net.n_parameters(),
                });
                net
            }
            Start::Checkpoint { tensors, words, .. } => {
                declare_net(Parameters::checkpoint(tensors, device), words, None)?
            }
        };
        Ok(Built {
            net,
            forward: None,
            backward: None,
        })
    }
}

/// Keeps SoPa's random initialisation apart from the batch order, both drawn from the seed.
const SOPA_STREAM: u64 = 0x5050_a000_0000_0001;
/// The same for the black boxes.
const BLACK_BOX_STREAM: u64 = 0xb1ac_b000_0000_0001;

/// Refuses rules whose network would pass [`MAX_NETWORK_STATES`].
pub(crate) fn network_size(system: &RuleSystem) -> Result<(), FitError> {
    let n_states = pattern_blocks(system).last().map_or(0, |block| block.end);
    if n_states > MAX_NETWORK_STATES {
        return Err(FitError::Config(format!(
            "the rules' automata have {n_states} states, more than the {MAX_NETWORK_STATES} a network may have (its wildcard matrix is K × K); train on fewer or smaller patterns"
        )));
    }
    Ok(())
}

/// The manifest's record of a decomposition.
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

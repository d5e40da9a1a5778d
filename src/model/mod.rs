//! Models: the rule system as a weighted automaton, its tensor decomposition, and the
//! FA-RNN, FA-GRU and their bidirectional versions built from it (Jiang et al. 2020); SoPa,
//! soft patterns compiled from the rules and learned from the corpus (Schwartz et al. 2018);
//! and two black boxes that read words alone, as yardsticks: the S-LSTM (Zhang et al. 2018)
//! and MVMA-G (Sun and Lu 2022), whose n-grams' contributions are exact; and the plain
//! baselines beside them (logistic regression on mean word vectors and on tf-idf).
//! Only this module knows candle.

pub mod aggregation;
mod baseline;
pub(crate) mod encoder;
pub(crate) mod fa_rnn;
pub(crate) mod mvma;
pub(crate) mod nn;
pub(crate) mod slstm;
pub mod sopa;
pub(crate) mod train;

pub use fa_rnn::decompose;
pub use train::checkpoint;

pub use baseline::{Baseline, BaselineFit, BaselineLine, fit_baseline};
pub use encoder::SentenceEncoder;
pub use fa_rnn::bidirectional::{BACKWARD_PREFIX, BiFaRnn};
pub use fa_rnn::decompose::{AlsConfig, Decomposition, Method};
pub use fa_rnn::gates::{GATE_BIAS, GATE_SLOPE};
pub use fa_rnn::recurrence::STATE_BOUND;
pub use fa_rnn::scorer::{FaRnnScorer, ForeignSentence, Occlusions, Scores};
pub use fa_rnn::{FaRnn, PlainNetwork, Reading, Scoring, TokenVector, WordInput};
pub use mvma::{Mvma, MvmaReading, MvmaScorer};
pub use nn::batch::{Batch, Sentence};
pub use nn::embeddings::{
    BUNDLED_NAME, EmbeddingsError, VectorSource, Vocabulary, WordVectors, bundled_sha256,
    read_glove, read_vectors,
};
pub use nn::leaky_clamp::LEAK;
pub use nn::matmul::times_transposed;
pub use nn::network::Network;
pub use nn::ngrams::{
    MAX_NGRAM_VOCABULARY, MAX_NGRAM_WEIGHTS, NgramFit, NgramLine, NgramPart, NgramRegression,
    NgramTrainLine, Regularization, WithNgrams,
};
pub use nn::parameters::{Init, Parameters};
pub use nn::probabilities::{Calibration, calibrate, softmax};
pub use nn::rng::SplitMix64;
pub use nn::softmax_regression::C_GRID;
pub use nn::softmax_regression::Target;
pub use nn::threads::on_two_threads;
pub use slstm::{MAX_SLSTM_STEPS, MAX_SLSTM_WINDOW, Slstm, SlstmSettings};
pub use sopa::{PatternSpec, Semiring, Sopa, SopaSettings};
pub use train::build::{
    MAX_EXACT_RANK, UNKNOWN_LABEL, decomposition, labeled, labeled_or_unknown, vocabulary,
};
pub use train::events::{FitError, FitEvent};
pub use train::fit::{Fitted, TRAINING_VERSION, fit, fit_from};
pub use train::kinds::MAX_NETWORK_STATES;
pub use train::learn::{
    DevScoring, EpochReport, LabeledSentence, MAX_TRAINING_BYTES, Schedule, TrainError,
    TrainReport, accuracy, evenly_spaced, predict, train,
};
pub use train::load::{
    LoadedModel, TextReader, load_model, load_model_for, load_previous, probabilities_of,
};
pub use train::open_vocabulary::MAX_OPENED_WORDS;
pub use train::settings::{
    DeviceKind, MAX_BATCH_SIZE, MAX_EPOCHS, MAX_RANK, MAX_SENTENCE_TOKENS, ModelKind,
    NGRAM_WEIGHTS, TrainingSettings,
};
pub use train::warm::{WARM_SCHEDULE, WhyFull, data_sha256 as training_data_sha256};

/// The devices the device-parametric tests run on: the CPU, and in a build with the `cuda`
/// feature the first GPU where one answers.
#[cfg(test)]
pub(crate) fn test_devices() -> Vec<candle_core::Device> {
    #[allow(unused_mut)]
    let mut devices = vec![candle_core::Device::Cpu];
    #[cfg(feature = "cuda")]
    if let Ok(gpu) = candle_core::Device::new_cuda(0) {
        devices.push(gpu);
    }
    devices
}
pub use fa_rnn::weighted::{Transition, WeightedAutomaton, pattern_blocks};

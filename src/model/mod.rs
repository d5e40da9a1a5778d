//! Models: the rule system as a weighted automaton, its tensor decomposition, and the
//! FA-RNN, FA-GRU and their bidirectional versions built from it (Jiang et al. 2020); SoPa,
//! soft patterns compiled from the rules and learned from the corpus (Schwartz et al. 2018);
//! and two black boxes that read words alone, as yardsticks: the S-LSTM (Zhang et al. 2018)
//! and MVMA-G (Sun and Lu 2022), whose n-grams' contributions are exact; and the plain
//! baselines beside them (logistic regression on mean word vectors and on tf-idf).
//! Only this module knows candle.

pub mod aggregation;
mod baseline;
mod batch;
mod bidirectional;
mod build;
pub mod checkpoint;
pub mod decompose;
mod dropout;
mod embeddings;
mod fa_rnn;
mod fit;
mod gates;
mod leaky_clamp;
mod matmul;
mod mvma;
mod network;
mod parameters;
mod recurrence;
mod rng;
mod scorer;
mod settings;
mod slstm;
mod slstm_cells;
pub mod sopa;
mod train;
mod viterbi;
mod viterbi_recurrence;
mod warm;
mod weighted;

pub use baseline::{Baseline, BaselineFit, BaselineLine, C_GRID, fit_baseline};
pub use batch::{Batch, Sentence};
pub use bidirectional::{BACKWARD_PREFIX, BiFaRnn};
pub use build::{
    MAX_EXACT_RANK, UNKNOWN_LABEL, decomposition, labeled, labeled_or_unknown, vocabulary,
};
pub use decompose::{AlsConfig, Decomposition, Method};
pub use embeddings::{
    BUNDLED_NAME, EmbeddingsError, VectorSource, Vocabulary, WordVectors, bundled_sha256,
    read_glove, read_vectors,
};
pub use fa_rnn::{FaRnn, PlainNetwork, STATE_BOUND, TokenVector, WordInput};
pub use fit::{
    FitError, FitEvent, Fitted, LoadedModel, MAX_NETWORK_STATES, Reading, fit, fit_from,
    load_model, load_model_for, load_previous,
};
pub use gates::{GATE_BIAS, GATE_SLOPE};
pub use leaky_clamp::LEAK;
pub use matmul::times_transposed;
pub use mvma::{Mvma, MvmaReading, MvmaScorer};
pub use network::Network;
pub use parameters::{Init, Parameters};
pub use rng::SplitMix64;
pub use scorer::{ForeignSentence, Occlusions, Scorer, Scores, on_two_threads, softmax};
pub use settings::{
    DeviceKind, MAX_BATCH_SIZE, MAX_EPOCHS, MAX_RANK, MAX_SENTENCE_TOKENS, ModelKind, Scoring,
    TrainingSettings,
};
pub use slstm::{MAX_SLSTM_STEPS, MAX_SLSTM_WINDOW, Slstm};
pub use sopa::{PatternSpec, Semiring, Sopa};
pub use train::{
    DevScoring, EpochReport, LabeledSentence, MAX_TRAINING_BYTES, Schedule, TrainError,
    TrainReport, accuracy, evenly_spaced, predict, train,
};
pub use warm::{WARM_SCHEDULE, WhyFull, data_sha256 as training_data_sha256};

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
pub use weighted::{Transition, WeightedAutomaton, pattern_blocks};

//! Models: the rule system as a weighted automaton, its tensor decomposition, and the
//! FA-RNN built from it (Jiang et al. 2020). Only this module knows candle.

pub mod aggregation;
mod batch;
pub mod decompose;
mod fa_rnn;
mod recurrence;
mod rng;
mod weighted;

pub use batch::Batch;
pub use decompose::{AlsConfig, Decomposition, Method};
pub use fa_rnn::{FaRnn, Scoring};
pub use rng::SplitMix64;
pub use weighted::{Transition, WeightedAutomaton};

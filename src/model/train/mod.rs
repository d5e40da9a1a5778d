//! The training layer, above every family: the settings (common knobs, and each family's
//! config built from them), the one place that tells a network's family, the one match that
//! declares each kind's network (fresh or from a checkpoint), data preparation, the learning
//! loop, the rules the gold lines contradict, training an ensemble's members side by side, fitting a rules file's network with
//! its manifest and the events and errors it reports, the n-gram regression beside it, warm
//! starts, checkpoints, and loading them back.

pub(crate) mod build;
pub mod checkpoint;
pub(crate) mod data;
mod encoder_teacher;
pub(crate) mod events;
mod family;
pub(crate) mod fit;
pub(crate) mod kinds;
pub(crate) mod learn;
pub mod left_out;
pub(crate) mod load;
pub(crate) mod members;
mod ngram_fit;
pub(crate) mod open_vocabulary;
pub(crate) mod settings;
mod silence_teacher;
pub(crate) mod warm;

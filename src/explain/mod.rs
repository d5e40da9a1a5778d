//! Explanations: what a trained network has learned, in the rules' own terms. Works on
//! plain data from `model` (vectors, never tensors).

mod reconstruct;
mod rewrite;
mod state_elimination;

pub use reconstruct::{
    DEFAULT_MAX_LISTED, DEFAULT_THRESHOLD, ReconstructConfig, Reconstruction, reconstruct,
};
pub use rewrite::rewrite_rules;
pub use state_elimination::{LabeledAutomaton, LiteralAtom, TokenSet, to_regex};

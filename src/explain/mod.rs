//! Explanations: what a trained network has learned, in the rules' own terms: patterns read
//! back as regular expressions, and what the n-grams of a sentence contribute to its
//! prediction, by occlusion; a SoPa's learned patterns read back as rules. Works on plain
//! data from `model` (vectors, never tensors), and on a SoPa through its own calls.

mod ngram;
mod reconstruct;
mod rewrite;
mod soft_patterns;
mod state_elimination;

pub use ngram::{NEGLIGIBLE, Ngram, OCCLUSION_BUDGET, best_span, ngrams, strongest_ngrams};
pub use reconstruct::{
    DEFAULT_MAX_LISTED, DEFAULT_THRESHOLD, ReconstructConfig, Reconstruction, reconstruct,
    reconstruct_at,
};
pub use rewrite::rewrite_rules;
pub use soft_patterns::{LearnedPattern, ReadBack, read_back};
pub use state_elimination::{LabeledAutomaton, LiteralAtom, TokenSet, to_regex};

//! The neural-network core that knows no model family: parameters declared once, padded
//! batches, the seeded generator, dropout, the leaky clamp, word vectors, the small matrix
//! products of the fused kernels, tf-idf rows and the softmax regression fitted on them, the
//! n-gram regression beside a network with its character n-grams' and mean word vector's
//! parts, the [`Network`](network::Network) trait, and the
//! helpers every family's fused operations and plain scorers share.

pub(crate) mod batch;
pub(crate) mod character_ngrams;
pub(crate) mod dropout;
pub(crate) mod embeddings;
pub(crate) mod fused;
pub(crate) mod leaky_clamp;
pub(crate) mod matmul;
pub(crate) mod mean_vector;
pub(crate) mod network;
pub(crate) mod ngrams;
pub(crate) mod parameters;
pub(crate) mod probabilities;
pub(crate) mod rng;
pub(crate) mod softmax_regression;
pub(crate) mod tfidf;
pub(crate) mod threads;

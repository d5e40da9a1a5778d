//! Which family a network is, for the code above the model layer: the FA-RNNs it reads
//! with, the members of an ensemble, the n-gram regression beside them, or the network as a
//! SoPa or as any other family's own type. The one place that looks through the family-free
//! [`Network`] trait ([`Network::as_any`]).

use crate::model::fa_rnn::FaRnn;
use crate::model::fa_rnn::Reading;
use crate::model::fa_rnn::bidirectional::BiFaRnn;
use crate::model::fa_rnn::ensemble::Ensemble;
use crate::model::nn::embeddings::Vocabulary;
use crate::model::nn::network::Network;
use crate::model::nn::ngrams::{NgramRegression, WithNgrams};
use crate::model::sopa::{Sopa, SopaScorer};

impl dyn Network + '_ {
    /// The FA-RNNs the network reads with and which way each reads: one left to right, a
    /// bidirectional network's two, every member's in member order for an ensemble (whose
    /// logits are their logits' mean); none for SoPa and the black boxes.
    pub fn directions(&self) -> Vec<(&FaRnn, Reading)> {
        let any = self.as_any();
        if let Some(net) = any.downcast_ref::<WithNgrams>() {
            net.network.directions()
        } else if let Some(net) = any.downcast_ref::<FaRnn>() {
            vec![(net, Reading::LeftToRight)]
        } else if let Some(net) = any.downcast_ref::<BiFaRnn>() {
            vec![
                (&net.forward, Reading::LeftToRight),
                (&net.backward, Reading::RightToLeft),
            ]
        } else if let Some(net) = any.downcast_ref::<Ensemble>() {
            net.members
                .iter()
                .flat_map(|member| member.directions())
                .collect()
        } else {
            Vec::new()
        }
    }

    /// The FA-RNN reading left to right (an ensemble's first member's), if the network
    /// has one: the one its rules are read back from.
    pub fn first_forward(&self) -> Option<&FaRnn> {
        self.directions().first().map(|&(net, _)| net)
    }

    /// An ensemble's members, or the network itself (without its n-gram regression).
    pub fn members(&self) -> Vec<&dyn Network> {
        if let Some(net) = self.as_any().downcast_ref::<WithNgrams>() {
            return net.network.members();
        }
        match self.as_any().downcast_ref::<Ensemble>() {
            Some(ensemble) => ensemble.members.iter().map(Box::as_ref).collect(),
            None => vec![self],
        }
    }

    /// The n-gram regression whose logits are added to the network's, if it has one.
    pub fn ngram_regression(&self) -> Option<&NgramRegression> {
        self.as_any()
            .downcast_ref::<WithNgrams>()
            .map(|net| &net.ngrams)
    }

    /// The network as a SoPa (without its n-gram regression), if it is one.
    pub fn sopa(&self) -> Option<&Sopa> {
        match self.as_any().downcast_ref::<WithNgrams>() {
            Some(net) => net.network.sopa(),
            None => self.as_any().downcast_ref(),
        }
    }

    /// The plain-loop scorer of the network as a SoPa, with the n-gram regression beside it
    /// if it has one, reading words through `vocabulary` (the checkpoint's) and at most
    /// `max_tokens` tokens of a text; `None` if the network is not a SoPa.
    pub fn sopa_scorer(
        &self,
        vocabulary: &Vocabulary,
        max_tokens: usize,
    ) -> Option<candle_core::Result<SopaScorer>> {
        let scorer = self.sopa()?.scorer(vocabulary, max_tokens);
        Some(scorer.map(|scorer| scorer.with_ngram_regression(self.ngram_regression().cloned())))
    }

    /// The network as the family `T` (a black box's own type, say), if it is one.
    pub fn as_family<T: 'static>(&self) -> Option<&T> {
        self.as_any().downcast_ref()
    }
}

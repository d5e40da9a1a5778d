//! Which family a network is, for the code above the model layer: the FA-RNNs it reads
//! with, or the network as a SoPa or an MVMA-G. The one place that looks through the
//! family-free [`Network`] trait ([`Network::as_any`]).

use crate::model::fa_rnn::FaRnn;
use crate::model::fa_rnn::bidirectional::BiFaRnn;
use crate::model::mvma::Mvma;
use crate::model::nn::network::Network;
use crate::model::sopa::Sopa;

impl dyn Network + '_ {
    /// The FA-RNNs reading left to right and, for bidirectional networks, right to left;
    /// none for SoPa and the black boxes.
    pub fn directions(&self) -> Vec<&FaRnn> {
        let any = self.as_any();
        if let Some(net) = any.downcast_ref::<FaRnn>() {
            vec![net]
        } else if let Some(net) = any.downcast_ref::<BiFaRnn>() {
            net.directions().to_vec()
        } else {
            Vec::new()
        }
    }

    /// The network as a SoPa, if it is one.
    pub fn sopa(&self) -> Option<&Sopa> {
        self.as_any().downcast_ref()
    }

    /// The network as an MVMA-G, if it is one.
    pub fn mvma(&self) -> Option<&Mvma> {
        self.as_any().downcast_ref()
    }
}

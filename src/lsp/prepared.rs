//! What the save jobs need of each kind of network they make (`jobs.rs`): the [`Prepared`]
//! trait, and its implementations for the rule network, the SoPa that learns patterns and
//! the MVMA-G.

use super::registry::{Networks, Registry};
use super::state::{Held, Project};
use crate::ide::{
    Finding, RulesAnalysis, TrainedFaRnn, TrainedMvma, TrainedPatterns, model_findings,
};
use crate::model::checkpoint::Manifest;
use crate::project::PreparedNetwork;

/// A network prepared for the editor, as the jobs make it: the rule network
/// ([`TrainedFaRnn`]), the MVMA-G trained in its place ([`TrainedMvma`]), or the SoPa that
/// learns patterns beside it ([`TrainedPatterns`]); loaded and trained through
/// `project::load_network` and `project::train_network`, whatever the kind.
pub(super) trait Prepared: PreparedNetwork + Send + Sync + 'static {
    /// What messages call it.
    const ROLE: &'static str;
    /// Its `$/progress` tokens' prefix (the save's generation follows).
    const PROGRESS_TOKEN: &'static str;
    /// Whether a training of this kind starts from the checkpoint of the network the project
    /// holds, `Held::dir` (the rule network; SoPa and MVMA-G always train from scratch).
    const WARM_STARTS: bool;

    fn registry(networks: &Networks) -> &Registry<Self>;

    /// Where a project holds this kind of network.
    fn held(project: &Project) -> &Held<Self>;
    fn held_mut(project: &mut Project) -> &mut Held<Self>;

    fn manifest(&self) -> &Manifest;

    /// The findings it adds to the save of `analysis`, or `None` when it adds none: the
    /// rule network's I0504, stored with it, which also refreshes the inlay hints and code
    /// lenses that read it.
    fn findings(&self, _analysis: &RulesAnalysis) -> Option<Vec<Finding>> {
        None
    }
}

impl Prepared for TrainedFaRnn {
    const ROLE: &'static str = "rule network";
    const PROGRESS_TOKEN: &'static str = "rulelens/train";
    const WARM_STARTS: bool = true;

    fn registry(networks: &Networks) -> &Registry<Self> {
        &networks.rules
    }

    fn held(project: &Project) -> &Held<Self> {
        &project.model
    }

    fn held_mut(project: &mut Project) -> &mut Held<Self> {
        &mut project.model
    }

    fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    fn findings(&self, analysis: &RulesAnalysis) -> Option<Vec<Finding>> {
        Some(model_findings(analysis, self))
    }
}

impl Prepared for TrainedPatterns {
    const ROLE: &'static str = "learned patterns";
    const PROGRESS_TOKEN: &'static str = "rulelens/patterns";
    const WARM_STARTS: bool = false;

    fn registry(networks: &Networks) -> &Registry<Self> {
        &networks.patterns
    }

    fn held(project: &Project) -> &Held<Self> {
        &project.patterns
    }

    fn held_mut(project: &mut Project) -> &mut Held<Self> {
        &mut project.patterns
    }

    fn manifest(&self) -> &Manifest {
        &self.manifest
    }
}

impl Prepared for TrainedMvma {
    const ROLE: &'static str = "black box";
    const PROGRESS_TOKEN: &'static str = "rulelens/mvma";
    const WARM_STARTS: bool = false;

    fn registry(networks: &Networks) -> &Registry<Self> {
        &networks.mvma
    }

    fn held(project: &Project) -> &Held<Self> {
        &project.mvma
    }

    fn held_mut(project: &mut Project) -> &mut Held<Self> {
        &mut project.mvma
    }

    fn manifest(&self) -> &Manifest {
        &self.manifest
    }
}

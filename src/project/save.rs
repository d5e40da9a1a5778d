//! One save of a rules file, in steps the server schedules: [`analyze_save`] runs the rules
//! on every bound corpus; [`suggest_save`] measures the suggestion engine's edits on its
//! `train` and `dev` corpora; [`network_plan`] says which network that save calls for (its
//! cache key and checkpoint folder), or why none; [`load_network`] and [`train_network`]
//! get it from the cache or by training, and prepare it for the editor
//! ([`TrainedNetwork::prepare`], whatever its family and role);
//! [`suggest_learned_save`] measures the SoPa's learned patterns as the suggestion engine's
//! edits.

use super::bindings::{CorpusOrigin, OpenCorpus, bindings, read_corpus};
use super::cache::{cache_key, checkpoint_dir};
use crate::explain::ReconstructConfig;
use crate::ide::{
    Cancelled, Finding, FindingsConfig, RulesAnalysis, TrainedNetwork, Unprepared, WordFrequencies,
    analyze, corpus_findings,
};
use crate::limits::ReadLimits;
use crate::model::{
    DeviceKind, EmbeddingsError, FitEvent, LoadedModel, TrainingSettings, VectorSource, WhyFull,
    fit_from, load_model_for, load_previous,
};
use crate::rules_file::RulesFile;
use crate::suggest::{
    Corpora, LearnedRule, SuggestConfig, Suggestion, WordNeighbours, suggest, suggest_learned,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How one bound corpus was read for a save.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorpusReport {
    pub name: String,
    pub path: PathBuf,
    /// Where the text came from and how many examples it has, or why it could not be read.
    pub read: Result<(CorpusOrigin, usize), String>,
}

/// The analysis of one save, with what it found.
#[derive(Debug, Clone)]
pub struct SavedAnalysis {
    pub analysis: Arc<RulesAnalysis>,
    /// W0501–W0503.
    pub corpus_findings: Vec<Finding>,
    /// The train corpus' words, for completion inside regexes.
    pub words: Arc<WordFrequencies>,
    pub corpora: Vec<CorpusReport>,
}

/// Where a save's corpora come from.
#[derive(Debug, Clone, Copy)]
pub struct CorpusSources<'a> {
    /// The server's bindings for the rules file, beside its own `corpus` lines.
    pub extra: Option<&'a BTreeMap<String, PathBuf>>,
    /// Corpus buffers open in the editor, read instead of their files.
    pub open: &'a [OpenCorpus],
    /// How much of a file on disk is read.
    pub limits: &'a ReadLimits,
}

/// Runs `rules`, the analysis of the rules at `key` (a file when `on_disk`), on every
/// corpus it binds, found and read as `sources` say; `cancelled` is polled every 1,024
/// corpus lines.
pub fn analyze_save(
    key: &Path,
    on_disk: bool,
    rules: Arc<RulesFile>,
    sources: CorpusSources<'_>,
    findings: &FindingsConfig,
    cancelled: &dyn Fn() -> bool,
) -> Result<SavedAnalysis, Cancelled> {
    let mut reports = Vec::new();
    let mut corpora = Vec::new();
    for binding in bindings(&rules, key, on_disk, sources.extra) {
        let read = read_corpus(&binding.path, sources.open, sources.limits);
        reports.push(CorpusReport {
            name: binding.name.clone(),
            path: binding.path,
            read: match &read {
                Ok((file, origin)) => Ok((*origin, file.examples.len())),
                Err(error) => Err(error.to_string()),
            },
        });
        if let Ok((file, _)) = read {
            corpora.push((binding.name, file));
        }
    }
    let analysis = analyze(rules, corpora, cancelled)?;
    let words = match analysis.corpus("train") {
        Some(train) => {
            WordFrequencies::from_texts(train.file.examples.iter().map(|e| e.text.as_str()))
                .with_corpus_name("train")
        }
        None => WordFrequencies::from_texts([]),
    };
    Ok(SavedAnalysis {
        corpus_findings: corpus_findings(&analysis, findings),
        analysis: Arc::new(analysis),
        words: Arc::new(words),
        corpora: reports,
    })
}

/// The word vectors of a save's `train` words (`SavedAnalysis::words`), from `source` read
/// within `limits`: for [`suggest_save`]'s word sets.
pub fn save_vectors(
    words: &WordFrequencies,
    source: VectorSource<'_>,
    limits: &ReadLimits,
) -> Result<WordNeighbours, EmbeddingsError> {
    WordNeighbours::read(words.words(), source, limits)
}

/// The `train` and `dev` corpora of `analysis` for the suggestion engine, with `vectors`;
/// `None` when the rules have errors or a corpus is missing.
fn saved_corpora<'a>(
    analysis: &'a RulesAnalysis,
    vectors: Option<&'a WordNeighbours>,
) -> Option<Corpora<'a>> {
    if analysis.rules.has_errors() {
        return None;
    }
    Some(Corpora {
        train: &analysis.corpus("train")?.file.examples,
        dev: &analysis.corpus("dev")?.file.examples,
        vectors,
    })
}

/// The suggestion engine's edits of the saved rules of `analysis`, measured on its `train`
/// and `dev` corpora, best first, with `vectors` for the word sets of induced rules; `None`
/// when the rules have errors, a corpus is missing, or `cancelled` (polled throughout, as
/// [`suggest`] polls it) says so. The network of the save is not trained yet: its reconstructions
/// are the trained model's own actions (`ide::trained`).
pub fn suggest_save(
    analysis: &RulesAnalysis,
    vectors: Option<&WordNeighbours>,
    config: &SuggestConfig,
    cancelled: &dyn Fn() -> bool,
) -> Option<Vec<Suggestion>> {
    let corpora = saved_corpora(analysis, vectors)?;
    suggest(&analysis.rules, &corpora, &[], &[], config, cancelled)
}

/// A SoPa's learned patterns, as rules (`learned`), measured as the suggestion engine's
/// edits of the saved rules of `analysis`, best first: what the SoPa trained after the save
/// adds to [`suggest_save`]'s list. `None` as for [`suggest_save`].
pub fn suggest_learned_save(
    analysis: &RulesAnalysis,
    learned: &[LearnedRule],
    config: &SuggestConfig,
    cancelled: &dyn Fn() -> bool,
) -> Option<Vec<Suggestion>> {
    let corpora = saved_corpora(analysis, None)?;
    suggest_learned(&analysis.rules, &corpora, learned, config, cancelled)
}

/// Why a save calls for no network.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoNetwork {
    RulesHaveErrors,
    /// These of `train` and `dev` are not bound (or could not be read).
    MissingCorpora(Vec<&'static str>),
}

/// The network a save calls for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkPlan {
    /// [`cache_key`] of the rules text, the settings and both corpora.
    pub cache_key: String,
    /// Where its checkpoint is cached.
    pub dir: PathBuf,
    /// What a network prepared for the editor depends on: the cache key and the
    /// reconstruction settings. Equal keys mean the same [`TrainedNetwork`].
    pub memory_key: String,
}

impl NetworkPlan {
    /// Whether its checkpoint is in the cache.
    pub fn is_cached(&self) -> bool {
        self.dir
            .join(crate::model::checkpoint::MANIFEST_FILE)
            .is_file()
    }
}

/// The network the save of `analysis` (from the rules at `rules_path`, whose text is
/// `rules_text`) calls for under `settings`, cached in `cache_root`.
pub fn network_plan(
    analysis: &RulesAnalysis,
    rules_text: &str,
    settings: &TrainingSettings,
    reconstruct: &ReconstructConfig,
    cache_root: &Path,
    rules_path: &Path,
) -> Result<NetworkPlan, NoNetwork> {
    if analysis.rules.has_errors() {
        return Err(NoNetwork::RulesHaveErrors);
    }
    let (train, dev) = (analysis.corpus("train"), analysis.corpus("dev"));
    let (Some(train), Some(dev)) = (train, dev) else {
        let missing = [("train", train.is_none()), ("dev", dev.is_none())]
            .into_iter()
            .filter_map(|(name, missing)| missing.then_some(name))
            .collect();
        return Err(NoNetwork::MissingCorpora(missing));
    };
    // The word-list files count as the rules text does.
    let rules_identity = format!("{rules_text}{}", analysis.rules.word_files_identity());
    let key = cache_key(
        &rules_identity,
        settings,
        &train.file.source.text,
        &dev.file.source.text,
    );
    Ok(NetworkPlan {
        dir: checkpoint_dir(cache_root, rules_path, &key),
        memory_key: format!("{key} {} {}", reconstruct.threshold, reconstruct.max_listed),
        cache_key: key,
    })
}

/// Loads the checkpoint in `dir`, on the CPU, which must have been trained from exactly
/// `rules_text`, and prepares it for the editor.
pub fn load_network(
    dir: &Path,
    rules_text: &str,
    analysis: &RulesAnalysis,
    reconstruct: &ReconstructConfig,
    limits: &ReadLimits,
    cancelled: &dyn Fn() -> bool,
) -> Result<TrainedNetwork, String> {
    let device = DeviceKind::Cpu.open()?;
    let loaded = load_model_for(
        dir,
        rules_text.as_bytes(),
        analysis.rules.path.as_deref(),
        false,
        &device,
        limits,
    )
    .map_err(|error| error.to_string())?;
    prepare(loaded, analysis, reconstruct, cancelled)
}

/// Prepares `model` for the editor, opened to the words of the corpora `analysis` binds
/// (`model::LoadedModel::opened_to`), so that a hover over one of their lines reads its
/// words past the vocabulary as `rulelens eval` on that corpus does.
fn prepare(
    model: LoadedModel,
    analysis: &RulesAnalysis,
    reconstruct: &ReconstructConfig,
    cancelled: &dyn Fn() -> bool,
) -> Result<TrainedNetwork, String> {
    let texts: Vec<&str> = (analysis.corpora.iter())
        .flat_map(|run| run.file.examples.iter().map(|e| e.text.as_str()))
        .collect();
    let model = match model.opened_to(&texts) {
        Ok(Some(opened)) => opened,
        Ok(None) => model,
        Err(error) => return Err(error.to_string()),
    };
    TrainedNetwork::prepare(Unprepared {
        manifest: model.manifest,
        net: model.net,
        vocabulary: model.vocabulary.as_ref(),
        analysis,
        reconstruct: Some(reconstruct),
        cancelled,
    })
    .map_err(|error| error.to_string())
}

/// A network trained for a save, prepared for the editor.
#[derive(Debug)]
pub struct FreshlyTrained {
    pub network: TrainedNetwork,
    /// Whether its checkpoint was written into the cache, or why not (the network is good
    /// either way).
    pub cached: Result<(), String>,
}

/// Trains the network of `analysis` (which binds `train` and `dev`) under `settings`,
/// starting from the checkpoint in `from` (the previous save's network) where a warm start
/// applies, writes its checkpoint into `dir`, and prepares it for the editor.
#[allow(clippy::too_many_arguments)]
pub fn train_network(
    dir: &Path,
    analysis: &RulesAnalysis,
    settings: &TrainingSettings,
    limits: &ReadLimits,
    reconstruct: &ReconstructConfig,
    from: Option<&Path>,
    on_event: &mut dyn FnMut(FitEvent),
    cancelled: &dyn Fn() -> bool,
) -> Result<FreshlyTrained, String> {
    let (Some(train), Some(dev)) = (analysis.corpus("train"), analysis.corpus("dev")) else {
        return Err("training needs a train and a dev corpus".to_string());
    };
    let (rules, train, dev) = (&analysis.rules, &train.file.examples, &dev.file.examples);
    let previous = from.map(|from| {
        let device = settings.device.open()?;
        load_previous(from, &device, limits).map_err(|error| error.to_string())
    });
    let previous = match previous {
        Some(Ok(previous)) => Some(previous),
        Some(Err(error)) => {
            on_event(FitEvent::FullTraining {
                why: WhyFull::Unreadable(error),
            });
            None
        }
        None => None,
    };
    let fitted = fit_from(
        previous.as_ref(),
        rules,
        train,
        dev,
        settings,
        limits,
        on_event,
        cancelled,
    );
    let mut fitted = fitted.map_err(|error| error.to_string())?;
    let cached = fitted.save(dir).map_err(|error| error.to_string());
    let model = LoadedModel {
        manifest: fitted.manifest,
        rules: (*analysis.rules).clone(),
        net: fitted.net.into(),
        vocabulary: fitted.vocabulary,
    };
    let network = prepare(model, analysis, reconstruct, cancelled)?;
    Ok(FreshlyTrained { network, cached })
}

//! The server's settings: [`ServerOptions`] is what clients send (in `initializationOptions`,
//! the payload of `workspace/didChangeConfiguration`, or the answer to
//! `workspace/configuration` for the `rulelens` section), every field optional and camelCase;
//! [`Settings`] is what the server runs with, each field resolved from the options over the
//! defaults. Options arrive in layers, later ones overriding the fields they set.

use crate::explain::ReconstructConfig;
use crate::ide::{DEFAULT_MAX_MISCLASSIFIED, FindingsConfig, HoverConfig};
use crate::model::checkpoint::ModelKind;
use crate::model::{
    DEFAULT_BETA_WITH_EMBEDDINGS, DeviceKind, FitConfig, RankChoice, Scoring, TrainConfig,
};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where training runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DeviceName {
    Cpu,
    Cuda,
}

/// Training settings as clients send them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TrainingOptions {
    /// Train on save (default true).
    pub enabled: Option<bool>,
    pub device: Option<DeviceName>,
    /// `fa-rnn` (default), `fa-gru`, `bifa-rnn` or `bifa-gru`.
    pub model: Option<ModelKind>,
    /// A GloVe text file; relative paths resolve against the workspace root. `null` clears
    /// it (as do `beta: null` and `modelCache: null`), unlike a field left out.
    #[serde(default, deserialize_with = "cleared_by_null")]
    pub embeddings: Option<Option<PathBuf>>,
    #[serde(default, deserialize_with = "cleared_by_null")]
    pub beta: Option<Option<f64>>,
    pub epochs: Option<usize>,
    pub patience: Option<usize>,
    pub learning_rate: Option<f64>,
    pub batch_size: Option<usize>,
    pub seed: Option<u64>,
    /// Where checkpoints are cached (default `.rulelens/models` beside each rules file).
    #[serde(default, deserialize_with = "cleared_by_null")]
    pub model_cache: Option<Option<PathBuf>>,
}

/// A field that may be set, cleared with `null` (`Some(None)`), or left out (`None`, through
/// `#[serde(default)]`): settings whose default is "none" must be clearable by a client that
/// sends its whole configuration, as VS Code does.
fn cleared_by_null<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// Extra corpora for a rules file, by binding name (`train`, `dev`, …).
pub type CorpusOptions = BTreeMap<String, PathBuf>;

/// Settings as clients send them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerOptions {
    pub training: Option<TrainingOptions>,
    /// W0502's threshold (default 0.5).
    pub min_precision: Option<f64>,
    /// W0503's threshold (default 0.25).
    pub conflict_share: Option<f64>,
    /// The most I0505 diagnostics per corpus file (default 1,000).
    pub max_line_diagnostics: Option<usize>,
    /// γ of "Replace with reconstructed regex" (default 0.5).
    pub reconstruct_threshold: Option<f32>,
    /// Corpora for rules files without `corpus` bindings of their own, by rules path
    /// (relative to the workspace root, or absolute); a file's own bindings win.
    pub corpora: Option<BTreeMap<PathBuf, CorpusOptions>>,
}

impl ServerOptions {
    /// Reads options from a JSON value: the object itself, or its `rulelens` member (what
    /// editors send as the whole settings tree). Unknown fields are ignored; a field of the
    /// wrong type is an error naming it.
    pub fn from_json(value: serde_json::Value) -> Result<ServerOptions, serde_json::Error> {
        let value = match value {
            serde_json::Value::Object(mut map) if map.contains_key("rulelens") => {
                map.remove("rulelens").unwrap_or_default()
            }
            serde_json::Value::Null => return Ok(ServerOptions::default()),
            value => value,
        };
        serde_json::from_value(value)
    }

    /// `self` with the fields `later` sets replaced.
    pub fn merged(mut self, later: ServerOptions) -> ServerOptions {
        let training = match (self.training.take(), later.training) {
            (Some(base), Some(next)) => Some(TrainingOptions {
                enabled: next.enabled.or(base.enabled),
                device: next.device.or(base.device),
                model: next.model.or(base.model),
                embeddings: next.embeddings.or(base.embeddings),
                beta: next.beta.or(base.beta),
                epochs: next.epochs.or(base.epochs),
                patience: next.patience.or(base.patience),
                learning_rate: next.learning_rate.or(base.learning_rate),
                batch_size: next.batch_size.or(base.batch_size),
                seed: next.seed.or(base.seed),
                model_cache: next.model_cache.or(base.model_cache),
            }),
            (base, next) => next.or(base),
        };
        ServerOptions {
            training,
            min_precision: later.min_precision.or(self.min_precision),
            conflict_share: later.conflict_share.or(self.conflict_share),
            max_line_diagnostics: later.max_line_diagnostics.or(self.max_line_diagnostics),
            reconstruct_threshold: later.reconstruct_threshold.or(self.reconstruct_threshold),
            corpora: later.corpora.or(self.corpora),
        }
    }
}

/// How the server trains.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingSettings {
    pub enabled: bool,
    pub device: DeviceName,
    pub model: ModelKind,
    pub embeddings: Option<PathBuf>,
    pub beta: f64,
    pub train: TrainConfig,
    pub model_cache: Option<PathBuf>,
}

/// What the server runs with.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    pub training: TrainingSettings,
    pub findings: FindingsConfig,
    pub max_line_diagnostics: usize,
    pub reconstruct: ReconstructConfig,
    pub hover: HoverConfig,
    /// Corpora by absolute rules path.
    pub corpora: BTreeMap<PathBuf, CorpusOptions>,
}

impl Settings {
    /// Resolves `options` over the defaults; relative paths resolve against `root` (the
    /// workspace folder), when there is one.
    pub fn resolve(options: &ServerOptions, root: Option<&Path>) -> Settings {
        let absolute = |path: &Path| match root {
            Some(root) if path.is_relative() => root.join(path),
            _ => path.to_path_buf(),
        };
        let training = options.training.clone().unwrap_or_default();
        let defaults = TrainConfig::default();
        let embeddings = training
            .embeddings
            .clone()
            .flatten()
            .as_deref()
            .map(absolute);
        Settings {
            training: TrainingSettings {
                enabled: training.enabled.unwrap_or(true),
                device: training.device.unwrap_or(DeviceName::Cpu),
                model: training.model.unwrap_or(ModelKind::FaRnn),
                beta: training.beta.flatten().unwrap_or(if embeddings.is_some() {
                    DEFAULT_BETA_WITH_EMBEDDINGS
                } else {
                    1.0
                }),
                embeddings,
                train: TrainConfig {
                    epochs: training.epochs.unwrap_or(defaults.epochs),
                    patience: training.patience.unwrap_or(defaults.patience),
                    learning_rate: training.learning_rate.unwrap_or(defaults.learning_rate),
                    batch_size: training.batch_size.unwrap_or(defaults.batch_size).max(1),
                    seed: training.seed.unwrap_or(defaults.seed),
                    ..defaults
                },
                model_cache: training
                    .model_cache
                    .clone()
                    .flatten()
                    .as_deref()
                    .map(absolute),
            },
            findings: FindingsConfig {
                min_precision: options
                    .min_precision
                    .unwrap_or(FindingsConfig::default().min_precision),
                conflict_share: options
                    .conflict_share
                    .unwrap_or(FindingsConfig::default().conflict_share),
            },
            max_line_diagnostics: options
                .max_line_diagnostics
                .unwrap_or(DEFAULT_MAX_MISCLASSIFIED),
            reconstruct: ReconstructConfig {
                threshold: options
                    .reconstruct_threshold
                    .unwrap_or(ReconstructConfig::default().threshold),
                ..ReconstructConfig::default()
            },
            hover: HoverConfig::default(),
            corpora: options
                .corpora
                .iter()
                .flatten()
                .map(|(rules, corpora)| {
                    let corpora = corpora
                        .iter()
                        .map(|(name, path)| (name.clone(), absolute(path)))
                        .collect();
                    (absolute(rules), corpora)
                })
                .collect(),
        }
    }

    /// What the fit of a rules file runs with.
    pub fn fit_config(&self) -> FitConfig {
        FitConfig {
            model: self.training.model,
            scoring: Scoring::Forward,
            embeddings: self.training.embeddings.clone(),
            beta: self.training.beta,
            rank: RankChoice::Auto,
            fraction: 1.0,
            train: self.training.train.clone(),
            device: match self.training.device {
                DeviceName::Cpu => DeviceKind::Cpu,
                DeviceName::Cuda => DeviceKind::Cuda,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn options_merge_field_by_field_and_read_a_rulelens_section() {
        let first = ServerOptions::from_json(json!({
            "training": { "epochs": 3, "model": "fa-gru" },
            "minPrecision": 0.7
        }))
        .unwrap();
        let later = ServerOptions::from_json(json!({
            "rulelens": { "training": { "enabled": false } }
        }))
        .unwrap();
        let settings = Settings::resolve(&first.merged(later), Some(Path::new("/ws")));
        assert!(!settings.training.enabled);
        assert_eq!(settings.training.train.epochs, 3);
        assert_eq!(settings.training.model, ModelKind::FaGru);
        assert_eq!(settings.findings.min_precision, 0.7);
        // `null` clears a setting whose default is none; leaving it out keeps it.
        let with_embeddings = ServerOptions::from_json(json!({
            "training": { "embeddings": "glove.txt", "beta": 0.5, "modelCache": "cache" }
        }))
        .unwrap();
        let kept = with_embeddings
            .clone()
            .merged(ServerOptions::from_json(json!({ "training": { "epochs": 2 } })).unwrap());
        let kept = Settings::resolve(&kept, Some(Path::new("/ws")));
        assert_eq!(
            kept.training.embeddings.as_deref(),
            Some(Path::new("/ws/glove.txt"))
        );
        assert_eq!(kept.training.beta, 0.5);
        assert_eq!(
            kept.training.model_cache.as_deref(),
            Some(Path::new("/ws/cache"))
        );
        let cleared = with_embeddings.merged(
            ServerOptions::from_json(json!({
                "training": { "embeddings": null, "beta": null, "modelCache": null }
            }))
            .unwrap(),
        );
        let cleared = Settings::resolve(&cleared, Some(Path::new("/ws")));
        assert_eq!(cleared.training.embeddings, None);
        assert_eq!(cleared.training.beta, 1.0);
        assert_eq!(cleared.training.model_cache, None);
        let wrong = ServerOptions::from_json(json!({ "minPrecision": "high" }));
        assert!(wrong.unwrap_err().to_string().contains("invalid type"));
    }
}

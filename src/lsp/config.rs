//! The server's settings: [`Settings`], read from what clients send (`initializationOptions`,
//! the payload of `workspace/didChangeConfiguration`, or the answer to
//! `workspace/configuration` for the `rulelens` section), camelCase, every field optional.
//!
//! Each setting is declared once: the training settings are the library's
//! [`TrainingSettings`] (the flags of `rulelens train`), flattened into `training`, the
//! suggestion engine's are [`SuggestConfig`] (the flags of `rulelens suggest`), flattened
//! into `suggest`, and the findings' thresholds are [`FindingsConfig`]; defaults come from
//! those types. Options
//! arrive in layers ([`Options`]): a later layer's fields replace the earlier ones', and
//! `null` clears a field back to its default (VS Code sends `null` for a cleared setting).

use crate::diagnostic::LintLists;
use crate::explain::ReconstructConfig;
use crate::ide::{DEFAULT_MAX_MISCLASSIFIED, FindingsConfig, Role};
use crate::limits::ReadLimits;
use crate::model::{ModelKind, TrainingSettings};
use crate::suggest::SuggestConfig;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How the server trains: when, where it caches, and the training settings themselves.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TrainingSection {
    /// Train on save ("Train Now" trains even when this is off).
    pub enabled: bool,
    /// A save that comes within this many seconds of the one before (an editor that saves
    /// as you type) waits this long before training, so that a burst of saves trains once;
    /// a save on its own trains at once. The rules' figures on the corpora do not wait.
    pub delay: f64,
    /// Where checkpoints are cached; default: `rulelens/models` in the user's cache folder
    /// (`$XDG_CACHE_HOME`, else `~/.cache`).
    pub model_cache: Option<PathBuf>,
    /// After the rule network, train a SoPa with the rules' patterns plus free patterns
    /// (`patterns`), whose learned patterns become suggestions and whose view joins the
    /// corpus-line hover.
    pub learn_patterns: bool,
    #[serde(flatten)]
    pub settings: TrainingSettings,
}

/// The ensemble members a save trains unless `training.members` asks for more: one network,
/// so that a save's warm start stays about a second (issue 36: at most 2 s on SMS; five
/// members take five times as long). `rulelens train`'s default is five
/// ([`TrainingSettings::members`]).
pub const SAVE_MEMBERS: usize = 1;

impl TrainingSection {
    /// The network a save trains in `role`, if any: for [`Role::Classifier`], the settings
    /// when they name a family with that role (a rule network, with [`SAVE_MEMBERS`] members
    /// unless they ask for a number; a black box with a plain view as it is; the S-LSTM does
    /// not train on save); for [`Role::LearnedPatterns`], the settings with the model SoPa
    /// (one network, whatever ensemble the rule network is) when `learn_patterns` is on or
    /// the settings name SoPa.
    pub fn network(&self, role: Role) -> Option<TrainingSettings> {
        let model = self.settings.model;
        match role {
            Role::Classifier => (Role::of(model) == Some(role)).then(|| TrainingSettings {
                members: match model.is_rule_network() {
                    true => Some(self.settings.members.unwrap_or(SAVE_MEMBERS)),
                    false => self.settings.members,
                },
                ..self.settings.clone()
            }),
            Role::LearnedPatterns => {
                (self.learn_patterns || Role::of(model) == Some(role)).then(|| TrainingSettings {
                    model: ModelKind::Sopa,
                    members: None,
                    ..self.settings.clone()
                })
            }
        }
    }
}

impl Default for TrainingSection {
    fn default() -> TrainingSection {
        TrainingSection {
            enabled: true,
            delay: 3.0,
            model_cache: None,
            learn_patterns: true,
            settings: TrainingSettings::DEFAULT,
        }
    }
}

/// Whether the server computes suggestions on save, and with what floors.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SuggestSection {
    /// Compute the suggestion engine's edits after each save's analysis (needs `train` and
    /// `dev` corpora), for code actions and `rulelens/suggest`.
    pub enabled: bool,
    #[serde(flatten)]
    pub config: SuggestConfig,
}

impl Default for SuggestSection {
    fn default() -> SuggestSection {
        SuggestSection {
            enabled: true,
            config: SuggestConfig::DEFAULT,
        }
    }
}

/// The black box that the lens on the `default` line measures the rules and their networks
/// against (`project::bench`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct YardstickSection {
    /// Train the black box in the background after a save whose corpora the bench cache
    /// has no figure for (minutes of one core: the S-LSTM on SMS takes about 8), beside
    /// the save's networks. Off: the lens shows what `rulelens bench` measured.
    pub train: bool,
    /// The black box: a model that reads words alone (`ModelKind::is_black_box`).
    pub model: ModelKind,
    /// Where bench results are kept, shared with `rulelens bench --cache`; default:
    /// `rulelens/bench` in the user's cache folder (`$XDG_CACHE_HOME`, else `~/.cache`).
    pub cache: Option<PathBuf>,
}

impl Default for YardstickSection {
    fn default() -> YardstickSection {
        YardstickSection {
            train: false,
            model: ModelKind::Slstm,
            cache: None,
        }
    }
}

/// Extra corpora for a rules file, by binding name (`train`, `dev`, …).
pub type CorpusBindings = BTreeMap<String, PathBuf>;

/// What the server runs with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub training: TrainingSection,
    pub suggest: SuggestSection,
    pub yardstick: YardstickSection,
    /// W0502's and W0503's thresholds (`minPrecision`, `conflictShare`).
    #[serde(flatten)]
    pub findings: FindingsConfig,
    /// The most I0505 diagnostics per corpus file.
    pub max_line_diagnostics: usize,
    /// γ of "Replace with reconstructed regex".
    pub reconstruct_threshold: f32,
    /// Corpora for rules files, by rules path (relative to the workspace root, or absolute);
    /// a file's own `corpus` bindings win.
    pub corpora: BTreeMap<PathBuf, CorpusBindings>,
    /// How much of a file on disk the server reads (the command line's `--max-*-bytes`).
    pub limits: ReadLimits,
    /// Lint levels (`allow`, `warn`, `deny`: lists of codes, names or `warnings`), the
    /// command line's `--allow/--warn/--deny`; a rules file's allow comments win.
    pub lints: LintLists,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            training: TrainingSection::default(),
            suggest: SuggestSection::default(),
            yardstick: YardstickSection::default(),
            findings: FindingsConfig::default(),
            max_line_diagnostics: DEFAULT_MAX_MISCLASSIFIED,
            reconstruct_threshold: ReconstructConfig::default().threshold,
            corpora: BTreeMap::new(),
            limits: ReadLimits::DEFAULT,
            lints: LintLists::default(),
        }
    }
}

/// The options received so far, merged: a JSON object of the `rulelens` section's fields.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Options(Map<String, Value>);

impl Options {
    /// Reads a layer of options: the object itself, or its `rulelens` member (what editors
    /// send as the whole settings tree); `null` is no options.
    pub fn from_json(value: Value) -> Result<Options, String> {
        match value {
            Value::Object(mut map) => match map.remove("rulelens") {
                Some(Value::Object(section)) => Ok(Options(section)),
                Some(other) => Err(format!("`rulelens` is {other}, not an object")),
                None => Ok(Options(map)),
            },
            Value::Null => Ok(Options::default()),
            other => Err(format!("the settings are {other}, not an object")),
        }
    }

    /// `self` with `later`'s fields laid over it: objects merge field by field, `null`
    /// removes a field (its default applies), anything else replaces.
    pub fn merged(mut self, later: Options) -> Options {
        merge(&mut self.0, later.0);
        self
    }

    /// The settings these options ask for, relative paths resolved against `root` (the
    /// workspace folder), when there is one; or why they cannot be used, naming the setting.
    pub fn resolve(&self, root: Option<&Path>) -> Result<Settings, String> {
        let value = Value::Object(self.0.clone());
        let mut settings: Settings =
            serde_json::from_value(value).map_err(|error| match culprit(&self.0) {
                Some(name) => format!("{name}: {error}"),
                None => error.to_string(),
            })?;
        settings
            .training
            .settings
            .check()
            .map_err(|message| format!("rulelens.training: {message}"))?;
        settings
            .limits
            .check()
            .map_err(|message| format!("rulelens.limits: {message}"))?;
        settings
            .suggest
            .config
            .check()
            .map_err(|message| format!("rulelens.suggest: {message}"))?;
        if !settings.yardstick.model.is_black_box() {
            let black_boxes: Vec<&str> = (ModelKind::ALL.iter())
                .filter(|model| model.is_black_box())
                .map(|model| model.name())
                .collect();
            return Err(format!(
                "rulelens.yardstick.model must be a black box ({}), not {}",
                black_boxes.join(" or "),
                settings.yardstick.model.display_name()
            ));
        }
        if !(settings.training.delay >= 0.0 && settings.training.delay <= 3600.0) {
            return Err(format!(
                "rulelens.training.delay must be between 0 and 3600 seconds, not {}",
                settings.training.delay
            ));
        }
        settings.resolve_paths(root);
        Ok(settings)
    }
}

fn merge(base: &mut Map<String, Value>, later: Map<String, Value>) {
    for (key, value) in later {
        match (base.get_mut(&key), value) {
            (_, Value::Null) => {
                base.remove(&key);
            }
            (Some(Value::Object(inner)), Value::Object(next)) => merge(inner, next),
            (_, value) => {
                base.insert(key, value);
            }
        }
    }
}

/// The dotted name of the first setting that [`Settings`] cannot read on its own.
fn culprit(map: &Map<String, Value>) -> Option<String> {
    let reads = |value: Value| serde_json::from_value::<Settings>(value).is_ok();
    for (key, value) in map {
        if let (true, Value::Object(group)) = (
            ["training", "limits", "suggest", "yardstick", "lints"].contains(&key.as_str()),
            value,
        ) {
            for (field, inner) in group {
                if !reads(serde_json::json!({ key: { field: inner } })) {
                    return Some(format!("rulelens.{key}.{field}"));
                }
            }
        }
        if !reads(serde_json::json!({ key: value })) {
            return Some(format!("rulelens.{key}"));
        }
    }
    None
}

impl Settings {
    fn resolve_paths(&mut self, root: Option<&Path>) {
        let absolute = |path: &Path| match root {
            Some(root) if path.is_relative() => root.join(path),
            _ => path.to_path_buf(),
        };
        let training = &mut self.training;
        training.settings.embeddings = training.settings.embeddings.as_deref().map(absolute);
        training.model_cache = training.model_cache.as_deref().map(absolute);
        self.yardstick.cache = self.yardstick.cache.as_deref().map(absolute);
        self.corpora = std::mem::take(&mut self.corpora)
            .into_iter()
            .map(|(rules, bindings)| {
                let bindings = bindings
                    .into_iter()
                    .map(|(name, path)| (name, absolute(&path)))
                    .collect();
                (absolute(&rules), bindings)
            })
            .collect();
    }

    /// The reconstruction settings of the code actions.
    pub fn reconstruct(&self) -> ReconstructConfig {
        ReconstructConfig {
            threshold: self.reconstruct_threshold,
            ..ReconstructConfig::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        DeviceKind, MAX_BATCH_SIZE, MAX_EPOCHS, MAX_RANK, MAX_SENTENCE_TOKENS, ModelKind, Scoring,
        Semiring,
    };

    #[test]
    fn a_save_trains_a_classifier_only_for_the_families_with_that_role_and_a_sopa_beside_it() {
        let with_model = |model: ModelKind| TrainingSection {
            settings: TrainingSettings {
                model,
                ..TrainingSettings::DEFAULT
            },
            ..TrainingSection::default()
        };
        let model_in = |section: &TrainingSection, role| section.network(role).map(|s| s.model);
        // A rule network classifies, with one member unless the settings ask for more.
        for model in [ModelKind::FaRnn, ModelKind::BiFaGru] {
            let section = with_model(model);
            let classifier = section.network(Role::Classifier);
            assert_eq!(classifier.as_ref().map(|s| s.model), Some(model));
            assert_eq!(classifier.and_then(|s| s.members), Some(SAVE_MEMBERS));
        }
        // The S-LSTM is no view of the rules and does not train on save; the SoPa of
        // `learnPatterns` still trains.
        let slstm = with_model(ModelKind::Slstm);
        assert_eq!(model_in(&slstm, Role::Classifier), None);
        assert_eq!(
            model_in(&slstm, Role::LearnedPatterns),
            Some(ModelKind::Sopa)
        );
        // The MVMA-G classifies in place of a rule network, as it is, the SoPa still after it.
        let mvma = with_model(ModelKind::MvmaG);
        let classifier = mvma.network(Role::Classifier);
        assert_eq!(classifier.as_ref().map(|s| s.model), Some(ModelKind::MvmaG));
        assert_eq!(classifier.and_then(|s| s.members), None);
        assert_eq!(
            model_in(&mvma, Role::LearnedPatterns),
            Some(ModelKind::Sopa)
        );
        // SoPa alone: no classifier, and the SoPa even without `learnPatterns`.
        let sopa = TrainingSection {
            learn_patterns: false,
            ..with_model(ModelKind::Sopa)
        };
        assert_eq!(model_in(&sopa, Role::Classifier), None);
        assert_eq!(
            model_in(&sopa, Role::LearnedPatterns),
            Some(ModelKind::Sopa)
        );
        let off = TrainingSection {
            learn_patterns: false,
            ..with_model(ModelKind::FaRnn)
        };
        assert_eq!(model_in(&off, Role::LearnedPatterns), None);
    }

    use serde_json::json;

    fn options(value: Value) -> Options {
        Options::from_json(value).unwrap()
    }

    #[test]
    fn options_merge_field_by_field_and_read_a_rulelens_section() {
        let first = options(json!({
            "training": { "epochs": 3, "model": "fa-gru" },
            "minPrecision": 0.7
        }));
        let later = options(json!({ "rulelens": { "training": { "enabled": false } } }));
        let settings = first.merged(later).resolve(Some(Path::new("/ws"))).unwrap();
        assert!(!settings.training.enabled);
        assert_eq!(settings.training.settings.epochs, 3);
        assert_eq!(settings.training.settings.model, ModelKind::FaGru);
        assert_eq!(settings.findings.min_precision, 0.7);
        assert_eq!(
            settings.findings.conflict_share,
            FindingsConfig::default().conflict_share
        );
    }

    #[test]
    fn null_clears_a_setting_and_leaving_it_out_keeps_it() {
        let with_paths = options(json!({
            "training": { "embeddings": "glove.txt", "beta": 0.5, "modelCache": "cache" }
        }));
        let kept = with_paths
            .clone()
            .merged(options(json!({ "training": { "epochs": 2 } })))
            .resolve(Some(Path::new("/ws")))
            .unwrap();
        assert_eq!(
            kept.training.settings.embeddings.as_deref(),
            Some(Path::new("/ws/glove.txt"))
        );
        assert_eq!(kept.training.settings.beta, 0.5);
        assert_eq!(
            kept.training.model_cache.as_deref(),
            Some(Path::new("/ws/cache"))
        );
        let cleared = with_paths
            .merged(options(json!({
                "training": { "embeddings": null, "beta": null, "modelCache": null }
            })))
            .resolve(None)
            .unwrap();
        assert_eq!(cleared.training, TrainingSection::default());
    }

    #[test]
    fn a_bad_setting_is_named() {
        let wrong = options(json!({ "minPrecision": "high" })).resolve(None);
        assert!(
            wrong
                .as_ref()
                .unwrap_err()
                .starts_with("rulelens.minPrecision: invalid type"),
            "{wrong:?}"
        );
        let nested = options(json!({ "training": { "seed": 1, "batchSize": "big" } }));
        let error = nested.resolve(None).unwrap_err();
        assert!(
            error.starts_with("rulelens.training.batchSize: invalid type"),
            "{error}"
        );
        let out_of_range = options(json!({ "training": { "beta": 3 } })).resolve(None);
        assert_eq!(
            out_of_range.unwrap_err(),
            "rulelens.training: beta must be in [0, 1], not 3"
        );
        assert!(Options::from_json(json!([1])).is_err());
        let yardstick = options(json!({ "yardstick": { "model": "fa-rnn" } })).resolve(None);
        assert_eq!(
            yardstick.unwrap_err(),
            "rulelens.yardstick.model must be a black box (slstm or mvma-g), not FA-RNN"
        );
        let lints =
            options(json!({ "lints": { "deny": ["warnings"], "allow": ["shadowed-rule"] } }))
                .resolve(None)
                .unwrap()
                .lints;
        assert_eq!(
            lints.levels().level(crate::diagnostic::Code::ShadowedRule),
            Some(crate::diagnostic::Level::Allow)
        );
        let error = options(json!({ "lints": { "allow": ["E0201"] } }))
            .resolve(None)
            .unwrap_err();
        assert!(
            error.starts_with("rulelens.lints.allow: E0201 (unknown-pattern) is an error"),
            "{error}"
        );
        let limits = options(json!({ "limits": { "maxCorpusBytes": "lots" } }));
        let error = limits.resolve(None).unwrap_err();
        assert!(
            error.starts_with("rulelens.limits.maxCorpusBytes: `lots` is not a size"),
            "{error}"
        );
        let past_ceiling = options(json!({ "limits": { "maxRulesBytes": "2GiB" } }));
        assert_eq!(
            past_ceiling.resolve(None).unwrap_err(),
            "rulelens.limits: max-rules-bytes must be between 1 byte and 1GiB, not 2GiB"
        );
        let raised = options(json!({ "limits": { "maxCorpusBytes": "2GiB" } }));
        assert_eq!(
            raised.resolve(None).unwrap().limits.max_corpus_bytes,
            crate::limits::Bytes(2 << 30)
        );
    }

    /// Settings flattened to dotted keys (`rulelens.training.epochs`), `corpora` kept whole.
    fn flatten(prefix: &str, value: &Value, out: &mut BTreeMap<String, Value>) {
        match value {
            Value::Object(map) if !prefix.ends_with(".corpora") => {
                for (key, inner) in map {
                    flatten(&format!("{prefix}.{key}"), inner, out);
                }
            }
            _ => {
                out.insert(prefix.to_string(), value.clone());
            }
        }
    }

    #[test]
    fn the_vs_code_extension_declares_every_setting_with_the_servers_default() {
        use clap::ValueEnum;
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/editors/vscode/package.json");
        let manifest: Value =
            serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let properties = manifest["contributes"]["configuration"]["properties"]
            .as_object()
            .unwrap();
        let mut server = BTreeMap::new();
        flatten(
            "rulelens",
            &serde_json::to_value(Settings::default()).unwrap(),
            &mut server,
        );
        let extension_only = ["rulelens.server.path", "rulelens.trace.server"];
        let mut declared: Vec<&str> = properties.keys().map(String::as_str).collect();
        declared.retain(|key| !extension_only.contains(key));
        declared.sort_unstable();
        assert_eq!(
            declared,
            server.keys().map(String::as_str).collect::<Vec<_>>()
        );
        let names = |values: Vec<String>| Value::from(values);
        let enums = [
            (
                "rulelens.training.model",
                names(ModelKind::value_variants().iter().map(serde_name).collect()),
            ),
            (
                "rulelens.yardstick.model",
                names(
                    ModelKind::value_variants()
                        .iter()
                        .filter(|model| model.is_black_box())
                        .map(serde_name)
                        .collect(),
                ),
            ),
            (
                "rulelens.training.scoring",
                names(Scoring::value_variants().iter().map(serde_name).collect()),
            ),
            (
                "rulelens.training.semiring",
                names(Semiring::value_variants().iter().map(serde_name).collect()),
            ),
            (
                "rulelens.training.device",
                names(
                    DeviceKind::value_variants()
                        .iter()
                        .map(serde_name)
                        .collect(),
                ),
            ),
        ];
        for (key, default) in &server {
            let property = &properties[key];
            match (&property["default"], default) {
                // 3 and 3.0 are the same JSON number.
                (Value::Number(a), Value::Number(b)) => {
                    assert_eq!(a.as_f64(), b.as_f64(), "{key}: default")
                }
                (declared, default) => assert_eq!(declared, default, "{key}: default"),
            }
            let types: Vec<&str> = match &property["type"] {
                Value::String(one) => vec![one.as_str()],
                Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
                other => panic!("{key}: type {other}"),
            };
            let expected = match default {
                Value::Null => "null",
                Value::Bool(_) => "boolean",
                Value::Number(n) if n.is_f64() => "number",
                Value::Number(_) => "integer",
                Value::String(_) => "string",
                Value::Object(_) => "object",
                Value::Array(_) => "array",
            };
            assert!(types.contains(&expected), "{key}: {types:?} for {default}");
            assert!(
                property
                    .get("description")
                    .or(property.get("markdownDescription"))
                    .is_some(),
                "{key}: no description"
            );
            let values = enums.iter().find(|(name, _)| name == key).map(|(_, v)| v);
            assert_eq!(property.get("enum"), values, "{key}: enum");
        }
        // The bounds the extension offers are the ones the server checks.
        let bound = |key: &str, side: &str| properties[key][side].as_u64().map(|n| n as usize);
        assert_eq!(
            bound("rulelens.training.epochs", "maximum"),
            Some(MAX_EPOCHS)
        );
        assert_eq!(
            bound("rulelens.training.batchSize", "maximum"),
            Some(MAX_BATCH_SIZE)
        );
        assert_eq!(bound("rulelens.training.rank", "maximum"), Some(MAX_RANK));
        assert_eq!(
            bound("rulelens.training.maxSentenceTokens", "maximum"),
            Some(MAX_SENTENCE_TOKENS)
        );
        assert_eq!(
            bound("rulelens.suggest.maxShapesPerLabel", "maximum"),
            Some(SuggestConfig::MAX_SHAPES_PER_LABEL)
        );
        assert_eq!(
            bound("rulelens.suggest.maxMeasured", "maximum"),
            Some(SuggestConfig::MAX_MEASURED)
        );
        let ceilings = serde_json::to_value(ReadLimits::CEILING).unwrap();
        for (field, ceiling) in ceilings.as_object().unwrap() {
            let key = format!("rulelens.limits.{field}");
            assert_eq!(&properties[&key]["maximum"], ceiling, "{key}: maximum");
        }
    }

    fn serde_name<T: Serialize>(value: &T) -> String {
        serde_json::to_value(value)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string()
    }
}

//! The checkpoint cache: where the server keeps the networks it trains, under a key that
//! changes whenever anything the network depends on changes, so that reopening a workspace
//! or saving a text back to an earlier version loads instead of training.

use crate::digest::sha256_of_parts;
use crate::model::TrainingSettings;
use std::path::{Path, PathBuf};

/// The user's cache folder for checkpoints: `$XDG_CACHE_HOME/rulelens/models`, else
/// `~/.cache/rulelens/models`, else the system's temporary folder's `rulelens/models`.
pub fn default_cache_root() -> PathBuf {
    user_cache().join("models")
}

/// The user's cache folder for bench results (`project::bench`): `rulelens/bench` beside
/// [`default_cache_root`]'s `rulelens/models`.
pub fn default_bench_root() -> PathBuf {
    user_cache().join("bench")
}

/// `$XDG_CACHE_HOME/rulelens`, else `~/.cache/rulelens`, else the system's temporary
/// folder's `rulelens`.
fn user_cache() -> PathBuf {
    let non_empty = |name: &str| std::env::var_os(name).filter(|value| !value.is_empty());
    let base = non_empty("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|path| path.is_absolute())
        .or_else(|| non_empty("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    base.join("rulelens")
}

/// The key of the network for these inputs: a SHA-256 over the rules text, the training
/// settings as JSON (every field, by name), the word vectors' identity, this rulelens's
/// version, checkpoint format (a network of another format computes something else),
/// tokenizer version and training version (`model::TRAINING_VERSION`: between releases,
/// a build that trains other networks from the same inputs), and the texts of the train and
/// dev corpora.
pub fn cache_key(rules_text: &str, settings: &TrainingSettings, train: &str, dev: &str) -> String {
    // Serializing plain numbers, strings and enums cannot fail.
    let json = serde_json::to_string(settings).unwrap_or_default();
    let vectors = vectors_identity(settings);
    let version = format!(
        "{} {} {} {}",
        env!("CARGO_PKG_VERSION"),
        crate::model::checkpoint::FORMAT_VERSION,
        crate::text::TOKENIZER_VERSION,
        crate::model::TRAINING_VERSION
    );
    sha256_of_parts([
        rules_text.as_bytes(),
        json.as_bytes(),
        vectors.as_bytes(),
        version.as_bytes(),
        train.as_bytes(),
        dev.as_bytes(),
    ])
}

/// What the word vectors are, beyond their setting: the bundled table's SHA-256, or a GloVe
/// file's length and modification time (hashing a file of hundreds of megabytes on every
/// save would cost more than the analysis), so that a rebuilt table or an edited file
/// trains anew.
fn vectors_identity(settings: &TrainingSettings) -> String {
    match &settings.embeddings {
        None => crate::model::bundled_sha256().to_string(),
        Some(path) => match std::fs::metadata(path) {
            Ok(meta) => {
                let modified = meta
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{} bytes, modified {modified}", meta.len())
            }
            // Training will report the error; any key will do.
            Err(_) => String::new(),
        },
    }
}

/// The checkpoint folder of the rules file `rules_path` under `key`, in `root`:
/// `<stem>-<first 16 hex digits of the key>`.
pub fn checkpoint_dir(root: &Path, rules_path: &Path, key: &str) -> PathBuf {
    let stem = rules_path
        .file_stem()
        .map_or_else(|| "rules".into(), |s| s.to_string_lossy().into_owned());
    root.join(format!("{stem}-{}", &key[..key.len().min(16)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_changes_with_every_input_and_every_setting() {
        let settings = TrainingSettings::default();
        let base = cache_key("rules", &settings, "train", "dev");
        assert_eq!(base, cache_key("rules", &settings, "train", "dev"));
        assert_ne!(base, cache_key("rules!", &settings, "train", "dev"));
        assert_ne!(base, cache_key("rules", &settings, "train", "dev!"));
        // The boundary between two parts matters.
        assert_ne!(base, cache_key("rulest", &settings, "rain", "dev"));
        let changed = TrainingSettings {
            learning_rate: Some(settings.learning_rate() * 2.0),
            ..settings.clone()
        };
        assert_ne!(base, cache_key("rules", &changed, "train", "dev"));
        // A word-vector file's key changes when the file does.
        let file = std::env::temp_dir().join(format!("rulelens-key-{}.txt", std::process::id()));
        std::fs::write(&file, "the 0.1 0.2\n").unwrap();
        let with_file = TrainingSettings {
            embeddings: Some(file.clone()),
            ..settings.clone()
        };
        let before = cache_key("rules", &with_file, "train", "dev");
        assert_ne!(base, before);
        assert_eq!(before, cache_key("rules", &with_file, "train", "dev"));
        std::fs::write(&file, "the 0.1 0.2\nof 0.3 0.4\n").unwrap();
        assert_ne!(before, cache_key("rules", &with_file, "train", "dev"));
        std::fs::remove_file(&file).unwrap();
        let dir = checkpoint_dir(Path::new("/cache"), Path::new("/w/sms.rules"), &base);
        assert_eq!(
            dir,
            Path::new("/cache").join(format!("sms-{}", &base[..16]))
        );
    }

    /// A build before the training version keyed the same inputs without it, so a network
    /// it trained (its n-gram weight chosen by dev accuracy) is not loaded as this build's.
    #[test]
    fn a_network_trained_before_the_training_version_is_not_found() {
        let settings = TrainingSettings::default();
        let json = serde_json::to_string(&settings).unwrap();
        let vectors = vectors_identity(&settings);
        let version = format!(
            "{} {} {}",
            env!("CARGO_PKG_VERSION"),
            crate::model::checkpoint::FORMAT_VERSION,
            crate::text::TOKENIZER_VERSION
        );
        let before = sha256_of_parts([
            "rules".as_bytes(),
            json.as_bytes(),
            vectors.as_bytes(),
            version.as_bytes(),
            "train".as_bytes(),
            "dev".as_bytes(),
        ]);
        assert_ne!(cache_key("rules", &settings, "train", "dev"), before);
    }
}

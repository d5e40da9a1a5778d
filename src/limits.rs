//! How much of a file rulelens reads, declared once: [`ReadLimits`], the global flags of the
//! command line (`--max-corpus-bytes 2GiB`) and the language server's `rulelens.limits.*`
//! settings. Each limit has a default that keeps one careless or hostile file from taking the
//! machine's memory, and a ceiling that an option may not pass (the byte offsets of rules
//! files and corpora are 32 bits). A read past its limit stops there and fails with a message
//! that names the file, the limit and the option that raises it (`docs/cli.md`, "Limits").

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::io::ErrorKind;
use std::path::Path;
use std::str::FromStr;

/// A number of bytes: written and read as `64MiB`, `2GiB`, `512KiB` or plain bytes on the
/// command line, a number of bytes in settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

const UNITS: [(&str, u64); 4] = [
    ("TiB", 1 << 40),
    ("GiB", 1 << 30),
    ("MiB", 1 << 20),
    ("KiB", 1 << 10),
];

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match UNITS
            .iter()
            .find(|&&(_, size)| self.0 >= size && self.0.is_multiple_of(size))
        {
            Some((unit, size)) => write!(f, "{}{unit}", self.0 / size),
            None => write!(f, "{}", self.0),
        }
    }
}

impl FromStr for Bytes {
    type Err = String;

    fn from_str(text: &str) -> Result<Bytes, String> {
        let text = text.trim();
        let (number, scale) = UNITS
            .iter()
            .find_map(|&(unit, size)| Some((text.strip_suffix(unit)?, size)))
            .unwrap_or((text.strip_suffix('B').unwrap_or(text), 1));
        number
            .trim()
            .parse::<u64>()
            .ok()
            .and_then(|n| n.checked_mul(scale))
            .map(Bytes)
            .ok_or_else(|| {
                format!(
                    "`{text}` is not a size: write bytes, or a whole number of KiB, MiB, GiB or TiB"
                )
            })
    }
}

impl Serialize for Bytes {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.0)
    }
}

impl<'de> Deserialize<'de> for Bytes {
    /// A number of bytes, or a string such as `"2GiB"`.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Bytes, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Number(u64),
            Text(String),
        }
        match Written::deserialize(deserializer)? {
            Written::Number(n) => Ok(Bytes(n)),
            Written::Text(text) => text.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// The most bytes rulelens reads of each kind of file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::Args)]
#[serde(rename_all = "camelCase", default)]
pub struct ReadLimits {
    /// The largest rules file read from disk (at most 1GiB).
    #[arg(long, value_name = "SIZE", global = true, default_value_t = ReadLimits::DEFAULT.max_rules_bytes)]
    pub max_rules_bytes: Bytes,
    /// The largest corpus file read (at most 2GiB: its byte offsets are 32 bits).
    #[arg(long, value_name = "SIZE", global = true, default_value_t = ReadLimits::DEFAULT.max_corpus_bytes)]
    pub max_corpus_bytes: Bytes,
    /// The largest checkpoint manifest read (at most 4GiB).
    #[arg(long, value_name = "SIZE", global = true, default_value_t = ReadLimits::DEFAULT.max_manifest_bytes)]
    pub max_manifest_bytes: Bytes,
    /// The largest checkpoint weights file read; its size is also checked against the
    /// manifest's tensor shapes before it is read (at most 1TiB).
    #[arg(long, value_name = "SIZE", global = true, default_value_t = ReadLimits::DEFAULT.max_weights_bytes)]
    pub max_weights_bytes: Bytes,
    /// The largest word-vectors file read (at most 1TiB; only the vocabulary's vectors are
    /// kept).
    #[arg(long, value_name = "SIZE", global = true, default_value_t = ReadLimits::DEFAULT.max_vectors_bytes)]
    pub max_vectors_bytes: Bytes,
    /// The longest line of a word-vectors file (at most 64MiB).
    #[arg(long, value_name = "SIZE", global = true, default_value_t = ReadLimits::DEFAULT.max_vectors_line_bytes)]
    pub max_vectors_line_bytes: Bytes,
}

impl ReadLimits {
    /// Every default.
    pub const DEFAULT: ReadLimits = ReadLimits {
        max_rules_bytes: Bytes(64 << 20),
        max_corpus_bytes: Bytes(1 << 30),
        max_manifest_bytes: Bytes(256 << 20),
        max_weights_bytes: Bytes(16 << 30),
        max_vectors_bytes: Bytes(16 << 30),
        max_vectors_line_bytes: Bytes(64 << 10),
    };

    /// The most any option may ask for.
    pub const CEILING: ReadLimits = ReadLimits {
        max_rules_bytes: Bytes(1 << 30),
        max_corpus_bytes: Bytes(1 << 31),
        max_manifest_bytes: Bytes(4 << 30),
        max_weights_bytes: Bytes(1 << 40),
        max_vectors_bytes: Bytes(1 << 40),
        max_vectors_line_bytes: Bytes(64 << 20),
    };

    /// The value of one limit.
    pub fn of(&self, limit: Limit) -> Bytes {
        match limit {
            Limit::Rules => self.max_rules_bytes,
            Limit::Corpus => self.max_corpus_bytes,
            Limit::Manifest => self.max_manifest_bytes,
            Limit::Weights => self.max_weights_bytes,
            Limit::Vectors => self.max_vectors_bytes,
            Limit::VectorsLine => self.max_vectors_line_bytes,
        }
    }

    /// Why these limits cannot be used, naming the option, or `Ok`.
    pub fn check(&self) -> Result<(), String> {
        for limit in Limit::ALL {
            let (value, ceiling) = (self.of(limit), ReadLimits::CEILING.of(limit));
            if value.0 == 0 || value > ceiling {
                return Err(format!(
                    "{} must be between 1 byte and {ceiling}, not {value}",
                    limit.option()
                ));
            }
        }
        Ok(())
    }

    /// What passing `limit` is called in an error: the limit, and the option that raises it.
    pub fn too_large(&self, limit: Limit) -> String {
        let option = limit.option();
        format!(
            "larger than the {} a {} may have (raise it with `--{option}`, or the server's `rulelens.limits.{}`)",
            self.of(limit),
            limit.noun(),
            camel_case(option)
        )
    }

    /// Reads a whole file of at most `limit`'s bytes ([`crate::text::read_capped`]); a larger
    /// one fails with `ErrorKind::FileTooLarge` and [`ReadLimits::too_large`]'s message.
    pub fn read(&self, limit: Limit, path: &Path) -> std::io::Result<Vec<u8>> {
        crate::text::read_capped(path, self.of(limit).0).map_err(|error| {
            if error.kind() == ErrorKind::FileTooLarge {
                std::io::Error::new(ErrorKind::FileTooLarge, self.too_large(limit))
            } else {
                error
            }
        })
    }
}

impl Default for ReadLimits {
    fn default() -> ReadLimits {
        ReadLimits::DEFAULT
    }
}

/// One of the [`ReadLimits`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    Rules,
    Corpus,
    Manifest,
    Weights,
    Vectors,
    VectorsLine,
}

impl Limit {
    const ALL: [Limit; 6] = [
        Limit::Rules,
        Limit::Corpus,
        Limit::Manifest,
        Limit::Weights,
        Limit::Vectors,
        Limit::VectorsLine,
    ];

    /// The command line's name of the option.
    fn option(self) -> &'static str {
        match self {
            Limit::Rules => "max-rules-bytes",
            Limit::Corpus => "max-corpus-bytes",
            Limit::Manifest => "max-manifest-bytes",
            Limit::Weights => "max-weights-bytes",
            Limit::Vectors => "max-vectors-bytes",
            Limit::VectorsLine => "max-vectors-line-bytes",
        }
    }

    fn noun(self) -> &'static str {
        match self {
            Limit::Rules => "rules file",
            Limit::Corpus => "corpus file",
            Limit::Manifest => "checkpoint manifest",
            Limit::Weights => "checkpoint's weights file",
            Limit::Vectors => "word-vectors file",
            Limit::VectorsLine => "word-vectors line",
        }
    }
}

fn camel_case(option: &str) -> String {
    let mut words = option.split('-');
    let mut out = words.next().unwrap_or_default().to_string();
    for word in words {
        let mut chars = word.chars();
        out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
        out.push_str(chars.as_str());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_read_and_print_in_binary_units() {
        for (text, bytes) in [
            ("64MiB", 64 << 20),
            ("2GiB", 2 << 30),
            ("512 KiB", 512 << 10),
            ("1000", 1000),
            ("1000B", 1000),
            ("1TiB", 1 << 40),
        ] {
            assert_eq!(text.parse::<Bytes>(), Ok(Bytes(bytes)), "{text}");
        }
        assert_eq!(Bytes(64 << 20).to_string(), "64MiB");
        assert_eq!(Bytes(1536 << 20).to_string(), "1536MiB");
        assert_eq!(Bytes(1000).to_string(), "1000");
        for bad in ["", "2 GB", "-1", "1.5GiB", "99999999999TiB"] {
            assert!(bad.parse::<Bytes>().is_err(), "{bad}");
        }
        let read: ReadLimits = serde_json::from_value(
            serde_json::json!({ "maxCorpusBytes": "2GiB", "maxRulesBytes": 100 }),
        )
        .unwrap();
        assert_eq!(read.max_corpus_bytes, Bytes(2 << 30));
        assert_eq!(read.max_rules_bytes, Bytes(100));
        assert_eq!(
            read.max_weights_bytes,
            ReadLimits::DEFAULT.max_weights_bytes
        );
    }

    #[test]
    fn the_defaults_pass_their_check_and_no_option_passes_its_ceiling() {
        assert_eq!(ReadLimits::DEFAULT.check(), Ok(()));
        assert_eq!(ReadLimits::CEILING.check(), Ok(()));
        let mut limits = ReadLimits::DEFAULT;
        limits.max_corpus_bytes = Bytes(3 << 30);
        assert_eq!(
            limits.check(),
            Err("max-corpus-bytes must be between 1 byte and 2GiB, not 3GiB".to_string())
        );
        limits.max_corpus_bytes = Bytes(0);
        assert!(limits.check().is_err());
        assert_eq!(
            ReadLimits::DEFAULT.too_large(Limit::Corpus),
            "larger than the 1GiB a corpus file may have (raise it with `--max-corpus-bytes`, or the server's `rulelens.limits.maxCorpusBytes`)"
        );
    }
}

//! Word vectors and the vocabulary of a model.
//!
//! Vectors come from the table bundled into the binary ([`BUNDLED`]: GloVe 6B 50d, the
//! 100,000 most frequent words, as float16; `models/README.md` says how it was made) or from
//! a file in the GloVe text format (`word v1 … vD`, one word per line) that the user gives.
//! Only the vectors of the vocabulary's words are kept. A word the table lacks gets the mean
//! of the vectors of its pieces split at `'` and `-` (GloVe is PTB-tokenized and knows `can`,
//! `'` and `t` but not `can't`), or else the mean of all the table's vectors, which is also
//! the vector of unknown words (index 0), as in the reference code. A malformed line is an
//! error naming the file, line and column; reading never panics.

use crate::digest::{hex, sha256_hex};
use crate::limits::{Limit, ReadLimits};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Why an embeddings file could not be used.
#[derive(Debug)]
pub enum EmbeddingsError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    Malformed {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    Empty {
        path: PathBuf,
    },
    /// The bundled table does not have the layout this build reads (a corrupt build).
    Bundled(String),
}

impl fmt::Display for EmbeddingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EmbeddingsError::Io { path, error } => {
                write!(f, "cannot read {}: {error}", path.display())
            }
            EmbeddingsError::Malformed {
                path,
                line,
                column,
                message,
            } => {
                write!(f, "{}:{line}:{column}: {message}", path.display())
            }
            EmbeddingsError::Empty { path } => {
                write!(
                    f,
                    "{}: no vector for any word of the vocabulary",
                    path.display()
                )
            }
            EmbeddingsError::Bundled(message) => {
                write!(f, "the bundled word vectors are unreadable: {message}")
            }
        }
    }
}

impl std::error::Error for EmbeddingsError {}

/// Words of a model, index 0 being the unknown word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vocabulary {
    // Invariant: words[0] is UNKNOWN and `index` maps every other word to its position.
    words: Vec<String>,
    index: HashMap<String, u32>,
}

impl Vocabulary {
    /// How the unknown word is written in checkpoints.
    pub const UNKNOWN: &'static str = "<unk>";

    /// A vocabulary of `words` (duplicates and the unknown word's spelling are skipped), in
    /// order after the unknown word.
    pub fn new<'a>(words: impl IntoIterator<Item = &'a str>) -> Vocabulary {
        let mut vocabulary = Vocabulary {
            words: vec![Vocabulary::UNKNOWN.to_string()],
            index: HashMap::new(),
        };
        for word in words {
            if word != Vocabulary::UNKNOWN && !vocabulary.index.contains_key(word) {
                vocabulary
                    .index
                    .insert(word.to_string(), vocabulary.words.len() as u32);
                vocabulary.words.push(word.to_string());
            }
        }
        vocabulary
    }

    /// The id of a word; 0 when unknown.
    pub fn id(&self, word: &str) -> u32 {
        self.index.get(word).copied().unwrap_or(0)
    }

    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Never true: the unknown word is always there.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The words, the unknown word first.
    pub fn words(&self) -> &[String] {
        &self.words
    }
}

/// The word vectors compiled into the binary, in the layout `models/make_default_vectors.py`
/// writes: the magic `RLWV0001`, then little-endian u32 word count N, dimension D and byte
/// length B of the word list, the words (UTF-8, each followed by `\n`), and N·D float16.
pub const BUNDLED: &[u8] = include_bytes!("../../../models/glove.6B.50d.top100k.f16");

/// How [`BUNDLED`] is named in manifests and messages.
pub const BUNDLED_NAME: &str = "GloVe 6B 50d, 100,000 most frequent words (bundled)";

/// Where word vectors come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VectorSource<'a> {
    /// [`BUNDLED`].
    Bundled,
    /// A file in the GloVe text format.
    Glove(&'a Path),
}

impl VectorSource<'_> {
    /// The bundled table when `path` is `None`.
    pub fn of(path: Option<&Path>) -> VectorSource<'_> {
        path.map_or(VectorSource::Bundled, VectorSource::Glove)
    }

    /// The file's path, or [`BUNDLED_NAME`].
    pub fn name(&self) -> String {
        match self {
            VectorSource::Bundled => BUNDLED_NAME.to_string(),
            VectorSource::Glove(path) => path.display().to_string(),
        }
    }
}

/// One vector per vocabulary word: [V, D], row-major, with where they came from.
#[derive(Debug, Clone, PartialEq)]
pub struct WordVectors {
    pub dim: usize,
    pub data: Vec<f32>,
    /// How many vocabulary words (the unknown word excluded) had their own vector.
    pub n_found: usize,
    /// How many more got the mean of their pieces' vectors.
    pub n_backed_off: usize,
    /// Whether each vocabulary word's vector is its own or its pieces' (false for the
    /// unknown word and the words given the mean of all vectors).
    pub known: Vec<bool>,
    /// SHA-256 of the table the vectors were read from (the bundled bytes or the file), hex.
    pub sha256: String,
}

/// Reads the vectors of `vocabulary`'s words (and of their pieces) from `source`; a file
/// is read up to `limits.max_vectors_bytes`, each line up to `limits.max_vectors_line_bytes`
/// (GloVe 840B 300d has 5.6 GB, and a 300-dimensional vector takes about 3 KB a line).
pub fn read_vectors(
    source: VectorSource<'_>,
    vocabulary: &Vocabulary,
    limits: &ReadLimits,
) -> Result<WordVectors, EmbeddingsError> {
    let mut collector = Collector::new(vocabulary);
    let sha256 = match source {
        VectorSource::Bundled => {
            read_bundled(&mut collector)?;
            bundled_sha256().to_string()
        }
        VectorSource::Glove(path) => read_glove_file(path, &mut collector, limits)?,
    };
    let path = match source {
        VectorSource::Bundled => PathBuf::from(BUNDLED_NAME),
        VectorSource::Glove(path) => path.to_path_buf(),
    };
    collector.finish(vocabulary, sha256, path)
}

/// Reads the vectors of `vocabulary`'s words from a GloVe text file.
pub fn read_glove(
    path: &Path,
    vocabulary: &Vocabulary,
    limits: &ReadLimits,
) -> Result<WordVectors, EmbeddingsError> {
    read_vectors(VectorSource::Glove(path), vocabulary, limits)
}

/// The SHA-256 of [`BUNDLED`], computed once.
pub fn bundled_sha256() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| sha256_hex(BUNDLED))
}

/// The words of a table that a vocabulary wants, and the sum of all the table's vectors.
struct Collector {
    /// Every vocabulary word and every piece of one, with its vector once seen.
    wanted: HashMap<String, Option<Vec<f32>>>,
    dim: Option<usize>,
    sum: Vec<f64>,
    n_vectors: usize,
    n_wanted_found: usize,
}

/// A word's pieces split at `'` and `-`.
fn pieces(word: &str) -> impl Iterator<Item = &str> {
    word.split(['\'', '-']).filter(|piece| !piece.is_empty())
}

impl Collector {
    fn new(vocabulary: &Vocabulary) -> Collector {
        let mut wanted: HashMap<String, Option<Vec<f32>>> = HashMap::new();
        for word in vocabulary.words().iter().skip(1) {
            wanted.insert(word.clone(), None);
            for piece in pieces(word) {
                wanted.insert(piece.to_string(), None);
            }
        }
        Collector {
            wanted,
            dim: None,
            sum: Vec::new(),
            n_vectors: 0,
            n_wanted_found: 0,
        }
    }

    /// Takes one word's vector, whose length the caller has checked against [`Self::dim`].
    fn add(&mut self, word: &str, vector: impl Fn() -> Vec<f32>, values: &[f32]) {
        if self.sum.is_empty() {
            self.sum = vec![0.0; values.len()];
            self.dim = Some(values.len());
        }
        for (total, &value) in self.sum.iter_mut().zip(values) {
            *total += f64::from(value);
        }
        self.n_vectors += 1;
        if let Some(slot) = self.wanted.get_mut(word) {
            *slot = Some(vector());
            self.n_wanted_found += 1;
        }
    }

    fn finish(
        self,
        vocabulary: &Vocabulary,
        sha256: String,
        path: PathBuf,
    ) -> Result<WordVectors, EmbeddingsError> {
        let Some(dim) = self.dim.filter(|_| self.n_wanted_found > 0) else {
            return Err(EmbeddingsError::Empty { path });
        };
        let mean: Vec<f32> = self
            .sum
            .iter()
            .map(|&total| (total / self.n_vectors as f64) as f32)
            .collect();
        let mut data = Vec::with_capacity(vocabulary.len() * dim);
        data.extend_from_slice(&mean);
        let (mut n_found, mut n_backed_off) = (0, 0);
        let mut known = Vec::with_capacity(vocabulary.len());
        known.push(false);
        for word in vocabulary.words().iter().skip(1) {
            if let Some(Some(vector)) = self.wanted.get(word) {
                data.extend_from_slice(vector);
                n_found += 1;
                known.push(true);
                continue;
            }
            let of_pieces: Vec<&Vec<f32>> = pieces(word)
                .filter_map(|piece| self.wanted.get(piece).and_then(Option::as_ref))
                .collect();
            known.push(!of_pieces.is_empty());
            if of_pieces.is_empty() {
                data.extend_from_slice(&mean);
            } else {
                n_backed_off += 1;
                for d in 0..dim {
                    data.push(of_pieces.iter().map(|v| v[d]).sum::<f32>() / of_pieces.len() as f32);
                }
            }
        }
        Ok(WordVectors {
            dim,
            data,
            n_found,
            n_backed_off,
            known,
            sha256,
        })
    }
}

/// Feeds [`BUNDLED`] to `collector`: the wanted words' rows, looked up in
/// [`BundledIndex`], and the sum of every row.
fn read_bundled(collector: &mut Collector) -> Result<(), EmbeddingsError> {
    let index = BundledIndex::get()?;
    collector.dim = Some(index.dim);
    collector.sum.clone_from(&index.sum);
    collector.n_vectors = index.values.len() / (2 * index.dim);
    for (word, slot) in &mut collector.wanted {
        if let Some(&row) = index.rows.get(word.as_str()) {
            *slot = Some(index.row(row));
            collector.n_wanted_found += 1;
        }
    }
    Ok(())
}

/// [`BUNDLED`] read once a process: each word's row and the sum of every row, so that a
/// vocabulary's vectors are looked up rather than the whole table decoded on every read (a
/// loaded model opened to a text's words reads theirs on every call). It holds a map of the
/// 100,000 words into the table, about 4 MB, for the rest of the process.
struct BundledIndex {
    dim: usize,
    rows: HashMap<&'static str, usize>,
    /// The rows, N·D float16.
    values: &'static [u8],
    /// The sum of every row, in table order.
    sum: Vec<f64>,
}

impl BundledIndex {
    fn get() -> Result<&'static BundledIndex, EmbeddingsError> {
        static INDEX: std::sync::OnceLock<Result<BundledIndex, String>> =
            std::sync::OnceLock::new();
        INDEX
            .get_or_init(BundledIndex::read)
            .as_ref()
            .map_err(|message| EmbeddingsError::Bundled(message.clone()))
    }

    fn read() -> Result<BundledIndex, String> {
        let bad = |message: &str| message.to_string();
        let u32_at = |at: usize| -> Result<usize, String> {
            let bytes = BUNDLED
                .get(at..at + 4)
                .ok_or_else(|| bad("truncated header"))?;
            Ok(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize)
        };
        if BUNDLED.get(..8) != Some(b"RLWV0001".as_slice()) {
            return Err(bad("no RLWV0001 magic"));
        }
        let (n_words, dim, list_bytes) = (u32_at(8)?, u32_at(12)?, u32_at(16)?);
        let list = BUNDLED
            .get(20..20 + list_bytes)
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .ok_or_else(|| bad("the word list is truncated or not UTF-8"))?;
        let values = &BUNDLED[20 + list_bytes..];
        if dim == 0 || values.len() != n_words * dim * 2 || list.lines().count() != n_words {
            return Err(bad("its sizes do not add up"));
        }
        let mut index = BundledIndex {
            dim,
            rows: HashMap::with_capacity(n_words),
            values,
            sum: vec![0.0; dim],
        };
        for (row, word) in list.lines().enumerate() {
            index.rows.insert(word, row);
            let vector = index.row(row);
            for (total, value) in index.sum.iter_mut().zip(vector) {
                *total += f64::from(value);
            }
        }
        Ok(index)
    }

    /// The vector of row `row`.
    fn row(&self, row: usize) -> Vec<f32> {
        (self.values[row * self.dim * 2..][..self.dim * 2].chunks_exact(2))
            .map(|bits| half::f16::from_bits(u16::from_le_bytes([bits[0], bits[1]])).to_f32())
            .collect()
    }
}

/// Feeds a GloVe text file to `collector`; returns the file's SHA-256.
fn read_glove_file(
    path: &Path,
    collector: &mut Collector,
    limits: &ReadLimits,
) -> Result<String, EmbeddingsError> {
    let (max_file, max_line) = (limits.of(Limit::Vectors).0, limits.of(Limit::VectorsLine).0);
    let io = |error| EmbeddingsError::Io {
        path: path.to_path_buf(),
        error,
    };
    let file = crate::text::open_regular(path).map_err(io)?;
    let mut reader = BufReader::new(file.take(max_file.saturating_add(1)));
    let mut hasher = Sha256::new();
    let mut bytes = Vec::new();
    let mut vector = Vec::new();
    let mut read = 0u64;
    for line_number in 1.. {
        bytes.clear();
        let n = (&mut reader)
            .take(max_line.saturating_add(1))
            .read_until(b'\n', &mut bytes)
            .map_err(io)?;
        if n == 0 {
            break;
        }
        read += n as u64;
        hasher.update(&bytes);
        let malformed = |column: usize, message: String| EmbeddingsError::Malformed {
            path: path.to_path_buf(),
            line: line_number,
            column,
            message,
        };
        if read > max_file {
            return Err(malformed(1, limits.too_large(Limit::Vectors)));
        }
        if n as u64 > max_line {
            return Err(malformed(1, limits.too_large(Limit::VectorsLine)));
        }
        let Ok(line) = std::str::from_utf8(&bytes) else {
            return Err(malformed(1, "invalid UTF-8".to_string()));
        };
        let line = line.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split(' ');
        let word = fields.next().unwrap_or_default();
        let mut column = word.chars().count() + 2;
        vector.clear();
        for field in fields {
            let value: f32 = field
                .parse()
                .map_err(|_| malformed(column, format!("`{field}` is not a number")))?;
            if !value.is_finite() {
                return Err(malformed(column, format!("`{field}` is not finite")));
            }
            vector.push(value);
            column += field.chars().count() + 1;
        }
        match collector.dim {
            None if vector.is_empty() => {
                return Err(malformed(column, "a word without a vector".to_string()));
            }
            Some(d) if d != vector.len() => {
                return Err(malformed(
                    1,
                    format!("{} values where the first line has {d}", vector.len()),
                ));
            }
            _ => {}
        }
        collector.add(word, || vector.clone(), &vector);
    }
    Ok(hex(&hasher.finalize()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_table_reads_and_backs_off_as_a_file_would() {
        let vocabulary = Vocabulary::new(["the", "can't", "qwxzv"]);
        let vectors =
            read_vectors(VectorSource::Bundled, &vocabulary, &ReadLimits::DEFAULT).unwrap();
        assert_eq!(vectors.dim, 50);
        assert_eq!((vectors.n_found, vectors.n_backed_off), (1, 1));
        assert_eq!(vectors.known, [false, true, true, false]);
        // GloVe's `the` starts 0.418 0.24968 (float16 rounds within 1e-3 here).
        assert!(
            (vectors.data[50] - 0.418).abs() < 1e-3,
            "{}",
            vectors.data[50]
        );
        assert!((vectors.data[51] - 0.24968).abs() < 1e-3);
        // The unknown word is the mean vector, and so is a word without known pieces.
        assert_eq!(vectors.data[..50], vectors.data[150..]);
        assert_eq!(vectors.sha256.len(), 64);
    }
}

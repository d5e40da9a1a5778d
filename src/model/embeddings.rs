//! Word embeddings in the GloVe text format (`word v1 … vD`, one word per line) and the
//! vocabulary of a model.
//!
//! Only the vectors of the vocabulary's words are kept. A word GloVe lacks gets the mean of
//! the vectors of its pieces split at `'` and `-` (GloVe is PTB-tokenized and knows `can`,
//! `'` and `t` but not `can't`), or else the mean of all the file's vectors, which is also
//! the vector of unknown words (index 0), as in the reference code. A malformed line is an error
//! naming the file, line and column; reading never panics.

use std::collections::HashMap;
use std::fmt;
use std::io::{BufRead, BufReader};
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

/// One vector per vocabulary word: [V, D], row-major.
#[derive(Debug, Clone, PartialEq)]
pub struct WordVectors {
    pub dim: usize,
    pub data: Vec<f32>,
    /// How many vocabulary words (the unknown word excluded) had their own vector.
    pub n_found: usize,
    /// How many more got the mean of their pieces' vectors.
    pub n_backed_off: usize,
}

/// Reads the vectors of `vocabulary`'s words (and of their pieces) from a GloVe text file.
pub fn read_glove(path: &Path, vocabulary: &Vocabulary) -> Result<WordVectors, EmbeddingsError> {
    let file = std::fs::File::open(path).map_err(|error| EmbeddingsError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let pieces = |word: &str| -> Vec<String> {
        word.split(['\'', '-'])
            .filter(|piece| !piece.is_empty())
            .map(str::to_string)
            .collect()
    };
    let mut wanted: HashMap<String, Option<Vec<f32>>> = HashMap::new();
    for word in vocabulary.words().iter().skip(1) {
        wanted.insert(word.clone(), None);
        for piece in pieces(word) {
            wanted.insert(piece, None);
        }
    }
    let mut dim = None;
    let mut sum: Vec<f64> = Vec::new();
    let mut n_vectors = 0usize;
    let mut n_wanted_found = 0usize;
    let reader = BufReader::new(file);
    for (line_number, line) in reader.split(b'\n').enumerate() {
        let line = line.map_err(|error| EmbeddingsError::Io {
            path: path.to_path_buf(),
            error,
        })?;
        let malformed = |column: usize, message: String| EmbeddingsError::Malformed {
            path: path.to_path_buf(),
            line: line_number + 1,
            column,
            message,
        };
        let Ok(line) = std::str::from_utf8(&line) else {
            return Err(malformed(1, "invalid UTF-8".to_string()));
        };
        let line = line.trim_end_matches('\r');
        if line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split(' ');
        let word = fields.next().unwrap_or_default();
        let mut column = word.chars().count() + 2;
        let mut vector = Vec::new();
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
        match dim {
            None if vector.is_empty() => {
                return Err(malformed(column, "a word without a vector".to_string()));
            }
            None => dim = Some(vector.len()),
            Some(d) if d != vector.len() => {
                return Err(malformed(
                    1,
                    format!("{} values where the first line has {d}", vector.len()),
                ));
            }
            Some(_) => {}
        }
        if sum.is_empty() {
            sum = vec![0.0; vector.len()];
        }
        for (total, &value) in sum.iter_mut().zip(&vector) {
            *total += f64::from(value);
        }
        n_vectors += 1;
        if let Some(slot) = wanted.get_mut(word) {
            *slot = Some(vector);
            n_wanted_found += 1;
        }
    }
    let Some(dim) = dim.filter(|_| n_wanted_found > 0) else {
        return Err(EmbeddingsError::Empty {
            path: path.to_path_buf(),
        });
    };
    let mean: Vec<f32> = sum
        .iter()
        .map(|&total| (total / n_vectors as f64) as f32)
        .collect();
    let mut data = Vec::with_capacity(vocabulary.len() * dim);
    data.extend_from_slice(&mean);
    let (mut n_found, mut n_backed_off) = (0, 0);
    for word in vocabulary.words().iter().skip(1) {
        if let Some(Some(vector)) = wanted.get(word) {
            data.extend_from_slice(vector);
            n_found += 1;
            continue;
        }
        let known: Vec<&Vec<f32>> = pieces(word)
            .iter()
            .filter_map(|piece| wanted.get(piece).and_then(Option::as_ref))
            .collect();
        if known.is_empty() {
            data.extend_from_slice(&mean);
        } else {
            n_backed_off += 1;
            for d in 0..dim {
                data.push(known.iter().map(|v| v[d]).sum::<f32>() / known.len() as f32);
            }
        }
    }
    Ok(WordVectors {
        dim,
        data,
        n_found,
        n_backed_off,
    })
}

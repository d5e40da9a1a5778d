//! Labeled corpora: TSV (`label<TAB>text`) and JSONL (`{"text": …, "label": …}`) readers.
//!
//! Reading never fails on content: a malformed line (bad JSON, invalid UTF-8, missing text)
//! becomes a diagnostic with its position and the rest of the file still loads. Only I/O
//! failures are errors. [`read_file`] and [`check_bindings`] are the only functions here
//! that touch the file system; corpus paths resolve against the rules file's folder, never
//! the current directory.

mod jsonl;
mod tsv;

use crate::diagnostic::{Code, Diagnostic};
use crate::limits::{Limit, ReadLimits};
use crate::syntax::RuleSet;
use crate::text::SourceText;
use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use text_size::TextRange;

/// A corpus file format, chosen by extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Tsv,
    Jsonl,
}

impl Format {
    /// `.tsv` or `.jsonl`, in any case (`dev.TSV`); anything else is `None`.
    pub fn from_path(path: &Path) -> Option<Format> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "tsv" => Some(Format::Tsv),
            "jsonl" => Some(Format::Jsonl),
            _ => None,
        }
    }
}

/// One line of a corpus.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Example {
    pub text: String,
    /// The gold label, `None` for unlabeled text.
    pub label: Option<String>,
    /// Zero-based line in the file.
    pub line: u32,
    /// Where `text` stands verbatim in the file (not for a JSON string with escapes).
    pub text_range: Option<TextRange>,
    /// Where the label stands in the file.
    pub label_range: Option<TextRange>,
}

/// Parses corpus text. Lines touching an `invalid_utf8` range (from [`SourceText`]) are
/// reported and skipped. TSV lines that look labeled but are read as unlabeled (a label and a
/// space, not a tab; a tab with nothing before it) get a warning, W0407.
///
/// ```
/// use rulelens::corpus::{parse, Format};
/// let (examples, diagnostics) = parse("spam\tWIN cash\nno label here\n", Format::Tsv, &[]);
/// assert_eq!(examples[0].label.as_deref(), Some("spam"));
/// assert_eq!(examples[1].label, None);
/// assert!(diagnostics.is_empty());
/// let (examples, diagnostics) = parse("spam\tWIN cash\nspam FREE prize\n", Format::Tsv, &[]);
/// assert_eq!(examples[1].label, None);
/// assert_eq!(diagnostics[0].code.as_str(), "W0407");
/// ```
pub fn parse(
    text: &str,
    format: Format,
    invalid_utf8: &[TextRange],
) -> (Vec<Example>, Vec<Diagnostic>) {
    let mut examples = Vec::new();
    // Each example's line, as it is in the file.
    let mut lines = Vec::new();
    let mut diagnostics = Vec::new();
    let mut invalid = invalid_utf8.iter().peekable();
    let mut start = 0usize;
    for (line_number, raw_line) in text.split('\n').enumerate() {
        let line_start = start;
        start += raw_line.len() + 1;
        let line = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        // A byte-order mark at the start of the file is not part of the first label.
        let (line, line_start) = match line.strip_prefix('\u{feff}') {
            Some(rest) if line_start == 0 => (rest, '\u{feff}'.len_utf8()),
            _ => (line, line_start),
        };
        let line_range = TextRange::at((line_start as u32).into(), (line.len() as u32).into());
        let mut spoiled = None;
        while let Some(range) = invalid.next_if(|r| usize::from(r.start()) < start) {
            spoiled.get_or_insert(*range);
        }
        if let Some(range) = spoiled {
            diagnostics.push(
                Diagnostic::new(
                    Code::InvalidUtf8,
                    range,
                    "invalid UTF-8; this line is skipped",
                )
                .with_help("save the file as UTF-8"),
            );
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let line_number = line_number as u32;
        let parsed = match format {
            Format::Tsv => Ok(tsv::parse_line(line, line_range, line_number)),
            Format::Jsonl => jsonl::parse_line(line, line_range, line_number),
        };
        match parsed {
            Ok(example) => {
                examples.push(example);
                lines.push(line);
            }
            Err(diagnostic) => diagnostics.push(diagnostic),
        }
    }
    if format == Format::Tsv {
        diagnostics.extend(tsv::unlabeled_by_mistake(&examples, &lines));
    }
    (examples, diagnostics)
}

/// A corpus file as read from disk.
#[derive(Debug, Clone)]
pub struct CorpusFile {
    pub path: PathBuf,
    pub format: Format,
    pub source: SourceText,
    pub examples: Vec<Example>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Why a corpus file could not be read at all.
#[derive(Debug)]
pub enum ReadError {
    Io {
        path: PathBuf,
        error: std::io::Error,
    },
    UnsupportedFormat {
        path: PathBuf,
    },
    /// Larger than the limit; the message names it and the option that raises it.
    TooLarge {
        path: PathBuf,
        message: String,
    },
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { path, error } => write!(f, "cannot read {}: {error}", path.display()),
            ReadError::UnsupportedFormat { path } => write!(
                f,
                "{}: unsupported corpus format (use a .tsv or .jsonl file)",
                path.display()
            ),
            ReadError::TooLarge { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads and parses a corpus file of at most `limits.max_corpus_bytes`; the format comes
/// from the extension.
pub fn read_file(path: &Path, limits: &ReadLimits) -> Result<CorpusFile, ReadError> {
    let io_error = |error| ReadError::Io {
        path: path.to_path_buf(),
        error,
    };
    // A missing file or a folder is said as such, whatever its name.
    if path.metadata().map_err(io_error)?.is_dir() {
        return Err(io_error(std::io::Error::new(
            std::io::ErrorKind::IsADirectory,
            "a folder, not a corpus file",
        )));
    }
    let format = Format::from_path(path).ok_or_else(|| ReadError::UnsupportedFormat {
        path: path.to_path_buf(),
    })?;
    let bytes = match limits.read(Limit::Corpus, path) {
        Ok(bytes) => bytes,
        Err(error) if error.kind() == std::io::ErrorKind::FileTooLarge => {
            return Err(ReadError::TooLarge {
                path: path.to_path_buf(),
                message: error.to_string(),
            });
        }
        Err(error) => return Err(io_error(error)),
    };
    Ok(CorpusFile::parse(
        path.to_path_buf(),
        format,
        SourceText::from_bytes(&bytes),
    ))
}

impl CorpusFile {
    /// Parses a corpus text already in memory (an editor's buffer, say).
    pub fn parse(path: PathBuf, format: Format, source: SourceText) -> CorpusFile {
        let (examples, diagnostics) = parse(&source.text, format, &source.invalid_utf8);
        CorpusFile {
            path,
            format,
            source,
            examples,
            diagnostics,
        }
    }
}

/// Where a corpus binding points: its path joined to the rules file's folder.
pub fn resolve_binding(rules_path: &Path, binding_path: &str) -> PathBuf {
    rules_path
        .parent()
        .unwrap_or_else(|| Path::new(""))
        .join(binding_path)
}

/// Checks that every `corpus` binding of a rules file names an existing file of a known
/// format. Diagnostics point into the rules file.
pub fn check_bindings(rules_path: &Path, rules: &RuleSet) -> Vec<Diagnostic> {
    let mut diagnostics = Vec::new();
    for binding in &rules.corpora {
        let path = resolve_binding(rules_path, &binding.path);
        if Format::from_path(&path).is_none() {
            diagnostics.push(
                Diagnostic::new(
                    Code::UnsupportedCorpusFormat,
                    binding.path_range,
                    format!("`{}` is not a .tsv or .jsonl file", binding.path),
                )
                .with_help("corpus files are `label<TAB>text` (.tsv) or JSON lines (.jsonl)"),
            );
        } else if let Err(error) = crate::text::open_regular(&path) {
            let why = match error.kind() {
                std::io::ErrorKind::NotFound => "does not exist".to_string(),
                std::io::ErrorKind::InvalidInput => format!("is {error}"),
                _ => format!("cannot be read: {error}"),
            };
            diagnostics.push(
                Diagnostic::new(
                    Code::CorpusNotFound,
                    binding.path_range,
                    format!("corpus file `{}` {why}", path.display()),
                )
                .with_help("corpus paths are relative to the folder of the rules file"),
            );
        }
    }
    diagnostics
}

/// Reports each gold label that `is_known` rejects, once, at its first occurrence, with how
/// many examples carry it.
pub fn check_labels(examples: &[Example], is_known: impl Fn(&str) -> bool) -> Vec<Diagnostic> {
    let mut unknown: Vec<(&str, TextRange, usize)> = Vec::new();
    let mut position: HashMap<&str, usize> = HashMap::new();
    for example in examples {
        let Some(label) = example.label.as_deref() else {
            continue;
        };
        if let Some(&i) = position.get(label) {
            unknown[i].2 += 1;
        } else if !is_known(label) {
            position.insert(label, unknown.len());
            unknown.push((label, example.label_range.unwrap_or_default(), 1));
        }
    }
    unknown
        .into_iter()
        .map(|(label, range, count)| {
            Diagnostic::new(
                Code::UnknownLabel,
                range,
                format!(
                    "label `{label}` ({count} example{}) has no rule and is not the default: the rules can never predict it",
                    if count == 1 { "" } else { "s" }
                ),
            )
            .with_help(format!("add a rule such as `{label}: $* WORD $*`, or fix the label"))
        })
        .collect()
}

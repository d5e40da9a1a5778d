//! The corpora a rules file binds, by name, and their texts: an open editor buffer's when
//! there is one, else the file on disk. The save job and rename read corpora the same way,
//! through [`read_corpus`].

use crate::corpus::{self, CorpusFile, Format, ReadError};
use crate::limits::ReadLimits;
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// One corpus a rules file binds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// `train`, `dev`, …
    pub name: String,
    pub path: PathBuf,
}

/// The corpora the rules at `key` bind: their own `corpus` lines (when the rules are a file
/// on disk, whose folder the paths resolve against), then `extra` (the server's `corpora`
/// setting for this file) for names the file does not bind.
pub fn bindings(
    rules: &RulesFile,
    key: &Path,
    on_disk: bool,
    extra: Option<&BTreeMap<String, PathBuf>>,
) -> Vec<Binding> {
    let mut bound: Vec<Binding> = if on_disk {
        rules
            .rules
            .corpora
            .iter()
            .map(|b| Binding {
                name: b.name.clone(),
                path: corpus::resolve_binding(key, &b.path),
            })
            .collect()
    } else {
        Vec::new()
    };
    for (name, path) in extra.into_iter().flatten() {
        if !bound.iter().any(|b| &b.name == name) {
            bound.push(Binding {
                name: name.clone(),
                path: path.clone(),
            });
        }
    }
    bound
}

/// A corpus open in the editor, with its current text.
#[derive(Debug, Clone)]
pub struct OpenCorpus {
    pub path: PathBuf,
    pub format: Format,
    pub text: Arc<String>,
}

/// Where a corpus's text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorpusOrigin {
    /// An open editor buffer (unsaved changes included).
    Buffer,
    Disk,
}

/// The corpus at `path`: the open buffer's text when one of `open` is that file, else the
/// file on disk.
pub fn read_corpus(
    path: &Path,
    open: &[OpenCorpus],
    limits: &ReadLimits,
) -> Result<(CorpusFile, CorpusOrigin), ReadError> {
    match open.iter().find(|o| same_file(&o.path, path)) {
        Some(buffer) => Ok((
            CorpusFile::parse(
                path.to_path_buf(),
                buffer.format,
                SourceText {
                    text: buffer.text.to_string(),
                    invalid_utf8: Vec::new(),
                },
            ),
            CorpusOrigin::Buffer,
        )),
        None => corpus::read_file(path, limits).map(|file| (file, CorpusOrigin::Disk)),
    }
}

/// Whether two paths name the same file (as written, or once canonicalized).
pub fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || match (a.canonicalize(), b.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
}

/// The first rules file (by name) in `corpus`'s folder or its parent whose `corpus`
/// bindings name `corpus`, analyzed: how the server finds the rules of a corpus opened
/// before them.
pub fn find_rules_binding(corpus: &Path, limits: &ReadLimits) -> Option<(PathBuf, RulesFile)> {
    let folder = corpus.parent()?;
    for dir in [Some(folder), folder.parent()].into_iter().flatten() {
        let Ok(entries) = std::fs::read_dir(dir) else {
            continue;
        };
        let mut candidates: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "rules"))
            .collect();
        candidates.sort();
        for path in candidates {
            let Ok(rules) = RulesFile::read(&path, &Default::default(), limits) else {
                continue;
            };
            let binds =
                rules.rules.corpora.iter().any(|binding| {
                    same_file(&corpus::resolve_binding(&path, &binding.path), corpus)
                });
            if binds {
                return Some((path, rules));
            }
        }
    }
    None
}

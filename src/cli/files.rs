//! Reading a rules file and the sentences to label, and printing diagnostics rustc-style or
//! as JSON.

use anyhow::{Context, bail};
use rulelens::automata::CompileConfig;
use rulelens::corpus;
use rulelens::diagnostic::{Diagnostic, render};
use rulelens::limits::{Limit, ReadLimits};
use rulelens::model::LoadedModel;
use rulelens::rules_file::RulesFile;
use rulelens::text::{LineIndex, SourceText};
use serde_json::{Value, json};
use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};

/// A file's path, text and line index: what rendering a diagnostic needs.
pub struct Shown<'a> {
    pub path: &'a Path,
    pub text: &'a str,
    pub index: &'a LineIndex,
}

impl Shown<'_> {
    pub fn of_rules(file: &RulesFile) -> Shown<'_> {
        Shown {
            path: file.path.as_deref().unwrap_or(Path::new("-")),
            text: &file.source.text,
            index: &file.line_index,
        }
    }
}

/// The `--max-dfa-states` flag of the commands that compile a rules file's automata.
#[derive(clap::Args, Clone, Copy)]
pub struct AutomataLimits {
    /// Most DFA states one pattern may need before it is reported and ignored (at most
    /// 1,000,000).
    #[arg(long, value_name = "N", default_value_t = rulelens::automata::DEFAULT_MAX_DFA_STATES as u32,
          value_parser = clap::value_parser!(u32).range(1..=rulelens::automata::MAX_DFA_STATES_CEILING as i64))]
    max_dfa_states: u32,
}

impl AutomataLimits {
    /// The compile configuration with this limit.
    pub fn config(self) -> CompileConfig {
        CompileConfig {
            max_dfa_states: self.max_dfa_states as usize,
            ..Default::default()
        }
    }
}

/// Reads and analyzes a rules file, with the path in the error.
pub fn load_rules(
    path: &Path,
    config: &CompileConfig,
    limits: &ReadLimits,
) -> anyhow::Result<RulesFile> {
    RulesFile::read(path, config, limits).with_context(|| format!("cannot read {}", path.display()))
}

/// The path of the corpus bound as `name`, or the one given.
pub fn corpus_path(
    loaded: &rulelens::rules_file::RulesFile,
    given: Option<&Path>,
    name: &str,
) -> anyhow::Result<PathBuf> {
    if let Some(path) = given {
        return Ok(path.to_path_buf());
    }
    let rules_path = loaded.path.as_deref().unwrap_or(Path::new(""));
    match loaded
        .rules
        .corpora
        .iter()
        .find(|binding| binding.name == name)
    {
        Some(binding) => Ok(corpus::resolve_binding(rules_path, &binding.path)),
        None => bail!(
            "no {name} corpus: bind one in {} (`corpus {name} \"{name}.tsv\"`) or pass --{name} FILE",
            rules_path.display()
        ),
    }
}

/// The corpus bound as `name` in the rules `model` was trained from, or the one given
/// (`--flag FILE`). A binding resolves against the rules file's path on the machine that
/// trained it, which a checkpoint moved or copied elsewhere may not have: then the error
/// says so and names the flag, rather than only that a file does not exist.
pub fn checkpoint_corpus_path(
    model: &LoadedModel,
    given: Option<&Path>,
    name: &str,
    flag: &str,
) -> anyhow::Result<PathBuf> {
    if let Some(path) = given {
        return Ok(path.to_path_buf());
    }
    let trained_from = &model.manifest.rules.path;
    let Some(binding) = model
        .rules
        .rules
        .corpora
        .iter()
        .find(|binding| binding.name == name)
    else {
        bail!(
            "the rules the checkpoint was trained from bind no `corpus {name}`: pass --{flag} FILE"
        );
    };
    let path = corpus::resolve_binding(trained_from, &binding.path);
    if !path.exists() {
        bail!(
            "the rules the checkpoint was trained from ({}) bind `corpus {name}` to {}, which is not there (a checkpoint moved or copied from elsewhere?): pass --{flag} FILE",
            trained_from.display(),
            path.display()
        );
    }
    Ok(path)
}

/// Reads a corpus file, printing its diagnostics.
pub fn read_corpus(path: &Path, limits: &ReadLimits) -> anyhow::Result<corpus::CorpusFile> {
    let file = corpus::read_file(path, limits)?;
    if !file.diagnostics.is_empty() {
        let index = rulelens::text::LineIndex::new(&file.source.text);
        let shown = Shown {
            path,
            text: &file.source.text,
            index: &index,
        };
        print_diagnostics(&shown, &file.diagnostics);
    }
    Ok(file)
}

/// Whether to color what goes to stderr.
pub fn stderr_color() -> bool {
    std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// How many diagnostics of one file the text output prints.
const MAX_PRINTED: usize = 100;

/// Prints diagnostics rustc-style on stderr, at most [`MAX_PRINTED`] per file.
pub fn print_diagnostics(file: &Shown, diagnostics: &[Diagnostic]) {
    let color = stderr_color();
    let path = file.path.display().to_string();
    for diagnostic in diagnostics.iter().take(MAX_PRINTED) {
        eprintln!(
            "{}",
            render(diagnostic, &path, file.text, file.index, color)
        );
    }
    if diagnostics.len() > MAX_PRINTED {
        eprintln!(
            "note: {} more diagnostics in {} not shown (use --format json to see all)\n",
            diagnostics.len() - MAX_PRINTED,
            path
        );
    }
}

/// One diagnostic as JSON, with 1-based lines and char columns and byte offsets.
pub fn diagnostic_json(file: &Shown, diagnostic: &Diagnostic) -> Value {
    let text = file.text;
    let position = |offset| {
        let at = file.index.to_chars(text, offset);
        json!({ "line": at.line + 1, "column": at.col + 1 })
    };
    let start = file.index.to_chars(text, diagnostic.range.start());
    let end = file.index.to_chars(text, diagnostic.range.end());
    json!({
        "file": file.path.display().to_string(),
        "code": diagnostic.code.as_str(),
        "name": diagnostic.code.name(),
        "severity": diagnostic.severity.as_str(),
        "message": diagnostic.message,
        "help": diagnostic.help,
        "line": start.line + 1,
        "column": start.col + 1,
        "end_line": end.line + 1,
        "end_column": end.col + 1,
        "start": u32::from(diagnostic.range.start()),
        "end": u32::from(diagnostic.range.end()),
        "related": diagnostic.related.iter().map(|related| {
            let mut value = position(related.range.start());
            value["message"] = json!(related.message);
            value
        }).collect::<Vec<_>>(),
    })
}

/// "2 errors, 1 warning" for a summary line; `None` when there is nothing to say.
pub fn summary(diagnostics: &[&Diagnostic]) -> Option<String> {
    let errors = diagnostics.iter().filter(|d| d.is_error()).count();
    let others = diagnostics.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    match (errors, others) {
        (0, 0) => None,
        (0, w) => Some(plural(w, "warning")),
        (e, 0) => Some(plural(e, "error")),
        (e, w) => Some(format!("{}, {}", plural(e, "error"), plural(w, "warning"))),
    }
}

/// The sentences to label or classify: the arguments, or every line of standard input (empty lines
/// included, so that output line i belongs to input line i), read as a corpus is: at most
/// `limits`' corpus bytes.
pub fn sentences(texts: Vec<String>, limits: &ReadLimits) -> anyhow::Result<Vec<String>> {
    if !texts.is_empty() {
        return Ok(texts);
    }
    let limit = limits.of(Limit::Corpus).0;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .context("cannot read standard input")?;
    if bytes.len() as u64 > limit {
        bail!("standard input is {}", limits.too_large(Limit::Corpus));
    }
    let source = SourceText::from_bytes(&bytes);
    Ok(source.text.lines().map(str::to_string).collect())
}

/// The corpora a command reads, each with its name: `corpus_paths` named by their stems, or,
/// when none is given, the rules file's bindings (by their names) whose files exist in a
/// corpus format (`rulelens check`, `rulelens report`).
pub fn corpus_targets(
    loaded: &RulesFile,
    rules_path: &Path,
    corpus_paths: &[PathBuf],
) -> Vec<(String, PathBuf)> {
    if corpus_paths.is_empty() {
        loaded
            .rules
            .corpora
            .iter()
            .map(|binding| {
                let path = corpus::resolve_binding(rules_path, &binding.path);
                (binding.name.clone(), path)
            })
            .filter(|(_, path)| corpus::Format::from_path(path).is_some() && path.is_file())
            .collect()
    } else {
        corpus_paths
            .iter()
            .map(|path| {
                let name = path.file_stem().map_or_else(
                    || path.display().to_string(),
                    |s| s.to_string_lossy().into(),
                );
                (name, path.clone())
            })
            .collect()
    }
}

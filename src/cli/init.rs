//! `rulelens init CORPUS [--dev F] [--out RULES] [--suggest]`: a rules file to start from,
//! made from a labeled corpus (`suggest::scaffold::scaffold`), with the corpus paths bound
//! relative to where the file goes; with `--suggest`, the suggestion engine's edits applied
//! (as `rulelens suggest --write` would). Standard output without `--out`; an existing file
//! is never overwritten.

use super::files::read_corpus;
use crate::cli::out_data;
use rulelens::automata::CompileConfig;
use rulelens::limits::ReadLimits;
use rulelens::model::VectorSource;
use rulelens::rules_file::RulesFile;
use rulelens::suggest::lines::Lines;
use rulelens::suggest::scaffold::scaffold;
use rulelens::suggest::{Corpora, RefineConfig, SuggestConfig, WordNeighbours, refine};
use rulelens::text::SourceText;
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

/// `rulelens init`'s arguments.
#[derive(clap::Args)]
pub struct InitArgs {
    /// The training corpus (.tsv or .jsonl).
    corpus: PathBuf,
    /// A dev corpus to bind too (needed by `--suggest`).
    #[arg(long, value_name = "FILE")]
    dev: Option<PathBuf>,
    /// Write the rules here (never over an existing file); default: standard output.
    #[arg(long, value_name = "RULES")]
    out: Option<PathBuf>,
    /// Apply the suggestion engine's edits (rules induced from the corpus, validated on
    /// --dev), as `rulelens suggest --write` would.
    #[arg(long)]
    suggest: bool,
}

pub fn run(args: InitArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let (train_path, dev_path, out) = (
        args.corpus.as_path(),
        args.dev.as_deref(),
        args.out.as_deref(),
    );
    if let Some(out) = out
        && out.exists()
    {
        eprintln!(
            "error: --out {}: the file exists; init never overwrites",
            out.display()
        );
        return Ok(ExitCode::from(2));
    }
    if args.suggest && dev_path.is_none() {
        eprintln!("error: --suggest validates its edits on a dev corpus: pass --dev FILE");
        return Ok(ExitCode::from(2));
    }
    let train = read_corpus(train_path, read_limits)?;
    let dev = dev_path
        .map(|dev| read_corpus(dev, read_limits))
        .transpose()?;
    // A line in error (its diagnostics are printed above) would be left out without a word.
    for (path, corpus) in std::iter::once((train_path, &train)).chain(dev_path.zip(dev.as_ref())) {
        let errors = corpus.diagnostics.iter().filter(|d| d.is_error()).count();
        if errors > 0 {
            eprintln!(
                "error: {}: {errors} line{} in error; nothing written",
                path.display(),
                if errors == 1 { "" } else { "s" }
            );
            return Ok(ExitCode::from(1));
        }
    }
    // Where the file goes: its corpus bindings are relative to that folder.
    let folder = match out.and_then(Path::parent) {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let bound = |corpus: &Path| relative_to(corpus, &folder);
    let dev_binding = dev_path.map(bound).transpose()?;
    let text = match scaffold(&train.examples, &bound(train_path)?, dev_binding.as_deref()) {
        Ok(text) => text,
        Err(message) => anyhow::bail!("{}: {message}", train_path.display()),
    };
    let text = match (&dev, args.suggest) {
        (Some(dev), true) => {
            let anchor = folder.join("rules.rules");
            let file = RulesFile::analyze(
                SourceText::from_bytes(text.as_bytes()),
                Some(&anchor),
                &CompileConfig::default(),
            );
            let words = Lines::new(&train.examples).vocabulary;
            let vectors = WordNeighbours::read(
                words.iter().map(|(word, _)| word.as_str()),
                VectorSource::of(None),
                read_limits,
            )?;
            let corpora = Corpora {
                train: &train.examples,
                dev: &dev.examples,
                vectors: Some(&vectors),
            };
            let config = SuggestConfig::default();
            let refined = refine(&file, &corpora, &[], &[], &config, &RefineConfig::default());
            eprintln!(
                "{} rule edit{} suggested",
                refined.applied.len(),
                if refined.applied.len() == 1 { "" } else { "s" }
            );
            refined.text
        }
        _ => text,
    };
    match out {
        Some(out) => {
            std::fs::write(out, &text)
                .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", out.display()))?;
            eprintln!(
                "{}: written; next: rulelens check {}",
                out.display(),
                out.display()
            );
        }
        None => out_data!("{text}")?,
    }
    Ok(ExitCode::SUCCESS)
}

/// `path` relative to `folder`, with `/` separators: both made absolute, their common start
/// dropped, `..` for each folder left to climb.
fn relative_to(path: &Path, folder: &Path) -> anyhow::Result<String> {
    let absolute = |p: &Path| {
        std::path::absolute(p).map_err(|error| anyhow::anyhow!("{}: {error}", p.display()))
    };
    let (path, folder) = (absolute(path)?, absolute(folder)?);
    let normal = |p: &Path| -> Vec<String> {
        let mut parts: Vec<String> = Vec::new();
        for component in p.components() {
            match component {
                Component::ParentDir => {
                    parts.pop();
                }
                Component::CurDir => {}
                other => parts.push(other.as_os_str().to_string_lossy().into_owned()),
            }
        }
        parts
    };
    let (path, folder) = (normal(&path), normal(&folder));
    let common = path.iter().zip(&folder).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_string(); folder.len() - common];
    parts.extend(path[common..].iter().cloned());
    Ok(parts.join("/"))
}

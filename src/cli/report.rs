//! `rulelens report RULES [-o FILE] [--corpus FILE]... [--no-suggest]`: the rules file's
//! figures, pictures, misclassified lines and suggestions as one self-contained HTML page
//! (`rulelens::report`), written to `FILE` (default `report.html`; `-` for standard
//! output).
//!
//! The suggestions are measured here, as `rulelens suggest` measures them (about 2 s on the
//! bundled SMS and TREC rules), unless `--no-suggest` leaves them out; the rest costs about
//! what `rulelens check` costs.

use super::files::{Shown, corpus_targets, load_rules, print_diagnostics};
use super::suggest::train_vectors;
use rulelens::automata::CompileConfig;
use rulelens::corpus;
use rulelens::limits::ReadLimits;
use rulelens::report::{NamedCorpus, ReportInputs, gather, render};
use rulelens::suggest::{Corpora, SuggestConfig, suggest};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `-o` names for standard output.
pub const STDOUT: &str = "-";

pub struct ReportArgs<'a> {
    pub rules_path: &'a Path,
    pub corpora: &'a [PathBuf],
    /// The page's file, or [`STDOUT`].
    pub out: &'a Path,
    pub suggest: bool,
    pub max_misclassified: usize,
    pub model_cache: PathBuf,
    pub bench_cache: PathBuf,
    pub read_limits: &'a ReadLimits,
}

/// Why `-o` cannot be written, said before any work: a folder, or a file in a folder that
/// does not exist.
pub fn check_out(out: &Path) -> Result<(), String> {
    if out == Path::new(STDOUT) {
        return Ok(());
    }
    if out.is_dir() {
        return Err(format!(
            "-o {}: is a folder; name the HTML file to write",
            out.display()
        ));
    }
    match out.parent() {
        Some(parent) if !parent.as_os_str().is_empty() && !parent.is_dir() => Err(format!(
            "-o {}: no folder {}",
            out.display(),
            parent.display()
        )),
        _ => Ok(()),
    }
}

pub fn run(args: ReportArgs<'_>) -> anyhow::Result<ExitCode> {
    let ReportArgs {
        rules_path,
        read_limits,
        ..
    } = args;
    let loaded = load_rules(rules_path, &CompileConfig::default(), read_limits)?;
    if loaded.has_errors() {
        print_diagnostics(&Shown::of_rules(&loaded), &loaded.diagnostics);
        eprintln!(
            "error: {} has errors; fix them before making a report",
            rules_path.display()
        );
        return Ok(ExitCode::from(1));
    }
    let mut corpora = Vec::new();
    for (name, path) in corpus_targets(&loaded, rules_path, args.corpora) {
        let file =
            corpus::read_file(&path, read_limits).map_err(|error| anyhow::anyhow!("{error}"))?;
        let shown = Shown {
            path: &file.path,
            text: &file.source.text,
            index: &rulelens::text::LineIndex::new(&file.source.text),
        };
        print_diagnostics(&shown, &file.diagnostics);
        corpora.push(NamedCorpus { name, file });
    }
    let bound = |name: &str| corpora.iter().find(|c| c.name == name);
    let suggestions = match (args.suggest, bound("train"), bound("dev")) {
        (true, Some(train), Some(dev)) => {
            let vectors = train_vectors(&train.file.examples, None, read_limits)?;
            let corpora = Corpora {
                train: &train.file.examples,
                dev: &dev.file.examples,
                vectors: Some(&vectors),
            };
            suggest(
                &loaded,
                &corpora,
                &[],
                &[],
                &SuggestConfig::default(),
                &|| false,
            )
        }
        _ => None,
    };
    let report = gather(ReportInputs {
        rules: &loaded,
        corpora: &corpora,
        model_cache: &args.model_cache,
        bench_cache: &args.bench_cache,
        suggestions,
        max_misclassified: args.max_misclassified,
        limits: read_limits,
    });
    let page = render(&report)?;
    if args.out == Path::new(STDOUT) {
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(page.as_bytes())?;
        stdout.flush()?;
    } else {
        std::fs::write(args.out, page)
            .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", args.out.display()))?;
        eprintln!("{}: wrote the report", args.out.display());
    }
    Ok(ExitCode::SUCCESS)
}

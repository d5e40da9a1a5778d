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

/// `rulelens report`'s arguments.
#[derive(clap::Args)]
pub struct ReportArgs {
    /// The `.rules` file.
    rules: PathBuf,
    /// The HTML file to write; `-` for standard output.
    #[arg(
        short = 'o',
        long = "out",
        value_name = "FILE",
        default_value = "report.html"
    )]
    out: PathBuf,
    /// A labeled corpus (.tsv or .jsonl); repeat for several. Default: the rules
    /// file's own `corpus` bindings.
    #[arg(long = "corpus", value_name = "FILE")]
    corpora: Vec<PathBuf>,
    /// Leave the suggestions out (measuring them takes about as long as `rulelens
    /// suggest`: 2 s on the bundled SMS and TREC rules).
    #[arg(long)]
    no_suggest: bool,
    /// How many misclassified lines of each corpus the page lists.
    #[arg(long, value_name = "N", default_value_t = rulelens::report::DEFAULT_MAX_MISCLASSIFIED)]
    max_misclassified: usize,
    /// The checkpoint cache whose networks' training curves are drawn; default: the
    /// language server's, $XDG_CACHE_HOME/rulelens/models (~/.cache/rulelens/models).
    #[arg(long, value_name = "DIR")]
    model_cache: Option<PathBuf>,
    /// The bench's result cache (`rulelens bench --cache`); default:
    /// $XDG_CACHE_HOME/rulelens/bench (~/.cache/rulelens/bench).
    #[arg(long, value_name = "DIR")]
    bench_cache: Option<PathBuf>,
}

/// Why `-o` cannot be written, said before any work: a folder, or a file in a folder that
/// does not exist.
fn check_out(out: &Path) -> Result<(), String> {
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

pub fn run(args: ReportArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    // `-o` first, before any work: a folder, or a file in no folder, is a usage error.
    if let Err(message) = check_out(&args.out) {
        eprintln!("error: {message}");
        return Ok(ExitCode::from(2));
    }
    let rules_path = args.rules.as_path();
    let model_cache = args
        .model_cache
        .clone()
        .unwrap_or_else(rulelens::project::default_cache_root);
    let bench_cache = args
        .bench_cache
        .clone()
        .unwrap_or_else(rulelens::project::default_bench_root);
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
    for (name, path) in corpus_targets(&loaded, rules_path, &args.corpora) {
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
    let suggestions = match (!args.no_suggest, bound("train"), bound("dev")) {
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
        model_cache: &model_cache,
        bench_cache: &bench_cache,
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
        std::fs::write(&args.out, page)
            .map_err(|error| anyhow::anyhow!("cannot write {}: {error}", args.out.display()))?;
        eprintln!("{}: wrote the report", args.out.display());
    }
    Ok(ExitCode::SUCCESS)
}

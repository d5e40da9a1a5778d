//! `rulelens suggest RULES [--model MODEL_DIR] [--embeddings F] [--max-edits N]
//! [--fallback-precision P] [--format text|json|rules]`:
//! edits of the rules learned from the rules file's `train` corpus (and read back from a
//! network trained from it: an FA-RNN's rewrites of the rules, a SoPa's learned patterns as
//! new rules) and validated on its `dev` corpus, each with its evidence;
//! `--format rules` prints the rules with them applied greedily (each only when it raises
//! dev accuracy).

use super::files::{Shown, corpus_path, load_rules, print_diagnostics, read_corpus};
use super::output::RulesFormat;
use super::table::{Table, percent};
use crate::cli::{out, out_data, outln};
use candle_core::Device;
use rulelens::automata::CompileConfig;
use rulelens::corpus::{CorpusFile, Example};
use rulelens::limits::ReadLimits;
use rulelens::model::{LoadedModel, VectorSource, WeightedAutomaton, load_model_for};
use rulelens::rules_file::RulesFile;
use rulelens::suggest::lines::Lines;
use rulelens::suggest::reconstruct::read_back;
use rulelens::suggest::{
    Corpora, LearnedRule, ReadBack, RefineConfig, SuggestConfig, Suggestion, WordNeighbours,
    label_unlabeled, refine, suggest,
};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What `rulelens suggest` prints, or does.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// The suggestions (`text`, `json`) or the refined rules (`rules`).
    Format(RulesFormat),
    /// The refined rules as a unified diff of the rules file.
    Diff,
    /// The refined rules written over the rules file.
    Write,
}

/// What labels train lines without a gold label, for the messages that leave them out.
const LABELS_THEM: &str =
    "--model DIR, a network trained from these rules (rulelens train), labels them";

/// `rulelens suggest`'s arguments.
#[derive(clap::Args)]
pub struct SuggestArgs {
    /// The `.rules` file; its `corpus train` and `corpus dev` bindings are read.
    rules: PathBuf,
    /// `text` and `json` list the suggestions, each measured alone; `rules` prints the
    /// rules file with suggestions applied one at a time, each only when it raises dev
    /// accuracy.
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    format: RulesFormat,
    /// Print the edits that raise dev accuracy, applied one at a time with their
    /// provenance comments, as a unified diff of the rules file.
    #[arg(long, conflicts_with_all = ["format", "write"])]
    diff: bool,
    /// Apply the edits that raise dev accuracy to the rules file in place, each with
    /// a provenance comment (what it is, the train lines it fixes and breaks, dev
    /// accuracy before and after).
    #[arg(long, conflicts_with = "format")]
    write: bool,
    /// Training corpus; default: the rules file's `corpus train` binding.
    #[arg(long, value_name = "FILE")]
    train: Option<PathBuf>,
    /// Dev corpus the edits are validated on; default: the `corpus dev` binding.
    #[arg(long, value_name = "FILE")]
    dev: Option<PathBuf>,
    /// A checkpoint of a network trained from this very rules file (`rulelens train`):
    /// its rules read back as regexes become suggestions too, and the train lines without
    /// a gold label take its labels.
    #[arg(long, value_name = "MODEL_DIR")]
    model: Option<PathBuf>,
    /// Word vectors in the GloVe text format: a word that fixes a single train line
    /// joins an induced word set when its vector is near the set's. Default: the GloVe
    /// 6B 50d vectors of the 100,000 most frequent words compiled into rulelens.
    #[arg(long, value_name = "F")]
    embeddings: Option<PathBuf>,
    #[command(flatten)]
    config: SuggestConfig,
    #[command(flatten)]
    refining: RefineConfig,
}

pub fn run(args: SuggestArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    // The flags first, before any work: a bad value is a usage error.
    if let Err(message) = args
        .config
        .check()
        .and_then(|()| args.refining.check(&args.config))
    {
        eprintln!("error: {message}");
        return Ok(ExitCode::from(2));
    }
    let output = match (args.diff, args.write) {
        (true, _) => Output::Diff,
        (_, true) => Output::Write,
        _ => Output::Format(args.format),
    };
    let (rules_path, model_dir, embeddings) = (
        args.rules.as_path(),
        args.model.as_deref(),
        args.embeddings.as_deref(),
    );
    let (config, refining) = (&args.config, &args.refining);
    let loaded = load_rules(rules_path, &CompileConfig::default(), read_limits)?;
    if loaded.has_errors() {
        print_diagnostics(&Shown::of_rules(&loaded), &loaded.diagnostics);
        anyhow::bail!("{} has errors; fix them first", rules_path.display());
    }
    let mut train = read_corpus(
        &corpus_path(&loaded, args.train.as_deref(), "train")?,
        read_limits,
    )?;
    let dev = read_corpus(
        &corpus_path(&loaded, args.dev.as_deref(), "dev")?,
        read_limits,
    )?;
    // The network and the folder it came from.
    let model = model_dir
        .map(|model_dir| {
            load_model_for(
                model_dir,
                loaded.source.text.as_bytes(),
                loaded.path.as_deref(),
                false,
                &Device::Cpu,
                read_limits,
            )
            .map(|model| (model_dir, model))
        })
        .transpose()?;
    label_or_leave_out(
        &mut train,
        &dev,
        model.as_ref().map(|(dir, model)| (*dir, model)),
    )?;
    let spinner = Spinner::start("measuring suggestions");
    let vectors = train_vectors(&train.examples, embeddings, read_limits)?;
    let corpora = Corpora {
        train: &train.examples,
        dev: &dev.examples,
        vectors: Some(&vectors),
    };
    let (read_back, learned) = match &model {
        Some((model_dir, model)) => network_read_back(&loaded, model, model_dir, &corpora)?,
        None => (Vec::new(), Vec::new()),
    };
    let refined_text = |refined: &rulelens::suggest::Refined| -> anyhow::Result<()> {
        match output {
            Output::Format(_) => out_data!("{}", refined.text)?,
            Output::Diff => {
                let name = rules_path.display().to_string();
                out_data!(
                    "{}",
                    similar::TextDiff::from_lines(&loaded.source.text, &refined.text)
                        .unified_diff()
                        .header(&format!("a/{name}"), &format!("b/{name}"))
                )?;
            }
            Output::Write if refined.applied.is_empty() => {}
            Output::Write => write_in_place(rules_path, &refined.text)?,
        }
        Ok(())
    };
    match output {
        Output::Format(RulesFormat::Rules) | Output::Diff | Output::Write => {
            let refined = refine(&loaded, &corpora, &read_back, &learned, config, refining);
            drop(spinner);
            refined_text(&refined)?;
            if output == Output::Write && !refined.applied.is_empty() {
                eprintln!("{}: rewritten", rules_path.display());
            }
            match (refined.applied.first(), refined.applied.last()) {
                (Some(first), Some(last)) => eprint!(
                    "{}: {} edit{} applied; dev accuracy {} → {}\n\n{}",
                    rules_path.display(),
                    refined.applied.len(),
                    if refined.applied.len() == 1 { "" } else { "s" },
                    percent(Some(first.evidence.dev_before)),
                    percent(Some(last.evidence.dev_after)),
                    evidence_table(&refined.applied).render("  ")
                ),
                _ => eprintln!(
                    "{}: no edit raises dev accuracy; the rules are unchanged",
                    rules_path.display()
                ),
            }
        }
        Output::Format(RulesFormat::Json) => {
            let suggestions = suggest(&loaded, &corpora, &read_back, &learned, config, &|| false)
                .unwrap_or_default();
            drop(spinner);
            outln!(
                "{}",
                serde_json::to_string_pretty(&json!({
                    "rules": rules_path.display().to_string(),
                    "suggestions": suggestions,
                }))?
            )?;
        }
        Output::Format(RulesFormat::Text) => {
            let suggestions = suggest(&loaded, &corpora, &read_back, &learned, config, &|| false)
                .unwrap_or_default();
            drop(spinner);
            out!("{}", text_report(rules_path, &suggestions))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The train lines without a gold label labeled by `model`'s network (its folder and the
/// network), or left out with a word; an error when train or dev has no labeled line.
fn label_or_leave_out(
    train: &mut CorpusFile,
    dev: &CorpusFile,
    model: Option<(&Path, &LoadedModel)>,
) -> anyhow::Result<()> {
    let unlabeled = train.examples.iter().filter(|e| e.label.is_none()).count();
    match model {
        _ if unlabeled == 0 => {}
        Some((model_dir, model)) => {
            label_unlabeled(&mut train.examples, |texts| {
                model.most_probable_labels(texts, &Device::Cpu)
            })?;
            eprintln!(
                "{}: {unlabeled} of {} lines without a gold label take the labels of the network of {}",
                train.path.display(),
                train.examples.len(),
                model_dir.display()
            );
        }
        _ if unlabeled < train.examples.len() => eprintln!(
            "{}: {unlabeled} of {} lines without a gold label are left out; {LABELS_THEM}",
            train.path.display(),
            train.examples.len()
        ),
        _ => {}
    }
    for corpus in [&*train, dev] {
        if !corpus.examples.iter().any(|e| e.label.is_some()) {
            anyhow::bail!(
                "{}: no labeled line to suggest rules from or measure them on{}",
                corpus.path.display(),
                if model.is_none() && std::ptr::eq(corpus, &*train) {
                    format!("; {LABELS_THEM}")
                } else {
                    String::new()
                }
            );
        }
    }
    Ok(())
}

/// The word vectors of the words of `train` (from `embeddings`, default the bundled ones),
/// which induced rules' word sets draw on (`rulelens suggest` and `rulelens report`).
pub fn train_vectors(
    train: &[Example],
    embeddings: Option<&Path>,
    read_limits: &ReadLimits,
) -> anyhow::Result<WordNeighbours> {
    let train_lines = Lines::new(train);
    let words = train_lines.vocabulary.iter().map(|(word, _)| word.as_str());
    Ok(WordNeighbours::read(
        words,
        VectorSource::of(embeddings),
        read_limits,
    )?)
}

/// Replaces the text of the file at `path` with `text`, keeping what the file is: a symbolic
/// link's target is edited, its permissions kept, and a file with hard links written through
/// (the text whole on disk beside it first, then copied in). Otherwise written beside it and
/// renamed over it, so that an interrupted write leaves the old file whole.
fn write_in_place(path: &Path, text: &str) -> anyhow::Result<()> {
    let cannot =
        |error: std::io::Error| anyhow::anyhow!("cannot write {}: {error}", path.display());
    // Through a symbolic link, its target is edited and the link kept.
    let target = std::fs::canonicalize(path).map_err(cannot)?;
    let metadata = std::fs::metadata(&target).map_err(cannot)?;
    let mut temporary = target.as_os_str().to_owned();
    temporary.push(".rulelens-suggest");
    let temporary = std::path::PathBuf::from(temporary);
    let written = std::fs::write(&temporary, text)
        .and_then(|()| std::fs::set_permissions(&temporary, metadata.permissions()))
        .and_then(|()| {
            if has_other_links(&metadata) {
                // A rename would split the hard link: the new text, whole on disk in the
                // temporary file, is copied into the file itself.
                std::fs::copy(&temporary, &target).and_then(|_| std::fs::remove_file(&temporary))
            } else {
                std::fs::rename(&temporary, &target)
            }
        });
    written.map_err(|error| {
        let _ = std::fs::remove_file(&temporary);
        cannot(error)
    })
}

/// Whether another name (a hard link) shares the file.
fn has_other_links(metadata: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::nlink(metadata) > 1
    }
    #[cfg(not(unix))]
    {
        let _ = metadata;
        false
    }
}

/// A spinner with the elapsed time on a terminal's standard error (suggestions take seconds
/// to a minute), cleared when dropped; nothing elsewhere.
struct Spinner(Option<indicatif::ProgressBar>);

impl Spinner {
    fn start(message: &'static str) -> Spinner {
        if !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
            return Spinner(None);
        }
        let bar = indicatif::ProgressBar::new_spinner().with_message(message);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
            bar.set_style(style);
        }
        bar.enable_steady_tick(std::time::Duration::from_millis(120));
        Spinner(Some(bar))
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        if let Some(bar) = &self.0 {
            bar.finish_and_clear();
        }
    }
}

/// The rules of `rules` as `model` (the network of `model_dir`, trained from these rules)
/// reads them back, or, of a SoPa, its learned patterns as rules (read back on `corpora`).
fn network_read_back(
    rules: &RulesFile,
    model: &LoadedModel,
    model_dir: &Path,
    corpora: &Corpora,
) -> anyhow::Result<(Vec<ReadBack>, Vec<LearnedRule>)> {
    let LoadedModel {
        manifest,
        rules: trained,
        net,
        vocabulary,
    } = &model;
    let max_tokens = manifest.settings.max_sentence_tokens;
    if let Some(scorer) = vocabulary
        .as_ref()
        .and_then(|vocabulary| net.sopa_scorer(vocabulary, max_tokens))
    {
        let scorer = scorer?;
        let read = rulelens::explain::read_back(&scorer, corpora.train, corpora.dev);
        let labels = trained.system.labels();
        let learned = read
            .patterns
            .into_iter()
            .map(|pattern| LearnedRule {
                label: labels[pattern.label].clone(),
                regex: pattern.regex,
            })
            .collect();
        return Ok((Vec::new(), learned));
    }
    let Some(forward) = net.first_forward() else {
        anyhow::bail!(
            "{}: {} has no patterns to read back; suggestions read the FA-RNN family and SoPa",
            model_dir.display(),
            manifest.settings.model.display_name()
        );
    };
    let tokens = forward.known_token_vectors(&rules.system, vocabulary.as_ref())?;
    let automaton = WeightedAutomaton::new(&rules.system);
    let read_back = read_back(rules, &forward.plain()?, &automaton.pattern_states, &tokens);
    Ok((read_back, Vec::new()))
}

fn text_report(rules_path: &Path, suggestions: &[Suggestion]) -> String {
    let Some(first) = suggestions.first() else {
        return format!(
            "{}: no suggestion: no short rule fixes enough train lines precisely enough\n",
            rules_path.display()
        );
    };
    format!(
        "{}: {} suggestion{}, each measured alone; dev accuracy now {}\n\n{}",
        rules_path.display(),
        suggestions.len(),
        if suggestions.len() == 1 { "" } else { "s" },
        percent(Some(first.evidence.dev_before)),
        evidence_table(suggestions).render("  ")
    )
}

/// One row per suggestion: the edit, its source and its evidence (the dev column is the
/// change in points).
fn evidence_table(suggestions: &[Suggestion]) -> Table {
    let mut table = Table::new(&[
        "edit",
        "source",
        "train matches",
        "precision",
        "fixed",
        "broken",
        "dev",
    ])
    .text_columns(&[1]);
    for suggestion in suggestions {
        let evidence = &suggestion.evidence;
        table.row(vec![
            suggestion.describe(),
            serde_json::to_value(suggestion.source)
                .ok()
                .and_then(|value| value.as_str().map(str::to_string))
                .unwrap_or_default(),
            evidence.train_matches.to_string(),
            percent(Some(evidence.train_precision)),
            evidence.fixed.to_string(),
            evidence.broken.to_string(),
            format!("{:+.1}", evidence.dev_gain()),
        ]);
    }
    table
}

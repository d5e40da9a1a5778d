//! `rulelens reconstruct MODEL_DIR [--threshold G] [--format text|json|rules] [--backward]`:
//! each pattern of a trained network read back as a regular expression, with what it does
//! to the rule system's accuracy, or the whole reconstructed rules file. Of a bidirectional
//! network, either direction: the backward one is read against the reversed rules and its
//! regexes reversed again. A SoPa's learned patterns are read back by `learned.rs`.

use super::files::checkpoint_corpus_path;
use super::output::RulesFormat;
use super::table::{Table, percent};
use crate::cli::{out, out_data, outln, outln_data};
use rulelens::automata::{CompileConfig, compile_reversed, evaluate};
use rulelens::corpus;
use rulelens::explain::{ReconstructConfig, Reconstruction, reconstruct, rewrite_rules};
use rulelens::limits::ReadLimits;
use rulelens::model::{DeviceKind, LoadedModel, WeightedAutomaton, load_model};
use rulelens::rules_file::{DiskWordFiles, RulesFile, StoredWordFiles};
use rulelens::syntax::{PatternId, WordFiles, print_regex};
use rulelens::text::SourceText;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The accuracy of the rules `text` on `examples` and its count of errors, its word lists
/// read from `words`.
fn accuracy(
    text: &str,
    words: &dyn WordFiles,
    examples: &[corpus::Example],
) -> (Option<f64>, usize) {
    let file = RulesFile::analyze_with(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &CompileConfig::default(),
        words,
    );
    let n_errors = file.diagnostics.iter().filter(|d| d.is_error()).count();
    let evaluation = evaluate(
        &file.system,
        examples
            .iter()
            .map(|e| (e.text.as_str(), e.label.as_deref())),
    );
    (evaluation.accuracy(), n_errors)
}

/// `rulelens reconstruct`'s arguments.
#[derive(clap::Args)]
pub struct ReconstructArgs {
    /// A checkpoint folder written by `rulelens train`.
    model_dir: PathBuf,
    /// A transition weight above this is an edge.
    #[arg(long, default_value_t = rulelens::explain::DEFAULT_THRESHOLD)]
    threshold: f32,
    /// The most literals an edge lists before it is written `$`.
    #[arg(long, default_value_t = rulelens::explain::DEFAULT_MAX_LISTED)]
    max_listed: usize,
    /// `text` and `json` compare accuracies; `rules` prints the reconstructed file.
    #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
    format: RulesFormat,
    /// Corpus for the accuracies; default: the rules file's `corpus dev` binding.
    #[arg(long, value_name = "FILE")]
    corpus: Option<PathBuf>,
    /// Of a SoPa, the corpus its learned patterns' regexes and thresholds are chosen on;
    /// default: the rules file's `corpus train` binding.
    #[arg(long, value_name = "FILE")]
    train: Option<PathBuf>,
    /// Read back the untrained network instead.
    #[arg(long)]
    zero_shot: bool,
    /// Of a bidirectional network, read back the right-to-left direction (its regexes
    /// are turned back to read left to right).
    #[arg(long)]
    backward: bool,
    #[arg(long, value_enum, default_value_t = DeviceKind::Cpu)]
    device: DeviceKind,
}

pub fn run(args: ReconstructArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let device = &super::device::open(args.device)?;
    let config = &ReconstructConfig {
        threshold: args.threshold,
        max_listed: args.max_listed,
    };
    let (model_dir, corpus_path, train_path) = (
        args.model_dir.as_path(),
        args.corpus.as_deref(),
        args.train.as_deref(),
    );
    let (output, zero_shot, backward) = (args.format, args.zero_shot, args.backward);
    let loaded = load_model(model_dir, zero_shot, device, read_limits)?;
    let model = loaded.manifest.settings.model;
    if model.is_black_box() {
        anyhow::bail!(
            "{}: {} reads words alone and has no patterns to read back; reconstruct reads the FA-RNN family and SoPa",
            model_dir.display(),
            model.display_name()
        );
    }
    if loaded.net.sopa().is_some() {
        if backward {
            anyhow::bail!(
                "{}: --backward needs a bidirectional model (bifa-rnn or bifa-gru), not SoPa",
                model_dir.display()
            );
        }
        return super::learned::run(
            model_dir,
            &loaded,
            train_path,
            corpus_path,
            output,
            read_limits,
        );
    }
    let corpus_path = checkpoint_corpus_path(&loaded, corpus_path, "dev", "corpus")?;
    let reconstructions = read_back(&loaded, backward, config, model_dir)?;
    let LoadedModel {
        manifest, rules, ..
    } = &loaded;
    let text = &rules.source.text;
    let replacements: Vec<(PatternId, Option<String>)> = reconstructions
        .iter()
        .map(|r| (r.pattern, r.text()))
        .collect();
    let rewritten = rewrite_rules(text, &rules.rules, &replacements);
    if output == RulesFormat::Rules {
        out_data!("{rewritten}")?;
        return Ok(ExitCode::SUCCESS);
    }

    // Word lists as the rules were read: from beside their file, or from the checkpoint
    // where the file is not there.
    let stored = StoredWordFiles(&manifest.rules.word_files);
    let on_disk = rules
        .path
        .as_deref()
        .map(|path| DiskWordFiles::beside(path, read_limits));
    let words: &dyn WordFiles = match &on_disk {
        Some(files) => files,
        None => &stored,
    };
    let examples = corpus::read_file(&corpus_path, read_limits)?.examples;
    let (original_accuracy, _) = accuracy(text, words, &examples);
    let (whole_accuracy, whole_errors) = accuracy(&rewritten, words, &examples);
    let rows: Vec<Row> = replacements
        .iter()
        .map(|(pattern, regex)| {
            let def = &rules.rules.patterns[pattern.index()];
            let (replaced, _) = accuracy(
                &rewrite_rules(text, &rules.rules, &[(*pattern, regex.clone())]),
                words,
                &examples,
            );
            Row {
                name: &def.name,
                line: def.line,
                original: print_regex(&def.regex),
                reconstructed: regex.clone(),
                replaced,
            }
        })
        .collect();
    let figures = Figures {
        model_dir,
        corpus: &corpus_path,
        threshold: config.threshold,
        original: original_accuracy,
        whole: whole_accuracy,
        whole_errors,
        rows,
    };
    match output {
        RulesFormat::Json => print_json(&figures)?,
        _ => print_text(&figures)?,
    }
    Ok(ExitCode::SUCCESS)
}

/// Each pattern of `loaded`'s network (an ensemble's first member) read back as a regular
/// expression, of its left-to-right direction or, with `backward`, of its right-to-left
/// one, read against the reversed rules and turned back to read left to right.
fn read_back(
    loaded: &LoadedModel,
    backward: bool,
    config: &ReconstructConfig,
    model_dir: &Path,
) -> anyhow::Result<Vec<Reconstruction>> {
    let LoadedModel {
        manifest,
        rules,
        net,
        vocabulary,
    } = loaded;
    let system = &rules.system;
    let directions = net.members()[0].directions();
    if !backward {
        let forward = directions[0].0;
        let tokens = forward.known_token_vectors(system, vocabulary.as_ref())?;
        let automaton = WeightedAutomaton::new(system);
        return Ok(reconstruct(
            &forward.plain()?,
            &automaton.pattern_states,
            &tokens,
            config,
        ));
    }
    let [_, (backward, _)] = directions.as_slice() else {
        anyhow::bail!(
            "{}: --backward needs a bidirectional model (bifa-rnn or bifa-gru), not {}",
            model_dir.display(),
            manifest.settings.model.display_name()
        );
    };
    let (reversed, _) = compile_reversed(&rules.rules, system, &CompileConfig::default());
    let tokens = backward.known_token_vectors(&reversed, vocabulary.as_ref())?;
    let automaton = WeightedAutomaton::new(&reversed);
    let mut reconstructions = reconstruct(
        &backward.plain()?,
        &automaton.pattern_states,
        &tokens,
        config,
    );
    for reconstruction in &mut reconstructions {
        reconstruction.regex = reconstruction.regex.as_ref().map(|r| r.reversed());
    }
    Ok(reconstructions)
}

/// A pattern's row: its regex and the one read back (`None`: it reads back as nothing),
/// and the rules' accuracy with only it replaced.
struct Row<'a> {
    name: &'a str,
    line: u32,
    original: String,
    reconstructed: Option<String>,
    replaced: Option<f64>,
}

/// What `reconstruct` measured on the corpus.
struct Figures<'a> {
    model_dir: &'a Path,
    corpus: &'a Path,
    threshold: f32,
    /// The rules' accuracy as they are, and with every pattern replaced (with the errors of
    /// that file).
    original: Option<f64>,
    whole: Option<f64>,
    whole_errors: usize,
    rows: Vec<Row<'a>>,
}

fn print_json(figures: &Figures) -> anyhow::Result<()> {
    let report = json!({
        "model": figures.model_dir.display().to_string(),
        "corpus": figures.corpus.display().to_string(),
        "threshold": figures.threshold,
        "original_accuracy": figures.original,
        "reconstructed_accuracy": figures.whole,
        "reconstructed_errors": figures.whole_errors,
        "patterns": figures.rows.iter().map(|row| json!({
            "name": row.name,
            "line": row.line,
            "original": row.original,
            "reconstructed": row.reconstructed,
            "accuracy_with_replacement": row.replaced,
        })).collect::<Vec<_>>(),
    });
    outln_data!("{}", serde_json::to_string_pretty(&report)?)?;
    Ok(())
}

fn print_text(figures: &Figures) -> anyhow::Result<()> {
    outln!(
        "{} on {}: rules {}, all patterns reconstructed {}{}\n",
        figures.model_dir.display(),
        figures.corpus.display(),
        percent(figures.original),
        percent(figures.whole),
        if figures.whole_errors > 0 {
            format!(
                " ({} errors in the reconstructed file)",
                figures.whole_errors
            )
        } else {
            String::new()
        }
    )?;
    let mut table = Table::new(&["pattern", "line", "accuracy", "original", "reconstructed"])
        .text_columns(&[3, 4]);
    let shorten = |regex: &str| -> String {
        const WIDTH: usize = 70;
        if regex.chars().count() <= WIDTH {
            regex.to_string()
        } else {
            format!("{}…", regex.chars().take(WIDTH - 1).collect::<String>())
        }
    };
    for row in &figures.rows {
        table.row(vec![
            row.name.to_string(),
            row.line.to_string(),
            percent(row.replaced),
            shorten(&row.original),
            row.reconstructed
                .as_deref()
                .map_or_else(|| "(nothing)".to_string(), shorten),
        ]);
    }
    out!("{}", table.render("  "))?;
    outln!("\n(regexes longer than 70 characters are cut here; --format json shows them whole)")?;
    Ok(())
}

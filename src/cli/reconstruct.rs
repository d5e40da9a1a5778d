//! `rulelens reconstruct MODEL_DIR [--threshold G] [--format text|json|rules] [--backward]`:
//! each pattern of a trained network read back as a regular expression, with what it does
//! to the rule system's accuracy, or the whole reconstructed rules file. Of a bidirectional
//! network, either direction: the backward one is read against the reversed rules and its
//! regexes reversed again. A SoPa's learned patterns are read back by `learned.rs`.

use super::output::RulesFormat;
use super::table::{Table, percent};
use crate::cli::{out, out_data, outln, outln_data};
use anyhow::Context;
use candle_core::Device;
use rulelens::automata::{CompileConfig, compile_reversed, evaluate};
use rulelens::corpus;
use rulelens::explain::{ReconstructConfig, reconstruct, rewrite_rules};
use rulelens::limits::ReadLimits;
use rulelens::model::{LoadedModel, WeightedAutomaton, load_model};
use rulelens::rules_file::RulesFile;
use rulelens::syntax::{PatternId, print_regex};
use rulelens::text::SourceText;
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;

fn accuracy(text: &str, path: &Path, examples: &[corpus::Example]) -> (Option<f64>, usize) {
    let file = RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        Some(path),
        &CompileConfig::default(),
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

/// What `rulelens reconstruct` was asked for.
pub struct ReconstructArgs<'a> {
    pub model_dir: &'a Path,
    pub corpus: Option<&'a Path>,
    pub config: ReconstructConfig,
    pub output: RulesFormat,
    pub zero_shot: bool,
    pub backward: bool,
    pub device: &'a Device,
    pub read_limits: &'a ReadLimits,
}

pub fn run(args: ReconstructArgs<'_>) -> anyhow::Result<ExitCode> {
    let ReconstructArgs {
        model_dir,
        corpus: corpus_path,
        ref config,
        output,
        zero_shot,
        backward,
        device,
        read_limits,
    } = args;
    let loaded = load_model(model_dir, zero_shot, device, read_limits)?;
    let model = loaded.manifest.settings.model;
    if model.is_black_box() {
        anyhow::bail!(
            "{}: {} reads words alone and has no patterns to read back; reconstruct reads the FA-RNN family and SoPa",
            model_dir.display(),
            model.display_name()
        );
    }
    if let Some(sopa) = loaded.net.sopa() {
        if backward {
            anyhow::bail!(
                "{}: --backward needs a bidirectional model (bifa-rnn or bifa-gru), not SoPa",
                model_dir.display()
            );
        }
        return super::learned::run(model_dir, &loaded, sopa, corpus_path, output, read_limits);
    }
    let LoadedModel {
        manifest,
        rules,
        net,
        vocabulary,
    } = loaded;
    let system = &rules.system;

    // An ensemble's rules are read back from its first member.
    let directions = net.members()[0].directions();
    let reconstructions = if backward {
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
        reconstructions
    } else {
        let forward = directions[0].0;
        let tokens = forward.known_token_vectors(system, vocabulary.as_ref())?;
        let automaton = WeightedAutomaton::new(system);
        reconstruct(
            &forward.plain()?,
            &automaton.pattern_states,
            &tokens,
            config,
        )
    };

    let text = &rules.source.text;
    let rules_path = &manifest.rules.path;
    let replacements: Vec<(PatternId, Option<String>)> = reconstructions
        .iter()
        .map(|r| (r.pattern, r.text()))
        .collect();
    let rewritten = rewrite_rules(text, &rules.rules, &replacements);
    if output == RulesFormat::Rules {
        out_data!("{rewritten}")?;
        return Ok(ExitCode::SUCCESS);
    }

    let corpus_path = match corpus_path {
        Some(path) => path.to_path_buf(),
        None => {
            let binding = rules
                .rules
                .corpora
                .iter()
                .find(|b| b.name == "dev")
                .context("no `corpus dev` binding in the rules file: pass --corpus FILE")?;
            corpus::resolve_binding(rules_path, &binding.path)
        }
    };
    let examples = corpus::read_file(&corpus_path, read_limits)?.examples;
    let (original_accuracy, _) = accuracy(text, rules_path, &examples);
    let (whole_accuracy, whole_errors) = accuracy(&rewritten, rules_path, &examples);
    let mut rows = Vec::new();
    for (reconstruction, (pattern, regex)) in reconstructions.iter().zip(&replacements) {
        let def = &rules.rules.patterns[pattern.index()];
        let (replaced_accuracy, _) = accuracy(
            &rewrite_rules(text, &rules.rules, &[(*pattern, regex.clone())]),
            rules_path,
            &examples,
        );
        rows.push((
            def,
            print_regex(&def.regex),
            reconstruction.text(),
            replaced_accuracy,
        ));
    }

    if output == RulesFormat::Json {
        let report = json!({
            "model": model_dir.display().to_string(),
            "corpus": corpus_path.display().to_string(),
            "threshold": config.threshold,
            "original_accuracy": original_accuracy,
            "reconstructed_accuracy": whole_accuracy,
            "reconstructed_errors": whole_errors,
            "patterns": rows.iter().map(|(def, original, reconstructed, replaced)| json!({
                "name": def.name,
                "line": def.line,
                "original": original,
                "reconstructed": reconstructed,
                "accuracy_with_replacement": replaced,
            })).collect::<Vec<_>>(),
        });
        outln_data!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        outln!(
            "{} on {}: rules {}, all patterns reconstructed {}{}\n",
            model_dir.display(),
            corpus_path.display(),
            percent(original_accuracy),
            percent(whole_accuracy),
            if whole_errors > 0 {
                format!(" ({whole_errors} errors in the reconstructed file)")
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
        for (def, original, reconstructed, replaced) in &rows {
            table.row(vec![
                def.name.clone(),
                def.line.to_string(),
                percent(*replaced),
                shorten(original),
                reconstructed
                    .as_deref()
                    .map_or_else(|| "(nothing)".to_string(), shorten),
            ]);
        }
        out!("{}", table.render("  "))?;
        outln!(
            "\n(regexes longer than 70 characters are cut here; --format json shows them whole)"
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

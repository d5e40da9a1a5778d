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
use rulelens::automata::CompileConfig;
use rulelens::limits::ReadLimits;
use rulelens::model::{LoadedModel, VectorSource, WeightedAutomaton, load_model_for};
use rulelens::rules_file::RulesFile;
use rulelens::suggest::lines::Lines;
use rulelens::suggest::reconstruct::read_back;
use rulelens::suggest::{
    Corpora, LearnedRule, ReadBack, RefineConfig, SuggestConfig, Suggestion, WordNeighbours,
    refine, suggest,
};
use serde_json::json;
use std::path::Path;
use std::process::ExitCode;

pub fn run(
    rules_path: &Path,
    model_dir: Option<&Path>,
    embeddings: Option<&Path>,
    config: &SuggestConfig,
    refining: &RefineConfig,
    output: RulesFormat,
    read_limits: &ReadLimits,
) -> anyhow::Result<ExitCode> {
    let loaded = load_rules(rules_path, &CompileConfig::default(), read_limits)?;
    if loaded.has_errors() {
        print_diagnostics(&Shown::of_rules(&loaded), &loaded.diagnostics);
        anyhow::bail!("{} has errors; fix them first", rules_path.display());
    }
    let train = read_corpus(&corpus_path(&loaded, None, "train")?, read_limits)?;
    let dev = read_corpus(&corpus_path(&loaded, None, "dev")?, read_limits)?;
    let train_lines = Lines::new(&train.examples);
    let words = train_lines.vocabulary.iter().map(|(word, _)| word.as_str());
    let vectors = WordNeighbours::read(words, VectorSource::of(embeddings), read_limits)?;
    let corpora = Corpora {
        train: &train.examples,
        dev: &dev.examples,
        vectors: Some(&vectors),
    };
    let (read_back, learned) = match model_dir {
        Some(model_dir) => network_read_back(&loaded, model_dir, &corpora, read_limits)?,
        None => (Vec::new(), Vec::new()),
    };
    match output {
        RulesFormat::Rules => {
            let refined = refine(&loaded, &corpora, &read_back, &learned, config, refining);
            print!("{}", refined.text);
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
        RulesFormat::Json => {
            let suggestions = suggest(&loaded, &corpora, &read_back, &learned, config, &|| false)
                .unwrap_or_default();
            println!(
                "{}",
                serde_json::to_string_pretty(&json!({
                    "rules": rules_path.display().to_string(),
                    "suggestions": suggestions,
                }))?
            );
        }
        RulesFormat::Text => {
            let suggestions = suggest(&loaded, &corpora, &read_back, &learned, config, &|| false)
                .unwrap_or_default();
            print!("{}", text_report(rules_path, &suggestions));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The rules of `rules` as the network of `model_dir` reads them back, or, of a SoPa, its
/// learned patterns as rules (read back on `corpora`); an error when that network was
/// trained from other rules.
fn network_read_back(
    rules: &RulesFile,
    model_dir: &Path,
    corpora: &Corpora,
    read_limits: &ReadLimits,
) -> anyhow::Result<(Vec<ReadBack>, Vec<LearnedRule>)> {
    let model = load_model_for(
        model_dir,
        rules.source.text.as_bytes(),
        rules.path.as_deref(),
        false,
        &candle_core::Device::Cpu,
        read_limits,
    )?;
    let LoadedModel {
        manifest,
        rules: trained,
        net,
        vocabulary,
    } = &model;
    if let (Some(sopa), Some(vocabulary)) = (net.sopa(), vocabulary) {
        let scorer = sopa.scorer(vocabulary, manifest.settings.max_sentence_tokens)?;
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
    let Some(&forward) = net.directions().first() else {
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

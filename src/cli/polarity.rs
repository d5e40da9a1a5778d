//! `rulelens polarity MODEL_DIR [PHRASE]... [--format text|json] [--negation N]`: an
//! MVMA-G's phrase polarities, as in Sun and Lu's Figure 2 analysis: each phrase's longest
//! n-gram `v_{1:N}` read out by each label (exact: no approximation), and with
//! `--negation N` the negation check: for the N words that lean most strongly to each
//! label, how often prepending "not" turns the phrase to another label.

use super::output::Format;
use super::table::Table;
use crate::cli::{out, outln, outln_data};
use candle_core::Device;
use rulelens::limits::ReadLimits;
use rulelens::model::{LoadedModel, Mvma, Vocabulary, load_model};
use rulelens::text::tokenize;
use serde_json::json;
use std::path::PathBuf;
use std::process::ExitCode;

/// A phrase's scores by label, and the label it leans to (the highest) with its margin over
/// the next.
struct Polarity {
    scores: Vec<f32>,
    leans: usize,
    margin: f32,
}

fn polarity(net: &Mvma, words: &[u32]) -> anyhow::Result<Polarity> {
    let scores = net.phrase_scores(words)?;
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let leans = order.first().copied().unwrap_or(0);
    let margin = match order.get(1) {
        Some(&next) => scores[leans] - scores[next],
        None => 0.0,
    };
    Ok(Polarity {
        scores,
        leans,
        margin,
    })
}

/// The vocabulary ids of `phrase`'s tokens (0 for unknown words).
fn ids(vocabulary: &Vocabulary, phrase: &str) -> Vec<u32> {
    tokenize(phrase)
        .iter()
        .map(|token| vocabulary.id(token.text))
        .collect()
}

/// `rulelens polarity`'s arguments.
#[derive(clap::Args)]
pub struct PolarityArgs {
    /// A checkpoint folder written by `rulelens train --model mvma-g`.
    model_dir: PathBuf,
    /// Phrases, e.g. "not good" "very good".
    phrases: Vec<String>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Also check, for the N words leaning most strongly to each label, how often
    /// "not" before them leans to another label.
    #[arg(long, value_name = "N")]
    negation: Option<usize>,
}

pub fn run(args: PolarityArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let PolarityArgs {
        model_dir,
        phrases,
        format,
        negation,
    } = args;
    let (model_dir, json_output) = (model_dir.as_path(), format == Format::Json);
    let LoadedModel {
        manifest,
        net,
        vocabulary,
        ..
    } = load_model(model_dir, false, &Device::Cpu, read_limits)?;
    let (Some(mvma), Some(vocabulary)) = (net.as_family::<Mvma>(), vocabulary) else {
        anyhow::bail!(
            "{}: polarity reads an MVMA-G (`rulelens train --model mvma-g`), not {}",
            model_dir.display(),
            manifest.settings.model.display_name()
        );
    };
    let labels = &manifest.labels;
    let mut rows = Vec::new();
    for phrase in &phrases {
        let words = ids(&vocabulary, phrase);
        rows.push((phrase, words.len(), polarity(mvma, &words)?));
    }
    let check = match negation {
        Some(n) => Some(negation_check(mvma, &vocabulary, labels.len(), n)?),
        None => None,
    };
    if json_output {
        let report = json!({
            "model": model_dir.display().to_string(),
            "labels": labels,
            "phrases": rows.iter().map(|(phrase, n_tokens, p)| json!({
                "phrase": phrase,
                "tokens": n_tokens,
                "scores": labels.iter().zip(&p.scores).map(|(l, s)| (l.clone(), json!(s))).collect::<serde_json::Map<_, _>>(),
                "leans": labels[p.leans],
                "margin": p.margin,
            })).collect::<Vec<_>>(),
            "negation": check.as_ref().map(|check| check.iter().enumerate().map(|(label, c)| json!({
                "label": labels[label],
                "words": c.words,
                "flipped": c.flipped,
                "examples": c.examples,
            })).collect::<Vec<_>>()),
        });
        outln_data!("{}", serde_json::to_string_pretty(&report)?)?;
        return Ok(ExitCode::SUCCESS);
    }
    if !rows.is_empty() {
        let mut header = vec!["phrase"];
        header.extend(labels.iter().map(String::as_str));
        header.push("leans to");
        let mut table = Table::new(&header);
        for (phrase, _, p) in &rows {
            let mut row = vec![phrase.to_string()];
            row.extend(p.scores.iter().map(|s| format!("{s:+.3}")));
            row.push(format!("{} (by {:.3})", labels[p.leans], p.margin));
            table.row(row);
        }
        out!("{}", table.render(""))?;
    }
    if let Some(check) = check {
        outln!("negation: \"not\" before the words that lean most strongly to each label")?;
        for (label, c) in check.iter().enumerate() {
            outln!(
                "  {}: {} of {} words flip to another label ({:.0} %){}",
                labels[label],
                c.flipped,
                c.words,
                100.0 * c.flipped as f64 / c.words.max(1) as f64,
                if c.examples.is_empty() {
                    String::new()
                } else {
                    format!("; strongest: {}", c.examples.join(", "))
                }
            )?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The negation check for one label: of the `words` that lean most strongly to it, how many
/// lean elsewhere with "not" before them; the five strongest words as examples.
struct Negation {
    words: usize,
    flipped: usize,
    examples: Vec<String>,
}

/// For each label, its `n` most strongly leaning vocabulary words (by margin) and how many
/// "not" flips.
fn negation_check(
    net: &Mvma,
    vocabulary: &Vocabulary,
    n_labels: usize,
    n: usize,
) -> anyhow::Result<Vec<Negation>> {
    let not = vocabulary.id("not");
    if not == 0 {
        anyhow::bail!("the network's vocabulary has no \"not\": no negation check");
    }
    let mut leaning: Vec<Vec<(f32, u32)>> = vec![Vec::new(); n_labels];
    for (id, _) in vocabulary.words().iter().enumerate().skip(1) {
        let id = id as u32;
        if id == not {
            continue;
        }
        let p = polarity(net, &[id])?;
        leaning[p.leans].push((p.margin, id));
    }
    let mut checks = Vec::new();
    for (label, words) in leaning.iter_mut().enumerate() {
        words.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        words.truncate(n);
        let mut flipped = 0;
        for &(_, id) in words.iter() {
            if polarity(net, &[not, id])?.leans != label {
                flipped += 1;
            }
        }
        checks.push(Negation {
            words: words.len(),
            flipped,
            examples: words
                .iter()
                .take(5)
                .map(|&(_, id)| vocabulary.words()[id as usize].clone())
                .collect(),
        });
    }
    Ok(checks)
}

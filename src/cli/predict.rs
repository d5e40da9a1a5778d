//! `rulelens predict MODEL_DIR [TEXT]... [--format text|json] [--top N]`: a trained
//! network's label for each sentence (the arguments, or else each line of standard input),
//! with its probabilities, the rule system's label and the patterns that scored highest,
//! scored one sentence at a time by the plain-loop [`FaRnnScorer`]; for a SoPa, the patterns
//! whose leave-one-out contribution to the decision is largest, with their best spans; for
//! a black box (the S-LSTM), which has no patterns, the label and probabilities alone.

use super::files::sentences;
use super::output::Format;
use crate::cli::CANNOT_WRITE_STDOUT;
use anyhow::Context as _;
use candle_core::Device;
use rulelens::automata::RuleSystem;
use rulelens::limits::ReadLimits;
use rulelens::model::sopa::PatternRef;
use rulelens::model::{Batch, FaRnnScorer, LoadedModel, Network, Sopa, load_model, softmax};
use rulelens::text::{printable, tokenize};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// `rulelens predict`'s arguments.
#[derive(clap::Args)]
pub struct PredictArgs {
    /// A checkpoint folder written by `rulelens train`.
    model_dir: PathBuf,
    /// Sentences to label; none: every line of standard input.
    texts: Vec<String>,
    /// `json` prints one JSON object per sentence and line.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// How many of the highest-scoring patterns to show.
    #[arg(long, value_name = "N", default_value_t = 3)]
    top: usize,
    /// Use the untrained network compiled from the rules.
    #[arg(long)]
    zero_shot: bool,
}

/// `x` to six decimals, so that JSON shows `0.994` rather than a float's binary expansion.
fn rounded(x: impl Into<f64>) -> f64 {
    (x.into() * 1e6).round() / 1e6
}

pub fn run(args: PredictArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let PredictArgs {
        model_dir,
        texts,
        format: output,
        top,
        zero_shot,
    } = args;
    let model_dir = model_dir.as_path();
    let LoadedModel {
        manifest,
        rules,
        net,
        vocabulary,
    } = load_model(model_dir, zero_shot, &Device::Cpu, read_limits)?;
    let system = &rules.system;
    if let Some(sopa) = net.sopa() {
        let context = SopaContext {
            sopa,
            system,
            vocabulary: vocabulary.as_ref(),
            max_tokens: manifest.settings.max_sentence_tokens,
            logit_scale: manifest.settings.logit_scale,
        };
        return predict_sopa(&context, sentences(texts, read_limits)?, output, top);
    }
    if manifest.settings.model.is_black_box() {
        let reader = BlackBox {
            net: net.as_ref(),
            system,
            vocabulary: vocabulary.as_ref(),
            max_tokens: manifest.settings.max_sentence_tokens,
        };
        return predict_black_box(&reader, sentences(texts, read_limits)?, output);
    }
    let scorer = FaRnnScorer::new(
        net.as_ref(),
        system,
        vocabulary.as_ref(),
        manifest.settings.max_sentence_tokens,
    )?;
    let scale = manifest.settings.logit_scale;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for text in sentences(texts, read_limits)? {
        let scores = scorer.score_text(&text);
        let probabilities = scores.probabilities(scale);
        let labeled = Labeled::new(system, &text, scores.prediction(), &probabilities);
        // A pattern's score, averaged over the directions that read the sentence.
        let n_directions = scores.pattern_scores.len() as f32;
        let mut patterns: Vec<(usize, f32)> = (0..system.patterns().len())
            .map(|p| {
                let sum: f32 = scores.pattern_scores.iter().map(|s| s[p]).sum();
                (p, sum / n_directions)
            })
            .filter(|&(_, score)| score > 0.0)
            .collect();
        patterns.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        patterns.truncate(top);
        match output {
            Format::Json => {
                let line = labeled.json(
                    patterns
                        .iter()
                        .map(|&(p, score)| {
                            json!({
                                "name": system.patterns()[p].name,
                                "line": system.patterns()[p].line,
                                "score": rounded(score),
                            })
                        })
                        .collect(),
                );
                writeln!(out, "{line}").context(CANNOT_WRITE_STDOUT)?;
            }
            Format::Text => {
                writeln!(out, "{}", labeled.header()).context(CANNOT_WRITE_STDOUT)?;
                if !patterns.is_empty() {
                    let listed: Vec<String> = patterns
                        .iter()
                        .map(|&(p, score)| format!("{} {score:.2}", system.patterns()[p].name))
                        .collect();
                    writeln!(out, "    patterns: {}", printable(&listed.join(", ")))
                        .context(CANNOT_WRITE_STDOUT)?;
                }
            }
        }
    }
    out.flush().context(CANNOT_WRITE_STDOUT)?;
    Ok(ExitCode::SUCCESS)
}

/// A sentence's label as a network gave it, beside the rule system's.
struct Labeled<'a> {
    text: &'a str,
    labels: &'a [String],
    predicted: usize,
    probabilities: &'a [f64],
    rules_label: Option<&'a str>,
}

impl<'a> Labeled<'a> {
    fn new(
        system: &'a RuleSystem,
        text: &'a str,
        predicted: usize,
        probabilities: &'a [f64],
    ) -> Labeled<'a> {
        let labels = system.labels();
        Labeled {
            text,
            labels,
            predicted,
            probabilities,
            rules_label: system
                .classify(text)
                .prediction
                .map(|l| labels[l.index()].as_str()),
        }
    }

    /// The text output's first line: label, probability, the rules' label, the text
    /// ([`printable`]).
    fn header(&self) -> String {
        format!(
            "{} {:.3}  (rules: {})  {}",
            self.labels[self.predicted],
            self.probabilities[self.predicted],
            self.rules_label.unwrap_or("none"),
            printable(self.text)
        )
    }

    /// The JSON output's line, with `patterns`.
    fn json(&self, patterns: Vec<serde_json::Value>) -> serde_json::Value {
        json!({
            "text": self.text,
            "label": self.labels[self.predicted],
            "probabilities": self.labels.iter().zip(self.probabilities)
                .map(|(name, &p)| (name.clone(), json!(rounded(p))))
                .collect::<serde_json::Map<_, _>>(),
            "rules_label": self.rules_label,
            "patterns": patterns,
        })
    }
}

/// What labeling sentences with a black box takes.
struct BlackBox<'a> {
    net: &'a dyn Network,
    system: &'a RuleSystem,
    vocabulary: Option<&'a rulelens::model::Vocabulary>,
    max_tokens: usize,
}

/// `predict` for a black box: each sentence's label and probabilities (its logits are its
/// own: no logit scale), and no patterns.
fn predict_black_box(
    reader: &BlackBox,
    texts: Vec<String>,
    output: Format,
) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for text in texts {
        let batch = Batch::from_texts(
            reader.system,
            reader.vocabulary,
            &[text.as_str()],
            reader.max_tokens,
            &Device::Cpu,
        )?;
        let logits: Vec<f32> = reader.net.logits(&batch)?.squeeze(0)?.to_vec1()?;
        let probabilities = softmax(&logits, 1.0);
        let predicted = (0..probabilities.len())
            .rev()
            .max_by(|&a, &b| probabilities[a].total_cmp(&probabilities[b]))
            .unwrap_or(0);
        let labeled = Labeled::new(reader.system, &text, predicted, &probabilities);
        match output {
            Format::Json => {
                writeln!(out, "{}", labeled.json(Vec::new())).context(CANNOT_WRITE_STDOUT)?
            }
            Format::Text => writeln!(out, "{}", labeled.header()).context(CANNOT_WRITE_STDOUT)?,
        }
    }
    out.flush().context(CANNOT_WRITE_STDOUT)?;
    Ok(ExitCode::SUCCESS)
}

/// What labeling sentences with a SoPa takes.
struct SopaContext<'a> {
    sopa: &'a Sopa,
    system: &'a RuleSystem,
    vocabulary: Option<&'a rulelens::model::Vocabulary>,
    max_tokens: usize,
    logit_scale: f64,
}

/// `predict` for a SoPa: each sentence's label and probabilities, and the `top` patterns
/// with the largest leave-one-out contributions (either sign), with their best spans.
fn predict_sopa(
    context: &SopaContext,
    texts: Vec<String>,
    output: Format,
    top: usize,
) -> anyhow::Result<ExitCode> {
    let system = context.system;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for text in texts {
        let batch = Batch::from_texts(
            system,
            context.vocabulary,
            &[text.as_str()],
            context.max_tokens,
            &Device::Cpu,
        )?;
        let explanation = context.sopa.explain(&batch, context.logit_scale)?;
        let labeled = Labeled::new(
            system,
            &text,
            explanation.predicted,
            &explanation.probabilities,
        );
        let tokens = tokenize(&text);
        let mut contributions: Vec<_> = explanation
            .contributions
            .iter()
            .filter(|c| c.delta != 0.0)
            .collect();
        contributions.sort_by(|a, b| b.delta.abs().total_cmp(&a.delta.abs()));
        contributions.truncate(top);
        let name = |pattern: PatternRef| match pattern {
            PatternRef::Rule(p) => system.patterns()[p].name.clone(),
            PatternRef::Free(i) => format!("free.{i}"),
        };
        let span_text = |span: &Option<std::ops::Range<usize>>| {
            span.as_ref().map(|span| {
                tokens
                    .iter()
                    .skip(span.start)
                    .take(span.len())
                    .map(|t| t.text)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
        };
        match output {
            Format::Json => {
                let line = labeled.json(
                    contributions
                        .iter()
                        .map(|c| {
                            let mut entry = json!({
                                "name": name(c.pattern),
                                "score": rounded(c.score),
                                "contribution": rounded(c.delta),
                                "span": span_text(&c.span),
                                "span_tokens": c.span.as_ref().map(|s| [s.start, s.end]),
                            });
                            if let PatternRef::Rule(p) = c.pattern {
                                entry["line"] = json!(system.patterns()[p].line);
                            }
                            entry
                        })
                        .collect(),
                );
                writeln!(out, "{line}").context(CANNOT_WRITE_STDOUT)?;
            }
            Format::Text => {
                writeln!(out, "{}", labeled.header()).context(CANNOT_WRITE_STDOUT)?;
                for c in contributions {
                    writeln!(
                        out,
                        "    {:+.3}  {}  \"{}\"",
                        c.delta,
                        name(c.pattern),
                        span_text(&c.span).unwrap_or_default()
                    )?;
                }
            }
        }
    }
    out.flush().context(CANNOT_WRITE_STDOUT)?;
    Ok(ExitCode::SUCCESS)
}

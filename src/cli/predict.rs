//! `rulelens predict MODEL_DIR [TEXT]... [--format text|json] [--top N]`: a trained
//! network's label for each sentence (the arguments, or else each line of standard input),
//! with its probabilities and the rule system's label, read from the network's view of the
//! line as the editor's hover has it (`ide::TrainedNetwork::explain_line`, one sentence at a
//! time): for the FA-RNN family the patterns that scored highest; for a SoPa the patterns
//! whose leave-one-out contribution to the decision is largest, with their best spans; for
//! a black box, which has no patterns, the label and probabilities alone.

use super::files::sentences;
use super::output::Format;
use crate::cli::CANNOT_WRITE_STDOUT;
use anyhow::Context as _;
use candle_core::Device;
use rulelens::automata::RuleSystem;
use rulelens::ide::{
    HoverConfig, Line, LineView, NetworkView, PatternsView, TrainedNetwork, Unprepared, analyze,
};
use rulelens::limits::ReadLimits;
use rulelens::model::sopa::PatternRef;
use rulelens::model::{LoadedModel, load_model};
use rulelens::text::{Tokens, printable, tokenize};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

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
    let model = load_model(&model_dir, zero_shot, &Device::Cpu, read_limits)?;
    let texts = sentences(texts, read_limits)?;
    // The texts' words past the vocabulary read through their vectors and spellings.
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let LoadedModel {
        manifest,
        rules,
        net,
        vocabulary,
    } = match model.opened_to(&refs)? {
        Some(opened) => opened,
        None => model,
    };
    // The network prepared as the editor prepares it, on its own rules and no corpora.
    let analysis = analyze(Arc::new(rules), Vec::new(), &|| false)
        .map_err(|_| anyhow::anyhow!("cancelled"))?;
    let network = TrainedNetwork::prepare(Unprepared {
        manifest,
        net,
        vocabulary: vocabulary.as_ref(),
        analysis: &analysis,
        reconstruct: None,
        cancelled: &|| false,
    })?;
    // The patterns alone: no n-gram is deleted.
    let config = HoverConfig {
        max_listed: top,
        max_ngram_len: 0,
        occlusion_budget: 0,
        ..HoverConfig::default()
    };
    let rules = &analysis.rules;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for text in texts {
        let line = Line {
            text: &text,
            gold: None,
        };
        let view = network.explain_line(&line, rules, &config)?;
        let labeled = Labeled::new(&rules.system, &text, &view);
        let written = match (&view, output) {
            (LineView::RuleNetwork(view), Format::Json) => {
                writeln!(
                    out,
                    "{}",
                    labeled.json(top_patterns_json(view, &rules.system))
                )
            }
            (LineView::RuleNetwork(view), Format::Text) => writeln!(out, "{}", labeled.header())
                .and_then(|()| {
                    if view.top_patterns.is_empty() {
                        return Ok(());
                    }
                    let names = &rules.system.patterns();
                    let listed: Vec<String> = (view.top_patterns.iter())
                        .map(|p| format!("{} {:.2}", names[p.index].name, p.score))
                        .collect();
                    writeln!(out, "    patterns: {}", printable(&listed.join(", ")))
                }),
            (LineView::Patterns(view), Format::Json) => writeln!(
                out,
                "{}",
                labeled.json(contributions_json(view, &rules.system, &text))
            ),
            (LineView::Patterns(view), Format::Text) => writeln!(out, "{}", labeled.header())
                .and_then(|()| {
                    let tokens = tokenize(&text);
                    for c in &view.contributions {
                        let span = Span::of(&tokens, c.span);
                        let name = pattern_name(&rules.system, c.reference);
                        writeln!(out, "    {:+.3}  {name}  \"{}\"", c.delta, span.text)?;
                    }
                    Ok(())
                }),
            (_, Format::Json) => writeln!(out, "{}", labeled.json(Vec::new())),
            (_, Format::Text) => writeln!(out, "{}", labeled.header()),
        };
        written.context(CANNOT_WRITE_STDOUT)?;
    }
    out.flush().context(CANNOT_WRITE_STDOUT)?;
    Ok(ExitCode::SUCCESS)
}

/// A rule network's top patterns in JSON: name, line and score.
fn top_patterns_json(view: &NetworkView, system: &RuleSystem) -> Vec<serde_json::Value> {
    let patterns = system.patterns();
    (view.top_patterns.iter())
        .map(|p| {
            json!({
                "name": patterns[p.index].name,
                "line": patterns[p.index].line,
                "score": rounded(p.score),
            })
        })
        .collect()
}

/// A SoPa's listed patterns in JSON: name, score, contribution, the best span's text and
/// tokens, and a rule's line.
fn contributions_json(
    view: &PatternsView,
    system: &RuleSystem,
    text: &str,
) -> Vec<serde_json::Value> {
    let tokens = tokenize(text);
    (view.contributions.iter())
        .map(|c| {
            let span = c.span.map(|range| Span::of(&tokens, Some(range)));
            let mut entry = json!({
                "name": pattern_name(system, c.reference),
                "score": rounded(c.score),
                "contribution": rounded(c.delta),
                "span": span.as_ref().map(|span| span.text.clone()),
                "span_tokens": span.map(|span| [span.tokens.start, span.tokens.end]),
            });
            if let PatternRef::Rule(p) = c.reference {
                entry["line"] = json!(system.patterns()[p].line);
            }
            entry
        })
        .collect()
}

/// What `predict` calls a pattern of a SoPa: a rule's pattern by its name, a learned one
/// `free.N`.
fn pattern_name(system: &RuleSystem, pattern: PatternRef) -> String {
    match pattern {
        PatternRef::Rule(p) => system.patterns()[p].name.clone(),
        PatternRef::Free(i) => format!("free.{i}"),
    }
}

/// A best span as `predict` shows it: its tokens, joined by single spaces, and their
/// indices.
struct Span {
    text: String,
    tokens: std::ops::Range<usize>,
}

impl Span {
    /// The tokens of a line, `tokens`, inside the byte range `range` (none without one).
    fn of(tokens: &Tokens, range: Option<text_size::TextRange>) -> Span {
        let inside: Vec<usize> = match range {
            Some(range) => (0..tokens.len())
                .filter(|&i| tokens.get(i).is_some_and(|t| range.contains_range(t.range)))
                .collect(),
            None => Vec::new(),
        };
        let (start, end) = match (inside.first(), inside.last()) {
            (Some(&first), Some(&last)) => (first, last + 1),
            _ => (0, 0),
        };
        Span {
            text: (start..end)
                .filter_map(|i| tokens.get(i).map(|t| t.text))
                .collect::<Vec<_>>()
                .join(" "),
            tokens: start..end,
        }
    }
}

/// A sentence's label as a network gave it, beside the rule system's.
struct Labeled<'a> {
    text: &'a str,
    prediction: &'a str,
    /// (label, probability), labels in the network's order.
    probabilities: &'a [(String, f64)],
    rules_label: Option<&'a str>,
}

impl<'a> Labeled<'a> {
    fn new(system: &'a RuleSystem, text: &'a str, view: &'a LineView) -> Labeled<'a> {
        let (prediction, probabilities) = view.prediction();
        Labeled {
            text,
            prediction,
            probabilities,
            rules_label: system
                .classify(text)
                .prediction
                .map(|l| system.labels()[l.index()].as_str()),
        }
    }

    /// The text output's first line: label, probability, the rules' label, the text
    /// ([`printable`]).
    fn header(&self) -> String {
        let p = (self.probabilities.iter())
            .find(|(label, _)| label == self.prediction)
            .map_or(f64::NAN, |(_, p)| *p);
        format!(
            "{} {p:.3}  (rules: {})  {}",
            self.prediction,
            self.rules_label.unwrap_or("none"),
            printable(self.text)
        )
    }

    /// The JSON output's line, with `patterns`.
    fn json(&self, patterns: Vec<serde_json::Value>) -> serde_json::Value {
        json!({
            "text": self.text,
            "label": self.prediction,
            "probabilities": self.probabilities.iter()
                .map(|(name, p)| (name.clone(), json!(rounded(*p))))
                .collect::<serde_json::Map<_, _>>(),
            "rules_label": self.rules_label,
            "patterns": patterns,
        })
    }
}

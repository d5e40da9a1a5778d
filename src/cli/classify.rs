//! `rulelens classify RULES [TEXT]... [--format text|json] [--expect LABEL]`: what the rules
//! alone say about each sentence (the arguments, or else each line of standard input): the
//! label, the rule that decided it and every rule that fired with the spans it matched; with
//! `--expect`, why each pattern of that label did not match, as the editor's corpus-line
//! hover says it (`ide::missed_patterns`). No trained network is needed.

use super::files::{Shown, load_rules, print_diagnostics, sentences};
use super::output::Format;
use crate::cli::CANNOT_WRITE_STDOUT;
use anyhow::Context as _;
use rulelens::automata::CompileConfig;
use rulelens::ide::{Miss, MissedPattern, missed_patterns, why_missed};
use rulelens::labeling::{LabelingRule, Verdict, labeling_rules, verdict};
use rulelens::limits::ReadLimits;
use rulelens::rules_file::RulesFile;
use rulelens::syntax::LabelId;
use rulelens::text::printable;
use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use text_size::TextRange;

/// `rulelens classify`'s arguments.
#[derive(clap::Args)]
pub struct ClassifyArgs {
    /// The `.rules` file.
    rules: PathBuf,
    /// Sentences to classify; none: every line of standard input.
    texts: Vec<String>,
    /// `json` prints one JSON object per sentence and line.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Also say why each pattern of this label did not match, as the editor's hover
    /// over a misclassified corpus line does.
    #[arg(long, value_name = "LABEL")]
    expect: Option<String>,
    /// How many of the expected label's missed patterns the text output lists.
    #[arg(long, value_name = "N", default_value_t = rulelens::ide::DEFAULT_MAX_LISTED)]
    max_listed: usize,
}

pub fn run(args: ClassifyArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let ClassifyArgs {
        rules,
        texts,
        format: output,
        expect,
        max_listed,
    } = args;
    let (rules_path, expect) = (rules.as_path(), expect.as_deref());
    let loaded = load_rules(rules_path, &CompileConfig::default(), read_limits)?;
    if loaded.has_errors() {
        print_diagnostics(&Shown::of_rules(&loaded), &loaded.diagnostics);
        eprintln!(
            "error: {} has errors; fix them before classifying",
            rules_path.display()
        );
        return Ok(ExitCode::from(1));
    }
    let system = &loaded.system;
    let expected = match expect {
        None => None,
        Some(name) => match system.label_by_name(name) {
            Some(label) => Some(label),
            None => {
                eprintln!(
                    "error: --expect {name}: the rules have no label `{name}` (their labels: {})",
                    system.labels().join(", ")
                );
                return Ok(ExitCode::from(2));
            }
        },
    };
    let rules = labeling_rules(&loaded);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    for text in sentences(texts, read_limits)? {
        let said = verdict(&loaded, &text);
        let missed = match expected {
            Some(label) => {
                let classification = system.classify(&text);
                Some(missed_patterns(
                    &loaded,
                    label,
                    &text,
                    &classification.matched,
                ))
            }
            None => None,
        };
        let sentence = Sentence {
            file: &loaded,
            rules: &rules,
            text: &text,
            max_listed,
        };
        match output {
            Format::Json => {
                let line = sentence.json(&said, expected, missed.as_deref());
                writeln!(out, "{line}").context(CANNOT_WRITE_STDOUT)?
            }
            Format::Text => write!(
                out,
                "{}",
                printable(&sentence.text(&said, expected, missed.as_deref()))
            )
            .context(CANNOT_WRITE_STDOUT)?,
        }
    }
    out.flush().context(CANNOT_WRITE_STDOUT)?;
    Ok(ExitCode::SUCCESS)
}

/// One sentence and the rules it is classified by, for printing.
struct Sentence<'a> {
    file: &'a RulesFile,
    rules: &'a [LabelingRule],
    text: &'a str,
    /// How many missed patterns the text output lists.
    max_listed: usize,
}

impl Sentence<'_> {
    fn label(&self, index: Option<usize>) -> String {
        index.map_or("none".to_string(), |i| self.file.system.labels()[i].clone())
    }

    fn slice(&self, range: TextRange) -> &str {
        self.text
            .get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
    }

    /// `spam@32 (line 32: $* claim $*)`
    fn rule(&self, index: usize) -> String {
        let rule = &self.rules[index];
        let arrow = if rule.formula { "<-" } else { ":" };
        format!(
            "{} (line {}: {}{arrow} {})",
            rule.name,
            rule.line,
            self.file.system.labels()[rule.label],
            rule.body
        )
    }

    fn spans(&self, spans: &[TextRange]) -> String {
        spans
            .iter()
            .map(|&span| format!("{:?}", self.slice(span)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn text(
        &self,
        said: &Verdict,
        expected: Option<LabelId>,
        missed: Option<&[MissedPattern]>,
    ) -> String {
        let mut out = format!("{}  {}\n", self.label(said.prediction), self.text);
        match said.decider {
            Some(rule) => out.push_str(&format!("    decided by {}\n", self.rule(rule))),
            None if said.prediction.is_some() => {
                out.push_str("    no rule fired: the default decided\n")
            }
            None => out.push_str("    no rule fired and there is no default\n"),
        }
        for fired in &said.fired {
            let spans = self.spans(&fired.spans);
            let at = if spans.is_empty() {
                String::new()
            } else {
                format!("  at {spans}")
            };
            out.push_str(&format!("    fired: {}{at}\n", self.rule(fired.rule)));
        }
        if let (Some(label), Some(missed)) = (expected, missed) {
            let name = &self.file.system.labels()[label.index()];
            if said.prediction == Some(label.index()) {
                out.push_str(&format!("    expected {name}: predicted\n"));
            } else {
                out.push_str(&format!(
                    "    expected {name}; its patterns that did not match, the closest first:\n"
                ));
                for miss in missed.iter().take(self.max_listed) {
                    out.push_str(&format!(
                        "      {}: {}\n",
                        miss.pattern,
                        why_missed(miss, self.text)
                    ));
                }
                if missed.len() > self.max_listed {
                    out.push_str(&format!(
                        "      … and {} more (--max-listed, or --format json for all)\n",
                        missed.len() - self.max_listed
                    ));
                }
            }
        }
        out
    }

    fn json(
        &self,
        said: &Verdict,
        expected: Option<LabelId>,
        missed: Option<&[MissedPattern]>,
    ) -> Value {
        let span = |range: TextRange| {
            let start = usize::from(range.start());
            let end = usize::from(range.end());
            json!({
                "start": self.text[..start].chars().count(),
                "end": self.text[..end].chars().count(),
                "text": self.slice(range),
            })
        };
        let rule = |index: usize| {
            let rule = &self.rules[index];
            json!({ "id": index, "name": rule.name, "line": rule.line,
                    "label": self.file.system.labels()[rule.label] })
        };
        let mut line = json!({
            "text": self.text,
            "label": said.prediction.map(|i| self.file.system.labels()[i].clone()),
            "rule": said.decider.map(rule),
            "fired": said.fired.iter().map(|fired| {
                let mut value = rule(fired.rule);
                value["spans"] = fired.spans.iter().map(|&s| span(s)).collect();
                value
            }).collect::<Vec<_>>(),
        });
        if let (Some(label), Some(missed)) = (expected, missed) {
            line["expected"] = json!({
                "label": self.file.system.labels()[label.index()],
                "missed": missed.iter().map(|miss| {
                    let mut value = json!({ "pattern": miss.pattern, "matched": miss.matched });
                    match &miss.miss {
                        Miss::Mismatch { expected, found } => {
                            value["failure"] = json!("mismatch");
                            value["expected"] = json!(expected);
                            value["found"] = found.iter().map(|&r| span(r)).collect();
                        }
                        Miss::Ended { expected } => {
                            value["failure"] = json!("ended");
                            value["expected"] = json!(expected);
                        }
                        Miss::Continues { found } => {
                            value["failure"] = json!("continues");
                            value["found"] = json!([span(*found)]);
                        }
                    }
                    value
                }).collect::<Vec<_>>(),
            });
        }
        line
    }
}

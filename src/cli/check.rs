//! `rulelens check RULES [--corpus FILE]... [--format text|json]`: diagnostics, then the
//! exact rule system's figures on each corpus (the `corpus` bindings by default).
//! The JSON schema is documented in `docs/cli.md`.

use super::files::{
    AutomataLimits, Shown, corpus_targets, diagnostic_json, load_rules, print_diagnostics, summary,
};
use super::output::Format;
use super::table::{Table, percent};
use crate::cli::{out, outln_data};
use rulelens::automata::Evaluation;
use rulelens::corpus::{self, CorpusFile};
use rulelens::diagnostic::{Diagnostic, LintLists};
use rulelens::labeling::{
    CorpusFigures, Estimates, LabelModelError, RuleSummary, corpus_figures, labeling_rules,
};
use rulelens::limits::ReadLimits;
use rulelens::report::misclassified;
use rulelens::rules_file::RulesFile;
use rulelens::text::LineIndex;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The widest confusion matrix `check` prints (rule labels, and `(none)`); past it, the
/// nonzero cells as a list.
const MAX_CONFUSION_COLUMNS: usize = 12;

struct EvaluatedCorpus {
    name: String,
    file: CorpusFile,
    line_index: LineIndex,
    diagnostics: Vec<Diagnostic>,
    evaluation: Evaluation,
    /// Each rule's figures, in file order.
    rules: Vec<RuleSummary>,
    /// Where some line has no gold label: what the rules' label model estimates.
    estimates: Option<Result<Estimates, LabelModelError>>,
}

impl EvaluatedCorpus {
    fn shown(&self) -> Shown<'_> {
        Shown {
            path: &self.file.path,
            text: &self.file.source.text,
            index: &self.line_index,
        }
    }
}

/// How `rulelens check` prints its figures (diagnostics always go to standard error).
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Output {
    /// Every table, and the first `show_errors` misclassified lines of each corpus.
    Full {
        show_errors: usize,
    },
    /// No per-pattern table.
    Summary {
        show_errors: usize,
    },
    /// No figures.
    Quiet,
    Json,
}

/// `rulelens check`'s arguments.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The `.rules` file.
    rules: PathBuf,
    /// A labeled corpus (.tsv or .jsonl); repeat for several. Default: the rules
    /// file's own `corpus` bindings.
    #[arg(long = "corpus", value_name = "FILE")]
    corpora: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    #[command(flatten)]
    limits: AutomataLimits,
    #[command(flatten)]
    lints: LintLists,
    /// Text output: each corpus's accuracy, label and confusion tables, without the
    /// per-pattern table.
    #[arg(long, conflicts_with = "quiet")]
    summary: bool,
    /// Text output: the diagnostics and their count only, no figures (a CI gate).
    #[arg(long)]
    quiet: bool,
    /// Text output: list each corpus's first N misclassified lines, with the rule that
    /// decided and the gold label's nearest miss.
    #[arg(long, value_name = "N", default_value_t = 0)]
    show_errors: usize,
}

impl CheckArgs {
    /// How the figures are printed.
    fn output(&self) -> Output {
        let show_errors = self.show_errors;
        match (self.format, self.quiet, self.summary) {
            (Format::Json, _, _) => Output::Json,
            (Format::Text, true, _) => Output::Quiet,
            (Format::Text, _, true) => Output::Summary { show_errors },
            (Format::Text, _, _) => Output::Full { show_errors },
        }
    }
}

pub fn run(args: CheckArgs, read_limits: &ReadLimits) -> anyhow::Result<ExitCode> {
    let output = args.output();
    let (rules_path, corpus_paths) = (args.rules.as_path(), args.corpora.as_slice());
    let (config, lints) = (&args.limits.config(), &args.lints.levels());
    let mut loaded = load_rules(rules_path, config, read_limits)?;
    // Figures of a file with errors would be those of what the parser recovered.
    let broken = loaded.has_errors();
    lints.apply(&mut loaded.diagnostics);
    let targets = corpus_targets(&loaded, rules_path, corpus_paths);
    let mut read_errors = Vec::new();
    let mut corpora = Vec::new();
    for (name, path) in targets {
        match corpus::read_file(&path, read_limits) {
            Ok(file) => {
                let mut corpus = evaluate_corpus(&loaded, name, file);
                lints.apply(&mut corpus.diagnostics);
                corpora.push(corpus)
            }
            Err(error) => read_errors.push(error.to_string()),
        }
    }

    let all_diagnostics: Vec<&Diagnostic> = loaded
        .diagnostics
        .iter()
        .chain(corpora.iter().flat_map(|c| &c.diagnostics))
        .collect();
    let failed = !read_errors.is_empty() || all_diagnostics.iter().any(|d| d.is_error());

    if output == Output::Json {
        let report = json_report(&loaded, &corpora, &read_errors);
        outln_data!("{}", serde_json::to_string_pretty(&report)?)?;
    } else {
        print_diagnostics(&Shown::of_rules(&loaded), &loaded.diagnostics);
        for corpus in &corpora {
            print_diagnostics(&corpus.shown(), &corpus.diagnostics);
        }
        for error in &read_errors {
            eprintln!("error: {error}");
        }
        if let Some(summary) = summary(&all_diagnostics) {
            eprintln!("{}: {summary}", rules_path.display());
        }
        let (pattern_table, show_errors) = match output {
            Output::Full { show_errors } => (true, show_errors),
            Output::Summary { show_errors } => (false, show_errors),
            Output::Quiet | Output::Json => return Ok(ExitCode::from(u8::from(failed))),
        };
        if broken {
            eprintln!(
                "{}: no figures while the rules have errors (they would be those of the recovered file)",
                rules_path.display()
            );
        } else {
            out!(
                "{}",
                text_report(rules_path, &loaded, &corpora, pattern_table, show_errors)
            )?;
        }
    }
    Ok(ExitCode::from(u8::from(failed)))
}

fn evaluate_corpus(loaded: &RulesFile, name: String, file: CorpusFile) -> EvaluatedCorpus {
    let system = &loaded.system;
    let mut diagnostics = file.diagnostics.clone();
    diagnostics.extend(corpus::check_labels(&file.examples, |label| {
        system.label_by_name(label).is_some()
    }));
    diagnostics.sort_by_key(|d| d.range.start());
    let CorpusFigures {
        evaluation,
        rules,
        estimates,
    } = corpus_figures(loaded, &labeling_rules(loaded), &file.examples);
    EvaluatedCorpus {
        name,
        line_index: LineIndex::new(&file.source.text),
        file,
        diagnostics,
        evaluation,
        rules,
        estimates,
    }
}

fn text_report(
    rules_path: &Path,
    loaded: &RulesFile,
    corpora: &[EvaluatedCorpus],
    pattern_table: bool,
    show_errors: usize,
) -> String {
    let system = &loaded.system;
    let mut out = String::new();
    let n_states: usize = system
        .patterns()
        .iter()
        .filter_map(|p| p.dfa.as_ref())
        .map(|dfa| dfa.n_states())
        .sum();
    out.push_str(&format!(
        "{}: {} patterns, {} labels ({}), default {}, {} DFA states\n",
        rules_path.display(),
        system.patterns().len(),
        system.labels().len(),
        system.labels().join(" > "),
        system
            .default_label()
            .map_or("none", |l| system.labels()[l.index()].as_str()),
        n_states
    ));
    if corpora.is_empty() {
        out.push_str(
            "no corpus: bind one with `corpus train \"train.tsv\"` or pass --corpus FILE\n",
        );
    }
    for corpus in corpora {
        let e = &corpus.evaluation;
        out.push_str(&format!(
            "\ncorpus {} ({}): {} examples, {} labeled\n",
            corpus.name,
            corpus.file.path.display(),
            e.n_examples,
            e.n_labeled
        ));
        out.push_str(&format!(
            "  accuracy {}   coverage {}   default-only accuracy {}\n",
            percent(e.accuracy()),
            percent(e.coverage()),
            percent(e.default_accuracy())
        ));
        match &corpus.estimates {
            Some(Ok(estimates)) => {
                let balance: Vec<String> = system
                    .labels()
                    .iter()
                    .zip(&estimates.class_balance)
                    .map(|(label, share)| format!("{label} {}", percent(Some(*share))))
                    .collect();
                out.push_str(&format!(
                    "  estimated accuracy {} on {} lines, {} without a gold label (the rules' label model; estimated labels: {})\n",
                    percent(estimates.accuracy),
                    estimates.n_lines,
                    estimates.n_unlabeled,
                    balance.join(", ")
                ));
            }
            Some(Err(error)) => out.push_str(&format!(
                "  no estimates for the unlabeled lines: {error}\n"
            )),
            None => {}
        }
        out.push('\n');
        let mut labels =
            Table::new(&["label", "support", "predicted", "precision", "recall", "f1"]);
        for (name, metrics) in e.label_names.iter().zip(&e.labels) {
            labels.row(vec![
                name.clone(),
                metrics.support.to_string(),
                metrics.predicted.to_string(),
                percent(metrics.precision()),
                percent(metrics.recall()),
                percent(metrics.f1()),
            ]);
        }
        out.push_str(&labels.render("  "));

        let unpredicted = e
            .confusion_cells
            .iter()
            .any(|&((_, p), n)| p.is_none() && n > 0);
        let columns = e.n_rule_labels + usize::from(unpredicted);
        let mut header = vec!["gold \\ predicted"];
        let mut confusion;
        if columns <= MAX_CONFUSION_COLUMNS {
            header.extend(
                e.label_names
                    .iter()
                    .take(e.n_rule_labels)
                    .map(String::as_str),
            );
            if unpredicted {
                header.push("(none)");
            }
            confusion = Table::new(&header);
            for (gold, name) in e.label_names.iter().enumerate() {
                let mut cells = vec![name.clone()];
                cells.extend((0..e.n_rule_labels).map(|p| e.confusion(gold, Some(p)).to_string()));
                if unpredicted {
                    cells.push(e.confusion(gold, None).to_string());
                }
                confusion.row(cells);
            }
        } else {
            // Too many labels for a matrix: its nonzero cells, most frequent first.
            confusion = Table::new(&["gold", "predicted", "examples"]);
            let mut cells = e.confusion_cells.clone();
            cells.sort_by_key(|&(cell, n)| (std::cmp::Reverse(n), cell));
            for ((gold, predicted), n) in cells {
                let predicted = predicted.map_or("(none)", |p| e.label_names[p].as_str());
                confusion.row(vec![
                    e.label_names[gold].clone(),
                    predicted.to_string(),
                    n.to_string(),
                ]);
            }
        }
        out.push('\n');
        out.push_str(&confusion.render("  "));
        if show_errors > 0 {
            out.push_str(&misclassified_lines(loaded, corpus, show_errors));
        }
    }
    if pattern_table && !corpora.is_empty() {
        out.push('\n');
        out.push_str(&rules_table(loaded, corpora).render("  "));
    }
    out
}

/// One table of the rules and named patterns in file order, with a column group per corpus:
/// how many lines each matched (a rule: fired on), its precision and recall for its label,
/// and (a rule) on how many lines it decided the prediction. Formula rules
/// (`LABEL <- FORMULA`) have their own rows; a named pattern's figures are its matches'.
fn rules_table(loaded: &RulesFile, corpora: &[EvaluatedCorpus]) -> Table {
    let system = &loaded.system;
    let rules = labeling_rules(loaded);
    let mut header = vec!["rule or pattern".to_string(), "label".into(), "line".into()];
    for corpus in corpora {
        header.push(format!("{} matches", corpus.name));
        if corpus.evaluation.n_labeled > 0 {
            header.extend(["precision".into(), "recall".into()]);
        }
        if corpus.estimates.is_some() {
            header.extend([
                "coverage".into(),
                "overlaps".into(),
                "conflicts".into(),
                "est. precision".into(),
            ]);
        }
        header.push("decided".into());
    }
    let header: Vec<&str> = header.iter().map(String::as_str).collect();
    let mut table = Table::new(&header);
    // (line, row): the rules, then the named patterns, merged in file order.
    let mut rows: Vec<(u32, Vec<String>)> = Vec::new();
    for (index, rule) in rules.iter().enumerate() {
        let name = if rule.formula {
            format!("{} <- {}", rule.name, rule.body)
        } else {
            rule.name.clone()
        };
        let mut row = vec![
            name,
            system.labels()[rule.label].clone(),
            rule.line.to_string(),
        ];
        for (corpus, summary) in corpora.iter().map(|corpus| (corpus, &corpus.rules[index])) {
            row.push(summary.fired().to_string());
            if corpus.evaluation.n_labeled > 0 {
                row.extend([percent(summary.precision), percent(summary.recall)]);
            }
            if let Some(estimates) = &corpus.estimates {
                let estimated = estimates.as_ref().ok().and_then(|e| e.precision[index]);
                row.extend([
                    percent(Some(summary.coverage)),
                    percent(Some(summary.overlaps)),
                    percent(Some(summary.conflicts)),
                    percent(estimated),
                ]);
            }
            row.push(summary.decided.to_string());
        }
        rows.push((rule.line, row));
    }
    for (index, (compiled, def)) in system
        .patterns()
        .iter()
        .zip(&loaded.rules.patterns)
        .enumerate()
    {
        if def.anonymous {
            continue;
        }
        let mut row = vec![
            format!("pattern {}", compiled.name),
            label_list(loaded, &compiled.labels),
            compiled.line.to_string(),
        ];
        for corpus in corpora {
            let metrics = &corpus.evaluation.patterns[index];
            row.push(metrics.matches.to_string());
            if corpus.evaluation.n_labeled > 0 {
                row.extend([percent(metrics.precision()), percent(metrics.recall())]);
            }
            if corpus.estimates.is_some() {
                row.extend([
                    percent(corpus.evaluation.pattern_coverage(index)),
                    "-".to_string(),
                    "-".to_string(),
                    "-".to_string(),
                ]);
            }
            row.push("-".to_string());
        }
        rows.push((compiled.line, row));
    }
    rows.sort_by_key(|(line, _)| *line);
    for (_, row) in rows {
        table.row(row);
    }
    table
}

/// The first `limit` lines of `corpus` whose gold label the rules do not predict, each with
/// the rule that decided (or the default) and the gold label's nearest miss
/// (`report::misclassified`, as `rulelens report` lists them).
fn misclassified_lines(loaded: &RulesFile, corpus: &EvaluatedCorpus, limit: usize) -> String {
    let system = &loaded.system;
    let rules = labeling_rules(loaded);
    let found = misclassified(loaded, &corpus.file.examples, limit);
    if found.total == 0 {
        return "\n  no misclassified lines\n".to_string();
    }
    let mut out = format!(
        "\n  misclassified lines ({} of {}):\n",
        found.lines.len(),
        found.total
    );
    for line in &found.lines {
        let predicted = line
            .predicted
            .map_or("none", |p| system.labels()[p].as_str());
        let decided = line
            .decider
            .map_or("the default".to_string(), |r| rules[r].name.clone());
        out.push_str(&format!(
            "  line {}: gold {}, predicted {predicted} by {decided}: {}\n",
            line.line,
            system.labels()[line.gold],
            line.text
        ));
        match &line.nearest_miss {
            Some(miss) => out.push_str(&format!(
                "      nearest miss: {}: {}\n",
                miss.pattern, miss.why
            )),
            None => out.push_str("      no pattern of the gold label can say why\n"),
        }
    }
    out
}

fn label_list(loaded: &RulesFile, labels: &[rulelens::syntax::LabelId]) -> String {
    let names: Vec<&str> = labels
        .iter()
        .map(|l| loaded.system.labels()[l.index()].as_str())
        .collect();
    if names.is_empty() {
        "-".to_string()
    } else {
        names.join(",")
    }
}

fn json_report(loaded: &RulesFile, corpora: &[EvaluatedCorpus], read_errors: &[String]) -> Value {
    let system = &loaded.system;
    let mut diagnostics: Vec<Value> = loaded
        .diagnostics
        .iter()
        .map(|d| diagnostic_json(&Shown::of_rules(loaded), d))
        .collect();
    for corpus in corpora {
        let shown = corpus.shown();
        diagnostics.extend(
            corpus
                .diagnostics
                .iter()
                .map(|d| diagnostic_json(&shown, d)),
        );
    }
    let corpora_json: Vec<Value> = corpora.iter().map(|c| corpus_json(loaded, c)).collect();
    let mut report = json!({
        "rules": Shown::of_rules(loaded).path.display().to_string(),
        "default": system.default_label().map(|l| system.labels()[l.index()].clone()),
        "diagnostics": diagnostics,
        "errors": read_errors,
        "corpora": corpora_json,
    });
    // The first corpus's figures also stand at the top level, so that a single-corpus
    // report reads `.accuracy`; without a corpus they are null and the pattern list is
    // static.
    let primary = corpora_json.first().cloned().unwrap_or_else(|| {
        json!({
            "corpus": null,
            "path": null,
            "examples": 0,
            "labeled": 0,
            "accuracy": null,
            "coverage": null,
            "default_accuracy": null,
            "labels": system.labels().iter().map(|name| json!({ "name": name })).collect::<Vec<_>>(),
            "confusion": {},
            "patterns": system.patterns().iter().map(|p| pattern_static_json(loaded, p)).collect::<Vec<_>>(),
        })
    });
    if let (Some(report), Some(primary)) = (report.as_object_mut(), primary.as_object()) {
        for (key, value) in primary {
            report.insert(key.clone(), value.clone());
        }
    }
    report
}

fn pattern_static_json(
    loaded: &RulesFile,
    compiled: &rulelens::automata::CompiledPattern,
) -> Value {
    let labels: Vec<&str> = compiled
        .labels
        .iter()
        .map(|l| loaded.system.labels()[l.index()].as_str())
        .collect();
    json!({
        "name": compiled.name,
        "label": labels.first(),
        "labels": labels,
        "line": compiled.line,
        "dfa_states": compiled.dfa.as_ref().map(|dfa| dfa.n_states()),
    })
}

fn corpus_json(loaded: &RulesFile, corpus: &EvaluatedCorpus) -> Value {
    let e = &corpus.evaluation;
    let labels: Vec<Value> = e
        .label_names
        .iter()
        .zip(&e.labels)
        .enumerate()
        .map(|(i, (name, m))| {
            json!({
                "name": name,
                "in_rules": i < e.n_rule_labels,
                "support": m.support,
                "predicted": m.predicted,
                "precision": m.precision(),
                "recall": m.recall(),
                "f1": m.f1(),
            })
        })
        .collect();
    let mut confusion = serde_json::Map::new();
    for &((gold, predicted), count) in &e.confusion_cells {
        let predicted = predicted.map_or("(none)", |p| e.label_names[p].as_str());
        let row = confusion
            .entry(e.label_names[gold].clone())
            .or_insert_with(|| Value::Object(serde_json::Map::new()));
        if let Value::Object(row) = row {
            row.insert(predicted.to_string(), json!(count));
        }
    }
    let patterns: Vec<Value> = loaded
        .system
        .patterns()
        .iter()
        .zip(&e.patterns)
        .enumerate()
        .map(|(index, (compiled, m))| {
            let mut value = pattern_static_json(loaded, compiled);
            let fields = json!({
                "matches": m.matches,
                "coverage": e.pattern_coverage(index),
                "precision": m.precision(),
                "recall": m.recall(),
                "overlaps": m.overlaps,
                "conflicts": m.conflicts,
                "correct": m.correct,
                "incorrect": m.incorrect,
            });
            if let (Some(value), Some(fields)) = (value.as_object_mut(), fields.as_object()) {
                value.extend(fields.clone());
            }
            value
        })
        .collect();
    let rules = labeling_rules(loaded);
    let estimates = corpus.estimates.as_ref().and_then(|e| e.as_ref().ok());
    let rules_json: Vec<Value> = rules
        .iter()
        .zip(&corpus.rules)
        .enumerate()
        .map(|(index, (rule, summary))| {
            json!({
                "name": rule.name,
                "label": loaded.system.labels()[rule.label],
                "line": rule.line,
                "formula": rule.formula,
                "body": rule.body,
                "fired": summary.fired(),
                "fired_unlabeled": summary.unlabeled,
                "coverage": summary.coverage,
                "overlaps": summary.overlaps,
                "conflicts": summary.conflicts,
                "precision": summary.precision,
                "recall": summary.recall,
                "estimated_precision": estimates.and_then(|e| e.precision[index]),
                "decided": summary.decided,
                "decided_correct": summary.decided_correct,
            })
        })
        .collect();
    let class_balance = estimates.map(|e| {
        loaded
            .system
            .labels()
            .iter()
            .zip(&e.class_balance)
            .map(|(label, share)| (label.clone(), json!(share)))
            .collect::<serde_json::Map<String, Value>>()
    });
    json!({
        "corpus": corpus.name,
        "path": corpus.file.path.display().to_string(),
        "examples": e.n_examples,
        "labeled": e.n_labeled,
        "correct": e.n_correct,
        "covered": e.n_covered,
        "accuracy": e.accuracy(),
        "coverage": e.coverage(),
        "default_accuracy": e.default_accuracy(),
        "unlabeled": e.n_examples - e.n_labeled,
        "estimated_accuracy": estimates.and_then(|e| e.accuracy),
        "estimated_class_balance": class_balance,
        "estimates_error": corpus.estimates.as_ref().and_then(|e| e.as_ref().err()).map(|e| e.to_string()),
        "labels": labels,
        "confusion": confusion,
        "patterns": patterns,
        "rule_figures": rules_json,
    })
}

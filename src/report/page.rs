//! The report as one self-contained HTML page, rendered by minijinja from
//! `templates/report.html` (compiled in with `include_str!`), with HTML escaping on: every
//! rules and corpus text goes through the template's escaping, and only the SVG that
//! plotters wrote (which escapes its own text) is inserted as is.
//!
//! The values the template reads are this module's own view types, numbers already
//! formatted, each sortable cell with its sort key; the page's CSS and its small script
//! (sorting and filtering the rules table) are inline, and its Content-Security-Policy
//! forbids loading anything from elsewhere.

use crate::report::charts::{
    self, Chart, ChartError, HoverPoint, bench_accuracy, confusion_heatmap, precision_coverage,
};
use crate::report::data::{CorpusReport, Report, TrainingCurve};
use crate::suggest::Suggestion;
use serde::Serialize;

/// The page's template.
const TEMPLATE: &str = include_str!("templates/report.html");

/// The columns of the rules table for each corpus, in order.
const CORPUS_COLUMNS: [&str; 8] = [
    "matches",
    "coverage",
    "precision",
    "recall",
    "decided",
    "overlaps",
    "conflicts",
    "est. precision",
];

/// Why the page could not be rendered.
#[derive(Debug)]
pub enum RenderError {
    Chart(ChartError),
    Template(minijinja::Error),
}

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenderError::Chart(error) => error.fmt(f),
            RenderError::Template(error) => write!(f, "rendering the report failed: {error:#}"),
        }
    }
}

impl std::error::Error for RenderError {}

impl From<ChartError> for RenderError {
    fn from(error: ChartError) -> RenderError {
        RenderError::Chart(error)
    }
}

impl From<minijinja::Error> for RenderError {
    fn from(error: minijinja::Error) -> RenderError {
        RenderError::Template(error)
    }
}

#[derive(Serialize)]
struct Page {
    rules_path: String,
    version: &'static str,
    labels: Vec<String>,
    default_label: Option<String>,
    n_rules: usize,
    corpora: Vec<CorpusView>,
    table: TableView,
    curves: Option<ChartView>,
    curves_note: Option<String>,
    bench: Option<ChartView>,
    suggestions: Option<Vec<SuggestionView>>,
}

#[derive(Serialize)]
struct CorpusView {
    name: String,
    path: String,
    examples: usize,
    labeled: usize,
    accuracy: String,
    coverage: String,
    default_accuracy: String,
    confusion: ChartView,
    precision_coverage: Option<ChartView>,
    misclassified: Vec<MisclassifiedView>,
    misclassified_total: usize,
}

#[derive(Serialize)]
struct ChartView {
    id: String,
    title: String,
    width: u32,
    height: u32,
    svg: String,
    points: Vec<PointView>,
}

/// A chart's point with its hover title, in the SVG's pixels.
#[derive(Serialize)]
struct PointView {
    x: i32,
    y: i32,
    title: String,
}

impl ChartView {
    fn new(id: String, title: String, chart: Chart) -> ChartView {
        ChartView {
            id,
            title,
            width: chart.width,
            height: chart.height,
            svg: chart.svg,
            points: chart
                .points
                .into_iter()
                .map(|HoverPoint { x, y, title }| PointView { x, y, title })
                .collect(),
        }
    }
}

#[derive(Serialize)]
struct TableView {
    corpora: Vec<String>,
    /// Every sortable column's header, in order.
    columns: Vec<ColumnView>,
    rows: Vec<RowView>,
}

/// A column's header, and its name with the corpus's, shown on hover.
#[derive(Serialize)]
struct ColumnView {
    name: String,
    title: String,
}

#[derive(Serialize)]
struct RowView {
    cells: Vec<CellView>,
}

/// A table cell: what it shows, its sort key (a number, or text; empty sorts last), and
/// whether it is text.
#[derive(Serialize)]
struct CellView {
    text: String,
    sort: String,
    kind: &'static str,
}

impl CellView {
    fn text(text: String) -> CellView {
        CellView {
            sort: text.clone(),
            text,
            kind: "text",
        }
    }

    fn number(text: String, value: Option<f64>) -> CellView {
        CellView {
            text,
            sort: value.map_or_else(String::new, |v| v.to_string()),
            kind: "number",
        }
    }
}

#[derive(Serialize)]
struct MisclassifiedView {
    line: u32,
    text: String,
    gold: String,
    predicted: String,
    decided_by: String,
    miss_pattern: Option<String>,
    miss_why: Option<String>,
}

#[derive(Serialize)]
struct SuggestionView {
    edit: String,
    source: String,
    train_matches: usize,
    train_precision: String,
    fixed: usize,
    broken: usize,
    dev_before: String,
    dev_after: String,
    dev_gain: String,
}

fn percent(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(
        || "–".to_string(),
        |v| format!("{:.*} %", decimals, 100.0 * v),
    )
}

/// Renders `report` as a self-contained HTML page.
pub fn render(report: &Report) -> Result<String, RenderError> {
    let corpora = report
        .corpora
        .iter()
        .enumerate()
        .map(|(index, corpus)| corpus_view(report, index, corpus))
        .collect::<Result<Vec<_>, RenderError>>()?;
    // Every name a figure has starts with an ASCII letter.
    let measured = TrainingCurve::measured(&report.curves);
    let curves = if report.curves.is_empty() {
        None
    } else {
        Some(ChartView::new(
            "training-curves".into(),
            format!(
                "{}{} per epoch of the networks the model cache holds for these rules",
                measured[..1].to_uppercase(),
                &measured[1..]
            ),
            charts::training_curves(&report.curves)?,
        ))
    };
    let mut notes = Vec::new();
    if report.omitted_curves > 0 {
        notes.push(format!(
            "{} older checkpoints are not drawn.",
            report.omitted_curves
        ));
    }
    if report.unrecorded_checkpoints > 0 {
        notes.push(format!(
            "{} checkpoints were trained before rulelens recorded dev accuracy per epoch.",
            report.unrecorded_checkpoints
        ));
    }
    let bench = if report.bench.is_empty() {
        None
    } else {
        Some(ChartView::new(
            "bench".into(),
            "Dev accuracy against the share of train (rulelens bench)".into(),
            bench_accuracy(&report.bench)?,
        ))
    };
    let page = Page {
        rules_path: report.rules_path.display().to_string(),
        version: env!("CARGO_PKG_VERSION"),
        labels: report.labels.clone(),
        default_label: report.default_label.clone(),
        n_rules: report.rules.len(),
        corpora,
        table: table_view(report),
        curves,
        curves_note: (!notes.is_empty()).then(|| notes.join(" ")),
        bench,
        suggestions: report
            .suggestions
            .as_ref()
            .map(|list| list.iter().map(suggestion_view).collect()),
    };
    let mut env = minijinja::Environment::new();
    // `.html`: minijinja escapes every value for HTML unless marked `safe`.
    env.add_template("report.html", TEMPLATE)?;
    Ok(env
        .get_template("report.html")?
        .render(minijinja::value::Serde(&page))?)
}

fn corpus_view(
    report: &Report,
    index: usize,
    corpus: &CorpusReport,
) -> Result<CorpusView, RenderError> {
    let e = &corpus.evaluation;
    let labels = &report.labels;
    let confusion = ChartView::new(
        format!("confusion-{index}"),
        format!("Confusion matrix on {}", corpus.name),
        confusion_heatmap(e)?,
    );
    let precision_coverage = if corpus.rules.iter().any(|s| s.precision.is_some()) {
        Some(ChartView::new(
            format!("precision-coverage-{index}"),
            format!("Precision against coverage of each rule on {}", corpus.name),
            precision_coverage(&report.rules, &corpus.rules, labels)?,
        ))
    } else {
        None
    };
    let label = |index: Option<usize>| index.map_or("none".to_string(), |l| labels[l].clone());
    let misclassified = corpus
        .misclassified
        .lines
        .iter()
        .map(|line| MisclassifiedView {
            line: line.line,
            text: line.text.clone(),
            gold: labels[line.gold].clone(),
            predicted: label(line.predicted),
            decided_by: line.decider.map_or_else(
                || "the default".to_string(),
                |rule| {
                    let rule = &report.rules[rule];
                    format!("{} (line {})", rule.name, rule.line)
                },
            ),
            miss_pattern: line.nearest_miss.as_ref().map(|m| m.pattern.clone()),
            miss_why: line.nearest_miss.as_ref().map(|m| m.why.clone()),
        })
        .collect();
    Ok(CorpusView {
        name: corpus.name.clone(),
        path: corpus.path.display().to_string(),
        examples: e.n_examples,
        labeled: e.n_labeled,
        accuracy: percent(e.accuracy(), 2),
        coverage: percent(e.coverage(), 2),
        default_accuracy: percent(e.default_accuracy(), 2),
        confusion,
        precision_coverage,
        misclassified,
        misclassified_total: corpus.misclassified.total,
    })
}

fn table_view(report: &Report) -> TableView {
    let mut columns: Vec<ColumnView> = ["rule", "label", "line", "text"]
        .into_iter()
        .map(|name| ColumnView {
            name: name.to_string(),
            title: name.to_string(),
        })
        .collect();
    for corpus in &report.corpora {
        columns.extend(CORPUS_COLUMNS.iter().map(|column| ColumnView {
            name: column.to_string(),
            title: format!("{column} on {}", corpus.name),
        }));
    }
    let rows = report
        .rules
        .iter()
        .enumerate()
        .map(|(index, rule)| {
            let mut cells = vec![
                CellView::text(rule.name.clone()),
                CellView::text(report.labels[rule.label].clone()),
                CellView::number(rule.line.to_string(), Some(f64::from(rule.line))),
                CellView::text(if rule.formula {
                    format!("<- {}", rule.body)
                } else {
                    rule.body.clone()
                }),
            ];
            for corpus in &report.corpora {
                let s = &corpus.rules[index];
                let matches = s.fired();
                let estimated = corpus.estimates.as_ref().and_then(|e| e.precision[index]);
                let decided = s.decided as f64;
                cells.extend([
                    CellView::number(matches.to_string(), Some(matches as f64)),
                    CellView::number(percent(Some(s.coverage), 2), Some(s.coverage)),
                    CellView::number(percent(s.precision, 1), s.precision),
                    CellView::number(percent(s.recall, 1), s.recall),
                    CellView::number(s.decided.to_string(), Some(decided)),
                    CellView::number(percent(Some(s.overlaps), 2), Some(s.overlaps)),
                    CellView::number(percent(Some(s.conflicts), 2), Some(s.conflicts)),
                    CellView::number(percent(estimated, 1), estimated),
                ]);
            }
            RowView { cells }
        })
        .collect();
    TableView {
        corpora: report.corpora.iter().map(|c| c.name.clone()).collect(),
        columns,
        rows,
    }
}

fn suggestion_view(suggestion: &Suggestion) -> SuggestionView {
    let evidence = &suggestion.evidence;
    SuggestionView {
        edit: suggestion.describe(),
        source: serde_json::to_value(suggestion.source)
            .ok()
            .and_then(|value| value.as_str().map(str::to_string))
            .unwrap_or_default(),
        train_matches: evidence.train_matches,
        train_precision: percent(Some(evidence.train_precision), 1),
        fixed: evidence.fixed,
        broken: evidence.broken,
        dev_before: percent(Some(evidence.dev_before), 2),
        dev_after: percent(Some(evidence.dev_after), 2),
        dev_gain: format!("{:+.2}", evidence.dev_gain()),
    }
}

//! The report's pictures, drawn as SVG by `plotters` (its SVG backend alone: text is written
//! as SVG `<text>` and laid out by the browser, so no font file is read; plotters only
//! estimates text sizes for its margins): a confusion matrix as a heatmap, each rule's
//! precision against its coverage, training curves and the bench's accuracy against the share
//! of train.
//!
//! plotters writes no tooltips, so each chart also returns its points in the SVG's pixel
//! coordinates with a title; the page lays a transparent circle with an SVG `<title>` over
//! each, which the browser shows on hover.

use crate::automata::Evaluation;
use crate::labeling::{LabelingRule, RuleSummary};
use crate::project::bench::{Cell, Contender};
use crate::report::data::TrainingCurve;
use plotters::coord::Shift;
use plotters::coord::ranged1d::SegmentValue;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One picture: the SVG plotters drew, its size in pixels, and the points to label on
/// hover.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub svg: String,
    pub width: u32,
    pub height: u32,
    pub points: Vec<HoverPoint>,
}

/// A point of a chart, in the SVG's pixels, with what hovering over it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HoverPoint {
    pub x: i32,
    pub y: i32,
    pub title: String,
}

/// plotters failed to draw (it writes into a `String`, so this is not expected; its
/// message is kept).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartError(String);

impl std::fmt::Display for ChartError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "drawing a chart failed: {}", self.0)
    }
}

impl std::error::Error for ChartError {}

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for ChartError {
    fn from(error: DrawingAreaErrorKind<E>) -> ChartError {
        ChartError(error.to_string())
    }
}

/// The colours of series and labels, in order (Okabe and Ito's palette for colour-blind
/// readers, without its yellow, then three more).
const PALETTE: [RGBColor; 10] = [
    RGBColor(0x00, 0x72, 0xB2),
    RGBColor(0xD5, 0x5E, 0x00),
    RGBColor(0x00, 0x9E, 0x73),
    RGBColor(0xCC, 0x79, 0xA7),
    RGBColor(0xE6, 0x9F, 0x00),
    RGBColor(0x56, 0xB4, 0xE9),
    RGBColor(0x00, 0x00, 0x00),
    RGBColor(0x88, 0x22, 0x55),
    RGBColor(0x44, 0xAA, 0x99),
    RGBColor(0x99, 0x99, 0x99),
];

fn colour(index: usize) -> RGBColor {
    PALETTE[index % PALETTE.len()]
}

/// The font family of every text plotters writes.
const FONT: &str = "sans-serif";

/// Draws into a `width` × `height` SVG with `draw`, which returns the hover points.
fn draw_svg(
    width: u32,
    height: u32,
    draw: impl FnOnce(&DrawingArea<SVGBackend<'_>, Shift>) -> Result<Vec<HoverPoint>, ChartError>,
) -> Result<Chart, ChartError> {
    let mut svg = String::new();
    let points = {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let points = draw(&root)?;
        root.present()?;
        points
    };
    Ok(Chart {
        svg,
        width,
        height,
        points,
    })
}

fn percent_label(value: &f64) -> String {
    format!("{:.0} %", 100.0 * value)
}

/// The confusion matrix of `evaluation` as a heatmap: a row per gold label (the rules'
/// labels in priority order, then the corpus's others), a column per predicted label (and
/// `(none)` when some line got no label), each cell shaded by its share of its row and
/// showing its count.
pub fn confusion_heatmap(evaluation: &Evaluation) -> Result<Chart, ChartError> {
    let e = evaluation;
    let unpredicted = e
        .confusion_cells
        .iter()
        .any(|&((_, predicted), n)| predicted.is_none() && n > 0);
    let columns: Vec<Option<usize>> = (0..e.n_rule_labels)
        .map(Some)
        .chain(unpredicted.then_some(None))
        .collect();
    let column_name =
        |column: Option<usize>| column.map_or("(none)", |p| e.label_names[p].as_str());
    let n_rows = e.label_names.len();
    let longest = e.label_names.iter().map(|n| n.len()).max().unwrap_or(4);
    let label_area = (8 * longest as u32 + 20).clamp(50, 200);
    let cell = 56u32;
    let width = label_area + 40 + cell * columns.len().max(1) as u32;
    let height = 90 + cell * n_rows.max(1) as u32;
    let row_totals: Vec<usize> = (0..n_rows)
        .map(|gold| columns.iter().map(|&c| e.confusion(gold, c)).sum())
        .collect();
    draw_svg(width, height, |root| {
        // Row `gold` is drawn at y = n_rows − 1 − gold, so that the first label is on top.
        let y_of = |gold: usize| (n_rows - 1 - gold) as i32;
        let mut chart = ChartBuilder::on(root)
            .margin(10)
            .x_label_area_size(50)
            .y_label_area_size(label_area)
            // An integer range is inclusive in plotters: `0..n - 1` is n segments.
            .build_cartesian_2d(
                (0..columns.len().max(1) as i32 - 1).into_segmented(),
                (0..n_rows.max(1) as i32 - 1).into_segmented(),
            )?;
        let x_names = |value: &SegmentValue<i32>| match value {
            SegmentValue::CenterOf(i) if *i >= 0 => columns
                .get(*i as usize)
                .map_or(String::new(), |&c| column_name(c).to_string()),
            _ => String::new(),
        };
        let y_names = |value: &SegmentValue<i32>| match value {
            SegmentValue::CenterOf(y) if *y >= 0 && (*y as usize) < n_rows => {
                e.label_names[n_rows - 1 - *y as usize].clone()
            }
            _ => String::new(),
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .x_labels(columns.len())
            .y_labels(n_rows)
            .x_label_formatter(&x_names)
            .y_label_formatter(&y_names)
            .x_desc("predicted")
            .y_desc("gold")
            .label_style((FONT, 13))
            .axis_desc_style((FONT, 14))
            .draw()?;
        let mut cells = Vec::new();
        for (gold, &total) in row_totals.iter().enumerate() {
            for (x, &column) in columns.iter().enumerate() {
                let n = e.confusion(gold, column);
                let share = if total == 0 {
                    0.0
                } else {
                    n as f64 / total as f64
                };
                cells.push((x as i32, y_of(gold), n, share, gold, column));
            }
        }
        let base = colour(0);
        chart.draw_series(cells.iter().map(|&(x, y, _, share, _, _)| {
            Rectangle::new(
                [
                    (SegmentValue::Exact(x), SegmentValue::Exact(y)),
                    (SegmentValue::Exact(x + 1), SegmentValue::Exact(y + 1)),
                ],
                base.mix(0.08 + 0.85 * share).filled(),
            )
        }))?;
        let centred = Pos::new(HPos::Center, VPos::Center);
        chart.draw_series(cells.iter().map(|&(x, y, n, share, _, _)| {
            let ink: &RGBColor = if share > 0.55 { &WHITE } else { &BLACK };
            Text::new(
                n.to_string(),
                (SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)),
                TextStyle::from((FONT, 15).into_font())
                    .color(ink)
                    .pos(centred),
            )
        }))?;
        Ok(cells
            .iter()
            .map(|&(x, y, n, share, gold, column)| {
                let (px, py) =
                    chart.backend_coord(&(SegmentValue::CenterOf(x), SegmentValue::CenterOf(y)));
                HoverPoint {
                    x: px,
                    y: py,
                    title: format!(
                        "gold {}, predicted {}: {n} lines ({:.1} % of the row)",
                        e.label_names[gold],
                        column_name(column),
                        100.0 * share
                    ),
                }
            })
            .collect())
    })
}

/// Each rule that fired on the corpus as a point: its coverage (the share of lines it fired
/// on) across, its precision up, coloured by its label (`labels`).
pub fn precision_coverage(
    rules: &[LabelingRule],
    summaries: &[RuleSummary],
    labels: &[String],
) -> Result<Chart, ChartError> {
    let points: Vec<(usize, f64, f64)> = summaries
        .iter()
        .enumerate()
        .filter_map(|(rule, s)| s.precision.map(|p| (rule, s.coverage, p)))
        .collect();
    // Coverage spans orders of magnitude (a rule of one line, a rule of a third of them):
    // a logarithmic axis. A rule that fired has a coverage above 0.
    let coverages = points.iter().map(|&(_, coverage, _)| coverage);
    let (least, most) = coverages.fold((1.0f64, 0.0f64), |(lo, hi), c| (lo.min(c), hi.max(c)));
    let (least, most) = if least > most {
        (0.001, 1.0)
    } else {
        (least, most)
    };
    draw_svg(640, 400, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d((least * 0.7..most * 1.4).log_scale(), 0.0..1.04)?;
        chart
            .configure_mesh()
            .x_desc("coverage (share of lines the rule fired on, logarithmic)")
            .y_desc("precision")
            .x_label_formatter(&|v| format!("{} %", 100.0 * v))
            .y_label_formatter(&percent_label)
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (label_index, label) in labels.iter().enumerate() {
            let of_label: Vec<(f64, f64)> = points
                .iter()
                .filter(|&&(rule, _, _)| rules[rule].label == label_index)
                .map(|&(_, coverage, precision)| (coverage, precision))
                .collect();
            if of_label.is_empty() {
                continue;
            }
            let fill = colour(label_index).mix(0.75).filled();
            chart
                .draw_series(of_label.iter().map(|&point| Circle::new(point, 5, fill)))?
                .label(label.as_str())
                .legend(move |(x, y)| Circle::new((x + 8, y), 5, fill));
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font((FONT, 13))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()?;
        Ok(points
            .iter()
            .map(|&(rule, coverage, precision)| {
                let (x, y) = chart.backend_coord(&(coverage, precision));
                let r = &rules[rule];
                HoverPoint {
                    x,
                    y,
                    title: format!(
                        "{} (line {}): {}\ncoverage {:.2} %, precision {:.1} %",
                        r.name,
                        r.line,
                        r.body,
                        100.0 * coverage,
                        100.0 * precision
                    ),
                }
            })
            .collect())
    })
}

/// The dev accuracy of each checkpoint after each epoch (epoch 0: the network training
/// started from), a line per checkpoint; a checkpoint whose dev had no gold label draws its
/// agreement with the label model, and the axis and its points say so.
pub fn training_curves(curves: &[TrainingCurve]) -> Result<Chart, ChartError> {
    let longest = curves
        .iter()
        .map(|c| c.dev_accuracy.len())
        .max()
        .unwrap_or(1);
    let values = curves.iter().flat_map(|c| c.dev_accuracy.iter().copied());
    let (low, high) = values.fold((1.0f64, 0.0f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let (low, high) = if low > high { (0.0, 1.0) } else { (low, high) };
    let pad = ((high - low) * 0.08).max(0.005);
    let name = |curve: &TrainingCurve| {
        format!(
            "{} ({}, {})",
            curve.model.display_name(),
            if curve.current {
                "these rules"
            } else {
                "an earlier text"
            },
            curve.folder
        )
    };
    draw_svg(720, 420, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(
                0.0..(longest.max(2) - 1) as f64,
                (low - pad).max(0.0)..(high + pad).min(1.0),
            )?;
        chart
            .configure_mesh()
            .x_desc("epoch")
            .y_desc(TrainingCurve::measured(curves))
            .x_label_formatter(&|v| format!("{v:.0}"))
            .y_label_formatter(&|v| format!("{:.1} %", 100.0 * v))
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 13))
            .draw()?;
        let mut points = Vec::new();
        for (index, curve) in curves.iter().enumerate() {
            let stroke = colour(index).stroke_width(2);
            let series: Vec<(f64, f64)> = curve
                .dev_accuracy
                .iter()
                .enumerate()
                .map(|(epoch, &accuracy)| (epoch as f64, accuracy))
                .collect();
            chart
                .draw_series(LineSeries::new(series.iter().copied(), stroke))?
                .label(name(curve))
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], stroke));
            let best = colour(index).filled();
            chart.draw_series(
                series
                    .get(curve.best_epoch)
                    .map(|&point| Circle::new(point, 4, best)),
            )?;
            for &(epoch, accuracy) in &series {
                let (x, y) = chart.backend_coord(&(epoch, accuracy));
                let best = if epoch as usize == curve.best_epoch {
                    " (kept: the best)"
                } else {
                    ""
                };
                points.push(HoverPoint {
                    x,
                    y,
                    title: format!(
                        "{}: epoch {epoch}, {} {:.2} %{best}",
                        name(curve),
                        curve.figure.name(),
                        100.0 * accuracy
                    ),
                });
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font((FONT, 12))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()?;
        Ok(points)
    })
}

/// The bench's mean dev accuracy of each contender against the share of train it was
/// trained on (a logarithmic axis), a line per contender, as the FA-RNN paper's figure.
pub fn bench_accuracy(cells: &[Cell]) -> Result<Chart, ChartError> {
    let fractions = cells.iter().map(|c| c.fraction);
    let (smallest, largest) =
        fractions.fold((1.0f64, 0.0f64), |(lo, hi), f| (lo.min(f), hi.max(f)));
    let (smallest, largest) = if smallest > largest {
        (0.01, 1.0)
    } else {
        (smallest, largest)
    };
    let means = cells.iter().map(|c| c.mean);
    let (low, high) = means.fold((100.0f64, 0.0f64), |(lo, hi), m| (lo.min(m), hi.max(m)));
    let (low, high) = if low > high {
        (0.0, 100.0)
    } else {
        (low, high)
    };
    let pad = ((high - low) * 0.08).max(0.5);
    let mut contenders: Vec<Contender> = Vec::new();
    for cell in cells {
        if !contenders.contains(&cell.model) {
            contenders.push(cell.model);
        }
    }
    draw_svg(720, 440, |root| {
        let mut chart = ChartBuilder::on(root)
            .margin(12)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (smallest * 0.7..largest * 1.3).log_scale(),
                (low - pad).max(0.0)..(high + pad).min(100.0),
            )?;
        chart
            .configure_mesh()
            .x_desc("share of train")
            .y_desc("dev accuracy (mean over seeds)")
            .x_label_formatter(&|v| format!("{} %", 100.0 * v))
            .y_label_formatter(&|v| format!("{v:.0} %"))
            .label_style((FONT, 12))
            .axis_desc_style((FONT, 13))
            .draw()?;
        let mut points = Vec::new();
        for (index, &contender) in contenders.iter().enumerate() {
            let mut series: Vec<&Cell> = cells.iter().filter(|c| c.model == contender).collect();
            series.sort_by(|a, b| a.fraction.total_cmp(&b.fraction));
            let stroke = colour(index).stroke_width(2);
            let line: Vec<(f64, f64)> = series.iter().map(|c| (c.fraction, c.mean)).collect();
            chart
                .draw_series(LineSeries::new(line.iter().copied(), stroke))?
                .label(contender.display_name())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], stroke));
            let fill = colour(index).filled();
            chart.draw_series(line.iter().map(|&point| Circle::new(point, 4, fill)))?;
            for cell in series {
                let (x, y) = chart.backend_coord(&(cell.fraction, cell.mean));
                points.push(HoverPoint {
                    x,
                    y,
                    title: format!(
                        "{} on {} % of train: {:.2} ± {:.2} % ({} seed{})",
                        contender.display_name(),
                        100.0 * cell.fraction,
                        cell.mean,
                        cell.sd,
                        cell.values.len(),
                        if cell.values.len() == 1 { "" } else { "s" }
                    ),
                });
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .label_font((FONT, 12))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .draw()?;
        Ok(points)
    })
}

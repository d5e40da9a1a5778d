//! Measures the long lines of a project's open corpora ahead of their hover, in the
//! background (`ide::MeasuredLines`): the lines whose n-grams a hover's budget cuts.
//!
//! One measuring task a project at a time, on tokio's blocking pool (one core; the other
//! stays with the editor's requests), one line at a time, nearest first to where the editor
//! last hovered an unmeasured line (the same document by byte distance, then the others),
//! for at most [`MEASURING_TIME`] after what started it and among the
//! [`MAX_LINES_LOOKED_AT`] lines of each document nearest that line. It starts when the
//! project stores a rule network (`jobs.rs`), when a corpus document that a project holding
//! one binds is opened or changed, and when a hover finds a line not measured yet; a running
//! task takes such a start up when it runs out of lines, and skips those of a document
//! closed meanwhile. It stops between lines when the project holds another rule network
//! or its newest save wants another (while that one trains: the next network measures
//! again), and logs how many lines it measured and how long that took.

use super::client_notices::name;
use super::documents::{Document, Kind};
use super::state::{Session, Snapshot};
use crate::ide::{HoverConfig, Role, TrainedFaRnn, TrainedNetwork, examples_in};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};
use text_size::{TextRange, TextSize};
use tower_lsp_server::ls_types::MessageType;

/// The longest a measuring task runs after what started it (a network stored, a corpus
/// opened or changed, a hover on a line not measured yet), in seconds of one core: SMS's
/// 5,002 lines take about 14.
const MEASURING_TIME: Duration = Duration::from_secs(60);

/// The most lines of a document a measuring task looks at, those nearest where the editor
/// last asked (the first ones of a document it did not ask in).
const MAX_LINES_LOOKED_AT: u32 = 100_000;

/// After a hover on the corpus document `uri`: when it found the line at byte `unmeasured`
/// not measured yet, notes it (`ide::MeasuredLines::look_at`) and starts measuring, so
/// that it is measured soon.
pub fn after_hover(session: &Arc<Session>, uri: &str, unmeasured: Option<TextSize>) {
    let key = session.read(|state| {
        let snapshot = state.snapshot();
        let path = snapshot.documents.get(uri)?.path.clone()?;
        let (key, project) = snapshot.project_of_corpus(&path)?;
        let network = project.rule_network()?;
        if let Some(offset) = unmeasured {
            network.measured.look_at(uri, offset);
        }
        network.measured.take_request().then(|| key.clone())
    });
    if let Some(key) = key {
        start(session, &key);
    }
}

/// Starts measuring the project at `key`'s long corpus lines, or, when it already is, has
/// the running task look for new lines before it stops.
pub fn start(session: &Arc<Session>, key: &Path) {
    let starts = session.update(|state| state.start_measuring(key));
    if starts {
        let (session, key) = (session.clone(), key.to_path_buf());
        tokio::task::spawn_blocking(move || measure(&session, &key));
    }
}

/// A line to measure: its document, where it is, its text.
struct Line {
    uri: String,
    offset: TextSize,
    text: String,
}

fn measure(session: &Session, key: &Path) {
    let config = HoverConfig::default();
    let started = Instant::now();
    let mut measured = 0usize;
    loop {
        let run = Instant::now();
        if let Some((held, mut lines)) = lines_to_measure(&session.snapshot(), key, &config)
            && let Some(network) = held.rule_network()
        {
            while let Some(line) = nearest(&mut lines, network) {
                if run.elapsed() > MEASURING_TIME {
                    break;
                }
                let (wanted, open) = session.read(|state| {
                    let snapshot = state.snapshot();
                    let open = snapshot.documents.contains_key(&line.uri);
                    (is_measuring(&snapshot, key, &held), open)
                });
                if !wanted {
                    break;
                }
                if !open {
                    continue;
                }
                if !network.measure_ahead(&line.text, &config) {
                    break;
                }
                measured += 1;
            }
        }
        if session.update(|state| state.stop_measuring(key)) {
            break;
        }
    }
    if measured > 0 {
        session.log(
            MessageType::INFO,
            format!(
                "{}: measured the n-grams of {measured} long corpus line{} in {:.1} s",
                name(key),
                if measured == 1 { "" } else { "s" },
                started.elapsed().as_secs_f64()
            ),
        );
    }
}

/// The network of the project at `key` to measure lines for: the rule network it holds,
/// unless its newest save job wants another (which is then training or loading, and would
/// only be slowed down).
fn network_to_measure(snapshot: &Snapshot, key: &Path) -> Option<Arc<TrainedNetwork>> {
    let held = snapshot.projects.get(key)?.held(Role::Classifier)?;
    if held.wanted.is_some() && held.wanted != held.key {
        return None;
    }
    held.network
        .clone()
        .filter(|network| network.rule_network().is_some())
}

/// Whether `network` is still the one to measure lines for.
fn is_measuring(snapshot: &Snapshot, key: &Path, network: &Arc<TrainedNetwork>) -> bool {
    network_to_measure(snapshot, key).is_some_and(|held| Arc::ptr_eq(&held, network))
}

/// The project's network and the lines of its open corpora worth measuring ahead.
fn lines_to_measure(
    snapshot: &Snapshot,
    key: &Path,
    config: &HoverConfig,
) -> Option<(Arc<TrainedNetwork>, Vec<Line>)> {
    let held = network_to_measure(snapshot, key)?;
    let network = held.rule_network()?;
    let focus = network.measured.focus();
    let mut lines = Vec::new();
    for uri in snapshot.uris_of_project(key) {
        let Some(document) = snapshot.documents.get(&uri) else {
            continue;
        };
        let Kind::Corpus(format) = document.kind else {
            continue;
        };
        let at = focus
            .as_ref()
            .filter(|(focus_uri, _)| *focus_uri == uri)
            .map(|(_, offset)| *offset);
        let window = lines_around(document, at);
        for example in examples_in(&document.text, &document.index, format, window) {
            if network.is_worth_measuring_ahead(&example.text, config) {
                let offset = example
                    .text_range
                    .or(example.label_range)
                    .map_or(TextSize::default(), |range| range.start());
                lines.push(Line {
                    uri: uri.clone(),
                    offset,
                    text: example.text,
                });
            }
        }
    }
    Some((held, lines))
}

/// The [`MAX_LINES_LOOKED_AT`] lines of `document` nearest `at` (the first ones without).
fn lines_around(document: &Document, at: Option<TextSize>) -> TextRange {
    let index = &document.index;
    let last = index.n_lines().saturating_sub(1) as u32;
    let center = at.map_or(0, |offset| index.line_col(offset).line);
    let first = center
        .saturating_sub(MAX_LINES_LOOKED_AT / 2)
        .min(last.saturating_sub(MAX_LINES_LOOKED_AT - 1));
    let end = first.saturating_add(MAX_LINES_LOOKED_AT - 1).min(last);
    match (index.line_range(first), index.line_range(end)) {
        (Some(first), Some(end)) => TextRange::new(first.start(), end.end()),
        _ => TextRange::default(),
    }
}

/// Takes out the line nearest where the editor last asked for one: in the same document,
/// by byte distance, else the first.
fn nearest(lines: &mut Vec<Line>, network: &TrainedFaRnn) -> Option<Line> {
    if lines.is_empty() {
        return None;
    }
    let at = match network.measured.focus() {
        Some((uri, offset)) => lines
            .iter()
            .enumerate()
            .min_by_key(|(_, line)| {
                let distance = u32::from(line.offset).abs_diff(u32::from(offset));
                (line.uri != uri, distance)
            })
            .map_or(0, |(i, _)| i),
        None => 0,
    };
    Some(lines.remove(at))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::Format;

    /// The lines looked at are the [`MAX_LINES_LOOKED_AT`] around the line asked for, held
    /// inside the document at its ends, and the first ones when none was asked for.
    #[test]
    fn a_task_looks_at_the_lines_nearest_the_line_asked_for() {
        let lines = 250_000u32;
        let text: String = (0..lines).map(|i| format!("ham\tline {i}\n")).collect();
        let document = Document::new(Kind::Corpus(Format::Tsv), None, 1, text);
        let index = &document.index;
        let lines_of = |range: TextRange| {
            (
                index.line_col(range.start()).line,
                index.line_col(range.end()).line,
            )
        };
        let at_line = |line: u32| Some(index.line_range(line).unwrap().start());
        let half = MAX_LINES_LOOKED_AT / 2;
        assert_eq!(
            lines_of(lines_around(&document, None)),
            (0, MAX_LINES_LOOKED_AT - 1)
        );
        assert_eq!(
            lines_of(lines_around(&document, at_line(200_000))),
            (200_000 - half, 200_000 + half - 1)
        );
        // The last line is the empty one after the final line break.
        assert_eq!(
            lines_of(lines_around(&document, at_line(lines - 1))),
            (lines + 1 - MAX_LINES_LOOKED_AT, lines)
        );
        let short = Document::new(Kind::Corpus(Format::Tsv), None, 1, "ham\ta\nspam\tb".into());
        assert_eq!(
            lines_around(&short, Some(TextSize::from(6))),
            TextRange::up_to(TextSize::of("ham\ta\nspam\tb"))
        );
    }
}

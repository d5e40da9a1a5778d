//! Measures the long lines of a project's open corpora ahead of their hover, in the
//! background (`ide::MeasuredLines`): the lines whose n-grams a hover's budget cuts.
//!
//! One measuring task a project at a time, on tokio's blocking pool (one core; the other
//! stays with the editor's requests), one line at a time, nearest first to where the editor
//! last hovered an unmeasured line (the same document by byte distance, then the others). It
//! starts when the project stores a rule network (`jobs.rs`), and when a corpus document
//! that a project holding one binds is opened or changed; a running task takes such a
//! change up when it runs out of lines, and skips those of a document closed meanwhile. It
//! stops between lines when the project holds another rule network or its newest save
//! wants another (while that one trains: the next network measures again), and logs how
//! many lines it measured and how long that took.

use super::documents::Kind;
use super::report::name;
use super::state::{Session, Snapshot};
use crate::ide::{HoverConfig, TrainedFaRnn, examples_in};
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;
use text_size::{TextRange, TextSize};
use tower_lsp_server::ls_types::MessageType;

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
        if let Some((network, mut lines)) = lines_to_measure(&session.snapshot(), key, &config) {
            while let Some(line) = nearest(&mut lines, &network) {
                let (wanted, open) = session.read(|state| {
                    let snapshot = state.snapshot();
                    let open = snapshot.documents.contains_key(&line.uri);
                    (is_measuring(&snapshot, key, &network), open)
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
fn network_to_measure(snapshot: &Snapshot, key: &Path) -> Option<Arc<TrainedFaRnn>> {
    let held = &snapshot.projects.get(key)?.model;
    if held.wanted.is_some() && held.wanted != held.key {
        return None;
    }
    held.network.clone()
}

/// Whether `network` is still the one to measure lines for.
fn is_measuring(snapshot: &Snapshot, key: &Path, network: &Arc<TrainedFaRnn>) -> bool {
    network_to_measure(snapshot, key).is_some_and(|held| Arc::ptr_eq(&held, network))
}

/// The project's network and the lines of its open corpora worth measuring ahead.
fn lines_to_measure(
    snapshot: &Snapshot,
    key: &Path,
    config: &HoverConfig,
) -> Option<(Arc<TrainedFaRnn>, Vec<Line>)> {
    let network = network_to_measure(snapshot, key)?;
    let mut lines = Vec::new();
    for uri in snapshot.uris_of_project(key) {
        let Some(document) = snapshot.documents.get(&uri) else {
            continue;
        };
        let Kind::Corpus(format) = document.kind else {
            continue;
        };
        let whole = TextRange::up_to(TextSize::of(document.text.as_str()));
        for example in examples_in(&document.text, &document.index, format, whole) {
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
    Some((network, lines))
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

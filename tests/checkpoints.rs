//! Checkpoints written by an earlier rulelens (before `src/model` was split into one folder per
//! family, `tests/data/checkpoints`) still load, and their networks predict what that rulelens
//! printed, for every family: FA-RNN, bidirectional FA-GRU, SoPa, S-LSTM and MVMA-G
//! (`LoadedModel::probabilities`, the Python package's `Model.predict`).

use candle_core::Device;
use rulelens::limits::ReadLimits;
use rulelens::model::load_previous;
use serde_json::Value;
use std::path::Path;

/// The largest difference allowed between a probability printed before (to six decimals,
/// by the plain scorers) and the one the tensors give now.
const TOLERANCE: f64 = 2e-6;

fn predicts_as_before(kind: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/checkpoints")
        .join(kind);
    let loaded = load_previous(&dir, &Device::Cpu, &ReadLimits::DEFAULT)
        .unwrap_or_else(|e| panic!("{kind}: {e}"));
    assert_eq!(loaded.manifest.settings.model.name(), kind);
    let expected = std::fs::read_to_string(dir.join("predictions.jsonl")).unwrap();
    let labels = &loaded.manifest.labels;
    let before: Vec<Value> = expected
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let texts: Vec<&str> = before.iter().map(|b| b["text"].as_str().unwrap()).collect();
    // In batches of 7, sorted by length: padding must not change a probability.
    let probabilities = loaded.probabilities(&texts, 7, &Device::Cpu).unwrap();
    let mut lines = 0;
    for ((before, text), now) in before.iter().zip(&texts).zip(&probabilities) {
        for (label, p) in labels.iter().zip(now) {
            let printed = before["probabilities"][label].as_f64().unwrap();
            assert!(
                (printed - p).abs() <= TOLERANCE,
                "{kind}, {text:?}: P({label}) was {printed}, is {p}"
            );
        }
        let best = (0..now.len())
            .max_by(|&a, &b| now[a].total_cmp(&now[b]))
            .unwrap();
        assert_eq!(
            labels[best],
            before["label"].as_str().unwrap(),
            "{kind}, {text:?}"
        );
        lines += 1;
    }
    assert_eq!(lines, 30, "{kind}: the dev lines");
}

#[test]
fn an_fa_rnn_checkpoint_from_before_predicts_the_same() {
    predicts_as_before("fa-rnn");
}

#[test]
fn a_bidirectional_fa_gru_checkpoint_from_before_predicts_the_same() {
    predicts_as_before("bifa-gru");
}

#[test]
fn a_sopa_checkpoint_from_before_predicts_the_same() {
    predicts_as_before("sopa");
}

#[test]
fn an_slstm_checkpoint_from_before_predicts_the_same() {
    predicts_as_before("slstm");
}

#[test]
fn an_mvma_checkpoint_from_before_predicts_the_same() {
    predicts_as_before("mvma-g");
}

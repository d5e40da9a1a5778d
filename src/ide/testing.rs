//! Fixtures shared by the `ide` tests, in the crate and in `tests/ide_corpus.rs`: small
//! hand-written rules and corpora whose figures are computed by hand, the networks
//! `model::fit` makes of them, range helpers, and rust-analyzer's style of fixture: `$0`
//! marks the cursor in a rules text, and results render as the lines they point into with
//! `^` under each range. Not part of the API.

use crate::corpus::{CorpusFile, Example, Format};
use crate::explain::ReconstructConfig;
use crate::ide::{
    PatternKey, RulesAnalysis, TrainedFaRnn, TrainedNetwork, TrainedPatterns, Unprepared, analyze,
};
use crate::model::{Fitted, ModelKind, SopaSettings, TrainingSettings, fit};
use crate::rules_file::RulesFile;
use crate::text::SourceText;
use std::sync::Arc;
use text_size::{TextRange, TextSize};

/// Patterns, in the rule set's order (named patterns first, then anonymous rules):
/// 0 `prize`, 1 `zebra`, 2 the spam rule of line 2 (`free`), 3 the ham rule of line 5
/// (`call`). Labels in priority order: spam, ham (the default, which also has rules).
pub const RULES: &str = "default ham
spam: $* free $*
pattern prize = $* ( won | win ) $*
spam <- prize
ham: $* call $*
pattern zebra = $* zebra $*
ham <- zebra
";

/// What the rules do on each line (patterns matched → prediction, gold):
/// 0 free → spam ✓ · 1 free, call → spam ✗ · 2 free, call → spam ✗ · 3 free, call → spam ✗
/// · 4 prize → spam ✓ · 5 prize → spam ✓ · 6 nothing → ham (default) ✓. Accuracy 4/7.
pub const TRAIN: &str = "spam\tfree prize inside
ham\tfree call me later
ham\tis it free to call
ham\tcall me free
spam\tyou won cash
spam\twin big now
ham\tsee you soon
";

/// A second corpus: 0 prize, free → spam ✓ · 1 call → ham ✓ · 2 nothing → ham ✗ (gold spam).
pub const TEST: &str = "spam\twin a free phone
ham\tcall me maybe
spam\tcash prize waiting
";

pub fn rules(text: &str) -> RulesFile {
    RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    )
}

/// A corpus line of `text`, labeled `label` (`None`: unlabeled), at line 0 without ranges.
pub fn example_line(text: &str, label: Option<&str>) -> Example {
    Example {
        text: text.to_string(),
        label: label.map(str::to_string),
        line: 0,
        text_range: None,
        label_range: None,
    }
}

pub fn corpus(name: &str, format: Format, text: &str) -> CorpusFile {
    let extension = match format {
        Format::Tsv => "tsv",
        Format::Jsonl => "jsonl",
    };
    CorpusFile::parse(
        format!("{name}.{extension}").into(),
        format,
        SourceText::from_bytes(text.as_bytes()),
    )
}

/// `text` analyzed on the TSV corpora `(binding, text)`.
pub fn analysis_of(text: &str, corpora: &[(&str, &str)]) -> RulesAnalysis {
    let file = rules(text);
    assert!(
        file.diagnostics.iter().all(|d| !d.is_error()),
        "{:?}",
        file.diagnostics
    );
    let corpora = corpora
        .iter()
        .map(|(name, text)| (name.to_string(), corpus(name, Format::Tsv, text)))
        .collect();
    analyze(Arc::new(file), corpora, &|| false).expect("not cancelled")
}

/// The zero-shot FA-RNN of `analysis.rules` (exact decomposition, no training epoch),
/// prepared for the editor. `model::fit` needs a dev corpus: the analysis' own, else train.
pub fn zero_shot_model(analysis: &RulesAnalysis, reconstruct: &ReconstructConfig) -> TrainedFaRnn {
    trained_model(analysis, reconstruct, 0)
}

pub fn trained_model(
    analysis: &RulesAnalysis,
    reconstruct: &ReconstructConfig,
    epochs: usize,
) -> TrainedFaRnn {
    let config = TrainingSettings {
        beta: 1.0,
        epochs,
        batch_size: 4,
        learning_rate: Some(0.05),
        // One network, as a save trains by default (`tests/ensemble.rs` has ensembles).
        members: Some(1),
        // Untrained, the network of every rule, as `--zero-shot` loads a checkpoint.
        keep_every_rule: epochs == 0,
        ..TrainingSettings::default()
    };
    let fitted = fit_on(analysis, &config);
    assert_eq!(
        fitted.manifest.decomposition.as_ref().unwrap().method,
        "exact"
    );
    match prepared(fitted, analysis, reconstruct) {
        TrainedNetwork::RuleNetwork(model) => model,
        other => panic!("a rule network was trained, not {other:?}"),
    }
}

/// `fitted`, trained from `analysis.rules`, prepared for the editor.
pub fn prepared(
    fitted: Fitted,
    analysis: &RulesAnalysis,
    reconstruct: &ReconstructConfig,
) -> TrainedNetwork {
    TrainedNetwork::prepare(Unprepared {
        manifest: fitted.manifest,
        net: fitted.net.into(),
        vocabulary: fitted.vocabulary.as_ref(),
        analysis,
        reconstruct: Some(reconstruct),
        cancelled: &|| false,
    })
    .expect("prepared")
}

/// The network `config` asks for, trained on the analysis's `train` corpus (early stopping
/// on `dev`, else on `train`).
fn fit_on(analysis: &RulesAnalysis, config: &TrainingSettings) -> Fitted {
    let train = analysis.corpus("train").expect("a train corpus");
    let dev = analysis.corpus("dev").unwrap_or(train);
    fit(
        &analysis.rules,
        &train.file.examples,
        &dev.file.examples,
        config,
        &crate::limits::ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .expect("fitted")
}

/// A SoPa with the rules' patterns and six free ones (`patterns`), trained `epochs` epochs
/// on the analysis's `train` corpus (early stopping on `dev`), prepared for the editor.
pub fn trained_patterns(
    analysis: &RulesAnalysis,
    patterns: &str,
    epochs: usize,
) -> TrainedPatterns {
    let config = TrainingSettings {
        model: ModelKind::Sopa,
        epochs,
        batch_size: 4,
        sopa: SopaSettings {
            patterns: patterns.parse().expect("a pattern spec"),
            ..SopaSettings::DEFAULT
        },
        ..TrainingSettings::default()
    };
    let fitted = fit_on(analysis, &config);
    match prepared(fitted, analysis, &ReconstructConfig::default()) {
        TrainedNetwork::Patterns(patterns) => patterns,
        other => panic!("a SoPa was trained, not {other:?}"),
    }
}

/// An MVMA-G trained `epochs` epochs on the analysis's `train` corpus (early stopping on
/// `dev`) with the word vectors of `vectors` (a GloVe text file).
pub fn fitted_mvma(analysis: &RulesAnalysis, vectors: &std::path::Path, epochs: usize) -> Fitted {
    let config = TrainingSettings {
        model: ModelKind::MvmaG,
        embeddings: Some(vectors.to_path_buf()),
        epochs,
        batch_size: 8,
        ..TrainingSettings::default()
    };
    fit_on(analysis, &config)
}

/// The byte range of the `nth` (0-based) occurrence of `needle` in `text`.
pub fn find_nth(text: &str, needle: &str, nth: usize) -> TextRange {
    let start = text
        .match_indices(needle)
        .nth(nth)
        .unwrap_or_else(|| panic!("{needle:?} #{nth} not in {text:?}"))
        .0;
    TextRange::at(
        TextSize::from(start as u32),
        TextSize::from(needle.len() as u32),
    )
}

pub fn find(text: &str, needle: &str) -> TextRange {
    find_nth(text, needle, 0)
}

pub fn key(file: &RulesFile, pattern: usize) -> PatternKey {
    PatternKey::of(&file.rules, crate::syntax::PatternId(pattern as u32))
}

pub fn assert_close(actual: f64, expected: f64, what: &str) {
    assert!(
        (actual - expected).abs() < 1e-4,
        "{what}: {actual} vs {expected}"
    );
}

/// Label probabilities of the zero-shot network (logit scale 10): a true label c of C
/// has logit `1 + (C − c)·0.01`; the default label at least 0.5; a false one 0.
pub fn softmax10(logits: &[f64]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let exp: Vec<f64> = logits.iter().map(|l| (10.0 * (l - max)).exp()).collect();
    let sum: f64 = exp.iter().sum();
    exp.iter().map(|e| e / sum).collect()
}

/// The front end on `text`, as the language server will run it.
pub fn rules_of(text: &str) -> RulesFile {
    RulesFile::analyze(
        SourceText::from_bytes(text.as_bytes()),
        None,
        &Default::default(),
    )
}

/// The analyzed fixture without its `$0`, and the offset `$0` marked.
pub fn fixture(with_cursor: &str) -> (RulesFile, TextSize) {
    let offset = with_cursor
        .find("$0")
        .unwrap_or_else(|| panic!("no `$0` cursor in {with_cursor:?}"));
    let text = with_cursor.replacen("$0", "", 1);
    (rules_of(&text), TextSize::from(offset as u32))
}

/// Each line of `text` that one of `ranges` starts on, followed by a line with `^` under
/// every range on it (at least one `^`, columns in chars); `<none>` if there are no ranges.
pub fn annotate(text: &str, ranges: &[TextRange]) -> String {
    if ranges.is_empty() {
        return "<none>".to_string();
    }
    let mut res = Vec::new();
    let mut line_start = 0usize;
    for line in text.split('\n') {
        let line_end = line_start + line.len();
        let mut carets = String::new();
        for range in ranges {
            let start = usize::from(range.start());
            if start < line_start || start > line_end {
                continue;
            }
            let column = text[line_start..start].chars().count();
            let width = text[start..usize::from(range.end()).min(line_end)]
                .chars()
                .count()
                .max(1);
            while carets.chars().count() < column {
                carets.push(' ');
            }
            carets.push_str(&"^".repeat(width));
        }
        if !carets.is_empty() {
            res.push(line.to_string());
            res.push(carets);
        }
        line_start = line_end + 1;
    }
    res.join("\n")
}

/// `range` as `line:column-line:column`, 1-based lines and 0-based char columns.
pub fn position(text: &str, range: TextRange) -> String {
    let at = |offset: TextSize| {
        let before = &text[..usize::from(offset)];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count();
        format!("{line}:{column}")
    };
    format!("{}-{}", at(range.start()), at(range.end()))
}

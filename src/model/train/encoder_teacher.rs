//! The sentence encoder as the teacher of the lines without a gold label. The rules' label
//! model knows only which rules fired: where they fire on questions of a label no rule
//! names (TREC's `what … company` questions are `hum`), it teaches that mistake, and the
//! network learns it back. A softmax regression on the bundled encoder's line vectors
//! (`model::encoder`), taught what the label model teaches (its probabilities of the lines
//! some rule fired on, and the gold lines), spreads it by meaning instead: each line without
//! a gold label is then taught that regression's probabilities, from a fit that did not see
//! the line (five folds), and dev's lines, where dev has no gold label, those of the fit on
//! all of train.
//!
//! It teaches in place of the label model where the label model leaves the rules' silence
//! out (where the silence speaks for the default, the regression learns "some rule fired"
//! less sharply than the rules' words) and teaches at least [`MIN_ENCODER_LINES`], train and
//! dev holding at most [`MAX_ENCODER_LINES`] together, and then:
//! - with gold dev lines, where its dev log loss is the smaller of the two teachers';
//! - without, where the label model's estimated accuracy of the rules on train is under
//!   [`ENCODER_TEACHES_BELOW`].
//!
//! Measured in `docs/results.md` ("The encoder as the teacher, built"): TREC with no gold
//! label 60.80 → 67.80 % on dev; SMS, whose rules the label model estimates at 92 %, keeps
//! the label model. Cost: the encoder over train and dev's distinct lines not met before
//! (2 ms a TREC question on two cores; `model::encoder::line_vectors`) and six regressions
//! on 384 features (ten where a gold dev chooses C).

use crate::model::encoder::{DIM, line_vectors};
use crate::model::nn::softmax_regression::{Selection, SoftmaxRegression, SparseRow, Target};
use crate::model::nn::threads::on_two_threads;

/// Without a gold dev line, the encoder teaches where the label model estimates the rules'
/// accuracy on train under this: TREC's rules 52.8 % and its random halves 51.6, 49.9 and
/// 79.6 % gain 6.8 to 11.4 points with it; SMS's 92.2 % and its halves 95.3, 95.4 and
/// 90.6 % lost 0.2 to 1.6 in a trial build (`docs/results.md`).
pub const ENCODER_TEACHES_BELOW: f64 = 0.85;

/// The fewest lines the label model teaches (those some rule fired on, without a gold
/// label) for the encoder's regression to be fitted: it weighs 384 dimensions per label,
/// and from a few dozen lines it learns their noise.
pub const MIN_ENCODER_LINES: usize = 200;

/// The most train and dev lines the encoder teaches, together: each line's vector is held
/// as a regression row (3 KB) and copied for the fits running at once, about 12 KB a line at
/// the peak, 240 MB at the limit, and the fits' time grows with the lines. Past it the
/// label model teaches.
pub const MAX_ENCODER_LINES: usize = 20_000;

/// How many folds the train lines' probabilities come from.
const FOLDS: usize = 5;

/// The regression's C without gold dev lines to choose it by.
const UNCHOSEN_C: f64 = 1.0;

/// What the teacher reads of train.
pub(crate) struct TrainLines<'a> {
    pub texts: Vec<&'a str>,
    /// Per line: its gold label, the label model's probabilities where it teaches the line,
    /// or `None` (a line no rule fired on).
    pub targets: Vec<Option<Target>>,
    /// How many times each gold line is taught.
    pub gold_repeats: usize,
}

/// What the teacher reads of dev.
pub(crate) struct DevLines<'a> {
    pub texts: Vec<&'a str>,
    /// Per line: its gold label (one the network knows) or `None`.
    pub gold: Vec<Option<usize>>,
    /// Per line: the label model's probabilities.
    pub label_model: Vec<Vec<f64>>,
}

/// The encoder's teaching: for every train line and every dev line, a probability per label.
pub(crate) struct EncoderTeaching {
    pub train: Vec<Vec<f32>>,
    pub dev: Vec<Vec<f32>>,
}

/// Whether the encoder may teach, before anything is encoded or fitted: with gold dev lines
/// (whose log loss then chooses the teacher), or where the label model's estimate of the
/// rules' accuracy on train is under [`ENCODER_TEACHES_BELOW`].
pub(crate) fn may_teach(gold_dev: bool, estimated_accuracy: Option<f64>) -> bool {
    gold_dev || estimated_accuracy.is_some_and(|a| a < ENCODER_TEACHES_BELOW)
}

/// The encoder's teaching where it is to teach (the module's doc), or `None`, also where
/// `cancelled` said so first (polled between the encoder's batches and before the folds'
/// fits; the caller asks it again); `estimated_accuracy` is the label model's estimate of
/// the rules' accuracy on train.
pub(crate) fn encoder_teaching(
    train: &TrainLines,
    dev: &DevLines,
    n_labels: usize,
    estimated_accuracy: Option<f64>,
    cancelled: &dyn Fn() -> bool,
) -> candle_core::Result<Option<EncoderTeaching>> {
    let gold_dev = dev.gold.iter().any(Option::is_some);
    if !may_teach(gold_dev, estimated_accuracy) {
        return Ok(None);
    }
    let n_taught = train
        .targets
        .iter()
        .filter(|t| matches!(t, Some(Target::Distribution(_))))
        .count();
    if n_taught < MIN_ENCODER_LINES || train.texts.len() + dev.texts.len() > MAX_ENCODER_LINES {
        return Ok(None);
    }
    let texts: Vec<&str> = train.texts.iter().chain(&dev.texts).copied().collect();
    let Some(mut train_rows) = encoded_rows(&texts, cancelled)? else {
        return Ok(None);
    };
    let dev_rows = train_rows.split_off(train.texts.len());
    let taught = |skip_fold: Option<usize>| -> Vec<(SparseRow, Target)> {
        let mut taught = Vec::new();
        for (i, target) in train.targets.iter().enumerate() {
            let Some(target) = target else { continue };
            let repeats = match target {
                Target::Label(_) => train.gold_repeats,
                Target::Distribution(_) if skip_fold == Some(i % FOLDS) => 0,
                Target::Distribution(_) => 1,
            };
            for _ in 0..repeats {
                taught.push((train_rows[i].clone(), target.clone()));
            }
        }
        taught
    };
    let selection: Vec<(SparseRow, Option<usize>)> = dev_rows
        .iter()
        .zip(&dev.gold)
        .filter(|(_, gold)| gold.is_some())
        .map(|(row, &gold)| (row.clone(), gold))
        .collect();
    let all = taught(None);
    let full = if gold_dev {
        let Some((_, model)) =
            SoftmaxRegression::fit_chosen(&all, DIM, n_labels, &selection, Selection::LogLoss)
        else {
            return Ok(None);
        };
        let label_model_loss = mean_log_loss(
            dev.label_model
                .iter()
                .zip(&dev.gold)
                .filter_map(|(p, gold)| gold.map(|g| p.get(g).copied().unwrap_or(0.0))),
        );
        if model.log_loss(&selection) >= label_model_loss {
            return Ok(None);
        }
        model
    } else {
        SoftmaxRegression::fit(&all, DIM, n_labels, UNCHOSEN_C)
    };
    let folds: Vec<usize> = (0..FOLDS).collect();
    let Some(fold_probabilities) = on_two_threads(
        &folds,
        &|&fold| {
            let model = SoftmaxRegression::fit(&taught(Some(fold)), DIM, n_labels, full.c);
            train_rows
                .iter()
                .skip(fold)
                .step_by(FOLDS)
                .map(|row| model.probabilities(row))
                .collect::<Vec<_>>()
        },
        cancelled,
    ) else {
        return Ok(None);
    };
    let mut train_probabilities: Vec<Vec<f32>> = vec![Vec::new(); train.texts.len()];
    for (fold, probabilities) in fold_probabilities.into_iter().enumerate() {
        for (i, p) in (fold..train.texts.len()).step_by(FOLDS).zip(probabilities) {
            train_probabilities[i] = p;
        }
    }
    let dev_probabilities = dev_rows.iter().map(|row| full.probabilities(row)).collect();
    Ok(Some(EncoderTeaching {
        train: train_probabilities,
        dev: dev_probabilities,
    }))
}

/// Each text's encoder vector as a regression row, or `None` where `cancelled` said so
/// first ([`line_vectors`]).
pub(crate) fn encoded_rows(
    texts: &[&str],
    cancelled: &dyn Fn() -> bool,
) -> candle_core::Result<Option<Vec<SparseRow>>> {
    Ok(line_vectors(texts, cancelled)?.map(|vectors| {
        vectors
            .chunks(DIM)
            .map(|v| (0u32..).zip(v.iter().copied()).collect())
            .collect()
    }))
}

/// The mean negative log of the probabilities given the gold labels (infinite for none).
pub(crate) fn mean_log_loss(probabilities: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = probabilities.fold((0.0, 0usize), |(sum, n), p| {
        (sum - p.max(1e-12).ln(), n + 1)
    });
    if n == 0 {
        f64::INFINITY
    } else {
        sum / n as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of two labels, `loc` (0) and `hum` (1): the rules fire on the `where` and `who`
    /// questions; no rule fires on the last two, a city's and an author's.
    fn train_lines() -> TrainLines<'static> {
        let fired = [
            ("where is the eiffel tower ?", 0),
            ("where can i find the louvre ?", 0),
            ("where is mount everest ?", 0),
            ("where was the titanic built ?", 0),
            ("where is the capital of france ?", 0),
            ("where does the nile river flow ?", 0),
            ("where is the city of tokyo ?", 0),
            ("where are the pyramids located ?", 0),
            ("who wrote hamlet ?", 1),
            ("who painted the mona lisa ?", 1),
            ("who invented the telephone ?", 1),
            ("who was the first president ?", 1),
            ("who is the author of this novel ?", 1),
            ("who composed the fifth symphony ?", 1),
            ("who discovered gravity ?", 1),
            ("who was the famous writer of poems ?", 1),
        ];
        let silent = [
            "in what city is the colosseum located ?",
            "what author wrote the odyssey ?",
        ];
        // Each rule's line as often as the encoder needs lines to be fitted.
        let copies = MIN_ENCODER_LINES.div_ceil(fired.len());
        let fired: Vec<(&str, usize)> = fired.iter().copied().cycle().take(copies * 16).collect();
        let mut texts: Vec<&str> = fired.iter().map(|(t, _)| *t).collect();
        texts.extend(silent);
        let mut targets: Vec<Option<Target>> = fired
            .iter()
            .map(|&(_, label)| {
                let mut p = vec![0.1, 0.1];
                p[label] = 0.9;
                Some(Target::Distribution(p))
            })
            .collect();
        targets.extend([None, None]);
        TrainLines {
            texts,
            targets,
            gold_repeats: 1,
        }
    }

    #[test]
    fn the_encoder_teaches_the_lines_no_rule_fires_on_by_meaning_where_the_rules_are_weak() {
        let dev = DevLines {
            texts: vec!["what country is paris in ?"],
            gold: vec![None],
            label_model: vec![vec![0.5, 0.5]],
        };
        let n = train_lines().texts.len() - 2;
        let taught = encoder_teaching(&train_lines(), &dev, 2, Some(0.5), &|| false)
            .unwrap()
            .expect("the label model's estimate is under the threshold");
        assert!(
            taught.train[n][0] > taught.train[n][1],
            "{:?}",
            taught.train[n]
        );
        assert!(
            taught.train[n + 1][1] > taught.train[n + 1][0],
            "{:?}",
            taught.train[n + 1]
        );
        assert!(taught.dev[0][0] > taught.dev[0][1], "{:?}", taught.dev[0]);
        // Each line's probabilities come from a fit that did not read it: the rules' lines
        // too are taught, and sum to one.
        for p in &taught.train {
            assert!((p.iter().sum::<f32>() - 1.0).abs() < 1e-4);
        }
        // A newer save's cancellation stops it between the encoder's batches.
        assert!(
            encoder_teaching(&train_lines(), &dev, 2, Some(0.5), &|| true)
                .unwrap()
                .is_none()
        );
        // From a few lines the regression is not fitted.
        let mut few = train_lines();
        few.targets.truncate(MIN_ENCODER_LINES - 1);
        few.texts.truncate(MIN_ENCODER_LINES - 1);
        assert!(
            encoder_teaching(&few, &dev, 2, Some(0.5), &|| false)
                .unwrap()
                .is_none()
        );
        // Past the limit on lines, nothing is encoded.
        let mut many = train_lines();
        many.texts.resize(MAX_ENCODER_LINES + 1, "");
        many.targets.resize(MAX_ENCODER_LINES + 1, None);
        assert!(
            encoder_teaching(&many, &dev, 2, Some(0.5), &|| false)
                .unwrap()
                .is_none()
        );
        // Where the label model trusts the rules, it keeps teaching.
        assert!(
            encoder_teaching(
                &train_lines(),
                &dev,
                2,
                Some(ENCODER_TEACHES_BELOW),
                &|| false
            )
            .unwrap()
            .is_none()
        );
    }

    #[test]
    fn a_gold_dev_chooses_the_teacher_with_the_smaller_log_loss() {
        let dev = |label_model: Vec<Vec<f64>>| DevLines {
            texts: vec!["where is big ben ?", "who discovered penicillin ?"],
            gold: vec![Some(0), Some(1)],
            label_model,
        };
        // A label model that is always right and sure beats any regression ...
        let sure = dev(vec![vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert!(
            encoder_teaching(&train_lines(), &sure, 2, Some(0.99), &|| false)
                .unwrap()
                .is_none()
        );
        // ... and one that is always wrong loses to it, whatever its estimate.
        let wrong = dev(vec![vec![0.01, 0.99], vec![0.99, 0.01]]);
        assert!(
            encoder_teaching(&train_lines(), &wrong, 2, Some(0.99), &|| false)
                .unwrap()
                .is_some()
        );
    }
}

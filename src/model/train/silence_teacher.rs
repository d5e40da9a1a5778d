//! The lines a filter's rules are silent on, taught how likely they are to be of the rules'
//! label all the same. A spam filter written as spam rules and `default ham` fires on some
//! of the spam and on little else; where nothing but the rules' silence speaks for the
//! default (`data::silence_speaks_for_default`), every line no rule fires on was taught the
//! default, and the network learned the rules' words back and no spam past them (SMS's spam
//! rules alone, no gold label: dev 91.60 % for the rules, 91.80 % trained).
//!
//! That is positive-and-unlabeled learning (Elkan and Noto 2008): the lines a rule of the
//! label fires on are positives, the others unlabeled. A regression `g` on the bundled
//! encoder's line vectors (`model::encoder`) learns which lines a rule of the label fires
//! on; where the rules fire on a random share `c` of the label's lines, `g = c · P(label)`,
//! and `c` is the mean of `g` over the lines they fire on. Each line no rule fires on is then
//! taught the label at `g / c` (at most 1) and the default at the rest, with `g` from a fit
//! that did not read the line (five folds), and dev's lines, where dev has no gold label,
//! at those of the fit on all of train.
//!
//! It assumes the rules are precise and fire on their label's lines at random. Induced word
//! lists on reviews are neither: there it would teach apparel's `neg` to three quarters of
//! train (truly 48 %). So it teaches only where the share of the label it teaches all the
//! unlabeled train lines is under [`MAX_TAUGHT_SHARE`], as a label a filter's default
//! outnumbers, and, with gold dev lines, where their log loss is the smaller
//! ([`silence_teaching`]). Measured in `docs/results.md` ("The rules' label past their
//! silence"): SMS's spam rules alone, no gold label, dev 91.80 → 96.20 %.

use crate::model::encoder::DIM;
use crate::model::nn::softmax_regression::{SoftmaxRegression, SparseRow, Target};
use crate::model::nn::threads::on_two_threads;
use crate::model::train::encoder_teacher::{MAX_ENCODER_LINES, encoded_rows, mean_log_loss};

/// The fewest unlabeled train lines a rule of the label must fire on for `g` to be fitted:
/// with fewer, `c`, a mean over them, is noise. The fewest measured here, where it gained,
/// is 130 (a random half of SMS's spam rules).
pub const MIN_RULE_LINES: usize = 100;

/// The largest share of the rules' label that the teaching may give the unlabeled train lines
/// (the label model's probability where some rule fired, `g / c` elsewhere): past it the
/// label would outnumber the default, which the rules' silence speaks for, and the rules'
/// lines are not a random share of their label. SMS's spam rules and their random halves
/// 0.08–0.12 (truly 0.13); apparel's induced `neg` lists 0.76 (truly 0.48).
pub const MAX_TAUGHT_SHARE: f64 = 0.5;

/// How many folds the train lines' `g` comes from.
const FOLDS: usize = 5;

/// The regression's C, as the encoder's teacher's without a gold dev: offline, the rules'
/// label where g > c/2 was right on 96.00 % of SMS's dev with its spam rules alone at C = 1
/// and on 93.80 % at C = 10, and C = 1 did better on each random half of those rules.
const C: f64 = 1.0;

/// An unlabeled train line as the teaching reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Fired {
    /// Some rule fired on it, and the label model gives the rules' label this probability;
    /// `of_label`: a rule of that label was among them.
    Rule { of_label: bool, label_model: f64 },
    /// No rule fired on it.
    Silent,
}

/// A dev line as the teaching reads it: whether some rule fired on it, and where it has a
/// gold label, whether that is the rules' label and the label model's probability of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DevLine<'a> {
    pub text: &'a str,
    pub fired: bool,
    pub gold: Option<DevGold>,
}

/// A gold dev line's label (the rules' or the default) and the label model's probability of
/// it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DevGold {
    pub of_label: bool,
    pub label_model: f64,
}

/// The teaching: for every unlabeled train line and every dev line, the probability of the
/// rules' label where no rule fired (`None` where one did, and the label model teaches), and
/// `c`, the estimated share of the label's lines the rules fire on.
#[derive(Debug)]
pub(crate) struct SilenceTeaching {
    pub train: Vec<Option<f32>>,
    pub dev: Vec<Option<f32>>,
    pub reach: f64,
}

/// The teaching of the lines no rule fired on, for the unlabeled train lines `train` (their
/// texts and what fired) and `dev`'s lines, or `None`: where a rule of the label fires on
/// fewer than [`MIN_RULE_LINES`] of them, train and dev hold more than `MAX_ENCODER_LINES`,
/// the share it teaches is over [`MAX_TAUGHT_SHARE`], dev's gold lines no rule fired on
/// (where it has some) give it the larger log loss, or `cancelled` said so first (polled
/// between the encoder's batches and the folds' fits).
pub(crate) fn silence_teaching(
    train: &[(&str, Fired)],
    dev: &[DevLine],
    cancelled: &dyn Fn() -> bool,
) -> candle_core::Result<Option<SilenceTeaching>> {
    let positive = |fired: &Fired| matches!(fired, Fired::Rule { of_label: true, .. });
    let n_positive = train.iter().filter(|(_, f)| positive(f)).count();
    if n_positive < MIN_RULE_LINES || train.len() + dev.len() > MAX_ENCODER_LINES {
        return Ok(None);
    }
    let texts: Vec<&str> = train
        .iter()
        .map(|(text, _)| *text)
        .chain(dev.iter().map(|line| line.text))
        .collect();
    let Some(mut rows) = encoded_rows(&texts, cancelled)? else {
        return Ok(None);
    };
    let dev_rows = rows.split_off(train.len());
    let taught = |skip_fold: Option<usize>| -> Vec<(SparseRow, Target)> {
        (0..train.len())
            .filter(|&i| skip_fold != Some(i % FOLDS))
            .map(|i| {
                let label = usize::from(positive(&train[i].1));
                (rows[i].clone(), Target::Label(label))
            })
            .collect()
    };
    let folds: Vec<usize> = (0..=FOLDS).collect();
    // Fold `FOLDS` is the fit on all of train, for dev.
    let Some(fits) = on_two_threads(
        &folds,
        &|&fold| {
            let skip = (fold < FOLDS).then_some(fold);
            SoftmaxRegression::fit(&taught(skip), DIM, 2, C)
        },
        cancelled,
    ) else {
        return Ok(None);
    };
    let g_of =
        |model: &SoftmaxRegression, row: &[(u32, f32)]| f64::from(model.probabilities(row)[1]);
    let g: Vec<f64> = (0..train.len())
        .map(|i| g_of(&fits[i % FOLDS], &rows[i]))
        .collect();
    let reach = (0..train.len())
        .filter(|&i| positive(&train[i].1))
        .map(|i| g[i])
        .sum::<f64>()
        / n_positive as f64;
    if reach <= 0.0 {
        return Ok(None);
    }
    let share = |g: f64| (g / reach).min(1.0);
    let taught_share = train
        .iter()
        .zip(&g)
        .map(|((_, fired), &g)| match fired {
            Fired::Rule { label_model, .. } => *label_model,
            Fired::Silent => share(g),
        })
        .sum::<f64>()
        / train.len() as f64;
    if taught_share > MAX_TAUGHT_SHARE {
        return Ok(None);
    }
    let dev_g: Vec<f64> = dev_rows.iter().map(|row| g_of(&fits[FOLDS], row)).collect();
    // The log loss of each teacher on dev's gold lines: where a rule fired both teach the
    // label model's probabilities, so only the silent lines tell them apart.
    let silent_gold: Vec<(DevGold, f64)> = dev
        .iter()
        .zip(&dev_g)
        .filter(|(line, _)| !line.fired)
        .filter_map(|(line, &g)| Some((line.gold?, share(g))))
        .collect();
    let past_silence_loss = mean_log_loss(
        (silent_gold.iter()).map(|&(gold, q)| if gold.of_label { q } else { 1.0 - q }),
    );
    let label_model_loss = mean_log_loss(silent_gold.iter().map(|(gold, _)| gold.label_model));
    if !silent_gold.is_empty() && past_silence_loss >= label_model_loss {
        return Ok(None);
    }
    let silent = |fired: &Fired| matches!(fired, Fired::Silent);
    Ok(Some(SilenceTeaching {
        train: train
            .iter()
            .zip(&g)
            .map(|((_, fired), &g)| silent(fired).then(|| share(g) as f32))
            .collect(),
        dev: dev
            .iter()
            .zip(&dev_g)
            .map(|(line, &g)| (!line.fired).then(|| share(g) as f32))
            .collect(),
        reach,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Spam a rule fires on (its word `prize`), spam it is silent on, and ham.
    const RULE_SPAM: [&str; 5] = [
        "you have won a free prize , call now to claim it",
        "free prize waiting for you , text claim to 80082",
        "win a free prize today , reply yes to enter",
        "congratulations , you are in our prize draw , call 0906",
        "your prize is ready , collect it now before it expires",
    ];
    const SILENT_SPAM: [&str; 4] = [
        "urgent ! you have won a cash award , call 0871 now to claim",
        "you are selected to receive a 2000 pound bonus , text win now",
        "claim your free holiday voucher today , call 0800 now",
        "winner ! you have been chosen for a cash reward , reply claim",
    ];
    const HAM: [&str; 8] = [
        "are we still meeting for lunch today ?",
        "i will be home late tonight , save me some dinner",
        "can you pick up the kids from school ?",
        "thanks for the lovely evening , see you soon",
        "sorry i missed your call , i was in a meeting",
        "what time does the movie start ?",
        "mum says hi and wants to know when you are coming",
        "ok i am leaving the office now",
    ];

    /// `n_rule` lines a spam rule fires on, the silent spam lines, and `n_ham` silent ham.
    fn train(n_rule: usize, n_ham: usize) -> Vec<(&'static str, Fired)> {
        let fired = Fired::Rule {
            of_label: true,
            label_model: 0.95,
        };
        let mut lines: Vec<(&str, Fired)> = RULE_SPAM
            .iter()
            .cycle()
            .take(n_rule)
            .map(|&text| (text, fired))
            .collect();
        lines.extend(SILENT_SPAM.iter().map(|&t| (t, Fired::Silent)));
        lines.extend(HAM.iter().cycle().take(n_ham).map(|&t| (t, Fired::Silent)));
        lines
    }

    fn dev(gold_of_silent_spam: Option<DevGold>) -> Vec<DevLine<'static>> {
        vec![
            DevLine {
                text: "claim your cash prize now , call 0906",
                fired: true,
                gold: None,
            },
            DevLine {
                text: "hey , running late , see you at eight",
                fired: false,
                gold: None,
            },
            DevLine {
                text: "you have been selected to win a cash award , call now",
                fired: false,
                gold: gold_of_silent_spam,
            },
        ]
    }

    #[test]
    fn lines_like_those_the_rules_fire_on_are_taught_their_label_past_the_silence() {
        let lines = train(MIN_RULE_LINES, 1_000);
        let taught = silence_teaching(&lines, &dev(None), &|| false)
            .unwrap()
            .expect("precise rules on a small share of the lines");
        assert!((0.0..=1.0).contains(&taught.reach), "{}", taught.reach);
        // The lines a rule fired on are the label model's to teach.
        assert!(taught.train[..MIN_RULE_LINES].iter().all(Option::is_none));
        let silent = MIN_RULE_LINES..MIN_RULE_LINES + SILENT_SPAM.len();
        let silent_spam = taught.train[silent.clone()]
            .iter()
            .map(|q| q.unwrap())
            .fold(1.0, f32::min);
        let ham = taught.train[silent.end..]
            .iter()
            .map(|q| q.unwrap())
            .fold(0.0, f32::max);
        assert!(silent_spam > 0.3 && ham < 0.05, "{silent_spam} {ham}");
        assert!(taught.dev[0].is_none());
        assert!(
            taught.dev[2].unwrap() > taught.dev[1].unwrap(),
            "{:?}",
            taught.dev
        );
        // A newer save's cancellation stops it.
        assert!(
            silence_teaching(&lines, &dev(None), &|| true)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn it_teaches_only_from_enough_rule_lines_where_the_label_stays_outnumbered() {
        // Too few lines a rule of the label fires on.
        let few = train(MIN_RULE_LINES - 1, 1_000);
        assert!(
            silence_teaching(&few, &dev(None), &|| false)
                .unwrap()
                .is_none()
        );
        // Rules that fire on most lines: the label would outnumber the default.
        let most = train(1_000, 200);
        assert!(
            silence_teaching(&most, &dev(None), &|| false)
                .unwrap()
                .is_none()
        );
        // Past the limit on lines, nothing is encoded.
        let mut many = train(MIN_RULE_LINES, 1_000);
        many.resize(MAX_ENCODER_LINES, ("", Fired::Silent));
        assert!(
            silence_teaching(&many, &dev(None), &|| false)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_gold_dev_line_no_rule_fires_on_chooses_by_log_loss() {
        let lines = train(MIN_RULE_LINES, 1_000);
        // Spam the label model gives ham: the teaching past the silence does better ...
        let spam = DevGold {
            of_label: true,
            label_model: 0.05,
        };
        assert!(
            silence_teaching(&lines, &dev(Some(spam)), &|| false)
                .unwrap()
                .is_some()
        );
        // ... and where that line is ham, as the label model says, worse.
        let ham = DevGold {
            of_label: false,
            label_model: 0.95,
        };
        assert!(
            silence_teaching(&lines, &dev(Some(ham)), &|| false)
                .unwrap()
                .is_none()
        );
    }
}

//! Preparing what a network trains on: the rule system whose labels it predicts, the word
//! vectors it reads, the labeled train and dev sentences (lines without a gold label taught
//! by the label model of the rules), and the check that the longest of them fits in memory.

use crate::automata::RuleSystem;
use crate::corpus::Example;
use crate::labeling::{
    Gold, LabelMatrix, LabelModel, LabelingRule, gold_labels, label_matrix, labeling_rules,
};
use crate::limits::ReadLimits;
use crate::model::fa_rnn::WordInput;
use crate::model::nn::embeddings::{VectorSource, Vocabulary, read_vectors};
use crate::model::nn::network::Network;
use crate::model::nn::softmax_regression::Target;
use crate::model::train::build::{labeled, labeled_or_unknown, unlabeled, vocabulary};
use crate::model::train::checkpoint::{EmbeddingsIdentity, LabelModelMetrics};
use crate::model::train::encoder_teacher::{
    DevLines, EncoderTeaching, TrainLines, encoder_teaching, may_teach,
};
use crate::model::train::events::{FitError, FitEvent};
use crate::model::train::learn::{LabeledSentence, MAX_TRAINING_BYTES, TrainError, evenly_spaced};
use crate::model::train::settings::{MIN_DEFAULT_REACH, ModelKind, TrainingSettings};
use crate::model::train::silence_teacher::{
    DevGold, DevLine, Fired, SilenceTeaching, silence_teaching,
};
use crate::rules_file::RulesFile;

/// The most labels of a train corpus that the rules do not name a network learns: beyond
/// it a mislabeled column, not a task (each is a logit).
pub const MAX_CORPUS_LABELS: usize = 1_000;

/// The rule system the network predicts the labels of: the rules' labels, then those of
/// the train corpus the rules do not name, in order of first appearance, which every
/// network learns (the FA-RNN family through its word-vector path, which β 1 turns off);
/// the rules' own with `drop_unnamed_labels`.
pub(crate) fn network_system(
    system: &RuleSystem,
    train_examples: &[Example],
    settings: &TrainingSettings,
) -> Result<RuleSystem, FitError> {
    if settings.drop_unnamed_labels {
        return Ok(system.clone());
    }
    let mut extra: Vec<&str> = Vec::new();
    for label in train_examples.iter().filter_map(|e| e.label.as_deref()) {
        if system.label_by_name(label).is_none() && !extra.contains(&label) {
            if extra.len() == MAX_CORPUS_LABELS {
                return Err(FitError::Config(format!(
                    "the train corpus has more than {MAX_CORPUS_LABELS} labels the rules do not name"
                )));
            }
            extra.push(label);
        }
    }
    if !extra.is_empty() && settings.model.is_rule_network() && settings.beta >= 1.0 {
        return Err(FitError::UnnamedLabels {
            labels: extra.iter().map(|label| label.to_string()).collect(),
        });
    }
    Ok(system.with_labels(extra))
}

/// The word vectors of every train and dev word and of the rules' literals, with the
/// manifest's record of them; `None` when β is 1 for the FA-RNN family (the network then
/// reads the rules' symbols alone, and word vectors would change nothing). SoPa and the
/// black boxes always read them.
pub(crate) fn word_input(
    system: &RuleSystem,
    train_examples: &[Example],
    dev_examples: &[Example],
    settings: &TrainingSettings,
    limits: &ReadLimits,
) -> Result<Option<(WordInput, EmbeddingsIdentity)>, FitError> {
    if settings.beta >= 1.0 && settings.model.is_rule_network() {
        return Ok(None);
    }
    let vocabulary = vocabulary(system, [train_examples, dev_examples]);
    let source = VectorSource::of(settings.embeddings.as_deref());
    let vectors = read_vectors(source, &vocabulary, limits).map_err(FitError::Embeddings)?;
    let identity = EmbeddingsIdentity {
        source: match source {
            VectorSource::Glove(path) => std::path::absolute(path)
                .unwrap_or_else(|_| path.to_path_buf())
                .display()
                .to_string(),
            VectorSource::Bundled => source.name(),
        },
        sha256: vectors.sha256.clone(),
        dim: vectors.dim,
        found: vectors.n_found,
        backed_off: vectors.n_backed_off,
    };
    let input = WordInput {
        vocabulary,
        vectors,
        beta: settings.beta,
    };
    Ok(Some((input, identity)))
}

/// What training reads: the labeled train and dev sentences, how many of them the network
/// reads only in part, how many train lines were left out for a label the network does
/// not know, and what the label model made of the lines without a gold label.
pub(crate) struct TrainingData {
    /// The gold train lines first, then their repeats and the taught lines.
    pub(crate) train: Vec<LabeledSentence>,
    /// How many of the first lines of `train` the network itself learns from
    /// ([`network_lines`]); the n-gram regression beside it learns from all of them.
    pub(crate) network_lines: usize,
    pub(crate) dev: Vec<LabeledSentence>,
    pub(crate) n_truncated: usize,
    pub(crate) n_dropped: usize,
    /// Where some line had no gold label: the label model that taught it.
    pub(crate) label_model: Option<LabelModelMetrics>,
}

impl TrainingData {
    /// What training says it will learn from, before the first member trains: the lines the
    /// network learns from and dev, then what the label model taught.
    pub(crate) fn events(&self, max_tokens: usize) -> Vec<FitEvent<'static>> {
        let mut events = vec![FitEvent::Data {
            n_train: self.network_lines,
            n_dev: self.dev.len(),
            n_truncated: self.n_truncated,
            max_tokens,
            n_dropped: self.n_dropped,
        }];
        events.extend(self.label_model.map(FitEvent::LabelModel));
        events
    }
}

/// The train and dev sentences training uses: `fraction` of train's labeled lines (evenly
/// spaced) and every line without a gold label, and all of dev, or, at 1 % or less, as many
/// dev sentences as gold train ones (evenly spaced too), as in the reference code. A train
/// line whose label the network does not know is left out; a dev line keeps
/// [`UNKNOWN_LABEL`] for its label, so that dev accuracy counts it as an error, as `rulelens
/// eval` does.
///
/// Lines without a gold label are taught the probabilities of the label model of `rules`
/// (`labeling::LabelModel`), fitted on every train line, the gold ones as they are, where
/// some rule fired on them: where none did, the rules said nothing, and their label model's
/// probabilities (the default's, mostly) would teach a network that reads the rules their
/// silence again (as Snorkel's end models leave out the lines every labeling function
/// abstains on; on SMS dev with no gold label, the network with its n-gram regression taught
/// them gets 91.8 %, without them 96.2 %). A black box, which reads no rules, learns the
/// silence from them (SMS dev, with no label: 87.4 % without them, 92.2 % with them;
/// `docs/results.md`), and so does every family where the silence is all that speaks for
/// the default label ([`silence_speaks_for_default`]). Where dev has no gold label at
/// all, its lines take the label model's most probable label, and training stops on
/// agreement with it. A file without a rule (`default` alone) has nothing a label model
/// could read, and its lines without a gold label are left out.
pub(crate) fn training_data(
    rules: &RulesFile,
    system: &RuleSystem,
    vocabulary: Option<&Vocabulary>,
    train_examples: &[Example],
    dev_examples: &[Example],
    settings: &TrainingSettings,
    cancelled: &dyn Fn() -> bool,
) -> Result<TrainingData, FitError> {
    let max_tokens = settings.max_sentence_tokens;
    let (all_train, train_truncated) = labeled(system, vocabulary, train_examples, max_tokens);
    let (mut all_dev, mut dev_truncated) =
        labeled_or_unknown(system, vocabulary, dev_examples, max_tokens);
    let n_dropped = train_examples.iter().filter(|e| e.label.is_some()).count() - all_train.len();
    let fraction = settings.fraction;
    let pick = |data: &[LabeledSentence], indices: Vec<usize>| -> Vec<LabeledSentence> {
        indices.into_iter().map(|i| data[i].clone()).collect()
    };
    let mut train = pick(&all_train, train_lines_read(all_train.len(), fraction));
    let dev_unlabeled = all_dev.is_empty() && dev_examples.iter().any(|e| e.label.is_none());
    let mut label_model = None;
    let mut soft_truncated = 0;
    // Without a rule there is nothing for a label model to read: lines without a gold
    // label are left out.
    let teaches = !rules.system.rules().is_empty();
    if teaches && (dev_unlabeled || train_examples.iter().any(|e| e.label.is_none())) {
        let teacher = Teacher::fit(rules, system, train_examples)?;
        let silence_teaches_default =
            silence_speaks_for_default(system, &train, &teacher, train_examples);
        let (encoder, past_silence) = if silence_teaches_default {
            let past = teacher.past_silence(system, train_examples, dev_examples, cancelled)?;
            (None, past)
        } else {
            let taught =
                teacher.encoder_teaching(system, train_examples, dev_examples, cancelled)?;
            (taught, None)
        };
        let (soft, truncated) = match &encoder {
            Some(taught) => unlabeled(system, vocabulary, train_examples, max_tokens, |i| {
                Some(taught.train[i].clone())
            }),
            None => unlabeled(
                system,
                vocabulary,
                train_examples,
                max_tokens,
                teacher.probabilities(
                    &teacher.train_matrix,
                    settings.model.is_black_box() || silence_teaches_default,
                    past_silence
                        .as_ref()
                        .map(|past| (past, &past.teaching.train[..])),
                ),
            ),
        };
        soft_truncated += truncated;
        let estimated_accuracy = soft
            .iter()
            .filter_map(|s| s.soft.as_ref()?.iter().copied().reduce(f32::max))
            .map(f64::from)
            .sum::<f64>()
            / soft.len().max(1) as f64;
        if dev_unlabeled {
            let (dev, truncated) = match &encoder {
                Some(taught) => unlabeled(system, vocabulary, dev_examples, max_tokens, |i| {
                    Some(taught.dev[i].clone())
                }),
                None => unlabeled(
                    system,
                    vocabulary,
                    dev_examples,
                    max_tokens,
                    teacher.probabilities(
                        &teacher.matrix(dev_examples),
                        true,
                        past_silence
                            .as_ref()
                            .map(|past| (past, &past.teaching.dev[..])),
                    ),
                ),
            };
            // Dev is measured against the most probable label alone.
            all_dev = dev
                .into_iter()
                .map(|line| LabeledSentence { soft: None, ..line })
                .collect();
            dev_truncated = truncated;
        }
        label_model = Some(LabelModelMetrics {
            gold_lines: train.len(),
            unlabeled_lines: soft.len(),
            estimated_accuracy,
            dev_from_label_model: dev_unlabeled,
            network_from_gold: network_from_gold(train.len(), vocabulary.is_some(), settings),
            silence_teaches_default,
            encoder_teaches: encoder.is_some(),
            silence_rules_reach: past_silence.map(|past| past.teaching.reach),
        });
        let n_gold = train.len();
        for _ in 1..gold_repeats(n_gold, soft.len()) {
            train.extend_from_within(..n_gold);
        }
        train.extend(soft);
    }
    let n_gold = label_model.map_or(train.len(), |used| used.gold_lines);
    let dev = if dev_unlabeled {
        all_dev
    } else {
        pick(&all_dev, dev_lines_read(all_dev.len(), n_gold, fraction))
    };
    if train.is_empty() {
        return Err(FitError::NoData { split: "train" });
    }
    if dev.is_empty() {
        return Err(FitError::NoData { split: "dev" });
    }
    Ok(TrainingData {
        network_lines: network_lines(label_model, train.len()),
        train,
        dev,
        n_truncated: train_truncated + soft_truncated + dev_truncated,
        n_dropped,
        label_model,
    })
}

/// Which of train's `n_gold` gold lines (of labels the network knows) training reads: those
/// evenly spaced at `fraction` (the paper's low-resource subsets).
pub(crate) fn train_lines_read(n_gold: usize, fraction: f64) -> Vec<usize> {
    evenly_spaced(n_gold, fraction)
}

/// Which of dev's `n_dev` gold lines training reads, where it reads `n_train` of train's:
/// every one, but at a fraction of 1 % or less as many as train's, evenly spaced (a dev of
/// the same size, as the paper's low-resource runs have).
pub(crate) fn dev_lines_read(n_dev: usize, n_train: usize, fraction: f64) -> Vec<usize> {
    if fraction <= 0.01 && n_train > 0 {
        evenly_spaced(n_dev, n_train as f64 / n_dev.max(1) as f64)
    } else {
        (0..n_dev).collect()
    }
}

/// Whether the lines no rule fires on speak for the rules' default label, so that they are
/// taught (the label model's answer there, the default's mostly), as a black box's are: no
/// gold line of `gold` has the default, and no rule votes for it, or the lines some rule
/// fires on hold under [`MIN_DEFAULT_REACH`] of its lines as the label model estimates them
/// ([`Teacher::default_reach`]). Left out, what teaches the default is then
/// nothing or a few lines of one kind, and a spam filter written as spam rules and `default
/// ham` learned spam everywhere (SMS with its ham rules taken out and no gold label, dev
/// 12.80 % left out, 91.80 % taught; apparel with induced `neg` rules and `default pos`,
/// 63.75 % and 73.12 %; `docs/results.md`, "No gold label: the regression's weight, and the
/// silence that speaks for the default"). Where the default's rules reach more, or a gold
/// line speaks for it, they are left out as before (SMS with its ham rules and no gold
/// label, 96.2 % left out and 91.8 % taught; its ham rules taken out and 1 % of train
/// labeled, 94.8 % and 93.4 %). `system` is the network's, in whose label indices `gold`'s
/// and the teacher's are; `train_examples` are the lines the teacher was fitted on.
fn silence_speaks_for_default(
    system: &RuleSystem,
    gold: &[LabeledSentence],
    teacher: &Teacher,
    train_examples: &[Example],
) -> bool {
    let Some(default) = system.default_label() else {
        return false;
    };
    if gold
        .iter()
        .any(|line| line.label as usize == default.index())
    {
        return false;
    }
    !system.rules().iter().any(|rule| rule.label == default)
        || teacher
            .default_reach(train_examples, default.index())
            .is_some_and(|reach| reach < MIN_DEFAULT_REACH)
}

/// Whether the network learns from the gold train lines alone, and the lines the label model
/// teaches only through the n-gram regression beside it: where there are `n_gold` gold
/// lines (some) and a regression is fitted (word vectors read, `wants_ngram_regression`). A
/// network that reads the rules can say the label model exactly (its probabilities are a
/// function of which rules fire): taught them, it learns the rules back, and where they are
/// often wrong (59 % on TREC) it unlearns what the gold lines taught it. The regression, a
/// bag of n-grams that cannot say the rules, spreads their evidence to the words around
/// them. On the FA-RNN at 10 % of TREC, dev 72.40 % where the network learned from the
/// taught lines, 77.33 % where it learns from the gold ones alone (the gold lines alone,
/// regression included: 77.13 %); at 1 %, 63.00 % and 65.20 % (61.93 %); SMS at 1 % 96.40 %
/// both (`docs/results.md`, "The network from gold lines, the regression from all").
/// Without a gold line, or without a regression, the network learns from every line.
fn network_from_gold(n_gold: usize, reads_vectors: bool, settings: &TrainingSettings) -> bool {
    n_gold > 0 && reads_vectors && settings.wants_ngram_regression()
}

/// How many of the first `n_train` train lines the network learns from: the gold lines
/// alone where [`network_from_gold`] says so (they come first), else all of them.
fn network_lines(label_model: Option<LabelModelMetrics>, n_train: usize) -> usize {
    match label_model {
        Some(used) if used.network_from_gold => used.gold_lines,
        _ => n_train,
    }
}

/// How many times each gold train line is taught beside `n_taught` lines the label model
/// teaches: as many as makes the gold lines weigh about as much as the taught ones
/// (⌈taught / gold⌉, at least once). Taught once, the 497 gold lines of 10 % of TREC were
/// a tenth of what training read beside 4,252 taught ones, whose labels are 59 %
/// right: dev 66.5 %, where repeated nine times they give 72.6 % (SMS at 1 %: 95.4 % and
/// 96.4 %; `docs/results.md`, "Gold lines among taught ones"). Where gold lines outnumber
/// the taught ones each is taught once, as with all gold labels, where no line is taught.
/// The repeats at most double the train lines training keeps. Where the network learns from
/// the gold lines alone ([`network_from_gold`]), they weigh in the n-gram regression only.
fn gold_repeats(n_gold: usize, n_taught: usize) -> usize {
    if n_gold == 0 {
        1
    } else {
        n_taught.div_ceil(n_gold).max(1)
    }
}

/// The lines the n-gram regression beside the network is fitted on again once C, its
/// weight and the temperature were chosen on `dev` (`ngram_fit::with_ngram_regression`), as
/// a grid search refits its best estimator on all it was given: train's gold lines and
/// dev's (those of a label the network knows) as one set of gold lines, each taught
/// [`gold_repeats`] times beside the lines the label model taught, then those; and how many
/// of them are dev's. `train` is [`TrainingData::train`], `label_model` its
/// [`TrainingData::label_model`].
pub(crate) fn with_dev_gold<'a>(
    train: &'a [LabeledSentence],
    label_model: Option<LabelModelMetrics>,
    dev: &'a [LabeledSentence],
    n_labels: usize,
) -> (Vec<&'a LabeledSentence>, usize) {
    let n_gold = label_model.map_or(train.len(), |used| used.gold_lines);
    let n_taught = label_model.map_or(0, |used| used.unlabeled_lines);
    let dev_gold: Vec<&LabeledSentence> = dev
        .iter()
        .filter(|line| line.soft.is_none() && (line.label as usize) < n_labels)
        .collect();
    let gold: Vec<&LabeledSentence> = train[..n_gold]
        .iter()
        .chain(dev_gold.iter().copied())
        .collect();
    let repeats = gold_repeats(gold.len(), n_taught);
    let mut lines = Vec::with_capacity(gold.len() * repeats + n_taught);
    for _ in 0..repeats {
        lines.extend(gold.iter().copied());
    }
    lines.extend(&train[train.len() - n_taught..]);
    (lines, dev_gold.len())
}

/// The label model that teaches the lines without a gold label: the rules it reads, and
/// their label matrix on train, which it was fitted on.
struct Teacher<'a> {
    rules_file: &'a RulesFile,
    rules: Vec<LabelingRule>,
    train_matrix: LabelMatrix,
    model: LabelModel,
}

impl<'a> Teacher<'a> {
    /// The label model of `rules` fitted on every train line, with the gold labels of
    /// those that have one the network knows (`system`'s labels: the rules', then the
    /// corpus's).
    fn fit(
        rules_file: &'a RulesFile,
        system: &RuleSystem,
        train_examples: &[Example],
    ) -> Result<Teacher<'a>, FitError> {
        let rules = labeling_rules(rules_file);
        let train_matrix = label_matrix(
            rules_file,
            &rules,
            train_examples.iter().map(|e| e.text.as_str()),
        );
        let model = LabelModel::fit(
            &train_matrix,
            &rules,
            system.labels().len(),
            system.default_label().map(|l| l.index()),
            &gold_labels(system, train_examples),
        )
        .map_err(|error| FitError::Config(format!("lines without a gold label: {error}")))?;
        Ok(Teacher {
            rules_file,
            rules,
            train_matrix,
            model,
        })
    }

    /// The label matrix of `examples`.
    fn matrix(&self, examples: &[Example]) -> LabelMatrix {
        label_matrix(
            self.rules_file,
            &self.rules,
            examples.iter().map(|e| e.text.as_str()),
        )
    }

    /// The sentence encoder's teaching of the train and dev lines where it teaches in place
    /// of the label model (`encoder_teacher.rs`), or `None`. Its regression is taught what
    /// the label model teaches: the gold train lines (of labels `system` knows), each
    /// [`gold_repeats`] times, and the label model's probabilities of the lines some rule
    /// fired on.
    fn encoder_teaching(
        &self,
        system: &RuleSystem,
        train_examples: &[Example],
        dev_examples: &[Example],
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Option<EncoderTeaching>, FitError> {
        let k = self.model.n_labels();
        let gold = gold_labels(system, train_examples);
        let dev_gold: Vec<Option<usize>> = gold_labels(system, dev_examples)
            .iter()
            .map(|g| g.label().filter(|&l| l < k))
            .collect();
        let estimated_accuracy = self.model.estimated_accuracy(&self.train_matrix, &gold);
        // Where the label model keeps teaching, nothing more is prepared.
        if !may_teach(dev_gold.iter().any(Option::is_some), estimated_accuracy) {
            return Ok(None);
        }
        let train_probabilities = self.model.probabilities(&self.train_matrix);
        let targets: Vec<Option<Target>> = (0..train_examples.len())
            .map(|i| match gold[i].label() {
                Some(label) => Some(Target::Label(label)),
                None if gold[i] == Gold::Unlabeled && !self.train_matrix.fired(i).is_empty() => {
                    Some(Target::Distribution(
                        train_probabilities[i * k..(i + 1) * k]
                            .iter()
                            .map(|&p| p as f32)
                            .collect(),
                    ))
                }
                None => None,
            })
            .collect();
        let n_gold = targets
            .iter()
            .filter(|t| matches!(t, Some(Target::Label(_))))
            .count();
        let n_taught = targets.iter().flatten().count() - n_gold;
        let dev_probabilities = self.model.probabilities(&self.matrix(dev_examples));
        let train_lines = TrainLines {
            texts: train_examples.iter().map(|e| e.text.as_str()).collect(),
            targets,
            gold_repeats: gold_repeats(n_gold, n_taught),
        };
        let dev_lines = DevLines {
            texts: dev_examples.iter().map(|e| e.text.as_str()).collect(),
            gold: dev_gold,
            label_model: dev_probabilities
                .chunks(k.max(1))
                .map(<[f64]>::to_vec)
                .collect(),
        };
        let taught = encoder_teaching(&train_lines, &dev_lines, k, estimated_accuracy, cancelled)
            .map_err(|error| FitError::Config(format!("the sentence encoder: {error}")))?;
        if cancelled() {
            return Err(TrainError::Cancelled.into());
        }
        Ok(taught)
    }

    /// Where the silence teaches the default of a filter (two labels: the default and the
    /// one the other rules name), the teaching of the lines no rule fires on past the rules'
    /// silence (`silence_teacher.rs`), its train lines aligned with `train_examples` (a gold
    /// line's `None`), or `None` where it does not teach.
    fn past_silence(
        &self,
        system: &RuleSystem,
        train_examples: &[Example],
        dev_examples: &[Example],
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Option<PastSilence>, FitError> {
        let k = self.model.n_labels();
        let Some(default) = system.default_label().map(|d| d.index()) else {
            return Ok(None);
        };
        if k != 2 {
            return Ok(None);
        }
        let label = 1 - default;
        let train_probabilities = self.model.probabilities(&self.train_matrix);
        let unlabeled: Vec<usize> = (0..train_examples.len())
            .filter(|&i| train_examples[i].label.is_none())
            .collect();
        let train: Vec<(&str, Fired)> = unlabeled
            .iter()
            .map(|&i| {
                let rules = self.train_matrix.fired(i);
                let fired = if rules.is_empty() {
                    Fired::Silent
                } else {
                    Fired::Rule {
                        of_label: rules.iter().any(|&r| self.rules[r].label == label),
                        label_model: train_probabilities[i * k + label],
                    }
                };
                (train_examples[i].text.as_str(), fired)
            })
            .collect();
        let dev_matrix = self.matrix(dev_examples);
        let dev_probabilities = self.model.probabilities(&dev_matrix);
        let dev_gold = gold_labels(system, dev_examples);
        let dev: Vec<DevLine> = dev_examples
            .iter()
            .enumerate()
            .map(|(i, example)| DevLine {
                text: &example.text,
                fired: !dev_matrix.fired(i).is_empty(),
                gold: dev_gold[i].label().filter(|&g| g < k).map(|g| DevGold {
                    of_label: g == label,
                    label_model: dev_probabilities[i * k + g],
                }),
            })
            .collect();
        let Some(mut teaching) = silence_teaching(&train, &dev, cancelled)
            .map_err(|error| FitError::Config(format!("the sentence encoder: {error}")))?
        else {
            if cancelled() {
                return Err(TrainError::Cancelled.into());
            }
            return Ok(None);
        };
        let mut aligned = vec![None; train_examples.len()];
        for (&i, q) in unlabeled.iter().zip(teaching.train) {
            aligned[i] = q;
        }
        teaching.train = aligned;
        Ok(Some(PastSilence {
            teaching,
            label,
            default,
        }))
    }

    /// How much of the probability the label model gives label `default` on the lines of
    /// `train_examples` (those it was fitted on) without a gold label lies on lines some rule
    /// fired on: the share of the default's estimated lines the rules reach; `None` where it
    /// gives the default nothing.
    fn default_reach(&self, train_examples: &[Example], default: usize) -> Option<f64> {
        let k = self.model.n_labels();
        let all = self.model.probabilities(&self.train_matrix);
        let (mut reached, mut total) = (0.0, 0.0);
        for (i, example) in train_examples.iter().enumerate() {
            if example.label.is_some() {
                continue;
            }
            let p = all[i * k + default];
            total += p;
            if !self.train_matrix.fired(i).is_empty() {
                reached += p;
            }
        }
        (total > 0.0).then(|| reached / total)
    }

    /// Line `i` of `matrix`'s probabilities, where `all_lines` or some rule fired on it;
    /// where `past` teaches line `i` past a filter's silence (its per-line probabilities of
    /// the rules' label), that teaching instead.
    fn probabilities<'m>(
        &self,
        matrix: &'m LabelMatrix,
        all_lines: bool,
        past: Option<(&'m PastSilence, &'m [Option<f32>])>,
    ) -> impl FnMut(usize) -> Option<Vec<f32>> + 'm {
        let k = self.model.n_labels();
        let all = self.model.probabilities(matrix);
        move |i: usize| {
            if let Some(q) = past.and_then(|(past, taught)| Some(past.row(taught[i]?))) {
                return Some(q);
            }
            (all_lines || !matrix.fired(i).is_empty())
                .then(|| all[i * k..(i + 1) * k].iter().map(|&p| p as f32).collect())
        }
    }
}

/// The teaching past a filter's silence (`Teacher::past_silence`): the rules' label and the
/// default, by index.
struct PastSilence {
    teaching: SilenceTeaching,
    label: usize,
    default: usize,
}

impl PastSilence {
    /// The probabilities taught a line past the silence: the rules' label at `q`, the
    /// default at the rest.
    fn row(&self, q: f32) -> Vec<f32> {
        let mut row = vec![0.0; 2];
        row[self.label] = q;
        row[self.default] = 1.0 - q;
        row
    }
}

/// Refuses a train sentence that would keep more than [`MAX_TRAINING_BYTES`] for the
/// gradient on its own, in a batch of one (a larger batch is split, `learn.rs`).
pub(crate) fn check_longest_sentence(
    train_data: &[LabeledSentence],
    net: &dyn Network,
    settings: &TrainingSettings,
) -> Result<(), FitError> {
    let longest = train_data
        .iter()
        .map(|d| d.sentence.symbols.len())
        .max()
        .unwrap_or(0);
    let bytes = net
        .training_bytes_per_token()
        .saturating_mul(longest as u64);
    if bytes > MAX_TRAINING_BYTES {
        return Err(FitError::Config(format!(
            "the longest train sentence, {longest} tokens, keeps about {} MiB for training on its own, more than the {} MiB allowed; lower max sentence tokens{}",
            bytes >> 20,
            MAX_TRAINING_BYTES >> 20,
            if settings.model == ModelKind::Slstm {
                " or slstm steps"
            } else {
                ""
            }
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::testing::{example_line as line, rules_of};

    /// Unlabeled train lines are taught the label model's probabilities where some rule
    /// fires on them (every one for a black box); gold lines stay gold; a dev without gold
    /// labels takes the label model's most probable labels.
    #[test]
    fn unlabeled_lines_are_taught_by_the_label_model() {
        let rules = rules_of("default ham\nspam: $* free $*\n");
        let train = [
            line("free prize", None),
            line("see you", None),
            line("hi mum", Some("ham")),
            line("free cash", None),
            line("ok then", None),
            line("call me", None),
        ];
        let dev = [line("free stuff", None), line("hello", None)];
        let spam = rules.system.label_by_name("spam").unwrap().index() as u32;
        let data = |model: ModelKind| {
            let settings = TrainingSettings {
                model,
                ..TrainingSettings::DEFAULT
            };
            training_data(
                &rules,
                &rules.system,
                None,
                &train,
                &dev,
                &settings,
                &|| false,
            )
            .unwrap()
        };
        let rule_network = data(ModelKind::FaRnn);
        let used = rule_network.label_model.unwrap();
        assert_eq!((used.gold_lines, used.unlabeled_lines), (1, 2));
        // Without word vectors there is no n-gram regression: the network learns from all.
        assert!(!used.network_from_gold);
        assert_eq!(rule_network.network_lines, rule_network.train.len());
        // The two lines the rule fires on, after the gold one, taught twice to weigh as
        // much as they do.
        assert!(used.dev_from_label_model);
        let (gold, taught) = rule_network.train.split_at(2);
        assert!(
            gold.iter()
                .all(|g| g.soft.is_none() && g.sentence == gold[0].sentence)
        );
        assert_eq!(taught.len(), 2);
        for sentence in taught {
            let soft = sentence.soft.as_ref().unwrap();
            assert!((soft.iter().sum::<f32>() - 1.0).abs() < 1e-6);
            assert_eq!(sentence.label, spam);
        }
        let dev_labels: Vec<u32> = rule_network.dev.iter().map(|d| d.label).collect();
        assert_eq!(dev_labels, [spam, 1 - spam]);
        assert!(rule_network.dev.iter().all(|d| d.soft.is_none()));
        let black_box = data(ModelKind::MvmaG);
        assert_eq!(black_box.label_model.unwrap().unlabeled_lines, 5);
        assert_eq!(black_box.train.len(), 5 + 5);
        // A file without a rule has nothing a label model could read: the unlabeled lines
        // are left out, for a black box too.
        let default_only = rules_of("default ham\n");
        let settings = TrainingSettings {
            model: ModelKind::MvmaG,
            ..TrainingSettings::DEFAULT
        };
        let data = training_data(
            &default_only,
            &default_only.system,
            None,
            &train,
            &[line("hello", Some("ham"))],
            &settings,
            &|| false,
        )
        .unwrap();
        assert!(data.label_model.is_none());
        assert_eq!(data.train.len(), 1);
        // With every line labeled there is no label model.
        let labeled = [line("free prize", Some("spam")), line("hi", Some("ham"))];
        let settings = TrainingSettings::DEFAULT;
        let data = training_data(
            &rules,
            &rules.system,
            None,
            &labeled,
            &labeled,
            &settings,
            &|| false,
        );
        assert!(data.unwrap().label_model.is_none());
    }

    /// The lines no rule fires on are taught where they alone speak for the default label:
    /// no rule of its own and no gold line of it; else they are left out.
    #[test]
    fn silent_lines_are_taught_where_only_they_speak_for_the_default() {
        let unlabeled = [
            line("free prize", None),
            line("see you", None),
            line("free cash", None),
            line("ok then", None),
        ];
        let dev = [line("free stuff", Some("spam")), line("hello", Some("ham"))];
        let taught = |text: &str, train: &[Example]| {
            let rules = rules_of(text);
            let settings = TrainingSettings::DEFAULT;
            let data = training_data(&rules, &rules.system, None, train, &dev, &settings, &|| {
                false
            });
            let used = data.unwrap().label_model.unwrap();
            (used.silence_teaches_default, used.unlabeled_lines)
        };
        let spam_rules_only = "default ham\nspam: $* free $*\n";
        assert_eq!(taught(spam_rules_only, &unlabeled), (true, 4));
        // A rule of the default's own speaks for it.
        let with_ham_rule = "default ham\nham: $* ok $*\nspam: $* free $*\n";
        assert_eq!(taught(with_ham_rule, &unlabeled), (false, 3));
        // So does a gold line of the default; one of another label does not.
        let with_gold = |label: &str| {
            let mut train = unlabeled.to_vec();
            train.push(line("hi mum", Some(label)));
            train
        };
        assert_eq!(taught(spam_rules_only, &with_gold("ham")), (false, 2));
        assert_eq!(taught(spam_rules_only, &with_gold("spam")), (true, 4));
        // Without a default the rules' silence says nothing.
        let no_default = "spam: $* free $*\nham: $* ok $*\n";
        assert_eq!(taught(no_default, &unlabeled), (false, 3));
    }

    /// The network learns from the gold lines alone where some train line has one and an
    /// n-gram regression beside it learns from the taught ones; else from every line.
    #[test]
    fn the_network_learns_from_the_gold_lines_where_the_regression_learns_from_all() {
        let settings = TrainingSettings::DEFAULT;
        assert!(network_from_gold(46, true, &settings));
        assert!(!network_from_gold(0, true, &settings));
        // Without word vectors there is no regression, nor with a weight of 0 on it.
        assert!(!network_from_gold(46, false, &settings));
        let no_regression = TrainingSettings {
            ngram_weight: Some(0.0),
            ..TrainingSettings::DEFAULT
        };
        assert!(!network_from_gold(46, true, &no_regression));
        let used = |network_from_gold| LabelModelMetrics {
            gold_lines: 46,
            unlabeled_lines: 1_838,
            estimated_accuracy: 0.9,
            dev_from_label_model: false,
            network_from_gold,
            silence_teaches_default: false,
            encoder_teaches: false,
            silence_rules_reach: None,
        };
        assert_eq!(network_lines(Some(used(true)), 3_678), 46);
        assert_eq!(network_lines(Some(used(false)), 3_678), 3_678);
        assert_eq!(network_lines(None, 4_502), 4_502);
    }

    /// The gold lines weigh about as much as the taught ones, and never less than once.
    #[test]
    fn gold_lines_are_repeated_to_weigh_as_much_as_the_taught_ones() {
        // 1 % of SMS and of TREC, 10 % of TREC.
        assert_eq!(gold_repeats(46, 1_838), 40);
        assert_eq!(gold_repeats(50, 4_680), 94);
        assert_eq!(gold_repeats(497, 4_252), 9);
        assert_eq!(gold_repeats(500, 450), 1);
        assert_eq!(gold_repeats(3, 0), 1);
        assert_eq!(gold_repeats(0, 10), 1);
        // At most as many repeated lines as taught ones, plus fewer than a gold line each.
        for (gold, taught) in [(46, 1_838), (7, 1_000), (1, 1)] {
            let repeated = gold * (gold_repeats(gold, taught) - 1);
            assert!(repeated < taught + gold, "{gold} {taught}");
        }
    }

    /// The regression's refit reads dev's gold lines as gold train lines: once each beside
    /// the gold train lines, the lot repeated to weigh as much as the taught lines, which
    /// come last and once; a dev line of a label the network does not know is left out.
    #[test]
    fn the_refit_reads_devs_gold_lines_with_trains() {
        let rules = rules_of("default ham\nspam: $* free $*\n");
        let train = [
            line("free prize", None),
            line("hi mum", Some("ham")),
            line("free cash", None),
            line("free gift", None),
            line("free money", None),
        ];
        let dev = [
            line("free stuff", Some("spam")),
            line("hello", Some("greeting")),
        ];
        let data = training_data(
            &rules,
            &rules.system,
            None,
            &train,
            &dev,
            &TrainingSettings::DEFAULT,
            &|| false,
        )
        .unwrap();
        let used = data.label_model.unwrap();
        assert_eq!((used.gold_lines, used.unlabeled_lines), (1, 4));
        // Train alone: the gold line four times, then the four taught lines.
        assert_eq!(data.train.len(), 8);
        let n_labels = rules.system.labels().len();
        let (lines, from_dev) = with_dev_gold(&data.train, data.label_model, &data.dev, n_labels);
        assert_eq!(from_dev, 1);
        // Two gold lines now, each twice (⌈4 ÷ 2⌉), then the taught ones.
        let expected: Vec<&LabeledSentence> = [&data.train[0], &data.dev[0]]
            .repeat(2)
            .into_iter()
            .chain(&data.train[4..])
            .collect();
        assert_eq!(lines.len(), expected.len());
        assert!(
            lines
                .iter()
                .zip(&expected)
                .all(|(a, b)| std::ptr::eq(*a, *b))
        );
        // With all gold labels, train's lines and then dev's, once.
        let gold_train = [line("hi mum", Some("ham")), line("free cash", Some("spam"))];
        let data = training_data(
            &rules,
            &rules.system,
            None,
            &gold_train,
            &dev,
            &TrainingSettings::DEFAULT,
            &|| false,
        )
        .unwrap();
        let (lines, from_dev) = with_dev_gold(&data.train, data.label_model, &data.dev, n_labels);
        assert_eq!((lines.len(), from_dev), (3, 1));
        assert!(std::ptr::eq(lines[2], &data.dev[0]));
    }
}

//! Learning from rules and unlabeled text: the bundled SMS and TREC corpora with their
//! labels cut off (`cut -f2`), as a rule writer without labels has them. Training on them
//! (the label model's probabilities of the lines the rules fire on, or, where it estimates
//! the rules weak, the sentence encoder's regression's) beats the rules on the labeled dev
//! lines it never saw the labels of; and the label model's estimated precisions
//! of the rules are near their true precisions where the rules are nearly independent.

mod common;

use candle_core::Device;
use common::example;
use rulelens::automata::evaluate;
use rulelens::corpus::Example;
use rulelens::ide::testing::rules_of;
use rulelens::labeling::{estimate, labeling_rules, summarize_examples};
use rulelens::limits::ReadLimits;
use rulelens::model::checkpoint::{self, DevFigure, LabelModelMetrics};
use rulelens::model::{
    FitEvent, Fitted, TextReader, TrainingSettings, accuracy, evenly_spaced, fit, labeled,
    load_model, probabilities_of,
};
use rulelens::rules_file::RulesFile;

fn without_labels(examples: &[Example]) -> Vec<Example> {
    examples
        .iter()
        .map(|e| Example {
            label: None,
            ..e.clone()
        })
        .collect()
}

/// Trains on `name`'s train and dev lines without their labels, and returns the rules' and
/// the network's accuracy on the labeled dev lines.
fn rules_and_network_on_dev(name: &str) -> (f64, f64, LabelModelMetrics) {
    let (rules, train, dev) = example(name);
    let (rules_accuracy, network_accuracy, used) = trained_without_labels(&rules, &train, &dev);
    assert!(!used.silence_teaches_default);
    (rules_accuracy, network_accuracy, used)
}

/// How many of `name`'s train lines some rule fires on.
fn covered(name: &str) -> usize {
    let (rules, train, _) = example(name);
    evaluate(
        &rules.system,
        train.iter().map(|e| (e.text.as_str(), e.label.as_deref())),
    )
    .n_covered
}

/// Trains `rules` on `train` and `dev` without their labels, and returns the rules' and the
/// network's accuracy on the labeled dev lines, and what the label model taught.
fn trained_without_labels(
    rules: &RulesFile,
    train: &[Example],
    dev: &[Example],
) -> (f64, f64, LabelModelMetrics) {
    // One network and one epoch, to keep the test short (without a gold label the network
    // keeps the rules' agreement with the label model, and the n-gram regression beside it,
    // the defaults', learns beyond them).
    let settings = TrainingSettings {
        members: Some(1),
        epochs: 1,
        ..TrainingSettings::DEFAULT
    };
    let mut taught = None;
    let (mut said, mut epoch_figures) = (Vec::new(), Vec::new());
    let fitted = fit(
        rules,
        &without_labels(train),
        &without_labels(dev),
        &settings,
        &ReadLimits::DEFAULT,
        &mut |event| {
            said.extend(event.lines());
            match event {
                FitEvent::LabelModel(used) => taught = Some(used),
                FitEvent::Epoch(_, figure) => epoch_figures.push(figure),
                _ => {}
            }
        },
        &|| false,
    )
    .unwrap();
    let used = taught.expect("the label model taught the unlabeled lines");
    assert_eq!(used.gold_lines, 0);
    assert!(used.dev_from_label_model);
    assert_eq!(fitted.manifest.metrics.label_model, Some(used));
    // Dev's figures are agreement with the teacher's labels, and are named so: each epoch's,
    // the n-gram regression's line and the manifest's.
    let agreement = if used.encoder_teaches {
        DevFigure::EncoderAgreement
    } else if used.silence_rules_reach.is_some() {
        DevFigure::SilenceTeachingAgreement
    } else {
        DevFigure::LabelModelAgreement
    };
    assert_eq!(fitted.manifest.metrics.dev_figure(), agreement);
    assert!(!epoch_figures.is_empty());
    assert!(epoch_figures.iter().all(|&figure| figure == agreement));
    assert!(
        said.iter()
            .any(|line| line.starts_with("with the n-gram regression")
                && line.contains(agreement.name())),
        "{said:#?}"
    );
    assert!(
        !said.iter().any(|line| line.contains("dev accuracy")),
        "{said:#?}"
    );
    let rules_accuracy = evaluate(
        &rules.system,
        dev.iter().map(|e| (e.text.as_str(), e.label.as_deref())),
    )
    .accuracy()
    .unwrap();
    let (gold_dev, _) = labeled(&rules.system, fitted.vocabulary.as_ref(), dev, 1024);
    let network_accuracy = accuracy(fitted.net.as_ref(), &gold_dev, 256, &Device::Cpu).unwrap();
    (rules_accuracy, network_accuracy, used)
}

/// SMS's rules, which the label model estimates right on 92 % of train: it teaches the
/// lines some rule fires on (the default has rules of its own, so the silence is left out).
#[test]
fn training_on_unlabeled_sms_beats_the_rules() {
    let (rules, network, used) = rules_and_network_on_dev("sms");
    assert!(!used.encoder_teaches);
    assert_eq!(used.unlabeled_lines, covered("sms"));
    assert!(network > rules + 0.005, "{network} against {rules}");
}

/// TREC's rules, which the label model estimates right on 53 % of train: the sentence
/// encoder's regression teaches every unlabeled line instead. Taught the label model's
/// probabilities, the same network (one member, one epoch) gets 60.8 % of dev, with the
/// encoder 68.8 %, past the 65.3 % of Snorkel's label model in ASTRA's table.
#[test]
fn training_on_unlabeled_trec_beats_the_rules() {
    let (rules, network, used) = rules_and_network_on_dev("trec");
    assert!(used.encoder_teaches);
    let (_, train, _) = example("trec");
    assert_eq!(used.unlabeled_lines, train.len());
    assert!(network > rules + 0.05, "{network} against {rules}");
    assert!(network > 0.653, "{network}");
}

/// A spam filter written as spam rules and `default ham` (SMS's rules without their ham
/// rules), with no gold label: the lines no rule fires on are all that speaks for ham, and
/// they are taught. Left out, every taught line was one a spam rule fired on, and the
/// network learned spam everywhere (dev 12.80 %, where the rules get 91.60 %). Taught ham
/// alone, the network learned the rules back (91.80 %); taught spam past the rules' silence
/// where the sentence encoder finds lines like those the rules fire on, it passes them by
/// two points.
#[test]
fn with_rules_for_spam_alone_and_no_label_the_silence_teaches_ham_and_spam_past_the_rules() {
    let (rules, train, dev) = example("sms");
    let spam_rules_only: String = rules
        .source
        .text
        .lines()
        .filter(|line| !line.starts_with("ham:"))
        .map(|line| format!("{line}\n"))
        .collect();
    let rules = rules_of(&spam_rules_only);
    assert!(!rules.has_errors());
    let (rules_accuracy, network, used) = trained_without_labels(&rules, &train, &dev);
    assert!(used.silence_teaches_default);
    let reach = used
        .silence_rules_reach
        .expect("taught past the rules' silence");
    assert!((0.2..0.8).contains(&reach), "{reach}");
    assert_eq!(used.unlabeled_lines, train.len());
    assert!(rules_accuracy > 0.9, "{rules_accuracy}");
    assert!(
        network > rules_accuracy + 0.02,
        "{network} against {rules_accuracy}"
    );
}

/// The same spam rules with one ham rule of their own (`thanks`, which fires on under 2 %
/// of the lines the label model gives ham): that rule scarcely speaks for ham, so the
/// silence is taught still. Left out, what taught ham was the few lines that say thanks,
/// and the network learned spam on most lines (dev 45.80 %, where the rules get 91.60 %).
/// With the broad `ham: $* i $*` instead (30 % of ham), the silence is left out.
#[test]
fn a_ham_rule_that_scarcely_fires_leaves_the_silence_to_teach_ham() {
    let (rules, train, dev) = example("sms");
    let with_ham_rule = |ham_rule: &str| -> RulesFile {
        let text: String = rules
            .source
            .text
            .lines()
            .filter(|line| !line.starts_with("ham:") || line.starts_with(ham_rule))
            .map(|line| format!("{line}\n"))
            .collect();
        let file = rules_of(&text);
        assert!(!file.has_errors());
        assert_eq!(file.system.rules().len(), 43, "{ham_rule}");
        file
    };
    let thanks = with_ham_rule("ham: $* thanks $*");
    let (rules_accuracy, network, used) = trained_without_labels(&thanks, &train, &dev);
    assert!(used.silence_teaches_default);
    assert!(used.silence_rules_reach.is_some());
    assert_eq!(used.unlabeled_lines, train.len());
    assert!(
        network > rules_accuracy - 0.01,
        "{network} against {rules_accuracy}"
    );
    let broad = with_ham_rule("ham: $* i $*    #");
    let (_, _, used) = trained_without_labels(&broad, &train, &dev);
    assert!(!used.silence_teaches_default);
    assert_eq!(used.silence_rules_reach, None);
    assert!(used.unlabeled_lines < train.len());
}

/// With a tenth of TREC train labeled and the rest not, the network learns from the gold
/// lines alone and the n-gram regression beside it from the taught lines too
/// (`docs/results.md`, "The network from gold lines, the regression from all"): the
/// manifest counts the gold lines as what the network trained on, and the two together beat
/// the rules on dev.
#[test]
fn with_some_gold_lines_the_network_learns_from_them_and_the_regression_from_all() {
    let (rules, train, dev) = example("trec");
    let partly: Vec<Example> = train
        .iter()
        .enumerate()
        .map(|(i, e)| Example {
            label: if i % 10 == 0 { e.label.clone() } else { None },
            ..e.clone()
        })
        .collect();
    let n_gold = partly.iter().filter(|e| e.label.is_some()).count();
    let settings = TrainingSettings {
        members: Some(1),
        epochs: 3,
        ..TrainingSettings::DEFAULT
    };
    let mut taught = None;
    let fitted = fit(
        &rules,
        &partly,
        &dev,
        &settings,
        &ReadLimits::DEFAULT,
        &mut |event| {
            if let FitEvent::LabelModel(used) = event {
                taught = Some(used);
            }
        },
        &|| false,
    )
    .unwrap();
    let used = taught.expect("the label model taught the unlabeled lines");
    assert_eq!(used.gold_lines, n_gold);
    assert!(used.network_from_gold && !used.dev_from_label_model);
    let metrics = &fitted.manifest.metrics;
    // A gold dev measures accuracy.
    assert_eq!(metrics.dev_figure(), DevFigure::Accuracy);
    assert_eq!(metrics.train_examples, n_gold);
    let regression = metrics.ngram_regression.as_ref().expect("a regression");
    // The gold lines alone hold far fewer n-grams than the taught lines beside them.
    assert!(regression.features > 10_000, "{}", regression.features);
    let rules_accuracy = evaluate(
        &rules.system,
        dev.iter().map(|e| (e.text.as_str(), e.label.as_deref())),
    )
    .accuracy()
    .unwrap();
    let (gold_dev, _) = labeled(&rules.system, fitted.vocabulary.as_ref(), &dev, 1024);
    let network = accuracy(fitted.net.as_ref(), &gold_dev, 256, &Device::Cpu).unwrap();
    assert!(
        network > rules_accuracy + 0.10,
        "{network} against {rules_accuracy}"
    );
}

/// SMS train's rules are estimated within 0.10 of their true precision on average (the
/// rules that fire on at least 20 lines), the labels hidden; the rule system's accuracy
/// within 0.02.
#[test]
fn estimated_precisions_of_the_sms_rules_are_near_the_true_ones() {
    let (rules, train, _) = example("sms");
    let labeling = labeling_rules(&rules);
    let truth = summarize_examples(&rules, &labeling, &train);
    let estimates = estimate(&rules, &labeling, &without_labels(&train)).unwrap();
    let errors: Vec<f64> = truth
        .iter()
        .zip(&estimates.precision)
        .filter(|(t, _)| t.correct + t.incorrect >= 20)
        .map(|(t, e)| (t.precision.unwrap() - e.unwrap()).abs())
        .collect();
    let mean = errors.iter().sum::<f64>() / errors.len() as f64;
    assert!(
        errors.len() >= 10 && mean <= 0.10,
        "{mean} over {}",
        errors.len()
    );
    let true_accuracy = evaluate(
        &rules.system,
        train.iter().map(|e| (e.text.as_str(), e.label.as_deref())),
    )
    .accuracy()
    .unwrap();
    let estimated = estimates.accuracy.unwrap();
    assert!(
        (estimated - true_accuracy).abs() < 0.02,
        "{estimated} against {true_accuracy}"
    );
}

/// `check` and `report` take every figure from one classification of each line
/// (`corpus_figures`, issue 51, item 8): the evaluation, each rule's figures and the label
/// model's estimates are those of the separate passes, on SMS's train lines with every
/// other label hidden.
#[test]
fn one_pass_gives_the_figures_of_separate_passes() {
    let (rules, train, _) = example("sms");
    let examples: Vec<Example> = train
        .iter()
        .enumerate()
        .map(|(i, e)| Example {
            label: if i % 2 == 0 { e.label.clone() } else { None },
            ..e.clone()
        })
        .collect();
    let labeling = labeling_rules(&rules);
    let figures = rulelens::labeling::corpus_figures(&rules, &labeling, &examples);
    let evaluation = evaluate(
        &rules.system,
        examples
            .iter()
            .map(|e| (e.text.as_str(), e.label.as_deref())),
    );
    assert_eq!(
        format!("{:?}", figures.evaluation),
        format!("{evaluation:?}")
    );
    assert_eq!(
        figures.rules,
        summarize_examples(&rules, &labeling, &examples)
    );
    assert_eq!(
        figures.estimates.unwrap().unwrap(),
        estimate(&rules, &labeling, &examples).unwrap()
    );
    assert!(figures.rules.iter().any(|rule| rule.unlabeled > 0));
}

/// At 1 % of TREC as the paper picks it (train's 50 evenly spaced gold lines, the rest of
/// train unlabeled, and 50 evenly spaced lines of dev as dev), training leaves out the rules
/// the 100 gold lines contradict, `desc: $* ( explain | describe | what ) $*` among them
/// (right on 14 of the 58 it fires on). On the 450 dev lines it never read, the network
/// without them beats the one trained with every rule; saved and loaded, it is the same
/// network, and loaded untrained it is every rule as written.
#[test]
fn at_one_percent_of_trec_the_rules_the_gold_lines_contradict_are_left_out() {
    let (rules, train, all_dev) = example("trec");
    let gold = evenly_spaced(train.len(), 0.01);
    let train: Vec<Example> = (train.iter().enumerate())
        .map(|(i, e)| Example {
            label: if gold.contains(&i) {
                e.label.clone()
            } else {
                None
            },
            ..e.clone()
        })
        .collect();
    let read = evenly_spaced(all_dev.len(), 0.1);
    let dev: Vec<Example> = read.iter().map(|&i| all_dev[i].clone()).collect();
    let held: Vec<Example> = (all_dev.iter().enumerate())
        .filter(|(i, _)| !read.contains(i))
        .map(|(_, e)| e.clone())
        .collect();
    // One network and a few epochs, to keep the test short.
    let settings = TrainingSettings {
        members: Some(1),
        epochs: 8,
        ..TrainingSettings::DEFAULT
    };
    let fitted = |settings: &TrainingSettings| {
        let mut said = Vec::new();
        let fitted = fit(
            &rules,
            &train,
            &dev,
            settings,
            &ReadLimits::DEFAULT,
            &mut |event| said.extend(event.lines()),
            &|| false,
        )
        .unwrap();
        (fitted, said)
    };
    let on_held = |fitted: &Fitted| {
        let (sentences, _) = labeled(&rules.system, fitted.vocabulary.as_ref(), &held, 1024);
        accuracy(fitted.net.as_ref(), &sentences, 256, &Device::Cpu).unwrap()
    };
    let (mut without, said) = fitted(&settings);
    let (every, _) = fitted(&TrainingSettings {
        keep_every_rule: true,
        ..settings.clone()
    });
    assert!(every.manifest.rules_left_out.is_empty());
    let what = (rules.source.text.lines())
        .position(|line| line.starts_with("desc: $* ( explain | describe | what ) $*"))
        .expect("TREC's `what` rule") as u32
        + 1;
    let left_out = without.manifest.rules_left_out.clone();
    let figures = left_out.iter().find(|rule| rule.line == what);
    let figures = figures.unwrap_or_else(|| panic!("{left_out:?}"));
    assert_eq!((figures.right, figures.gold_lines), (14, 58));
    assert!(
        said.iter()
            .any(|line| line.contains(&format!("line {what} (`desc`, right on 14 of 58)"))),
        "{said:#?}"
    );
    // 73.11 % against 72.22 % in the tests' build, 74.44 % against 71.78 % in a release one.
    let (kept, all) = (on_held(&without), on_held(&every));
    assert!(kept > all, "{kept} against {all}");

    let dir = std::env::temp_dir().join(format!("rulelens-left-out-{}", std::process::id()));
    without.save(&dir).unwrap();
    let loaded = load_model(&dir, false, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    let zero_shot = load_model(&dir, true, &Device::Cpu, &ReadLimits::DEFAULT).unwrap();
    assert_eq!(loaded.manifest.rules_left_out, left_out);
    assert!(zero_shot.manifest.rules_left_out.is_empty());
    // A record that names a rule of another label is refused, naming it.
    let manifest_path = dir.join(checkpoint::MANIFEST_FILE);
    let text = std::fs::read_to_string(&manifest_path).unwrap();
    let recorded = format!("\"line\": {what},\n      \"label\": \"desc\"");
    assert!(text.contains(&recorded), "{text}");
    let foreign = recorded.replace("desc", "hum");
    std::fs::write(&manifest_path, text.replace(&recorded, &foreign)).unwrap();
    let Err(error) = load_model(&dir, false, &Device::Cpu, &ReadLimits::DEFAULT) else {
        panic!("a record of a rule the file does not have was read");
    };
    std::fs::remove_dir_all(&dir).unwrap();
    let message = format!("(`hum`, line {what}), which the rules file does not have");
    assert!(error.to_string().contains(&message), "{error}");
    let texts: Vec<&str> = held.iter().map(|e| e.text.as_str()).collect();
    let reader = TextReader {
        system: &loaded.rules.system,
        vocabulary: without.vocabulary.as_ref(),
        max_tokens: settings.max_sentence_tokens,
        probability_scale: without.manifest.probability_scale(),
    };
    let trained = probabilities_of(without.net.as_ref(), &reader, &texts, 256, &Device::Cpu);
    let read_back = loaded.probabilities(&texts, 256, &Device::Cpu).unwrap();
    for (a, b) in trained.unwrap().iter().zip(&read_back) {
        assert!(
            a.iter().zip(b).all(|(p, q)| (p - q).abs() < 1e-6),
            "{a:?} against {b:?}"
        );
    }
    // Untrained, it is every rule as written.
    let untrained = zero_shot.probabilities(&texts, 256, &Device::Cpu).unwrap();
    for (text, p) in texts.iter().zip(&untrained) {
        let best = (0..p.len()).fold(0, |b, c| if p[c] > p[b] { c } else { b });
        let rules_say = rules.system.classify(text).prediction.map(|l| l.index());
        assert_eq!(Some(best), rules_say, "{text}");
    }
}

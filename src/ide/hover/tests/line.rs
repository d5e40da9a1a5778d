//! The hover over a corpus line: the rules' view, why the gold label's patterns missed,
//! and each trained family's view (the zero-shot FA-RNN's patterns and n-grams, MVMA-G's
//! exact parts, a label no rule names).

use super::*;

#[test]
fn a_line_hover_says_whether_a_network_is_coming() {
    let (file, _) = fixture("default ham\nspam: $* free $*$0\n");
    let example = crate::corpus::Example {
        text: "free call me later".into(),
        label: Some("ham".into()),
        line: 1,
        text_range: None,
        label_range: None,
    };
    let render = |absent| {
        let hover = hover_line(&example, &file, &[], Some(absent), &HoverConfig::default());
        render_line_hover(&hover, &example.text)
    };
    insta::assert_snapshot!(render(AbsentNetwork::NotYetTrained), @r"
    gold **ham** · rules **spam** ✗ (fired: the `spam` rule of line 2)

    _No trained network yet: save the rules to train one._
    ");
    insta::assert_snapshot!(render(AbsentNetwork::TrainingOff), @r"
    gold **ham** · rules **spam** ✗ (fired: the `spam` rule of line 2)

    _Training is off (`rulelens.training.enabled`): the rules' view only._
    ");
    // During the first training: what the client's status says, not "no network yet".
    let progress = "Full training of FA-RNN (rule network): sms.rules: epoch 10/60, dev \
                    accuracy 94.2% (best 94.2%)";
    let progress = progress.to_string();
    insta::assert_snapshot!(render(AbsentNetwork::Training { progress }), @r"
    gold **ham** · rules **spam** ✗ (fired: the `spam` rule of line 2)

    _A network is training: Full training of FA-RNN (rule network): sms.rules: epoch 10/60, dev accuracy 94.2% (best 94.2%). Its view shows here once it is ready._
    ");
    // SoPa alone: until it is trained, no view says so.
    insta::assert_snapshot!(render(AbsentNetwork::SopaOnly), @r"
    gold **ham** · rules **spam** ✗ (fired: the `spam` rule of line 2)

    _No trained SoPa yet: save the rules to train one._
    ");
}

#[test]
fn line_hover_without_a_network_shows_the_rules_view() {
    let file = rules(RULES);
    let (examples, _) = parse(TRAIN, Format::Tsv, &[]);
    let hover = hover_line(
        &examples[1],
        &file,
        &[],
        Some(AbsentNetwork::NotYetTrained),
        &HoverConfig::default(),
    );
    assert_eq!(
        hover,
        LineHover {
            gold: Some("ham".into()),
            rules_prediction: Some("spam".into()),
            fired: vec![
                "the `spam` rule of line 2".into(),
                "the `ham` rule of line 5".into()
            ],
            // `ham <- zebra` missed; `ham: $* call $*` matched, and lost to spam.
            missed: vec![MissedPattern {
                pattern: "`zebra`".into(),
                matched: String::new(),
                miss: Miss::Ended {
                    expected: vec!["zebra".into()]
                },
            }],
            absent: Some(AbsentNetwork::NotYetTrained),
            views: Vec::new(),
        }
    );
    assert_eq!(
        render_line_hover(&hover, &examples[1].text),
        "gold **ham** · rules **spam** ✗ (fired: the `spam` rule of line 2, the `ham` rule of \
         line 5)\n\
         \n\
         Why the **ham** patterns missed, closest first:\n\
         - `zebra`: expected `zebra`; the line ended\n\
         \n\
         _No trained network yet: save the rules to train one._\n"
    );
    let unlabeled = Example {
        text: "see you".into(),
        label: None,
        line: 0,
        text_range: None,
        label_range: None,
    };
    let hover = hover_line(
        &unlabeled,
        &file,
        &[],
        Some(AbsentNetwork::NotYetTrained),
        &HoverConfig::default(),
    );
    assert!(
        render_line_hover(&hover, "see you")
            .starts_with("unlabeled · rules **ham** (no rule fired)\n")
    );
}

#[test]
fn line_hover_with_the_zero_shot_network_shows_its_patterns_and_ngrams() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    let example = &analysis.corpus("train").unwrap().file.examples[1];
    let text = example.text.as_str();
    assert_eq!(text, "free call me later");
    let hover = hover_line(
        example,
        &analysis.rules,
        &[&TrainedNetwork::RuleNetwork(model.clone())],
        None,
        &HoverConfig::default(),
    );
    let network = rule_view(&hover);
    assert!(!network.stale);
    assert_eq!(network.prediction, "spam");
    // Both labels true: spam 1.02, ham 1.01.
    let expected = softmax10(&[1.02, 1.01]);
    assert_eq!(network.probabilities.len(), 2);
    for ((label, p), (name, q)) in network
        .probabilities
        .iter()
        .zip(["spam", "ham"].iter().zip(expected))
    {
        assert_eq!(label, name);
        assert_close(*p, q, label);
    }
    let top: Vec<(&str, Option<&str>)> = network
        .top_patterns
        .iter()
        .map(|p| {
            assert!((p.score - 1.0).abs() < 1e-4, "{p:?}");
            (
                p.pattern.as_str(),
                p.span
                    .map(|s| &text[usize::from(s.start())..usize::from(s.end())]),
            )
        })
        .collect();
    assert_eq!(
        top,
        [
            ("the `spam` rule of line 2", Some("free")),
            ("the `ham` rule of line 5", Some("call"))
        ]
    );
    // Deleting `free` leaves ham alone true; deleting `call`, spam true and ham the default
    // (logit 0.5). Spans that only extend `free` or `call` add nothing more (those with both
    // leave spam false, ham the default); `me`, `later` change nothing.
    let p_spam = softmax10(&[1.02, 1.01])[0];
    let without_free = softmax10(&[0.0, 1.01])[0];
    let without_call = softmax10(&[1.02, 0.5])[0];
    let ngrams: Vec<&str> = network
        .ngrams
        .iter()
        .map(|n| &text[usize::from(n.range.start())..usize::from(n.range.end())])
        .collect();
    assert_eq!(ngrams, ["free", "call"]);
    assert_close(network.ngrams[0].without, without_free, "without free");
    assert_close(
        network.ngrams[0].contribution,
        p_spam - without_free,
        "free",
    );
    assert_close(network.ngrams[1].without, without_call, "without call");
    assert_close(
        network.ngrams[1].contribution,
        p_spam - without_call,
        "call",
    );
    assert_eq!(network.max_ngram_len, 4);
    assert_eq!(
        render_line_hover(&hover, text),
        "gold **ham** · rules **spam** ✗ (fired: the `spam` rule of line 2, the `ham` rule of \
         line 5)\n\
         \n\
         Why the **ham** patterns missed, closest first:\n\
         - `zebra`: expected `zebra`; the line ended\n\
         \n\
         **FA-RNN** **spam** ✗ · spam 0.52 · ham 0.48\n\
         \n\
         Top patterns:\n\
         - the `spam` rule of line 2 1.00: **free** call me later\n\
         - the `ham` rule of line 5 1.00: free **call** me later\n\
         \n\
         Strongest n-grams (occlusion: what deleting each does to P(spam)):\n\
         - **free** +0.52 toward spam (0.00 without it)\n\
         - **call** -0.47 toward spam (0.99 without it)\n"
    );

    // A network of older rules (here: without a comment added since) says so; `max_listed`
    // cuts both lists.
    let one = HoverConfig {
        max_listed: 1,
        ..HoverConfig::default()
    };
    let commented = analysis_of(&format!("{RULES}# a comment\n"), &[("train", TRAIN)]);
    let stale = hover_line(
        example,
        &commented.rules,
        &[&TrainedNetwork::RuleNetwork(model.clone())],
        None,
        &one,
    );
    let network = rule_view(&stale);
    assert_eq!((network.top_patterns.len(), network.ngrams.len()), (1, 1));
    assert!(
        render_line_hover(&stale, text).contains(
            "\n\n_The network is of an earlier save of the rules: patterns changed since are not listed; saving trains it again._\n"
        ),
        "{}",
        render_line_hover(&stale, text)
    );
    // Against rules edited since (a rule added first, the `call` rule changed), the
    // earlier network lists only the pattern the rules still have, under its new line.
    let edited = RULES
        .replace("default ham\n", "default ham\nham: $* thanks $*\n")
        .replace("ham: $* call $*", "ham: $* ( call | ring ) $*");
    let edited = analysis_of(&edited, &[("train", TRAIN)]);
    let stale = hover_line(
        example,
        &edited.rules,
        &[&TrainedNetwork::RuleNetwork(model.clone())],
        None,
        &HoverConfig::default(),
    );
    let listed: Vec<&str> = rule_view(&stale)
        .top_patterns
        .iter()
        .map(|p| p.pattern.as_str())
        .collect();
    assert_eq!(listed, ["the `spam` rule of line 3"]);

    // A line nothing fires on: the default wins, no pattern scores, no n-gram.
    let quiet = &analysis.corpus("train").unwrap().file.examples[6];
    let hover = hover_line(
        quiet,
        &analysis.rules,
        &[&TrainedNetwork::RuleNetwork(model.clone())],
        None,
        &HoverConfig::default(),
    );
    let network = rule_view(&hover);
    assert_eq!(network.prediction, "ham");
    assert!(network.top_patterns.is_empty() && network.ngrams.is_empty());
    assert_close(network.probabilities[1].1, softmax10(&[0.0, 0.5])[1], "ham");
    assert_eq!(
        render_line_hover(&hover, &quiet.text),
        "gold **ham** · rules **ham** ✓ (no rule fired)\n\
         \n\
         **FA-RNN** **ham** ✓ · spam 0.01 · ham 0.99\n\
         \n\
         _Deleting any one n-gram of up to 3 tokens changes P(ham) by less than 0.005._\n"
    );
}

#[test]
fn a_misclassified_line_says_why_its_gold_patterns_missed_it_closest_first() {
    let file = rules(
        "default ham\n\
         spam: $* free $* entry $* now $*\n\
         spam: you won ( gift | prize ) $*\n\
         spam: $* won $* prize $*\n\
         pattern anchored = call now\n\
         spam <- anchored\n\
         ham: $* won $*\n",
    );
    let example = Example {
        text: "You won a voucher".into(),
        label: Some("spam".into()),
        line: 0,
        text_range: None,
        label_range: None,
    };
    let hover = hover_line(
        &example,
        &file,
        &[],
        Some(AbsentNetwork::TrainingOff),
        &HoverConfig::default(),
    );
    let text = &example.text;
    let at = |range: TextRange| &text[usize::from(range.start())..usize::from(range.end())];
    // One element missing each for the rules of lines 3 and 4 (the longer prefix first),
    // two for `anchored`, three for line 2; `max_listed` keeps three.
    assert_eq!(hover.missed.len(), 3);
    assert_eq!(hover.missed[0].pattern, "the `spam` rule of line 4");
    assert_eq!(hover.missed[0].matched, "$* won $*");
    assert_eq!(
        hover.missed[0].miss,
        Miss::Ended {
            expected: vec!["prize".into()]
        }
    );
    let Miss::Mismatch { expected, found } = &hover.missed[1].miss else {
        panic!("{:?}", hover.missed[1]);
    };
    let found: Vec<&str> = found.iter().map(|&range| at(range)).collect();
    assert_eq!(
        (expected.as_slice(), found.as_slice()),
        (&["gift".to_string(), "prize".to_string()][..], &["a"][..])
    );
    assert_eq!(hover.missed[2].pattern, "`anchored`");
    insta::assert_snapshot!(render_line_hover(&hover, text), @r"
    gold **spam** · rules **ham** ✗ (fired: the `ham` rule of line 7)

    Why the **spam** patterns missed, closest first:
    - the `spam` rule of line 4: `$* won $*` matched, then expected `prize`; the line ended
    - the `spam` rule of line 3: `you won` matched, then expected `gift` or `prize`, found `a`
    - `anchored`: expected `call`, found `You`

    _Training is off (`rulelens.training.enabled`): the rules' view only._
    ");
    // A pattern that matches all it can and wants the line to end there.
    let file = rules("default ham\nspam: you won\n");
    let hover = hover_line(
        &example,
        &file,
        &[],
        Some(AbsentNetwork::TrainingOff),
        &HoverConfig::default(),
    );
    let Miss::Continues { found } = hover.missed[0].miss else {
        panic!("{:?}", hover.missed);
    };
    assert_eq!(at(found), "a");
    assert!(
        render_line_hover(&hover, text).contains(
            "- the `spam` rule of line 2: `you won` matched, then the line goes on at `a` \
             (the pattern does not end with `$*`)\n"
        ),
        "{}",
        render_line_hover(&hover, text)
    );
    // After an optional element the failing one could start at several tokens: all are
    // named.
    let file = rules("default desc\nnum: $* how &* $? ( much | many ) $*\n");
    let question = Example {
        text: "how big is it".into(),
        label: Some("num".into()),
        ..example.clone()
    };
    let hover = hover_line(
        &question,
        &file,
        &[],
        Some(AbsentNetwork::TrainingOff),
        &HoverConfig::default(),
    );
    assert!(
        render_line_hover(&hover, &question.text).contains(
            "- the `num` rule of line 2: `$* how &* $?` matched, then expected `much` or \
             `many`, found `big` or `is`\n"
        ),
        "{}",
        render_line_hover(&hover, &question.text)
    );
    // A line the rules get right, or without a gold label, has none.
    let right = Example {
        text: "see you".into(),
        label: Some("ham".into()),
        ..example.clone()
    };
    let hover = hover_line(
        &right,
        &file,
        &[],
        Some(AbsentNetwork::TrainingOff),
        &HoverConfig::default(),
    );
    assert!(hover.missed.is_empty());
}

/// The tiny spam filter of `tests/data/train` analyzed on its corpora, and the path of its
/// word vectors.
fn tiny_spam_filter() -> (RulesAnalysis, std::path::PathBuf) {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/train");
    let read = |name: &str| std::fs::read_to_string(data.join(name)).unwrap();
    let rules = read("tiny.rules")
        .lines()
        .filter(|line| !line.starts_with("corpus"))
        .collect::<Vec<_>>()
        .join("\n");
    let analysis = analysis_of(
        &rules,
        &[("train", &read("train.tsv")), ("dev", &read("dev.tsv"))],
    );
    (analysis, data.join("vectors.txt"))
}

#[test]
fn an_mvma_gs_line_view_is_its_prediction_and_logits_split_exactly_into_suffix_ngrams() {
    use crate::model::{Batch, DeviceKind, Network, Sentence, softmax};
    let (analysis, vectors) = tiny_spam_filter();
    let fitted = fitted_mvma(&analysis, &vectors, 3);
    let config = HoverConfig::default();
    let shared: Arc<dyn Network> = fitted.net.into();
    let mvma = TrainedNetwork::prepare(Unprepared {
        manifest: fitted.manifest.clone(),
        net: shared.clone(),
        vocabulary: fitted.vocabulary.as_ref(),
        analysis: &analysis,
        reconstruct: Some(&ReconstructConfig::default()),
        cancelled: &|| false,
    })
    .expect("prepared");
    let net = shared.as_family::<Mvma>().expect("an MVMA-G");
    let view_of = |example: &Example| {
        let line = Line {
            text: &example.text,
            gold: example.label.as_deref(),
        };
        match mvma.explain_line(&line, &analysis.rules, &config) {
            Ok(LineView::Mvma(view)) => view,
            other => panic!("an MVMA-G's view, not {other:?}"),
        }
    };
    let labels = &fitted.manifest.labels;
    let system = &analysis.rules.system;
    let dev = &analysis.corpus("dev").unwrap().file.examples;
    let mut listed_gold = 0;
    let cpu = DeviceKind::Cpu.open().unwrap();
    for example in dev {
        let text = example.text.as_str();
        let view = view_of(example);
        // What the tensor network computes for the line.
        let sentence = Sentence::new(
            system,
            fitted.vocabulary.as_ref(),
            &tokenize(text),
            fitted.manifest.settings.max_sentence_tokens,
        );
        let batch = Batch::from_sentences(&[&sentence], &cpu).unwrap();
        let logits: Vec<f32> = net
            .logits(&batch)
            .unwrap()
            .squeeze(0)
            .unwrap()
            .to_vec1()
            .unwrap();
        let ngrams = net.ngram_scores(&sentence.words).unwrap();
        let predicted = (0..logits.len()).fold(0, |b, c| if logits[c] > logits[b] { c } else { b });
        assert_eq!(view.prediction, labels[predicted], "{text}");
        for ((label, p), want) in view.probabilities.iter().zip(softmax(&logits, 1.0)) {
            assert!(
                (p - want).abs() < 1e-5,
                "{text}: P({label}) {p} against {want}"
            );
        }
        assert_eq!(view.n_tokens, sentence.words.len());
        let gold_differs = example.label.as_deref() != Some(labels[predicted].as_str());
        assert_eq!(view.logits.len(), 1 + usize::from(gold_differs), "{text}");
        listed_gold += usize::from(gold_differs);
        for parts in &view.logits {
            let c = labels.iter().position(|l| *l == parts.label).unwrap();
            // The parts shown and left out sum to the network's logit, and so does `sum`.
            let shown: f32 = parts.strongest.iter().map(|p| p.score).sum::<f32>() + parts.rest.1;
            for total in [shown, parts.sum, parts.logit] {
                assert!(
                    (total - logits[c]).abs() < 1e-4,
                    "{text}: {parts:?} against {logits:?}"
                );
            }
            assert_eq!(parts.strongest.len() + parts.rest.0, sentence.words.len());
            assert_eq!(
                parts.strongest.len(),
                config.max_listed.min(sentence.words.len())
            );
            // Each listed part is the network's own n-gram score, from word i to the end,
            // and no part left out is stronger.
            let weakest = parts
                .strongest
                .iter()
                .map(|p| p.score.abs())
                .fold(f32::INFINITY, f32::min);
            for part in &parts.strongest {
                assert!(
                    (part.score - ngrams[part.start][c]).abs() < 1e-5,
                    "{text}: {part:?}"
                );
                let (start, end) = (
                    usize::from(part.range.start()),
                    usize::from(part.range.end()),
                );
                assert_eq!(
                    start,
                    usize::from(tokenize(text).get(part.start).unwrap().range.start())
                );
                assert_eq!(end, text.trim_end().len(), "{text}: {part:?}");
            }
            let listed: Vec<usize> = parts.strongest.iter().map(|p| p.start).collect();
            for (i, scores) in ngrams.iter().enumerate() {
                assert!(
                    listed.contains(&i) || scores[c].abs() <= weakest,
                    "{text}: {i}"
                );
            }
        }
    }
    assert!(
        listed_gold > 0,
        "the network makes no mistake on dev: no gold logit was shown"
    );

    // As the editor shows it: the verdict, then each logit and its parts.
    let example = &dev[0];
    let view = view_of(example);
    let hover = hover_line(example, &analysis.rules, &[&mvma], None, &config);
    assert_eq!(hover.views, [LineView::Mvma(view.clone())]);
    let markdown = render_line_hover(&hover, &example.text);
    let first = &view.logits[0];
    for needle in [
        format!("**MVMA-G** **{}**", view.prediction),
        format!(
            "The logit of {} is the sum of {} parts, one per suffix n-gram",
            first.label, view.n_tokens
        ),
        format!(
            "- from word {} on {:+.3}: ",
            first.strongest[0].start + 1,
            first.strongest[0].score
        ),
        format!(
            "The parts sum to {:.4}; the logit is {:.4}.",
            first.sum, first.logit
        ),
    ] {
        assert!(markdown.contains(&needle), "{needle:?} not in {markdown}");
    }
    assert!(!markdown.contains("No trained"), "{markdown}");
}

#[test]
fn an_mvma_gs_view_renders_each_logit_as_its_parts() {
    let text = "claim your free prize now";
    let part = |start: usize, score: f32| SuffixPart {
        start,
        range: TextRange::new(
            tokenize(text).get(start).unwrap().range.start(),
            TextSize::from(text.len() as u32),
        ),
        score,
    };
    let view = MvmaView {
        stale: true,
        prediction: "ham".into(),
        probabilities: vec![("spam".into(), 0.25), ("ham".into(), 0.75)],
        logits: vec![
            LogitParts {
                label: "ham".into(),
                logit: 1.5,
                sum: 1.5,
                strongest: vec![part(4, 1.25), part(2, -0.5)],
                rest: (3, 0.75),
            },
            LogitParts {
                label: "spam".into(),
                logit: 0.4,
                sum: 0.4,
                strongest: vec![part(2, 0.4)],
                rest: (0, 0.0),
            },
        ],
        n_tokens: 5,
        truncated: true,
    };
    let hover = LineHover {
        gold: Some("spam".into()),
        rules_prediction: Some("spam".into()),
        fired: vec!["the `spam` rule of line 2".into()],
        missed: Vec::new(),
        absent: None,
        views: vec![LineView::Mvma(view)],
    };
    insta::assert_snapshot!(render_line_hover(&hover, text), @r"
    gold **spam** · rules **spam** ✓ (fired: the `spam` rule of line 2)

    **MVMA-G** **ham** ✗ · spam 0.25 · ham 0.75

    _The MVMA-G is of an earlier save of the rules; saving trains it again._

    _The network reads the first 5 tokens of this line._

    The logit of ham is the sum of 5 parts, one per suffix n-gram (`wᵀ v_{i:N}`: from word i to the end), exactly; the strongest:
    - from word 5 on +1.250: claim your free prize **now**
    - from word 3 on -0.500: claim your **free prize now**
    - 3 other parts +0.750

    The parts sum to 1.5000; the logit is 1.5000.

    The logit of spam (gold) is the sum of 1 part, one per suffix n-gram (`wᵀ v_{i:N}`: from word i to the end), exactly; the strongest:
    - from word 3 on +0.400: claim your **free prize now**

    The parts sum to 0.4000; the logit is 0.4000.
    ");
}

/// The n-gram regression beside a network: its part of the prediction's score, its
/// strongest n-grams, the rest and the bias, which add up to it.
#[test]
fn a_networks_view_renders_its_ngram_regressions_part_exactly() {
    let text = "claim your free prize now";
    let tokens = tokenize(text);
    let range = |first: usize, last: usize| {
        TextRange::new(
            tokens.get(first).unwrap().range.start(),
            tokens.get(last).unwrap().range.end(),
        )
    };
    let view = NetworkView {
        kind: "FA-RNN",
        stale: false,
        prediction: "spam".into(),
        prediction_from_words: false,
        ngram_regression: Some(RegressionParts {
            label: "spam".into(),
            logit: 2.5,
            bias: -0.25,
            strongest: vec![(range(2, 3), 1.5), (range(0, 0), 0.75)],
            rest: (4, 0.5),
        }),
        probabilities: vec![("spam".into(), 0.9), ("ham".into(), 0.1)],
        top_patterns: Vec::new(),
        ngrams: Vec::new(),
        max_ngram_len: 5,
        ngram_len_capped: false,
        measuring_ahead: false,
    };
    let hover = LineHover {
        gold: Some("spam".into()),
        rules_prediction: Some("ham".into()),
        fired: Vec::new(),
        missed: Vec::new(),
        absent: None,
        views: vec![LineView::RuleNetwork(view)],
    };
    insta::assert_snapshot!(render_line_hover(&hover, text), @r"
    gold **spam** · rules **ham** ✗ (no rule fired)

    **FA-RNN** **spam** ✓ · spam 0.90 · ham 0.10

    Beside the rules, an n-gram regression adds +2.50 to spam's scaled logit (the probabilities and the n-gram effects here include it), the sum of its parts:
    - **free prize** +1.50
    - **claim** +0.75
    - 4 other n-grams +0.50
    - bias -0.25

    _Deleting any one n-gram of up to 5 tokens changes P(spam) by less than 0.005._
    ");
}

/// With only `default ham`, `spam` is a label no rule names: the FA-RNN learns it from the
/// line's mean word vector, and the hover of a line it calls spam says so.
#[test]
fn a_line_hover_says_when_the_prediction_is_a_label_no_rule_names() {
    let (_, vectors) = tiny_spam_filter();
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/train");
    let read = |name: &str| std::fs::read_to_string(data.join(name)).unwrap();
    let analysis = analysis_of(
        "default ham\n",
        &[("train", &read("train.tsv")), ("dev", &read("dev.tsv"))],
    );
    let config = crate::model::TrainingSettings {
        embeddings: Some(vectors),
        epochs: 30,
        learning_rate: Some(0.01),
        members: Some(1),
        ..crate::model::TrainingSettings::default()
    };
    let fitted = crate::model::fit(
        &analysis.rules,
        &analysis.corpus("train").unwrap().file.examples,
        &analysis.corpus("dev").unwrap().file.examples,
        &config,
        &crate::limits::ReadLimits::DEFAULT,
        &mut |_| {},
        &|| false,
    )
    .unwrap();
    assert_eq!(fitted.manifest.labels, ["ham", "spam"]);
    let model = prepared(fitted, &analysis, &ReconstructConfig::default());
    let mut seen = [false; 2];
    for example in &analysis.corpus("dev").unwrap().file.examples {
        let hover = hover_line(
            example,
            &analysis.rules,
            &[&model],
            None,
            &HoverConfig::default(),
        );
        let network = rule_view(&hover);
        let spam = network.prediction == "spam";
        assert_eq!(network.prediction_from_words, spam, "{}", example.text);
        let rendered = render_line_hover(&hover, &example.text);
        assert_eq!(rendered.contains("No rule names spam:"), spam, "{rendered}");
        seen[usize::from(spam)] = true;
    }
    assert_eq!(seen, [true, true], "both labels predicted on dev");
}

/// A line too long for its hover's budget says so, and that it is being measured; once
/// measured ahead (as the language server does in the background) its hover shows every
/// n-gram length, and the n-grams of an exact occlusion with no budget at all.
#[test]
fn a_long_line_measured_ahead_shows_every_ngram_length() {
    let analysis = analysis_of(RULES, &[("train", TRAIN)]);
    let model = zero_shot_model(&analysis, &ReconstructConfig::default());
    let text = format!("you won a {} phone", "see you soon ".repeat(40).trim_end());
    let example = Example {
        text: text.clone(),
        label: Some("spam".into()),
        line: 0,
        text_range: None,
        label_range: None,
    };
    let config = HoverConfig::default();
    // The hover reads the network's measured lines, which it shares with `model`.
    let network = TrainedNetwork::RuleNetwork(model.clone());
    let view = |network: &TrainedNetwork| {
        let hover = hover_line(&example, &analysis.rules, &[network], None, &config);
        let markdown = render_line_hover(&hover, &text);
        (rule_view(&hover).clone(), markdown)
    };
    let (before, markdown) = view(&network);
    assert!(
        before.ngram_len_capped && before.measuring_ahead,
        "{before:?}"
    );
    assert!(before.max_ngram_len < config.max_ngram_len);
    assert!(
        markdown.contains("the language server measures")
            && markdown.ends_with("hover again soon._\n"),
        "{markdown}"
    );
    assert!(model.measured.is_empty());

    assert!(model.measure_ahead(&text, &config));
    assert_eq!(model.measured.len(), 1);
    assert!(!model.is_worth_measuring_ahead(&text, &config));
    let (after, markdown) = view(&network);
    assert_eq!(after.max_ngram_len, config.max_ngram_len);
    assert!(
        !after.ngram_len_capped && !after.measuring_ahead,
        "{after:?}"
    );
    assert!(!markdown.contains("On a line this long") && !markdown.contains("too long"));
    // What an occlusion of every span of up to 6 tokens, with no budget, lists.
    let occlusions = model.scorer.occlusions(&text, config.max_ngram_len);
    let prediction = occlusions.scores.prediction();
    let scale = model.manifest.probability_scale();
    let exact = crate::explain::strongest_ngrams(
        crate::explain::ngrams(&text, &occlusions, prediction, scale),
        config.max_listed,
    );
    assert!(!exact.is_empty());
    let listed: Vec<(TextRange, f64)> = after
        .ngrams
        .iter()
        .map(|n| (n.range, n.contribution))
        .collect();
    let expected: Vec<(TextRange, f64)> = exact.iter().map(|n| (n.range, n.contribution)).collect();
    assert_eq!(listed, expected);
}

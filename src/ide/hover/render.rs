//! Hovers as small documents ([`Document`]), readable at a glance: a title line, a small
//! table of figures, and a few lines of examples with the matched span highlighted; the
//! server writes them as Markdown or plain text (`markdown.rs`, `plain_text.rs`). CommonMark
//! opens `**` only where it flanks a word properly (not between a digit and a `.`, say), so
//! the highlight covers the span's whole whitespace-separated chunks: then its delimiters
//! always sit next to a space or the text's ends, and always render as bold.
//!
//! Text from the rules and corpora stays text ([`Inline::Text`]), which the Markdown writer
//! escapes, so that a line with `*` or `|` cannot break the layout; long corpus lines are
//! cut to a window around the span they are shown for.

use super::document::{Block, Document, Inline, Table, described};
use super::{
    AbsentNetwork, LabelHover, LineHover, LogitParts, MatchExample, Miss, MissedPattern, MvmaView,
    NetworkView, PatternHover, PatternsView, RegressionParts, RulesHover, WordListHover,
};
use crate::explain::{LearnedPattern, NEGLIGIBLE};
use text_size::TextRange;

/// Characters of context shown on each side of a span.
const CONTEXT: usize = 40;

/// `span` widened to the whitespace-separated chunks it touches (see the module doc).
fn whole_chunks(text: &str, span: TextRange) -> Option<(usize, usize)> {
    let (start, end) = (usize::from(span.start()), usize::from(span.end()));
    let (before, after) = (text.get(..start)?, text.get(end..)?);
    if span.is_empty() {
        return Some((start, end));
    }
    let start = before
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = end + after.find(char::is_whitespace).unwrap_or(after.len());
    Some((start, end))
}

/// `text` with `span` highlighted and at most [`CONTEXT`] characters around it.
fn snippet(text: &str, span: TextRange) -> Vec<Inline> {
    let Some((start, end)) = whole_chunks(text, span) else {
        return vec![Inline::text(text)];
    };
    let (Some(before), Some(inside), Some(after)) =
        (text.get(..start), text.get(start..end), text.get(end..))
    else {
        return vec![Inline::text(text)];
    };
    let n_before = before.chars().count();
    let before: String = if n_before > CONTEXT {
        let kept: String = before.chars().skip(n_before - CONTEXT).collect();
        format!("…{kept}")
    } else {
        before.to_string()
    };
    let after: String = if after.chars().count() > CONTEXT {
        format!("{}…", after.chars().take(CONTEXT).collect::<String>())
    } else {
        after.to_string()
    };
    if inside.trim().is_empty() {
        return vec![Inline::Text(before + &after)];
    }
    let mut inlines = Vec::with_capacity(3);
    if !before.is_empty() {
        inlines.push(Inline::Text(before));
    }
    inlines.push(Inline::Highlight(inside.to_string()));
    if !after.is_empty() {
        inlines.push(Inline::Text(after));
    }
    inlines
}

/// Alternatives as `` `a` ``, `` `a` or `b` ``, `` `a`, `b` or `c` ``.
fn one_of(items: &[String]) -> Vec<Inline> {
    let mut inlines = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            inlines.push(Inline::text(if i + 1 == items.len() {
                " or "
            } else {
                ", "
            }));
        }
        inlines.push(Inline::code(item.as_str()));
    }
    if inlines.is_empty() {
        inlines.push(Inline::text("nothing"));
    }
    inlines
}

/// Why a pattern missed a line, as a list item.
fn render_missed(missed: &MissedPattern, text: &str) -> Vec<Inline> {
    let mut item = described(&missed.pattern);
    item.push(Inline::text(": "));
    if !missed.matched.is_empty() {
        item.push(Inline::code(missed.matched.as_str()));
        item.push(Inline::text(" matched, then "));
    }
    let token = |range: &TextRange| {
        text.get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
            .to_string()
    };
    match &missed.miss {
        Miss::Mismatch { expected, found } => {
            let found: Vec<String> = found.iter().map(token).collect();
            item.push(Inline::text("expected "));
            item.extend(one_of(expected));
            item.push(Inline::text(", found "));
            item.extend(one_of(&found));
        }
        Miss::Ended { expected } => {
            item.push(Inline::text("expected "));
            item.extend(one_of(expected));
            item.push(Inline::text("; the line ended"));
        }
        Miss::Continues { found } => {
            item.push(Inline::text("the line goes on at "));
            item.push(Inline::Code(token(found)));
            item.push(Inline::text(" (the pattern does not end with "));
            item.push(Inline::code("$*"));
            item.push(Inline::text(")"));
        }
    }
    item
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{:.1}%", 100.0 * v))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `n` with a comma between each group of three digits (4,965).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A note in italic, of plain text.
fn note(text: &str) -> Block {
    Block::Note(vec![Inline::text(text)])
}

/// A rules-file hover as a document.
pub fn render_rules_hover(hover: &RulesHover) -> Document {
    match hover {
        RulesHover::Pattern(pattern) => render_pattern(pattern),
        RulesHover::Label(label) => render_label(label),
        RulesHover::WordList(list) => render_word_list(list),
    }
}

fn render_word_list(hover: &WordListHover) -> Document {
    let mut doc = Document::default();
    let n = hover.n_entries;
    let mut title = vec![
        Inline::strong("word list"),
        Inline::text(" "),
        Inline::Code(format!("@{}", hover.name)),
        Inline::Text(format!(" · {n} entr{}", if n == 1 { "y" } else { "ies" })),
    ];
    if let Some(file) = &hover.file {
        title.push(Inline::text(" from "));
        title.push(Inline::code(file.as_str()));
    }
    doc.paragraph(title);
    if !hover.first.is_empty() {
        let more = if n > hover.first.len() { " | …" } else { "" };
        doc.push(Block::Code {
            language: "rules",
            text: format!("( {}{more} )", hover.first.join(" | ")),
        });
    }
    if hover.used_by.is_empty() {
        doc.push(note("No pattern uses it."));
    } else {
        let mut used = vec![Inline::text("Used by ")];
        for (i, (pattern, line)) in hover.used_by.iter().enumerate() {
            if i > 0 {
                used.push(Inline::text(", "));
            }
            used.extend(described(pattern));
            used.push(Inline::Text(format!(" (line {line})")));
        }
        used.push(Inline::text("."));
        doc.paragraph(used);
    }
    doc
}

/// The note a rules-file hover ends with while a training runs: its latest progress
/// report (`Full training of FA-RNN (rule network): sms.rules: epoch 1/2, …`).
pub fn training_note(progress: &str) -> Block {
    note(progress)
}

/// The hover of a corpus line that no rules file binds.
pub fn render_unbound_corpus() -> Document {
    Document {
        blocks: vec![Block::Note(vec![
            Inline::text("No rules file binds this corpus: add "),
            Inline::code("corpus train \"…\""),
            Inline::text(" to one."),
        ])],
    }
}

fn render_pattern(hover: &PatternHover) -> Document {
    let mut doc = Document::default();
    let mut title = vec![Inline::strong("pattern"), Inline::text(" ")];
    title.extend(described(&hover.title));
    if !hover.labels.is_empty() {
        title.push(Inline::Text(format!(" → {}", hover.labels.join(", "))));
    }
    title.push(Inline::Text(match hover.n_dfa_states {
        Some(n) => format!(" · {n} DFA state{}", plural(n)),
        None => " · automaton too large (matches nothing)".to_string(),
    }));
    doc.paragraph(title);
    doc.push(Block::Code {
        language: "rules",
        text: hover.regex.clone(),
    });
    if hover.recovered {
        doc.push(note(
            "This statement has a syntax error: the regex above is what the parser recovered from it.",
        ));
    }
    if let Some(learned) = &hover.learned {
        render_learned(&mut doc, learned);
    }
    match (hover.evaluated, hover.pending) {
        (false, true) => {
            doc.push(note(
                "Being evaluated on the corpora: the figures follow shortly.",
            ));
            return doc;
        }
        (false, false) => {
            doc.push(note(
                "Not in the last saved analysis: save to evaluate it on the corpora.",
            ));
            return doc;
        }
        (true, true) => doc.push(note(
            "Figures of the previous save; this save's are being computed.",
        )),
        (true, false) => {}
    }
    if !hover.corpora.is_empty() {
        // The label model's column where some corpus has lines without a gold label.
        let estimated = hover.corpora.iter().any(|f| f.n_unlabeled > 0);
        let mut header = vec!["corpus", "matches", "coverage", "precision", "recall"];
        if estimated {
            header.push("est. precision");
        }
        doc.push(Block::Table(Table {
            numeric: header.iter().map(|&h| h != "corpus").collect(),
            header,
            rows: hover
                .corpora
                .iter()
                .map(|figures| {
                    let mut row = vec![
                        figures.corpus.clone(),
                        figures.metrics.matches.to_string(),
                        percent(figures.coverage()),
                        percent(figures.metrics.precision()),
                        percent(figures.metrics.recall()),
                    ];
                    if estimated {
                        row.push(percent(figures.estimated_precision));
                    }
                    row
                })
                .collect(),
        }));
        for figures in hover.corpora.iter().filter(|f| f.n_unlabeled > 0) {
            if let Some(precision) = figures.estimated_precision {
                doc.paragraph(vec![Inline::Text(format!(
                    "Estimated precision {precision:.2} on {}'s {} line{} without a gold label (the rules' label model).",
                    figures.corpus,
                    thousands(figures.n_unlabeled),
                    plural(figures.n_unlabeled)
                ))]);
            }
        }
    }
    doc.push(Block::List {
        heading: Vec::new(),
        items: hover.examples.iter().map(render_example).collect(),
    });
    doc
}

/// A learned pattern a rule was added from: how faithful its regex is, and its top phrases
/// (self-loop tokens in brackets, ε-steps as `ε`).
fn render_learned(doc: &mut Document, learned: &LearnedPattern) {
    doc.paragraph(vec![Inline::Text(format!(
        "Learned by the SoPa as pattern {}: the regex fires where the pattern does on {} of \
         train and {} of dev lines; {} train matches, precision {}.",
        learned.index,
        percent(Some(learned.fidelity_train)),
        percent(learned.fidelity_dev),
        learned.train_matches,
        percent(learned.train_precision)
    ))]);
    if !learned.top_phrases.is_empty() {
        let mut line = vec![Inline::text("Top phrases: ")];
        for (i, phrase) in learned.top_phrases.iter().enumerate() {
            if i > 0 {
                line.push(Inline::text(" · "));
            }
            line.push(Inline::code(phrase.as_str()));
        }
        doc.paragraph(line);
    }
}

fn render_example(example: &MatchExample) -> Vec<Inline> {
    let mut item = vec![Inline::Text(format!(
        "{} {}:{} ({}) ",
        if example.correct { "✓" } else { "✗" },
        example.corpus,
        example.line + 1,
        example.gold,
    ))];
    item.extend(snippet(&example.text, example.span));
    item
}

fn render_label(hover: &LabelHover) -> Document {
    let mut doc = Document::default();
    let mut title = vec![
        Inline::strong("label"),
        Inline::text(" "),
        Inline::code(hover.name.as_str()),
        Inline::Text(format!(
            " · {} rule{}",
            hover.n_rules,
            plural(hover.n_rules)
        )),
    ];
    if hover.is_default {
        title.push(Inline::text(" · default"));
    }
    doc.paragraph(title);
    if hover.corpora.is_empty() {
        doc.push(note(if hover.pending {
            "Being evaluated on the corpora: the figures follow shortly."
        } else {
            "No corpus figures yet: bind a corpus and save."
        }));
        return doc;
    }
    if hover.pending {
        doc.push(note(
            "Figures of the previous save; this save's are being computed.",
        ));
    }
    doc.push(Block::Table(Table {
        header: vec!["corpus", "gold", "predicted", "precision", "recall", "F1"],
        numeric: vec![false, true, true, true, true, true],
        rows: hover
            .corpora
            .iter()
            .map(|figures| {
                let m = &figures.metrics;
                vec![
                    figures.corpus.clone(),
                    m.support.to_string(),
                    m.predicted.to_string(),
                    percent(m.precision()),
                    percent(m.recall()),
                    percent(m.f1()),
                ]
            })
            .collect(),
    }));
    // "4 ham lines predicted as spam": the gold label first, then the prediction.
    let lines = |n: usize, gold: &str, predicted: &str| {
        format!("{n} {gold} line{} predicted as {predicted}", plural(n))
    };
    let items = hover
        .corpora
        .iter()
        .filter_map(|figures| {
            let errors: Vec<String> = figures
                .mistaken_for
                .iter()
                .take(4)
                .map(|(other, n)| lines(*n, &hover.name, other))
                .chain(
                    figures
                        .taken_for
                        .iter()
                        .take(4)
                        .map(|(other, n)| lines(*n, other, &hover.name)),
                )
                .collect();
            (!errors.is_empty()).then(|| {
                vec![Inline::Text(format!(
                    "{}: {}",
                    figures.corpus,
                    errors.join("; ")
                ))]
            })
        })
        .collect();
    doc.push(Block::List {
        heading: Vec::new(),
        items,
    });
    doc
}

/// A corpus line's hover as a document; `text` is the line's text, which the hover's
/// ranges point into.
pub fn render_line_hover(hover: &LineHover, text: &str) -> Document {
    let mut doc = Document::default();
    let gold = hover.gold.as_deref();
    let mut title = match gold {
        Some(gold) => vec![Inline::text("gold "), Inline::strong(gold)],
        None => vec![Inline::text("unlabeled")],
    };
    let predicted = hover.rules_prediction.as_deref();
    title.push(Inline::text(" · rules "));
    title.push(Inline::strong(predicted.unwrap_or("nothing")));
    if gold.is_some() {
        title.push(Inline::text(if gold == predicted {
            " ✓"
        } else {
            " ✗"
        }));
    }
    if hover.fired.is_empty() {
        title.push(Inline::text(" (no rule fired)"));
    } else {
        title.push(Inline::text(" (fired: "));
        for (i, fired) in hover.fired.iter().enumerate() {
            if i > 0 {
                title.push(Inline::text(", "));
            }
            title.extend(described(fired));
        }
        title.push(Inline::text(")"));
    }
    doc.paragraph(title);
    if let (Some(gold), false) = (gold, hover.missed.is_empty()) {
        doc.push(Block::List {
            heading: vec![
                Inline::text("Why the "),
                Inline::strong(gold),
                Inline::text(" patterns missed, closest first:"),
            ],
            items: hover
                .missed
                .iter()
                .map(|missed| render_missed(missed, text))
                .collect(),
        });
    }
    match &hover.network {
        Ok(network) => render_network(&mut doc, network, gold, text),
        Err(AbsentNetwork::NotYetTrained) => {
            doc.push(note("No trained network yet: save the rules to train one."));
        }
        Err(AbsentNetwork::Training { progress }) => doc.push(note(&format!(
            "A network is training: {progress}. Its view shows here once it is ready."
        ))),
        Err(AbsentNetwork::TrainingOff) => doc.push(Block::Note(vec![
            Inline::text("Training is off ("),
            Inline::code("rulelens.training.enabled"),
            Inline::text("): the rules' view only."),
        ])),
        Err(AbsentNetwork::SopaOnly) if hover.patterns.is_none() => {
            doc.push(note("No trained SoPa yet: save the rules to train one."));
        }
        Err(AbsentNetwork::SopaOnly) => {}
        Err(AbsentNetwork::MvmaOnly) if hover.mvma.is_none() => {
            doc.push(note("No trained MVMA-G yet: save the rules to train one."));
        }
        Err(AbsentNetwork::MvmaOnly) => {}
    }
    if let Some(mvma) = &hover.mvma {
        render_mvma(&mut doc, mvma, gold, text);
    }
    if let Some(patterns) = &hover.patterns {
        render_patterns(&mut doc, patterns, gold, text);
    }
    doc
}

/// The MVMA-G's view of a line: its prediction, and each logit shown as the exact sum of
/// its suffix n-grams' parts, the strongest listed.
fn render_mvma(doc: &mut Document, view: &MvmaView, gold: Option<&str>, text: &str) {
    render_verdict(
        doc,
        ("MVMA-G", "The MVMA-G"),
        &view.prediction,
        &view.probabilities,
        gold,
        false,
    );
    if view.stale {
        doc.push(note(
            "The MVMA-G is of an earlier save of the rules; saving trains it again.",
        ));
    }
    if view.truncated {
        doc.push(note(&format!(
            "The network reads the first {} tokens of this line.",
            view.n_tokens
        )));
    }
    for logit in &view.logits {
        let gold = logit.label != view.prediction;
        render_logit_parts(doc, logit, gold, text);
    }
}

/// A label's logit (the gold label's, marked, when `gold`) as the sum of its suffix
/// n-grams' parts.
fn render_logit_parts(doc: &mut Document, logit: &LogitParts, gold: bool, text: &str) {
    let n_parts = logit.strongest.len() + logit.rest.0;
    let heading = vec![
        Inline::Text(format!(
            "The logit of {}{} is the sum of {n_parts} part{}, one per suffix n-gram (",
            logit.label,
            if gold { " (gold)" } else { "" },
            plural(n_parts)
        )),
        Inline::code("wᵀ v_{i:N}"),
        Inline::text(": from word i to the end), exactly; the strongest:"),
    ];
    let mut items: Vec<Vec<Inline>> = logit
        .strongest
        .iter()
        .map(|part| {
            let mut item = vec![Inline::Text(format!(
                "from word {} on {:+.3}: ",
                part.start + 1,
                part.score
            ))];
            item.extend(snippet(text, part.range));
            item
        })
        .collect();
    items.extend(the_others(logit.rest, "part", 3));
    doc.push(Block::List { heading, items });
    doc.paragraph(vec![Inline::Text(format!(
        "The parts sum to {:.4}; the logit is {:.4}.",
        logit.sum, logit.logit
    ))]);
}

/// A network's verdict on a line: `**KIND** **LABEL** ✓ · label p · …`, and a note when it
/// was trained on an older version of the rules (`who` names it in the note).
fn render_verdict(
    doc: &mut Document,
    (kind, who): (&str, &str),
    prediction: &str,
    probabilities: &[(String, f64)],
    gold: Option<&str>,
    stale: bool,
) {
    let probabilities: Vec<String> = probabilities
        .iter()
        .map(|(label, p)| format!("{label} {p:.2}"))
        .collect();
    doc.paragraph(vec![
        Inline::strong(kind),
        Inline::text(" "),
        Inline::strong(prediction),
        Inline::Text(format!(
            "{} · {}",
            match gold {
                Some(gold) if gold == prediction => " ✓",
                Some(_) => " ✗",
                None => "",
            },
            probabilities.join(" · ")
        )),
    ]);
    if stale {
        doc.push(note(&format!(
            "{who} is of an earlier save of the rules: patterns changed since are not listed; saving trains it again."
        )));
    }
}

/// The rule network's view of a line.
fn render_network(doc: &mut Document, network: &NetworkView, gold: Option<&str>, text: &str) {
    render_verdict(
        doc,
        (network.kind, "The network"),
        &network.prediction,
        &network.probabilities,
        gold,
        network.stale,
    );
    let label = &network.prediction;
    if network.prediction_from_words {
        let from = if network.ngram_regression.is_some() {
            "the line's mean word vector and the n-gram regression"
        } else {
            "the line's mean word vector alone"
        };
        doc.push(note(&format!(
            "No rule names {label}: the network learned it from the corpus, and its logit comes \
             from {from}."
        )));
    }
    if let Some(parts) = &network.ngram_regression {
        render_regression(doc, parts, text);
    }
    doc.push(Block::List {
        heading: if network.top_patterns.is_empty() {
            Vec::new()
        } else {
            vec![Inline::text("Top patterns:")]
        },
        items: network
            .top_patterns
            .iter()
            .map(|pattern| {
                let mut item = described(&pattern.pattern);
                item.push(Inline::Text(format!(" {:.2}", pattern.score)));
                if let Some(span) = pattern.span {
                    item.push(Inline::text(": "));
                    item.extend(snippet(text, span));
                }
                item
            })
            .collect(),
    });
    let later = |what: &str| {
        if network.measuring_ahead {
            format!("; the language server measures {what} in the background: hover again soon.")
        } else {
            ".".to_string()
        }
    };
    if network.ngram_len_capped && network.max_ngram_len == 0 {
        doc.push(note(&format!(
            "The line is too long to measure its n-grams within a hover's time{}",
            later("them")
        )));
    } else if network.ngrams.is_empty() {
        if network.max_ngram_len > 0 {
            doc.push(note(&format!(
                "Deleting any one n-gram of up to {} token{} changes P({label}) by less \
                 than {NEGLIGIBLE}.",
                network.max_ngram_len,
                plural(network.max_ngram_len)
            )));
        }
    } else {
        doc.push(Block::List {
            heading: vec![Inline::Text(format!(
                "Strongest n-grams (occlusion: what deleting each does to P({label})):"
            ))],
            items: network
                .ngrams
                .iter()
                .map(|ngram| {
                    let phrase = text
                        .get(usize::from(ngram.range.start())..usize::from(ngram.range.end()))
                        .unwrap_or("");
                    vec![
                        Inline::Highlight(phrase.to_string()),
                        Inline::Text(format!(
                            " {:+.2} toward {label} ({:.2} without it)",
                            ngram.contribution, ngram.without
                        )),
                    ]
                })
                .collect(),
        });
    }
    if network.ngram_len_capped && network.max_ngram_len > 0 {
        doc.push(note(&format!(
            "On a line this long, only n-grams of up to {} token{} are measured{}",
            network.max_ngram_len,
            plural(network.max_ngram_len),
            later("longer ones")
        )));
    }
}

/// The list item of the `rest` = (count, sum) parts not listed, the sum to `digits`
/// places; none when every part is listed.
fn the_others(rest: (usize, f32), noun: &str, digits: usize) -> Option<Vec<Inline>> {
    (rest.0 > 0).then(|| {
        vec![Inline::Text(format!(
            "{} other {noun}{} {:+.digits$}",
            rest.0,
            plural(rest.0),
            rest.1
        ))]
    })
}

/// The n-gram regression's share of the prediction's score: its bias and parts, exactly.
fn render_regression(doc: &mut Document, parts: &RegressionParts, text: &str) {
    let mut items: Vec<Vec<Inline>> = parts
        .strongest
        .iter()
        .map(|&(range, part)| {
            let phrase = text
                .get(usize::from(range.start())..usize::from(range.end()))
                .unwrap_or("");
            vec![
                Inline::Highlight(phrase.to_string()),
                Inline::Text(format!(" {part:+.2}")),
            ]
        })
        .collect();
    items.extend(the_others(parts.rest, "n-gram", 2));
    items.push(vec![Inline::Text(format!("bias {:+.2}", parts.bias))]);
    doc.push(Block::List {
        heading: vec![Inline::Text(format!(
            "Beside the rules, an n-gram regression adds {:+.2} to {}'s scaled logit (the \
             probabilities and the n-gram effects here include it), the sum of its parts:",
            parts.logit, parts.label
        ))],
        items,
    });
}

/// The SoPa's view of a line: its prediction and the patterns it leans on most.
fn render_patterns(doc: &mut Document, view: &PatternsView, gold: Option<&str>, text: &str) {
    render_verdict(
        doc,
        ("SoPa", "The SoPa"),
        &view.prediction,
        &view.probabilities,
        gold,
        view.stale,
    );
    let label = &view.prediction;
    let decisive = |delta: f64| delta.abs() >= NEGLIGIBLE;
    let heading = if view.contributions.iter().any(|c| decisive(c.delta)) {
        vec![Inline::Text(format!(
            "Patterns (leave-one-out: what the network's P({label}) loses without each):"
        ))]
    } else {
        vec![
            Inline::Emphasis(vec![Inline::Text(format!(
                "Leaving out any one pattern changes P({label}) by less than {NEGLIGIBLE}."
            ))]),
            Inline::text(" The patterns with the highest scores:"),
        ]
    };
    let items = view
        .contributions
        .iter()
        .map(|c| {
            let mut item = described(&c.pattern);
            if decisive(c.delta) {
                item.push(Inline::Text(format!(" {:+.2}", c.delta)));
            }
            if let Some(regex) = &c.regex {
                item.push(Inline::text(" "));
                item.push(Inline::code(regex.as_str()));
            }
            item.push(Inline::Text(format!(" (score {:.2})", c.score)));
            if let Some(span) = c.span {
                item.push(Inline::text(": "));
                item.extend(snippet(text, span));
            }
            item
        })
        .collect();
    doc.push(Block::List { heading, items });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A snippet of `text` around `span`, as Markdown.
    fn markdown_snippet(text: &str, span: TextRange) -> String {
        let mut doc = Document::default();
        doc.paragraph(snippet(text, span));
        doc.to_markdown().trim_end().to_string()
    }

    #[test]
    fn snippets_bold_the_span_escape_markdown_and_cut_long_context() {
        let text = "a*b call me | now!";
        let span = TextRange::new(4.into(), 11.into());
        assert_eq!(markdown_snippet(text, span), r"a\*b **call me** | now!");
        let long = format!("{}x{}", "a ".repeat(50), " b".repeat(50));
        let at = 100;
        let cut = markdown_snippet(&long, TextRange::new(at.into(), (at + 1).into()));
        assert!(cut.starts_with('…') && cut.ends_with('…'), "{cut}");
        assert!(cut.contains("**x**"), "{cut}");
        // A span off a char boundary falls back to the text.
        assert_eq!(
            markdown_snippet("é", TextRange::new(1.into(), 2.into())),
            "é"
        );
    }

    /// The strong (bold) texts of some Markdown, and whether a `**` was left as text, as
    /// a CommonMark parser reads it.
    fn bold_parts(markdown: &str) -> (Vec<String>, bool) {
        use pulldown_cmark::{Event, Parser, Tag, TagEnd};
        let (mut strong, mut inside, mut literal) = (Vec::new(), None::<String>, false);
        for event in Parser::new(markdown) {
            match event {
                Event::Start(Tag::Strong) => inside = Some(String::new()),
                Event::End(TagEnd::Strong) => strong.extend(inside.take()),
                Event::Text(text) => {
                    literal |= text.contains("**");
                    if let Some(open) = &mut inside {
                        open.push_str(&text);
                    }
                }
                _ => {}
            }
        }
        (strong, literal)
    }

    #[test]
    fn bold_spans_render_as_bold_next_to_punctuation_and_digits() {
        let cases = [
            // The corpus line of the bug: a span starting with `.` after a digit.
            (
                "call 09065174042. to opt out reply stop",
                ". to opt out reply",
                "09065174042. to opt out reply",
            ),
            ("free!! call now", "free", "free!!"),
            ("win £1000 cash", "1000", "£1000"),
            ("u r so special. call", "special.", "special."),
            ("a*b call me | now", "call me", "call me"),
            ("(txt) stop", "txt", "(txt)"),
        ];
        for (text, span_text, bold) in cases {
            let at = text.find(span_text).unwrap();
            let span = TextRange::new((at as u32).into(), ((at + span_text.len()) as u32).into());
            let markdown = markdown_snippet(text, span);
            let (strong, literal) = bold_parts(&markdown);
            assert_eq!(strong, [bold], "{markdown}");
            assert!(!literal, "a literal ** in {markdown}");
        }
    }

    /// The text a CommonMark parser reads out of some Markdown, with a space for each break.
    fn read_back(markdown: &str) -> String {
        use pulldown_cmark::{Event, Options, Parser};
        let mut out = String::new();
        for event in Parser::new_ext(
            markdown,
            Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH,
        ) {
            match event {
                Event::Text(text) | Event::Code(text) => out.push_str(&text),
                Event::SoftBreak | Event::HardBreak | Event::End(_) => out.push(' '),
                Event::Html(_) | Event::InlineHtml(_) => out.push_str("<HTML>"),
                _ => {}
            }
        }
        out
    }

    #[test]
    fn corpus_text_reads_back_as_it_is_from_the_markdown() {
        let lines = [
            "last chance! **claim ur ??150 worth of discount vouchers today!",
            "text & win at 86888 & claim",
            "# 1 free <b>ringtone</b> [reply] `now` ~~today~~ a_b _c_ \\ x\\* &amp;",
            "- 2. > | pipes | in | text",
        ];
        for line in lines {
            let mut doc = Document::default();
            doc.paragraph(vec![Inline::text(line)]);
            doc.push(Block::List {
                heading: Vec::new(),
                items: vec![vec![Inline::text(line)]],
            });
            let markdown = doc.to_markdown();
            assert_eq!(
                read_back(&markdown).split_whitespace().collect::<Vec<_>>(),
                format!("{line} {line}")
                    .split_whitespace()
                    .collect::<Vec<_>>(),
                "{markdown}"
            );
        }
    }
}

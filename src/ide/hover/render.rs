//! Hovers as small documents ([`Document`]), readable at a glance: a title line, a small
//! table of figures, and a few lines of examples with the matched span highlighted
//! (`pieces.rs`); the server writes them as Markdown or plain text (`markdown.rs`,
//! `plain_text.rs`). A corpus line's hover ends with each trained network's view, which
//! renders itself (`ide::trained::LineView::render`).
//!
//! Text from the rules and corpora stays text ([`Inline::Text`]), which the Markdown writer
//! escapes, so that a line with `*` or `|` cannot break the layout.

use super::document::{Block, Document, Inline, Table, described};
use super::pieces::{note, plural, snippet};
use super::{
    AbsentNetwork, LabelHover, LineHover, MatchExample, Miss, MissedPattern, PatternHover,
    RulesHover, WordListHover,
};
use crate::explain::LearnedPattern;
use crate::ide::trained::LineView;
use text_size::TextRange;

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
    let patterns_shown = hover
        .views
        .iter()
        .any(|view| matches!(view, LineView::Patterns(_)));
    match &hover.absent {
        None => {}
        Some(AbsentNetwork::NotYetTrained) => {
            doc.push(note("No trained network yet: save the rules to train one."));
        }
        Some(AbsentNetwork::Training { progress }) => doc.push(note(&format!(
            "A network is training: {progress}. Its view shows here once it is ready."
        ))),
        Some(AbsentNetwork::TrainingOff) => doc.push(Block::Note(vec![
            Inline::text("Training is off ("),
            Inline::code("rulelens.training.enabled"),
            Inline::text("): the rules' view only."),
        ])),
        Some(AbsentNetwork::SopaOnly) if !patterns_shown => {
            doc.push(note("No trained SoPa yet: save the rules to train one."));
        }
        Some(AbsentNetwork::SopaOnly) => {}
    }
    for view in &hover.views {
        view.render(&mut doc, gold, text);
    }
    doc
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

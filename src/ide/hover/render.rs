//! Hovers as compact Markdown, readable at a glance: a title line, a small table of figures,
//! and a few lines of examples with the matched span in bold. CommonMark opens `**` only
//! where it flanks a word properly (not between a digit and a `.`, say), so the bold covers
//! the span's whole whitespace-separated chunks: then its delimiters always sit next to a
//! space or the text's ends, and always render as bold.
//!
//! Text from the rules and corpora is escaped, so that a message with `*` or `|` cannot break
//! the layout; long corpus lines are cut to a window around the span they are shown for.

use super::{
    AbsentNetwork, LabelHover, LineHover, LogitParts, MatchExample, Miss, MissedPattern, MvmaView,
    NetworkView, PatternHover, PatternsView, RulesHover, WordListHover,
};
use crate::explain::{LearnedPattern, NEGLIGIBLE};
use std::fmt::Write;
use text_size::TextRange;

/// Characters of context shown on each side of a span.
const CONTEXT: usize = 40;

/// Escapes text for Markdown (inline, outside code).
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '!' | '&'
        ) {
            out.push('\\');
        }
        if c == '\t' || c == '\n' || c == '\r' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

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

/// `text` with `span` in bold and at most [`CONTEXT`] characters around it.
fn snippet(text: &str, span: TextRange) -> String {
    let Some((start, end)) = whole_chunks(text, span) else {
        return escape(text);
    };
    let (Some(before), Some(inside), Some(after)) =
        (text.get(..start), text.get(start..end), text.get(end..))
    else {
        return escape(text);
    };
    let n_before = before.chars().count();
    let before: String = if n_before > CONTEXT {
        let kept: String = before.chars().skip(n_before - CONTEXT).collect();
        format!("…{}", escape(&kept))
    } else {
        escape(before)
    };
    let after: String = if after.chars().count() > CONTEXT {
        format!(
            "{}…",
            escape(&after.chars().take(CONTEXT).collect::<String>())
        )
    } else {
        escape(after)
    };
    if inside.trim().is_empty() {
        format!("{before}{after}")
    } else {
        format!("{before}**{}**{after}", escape(inside))
    }
}

/// `text` as inline code, with a fence longer than any run of backticks inside it.
fn code(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{text}{fence}")
    } else {
        format!("{fence} {text} {fence}")
    }
}

/// Alternatives as `` `a` ``, `` `a` or `b` ``, `` `a`, `b` or `c` ``.
fn one_of(items: &[String]) -> String {
    let items: Vec<String> = items.iter().map(|item| code(item)).collect();
    match items.as_slice() {
        [] => "nothing".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// Why a pattern missed a line, in one line of Markdown.
fn render_missed(missed: &MissedPattern, text: &str) -> String {
    let matched = if missed.matched.is_empty() {
        String::new()
    } else {
        format!("{} matched, then ", code(&missed.matched))
    };
    let token = |range: &TextRange| {
        text.get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
            .to_string()
    };
    let why = match &missed.miss {
        Miss::Mismatch { expected, found } => {
            let found: Vec<String> = found.iter().map(token).collect();
            format!(
                "{matched}expected {}, found {}",
                one_of(expected),
                one_of(&found)
            )
        }
        Miss::Ended { expected } => {
            format!("{matched}expected {}; the line ended", one_of(expected))
        }
        Miss::Continues { found } => format!(
            "{matched}the line goes on at {} (the pattern does not end with `$*`)",
            code(&token(found))
        ),
    };
    // The pattern is described with identifiers in backticks (`describe`), Markdown as it is.
    format!(
        "- {}: {why}
",
        missed.pattern
    )
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "–".to_string(), |v| format!("{:.1}%", 100.0 * v))
}

/// A rules-file hover as Markdown.
pub fn render_rules_hover(hover: &RulesHover) -> String {
    match hover {
        RulesHover::Pattern(pattern) => render_pattern(pattern),
        RulesHover::Label(label) => render_label(label),
        RulesHover::WordList(list) => render_word_list(list),
    }
}

fn render_word_list(hover: &WordListHover) -> String {
    let mut out = String::new();
    let n = hover.n_entries;
    let _ = write!(
        out,
        "**word list** `@{}` · {n} entr{}",
        hover.name,
        if n == 1 { "y" } else { "ies" }
    );
    if let Some(file) = &hover.file {
        let _ = write!(out, " from `{}`", file.replace('`', "'"));
    }
    out.push('\n');
    if !hover.first.is_empty() {
        let more = if n > hover.first.len() { " | …" } else { "" };
        let _ = write!(
            out,
            "\n```rules\n( {}{more} )\n```\n",
            hover.first.join(" | ")
        );
    }
    if hover.used_by.is_empty() {
        out.push_str("\nNo pattern uses it.\n");
    } else {
        out.push_str("\nUsed by ");
        let uses: Vec<String> = hover
            .used_by
            .iter()
            .map(|(pattern, line)| format!("{pattern} (line {line})"))
            .collect();
        out.push_str(&uses.join(", "));
        out.push_str(".\n");
    }
    out
}

fn render_pattern(hover: &PatternHover) -> String {
    let mut out = String::new();
    // The title is an identifier in backticks (`describe`), Markdown as it is.
    let _ = write!(out, "**pattern** {}", hover.title);
    if !hover.labels.is_empty() {
        let _ = write!(out, " → {}", escape(&hover.labels.join(", ")));
    }
    match hover.n_dfa_states {
        Some(n) => {
            let _ = write!(out, " · {n} DFA state{}", if n == 1 { "" } else { "s" });
        }
        None => out.push_str(" · automaton too large (matches nothing)"),
    }
    let _ = write!(out, "\n\n```rules\n{}\n```\n", hover.regex);
    if hover.recovered {
        out.push_str(
            "\n_This statement has a syntax error: the regex above is what the parser recovered from it._\n",
        );
    }
    if let Some(learned) = &hover.learned {
        render_learned(&mut out, learned);
    }
    match (hover.evaluated, hover.pending) {
        (false, true) => {
            out.push_str("\n_Being evaluated on the corpora: the figures follow shortly._\n");
            return out;
        }
        (false, false) => {
            out.push_str(
                "\n_Not in the last saved analysis: save to evaluate it on the corpora._\n",
            );
            return out;
        }
        (true, true) => {
            out.push_str("\n_Figures of the previous save; this save's are being computed._\n")
        }
        (true, false) => {}
    }
    if !hover.corpora.is_empty() {
        out.push_str("\n| corpus | matches | coverage | precision | recall |\n| --- | ---: | ---: | ---: | ---: |\n");
        for figures in &hover.corpora {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                escape(&figures.corpus),
                figures.metrics.matches,
                percent(figures.coverage()),
                percent(figures.metrics.precision()),
                percent(figures.metrics.recall())
            );
        }
    }
    if !hover.examples.is_empty() {
        out.push('\n');
        for example in &hover.examples {
            out.push_str(&render_example(example));
        }
    }
    out
}

/// A learned pattern a rule was added from: how faithful its regex is, and its top phrases
/// (self-loop tokens in brackets, ε-steps as `ε`).
fn render_learned(out: &mut String, learned: &LearnedPattern) {
    let _ = write!(
        out,
        "\nLearned by the SoPa as pattern {}: the regex fires where the pattern does on {} of \
         train and {} of dev lines",
        learned.index,
        percent(Some(learned.fidelity_train)),
        percent(learned.fidelity_dev)
    );
    let _ = writeln!(
        out,
        "; {} train matches, precision {}.",
        learned.train_matches,
        percent(learned.train_precision)
    );
    if !learned.top_phrases.is_empty() {
        let phrases: Vec<String> = learned
            .top_phrases
            .iter()
            .map(|phrase| format!("`{}`", phrase.replace('`', "'")))
            .collect();
        let _ = writeln!(out, "\nTop phrases: {}", phrases.join(" · "));
    }
}

fn render_example(example: &MatchExample) -> String {
    format!(
        "- {} {}:{} ({}) {}\n",
        if example.correct { "✓" } else { "✗" },
        escape(&example.corpus),
        example.line + 1,
        escape(&example.gold),
        snippet(&example.text, example.span)
    )
}

fn render_label(hover: &LabelHover) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "**label** `{}` · {} rule{}",
        hover.name,
        hover.n_rules,
        if hover.n_rules == 1 { "" } else { "s" }
    );
    if hover.is_default {
        out.push_str(" · default");
    }
    out.push('\n');
    if hover.corpora.is_empty() {
        out.push_str(if hover.pending {
            "\n_Being evaluated on the corpora: the figures follow shortly._\n"
        } else {
            "\n_No corpus figures yet: bind a corpus and save._\n"
        });
        return out;
    }
    if hover.pending {
        out.push_str("\n_Figures of the previous save; this save's are being computed._\n");
    }
    out.push_str("\n| corpus | gold | predicted | precision | recall | F1 |\n| --- | ---: | ---: | ---: | ---: | ---: |\n");
    for figures in &hover.corpora {
        let m = &figures.metrics;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            escape(&figures.corpus),
            m.support,
            m.predicted,
            percent(m.precision()),
            percent(m.recall()),
            percent(m.f1())
        );
    }
    // "4 ham lines predicted as spam": the gold label first, then the prediction.
    let lines = |n: usize, gold: &str, predicted: &str| {
        format!(
            "{n} {} line{} predicted as {}",
            escape(gold),
            if n == 1 { "" } else { "s" },
            escape(predicted)
        )
    };
    out.push('\n');
    for figures in &hover.corpora {
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
        if !errors.is_empty() {
            let _ = writeln!(out, "- {}: {}", escape(&figures.corpus), errors.join("; "));
        }
    }
    out
}

/// A corpus line's hover as Markdown; `text` is the line's text, which the hover's ranges
/// point into.
pub fn render_line_hover(hover: &LineHover, text: &str) -> String {
    let mut out = String::new();
    let gold = hover.gold.as_deref();
    match gold {
        Some(gold) => {
            let _ = write!(out, "gold **{}**", escape(gold));
        }
        None => out.push_str("unlabeled"),
    }
    let predicted = hover.rules_prediction.as_deref();
    let _ = write!(
        out,
        " · rules **{}**",
        escape(predicted.unwrap_or("nothing"))
    );
    if gold.is_some() {
        out.push_str(if gold == predicted { " ✓" } else { " ✗" });
    }
    if hover.fired.is_empty() {
        out.push_str(" (no rule fired)");
    } else {
        let _ = write!(out, " (fired: {})", hover.fired.join(", "));
    }
    out.push('\n');
    if let (Some(gold), false) = (gold, hover.missed.is_empty()) {
        let _ = writeln!(
            out,
            "\nWhy the **{}** patterns missed, closest first:",
            escape(gold)
        );
        for missed in &hover.missed {
            out.push_str(&render_missed(missed, text));
        }
    }
    match &hover.network {
        Ok(network) => render_network(&mut out, network, gold, text),
        Err(AbsentNetwork::NotYetTrained) => {
            out.push_str("\n_No trained network yet: save the rules to train one._\n");
        }
        Err(AbsentNetwork::TrainingOff) => out
            .push_str("\n_Training is off (`rulelens.training.enabled`): the rules' view only._\n"),
        Err(AbsentNetwork::SopaOnly) if hover.patterns.is_none() => {
            out.push_str("\n_No trained SoPa yet: save the rules to train one._\n");
        }
        Err(AbsentNetwork::SopaOnly) => {}
        Err(AbsentNetwork::MvmaOnly) if hover.mvma.is_none() => {
            out.push_str("\n_No trained MVMA-G yet: save the rules to train one._\n");
        }
        Err(AbsentNetwork::MvmaOnly) => {}
    }
    if let Some(mvma) = &hover.mvma {
        render_mvma(&mut out, mvma, gold, text);
    }
    if let Some(patterns) = &hover.patterns {
        render_patterns(&mut out, patterns, gold, text);
    }
    out
}

/// The MVMA-G's view of a line: its prediction, and each logit shown as the exact sum of
/// its suffix n-grams' parts, the strongest listed.
fn render_mvma(out: &mut String, view: &MvmaView, gold: Option<&str>, text: &str) {
    render_verdict(
        out,
        ("MVMA-G", "The MVMA-G"),
        &view.prediction,
        &view.probabilities,
        gold,
        false,
    );
    if view.stale {
        out.push_str(
            "\n_The MVMA-G is of an earlier save of the rules; saving trains it again._\n",
        );
    }
    if view.truncated {
        let _ = writeln!(
            out,
            "\n_The network reads the first {} tokens of this line._",
            view.n_tokens
        );
    }
    for logit in &view.logits {
        let gold = logit.label != view.prediction;
        render_logit_parts(out, logit, gold, text);
    }
}

/// A label's logit (the gold label's, marked, when `gold`) as the sum of its suffix
/// n-grams' parts.
fn render_logit_parts(out: &mut String, logit: &LogitParts, gold: bool, text: &str) {
    let n_parts = logit.strongest.len() + logit.rest.0;
    let _ = writeln!(
        out,
        "\nThe logit of {}{} is the sum of {n_parts} part{}, one per suffix n-gram \
         (`wᵀ v_{{i:N}}`: from word i to the end), exactly; the strongest:",
        escape(&logit.label),
        if gold { " (gold)" } else { "" },
        if n_parts == 1 { "" } else { "s" }
    );
    for part in &logit.strongest {
        let _ = writeln!(
            out,
            "- from word {} on {:+.3}: {}",
            part.start + 1,
            part.score,
            snippet(text, part.range)
        );
    }
    if logit.rest.0 > 0 {
        let _ = writeln!(
            out,
            "- {} other part{} {:+.3}",
            logit.rest.0,
            if logit.rest.0 == 1 { "" } else { "s" },
            logit.rest.1
        );
    }
    let _ = writeln!(
        out,
        "\nThe parts sum to {:.4}; the logit is {:.4}.",
        logit.sum, logit.logit
    );
}

/// A network's verdict on a line: `**KIND** **LABEL** ✓ · label p · …`, and a note when it
/// was trained on an older version of the rules (`who` names it in the note).
fn render_verdict(
    out: &mut String,
    (kind, who): (&str, &str),
    prediction: &str,
    probabilities: &[(String, f64)],
    gold: Option<&str>,
    stale: bool,
) {
    let probabilities: Vec<String> = probabilities
        .iter()
        .map(|(label, p)| format!("{} {:.2}", escape(label), p))
        .collect();
    let _ = write!(
        out,
        "\n**{kind}** **{}**{} · {}",
        escape(prediction),
        match gold {
            Some(gold) if gold == prediction => " ✓",
            Some(_) => " ✗",
            None => "",
        },
        probabilities.join(" · ")
    );
    if stale {
        let _ = write!(
            out,
            "\n\n_{who} is of an earlier save of the rules: patterns changed since are not listed; saving trains it again._"
        );
    }
    out.push('\n');
}

/// The rule network's view of a line.
fn render_network(out: &mut String, network: &NetworkView, gold: Option<&str>, text: &str) {
    render_verdict(
        out,
        (network.kind, "The network"),
        &network.prediction,
        &network.probabilities,
        gold,
        network.stale,
    );
    if network.prediction_from_words {
        let _ = writeln!(
            out,
            "\n_No rule names {}: the network learned it from the corpus, and its logit comes \
             from the line's mean word vector alone._",
            escape(&network.prediction)
        );
    }
    if !network.top_patterns.is_empty() {
        out.push_str("\nTop patterns:\n");
        for pattern in &network.top_patterns {
            let _ = write!(out, "- {} {:.2}", pattern.pattern, pattern.score);
            if let Some(span) = pattern.span {
                let _ = write!(out, ": {}", snippet(text, span));
            }
            out.push('\n');
        }
    }
    let label = escape(&network.prediction);
    if network.ngram_len_capped && network.max_ngram_len == 0 {
        out.push_str("\n_The line is too long to measure its n-grams within a hover's time._\n");
    } else if network.ngrams.is_empty() {
        if network.max_ngram_len > 0 {
            let _ = writeln!(
                out,
                "\n_Deleting any one n-gram of up to {} token{} changes P({label}) by less \
                 than {NEGLIGIBLE}._",
                network.max_ngram_len,
                if network.max_ngram_len == 1 { "" } else { "s" }
            );
        }
    } else {
        let _ = writeln!(
            out,
            "\nStrongest n-grams (occlusion: what deleting each does to P({label})):"
        );
        for ngram in &network.ngrams {
            let phrase = text
                .get(usize::from(ngram.range.start())..usize::from(ngram.range.end()))
                .unwrap_or("");
            let _ = writeln!(
                out,
                "- **{}** {:+.2} toward {label} ({:.2} without it)",
                escape(phrase),
                ngram.contribution,
                ngram.without
            );
        }
    }
    if network.ngram_len_capped && network.max_ngram_len > 0 {
        let _ = writeln!(
            out,
            "\n_On a line this long, only n-grams of up to {} token{} are measured._",
            network.max_ngram_len,
            if network.max_ngram_len == 1 { "" } else { "s" }
        );
    }
}

/// The SoPa's view of a line: its prediction and the patterns it leans on most.
fn render_patterns(out: &mut String, view: &PatternsView, gold: Option<&str>, text: &str) {
    render_verdict(
        out,
        ("SoPa", "The SoPa"),
        &view.prediction,
        &view.probabilities,
        gold,
        view.stale,
    );
    let label = escape(&view.prediction);
    let decisive = |delta: f64| delta.abs() >= NEGLIGIBLE;
    if view.contributions.iter().any(|c| decisive(c.delta)) {
        let _ = writeln!(
            out,
            "\nPatterns (leave-one-out: what the network's P({label}) loses without each):"
        );
    } else {
        let _ = writeln!(
            out,
            "\n_Leaving out any one pattern changes P({label}) by less than {NEGLIGIBLE}._ \
             The patterns with the highest scores:"
        );
    }
    for c in &view.contributions {
        let _ = write!(out, "- {}", c.pattern);
        if decisive(c.delta) {
            let _ = write!(out, " {:+.2}", c.delta);
        }
        if let Some(regex) = &c.regex {
            let _ = write!(out, " `{}`", regex.replace('`', "'"));
        }
        let _ = write!(out, " (score {:.2})", c.score);
        if let Some(span) = c.span {
            let _ = write!(out, ": {}", snippet(text, span));
        }
        out.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippets_bold_the_span_escape_markdown_and_cut_long_context() {
        let text = "a*b call me | now";
        let span = TextRange::new(4.into(), 11.into());
        assert_eq!(snippet(text, span), r"a\*b **call me** \| now");
        let long = format!("{}x{}", "a ".repeat(50), " b".repeat(50));
        let at = 100;
        let cut = snippet(&long, TextRange::new(at.into(), (at + 1).into()));
        assert!(cut.starts_with('…') && cut.ends_with('…'), "{cut}");
        assert!(cut.contains("**x**"), "{cut}");
        // A span off a char boundary falls back to the escaped text.
        assert_eq!(snippet("é", TextRange::new(1.into(), 2.into())), "é");
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
            let markdown = snippet(text, span);
            let (strong, literal) = bold_parts(&markdown);
            assert_eq!(strong, [bold], "{markdown}");
            assert!(!literal, "a literal ** in {markdown}");
        }
    }
}

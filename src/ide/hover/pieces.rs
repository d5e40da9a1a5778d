//! The pieces every hover's document is made of: a corpus snippet with its span
//! highlighted, a note, a network's verdict line, plurals. `render.rs` and each trained
//! family's view (`ide::trained`) build their documents from them.
//!
//! A snippet's highlight covers the span's whole whitespace-separated chunks: CommonMark
//! opens `**` only where it flanks a word properly (not between a digit and a `.`, say), so
//! its delimiters then always sit next to a space or the text's ends, and always render as
//! bold. Long corpus lines are cut to a window around the span they are shown for.

use super::document::{Block, Document, Inline};
use text_size::TextRange;

/// Characters of context shown on each side of a span.
const CONTEXT: usize = 40;

/// `span` widened to the whitespace-separated chunks it touches (see the module doc).
pub(crate) fn whole_chunks(text: &str, span: TextRange) -> Option<(usize, usize)> {
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
pub(crate) fn snippet(text: &str, span: TextRange) -> Vec<Inline> {
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

pub(crate) fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// A note in italic, of plain text.
pub(crate) fn note(text: &str) -> Block {
    Block::Note(vec![Inline::text(text)])
}

/// A network's verdict on a line: `**KIND** **LABEL** ✓ · label p · …`, and a note when it
/// was trained on an older version of the rules (`who` names it in the note).
pub(crate) fn render_verdict(
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

/// The list item of the `rest` = (count, sum) parts not listed, the sum to `digits`
/// places; none when every part is listed.
pub(crate) fn the_others(rest: (usize, f32), noun: &str, digits: usize) -> Option<Vec<Inline>> {
    (rest.0 > 0).then(|| {
        vec![Inline::Text(format!(
            "{} other {noun}{} {:+.digits$}",
            rest.0,
            plural(rest.0),
            rest.1
        ))]
    })
}

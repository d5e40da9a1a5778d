//! rustc-style rendering of a [`Diagnostic`]: header, location, the source line with a
//! caret under the range, related locations as notes, and the help line.
//!
//! Columns are 1-based chars, as rustc prints them. Tabs display as four spaces; a line
//! longer than [`MAX_SNIPPET_WIDTH`] is shown as a window around the range, so a 10 MB
//! one-line file does not print 10 MB. Colors are plain ANSI escapes, used only when the
//! caller asks (the CLI asks when stdout is a terminal and `NO_COLOR` is unset). The
//! file's text, its path and the messages (which quote it) are shown [`printable`]: a
//! control character in a rules file or corpus is seen, not obeyed by the terminal.

use super::{Diagnostic, Severity};
use crate::text::{LineIndex, printable};
use std::fmt::Write;
use text_size::{TextRange, TextSize};

/// The widest source line a snippet shows, in display columns.
pub const MAX_SNIPPET_WIDTH: usize = 120;

struct Palette {
    color: bool,
}

impl Palette {
    fn paint(&self, code: &str, text: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_string()
        }
    }

    fn severity(&self, severity: Severity, text: &str) -> String {
        let code = match severity {
            Severity::Error => "1;31",
            Severity::Warning => "1;33",
            Severity::Info | Severity::Hint => "1;36",
        };
        self.paint(code, text)
    }

    fn gutter(&self, text: &str) -> String {
        self.paint("1;34", text)
    }
}

/// Renders `diagnostic`, found in `text` (the contents of `path`), rustc-style.
///
/// ```
/// use rulelens::diagnostic::{render, Code, Diagnostic};
/// use rulelens::text::LineIndex;
/// use text_size::{TextRange, TextSize};
/// let text = "spam <- fre_call\n";
/// let range = TextRange::at(TextSize::from(8), TextSize::from(8));
/// let diagnostic = Diagnostic::new(Code::UnknownPattern, range, "unknown pattern `fre_call`");
/// let shown = render(&diagnostic, "a.rules", text, &LineIndex::new(text), false);
/// assert!(shown.contains("--> a.rules:1:9"));
/// assert!(shown.contains("^^^^^^^^"));
/// ```
pub fn render(
    diagnostic: &Diagnostic,
    path: &str,
    text: &str,
    index: &LineIndex,
    color: bool,
) -> String {
    let palette = Palette { color };
    let mut out = String::new();
    let header = format!(
        "{}[{}]",
        diagnostic.severity.as_str(),
        diagnostic.code.as_str()
    );
    let _ = writeln!(
        out,
        "{}{}",
        palette.severity(diagnostic.severity, &header),
        palette.paint("1", &format!(": {}", printable(&diagnostic.message)))
    );
    let lines = std::iter::once(diagnostic.range)
        .chain(diagnostic.related.iter().map(|r| r.range))
        .map(|range| index.line_col(range.start()).line + 1);
    let gutter_width = lines.max().unwrap_or(1).to_string().len();
    snippet(
        &mut out,
        &palette,
        diagnostic.severity,
        path,
        text,
        index,
        diagnostic.range,
        gutter_width,
    );
    for related in &diagnostic.related {
        let _ = writeln!(
            out,
            "{}: {}",
            palette.paint("1;32", "note"),
            printable(&related.message)
        );
        snippet(
            &mut out,
            &palette,
            Severity::Hint,
            path,
            text,
            index,
            related.range,
            gutter_width,
        );
    }
    if let Some(help) = &diagnostic.help {
        let _ = writeln!(out, "{} {}", " ".repeat(gutter_width), palette.gutter("|"));
        let _ = writeln!(
            out,
            "{} = {}: {}",
            " ".repeat(gutter_width),
            palette.paint("1", "help"),
            printable(help)
        );
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn snippet(
    out: &mut String,
    palette: &Palette,
    severity: Severity,
    path: &str,
    text: &str,
    index: &LineIndex,
    range: TextRange,
    gutter_width: usize,
) {
    let start = clamp_to_char_boundary(text, range.start());
    let position = index.to_chars(text, start);
    let pad = " ".repeat(gutter_width);
    let _ = writeln!(
        out,
        "{pad}{} {}:{}:{}",
        palette.gutter("-->"),
        printable(path),
        position.line + 1,
        position.col + 1
    );
    let Some(line_range) = index.line_range(position.line) else {
        return;
    };
    let line = text[line_range].trim_end_matches('\r');
    let line_start = usize::from(line_range.start());
    let caret_start = usize::from(start) - line_start;
    let caret_end = (usize::from(range.end()).min(line_start + line.len())).max(caret_start);
    let caret_end = clamp_to_char_boundary(text, TextSize::from(caret_end as u32));
    let caret_end = usize::from(caret_end) - line_start;

    // Display columns of every char boundary in the line.
    let mut shown = String::new();
    let column_at = |byte: usize| -> usize {
        let prefix = &line[..byte.min(line.len())];
        prefix.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum()
    };
    let (caret_col, caret_end_col) = (column_at(caret_start), column_at(caret_end));
    let width = (caret_end_col - caret_col).max(1);
    let window_start = if caret_col + width.min(40) > MAX_SNIPPET_WIDTH {
        caret_col.saturating_sub(MAX_SNIPPET_WIDTH / 2)
    } else {
        0
    };
    let mut col = 0;
    // One char for one: the columns above hold.
    for c in printable(line).chars() {
        let c_width = if c == '\t' { 4 } else { 1 };
        if col >= window_start && col + c_width <= window_start + MAX_SNIPPET_WIDTH {
            if c == '\t' {
                shown.push_str("    ");
            } else {
                shown.push(c);
            }
        }
        col += c_width;
    }
    let (prefix, offset) = if window_start > 0 {
        ("...", 3)
    } else {
        ("", 0)
    };
    let visible_width =
        width.min(MAX_SNIPPET_WIDTH - (caret_col - window_start).min(MAX_SNIPPET_WIDTH));
    let line_number = (position.line + 1).to_string();
    let _ = writeln!(out, "{pad} {}", palette.gutter("|"));
    let _ = writeln!(
        out,
        "{} {} {prefix}{shown}",
        palette.gutter(&format!("{line_number:>gutter_width$}")),
        palette.gutter("|")
    );
    let marker = if severity == Severity::Hint { "-" } else { "^" };
    let _ = writeln!(
        out,
        "{pad} {} {}{}",
        palette.gutter("|"),
        " ".repeat(caret_col - window_start + offset),
        palette.severity(severity, &marker.repeat(visible_width.max(1)))
    );
}

fn clamp_to_char_boundary(text: &str, offset: TextSize) -> TextSize {
    let mut offset = usize::from(offset).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    TextSize::from(offset as u32)
}

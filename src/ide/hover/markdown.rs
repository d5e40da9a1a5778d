//! A hover [`Document`] as Markdown: CommonMark, with GitHub's tables (which VS Code,
//! Neovim and markdown-mode render).
//!
//! Text is escaped only where CommonMark (or GitHub's strikethrough) would read it as
//! syntax, so that a corpus line reads as it is even in a client that shows the source:
//! `*`, `` ` ``, `[`, `]`, `<` and `~` always; `_` unless it stands between two letters or
//! digits (CommonMark never opens emphasis there); `\` before punctuation or at the end of a
//! piece; `&` where it would start an entity (`&amp;`); `|` in tables; and at the start of a
//! line what would begin a block (`#`, `>`, a list marker, `1.`). `!`, `&` elsewhere, `#`
//! inside a line and the like are left alone.

use super::document::{Block, Document, Inline, Table};

/// `document` as Markdown: its blocks separated by empty lines, each ending with a newline.
pub fn write(document: &Document) -> String {
    let blocks: Vec<String> = document
        .blocks
        .iter()
        .filter_map(|block| {
            let mut out = String::new();
            write_block(&mut out, block);
            (!out.is_empty()).then_some(out)
        })
        .collect();
    blocks.join("\n")
}

fn write_block(out: &mut String, block: &Block) {
    match block {
        Block::Paragraph(inlines) => {
            write_line(out, inlines, true);
            out.push('\n');
        }
        Block::Note(inlines) => {
            out.push('_');
            write_line(out, inlines, false);
            out.push_str("_\n");
        }
        Block::List { heading, items } => {
            if items.is_empty() && heading.is_empty() {
                return;
            }
            if !heading.is_empty() {
                write_line(out, heading, true);
                out.push('\n');
            }
            for item in items {
                out.push_str("- ");
                write_line(out, item, true);
                out.push('\n');
            }
        }
        Block::Code { language, text } => {
            let fence = "`".repeat(longest_run(text, '`').max(2) + 1);
            out.push_str(&format!("{fence}{language}\n{text}\n{fence}\n"));
        }
        Block::Table(table) => write_table(out, table),
    }
}

fn write_table(out: &mut String, table: &Table) {
    let row = |cells: Vec<String>| format!("| {} |\n", cells.join(" | "));
    out.push_str(&row(table
        .header
        .iter()
        .map(|h| escape(h, Place::Cell))
        .collect()));
    out.push_str(&row(table
        .numeric
        .iter()
        .map(|&numeric| if numeric { "---:" } else { "---" }.to_string())
        .collect()));
    for cells in &table.rows {
        out.push_str(&row(cells.iter().map(|c| escape(c, Place::Cell)).collect()));
    }
}

/// Writes a line's inlines; `line_start` when the first of them starts a line.
fn write_line(out: &mut String, inlines: &[Inline], line_start: bool) {
    for (i, inline) in inlines.iter().enumerate() {
        let place = if line_start && i == 0 {
            Place::LineStart
        } else {
            Place::Inline
        };
        match inline {
            Inline::Text(text) => out.push_str(&escape(text, place)),
            Inline::Code(text) => out.push_str(&code(text)),
            Inline::Strong(text) | Inline::Highlight(text) => {
                out.push_str("**");
                out.push_str(&escape(text, Place::Inline));
                out.push_str("**");
            }
            Inline::Emphasis(inner) => {
                out.push('_');
                write_line(out, inner, false);
                out.push('_');
            }
        }
    }
}

/// The longest run of `c` in `text`.
fn longest_run(text: &str, c: char) -> usize {
    text.split(|other| other != c)
        .map(str::len)
        .max()
        .unwrap_or(0)
}

/// `text` as inline code, with a fence longer than any run of backticks inside it.
fn code(text: &str) -> String {
    let text = text.replace(['\n', '\r', '\t'], " ");
    let longest = longest_run(&text, '`');
    let fence = "`".repeat(longest + 1);
    if longest == 0 {
        format!("{fence}{text}{fence}")
    } else {
        format!("{fence} {text} {fence}")
    }
}

/// Where escaped text goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// At the start of a line, where `#`, `>`, `-`, `+` and `1.` begin blocks.
    LineStart,
    Inline,
    /// In a table cell, where `|` ends the cell.
    Cell,
}

/// Whether `&` at the start of `rest` begins an entity or a numeric character reference.
fn starts_entity(rest: &str) -> bool {
    let body: String = rest
        .chars()
        .skip(1)
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '#')
        .collect();
    !body.is_empty() && rest[1 + body.len()..].starts_with(';')
}

/// Escapes `text` for `place` (the module doc says what and why); line breaks and tabs
/// become spaces.
fn escape(text: &str, place: Place) -> String {
    let text = text.replace(['\n', '\r', '\t'], " ");
    let text = if place == Place::LineStart {
        text.trim_start()
    } else {
        &text
    };
    let mut out = String::with_capacity(text.len() + 8);
    if place == Place::LineStart {
        let digits = text.chars().take_while(char::is_ascii_digit).count();
        let mut rest = text[digits..].chars();
        let (marker, after) = (rest.next(), rest.next());
        let ends_marker = after.is_none_or(|c| c == ' ');
        let opens_block = match text.chars().next() {
            Some('#' | '>') => true,
            Some('-') => ends_marker || after == Some('-'),
            Some('+') => ends_marker,
            _ => false,
        };
        if opens_block {
            out.push('\\');
        } else if (1..=9).contains(&digits) && matches!(marker, Some('.' | ')')) && ends_marker {
            out.push_str(&text[..digits]);
            out.push('\\');
            out.push_str(&text[digits..]);
            return escape_inline(&out, place, digits + 1);
        }
    }
    out.push_str(text);
    escape_inline(&out, place, if out.starts_with('\\') { 1 } else { 0 })
}

/// Escapes the inline syntax of `text` from byte `from` on (what comes before is escaped
/// already).
fn escape_inline(text: &str, place: Place, from: usize) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..from]);
    let chars: Vec<(usize, char)> = text[from..]
        .char_indices()
        .map(|(i, c)| (i + from, c))
        .collect();
    for (k, &(at, c)) in chars.iter().enumerate() {
        let previous = k.checked_sub(1).map(|k| chars[k].1);
        let next = chars.get(k + 1).map(|&(_, c)| c);
        let needed = match c {
            '*' | '`' | '[' | ']' | '<' | '~' => true,
            '_' => {
                !(previous.is_some_and(char::is_alphanumeric)
                    && next.is_some_and(char::is_alphanumeric))
            }
            '\\' => next.is_none_or(|c| c.is_ascii_punctuation()),
            '&' => starts_entity(&text[at..]),
            '|' => place == Place::Cell,
            _ => false,
        };
        if needed {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_text_is_escaped_only_where_commonmark_reads_syntax() {
        let escaped = |text| escape(text, Place::Inline);
        // The corpus lines of issue 36: `!` and `&` are text.
        assert_eq!(escaped("last chance! **claim"), r"last chance! \*\*claim");
        assert_eq!(escaped("86888 & claim"), "86888 & claim");
        assert_eq!(escaped("a &amp; b &#38; c"), r"a \&amp; b \&#38; c");
        assert_eq!(escaped("snake_case _emph_"), r"snake_case \_emph\_");
        assert_eq!(escaped(r"a\b c\* d\"), r"a\b c\\\* d\\");
        assert_eq!(
            escaped("[link](x) <b> ~~s~~ `c`"),
            r"\[link\](x) \<b> \~\~s\~\~ \`c\`"
        );
        assert_eq!(
            escaped("# not a heading | 1. no"),
            "# not a heading | 1. no"
        );
        assert_eq!(escape("a | b", Place::Cell), r"a \| b");
    }

    #[test]
    fn what_would_open_a_block_is_escaped_at_a_line_start() {
        let start = |text| escape(text, Place::LineStart);
        assert_eq!(start("# free"), r"\# free");
        assert_eq!(start("> quote"), r"\> quote");
        assert_eq!(start("- item"), r"\- item");
        assert_eq!(start("---"), r"\---");
        assert_eq!(start("+"), r"\+");
        assert_eq!(start("12. item"), r"12\. item");
        assert_eq!(start("3) *x*"), r"3\) \*x\*");
        assert_eq!(start("   -1 degrees"), "-1 degrees");
        assert_eq!(start("2.5 pounds"), "2.5 pounds");
        assert_eq!(start("+44 7700"), "+44 7700");
    }
}

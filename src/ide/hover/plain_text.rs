//! A hover [`Document`] as plain text, for clients that do not render Markdown (Eglot
//! without markdown-mode, Vim's ALE): no `**`, no fences, no escapes. Strong and italic text
//! is written as it is, a highlighted span in brackets (`[won a prize]`), a code block
//! indented by four spaces, list items with `- `, and a table in aligned columns (figures to
//! the right), its widths counted in characters.

use super::document::{Block, Document, Inline, Table};

/// Spaces between two columns of a table.
const COLUMN_GAP: usize = 2;

/// `document` as plain text: its blocks separated by empty lines, each ending with a newline.
pub fn write(document: &Document) -> String {
    let blocks: Vec<String> = document
        .blocks
        .iter()
        .map(write_block)
        .filter(|block| !block.is_empty())
        .collect();
    blocks.join("\n")
}

fn write_block(block: &Block) -> String {
    match block {
        Block::Paragraph(inlines) | Block::Note(inlines) => format!("{}\n", line(inlines)),
        Block::List { heading, items } => {
            let mut out = String::new();
            if !heading.is_empty() {
                out.push_str(&line(heading));
                out.push('\n');
            }
            for item in items {
                out.push_str(&format!("- {}\n", line(item)));
            }
            out
        }
        Block::Code { text, .. } => text.lines().map(|l| format!("    {l}\n")).collect(),
        Block::Table(table) => write_table(table),
    }
}

/// A line's inlines as text.
fn line(inlines: &[Inline]) -> String {
    let mut out = String::new();
    for inline in inlines {
        match inline {
            Inline::Text(text) | Inline::Strong(text) => out.push_str(text),
            Inline::Code(text) => {
                out.push('`');
                out.push_str(text);
                out.push('`');
            }
            Inline::Highlight(text) => {
                out.push('[');
                out.push_str(text);
                out.push(']');
            }
            Inline::Emphasis(inner) => out.push_str(&line(inner)),
        }
    }
    out.replace(['\n', '\r', '\t'], " ")
}

/// The table in columns as wide as their widest cell.
fn write_table(table: &Table) -> String {
    let header: Vec<String> = table.header.iter().map(|h| h.to_string()).collect();
    let rows: Vec<&Vec<String>> = std::iter::once(&header).chain(&table.rows).collect();
    let width = |column: usize| {
        rows.iter()
            .filter_map(|row| row.get(column))
            .map(|cell| cell.chars().count())
            .max()
            .unwrap_or(0)
    };
    let widths: Vec<usize> = (0..header.len()).map(width).collect();
    let mut out = String::new();
    for row in rows {
        let mut cells = String::new();
        for (column, cell) in row.iter().enumerate() {
            let width = widths.get(column).copied().unwrap_or(0);
            let numeric = table.numeric.get(column).copied().unwrap_or(false);
            if column > 0 {
                cells.push_str(&" ".repeat(COLUMN_GAP));
            }
            cells.push_str(&if numeric {
                format!("{cell:>width$}")
            } else {
                format!("{cell:<width$}")
            });
        }
        out.push_str(cells.trim_end());
        out.push('\n');
    }
    out
}

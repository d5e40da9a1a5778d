//! A hover as a small structured document: paragraphs, lists, a code block, tables, made of
//! plain text, inline code, strong text and highlighted spans. `render.rs` builds one from
//! the hover data; `markdown.rs` and `plain_text.rs` write it out, one writer per format
//! (`Document::to_markdown` and `Document::to_plain_text`, in `hover/mod.rs`), so
//! that a client that takes only plain text gets text with no Markdown in it (no `**`, no
//! fences, no escapes, tables laid out in columns) rather than Markdown source.
//!
//! Inline code keeps its backticks in plain text: they quote identifiers and regexes there,
//! as in the diagnostics' messages, which every client shows as plain text.

/// A hover's text, in blocks, each separated from the next by an empty line.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    pub blocks: Vec<Block>,
}

/// A block of a [`Document`].
#[derive(Debug, Clone, PartialEq)]
pub enum Block {
    /// One line of text.
    Paragraph(Vec<Inline>),
    /// A remark set apart from the figures: italic in Markdown.
    Note(Vec<Inline>),
    /// A list under an optional heading line (none when `heading` is empty).
    List {
        heading: Vec<Inline>,
        items: Vec<Vec<Inline>>,
    },
    /// Code in a language, such as a regex of the rules language (`rules`).
    Code {
        language: &'static str,
        text: String,
    },
    Table(Table),
}

/// A table: a header row, then rows of plain-text cells.
#[derive(Debug, Clone, PartialEq)]
pub struct Table {
    pub header: Vec<&'static str>,
    /// Whether each column holds figures, aligned to the right.
    pub numeric: Vec<bool>,
    pub rows: Vec<Vec<String>>,
}

/// A piece of a line.
#[derive(Debug, Clone, PartialEq)]
pub enum Inline {
    /// Text from anywhere (rules, corpora, messages): escaped as Markdown needs.
    Text(String),
    /// Code or an identifier, in backticks.
    Code(String),
    /// Text in bold in Markdown (labels, a title), as it is in plain text.
    Strong(String),
    /// The part of a corpus line a hover is about: bold in Markdown, in brackets in plain
    /// text, where bold is not seen.
    Highlight(String),
    /// Text in italic in Markdown (a note inside a line).
    Emphasis(Vec<Inline>),
}

impl Inline {
    pub fn text(text: impl Into<String>) -> Inline {
        Inline::Text(text.into())
    }

    pub fn code(text: impl Into<String>) -> Inline {
        Inline::Code(text.into())
    }

    pub fn strong(text: impl Into<String>) -> Inline {
        Inline::Strong(text.into())
    }
}

/// Text with identifiers in backticks, as `findings::describe` writes them (names hold no
/// backticks), as inline text and code.
pub fn described(text: &str) -> Vec<Inline> {
    text.split('`')
        .enumerate()
        .filter(|(_, piece)| !piece.is_empty())
        .map(|(i, piece)| {
            if i % 2 == 1 {
                Inline::code(piece)
            } else {
                Inline::text(piece)
            }
        })
        .collect()
}

impl Document {
    pub fn push(&mut self, block: Block) {
        self.blocks.push(block);
    }

    pub fn paragraph(&mut self, inlines: Vec<Inline>) {
        self.push(Block::Paragraph(inlines));
    }
}

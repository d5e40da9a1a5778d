//! Text: byte ranges, line indexes, lossless UTF-8 decoding, the tokenizer that rules and
//! corpora share, and text made safe to show on a terminal.
//!
//! Everything below the LSP layer speaks in byte offsets (`text_size::TextSize`, `TextRange`,
//! as rust-analyzer does); lines and columns exist only in [`LineIndex`].

mod line_index;
mod printable;
mod source;
mod tokenize;

pub use line_index::{LineCol, LineIndex};
pub use printable::printable;
pub use source::{SourceText, open_regular, read_capped};
pub use tokenize::{
    TOKENIZER_VERSION, Token, TokenKind, Tokens, is_number_token, is_unspaced, tokenize,
};

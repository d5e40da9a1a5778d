//! Text: byte ranges, line indexes, lossless UTF-8 decoding and the tokenizer that rules
//! and corpora share.
//!
//! Everything below the LSP layer speaks in byte offsets (`text_size::TextSize`, `TextRange`,
//! as rust-analyzer does); lines and columns exist only in [`LineIndex`].

mod line_index;
mod source;
mod tokenize;

pub use line_index::{LineCol, LineIndex};
pub use source::{SourceText, read_capped};
pub use tokenize::{Token, TokenKind, Tokens, is_number_token, tokenize};

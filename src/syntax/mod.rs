//! Syntax: the `.rules` lexer, parser, syntax tree and name resolution.
//!
//! `parse(text) -> Parse` accepts any text and always returns a tree with diagnostics;
//! `lower(&parse, text) -> (RuleSet, diagnostics)` resolves names. Neither does I/O: word-list
//! files come through a [`WordFiles`] the caller gives `lower_with`.

mod allow;
pub mod ast;
pub(crate) mod lexer;
mod literal;
mod parser;
mod print;
mod rule_set;
mod word_lists;

pub use allow::InlineAllows;
pub use literal::{Literal, classify_literal, spell_token, word_sequence};
pub use parser::{MAX_NESTING, MAX_REPETITION, MAX_STACKED_QUANTIFIERS, Parse, parse};
pub use print::{print_regex, regex_key};
pub use rule_set::{
    CorpusBinding, Formula, LabelDef, LabelId, LabelRule, PatternDef, PatternId, RuleSet,
    WordListDef, WordListFile, lower, lower_with,
};
pub use word_lists::{
    MAX_WORD_LIST_ENTRIES, MAX_WORD_LIST_ENTRY_TOKENS, NoWordFiles, WordFile, WordFiles,
};

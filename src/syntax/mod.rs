//! Syntax: the `.rules` lexer, parser, syntax tree and name resolution.
//!
//! `parse(text) -> Parse` accepts any text and always returns a tree with diagnostics;
//! `lower(&parse, text) -> (RuleSet, diagnostics)` resolves names. Neither does I/O.

mod allow;
pub mod ast;
pub(crate) mod lexer;
mod parser;
mod print;
mod rule_set;

pub use allow::InlineAllows;
pub use parser::{MAX_NESTING, MAX_REPETITION, MAX_STACKED_QUANTIFIERS, Parse, parse};
pub use print::print_regex;
pub use rule_set::{
    CorpusBinding, Formula, LabelDef, LabelId, LabelRule, Literal, PatternDef, PatternId, RuleSet,
    classify_literal, lower, spell_token,
};

//! Editor features on plain types: what the language server shows, computed from rules
//! text, corpora and a trained network, in byte offsets (`text_size`), with no protocol
//! types, no JSON and no async. This is rust-analyzer's `ide` layer: the server only
//! translates these values to LSP and back, and the tests check them without one.
//!
//! Syntax-level features take an analyzed [`RulesFile`](crate::rules_file::RulesFile) and a
//! byte offset: [`document_symbols`], [`definition`], [`references`], [`rename`],
//! [`semantic_tokens`], [`completions`]. They read what the parser recognised, errors
//! included, so they work on the half-typed buffers an editor sends; they take any offset
//! (past the end, inside a multi-byte character) and never panic. Where the syntax tree
//! does not record a position (operators, keywords, the start of a regex), it is found by
//! lexing the statement again with the parser's own lexer, in the modes the parser used, so
//! the two cannot disagree. Each call is linear in the size of the rules file; completion
//! adds a binary search in the corpus' word table.
//!
//! Corpus- and model-level features read what the server computed in the background:
//! [`analyze`] (the rule system on every line of the bound corpora, on save),
//! [`TrainedFaRnn`] (a trained network prepared for the editor; [`TrainedPatterns`] and
//! [`TrainedMvma`] for a SoPa and an MVMA-G; [`MeasuredLines`], the long corpus lines it
//! measured ahead of their hover), the findings and corpus-line
//! diagnostics, hovers ([`hover_rules`], [`hover_line`] and their Markdown), code actions
//! ([`rules_actions`], [`line_actions`], and the suggestion engine's edits:
//! [`rules_suggestion_actions`], [`line_suggestion_actions`]), code lenses and inlay hints.
//!
//! Deliberately not here: LSP types, line/column positions (see `text::LineIndex` and the
//! LSP layer), file I/O (corpora come in parsed), and analyses of languages (`automata`'s).

mod analysis;
mod code_actions;
mod completion;
mod corpus_lines;
mod edit;
mod findings;
mod hover;
mod lens;
mod measured_lines;
mod navigation;
mod outside_workspace;
mod semantic_tokens;
mod suggestions;
mod symbols;
mod trained_fa_rnn;
mod trained_mvma;
mod trained_patterns;

pub use analysis::{Cancelled, CorpusRun, Outcome, PatternKey, RulesAnalysis, analyze};
pub use code_actions::{
    Action, ActionKind, MAX_RULE_NGRAM, line_actions, minimal_edit, rules_actions,
};
pub use completion::{Completion, CompletionKind, MAX_COMPLETIONS, WordFrequencies, completions};
pub use corpus_lines::{
    DEFAULT_MAX_MISCLASSIFIED, corpus_diagnostics, examples_in, lines_diagnostics,
};
pub use edit::{FileEdits, TextEdit, apply};
pub use findings::{
    DEFAULT_CONFLICT_SHARE, DEFAULT_MIN_PRECISION, Finding, FindingsConfig, MIN_EVIDENCE,
    corpus_findings, model_findings, of_previous_save, place,
};
pub use hover::{
    AbsentNetwork, Block, DEFAULT_MAX_EXAMPLES, DEFAULT_MAX_LISTED, DEFAULT_MAX_NGRAM_LEN,
    Document, Figures, HoverConfig, LabelFigures, LabelHover, LineHover, LineNetwork, LogitParts,
    MAX_EXPLAINED_PATTERNS, MatchExample, Miss, MissedPattern, MvmaView, NetworkView,
    NgramContribution, PatternContribution, PatternFigures, PatternHover, PatternScore,
    PatternsView, RegressionParts, RulesHover, SuffixPart, WordListHover, hover_line, hover_rules,
    missed_patterns, mvma_view, patterns_view, render_line_hover, render_rules_hover,
    render_unbound_corpus, training_note, why_missed,
};
pub use lens::{InlayHint, Lens, Measure, Standing, line_hints, pattern_lenses, yardstick_lens};
pub use measured_lines::{MAX_MEASURED_LINES, MEASURED_LINE_BUDGET, MeasuredLine, MeasuredLines};
pub use navigation::{
    NameAt, NameKind, RenameError, definition, name_at, prepare_rename, references, rename,
};
pub use outside_workspace::outside_workspace;
pub use semantic_tokens::{SemanticToken, TokenClass, semantic_tokens};
pub use suggestions::{
    MAX_ACTIONS_PER_PLACE, line_suggestion_actions, rules_suggestion_actions, suggestion_detail,
    suggestion_edit, suggestion_title,
};
pub use symbols::{Symbol, SymbolKind, document_symbols};
pub use trained_fa_rnn::{ReconstructedPattern, TrainedFaRnn, TrainedModelError};
pub use trained_mvma::TrainedMvma;
pub use trained_patterns::TrainedPatterns;

use crate::syntax::ast::{self, FormulaKind, StatementKind};
use crate::syntax::lexer::{Lexeme, LexemeKind, Mode, lex};
use std::collections::HashMap;
use text_size::{TextRange, TextSize};

/// How many characters of a regex or formula a detail shows before it is cut with `…`.
const MAX_DETAIL_CHARS: usize = 60;

fn size(offset: usize) -> TextSize {
    // Rules files are at most 1 GiB (`limits::ReadLimits::CEILING`) and editor buffers
    // 1 GiB (the message cap), so offsets fit.
    TextSize::try_from(offset).unwrap_or(TextSize::from(u32::MAX))
}

/// `offset` clamped to the text and moved back to the start of the character it falls in.
fn clamp_offset(text: &str, offset: TextSize) -> usize {
    let mut offset = usize::from(offset).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The text of `range`, or `""` if it does not lie in `text` on char boundaries.
fn slice(text: &str, range: TextRange) -> &str {
    text.get(std::ops::Range::<usize>::from(range))
        .unwrap_or("")
}

/// `text` cut to [`MAX_DETAIL_CHARS`] characters, with `…` where it was cut.
fn shorten(text: &str) -> String {
    // `cut` comes from `char_indices`, so both slices are on char boundaries.
    match text.char_indices().nth(MAX_DETAIL_CHARS - 1) {
        Some((cut, _)) if text[cut..].chars().nth(1).is_some() => format!("{}…", &text[..cut]),
        _ => text.to_string(),
    }
}

/// One place where a label or pattern name stands in the rules file.
#[derive(Debug, Clone, Copy)]
struct Occurrence<'a> {
    kind: NameKind,
    name: &'a str,
    range: TextRange,
    /// Whether this is a `pattern NAME = …`; labels have no defining statement (see
    /// [`definitions`]).
    defines: bool,
}

/// Every label and pattern name in the file, in file order.
fn occurrences(file: &ast::RuleFile) -> Vec<Occurrence<'_>> {
    let mut res = Vec::new();
    for statement in &file.statements {
        match &statement.kind {
            StatementKind::Default { label: Some(label) } => res.push(label_at(label)),
            StatementKind::Pattern {
                name: Some(name), ..
            } => res.push(Occurrence {
                kind: NameKind::Pattern,
                name: &name.text,
                range: name.range,
                defines: true,
            }),
            StatementKind::LabelRegex { label, .. } => res.push(label_at(label)),
            StatementKind::LabelFormula { label, formula } => {
                res.push(label_at(label));
                if let Some(formula) = formula {
                    formula_names(formula, &mut res);
                }
            }
            StatementKind::Default { label: None } | StatementKind::Pattern { name: None, .. } => {}
            StatementKind::Corpus { .. } => {}
            StatementKind::Words { name, body } => {
                if let Some(name) = name {
                    res.push(Occurrence {
                        kind: NameKind::WordList,
                        name: &name.text,
                        range: name.range,
                        defines: true,
                    });
                }
                if let Some(ast::WordsBody::Inline(regex)) = body {
                    word_list_names(regex, &mut res);
                }
            }
        }
        if let StatementKind::Pattern {
            regex: Some(regex), ..
        }
        | StatementKind::LabelRegex {
            regex: Some(regex), ..
        } = &statement.kind
        {
            word_list_names(regex, &mut res);
        }
    }
    res.sort_by_key(|occurrence| occurrence.range.start());
    res
}

fn label_at(label: &ast::Name) -> Occurrence<'_> {
    Occurrence {
        kind: NameKind::Label,
        name: &label.text,
        range: label.range,
        defines: false,
    }
}

/// The pattern names of a formula, in order. Recursion depth is bounded by the parser's
/// nesting cap (`syntax::MAX_NESTING`).
fn formula_names<'a>(formula: &'a ast::Formula, res: &mut Vec<Occurrence<'a>>) {
    match &formula.kind {
        FormulaKind::Name(name) => res.push(Occurrence {
            kind: NameKind::Pattern,
            name,
            range: formula.range,
            defines: false,
        }),
        FormulaKind::Not(inner) => formula_names(inner, res),
        FormulaKind::And(items) | FormulaKind::Or(items) => {
            items.iter().for_each(|item| formula_names(item, res))
        }
        FormulaKind::Error => {}
    }
}

/// The word lists a regex uses (`@NAME`), the name without its `@`.
fn word_list_names<'a>(regex: &'a ast::Regex, res: &mut Vec<Occurrence<'a>>) {
    regex.visit(&mut |node| {
        if let ast::RegexKind::WordList(reference) = &node.kind {
            res.push(Occurrence {
                kind: NameKind::WordList,
                name: &reference.name,
                range: TextRange::new(node.range.start() + TextSize::from(1), node.range.end()),
                defines: false,
            });
        }
    });
}

/// The definition of each name: a pattern's first `pattern NAME = …`, a word list's first
/// `words NAME …`, a label's first occurrence in the file. A pattern or word list that is
/// used but never defined has none.
fn definitions<'a>(occurrences: &[Occurrence<'a>]) -> HashMap<(NameKind, &'a str), TextRange> {
    let mut res = HashMap::new();
    for occurrence in occurrences {
        if occurrence.kind == NameKind::Label || occurrence.defines {
            res.entry((occurrence.kind, occurrence.name))
                .or_insert(occurrence.range);
        }
    }
    res
}

/// Where the parts of a statement that the tree does not record are.
#[derive(Debug, Clone, Copy, Default)]
struct Layout {
    /// `default`, `corpus`, `pattern` or `words`.
    keyword: Option<TextRange>,
    /// `=`, `:`, `<-`, or `from` in `words NAME from "PATH"`.
    operator: Option<TextRange>,
    /// Where the parser started reading the regex or formula (after the operator), if the
    /// statement has one.
    body_start: Option<usize>,
}

/// Re-lexes the head of `statement` in statement-head mode, exactly as the parser did.
fn layout(text: &str, statement: &ast::Statement) -> Layout {
    let head = |pos: usize| lex(text, pos, Mode::Head);
    let start = usize::from(statement.range.start());
    match &statement.kind {
        StatementKind::Default { .. } | StatementKind::Corpus { .. } => Layout {
            keyword: Some(head(start).range),
            ..Layout::default()
        },
        StatementKind::Pattern { name, regex } => {
            let keyword = head(start).range;
            let after = name.as_ref().map_or(keyword.end(), |name| name.range.end());
            let next = head(usize::from(after));
            let (operator, body_start) = if next.kind == LexemeKind::Equals {
                (Some(next.range), next.range.end())
            } else {
                // `pattern p $* x`: the parser reports the missing `=` and reads the regex.
                (None, after)
            };
            Layout {
                keyword: Some(keyword),
                operator,
                body_start: regex.as_ref().map(|_| usize::from(body_start)),
            }
        }
        StatementKind::Words { name, body } => {
            let keyword = head(start).range;
            let after = name.as_ref().map_or(keyword.end(), |name| name.range.end());
            let next = head(usize::from(after));
            let operator =
                matches!(next.kind, LexemeKind::Equals | LexemeKind::Ident).then_some(next.range);
            let inline = matches!(body, Some(ast::WordsBody::Inline(_)));
            Layout {
                keyword: Some(keyword),
                operator,
                body_start: inline.then(|| usize::from(next.range.end())),
            }
        }
        StatementKind::LabelRegex { label, regex } => {
            let operator = head(usize::from(label.range.end()));
            Layout {
                keyword: None,
                operator: Some(operator.range),
                body_start: regex.as_ref().map(|_| usize::from(operator.range.end())),
            }
        }
        StatementKind::LabelFormula { label, formula } => {
            let operator = head(usize::from(label.range.end()));
            Layout {
                keyword: None,
                operator: Some(operator.range),
                body_start: formula.as_ref().map(|_| usize::from(operator.range.end())),
            }
        }
    }
}

/// The regex or formula of a statement as written, trimmed.
fn body_text<'t>(text: &'t str, statement: &ast::Statement) -> Option<&'t str> {
    match &statement.kind {
        StatementKind::LabelFormula {
            formula: Some(formula),
            ..
        } => Some(slice(text, formula.range).trim()),
        StatementKind::Pattern { regex: Some(_), .. }
        | StatementKind::LabelRegex { regex: Some(_), .. } => {
            let start = layout(text, statement).body_start?;
            // A regex runs to the end of its line, so the statement ends where it does.
            text.get(start..usize::from(statement.range.end()))
                .map(str::trim)
        }
        _ => None,
    }
}

/// The lexemes of a regex that starts at `start`, to the end of its line, in the modes the
/// parser reads them in: regex mode, and brace mode from `{` to `}`.
fn regex_lexemes(text: &str, start: usize) -> Vec<Lexeme> {
    let mut res = Vec::new();
    let mut mode = Mode::Regex;
    let mut pos = start;
    loop {
        let lexeme = lex(text, pos, mode);
        match (mode, lexeme.kind) {
            (_, LexemeKind::Newline | LexemeKind::Eof) => return res,
            (Mode::Regex, LexemeKind::LBrace) => mode = Mode::Brace,
            (Mode::Brace, LexemeKind::RBrace) => mode = Mode::Regex,
            _ => {}
        }
        pos = usize::from(lexeme.range.end());
        res.push(lexeme);
    }
}

#[doc(hidden)]
pub mod testing;

#[cfg(test)]
mod tests;

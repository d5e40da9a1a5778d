//! Where names and tokens stand in a rules file's syntax, in byte offsets: the helpers the
//! syntax-level features (navigation, symbols, semantic tokens, completion) share. Every
//! place a label, pattern or word-list name stands ([`occurrences`], [`definitions`]), a
//! statement's layout ([`layout`], [`body_text`]) and a regex's lexemes
//! ([`regex_lexemes`]), found by lexing the statement again with the parser's own lexer;
//! offsets clamped to the text and its characters. The floor below those features: it
//! imports none of them.

use crate::syntax::ast::{self, FormulaKind, StatementKind};
use crate::syntax::lexer::{Lexeme, LexemeKind, Mode, lex};
use std::collections::HashMap;
use text_size::{TextRange, TextSize};

/// The namespaces of a rules file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameKind {
    Label,
    Pattern,
    WordList,
}

/// How many characters of a regex or formula a detail shows before it is cut with `…`.
const MAX_DETAIL_CHARS: usize = 60;

pub(super) fn size(offset: usize) -> TextSize {
    // Rules files are at most 1 GiB (`limits::ReadLimits::CEILING`) and editor buffers
    // 1 GiB (the message cap), so offsets fit.
    TextSize::try_from(offset).unwrap_or(TextSize::from(u32::MAX))
}

/// `offset` clamped to the text and moved back to the start of the character it falls in.
pub(super) fn clamp_offset(text: &str, offset: TextSize) -> usize {
    let mut offset = usize::from(offset).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}

/// The text of `range`, or `""` if it does not lie in `text` on char boundaries.
pub(super) fn slice(text: &str, range: TextRange) -> &str {
    text.get(std::ops::Range::<usize>::from(range))
        .unwrap_or("")
}

/// `text` cut to [`MAX_DETAIL_CHARS`] characters, with `…` where it was cut.
pub(super) fn shorten(text: &str) -> String {
    // `cut` comes from `char_indices`, so both slices are on char boundaries.
    match text.char_indices().nth(MAX_DETAIL_CHARS - 1) {
        Some((cut, _)) if text[cut..].chars().nth(1).is_some() => format!("{}…", &text[..cut]),
        _ => text.to_string(),
    }
}

/// One place where a label or pattern name stands in the rules file.
#[derive(Debug, Clone, Copy)]
pub(super) struct Occurrence<'a> {
    pub(super) kind: NameKind,
    pub(super) name: &'a str,
    pub(super) range: TextRange,
    /// Whether this is a `pattern NAME = …`; labels have no defining statement (see
    /// [`definitions`]).
    pub(super) defines: bool,
}

/// Every label and pattern name in the file, in file order.
pub(super) fn occurrences(file: &ast::RuleFile) -> Vec<Occurrence<'_>> {
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

pub(super) fn label_at(label: &ast::Name) -> Occurrence<'_> {
    Occurrence {
        kind: NameKind::Label,
        name: &label.text,
        range: label.range,
        defines: false,
    }
}

/// The pattern names of a formula, in order. Recursion depth is bounded by the parser's
/// nesting cap (`syntax::MAX_NESTING`).
pub(super) fn formula_names<'a>(formula: &'a ast::Formula, res: &mut Vec<Occurrence<'a>>) {
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
pub(super) fn word_list_names<'a>(regex: &'a ast::Regex, res: &mut Vec<Occurrence<'a>>) {
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
pub(super) fn definitions<'a>(
    occurrences: &[Occurrence<'a>],
) -> HashMap<(NameKind, &'a str), TextRange> {
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
pub(super) struct Layout {
    /// `default`, `corpus`, `pattern` or `words`.
    pub(super) keyword: Option<TextRange>,
    /// `=`, `:`, `<-`, or `from` in `words NAME from "PATH"`.
    pub(super) operator: Option<TextRange>,
    /// Where the parser started reading the regex or formula (after the operator), if the
    /// statement has one.
    pub(super) body_start: Option<usize>,
}

/// Re-lexes the head of `statement` in statement-head mode, exactly as the parser did.
pub(super) fn layout(text: &str, statement: &ast::Statement) -> Layout {
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
pub(super) fn body_text<'t>(text: &'t str, statement: &ast::Statement) -> Option<&'t str> {
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
pub(super) fn regex_lexemes(text: &str, start: usize) -> Vec<Lexeme> {
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

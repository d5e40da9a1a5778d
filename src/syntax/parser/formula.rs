//! The formulas of `LABEL <- FORMULA` statements: `formula := and ('|' and)*`,
//! `and := not ('&' not)*`, `not := '!' not | NAME | '(' formula ')'`, with the parser's
//! recovery and its cap on nesting (`parser.rs`).

use super::{MAX_NESTING, Parser, at_end, cover, error_formula};
use crate::diagnostic::{Code, Diagnostic};
use crate::syntax::ast::{Formula, FormulaKind};
use crate::syntax::lexer::{LexemeKind, Mode};
use text_size::TextRange;

impl Parser<'_> {
    pub(super) fn formula_body(&mut self) -> Option<Formula> {
        if at_end(self.peek(Mode::Head).kind) {
            self.diagnostics.push(Diagnostic::new(
                Code::MissingOperand,
                self.here(),
                "expected a formula after `<-`",
            ));
            return None;
        }
        let formula = self.formula_or();
        loop {
            let lexeme = self.peek(Mode::Head);
            match lexeme.kind {
                LexemeKind::Newline | LexemeKind::Eof => break,
                LexemeKind::RParen => {
                    self.diagnostics.push(
                        Diagnostic::new(Code::UnmatchedParenthesis, lexeme.range, "unmatched `)`")
                            .with_help("remove it, or open the group with `(`"),
                    );
                    self.bump(lexeme);
                }
                LexemeKind::Unknown => {
                    self.bump(lexeme);
                    self.skip_line();
                    break;
                }
                _ => {
                    self.unexpected("`&`, `|` or end of line", &lexeme);
                    self.skip_line();
                    break;
                }
            }
        }
        Some(formula)
    }

    fn formula_or(&mut self) -> Formula {
        self.formula_list(LexemeKind::Pipe)
    }

    fn formula_list(&mut self, operator: LexemeKind) -> Formula {
        let operand = |parser: &mut Self| {
            if operator == LexemeKind::Pipe {
                parser.formula_list(LexemeKind::Amp)
            } else {
                parser.formula_not()
            }
        };
        let mut items = vec![operand(self)];
        loop {
            let lexeme = self.peek(Mode::Head);
            if lexeme.kind != operator {
                break;
            }
            self.bump(lexeme);
            items.push(operand(self));
        }
        if items.len() == 1 {
            return items.pop().unwrap_or_else(|| error_formula(self.here()));
        }
        let range = cover(&items, |item| item.range);
        let kind = if operator == LexemeKind::Pipe {
            FormulaKind::Or(items)
        } else {
            FormulaKind::And(items)
        };
        Formula { kind, range }
    }

    fn formula_not(&mut self) -> Formula {
        let lexeme = self.peek(Mode::Head);
        match lexeme.kind {
            LexemeKind::Bang | LexemeKind::LParen if self.depth >= MAX_NESTING => {
                let start = lexeme.range.start();
                self.diagnostics.push(Diagnostic::new(
                    Code::NestingTooDeep,
                    lexeme.range,
                    format!("formula nests more than {MAX_NESTING} deep"),
                ));
                let end = self.skip_formula_operand();
                error_formula(TextRange::new(start, end))
            }
            LexemeKind::Bang => {
                let start = lexeme.range.start();
                self.bump(lexeme);
                self.depth += 1;
                let inner = self.formula_not();
                self.depth -= 1;
                let range = TextRange::new(start, inner.range.end().max(start));
                Formula {
                    kind: FormulaKind::Not(Box::new(inner)),
                    range,
                }
            }
            LexemeKind::LParen => {
                let start = lexeme.range.start();
                self.bump(lexeme.clone());
                self.depth += 1;
                let mut inner = self.formula_or();
                self.depth -= 1;
                let close = self.peek(Mode::Head);
                if close.kind == LexemeKind::RParen {
                    inner.range = TextRange::new(start, close.range.end());
                    self.bump(close);
                } else {
                    let end = inner.range.end().max(lexeme.range.end());
                    self.diagnostics.push(
                        Diagnostic::new(Code::UnclosedGroup, lexeme.range, "unclosed group")
                            .with_help("add `)` to close the group")
                            .with_fix("Close the group with `)`", TextRange::empty(end), " )"),
                    );
                }
                inner
            }
            LexemeKind::Ident => {
                let name = self.text[lexeme.range].to_string();
                let range = lexeme.range;
                self.bump(lexeme);
                Formula {
                    kind: FormulaKind::Name(name),
                    range,
                }
            }
            LexemeKind::Newline
            | LexemeKind::Eof
            | LexemeKind::Pipe
            | LexemeKind::Amp
            | LexemeKind::RParen => {
                self.diagnostics.push(Diagnostic::new(
                    Code::MissingOperand,
                    self.here(),
                    "expected a pattern name",
                ));
                error_formula(self.here())
            }
            _ => {
                let range = lexeme.range;
                if lexeme.kind == LexemeKind::Unknown {
                    self.bump(lexeme);
                } else {
                    self.unexpected("a pattern name", &lexeme);
                    self.bump(lexeme);
                }
                error_formula(range)
            }
        }
    }
}

//! Recursive-descent parser for `.rules` files, with error recovery.
//!
//! Grammar (one statement per line, `docs/rules-language.md`):
//! ```text
//! statement := 'default' NAME | 'corpus' NAME STRING | 'pattern' NAME '=' regex
//!            | 'words' NAME ('=' regex | 'from' STRING)
//!            | NAME ':' regex | NAME '<-' formula
//! regex     := concat ('|' concat)*        concat := postfix+
//! postfix   := atom ('*' | '+' | '?' | '{' INT (',' INT)? '}')*
//! atom      := WORD | STRING | '@' NAME | '$' | '%' | '&' | '(' regex ')'
//! formula   := and ('|' and)*   and := not ('&' not)*   not := '!' not | NAME | '(' formula ')'
//! ```
//! Recovery: a line is the unit of synchronisation, so a mistake never hides diagnostics
//! on later lines; inside a line, stray operators, parentheses and unknown characters are
//! reported and skipped, and parsing goes on. Nesting (groups, `!`, stacked quantifiers) is
//! capped ([`MAX_NESTING`], [`MAX_STACKED_QUANTIFIERS`]) so that no input can overflow the stack, and repetition counts
//! at [`MAX_REPETITION`]. Linear in the input apart from peeks, which re-lex one lexeme.
//!
//! Comments are not in the tree; [`Parse::comments`] lists where they are, found where the
//! parser itself skipped them as trivia (so `#` inside a quoted literal, or swallowed by an
//! unexpected run of characters, is not a comment), for editor features. The rest of a line
//! skipped after an error is lexed again, in the statement-head mode the parser was in, only
//! to find its comment: one more pass over that part of the line.
//!
//! `parser/formula.rs` parses the formulas of `LABEL <- FORMULA` statements.

use super::ast::{
    Formula, FormulaKind, Name, Regex, RegexKind, RuleFile, Statement, StatementKind,
    StringLiteral, WordListRef, WordsBody,
};
use super::lexer::{Lexeme, LexemeKind, Mode, comment_at, lex, line_end, skip_trivia};
use super::literal::word_sequence;
use crate::diagnostic::{Code, Diagnostic};
use text_size::{TextRange, TextSize};

mod formula;

/// How deeply groups, negations and stacked quantifiers may nest.
pub const MAX_NESTING: u32 = 64;

/// How many quantifiers may follow one atom (`x?*` is two).
pub const MAX_STACKED_QUANTIFIERS: u32 = 8;

/// The largest count allowed in `x{m,n}`.
pub const MAX_REPETITION: u32 = 1000;

/// A syntax tree and the problems found while building it.
#[derive(Debug, Clone, Default)]
pub struct Parse {
    pub file: RuleFile,
    pub diagnostics: Vec<Diagnostic>,
    /// Every comment, from its `#` to the end of its line (a `\r` before the `\n` excluded),
    /// in order.
    pub comments: Vec<TextRange>,
}

/// Parses a `.rules` file. Accepts any text, never panics, always returns a tree.
///
/// ```
/// let parse = rulelens::syntax::parse("default ham\nspam: $* ( won | win ) $*\n");
/// assert!(parse.diagnostics.is_empty());
/// assert_eq!(parse.file.statements.len(), 2);
/// ```
pub fn parse(text: &str) -> Parse {
    let mut parser = Parser {
        text,
        pos: 0,
        depth: 0,
        diagnostics: Vec::new(),
        comments: Vec::new(),
        skipped_from: None,
    };
    let mut file = RuleFile::default();
    loop {
        let lexeme = parser.peek(Mode::Head);
        match lexeme.kind {
            LexemeKind::Eof => {
                parser.note_comment();
                break;
            }
            LexemeKind::Newline => {
                parser.note_comment();
                parser.bump(lexeme);
            }
            _ => match parser.statement() {
                Some(statement) => {
                    file.statements.push(statement);
                    parser.end_of_line();
                }
                // Not a statement at all: already reported; the rest of the line is noise.
                None => parser.skip_line(),
            },
        }
    }
    Parse {
        file,
        diagnostics: parser.diagnostics,
        comments: parser.comments,
    }
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
    depth: u32,
    diagnostics: Vec<Diagnostic>,
    comments: Vec<TextRange>,
    /// Where [`Parser::skip_line`] first jumped from on the current line.
    skipped_from: Option<usize>,
}

fn at_end(kind: LexemeKind) -> bool {
    matches!(kind, LexemeKind::Newline | LexemeKind::Eof)
}

impl Parser<'_> {
    fn peek(&self, mode: Mode) -> Lexeme {
        lex(self.text, self.pos, mode)
    }

    fn bump(&mut self, lexeme: Lexeme) {
        self.pos = usize::from(lexeme.range.end());
        self.diagnostics.extend(lexeme.diagnostics);
    }

    /// An empty range at the next lexeme, for "expected …" diagnostics.
    fn here(&self) -> TextRange {
        TextRange::empty(TextSize::from(skip_trivia(self.text, self.pos) as u32))
    }

    fn found(&self, lexeme: &Lexeme) -> String {
        match lexeme.kind {
            LexemeKind::Ident
            | LexemeKind::Word
            | LexemeKind::WordListRef
            | LexemeKind::Int
            | LexemeKind::Unknown => {
                format!("`{}`", &self.text[lexeme.range])
            }
            kind => kind.describe().to_string(),
        }
    }

    fn unexpected(&mut self, expected: &str, lexeme: &Lexeme) {
        let found = self.found(lexeme);
        self.diagnostics.push(Diagnostic::new(
            Code::UnexpectedToken,
            lexeme.range,
            format!("expected {expected}, found {found}"),
        ));
    }

    fn skip_line(&mut self) {
        self.skipped_from.get_or_insert(self.pos);
        self.pos = line_end(self.text, self.pos);
    }

    /// Records the comment of the line that ends at the next lexeme (a newline or the end of
    /// the text), if it has one.
    fn note_comment(&mut self) {
        let mut pos = match self.skipped_from.take() {
            // What `skip_line` jumped over is lexed as the parser would have lexed it.
            Some(from) => from,
            // Only trivia lies between the last lexeme and the end of the line.
            None => self.pos,
        };
        loop {
            if let Some(comment) = comment_at(self.text, pos) {
                self.comments.push(comment);
                return;
            }
            let lexeme = lex(self.text, pos, Mode::Head);
            if at_end(lexeme.kind) {
                return;
            }
            pos = usize::from(lexeme.range.end());
        }
    }

    /// Consumes what is left of the line, reporting its first lexeme if there is one.
    fn end_of_line(&mut self) {
        let lexeme = self.peek(Mode::Head);
        if !at_end(lexeme.kind) {
            let found = self.found(&lexeme);
            let code = if lexeme.kind == LexemeKind::RParen {
                Code::UnmatchedParenthesis
            } else {
                Code::UnexpectedToken
            };
            let message = format!("expected end of line, found {found}");
            self.diagnostics
                .push(Diagnostic::new(code, lexeme.range, message));
            self.skip_line();
        }
    }

    fn statement(&mut self) -> Option<Statement> {
        let first = self.peek(Mode::Head);
        let start = first.range.start();
        if first.kind == LexemeKind::Unknown {
            // Its own diagnostic (E0101) says what is wrong.
            self.bump(first);
            return None;
        }
        if first.kind != LexemeKind::Ident {
            let found = self.found(&first);
            self.diagnostics.push(
                Diagnostic::new(
                    Code::ExpectedStatement,
                    first.range,
                    format!("expected a statement, found {found}"),
                )
                .with_help(STATEMENT_HELP),
            );
            self.bump(first);
            return None;
        }
        let name = Name {
            text: self.text[first.range].to_string(),
            range: first.range,
        };
        self.bump(first);
        let second = self.peek(Mode::Head);
        let kind = match second.kind {
            LexemeKind::Colon => {
                self.bump(second);
                let regex = self.regex_body("`:`");
                StatementKind::LabelRegex { label: name, regex }
            }
            LexemeKind::Arrow => {
                self.bump(second);
                let formula = self.formula_body();
                StatementKind::LabelFormula {
                    label: name,
                    formula,
                }
            }
            _ if name.text == "default" => {
                let label = self.name("a label");
                StatementKind::Default { label }
            }
            _ if name.text == "corpus" => {
                let corpus = self.name("a corpus name such as `train`");
                let path = self.string("a quoted path");
                StatementKind::Corpus { name: corpus, path }
            }
            _ if name.text == "pattern" => {
                let pattern = self.name("a pattern name");
                let equals = self.peek(Mode::Head);
                if equals.kind == LexemeKind::Equals {
                    self.bump(equals);
                } else {
                    // `pattern p $* x $*`: the regex is still parsed, for its diagnostics.
                    self.unexpected("`=`", &equals);
                }
                let regex = self.regex_body("`=`");
                StatementKind::Pattern {
                    name: pattern,
                    regex,
                }
            }
            _ if name.text == "words" => {
                let list = self.name("a word list name");
                let next = self.peek(Mode::Head);
                let body = match next.kind {
                    LexemeKind::Equals => {
                        self.bump(next);
                        self.regex_body("`=`").map(WordsBody::Inline)
                    }
                    LexemeKind::Ident if &self.text[next.range] == "from" => {
                        self.bump(next);
                        self.string("a quoted path").map(WordsBody::File)
                    }
                    _ => {
                        self.unexpected("`=` or `from`", &next);
                        None
                    }
                };
                StatementKind::Words { name: list, body }
            }
            _ => {
                let found = self.found(&second);
                self.diagnostics.push(
                    Diagnostic::new(
                        Code::ExpectedStatement,
                        if at_end(second.kind) {
                            name.range
                        } else {
                            second.range
                        },
                        format!(
                            "expected `:` or `<-` after label `{}`, found {found}",
                            name.text
                        ),
                    )
                    .with_help(STATEMENT_HELP),
                );
                return None;
            }
        };
        let end = TextSize::from(self.pos as u32).max(start);
        Some(Statement {
            kind,
            range: TextRange::new(start, end),
        })
    }

    fn name(&mut self, expected: &str) -> Option<Name> {
        let lexeme = self.peek(Mode::Head);
        if lexeme.kind == LexemeKind::Ident {
            let name = Name {
                text: self.text[lexeme.range].to_string(),
                range: lexeme.range,
            };
            self.bump(lexeme);
            Some(name)
        } else {
            self.unexpected(expected, &lexeme);
            None
        }
    }

    fn string(&mut self, expected: &str) -> Option<StringLiteral> {
        let lexeme = self.peek(Mode::Head);
        if lexeme.kind == LexemeKind::String {
            let literal = StringLiteral {
                value: lexeme.value.clone(),
                range: lexeme.range,
            };
            self.bump(lexeme);
            Some(literal)
        } else {
            self.unexpected(expected, &lexeme);
            None
        }
    }

    // ----- regular expressions -----

    fn regex_body(&mut self, after: &str) -> Option<Regex> {
        if at_end(self.peek(Mode::Regex).kind) {
            self.diagnostics.push(Diagnostic::new(
                Code::MissingOperand,
                self.here(),
                format!("expected a regular expression after {after}"),
            ));
            return None;
        }
        Some(self.regex_alt())
    }

    fn regex_alt(&mut self) -> Regex {
        let mut branches = vec![self.regex_concat(false)];
        loop {
            let lexeme = self.peek(Mode::Regex);
            if lexeme.kind != LexemeKind::Pipe {
                break;
            }
            self.bump(lexeme);
            branches.push(self.regex_concat(true));
        }
        if branches.len() == 1 {
            branches.pop().unwrap_or_else(|| error_regex(self.here()))
        } else {
            let range = cover(&branches, |b| b.range);
            Regex {
                kind: RegexKind::Alt(branches),
                range,
            }
        }
    }

    fn regex_concat(&mut self, after_pipe: bool) -> Regex {
        let mut items = Vec::new();
        loop {
            let lexeme = self.peek(Mode::Regex);
            match lexeme.kind {
                LexemeKind::Word
                | LexemeKind::WordListRef
                | LexemeKind::String
                | LexemeKind::Dollar
                | LexemeKind::Percent
                | LexemeKind::Amp
                | LexemeKind::LParen => {
                    let (atom, range) = self.regex_atom();
                    items.push(self.regex_postfix(atom, range));
                }
                LexemeKind::Star | LexemeKind::Plus | LexemeKind::Question | LexemeKind::LBrace => {
                    let range = if lexeme.kind == LexemeKind::LBrace {
                        self.bump(lexeme.clone());
                        let end = self.skip_braces();
                        TextRange::new(lexeme.range.start(), end)
                    } else {
                        let range = lexeme.range;
                        self.bump(lexeme);
                        range
                    };
                    let quantifier = &self.text[range];
                    self.diagnostics.push(
                        Diagnostic::new(
                            Code::MissingOperand,
                            range,
                            format!("`{quantifier}` has nothing to repeat"),
                        )
                        .with_help("a quantifier follows what it repeats, as in `$*`"),
                    );
                }
                LexemeKind::RParen if self.depth == 0 => {
                    self.diagnostics.push(
                        Diagnostic::new(Code::UnmatchedParenthesis, lexeme.range, "unmatched `)`")
                            .with_help("remove it, or open the group with `(`"),
                    );
                    self.bump(lexeme);
                }
                LexemeKind::RBrace => {
                    self.unexpected("a regular expression", &lexeme);
                    self.bump(lexeme);
                }
                LexemeKind::Unknown => self.bump(lexeme),
                LexemeKind::Pipe
                | LexemeKind::RParen
                | LexemeKind::Newline
                | LexemeKind::Eof
                | LexemeKind::Ident
                | LexemeKind::Int
                | LexemeKind::Colon
                | LexemeKind::Arrow
                | LexemeKind::Equals
                | LexemeKind::Comma
                | LexemeKind::Bang => break,
            }
        }
        match items.len() {
            0 => {
                let next = self.peek(Mode::Regex).kind;
                let (message, help) = if after_pipe || next == LexemeKind::Pipe {
                    ("empty alternative", "use `x?` to make `x` optional")
                } else if next == LexemeKind::RParen {
                    (
                        "empty group",
                        "put a regular expression inside the parentheses",
                    )
                } else {
                    ("expected a regular expression", "")
                };
                let mut diagnostic = Diagnostic::new(Code::MissingOperand, self.here(), message);
                if !help.is_empty() {
                    diagnostic = diagnostic.with_help(help);
                }
                self.diagnostics.push(diagnostic);
                error_regex(self.here())
            }
            1 => items.pop().unwrap_or_else(|| error_regex(self.here())),
            _ => {
                let range = cover(&items, |item| item.range);
                Regex {
                    kind: RegexKind::Concat(items),
                    range,
                }
            }
        }
    }

    /// An atom and the range it spans, parentheses included.
    fn regex_atom(&mut self) -> (Regex, TextRange) {
        let lexeme = self.peek(Mode::Regex);
        let range = lexeme.range;
        let kind = match lexeme.kind {
            // Written without spaces, several tokens: their sequence.
            LexemeKind::Word => match word_sequence(&self.text[range], range) {
                Some(words) => RegexKind::Concat(words),
                None => RegexKind::Word(self.text[range].to_string()),
            },
            LexemeKind::WordListRef => RegexKind::WordList(WordListRef {
                name: self.text[range][1..].to_string(),
                list: None,
            }),
            // What an unterminated string swallowed is not a literal the user meant.
            LexemeKind::String
                if lexeme
                    .diagnostics
                    .iter()
                    .any(|d| d.code == Code::UnterminatedString) =>
            {
                RegexKind::Error
            }
            LexemeKind::String => RegexKind::Quoted(lexeme.value.clone()),
            LexemeKind::Dollar => RegexKind::Any,
            LexemeKind::Percent => RegexKind::Number,
            LexemeKind::Amp => RegexKind::Punct,
            _ => return self.regex_group(),
        };
        self.bump(lexeme);
        (Regex { kind, range }, range)
    }

    fn regex_group(&mut self) -> (Regex, TextRange) {
        let open = self.peek(Mode::Regex);
        let start = open.range.start();
        if self.depth >= MAX_NESTING {
            self.bump(open);
            let end = self.skip_group();
            let range = TextRange::new(start, end);
            self.diagnostics.push(
                Diagnostic::new(
                    Code::NestingTooDeep,
                    TextRange::at(start, TextSize::from(1)),
                    format!("groups nest more than {MAX_NESTING} deep"),
                )
                .with_help("flatten the regular expression"),
            );
            return (error_regex(range), range);
        }
        self.bump(open.clone());
        self.depth += 1;
        let inner = self.regex_alt();
        self.depth -= 1;
        let close = self.peek(Mode::Regex);
        let end = if close.kind == LexemeKind::RParen {
            let end = close.range.end();
            self.bump(close);
            end
        } else {
            let end = inner.range.end().max(open.range.end());
            self.diagnostics.push(
                Diagnostic::new(Code::UnclosedGroup, open.range, "unclosed group")
                    .with_help("add `)` to close the group")
                    .with_fix("Close the group with `)`", TextRange::empty(end), " )"),
            );
            end
        };
        (inner, TextRange::new(start, end))
    }

    /// Skips to after the `)` matching an already consumed `(`, or to the end of the line.
    fn skip_group(&mut self) -> TextSize {
        let mut open = 1u32;
        loop {
            let lexeme = self.peek(Mode::Regex);
            match lexeme.kind {
                LexemeKind::Newline | LexemeKind::Eof => return TextSize::from(self.pos as u32),
                LexemeKind::LParen => open += 1,
                LexemeKind::RParen => open -= 1,
                _ => {}
            }
            let end = lexeme.range.end();
            // Diagnostics inside a group too deep to parse would only repeat the problem.
            self.pos = usize::from(end);
            if open == 0 {
                return end;
            }
        }
    }

    /// Skips one formula operand (`!`s, then a name or a balanced group) without
    /// reporting what is inside; returns where it ends.
    fn skip_formula_operand(&mut self) -> TextSize {
        let mut open = 0u32;
        loop {
            let lexeme = self.peek(Mode::Head);
            match lexeme.kind {
                LexemeKind::Newline | LexemeKind::Eof => break,
                LexemeKind::LParen => open += 1,
                LexemeKind::RParen if open == 0 => break,
                LexemeKind::RParen => open -= 1,
                LexemeKind::Bang => {}
                _ if open == 0 => {
                    self.pos = usize::from(lexeme.range.end());
                    break;
                }
                _ => {}
            }
            self.pos = usize::from(lexeme.range.end());
            if open == 0 && lexeme.kind == LexemeKind::RParen {
                break;
            }
        }
        TextSize::from(self.pos as u32)
    }

    /// Skips the inside of `{…}` after the `{`, through `}` if present on the line.
    fn skip_braces(&mut self) -> TextSize {
        loop {
            let lexeme = self.peek(Mode::Brace);
            match lexeme.kind {
                LexemeKind::Newline | LexemeKind::Eof => return TextSize::from(self.pos as u32),
                LexemeKind::RBrace => {
                    let end = lexeme.range.end();
                    self.pos = usize::from(end);
                    return end;
                }
                _ => self.pos = usize::from(lexeme.range.end()),
            }
        }
    }

    fn regex_postfix(&mut self, mut regex: Regex, mut range: TextRange) -> Regex {
        let mut stacked = 0;
        loop {
            let lexeme = self.peek(Mode::Regex);
            let (min, max) = match lexeme.kind {
                LexemeKind::Star => (0, None),
                LexemeKind::Plus => (1, None),
                LexemeKind::Question => (0, Some(1)),
                LexemeKind::LBrace => {
                    self.bump(lexeme.clone());
                    match self.repetition(lexeme.range.start()) {
                        Ok((min, max, end)) => {
                            range = TextRange::new(range.start(), end);
                            regex = self.repeat(regex, range, min, max, &mut stacked);
                        }
                        // The repeated part's meaning is unclear: it matches nothing.
                        Err(end) => {
                            range = TextRange::new(range.start(), end);
                            regex = error_regex(range);
                        }
                    }
                    continue;
                }
                _ => return regex,
            };
            range = TextRange::new(range.start(), lexeme.range.end());
            self.bump(lexeme);
            regex = self.repeat(regex, range, min, max, &mut stacked);
        }
    }

    fn repeat(
        &mut self,
        inner: Regex,
        range: TextRange,
        min: u32,
        max: Option<u32>,
        stacked: &mut u32,
    ) -> Regex {
        *stacked += 1;
        if *stacked > MAX_STACKED_QUANTIFIERS {
            if *stacked == MAX_STACKED_QUANTIFIERS + 1 {
                self.diagnostics.push(Diagnostic::new(
                    Code::NestingTooDeep,
                    range,
                    format!("more than {MAX_STACKED_QUANTIFIERS} quantifiers in a row"),
                ));
            }
            return inner;
        }
        Regex {
            kind: RegexKind::Repeat {
                inner: Box::new(inner),
                min,
                max,
            },
            range,
        }
    }

    /// Parses `m}` or `m,n}` after `{`; on error reports it, skips to `}` and returns where
    /// the skipped part ends.
    fn repetition(&mut self, open: TextSize) -> Result<(u32, Option<u32>, TextSize), TextSize> {
        let fail = |parser: &mut Self, message: String, help: &str| {
            let end = parser.skip_braces();
            parser.diagnostics.push(
                Diagnostic::new(Code::InvalidRepetition, TextRange::new(open, end), message)
                    .with_help(help.to_string()),
            );
            Err(end)
        };
        let min_lexeme = self.peek(Mode::Brace);
        if min_lexeme.kind != LexemeKind::Int {
            return fail(
                self,
                "expected a count after `{`".into(),
                "a repetition is `{m}` or `{m,n}`",
            );
        }
        let min = parse_count(&self.text[min_lexeme.range]);
        self.bump(min_lexeme);
        let next = self.peek(Mode::Brace);
        let max = match next.kind {
            LexemeKind::RBrace => Some(min),
            LexemeKind::Comma => {
                self.bump(next);
                let max_lexeme = self.peek(Mode::Brace);
                if max_lexeme.kind != LexemeKind::Int {
                    return fail(
                        self,
                        "expected an upper bound after `,`".into(),
                        "write `x{m} x*` for \"at least m\"",
                    );
                }
                let max = parse_count(&self.text[max_lexeme.range]);
                self.bump(max_lexeme);
                Some(max)
            }
            _ => {
                return fail(
                    self,
                    "expected `,` or `}`".into(),
                    "a repetition is `{m}` or `{m,n}`",
                );
            }
        };
        let close = self.peek(Mode::Brace);
        if close.kind != LexemeKind::RBrace {
            return fail(
                self,
                "expected `}`".into(),
                "a repetition is `{m}` or `{m,n}`",
            );
        }
        let end = close.range.end();
        self.bump(close);
        let range = TextRange::new(open, end);
        let too_large = min.max(max.unwrap_or(0)) > MAX_REPETITION;
        if too_large || max.is_some_and(|max| max < min) {
            let message = if too_large {
                format!("repetition count larger than {MAX_REPETITION}")
            } else {
                "the upper bound is smaller than the lower bound".to_string()
            };
            self.diagnostics
                .push(Diagnostic::new(Code::InvalidRepetition, range, message));
            return Err(end);
        }
        Ok((min, max, end))
    }
}

const STATEMENT_HELP: &str = "a statement is `default LABEL`, `corpus NAME \"PATH\"`, `pattern NAME = REGEX`, `words NAME = ( WORD | … )`, `words NAME from \"PATH\"`, `LABEL: REGEX` or `LABEL <- FORMULA`";

fn error_regex(range: TextRange) -> Regex {
    Regex {
        kind: RegexKind::Error,
        range,
    }
}

fn error_formula(range: TextRange) -> Formula {
    Formula {
        kind: FormulaKind::Error,
        range,
    }
}

fn cover<T>(items: &[T], range: impl Fn(&T) -> TextRange) -> TextRange {
    let start = items.first().map(&range).unwrap_or_default().start();
    let end = items
        .iter()
        .map(range)
        .map(|r| r.end())
        .max()
        .unwrap_or(start);
    TextRange::new(start, end.max(start))
}

fn parse_count(digits: &str) -> u32 {
    digits.parse().unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_end_with_lf_crlf_or_a_lone_cr() {
        for text in [
            "default ham # a\nspam: $* x $*\nham: $* \"y\" $*\n",
            "default ham # a\r\nspam: $* x $*\r\nham: $* \"y\" $*\r\n",
            "default ham # a\rspam: $* x $*\rham: $* \"y\" $*\r",
        ] {
            let parse = parse(text);
            assert!(
                parse.diagnostics.is_empty(),
                "{text:?}: {:?}",
                parse.diagnostics
            );
            assert_eq!(parse.file.statements.len(), 3, "{text:?}");
            assert_eq!(&text[parse.comments[0]], "# a", "{text:?}");
        }
    }
}

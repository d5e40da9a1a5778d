//! The `.rules` lexer: one lexeme at a time, in the mode the parser asks for.
//!
//! The language is context-sensitive at the lexical level: `&` is a conjunction in a
//! formula and the punctuation class in a regex, and `can't` or `1,000` are words in a
//! regex but not identifiers. The parser therefore asks for the next lexeme in a [`Mode`];
//! lexing is pure (a lexeme carries its own diagnostics, which the parser keeps only when
//! it consumes the lexeme), so peeking twice is harmless. Lexemes never cross a newline.
//! `#` starts a comment anywhere outside a quoted literal.

use crate::diagnostic::{Code, Diagnostic};
use text_size::{TextRange, TextSize};

/// Which lexical grammar applies at the current position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Statement heads and formulas: identifiers, `:`, `<-`, `=`, `!`, `&`, `|`, parentheses,
    /// strings.
    Head,
    /// Regular expressions: words, strings, `$ % & * + ? ( ) | {`.
    Regex,
    /// Inside `{…}`: integers, `,`, `}`.
    Brace,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LexemeKind {
    Ident,
    Word,
    /// `@NAME` in a regex: a word list.
    WordListRef,
    String,
    Int,
    Colon,
    Arrow,
    Equals,
    Dollar,
    Percent,
    Amp,
    Star,
    Plus,
    Question,
    LBrace,
    RBrace,
    Comma,
    LParen,
    RParen,
    Pipe,
    Bang,
    Unknown,
    Newline,
    Eof,
}

impl LexemeKind {
    /// How a lexeme of this kind is described in "expected …, found …" messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            LexemeKind::Ident => "a name",
            LexemeKind::Word => "a word",
            LexemeKind::WordListRef => "a word list",
            LexemeKind::String => "a string",
            LexemeKind::Int => "a number",
            LexemeKind::Colon => "`:`",
            LexemeKind::Arrow => "`<-`",
            LexemeKind::Equals => "`=`",
            LexemeKind::Dollar => "`$`",
            LexemeKind::Percent => "`%`",
            LexemeKind::Amp => "`&`",
            LexemeKind::Star => "`*`",
            LexemeKind::Plus => "`+`",
            LexemeKind::Question => "`?`",
            LexemeKind::LBrace => "`{`",
            LexemeKind::RBrace => "`}`",
            LexemeKind::Comma => "`,`",
            LexemeKind::LParen => "`(`",
            LexemeKind::RParen => "`)`",
            LexemeKind::Pipe => "`|`",
            LexemeKind::Bang => "`!`",
            LexemeKind::Unknown => "an unexpected character",
            LexemeKind::Newline => "end of line",
            LexemeKind::Eof => "end of file",
        }
    }
}

#[derive(Debug, Clone)]
pub(crate) struct Lexeme {
    pub(crate) kind: LexemeKind,
    pub(crate) range: TextRange,
    /// The decoded value of a string.
    pub(crate) value: String,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_continue(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// Characters that end a bare word in a regex.
fn ends_word(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c,
            '$' | '%' | '&' | '*' | '+' | '?' | '(' | ')' | '{' | '}' | '|' | '"' | '#'
        )
}

fn range(start: usize, end: usize) -> TextRange {
    TextRange::new(TextSize::from(start as u32), TextSize::from(end as u32))
}

/// Where the line that `pos` is on ends: at its `\n`, the `\r` of its `\r\n`, its lone
/// `\r` (lines end as LSP counts them), or the end of the text.
pub(crate) fn line_end(text: &str, pos: usize) -> usize {
    text[pos..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| pos + i)
}

/// Whether a line ends at byte `pos`: a `\n`, or a `\r` not followed by `\n` (the `\r` of a
/// `\r\n` is trivia before its `\n`).
fn is_line_break(bytes: &[u8], pos: usize) -> bool {
    match bytes.get(pos) {
        Some(b'\n') => true,
        Some(b'\r') => bytes.get(pos + 1) != Some(&b'\n'),
        _ => false,
    }
}

/// Skips spaces and a comment from `pos`; returns the position of the next lexeme.
pub(crate) fn skip_trivia(text: &str, mut pos: usize) -> usize {
    let bytes = text.as_bytes();
    loop {
        if is_line_break(bytes, pos) {
            return pos;
        }
        match bytes.get(pos) {
            None => return pos,
            Some(b'#') => {
                let end = line_end(text, pos);
                // Past the `\r` of a `\r\n`: its `\n` ends the line.
                return if bytes.get(end) == Some(&b'\r') && !is_line_break(bytes, end) {
                    end + 1
                } else {
                    end
                };
            }
            Some(_) => {
                let c = text[pos..].chars().next().unwrap_or('\n');
                // A byte-order mark is trivia too (editors on Windows write one).
                if (c.is_whitespace() && c != '\n') || c == '\u{feff}' {
                    pos += c.len_utf8();
                } else {
                    return pos;
                }
            }
        }
    }
}

/// The comment in the trivia at `pos`, if any: from its `#` to the end of the line, a `\r`
/// before the `\n` excluded.
pub(crate) fn comment_at(text: &str, pos: usize) -> Option<TextRange> {
    let rest = text.get(pos..)?;
    // The spaces [`skip_trivia`] skips, then `#`.
    let offset =
        rest.find(|c: char| !((c.is_whitespace() && c != '\n' && c != '\r') || c == '\u{feff}'))?;
    let start = pos + offset;
    if !rest[offset..].starts_with('#') {
        return None;
    }
    Some(range(start, line_end(text, start)))
}

/// The lexeme at `pos` (after trivia) in `mode`.
pub(crate) fn lex(text: &str, pos: usize, mode: Mode) -> Lexeme {
    let start = skip_trivia(text, pos);
    let rest = &text[start..];
    let Some(c) = rest.chars().next() else {
        return simple(LexemeKind::Eof, start, start);
    };
    let one = |kind| simple(kind, start, start + c.len_utf8());
    match (mode, c) {
        (_, '\n' | '\r') => one(LexemeKind::Newline),
        (Mode::Head | Mode::Regex, '"') => lex_string(text, start),
        (Mode::Head | Mode::Regex, '(') => one(LexemeKind::LParen),
        (Mode::Head | Mode::Regex, ')') => one(LexemeKind::RParen),
        (Mode::Head | Mode::Regex, '|') => one(LexemeKind::Pipe),
        (Mode::Head | Mode::Regex, '&') => one(LexemeKind::Amp),
        (Mode::Head, ':') => one(LexemeKind::Colon),
        (Mode::Head, '=') => one(LexemeKind::Equals),
        (Mode::Head, '!') => one(LexemeKind::Bang),
        (Mode::Head, '<') if rest.starts_with("<-") => simple(LexemeKind::Arrow, start, start + 2),
        (Mode::Head, c) if is_ident_start(c) => {
            let len = rest
                .char_indices()
                .find(|&(_, c)| !is_ident_continue(c))
                .map_or(rest.len(), |(i, _)| i);
            simple(LexemeKind::Ident, start, start + len)
        }
        (Mode::Regex, '@') => match rest[1..].chars().next() {
            Some(c) if is_ident_start(c) => {
                let len = rest[1..]
                    .char_indices()
                    .find(|&(_, c)| !is_ident_continue(c))
                    .map_or(rest.len() - 1, |(i, _)| i);
                simple(LexemeKind::WordListRef, start, start + 1 + len)
            }
            _ => {
                let mut lexeme = one(LexemeKind::Unknown);
                lexeme.diagnostics.push(
                    Diagnostic::new(
                        Code::UnexpectedCharacter,
                        lexeme.range,
                        "`@` not followed by a word list's name",
                    )
                    .with_help("`@NAME` uses a word list (`words NAME = ( … )`); to match the token `@`, quote it: `\"@\"`"),
                );
                lexeme
            }
        },
        (Mode::Regex, '$') => one(LexemeKind::Dollar),
        (Mode::Regex, '%') => one(LexemeKind::Percent),
        (Mode::Regex, '*') => one(LexemeKind::Star),
        (Mode::Regex, '+') => one(LexemeKind::Plus),
        (Mode::Regex, '?') => one(LexemeKind::Question),
        (Mode::Regex, '{') => one(LexemeKind::LBrace),
        (Mode::Regex | Mode::Brace, '}') => one(LexemeKind::RBrace),
        (Mode::Regex, _) => {
            let len = rest
                .char_indices()
                .find(|&(_, c)| ends_word(c))
                .map_or(rest.len(), |(i, _)| i);
            simple(LexemeKind::Word, start, start + len)
        }
        (Mode::Brace, ',') => one(LexemeKind::Comma),
        (Mode::Brace, c) if c.is_ascii_digit() => {
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            simple(LexemeKind::Int, start, start + len)
        }
        _ => lex_unknown(text, start, mode),
    }
}

fn simple(kind: LexemeKind, start: usize, end: usize) -> Lexeme {
    Lexeme {
        kind,
        range: range(start, end),
        value: String::new(),
        diagnostics: Vec::new(),
    }
}

/// Whether a lexeme other than [`LexemeKind::Unknown`] starts at the beginning of `rest`.
fn starts_lexeme(rest: &str, mode: Mode) -> bool {
    let Some(c) = rest.chars().next() else {
        return true;
    };
    match mode {
        Mode::Regex => true,
        Mode::Brace => matches!(c, ',' | '}' | '\n' | '\r') || c.is_ascii_digit(),
        Mode::Head => {
            matches!(
                c,
                '"' | '(' | ')' | '|' | '&' | ':' | '=' | '!' | '\n' | '\r' | '#'
            ) || rest.starts_with("<-")
                || is_ident_start(c)
        }
    }
}

/// A run of characters that cannot start a lexeme in `mode`, as one error.
fn lex_unknown(text: &str, start: usize, mode: Mode) -> Lexeme {
    let rest = &text[start..];
    let len = rest
        .char_indices()
        .skip(1)
        .find(|&(i, c)| c.is_whitespace() || starts_lexeme(&rest[i..], mode))
        .map_or(rest.len(), |(i, _)| i);
    let range = range(start, start + len);
    let found = &text[range];
    let help = match mode {
        Mode::Head => {
            "names are `[A-Za-z_][A-Za-z0-9_.-]*`; quote punctuation inside a regex (`\"!\"`)"
        }
        Mode::Brace => "a repetition is `{m}` or `{m,n}` with whole numbers",
        Mode::Regex => "quote the token: `\"...\"`",
    };
    let mut lexeme = simple(LexemeKind::Unknown, start, start + len);
    lexeme.diagnostics.push(
        Diagnostic::new(
            Code::UnexpectedCharacter,
            range,
            format!(
                "unexpected character{} `{found}`",
                if found.chars().count() > 1 { "s" } else { "" }
            ),
        )
        .with_help(help),
    );
    lexeme
}

/// A quoted string from the `"` at `start` to the closing quote or the end of the line.
fn lex_string(text: &str, start: usize) -> Lexeme {
    let mut value = String::new();
    let mut diagnostics = Vec::new();
    let mut chars = text[start + 1..].char_indices();
    let mut end = None;
    while let Some((i, c)) = chars.next() {
        let at = start + 1 + i;
        match c {
            '"' => {
                end = Some(at + 1);
                break;
            }
            '\n' | '\r' => break,
            '\\' => match chars.clone().next() {
                Some((_, escaped @ ('"' | '\\'))) => {
                    chars.next();
                    value.push(escaped);
                }
                Some((_, other)) if other != '\n' && other != '\r' => {
                    chars.next();
                    diagnostics.push(
                        Diagnostic::new(
                            Code::InvalidString,
                            range(at, at + 1 + other.len_utf8()),
                            format!("unknown escape `\\{other}`"),
                        )
                        .with_help("the escapes are `\\\"` and `\\\\`"),
                    );
                    value.push(other);
                }
                _ => value.push('\\'),
            },
            c => value.push(c),
        }
    }
    let end = match end {
        Some(end) => {
            if value.is_empty() && diagnostics.is_empty() {
                diagnostics.push(
                    Diagnostic::new(
                        Code::InvalidString,
                        range(start, end),
                        "empty quoted literal",
                    )
                    .with_help("a quoted literal spells one token, such as `\"!\"`"),
                );
            }
            end
        }
        None => {
            let end = line_end(text, start);
            diagnostics.push(
                Diagnostic::new(
                    Code::UnterminatedString,
                    range(start, end),
                    "unterminated string",
                )
                .with_help("close it with `\"` on the same line"),
            );
            end
        }
    };
    Lexeme {
        kind: LexemeKind::String,
        range: range(start, end),
        value,
        diagnostics,
    }
}

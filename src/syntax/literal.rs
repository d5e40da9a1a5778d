//! Literals as written in a rule (`won`, `"!"`): what the tokenizer makes of them, how a
//! bare word written without spaces reads as the tokens it holds (`免费` is `免 费`), and how
//! a token is spelled back as one. The parser, the name checks and word lists use this.

use super::ast::{Regex, RegexKind};
use crate::diagnostic::{Code, Diagnostic};
use crate::text::{TokenKind, tokenize};
use text_size::TextRange;

/// The word literals of a bare word, written at `range`, that the tokenizer cuts into
/// several word tokens, as it cuts text written without spaces (`docs/rules-language.md`,
/// "Tokenization"): `免费` is `免 费`, `iphone手机` is `iphone 手 机`, each at its place in
/// `range`. `None` for a word that is one token, or that the tokenizer would change or cut
/// at punctuation (`WON`, `won!`): [`classify_literal`] reports those.
///
/// ```
/// use rulelens::syntax::word_sequence;
/// use text_size::TextRange;
/// let words = word_sequence("免费", TextRange::default()).unwrap();
/// assert_eq!(words.len(), 2);
/// assert!(word_sequence("won", TextRange::default()).is_none());
/// assert!(word_sequence("won!", TextRange::default()).is_none());
/// ```
pub fn word_sequence(text: &str, range: TextRange) -> Option<Vec<Regex>> {
    let tokens = tokenize(text);
    // Each token as written (so nothing was lowercased), none punctuation, and all of them
    // together the whole word (so nothing fell between them).
    let words = tokens.len() > 1
        && tokens.iter().all(|token| {
            token.kind != TokenKind::Punct
                && token.text == &text[std::ops::Range::<usize>::from(token.range)]
        })
        && tokens.iter().map(|token| token.text.len()).sum::<usize>() == text.len();
    words.then(|| {
        tokens
            .iter()
            .map(|token| Regex {
                kind: RegexKind::Word(token.text.to_string()),
                range: token.range + range.start(),
            })
            .collect()
    })
}

/// What the tokenizer makes of a literal written in a rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Literal {
    /// The literal is exactly one token of this kind.
    Token(TokenKind),
    /// The tokenizer never produces this literal as one token; it matches nothing.
    Unproducible(Diagnostic),
}

/// Checks that `text`, written at `range` as a bare word (`quoted == false`) or a quoted
/// literal, is a single token the tokenizer can produce.
///
/// ```
/// use rulelens::syntax::{classify_literal, Literal};
/// use rulelens::text::TokenKind;
/// use text_size::TextRange;
/// assert_eq!(classify_literal("1,000", false, TextRange::default()), Literal::Token(TokenKind::Number));
/// assert!(matches!(classify_literal("won!", false, TextRange::default()), Literal::Unproducible(_)));
/// ```
pub fn classify_literal(text: &str, quoted: bool, range: TextRange) -> Literal {
    let tokens = tokenize(text);
    let shown = if quoted {
        format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
    } else {
        text.to_string()
    };
    let (message, help) = match tokens.len() {
        0 => (
            format!("`{shown}` contains no token"),
            "a quoted literal spells one token, such as `\"!\"`".to_string(),
        ),
        1 => {
            let token = tokens.get(0).expect("one token");
            if token.text == text {
                return Literal::Token(token.kind);
            }
            (
                format!(
                    "the tokenizer never produces `{text}`: it lowercases every text to `{}`",
                    token.text
                ),
                format!("write `{}`", spell_token(token.kind, token.text)),
            )
        }
        _ => {
            let parts: Vec<String> = tokens.iter().map(|t| spell_token(t.kind, t.text)).collect();
            (
                format!(
                    "`{shown}` is not one token: the tokenizer splits it into {}",
                    parts
                        .iter()
                        .map(|p| format!("`{p}`"))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                format!("write `{}` to match that sequence", parts.join(" ")),
            )
        }
    };
    Literal::Unproducible(
        Diagnostic::new(Code::UnproducibleLiteral, range, message).with_help(help),
    )
}

/// How a token is written as a literal in a rule: bare for words and numbers, quoted for
/// punctuation.
pub fn spell_token(kind: TokenKind, text: &str) -> String {
    match kind {
        TokenKind::Word | TokenKind::Number => text.to_string(),
        TokenKind::Punct => format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\"")),
    }
}

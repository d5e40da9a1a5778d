//! Literals as written in a rule (`won`, `"!"`): what the tokenizer makes of them, and how
//! a token is spelled back as one. Both the name checks and word lists use this.

use crate::diagnostic::{Code, Diagnostic};
use crate::text::{TokenKind, tokenize};
use text_size::TextRange;

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

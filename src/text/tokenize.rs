//! The tokenizer shared by rules and corpora (`docs/rules-language.md`, "Tokenization").
//!
//! 1. The text is lowercased char by char (`char::to_lowercase`, plus the final-sigma rule
//!    approximated as "Σ after a letter and not before one becomes ς").
//! 2. Scripts written without spaces between words (Han ideographs, kana, Thai, Lao, Khmer,
//!    Myanmar: [`is_unspaced`]) are cut into tokens at Unicode's word boundaries (UAX #29,
//!    the `unicode-segmentation` crate), run by run: each ideograph and each hiragana is a
//!    token, a run of katakana is one, and Thai, Lao, Khmer and Myanmar give one token a
//!    letter with its marks (UAX #29 has no dictionary).
//! 3. Elsewhere a word is a maximal run of letters, digits and `_` (`char::is_alphanumeric`,
//!    close to Python's `\w`), where a single `'` or `-` between two such characters, or a
//!    single `.` or `,` between two ASCII digits, joins them.
//! 4. Every other non-space character is a one-character punctuation token.
//! 5. A word of ASCII digits with internal `.`/`,` groups is a number.
//!
//! Each token keeps its byte range in the original text (so a highlight lands on what the
//! user wrote) and its lowercased text. One pass, O(n); [`Tokens`] is a reusable buffer so
//! that classifying a corpus allocates nothing per sentence once it has warmed up (a run of
//! unspaced text is copied once to be segmented). Deliberately not done: UAX #29 for
//! spaced scripts (Latin, Cyrillic, Greek, Arabic, Hangul keep the rules above) and
//! combining marks inside their words. [`TOKENIZER_VERSION`] names these rules wherever
//! tokens are kept (checkpoints, caches).

use text_size::{TextRange, TextSize};
use unicode_segmentation::UnicodeSegmentation;

/// The version of the rules above. A checkpoint records the version its vocabulary and
/// training data were tokenized with, and is refused by a rulelens that tokenizes
/// otherwise; caches of tokens are keyed by it. Version 1 kept unspaced scripts as runs
/// of letters (a whole Chinese sentence was one token); version 2 segments them.
pub const TOKENIZER_VERSION: u32 = 2;

/// What kind of token the tokenizer produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenKind {
    /// A word that is not a number (`won`, `can't`, `9am-11pm`).
    Word,
    /// A word of ASCII digits with optional `.`/`,` groups (`2`, `1,000`, `3.5`).
    Number,
    /// One character that is neither a word character nor a space (`!`, `£`).
    Punct,
}

/// One token of a tokenized text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: TokenKind,
    /// The lowercased token text.
    pub text: &'a str,
    /// Where the token is in the original text.
    pub range: TextRange,
}

#[derive(Debug, Clone, Copy)]
struct RawToken {
    kind: TokenKind,
    lowered_start: u32,
    lowered_end: u32,
    range: TextRange,
}

#[derive(Debug, Clone, Copy)]
struct LoweredChar {
    c: char,
    lowered_start: u32,
    origin: TextRange,
}

/// The tokens of one text; reuse it with [`Tokens::tokenize`] to avoid allocating.
#[derive(Debug, Clone, Default)]
pub struct Tokens {
    lowered: String,
    chars: Vec<LoweredChar>,
    tokens: Vec<RawToken>,
}

/// Tokenizes `text`.
///
/// ```
/// use rulelens::text::{tokenize, TokenKind};
/// let tokens = tokenize("WON ??1,000 cash!");
/// let texts: Vec<&str> = tokens.iter().map(|t| t.text).collect();
/// assert_eq!(texts, ["won", "?", "?", "1,000", "cash", "!"]);
/// assert_eq!(tokens.get(3).unwrap().kind, TokenKind::Number);
/// ```
pub fn tokenize(text: &str) -> Tokens {
    let mut tokens = Tokens::default();
    tokens.tokenize(text);
    tokens
}

/// Whether a word is a number token: `^[0-9]+([.,][0-9]+)*$`.
pub fn is_number_token(word: &str) -> bool {
    let bytes = word.as_bytes();
    !bytes.is_empty()
        && bytes[0].is_ascii_digit()
        && bytes[bytes.len() - 1].is_ascii_digit()
        && bytes
            .iter()
            .all(|b| b.is_ascii_digit() || *b == b'.' || *b == b',')
        && !bytes
            .windows(2)
            .any(|w| !w[0].is_ascii_digit() && !w[1].is_ascii_digit())
}

/// Whether `c` belongs to a script written without spaces between words, which step 2 of
/// the module doc segments: Han ideographs (with 々, 〆 and 〇), hiragana, katakana (with
/// its halfwidth forms), Thai, Lao, Myanmar and Khmer, marks and digits included.
pub fn is_unspaced(c: char) -> bool {
    matches!(c,
        '\u{0E00}'..='\u{0EFF}' // Thai, Lao
        | '\u{1000}'..='\u{109F}' // Myanmar
        | '\u{1780}'..='\u{17FF}' // Khmer
        | '\u{19E0}'..='\u{19FF}' // Khmer symbols
        | '\u{3005}'..='\u{3007}' // 々 〆 〇
        | '\u{3040}'..='\u{30FF}' // hiragana, katakana
        | '\u{31F0}'..='\u{31FF}' // katakana phonetic extensions
        | '\u{3400}'..='\u{4DBF}' // CJK extension A
        | '\u{4E00}'..='\u{9FFF}' // CJK unified ideographs
        | '\u{A9E0}'..='\u{A9FF}' // Myanmar extended-B
        | '\u{AA60}'..='\u{AA7F}' // Myanmar extended-A
        | '\u{F900}'..='\u{FAFF}' // CJK compatibility ideographs
        | '\u{FF66}'..='\u{FF9F}' // halfwidth katakana
        | '\u{20000}'..='\u{323AF}' // CJK extensions B to H, compatibility supplement
    )
}

fn is_word_char(c: char) -> bool {
    (c.is_alphanumeric() || c == '_') && !is_unspaced(c)
}

fn joins(prev: char, mid: char, next: char) -> bool {
    match mid {
        '\'' | '-' => is_word_char(prev) && is_word_char(next),
        '.' | ',' => prev.is_ascii_digit() && next.is_ascii_digit(),
        _ => false,
    }
}

/// The token grammar (steps 2 to 4 of the module doc) over `n` lowercased chars, `char_at`
/// giving each: calls `emit(kind, start, end)` with each token's char indices.
#[inline(always)]
fn scan(n: usize, char_at: impl Fn(usize) -> char, mut emit: impl FnMut(TokenKind, usize, usize)) {
    let mut i = 0;
    while i < n {
        let c = char_at(i);
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if is_unspaced(c) {
            while i < n && is_unspaced(char_at(i)) {
                i += 1;
            }
            segment(start, i, &char_at, &mut emit);
            continue;
        }
        let kind = if is_word_char(c) {
            let mut number = c.is_ascii_digit();
            i += 1;
            loop {
                if i < n && is_word_char(char_at(i)) {
                    number &= char_at(i).is_ascii_digit();
                    i += 1;
                } else if i + 1 < n && joins(char_at(i - 1), char_at(i), char_at(i + 1)) {
                    // A joined `'` or `-` makes a word; a joined `.` or `,` sits between
                    // digits and keeps a number a number.
                    number &= matches!(char_at(i), '.' | ',');
                    i += 2;
                } else {
                    break;
                }
            }
            if number {
                TokenKind::Number
            } else {
                TokenKind::Word
            }
        } else {
            i += 1;
            TokenKind::Punct
        };
        emit(kind, start, i);
    }
}

/// Emits the UAX #29 word segments of the unspaced run of chars `start..end` (step 2 of
/// the module doc): a segment with a letter or digit is a word, else each of its chars is
/// punctuation.
fn segment(
    start: usize,
    end: usize,
    char_at: &impl Fn(usize) -> char,
    emit: &mut impl FnMut(TokenKind, usize, usize),
) {
    let run: String = (start..end).map(char_at).collect();
    let mut at = start;
    for piece in run.split_word_bounds() {
        let chars = piece.chars().count();
        if piece.chars().any(char::is_alphanumeric) {
            emit(TokenKind::Word, at, at + chars);
        } else {
            (at..at + chars).for_each(|i| emit(TokenKind::Punct, i, i + 1));
        }
        at += chars;
    }
}

impl Tokens {
    /// Replaces the contents with the tokens of `text`. An ASCII text (most corpus lines)
    /// is lowercased in place and scanned byte by byte: its chars are its bytes.
    pub fn tokenize(&mut self, text: &str) {
        self.tokens.clear();
        let tokens = &mut self.tokens;
        if text.is_ascii() {
            self.chars.clear();
            self.lowered.clear();
            self.lowered.push_str(text);
            self.lowered.make_ascii_lowercase();
            let bytes = self.lowered.as_bytes();
            scan(
                bytes.len(),
                |i| char::from(bytes[i]),
                |kind, start, end| {
                    tokens.push(RawToken {
                        kind,
                        lowered_start: start as u32,
                        lowered_end: end as u32,
                        range: TextRange::new((start as u32).into(), (end as u32).into()),
                    })
                },
            );
            return;
        }
        self.lower(text);
        let tokens = &mut self.tokens;
        let chars = &self.chars;
        scan(
            chars.len(),
            |i| chars[i].c,
            |kind, start, end| {
                let (first, last) = (chars[start], chars[end - 1]);
                tokens.push(RawToken {
                    kind,
                    lowered_start: first.lowered_start,
                    lowered_end: last.lowered_start + last.c.len_utf8() as u32,
                    range: first.origin.cover(last.origin),
                });
            },
        );
    }

    fn lower(&mut self, text: &str) {
        self.lowered.clear();
        self.chars.clear();
        let mut prev_alphabetic = false;
        let mut iter = text.char_indices().peekable();
        while let Some((offset, c)) = iter.next() {
            let origin = TextRange::at(TextSize::from(offset as u32), TextSize::of(c));
            let mut push = |lowered: char| {
                self.chars.push(LoweredChar {
                    c: lowered,
                    lowered_start: self.lowered.len() as u32,
                    origin,
                });
                self.lowered.push(lowered);
            };
            if c.is_ascii() {
                push(c.to_ascii_lowercase());
            } else if c == 'Σ' {
                let next_alphabetic = iter.peek().is_some_and(|&(_, n)| n.is_alphabetic());
                push(if prev_alphabetic && !next_alphabetic {
                    'ς'
                } else {
                    'σ'
                });
            } else {
                c.to_lowercase().for_each(push);
            }
            prev_alphabetic = c.is_alphabetic();
        }
    }

    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.tokens.len()
    }

    /// Whether the text had no tokens.
    pub fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The `index`-th token.
    pub fn get(&self, index: usize) -> Option<Token<'_>> {
        self.tokens.get(index).map(|raw| self.token(raw))
    }

    /// The tokens in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Token<'_>> + '_ {
        self.tokens.iter().map(|raw| self.token(raw))
    }

    fn token(&self, raw: &RawToken) -> Token<'_> {
        Token {
            kind: raw.kind,
            text: &self.lowered[raw.lowered_start as usize..raw.lowered_end as usize],
            range: raw.range,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(text: &str, expected: &[(&str, TokenKind)]) {
        let tokens = tokenize(text);
        let got: Vec<(&str, TokenKind)> = tokens.iter().map(|t| (t.text, t.kind)).collect();
        assert_eq!(got, expected, "tokens of {text:?}");
        for token in tokens.iter() {
            assert!(
                text.get(std::ops::Range::<usize>::from(token.range))
                    .is_some(),
                "range on char boundaries"
            );
        }
    }

    use TokenKind::{Number as N, Punct as P, Word as W};

    #[test]
    fn spec_example() {
        check(
            "WON ??1,000 cash!",
            &[
                ("won", W),
                ("?", P),
                ("?", P),
                ("1,000", N),
                ("cash", W),
                ("!", P),
            ],
        );
    }

    #[test]
    fn joiners() {
        check("don't e-mail", &[("don't", W), ("e-mail", W)]);
        check("9am-11pm", &[("9am-11pm", W)]);
        check("3.5 1.2.3 a1.5", &[("3.5", N), ("1.2.3", N), ("a1.5", W)]);
        check("1-2", &[("1-2", W)]);
        check("a''b", &[("a", W), ("'", P), ("'", P), ("b", W)]);
        check("end. 1.", &[("end", W), (".", P), ("1", N), (".", P)]);
        check("'quoted'", &[("'", P), ("quoted", W), ("'", P)]);
        check("x-", &[("x", W), ("-", P)]);
        check("1,a", &[("1", N), (",", P), ("a", W)]);
        check("snake_case", &[("snake_case", W)]);
    }

    #[test]
    fn unicode() {
        check("£5 Ünïcödé", &[("£", P), ("5", N), ("ünïcödé", W)]);
        check("ΟΔΟΣ Σ", &[("οδο\u{3c2}", W), ("\u{3c3}", W)]);
        check("sisterðcity", &[("sisterðcity", W)]);
        check("٣", &[("٣", W)]);
        // İ lowercases to two chars; the token's range still covers the original char.
        let tokens = tokenize("İx");
        assert!(
            tokens
                .iter()
                .all(|t| "İx".get(std::ops::Range::<usize>::from(t.range)).is_some())
        );
    }

    #[test]
    fn unspaced_scripts_are_segmented() {
        // Every ideograph is a token; a run of katakana is one; Latin beside them is cut off.
        check(
            "现在免费领取奖品",
            &[
                ("现", W),
                ("在", W),
                ("免", W),
                ("费", W),
                ("领", W),
                ("取", W),
                ("奖", W),
                ("品", W),
            ],
        );
        check(
            "無料プレゼントをiPhone15で。",
            &[
                ("無", W),
                ("料", W),
                ("プレゼント", W),
                ("を", W),
                ("iphone15", W),
                ("で", W),
                ("。", P),
            ],
        );
        // Thai: a letter with its marks (UAX #29 without a dictionary); Thai digits a run.
        check(
            "รับฟรี ๑๒",
            &[("รั", W), ("บ", W), ("ฟ", W), ("รี", W), ("๑๒", W)],
        );
        check("a-中", &[("a", W), ("-", P), ("中", W)]);
        // Spaced scripts are as they were: Hangul, Cyrillic, Arabic.
        check(
            "안녕하세요 привет مرحبا",
            &[("안녕하세요", W), ("привет", W), ("مرحبا", W)],
        );
        let text = "免费 พิเศษ";
        for token in tokenize(text).iter() {
            assert!(
                text.get(std::ops::Range::<usize>::from(token.range))
                    .is_some()
            );
        }
    }

    proptest::proptest! {
        /// The ASCII path gives what the general one gives: a text with one non-ASCII
        /// word after a space takes the general path, and its other tokens are the same.
        #[test]
        fn the_ascii_path_agrees_with_the_general_one(text in "[ -~\t\n\x0b\x0c\r\x1c]{0,40}") {
            let ascii = tokenize(&text);
            let general = tokenize(&format!("{text} é"));
            let tokens = |t: &Tokens| t.iter().map(|t| (t.text.to_string(), t.kind, t.range)).collect::<Vec<_>>();
            let mut expected = tokens(&general);
            expected.pop();
            proptest::prop_assert_eq!(tokens(&ascii), expected);
        }
    }

    #[test]
    fn number_tokens() {
        assert!(is_number_token("1,000"));
        assert!(is_number_token("2"));
        assert!(!is_number_token("1,"));
        assert!(!is_number_token("1..2"));
        assert!(!is_number_token("a1"));
        assert!(!is_number_token(""));
    }
}

//! The sentence encoder's tokenizer: BERT's uncased WordPiece, as the bundled encoder was
//! trained with it. A text is cleaned (control characters dropped, every white space a
//! separator), each CJK ideograph made a word of its own, lowercased, decomposed (NFD) with
//! its combining marks dropped, and split at white space and punctuation (ASCII's
//! non-alphanumeric symbols and Unicode's punctuation categories); each word is then cut
//! greedily into the longest pieces the vocabulary holds, a piece after the first marked
//! `##`. A word of more than [`MAX_WORD_CHARS`] characters, or one the vocabulary cannot
//! cut, is the unknown piece. This is the tokenizer's own reading of text, independent of
//! the rules' tokens (`text::tokens`).

use std::collections::HashMap;
use unicode_general_category::{GeneralCategory, get_general_category};
use unicode_normalization::UnicodeNormalization;

/// A word longer than this many characters is the unknown piece, as in BERT.
pub const MAX_WORD_CHARS: usize = 100;

/// The vocabulary of word pieces and the ids of the special ones.
#[derive(Debug, Clone)]
pub struct WordPiece {
    ids: HashMap<String, u32>,
    pub(crate) unknown: u32,
    pub(crate) start: u32,
    pub(crate) end: u32,
}

impl WordPiece {
    /// The vocabulary of `vocab`, one piece per line, a piece's id its line's index; `None`
    /// where `[UNK]`, `[CLS]` or `[SEP]` is missing.
    pub fn new(vocab: &str) -> Option<WordPiece> {
        let ids: HashMap<String, u32> = vocab
            .lines()
            .enumerate()
            .map(|(i, piece)| (piece.to_string(), i as u32))
            .collect();
        Some(WordPiece {
            unknown: *ids.get("[UNK]")?,
            start: *ids.get("[CLS]")?,
            end: *ids.get("[SEP]")?,
            ids,
        })
    }

    /// The ids of `text`'s pieces, at most `max_pieces` of them (the first), without the
    /// start and end pieces.
    pub fn pieces(&self, text: &str, max_pieces: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut piece = String::new();
        for word in words(text) {
            if out.len() >= max_pieces {
                break;
            }
            self.cut(&word, &mut piece, &mut out);
        }
        out.truncate(max_pieces);
        out
    }

    /// Appends `word`'s pieces to `out`, greedily longest first.
    fn cut(&self, word: &str, piece: &mut String, out: &mut Vec<u32>) {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_WORD_CHARS {
            out.push(self.unknown);
            return;
        }
        let first = out.len();
        let mut start = 0;
        while start < chars.len() {
            let mut end = chars.len();
            let found = loop {
                if end == start {
                    break None;
                }
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |&(at, _)| at);
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[from..to]);
                if let Some(&id) = self.ids.get(piece.as_str()) {
                    break Some(id);
                }
                end -= 1;
            };
            match found {
                Some(id) => {
                    out.push(id);
                    start = end;
                }
                None => {
                    out.truncate(first);
                    out.push(self.unknown);
                    return;
                }
            }
        }
    }
}

/// `text`'s words as BERT's basic tokenizer reads them (the module's doc).
fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let flush = |word: &mut String, words: &mut Vec<String>| {
        if !word.is_empty() {
            words.push(std::mem::take(word));
        }
    };
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || (is_control(c) && !c.is_whitespace()) {
            continue;
        }
        if c.is_whitespace() {
            flush(&mut word, &mut words);
        } else if is_cjk(c) {
            flush(&mut word, &mut words);
            words.push(c.to_string());
        } else {
            for c in c.to_lowercase().nfd() {
                if get_general_category(c) == GeneralCategory::NonspacingMark {
                    continue;
                }
                if is_punctuation(c) {
                    flush(&mut word, &mut words);
                    words.push(c.to_string());
                } else {
                    word.push(c);
                }
            }
        }
    }
    flush(&mut word, &mut words);
    words
}

/// Unicode's control and format characters (tab, newline and return are white space).
fn is_control(c: char) -> bool {
    matches!(
        get_general_category(c),
        GeneralCategory::Control | GeneralCategory::Format
    )
}

/// ASCII's symbols that are not letters or digits, and Unicode's punctuation.
fn is_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            get_general_category(c),
            GeneralCategory::ConnectorPunctuation
                | GeneralCategory::DashPunctuation
                | GeneralCategory::OpenPunctuation
                | GeneralCategory::ClosePunctuation
                | GeneralCategory::InitialPunctuation
                | GeneralCategory::FinalPunctuation
                | GeneralCategory::OtherPunctuation
        )
}

/// The CJK Unified Ideographs blocks, which BERT makes a word of each.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF
            | 0x3400..=0x4DBF
            | 0x20000..=0x2A6DF
            | 0x2A700..=0x2B73F
            | 0x2B740..=0x2B81F
            | 0x2B820..=0x2CEAF
            | 0xF900..=0xFAFF
            | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vocabulary() -> WordPiece {
        WordPiece::new("[PAD]\n[UNK]\n[CLS]\n[SEP]\nun\n##aff\n##able\nhello\n,\n!\ncafe\n中\n")
            .unwrap()
    }

    #[test]
    fn words_are_cut_longest_first_and_unknown_words_are_one_piece() {
        let v = vocabulary();
        // "unaffable" → un ##aff ##able; "Héllo" lowercased, its accent dropped.
        assert_eq!(v.pieces("unaffable, HÉLLO!", 16), vec![4, 5, 6, 8, 7, 9]);
        // A word the vocabulary cannot cut is one unknown piece, not a partial cut.
        assert_eq!(v.pieces("unaffablex café", 16), vec![1, 10]);
        // Each CJK ideograph is a word; control characters are dropped.
        assert_eq!(v.pieces("中\u{7}中", 16), vec![11, 11]);
        assert_eq!(v.pieces(&"a".repeat(MAX_WORD_CHARS + 1), 16), vec![1]);
        assert_eq!(v.pieces("hello hello hello", 2), vec![7, 7]);
    }

    #[test]
    fn a_vocabulary_without_the_special_pieces_is_refused() {
        assert!(WordPiece::new("[UNK]\n[CLS]\n").is_none());
    }
}

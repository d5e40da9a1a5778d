//! Text shown on a terminal: control characters, which a terminal would obey (an escape
//! sequence that retitles the window, a bell, a NUL), and the bidirectional overrides that
//! reorder what is shown ("Trojan Source"), each replaced by one visible character, so that
//! a caret under a column still points at it.

use std::borrow::Cow;

/// `text` with every control character but tab and newline shown as its Unicode control
/// picture (U+0000–U+001F as ␀–␟, DEL as ␡), and the C1 controls (U+0080–U+009F) and
/// bidirectional embeddings, overrides and isolates as U+FFFD; unchanged (borrowed) when it
/// has none.
///
/// ```
/// use rulelens::text::printable;
/// assert_eq!(printable("free\x1b]0;PWNED\x07 prize"), "free␛]0;PWNED␇ prize");
/// assert_eq!(printable("tab\tand\nnewline"), "tab\tand\nnewline");
/// ```
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_picture) {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.chars().map(picture).collect())
}

fn needs_picture(c: char) -> bool {
    picture(c) != c
}

/// The one character `c` is shown as.
fn picture(c: char) -> char {
    match c {
        '\t' | '\n' => c,
        '\u{0}'..='\u{1f}' => char::from_u32(0x2400 + c as u32).unwrap_or('\u{fffd}'),
        '\u{7f}' => '\u{2421}',
        '\u{80}'..='\u{9f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => '\u{fffd}',
        _ => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_control_character_but_tab_and_newline_becomes_one_visible_character() {
        for c in (0..0x20).chain(0x7f..0xa0).filter_map(char::from_u32) {
            let shown = printable(&c.to_string()).into_owned();
            if c == '\t' || c == '\n' {
                assert_eq!(shown, c.to_string());
            } else {
                assert_eq!(shown.chars().count(), 1, "{c:?}");
                assert!(!shown.chars().next().unwrap().is_control(), "{c:?}");
            }
        }
        assert_eq!(printable("a\u{202e}b"), "a\u{fffd}b");
        assert!(matches!(printable("plain text"), Cow::Borrowed(_)));
    }
}

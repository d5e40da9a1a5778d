//! Completion: what may be typed at the cursor, from the rules file and a corpus' words.
//!
//! The context is read off the cursor's line with the parser's lexer, so it works on the
//! half-typed line being edited:
//! - at the start of a line: the keywords and the existing labels (`spam: `);
//! - after `default `: the labels;
//! - in a formula after `<-`, where an operand may stand: the named patterns, with their
//!   regex as detail (anonymous patterns have no name to write);
//! - in a regex (after `pattern NAME =`, `LABEL:` or `words NAME =`): the corpus words that
//!   start with the typed prefix (lowercased, as the tokenizer lowercases), most frequent
//!   first, and when nothing is typed also `$*`, `$`, `%`, `&`;
//! - after `@` in a regex: the word lists, with their sizes;
//! - in a comment, a quoted literal, a `{m,n}`, a corpus binding or a pattern's name:
//!   nothing.
//!
//! [`WordFrequencies`] counts the word and number tokens of a corpus with the project's
//! tokenizer, which spell as themselves in a rule (`syntax::spell_token`). Punctuation tokens
//! are left out: they need quoting (`"!"`), completion offers nothing inside a quoted
//! literal, and `&` already stands for any of them. The table is sorted once, so a prefix
//! lookup is a binary search plus the words that have the prefix; the rest of a call is
//! linear in the rules file and the cursor's line. At most [`MAX_COMPLETIONS`] results.
//! Deliberately not here: fuzzy matching (the editor filters and sorts on its side) and
//! snippets.

use super::positions::{
    NameKind, body_text, clamp_offset, occurrences, regex_lexemes, shorten, size, slice,
};
use crate::rules_file::RulesFile;
use crate::syntax::ast::StatementKind;
use crate::syntax::lexer::{Lexeme, LexemeKind, Mode, lex};
use crate::syntax::{Literal, classify_literal, spell_token};
use crate::text::{TokenKind, Tokens};
use std::collections::{HashMap, HashSet};
use text_size::{TextRange, TextSize};

/// The most completions one call returns.
pub const MAX_COMPLETIONS: usize = 50;

/// What a completion inserts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CompletionKind {
    Keyword,
    Label,
    Pattern,
    WordList,
    Word,
    Wildcard,
}

/// One completion item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// What the list shows.
    pub label: String,
    pub kind: CompletionKind,
    /// A keyword's syntax, a pattern's regex, a word's count.
    pub detail: Option<String>,
    pub insert_text: String,
    /// The partial name or word at the cursor, all of it (empty at the cursor when nothing
    /// is typed): accepting the completion replaces it.
    pub replace: TextRange,
    /// Lower first; the list is sorted by it.
    pub rank: u32,
}

/// How often each word and number token occurs in a corpus, for completion.
#[derive(Debug, Clone, Default)]
pub struct WordFrequencies {
    // Invariant: sorted by word, no word twice, every word a valid bare literal.
    words: Vec<(String, u32)>,
    // Invariant: every index of `words` once, by decreasing count, then alphabetically.
    by_count: Vec<usize>,
    corpus_name: Option<String>,
}

impl WordFrequencies {
    /// Counts the word and number tokens of `texts`. O(total length) plus a sort of the
    /// distinct words.
    ///
    /// ```
    /// use rulelens::ide::WordFrequencies;
    /// let words = WordFrequencies::from_texts(["WIN cash!", "win 1,000"]);
    /// assert_eq!((words.count("win"), words.count("1,000"), words.count("!")), (2, 1, 0));
    /// ```
    pub fn from_texts<'a>(texts: impl IntoIterator<Item = &'a str>) -> WordFrequencies {
        let mut counts: HashMap<String, (TokenKind, u32)> = HashMap::new();
        let mut tokens = Tokens::default();
        for text in texts {
            tokens.tokenize(text);
            for token in tokens.iter().filter(|t| t.kind != TokenKind::Punct) {
                match counts.get_mut(token.text) {
                    Some((_, count)) => *count = count.saturating_add(1),
                    None => {
                        counts.insert(token.text.to_string(), (token.kind, 1));
                    }
                }
            }
        }
        let mut words: Vec<(String, u32)> = counts
            .into_iter()
            .map(|(text, (kind, count))| (spell_token(kind, &text), count))
            // Lowercasing is not always idempotent; keep only what a rule can spell.
            .filter(|(word, _)| {
                matches!(
                    classify_literal(word, false, TextRange::default()),
                    Literal::Token(_)
                )
            })
            .collect();
        words.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        words.dedup_by(|a, b| a.0 == b.0);
        let mut by_count: Vec<usize> = (0..words.len()).collect();
        by_count.sort_by_key(|&i| (std::cmp::Reverse(words.get(i).map_or(0, |w| w.1)), i));
        WordFrequencies {
            words,
            by_count,
            corpus_name: None,
        }
    }

    /// Names the corpus in details: `12 × in train` (otherwise `12 × in the corpus`).
    ///
    /// ```
    /// use rulelens::ide::{completions, WordFrequencies};
    /// use rulelens::rules_file::RulesFile;
    /// use rulelens::text::SourceText;
    /// let file = RulesFile::analyze(SourceText::from_bytes(b"spam: w"), None, &Default::default());
    /// let words = WordFrequencies::from_texts(["win win"]).with_corpus_name("dev");
    /// assert_eq!(completions(&file, 7.into(), &words)[0].detail.as_deref(), Some("2 × in dev"));
    /// ```
    pub fn with_corpus_name(mut self, name: &str) -> WordFrequencies {
        self.corpus_name = Some(name.to_string());
        self
    }

    /// How many times `word` occurs (0 if never, or if it is not a word or number).
    pub fn count(&self, word: &str) -> u32 {
        self.words
            .binary_search_by(|(w, _)| w.as_str().cmp(word))
            .ok()
            .and_then(|i| self.words.get(i))
            .map_or(0, |w| w.1)
    }

    /// The number of distinct words and numbers.
    ///
    /// ```
    /// use rulelens::ide::WordFrequencies;
    /// let words = WordFrequencies::from_texts(["Free, FREE, free!", "£5"]);
    /// assert_eq!(words.len(), 2); // `free` and `5`; punctuation is left out
    /// assert!(!words.is_empty());
    /// ```
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether the texts had no word or number at all.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// The distinct words, alphabetically.
    pub fn words(&self) -> impl Iterator<Item = &str> {
        self.words.iter().map(|(word, _)| word.as_str())
    }

    /// The `limit` most frequent words that start with `prefix`, most frequent first.
    fn most_frequent(&self, prefix: &str, limit: usize) -> Vec<&(String, u32)> {
        if prefix.is_empty() {
            return self
                .by_count
                .iter()
                .take(limit)
                .filter_map(|&i| self.words.get(i))
                .collect();
        }
        let start = self.words.partition_point(|(w, _)| w.as_str() < prefix);
        let rest = self.words.get(start..).unwrap_or_default();
        let n_matches = rest.partition_point(|(w, _)| w.starts_with(prefix));
        let mut matches: Vec<&(String, u32)> = rest.iter().take(n_matches).collect();
        // Sorted by word already, so a stable sort by count keeps ties alphabetical.
        matches.sort_by_key(|w| std::cmp::Reverse(w.1));
        matches.truncate(limit);
        matches
    }

    fn detail(&self, count: u32) -> String {
        match &self.corpus_name {
            Some(name) => format!("{count} × in {name}"),
            None => format!("{count} × in the corpus"),
        }
    }
}

/// What the cursor is in, with the partial name or word it is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    /// Where a statement starts; `rest_empty` when nothing follows on the line.
    LineStart { typed: TextRange, rest_empty: bool },
    /// After `default`.
    DefaultLabel { typed: TextRange },
    /// Where a formula operand may stand.
    Formula { typed: TextRange },
    /// In a regex, outside quoted literals and braces.
    Regex { typed: TextRange },
    /// After `@` in a regex; `typed` is the name after it.
    WordList { typed: TextRange },
}

/// The completions at `offset` (clamped to the text and to a char boundary), sorted by
/// rank, at most [`MAX_COMPLETIONS`].
///
/// ```
/// use rulelens::ide::{completions, WordFrequencies};
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let text = "spam: $* fr";
/// let file = RulesFile::analyze(SourceText::from_bytes(text.as_bytes()), None, &Default::default());
/// let words = WordFrequencies::from_texts(["free entry", "FREE prize", "from me"]).with_corpus_name("train");
/// let items = completions(&file, 11.into(), &words);
/// let shown: Vec<(&str, Option<&str>)> = items.iter().map(|c| (c.label.as_str(), c.detail.as_deref())).collect();
/// assert_eq!(shown, [("free", Some("2 × in train")), ("from", Some("1 × in train"))]);
/// ```
pub fn completions(file: &RulesFile, offset: TextSize, words: &WordFrequencies) -> Vec<Completion> {
    let text = file.source.text.as_str();
    let offset = clamp_offset(text, offset);
    let Some(context) = context(file, offset) else {
        return Vec::new();
    };
    let typed = match context {
        Context::LineStart { typed, .. }
        | Context::DefaultLabel { typed }
        | Context::Formula { typed }
        | Context::Regex { typed }
        | Context::WordList { typed } => typed,
    };
    let prefix = text.get(usize::from(typed.start())..offset).unwrap_or("");
    let item = |label: &str, kind, detail: Option<String>, insert_text: String, rank| Completion {
        label: label.to_string(),
        kind,
        detail,
        insert_text,
        replace: typed,
        rank,
    };
    let mut res = Vec::new();
    match context {
        Context::LineStart { rest_empty, .. } => {
            let has_default = file.parse.file.statements.iter().any(|s| {
                matches!(s.kind, StatementKind::Default { .. }) && !s.range.contains_range(typed)
            });
            let keywords = [
                ("default", "default LABEL"),
                ("corpus", "corpus NAME \"PATH\""),
                ("pattern", "pattern NAME = REGEX"),
                ("words", "words NAME = ( WORD | … )"),
            ];
            for (rank, (keyword, syntax)) in (0..).zip(keywords) {
                if !keyword.starts_with(prefix) || (keyword == "default" && has_default) {
                    continue;
                }
                let insert = if rest_empty {
                    format!("{keyword} ")
                } else {
                    keyword.to_string()
                };
                res.push(item(
                    keyword,
                    CompletionKind::Keyword,
                    Some(syntax.to_string()),
                    insert,
                    rank,
                ));
            }
            for (rank, label) in (10..).zip(labels(file, typed)) {
                if label.starts_with(prefix) {
                    let insert = if rest_empty {
                        format!("{label}: ")
                    } else {
                        label.to_string()
                    };
                    res.push(item(label, CompletionKind::Label, None, insert, rank));
                }
            }
        }
        Context::DefaultLabel { .. } => {
            for (rank, label) in (10..).zip(labels(file, typed)) {
                if label.starts_with(prefix) {
                    res.push(item(
                        label,
                        CompletionKind::Label,
                        None,
                        label.to_string(),
                        rank,
                    ));
                }
            }
        }
        Context::Formula { .. } => {
            let mut seen = HashSet::new();
            let mut rank = 10;
            for statement in &file.parse.file.statements {
                let StatementKind::Pattern {
                    name: Some(name), ..
                } = &statement.kind
                else {
                    continue;
                };
                if !name.text.starts_with(prefix) || !seen.insert(name.text.as_str()) {
                    continue;
                }
                let detail = body_text(text, statement).map(shorten);
                res.push(item(
                    &name.text,
                    CompletionKind::Pattern,
                    detail,
                    name.text.clone(),
                    rank,
                ));
                rank += 1;
            }
        }
        Context::WordList { .. } => {
            for (rank, list) in (10..).zip(&file.rules.word_lists) {
                if list.name.starts_with(prefix) {
                    let n = list.list.entries.len();
                    res.push(item(
                        &list.name,
                        CompletionKind::WordList,
                        Some(format!("{n} entr{}", if n == 1 { "y" } else { "ies" })),
                        list.name.clone(),
                        rank,
                    ));
                }
            }
        }
        Context::Regex { .. } => {
            if typed.is_empty() {
                let wildcards = [
                    ("$*", "any tokens, zero or more"),
                    ("$", "any one token"),
                    ("%", "any one number token"),
                    ("&", "any one punctuation token"),
                ];
                for (rank, (wildcard, meaning)) in (0..).zip(wildcards) {
                    res.push(item(
                        wildcard,
                        CompletionKind::Wildcard,
                        Some(meaning.to_string()),
                        wildcard.to_string(),
                        rank,
                    ));
                }
            }
            let prefix = prefix.to_lowercase();
            for (rank, (word, count)) in (10..).zip(words.most_frequent(&prefix, MAX_COMPLETIONS)) {
                res.push(item(
                    word,
                    CompletionKind::Word,
                    Some(words.detail(*count)),
                    word.clone(),
                    rank,
                ));
            }
        }
    }
    res.sort_by_key(|completion| completion.rank);
    res.truncate(MAX_COMPLETIONS);
    res
}

/// The labels in priority order, but for one whose only occurrence is the word being typed.
fn labels(file: &RulesFile, typed: TextRange) -> Vec<&str> {
    let elsewhere: HashSet<&str> = occurrences(&file.parse.file)
        .into_iter()
        .filter(|o| o.kind == NameKind::Label && o.range != typed)
        .map(|o| o.name)
        .collect();
    file.rules
        .labels
        .iter()
        .map(|label| label.name.as_str())
        .filter(|name| elsewhere.contains(name))
        .collect()
}

fn at_end(lexeme: &Lexeme) -> bool {
    matches!(lexeme.kind, LexemeKind::Newline | LexemeKind::Eof)
}

/// Whether the cursor is on `lexeme`: inside it, at its start or at its end.
fn touches(lexeme: &Lexeme, offset: usize) -> bool {
    usize::from(lexeme.range.start()) <= offset && offset <= usize::from(lexeme.range.end())
}

fn context(file: &RulesFile, offset: usize) -> Option<Context> {
    let text = file.source.text.as_str();
    let at = size(offset);
    let comments = &file.parse.comments;
    let n_before = comments.partition_point(|c| c.start() < at);
    if n_before > 0 && comments.get(n_before - 1).is_some_and(|c| at <= c.end()) {
        return None;
    }
    let cursor = TextRange::empty(at);
    let line_start = text.get(..offset)?.rfind('\n').map_or(0, |i| i + 1);
    let head = |pos: usize| lex(text, pos, Mode::Head);
    let first = head(line_start);
    if at_end(&first) || offset < usize::from(first.range.start()) {
        return Some(Context::LineStart {
            typed: cursor,
            rest_empty: at_end(&first),
        });
    }
    if first.kind != LexemeKind::Ident {
        return None;
    }
    if touches(&first, offset) {
        return Some(Context::LineStart {
            typed: first.range,
            rest_empty: at_end(&head(usize::from(first.range.end()))),
        });
    }
    let second = head(usize::from(first.range.end()));
    let after_second = offset >= usize::from(second.range.end());
    match second.kind {
        LexemeKind::Colon if after_second => {
            return regex_context(text, usize::from(second.range.end()), offset);
        }
        LexemeKind::Arrow if after_second => {
            return formula_context(text, usize::from(second.range.end()), offset);
        }
        _ => {}
    }
    match slice(text, first.range) {
        "default" if second.kind == LexemeKind::Ident && touches(&second, offset) => {
            Some(Context::DefaultLabel {
                typed: second.range,
            })
        }
        "default" if at_end(&second) => Some(Context::DefaultLabel { typed: cursor }),
        "pattern" | "words" => {
            let equals = if second.kind == LexemeKind::Ident {
                head(usize::from(second.range.end()))
            } else {
                second
            };
            let body_start = usize::from(equals.range.end());
            (equals.kind == LexemeKind::Equals && offset >= body_start)
                .then(|| regex_context(text, body_start, offset))
                .flatten()
        }
        _ => None,
    }
}

/// The context in a regex that starts at `start`.
fn regex_context(text: &str, start: usize, offset: usize) -> Option<Context> {
    let mut before: Option<&Lexeme> = None;
    let mut in_braces = false;
    let lexemes = regex_lexemes(text, start);
    for lexeme in &lexemes {
        let (lexeme_start, lexeme_end) = (
            usize::from(lexeme.range.start()),
            usize::from(lexeme.range.end()),
        );
        // On a word list's name, `@` excluded.
        if lexeme.kind == LexemeKind::WordListRef && lexeme_start < offset && offset <= lexeme_end {
            return Some(Context::WordList {
                typed: TextRange::new(lexeme.range.start() + TextSize::from(1), lexeme.range.end()),
            });
        }
        if lexeme_start < offset && offset < lexeme_end {
            // Inside a word, or inside a quoted literal or a run of junk in braces.
            return (lexeme.kind == LexemeKind::Word).then_some(Context::Regex {
                typed: lexeme.range,
            });
        }
        if lexeme_end <= offset {
            match lexeme.kind {
                LexemeKind::LBrace => in_braces = true,
                LexemeKind::RBrace => in_braces = false,
                _ => {}
            }
            before = Some(lexeme);
            continue;
        }
        if lexeme_start == offset && lexeme.kind == LexemeKind::Word {
            return Some(Context::Regex {
                typed: lexeme.range,
            });
        }
        break;
    }
    match before {
        Some(lexeme) if usize::from(lexeme.range.end()) == offset => match lexeme.kind {
            LexemeKind::Word => {
                return Some(Context::Regex {
                    typed: lexeme.range,
                });
            }
            LexemeKind::LParen | LexemeKind::Pipe => {}
            // A lone `@`: a word list's name comes next.
            LexemeKind::Unknown if slice(text, lexeme.range) == "@" => {
                return Some(Context::WordList {
                    typed: TextRange::empty(size(offset)),
                });
            }
            // Right after `$`, `*`, `)`, a quoted literal…: a word would run into it.
            _ => return None,
        },
        _ => {}
    }
    (!in_braces).then_some(Context::Regex {
        typed: TextRange::empty(size(offset)),
    })
}

/// The context in a formula that starts at `start`.
fn formula_context(text: &str, start: usize, offset: usize) -> Option<Context> {
    let mut before: Option<Lexeme> = None;
    let mut pos = start;
    loop {
        let lexeme = lex(text, pos, Mode::Head);
        if at_end(&lexeme) {
            break;
        }
        let (lexeme_start, lexeme_end) = (
            usize::from(lexeme.range.start()),
            usize::from(lexeme.range.end()),
        );
        if lexeme_start < offset && offset < lexeme_end {
            return (lexeme.kind == LexemeKind::Ident).then_some(Context::Formula {
                typed: lexeme.range,
            });
        }
        if lexeme_end <= offset {
            pos = lexeme_end;
            before = Some(lexeme);
            continue;
        }
        if lexeme_start == offset && lexeme.kind == LexemeKind::Ident {
            return Some(Context::Formula {
                typed: lexeme.range,
            });
        }
        break;
    }
    let cursor = TextRange::empty(size(offset));
    match before {
        None => Some(Context::Formula { typed: cursor }),
        Some(lexeme)
            if lexeme.kind == LexemeKind::Ident && usize::from(lexeme.range.end()) == offset =>
        {
            Some(Context::Formula {
                typed: lexeme.range,
            })
        }
        Some(lexeme)
            if matches!(
                lexeme.kind,
                LexemeKind::Bang | LexemeKind::Amp | LexemeKind::Pipe | LexemeKind::LParen
            ) =>
        {
            Some(Context::Formula { typed: cursor })
        }
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::testing::fixture;

    const CORPUS: &[&str] = &[
        "FREE entry in 2 a wkly comp to win FA Cup final tkts!",
        "Free msg: you have won a £1,000 prize, call now",
        "free free freedom? Frank says 1,000 thanks",
        "Ok lar... Joking wif u oni",
        "café ☕ for free",
    ];

    fn words() -> WordFrequencies {
        WordFrequencies::from_texts(CORPUS.iter().copied()).with_corpus_name("train")
    }

    /// The replaced text on the first line, then one line per completion:
    /// `kind label -> "insert" (detail)`.
    fn check_completions(fixture_text: &str, expected: &str) {
        let (file, offset) = fixture(fixture_text);
        let items = completions(&file, offset, &words());
        let mut lines = Vec::new();
        if let Some(first) = items.first() {
            assert!(
                first.replace.contains_inclusive(offset),
                "the replaced range holds the cursor"
            );
            lines.push(format!("replace {:?}", &file.source.text[first.replace]));
        }
        for (i, item) in items.iter().enumerate() {
            assert_eq!(
                item.replace, items[0].replace,
                "one replaced range per call"
            );
            if i > 0 {
                assert!(items[i - 1].rank <= item.rank, "sorted by rank");
            }
            let detail = item
                .detail
                .as_ref()
                .map_or(String::new(), |detail| format!(" ({detail})"));
            lines.push(format!(
                "{:?} {} -> {:?}{detail}",
                item.kind, item.label, item.insert_text
            ));
        }
        if lines.is_empty() {
            lines.push("<none>".to_string());
        }
        assert_eq!(
            lines.join("\n"),
            expected,
            "completions at the cursor of {fixture_text:?}"
        );
    }

    #[test]
    fn word_table_counts_words_and_numbers() {
        let words = words();
        assert_eq!(words.count("free"), 5);
        assert_eq!(words.count("1,000"), 2);
        assert_eq!(words.count("2"), 1);
        assert_eq!(words.count("café"), 1);
        // Punctuation is left out, and so is what no bare literal can spell.
        assert_eq!(words.count("!"), 0);
        assert_eq!(words.count("£"), 0);
        assert_eq!(words.count("FREE"), 0);
        assert_eq!(words.len(), 33);
        assert!(WordFrequencies::from_texts([]).is_empty());
    }

    #[test]
    fn at_the_start_of_a_line() {
        check_completions(
            "default ham\nspam: $* win $*\n$0\n",
            "replace \"\"\n\
             Keyword corpus -> \"corpus \" (corpus NAME \"PATH\")\n\
             Keyword pattern -> \"pattern \" (pattern NAME = REGEX)\n\
             Keyword words -> \"words \" (words NAME = ( WORD | … ))\n\
             Label spam -> \"spam: \"\n\
             Label ham -> \"ham: \"",
        );
        check_completions(
            "spam: $* win $*\nsp$0",
            "replace \"sp\"\n\
             Label spam -> \"spam: \"",
        );
        check_completions(
            "spam: $* win $*\n  p$0",
            "replace \"p\"\n\
             Keyword pattern -> \"pattern \" (pattern NAME = REGEX)",
        );
        // The statement goes on after the word: insert the name alone.
        check_completions(
            "spam: $* win $*\nd$0e: $* x $*\n",
            "replace \"de\"\n\
             Keyword default -> \"default\" (default LABEL)",
        );
        check_completions(
            "spam: $* win $*\nsp$0 <- p\n",
            "replace \"sp\"\n\
             Label spam -> \"spam\"",
        );
    }

    #[test]
    fn after_at_the_word_lists() {
        let lists = "words cities = ( paris | rome )\nwords colors from \"c.txt\"\n";
        check_completions(
            &format!("{lists}loc: $* @$0"),
            "replace \"\"\n\
             WordList cities -> \"cities\" (2 entries)\n\
             WordList colors -> \"colors\" (0 entries)",
        );
        check_completions(
            &format!("{lists}loc: $* @co$0 $*"),
            "replace \"co\"\n\
             WordList colors -> \"colors\" (0 entries)",
        );
        // An inline list's body is a regex: corpus words are offered there.
        check_completions(
            &format!("{lists}words more = ( fr$0"),
            "replace \"fr\"\n\
             Word free -> \"free\" (5 × in train)\n\
             Word frank -> \"frank\" (1 × in train)\n\
             Word freedom -> \"freedom\" (1 × in train)",
        );
    }

    #[test]
    fn the_label_being_typed_is_not_offered() {
        check_completions("spa$0: x\n", "<none>");
        check_completions(
            "spa$0: x\nspa: y\n",
            "replace \"spa\"\n\
             Label spa -> \"spa\"",
        );
    }

    #[test]
    fn after_default() {
        check_completions(
            "spam: x\nham <- p\ndefault $0\n",
            "replace \"\"\n\
             Label spam -> \"spam\"\n\
             Label ham -> \"ham\"",
        );
        check_completions(
            "spam: x\nham <- p\ndefault h$0\n",
            "replace \"h\"\n\
             Label ham -> \"ham\"",
        );
        check_completions("spam: x\ndefault spam $0\n", "<none>");
        check_completions(
            "spam: x\ndefault$0 \n",
            "replace \"default\"\n\
             Keyword default -> \"default \" (default LABEL)",
        );
    }

    #[test]
    fn in_a_formula() {
        let rules = "pattern free_call = $* free $* ( call | txt ) $*\npattern greeting = ( hi | hey ) $*\nspam: $* won $*\n";
        check_completions(
            &format!("{rules}spam <- $0"),
            "replace \"\"\n\
             Pattern free_call -> \"free_call\" ($* free $* ( call | txt ) $*)\n\
             Pattern greeting -> \"greeting\" (( hi | hey ) $*)",
        );
        check_completions(
            &format!("{rules}spam <- free_call & !g$0"),
            "replace \"g\"\n\
             Pattern greeting -> \"greeting\" (( hi | hey ) $*)",
        );
        check_completions(
            &format!("{rules}spam <- (fr$0ee | x)"),
            "replace \"free\"\n\
             Pattern free_call -> \"free_call\" ($* free $* ( call | txt ) $*)",
        );
        check_completions(
            &format!("{rules}spam <- free_call &$0"),
            "replace \"\"\n\
             Pattern free_call -> \"free_call\" ($* free $* ( call | txt ) $*)\n\
             Pattern greeting -> \"greeting\" (( hi | hey ) $*)",
        );
        // After a complete operand, an operator must come first.
        check_completions(&format!("{rules}spam <- free_call $0"), "<none>");
        check_completions(&format!("{rules}spam <- (free_call) $0"), "<none>");
    }

    #[test]
    fn in_a_regex() {
        check_completions(
            "spam: $* fr$0",
            "replace \"fr\"\n\
             Word free -> \"free\" (5 × in train)\n\
             Word frank -> \"frank\" (1 × in train)\n\
             Word freedom -> \"freedom\" (1 × in train)",
        );
        // Typed in capitals, completed as the tokenizer spells it; the whole word is replaced.
        check_completions(
            "pattern p = ( FR$0x | y )",
            "replace \"FRx\"\n\
             Word free -> \"free\" (5 × in train)\n\
             Word frank -> \"frank\" (1 × in train)\n\
             Word freedom -> \"freedom\" (1 × in train)",
        );
        check_completions(
            "spam: $* 1$0",
            "replace \"1\"\n\
             Word 1,000 -> \"1,000\" (2 × in train)",
        );
        check_completions(
            "spam: $* caf$0 $*",
            "replace \"caf\"\n\
             Word café -> \"café\" (1 × in train)",
        );
        check_completions("spam: $* zz$0", "<none>");
    }

    #[test]
    fn in_a_regex_with_nothing_typed() {
        let file_with = |fixture_text: &str| {
            let (file, offset) = fixture(fixture_text);
            completions(&file, offset, &words())
        };
        for fixture_text in [
            "spam: $0",
            "spam:$0",
            "spam: $* ( $0",
            "spam: ( a |$0 )",
            "pattern p = $* $0 x",
        ] {
            let items = file_with(fixture_text);
            let labels: Vec<&str> = items.iter().take(6).map(|c| c.label.as_str()).collect();
            assert_eq!(
                labels,
                ["$*", "$", "%", "&", "free", "1,000"],
                "{fixture_text:?}"
            );
            // The four wildcards, then every word of the table.
            assert_eq!(items.len(), 4 + words().len(), "{fixture_text:?}");
        }
    }

    #[test]
    fn nothing_where_nothing_can_be_typed() {
        for fixture_text in [
            "# spam$0",
            "spam: $* # fr$0",
            "spam: \"fr$0",
            "spam: \"fr\"$0",
            "spam: $$0",
            "spam: x*$0",
            "spam: x{1,$0",
            "spam: x{$0",
            "corpus tr$0",
            "corpus train \"da$0",
            "pattern fr$0",
            "pattern p $0",
            "spam $0",
            ") $0",
            "spam <- \"p$0",
        ] {
            check_completions(fixture_text, "<none>");
        }
    }

    #[test]
    fn multibyte_and_out_of_range_offsets() {
        let (file, _) = fixture("spam: $* café$0 😀");
        let words = words();
        // Inside `é` (bytes 12..14): clamps to 12, in `caf`.
        let items = completions(&file, 13.into(), &words);
        assert_eq!(items.first().map(|c| c.label.as_str()), Some("café"));
        // Past the end: clamps to the end, after the emoji word.
        let items = completions(&file, 1000.into(), &words);
        assert!(items.is_empty(), "{items:?}");
        let (file, offset) = fixture("spam: é$0");
        assert!(completions(&file, offset, &words).is_empty());
    }

    #[test]
    fn results_are_capped() {
        let texts: Vec<String> = (0..200).map(|i| format!("w{i}")).collect();
        let words = WordFrequencies::from_texts(texts.iter().map(String::as_str));
        let (file, offset) = fixture("spam: $* w$0");
        let items = completions(&file, offset, &words);
        assert_eq!(items.len(), MAX_COMPLETIONS);
        assert_eq!(items[0].detail.as_deref(), Some("1 × in the corpus"));
    }
}

//! Word lists: the entries of `words NAME = ( a | b c | … )` and of `words NAME from
//! "PATH"`, with their limits, and where a list's file comes from.
//!
//! An inline list is an alternation of literal sequences, checked here; a file holds one
//! entry per line, tokenized as corpora are (`New York` is the two tokens `new york`), with
//! blank lines and lines whose first non-space character is `#` left out. The syntax layer
//! does no I/O: the front end passes a [`WordFiles`] that reads (from disk beside the
//! rules file, or from a checkpoint's manifest). Problems inside a file are reported at
//! the path in the rules file, naming the file, line and column.

use super::ast::{Regex, RegexKind, WordList};
use super::literal::{Literal, classify_literal};
use crate::diagnostic::{Code, Diagnostic};
use crate::text::{LineIndex, SourceText, tokenize};
use std::sync::Arc;
use text_size::TextRange;

/// The most entries one word list may hold (after repeats are dropped); a longer list is an
/// error (E0211) and keeps its first entries.
pub const MAX_WORD_LIST_ENTRIES: usize = 100_000;

/// The most tokens one entry may have; a longer entry is an error (E0211) and left out.
pub const MAX_WORD_LIST_ENTRY_TOKENS: usize = 16;

/// How many problems inside one word-list file are reported; the rest are counted.
const MAX_REPORTED_FILE_PROBLEMS: usize = 5;

/// Where `words NAME from "PATH"` finds its file.
pub trait WordFiles {
    /// The file at `path`, as written in the rules (relative to the rules file), read and
    /// cut into entries ([`WordFile::parse`]), or a sentence saying why there is none. An
    /// implementation may keep what it parsed (the front end's files on disk do, by path,
    /// modification time and length).
    fn file(&self, path: &str) -> Result<Arc<WordFile>, String>;
}

/// No files at all: rules text that has no file of its own.
pub struct NoWordFiles;

impl WordFiles for NoWordFiles {
    fn file(&self, path: &str) -> Result<Arc<WordFile>, String> {
        Err(format!(
            "cannot read `{path}`: these rules have no file for the path to be relative to"
        ))
    }
}

/// A word-list file read and cut into its entries.
#[derive(Debug)]
pub struct WordFile {
    /// Its bytes as read (a checkpoint carries them).
    pub bytes: Arc<[u8]>,
    /// Its entries, repeats dropped; [`MAX_WORD_LIST_ENTRIES`] is applied where a list uses
    /// it.
    pub list: Arc<WordList>,
    /// The problems inside it, as one diagnostic's code and message (the file's path,
    /// line and column in each), reported at the path in the rules file.
    problems: Option<(Code, String)>,
}

impl WordFile {
    /// The file of `bytes`, read from `path` (as written in the rules): one entry per line,
    /// tokenized as corpora are, blank lines and `#` comments left out.
    pub fn parse(bytes: Vec<u8>, path: &str) -> WordFile {
        let (entries, problems) = file_entries(&bytes, path);
        WordFile {
            bytes: bytes.into(),
            list: Arc::new(WordList::new(entries)),
            problems,
        }
    }

    /// The problems inside the file, reported at `at` (the path in the rules file).
    pub(crate) fn diagnostic(&self, at: TextRange) -> Option<Diagnostic> {
        self.problems.as_ref().map(|(code, message)| {
            Diagnostic::new(*code, at, message.clone()).with_help(
                "each line of a word-list file is one entry of at most 16 tokens, in UTF-8",
            )
        })
    }
}

/// The entries of an inline list, `body` being what follows `=`; literals the tokenizer
/// never produces (E0205, reported with the other literals) are left out.
pub(crate) fn inline_entries(body: &Regex, diagnostics: &mut Vec<Diagnostic>) -> Vec<Vec<String>> {
    let branches = match &body.kind {
        RegexKind::Alt(branches) => branches.as_slice(),
        _ => std::slice::from_ref(body),
    };
    let mut entries = Vec::new();
    for branch in branches {
        let items = match &branch.kind {
            RegexKind::Concat(items) => items.as_slice(),
            _ => std::slice::from_ref(branch),
        };
        let mut entry = Vec::with_capacity(items.len());
        let mut producible = true;
        for item in items {
            match &item.kind {
                RegexKind::Word(text) | RegexKind::Quoted(text) => {
                    let quoted = matches!(item.kind, RegexKind::Quoted(_));
                    producible &= matches!(
                        classify_literal(text, quoted, item.range),
                        Literal::Token(_)
                    );
                    entry.push(text.clone());
                }
                // Already reported by the parser.
                RegexKind::Error => producible = false,
                _ => {
                    diagnostics.push(
                        Diagnostic::new(
                            Code::InvalidWordList,
                            item.range,
                            "a word list holds words and quoted tokens only",
                        )
                        .with_help(
                            "write each entry as words or quoted tokens (`new york`, `\"@\"`), and the regex operators in the pattern that uses the list",
                        ),
                    );
                    producible = false;
                }
            }
        }
        if !producible {
            continue;
        }
        if entry.len() > MAX_WORD_LIST_ENTRY_TOKENS {
            diagnostics.push(too_many_tokens(branch.range, entry.len()));
            continue;
        }
        entries.push(entry);
    }
    entries
}

fn too_many_tokens(range: TextRange, tokens: usize) -> Diagnostic {
    Diagnostic::new(
        Code::InvalidWordList,
        range,
        format!("an entry of {tokens} tokens: a word list's entries have at most {MAX_WORD_LIST_ENTRY_TOKENS}"),
    )
    .with_help("split the entry, or write it as a pattern")
}

/// The entries of a word-list file, `bytes` read from `path` (as written in the rules), and
/// its problems in one diagnostic's code and message.
fn file_entries(bytes: &[u8], path: &str) -> (Vec<Vec<String>>, Option<(Code, String)>) {
    let source = SourceText::from_bytes(bytes);
    let index = LineIndex::new(&source.text);
    let mut problems: Vec<String> = source
        .invalid_utf8
        .iter()
        .map(|range| {
            let at = index.line_col(range.start());
            format!(
                "{path}:{}:{}: invalid UTF-8 (the entry keeps a replacement character)",
                at.line + 1,
                at.col + 1
            )
        })
        .collect();
    let mut entries = Vec::new();
    for (number, line) in source.text.lines().enumerate() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let tokens = tokenize(trimmed);
        if tokens.len() > MAX_WORD_LIST_ENTRY_TOKENS {
            let col = line.len() - line.trim_start().len();
            problems.push(format!(
                "{path}:{}:{}: an entry of {} tokens; entries have at most {MAX_WORD_LIST_ENTRY_TOKENS}",
                number + 1,
                col + 1,
                tokens.len()
            ));
            continue;
        }
        entries.push(tokens.iter().map(|t| t.text.to_string()).collect());
    }
    let problems = problems.first().map(|first| {
        let more = problems.len().min(MAX_REPORTED_FILE_PROBLEMS);
        let mut message = problems[..more].join("; ");
        if problems.len() > more {
            message.push_str(&format!("; and {} more", problems.len() - more));
        }
        let code = if first.contains("UTF-8") {
            Code::UnreadableWordList
        } else {
            Code::InvalidWordList
        };
        (code, message)
    });
    (entries, problems)
}

/// `list`, cut to [`MAX_WORD_LIST_ENTRIES`] with an error at `at`.
pub(crate) fn bounded_list(
    list: Arc<WordList>,
    name: &str,
    at: TextRange,
    diagnostics: &mut Vec<Diagnostic>,
) -> Arc<WordList> {
    if list.entries.len() <= MAX_WORD_LIST_ENTRIES {
        return list;
    }
    diagnostics.push(
        Diagnostic::new(
            Code::InvalidWordList,
            at,
            format!(
                "word list `{name}` has {} entries, more than the {MAX_WORD_LIST_ENTRIES} allowed; only the first {MAX_WORD_LIST_ENTRIES} are used",
                list.entries.len()
            ),
        )
        .with_help("split it into several lists"),
    );
    Arc::new(WordList::new(
        list.entries.iter().take(MAX_WORD_LIST_ENTRIES).cloned(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(text: &str) -> Regex {
        let parse = crate::syntax::parse(&format!("words w = {text}\n"));
        match &parse.file.statements[0].kind {
            crate::syntax::ast::StatementKind::Words {
                body: Some(crate::syntax::ast::WordsBody::Inline(regex)),
                ..
            } => regex.clone(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn inline_entries_are_literal_sequences() {
        let mut diagnostics = Vec::new();
        let entries = inline_entries(
            &body("( paris | new york | \"@\" | WON )"),
            &mut diagnostics,
        );
        assert_eq!(
            entries,
            [vec!["paris"], vec!["new", "york"], vec!["@"]]
                .map(|e| e.iter().map(|s| s.to_string()).collect::<Vec<_>>())
        );
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let entries = inline_entries(&body("( paris | $* rome )"), &mut diagnostics);
        assert_eq!(entries, [vec!["paris".to_string()]]);
        assert_eq!(diagnostics.len(), 1);
        assert_eq!(diagnostics[0].code, Code::InvalidWordList);
    }

    #[test]
    fn file_entries_are_tokenized_lines_with_problems_located() {
        let long = "a ".repeat(MAX_WORD_LIST_ENTRY_TOKENS + 1);
        let text = format!("# cities\nNew York\n\n  Paris\n{long}\n");
        let file = WordFile::parse(text.into_bytes(), "c.txt");
        assert_eq!(file.list.entries, [vec!["new", "york"], vec!["paris"]]);
        let diagnostic = file.diagnostic(TextRange::default()).unwrap();
        assert!(
            diagnostic
                .message
                .starts_with("c.txt:5:1: an entry of 17 tokens")
        );

        let file = WordFile::parse(b"rome\nmil\xffan\n".to_vec(), "c.txt");
        assert_eq!(file.list.entries.len(), 2);
        let diagnostic = file.diagnostic(TextRange::default()).unwrap();
        assert_eq!(diagnostic.code, Code::UnreadableWordList);
        assert!(
            diagnostic.message.starts_with("c.txt:2:4: invalid UTF-8"),
            "{}",
            diagnostic.message
        );
        assert!(
            WordFile::parse(b"rome\n".to_vec(), "c.txt")
                .diagnostic(TextRange::default())
                .is_none()
        );
    }

    #[test]
    fn lists_past_the_limit_keep_their_first_entries() {
        let mut diagnostics = Vec::new();
        let entries = (0..MAX_WORD_LIST_ENTRIES + 3).map(|i| vec![format!("w{i}")]);
        let list = bounded_list(
            Arc::new(WordList::new(entries)),
            "w",
            TextRange::default(),
            &mut diagnostics,
        );
        assert_eq!(list.entries.len(), MAX_WORD_LIST_ENTRIES);
        assert_eq!(list.entries[0], ["w0"]);
        assert_eq!(diagnostics[0].code, Code::InvalidWordList);
    }
}

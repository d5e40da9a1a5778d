//! Names under the cursor: go to definition, find references and rename, for pattern names,
//! word lists and labels.
//!
//! A pattern name is defined by `pattern NAME = …` and used in formulas (`LABEL <- a & !b`);
//! a word list is defined by `words NAME …` and used in regexes as `@NAME` (the name, not the
//! `@`, is its occurrence). A duplicate definition is an occurrence too, and uses resolve to
//! the first definition, as `syntax::lower` resolves them. A label occurs in `LABEL: …`, `LABEL <- …` and
//! `default LABEL`; it has no declaration, so its "definition" is its first occurrence in
//! the file. Labels are also the gold labels of the corpora, so renaming a label renames
//! them there too, through each [`Example::label_range`].
//!
//! Names are found in the syntax tree, so a keyword is a name wherever the parser reads it
//! as one: `default: $* x $*` is a rule of the label `default`, and `pattern default = …` a
//! pattern named `default`. A rename may therefore choose a keyword as the new name; the
//! renamed file parses to the same statements.
//!
//! Offsets past the end of the text are clamped to it, and offsets inside a character to
//! its start. Each call is linear in the size of the rules file (rename adds the size of the
//! corpora). Deliberately not here: corpus names (`corpus NAME "…"`), which nothing in a
//! rules file refers to, and anonymous patterns, which have no name to write.

use super::positions::{NameKind, Occurrence, clamp_offset, definitions, occurrences, size};
use super::{FileEdits, TextEdit};
use crate::corpus::Example;
use crate::rules_file::RulesFile;
use crate::syntax::lexer::{LexemeKind, Mode, lex};
use std::fmt;
use std::path::{Path, PathBuf};
use text_size::{TextRange, TextSize};

/// A label or pattern name at the cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameAt {
    pub kind: NameKind,
    pub name: String,
    /// Where this occurrence of the name stands.
    pub range: TextRange,
}

/// The label or pattern name at `offset`: on it, at its start or at its end.
///
/// ```
/// use rulelens::ide::{name_at, NameKind};
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let text = "pattern free = $* free $*\nspam <- free\n";
/// let file = RulesFile::analyze(SourceText::from_bytes(text.as_bytes()), None, &Default::default());
/// let name = name_at(&file, 38.into()).unwrap(); // the end of the last line's `free`
/// assert_eq!((name.kind, name.name.as_str()), (NameKind::Pattern, "free"));
/// assert_eq!(name_at(&file, 2.into()), None); // on the keyword `pattern`
/// ```
pub fn name_at(file: &RulesFile, offset: TextSize) -> Option<NameAt> {
    let occurrences = occurrences(&file.parse.file);
    let occurrence = occurrence_at(file, &occurrences, offset)?;
    Some(NameAt {
        kind: occurrence.kind,
        name: occurrence.name.to_string(),
        range: occurrence.range,
    })
}

fn occurrence_at<'a>(
    file: &RulesFile,
    occurrences: &[Occurrence<'a>],
    offset: TextSize,
) -> Option<Occurrence<'a>> {
    let offset = size(clamp_offset(&file.source.text, offset));
    // Names never touch (a name's characters would join them), so at most one name starts
    // at or before `offset` and still reaches it.
    let n_before = occurrences.partition_point(|o| o.range.start() <= offset);
    let occurrence = occurrences.get(n_before.checked_sub(1)?)?;
    occurrence
        .range
        .contains_inclusive(offset)
        .then_some(*occurrence)
}

/// Where the name at `offset` is defined: a pattern's first `pattern NAME = …`, a label's
/// first occurrence. `None` off a name, and for a pattern that is used but never defined.
///
/// ```
/// use rulelens::ide::definition;
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let text = "pattern free = $* free $*\nspam <- free\n";
/// let file = RulesFile::analyze(SourceText::from_bytes(text.as_bytes()), None, &Default::default());
/// assert_eq!(definition(&file, 36.into()), Some(text_size::TextRange::new(8.into(), 12.into())));
/// ```
pub fn definition(file: &RulesFile, offset: TextSize) -> Option<TextRange> {
    let occurrences = occurrences(&file.parse.file);
    let occurrence = occurrence_at(file, &occurrences, offset)?;
    definitions(&occurrences)
        .get(&(occurrence.kind, occurrence.name))
        .copied()
}

/// Every occurrence of the name at `offset`, in file order; without its definition unless
/// `include_declaration`. Empty off a name.
///
/// ```
/// use rulelens::ide::references;
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let text = "default ham\nspam: $* win $*\nspam <- p\npattern p = $* cash $*\n";
/// let file = RulesFile::analyze(SourceText::from_bytes(text.as_bytes()), None, &Default::default());
/// let spam = references(&file, 13.into(), true);
/// assert_eq!(spam.len(), 2);
/// assert_eq!(references(&file, 13.into(), false).len(), 1);
/// ```
pub fn references(file: &RulesFile, offset: TextSize, include_declaration: bool) -> Vec<TextRange> {
    let occurrences = occurrences(&file.parse.file);
    let Some(target) = occurrence_at(file, &occurrences, offset) else {
        return Vec::new();
    };
    let declaration = definitions(&occurrences)
        .get(&(target.kind, target.name))
        .copied();
    occurrences
        .iter()
        .filter(|o| o.kind == target.kind && o.name == target.name)
        .map(|o| o.range)
        .filter(|&range| include_declaration || Some(range) != declaration)
        .collect()
}

/// The range a rename at `offset` would replace (the name under the cursor), or `None`
/// where there is nothing to rename.
///
/// ```
/// use rulelens::ide::prepare_rename;
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let file = RulesFile::analyze(SourceText::from_bytes(b"default ham\n"), None, &Default::default());
/// assert_eq!(prepare_rename(&file, 9.into()), Some(text_size::TextRange::new(8.into(), 11.into())));
/// assert_eq!(prepare_rename(&file, 3.into()), None);
/// ```
pub fn prepare_rename(file: &RulesFile, offset: TextSize) -> Option<TextRange> {
    name_at(file, offset).map(|name| name.range)
}

/// Why a rename was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RenameError {
    /// The cursor is not on a label or pattern name.
    NotOnName,
    /// The new name is not what the lexer reads as one name.
    InvalidName {
        name: String,
    },
    /// A pattern of that name is already defined or used (at `range`); renaming would merge
    /// the two.
    PatternExists {
        name: String,
        range: TextRange,
    },
    /// A label of that name already exists (first at `range`); renaming would merge the two.
    LabelExists {
        name: String,
        range: TextRange,
    },
    WordListExists {
        name: String,
        range: TextRange,
    },
    /// A bound corpus already has examples of that label; renaming would merge them.
    LabelInCorpus {
        name: String,
        path: PathBuf,
        /// Zero-based, as in [`Example::line`].
        line: u32,
    },
    /// An example has the label but no [`Example::label_range`], so it cannot be edited.
    CorpusLabelNotLocated {
        path: PathBuf,
        /// Zero-based, as in [`Example::line`].
        line: u32,
    },
}

impl fmt::Display for RenameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenameError::NotOnName => {
                write!(
                    f,
                    "there is no label, pattern or word list name at the cursor to rename"
                )
            }
            RenameError::InvalidName { name } => write!(
                f,
                "`{name}` is not a valid name: names are `[A-Za-z_][A-Za-z0-9_.-]*`"
            ),
            RenameError::PatternExists { name, .. } => write!(
                f,
                "a pattern named `{name}` already exists; renaming would merge the two patterns"
            ),
            RenameError::LabelExists { name, .. } => write!(
                f,
                "a label named `{name}` already exists; renaming would merge the two labels"
            ),
            RenameError::WordListExists { name, .. } => write!(
                f,
                "a word list named `{name}` already exists; renaming would merge the two lists"
            ),
            RenameError::LabelInCorpus { name, path, line } => write!(
                f,
                "{}:{} already has examples labeled `{name}`; renaming would merge them with this label's",
                path.display(),
                line + 1
            ),
            RenameError::CorpusLabelNotLocated { path, line } => write!(
                f,
                "{}:{}: the position of the example's label is unknown, so it cannot be renamed",
                path.display(),
                line + 1
            ),
        }
    }
}

impl std::error::Error for RenameError {}

/// The edits that rename the name at `offset` to `new_name`: first the rules file's
/// (`path: None`), then, for a label, one [`FileEdits`] per corpus path whose examples
/// carry that gold label (their `label_range`s are edited). Renaming a name to itself is
/// no edit at all.
///
/// ```
/// use rulelens::corpus::{parse, Format};
/// use rulelens::ide::{apply, rename};
/// use rulelens::rules_file::RulesFile;
/// use rulelens::text::SourceText;
/// let text = "default ham\nspam: $* win $*\n";
/// let file = RulesFile::analyze(SourceText::from_bytes(text.as_bytes()), None, &Default::default());
/// let corpus = "spam\tWIN now\nham\thi\n";
/// let (examples, _) = parse(corpus, Format::Tsv, &[]);
/// let corpora = [("train.tsv".into(), examples.as_slice())];
/// let edits = rename(&file, 13.into(), "junk", &corpora).unwrap();
/// assert_eq!(apply(text, &edits[0].edits), "default ham\njunk: $* win $*\n");
/// assert_eq!(apply(corpus, &edits[1].edits), "junk\tWIN now\nham\thi\n");
/// assert!(rename(&file, 13.into(), "ham", &corpora).is_err()); // ham is a label already
/// ```
pub fn rename(
    file: &RulesFile,
    offset: TextSize,
    new_name: &str,
    corpora: &[(PathBuf, &[Example])],
) -> Result<Vec<FileEdits>, RenameError> {
    let occurrences = occurrences(&file.parse.file);
    let target = occurrence_at(file, &occurrences, offset).ok_or(RenameError::NotOnName)?;
    if !is_name(new_name) {
        return Err(RenameError::InvalidName {
            name: new_name.to_string(),
        });
    }
    if new_name == target.name {
        return Ok(Vec::new());
    }
    if let Some(other) = occurrences
        .iter()
        .find(|o| o.kind == target.kind && o.name == new_name)
    {
        let name = new_name.to_string();
        return Err(match target.kind {
            NameKind::Pattern => RenameError::PatternExists {
                name,
                range: other.range,
            },
            NameKind::Label => RenameError::LabelExists {
                name,
                range: other.range,
            },
            NameKind::WordList => RenameError::WordListExists {
                name,
                range: other.range,
            },
        });
    }
    let replace = |range| TextEdit {
        range,
        new_text: new_name.to_string(),
    };
    let mut res = vec![FileEdits {
        path: None,
        edits: occurrences
            .iter()
            .filter(|o| o.kind == target.kind && o.name == target.name)
            .map(|o| replace(o.range))
            .collect(),
    }];
    if target.kind == NameKind::Label {
        for (path, examples) in corpora {
            let edits = corpus_edits(path, examples, target.name, new_name)?;
            if edits.is_empty() {
                continue;
            }
            match res
                .iter_mut()
                .find(|f| f.path.as_deref() == Some(path.as_path()))
            {
                Some(file_edits) => file_edits.edits.extend(edits),
                None => res.push(FileEdits {
                    path: Some(path.clone()),
                    edits,
                }),
            }
        }
        for file_edits in &mut res {
            file_edits.edits.sort_by_key(|edit| edit.range.start());
            file_edits.edits.dedup_by_key(|edit| edit.range);
        }
    }
    Ok(res)
}

/// Whether the lexer reads all of `name` as one name.
fn is_name(name: &str) -> bool {
    let lexeme = lex(name, 0, Mode::Head);
    lexeme.kind == LexemeKind::Ident
        && usize::from(lexeme.range.start()) == 0
        && usize::from(lexeme.range.end()) == name.len()
}

fn corpus_edits(
    path: &Path,
    examples: &[Example],
    old_name: &str,
    new_name: &str,
) -> Result<Vec<TextEdit>, RenameError> {
    let mut edits = Vec::new();
    for example in examples {
        match example.label.as_deref() {
            Some(label) if label == new_name => {
                return Err(RenameError::LabelInCorpus {
                    name: new_name.to_string(),
                    path: path.to_path_buf(),
                    line: example.line,
                });
            }
            Some(label) if label == old_name => {
                let range =
                    example
                        .label_range
                        .ok_or_else(|| RenameError::CorpusLabelNotLocated {
                            path: path.to_path_buf(),
                            line: example.line,
                        })?;
                edits.push(TextEdit {
                    range,
                    new_text: new_name.to_string(),
                });
            }
            _ => {}
        }
    }
    Ok(edits)
}

#[cfg(test)]
mod tests {
    use super::super::apply;
    use super::*;
    use crate::corpus::{Format, parse};
    use crate::ide::testing::{annotate, fixture, rules_of};

    fn check_name_at(fixture_text: &str, expected: &str) {
        let (file, offset) = fixture(fixture_text);
        let actual = match name_at(&file, offset) {
            Some(name) => format!(
                "{:?} {}\n{}",
                name.kind,
                name.name,
                annotate(&file.source.text, &[name.range])
            ),
            None => "<none>".to_string(),
        };
        assert_eq!(actual, expected, "name at the cursor of {fixture_text:?}");
    }

    fn check_definition(fixture_text: &str, expected: &str) {
        let (file, offset) = fixture(fixture_text);
        let ranges: Vec<TextRange> = definition(&file, offset).into_iter().collect();
        assert_eq!(
            annotate(&file.source.text, &ranges),
            expected,
            "definition at the cursor of {fixture_text:?}"
        );
    }

    fn check_references(fixture_text: &str, include_declaration: bool, expected: &str) {
        let (file, offset) = fixture(fixture_text);
        let ranges = references(&file, offset, include_declaration);
        assert!(
            ranges.windows(2).all(|w| w[0].end() <= w[1].start()),
            "references sorted and disjoint: {ranges:?}"
        );
        assert_eq!(
            annotate(&file.source.text, &ranges),
            expected,
            "references at the cursor of {fixture_text:?}"
        );
    }

    /// Renames at the cursor; the result is the renamed rules text and, after `--- PATH`,
    /// each edited corpus, or `error: MESSAGE`.
    fn check_rename(fixture_text: &str, new_name: &str, corpora: &[(&str, &str)], expected: &str) {
        let (file, offset) = fixture(fixture_text);
        let parsed: Vec<(PathBuf, Vec<Example>)> = corpora
            .iter()
            .map(|(path, text)| (PathBuf::from(path), parse(text, Format::Tsv, &[]).0))
            .collect();
        let borrowed: Vec<(PathBuf, &[Example])> = parsed
            .iter()
            .map(|(path, examples)| (path.clone(), examples.as_slice()))
            .collect();
        let actual = match rename(&file, offset, new_name, &borrowed) {
            Err(error) => format!("error: {error}"),
            Ok(edits) => {
                let mut out = String::new();
                for file_edits in &edits {
                    assert!(
                        file_edits
                            .edits
                            .windows(2)
                            .all(|w| w[0].range.end() <= w[1].range.start()),
                        "edits sorted and disjoint"
                    );
                    match &file_edits.path {
                        None => out.push_str(&apply(&file.source.text, &file_edits.edits)),
                        Some(path) => {
                            let text = corpora
                                .iter()
                                .find(|(p, _)| Path::new(p) == path)
                                .map_or("", |(_, text)| text);
                            out.push_str(&format!(
                                "--- {}\n{}",
                                path.display(),
                                apply(text, &file_edits.edits)
                            ));
                        }
                    }
                }
                out
            }
        };
        assert_eq!(actual, expected, "rename at the cursor of {fixture_text:?}");
    }

    #[test]
    fn name_at_finds_patterns_and_labels_anywhere_on_them() {
        check_name_at(
            "pattern p = $* a $*\nspam <- p$0\n",
            "Pattern p\nspam <- p\n        ^",
        );
        check_name_at(
            "pattern $0pp = $* a $*\n",
            "Pattern pp\npattern pp = $* a $*\n        ^^",
        );
        check_name_at("default h$0am\n", "Label ham\ndefault ham\n        ^^^");
        check_name_at("spam$0: $* a $*\n", "Label spam\nspam: $* a $*\n^^^^");
        check_name_at(
            "spam <- !(a | b$0)\n",
            "Pattern b\nspam <- !(a | b)\n              ^",
        );
    }

    #[test]
    fn name_at_is_none_off_names() {
        check_name_at("$0default ham\n", "<none>");
        check_name_at("pattern p =$0 $* a $*\n", "<none>");
        check_name_at("spam: $* fr$0ee $*\n", "<none>");
        check_name_at("corpus tr$0ain \"t.tsv\"\n", "<none>");
        check_name_at("# spam$0\n", "<none>");
        check_name_at("$0", "<none>");
    }

    #[test]
    fn keywords_are_names_where_the_parser_reads_names() {
        check_name_at(
            "default$0: $* a $*\n",
            "Label default\ndefault: $* a $*\n^^^^^^^",
        );
        check_name_at(
            "default def$0ault\n",
            "Label default\ndefault default\n        ^^^^^^^",
        );
        check_name_at(
            "pattern pattern = a\nspam <- patt$0ern\n",
            "Pattern pattern\nspam <- pattern\n        ^^^^^^^",
        );
    }

    #[test]
    fn offsets_past_the_end_or_inside_a_character_clamp() {
        let file = rules_of("spam: $* é $*\nham <- p");
        let end = TextSize::of(file.source.text.as_str());
        let name = name_at(&file, end + TextSize::from(100)).map(|n| n.name);
        assert_eq!(name.as_deref(), Some("p"));
        // Inside `é` (bytes 9..11): clamps to 9, which is on no name.
        assert_eq!(name_at(&file, TextSize::from(10)), None);
        let file = rules_of("é$0");
        assert_eq!(name_at(&file, TextSize::from(1)), None);
        let file = rules_of("éa: x");
        assert_eq!(
            name_at(&file, TextSize::from(1)).map(|n| n.name),
            None,
            "`é` is not an identifier character, so `éa` is not a label"
        );
    }

    #[test]
    fn definition_of_patterns_and_labels() {
        check_definition(
            "pattern p = $* a $*\nspam <- p$0\n",
            "pattern p = $* a $*\n        ^",
        );
        // The first of two definitions, as `lower` resolves it.
        check_definition(
            "pattern p = a\npattern p = b\nspam <- p$0\n",
            "pattern p = a\n        ^",
        );
        // A word in a regex is no name.
        check_definition(
            "default ham\nspam: $* a $*\nham: $* h$0i $*\nham <- p\n",
            "<none>",
        );
        // A label's first occurrence, even in `default`.
        check_definition(
            "default ham\nspam: $* a $*\nh$0am: $* hi $*\n",
            "default ham\n        ^^^",
        );
        check_definition("spam: x\nspam$0 <- p\n", "spam: x\n^^^^");
        // An unknown pattern has no definition.
        check_definition("spam <- nope$0\n", "<none>");
        check_definition("pattern p = a\nspam <- p & !q$0\n", "<none>");
    }

    #[test]
    fn definition_in_broken_files() {
        // The formula's line is broken after the name; the name still resolves.
        check_definition(
            "pattern p = ( a\nspam <- p$0 ) )\n",
            "pattern p = ( a\n        ^",
        );
        // A pattern statement without `=` still defines its name.
        check_definition(
            "pattern p $* a\nspam <- !p$0 &\n",
            "pattern p $* a\n        ^",
        );
    }

    #[test]
    fn references_in_file_order() {
        let text = "pattern p = $* a $*\nspam <- p & !p\nham <- (p$0 | q)\n";
        check_references(
            text,
            true,
            "pattern p = $* a $*\n        ^\nspam <- p & !p\n        ^    ^\nham <- (p | q)\n        ^",
        );
        check_references(
            text,
            false,
            "spam <- p & !p\n        ^    ^\nham <- (p | q)\n        ^",
        );
    }

    #[test]
    fn references_of_labels_include_default() {
        check_references(
            "default spam\nspam: $* a $*\nham: b\nspam$0 <- p\n",
            true,
            "default spam\n        ^^^^\nspam: $* a $*\n^^^^\nspam <- p\n^^^^",
        );
        check_references(
            "default spam\nspam: $* a $*\nham: b\nspam$0 <- p\n",
            false,
            "spam: $* a $*\n^^^^\nspam <- p\n^^^^",
        );
        check_references("default spam\nspam: $* a$0 $*\n", true, "<none>");
    }

    #[test]
    fn references_with_multibyte_text() {
        check_references(
            "pattern é_p = $* é 😀 $*\npattern p = $* é $*\nspam😀 <- p\nham <- p$0 # é\n",
            true,
            "pattern p = $* é $*\n        ^\nham <- p # é\n       ^",
        );
    }

    #[test]
    fn rename_a_pattern() {
        check_rename(
            "pattern p$0 = $* a $*\nspam <- p & !p\nham: p\n",
            "free_call",
            &[],
            "pattern free_call = $* a $*\nspam <- free_call & !free_call\nham: p\n",
        );
        // A pattern is never renamed in corpora.
        check_rename(
            "pattern p = $* a $*\nspam <- p$0\n",
            "q",
            &[("t.tsv", "p\tx\n")],
            "pattern q = $* a $*\nspam <- q\n",
        );
    }

    #[test]
    fn rename_a_label_in_the_rules_and_the_corpora() {
        check_rename(
            "default ham\nspam: $* win $*\nspam$0 <- p\npattern p = cash\n",
            "junk",
            &[
                (
                    "train.tsv",
                    "spam\tWIN\nham\thi\n  spam \tcash\n\tno label\n",
                ),
                ("dev.tsv", "ham\thello\n"),
            ],
            "default ham\njunk: $* win $*\njunk <- p\npattern p = cash\n--- train.tsv\njunk\tWIN\nham\thi\n  junk \tcash\n\tno label\n",
        );
        check_rename(
            "default ha$0m\nspam: $* win $*\n",
            "ok",
            &[("train.tsv", "ham\thi\n"), ("dev.tsv", "ham\tyo\n")],
            "default ok\nspam: $* win $*\n--- train.tsv\nok\thi\n--- dev.tsv\nok\tyo\n",
        );
    }

    #[test]
    fn rename_a_label_in_a_jsonl_corpus() {
        let (file, offset) = fixture("spam$0: $* win $*\n");
        let corpus = "{\"text\": \"win\", \"label\": \"spam\"}\n{\"label\": \"sp\\u0061m\", \"text\": \"x\"}\n";
        let (examples, diagnostics) = parse(corpus, Format::Jsonl, &[]);
        assert!(diagnostics.is_empty());
        let edits = rename(&file, offset, "junk", &[("c.jsonl".into(), &examples)]).unwrap();
        assert_eq!(edits.len(), 2);
        assert_eq!(
            apply(corpus, &edits[1].edits),
            "{\"text\": \"win\", \"label\": \"junk\"}\n{\"label\": \"junk\", \"text\": \"x\"}\n"
        );
    }

    #[test]
    fn rename_refuses_collisions() {
        check_rename(
            "pattern p = a\npattern q = b\nspam <- p$0 | q\n",
            "q",
            &[],
            "error: a pattern named `q` already exists; renaming would merge the two patterns",
        );
        // An undefined pattern that is used counts: its uses would start meaning `p`.
        check_rename(
            "pattern p = a\nspam <- p$0 | q\n",
            "q",
            &[],
            "error: a pattern named `q` already exists; renaming would merge the two patterns",
        );
        check_rename(
            "default ham\nspam$0: $* win $*\n",
            "ham",
            &[],
            "error: a label named `ham` already exists; renaming would merge the two labels",
        );
        check_rename(
            "spam$0: $* win $*\n",
            "ham",
            &[("train.tsv", "spam\twin\n\nham\thi\n")],
            "error: train.tsv:3 already has examples labeled `ham`; renaming would merge them with this label's",
        );
    }

    #[test]
    fn rename_across_namespaces_is_allowed() {
        // A label and a pattern may share a name.
        check_rename(
            "pattern p$0 = a\nspam <- p\n",
            "spam",
            &[],
            "pattern spam = a\nspam <- spam\n",
        );
    }

    #[test]
    fn rename_refuses_bad_names_and_positions() {
        let invalid = |name: &str| {
            format!("error: `{name}` is not a valid name: names are `[A-Za-z_][A-Za-z0-9_.-]*`")
        };
        for name in [
            "", "1abc", "a b", " a", "a:", "é", "a#", "a<-b", "\"a\"", "a\n",
        ] {
            check_rename("spam$0: x\n", name, &[], &invalid(name));
        }
        check_rename(
            "spam: $* x$0 $*\n",
            "ham",
            &[],
            "error: there is no label, pattern or word list name at the cursor to rename",
        );
    }

    #[test]
    fn rename_to_a_name_with_dots_and_dashes() {
        check_rename(
            "spam$0 <- p-1\npattern p-1 = a\n",
            "s.p-am_2",
            &[],
            "s.p-am_2 <- p-1\npattern p-1 = a\n",
        );
    }

    #[test]
    fn rename_to_a_keyword_keeps_the_statements() {
        let text = "default ham\nham$0: $* hi $*\npattern p = a\nspam <- p\n";
        check_rename(
            text,
            "default",
            &[],
            "default default\ndefault: $* hi $*\npattern p = a\nspam <- p\n",
        );
        check_rename(
            "default ham\nham: $* hi $*\npattern p$0 = a\nspam <- p\n",
            "pattern",
            &[],
            "default ham\nham: $* hi $*\npattern pattern = a\nspam <- pattern\n",
        );
        // And the renamed files mean the same: same labels, same patterns, no new errors.
        let (file, offset) = fixture(text);
        let edits = rename(&file, offset, "default", &[]).unwrap();
        let renamed = rules_of(&apply(&file.source.text, &edits[0].edits));
        assert!(!renamed.has_errors(), "{:?}", renamed.diagnostics);
        let labels: Vec<&str> = renamed
            .rules
            .labels
            .iter()
            .map(|l| l.name.as_str())
            .collect();
        assert_eq!(labels, ["default", "spam"]);
        assert_eq!(renamed.rules.default, Some(crate::syntax::LabelId(0)));
    }

    #[test]
    fn rename_to_the_same_name_changes_nothing() {
        let (file, offset) = fixture("spam$0: x\n");
        assert_eq!(rename(&file, offset, "spam", &[]), Ok(Vec::new()));
    }

    #[test]
    fn rename_refuses_an_example_without_a_label_range() {
        let (file, offset) = fixture("spam$0: x\n");
        let example = Example {
            text: "x".into(),
            label: Some("spam".into()),
            line: 4,
            text_range: None,
            label_range: None,
        };
        let error = rename(&file, offset, "junk", &[("c.tsv".into(), &[example])]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "c.tsv:5: the position of the example's label is unknown, so it cannot be renamed"
        );
    }

    #[test]
    fn prepare_rename_is_the_name_range() {
        let (file, offset) = fixture("default ham\nspam: $* x $*\nspam <- p$0\n");
        let range = prepare_rename(&file, offset).unwrap();
        assert_eq!(
            annotate(&file.source.text, &[range]),
            "spam <- p\n        ^"
        );
        let (file, offset) = fixture("default$0 ham\n");
        assert_eq!(prepare_rename(&file, offset), None);
    }
}

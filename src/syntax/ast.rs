//! The syntax tree of a `.rules` file. Every node carries its byte range in the source.
//!
//! The tree is what the parser recognised, errors included: a statement whose name or
//! body could not be parsed keeps the parts that could (`Option`), and a broken
//! sub-expression is an `Error` node, so later passes see everything the user wrote.

use std::fmt::Write;
use std::sync::Arc;
use text_size::TextRange;

/// A parsed `.rules` file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleFile {
    pub statements: Vec<Statement>,
}

/// One line's statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub kind: StatementKind,
    pub range: TextRange,
}

/// What a statement says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatementKind {
    /// `default LABEL`
    Default { label: Option<Name> },
    /// `corpus NAME "PATH"`
    Corpus {
        name: Option<Name>,
        path: Option<StringLiteral>,
    },
    /// `pattern NAME = REGEX`
    Pattern {
        name: Option<Name>,
        regex: Option<Regex>,
    },
    /// `LABEL: REGEX`
    LabelRegex { label: Name, regex: Option<Regex> },
    /// `LABEL <- FORMULA`
    LabelFormula {
        label: Name,
        formula: Option<Formula>,
    },
    /// `words NAME = ( a | b | … )` or `words NAME from "PATH"`
    Words {
        name: Option<Name>,
        body: Option<WordsBody>,
    },
}

/// Where a word list's entries are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WordsBody {
    /// `= REGEX`: an alternation of literal sequences (checked when names are resolved).
    Inline(Regex),
    /// `from "PATH"`: one entry per line of a file, relative to the rules file.
    File(StringLiteral),
}

/// An identifier: a label, pattern or corpus name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub range: TextRange,
}

/// A quoted string with its escapes resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StringLiteral {
    pub value: String,
    pub range: TextRange,
}

/// A regular expression over tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Regex {
    pub kind: RegexKind,
    pub range: TextRange,
}

/// The regular-expression operators of the spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegexKind {
    /// A bare literal word, as written.
    Word(String),
    /// A quoted literal, escapes resolved.
    Quoted(String),
    /// `$`: any one token.
    Any,
    /// `%`: any one number token.
    Number,
    /// `&`: any one punctuation token.
    Punct,
    Concat(Vec<Regex>),
    Alt(Vec<Regex>),
    /// `x*` (0, None), `x+` (1, None), `x?` (0, Some(1)), `x{m}`, `x{m,n}`.
    Repeat {
        inner: Box<Regex>,
        min: u32,
        max: Option<u32>,
    },
    /// `@NAME`: any entry of a word list.
    WordList(WordListRef),
    /// Something that did not parse; a diagnostic says what.
    Error,
}

/// `@NAME` in a regex: the list's name, and its entries once names are resolved (`None`
/// before, and for a name that no `words` statement declares: it then matches nothing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WordListRef {
    pub name: String,
    pub list: Option<Arc<WordList>>,
}

/// The entries of a word list, each a sequence of one or more tokens as the tokenizer
/// spells them (`new york` is two), without repeats, in the order first written.
#[derive(Clone, PartialEq, Eq)]
pub struct WordList {
    pub entries: Vec<Vec<String>>,
    /// SHA-256 of the entries: two lists with the same fingerprint match the same tokens.
    pub fingerprint: String,
}

impl std::fmt::Debug for WordList {
    /// The size and fingerprint: a list may hold a hundred thousand entries.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "WordList({} entries, {})",
            self.entries.len(),
            &self.fingerprint[..12.min(self.fingerprint.len())]
        )
    }
}

impl WordList {
    /// A list of these entries, repeats dropped.
    pub fn new(entries: impl IntoIterator<Item = Vec<String>>) -> WordList {
        use sha2::{Digest, Sha256};
        let mut seen = std::collections::HashSet::new();
        let mut kept = Vec::new();
        let mut hasher = Sha256::new();
        for entry in entries {
            if !entry.is_empty() && seen.insert(entry.clone()) {
                for token in &entry {
                    hasher.update(token.as_bytes());
                    hasher.update([0u8]);
                }
                hasher.update([1u8]);
                kept.push(entry);
            }
        }
        let fingerprint = crate::digest::hex(&hasher.finalize());
        WordList {
            entries: kept,
            fingerprint,
        }
    }
}

/// A propositional formula over pattern names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Formula {
    pub kind: FormulaKind,
    pub range: TextRange,
}

/// The formula operators: `!`, `&`, `|` and names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormulaKind {
    Name(String),
    Not(Box<Formula>),
    And(Vec<Formula>),
    Or(Vec<Formula>),
    /// Something that did not parse; a diagnostic says what.
    Error,
}

impl Regex {
    /// Calls `f` on this node and every node below it, parents first, in order (depth
    /// bounded by the parser's nesting caps).
    pub fn visit<'r>(&'r self, f: &mut impl FnMut(&'r Regex)) {
        f(self);
        match &self.kind {
            RegexKind::Concat(items) | RegexKind::Alt(items) => {
                items.iter().for_each(|item| item.visit(f))
            }
            RegexKind::Repeat { inner, .. } => inner.visit(f),
            RegexKind::Word(_)
            | RegexKind::Quoted(_)
            | RegexKind::Any
            | RegexKind::Number
            | RegexKind::Punct
            | RegexKind::WordList(_)
            | RegexKind::Error => {}
        }
    }

    /// The regex of the reversed language: every concatenation in reverse order. A sentence
    /// matches `self` exactly when its reversed token sequence matches `self.reversed()`
    /// (for the backward direction of bidirectional networks).
    pub fn reversed(&self) -> Regex {
        let kind = match &self.kind {
            RegexKind::Concat(items) => {
                RegexKind::Concat(items.iter().rev().map(Regex::reversed).collect())
            }
            RegexKind::Alt(items) => RegexKind::Alt(items.iter().map(Regex::reversed).collect()),
            RegexKind::Repeat { inner, min, max } => RegexKind::Repeat {
                inner: Box::new(inner.reversed()),
                min: *min,
                max: *max,
            },
            // Entries of several tokens read backwards too.
            RegexKind::WordList(WordListRef {
                name,
                list: Some(list),
            }) if list.entries.iter().any(|entry| entry.len() > 1) => {
                RegexKind::WordList(WordListRef {
                    name: name.clone(),
                    list: Some(Arc::new(WordList::new(
                        list.entries
                            .iter()
                            .map(|entry| entry.iter().rev().cloned().collect::<Vec<_>>()),
                    ))),
                })
            }
            leaf => leaf.clone(),
        };
        Regex {
            kind,
            range: self.range,
        }
    }
}

impl RuleFile {
    /// An indented dump of the tree with ranges, for snapshot tests.
    pub fn dump(&self) -> String {
        let mut out = String::new();
        for statement in &self.statements {
            let range = statement.range;
            match &statement.kind {
                StatementKind::Default { label } => {
                    let _ = writeln!(out, "Default {range:?}");
                    dump_name(&mut out, "label", label.as_ref());
                }
                StatementKind::Corpus { name, path } => {
                    let _ = writeln!(out, "Corpus {range:?}");
                    dump_name(&mut out, "name", name.as_ref());
                    if let Some(path) = path {
                        let _ = writeln!(out, "  path {:?} {:?}", path.value, path.range);
                    }
                }
                StatementKind::Pattern { name, regex } => {
                    let _ = writeln!(out, "Pattern {range:?}");
                    dump_name(&mut out, "name", name.as_ref());
                    if let Some(regex) = regex {
                        dump_regex(&mut out, regex, 1);
                    }
                }
                StatementKind::LabelRegex { label, regex } => {
                    let _ = writeln!(out, "LabelRegex {range:?}");
                    dump_name(&mut out, "label", Some(label));
                    if let Some(regex) = regex {
                        dump_regex(&mut out, regex, 1);
                    }
                }
                StatementKind::LabelFormula { label, formula } => {
                    let _ = writeln!(out, "LabelFormula {range:?}");
                    dump_name(&mut out, "label", Some(label));
                    if let Some(formula) = formula {
                        dump_formula(&mut out, formula, 1);
                    }
                }
                StatementKind::Words { name, body } => {
                    let _ = writeln!(out, "Words {range:?}");
                    dump_name(&mut out, "name", name.as_ref());
                    match body {
                        Some(WordsBody::Inline(regex)) => dump_regex(&mut out, regex, 1),
                        Some(WordsBody::File(path)) => {
                            let _ = writeln!(out, "  from {:?} {:?}", path.value, path.range);
                        }
                        None => {}
                    }
                }
            }
        }
        out
    }
}

fn dump_name(out: &mut String, what: &str, name: Option<&Name>) {
    if let Some(name) = name {
        let _ = writeln!(out, "  {what} {:?} {:?}", name.text, name.range);
    }
}

fn dump_regex(out: &mut String, regex: &Regex, depth: usize) {
    let indent = "  ".repeat(depth);
    let range = regex.range;
    match &regex.kind {
        RegexKind::Word(word) => {
            let _ = writeln!(out, "{indent}Word {word:?} {range:?}");
        }
        RegexKind::Quoted(word) => {
            let _ = writeln!(out, "{indent}Quoted {word:?} {range:?}");
        }
        RegexKind::Any => {
            let _ = writeln!(out, "{indent}Any {range:?}");
        }
        RegexKind::Number => {
            let _ = writeln!(out, "{indent}Number {range:?}");
        }
        RegexKind::Punct => {
            let _ = writeln!(out, "{indent}Punct {range:?}");
        }
        RegexKind::Error => {
            let _ = writeln!(out, "{indent}Error {range:?}");
        }
        RegexKind::WordList(list) => {
            let _ = writeln!(out, "{indent}WordList {:?} {range:?}", list.name);
        }
        RegexKind::Concat(items) | RegexKind::Alt(items) => {
            let what = if matches!(regex.kind, RegexKind::Concat(_)) {
                "Concat"
            } else {
                "Alt"
            };
            let _ = writeln!(out, "{indent}{what} {range:?}");
            for item in items {
                dump_regex(out, item, depth + 1);
            }
        }
        RegexKind::Repeat { inner, min, max } => {
            let max = max.map_or(String::new(), |max| max.to_string());
            let _ = writeln!(out, "{indent}Repeat {{{min},{max}}} {range:?}");
            dump_regex(out, inner, depth + 1);
        }
    }
}

fn dump_formula(out: &mut String, formula: &Formula, depth: usize) {
    let indent = "  ".repeat(depth);
    let range = formula.range;
    match &formula.kind {
        FormulaKind::Name(name) => {
            let _ = writeln!(out, "{indent}Name {name:?} {range:?}");
        }
        FormulaKind::Error => {
            let _ = writeln!(out, "{indent}Error {range:?}");
        }
        FormulaKind::Not(inner) => {
            let _ = writeln!(out, "{indent}Not {range:?}");
            dump_formula(out, inner, depth + 1);
        }
        FormulaKind::And(items) | FormulaKind::Or(items) => {
            let what = if matches!(formula.kind, FormulaKind::And(_)) {
                "And"
            } else {
                "Or"
            };
            let _ = writeln!(out, "{indent}{what} {range:?}");
            for item in items {
                dump_formula(out, item, depth + 1);
            }
        }
    }
}

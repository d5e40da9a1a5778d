//! The syntax tree of a `.rules` file. Every node carries its byte range in the source.
//!
//! The tree is what the parser recognised, errors included: a statement whose name or
//! body could not be parsed keeps the parts that could (`Option`), and a broken
//! sub-expression is an `Error` node, so later passes see everything the user wrote.

use std::fmt::Write;
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
    /// Something that did not parse; a diagnostic says what.
    Error,
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
